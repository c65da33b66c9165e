/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the call stack of one context (see calls_impl.h).
 *
 * Frames are kept in a ring [bottom, top); a hash table with linear probing
 * maps each key to the newest open frame with that key, and frames with
 * the same key are chained from newer to older.  The newest LAZY frames
 * [hashed, top) are left out of the table and searched one by one: most
 * calls return before they sink that deep, so they never touch the table.
 * Confirmed calls leave as the sink's forests: a frame's forest collects
 * the calls confirmed while it was the newest open frame, and moves to the
 * frame below when it is confirmed or dropped.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "calls_impl.h"
#include "tracekit/error.h"

#define INITIAL_CAP 64
#define LAZY 16

static inline uint64_t key_hash(unsigned space, uint64_t key, uint64_t sp, bool sp_known)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull ^ (sp_known ? sp : ~0ull) * 0xc2b2ae3d27d4eb4full ^
		     (uint64_t)space * 0x165667b19e3779f9ull;
	return h ^ (h >> 29) ^ (h >> 47);
}

static inline uint64_t frame_hash(const tk_frame *f)
{
	return key_hash(f->space, f->key, f->sp, f->sp_known);
}

static inline bool key_eq(const tk_frame *f, unsigned space, uint64_t key, uint64_t sp,
			  bool sp_known)
{
	return f->key == key && f->space == space && f->sp_known == sp_known &&
	       (!sp_known || f->sp == sp);
}

int tk_stack_init(tk_stack *s)
{
	memset(s, 0, sizeof *s);
	s->ring = malloc(INITIAL_CAP * sizeof *s->ring);
	s->table = calloc(2 * INITIAL_CAP, sizeof *s->table);
	s->mask = INITIAL_CAP - 1;
	s->tmask = 2 * INITIAL_CAP - 1;
	s->root_forest = TK_CALL_NONE;
	return s->ring && s->table ? 0 : TK_ERR_NOMEM;
}

void tk_stack_fini(tk_stack *s)
{
	free(s->ring);
	free(s->table);
	s->ring = NULL;
	s->table = NULL;
}

/* Slot holding the key, or the empty slot where it would go. */
static uint64_t slot_of(tk_stack *s, unsigned space, uint64_t key, uint64_t sp, bool sp_known)
{
	uint64_t i = key_hash(space, key, sp, sp_known) & s->tmask;
	while (s->table[i] && !key_eq(tk_stack_at(s, s->table[i] - 1), space, key, sp, sp_known))
		i = (i + 1) & s->tmask;
	return i;
}

uint64_t tk_stack_lookup(tk_stack *s, unsigned space, uint64_t key, uint64_t sp, bool sp_known)
{
	for (uint64_t pos = s->top; pos-- > s->hashed;)
		if (key_eq(tk_stack_at(s, pos), space, key, sp, sp_known))
			return pos;
	uint64_t v = s->table[slot_of(s, space, key, sp, sp_known)];
	return v ? v - 1 : TK_NO_FRAME;
}

/* Remove slot i (linear probing: shift the following run back). */
static void slot_delete(tk_stack *s, uint64_t i)
{
	uint64_t j = i;
	s->table[i] = 0;
	for (;;) {
		j = (j + 1) & s->tmask;
		if (!s->table[j])
			return;
		uint64_t home = frame_hash(tk_stack_at(s, s->table[j] - 1)) & s->tmask;
		/* move j to i unless its home lies cyclically in (i, j] */
		if (((j - home) & s->tmask) >= ((j - i) & s->tmask)) {
			s->table[i] = s->table[j];
			s->table[j] = 0;
			i = j;
		}
	}
}

/* The frame at pos is being removed: point its key at the previous open
 * frame with that key, or remove the key. */
static void unlink_key(tk_stack *s, uint64_t pos)
{
	if (pos >= s->hashed)
		return;		/* never in the table */
	const tk_frame *f = tk_stack_at(s, pos);
	uint64_t i = slot_of(s, f->space, f->key, f->sp, f->sp_known);
	if (!s->table[i] || s->table[i] - 1 != pos)
		return;		/* a newer frame holds the key */
	if (f->prev_same != TK_NO_FRAME && f->prev_same >= s->bottom)
		s->table[i] = f->prev_same + 1;
	else
		slot_delete(s, i);
}

/* Remove the newest frame. */
static void pop_top(tk_stack *s)
{
	unlink_key(s, s->top - 1);
	s->top--;
	if (s->hashed > s->top)
		s->hashed = s->top;
}

static void rebuild_table(tk_stack *s)
{
	memset(s->table, 0, (s->tmask + 1) * sizeof *s->table);
	for (uint64_t pos = s->bottom; pos < s->hashed; pos++) {
		const tk_frame *f = tk_stack_at(s, pos);
		s->table[slot_of(s, f->space, f->key, f->sp, f->sp_known)] = pos + 1;
	}
}

static int join_into(tk_calls *c, uint32_t *dst, uint32_t src)
{
	if (src == TK_CALL_NONE)
		return 0;
	if (*dst == TK_CALL_NONE) {
		*dst = src;
		return 0;
	}
	int rc = c->sink.join(c->sink.ctx, *dst, src, dst);
	if (rc < 0)
		c->error = rc;
	return rc;
}

/* The forest a newly confirmed or orphaned call goes into: that of the
 * newest open frame, or the root's. */
static uint32_t *parent_forest(tk_stack *s)
{
	return s->top > s->bottom ? &tk_stack_at(s, s->top - 1)->forest : &s->root_forest;
}

int tk_stack_drop_top(tk_calls *c, tk_stack *s)
{
	uint64_t pos = s->top - 1;
	uint32_t forest = tk_stack_at(s, pos)->forest;
	pop_top(s);
	return join_into(c, parent_forest(s), forest);
}

/* Forget the oldest frame (the ring is full).  Nothing encloses it, so its
 * calls go to the root; they precede every call still to come there (a
 * frame's forest is frozen while a newer frame is open above it). */
static int evict_bottom(tk_calls *c, tk_stack *s)
{
	tk_frame *f = tk_stack_at(s, s->bottom);
	TK_CALLS_DEBUG(c, "too many pending potential calls: forgetting the oldest (line %" PRIu64
		       ", return to 0x%" PRIx64 ")", f->call.line, f->key);
	uint32_t forest = f->forest;
	unlink_key(s, s->bottom);
	s->bottom++;
	if (s->hashed < s->bottom)
		s->hashed = s->bottom;
	return join_into(c, &s->root_forest, forest);
}

static int grow(tk_stack *s)
{
	uint64_t ncap = 2 * (s->mask + 1);
	tk_frame *ring = malloc(ncap * sizeof *ring);
	uint64_t *table = malloc(2 * ncap * sizeof *table);
	if (!ring || !table || ncap > UINT64_MAX / 4) {
		free(ring);
		free(table);
		return TK_ERR_NOMEM;
	}
	for (uint64_t pos = s->bottom; pos < s->top; pos++)
		ring[pos & (ncap - 1)] = *tk_stack_at(s, pos);
	free(s->ring);
	free(s->table);
	s->ring = ring;
	s->mask = ncap - 1;
	s->table = table;
	s->tmask = 2 * ncap - 1;
	rebuild_table(s);
	return 0;
}

tk_frame *tk_stack_push_new(tk_calls *c, tk_stack *s, int *rc)
{
	if (s->top - s->bottom > s->mask) {
		bool oldest_potential = !tk_stack_at(s, s->bottom)->firm;
		if (s->mask + 1 >= TK_CALLS_MAX_PENDING && oldest_potential)
			*rc = evict_bottom(c, s);
		else
			*rc = grow(s);
		if (*rc < 0)
			return NULL;
	}
	tk_frame *e = tk_stack_at(s, s->top++);
	e->forest = TK_CALL_NONE;
	/* The new frame stays out of the table (LAZY >= 1): only older ones
	 * go in, already filled in. */
	while (s->top - s->hashed > LAZY) {
		tk_frame *h = tk_stack_at(s, s->hashed);
		uint64_t i = slot_of(s, h->space, h->key, h->sp, h->sp_known);
		h->prev_same = s->table[i] ? s->table[i] - 1 : TK_NO_FRAME;
		s->table[i] = ++s->hashed;
	}
	*rc = 0;
	return e;
}

int tk_stack_push(tk_calls *c, tk_stack *s, const tk_frame *f)
{
	int rc;
	tk_frame *e = tk_stack_push_new(c, s, &rc);
	if (!e)
		return rc;
	*e = *f;
	e->forest = TK_CALL_NONE;
	return 0;
}

/* Confirm the newest frame as a call ending at exit/resume. */
static int confirm_top(tk_calls *c, tk_cctx *x, const tk_tpos *exit, const tk_tpos *resume,
		       uint32_t flags)
{
	tk_stack *s = &x->stack;
	uint64_t pos = s->top - 1;
	tk_frame *f = tk_stack_at(s, pos);
	tk_call call = {
		.call = f->call, .entry = f->entry, .exit = *exit, .resume = *resume,
		.parent = TK_CALL_NONE, .first_child = TK_CALL_NONE,
		.next_sibling = TK_CALL_NONE, .depth = 0, .context = x->id,
		.flags = flags | (f->firm ? TK_CALL_FIRM : 0),
	};
	uint32_t children = f->forest, forest = TK_CALL_NONE;
	pop_top(s);
	int rc = c->sink.confirm(c->sink.ctx, &call, children, &forest);
	if (rc < 0)
		return c->error = rc;
	return join_into(c, parent_forest(s), forest);
}

int tk_stack_close_at(tk_calls *c, tk_cctx *x, uint64_t pos, const tk_tpos *exit,
		      const tk_tpos *resume)
{
	tk_stack *s = &x->stack;
	int rc;
	while (s->top - 1 > pos) {
		tk_frame *f = tk_stack_at(s, s->top - 1);
		if (f->firm) {
			TK_CALLS_DEBUG(c, "line %" PRIu64 ": the call at line %" PRIu64
				       " is closed: an outer activation returned", exit->line,
				       f->call.line);
			rc = confirm_top(c, x, exit, resume, TK_CALL_UNWOUND);
		} else {
			rc = tk_stack_drop_top(c, s);
		}
		if (rc < 0)
			return rc;
	}
	return confirm_top(c, x, exit, resume, 0);
}

int tk_stack_finish(tk_calls *c, tk_cctx *x)
{
	tk_stack *s = &x->stack;
	int rc;
	while (s->top > s->bottom) {
		tk_frame *f = tk_stack_at(s, s->top - 1);
		if (f->firm) {
			TK_CALLS_DEBUG(c, "end of trace: the call at line %" PRIu64
				       " never returned: closed at line %" PRIu64,
				       f->call.line, x->last.line);
			rc = confirm_top(c, x, &x->last, &x->last, TK_CALL_UNRETURNED);
		} else {
			rc = tk_stack_drop_top(c, s);
		}
		if (rc < 0)
			return rc;
	}
	if (!x->have_first)
		return 0;
	tk_call root = {
		.entry = x->first, .exit = x->last,
		.parent = TK_CALL_NONE, .first_child = TK_CALL_NONE,
		.next_sibling = TK_CALL_NONE, .depth = 0, .context = x->id,
		.flags = TK_CALL_ROOT,
	};
	if (x->have_text) {
		root.entry.line = x->text_line;
		root.entry.offset = x->text_offset;
	}
	/* A trace of function events: the root is the whole trace, in no
	 * function (its first event is a call of the outermost one). */
	if (c->func_steps)
		root.entry.pc = root.exit.pc = 0;
	rc = c->sink.finish(c->sink.ctx, &root, s->root_forest);
	return rc < 0 ? (c->error = rc) : 0;
}
