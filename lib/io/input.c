/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: opening inputs, detecting their format by content, and
 * reading them in order (see tracekit/input.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_impl.h"

void tk_input_opts_init(tk_input_opts *o)
{
	memset(o, 0, sizeof *o);
	o->size = sizeof *o;
}

const char *tk_input_format_name(tk_input_format f)
{
	switch (f) {
	case TK_INPUT_PLAIN: return "plain";
	case TK_INPUT_GZIP: return "gzip";
	case TK_INPUT_ZSTD: return "zstd";
	case TK_INPUT_XZ: return "xz";
	}
	return "unknown";
}

int tk_input_fail(tk_input *in, int err, uint64_t off, const char *fmt, ...)
{
	if (in->err)		/* keep the first, most specific, message */
		return in->err;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(in->errmsg, sizeof in->errmsg, fmt, ap);
	va_end(ap);
	in->err = err;
	in->err_off = off;
	return err;
}

const char *tk_input_error(const tk_input *in)
{
	return in->errmsg;
}

uint64_t tk_input_error_offset(const tk_input *in)
{
	return in->err_off;
}

/* The format of a file starting with h[0, n). */
static tk_input_format detect(const uint8_t *h, size_t n)
{
	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return TK_INPUT_GZIP;
	if (n >= 4) {
		uint32_t m = tk_le32(h);
		if (m == TK_ZSTD_MAGIC || (m & TK_ZSTD_SKIPPABLE_MASK) == TK_ZSTD_SKIPPABLE)
			return TK_INPUT_ZSTD;
	}
	if (n >= 6 && memcmp(h, "\xfd" "7zXZ\0", 6) == 0)
		return TK_INPUT_XZ;
	return TK_INPUT_PLAIN;
}

/* Options, detection, the seek table.  On failure in is freed but a
 * descriptor it was given stays open (the caller's). */
static int finish_open(tk_input *in, const tk_input_opts *opts, tk_input **out)
{
	if (opts && opts->size >= sizeof *opts) {
		in->opts = *opts;
	} else {
		tk_input_opts_init(&in->opts);
	}
	if (!in->opts.checkpoint_spacing)
		in->opts.checkpoint_spacing = TK_CKPT_SPACING_DEFAULT;
	if (!in->opts.memlimit)
		in->opts.memlimit = TK_MEMLIMIT_DEFAULT;
	if (in->opts.checkpoint_file) {
		in->ckpt_path = strdup(in->opts.checkpoint_file);
		if (!in->ckpt_path)
			goto nomem;
		in->opts.checkpoint_file = in->ckpt_path;
	}
	in->size = TK_INPUT_SIZE_UNKNOWN;
	tk_ckpt_init(&in->rnd, in->opts.checkpoint_spacing);
	tk_ckpt_init(&in->recd, in->opts.checkpoint_spacing);

	/* Detect: a positional file is peeked at without moving; a stream's
	 * first bytes are kept to be read again. */
	uint8_t h[8];
	size_t n = 0;
	int rc;
	if (in->raw.positional) {
		rc = tk_raw_pread(&in->raw, 0, h, sizeof h, &n);
	} else {
		while (n < 6) {
			size_t k;
			rc = tk_raw_read(&in->raw, h + n, 6 - n, &k);
			if (rc < 0 || k == 0)
				break;
			n += k;
		}
		memcpy(in->raw.head, h, n);
		in->raw.nhead = n;
		in->raw.pos = 0;
	}
	if (rc < 0) {
		in->raw.own_fd = false;	/* on failure the caller keeps its descriptor */
		tk_input_close(in);
		return TK_ERR_IO;
	}
	in->format = detect(h, n);
	switch (in->format) {
	case TK_INPUT_PLAIN:
		if (in->raw.positional)
			in->size = in->raw.size;
		break;
	case TK_INPUT_GZIP: in->codec = &tk_codec_gzip; break;
	case TK_INPUT_ZSTD: in->codec = &tk_codec_zstd; break;
	case TK_INPUT_XZ: in->codec = &tk_codec_xz; break;
	}
	if (in->format == TK_INPUT_ZSTD && in->raw.positional) {
		rc = tk_seektable_read(&in->raw, &in->rnd);
		if (rc == 1) {
			in->seekable_zstd = true;
			in->size = in->rnd.total_out;
		} else {
			tk_ckpt_free(&in->rnd);	/* a bad table: read as plain zstd */
			tk_ckpt_init(&in->rnd, in->opts.checkpoint_spacing);
		}
	}
	*out = in;
	return 0;
nomem:
	in->raw.own_fd = false;
	tk_input_close(in);
	return TK_ERR_NOMEM;
}

static tk_input *alloc_input(const char *name)
{
	tk_input *in = calloc(1, sizeof *in);
	if (!in)
		return NULL;
	in->raw.fd = -1;
	in->name = strdup(name ? name : "<input>");
	if (!in->name) {
		free(in);
		return NULL;
	}
	return in;
}

static void stat_identity(tk_raw *r, const struct stat *st)
{
	r->positional = S_ISREG(st->st_mode);
	r->size = (uint64_t)st->st_size;
	r->mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec;
	r->ctime_ns = (uint64_t)st->st_ctim.tv_sec * 1000000000ull + (uint64_t)st->st_ctim.tv_nsec;
}

int tk_input_open_fd(int fd, bool own, const char *name, const tk_input_opts *opts,
		     tk_input **out)
{
	*out = NULL;
	struct stat st;
	if (fstat(fd, &st) != 0)
		return TK_ERR_IO;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return TK_ERR_ISDIR;
	}
	tk_input *in = alloc_input(name);
	if (!in)
		return TK_ERR_NOMEM;
	in->raw.fd = fd;
	in->raw.own_fd = own;
	stat_identity(&in->raw, &st);
	/* A file not at its start (standard input, say) is read as a
	 * stream from where it is. */
	if (in->raw.positional && lseek(fd, 0, SEEK_CUR) != 0)
		in->raw.positional = false;
	return finish_open(in, opts, out);
}

int tk_input_open(const char *path, const tk_input_opts *opts, tk_input **out)
{
	*out = NULL;
	if (!path || !out)
		return TK_ERR_INVAL;
	if (strcmp(path, "-") == 0)
		return tk_input_open_fd(STDIN_FILENO, false, "<stdin>", opts, out);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == EISDIR ? TK_ERR_ISDIR : TK_ERR_OPEN;
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	int rc = tk_input_open_fd(fd, true, path, opts, out);
	if (rc < 0) {
		int e = errno;
		if (!*out)
			close(fd);
		errno = e;
	}
	return rc;
}

int tk_input_open_stream(FILE *fp, const char *name, const tk_input_opts *opts,
			 tk_input **out)
{
	*out = NULL;
	tk_input *in = alloc_input(name);
	if (!in)
		return TK_ERR_NOMEM;
	in->raw.fp = fp;
	return finish_open(in, opts, out);
}

int tk_input_open_memory(const void *data, size_t len, const char *name,
			 const tk_input_opts *opts, tk_input **out)
{
	*out = NULL;
	tk_input *in = alloc_input(name);
	if (!in)
		return TK_ERR_NOMEM;
	in->raw.mem = data ? data : (const void *)"";
	in->raw.mem_len = len;
	in->raw.positional = true;
	in->raw.size = len;
	return finish_open(in, opts, out);
}

void tk_input_close(tk_input *in)
{
	if (!in)
		return;
	tk_readahead_stop(in->ra);
	if (in->seq)
		in->seq->codec->destroy(in->seq);
	tk_random_free(in);
	tk_ckpt_free(&in->rnd);
	tk_ckpt_free(&in->recd);
	if (in->map)
		munmap(in->map, (size_t)in->map_len);
	if (in->raw.own_fd && in->raw.fd >= 0)
		close(in->raw.fd);
	free(in->ckpt_path);
	free(in->name);
	free(in);
}

tk_input_format tk_input_get_format(const tk_input *in)
{
	return in->format;
}

bool tk_input_is_seekable_zstd(const tk_input *in)
{
	return in->seekable_zstd;
}

const char *tk_input_name(const tk_input *in)
{
	return in->name;
}

/* ---- sequential reads ---- */

static int seq_start(tk_input *in)
{
	int rc = in->codec->create(in, &in->seq);
	if (rc < 0)
		return tk_input_fail(in, rc, 0, "%s", tk_strerror(rc));
	rc = tk_cin_init(&in->seq->cin, in, true, 256u << 10);
	if (rc == 0 && in->opts.record_checkpoints && !in->seekable_zstd &&
	    in->format != TK_INPUT_XZ) {
		in->seq->rec = &in->recd;
		rc = tk_ckpt_add(&in->recd, 0, 0, TK_GZ_AUX(0, 0, 1), NULL, 0);
	}
	if (rc == 0)
		rc = in->codec->start(in->seq, NULL, NULL, 0);
	if (rc < 0)
		return tk_input_fail(in, rc, 0, "%s", tk_strerror(rc));
	return 0;
}

int tk_input_read(tk_input *in, void *buf, size_t n, size_t *got)
{
	*got = 0;
	if (in->pending)
		return in->pending;
	if (n == 0 || in->seq_done)
		return 0;
	int rc;
	if (!in->codec) {
		rc = tk_raw_read(&in->raw, buf, n, got);
		if (rc < 0)
			rc = tk_input_fail(in, rc, in->raw.pos, "read error at byte %llu: %s",
					   (unsigned long long)in->raw.pos, strerror(errno));
	} else {
		if (!in->seq && (rc = seq_start(in)) < 0)
			return in->pending = rc;
		if (!in->ra_tried && !in->opts.no_thread) {
			in->ra_tried = true;
			tk_readahead_start(in);	/* else on this thread */
		}
		bool end;
		rc = in->ra ? tk_readahead_read(in->ra, buf, n, got, &end)
			    : in->codec->read(in->seq, buf, n, got);
	}
	in->tell += *got;
	if (rc < 0) {
		in->pending = rc;
		return *got ? 0 : rc;	/* the bytes before the damage first */
	}
	if (*got == 0) {
		in->seq_done = true;
		if (in->size == TK_INPUT_SIZE_UNKNOWN)
			in->size = in->tell;
		if (in->seq && in->seq->rec) {
			in->recd.complete = true;
			in->recd.total_out = in->tell;
		}
	}
	return 0;
}

uint64_t tk_input_tell(const tk_input *in)
{
	return in->tell;
}

uint64_t tk_input_consumed(const tk_input *in)
{
	if (in->ra)
		return tk_readahead_consumed(in->ra);
	if (in->seq)
		return tk_cin_off(&in->seq->cin);
	return in->raw.pos;
}

uint64_t tk_input_file_size(const tk_input *in)
{
	return in->raw.positional ? in->raw.size : 0;
}

uint64_t tk_input_size(const tk_input *in)
{
	return in->size;
}

/* ---- random access and the rest ---- */

int tk_input_random_access(tk_input *in)
{
	if (in->random_ready)
		return 0;
	if (!in->raw.positional)
		return tk_input_fail(in, TK_ERR_UNSUPPORTED, 0,
				     "random access needs a file, not a stream");
	if (!in->codec) {
		in->random_ready = true;
		return 0;
	}
	return tk_random_setup(in);
}

int tk_input_pread(tk_input *in, uint64_t off, void *buf, size_t n, size_t *got)
{
	*got = 0;
	int rc = tk_input_random_access(in);
	if (rc < 0)
		return rc;
	if (!in->codec) {
		rc = tk_raw_pread(&in->raw, off, buf, n, got);
		if (rc < 0)
			return tk_input_fail(in, rc, off, "read error at byte %llu: %s",
					     (unsigned long long)off, strerror(errno));
		return 0;
	}
	return tk_random_pread(in, off, buf, n, got);
}

int tk_input_map(tk_input *in, const char **data, uint64_t *size)
{
	if (in->codec || !in->raw.positional || in->raw.fd < 0) {
		if (in->codec || !in->raw.mem)
			return TK_ERR_UNSUPPORTED;
		*data = (const char *)in->raw.mem;
		*size = in->raw.mem_len;
		return 0;
	}
	if (!in->map && in->raw.size > 0) {
		void *p = mmap(NULL, (size_t)in->raw.size, PROT_READ, MAP_SHARED, in->raw.fd, 0);
		if (p == MAP_FAILED)
			return TK_ERR_IO;
		in->map = p;
		in->map_len = in->raw.size;
	}
	*data = in->map ? in->map : "";
	*size = in->map_len;
	return 0;
}

int tk_input_save_checkpoints(tk_input *in, const char *path)
{
	if (!in->codec || in->seekable_zstd || in->format == TK_INPUT_XZ)
		return 1;
	if (!in->recd.complete)
		return TK_ERR_INVAL;
	return tk_ckpt_save(&in->recd, path, in->format, &in->raw);
}

const char *tk_input_checkpoint_status(const tk_input *in)
{
	return in->ckpt_status;
}

uint64_t tk_input_restart_points(const tk_input *in)
{
	return in->random_ready && in->pts ? in->pts->n : 0;
}
