/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the call detector (see calls.h): contexts, steps, roots and
 * gaps, and each event to its producer. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls_impl.h"
#include "callsum.h"
#include "calltree.h"
#include "tracekit/error.h"

void tk_calls_debugf(tk_calls *c, const char *fmt, ...)
{
	char buf[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	c->opts.debug(c->opts.debug_ctx, buf);
}

/* ---- contexts ---- */

static uint32_t ctx_hash(uint32_t id)
{
	return (id * 0x9e3779b1u) ^ (id >> 16);
}

static int ctxmap_grow(tk_calls *c)
{
	uint32_t cap = c->ctxmask ? 2 * (c->ctxmask + 1) : 16;
	uint32_t *map = calloc(cap, sizeof *map);
	if (!map)
		return TK_ERR_NOMEM;
	for (uint32_t i = 0; i < c->nctx; i++) {
		uint32_t h = ctx_hash(c->ctx[i]->id) & (cap - 1);
		while (map[h])
			h = (h + 1) & (cap - 1);
		map[h] = i + 1;
	}
	free(c->ctxmap);
	c->ctxmap = map;
	c->ctxmask = cap - 1;
	return 0;
}

static int new_context(tk_calls *c, uint32_t id, tk_cctx **out)
{
	if (c->nctx == c->ctxcap) {
		uint32_t cap = c->ctxcap ? 2 * c->ctxcap : 4;
		tk_cctx **n = realloc(c->ctx, cap * sizeof *n);
		if (!n)
			return TK_ERR_NOMEM;
		c->ctx = n;
		c->ctxcap = cap;
	}
	if (2 * (c->nctx + 1) > c->ctxmask && ctxmap_grow(c) < 0)
		return TK_ERR_NOMEM;
	tk_cctx *x = calloc(1, sizeof *x);
	if (!x || tk_stack_init(&x->stack) < 0) {
		if (x)
			tk_stack_fini(&x->stack);
		free(x);
		return TK_ERR_NOMEM;
	}
	x->id = id;
	tk_calls_arm_init(x);
	c->ctx[c->nctx++] = x;
	uint32_t h = ctx_hash(id) & c->ctxmask;
	while (c->ctxmap[h])
		h = (h + 1) & c->ctxmask;
	c->ctxmap[h] = c->nctx;
	*out = x;
	return 0;
}

static int context_slow(tk_calls *c, uint32_t id, tk_cctx **out)
{
	if (c->ctxmask) {
		for (uint32_t h = ctx_hash(id) & c->ctxmask; c->ctxmap[h]; h = (h + 1) & c->ctxmask)
			if (c->ctx[c->ctxmap[h] - 1]->id == id) {
				*out = c->last = c->ctx[c->ctxmap[h] - 1];
				return 0;
			}
	}
	int rc = new_context(c, id, out);
	if (rc == 0)
		c->last = *out;
	return rc;
}

static inline int context(tk_calls *c, uint32_t id, tk_cctx **out)
{
	if (c->last && c->last->id == id) {
		*out = c->last;
		return 0;
	}
	return context_slow(c, id, out);
}

/* ---- steps ---- */

static bool is_step(tk_calls *c, tk_event_kind kind)
{
	bool insn = kind == TK_EV_INSN || kind == TK_EV_RUN;
	if (!c->steps_decided) {
		c->func_steps = !insn;
		c->steps_decided = true;
	}
	return c->func_steps ? !insn : insn;
}

/* A step of context x at tpos t. */
static void note_step(tk_cctx *x, const tk_tpos *t)
{
	if (!x->have_first) {
		x->first = *t;
		x->have_first = true;
	}
	x->last = *t;
}

/* The step from context x's previous instruction to one at cur, to the
 * producer of its previous instruction's kind, if it may transfer
 * control. */
static int step_from_prev(tk_calls *c, tk_cctx *x, const tk_tpos *cur)
{
	uint64_t natural;
	if (!x->have_prev || !tk_calls_transfer(x->prev.pc, x->prev_width, x->prev_isa,
						x->prev_branch, cur->pc, &natural))
		return 0;
	if (x->prev_branch == TK_BR_UNKNOWN)
		return tk_calls_arm_transfer(c, x, cur, natural);
	return tk_calls_branch_transfer(c, x, cur, natural);
}

/* Context x's instructions up to the one at t, count of them since the
 * previous one the detector looked at: nothing before that last one is a
 * call or a return, so only it and the count matter (as TK_CS_STEPS). */
static void run_end(tk_calls *c, tk_cctx *x, const tk_tpos *t, uint64_t count, uint8_t width,
		    tk_isa isa, tk_branch branch)
{
	if (!c->func_steps)
		note_step(x, t);
	x->prev = *t;
	x->prev_width = width;
	x->prev_isa = isa;
	x->prev_branch = branch;
	x->have_prev = true;
	x->ninsn += count;
	tk_calls_arm_step(x);
}

/* An instruction of context x at cur (a step unless steps are function
 * events). */
static int insn_at(tk_calls *c, tk_cctx *x, const tk_tpos *cur, uint8_t width, tk_isa isa,
		   tk_branch branch)
{
	int rc = step_from_prev(c, x, cur);
	run_end(c, x, cur, 1, width, isa, branch);
	return rc;
}

static int on_insn(tk_calls *c, tk_cctx *x, const tk_event *ev)
{
	const tk_insn *in = &ev->u.insn;
	tk_tpos cur = {ev->time, ev->line, ev->offset, in->pc, c->nsteps};
	if (!c->func_steps)
		c->nsteps++;
	else
		cur.pos = c->nsteps ? c->nsteps - 1 : 0;
	return insn_at(c, x, &cur, in->width, in->isa, in->branch);
}

static int on_run(tk_calls *c, tk_cctx *x, const tk_event *ev)
{
	const tk_insn_run *r = &ev->u.run;
	if (!r->count)
		return 0;
	const tk_insn *last = &r->last;
	tk_tpos first = {ev->time, ev->line, ev->offset, r->first_pc, c->nsteps};
	uint64_t base = c->nsteps;
	if (!c->func_steps)
		c->nsteps += r->count;
	else
		first.pos = base ? base - 1 : 0;
	if (r->count == 1)
		return insn_at(c, x, &first, last->width, last->isa, last->branch);
	/* As insn_at for the first instruction (neither a call nor a return),
	 * whose step, prev and sp state the run's end replaces at once. */
	if (!c->func_steps && !x->have_first) {
		x->first = first;
		x->have_first = true;
	}
	int rc = step_from_prev(c, x, &first);
	tk_tpos end = {ev->time + r->count - 1, ev->line + r->count - 1, ev->offset, last->pc,
		       c->func_steps ? first.pos : base + r->count - 1};
	run_end(c, x, &end, r->count, last->width, last->isa, last->branch);
	return rc;
}

static int on_func(tk_calls *c, tk_cctx *x, const tk_event *ev)
{
	tk_tpos at = {ev->time, ev->line, ev->offset, ev->u.func.addr, c->nsteps};
	if (is_step(c, ev->kind)) {
		note_step(x, &at);
		c->nsteps++;
	} else {
		at.pos = c->nsteps ? c->nsteps - 1 : 0;
	}
	return tk_calls_func_event(c, x, ev, &at);
}

static int feed_event(tk_calls *c, const tk_event *ev)
{
	if (c->error)
		return c->error;
	tk_cctx *x;
	int rc;
	switch (ev->kind) {
	case TK_EV_INSN:
		is_step(c, ev->kind);
		if ((rc = context(c, ev->context, &x)) < 0)
			return rc;
		return on_insn(c, x, ev);
	case TK_EV_RUN:
		is_step(c, ev->kind);
		if ((rc = context(c, ev->context, &x)) < 0)
			return rc;
		return on_run(c, x, ev);
	case TK_EV_REG:
		if ((rc = context(c, ev->context, &x)) < 0)
			return rc;
		x->have_text = false;	/* text before it is no part of the root */
		return tk_calls_arm_reg(c, x, &ev->u.reg);
	case TK_EV_MEM:
		if (c->last && c->last->id == ev->context)
			c->last->have_text = false;
		return 0;
	case TK_EV_CALL:
	case TK_EV_RETURN:
		if ((rc = context(c, ev->context, &x)) < 0)
			return rc;
		return on_func(c, x, ev);
	case TK_EV_GAP:
		if ((rc = context(c, ev->context, &x)) < 0)
			return rc;
		TK_CALLS_DEBUG(c, "line %" PRIu64 ": gap (%s): no call or return is inferred "
			       "across it", ev->line, tk_gap_kind_name(ev->u.gap.kind));
		x->have_prev = false;
		return 0;
	case TK_EV_TEXT:
		if (ev->u.text.header)
			return 0;
		if ((rc = context(c, ev->context, &x)) < 0)
			return rc;
		if (!x->have_first && !x->have_text) {
			x->have_text = true;
			x->text_line = ev->line;
			x->text_offset = ev->offset;
		}
		return 0;
	default:
		return 0;
	}
}

int tk_calls_feed(tk_calls *c, const tk_event *ev)
{
	/* The bulk of a trace read as runs: another run of the same context. */
	if (ev->kind == TK_EV_RUN && !c->error && c->steps_decided && c->last &&
	    c->last->id == ev->context)
		return on_run(c, c->last, ev);
	return feed_event(c, ev);
}

int tk_calls_feed_many(tk_calls *c, const tk_event *evs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = tk_calls_feed(c, &evs[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- piece summaries (callsum.h) ---- */

const tk_csrec *tk_callsum_records(const tk_callsum *s, size_t *n);

/* A summary's position: local step + 1, 0 before the piece's first step. */
static uint64_t global_pos(uint64_t stored, uint64_t base)
{
	return base + stored ? base + stored - 1 : 0;
}

static tk_tpos global_tpos(const tk_tpos *t, uint64_t step_base, uint64_t line_base)
{
	tk_tpos g = *t;
	g.pos = global_pos(t->pos, step_base);
	g.line = t->line + line_base;
	return g;
}

static int summary_record(tk_calls *c, const tk_csrec *r, uint64_t step_base, uint64_t line_base)
{
	tk_cctx *x;
	int rc;
	if (r->type == TK_CS_MEM) {
		if (c->last && c->last->id == r->ctx)
			c->last->have_text = false;
		return 0;
	}
	if ((rc = context(c, r->ctx, &x)) < 0)
		return rc;
	tk_tpos t = global_tpos(&r->t, step_base, line_base);
	switch (r->type) {
	case TK_CS_INSN:
		return insn_at(c, x, &t, r->width, (tk_isa)r->isa, (tk_branch)r->branch);
	case TK_CS_STEPS:
		/* r->x instructions, each its predecessor's natural successor,
		 * with nothing the detector reads between them: only the last
		 * one and the count matter. */
		run_end(c, x, &t, r->x, r->width, (tk_isa)r->isa, (tk_branch)r->branch);
		return 0;
	case TK_CS_REG: {
		x->have_text = false;
		tk_reg_update u = {.view = r->view, .value = r->value, .state = r->state};
		return tk_calls_arm_reg(c, x, &u);
	}
	case TK_CS_TOUCH:
		x->have_text = false;
		return 0;
	case TK_CS_TEXT:
		if (!x->have_first && !x->have_text) {
			x->have_text = true;
			x->text_line = t.line;
			x->text_offset = t.offset;
		}
		return 0;
	case TK_CS_GAP:
		TK_CALLS_DEBUG(c, "line %" PRIu64 ": gap (%s): no call or return is inferred "
			       "across it", t.line, tk_gap_kind_name((tk_gap_kind)r->x));
		x->have_prev = false;
		return 0;
	case TK_CS_FUNC: {
		tk_event ev = {.kind = r->branch == 1 ? TK_EV_CALL : TK_EV_RETURN,
			       .context = r->ctx, .time = t.time, .line = t.line,
			       .offset = t.offset};
		ev.u.func.addr = t.pc;
		ev.u.func.site = r->x;
		if (c->func_steps)
			note_step(x, &t);
		return tk_calls_func_event(c, x, &ev, &t);
	}
	case TK_CS_LAST:
		return 0;	/* context() made it the last */
	default:
		return TK_ERR_CORRUPT;
	}
}

int tk_calls_feed_summary(tk_calls *c, const tk_callsum *s, uint64_t step_base,
			  uint64_t line_base)
{
	if (c->error)
		return c->error;
	if (!c->steps_decided)
		return TK_ERR_INVAL;
	size_t n;
	const tk_csrec *r = tk_callsum_records(s, &n);
	for (size_t i = 0; i < n; i++) {
		int rc = summary_record(c, &r[i], step_base, line_base);
		if (rc < 0)
			return rc;
		if (c->error)
			return c->error;
	}
	return 0;
}

int tk_calls_finish(tk_calls *c, tk_calltree **out)
{
	if (out)
		*out = NULL;
	if (c->error)
		return c->error;
	for (uint32_t i = 0; i < c->nctx; i++) {
		int rc = tk_stack_finish(c, c->ctx[i]);
		if (rc < 0)
			return rc;
	}
	if (c->builder && out) {
		int rc = tk_calltree_builder_take(c->builder, out);
		if (rc < 0)
			return rc;
		if (!*out && !(*out = calloc(1, sizeof **out)))
			return TK_ERR_NOMEM;
	}
	return 0;
}

tk_calls_steps tk_calls_steps_of(const tk_calls *c)
{
	if (!c->steps_decided)
		return TK_STEPS_AUTO;
	return c->func_steps ? TK_STEPS_FUNCS : TK_STEPS_INSNS;
}

void tk_calls_opts_init(tk_calls_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->size = sizeof *opts;
}

int tk_calls_new(const tk_calls_opts *opts, tk_calls **out)
{
	*out = NULL;
	if (opts && opts->size < offsetof(tk_calls_opts, sink))
		return TK_ERR_INVAL;
	tk_calls *c = calloc(1, sizeof *c);
	if (!c)
		return TK_ERR_NOMEM;
	tk_calls_opts_init(&c->opts);
	if (opts)
		memcpy(&c->opts, opts, opts->size < sizeof *opts ? opts->size : sizeof *opts);
	c->opts.size = sizeof c->opts;
	if (c->opts.steps != TK_STEPS_AUTO) {
		c->steps_decided = true;
		c->func_steps = c->opts.steps == TK_STEPS_FUNCS;
	}
	int rc = 0;
	if (c->opts.sink)
		c->sink = *c->opts.sink;
	else
		rc = tk_calltree_builder_new(&c->builder, &c->sink);
	if (rc < 0) {
		tk_calls_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void tk_calls_free(tk_calls *c)
{
	if (!c)
		return;
	tk_calltree_builder_free(c->builder);
	for (uint32_t i = 0; i < c->nctx; i++) {
		tk_stack_fini(&c->ctx[i]->stack);
		free(c->ctx[i]);
	}
	free(c->ctx);
	free(c->ctxmap);
	free(c);
}
