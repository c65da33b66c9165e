/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: building an index from an event stream.
 *
 * One pass over the events.  Instructions are numbered (positions) and cut
 * into blocks of TK_BLOCK_INSNS.  For each block the BLOCKS section gets
 * the position records (delta-coded line, offset, time, pc...), a
 * checkpoint of the register file as it was before the block, and the log
 * of register updates in the block; the block directory (one fixed-size
 * entry per block) and the pc filters are collected on the side and
 * appended after.  Memory accesses go to the memory builder, every event
 * to the call detector; their sections follow.  Then the header.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tracekit/namemap.h"
#include "arch/arch.h"
#include "index_build.h"
#include "tracekit/calls.h"

#define POSREC_MAX 96	/* bytes one position record can take */

typedef struct ixb {
	tk_ixw *w;
	tk_source *src;
	const tk_index_opts *opts;
	bool big_endian;

	bool func_steps;	/* positions are function events (no instructions) */
	uint64_t ninsn;		/* steps seen */
	uint64_t pos;		/* position events are attributed to */

	/* the block being built */
	uint64_t blk_first;
	uint32_t blk_n;
	uint8_t posbuf[TK_BLOCK_INSNS * POSREC_MAX];
	size_t poslen;
	uint8_t *ck, *log;
	size_t cklen, ckcap, loglen, logcap;
	uint64_t log_prevpos;
	uint64_t blk_line, blk_offset, blk_time, maxtime;
	uint64_t regmask[3];
	uint8_t bloom[TK_BLOOM_BYTES];
	uint64_t prev_line, prev_offset, prev_time, prev_pc;
	uint32_t prev_context;
	uint64_t data_off;	/* offset of the block in BLOCKS */
	tk_spill dir, blooms;

	/* the register file now */
	uint8_t *rv, *rk;
	uint64_t present[3];

	tk_ixmem *mem;
	tk_calls *calls;
	tk_callspill *spill;	/* the detector's output, in a temporary file */
	tk_namemap names;	/* function names from the trace */

	uint64_t lines, reg_updates, mem_accesses, semihost, regseen[3];
} ixb;

static inline void bit_set(uint64_t *m, unsigned i) { m[i >> 6] |= 1ull << (i & 63); }
static inline bool bit_get(const uint64_t *m, unsigned i) { return m[i >> 6] >> (i & 63) & 1; }

static int reserve(uint8_t **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 4096;
	while (c < need)
		c *= 2;
	uint8_t *b = realloc(*buf, c);
	if (!b)
		return TK_ERR_NOMEM;
	*buf = b;
	*cap = c;
	return 0;
}

/* Checkpoint of the register file, for the block starting now. */
static int checkpoint(ixb *b)
{
	size_t need = 24;
	for (unsigned r = 0; r < TK_REG_COUNT; r++)
		if (bit_get(b->present, r))
			need += 3 + tk_reg_size((tk_reg)r) * 2;
	if (reserve(&b->ck, &b->ckcap, need))
		return TK_ERR_NOMEM;
	uint8_t *p = b->ck;
	for (int i = 0; i < 3; i++)
		tk_put64(p + 8 * i, b->present[i]);
	size_t n = 24;
	for (unsigned r = 0; r < TK_REG_COUNT; r++) {
		if (!bit_get(b->present, r))
			continue;
		unsigned size = tk_reg_size((tk_reg)r), base = tk_idx_reg_base((tk_reg)r);
		n += tk_putv(p + n, size);
		uint8_t *mask = p + n;
		memset(mask, 0, (size + 7) / 8);
		n += (size + 7) / 8;
		for (unsigned i = 0; i < size; i++)
			if (b->rk[base + i]) {
				mask[i >> 3] |= (uint8_t)(1u << (i & 7));
				p[n++] = b->rv[base + i];
			}
	}
	b->cklen = n;
	return 0;
}

static void start_block(ixb *b)
{
	b->blk_first = b->ninsn;
	b->blk_n = 0;
	b->poslen = 0;
	b->loglen = 0;
	b->log_prevpos = b->ninsn;
	memset(b->regmask, 0, sizeof b->regmask);
	memset(b->bloom, 0, sizeof b->bloom);
}

static int end_block(ixb *b)
{
	if (!b->blk_n)
		return 0;
	if (b->loglen > UINT32_MAX || b->cklen > UINT32_MAX)
		return TK_ERR_UNSUPPORTED;	/* > 4 GB of register lines in 512 instructions */
	int err = tk_ixw_write(b->w, b->posbuf, b->poslen);
	if (!err)
		err = tk_ixw_write(b->w, b->ck, b->cklen);
	if (!err)
		err = tk_ixw_write(b->w, b->log, b->loglen);
	if (err)
		return err;
	uint8_t e[TK_DIR_SIZE];
	tk_put64(e + TK_DIR_DATA, b->data_off);
	tk_put32(e + TK_DIR_POSLEN, (uint32_t)b->poslen);
	tk_put32(e + TK_DIR_CKPTLEN, (uint32_t)b->cklen);
	tk_put32(e + TK_DIR_LOGLEN, (uint32_t)b->loglen);
	tk_put32(e + TK_DIR_NINSN, b->blk_n);
	tk_put64(e + TK_DIR_LINE, b->blk_line);
	tk_put64(e + TK_DIR_OFFSET, b->blk_offset);
	tk_put64(e + TK_DIR_TIME, b->blk_time);
	tk_put64(e + TK_DIR_MAXTIME, b->maxtime);
	for (int i = 0; i < 3; i++)
		tk_put64(e + TK_DIR_REGMASK + 8 * i, b->regmask[i]);
	b->data_off += b->poslen + b->cklen + b->loglen;
	err = tk_spill_write(&b->dir, e, sizeof e);
	if (!err)
		err = tk_spill_write(&b->blooms, b->bloom, sizeof b->bloom);
	return err;
}

/* ---- semihosting: the state the trap reads ---- */

static bool sh_reg(void *ctx, tk_reg reg, unsigned n, uint64_t *value)
{
	ixb *b = ctx;
	unsigned base = tk_idx_reg_base(reg);
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!b->rk[base + i])
			return false;
		v |= (uint64_t)b->rv[base + i] << (8 * i);
	}
	*value = v;
	return true;
}

static bool sh_word(void *ctx, uint64_t addr, unsigned n, uint64_t *value)
{
	ixb *b = ctx;
	uint8_t buf[8];
	if (!tk_ixmem_peek(b->mem, addr, n, buf))
		return false;
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)buf[b->big_endian ? n - 1 - i : i] << (8 * i);
	*value = v;
	return true;
}

/* ---- events ---- */

/* A step: an instruction (in = its tk_insn), or a function event of a
 * source without instructions (step_kind 1 for a call, 2 for a return; in
 * then describes the function's address). */
static int on_step(ixb *b, const tk_event *ev, const tk_insn *in, unsigned step_kind)
{
	int err;
	if (b->ninsn && b->ninsn % TK_BLOCK_INSNS == 0) {
		if ((err = end_block(b)))
			return err;
		start_block(b);
		if ((err = checkpoint(b)))
			return err;
	}
	if (b->blk_n == 0) {
		b->blk_line = b->prev_line = ev->line;
		b->blk_offset = b->prev_offset = ev->offset;
		b->blk_time = b->prev_time = ev->time;
		b->prev_pc = 0;
		b->prev_context = 0;
	}
	b->pos = b->ninsn++;
	b->blk_n++;
	if (b->pos == 0 || ev->time > b->maxtime)
		b->maxtime = ev->time;

	uint8_t *p = b->posbuf + b->poslen;
	size_t n = 0;
	unsigned wcode = in->width == 0 ? 0 : in->width == 2 ? 1 : in->width == 4 ? 2 : 3;
	/* The encoding as a varint when its bytes are what the width and the
	 * ISA's order imply (every Arm instruction), else the bytes themselves. */
	bool varint_enc = in->nbytes && in->nbytes == in->width && in->nbytes <= 8;
	uint8_t ext = (uint8_t)(step_kind | (unsigned)in->branch << TK_PX_BRANCH_SHIFT);
	if (ev->context != b->prev_context)
		ext |= TK_PX_CONTEXT;
	if (in->nbytes && !varint_enc)
		ext |= TK_PX_RAWBYTES;
	p[n++] = (uint8_t)((in->isa & TK_PF_ISA_MASK) | (in->executed ? TK_PF_EXECUTED : 0) |
			   wcode << TK_PF_WIDTH_SHIFT | (varint_enc ? TK_PF_ENCODING : 0) |
			   (ext ? TK_PF_EXT : 0));
	if (wcode == 3)
		p[n++] = in->width;
	if (ext)
		p[n++] = ext;
	if (ext & TK_PX_CONTEXT)
		n += tk_putv(p + n, ev->context);
	b->prev_context = ev->context;
	n += tk_putv(p + n, ev->line - b->prev_line);
	n += tk_putv(p + n, ev->offset - b->prev_offset);
	n += tk_putv(p + n, tk_zigzag((int64_t)(ev->time - b->prev_time)));
	n += tk_putv(p + n, tk_zigzag((int64_t)(in->pc - b->prev_pc)));
	if (varint_enc) {
		n += tk_putv(p + n, tk_insn_encoding(in));
	} else if (in->nbytes) {
		p[n++] = in->nbytes;
		memcpy(p + n, in->bytes, in->nbytes);
		n += in->nbytes;
	}
	b->poslen += n;
	b->prev_line = ev->line;
	b->prev_offset = ev->offset;
	b->prev_time = ev->time;
	b->prev_pc = in->pc;

	unsigned x, y;
	tk_bloom_bits(in->pc, &x, &y);
	b->bloom[x >> 3] |= (uint8_t)(1u << (x & 7));
	b->bloom[y >> 3] |= (uint8_t)(1u << (y & 7));

	const tk_arch *arch = step_kind == 0 ? tk_arch_of(in->isa) : NULL;
	if (arch && arch->is_trap(in)) {
		tk_arch_env env = {sh_reg, sh_word, b};
		uint64_t addr, len;
		b->semihost++;
		if (arch->hidden_writes(in, &env, &addr, &len) == 1)
			return tk_ixmem_unknown(b->mem, b->pos, addr, len);
	}
	return 0;
}

static int on_reg(ixb *b, const tk_event *ev)
{
	const tk_reg_update *u = &ev->u.reg;
	tk_reg reg = u->view.reg;
	if (reg >= TK_REG_COUNT)
		return 0;	/* a register tracekit does not model */
	unsigned size = tk_reg_size(reg), off = u->view.offset, len = u->view.len;
	if (!len || off + len > size)
		return 0;
	b->reg_updates++;
	bool allset = true, any = false, anyknown = false;
	for (unsigned i = 0; i < len; i++) {
		unsigned s = u->state ? u->state[i] : TK_BYTE_SET;
		allset &= s == TK_BYTE_SET;
		any |= s != TK_BYTE_NONE;
	}
	if (!any)
		return 0;
	if (reserve(&b->log, &b->logcap, b->loglen + 32 + 2 * (size_t)len))
		return TK_ERR_NOMEM;
	uint8_t *p = b->log + b->loglen;
	size_t n = 0;
	n += tk_putv(p + n, b->pos - b->log_prevpos);
	b->log_prevpos = b->pos;
	n += tk_putv(p + n, reg);
	p[n++] = (uint8_t)off;
	n += tk_putv(p + n, len);
	uint8_t flags = allset ? TK_RF_ALLSET : 0;
	if (allset && len <= 8)
		flags |= TK_RF_VARINT;
	p[n++] = flags;
	if (!allset) {
		memset(p + n, 0, (len + 3) / 4);
		for (unsigned i = 0; i < len; i++)
			p[n + i / 4] |= (uint8_t)((u->state[i] & 3) << (2 * (i & 3)));
		n += (len + 3) / 4;
	}
	unsigned base = tk_idx_reg_base(reg) + off;
	if (flags & TK_RF_VARINT) {
		uint64_t v = 0;
		for (unsigned i = 0; i < len; i++)
			v |= (uint64_t)u->value[i] << (8 * i);
		n += tk_putv(p + n, v);
	}
	for (unsigned i = 0; i < len; i++) {
		unsigned s = u->state ? u->state[i] : TK_BYTE_SET;
		if (s == TK_BYTE_SET) {
			if (!(flags & TK_RF_VARINT))
				p[n++] = u->value[i];
			b->rv[base + i] = u->value[i];
			b->rk[base + i] = 1;
			anyknown = true;
		} else if (s == TK_BYTE_UNKNOWN) {
			b->rk[base + i] = 0;
		}
	}
	b->loglen += n;
	bit_set(b->regmask, reg);
	bit_set(b->regseen, reg);
	if (anyknown)
		bit_set(b->present, reg);
	return 0;
}

static void progress(ixb *b, uint64_t done, uint64_t total)
{
	if (!b->opts->progress)
		return;
	pthread_mutex_lock(&tk_idx_cb_lock);
	b->opts->progress(b->opts->progress_ctx, done, total);
	pthread_mutex_unlock(&tk_idx_cb_lock);
}

/* ---- the driver ---- */

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void log_msg(const tk_index_opts *o, int level, const char *msg)
{
	if (!o->log)
		return;
	pthread_mutex_lock(&tk_idx_cb_lock);
	o->log(o->log_ctx, level, msg);
	pthread_mutex_unlock(&tk_idx_cb_lock);
}

/* Traces smaller than this are read on the builder's own thread. */
#define PREFETCH_MIN_BYTES (4u << 20)

static int copy_spill(tk_ixw *w, uint32_t id, tk_spill *s)
{
	int err = tk_ixw_begin(w, id);
	if (!err)
		err = tk_spill_copy(s, w);
	return err ? err : tk_ixw_end(w);
}

static void locked_calls_debug(void *ctx, const char *msg)
{
	const tk_index_opts *o = ctx;
	pthread_mutex_lock(&tk_idx_cb_lock);
	o->calls_debug(o->calls_debug_ctx, msg);
	pthread_mutex_unlock(&tk_idx_cb_lock);
}

/* Build into w (created by the caller); finishes or aborts w. */
int tk_idx_build_into(tk_source *src, tk_ixw *w, const tk_index_opts *opts, int *fd_out)
{
	uint64_t t0 = now_ms();
	ixb *b = calloc(1, sizeof *b);
	int err = 0;
	tk_callwalk *walk = NULL;
	tk_prefetch *pf = NULL;
	uint64_t ncalls = 0;
	uint32_t nroots = 0;
	tk_calls_sink sink;
	if (!b) {
		tk_ixw_abort(w);
		return TK_ERR_NOMEM;
	}
	b->w = w;
	b->src = src;
	b->opts = opts;
	tk_source_info si = {.size = sizeof si};
	tk_source_get_info(src, &si);
	b->big_endian = si.big_endian;
	b->func_steps = tk_source_info_func_steps(&si);
	b->rv = calloc(1, tk_idx_regfile_bytes());
	b->rk = calloc(1, tk_idx_regfile_bytes());
	tk_calls_opts copts;
	tk_calls_opts_init(&copts);
	copts.steps = b->func_steps ? TK_STEPS_FUNCS : TK_STEPS_INSNS;
	if (opts->calls_debug) {
		copts.debug = locked_calls_debug;
		copts.debug_ctx = (void *)opts;
	}
	copts.sink = &sink;
	if (!b->rv || !b->rk || tk_ixmem_new(&b->mem) || tk_callspill_new(&b->spill, &sink) ||
	    tk_calls_new(&copts, &b->calls)) {
		err = TK_ERR_NOMEM;
		goto out;
	}

	const char *tpath = tk_source_path(src);
	/* Identify the trace as it is *before* it is read: if it changes while
	 * it is being indexed (a simulator still writing it), the index
	 * describes older contents than a stat taken at the end would claim,
	 * and must not be reused as up to date. */
	struct stat st;
	bool have_st = stat(tpath, &st) == 0 && S_ISREG(st.st_mode);
	uint64_t fingerprint = 0;
	if (have_st && tk_idx_fingerprint(tpath, &fingerprint) < 0)
		have_st = false;
	if ((err = tk_ixw_begin(w, TK_SEC_TRACEPATH)) ||
	    (err = tk_ixw_write(w, tpath, strlen(tpath))) || (err = tk_ixw_end(w)))
		goto out;
	if ((err = tk_ixw_begin(w, TK_SEC_BLOCKS)))
		goto out;
	start_block(b);
	if ((err = checkpoint(b)))
		goto out;

	tk_event ev;
	uint64_t nev = 0;
	int r;
	if (tk_source_size(src) >= PREFETCH_MIN_BYTES && tk_prefetch_start(src, &pf) == 0)
		log_msg(opts, TK_INDEX_LOG_DETAIL, "reading the trace on a second thread");
	while ((r = pf ? tk_prefetch_next(pf, &ev) : tk_source_next(src, &ev)) > 0) {
		if (ev.line > b->lines)
			b->lines = ev.line;
		switch (ev.kind) {
		case TK_EV_INSN:
			err = on_step(b, &ev, &ev.u.insn, 0);
			break;
		case TK_EV_CALL:
		case TK_EV_RETURN:
			err = tk_namemap_add(&b->names, ev.u.func.addr, ev.u.func.name,
					     ev.u.func.name_len);
			if (!err && b->func_steps) {
				tk_insn fn = {.pc = ev.u.func.addr, .executed = true};
				err = on_step(b, &ev, &fn, ev.kind == TK_EV_CALL ? 1 : 2);
			}
			break;
		case TK_EV_REG:
			err = on_reg(b, &ev);
			break;
		case TK_EV_MEM:
			b->mem_accesses++;
			err = tk_ixmem_access(b->mem, b->pos, &ev.u.mem);
			break;
		default:
			break;
		}
		if (!err)
			err = tk_calls_feed(b->calls, &ev);
		if (err)
			goto out;
		if ((++nev & 0xffff) == 0)
			progress(b, pf ? tk_prefetch_pos(pf) : tk_source_pos(src),
				 pf ? tk_prefetch_size(pf) : tk_source_size(src));
	}
	tk_prefetch_stop(pf);
	pf = NULL;
	if (r < 0) {
		err = r;
		goto out;
	}
	progress(b, tk_source_pos(src), tk_source_size(src));
	if ((err = end_block(b)) || (err = tk_ixw_end(w)))
		goto out;
	if ((err = copy_spill(w, TK_SEC_BLOCKDIR, &b->dir)) ||
	    (err = copy_spill(w, TK_SEC_PCBLOOM, &b->blooms)))
		goto out;
	uint64_t touched, known;
	tk_ixmem_stats(b->mem, &touched, &known);
	if (opts->log) {
		char msg[160];
		snprintf(msg, sizeof msg, "memory: %llu event records, %llu bytes touched",
			 (unsigned long long)tk_ixmem_records(b->mem), (unsigned long long)touched);
		log_msg(opts, TK_INDEX_LOG_DETAIL, msg);
	}
	if ((err = tk_ixmem_write(b->mem, w)))
		goto out;
	if ((err = tk_calls_finish(b->calls, NULL)) || (err = tk_callspill_walk(b->spill, &walk)) ||
	    (err = tk_idx_calls_write(w, walk, &ncalls, &nroots)))
		goto out;

	if ((err = tk_idx_names_write(w, &b->names)))
		goto out;
	tk_source_get_info(src, &si);	/* the isa is known now */
	if ((err = tk_ixw_begin(w, TK_SEC_SOURCE)) ||
	    (err = tk_ixw_write(w, si.format, strlen(si.format) + 1)) ||
	    (err = tk_ixw_write(w, si.options, strlen(si.options) + 1)) ||
	    (err = tk_ixw_write(w, si.context_name, strlen(si.context_name))) ||
	    (err = tk_ixw_end(w)))
		goto out;

	uint8_t hdr[TK_IDX_HEADER_SIZE];
	memset(hdr, 0, sizeof hdr);
	memcpy(hdr + TK_H_MAGIC, TK_IDX_MAGIC, 8);
	tk_put32(hdr + TK_H_VERSION, TK_INDEX_FORMAT_VERSION);
	tk_put32(hdr + TK_H_FLAGS, (si.big_endian ? TK_HF_BIG_ENDIAN : 0) |
				   (b->func_steps ? TK_HF_FUNC_STEPS : 0));
	tk_put32(hdr + TK_H_CAPS, si.caps);
	tk_put32(hdr + TK_H_TIME_UNIT, si.time_unit);
	tk_put32(hdr + TK_H_ISA, si.isa);
	tk_put64(hdr + TK_H_FINGERPRINT, fingerprint);
	if (have_st) {
		tk_put64(hdr + TK_H_TRACE_SIZE, (uint64_t)st.st_size);
		tk_put64(hdr + TK_H_TRACE_MTIME, (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
							 (uint64_t)st.st_mtim.tv_nsec);
		tk_put64(hdr + TK_H_TRACE_CTIME, (uint64_t)st.st_ctim.tv_sec * 1000000000ull +
							 (uint64_t)st.st_ctim.tv_nsec);
	}
	tk_put64(hdr + TK_H_LINES, b->lines);
	tk_put64(hdr + TK_H_INSNS, b->ninsn);
	tk_put64(hdr + TK_H_CALLS, ncalls - nroots);
	tk_put64(hdr + TK_H_REG_UPDATES, b->reg_updates);
	tk_put64(hdr + TK_H_MEM_ACCESSES, b->mem_accesses);
	tk_put64(hdr + TK_H_MEM_TOUCHED, touched);
	tk_put64(hdr + TK_H_MEM_KNOWN, known);
	tk_put64(hdr + TK_H_SEMIHOST, b->semihost);
	for (int i = 0; i < 3; i++)
		tk_put64(hdr + TK_H_REGSEEN + 8 * i, b->regseen[i]);
	tk_put32(hdr + TK_H_BLOCK_INSNS, TK_BLOCK_INSNS);
	tk_put32(hdr + TK_H_CHUNK_SIZE, TK_CHUNK_BYTES);
	tk_put32(hdr + TK_H_PAGE_EVENTS, TK_PAGE_EVENTS);
	tk_put32(hdr + TK_H_NREGS, TK_REG_COUNT);
	tk_put64(hdr + TK_H_BUILD_MS, now_ms() - t0);
	err = tk_ixw_finish(w, hdr, fd_out);
	w = NULL;
	if (!err && opts->log) {
		char msg[160];
		snprintf(msg, sizeof msg, "indexed %llu lines, %llu instructions in %llu ms",
			 (unsigned long long)b->lines, (unsigned long long)b->ninsn,
			 (unsigned long long)(now_ms() - t0));
		log_msg(opts, TK_INDEX_LOG_DETAIL, msg);
	}
out:
	tk_prefetch_stop(pf);
	if (w)
		tk_ixw_abort(w);
	tk_callwalk_free(walk);
	tk_calls_free(b->calls);
	tk_callspill_free(b->spill);
	tk_namemap_fini(&b->names);
	tk_ixmem_free(b->mem);
	tk_spill_free(&b->dir);
	tk_spill_free(&b->blooms);
	free(b->ck);
	free(b->log);
	free(b->rv);
	free(b->rk);
	free(b);
	return err;
}

int tk_index_build(tk_source *src, const char *index_path, const tk_index_opts *opts)
{
	tk_index_opts defaults;
	if (!opts) {
		tk_index_opts_init(&defaults);
		opts = &defaults;
	}
	if (!src || !index_path || opts->size < sizeof *opts)
		return TK_ERR_INVAL;
	tk_ixw *w;
	bool anon;
	int err = tk_ixw_create(index_path, false, &w, &anon);
	if (err)
		return err;
	int fd;
	err = tk_idx_build_into(src, w, opts, &fd);
	return err;
}
