/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit vcd (tarmac-vcd): translate a trace into a Value Change Dump.
 *
 * The dump (IEEE 1364 VCD, written by lib/export/vcd_writer.c) declares
 * the variables Arm's tarmac-vcd declares, with the same names, scope,
 * types and widths, in the same order, so that a GTKWave save file made
 * for Arm's output loads on ours.  One module, "CPU":
 *
 *   AArch64 trace              AArch32 trace
 *   x0..x30, xsp   integer 64  r0..r14        integer 32
 *   psr            integer 32  psr            integer 32
 *   d0..d31        integer 64  d0..d15        integer 64
 *   s0..s31        integer 32  s0..s31        integer 32
 *   Cycle          integer 32  the trace's timestamp of the instruction
 *   Function       string      the function containing PC (with --image)
 *   Inst           integer 32  the instruction's encoding
 *   InstAsm        string      its disassembly, without the comment
 *   InstExecuted   bit         0 for a condition-failed instruction
 *   PC             integer 64  (32)
 *   MemRW          string      "R" or "W" during a transfer, else ""
 *   MemAddr        integer 64  (32), z when the bus is idle
 *   MemData        integer 64  (32), z when idle
 * and then tracekit's own: MemSize (integer 8, bytes of the transfer), and
 * fpsr, fpcr (AArch64) or fpscr (AArch32), integer 32.  Strings are
 * GTKWave "string" variables, shown as text with no display format to
 * choose.  d and s registers are views of the vector registers (the
 * AArch64 or AArch32 way), updated whenever the trace writes any view.
 * The register set is chosen by the trace's first instruction (events
 * before it are held until then); registers of the other execution state
 * are not shown (-v counts them).  Registers start as x (unknown) and stay
 * x until the trace writes them.
 *
 * Time.  The time unit is 1 ps and each step is 1000 of them (1 ns).  By
 * default instruction N of the trace (counting from 1) is at N ns, and
 * what the trace shows before the first instruction is at 0.  With
 * --use-tarmac-timestamps, each line's timestamp is taken as a count of
 * ns.  An instruction's register updates and its first bus transfer are at
 * the instruction's own time; each further bus transfer of the same
 * instruction (an LDM, an LDP) follows 1 ps later, and nothing else is
 * ever moved.  A step crowded with more than 1000 instructions or
 * transfers (a stalled clock) runs on into the next step's picoseconds
 * (later steps move along; time never goes back).
 *
 * Without -o, the dump is written to TRACE.vcd next to the trace, as Arm's
 * tool does; "-o -" is standard output.
 *
 * Memory: one pass over the events, the state of the variables, the bus
 * transfers of the current instruction, and the events before the first
 * instruction; nothing grows with the trace.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "tracekit/vcd.h"

enum { OPT_NO_DATE = 256, OPT_TIMESTAMPS };

#define SUBSTEPS 1000		/* sub-steps (of 1 ps) per step (of 1 ns) */
#define LOOKAHEAD_MAX 100000	/* events held while looking for an instruction */

struct opts {
	bool no_date;
	bool timestamps;
};

/* One bus transfer, waiting for its instruction's time slots. */
struct xfer {
	uint64_t addr;
	uint8_t val[8], st[8];
	uint8_t size;
	bool write;
};

struct vcd {
	tk_cli *cli;
	tk_vcd *w;
	bool timestamps;
	bool big_endian;
	bool a64;
	unsigned bus_bytes;	/* 8 or 4 */

	int32_t regvar[TK_REG_COUNT];	/* core, psr, fp status; -1: none */
	int32_t dvar[32], svar[32];
	tk_vcd_var cycle, function, inst, instasm, executed, pc, memrw, memaddr, memdata, memsize;
	uint8_t vval[32][16], vst[32][16];	/* the vector registers, for d and s */

	struct xfer *xfers;
	size_t nxfers, xfers_cap;

	uint64_t ninsn;
	uint64_t base;		/* current step (instruction number or timestamp) */
	bool have_base;
	bool slot_used;		/* the current slot has an instruction or transfer */
	bool bus_driven;	/* the bus shows a transfer (not idle) */

	uint64_t func_lo, func_hi;	/* pc range of the cached function */
	const tk_symbol *func_sym;
	bool func_set;

	uint64_t dropped;	/* register writes not shown */
};

static int handle(tk_cli *cli, int val, const char *arg, void *ctx)
{
	(void)cli;
	(void)arg;
	struct opts *o = ctx;
	if (val == OPT_NO_DATE)
		o->no_date = true;
	else if (val == OPT_TIMESTAMPS)
		o->timestamps = true;
	return 0;
}

/* ---- events held before the first instruction ------------------------------ */

struct held {
	tk_event *ev;		/* a copy (tk_event_copy), freed with free() */
};

/* Keep a copy of an event; 0 if the event is not worth keeping. */
static int hold_event(struct held *h, const tk_event *ev)
{
	h->ev = NULL;
	if (ev->kind != TK_EV_REG && ev->kind != TK_EV_MEM && ev->kind != TK_EV_INSN)
		return 0;
	return tk_event_copy(ev, 0, &h->ev) < 0 ? -1 : 1;
}

/* ---- declarations ---------------------------------------------------------- */

static int declare(struct vcd *v)
{
	tk_vcd *w = v->w;
	char name[16];
	int rc = tk_vcd_scope(w, "CPU");
	for (int i = 0; i < TK_REG_COUNT; i++)
		v->regvar[i] = -1;
	for (int i = 0; i < 32; i++)
		v->dvar[i] = v->svar[i] = -1;
#define INT(width, nm, out) \
	do { \
		if (!rc) \
			rc = tk_vcd_add_var(w, "integer", width, nm, out); \
	} while (0)
#define REGVAR(reg, width, nm) \
	do { \
		tk_vcd_var id_; \
		INT(width, nm, &id_); \
		if (!rc) \
			v->regvar[reg] = (int32_t)id_; \
	} while (0)
#define STR(nm, out) \
	do { \
		if (!rc) \
			rc = tk_vcd_add_string(w, nm, out); \
	} while (0)

	unsigned aw = v->a64 ? 64 : 32;
	if (v->a64) {
		for (int i = 0; i < 31; i++) {
			snprintf(name, sizeof name, "x%d", i);
			REGVAR(TK_REG_X0 + i, 64, name);
		}
		REGVAR(TK_REG_XSP, 64, "xsp");
	} else {
		for (int i = 0; i < 15; i++) {
			snprintf(name, sizeof name, "r%d", i);
			REGVAR(TK_REG_R0 + i, 32, name);
		}
	}
	REGVAR(TK_REG_PSR, 32, "psr");
	for (int i = 0; i < (v->a64 ? 32 : 16); i++) {
		tk_vcd_var id;
		snprintf(name, sizeof name, "d%d", i);
		INT(64, name, &id);
		v->dvar[i] = rc ? -1 : (int32_t)id;
	}
	for (int i = 0; i < 32; i++) {
		tk_vcd_var id;
		snprintf(name, sizeof name, "s%d", i);
		INT(32, name, &id);
		v->svar[i] = rc ? -1 : (int32_t)id;
	}
	INT(32, "Cycle", &v->cycle);
	STR("Function", &v->function);
	INT(32, "Inst", &v->inst);
	STR("InstAsm", &v->instasm);
	if (!rc)
		rc = tk_vcd_add_var(w, "bit", 1, "InstExecuted", &v->executed);
	INT(aw, "PC", &v->pc);
	STR("MemRW", &v->memrw);
	INT(aw, "MemAddr", &v->memaddr);
	INT(aw, "MemData", &v->memdata);
	/* tracekit's own, after Arm's. */
	INT(8, "MemSize", &v->memsize);
	if (v->a64) {
		REGVAR(TK_REG_FPSR, 32, "fpsr");
		REGVAR(TK_REG_FPCR, 32, "fpcr");
	} else {
		REGVAR(TK_REG_FPSCR, 32, "fpscr");
	}
	if (!rc)
		rc = tk_vcd_upscope(w);
#undef INT
#undef REGVAR
#undef STR
	return rc;
}

/* ---- time ------------------------------------------------------------------ */

/* Move to the step `base`, or, if next_slot and the current slot is used,
 * to the next 1 ps sub-step.  Time never goes back and never stays put
 * when a new slot is asked for: a step crowded with more than SUBSTEPS
 * instructions or transfers spills over into the following picoseconds,
 * and the next step starts after them. */
static int step(struct vcd *v, uint64_t base, bool next_slot)
{
	uint64_t now = tk_vcd_now(v->w);
	uint64_t t = now;
	if (!v->have_base || base > v->base) {
		uint64_t b = base > (UINT64_MAX - SUBSTEPS) / SUBSTEPS ? (UINT64_MAX - SUBSTEPS) / SUBSTEPS
									 : base;
		t = b * SUBSTEPS;
		if (v->have_base && t <= now)
			t = now + 1;
		v->base = base;
		v->have_base = true;
		v->slot_used = false;
	} else if (next_slot && v->slot_used) {
		t = now + 1;
		v->slot_used = false;
	}
	if (t < now)
		t = now;
	return tk_vcd_time(v->w, t);
}

static uint64_t base_of(const struct vcd *v, const tk_event *ev)
{
	return v->timestamps ? ev->time : v->ninsn;
}

/* ---- the bus ---------------------------------------------------------------- */

static void bus_idle(struct vcd *v)
{
	tk_vcd_set_string(v->w, v->memrw, "", 0);
	tk_vcd_set_all(v->w, v->memaddr, TK_VCD_Z);
	tk_vcd_set_all(v->w, v->memdata, TK_VCD_Z);
	tk_vcd_set_all(v->w, v->memsize, TK_VCD_Z);
	v->bus_driven = false;
}

/* Put the transfers of the instruction now at the current step on the
 * bus: the first at its time, each further one 1 ps later.  Called when
 * the next instruction arrives (or at the end), before time moves on. */
static int flush_bus(struct vcd *v)
{
	int rc = 0;
	for (size_t i = 0; i < v->nxfers && rc == 0; i++) {
		const struct xfer *x = &v->xfers[i];
		if (i > 0)
			rc = step(v, v->base, true);
		v->slot_used = true;
		tk_vcd_set_string(v->w, v->memrw, x->write ? "W" : "R", 1);
		tk_vcd_set_u64(v->w, v->memaddr, x->addr);
		tk_vcd_set_bytes(v->w, v->memdata, 0, x->val, x->st, v->bus_bytes);
		tk_vcd_set_u64(v->w, v->memsize, x->size);
		v->bus_driven = true;
	}
	v->nxfers = 0;
	return rc;
}

static int on_mem(struct vcd *v, const tk_event *ev)
{
	const tk_mem_access *m = &ev->u.mem;
	uint32_t size = m->size ? m->size : 1;
	/* An access wider than the bus is several transfers. */
	for (uint32_t done = 0; done < size; done += v->bus_bytes) {
		if (v->nxfers == v->xfers_cap) {
			size_t cap = v->xfers_cap ? 2 * v->xfers_cap : 16;
			struct xfer *nx = realloc(v->xfers, cap * sizeof *nx);
			if (!nx)
				return TK_ERR_NOMEM;
			v->xfers = nx;
			v->xfers_cap = cap;
		}
		struct xfer *x = &v->xfers[v->nxfers++];
		uint32_t n = size - done < v->bus_bytes ? size - done : v->bus_bytes;
		memset(x->val, 0, sizeof x->val);
		memset(x->st, TK_VCD_KNOWN, sizeof x->st);
		for (uint32_t i = 0; i < n && m->size; i++) {
			/* Bus lanes in the trace's byte order: data reads as a number. */
			uint32_t src = v->big_endian ? done + n - 1 - i : done + i;
			uint8_t s = m->aborted ? TK_BYTE_UNKNOWN : m->state[src];
			x->val[i] = m->bytes[src];
			x->st[i] = s == TK_BYTE_SET ? TK_VCD_KNOWN : TK_VCD_X;
		}
		if (m->aborted || !m->size)
			memset(x->st, TK_VCD_X, n);
		x->addr = m->addr + done;
		x->size = (uint8_t)n;
		x->write = m->write;
	}
	return 0;
}

/* ---- instructions --------------------------------------------------------------- */

static void set_function(struct vcd *v, uint64_t pc)
{
	if (!v->cli->symtab)
		return;
	if (v->func_set && (v->func_sym ? pc >= v->func_lo && pc < v->func_hi : false))
		return;
	const tk_symbol *s = tk_symtab_containing(v->cli->symtab, pc);
	v->func_sym = s && s->size ? s : NULL;
	if (v->func_sym) {
		v->func_lo = s->addr;
		v->func_hi = s->addr + s->size;
	}
	v->func_set = true;
	tk_vcd_set_string(v->w, v->function, s ? s->name : "", s ? strlen(s->name) : 0);
}

/* The disassembly as Arm's tool shows it: the comment (from ';') dropped,
 * runs of blanks made one, no blanks at either end. */
static size_t tidy_disasm(char *dst, size_t cap, const char *s, size_t n)
{
	const char *semi = memchr(s, ';', n);
	if (semi)
		n = (size_t)(semi - s);
	size_t k = 0;
	bool blank = false;
	for (size_t i = 0; i < n && k < cap; i++) {
		char c = s[i];
		if (c == ' ' || c == '\t') {
			blank = k > 0;
			continue;
		}
		if (blank && k < cap - 1)
			dst[k++] = ' ';
		blank = false;
		dst[k++] = c;
	}
	return k;
}

static int on_insn(struct vcd *v, const tk_event *ev)
{
	const tk_insn *in = &ev->u.insn;
	int rc = flush_bus(v);
	v->ninsn++;
	if (!rc)
		rc = step(v, base_of(v, ev), true);
	v->slot_used = true;
	tk_vcd *w = v->w;
	tk_vcd_set_u64(w, v->pc, in->pc);
	if (in->nbytes)
		tk_vcd_set_u64(w, v->inst, tk_insn_encoding(in));
	else
		tk_vcd_set_all(w, v->inst, TK_VCD_X);
	tk_vcd_set_u64(w, v->executed, in->executed);
	tk_vcd_set_u64(w, v->cycle, ev->time);
	char text[512];
	tk_vcd_set_string(w, v->instasm, text, tidy_disasm(text, sizeof text, in->disasm,
							    in->disasm_len));
	set_function(v, in->pc);
	if (v->bus_driven)
		bus_idle(v);	/* a transfer of this one sets it again */
	return rc;
}

/* ---- registers ------------------------------------------------------------------- */

/* tk_byte_state -> tk_vcd_state */
static const uint8_t state_map[3] = {TK_VCD_KEEP, TK_VCD_KNOWN, TK_VCD_X};

/* Copy bytes [lo, lo + n) of vector register r into variable var. */
static void view_of_vector(struct vcd *v, int32_t var, int r, unsigned lo, unsigned n)
{
	if (var < 0)
		return;
	uint8_t st[16];
	for (unsigned i = 0; i < n; i++)
		st[i] = v->vst[r][lo + i];
	tk_vcd_set_bytes(v->w, (tk_vcd_var)var, 0, v->vval[r] + lo, st, n);
}

/* A write to vector register r (bytes [off, off + len)): update its d and
 * s views that overlap it. */
static void on_vector(struct vcd *v, int r, const tk_reg_update *u)
{
	unsigned off = u->view.offset, len = u->view.len;
	if (off >= 16)
		return;
	if (off + len > 16)
		len = 16 - off;
	for (unsigned i = 0; i < len; i++) {
		uint8_t s = u->state[i];
		if (s == TK_BYTE_NONE)
			continue;
		v->vst[r][off + i] = s == TK_BYTE_SET ? TK_VCD_KNOWN : TK_VCD_X;
		v->vval[r][off + i] = s == TK_BYTE_SET ? u->value[i] : 0;
	}
	if (v->a64) {
		/* dN and sN are the low 8 and 4 bytes of vN. */
		if (off < 8)
			view_of_vector(v, v->dvar[r], r, 0, 8);
		if (off < 4)
			view_of_vector(v, v->svar[r], r, 0, 4);
		return;
	}
	/* AArch32: qN holds d(2N), d(2N+1) and s(4N)..s(4N+3). */
	for (unsigned h = 0; h < 2; h++)
		if (off < 8 * h + 8 && off + len > 8 * h && 2 * r + (int)h < 16)
			view_of_vector(v, v->dvar[2 * r + (int)h], r, 8 * h, 8);
	for (unsigned q = 0; q < 4; q++)
		if (off < 4 * q + 4 && off + len > 4 * q && 4 * r + (int)q < 32)
			view_of_vector(v, v->svar[4 * r + (int)q], r, 4 * q, 4);
}

static int on_reg(struct vcd *v, const tk_event *ev)
{
	const tk_reg_update *r = &ev->u.reg;
	tk_reg reg = r->view.reg;
	if (reg >= TK_REG_V0 && reg < TK_REG_V0 + 32) {
		on_vector(v, (int)(reg - TK_REG_V0), r);
		return 0;
	}
	if (reg >= TK_REG_COUNT || v->regvar[reg] < 0) {
		if (reg != TK_REG_NONE)
			v->dropped++;
		return 0;
	}
	/* At the instruction's own time, whatever the bus did. */
	uint8_t st[TK_REG_MAX_BYTES];
	unsigned n = r->view.len <= TK_REG_MAX_BYTES ? r->view.len : TK_REG_MAX_BYTES;
	for (unsigned i = 0; i < n; i++)
		st[i] = r->state[i] < 3 ? state_map[r->state[i]] : TK_VCD_X;
	tk_vcd_set_bytes(v->w, (tk_vcd_var)v->regvar[reg], r->view.offset, r->value, st, n);
	return 0;
}

static int on_event(struct vcd *v, const tk_event *ev)
{
	switch (ev->kind) {
	case TK_EV_INSN:
		return on_insn(v, ev);
	case TK_EV_REG:
		return on_reg(v, ev);
	case TK_EV_MEM:
		return on_mem(v, ev);
	default:
		return 0;
	}
}

/* ---- the command ------------------------------------------------------------ */

static bool decide_a64(const struct held *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (h[i].ev->kind == TK_EV_INSN)
			return h[i].ev->u.insn.isa == TK_ISA_A64 || h[i].ev->u.insn.isa == TK_ISA_UNKNOWN;
	/* No instruction: go by the registers written. */
	for (size_t i = 0; i < n; i++)
		if (h[i].ev->kind == TK_EV_REG) {
			tk_reg r = h[i].ev->u.reg.view.reg;
			if (r >= TK_REG_X0 && r <= TK_REG_XSP)
				return true;
			if (r <= TK_REG_R15)
				return false;
		}
	return true;
}

static const char *header_comment(bool timestamps)
{
	if (timestamps)
		return "Generated by tracekit vcd, with the signals of Arm's tarmac-vcd.\n"
		       "\tTime: the trace's timestamps, one unit per ns (nominal). A\n"
		       "\tfurther instruction or bus transfer at the same time follows 1 ps later.";
	return "Generated by tracekit vcd, with the signals of Arm's tarmac-vcd.\n"
	       "\tTime: instruction N of the trace at N ns. A further bus transfer\n"
	       "\tof one instruction follows 1 ps later.";
}

/* TRACE.vcd, as Arm's tool names its default output. */
static char *default_output(const char *trace)
{
	size_t n = strlen(trace);
	char *p = malloc(n + 5);
	if (p) {
		memcpy(p, trace, n);
		memcpy(p + n, ".vcd", 5);
	}
	return p;
}

int tk_cmd_vcd(int argc, char **argv)
{
	static const struct option extra[] = {
		{"no-date", no_argument, NULL, OPT_NO_DATE},
		{"use-tarmac-timestamps", no_argument, NULL, OPT_TIMESTAMPS},
		{NULL, 0, NULL, 0},
	};
	struct opts o = {0};
	const tk_cli_spec spec = {
		.usage = "[OPTIONS] TRACE",
		.summary =
		"Translate the trace into an IEEE 1364 Value Change Dump (for GTKWave and\n"
		"other waveform viewers), written to TRACE.vcd unless -o says otherwise.\n"
		"The signals are those of Arm's tarmac-vcd, in module CPU: x0-x30, xsp,\n"
		"psr, d0-d31, s0-s31 (AArch32: r0-r14, psr, d0-d15, s0-s31), Cycle (the\n"
		"trace's timestamp), Function (the function containing PC, with --image),\n"
		"Inst (encoding), InstAsm (disassembly), InstExecuted, PC, and a memory\n"
		"bus: MemRW (\"R\", \"W\" or \"\" when idle), MemAddr, MemData; then\n"
		"tracekit's MemSize and fpsr, fpcr (AArch32: fpscr).  Function, InstAsm\n"
		"and MemRW are GTKWave string variables.  Values the trace has not shown\n"
		"are x.  Time: instruction N at N ns; a further bus transfer of the same\n"
		"instruction 1 ps later each.  The index options are accepted for\n"
		"compatibility: vcd reads the trace directly and needs no index.",
		.options_help =
		"  --no-date                write no creation date: the same input gives the\n"
		"                           same output, byte for byte\n"
		"  --use-tarmac-timestamps  time is the trace's timestamps, one unit shown as\n"
		"                           1 ns (the trace's unit is not kept), instead of\n"
		"                           one ns per instruction; things at the same\n"
		"                           timestamp are 1 ps apart\n",
		.flags = TK_CLI_TRACE | TK_CLI_OUTPUT | TK_CLI_IMAGE | TK_CLI_INDEX,
		.min_args = 0,
		.max_args = 0,
		.extra = extra,
		.handle = handle,
		.ctx = &o,
	};
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	if (cli.only_index) {
		if (cli.verbose)
			fprintf(stderr, "%s: vcd uses no index: nothing to do\n", cli.prog);
		return TK_EXIT_OK;
	}
	char *default_out = NULL;
	if (!cli.output && strcmp(cli.trace, "-") != 0) {
		if (!(default_out = default_output(cli.trace))) {
			tk_cli_error(&cli, "out of memory");
			return TK_EXIT_FAIL;
		}
		cli.output = default_out;
	}
	if (tk_cli_load_image(&cli)) {
		free(default_out);
		return TK_EXIT_FAIL;
	}
	tk_source *src;
	if (tk_cli_open_trace(&cli, &src)) {
		tk_cli_fini(&cli);
		free(default_out);
		return TK_EXIT_FAIL;
	}
	if (!(cli.tinfo.caps & TK_CAP_REGS) || !(cli.tinfo.caps & TK_CAP_INSNS)) {
		tk_cli_error(&cli, "%s: a %s trace has no %s: nothing to write as a VCD "
			     "(see 'tracekit formats')", cli.trace, cli.tinfo.format,
			     cli.tinfo.caps & TK_CAP_INSNS ? "register values" : "instructions");
		tk_source_free(src);
		tk_cli_fini(&cli);
		free(default_out);
		return TK_EXIT_FAIL;
	}

	int status = TK_EXIT_FAIL;
	struct vcd v = {.cli = &cli, .timestamps = o.timestamps, .big_endian = tk_cli_big_endian(&cli)};
	struct held *held = NULL;
	size_t nheld = 0, held_cap = 0;
	FILE *fp = NULL;
	tk_event ev;
	int rc;

	/* Hold events until the first instruction says which registers to show. */
	bool seen_insn = false, more = true;
	size_t looked = 0;
	while (!seen_insn && looked < LOOKAHEAD_MAX) {
		rc = tk_cli_next(&cli, src, &ev);
		if (rc < 0)
			goto done;
		if (rc == 0) {
			more = false;
			break;
		}
		looked++;
		if (nheld == held_cap) {
			size_t cap = held_cap ? held_cap * 2 : 256;
			struct held *nh = realloc(held, cap * sizeof *nh);
			if (!nh)
				goto oom;
			held = nh;
			held_cap = cap;
		}
		int k = hold_event(&held[nheld], &ev);
		if (k < 0)
			goto oom;
		nheld += (size_t)k;
		seen_insn = ev.kind == TK_EV_INSN;
	}

	fp = tk_cli_open_output(&cli);
	if (!fp)
		goto done;
	char date[64];
	time_t now = time(NULL);
	strftime(date, sizeof date, "%a %b %d %H:%M:%S %Y", localtime(&now));
	tk_vcd_opts vo;
	tk_vcd_opts_init(&vo);
	vo.date = o.no_date ? NULL : date;
	vo.version = "tracekit " TK_VERSION_STRING " vcd";
	vo.comment = header_comment(o.timestamps);
	vo.timescale = "1 ps";
	if (tk_vcd_new(fp, &vo, &v.w) < 0)
		goto oom;
	v.a64 = decide_a64(held, nheld);
	v.bus_bytes = v.a64 ? 8 : 4;
	if (declare(&v) < 0 || tk_vcd_begin(v.w) < 0)
		goto io;
	/* Before the first instruction: time 0, the bus idle. */
	if (step(&v, 0, false) < 0)
		goto io;
	bus_idle(&v);

	int out_rc = 0;
	for (size_t i = 0; i < nheld && out_rc == 0; i++)
		out_rc = on_event(&v, held[i].ev);
	rc = 0;
	while (out_rc == 0 && more && (rc = tk_cli_next(&cli, src, &ev)) > 0)
		out_rc = on_event(&v, &ev);
	if (rc < 0)
		goto done;	/* tk_cli_next printed it */
	if (out_rc == TK_ERR_NOMEM)
		goto oom;
	if (out_rc < 0 || flush_bus(&v) < 0 || tk_vcd_finish(v.w) < 0)
		goto io;
	if (cli.verbose) {
		fprintf(stderr, "%s: %llu instructions", cli.prog, (unsigned long long)v.ninsn);
		if (v.dropped)
			fprintf(stderr, "; %llu writes to registers of the other execution state"
				" not shown", (unsigned long long)v.dropped);
		fputc('\n', stderr);
	}
	status = TK_EXIT_OK;
	goto done;
oom:
	tk_cli_error(&cli, "out of memory");
	goto done;
io:
	/* A stream in error is reported by tk_cli_close_output(). */
	if (!ferror(fp))
		tk_cli_error(&cli, "error writing %s", cli.output ? cli.output : "standard output");
done:
	for (size_t i = 0; i < nheld; i++)
		free(held[i].ev);
	free(held);
	free(v.xfers);
	tk_vcd_free(v.w);
	tk_cli_close_trace(&cli, src);
	if (fp) {
		if (status != TK_EXIT_OK)
			tk_cli_discard_output(&cli, fp);
		else if (tk_cli_close_output(&cli, fp))
			status = TK_EXIT_FAIL;
	}
	tk_cli_fini(&cli);
	free(default_out);
	return status;
}
