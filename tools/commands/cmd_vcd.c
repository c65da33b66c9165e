/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit vcd (tarmac-vcd): translate a trace into a Value Change Dump.
 *
 * The dump (IEEE 1364 VCD, written by lib/vcd_writer.c) has one module,
 * "cpu", holding:
 *
 *   pc        the current instruction's address (32 or 64 bits)
 *   instr     its encoding (x if the trace shows none)
 *   executed  1, or 0 for a condition-failed instruction
 *   disasm    its disassembly (text, 64 characters, runs of spaces collapsed)
 *   func      with --image: the function containing pc (text, 64 characters;
 *             x outside every function and without --image)
 *   regs.     the general-purpose registers: x0-x30 and sp for an AArch64
 *             trace, r0-r15 for an AArch32 one; cpsr
 *   fpregs.   the FP/vector registers: v0-v31 (AArch64) or q0-q15 (AArch32,
 *             where d and s registers are views of q), fpsr and fpcr or fpscr
 *   bus.      a simple memory bus: addr, data (64 bits), size (bytes) and
 *             write (1 write, 0 read); all z while no transfer is under way
 *
 * Registers start as x (unknown) and stay x until the trace writes them.
 * Text variables are Verilog strings: 8 bits per character, right-aligned
 * (show them with an ASCII data format).  The register set is chosen by the
 * trace's first instruction (events before it are held until then);
 * registers of the other execution state are not shown (-v counts them).
 *
 * Time.  The time unit is 1 ns and each step is split into 1000 sub-steps of
 * 1 ps.  By default instruction N of the trace (counting from 1) is at N ns,
 * and what the trace shows before the first instruction is at 0.  With
 * --use-tarmac-timestamps, each line's timestamp is taken as a count of
 * ns (the trace's own unit is not known to the event model, so the scale is
 * nominal; a timestamp smaller than the previous one counts as equal).
 * Within one step, a second instruction, or a second bus transfer, goes to
 * the next 1 ps sub-step, so every transfer of an LDM or LDP is visible;
 * an access wider than 8 bytes is several transfers.  A step with more than
 * 1000 of them runs on into the next step's picoseconds (later steps move
 * along; time never goes back and nothing shares a sub-step).  One step per
 * instruction is the default because trace timestamps are often coarse
 * (an ES-style trace stamps a hundred instructions alike) or count cycles
 * of unknown length; an instruction counter as the time axis always shows
 * every instruction, and matches the "(N)" counter of the trace's lines.
 *
 * A trace of several CPUs is shown as one: every CPU's events drive the
 * same variables.
 *
 * Memory: one pass over the events, the state of the variables, and the
 * events before the first instruction; nothing grows with the trace.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tracekit/vcd.h"

enum { OPT_NO_DATE = 256, OPT_TIMESTAMPS };

#define SUBSTEPS 1000		/* sub-steps (of 1 ps) per step (of 1 ns) */
#define TEXT_CHARS 64		/* width of text variables */
#define BUS_BYTES 8		/* width of the bus data */
#define LOOKAHEAD_MAX 100000	/* events held while looking for an instruction */

struct opts {
	bool no_date;
	bool timestamps;
};

struct vcd {
	tk_cli *cli;
	tk_vcd *w;
	bool timestamps;
	bool big_endian;

	tk_vcd_var pc, instr, executed, disasm, func;
	tk_vcd_var bus_addr, bus_data, bus_size, bus_write;
	int32_t regvar[TK_REG_COUNT];	/* -1: not shown */

	uint64_t ninsn;
	uint64_t base;		/* current step (instruction number or timestamp) */
	bool have_base;
	bool insn_in_slot, bus_in_slot;
	bool bus_driven;	/* the bus shows a transfer (not z) */

	uint64_t func_lo, func_hi;	/* pc range of the cached function */
	const tk_symbol *func_sym;

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

static int declare(struct vcd *v, bool a64)
{
	tk_vcd *w = v->w;
	char name[16];
	int rc = 0;
	for (int i = 0; i < TK_REG_COUNT; i++)
		v->regvar[i] = -1;
#define VAR(type, width, nm, out) \
	do { \
		if (!rc) \
			rc = tk_vcd_add_var(w, type, width, nm, out); \
	} while (0)
#define REGVAR(reg, nm) \
	do { \
		tk_vcd_var id_; \
		VAR("reg", 8 * tk_reg_size(reg), nm, &id_); \
		if (!rc) \
			v->regvar[reg] = (int32_t)id_; \
	} while (0)

	unsigned aw = a64 ? 64 : 32;
	rc = tk_vcd_scope(w, "cpu");
	VAR("wire", aw, "pc", &v->pc);
	VAR("wire", 32, "instr", &v->instr);
	VAR("wire", 1, "executed", &v->executed);
	VAR("reg", 8 * TEXT_CHARS, "disasm", &v->disasm);
	VAR("reg", 8 * TEXT_CHARS, "func", &v->func);

	if (!rc)
		rc = tk_vcd_scope(w, "regs");
	if (a64) {
		for (int i = 0; i < 31; i++) {
			snprintf(name, sizeof name, "x%d", i);
			REGVAR(TK_REG_X0 + i, name);
		}
		REGVAR(TK_REG_XSP, "sp");
	} else {
		for (int i = 0; i < 16; i++) {
			snprintf(name, sizeof name, "r%d", i);
			REGVAR(TK_REG_R0 + i, name);
		}
	}
	REGVAR(TK_REG_PSR, "cpsr");
	if (!rc)
		rc = tk_vcd_upscope(w);

	if (!rc)
		rc = tk_vcd_scope(w, "fpregs");
	for (int i = 0; i < (a64 ? 32 : 16); i++) {
		snprintf(name, sizeof name, "%c%d", a64 ? 'v' : 'q', i);
		REGVAR(TK_REG_V0 + i, name);
	}
	if (a64) {
		REGVAR(TK_REG_FPSR, "fpsr");
		REGVAR(TK_REG_FPCR, "fpcr");
	} else {
		REGVAR(TK_REG_FPSCR, "fpscr");
	}
	if (!rc)
		rc = tk_vcd_upscope(w);

	if (!rc)
		rc = tk_vcd_scope(w, "bus");
	VAR("wire", aw, "addr", &v->bus_addr);
	VAR("wire", 8 * BUS_BYTES, "data", &v->bus_data);
	VAR("wire", 8, "size", &v->bus_size);
	VAR("wire", 1, "write", &v->bus_write);
	if (!rc)
		rc = tk_vcd_upscope(w);
	if (!rc)
		rc = tk_vcd_upscope(w);
#undef VAR
#undef REGVAR
	return rc;
}

/* ---- events ---------------------------------------------------------------- */

/* Move to the event's step; to the next sub-step if asked.  The time never
 * goes back and never stays put when a new slot is asked for: a step
 * crowded with more than SUBSTEPS instructions or transfers (an ES-style
 * trace stamps whole blocks alike, some traces never advance their clock)
 * spills over into the following picoseconds, and the next step starts
 * after them.  Capping the sub-step instead would pile every instruction
 * past the thousandth onto one time, where a viewer shows only the last. */
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
		v->insn_in_slot = v->bus_in_slot = false;
	} else if (next_slot) {
		t = now + 1;
		v->insn_in_slot = v->bus_in_slot = false;
	}
	if (t < now)
		t = now;
	return tk_vcd_time(v->w, t);
}

static void set_func(struct vcd *v, uint64_t pc)
{
	if (!v->cli->symtab)
		return;
	if (!(v->func_sym && pc >= v->func_lo && pc < v->func_hi)) {
		const tk_symbol *s = tk_symtab_containing(v->cli->symtab, pc);
		v->func_sym = NULL;
		if (s && s->size) {
			v->func_sym = s;
			v->func_lo = s->addr;
			v->func_hi = s->addr + s->size;
		}
		if (s)
			tk_vcd_set_text(v->w, v->func, s->name, strlen(s->name));
		else
			tk_vcd_set_all(v->w, v->func, TK_VCD_X);
	}
}

/* The disassembly with runs of white space made one space, trimmed. */
static size_t squeeze(char *dst, const char *s, size_t n)
{
	size_t k = 0;
	bool space = false;
	for (size_t i = 0; i < n && k < TEXT_CHARS; i++) {
		char c = s[i];
		if (c == ' ' || c == '\t') {
			space = k > 0;
			continue;
		}
		if (space && k < TEXT_CHARS - 1)
			dst[k++] = ' ';
		space = false;
		dst[k++] = c;
	}
	return k;
}

static int on_insn(struct vcd *v, const tk_event *ev)
{
	const tk_insn *in = &ev->u.insn;
	v->ninsn++;
	int rc = step(v, v->timestamps ? ev->time : v->ninsn, v->insn_in_slot || v->bus_in_slot);
	v->insn_in_slot = true;
	tk_vcd *w = v->w;
	tk_vcd_set_u64(w, v->pc, in->pc);
	if (in->nbytes)
		tk_vcd_set_u64(w, v->instr, tk_insn_encoding(in));
	else
		tk_vcd_set_all(w, v->instr, TK_VCD_X);
	tk_vcd_set_u64(w, v->executed, in->executed);
	char text[TEXT_CHARS];
	tk_vcd_set_text(w, v->disasm, text, squeeze(text, in->disasm, in->disasm_len));
	set_func(v, in->pc);
	if (v->bus_driven && !v->bus_in_slot) {
		tk_vcd_set_all(w, v->bus_addr, TK_VCD_Z);
		tk_vcd_set_all(w, v->bus_data, TK_VCD_Z);
		tk_vcd_set_all(w, v->bus_size, TK_VCD_Z);
		tk_vcd_set_all(w, v->bus_write, TK_VCD_Z);
		v->bus_driven = false;
	}
	return rc;
}

/* tk_byte_state -> tk_vcd_state */
static const uint8_t state_map[3] = {TK_VCD_KEEP, TK_VCD_KNOWN, TK_VCD_X};

static int on_reg(struct vcd *v, const tk_event *ev)
{
	const tk_reg_update *r = &ev->u.reg;
	if (r->view.reg >= TK_REG_COUNT || v->regvar[r->view.reg] < 0) {
		if (r->view.reg != TK_REG_NONE)
			v->dropped++;
		return 0;
	}
	int rc = step(v, v->timestamps ? ev->time : v->ninsn, false);
	uint8_t st[TK_REG_MAX_BYTES];
	unsigned n = r->view.len <= TK_REG_MAX_BYTES ? r->view.len : TK_REG_MAX_BYTES;
	for (unsigned i = 0; i < n; i++)
		st[i] = r->state[i] < 3 ? state_map[r->state[i]] : TK_VCD_X;
	tk_vcd_set_bytes(v->w, (tk_vcd_var)v->regvar[r->view.reg], r->view.offset, r->value, st, n);
	return rc;
}

static int on_mem(struct vcd *v, const tk_event *ev)
{
	const tk_mem_access *m = &ev->u.mem;
	uint64_t base = v->timestamps ? ev->time : v->ninsn;
	int rc = 0;
	uint32_t size = m->size ? m->size : 1;
	for (uint32_t done = 0; done < size && rc == 0; done += BUS_BYTES) {
		rc = step(v, base, v->bus_in_slot);
		v->bus_in_slot = true;
		v->bus_driven = true;
		uint32_t n = size - done < BUS_BYTES ? size - done : BUS_BYTES;
		uint8_t val[BUS_BYTES] = {0}, st[BUS_BYTES] = {0};
		for (uint32_t i = 0; i < n && m->size; i++) {
			/* Bus lanes in the trace's byte order: data reads as a number. */
			uint32_t src = v->big_endian ? done + n - 1 - i : done + i;
			uint8_t s = m->aborted ? TK_BYTE_UNKNOWN : m->state[src];
			val[i] = m->bytes[src];
			st[i] = s == TK_BYTE_SET ? TK_VCD_KNOWN : TK_VCD_X;
		}
		if (m->aborted || !m->size)
			memset(st, TK_VCD_X, n);
		tk_vcd_set_u64(v->w, v->bus_addr, m->addr + done);
		tk_vcd_set_bytes(v->w, v->bus_data, 0, val, st, BUS_BYTES);
		tk_vcd_set_u64(v->w, v->bus_size, n);
		tk_vcd_set_u64(v->w, v->bus_write, m->write);
	}
	return rc;
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
		return "Time: the trace's timestamps, one unit per ns (nominal). A second\n"
		       "\tinstruction or bus transfer at the same time follows 1 ps later.\n"
		       "\tText variables (disasm, func) are 8-bit ASCII, right-aligned.";
	return "Time: instruction N of the trace at N ns. A second bus transfer of\n"
	       "\tone instruction follows 1 ps later.\n"
	       "\tText variables (disasm, func) are 8-bit ASCII, right-aligned.";
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
		"other waveform viewers).  Module cpu: pc, instr (encoding), executed,\n"
		"disasm and func (the function containing pc, with --image; both text:\n"
		"8-bit ASCII, show them with an ASCII data format); cpu.regs: x0-x30, sp\n"
		"(or r0-r15 for an AArch32 trace) and cpsr; cpu.fpregs: v0-v31 (or\n"
		"q0-q15), fpsr, fpcr (or fpscr); cpu.bus: addr, data, size, write, all z\n"
		"when idle.  Values the trace has not shown are x.  Time: instruction N at\n"
		"N ns; a further bus transfer of the same instruction 1 ps later each.\n"
		"The index options are accepted for compatibility: vcd reads the trace\n"
		"directly and needs no index.",
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
	if (tk_cli_load_image(&cli))
		return TK_EXIT_FAIL;
	tk_source *src;
	if (tk_cli_open_trace(&cli, &src))
		return TK_EXIT_FAIL;
	if (!(cli.tinfo.caps & TK_CAP_REGS) || !(cli.tinfo.caps & TK_CAP_INSNS)) {
		tk_cli_error(&cli, "%s: a %s trace has no %s: nothing to write as a VCD "
			     "(see 'tracekit formats')", cli.trace, cli.tinfo.format,
			     cli.tinfo.caps & TK_CAP_INSNS ? "register values" : "instructions");
		tk_source_free(src);
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
	if (declare(&v, decide_a64(held, nheld)) < 0 || tk_vcd_begin(v.w) < 0)
		goto io;

	int out_rc = 0;
	for (size_t i = 0; i < nheld && out_rc == 0; i++)
		out_rc = on_event(&v, held[i].ev);
	rc = 0;
	while (out_rc == 0 && more && (rc = tk_cli_next(&cli, src, &ev)) > 0)
		out_rc = on_event(&v, &ev);
	if (rc < 0)
		goto done;	/* tk_cli_next printed it */
	if (out_rc < 0 || tk_vcd_finish(v.w) < 0)
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
	tk_vcd_free(v.w);
	tk_cli_close_trace(&cli, src);
	if (fp) {
		if (status != TK_EXIT_OK && fp != stdout && !ferror(fp)) {
			/* Make tk_cli_close_output() drop its temporary file. */
			close(fileno(fp));
			fputc('\n', fp);
			fflush(fp);
		}
		if (tk_cli_close_output(&cli, fp))
			status = TK_EXIT_FAIL;
	}
	tk_symtab_free(cli.symtab);
	tk_namemap_fini(&cli.names);
	return status;
}
