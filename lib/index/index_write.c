/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: writing an index file atomically (see index_write.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "index_write.h"

#define OBUF_SIZE (1u << 20)
#ifdef TK_IDX_SMALL_BUFFERS	/* tests: exercise the spill files */
#define SPILL_MEM_LIMIT 4096u
#else
#define SPILL_MEM_LIMIT (512u << 10)
#endif

struct tk_ixw {
	int fd;
	char *tmp_path;		/* NULL when anonymous */
	char *final_path;
	uint8_t *buf;
	size_t len;
	uint64_t off;		/* file offset of buf[0] */
	struct {
		uint32_t id;
		uint64_t off, len, sum;
	} sect[TK_IDX_MAX_SECT];
	unsigned nsect;
	bool in_section;
	tk_hasher hash;		/* of the section being written */
	bool unnamed;		/* O_TMPFILE: tmp_path is only a template */
};

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static bool not_writable(int e)
{
	return e == EACCES || e == EROFS || e == EPERM || e == ENOENT;
}

/* An unnamed file in final_path's directory (O_TMPFILE), linked in only
 * when complete, so a crash leaves nothing behind; -1 if the system cannot
 * (then a named temporary file is used). */
static int open_unnamed(const char *final_path)
{
#ifdef O_TMPFILE
	if (access("/proc/self/fd", X_OK) != 0)
		return -1;	/* linking it in later needs /proc */
	const char *slash = strrchr(final_path, '/');
	char *dir = slash ? malloc((size_t)(slash - final_path) + 2) : NULL;
	if (slash && !dir)
		return -1;
	if (dir) {
		size_t n = slash == final_path ? 1 : (size_t)(slash - final_path);
		memcpy(dir, final_path, n);
		dir[n] = 0;
	}
	mode_t um = umask(0);
	umask(um);
	int fd = open(dir ? dir : ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666 & ~um);
	free(dir);
	return fd;
#else
	(void)final_path;
	return -1;
#endif
}

/* An anonymous file: in memory (memfd) when memory is set and the system
 * can, else created in $TMPDIR and unlinked at once.  0, or -1 (errno). */
static int open_anonymous_in(tk_ixw *w, bool memory)
{
#ifdef MFD_CLOEXEC
	if (memory) {
		w->fd = memfd_create("tracekit-index", MFD_CLOEXEC);
		if (w->fd >= 0)
			return 0;
	}
#else
	(void)memory;
#endif
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	char *tmp = malloc(strlen(dir) + 32);
	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	strcpy(tmp, dir);
	strcat(tmp, "/tracekit-index.XXXXXX");
	w->fd = mkstemp(tmp);
	if (w->fd < 0) {
		int e = errno;
		free(tmp);
		errno = e;
		return -1;
	}
	unlink(tmp);
	free(tmp);
	return 0;
}

static int open_anonymous(tk_ixw *w)
{
	return open_anonymous_in(w, false);
}

int tk_ixw_create_memory(const char *final_path, tk_ixw **out)
{
	tk_ixw *w = calloc(1, sizeof *w);
	if (!w)
		return TK_ERR_NOMEM;
	w->fd = -1;
	w->buf = malloc(OBUF_SIZE);
	w->final_path = dup_str(final_path);
	if (!w->buf || !w->final_path) {
		tk_ixw_abort(w);
		return TK_ERR_NOMEM;
	}
	if (open_anonymous_in(w, true) != 0) {
		int e = errno;
		tk_ixw_abort(w);
		errno = e;
		return TK_ERR_OPEN;
	}
	memset(w->buf, 0, TK_IDX_HEADER_SIZE);
	w->len = TK_IDX_HEADER_SIZE;
	*out = w;
	return 0;
}

int tk_ixw_create(const char *final_path, bool anon_ok, tk_ixw **out, bool *anon)
{
	*anon = false;
	tk_ixw *w = calloc(1, sizeof *w);
	if (!w)
		return TK_ERR_NOMEM;
	w->buf = malloc(OBUF_SIZE);
	w->final_path = dup_str(final_path);
	size_t n = strlen(final_path);
	w->tmp_path = malloc(n + 16);
	if (!w->buf || !w->final_path || !w->tmp_path)
		goto nomem;
	memcpy(w->tmp_path, final_path, n);
	memcpy(w->tmp_path + n, ".tmp.XXXXXX", 12);
	w->fd = open_unnamed(final_path);
	if (w->fd >= 0) {
		w->unnamed = true;
	} else {
		w->fd = mkstemp(w->tmp_path);
		if (w->fd >= 0) {
			/* mkstemp makes the file 0600; an index is as
			 * readable as the trace usually is. */
			mode_t um = umask(0);
			umask(um);
			(void)fchmod(w->fd, 0666 & ~um);
		}
	}
	if (w->fd < 0) {
		int e = errno;
		if (!anon_ok || !not_writable(e)) {
			free(w->tmp_path);
			w->tmp_path = NULL;
			tk_ixw_abort(w);
			errno = e;
			return TK_ERR_OPEN;
		}
		/* The index's directory is read-only: index into an anonymous
		 * file for this run only. */
		free(w->tmp_path);
		w->tmp_path = NULL;
		if (open_anonymous(w) != 0) {
			e = errno;
			tk_ixw_abort(w);
			errno = e;
			return TK_ERR_OPEN;
		}
		*anon = true;
	}
	/* The header is written last: zeros (an invalid magic) until then. */
	memset(w->buf, 0, TK_IDX_HEADER_SIZE);
	w->len = TK_IDX_HEADER_SIZE;
	*out = w;
	return 0;
nomem:
	free(w->buf);
	free(w->final_path);
	free(w->tmp_path);
	free(w);
	return TK_ERR_NOMEM;
}

const char *tk_ixw_tmp_path(const tk_ixw *w)
{
	if (w->unnamed)
		return "an unnamed temporary file";
	return w->tmp_path ? w->tmp_path : "";
}

static int flush(tk_ixw *w)
{
	size_t done = 0;
	while (done < w->len) {
		ssize_t k = pwrite(w->fd, w->buf + done, w->len - done, (off_t)(w->off + done));
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return TK_ERR_IO;
		}
		done += (size_t)k;
	}
	w->off += w->len;
	w->len = 0;
	return 0;
}

static int write_raw(tk_ixw *w, const void *p, size_t n);

int tk_ixw_write(tk_ixw *w, const void *p, size_t n)
{
	/* Sections are checksummed as they are written: no reading back. */
	if (w->in_section)
		tk_hasher_update(&w->hash, p, n);
	return write_raw(w, p, n);
}

static int write_raw(tk_ixw *w, const void *p, size_t n)
{
	const uint8_t *s = p;
	/* A large write goes straight to the file, not through the buffer. */
	if (n >= OBUF_SIZE / 2) {
		int err = flush(w);
		size_t done = 0;
		while (!err && done < n) {
			ssize_t k = pwrite(w->fd, s + done, n - done, (off_t)(w->off + done));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				err = TK_ERR_IO;
			else
				done += (size_t)k;
		}
		w->off += done;
		return err;
	}
	while (n) {
		if (w->len == OBUF_SIZE) {
			int err = flush(w);
			if (err)
				return err;
		}
		size_t k = OBUF_SIZE - w->len;
		if (k > n)
			k = n;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
	}
	return 0;
}

int tk_ixw_begin(tk_ixw *w, uint32_t id)
{
	if (w->in_section || w->nsect == TK_IDX_MAX_SECT)
		return TK_ERR_INVAL;
	/* Sections start 8-byte aligned (not needed by the byte-wise reader,
	 * but it keeps the layout tidy). */
	static const uint8_t zero[8];
	uint64_t pos = w->off + w->len;
	if (pos & 7) {
		int err = write_raw(w, zero, 8 - (pos & 7));
		if (err)
			return err;
	}
	w->sect[w->nsect].id = id;
	w->sect[w->nsect].off = w->off + w->len;
	w->in_section = true;
	tk_hasher_init(&w->hash);
	return 0;
}

uint64_t tk_ixw_section_pos(const tk_ixw *w)
{
	return w->off + w->len - w->sect[w->nsect].off;
}

int tk_ixw_end(tk_ixw *w)
{
	if (!w->in_section)
		return TK_ERR_INVAL;
	w->sect[w->nsect].len = tk_ixw_section_pos(w);
	w->sect[w->nsect].sum = tk_hasher_final(&w->hash);
	w->nsect++;
	w->in_section = false;
	return 0;
}

/* Six characters from [a-z0-9], different per process, call and try. */
static void unique_suffix(char *out, int tries)
{
	static unsigned counter;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^
		     ((uint64_t)__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED) << 20) ^
		     (uint64_t)tries * 0x9e3779b97f4a7c15ull;
	x *= 0xbf58476d1ce4e5b9ull;
	for (int i = 0; i < 6; i++) {
		out[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[x % 36];
		x /= 36;
	}
}

int tk_ixw_finish(tk_ixw *w, uint8_t *hdr, int *fd_out)
{
	*fd_out = -1;
	int err = flush(w);
	if (err)
		goto fail;
	uint64_t size = w->off;
	if (size < TK_IDX_HEADER_SIZE) {
		err = TK_ERR_IO;
		goto fail;
	}
	tk_put64(hdr + TK_H_FILESIZE, size);
	tk_put32(hdr + TK_H_HSIZE, TK_IDX_HEADER_SIZE);
	tk_put32(hdr + TK_H_NSECT, w->nsect);
	for (unsigned i = 0; i < w->nsect; i++) {
		uint8_t *e = hdr + TK_IDX_SECTAB_OFF + i * TK_IDX_SECT_SIZE;
		tk_put32(e, w->sect[i].id);
		tk_put32(e + 4, 0);
		tk_put64(e + 8, w->sect[i].off);
		tk_put64(e + 16, w->sect[i].len);
		tk_put64(e + 24, w->sect[i].sum);
	}
	tk_put32(hdr + TK_H_FLAGS, tk_get32(hdr + TK_H_FLAGS) | TK_HF_COMPLETE);
	tk_put64(hdr + TK_IDX_HCSUM_OFF, tk_idx_hash(hdr, TK_IDX_HCSUM_OFF));
	if (pwrite(w->fd, hdr, TK_IDX_HEADER_SIZE, 0) != TK_IDX_HEADER_SIZE) {
		err = TK_ERR_IO;
		goto fail;
	}
	if (w->tmp_path && w->unnamed) {
		/* Give the complete file a temporary name, then rename it
		 * over the index: the same atomic replacement as below. */
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", w->fd);
		size_t n = strlen(w->tmp_path);
		for (int tries = 0;; tries++) {
			unique_suffix(w->tmp_path + n - 6, tries);
			if (linkat(AT_FDCWD, proc, AT_FDCWD, w->tmp_path, AT_SYMLINK_FOLLOW) == 0) {
				w->unnamed = false;	/* now a name to remove on failure */
				break;
			}
			if (errno != EEXIST || tries > 100) {
				w->tmp_path[0] = 0;	/* nothing to unlink */
				err = TK_ERR_IO;
				goto fail;
			}
		}
	}
	if (w->tmp_path) {
		/* the file kept open for the caller: reading it back by its
		 * name would check what this process has just checksummed */
		int keep = fcntl(w->fd, F_DUPFD_CLOEXEC, 0);
		if (close(w->fd) != 0) {
			w->fd = -1;
			if (keep >= 0)
				close(keep);
			err = TK_ERR_IO;
			goto fail;
		}
		w->fd = -1;
		if (rename(w->tmp_path, w->final_path) != 0) {
			if (keep >= 0)
				close(keep);
			err = TK_ERR_IO;
			goto fail;
		}
		free(w->tmp_path);
		w->tmp_path = NULL;
		*fd_out = keep;
	} else {
		*fd_out = w->fd;
		w->fd = -1;
	}
	tk_ixw_abort(w);
	return 0;
fail:
	tk_ixw_abort(w);
	return err;
}

void tk_ixw_abort(tk_ixw *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp_path && w->tmp_path[0] && !w->unnamed)
		unlink(w->tmp_path);
	free(w->tmp_path);
	free(w->final_path);
	free(w->buf);
	free(w);
}

/* ---- spill buffers ---- */

int tk_spill_write(tk_spill *s, const void *p, size_t n)
{
	s->total += n;
	if (s->fp)
		return fwrite(p, 1, n, s->fp) == n ? 0 : TK_ERR_IO;
	if (s->len + n > s->cap) {
		if (s->len + n > SPILL_MEM_LIMIT) {
			s->fp = tmpfile();
			if (!s->fp)
				return TK_ERR_IO;
			if (s->len && fwrite(s->buf, 1, s->len, s->fp) != s->len)
				return TK_ERR_IO;
			free(s->buf);
			s->buf = NULL;
			s->len = s->cap = 0;
			return fwrite(p, 1, n, s->fp) == n ? 0 : TK_ERR_IO;
		}
		size_t cap = s->cap ? s->cap : 4096;
		while (cap < s->len + n)
			cap *= 2;
		uint8_t *b = realloc(s->buf, cap);
		if (!b)
			return TK_ERR_NOMEM;
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

int tk_spill_copy(tk_spill *s, tk_ixw *w)
{
	int err = 0;
	if (s->fp) {
		if (fflush(s->fp) != 0 || fseeko(s->fp, 0, SEEK_SET) != 0)
			return TK_ERR_IO;
		uint8_t *tmp = malloc(1u << 16);
		if (!tmp)
			return TK_ERR_NOMEM;
		size_t k;
		while (!err && (k = fread(tmp, 1, 1u << 16, s->fp)) > 0)
			err = tk_ixw_write(w, tmp, k);
		if (!err && ferror(s->fp))
			err = TK_ERR_IO;
		free(tmp);
	} else if (s->len) {
		err = tk_ixw_write(w, s->buf, s->len);
	}
	tk_spill_free(s);
	return err;
}

void tk_spill_free(tk_spill *s)
{
	if (s->fp)
		fclose(s->fp);
	free(s->buf);
	memset(s, 0, sizeof *s);
}
