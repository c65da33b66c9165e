/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: the unicorn hooks that write the trace.
 *
 * The code hook runs before each instruction: it first reports the register
 * changes of the previous instruction (R lines), then prints the IT/IS line
 * of this one.  The memory hooks print MR/MW lines while the instruction
 * runs, so each instruction's lines come out in the Fast Model order: IT,
 * MR/MW, R.  The interrupt hook serves semihosting traps and turns any other
 * exception into a reported fault.
 */
#ifdef TK_HAVE_UNICORN
#include <stdio.h>
#include <string.h>

#include <unicorn/unicorn.h>

#include "trace.h"

static void finish_prev(rec *r)
{
	rec_insn *in = r->prev;
	if (!in)
		return;
	r->prev = NULL;
	rec_regs *g = &r->regs;
	/* Like a Fast Model, a call shows its link register write even when
	 * the value is unchanged (the call detector looks for it), and a
	 * semihosting call its result. */
	int lr = r->profile == REC_PROFILE_A64 ? A64_X0 + 30 : A32_LR;
	int always = !r->prev_exec ? -1 : (in->flags & REC_INSN_LINK) ? lr
		     : r->full_diff ? 0 : -1;
	if (r->full_diff || r->all_regs || (in->flags & REC_INSN_ALL)) {
		r->full_diff = false;
		rec_regs_update(g, r->uc, &r->out, g->all, g->nall, false, always);
		return;
	}
	if (!r->prev_exec)
		return;
	rec_regs_update(g, r->uc, &r->out, in->set, in->nset, false, always);
}

/* The value of a core register as last reported. */
static uint64_t reg_value(rec *r, unsigned n)
{
	if (r->profile == REC_PROFILE_A64)
		return n == 31 ? 0 : r->regs.shadow[A64_X0 + n][0];
	return r->regs.shadow[A32_R0 + (n & 15)][0];
}

/* Does this instruction pass its condition (IT) or fail it (IS)?  Also
 * steps the Thumb IT block state. */
static bool passes(rec *r, const rec_insn *in)
{
	uint32_t nzcv = rec_regs_nzcv(&r->regs);
	bool exec = true;
	if (in->isa == REC_ISA_T32 && r->itstate) {
		exec = rec_cond_holds(r->itstate >> 4, nzcv);
		if ((r->itstate & 7) == 0)
			r->itstate = 0;
		else
			r->itstate = (uint8_t)((r->itstate & 0xE0) | ((r->itstate << 1) & 0x1F));
		return exec;
	}
	uint64_t v;
	switch (in->cond_kind) {
	case REC_COND_FIELD:
		exec = rec_cond_holds(in->cond_arg, nzcv);
		break;
	case REC_COND_CBZ:
	case REC_COND_CBNZ:
		v = reg_value(r, in->cond_arg);
		if (in->isa != REC_ISA_A64 || !in->cond_arg2)
			v &= 0xFFFFFFFFu;
		exec = (v == 0) == (in->cond_kind == REC_COND_CBZ);
		break;
	case REC_COND_TBZ:
	case REC_COND_TBNZ:
		v = reg_value(r, in->cond_arg) >> in->cond_arg2 & 1;
		exec = (v == 0) == (in->cond_kind == REC_COND_TBZ);
		break;
	}
	if (in->flags & REC_INSN_IT)
		r->itstate = in->cond_arg;
	return exec;
}

static void stop_fault(rec *r, const char *event, const char *msg)
{
	if (r->stop == REC_STOP_NONE) {
		r->stop = REC_STOP_FAULT;
		r->fault_event = event;
		snprintf(r->fault, sizeof r->fault, "%s", msg);
	}
	r->stopping = true;
	uc_emu_stop(r->uc);
}

static void put_insn_line(rec *r, const rec_insn *in, bool exec)
{
	rec_out *o = &r->out;
	rec_regs *g = &r->regs;
	char *p = rec_out_room(o, 128 + in->head_len + in->tail_len);
	p = rec_put_words(p, o->ts, (size_t)o->tslen);
	*p++ = 'I';
	*p++ = exec ? 'T' : 'S';
	*p++ = ' ';
	*p++ = '(';
	p = rec_put_words(p, o->ts, (size_t)o->tslen - 5);
	*p++ = ')';
	*p++ = ' ';
	p = rec_put_words(p, in->head, in->head_len);
	*p++ = g->state;
	*p++ = ' ';
	p = rec_put_words(p, g->mode, (size_t)g->modelen);
	p = rec_put_words(p, in->tail, in->tail_len);
	o->len = (size_t)(p - o->buf);
}

volatile sig_atomic_t rec_signal;

/* Count one more instruction; false (and stop) at --max-insns,
 * --max-trace-size or a signal. */
static bool tick(rec *r)
{
	enum rec_stop why = REC_STOP_NONE;
	if (r->max_insns && r->out.count >= r->max_insns)
		why = REC_STOP_LIMIT;
	else if (r->max_bytes && r->out.written + r->out.len >= r->max_bytes)
		why = REC_STOP_SIZE;
	else if (rec_signal)
		why = REC_STOP_SIGNAL;
	if (why != REC_STOP_NONE) {
		r->stop = why;
		r->stopping = true;
		uc_emu_stop(r->uc);
		return false;
	}
	rec_out_tick(&r->out);
	return true;
}

/* Unicorn skips the code hook of a Thumb instruction that fails its
 * condition inside an IT block, so those are found here, between the last
 * instruction and this one, and reported as IS lines. */
static bool report_skipped(rec *r, uint64_t addr)
{
	uint64_t pc = r->seq_next;
	while (r->itstate && pc != addr) {
		const unsigned char *b = rec_mem_ptr(&r->mem, pc, 2);
		if (!b)
			break;
		unsigned size = (b[1] >> 3) >= 0x1D ? 4 : 2;
		if (size == 4 && !(b = rec_mem_ptr(&r->mem, pc, 4)))
			break;
		rec_insn *in = rec_insn_get(r->cache, pc, REC_ISA_T32, b, size);
		if (!in)
			break;
		passes(r, in);	/* steps the IT state */
		if (!tick(r))
			return false;
		put_insn_line(r, in, false);
		pc += size;
	}
	return true;
}

static void hook_code(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	rec *r = user;
	if (r->stopping) {
		uc_emu_stop(uc);
		return;
	}
	r->resume = false;
	finish_prev(r);

	int isa = r->profile == REC_PROFILE_A64 ? REC_ISA_A64
		  : r->regs.state == 'T' ? REC_ISA_T32 : REC_ISA_A32;
	if (isa != REC_ISA_T32)
		r->itstate = 0;
	else if (r->itstate && addr != r->seq_next && !report_skipped(r, addr))
		return;
	if (!tick(r))
		return;

	unsigned char tmp[4] = {0};
	const unsigned char *bytes = size <= 4 ? rec_mem_ptr(&r->mem, addr, size) : NULL;
	if (!bytes) {
		uc_mem_read(uc, addr, tmp, size <= 4 ? size : 4);
		bytes = tmp;
		if (size > 4)
			size = 4;
	}
	rec_insn *in = rec_insn_get(r->cache, addr, isa, bytes, size);
	if (!in) {
		stop_fault(r, "CoreEvent_Stop", "out of memory");
		return;
	}
	bool exec = passes(r, in);
	put_insn_line(r, in, exec);
	r->prev = in;
	r->prev_exec = exec;
	r->seq_next = addr + size;
}

static void put_mem_line(rec *r, bool write, uint64_t addr, int size, uint64_t v)
{
	rec_out *o = &r->out;
	char *p = rec_out_room(o, 96);
	p = rec_put_words(p, o->ts, (size_t)o->tslen);
	*p++ = 'M';
	*p++ = write ? 'W' : 'R';
	*p++ = (char)('0' + size);
	*p++ = ' ';
	p = rec_put_hex(p, addr, addr >> 32 ? 16 : 8, rec_hex_lower);
	*p++ = ':';
	p = rec_put_hex(p, addr, addr >> 48 ? 16 : 12, rec_hex_lower);
	*p++ = ' ';
	if (size == 8) {
		p = rec_put_hex(p, v >> 32, 8, rec_hex_lower);
		*p++ = '_';
		p = rec_put_hex(p, v, 8, rec_hex_lower);
	} else {
		p = rec_put_hex(p, v, size * 2, rec_hex_lower);
	}
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}

static uint64_t load_le(const unsigned char *p, int size)
{
	uint64_t v = 0;
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void hook_mem(uc_engine *uc, uc_mem_type type, uint64_t addr, int size,
		     int64_t value, void *user)
{
	rec *r = user;
	if (r->stopping || size <= 0)
		return;
	bool write = type == UC_MEM_WRITE;
	const unsigned char *p = rec_mem_ptr(&r->mem, addr, (uint64_t)size);
	if (!p)
		return;		/* unmapped: the fault is reported instead */
	if (size == 1 || size == 2 || size == 4 || size == 8) {
		/* A read hook runs before the load, so memory holds its data. */
		uint64_t v = write ? (uint64_t)value : load_le(p, size);
		put_mem_line(r, write, addr, size, v);
		return;
	}
	/* Anything else, in pieces of 8, 4, 2 and 1 bytes (for a write only
	 * the first piece is known: the store has not happened yet). */
	for (int off = 0; off < size;) {
		int n = size - off >= 8 ? 8 : size - off >= 4 ? 4 : size - off >= 2 ? 2 : 1;
		uint64_t v = write && off == 0 ? (uint64_t)value : load_le(p + off, n);
		put_mem_line(r, write, addr + (uint64_t)off, n, v);
		off += n;
	}
}

static bool hook_invalid(uc_engine *uc, uc_mem_type type, uint64_t addr, int size,
			 int64_t value, void *user)
{
	rec *r = user;
	r->bad_type = (int)type;
	r->bad_addr = addr;
	r->bad_size = size;
	return false;
}

static const char *exception_name(uint32_t intno, const char **event)
{
	switch (intno) {
	case 1: *event = "CoreEvent_UNDEFINED"; return "undefined instruction";
	case 2: *event = "CoreEvent_SWI"; return "supervisor call (SVC) that is not a semihosting call";
	case 3: *event = "CoreEvent_PREFETCH_ABORT"; return "prefetch abort";
	case 4: *event = "CoreEvent_DATA_ABORT"; return "data abort (alignment or permission fault)";
	case 7: *event = "CoreEvent_BKPT"; return "breakpoint instruction that is not a semihosting call";
	case 11: *event = "CoreEvent_HVC"; return "hypervisor call (HVC)";
	case 13: *event = "CoreEvent_SMC"; return "secure monitor call (SMC)";
	case 16: *event = "CoreEvent_SEMIHOST"; return "semihosting trap";
	case 17: *event = "CoreEvent_UsageFault"; return "coprocessor (FPU) access while disabled";
	case 18: *event = "CoreEvent_UsageFault"; return "invalid state (e.g. a branch to Arm code on a Thumb-only core)";
	default: *event = "CoreEvent_EXCEPTION"; return "exception";
	}
}

/* If the last instruction is a semihosting trap, perform the call and
 * resume after it; returns false if it is not one. */
static bool semihost(rec *r)
{
	rec_insn *in = r->prev;
	if (!in || !r->prev_exec || !rec_semihost_is_trap(in))
		return false;
	uc_engine *uc = r->uc;
	bool a64 = r->profile == REC_PROFILE_A64;
	int ids[2] = {a64 ? UC_ARM64_REG_X0 : UC_ARM_REG_R0, a64 ? UC_ARM64_REG_X1 : UC_ARM_REG_R1};
	uint64_t op = 0, param = 0;
	void *vals[2] = {&op, &param};
	uc_reg_read_batch(uc, ids, vals, 2);
	if (!a64) {
		op &= 0xFFFFFFFFu;
		param &= 0xFFFFFFFFu;
	}
	uint64_t ret = rec_semihost_call(r, op, param);
	if (r->stop != REC_STOP_NONE) {
		r->stopping = true;
		uc_emu_stop(uc);
		return true;
	}
	uc_reg_write(uc, ids[0], &ret);
	/* SVC leaves the pc after the trap, HLT and BKPT on it. */
	uint64_t pc = in->addr + in->size;
	if (in->isa == REC_ISA_T32)
		pc |= 1;
	uc_reg_write(uc, a64 ? UC_ARM64_REG_PC : UC_ARM_REG_PC, &pc);
	r->full_diff = true;
	/* Writing the pc from a hook makes unicorn stop; from some hooks it
	 * carries on by itself, from others rec_trace_run restarts it. */
	r->resume_pc = pc;
	r->resume = true;
	return true;
}

static void fault_at(rec *r, const char *event, const char *what)
{
	char msg[200];
	if (r->prev)
		snprintf(msg, sizeof msg, "%s at pc 0x%llx", what, (unsigned long long)r->prev->addr);
	else
		snprintf(msg, sizeof msg, "%s", what);
	stop_fault(r, event, msg);
}

static void hook_intr(uc_engine *uc, uint32_t intno, void *user)
{
	rec *r = user;
	if (semihost(r))
		return;
	const char *event;
	const char *what = exception_name(intno, &event);
	fault_at(r, event, what);
}

/* Unicorn reports some undefined encodings here rather than as an
 * exception: HLT in AArch32 among them. */
static bool hook_invalid_insn(uc_engine *uc, void *user)
{
	rec *r = user;
	if (semihost(r))
		return true;
	fault_at(r, "CoreEvent_UNDEFINED", "undefined instruction");
	return false;
}

int rec_trace_begin(rec *r)
{
	uc_hook h;
	r->bad_type = -1;
	if (uc_hook_add(r->uc, &h, UC_HOOK_CODE, (void *)hook_code, r, 1, 0) ||
	    uc_hook_add(r->uc, &h, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, (void *)hook_mem, r, 1, 0) ||
	    uc_hook_add(r->uc, &h, UC_HOOK_MEM_INVALID, (void *)hook_invalid, r, 1, 0) ||
	    uc_hook_add(r->uc, &h, UC_HOOK_INTR, (void *)hook_intr, r, 1, 0) ||
	    uc_hook_add(r->uc, &h, UC_HOOK_INSN_INVALID, (void *)hook_invalid_insn, r, 1, 0))
		return -1;
	rec_out_set_time(&r->out, 0);
	return rec_regs_update(&r->regs, r->uc, &r->out, r->regs.dump, r->regs.nall, true, -1);
}

static void describe_uc_error(rec *r, uc_err err)
{
	char msg[200];
	const char *kind = NULL;
	const char *event = "CoreEvent_DATA_ABORT";
	switch (r->bad_type) {
	case UC_MEM_READ_UNMAPPED: kind = "read from unmapped address"; break;
	case UC_MEM_WRITE_UNMAPPED: kind = "write to unmapped address"; break;
	case UC_MEM_FETCH_UNMAPPED:
		kind = "instruction fetch from unmapped address";
		event = "CoreEvent_PREFETCH_ABORT";
		break;
	case UC_MEM_READ_PROT: kind = "read from protected address"; break;
	case UC_MEM_WRITE_PROT: kind = "write to protected address"; break;
	case UC_MEM_FETCH_PROT:
		kind = "instruction fetch from non-executable address";
		event = "CoreEvent_PREFETCH_ABORT";
		break;
	}
	bool fetch = r->bad_type == UC_MEM_FETCH_UNMAPPED || r->bad_type == UC_MEM_FETCH_PROT;
	if (kind && r->prev)
		snprintf(msg, sizeof msg, "%s 0x%llx %s pc 0x%llx", kind,
			 (unsigned long long)r->bad_addr,
			 fetch ? "reached from the instruction at" : "by the instruction at",
			 (unsigned long long)r->prev->addr);
	else if (kind)
		snprintf(msg, sizeof msg, "%s 0x%llx", kind, (unsigned long long)r->bad_addr);
	else
		snprintf(msg, sizeof msg, "emulator error: %s", uc_strerror(err));
	if (!kind)
		event = "CoreEvent_Stop";
	r->stop = REC_STOP_NONE;
	r->stopping = false;
	stop_fault(r, event, msg);
}

int rec_trace_run(rec *r, uint64_t start)
{
	uc_err err = uc_emu_start(r->uc, start, (uint64_t)-1, 0, 0);
	while (err == UC_ERR_OK && r->stop == REC_STOP_NONE && r->resume) {
		r->resume = false;
		err = uc_emu_start(r->uc, r->resume_pc, (uint64_t)-1, 0, 0);
	}
	rec_insn *last = r->prev;
	if (err != UC_ERR_OK && r->stop == REC_STOP_NONE)
		describe_uc_error(r, err);
	finish_prev(r);
	if (r->stop == REC_STOP_NONE) {
		/* Unicorn returned without our asking: treat it as a fault so
		 * the trace says where it ended. */
		stop_fault(r, "CoreEvent_Stop", "emulation stopped unexpectedly");
	}
	if (r->stop == REC_STOP_FAULT) {
		uint64_t pc = last ? last->addr : 0;
		rec_out *o = &r->out;
		char *p = rec_out_room(o, 400);
		p = rec_put(p, o->ts, (size_t)o->tslen);
		p = rec_put(p, "E ", 2);
		p = rec_put_hex(p, pc, pc >> 32 ? 16 : 8, rec_hex_lower);
		*p++ = ' ';
		size_t n = strlen(r->fault_event);
		p = rec_put(p, r->fault_event, n);
		*p++ = ' ';
		n = strlen(r->fault);
		p = rec_put(p, r->fault, n);
		*p++ = '\n';
		o->len = (size_t)(p - o->buf);
	}
	return 0;
}

#endif /* TK_HAVE_UNICORN */
