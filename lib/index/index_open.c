/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the index life cycle (the seed's "Options to control
 * indexing").
 *
 * Decide whether the index file can be reused, explain the decision through
 * the log callback, build it if needed, and open it.  An index is reused
 * when it passes every check of tk_index_load (magic, version, checksums,
 * complete), was built from the same trace format with the same options
 * that change its events, and the trace has not changed since (same size,
 * modification time and status change time, to the nanosecond, and the
 * same content fingerprint, as recorded in the index).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index_build.h"

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

/* What the trace would be read as now: its format and options key. */
typedef struct source_key {
	const tk_source_format *format;
	char *options;
} source_key;

static int current_key(const char *trace_path, const tk_index_opts *o, source_key *k)
{
	const tk_source_spec *spec = o->source;
	k->format = NULL;
	k->options = NULL;
	int rc = 0;
	if (spec && spec->format)
		k->format = tk_source_format_find(spec->format);
	else
		rc = tk_source_detect(trace_path, NULL, &k->format);
	if (rc < 0 || !k->format)
		return rc < 0 ? rc : TK_ERR_FORMAT;
	return tk_source_options_key(k->format, spec, &k->options);
}

/* "--bi --implicit-thumb" for "bi,implicit-thumb"; "no options" for "". */
static const char *options_text(const char *key, char *buf, size_t size)
{
	if (!*key)
		return "no options";
	size_t n = 0;
	for (const char *p = key; *p && n + 4 < size;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int k = snprintf(buf + n, size - n, "%s--%.*s", n ? " " : "", (int)len, p);
		if (k < 0)
			break;
		n += (size_t)k;
		if (!e)
			break;
		p = e + 1;
	}
	return buf;
}

/* Why an opened index does not describe the trace as it is now, or NULL. */
static const char *stale_reason(const tk_index *idx, const char *trace_path,
				const struct stat *trace, const source_key *key, char *buf,
				size_t size)
{
	/* The recorded size and time, not the index file's own time: a trace
	 * with a time in the future (clock skew) must not rebuild forever,
	 * and a trace put back to an older version must rebuild. */
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
	/* The same metadata on another file system, or a file system that
	 * keeps no ctime: the content must match too. */
	uint64_t fp;
	if (tk_idx_fingerprint(trace_path, &fp) < 0 || fp != idx->fingerprint)
		return "the trace's content differs from what was indexed";
	if (strcmp(key->format->name, idx->format)) {
		snprintf(buf, size, "the index was built reading the trace as %s, not %s",
			 idx->format, key->format->name);
		return buf;
	}
	if (strcmp(key->options, idx->options)) {
		char was[128], now[128];
		snprintf(buf, size, "the index was built with %s, not %s",
			 options_text(idx->options, was, sizeof was),
			 options_text(key->options, now, sizeof now));
		return buf;
	}
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
	tk_source_spec spec;
	if (o->source)
		memcpy(&spec, o->source, o->source->size < sizeof spec ? o->source->size : sizeof spec);
	else
		tk_source_spec_init(&spec);
	spec.size = sizeof spec;
	spec.diag = o->diag ? locked_diag : NULL;
	spec.diag_ctx = (void *)o;
	/* A compressed text trace records checkpoints as it is read, for
	 * random access later (index_input.c). */
	tk_input_opts io;
	tk_input_opts_init(&io);
	io.record_checkpoints = true;
	spec.input_opts = &io;
	tk_source *src;
	int err = tk_source_open(trace_path, &spec, &src);
	if (err)
		return err;
	tk_ixw *w;
	bool anon = o->in_memory;
	err = o->in_memory ? tk_ixw_create_memory(index_path, &w)
			   : tk_ixw_create(index_path, true, &w, &anon);
	if (err) {
		say(o, TK_INDEX_LOG_DECISION, "cannot create index %s: %s", index_path,
		    strerror(errno));
		tk_source_free(src);
		return err;
	}
	if (anon && !o->in_memory)
		say(o, TK_INDEX_LOG_DECISION,
		    "cannot write in the directory of %s: using a temporary index for this run",
		    index_path);
	else
		say(o, TK_INDEX_LOG_DETAIL, "writing %s", tk_ixw_tmp_path(w));
	int fd;
	err = tk_idx_build_into(src, w, o, &fd);
	if (!err && tk_source_input(src))
		tk_idx_input_done(tk_source_input(src), index_path, o);
	tk_source_free(src);
	if (err)
		return err;
	if (fd >= 0)
		return tk_idx_load_fd(fd, index_path, true, out);
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
	source_key key = {0};
	char why_buf[256];
	if (opts->in_memory) {
		say(opts, TK_INDEX_LOG_DECISION, "building the index in memory: --memory-index given");
		goto rebuild;
	}
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
	if ((err = current_key(trace_path, opts, &key)) < 0)
		goto done;
	const char *why = stale_reason(idx, trace_path, &st, &key, why_buf, sizeof why_buf);
	if (!why) {
		say(opts, TK_INDEX_LOG_DECISION, "reusing index %s: it is up to date", path);
		*out = idx;
		err = TK_INDEX_REUSED;
		goto done;
	}
	tk_index_free(idx);
	idx = NULL;
	if (opts->mode == TK_INDEX_NEVER) {
		say(opts, TK_INDEX_LOG_DECISION, "not using index %s: %s (and --no-index given)",
		    path, why);
		err = TK_ERR_STALE;
		goto done;
	}
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
	free(key.options);
	free(def);
	return err;
}
