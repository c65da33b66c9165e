/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the index life cycle (the seed's "Options to control
 * indexing").
 *
 * Decide whether the index file can be reused, explain the decision through
 * the log callback, build it if needed, and open it.  An index is reused
 * when it passes every check of tk_index_load (magic, version, checksums,
 * complete), was built with the same trace-interpretation options, and the
 * trace has not changed since (same size, modification time and status
 * change time, to the nanosecond, as recorded in the index).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index_build.h"
#include "tracekit/tarmac.h"

static void say(const tk_index_opts *o, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(const tk_index_opts *o, int level, const char *fmt, ...)
{
	if (!o->log)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	o->log(o->log_ctx, level, msg);
}

static uint64_t mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec;
}

static uint64_t ctime_ns(const struct stat *st)
{
	return (uint64_t)st->st_ctim.tv_sec * 1000000000ull + (uint64_t)st->st_ctim.tv_nsec;
}

/* Why an opened index does not describe the trace as it is now, or NULL. */
static const char *stale_reason(const tk_index *idx, const struct stat *trace,
				const char *index_path, const tk_index_opts *o)
{
	/* The recorded size and time, not the index file's own time: a trace
	 * with a time in the future (clock skew) must not rebuild forever,
	 * and a trace put back to an older version must rebuild. */
	(void)index_path;
	if ((uint64_t)trace->st_size != idx->trace_size)
		return "the trace's size differs from when it was indexed";
	if (mtime_ns(trace) != idx->trace_mtime_ns)
		return "the trace was modified since it was indexed";
	/* A trace replaced by another file of the same size with its
	 * modification time put back (touch -d, cp -p, a rewrite within the
	 * file system's time granularity) keeps size and mtime, but not the
	 * status change time, which no user can set.  (chmod, ln and mv of the
	 * trace change it too: a needless rebuild, never a wrong answer.) */
	if (ctime_ns(trace) != idx->trace_ctime_ns)
		return "the trace was replaced or its status changed since it was indexed";
	if (!(idx->flags & TK_HF_BIG_ENDIAN) != !o->big_endian)
		return o->big_endian ? "the index was built little-endian (--li), not --bi"
				     : "the index was built big-endian (--bi), not --li";
	if (!(idx->flags & TK_HF_IMPLICIT_THUMB) != !o->implicit_thumb)
		return "the index was built with other --implicit-thumb setting";
	return NULL;
}

static const char *load_error(int err)
{
	switch (err) {
	case TK_ERR_OPEN: return "it does not exist";
	case TK_ERR_FORMAT: return "it is of another format version";
	case TK_ERR_CORRUPT: return "it is corrupt or incomplete";
	case TK_ERR_ISDIR: return "it is a directory";
	default: return tk_strerror(err);
	}
}

/* The trace's diagnostics arrive on the reader thread during a build:
 * serialised with the other callbacks. */
static void locked_diag(void *ctx, const tk_diag *d)
{
	const tk_index_opts *o = ctx;
	pthread_mutex_lock(&tk_idx_cb_lock);
	o->diag(o->diag_ctx, d);
	pthread_mutex_unlock(&tk_idx_cb_lock);
}

static int build(const char *trace_path, const char *index_path, const tk_index_opts *o,
		 tk_index **out)
{
	tk_tarmac_opts to;
	tk_tarmac_opts_init(&to);
	to.implicit_thumb = o->implicit_thumb;
	to.big_endian = o->big_endian;
	if (o->diag) {
		to.diag = locked_diag;
		to.diag_ctx = (void *)o;
	}
	tk_source *src;
	tk_input *in;		/* records checkpoints of a compressed trace */
	int err = tk_idx_input_open(trace_path, &in);
	if (err)
		return err;
	if ((err = tk_tarmac_open_input(in, trace_path, &to, &src))) {
		tk_input_close(in);
		return err;
	}
	tk_ixw *w;
	bool anon;
	err = tk_ixw_create(index_path, true, &w, &anon);
	if (err) {
		say(o, TK_INDEX_LOG_DECISION, "cannot create index %s: %s", index_path,
		    strerror(errno));
		tk_source_free(src);
		tk_input_close(in);
		return err;
	}
	if (anon)
		say(o, TK_INDEX_LOG_DECISION,
		    "cannot write in the directory of %s: using a temporary index for this run",
		    index_path);
	else
		say(o, TK_INDEX_LOG_DETAIL, "writing %s", tk_ixw_tmp_path(w));
	int fd;
	err = tk_idx_build_into(src, w, o, &fd);
	if (!err)
		tk_idx_input_done(in, index_path, o);
	tk_source_free(src);
	tk_input_close(in);
	if (err)
		return err;
	if (anon)
		return tk_idx_load_fd(fd, index_path, out);
	return tk_index_load(index_path, out);
}

int tk_index_open(const char *trace_path, const tk_index_opts *opts, tk_index **out)
{
	tk_index_opts defaults;
	if (!opts) {
		tk_index_opts_init(&defaults);
		opts = &defaults;
	}
	if (!trace_path || !out || !strcmp(trace_path, "-") || opts->size < sizeof *opts)
		return TK_ERR_INVAL;
	struct stat st;
	if (stat(trace_path, &st) != 0)
		return TK_ERR_OPEN;
	if (S_ISDIR(st.st_mode))
		return TK_ERR_ISDIR;

	char *def = NULL;
	const char *path = opts->index_path;
	if (!path) {
		size_t n = strlen(trace_path);
		def = malloc(n + 7);
		if (!def)
			return TK_ERR_NOMEM;
		memcpy(def, trace_path, n);
		memcpy(def + n, ".index", 7);
		path = def;
	}

	int err;
	tk_index *idx = NULL;
	if (opts->mode == TK_INDEX_FORCE) {
		say(opts, TK_INDEX_LOG_DECISION, "building index %s: --force-index given", path);
		goto rebuild;
	}
	err = tk_index_load(path, &idx);
	if (err) {
		if (opts->mode == TK_INDEX_NEVER) {
			say(opts, TK_INDEX_LOG_DECISION, "cannot use index %s (%s) and --no-index given",
			    path, load_error(err));
			if (err == TK_ERR_OPEN)
				err = TK_ERR_NOTFOUND;
			goto done;
		}
		if (opts->mode == TK_INDEX_IF_VALID) {
			say(opts, TK_INDEX_LOG_DECISION, "not using index %s: %s", path, load_error(err));
			err = TK_ERR_NOTFOUND;
			goto done;
		}
		say(opts, TK_INDEX_LOG_DECISION, "building index %s: %s", path, load_error(err));
		goto rebuild;
	}
	const char *why = stale_reason(idx, &st, path, opts);
	if (!why) {
		say(opts, TK_INDEX_LOG_DECISION, "reusing index %s: it is up to date", path);
		*out = idx;
		err = TK_INDEX_REUSED;
		goto done;
	}
	if (opts->mode == TK_INDEX_NEVER) {
		say(opts, TK_INDEX_LOG_DECISION, "using index %s although %s: --no-index given",
		    path, why);
		*out = idx;
		err = TK_INDEX_REUSED;
		goto done;
	}
	tk_index_free(idx);
	idx = NULL;
	if (opts->mode == TK_INDEX_IF_VALID) {
		say(opts, TK_INDEX_LOG_DECISION, "not using index %s: %s", path, why);
		err = TK_ERR_NOTFOUND;
		goto done;
	}
	say(opts, TK_INDEX_LOG_DECISION, "rebuilding index %s: %s", path, why);
rebuild:
	err = build(trace_path, path, opts, &idx);
	if (!err) {
		*out = idx;
		err = TK_INDEX_BUILT;
	}
done:
	free(def);
	return err;
}
