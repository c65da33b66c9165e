/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): the trace file's text, by byte offset (see tfile.h). */
#include "textfile.h"
#include "rendered.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracekit/error.h"

#define PAGE (64u << 10)
#define NPAGES 64		/* 4 MiB of decompressed text kept */

struct tkv_pages {
	struct {
		uint64_t off, used;
		size_t len;
		bool valid;
		char data[PAGE];
	} p[NPAGES];
	uint64_t tick;
	char *scratch;
	size_t scratch_cap;
	char msg[400];
};

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	const char *path = ctx;
	fprintf(stderr, "\rreading %s to build its checkpoint table: %3u%%", path,
		total ? (unsigned)(done * 100 / total) : 0);
	if (done >= total)
		fputs("\r\033[K", stderr);
}

int tkv_file_open(tkv_file *f, const char *path, const tk_index *idx, const char **why)
{
	memset(f, 0, sizeof *f);
	if (why)
		*why = NULL;
	/* A binary trace (Intel PT, Qtrace, HTM, trace buffers) has no text
	 * lines: they are rendered from the index, one per record. */
	if (tkv_index_rendered(idx)) {
		int rc = tkv_render_new(idx, &f->render);
		if (rc < 0)
			return rc;
		tk_index_info info = {.size = sizeof info};
		tk_index_get_info(idx, &info);
		f->size = info.lines;
		return 0;
	}
	tk_input_opts o;
	tk_input_opts_init(&o);
	o.progress = progress;
	o.progress_ctx = (void *)path;
	int rc = tk_index_open_text(idx, path, &o, &f->in);
	if (rc < 0)
		return rc;
	if (tk_input_get_format(f->in) == TK_INPUT_PLAIN) {
		rc = tk_input_map(f->in, &f->data, &f->size);
		if (rc == 0 && !f->size)
			f->data = NULL;
	} else {
		rc = tk_input_random_access(f->in);
		f->size = tk_input_size(f->in);
		if (rc == 0 && !(f->pages = calloc(1, sizeof *f->pages)))
			rc = TK_ERR_NOMEM;
	}
	if (rc < 0) {
		if (why && *tk_input_error(f->in)) {
			static char msg[400];
			snprintf(msg, sizeof msg, "%s", tk_input_error(f->in));
			*why = msg;
		}
		tkv_file_close(f);
	}
	return rc;
}

void tkv_file_close(tkv_file *f)
{
	tkv_render_free(f->render);
	if (f->pages)
		free(f->pages->scratch);
	free(f->pages);
	tk_input_close(f->in);
	memset(f, 0, sizeof *f);
}

/* The cached page holding off, read if needed; NULL if it cannot be read
 * (the reason in the cache's msg). */
static const char *page_at(const tkv_file *f, uint64_t off, uint64_t *start, size_t *len)
{
	tkv_pages *c = f->pages;
	uint64_t base = off / PAGE * PAGE;
	int victim = 0;
	for (int i = 0; i < NPAGES; i++) {
		if (c->p[i].valid && c->p[i].off == base) {
			c->p[i].used = ++c->tick;
			*start = base;
			*len = c->p[i].len;
			return c->p[i].data;
		}
		if (!c->p[i].valid ? c->p[victim].valid
				   : c->p[victim].valid && c->p[i].used < c->p[victim].used)
			victim = i;	/* an empty page first, else the least recent */
	}
	size_t got;
	int rc = tk_input_pread(f->in, base, c->p[victim].data, PAGE, &got);
	if (rc < 0) {
		snprintf(c->msg, sizeof c->msg, "[tracekit: cannot read the trace here: %s]",
			 *tk_input_error(f->in) ? tk_input_error(f->in) : tk_strerror(rc));
		c->p[victim].valid = false;
		return NULL;
	}
	c->p[victim].valid = true;
	c->p[victim].off = base;
	c->p[victim].len = got;
	c->p[victim].used = ++c->tick;
	*start = base;
	*len = got;
	return c->p[victim].data;
}

/* The text from off on, as far as it is contiguous in memory: *avail
 * bytes (0 at the end of the text, or where it cannot be read). */
static const char *span(const tkv_file *f, uint64_t off, size_t *avail)
{
	*avail = 0;
	if (off >= f->size)
		return NULL;
	if (!f->pages) {
		uint64_t n = f->size - off;
		*avail = n > SIZE_MAX ? SIZE_MAX : (size_t)n;
		return f->data + off;
	}
	uint64_t s;
	size_t l;
	const char *p = page_at(f, off, &s, &l);
	if (!p || off - s >= l)
		return NULL;
	*avail = l - (size_t)(off - s);
	return p + (off - s);
}

/* The first '\n' in [from, to), or to if none (or unreadable). */
static uint64_t find_nl(const tkv_file *f, uint64_t from, uint64_t to, bool *found)
{
	*found = false;
	while (from < to) {
		size_t n;
		const char *p = span(f, from, &n);
		if (!n)
			return from;	/* unreadable from here */
		if (n > to - from)
			n = (size_t)(to - from);
		const char *nl = memchr(p, '\n', n);
		if (nl) {
			*found = true;
			return from + (uint64_t)(nl - p);
		}
		from += n;
	}
	return to;
}

static char byte_at(const tkv_file *f, uint64_t off)
{
	size_t n;
	const char *p = span(f, off, &n);
	return n ? *p : 0;
}

const char *tkv_line_text(const tkv_file *f, uint64_t off, size_t len, size_t *out_len)
{
	*out_len = 0;
	if (off >= f->size)
		return "";
	if (f->render)
		return tkv_render_line(f->render, off + 1, out_len);
	if (len > f->size - off)
		len = (size_t)(f->size - off);
	size_t n;
	const char *p = span(f, off, &n);
	if (n >= len) {
		*out_len = len;
		return p;
	}
	tkv_pages *c = f->pages;
	if (c->scratch_cap < len) {
		char *s = realloc(c->scratch, len);
		if (!s)
			return "";
		c->scratch = s;
		c->scratch_cap = len;
	}
	size_t done = 0;
	while (done < len) {
		p = span(f, off + done, &n);
		if (!n) {
			*out_len = strlen(c->msg);
			return c->msg;
		}
		if (n > len - done)
			n = len - done;
		memcpy(c->scratch + done, p, n);
		done += n;
	}
	*out_len = len;
	return c->scratch;
}

uint64_t tkv_line_end(const tkv_file *f, uint64_t off)
{
	if (off >= f->size)
		return f->size;
	if (f->render)
		return off + 1;
	bool found;
	uint64_t end = find_nl(f, off, f->size, &found);
	if (end > off && byte_at(f, end - 1) == '\r')
		end--;
	return end;
}

uint64_t tkv_line_next(const tkv_file *f, uint64_t off)
{
	if (off >= f->size)
		return f->size;
	if (f->render)
		return off + 1;
	bool found;
	uint64_t nl = find_nl(f, off, f->size, &found);
	return found ? nl + 1 : f->size;
}

uint64_t tkv_line_prev(const tkv_file *f, uint64_t off)
{
	if (off == 0)
		return 0;
	if (off > f->size)
		off = f->size;
	if (f->render)
		return off - 1;
	off--;			/* the previous line's newline (or last byte) */
	/* the last '\n' in [0, off) */
	while (off > 0) {
		uint64_t s = 0;
		size_t l;
		const char *p;
		if (!f->pages) {
			p = f->data;
		} else if (!(p = page_at(f, off - 1, &s, &l))) {
			return off;	/* unreadable: stop here */
		}
		const char *nl = memrchr(p, '\n', (size_t)(off - s));
		if (nl)
			return s + (uint64_t)(nl - p) + 1;
		off = s;
	}
	return 0;
}

static void release(const tkv_file *f, uint64_t from, uint64_t to)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t page = pg > 0 ? (uint64_t)pg : 4096;
	uint64_t a = (from + page - 1) / page * page, b = to / page * page;
	if (f->data && b > a)
		madvise((void *)(f->data + a), (size_t)(b - a), MADV_DONTNEED);
}

void tkv_file_trim(const tkv_file *f)
{
	release(f, 0, f->size);
}

uint64_t tkv_count_lines(const tkv_file *f, uint64_t from, uint64_t to)
{
	uint64_t n = 0, kept = from;
	if (to > f->size)
		to = f->size;
	if (f->render)
		return to > from ? to - from : 0;
	while (from < to) {
		bool found;
		uint64_t nl = find_nl(f, from, to, &found);
		n++;
		if (!found)
			break;
		from = nl + 1;
		if (from - kept >= (1u << 20)) {
			release(f, kept, from);
			kept = from;
		}
	}
	return n;
}
