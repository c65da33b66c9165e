/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the HTM decoder's state, shared by its files. */
#ifndef TRACEKIT_HTM_IMPL_H
#define TRACEKIT_HTM_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/binin.h"
#include "tracekit/htm.h"

#define HTM_BUF_WORDS (128u << 10)	/* 1 MiB of words */
#define HTM_MAX_CONSECUTIVE_ERRORS 100

/* Word classes. */
static inline bool htm_is_stamp(uint64_t w) { return (w >> 44) == 0xACEFFu; }
static inline unsigned htm_tag(uint64_t w) { return (unsigned)(w >> 8) & 0xFFFFFu; }
static inline bool htm_is_p8_info(uint64_t w) { return htm_tag(w) == TK_HTM_TAG_P8; }
static inline bool htm_is_p10(uint64_t w) { return htm_tag(w) == TK_HTM_TAG_P10; }

/* POWER10 record types (bits 34-35 of a tagged word). */
enum { P10_NONE = 0, P10_XLATE = 1, P10_INST = 2, P10_IEARA = 3 };
static inline unsigned htm_p10_type(uint64_t w) { return htm_is_p10(w) ? (unsigned)(w >> 28) & 3 : P10_NONE; }

/* The POWER8 software TLB: a small hash per page size. */
#define TLB_SLOTS 4096u
static inline uint32_t htm_tlb_slot(uint64_t page)
{
	return (uint32_t)((page * 0x9E3779B97F4A7C15ull) >> 52) & (TLB_SLOTS - 1);
}
typedef struct htm_tlb_entry {
	uint64_t ea_page;	/* EA >> shift, + 1 (0: empty) */
	uint64_t ra_page;	/* page RA */
} htm_tlb_entry;

/* Distinct segment ids, for the statistics. */
typedef struct htm_idset {
	uint64_t *slots;	/* value + 1, 0 empty */
	uint32_t cap, count;
	uint64_t last;		/* value + 1 of the last add: most adds repeat it */
} htm_idset;

struct tk_htm {
	tk_binin *in;
	char *name;
	tk_htm_opts opts;

	/* words */
	uint64_t *buf;
	size_t pos, len;	/* in words */
	uint64_t base;		/* byte offset of buf[0] */
	bool eof;
	unsigned stray;		/* bytes after the last whole word */
	bool have_pushback;
	uint64_t pushback, pushback_off;
	uint64_t last_pushback_off;	/* for the "pushed back twice" check */
	bool pushed_once;
	uint64_t last_off;	/* offset of the last word fetched */

	/* decoded records waiting to be handed out */
	tk_qt_record queue[2];
	unsigned qhead, qlen;
	uint64_t number;

	/* POWER10 state */
	uint64_t insn_ea, insn_ra_block;
	unsigned insn_shift, data_shift;
	unsigned consecutive_errors;

	/* POWER8 state */
	uint64_t p8_prev_ea;
	htm_tlb_entry tlb[3][TLB_SLOTS];	/* 4K, 64K, 16M */

	/* statistics */
	tk_htm_stats stats;
	uint64_t prev_ea;
	bool prev_was_branch, have_prev;
	htm_idset esid_ira, esid_noira;

	int err;
	char errmsg[320];
	bool done;
};

/* htm_words.c */
/* Next raw word: 1, 0 at the end, <0 error.  Sets d->last_off. */
int htm_fetch_raw_slow(tk_htm *d, uint64_t *w);
/* Next word, stamps consumed and reported on the way. */
int htm_fetch_slow(tk_htm *d, uint64_t *w);

/* The common case inline: a buffered word, nothing given back. */
static inline int htm_fetch_raw(tk_htm *d, uint64_t *w)
{
	if (d->have_pushback || d->pos == d->len)
		return htm_fetch_raw_slow(d, w);
	d->last_off = d->base + (uint64_t)d->pos * 8;
	*w = d->buf[d->pos++];
	d->stats.raw_checksum += *w;
	return 1;
}

static inline int htm_fetch(tk_htm *d, uint64_t *w)
{
	if (d->have_pushback || d->pos == d->len || htm_is_stamp(d->buf[d->pos]))
		return htm_fetch_slow(d, w);
	return htm_fetch_raw(d, w);
}
/* Give back the word just fetched (it will be fetched again at the top
 * level).  Returns 0 or TK_ERR_CORRUPT (the same word given back twice). */
int htm_push_back(tk_htm *d, uint64_t w);
void htm_handle_stamp(tk_htm *d, uint64_t w, uint64_t off);
int htm_fail(tk_htm *d, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void htm_warn(tk_htm *d, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* htm_decode.c */
/* The queue slot for the next record, zeroed; then htm_emit() counts it
 * for the statistics and queues it (suffix: the second record of a
 * prefixed instruction). */
tk_qt_record *htm_new_record(tk_htm *d);
void htm_emit(tk_htm *d, tk_qt_record *rec, bool suffix);
void htm_idset_add(htm_idset *s, uint64_t v);

/* htm_p10.c, htm_p8.c: decode the sequence/record starting at word w (at
 * offset off).  Return 0 (records queued, or an invalid sequence stepped
 * over), or a negative error. */
int htm_p10_sequence(tk_htm *d, uint64_t w, uint64_t off);
int htm_p8_record(tk_htm *d, uint64_t w, uint64_t off);

/* htm_p8.c: the software TLB */
void htm_tlb_insert(tk_htm *d, uint64_t ea, uint64_t ra_page, unsigned shift);
bool htm_tlb_lookup(const tk_htm *d, uint64_t ea, uint64_t *ra_page, unsigned *shift);

/* Page shift of a POWER8 IRA / DRA page-size code (0: invalid). */
unsigned htm_p8_ira_shift(unsigned code);
unsigned htm_p8_dra_shift(unsigned code);
/* Page shift the POWER10 decoder takes from a walk level (0: none). */
unsigned htm_p10_level_shift(unsigned level);

#endif
