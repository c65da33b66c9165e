/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: summarizing a piece of a trace for the call detector (see
 * callsum.h for what is kept and why it is enough).
 *
 * The rules mirror the detector (calls.c): an event that looks up its
 * context (instruction, register, text, gap, function event) may create
 * it, and the detector remembers the last one (a memory line clears the
 * root's text of that context only); a register line clears the root's
 * text of its context; a text line sets it while the context has had no
 * step.  Once a context has had a step in the piece, its text lines change
 * nothing and one clearing is as good as many.
 */
#include <stdlib.h>
#include <string.h>

#include "callsum.h"
#include "calls_impl.h"
#include "tracekit/error.h"

/* What the summarizer knows of one context in the piece. */
typedef struct pctx {
	uint32_t id;
	bool used;
	bool stepped;		/* a step of it in the piece */
	bool cleared;		/* a TOUCH emitted since it stepped */
	bool have_prev;		/* an instruction of it in the piece, no gap since */
	uint64_t prev_pc;
	uint8_t prev_width;
	tk_isa prev_isa;
	tk_branch prev_branch;
	uint64_t run;		/* sequential instructions not yet emitted */
	tk_csrec last;		/* the last of them */
} pctx;

struct tk_callsum {
	bool func_steps;
	uint64_t nsteps;	/* steps of the piece so far */
	tk_csrec *rec;
	size_t n, cap;
	pctx *ctx;		/* open addressing on id */
	uint32_t ctxmask, nctx;
	bool have_last;
	uint32_t last;		/* context of the last looked-up event */
	pctx *cached;		/* the context of the last lookup */
};

int tk_callsum_new(tk_calls_steps steps, tk_callsum **out)
{
	*out = NULL;
	if (steps != TK_STEPS_INSNS && steps != TK_STEPS_FUNCS)
		return TK_ERR_INVAL;
	tk_callsum *s = calloc(1, sizeof *s);
	if (!s || !(s->ctx = calloc(16, sizeof *s->ctx))) {
		free(s);
		return TK_ERR_NOMEM;
	}
	s->ctxmask = 15;
	s->func_steps = steps == TK_STEPS_FUNCS;
	*out = s;
	return 0;
}

void tk_callsum_reset(tk_callsum *s)
{
	s->n = 0;
	s->nsteps = 0;
	s->nctx = 0;
	s->have_last = false;
	s->cached = NULL;
	memset(s->ctx, 0, (s->ctxmask + 1) * sizeof *s->ctx);
}

void tk_callsum_free(tk_callsum *s)
{
	if (!s)
		return;
	free(s->rec);
	free(s->ctx);
	free(s);
}

size_t tk_callsum_bytes(const tk_callsum *s)
{
	return s->cap * sizeof *s->rec + (s->ctxmask + 1) * sizeof *s->ctx;
}

static tk_csrec *add(tk_callsum *s, unsigned type, uint32_t ctx)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		tk_csrec *r = realloc(s->rec, cap * sizeof *r);
		if (!r)
			return NULL;
		s->rec = r;
		s->cap = cap;
	}
	tk_csrec *r = &s->rec[s->n++];
	memset(r, 0, sizeof *r);
	r->type = (uint8_t)type;
	r->ctx = ctx;
	return r;
}

static pctx *find(tk_callsum *s, uint32_t id)
{
	for (uint32_t i = (id * 0x9e3779b1u) & s->ctxmask;; i = (i + 1) & s->ctxmask)
		if (!s->ctx[i].used || s->ctx[i].id == id)
			return &s->ctx[i];
}

static pctx *context(tk_callsum *s, uint32_t id)
{
	if (s->cached && s->cached->id == id)
		return s->cached;
	pctx *x = find(s, id);
	if (x->used)
		return x;
	if (2 * (s->nctx + 1) > s->ctxmask) {
		uint32_t cap = 2 * (s->ctxmask + 1);
		pctx *old = s->ctx;
		uint32_t omask = s->ctxmask;
		if (!(s->ctx = calloc(cap, sizeof *s->ctx))) {
			s->ctx = old;
			return NULL;
		}
		s->ctxmask = cap - 1;
		for (uint32_t i = 0; i <= omask; i++)
			if (old[i].used)
				*find(s, old[i].id) = old[i];
		free(old);
		s->cached = NULL;
		x = find(s, id);
	}
	x->used = true;
	x->id = id;
	s->nctx++;
	return x;
}

/* Emit the pending run of sequential instructions of x. */
static int flush(tk_callsum *s, pctx *x)
{
	if (!x->run)
		return 0;
	tk_csrec *r = add(s, TK_CS_STEPS, x->id);
	if (!r)
		return TK_ERR_NOMEM;
	*r = x->last;
	r->type = TK_CS_STEPS;
	r->x = x->run;
	x->run = 0;
	return 0;
}

/* An event that looks up its context. */
static pctx *lookup(tk_callsum *s, const tk_event *ev)
{
	pctx *x = context(s, ev->context);
	if (x) {
		s->have_last = true;
		s->last = ev->context;
		s->cached = x;
	}
	return x;
}

static int touch(tk_callsum *s, pctx *x)
{
	if (x->stepped) {
		if (x->cleared)
			return 0;
		x->cleared = true;
	}
	return add(s, TK_CS_TOUCH, x->id) ? 0 : TK_ERR_NOMEM;
}

static bool is_lr_sp(tk_reg reg)
{
	return reg == TK_REG_R13 || reg == TK_REG_R14 || reg == TK_REG_X30 || reg == TK_REG_XSP;
}

/* Context x's previous instruction is now in, at t: the record r (a new
 * one, or the last of the run x->last stands for) says so. */
static void set_prev(pctx *x, tk_csrec *r, const tk_tpos *t, const tk_insn *in)
{
	x->have_prev = true;
	x->prev_pc = t->pc;
	x->prev_width = in->width;
	x->prev_isa = in->isa;
	x->prev_branch = in->branch;
	r->t = *t;
	r->ctx = x->id;
	r->type = TK_CS_INSN;
	r->isa = (uint8_t)in->isa;
	r->width = in->width;
	r->branch = (uint8_t)in->branch;
}

static int on_insn(tk_callsum *s, pctx *x, const tk_event *ev)
{
	const tk_insn *in = &ev->u.insn;
	bool step = !s->func_steps;
	uint64_t pos = step ? s->nsteps + 1 : s->nsteps;
	uint64_t natural;
	bool seq = step && x->have_prev &&
		   !tk_calls_transfer(x->prev_pc, x->prev_width, x->prev_isa, x->prev_branch, in->pc,
				      &natural);
	if (step) {
		s->nsteps++;
		if (!x->stepped) {
			x->stepped = true;
			x->cleared = false;
		}
	}
	/* A sequential instruction only extends the run: the last one of it
	 * is all the detector needs. */
	tk_csrec *r = &x->last;
	if (seq) {
		x->run++;
	} else {
		int err = flush(s, x);
		if (err || !(r = add(s, TK_CS_INSN, x->id)))
			return err ? err : TK_ERR_NOMEM;
	}
	set_prev(x, r, &(tk_tpos){ev->time, ev->line, ev->offset, in->pc, pos}, in);
	return 0;
}

/* A run: its first instruction as one, then the rest as a run of
 * sequential ones (nothing in it transfers control as the detector sees). */
static int on_run(tk_callsum *s, pctx *x, const tk_event *ev)
{
	const tk_insn_run *run = &ev->u.run;
	if (!run->count)
		return 0;
	tk_event first = *ev;
	first.kind = TK_EV_INSN;
	first.u.insn = run->last;
	first.u.insn.pc = run->first_pc;
	if (run->count > 1) {
		first.u.insn.width = 0;
		first.u.insn.branch = TK_BR_NONE;
	}
	int err = on_insn(s, x, &first);
	if (err || run->count == 1)
		return err;
	uint64_t more = run->count - 1;
	if (!s->func_steps)
		s->nsteps += more;
	x->run += more;
	set_prev(x, &x->last,
		 &(tk_tpos){ev->time + more, ev->line + more, ev->offset, run->last.pc, s->nsteps},
		 &run->last);
	return 0;
}

int tk_callsum_feed(tk_callsum *s, const tk_event *ev)
{
	pctx *x;
	tk_csrec *r;
	int err;
	switch (ev->kind) {
	case TK_EV_INSN:
		if (!(x = lookup(s, ev)))
			return TK_ERR_NOMEM;
		return on_insn(s, x, ev);
	case TK_EV_RUN:
		if (!(x = lookup(s, ev)))
			return TK_ERR_NOMEM;
		return on_run(s, x, ev);
	case TK_EV_REG:
		if (!(x = lookup(s, ev)))
			return TK_ERR_NOMEM;
		if (!is_lr_sp(ev->u.reg.view.reg) || ev->u.reg.view.len > 8)
			return touch(s, x);
		if ((err = flush(s, x)) || !(r = add(s, TK_CS_REG, x->id)))
			return err ? err : TK_ERR_NOMEM;
		r->view = ev->u.reg.view;
		memcpy(r->value, ev->u.reg.value, ev->u.reg.view.len);
		if (ev->u.reg.state)
			memcpy(r->state, ev->u.reg.state, ev->u.reg.view.len);
		else
			memset(r->state, TK_BYTE_SET, ev->u.reg.view.len);
		x->cleared = x->stepped;	/* a register write clears the text too */
		return 0;
	case TK_EV_MEM:
		if (!s->have_last) {
			if (!(r = add(s, TK_CS_MEM, ev->context)))
				return TK_ERR_NOMEM;
			return 0;
		}
		if (s->last != ev->context)
			return 0;
		return touch(s, find(s, ev->context));
	case TK_EV_CALL:
	case TK_EV_RETURN: {
		if (!(x = lookup(s, ev)))
			return TK_ERR_NOMEM;
		uint64_t pos = s->nsteps;
		if (s->func_steps) {
			pos = ++s->nsteps;
			if (!x->stepped) {
				x->stepped = true;
				x->cleared = false;
			}
		}
		if ((err = flush(s, x)) || !(r = add(s, TK_CS_FUNC, x->id)))
			return err ? err : TK_ERR_NOMEM;
		r->t = (tk_tpos){ev->time, ev->line, ev->offset, ev->u.func.addr, pos};
		r->x = ev->u.func.site;
		r->branch = ev->kind == TK_EV_CALL ? 1 : 2;
		return 0;
	}
	case TK_EV_GAP:
		if (!(x = lookup(s, ev)))
			return TK_ERR_NOMEM;
		if ((err = flush(s, x)) || !(r = add(s, TK_CS_GAP, x->id)))
			return err ? err : TK_ERR_NOMEM;
		r->t.line = ev->line;
		r->x = (uint64_t)ev->u.gap.kind;
		x->have_prev = false;
		return 0;
	case TK_EV_TEXT:
		if (ev->u.text.header)
			return 0;
		if (!(x = lookup(s, ev)))
			return TK_ERR_NOMEM;
		if (x->stepped)
			return 0;
		if (!(r = add(s, TK_CS_TEXT, x->id)))
			return TK_ERR_NOMEM;
		r->t.line = ev->line;
		r->t.offset = ev->offset;
		return 0;
	default:
		return 0;
	}
}

int tk_callsum_end(tk_callsum *s)
{
	for (uint32_t i = 0; i <= s->ctxmask; i++)
		if (s->ctx[i].used) {
			int err = flush(s, &s->ctx[i]);
			if (err)
				return err;
		}
	if (s->have_last && !add(s, TK_CS_LAST, s->last))
		return TK_ERR_NOMEM;
	return 0;
}

/* The records, for the detector. */
const tk_csrec *tk_callsum_records(const tk_callsum *s, size_t *n)
{
	*n = s->n;
	return s->rec;
}
