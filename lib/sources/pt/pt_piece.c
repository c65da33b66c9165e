/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT: decoding one piece of a stream into records, the way ptxed's
 * decode loop goes (sync, drain events, next, report errors and resync at
 * the next PSB), as a state machine that stops whenever a chunk is full.
 *
 * A piece that is followed by another (PIECE_END_AT_IP) is decoded from its
 * own bytes only.  When its trace is used up (pts_eos) the code that needs
 * no trace is followed until the next piece's first IP, which is left for
 * the next piece: nothing is lost or doubled at the seam. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "pt_decode.h"

enum { S_START, S_SYNC, S_EVENTS, S_NEXT, S_AFTER, S_DONE };

#define ROOM 4	/* records one step may write */

/*
 * Chunks are recycled, so the lines a worker writes records into were last
 * read on the reader's core.  A store to such a line waits for it, and the
 * stores behind it (libipt's, into its decoder) wait too: with the reader
 * busy on the other core that cost a worker a quarter of its time.  Asking
 * for the line in the writable state 16 records ahead hides the wait:
 * PREFETCHW where the CPU has it (CPUID 0x80000001, ECX bit 8), else a
 * plain prefetch.
 */
static bool prefetchw_ok;
static pthread_once_t prefetchw_once = PTHREAD_ONCE_INIT;

static void detect_prefetchw(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	prefetchw_ok = __get_cpuid(0x80000001, &a, &b, &c, &d) && (c & (1u << 8));
#endif
}

/* The next record of ch, its line ahead asked for. */
static inline struct rec *append(struct chunk *ch)
{
	const struct rec *ahead = &ch->recs[ch->n + 16 < CHUNK_RECS ? ch->n + 16 : CHUNK_RECS - 1];
#if defined(__x86_64__) || defined(__i386__)
	if (prefetchw_ok)
		__asm__ volatile("prefetchw %0" : : "m"(*ahead));
	else
		__builtin_prefetch(ahead, 1);
#else
	__builtin_prefetch(ahead, 1);
#endif
	return &ch->recs[ch->n++];
}

void tk_pt_piece_init(struct piece_dec *pd, const tk_pt *pt, const struct pt_stream *st,
		      const tk_pt_decode_opts *o, const struct piece *pc, struct pt_image *image,
		      struct pt_insn_cache *cache)
{
	pthread_once(&prefetchw_once, detect_prefetchw);
	memset(pd, 0, sizeof *pd);
	pd->pt = pt;
	pd->st = st;
	pd->o = o;
	pd->pc = pc;
	pd->image = image;
	pd->cache = cache;
	pd->state = S_START;
}

void tk_pt_piece_fini(struct piece_dec *pd)
{
	/* The image belongs to the worker: detach it before freeing. */
	pt_blk_free_decoder(pd->blk);
	pt_insn_free_decoder(pd->ins);
	pd->blk = NULL;
	pd->ins = NULL;
}

static bool use_blk(const struct piece_dec *pd)
{
	return pd->o->decoder == TK_PT_DECODER_BLOCK;
}

static uint64_t dec_offset(const struct piece_dec *pd)
{
	uint64_t off = 0;
	if (use_blk(pd))
		pt_blk_get_offset(pd->blk, &off);
	else
		pt_insn_get_offset(pd->ins, &off);
	return pd->pc->begin + off;
}

static struct side *add_side(struct chunk *ch, uint32_t *index)
{
	if (ch->nside == ch->sidecap) {
		uint32_t ncap = ch->sidecap ? ch->sidecap * 2 : 16;
		struct side *ns = realloc(ch->side, ncap * sizeof *ns);
		if (!ns)
			return NULL;
		ch->side = ns;
		ch->sidecap = ncap;
	}
	*index = ch->nside;
	struct side *s = &ch->side[ch->nside++];
	memset(s, 0, sizeof *s);
	return s;
}

static int push_error(struct piece_dec *pd, struct chunk *ch, const char *what, int err,
		      uint64_t ip)
{
	uint32_t idx;
	struct side *s = add_side(ch, &idx);
	if (!s)
		return TK_ERR_NOMEM;
	snprintf(s->text, sizeof s->text, "%s: %s", what, pt_errstr(pt_errcode(err)));
	s->type = err;
	s->gap = TK_PT_GAP_DECODE_ERROR;
	*append(ch) = (struct rec){.kind = R_ERROR, .aux = idx, .ip = ip,
				   .offset = dec_offset(pd)};
	return 0;
}

static int push_event(struct chunk *ch, const struct pt_event *ev, uint64_t offset)
{
	uint32_t idx;
	struct side *s = add_side(ch, &idx);
	if (!s)
		return TK_ERR_NOMEM;
	tk_pt_event_text(ev, s->text, sizeof s->text);
	s->type = ev->type;
	uint64_t ip = 0;
	bool has_ip = !ev->ip_suppressed;
	switch (ev->type) {
	case ptev_enabled: ip = ev->variant.enabled.ip; break;
	case ptev_disabled: ip = ev->variant.disabled.ip; s->gap = TK_PT_GAP_DISABLED; break;
	case ptev_async_disabled:
		ip = ev->variant.async_disabled.at;
		has_ip = true;
		s->gap = TK_PT_GAP_DISABLED;
		break;
	case ptev_async_branch: ip = ev->variant.async_branch.from; has_ip = true; break;
	case ptev_overflow: ip = ev->variant.overflow.ip; s->gap = TK_PT_GAP_OVERFLOW; break;
	case ptev_exec_mode: ip = ev->variant.exec_mode.ip; break;
	case ptev_tsx: ip = ev->variant.tsx.ip; break;
	default: has_ip = false; break;
	}
	s->has_ip = has_ip;
	*append(ch) = (struct rec){.kind = R_EVENT, .aux = idx, .ip = has_ip ? ip : 0,
				   .offset = offset};
	return 0;
}

/* The endless-loop guard's limit: instructions without the trace moving
 * on. */
static uint64_t guard_limit(const struct piece_dec *pd)
{
	return pd->o->max_linear ? pd->o->max_linear : (1ull << 26);
}

/* The endless-loop guard: n more instructions at trace offset off. */
static bool guard_tripped(struct piece_dec *pd, uint64_t off, uint64_t n)
{
	if (off != pd->guard_off) {
		pd->guard_off = off;
		pd->guard_count = 0;
	}
	pd->guard_count += n;
	return pd->guard_count > guard_limit(pd);
}

static int alloc_decoder(struct piece_dec *pd)
{
	const uint8_t *data = pd->st->info.data;
	if (pd->pc->end <= pd->pc->begin)
		return 1;	/* nothing to decode */
	struct pt_config cfg;
	tk_pt_config(pd->pt, &cfg, data + pd->pc->begin, data + pd->pc->end);
	if (use_blk(pd)) {
		/* libipt 2.0.5's block decoder recurses once per direct jump
		 * or call it follows from its block cache: an endless loop of
		 * them (which needs no trace) overflows the stack.  Ending
		 * blocks there bounds that; the endless-loop guard then sees
		 * the loop. */
		cfg.flags.variant.block.end_on_jump = 1;
		cfg.flags.variant.block.end_on_call = 1;
		pd->blk = pt_blk_alloc_decoder(&cfg);
		if (!pd->blk || pt_blk_set_image(pd->blk, pd->image) < 0)
			return TK_ERR_NOMEM;
	} else {
		pd->ins = pt_insn_alloc_decoder(&cfg);
		if (!pd->ins || pt_insn_set_image(pd->ins, pd->image) < 0)
			return TK_ERR_NOMEM;
	}
	return 0;
}

/* The IP after the last instruction of a block that failed to go on
 * (what ptxed reports for "no memory mapped" and "bad instruction"). */
static uint64_t error_ip(struct piece_dec *pd, int err)
{
	const struct pt_block *b = &pd->block;
	if (!b->ninsn)
		return b->ip;
	if (err != -pte_nomap && err != -pte_bad_insn)
		return b->end_ip;
	const struct pt_insn_info *in = tk_pt_insn_at(pd->cache, b->end_ip);
	if (!in || !in->size)
		return b->end_ip;
	return in->direct ? in->target : b->end_ip + in->size;
}

static void push_insn(struct chunk *ch, const struct pt_insn_info *in, uint64_t off,
		      uint8_t flags)
{
	*append(ch) = (struct rec){.kind = R_INSN, .size = in->size, .iclass = in->iclass,
				   .branch = in->branch, .flags = flags, .ip = in->ip,
				   .offset = off, .u.bytes = in->raw};
}

/* Whether n instructions from ip, each known to capstone, end with the
 * pending block's last one. */
static bool leads_to_end(struct piece_dec *pd, uint64_t ip, uint32_t n)
{
	for (; n > 1; n--) {
		const struct pt_insn_info *in = tk_pt_insn_at(pd->cache, ip);
		if (!in || !in->size)
			return false;
		ip = in->direct && in->iclass != ptic_cond_jump ? in->target : ip + in->size;
	}
	return ip == pd->block.end_ip;
}

/* The size of the instruction at ip that libipt decoded and capstone
 * cannot, left instructions before the block's end (it included): the
 * one size with which the others lead to the block's last instruction;
 * 0 if none or several do. */
static uint8_t infer_size(struct piece_dec *pd, uint64_t ip, uint32_t left)
{
	if (left > 4096)
		return 0;	/* not worth the search */
	uint8_t found = 0;
	for (uint8_t size = 1; size <= 15; size++)
		if (leads_to_end(pd, ip + size, left - 1)) {
			if (found)
				return 0;
			found = size;
		}
	return found;
}

/* Expand the pending block as far as the chunk allows.  Returns 1 when the
 * piece's seam was reached (stop the piece), 0 otherwise. */
static int expand_pending(struct piece_dec *pd, struct chunk *ch)
{
	const struct pt_block *b = &pd->block;
	while (pd->pend_left && ch->n + ROOM < CHUNK_RECS) {
		uint64_t ip = pd->pend_ip;
		if (pd->fillin && ip == pd->pc->boundary_ip)
			return 1;
		struct pt_insn_info tmp;
		const struct pt_insn_info *in;
		if (ip == b->end_ip && b->truncated) {
			tk_pt_insn_classify(pd->cache, ip, b->raw, b->size, &tmp);
			in = &tmp;
		} else {
			in = tk_pt_insn_at(pd->cache, ip);
		}
		uint8_t flags = (uint8_t)((pd->pend_first ? RF_BLOCK_START : 0) |
					  (b->speculative ? RF_SPECULATIVE : 0));
		pd->pend_first = false;
		if (!in || !in->size) {
			/* libipt took bytes for an instruction that capstone
			 * does not know (a newer extension, or no code at
			 * all): give it, bytes unknown, with the size that
			 * leads the rest of the block to its end, if one
			 * does.  Else its successor is unknown: the rest of
			 * the block is lost, as in ptxed. */
			uint8_t iclass = ip == b->end_ip ? (uint8_t)b->iclass : ptic_error;
			uint8_t size = pd->pend_left > 1 ? infer_size(pd, ip, pd->pend_left) : 0;
			*append(ch) = (struct rec){
				.kind = R_INSN, .size = size, .iclass = iclass,
				.branch = (uint8_t)tk_pt_branch_of(iclass, false), .flags = flags,
				.ip = ip, .offset = pd->pend_off};
			pd->pend_left = size ? pd->pend_left - 1 : 0;
			pd->pend_ip = ip + size;
			continue;
		}
		if (in == &tmp) {
			/* Truncated: bytes must outlive this call; they are
			 * only in the block, so keep what the cache has. */
			const struct pt_insn_info *c = tk_pt_insn_at(pd->cache, ip);
			push_insn(ch, in, pd->pend_off, flags);
			if (c)
				ch->recs[ch->n - 1].u.bytes = c->raw;
		} else {
			push_insn(ch, in, pd->pend_off, flags);
		}
		pd->pend_left--;
		/* Blocks follow direct jumps and calls. */
		pd->pend_ip = in->direct && in->iclass != ptic_cond_jump ? in->target : ip + in->size;
	}
	if (!pd->pend_left) {
		pd->pending = false;
		if (pd->fillin && pd->pend_ip == pd->pc->boundary_ip && b->iclass != ptic_cond_jump)
			return 0;	/* the next step ends the piece */
	}
	return 0;
}

/* A block's last instruction, at end, when libipt's class is not enough
 * (see block_last). */
static void block_last_slow(struct piece_dec *pd, uint64_t end, struct rec *r)
{
	const struct pt_block *b = &pd->block;
	bool last = end == b->end_ip;
	struct pt_insn_info tmp;
	const struct pt_insn_info *in;
	if (last && b->truncated) {
		tk_pt_insn_classify(pd->cache, end, b->raw, b->size, &tmp);
		in = &tmp;
	} else {
		in = tk_pt_insn_at(pd->cache, end);
	}
	if (in && in->size) {
		r->size = in->size;
		r->iclass = in->iclass;
		r->branch = in->branch;
	} else {
		r->size = 0;
		r->iclass = last ? (uint8_t)b->iclass : ptic_error;
		r->branch = (uint8_t)(last && b->iclass != ptic_error ? tk_pt_branch_of(b->iclass, false)
								      : TK_BR_NONE);
	}
}

/* A block's last instruction, at end: size, class and branch kind into r
 * (size 0 if unknown).  Only calls need a look at the bytes (their return
 * address, and a call to the next instruction is none); for the rest
 * libipt's class is enough, when it gives one (a return matches frames by
 * its target: its size is never needed).  Inline: it runs for every
 * block. */
static inline void block_last(struct piece_dec *pd, uint64_t end, struct rec *r)
{
	const struct pt_block *b = &pd->block;
	switch (end == b->end_ip ? b->iclass : ptic_error) {
	case ptic_other:
	case ptic_jump:
	case ptic_cond_jump:
	case ptic_far_jump:
	case ptic_ptwrite:
	case ptic_return:
	case ptic_far_return:
		r->iclass = (uint8_t)b->iclass;
		r->branch = (uint8_t)tk_pt_branch_of(b->iclass, false);
		r->size = 0;
		return;
	default:
		block_last_slow(pd, end, r);
	}
}

/* A block as one record (blocks-only mode): n instructions from b->ip, the
 * last one at end.  Blocks end at every call (alloc_decoder), so no earlier
 * instruction is a call or a return.  With join_blocks, a block extends
 * the record before it when that one ends in neither: a run of the event
 * model, as long as possible. */
static inline void push_block(struct piece_dec *pd, struct chunk *ch, uint32_t n, uint64_t end,
			      uint64_t off)
{
	struct rec *prev = ch->n ? &ch->recs[ch->n - 1] : NULL;
	if (pd->o->join_blocks && prev && prev->kind == R_BLOCK && prev->aux <= UINT32_MAX - n &&
	    (prev->branch == TK_BR_NONE || prev->branch == TK_BR_JUMP)) {
		prev->aux += n;
		prev->u.end_ip = end;
		block_last(pd, end, prev);
		return;
	}
	struct rec *r = append(ch);
	*r = (struct rec){.kind = R_BLOCK, .aux = n, .ip = pd->block.ip, .offset = off,
			  .u.end_ip = end};
	block_last(pd, end, r);
}

/* The instructions of a block in fill-in mode before the seam: count and
 * last address (blocks-only mode). */
static uint32_t fillin_count(struct piece_dec *pd, uint64_t *last)
{
	const struct pt_block *b = &pd->block;
	uint64_t ip = b->ip;
	uint32_t n = 0;
	while (n < b->ninsn && ip != pd->pc->boundary_ip) {
		const struct pt_insn_info *in = tk_pt_insn_at(pd->cache, ip);
		if (!in || !in->size)
			break;
		*last = ip;
		n++;
		ip = in->direct && in->iclass != ptic_cond_jump ? in->target : ip + in->size;
	}
	return n;
}

/* A block came back from pt_blk_next: record it.  Returns 1 if the seam
 * was reached. */
static int take_block(struct piece_dec *pd, struct chunk *ch, uint64_t off)
{
	const struct pt_block *b = &pd->block;
	if (!b->ninsn)
		return 0;
	if (pd->o->blocks_only) {
		uint32_t n = b->ninsn;
		uint64_t end = b->end_ip;
		if (pd->fillin)
			n = fillin_count(pd, &end);
		if (pd->o->count_only) {
			ch->ninsns += n;
			ch->nblocks += n != 0;
		} else if (n) {
			push_block(pd, ch, n, end, off);
		}
		return n < b->ninsn;
	}
	if (pd->o->block_marks && !(pd->fillin && b->ip == pd->pc->boundary_ip))
		*append(ch) = (struct rec){.kind = R_BLOCK, .aux = b->ninsn, .ip = b->ip,
					   .offset = off, .u.end_ip = b->end_ip};
	pd->pending = true;
	pd->pend_ip = b->ip;
	pd->pend_off = off;
	pd->pend_left = b->ninsn;
	pd->pend_first = true;
	return expand_pending(pd, ch);
}

/* An instruction from pt_insn_next.  Returns 1 if the seam was reached. */
static int take_insn(struct piece_dec *pd, struct chunk *ch, const struct pt_insn *insn,
		     uint64_t off)
{
	if (pd->fillin && insn->ip == pd->pc->boundary_ip)
		return 1;
	if (pd->o->count_only) {
		ch->ninsns++;
		return 0;
	}
	const struct pt_insn_info *in = tk_pt_insn_at(pd->cache, insn->ip);
	bool call_next = in && in->direct && insn->iclass == ptic_call &&
			 in->target == insn->ip + insn->size;
	*append(ch) = (struct rec){
		.kind = R_INSN, .size = insn->size, .iclass = (uint8_t)insn->iclass,
		.branch = (uint8_t)tk_pt_branch_of(insn->iclass, call_next),
		.flags = insn->speculative ? RF_SPECULATIVE : 0, .ip = insn->ip, .offset = off,
		.u.bytes = in && in->size == insn->size ? in->raw : NULL};
	if (!ch->recs[ch->n - 1].u.bytes)
		ch->recs[ch->n - 1].size = 0;	/* bytes unknown */
	return 0;
}

/* The guard tripped at ip: report the endless loop and resynchronise. */
static int push_endless(struct piece_dec *pd, struct chunk *ch, uint64_t ip)
{
	int rc = push_error(pd, ch, "error", -pte_internal, ip);
	if (rc == 0)
		snprintf(ch->side[ch->nside - 1].text, sizeof ch->side[0].text,
			 "error: endless loop that needs no trace");
	pd->state = S_SYNC;
	pd->guard_count = 0;
	return rc;
}

/* After an error: report it and resynchronise. */
static int fail(struct piece_dec *pd, struct chunk *ch, int err)
{
	uint64_t ip = use_blk(pd) ? error_ip(pd, err) : pd->insn_ip;
	int rc = push_error(pd, ch, "error", err, ip);
	pd->state = S_SYNC;
	return rc;
}

static int step(struct piece_dec *pd, struct chunk *ch)
{
	switch (pd->state) {
	case S_START: {
		int rc = alloc_decoder(pd);
		if (rc < 0)
			return rc;
		pd->state = rc ? S_DONE : S_SYNC;
		return 0;
	}
	case S_SYNC: {
		memset(&pd->block, 0, sizeof pd->block);
		pd->insn_ip = 0;
		pd->fillin = false;
		int status = use_blk(pd) ? pt_blk_sync_forward(pd->blk) : pt_insn_sync_forward(pd->ins);
		if (status == -pte_eos) {
			pd->state = S_DONE;
			return 0;
		}
		if (status < 0) {
			int rc = push_error(pd, ch, "sync error", status, 0);
			uint64_t now = dec_offset(pd);
			if (now <= pd->last_sync)
				pd->state = S_DONE;	/* no progress: give up */
			pd->last_sync = now;
			return rc;
		}
		pd->status = status;
		pd->state = S_EVENTS;
		return 0;
	}
	case S_EVENTS: {
		if (pd->status & pts_event_pending) {
			struct pt_event ev;
			uint64_t off = dec_offset(pd);
			int status = use_blk(pd) ? pt_blk_event(pd->blk, &ev, sizeof ev)
						 : pt_insn_event(pd->ins, &ev, sizeof ev);
			if (status < 0)
				return fail(pd, ch, status);
			pd->status = status;
			return ev.status_update ? 0 : push_event(ch, &ev, off);
		}
		if (pd->status & pts_eos) {
			if (pd->pc->how == PIECE_END_AT_IP) {
				pd->fillin = true;	/* follow the code to the seam */
			} else {
				if (pd->pc->how == PIECE_END_TRACE && !(pd->status & pts_ip_suppressed))
					*append(ch) = (struct rec){.kind = R_END,
								   .offset = dec_offset(pd)};
				pd->state = S_DONE;
				return 0;
			}
		}
		pd->state = S_NEXT;
		return 0;
	}
	case S_NEXT: {
		uint64_t off = dec_offset(pd);
		int status, seam;
		if (use_blk(pd)) {
			status = pt_blk_next(pd->blk, &pd->block, sizeof pd->block);
			if (guard_tripped(pd, off, pd->block.ninsn)) {
				pd->block.ninsn = 0;
				return push_endless(pd, ch, pd->block.ip);
			}
			seam = take_block(pd, ch, off);
		} else {
			struct pt_insn insn;
			memset(&insn, 0, sizeof insn);
			status = pt_insn_next(pd->ins, &insn, sizeof insn);
			pd->insn_ip = insn.ip;
			seam = 0;
			if (insn.iclass != ptic_error) {
				if (guard_tripped(pd, off, 1))
					return push_endless(pd, ch, insn.ip);
				seam = take_insn(pd, ch, &insn, off);
			}
		}
		if (seam) {
			pd->pending = false;
			pd->state = S_DONE;
			return 0;
		}
		pd->after_status = status;
		pd->state = S_AFTER;
		return 0;
	}
	case S_AFTER: {
		int status = pd->after_status;
		if (status < 0) {
			if (status == -pte_eos) {
				pd->state = S_DONE;
				return 0;
			}
			return fail(pd, ch, status);
		}
		pd->status = status;
		pd->state = S_EVENTS;
		return 0;
	}
	}
	return 0;
}

/* The common case of counting with the block decoder: block after block
 * with no event, no end and no seam in sight, without the state machine. */
static void fast_blocks(struct piece_dec *pd, struct chunk *ch)
{
	uint64_t base = pd->pc->begin;
	uint64_t lim = guard_limit(pd);
	while (ch->n + ROOM < CHUNK_RECS) {
		uint64_t off = 0;
		pt_blk_get_offset(pd->blk, &off);
		off += base;
		struct pt_block *b = &pd->block;
		int status = pt_blk_next(pd->blk, b, sizeof *b);
		if (off != pd->guard_off || b->ninsn + pd->guard_count > lim) {
			/* The slow path applies the guard: the block that trips
			 * it is dropped, as in step(). */
			pd->after_status = status;
			if (guard_tripped(pd, off, b->ninsn))
				b->ninsn = 0;
		} else {
			pd->guard_count += b->ninsn;
		}
		if (pd->o->count_only) {
			ch->ninsns += b->ninsn;
			ch->nblocks += b->ninsn != 0;
		} else if (b->ninsn) {
			push_block(pd, ch, b->ninsn, b->end_ip, off);
		}
		if (status < 0 || (status & (pts_event_pending | pts_eos)) || pd->guard_count > lim) {
			pd->after_status = status;
			pd->state = S_AFTER;
			return;
		}
	}
	pd->status = 0;
	pd->state = S_EVENTS;
}

/* The same for the instruction flow decoder. */
static void fast_insns(struct piece_dec *pd, struct chunk *ch)
{
	uint64_t base = pd->pc->begin;
	uint64_t lim = guard_limit(pd);
	while (ch->n + ROOM < CHUNK_RECS) {
		uint64_t off = 0;
		pt_insn_get_offset(pd->ins, &off);
		off += base;
		struct pt_insn insn;
		insn.iclass = ptic_error;
		insn.ip = 0;
		int status = pt_insn_next(pd->ins, &insn, sizeof insn);
		pd->insn_ip = insn.ip;
		if (insn.iclass != ptic_error) {
			if (off != pd->guard_off) {
				pd->guard_off = off;
				pd->guard_count = 0;
			}
			if (++pd->guard_count > lim) {
				pd->after_status = status;
				pd->state = S_AFTER;
				return;
			}
			take_insn(pd, ch, &insn, off);
		}
		if (status < 0 || (status & (pts_event_pending | pts_eos))) {
			pd->after_status = status;
			pd->state = S_AFTER;
			return;
		}
	}
	pd->status = 0;
	pd->state = S_EVENTS;
}

int tk_pt_piece_fill(struct piece_dec *pd, struct chunk *ch)
{
	while (ch->n + ROOM < CHUNK_RECS) {
		if (pd->state == S_NEXT && pd->o->blocks_only && !pd->fillin && pd->blk &&
		    !pd->pending) {
			fast_blocks(pd, ch);
			if (pd->state == S_AFTER && pd->guard_count > guard_limit(pd)) {
				int rc = push_endless(pd, ch, pd->block.ip);
				if (rc < 0)
					return rc;
			}
			continue;
		}
		if (pd->state == S_NEXT && pd->ins && !pd->fillin) {
			fast_insns(pd, ch);
			if (pd->state == S_AFTER && pd->guard_count > guard_limit(pd)) {
				int rc = push_endless(pd, ch, pd->insn_ip);
				if (rc < 0)
					return rc;
			}
			continue;
		}
		if (pd->pending) {
			if (expand_pending(pd, ch)) {
				pd->pending = false;
				pd->state = S_DONE;
			}
			continue;
		}
		if (pd->state == S_DONE) {
			tk_pt_piece_fini(pd);
			return 1;
		}
		int rc = step(pd, ch);
		if (rc < 0)
			return rc;
	}
	return 0;
}
