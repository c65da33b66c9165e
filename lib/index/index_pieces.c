/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: building the index from a trace read in pieces on several
 * threads (lib/parallel/pieces.h), with exactly the result of reading it
 * in order.
 *
 * Each piece is read on a worker as if nothing preceded it:
 *  - its steps and register updates are kept as they are (the blocks are
 *    encoded later, once the piece's place in the trace is known);
 *  - its register file records what the piece wrote (the delta);
 *  - its memory history is built speculatively (index_membuild.c: reads
 *    of bytes the piece has not touched yet are deferred);
 *  - the call detector's part is summarized (lib/calls/callsum.h);
 *  - a semihosting trap whose inputs the piece did not write itself marks
 *    the piece for an exact reading.
 * The stitching thread then takes the pieces in order: it numbers their
 * steps and lines, applies their register deltas, merges their memory
 * (finishing the deferred reads on the state before the piece), runs the
 * call detector over their summaries, and submits jobs that encode the
 * blocks starting in a piece (reading on into the following pieces for
 * its last block) from the register file before it.  The jobs' output is
 * written in order.  A piece read exactly (on the stitching thread, when
 * its warm-up reached the wrong state or a trap needs the state before
 * it) works on the whole's memory and registers directly.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "calls/callsum.h"
#include "index_build.h"
#include "parallel/pieces.h"

const uint64_t *tk_idx_test_cuts;
size_t tk_idx_test_ncuts;
bool tk_idx_force_order;
uint32_t tk_idx_test_pieces, tk_idx_test_exact;

/* A register update of a piece: after its `after`-th step (0: before the
 * first), len values then, unless allset, len states, at data in rdata. */
typedef struct preg {
	uint32_t after;
	uint16_t reg, off, len;
	bool allset;
	size_t data;
} preg;

typedef struct ixpiece {
	bool exact;
	tk_idx_step *steps;
	uint32_t nsteps, capsteps;
	preg *regs;
	size_t nregs, capregs;
	uint8_t *rdata;
	size_t rlen, rcap;
	uint8_t *rv, *rk, *rw;	/* what the piece wrote to the register file */
	uint64_t present[3];
	tk_ixmem *mem;		/* speculative; NULL when exact */
	tk_callsum *sum;
	tk_namemap names;
	uint64_t lines, reg_updates, mem_accesses, semihost, regseen[3];
	bool have_time;
	uint64_t maxtime;
	tk_isa isa;		/* of the first instruction with a known one */
	bool redo;		/* a trap needs the state before the piece */
	const tk_arch *arch[8];	/* the hooks of each instruction set */
	uint64_t step_base;	/* steps before the piece */
	/* the state before the piece, for its block job (set at stitch) */
	uint8_t *in_rv, *in_rk;
	uint64_t in_present[3], in_maxtime;
} ixpiece;

typedef struct pend {
	uint32_t piece, first;	/* the piece whose blocks, the first piece read */
	uint64_t from, to;	/* block starts from .. to - 512 */
} pend;

typedef struct pbuild {
	tk_ixbuild *b;
	pthread_mutex_t lock;	/* for pool */
	ixpiece *pool[64];	/* pieces given back, their buffers kept */
	unsigned npool;
	unsigned regfile;	/* bytes */
	pend *pend;
	size_t npend, cappend, phead;
	uint32_t held_lo;	/* the client holds [held_lo, last stitched] */
	bool failed;
} pbuild;

static inline void bit_set(uint64_t *m, unsigned i) { m[i >> 6] |= 1ull << (i & 63); }

static uint64_t global_pos(uint64_t stored, uint64_t base)
{
	return base + stored ? base + stored - 1 : 0;
}

/* The position the piece's events are at now. */
static uint64_t cur_pos(const ixpiece *x)
{
	return x->exact ? global_pos(x->nsteps, x->step_base) : x->nsteps;
}

/* ---- reading a piece ---- */

static void free_piece(ixpiece *x)
{
	free(x->steps);
	free(x->regs);
	free(x->rdata);
	free(x->rv);
	free(x->rk);
	free(x->rw);
	free(x->in_rv);
	free(x->in_rk);
	tk_ixmem_free(x->mem);
	tk_callsum_free(x->sum);
	tk_namemap_fini(&x->names);
	free(x);
}

/* A piece's data goes back to the pool: its buffers are reused (fresh
 * memory would be faulted in page by page for every piece). */
static void discard(void *ctx, tk_piece *p)
{
	pbuild *pb = ctx;
	ixpiece *x = p->data;
	p->data = NULL;
	if (!x)
		return;
	tk_ixmem_free(x->mem);
	x->mem = NULL;
	tk_namemap_fini(&x->names);
	pthread_mutex_lock(&pb->lock);
	if (pb->npool < sizeof pb->pool / sizeof pb->pool[0]) {
		pb->pool[pb->npool++] = x;
		x = NULL;
	}
	pthread_mutex_unlock(&pb->lock);
	if (x)
		free_piece(x);
}

static int begin(void *ctx, tk_piece *p)
{
	pbuild *pb = ctx;
	ixpiece *x = NULL;
	pthread_mutex_lock(&pb->lock);
	if (pb->npool)
		x = pb->pool[--pb->npool];
	pthread_mutex_unlock(&pb->lock);
	if (x) {
		/* keep the buffers, forget the rest */
		ixpiece keep = *x;
		memset(x, 0, sizeof *x);
		x->steps = keep.steps;
		x->capsteps = keep.capsteps;
		x->regs = keep.regs;
		x->capregs = keep.capregs;
		x->rdata = keep.rdata;
		x->rcap = keep.rcap;
		x->rv = keep.rv;
		x->rk = keep.rk;
		x->rw = keep.rw;
		x->in_rv = keep.in_rv;
		x->in_rk = keep.in_rk;
		x->sum = keep.sum;
		memset(x->rv, 0, pb->regfile);
		memset(x->rk, 0, pb->regfile);
		memset(x->rw, 0, pb->regfile);
		tk_callsum_reset(x->sum);
	} else if (!(x = calloc(1, sizeof *x))) {
		return TK_ERR_NOMEM;
	}
	p->data = x;
	x->exact = p->exact;
	x->step_base = pb->b->ninsn;	/* right when exact: the pieces before are stitched */
	for (int i = 0; i < 8; i++)
		x->arch[i] = tk_arch_of((tk_isa)i);
	if (!x->rv) {
		x->rv = calloc(1, pb->regfile);
		x->rk = calloc(1, pb->regfile);
		x->rw = calloc(1, pb->regfile);
	}
	if (!x->rv || !x->rk || !x->rw ||
	    (!x->sum &&
	     tk_callsum_new(pb->b->func_steps ? TK_STEPS_FUNCS : TK_STEPS_INSNS, &x->sum)) ||
	    (!x->exact && tk_ixmem_new_spec(&x->mem)))
		return TK_ERR_NOMEM;
	return 0;
}

typedef struct envctx {
	pbuild *pb;
	ixpiece *x;
} envctx;

static bool env_reg(void *ctx, tk_reg reg, unsigned n, uint64_t *value)
{
	envctx *e = ctx;
	const tk_ixbuild *b = e->pb->b;
	unsigned base = tk_idx_reg_base(reg);
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = base + i;
		uint8_t byte;
		if (e->x->rw[k]) {
			if (!e->x->rk[k])
				return false;
			byte = e->x->rv[k];
		} else if (e->x->exact) {
			if (!b->rk[k])
				return false;
			byte = b->rv[k];
		} else {
			e->x->redo = true;	/* written before the piece, perhaps */
			return false;
		}
		v |= (uint64_t)byte << (8 * i);
	}
	*value = v;
	return true;
}

static bool env_word(void *ctx, uint64_t addr, unsigned n, uint64_t *value)
{
	envctx *e = ctx;
	uint8_t buf[8];
	int rc = e->x->exact ? (tk_ixmem_peek(e->pb->b->mem, addr, n, buf) ? 1 : 0)
			     : tk_ixmem_peek3(e->x->mem, addr, n, buf);
	if (rc < 0)
		e->x->redo = true;
	if (rc <= 0)
		return false;
	bool be = e->pb->b->big_endian;
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)buf[be ? n - 1 - i : i] << (8 * i);
	*value = v;
	return true;
}

static int on_step(pbuild *pb, ixpiece *x, const tk_event *ev, const tk_insn *in,
		   unsigned kind)
{
	if (x->nsteps == x->capsteps) {
		uint32_t cap = x->capsteps ? 2 * x->capsteps : 1024;
		tk_idx_step *s = realloc(x->steps, cap * sizeof *s);
		if (!s)
			return TK_ERR_NOMEM;
		x->steps = s;
		x->capsteps = cap;
	}
	tk_idx_step *s = &x->steps[x->nsteps++];
	*s = (tk_idx_step){.line = ev->line, .offset = ev->offset, .time = ev->time, .pc = in->pc,
			   .context = ev->context, .isa = (uint8_t)in->isa, .width = in->width,
			   .kind = (uint8_t)kind, .branch = (uint8_t)in->branch,
			   .nbytes = in->nbytes, .executed = in->executed};
	memcpy(s->bytes, in->bytes, sizeof s->bytes);
	if (!x->have_time || ev->time > x->maxtime)
		x->maxtime = ev->time;
	x->have_time = true;
	if (kind == 0 && x->isa == TK_ISA_UNKNOWN)
		x->isa = in->isa;
	const tk_arch *arch = kind == 0 ? x->arch[in->isa & 7] : NULL;
	if (arch && arch->is_trap(in)) {
		envctx ec = {pb, x};
		tk_arch_env env = {env_reg, env_word, &ec};
		uint64_t addr, len;
		x->semihost++;
		bool redo = x->redo;
		int rc = arch->hidden_writes(in, &env, &addr, &len);
		if (!redo && x->redo)
			return 0;	/* to be read again exactly */
		if (rc == 1)
			return tk_ixmem_unknown(x->exact ? pb->b->mem : x->mem, cur_pos(x), addr, len);
	}
	return 0;
}

static int on_reg(ixpiece *x, const tk_event *ev)
{
	const tk_reg_update *u = &ev->u.reg;
	tk_reg reg = u->view.reg;
	if (reg >= TK_REG_COUNT)
		return 0;
	unsigned size = tk_reg_size(reg), off = u->view.offset, len = u->view.len;
	if (!len || off + len > size)
		return 0;
	x->reg_updates++;
	bool allset = true, any = false, anyknown = false;
	for (unsigned i = 0; i < len; i++) {
		unsigned s = u->state ? u->state[i] : TK_BYTE_SET;
		allset &= s == TK_BYTE_SET;
		any |= s != TK_BYTE_NONE;
	}
	if (!any)
		return 0;
	size_t need = allset ? len : 2 * (size_t)len;
	if (x->rlen + need > x->rcap) {
		size_t cap = x->rcap ? 2 * x->rcap : 16384;
		while (cap < x->rlen + need)
			cap *= 2;
		uint8_t *r = realloc(x->rdata, cap);
		if (!r)
			return TK_ERR_NOMEM;
		x->rdata = r;
		x->rcap = cap;
	}
	if (x->nregs == x->capregs) {
		size_t cap = x->capregs ? 2 * x->capregs : 1024;
		preg *r = realloc(x->regs, cap * sizeof *r);
		if (!r)
			return TK_ERR_NOMEM;
		x->regs = r;
		x->capregs = cap;
	}
	x->regs[x->nregs++] = (preg){x->nsteps, (uint16_t)reg, (uint16_t)off, (uint16_t)len,
				     allset, x->rlen};
	memcpy(x->rdata + x->rlen, u->value, len);
	if (!allset)
		memcpy(x->rdata + x->rlen + len, u->state, len);
	x->rlen += need;
	unsigned base = tk_idx_reg_base(reg) + off;
	for (unsigned i = 0; i < len; i++) {
		unsigned s = u->state ? u->state[i] : TK_BYTE_SET;
		if (s == TK_BYTE_SET) {
			x->rv[base + i] = u->value[i];
			x->rk[base + i] = 1;
			x->rw[base + i] = 1;
			anyknown = true;
		} else if (s == TK_BYTE_UNKNOWN) {
			x->rk[base + i] = 0;
			x->rw[base + i] = 1;
		}
	}
	if (anyknown)
		bit_set(x->present, reg);
	bit_set(x->regseen, reg);
	return 0;
}

static int event(void *ctx, tk_piece *p, const tk_event *ev)
{
	pbuild *pb = ctx;
	ixpiece *x = p->data;
	int err = 0;
	if (ev->line > x->lines)
		x->lines = ev->line;
	switch (ev->kind) {
	case TK_EV_INSN:
		err = on_step(pb, x, ev, &ev->u.insn, 0);
		break;
	case TK_EV_CALL:
	case TK_EV_RETURN:
		err = tk_namemap_add(&x->names, ev->u.func.addr, ev->u.func.name,
				     ev->u.func.name_len);
		if (!err && pb->b->func_steps) {
			tk_insn fn = {.pc = ev->u.func.addr, .executed = true};
			err = on_step(pb, x, ev, &fn, ev->kind == TK_EV_CALL ? 1 : 2);
		}
		break;
	case TK_EV_REG:
		err = on_reg(x, ev);
		break;
	case TK_EV_MEM:
		x->mem_accesses++;
		err = tk_ixmem_access(x->exact ? pb->b->mem : x->mem, cur_pos(x), &ev->u.mem);
		break;
	default:
		break;
	}
	return err ? err : tk_callsum_feed(x->sum, ev);
}

static int end(void *ctx, tk_piece *p)
{
	ixpiece *x = p->data;
	int err = tk_callsum_end(x->sum);
	if (!err && x->mem)
		err = tk_ixmem_end_piece(x->mem);
	return err;
}

/* ---- encoding blocks: a job ---- */

typedef struct bjob {
	pbuild *pb;
	tk_pieces *d;
	uint32_t first, last;	/* pieces read */
	uint64_t from, to;	/* encode the blocks starting in [from, to) */
	uint8_t *data;
	size_t len, cap;
	uint8_t *meta;		/* per block: directory entry, then pc filter */
	size_t nblocks, capblocks;
} bjob;

#define META (TK_DIR_SIZE + TK_BLOOM_BYTES)

static int job_block(void *ctx, const uint8_t *const parts[3], const size_t lens[3],
		     uint8_t dirent[TK_DIR_SIZE], const uint8_t bloom[TK_BLOOM_BYTES])
{
	bjob *j = ctx;
	size_t n = lens[0] + lens[1] + lens[2];
	if (j->len + n > j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 65536;
		while (cap < j->len + n)
			cap *= 2;
		uint8_t *d = realloc(j->data, cap);
		if (!d)
			return TK_ERR_NOMEM;
		j->data = d;
		j->cap = cap;
	}
	if (j->nblocks == j->capblocks) {
		size_t cap = j->capblocks ? 2 * j->capblocks : 16;
		uint8_t *m = realloc(j->meta, cap * META);
		if (!m)
			return TK_ERR_NOMEM;
		j->meta = m;
		j->capblocks = cap;
	}
	tk_put64(dirent + TK_DIR_DATA, j->len);
	memcpy(j->meta + j->nblocks * META, dirent, TK_DIR_SIZE);
	memcpy(j->meta + j->nblocks * META + TK_DIR_SIZE, bloom, TK_BLOOM_BYTES);
	j->nblocks++;
	for (int i = 0; i < 3; i++) {
		memcpy(j->data + j->len, parts[i], lens[i]);
		j->len += lens[i];
	}
	return 0;
}

static int feed_reg(tk_blockenc *e, const ixpiece *x, const preg *r)
{
	tk_idx_regup u = {(tk_reg)r->reg, r->off, r->len, x->rdata + r->data,
			  r->allset ? NULL : x->rdata + r->data + r->len};
	int rc = tk_blockenc_reg(e, &u);
	return rc < 0 ? rc : 0;
}

static int job_run(void *arg)
{
	bjob *j = arg;
	tk_blockenc e;
	int err = tk_blockenc_init(&e, job_block, j);
	tk_piece *fp = err ? NULL : tk_pieces_get(j->d, j->first);
	if (!err && !fp)
		err = TK_ERR_CORRUPT;
	if (!err) {
		const ixpiece *fx = fp->data;
		tk_blockenc_resume(&e, fx->step_base, fx->in_maxtime, fx->in_rv, fx->in_rk,
				   fx->in_present, j->from);
	}
	for (uint32_t k = j->first; !err && k <= j->last; k++) {
		tk_piece *p = tk_pieces_get(j->d, k);
		if (!p) {
			err = TK_ERR_CORRUPT;
			break;
		}
		const ixpiece *x = p->data;
		size_t r = 0;
		bool stop = false;
		for (uint32_t i = 0; !err && i < x->nsteps; i++) {
			while (!err && r < x->nregs && x->regs[r].after <= i)
				err = feed_reg(&e, x, &x->regs[r++]);
			if (x->step_base + i >= j->to) {
				stop = true;
				break;
			}
			tk_idx_step s = x->steps[i];
			s.line += p->line_base;
			if (!err)
				err = tk_blockenc_step(&e, &s);
		}
		if (stop)
			break;
		while (!err && r < x->nregs)
			err = feed_reg(&e, x, &x->regs[r++]);
	}
	if (!err)
		err = tk_blockenc_flush(&e);
	tk_blockenc_fini(&e);
	return err;
}

static int job_done(void *arg, int rc)
{
	bjob *j = arg;
	tk_ixbuild *b = j->pb->b;
	int err = rc;
	if (!err && !j->pb->failed)
		err = tk_ixw_write(b->w, j->data, j->len);
	for (size_t i = 0; !err && i < j->nblocks; i++) {
		uint8_t *m = j->meta + i * META;
		tk_put64(m + TK_DIR_DATA, b->data_off + tk_get64(m + TK_DIR_DATA));
		err = tk_spill_write(&b->dir, m, TK_DIR_SIZE);
		if (!err)
			err = tk_spill_write(&b->blooms, m + TK_DIR_SIZE, TK_BLOOM_BYTES);
	}
	if (!err)
		b->data_off += j->len;
	if (err)
		j->pb->failed = true;
	free(j->data);
	free(j->meta);
	free(j);
	return err;
}

/* ---- stitching ---- */

static int submit(pbuild *pb, tk_pieces *d, const pend *pe, uint32_t last)
{
	bjob *j = calloc(1, sizeof *j);
	if (!j)
		return TK_ERR_NOMEM;
	*j = (bjob){.pb = pb, .d = d, .first = pe->first, .last = last, .from = pe->from,
		    .to = pe->to};
	int err = tk_pieces_submit(d, job_run, job_done, j, pe->first, last);
	if (err)
		free(j);
	return err;
}

static int add_name(tk_ixbuild *b, const tk_namemap *m)
{
	uint64_t *addrs;
	const char **names;
	int n = tk_namemap_sorted(m, &addrs, &names);
	if (n < 0)
		return n;
	int err = 0;
	for (int i = 0; i < n && !err; i++)
		err = tk_namemap_add(&b->names, addrs[i], names[i], strlen(names[i]));
	free(addrs);
	free(names);
	return err;
}

static int stitch(void *ctx, tk_piece *p)
{
	pbuild *pb = ctx;
	tk_ixbuild *b = pb->b;
	ixpiece *x = p->data;
	tk_pieces *d = p->driver;
	if (!p->exact && x->redo)
		return TK_PIECE_REDO;
	uint64_t base = b->ninsn;
	x->step_base = base;
	if (x->lines && p->line_base + x->lines > b->lines)
		b->lines = p->line_base + x->lines;
	int err = add_name(b, &x->names);
	if (err)
		return err;
	b->reg_updates += x->reg_updates;
	b->mem_accesses += x->mem_accesses;
	b->semihost += x->semihost;
	for (int i = 0; i < 3; i++)
		b->regseen[i] |= x->regseen[i];
	if (b->src->info.isa == TK_ISA_UNKNOWN && x->isa != TK_ISA_UNKNOWN)
		b->src->info.isa = x->isa;

	/* The register file before the piece, for its blocks; then after. */
	if ((!x->in_rv && !(x->in_rv = malloc(pb->regfile))) ||
	    (!x->in_rk && !(x->in_rk = malloc(pb->regfile))))
		return TK_ERR_NOMEM;
	memcpy(x->in_rv, b->rv, pb->regfile);
	memcpy(x->in_rk, b->rk, pb->regfile);
	memcpy(x->in_present, b->present, sizeof b->present);
	x->in_maxtime = b->maxtime;
	for (unsigned i = 0; i < pb->regfile; i++)
		if (x->rw[i]) {
			b->rv[i] = x->rv[i];
			b->rk[i] = x->rk[i];
		}
	for (int i = 0; i < 3; i++)
		b->present[i] |= x->present[i];
	if (x->have_time && (!base || x->maxtime > b->maxtime))
		b->maxtime = x->maxtime;

	if (x->mem) {
		err = tk_ixmem_merge(b->mem, x->mem, base);
		tk_ixmem_free(x->mem);
		x->mem = NULL;
	}
	if (!err)
		err = tk_calls_feed_summary(b->calls, x->sum, base, p->line_base);
	if (err)
		return err;
	b->ninsn += x->nsteps;

	/* Blocks starting in this piece: a job, once their last block's
	 * updates are all in stitched pieces. */
	tk_pieces_hold(d, p->index, +1);
	uint64_t fb = (base + TK_BLOCK_INSNS - 1) / TK_BLOCK_INSNS * TK_BLOCK_INSNS;
	if (x->nsteps && fb < b->ninsn) {
		if (pb->npend == pb->cappend) {
			size_t cap = pb->cappend ? 2 * pb->cappend : 16;
			pend *np = realloc(pb->pend, cap * sizeof *np);
			if (!np)
				return TK_ERR_NOMEM;
			pb->pend = np;
			pb->cappend = cap;
		}
		uint64_t last_start = (b->ninsn - 1) / TK_BLOCK_INSNS * TK_BLOCK_INSNS;
		pb->pend[pb->npend++] = (pend){p->index, fb ? p->index : 0, fb,
					       last_start + TK_BLOCK_INSNS};
	}
	while (pb->phead < pb->npend && (b->ninsn > pb->pend[pb->phead].to || p->last)) {
		if ((err = submit(pb, d, &pb->pend[pb->phead], p->index)))
			return err;
		pb->phead++;
	}
	if (pb->phead == pb->npend)
		pb->phead = pb->npend = 0;
	/* Let go of the pieces no job to come needs. */
	uint32_t needed = p->last ? p->index + 1 : pb->phead < pb->npend ? pb->pend[pb->phead].first
						 : !b->ninsn ? 0 : p->index + 1;
	for (; pb->held_lo < needed; pb->held_lo++)
		tk_pieces_hold(d, pb->held_lo, -1);
	return 0;
}

int tk_idx_read_pieces(tk_ixbuild *b)
{
	const char *path = tk_source_path(b->src);
	if (tk_idx_force_order || !b->src->format || !b->src->format->chunks ||
	    !strcmp(path, "-") || !tk_source_size(b->src))
		return TK_ERR_UNSUPPORTED;
	pbuild pb = {.b = b, .regfile = tk_idx_regfile_bytes()};
	pthread_mutex_init(&pb.lock, NULL);
	b->rv = calloc(1, pb.regfile);
	b->rk = calloc(1, pb.regfile);
	if (!b->rv || !b->rk)
		return TK_ERR_NOMEM;
	tk_pieces_opts po = {
		.threads = b->opts->threads,
		.piece_bytes = b->opts->piece_bytes,
		.cuts = tk_idx_test_cuts,
		.ncuts = tk_idx_test_ncuts,
		.diag = b->src->diag,
		.diag_ctx = b->src->diag_ctx,
		.progress = b->opts->progress,
		.progress_ctx = b->opts->progress_ctx,
	};
	tk_pieces_client c = {&pb, begin, event, end, stitch, discard};
	int err = tk_pieces_run(b->src, &po, &c);
	tk_idx_test_pieces = po.pieces;
	tk_idx_test_exact = po.exact;
	if (b->opts->log) {
		char msg[400];
		snprintf(msg, sizeof msg, "read the trace in %u pieces on %u threads (%u read again "
			 "from the state before them); the stitching thread read for %.1f ms, "
			 "stitched for %.1f ms, ran jobs for %.1f ms, wrote for %.1f ms, waited "
			 "for %.1f ms; the workers read for %.1f ms, ran jobs for %.1f ms, waited "
			 "for %.1f ms", po.pieces, po.threads_used, po.exact, po.stats[0] / 1e3,
			 po.stats[1] / 1e3, po.stats[2] / 1e3, po.stats[3] / 1e3, po.stats[4] / 1e3,
			 po.stats[5] / 1e3, po.stats[6] / 1e3, po.stats[7] / 1e3);
		pthread_mutex_lock(&tk_idx_cb_lock);
		b->opts->log(b->opts->log_ctx, TK_INDEX_LOG_DETAIL, msg);
		pthread_mutex_unlock(&tk_idx_cb_lock);
	}
	free(pb.pend);
	for (unsigned i = 0; i < pb.npool; i++)
		free_piece(pb.pool[i]);
	pthread_mutex_destroy(&pb.lock);
	return err;
}
