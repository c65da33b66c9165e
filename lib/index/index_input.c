/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the index of a compressed trace.
 *
 * The index records offsets in the decompressed text, like those of a
 * plain trace, so every query answers the same.  What differs is kept
 * apart from the rest of the format:
 *   - the optional INPUT section (id TK_SEC_INPUT), written only for a
 *     compressed trace: its format and decompressed size (the end of the
 *     last position's group; the header's trace size stays the file's, for
 *     the staleness check);
 *   - the checkpoint file INDEX.ckpt, beside the index, for gzip and plain
 *     zstd traces: recorded during the build's one pass over the trace,
 *     loaded by tk_index_open_text so that reading the lines of any
 *     position (browse, dump text) starts near them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_build.h"

#define INPUT_SECTION_SIZE 24

char *tk_idx_checkpoint_path(const char *index_path)
{
	size_t n = strlen(index_path);
	char *p = malloc(n + 6);
	if (p) {
		memcpy(p, index_path, n);
		memcpy(p + n, ".ckpt", 6);
	}
	return p;
}

static void log_line(const tk_index_opts *o, int level, const char *msg)
{
	if (o->log)
		o->log(o->log_ctx, level, msg);
}

void tk_idx_input_done(tk_input *in, const char *index_path, const tk_index_opts *o)
{
	if (tk_input_get_format(in) == TK_INPUT_PLAIN)
		return;
	char msg[512];
	char *ck = tk_idx_checkpoint_path(index_path);
	int rc = ck ? tk_input_save_checkpoints(in, ck) : TK_ERR_NOMEM;
	if (rc == 0)
		snprintf(msg, sizeof msg, "%s trace: checkpoint table written to %s%s",
			 tk_input_format_name(tk_input_get_format(in)), ck,
			 tk_input_get_format(in) == TK_INPUT_ZSTD
				 ? " (plain zstd restarts only at frame starts: `tracekit compress` "
				   "makes a seekable file)" : "");
	else if (rc == 1)
		snprintf(msg, sizeof msg, "%s trace: random access through its own %s",
			 tk_input_is_seekable_zstd(in) ? "seekable zstd" : "xz",
			 tk_input_is_seekable_zstd(in) ? "seek table" : "block index");
	else
		snprintf(msg, sizeof msg, "cannot write the checkpoint table %s: %s "
			 "(it will be rebuilt when needed)", ck ? ck : "", tk_strerror(rc));
	log_line(o, TK_INDEX_LOG_DETAIL, msg);
	free(ck);
}

int tk_idx_input_write(tk_ixw *w, const tk_source *src)
{
	tk_input *in = tk_source_input(src);
	if (!in || tk_input_get_format(in) == TK_INPUT_PLAIN)
		return 0;
	uint8_t s[INPUT_SECTION_SIZE];
	memset(s, 0, sizeof s);
	tk_put32(s, (uint32_t)tk_input_get_format(in));
	tk_put32(s + 4, tk_input_is_seekable_zstd(in) ? 1 : 0);
	tk_put64(s + 8, tk_input_tell(in));
	tk_put64(s + 16, tk_input_consumed(in));
	int err = tk_ixw_begin(w, TK_SEC_INPUT);
	if (!err)
		err = tk_ixw_write(w, s, sizeof s);
	return err ? err : tk_ixw_end(w);
}

int tk_idx_input_read(tk_index *idx, const uint8_t *p, uint64_t len)
{
	if (len < INPUT_SECTION_SIZE || tk_get32(p) > TK_INPUT_XZ)
		return TK_ERR_CORRUPT;
	idx->input_format = tk_get32(p);
	idx->text_size = tk_get64(p + 8);
	return 0;
}

int tk_index_open_text(const tk_index *idx, const char *trace_path, const tk_input_opts *opts,
		       tk_input **out)
{
	tk_input_opts o;
	if (opts && opts->size >= sizeof o)
		o = *opts;
	else
		tk_input_opts_init(&o);
	char *ck = tk_idx_checkpoint_path(idx->path);
	if (!ck)
		return TK_ERR_NOMEM;
	o.checkpoint_file = ck;
	o.record_checkpoints = false;
	int rc = tk_input_open(trace_path ? trace_path : idx->trace_path, &o, out);
	free(ck);
	return rc;
}
