/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: Arm's rule for the end of a looping trace (see loop.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/loop.h"

/* A text-only line as compared: its text from the type word on, hashed
 * twice (64 + 64 bits) with its length: a line may be 64 MB long, and the
 * window must not hold 32 of those. */
typedef struct text_key {
	uint64_t h1, h2, len;
} text_key;

/* The last value of a register tracekit does not model, by name. */
typedef struct named_reg {
	char *name;		/* lower case */
	uint8_t *val, *known;
	size_t len;
} named_reg;

#define MAX_NAMED 4096

struct tk_loopdet {
	uint64_t pcs[TK_LOOP_PC_WINDOW];
	unsigned npcs, pc_head;		/* ring: oldest at pc_head */
	text_key texts[TK_LOOP_TEXT_WINDOW];
	unsigned ntexts, text_head;
	uint64_t detail;

	uint8_t val[TK_REG_COUNT][TK_REG_MAX_BYTES];
	uint8_t known[TK_REG_COUNT][TK_REG_MAX_BYTES];	/* 0 never written, 1 set, 2 unknown */
	named_reg *named;
	size_t nnamed, named_cap;
};

int tk_loopdet_new(tk_loopdet **out)
{
	*out = calloc(1, sizeof **out);
	return *out ? 0 : TK_ERR_NOMEM;
}

void tk_loopdet_free(tk_loopdet *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nnamed; i++) {
		free(d->named[i].name);
		free(d->named[i].val);
		free(d->named[i].known);
	}
	free(d->named);
	free(d);
}

uint64_t tk_loopdet_detail(const tk_loopdet *d)
{
	return d->detail;
}

/* ---- register values ------------------------------------------------------- */

/* Store bytes; true if any byte's value (or knownness) changed. */
static bool store(uint8_t *val, uint8_t *known, const uint8_t *v, const uint8_t *st, size_t n)
{
	bool changed = false;
	for (size_t i = 0; i < n; i++) {
		uint8_t s = st ? st[i] : TK_BYTE_SET;
		if (s == TK_BYTE_NONE)
			continue;
		uint8_t k = s == TK_BYTE_SET ? 1 : 2;
		uint8_t b = s == TK_BYTE_SET ? v[i] : 0;
		if (known[i] != k || val[i] != b)
			changed = true;
		known[i] = k;
		val[i] = b;
	}
	return changed;
}

static named_reg *find_named(tk_loopdet *d, const char *name, size_t len, size_t bytes)
{
	for (size_t i = 0; i < d->nnamed; i++)
		if (strlen(d->named[i].name) == len && !strncasecmp(d->named[i].name, name, len))
			return &d->named[i];
	if (d->nnamed == MAX_NAMED)
		return NULL;
	if (d->nnamed == d->named_cap) {
		size_t cap = d->named_cap ? 2 * d->named_cap : 16;
		named_reg *n = realloc(d->named, cap * sizeof *n);
		if (!n)
			return NULL;
		d->named = n;
		d->named_cap = cap;
	}
	named_reg *r = &d->named[d->nnamed];
	r->name = malloc(len + 1);
	r->val = calloc(bytes ? bytes : 1, 1);
	r->known = calloc(bytes ? bytes : 1, 1);
	if (!r->name || !r->val || !r->known) {
		free(r->name);
		free(r->val);
		free(r->known);
		return NULL;
	}
	for (size_t i = 0; i < len; i++)
		r->name[i] = (char)tolower((unsigned char)name[i]);
	r->name[len] = 0;
	r->len = bytes;
	d->nnamed++;
	return r;
}

/* Does this register update change a value?  (When in doubt, say yes: an
 * emptied window can only make a cut later, never wrong.) */
static bool reg_changes(tk_loopdet *d, const tk_reg_update *u)
{
	const tk_reg_view *v = &u->view;
	if (v->reg < TK_REG_COUNT) {
		if ((size_t)v->offset + v->len > TK_REG_MAX_BYTES)
			return true;
		return store(d->val[v->reg] + v->offset, d->known[v->reg] + v->offset, u->value,
			     u->state, v->len);
	}
	if (!u->name || !u->name_len)
		return true;
	named_reg *r = find_named(d, u->name, u->name_len, v->len);
	if (!r)
		return true;
	if (r->len < v->len) {
		uint8_t *nv = realloc(r->val, v->len), *nk = realloc(r->known, v->len);
		if (nv)
			r->val = nv;
		if (nk)
			r->known = nk;
		if (!nv || !nk)
			return true;
		memset(r->val + r->len, 0, v->len - r->len);
		memset(r->known + r->len, 0, v->len - r->len);
		r->len = v->len;
	}
	return store(r->val, r->known, u->value, u->state, v->len);
}

/* ---- text-only lines -------------------------------------------------------- */

static void hash_bytes(text_key *k, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++) {
		k->h1 = (k->h1 ^ s[i]) * 0x100000001b3ull;		/* FNV-1a */
		k->h2 = (k->h2 + s[i] + 1) * 0x9e3779b97f4a7c15ull;	/* another mix */
		k->h2 ^= k->h2 >> 29;
	}
	k->len += n;
}

static text_key new_key(void)
{
	return (text_key){0xcbf29ce484222325ull, 0x6a09e667f3bcc909ull, 0};
}

/* Is this text event an exception report (Arm's ExceptionEvent), which
 * the rule ignores? */
static bool is_exception(const tk_text *t)
{
	if (t->kind_len == 3 && !memcmp(t->kind, "EXC", 3))
		return true;
	if (t->kind_len != 1 || t->kind[0] != 'E')
		return false;
	/* "E DebugEvent_..." is a plain text line. */
	const char *p = t->text + 1, *end = t->text + t->len;
	while (p < end && isspace((unsigned char)*p))
		p++;
	return !(end - p >= 11 && !memcmp(p, "DebugEvent_", 11));
}

/* The key of a text-only line, or false if the event is not one. */
static bool text_key_of(const tk_event *ev, text_key *k)
{
	*k = new_key();
	if (ev->kind == TK_EV_TEXT) {
		const tk_text *t = &ev->u.text;
		if (is_exception(t) || (t->kind_len == 6 && !memcmp(t->kind, "Tarmac", 6)))
			return false;
		size_t n = t->len;
		while (n && (t->text[n - 1] == '\r' || t->text[n - 1] == ' ' || t->text[n - 1] == '\t'))
			n--;
		hash_bytes(k, t->text, n);
		return true;
	}
	if (ev->kind == TK_EV_MEM && ev->u.mem.aborted) {
		/* Arm's parser makes "MR4 ADDR (ABORTED)" a text line. */
		const tk_mem_access *m = &ev->u.mem;
		uint8_t tag[3] = {0xff, m->write, m->exclusive};
		hash_bytes(k, tag, sizeof tag);
		hash_bytes(k, &m->addr, sizeof m->addr);
		hash_bytes(k, &m->size, sizeof m->size);
		return true;
	}
	return false;
}

static const text_key *text_at(const tk_loopdet *d, unsigned i)	/* 0 = oldest */
{
	return &d->texts[(d->text_head + i) % TK_LOOP_TEXT_WINDOW];
}

static bool same_key(const text_key *a, const text_key *b)
{
	return a->h1 == b->h1 && a->h2 == b->h2 && a->len == b->len;
}

static int add_text(tk_loopdet *d, const text_key *k)
{
	if (d->ntexts == TK_LOOP_TEXT_WINDOW) {
		d->texts[d->text_head] = *k;
		d->text_head = (d->text_head + 1) % TK_LOOP_TEXT_WINDOW;
	} else {
		d->texts[(d->text_head + d->ntexts++) % TK_LOOP_TEXT_WINDOW] = *k;
	}
	/* The newest 2k lines: a block of k, twice? */
	unsigned n = d->ntexts;
	for (unsigned k2 = TK_LOOP_TEXT_MIN_BLOCK; 2 * k2 <= n; k2++) {
		bool same = true;
		for (unsigned i = 0; i < k2 && same; i++)
			same = same_key(text_at(d, n - 1 - i), text_at(d, n - 1 - i - k2));
		if (same) {
			d->detail = k2;
			return TK_LOOP_TEXT;
		}
	}
	return TK_LOOP_GO_ON;
}

/* ---- instructions ------------------------------------------------------------ */

static int add_pc(tk_loopdet *d, uint64_t pc)
{
	for (unsigned i = 0; i < d->npcs; i++)
		if (d->pcs[(d->pc_head + i) % TK_LOOP_PC_WINDOW] == pc) {
			d->detail = pc;
			return TK_LOOP_PC;
		}
	if (d->npcs == TK_LOOP_PC_WINDOW) {
		d->pcs[d->pc_head] = pc;
		d->pc_head = (d->pc_head + 1) % TK_LOOP_PC_WINDOW;
	} else {
		d->pcs[(d->pc_head + d->npcs++) % TK_LOOP_PC_WINDOW] = pc;
	}
	return TK_LOOP_GO_ON;
}

int tk_loopdet_line(tk_loopdet *d, const tk_event *ev, size_t n)
{
	int stop = TK_LOOP_GO_ON;
	for (size_t i = 0; i < n; i++) {
		int r = TK_LOOP_GO_ON;
		text_key k;
		switch (ev[i].kind) {
		case TK_EV_INSN:
			/* Looked up before it enters the window. */
			r = add_pc(d, ev[i].u.insn.pc);
			d->ntexts = d->text_head = 0;
			break;
		case TK_EV_REG:
			if (reg_changes(d, &ev[i].u.reg))
				d->npcs = d->pc_head = 0;
			d->ntexts = d->text_head = 0;
			break;
		default:
			if (text_key_of(&ev[i], &k))
				r = add_text(d, &k);
			break;
		}
		if (r && !stop)
			stop = r;
	}
	return stop;
}
