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
#include <unistd.h>
#include <time.h>

#include "tracekit/namemap.h"
#include "arch/arch.h"
#include "index_blocks.h"
#include "index_build.h"
#include "tracekit/calls.h"

typedef tk_ixbuild ixb;

static inline void bit_set(uint64_t *m, unsigned i) { m[i >> 6] |= 1ull << (i & 63); }

/* A finished block: to the file, its directory entry and pc filter aside. */
static int block_done(void *ctx, const uint8_t *const parts[3], const size_t lens[3],
		      uint8_t dirent[TK_DIR_SIZE], const uint8_t bloom[TK_BLOOM_BYTES])
{
	ixb *b = ctx;
	int err = 0;
	for (int i = 0; i < 3 && !err; i++)
		err = tk_ixw_write(b->w, parts[i], lens[i]);
	if (err)
		return err;
	tk_put64(dirent + TK_DIR_DATA, b->data_off);
	b->data_off += lens[0] + lens[1] + lens[2];
	err = tk_spill_write(&b->dir, dirent, TK_DIR_SIZE);
	if (!err)
		err = tk_spill_write(&b->blooms, bloom, TK_BLOOM_BYTES);
	return err;
}

/* ---- semihosting: the state the trap reads ---- */

static bool sh_reg(void *ctx, tk_reg reg, unsigned n, uint64_t *value)
{
	ixb *b = ctx;
	unsigned base = tk_idx_reg_base(reg);
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!b->enc.rk[base + i])
			return false;
		v |= (uint64_t)b->enc.rv[base + i] << (8 * i);
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
	tk_idx_step s = {.line = ev->line, .offset = ev->offset, .time = ev->time, .pc = in->pc,
			 .context = ev->context, .isa = (uint8_t)in->isa, .width = in->width,
			 .kind = (uint8_t)step_kind, .branch = (uint8_t)in->branch,
			 .nbytes = in->nbytes, .executed = in->executed};
	memcpy(s.bytes, in->bytes, sizeof s.bytes);
	int err = tk_blockenc_step(&b->enc, &s);
	if (err)
		return err;
	const tk_arch *arch = step_kind == 0 ? tk_arch_of(in->isa) : NULL;
	if (arch && arch->is_trap(in)) {
		tk_arch_env env = {sh_reg, sh_word, b};
		uint64_t addr, len;
		b->semihost++;
		if (arch->hidden_writes(in, &env, &addr, &len) == 1)
			return tk_ixmem_unknown(b->mem, b->enc.pos, addr, len);
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
	tk_idx_regup r = {reg, off, len, u->value, u->state};
	int rc = tk_blockenc_reg(&b->enc, &r);
	if (rc > 0)
		bit_set(b->regseen, reg);
	return rc < 0 ? rc : 0;
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

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static uint64_t now_ms(void)
{
	return now_us() / 1000;
}

/* -vv: how long each phase took. */
static void phase(const tk_index_opts *o, const char *what, uint64_t *t)
{
	uint64_t now = now_us();
	if (o->log) {
		char msg[128];
		snprintf(msg, sizeof msg, "%s: %.1f ms", what, (double)(now - *t) / 1000);
		pthread_mutex_lock(&tk_idx_cb_lock);
		o->log(o->log_ctx, TK_INDEX_LOG_DETAIL, msg);
		pthread_mutex_unlock(&tk_idx_cb_lock);
	}
	*t = now;
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

/* Read the events in order (a format that cannot be read in pieces, or
 * standard input): the trace on a second thread when it is large. */
static int read_sequential(ixb *b)
{
	tk_source *src = b->src;
	tk_prefetch *pf = NULL;
	int err = tk_blockenc_init(&b->enc, block_done, b);
	if (err)
		return err;
	log_msg(b->opts, TK_INDEX_LOG_DETAIL, "reading the trace in order");
	tk_event ev;
	uint64_t nev = 0;
	int r;
	if (tk_source_size(src) >= PREFETCH_MIN_BYTES && tk_prefetch_start(src, &pf) == 0)
		log_msg(b->opts, TK_INDEX_LOG_DETAIL, "reading the trace on a second thread");
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
			err = tk_ixmem_access(b->mem, b->enc.pos, &ev.u.mem);
			break;
		default:
			break;
		}
		if (!err)
			err = tk_calls_feed(b->calls, &ev);
		if (err)
			break;
		if ((++nev & 0xffff) == 0)
			progress(b, pf ? tk_prefetch_pos(pf) : tk_source_pos(src),
				 pf ? tk_prefetch_size(pf) : tk_source_size(src));
	}
	tk_prefetch_stop(pf);
	if (!err && r < 0)
		err = r;
	if (!err) {
		progress(b, tk_source_pos(src), tk_source_size(src));
		err = tk_blockenc_flush(&b->enc);
	}
	b->ninsn = b->enc.ninsn;
	return err;
}

/* The call tree's end (the detector's last frames, the spill put in
 * preorder, the sections encoded) runs beside the memory sections. */
typedef struct calls_end {
	ixb *b;
	tk_spill calls, dir;
	uint64_t ncalls;
	uint32_t nroots;
	int err;
} calls_end;

static void *finish_calls(void *arg)
{
	calls_end *ce = arg;
	tk_callwalk *walk = NULL;
	ce->err = tk_calls_finish(ce->b->calls, NULL);
	if (!ce->err)
		ce->err = tk_callspill_walk(ce->b->spill, &walk);
	if (!ce->err)
		ce->err = tk_idx_calls_encode(walk, &ce->calls, &ce->dir, &ce->ncalls, &ce->nroots);
	tk_callwalk_free(walk);
	return NULL;
}

/* Build into w (created by the caller); finishes or aborts w. */
int tk_idx_build_into(tk_source *src, tk_ixw *w, const tk_index_opts *opts, int *fd_out)
{
	*fd_out = -1;
	uint64_t t0 = now_ms();
	ixb *b = calloc(1, sizeof *b);
	int err = 0;
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
	tk_calls_opts copts;
	tk_calls_opts_init(&copts);
	copts.steps = b->func_steps ? TK_STEPS_FUNCS : TK_STEPS_INSNS;
	if (opts->calls_debug) {
		copts.debug = locked_calls_debug;
		copts.debug_ctx = (void *)opts;
	}
	copts.sink = &sink;
	if (tk_ixmem_new(&b->mem) || tk_callspill_new(&b->spill, &sink) ||
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

	uint64_t tp = now_us();
	phase(opts, "identifying the trace", &tp);
	err = tk_idx_read_pieces(b);
	if (err == TK_ERR_UNSUPPORTED)
		err = read_sequential(b);
	if (err)
		goto out;
	phase(opts, "reading the trace, positions and registers", &tp);
	if ((err = tk_ixw_end(w)))
		goto out;
	calls_end ce = {.b = b};
	pthread_t ct;
	bool beside = opts->threads != 1 && pthread_create(&ct, NULL, finish_calls, &ce) == 0;
	if (!beside)
		finish_calls(&ce);
	uint64_t touched = 0, known = 0;
	if (!(err = copy_spill(w, TK_SEC_BLOCKDIR, &b->dir)) &&
	    !(err = copy_spill(w, TK_SEC_PCBLOOM, &b->blooms))) {
		tk_ixmem_stats(b->mem, &touched, &known);
		if (opts->log) {
			char msg[160];
			snprintf(msg, sizeof msg, "memory: %llu event records, %llu bytes touched",
				 (unsigned long long)tk_ixmem_records(b->mem),
				 (unsigned long long)touched);
			log_msg(opts, TK_INDEX_LOG_DETAIL, msg);
		}
		err = tk_ixmem_write(b->mem, w);
		phase(opts, "memory sections", &tp);
	}
	if (beside)
		pthread_join(ct, NULL);
	ncalls = ce.ncalls;
	nroots = ce.nroots;
	if (!err && !(err = ce.err))
		err = tk_idx_calls_copy(w, &ce.calls, &ce.dir);
	tk_spill_free(&ce.calls);
	tk_spill_free(&ce.dir);
	if (err)
		goto out;
	phase(opts, "call tree", &tp);
	if ((err = tk_idx_input_write(w, src)))
		goto out;

	if ((err = tk_idx_names_write(w, &b->names)))
		goto out;
	tk_source_get_info(src, &si);	/* the isa is known now */
	if ((err = tk_ixw_begin(w, TK_SEC_SOURCE)) ||
	    (err = tk_ixw_write(w, si.format, strlen(si.format) + 1)) ||
	    (err = tk_ixw_write(w, si.options, strlen(si.options) + 1)) ||
	    (err = tk_ixw_write(w, si.context_name, strlen(si.context_name) + 1)))
		goto out;
	for (size_t i = 0; i < si.nimages; i++) {
		uint8_t bias[8];
		tk_put64(bias, si.images[i].bias);
		if ((err = tk_ixw_write(w, si.images[i].path, strlen(si.images[i].path) + 1)) ||
		    (err = tk_ixw_write(w, bias, sizeof bias)))
			goto out;
	}
	if ((err = tk_ixw_end(w)))
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
	phase(opts, "checksums and header", &tp);
	if (!err && opts->log) {
		char msg[160];
		snprintf(msg, sizeof msg, "indexed %llu lines, %llu instructions in %llu ms",
			 (unsigned long long)b->lines, (unsigned long long)b->ninsn,
			 (unsigned long long)(now_ms() - t0));
		log_msg(opts, TK_INDEX_LOG_DETAIL, msg);
	}
out:
	if (w)
		tk_ixw_abort(w);
	tk_calls_free(b->calls);
	tk_callspill_free(b->spill);
	tk_namemap_fini(&b->names);
	tk_ixmem_free(b->mem);
	tk_spill_free(&b->dir);
	tk_spill_free(&b->blooms);
	tk_blockenc_fini(&b->enc);
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
	int fd = -1;
	err = tk_idx_build_into(src, w, opts, &fd);
	if (fd >= 0)
		close(fd);
	return err;
}
