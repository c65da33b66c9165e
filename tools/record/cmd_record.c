/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: run a bare-metal Arm ELF program and write its Tarmac
 * trace.
 *
 *   tracekit record [OPTIONS] PROGRAM.elf [ARGS...] -o TRACE.tarmac
 *
 * Options go before PROGRAM; what follows PROGRAM is the program's command
 * line, except -o/--output (anywhere before a "--").
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "record.h"

#ifndef TK_HAVE_UNICORN

int tk_cmd_record(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "%s: this tracekit was built without the unicorn emulator "
			"(install libunicorn-dev and rebuild)\n", argv[0]);
	return TK_EXIT_FAIL;
}

#else

#include <unicorn/unicorn.h>

#include "trace.h"

static const char usage_text[] =
	"usage: %s [OPTIONS] PROGRAM.elf [ARGS...] -o TRACE.tarmac\n";

static const char help_text[] =
	"\n"
	"Run a bare-metal Arm program (AArch64, AArch32 Arm/Thumb or M-profile)\n"
	"in the unicorn emulator and write a Tarmac trace of every instruction,\n"
	"register change and memory access, in the Arm Fast Model style.  The\n"
	"program talks to the outside through Arm semihosting (newlib's rdimon):\n"
	"its console output goes to standard output, and its exit status becomes\n"
	"tracekit's.  The same program and arguments give the same trace.\n"
	"\n"
	"Options (before PROGRAM):\n"
	"  -o, --output=FILE     the trace file (required; - for standard output,\n"
	"                        which sends the program's console to stderr)\n"
	"  --arch=ARCH           aarch64, arm, thumb or m-profile (default: from\n"
	"                        the ELF header and build attributes)\n"
	"  --cpu=CPU             cortex-a53/a57/a72 (AArch64), cortex-a7/a8/a9/a15,\n"
	"                        cortex-r5/r5f, cortex-m0/m3/m4/m7/m33, or max\n"
	"  --max-insns=N         stop after N instructions (0, the default: no limit)\n"
	"  --max-trace-size=N    stop once the trace has reached N bytes (default 10G;\n"
	"                        K, M, G suffixes; 0: no limit): a program stuck in\n"
	"                        a loop cannot fill the disk\n"
	"  --allow-fs            let the program open files outside the working\n"
	"                        directory\n"
	"  --host-time           semihosting clocks use the host's time (the trace\n"
	"                        is then no longer reproducible); by default one\n"
	"                        instruction is one tick of a 100 MHz clock\n"
	"  --stack-size=N        stack size (default 1M; 1 byte to 1T)\n"
	"  --heap-size=N         heap size (default 64M; 1 byte to 1T)\n"
	"  --all-regs            compare every register after every instruction\n"
	"                        (slow; the same trace, for testing the recorder)\n"
	"  -v, --verbose         print a summary (instructions, speed) at the end\n"
	"  -q, --quiet           no message when --max-insns stops the program\n"
	"  --help                show this help\n"
	"  --version             show the version\n"
	"\n"
	"Exit status: the program's, if it exits; 0 if --max-insns stopped it;\n"
	"1 if it faulted (the trace ends with the faulting instruction and an E\n"
	"line; the fault is described on stderr), reached --max-trace-size, or\n"
	"could not be run; 2 for a bad command line.  Ctrl-C (SIGINT), SIGTERM or\n"
	"SIGHUP stop the program: the trace so far is kept at FILE, complete up\n"
	"to its last instruction, and tracekit then dies of the signal (a second\n"
	"one ends it at once).  An output that cannot be written (a directory,\n"
	"a read-only file, a missing directory) is refused before the program\n"
	"runs.\n";

struct cpu {
	const char *name;
	int profile;		/* REC_PROFILE_*; -1: any (max) */
	int uc_cpu;
	int dregs;		/* AArch32 FP D registers */
};

static const struct cpu cpus[] = {
	{"cortex-a53", REC_PROFILE_A64, UC_CPU_ARM64_A53, 0},
	{"cortex-a57", REC_PROFILE_A64, UC_CPU_ARM64_A57, 0},
	{"cortex-a72", REC_PROFILE_A64, UC_CPU_ARM64_A72, 0},
	{"max", REC_PROFILE_A64, UC_CPU_ARM64_MAX, 0},
	{"cortex-a7", REC_PROFILE_A32, UC_CPU_ARM_CORTEX_A7, 32},
	{"cortex-a8", REC_PROFILE_A32, UC_CPU_ARM_CORTEX_A8, 32},
	{"cortex-a9", REC_PROFILE_A32, UC_CPU_ARM_CORTEX_A9, 32},
	{"cortex-a15", REC_PROFILE_A32, UC_CPU_ARM_CORTEX_A15, 32},
	{"cortex-r5", REC_PROFILE_A32, UC_CPU_ARM_CORTEX_R5, 0},
	{"cortex-r5f", REC_PROFILE_A32, UC_CPU_ARM_CORTEX_R5F, 16},
	{"max", REC_PROFILE_A32, UC_CPU_ARM_MAX, 32},
	{"cortex-m0", REC_PROFILE_M, UC_CPU_ARM_CORTEX_M0, 0},
	{"cortex-m3", REC_PROFILE_M, UC_CPU_ARM_CORTEX_M3, 0},
	{"cortex-m4", REC_PROFILE_M, UC_CPU_ARM_CORTEX_M4, 16},
	{"cortex-m7", REC_PROFILE_M, UC_CPU_ARM_CORTEX_M7, 16},
	{"cortex-m33", REC_PROFILE_M, UC_CPU_ARM_CORTEX_M33, 16},
};
#define NCPUS (sizeof cpus / sizeof cpus[0])

struct opts {
	const char *prog;
	const char *output;
	const char *arch;
	const char *cpu;
	uint64_t max_insns, max_bytes;
	uint64_t stack_size, heap_size;
	bool allow_fs, host_time, all_regs;
	int verbose;
	bool quiet;
	const char *program;
	char **pargv;		/* program argv: [0] = PROGRAM */
	int pargc;
};

static int usage_error(const char *prog, const char *msg, const char *arg)
{
	if (msg)
		fprintf(stderr, "%s: %s%s%s\n", prog, msg, arg ? " " : "", arg ? arg : "");
	fprintf(stderr, usage_text, prog);
	fprintf(stderr, "Run '%s --help' for the options.\n", prog);
	return TK_EXIT_USAGE;
}

/* "N", "0x..", with an optional K/M/G suffix. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (*s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	unsigned shift = 0;
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'm' || *end == 'M')
		shift = 20, end++;
	else if (*end == 'g' || *end == 'G')
		shift = 30, end++;
	else if (*end == 't' || *end == 'T')
		shift = 40, end++;
	if (*end || (shift && v > (~0ull >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

/* The largest heap or stack: far below where the rounding to pages and
 * the layout arithmetic could wrap. */
#define MAX_REGION_SIZE (1ull << 40)

/* An option with a value: "--name=V", "--name V" or "-o V". */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (!strncmp(a, name, n) && a[n] == '=')
		return a + n + 1;
	if (!strcmp(a, name) && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static bool is_opt(const char *a, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(a, name, n) && (a[n] == 0 || a[n] == '=');
}

/* parse_args: --help was shown, stop (exit 0). */
#define HELP_SHOWN (-1)

static int parse_args(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->prog = argv[0];
	o->stack_size = 1ull << 20;
	o->heap_size = 64ull << 20;
	o->max_bytes = 10ull << 30;
	o->pargv = calloc((size_t)argc + 1, sizeof *o->pargv);
	if (!o->pargv)
		return TK_EXIT_FAIL;
	bool dashdash = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (o->program) {
			/* After PROGRAM: its arguments, except -o. */
			if (!dashdash && !strcmp(a, "--")) {
				dashdash = true;
			} else if (!dashdash && (!strcmp(a, "-o") || is_opt(a, "--output"))) {
				if (!(v = opt_value(argc, argv, &i, !strcmp(a, "-o") ? "-o" : "--output")))
					return usage_error(o->prog, "missing value for", a);
				o->output = v;
			} else {
				o->pargv[o->pargc++] = argv[i];
			}
			continue;
		}
		if (!strcmp(a, "--version")) {
			tk_cli_print_version(o->prog);
			return HELP_SHOWN;	/* done: exit 0 */
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf(usage_text, o->prog);
			fputs(help_text, stdout);
			return HELP_SHOWN;
		} else if (!strcmp(a, "--")) {
			if (i + 1 >= argc)
				return usage_error(o->prog, "missing PROGRAM", NULL);
			o->program = argv[++i];
			o->pargv[o->pargc++] = argv[i];
			dashdash = true;
		} else if (a[0] != '-' || !a[1]) {
			o->program = a;
			o->pargv[o->pargc++] = argv[i];
		} else if (!strcmp(a, "-o") || is_opt(a, "--output")) {
			if (!(v = opt_value(argc, argv, &i, !strcmp(a, "-o") ? "-o" : "--output")))
				return usage_error(o->prog, "missing value for", a);
			o->output = v;
		} else if (is_opt(a, "--arch")) {
			if (!(o->arch = opt_value(argc, argv, &i, "--arch")))
				return usage_error(o->prog, "missing value for", a);
		} else if (is_opt(a, "--cpu")) {
			if (!(o->cpu = opt_value(argc, argv, &i, "--cpu")))
				return usage_error(o->prog, "missing value for", a);
		} else if (is_opt(a, "--max-insns") || is_opt(a, "--stack-size") ||
			   is_opt(a, "--heap-size") || is_opt(a, "--max-trace-size")) {
			const char *name = is_opt(a, "--max-insns") ? "--max-insns"
					   : is_opt(a, "--stack-size") ? "--stack-size"
					   : is_opt(a, "--heap-size") ? "--heap-size" : "--max-trace-size";
			uint64_t n;
			if (!(v = opt_value(argc, argv, &i, name)))
				return usage_error(o->prog, "missing value for", a);
			if (parse_size(v, &n) != 0)
				return usage_error(o->prog, "bad number:", v);
			if (!strcmp(name, "--max-insns")) {
				o->max_insns = n;
			} else if (!strcmp(name, "--max-trace-size")) {
				o->max_bytes = n;
			} else {
				if (n == 0 || n > MAX_REGION_SIZE) {
					fprintf(stderr, "%s: %s=%s: the size must be from 1 byte to 1T\n",
						o->prog, name, v);
					return TK_EXIT_USAGE;
				}
				if (name[2] == 's')
					o->stack_size = n;
				else
					o->heap_size = n;
			}
		} else if (!strcmp(a, "--allow-fs")) {
			o->allow_fs = true;
		} else if (!strcmp(a, "--all-regs")) {
			o->all_regs = true;
		} else if (!strcmp(a, "--host-time")) {
			o->host_time = true;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o->verbose++;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = true;
		} else {
			return usage_error(o->prog, "unknown option", a);
		}
	}
	if (!o->program)
		return usage_error(o->prog, "missing PROGRAM", NULL);
	if (!o->output)
		return usage_error(o->prog, "missing -o TRACE", NULL);
	for (int i = 0; i < o->pargc; i++)
		if (rec_semihost_arg_quote(o->pargv[i]) < 0)
			return usage_error(o->prog, "cannot pass an argument with a blank and both "
					   "kinds of quote to the program:", o->pargv[i]);
	return 0;
}

/* The core to emulate: --cpu, else a guess from the image. */
static const struct cpu *choose_cpu(const struct opts *o, const rec_image *img, int profile)
{
	if (o->cpu) {
		for (size_t i = 0; i < NCPUS; i++)
			if (!strcmp(cpus[i].name, o->cpu) && cpus[i].profile == profile)
				return &cpus[i];
		return NULL;
	}
	const char *name = "cortex-a15";
	if (profile == REC_PROFILE_A64) {
		name = "cortex-a72";
	} else if (profile == REC_PROFILE_M) {
		int a = img->cpu_arch;
		if (a == 11 || a == 12)
			name = "cortex-m0";
		else if (a == 13 && img->fp_arch >= 7)
			name = "cortex-m7";	/* FPv5 */
		else if (a == 13)
			name = img->fp_arch ? "cortex-m4" : "cortex-m3";
		else if (a >= 16)
			name = "cortex-m33";
		else
			name = "cortex-m3";
	} else if (img->cpu_arch >= 14) {
		name = "max";		/* Armv8 AArch32 */
	}
	for (size_t i = 0; i < NCPUS; i++)
		if (!strcmp(cpus[i].name, name) && cpus[i].profile == profile)
			return &cpus[i];
	return NULL;
}

static int arch_profile(const struct opts *o, const rec_image *img, int *profile, bool *thumb)
{
	*profile = img->profile;
	*thumb = img->thumb_entry || img->profile == REC_PROFILE_M;
	const char *a = o->arch;
	if (!a && o->cpu && !strncmp(o->cpu, "cortex-m", 8) && img->profile == REC_PROFILE_A32)
		a = "m-profile";
	if (!a)
		return 0;
	bool elf64 = img->profile == REC_PROFILE_A64;
	if (!strcmp(a, "aarch64") || !strcmp(a, "a64")) {
		if (!elf64)
			return -1;
	} else if (!strcmp(a, "arm") || !strcmp(a, "a32")) {
		if (elf64)
			return -1;
		*profile = REC_PROFILE_A32;
		*thumb = false;
	} else if (!strcmp(a, "thumb") || !strcmp(a, "t32")) {
		if (elf64)
			return -1;
		*profile = REC_PROFILE_A32;
		*thumb = true;
	} else if (!strcmp(a, "m-profile") || !strcmp(a, "m") || !strcmp(a, "cortex-m")) {
		if (elf64)
			return -1;
		*profile = REC_PROFILE_M;
		*thumb = true;
	} else {
		return -2;
	}
	return 0;
}

/* Load the segments, add the heap and stack, map it all. */
static int setup_memory(rec *r, const rec_image *img, const struct opts *o, char *err, size_t n)
{
	uint64_t top = 0;
	for (int i = 0; i < img->nseg; i++) {
		const rec_segment *s = &img->seg[i];
		if (rec_mem_add(&r->mem, s->vaddr, s->memsz) || rec_mem_add(&r->mem, s->paddr, s->memsz)) {
			snprintf(err, n, "too many or bad program segments");
			return -1;
		}
		if (s->vaddr + s->memsz > top)
			top = s->vaddr + s->memsz;
		if (s->paddr + s->memsz > top)
			top = s->paddr + s->memsz;
	}
	uint64_t limit = r->profile == REC_PROFILE_A64 ? 1ull << 48
			 : r->profile == REC_PROFILE_M ? 0xE0000000ull : 1ull << 32;
	r->heap_base = (top + 0xFFF) & ~0xFFFull;	/* sbrk starts at `end` */
	r->heap_limit = r->heap_base + ((o->heap_size + 0xFFF) & ~0xFFFull);
	r->stack_limit = r->heap_limit;
	r->stack_base = r->stack_limit + ((o->stack_size + 0xFFF) & ~0xFFFull);
	if (r->stack_base > limit || r->stack_base < r->heap_base) {
		snprintf(err, n, "no room for a %llu-byte heap and %llu-byte stack above the program "
			 "(try --heap-size / --stack-size)",
			 (unsigned long long)o->heap_size, (unsigned long long)o->stack_size);
		return -1;
	}
	if (rec_mem_add(&r->mem, r->heap_base, r->stack_base - r->heap_base) ||
	    rec_mem_alloc(&r->mem)) {
		snprintf(err, n, "cannot allocate the program's memory");
		return -1;
	}
	for (int i = 0; i < r->mem.n; i++) {
		rec_region *g = &r->mem.r[i];
		uc_err e = uc_mem_map_ptr(r->uc, g->base, g->size, UC_PROT_ALL, g->host);
		if (e != UC_ERR_OK) {
			snprintf(err, n, "cannot map 0x%llx-0x%llx: %s", (unsigned long long)g->base,
				 (unsigned long long)(g->base + g->size), uc_strerror(e));
			return -1;
		}
	}
	/* Bytes go where a loader puts them: the physical (load) address. */
	for (int i = 0; i < img->nseg; i++) {
		const rec_segment *s = &img->seg[i];
		if (rec_mem_write(&r->mem, s->paddr, s->data, (size_t)s->filesz)) {
			snprintf(err, n, "cannot load a segment");
			return -1;
		}
	}
	return 0;
}

/* Registers before the first instruction: the pc (and so the Thumb bit),
 * the stack pointer, and the FPU switched on as a boot ROM would. */
static void setup_cpu(rec *r, uint64_t start)
{
	uint64_t sp = r->stack_base;
	if (r->profile == REC_PROFILE_A64) {
		uint64_t cpacr = 3ull << 20;	/* FPEN: no FP/SIMD traps */
		uc_reg_write(r->uc, UC_ARM64_REG_CPACR_EL1, &cpacr);
		uc_reg_write(r->uc, UC_ARM64_REG_SP, &sp);
		uc_reg_write(r->uc, UC_ARM64_REG_PC, &start);
		return;
	}
	uint32_t pc32 = (uint32_t)start;
	uc_reg_write(r->uc, UC_ARM_REG_PC, &pc32);
	uint32_t sp32 = (uint32_t)sp;
	uc_reg_write(r->uc, UC_ARM_REG_SP, &sp32);
	if (r->profile == REC_PROFILE_M) {
		uc_reg_write(r->uc, UC_ARM_REG_MSP, &sp32);
	} else {
		uint32_t cpacr = 0xF << 20;	/* cp10, cp11: full access */
		uint32_t fpexc = 1u << 30;	/* EN */
		uc_reg_write(r->uc, UC_ARM_REG_C1_C0_2, &cpacr);
		uc_reg_write(r->uc, UC_ARM_REG_FPEXC, &fpexc);
	}
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static const char *sig_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP"
								     : "a signal";
}

/* The first SIGINT/SIGTERM/SIGHUP stops the program at its next
 * instruction (the trace is then finished and kept); a second one ends
 * tracekit at once, removing a temporary output file. */
static void on_signal(int sig)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	rec_signal = sig;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = tk_out_signal_cleanup;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;	/* nohup: leave it ignored */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;	/* no SA_RESTART: a console read returns */
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

static int run(struct opts *o)
{
	char err[512];
	rec_image img;
	if (rec_image_load(o->program, &img, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", o->prog, err);
		return TK_EXIT_FAIL;
	}
	int profile;
	bool thumb;
	int ap = arch_profile(o, &img, &profile, &thumb);
	if (ap != 0) {
		fprintf(stderr, "%s: %s --arch=%s\n", o->prog,
			ap == -2 ? "unknown architecture" : "the program cannot run as", o->arch);
		rec_image_free(&img);
		return ap == -2 ? TK_EXIT_USAGE : TK_EXIT_FAIL;
	}
	const struct cpu *cpu = choose_cpu(o, &img, profile);
	if (!cpu) {
		fprintf(stderr, "%s: unknown CPU '%s' for this program (see --help)\n", o->prog,
			o->cpu ? o->cpu : "?");
		rec_image_free(&img);
		return TK_EXIT_USAGE;
	}

	rec r;
	memset(&r, 0, sizeof r);
	r.profile = profile;
	r.max_insns = o->max_insns;
	r.max_bytes = o->max_bytes;
	r.all_regs = o->all_regs;
	int rc = TK_EXIT_FAIL;
	tk_cli cli;
	memset(&cli, 0, sizeof cli);
	cli.prog = o->prog;
	cli.output = o->output;
	FILE *fp = NULL;

	uc_mode mode = profile == REC_PROFILE_A64 ? UC_MODE_ARM
		       : profile == REC_PROFILE_M ? (uc_mode)(UC_MODE_THUMB | UC_MODE_MCLASS)
		       : thumb ? UC_MODE_THUMB : UC_MODE_ARM;
	uc_err e = uc_open(profile == REC_PROFILE_A64 ? UC_ARCH_ARM64 : UC_ARCH_ARM, mode, &r.uc);
	if (e != UC_ERR_OK) {
		fprintf(stderr, "%s: cannot start the emulator: %s\n", o->prog, uc_strerror(e));
		goto out;
	}
	e = uc_ctl_set_cpu_model(r.uc, cpu->uc_cpu);
	if (e != UC_ERR_OK) {
		fprintf(stderr, "%s: cannot select %s: %s\n", o->prog, cpu->name, uc_strerror(e));
		goto out;
	}
	if (setup_memory(&r, &img, o, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s: %s\n", o->prog, o->program, err);
		goto out;
	}
	uint64_t start = img.entry & ~1ull;
	if (thumb)
		start |= 1;
	setup_cpu(&r, start);
	rec_regs_init(&r.regs, profile, cpu->dregs);
	r.cache = rec_insn_cache_new(profile == REC_PROFILE_M, (unsigned)cpu->dregs);
	bool console_stderr = !strcmp(o->output, "-");
	r.sh = rec_semihost_new(o->allow_fs, o->host_time, console_stderr, o->pargv, o->pargc);
	if (!r.cache || !r.sh) {
		fprintf(stderr, "%s: out of memory\n", o->prog);
		goto out;
	}
	tk_out_protect(o->program);
	fp = tk_cli_open_output(&cli);
	if (!fp)
		goto out;
	if (rec_out_init(&r.out, fp) != 0) {
		fprintf(stderr, "%s: out of memory\n", o->prog);
		goto out;
	}
	if (rec_trace_begin(&r) != 0) {
		fprintf(stderr, "%s: cannot set up tracing in the emulator\n", o->prog);
		goto out;
	}
	catch_signals();

	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rec_trace_run(&r, start);
	rec_out_flush(&r.out);
	double secs = seconds_since(&t0);
	fflush(stdout);

	bool write_failed = r.out.failed;
	int close_rc = tk_cli_close_output(&cli, fp);
	fp = NULL;
	if (write_failed || close_rc != 0) {
		if (write_failed && close_rc == 0)
			fprintf(stderr, "%s: %s: write error\n", o->prog, o->output);
		goto out;
	}
	uint64_t n = r.out.count;
	switch (r.stop) {
	case REC_STOP_EXIT:
		rc = r.exit_status;
		break;
	case REC_STOP_LIMIT:
		if (!o->quiet)
			fprintf(stderr, "%s: stopped after %llu instructions (--max-insns)\n", o->prog,
				(unsigned long long)n);
		rc = TK_EXIT_OK;
		break;
	case REC_STOP_SIZE:
		fprintf(stderr, "%s: the trace reached %llu bytes (--max-trace-size): stopped after "
			"%llu instructions; the trace so far is in %s\n", o->prog,
			(unsigned long long)o->max_bytes, (unsigned long long)n, o->output);
		rc = TK_EXIT_FAIL;
		break;
	case REC_STOP_SIGNAL:
		fprintf(stderr, "%s: interrupted by %s after %llu instructions: the trace so far is "
			"in %s\n", o->prog, sig_name((int)rec_signal), (unsigned long long)n,
			!strcmp(o->output, "-") ? "standard output" : o->output);
		rc = 128 + (int)rec_signal;
		break;
	default:
		fprintf(stderr, "%s: %s: %s (after %llu instructions)\n", o->prog, o->program,
			r.fault, (unsigned long long)n);
		rc = TK_EXIT_FAIL;
		break;
	}
	if (o->verbose)
		fprintf(stderr, "%s: %llu instructions on %s in %.3f s (%.2f million/s)\n", o->prog,
			(unsigned long long)n, cpu->name, secs, secs > 0 ? (double)n / secs / 1e6 : 0.0);
out:
	if (fp)
		tk_cli_close_output(&cli, fp);
	rec_out_free(&r.out);
	rec_semihost_free(r.sh);
	rec_insn_cache_free(r.cache);
	if (r.uc)
		uc_close(r.uc);
	rec_mem_free(&r.mem);
	rec_image_free(&img);
	return rc;
}

int tk_cmd_record(int argc, char **argv)
{
	struct opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc == HELP_SHOWN)
		rc = TK_EXIT_OK;
	else if (rc == 0)
		rc = run(&o);
	free(o.pargv);
	if (rec_signal) {
		/* The trace is safe: die of the signal, so that a shell or a
		 * make running us sees the interruption. */
		fflush(NULL);
		signal((int)rec_signal, SIG_DFL);
		raise((int)rec_signal);
	}
	return rc;
}

#endif
