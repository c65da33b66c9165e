/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT: detecting and opening a trace, the CPU, the accessors. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_impl.h"

#define PROBE_WINDOW 4096

static const uint8_t psb_bytes[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
				      0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82};

tk_pt_format tk_pt_probe(const uint8_t *head, size_t len, const char *path)
{
	if (len >= 8 && !memcmp(head, "PERFILE2", 8))
		return TK_PT_FORMAT_PERF;
	size_t i = 0, lim = len < PROBE_WINDOW ? len : PROBE_WINDOW;
	while (i < lim && head[i] == 0x00)	/* PAD */
		i++;
	if (i + sizeof psb_bytes <= len && !memcmp(head + i, psb_bytes, sizeof psb_bytes))
		return TK_PT_FORMAT_RAW;
	if (path) {
		size_t n = strlen(path);
		if (n > 3 && !strcmp(path + n - 3, ".pt"))
			return TK_PT_FORMAT_RAW;
	}
	return TK_PT_FORMAT_NONE;
}

void tk_pt_opts_init(tk_pt_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->size = sizeof *opts;
}

void tk_pt_diag(const tk_pt *pt, tk_diag_level level, const char *fmt, ...)
{
	if (!pt->diag)
		return;
	char msg[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tk_diag d = {.level = level, .file = pt->path, .line = 0, .msg = msg};
	pt->diag(pt->diag_ctx, &d);
}

void tk_pt_set_detail(tk_pt *pt, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pt->detail, sizeof pt->detail, fmt, ap);
	va_end(ap);
}

const char *tk_pt_error_detail(const tk_pt *pt)
{
	return pt->detail;
}

int tk_pt_parse_cpu_text(const char *s, tk_pt_cpu *out)
{
	unsigned long v[3] = {0, 0, 0};
	int n = 0;
	const char *p = s;
	while (n < 3) {
		char *end;
		if (*p < '0' || *p > '9')
			return TK_ERR_INVAL;
		errno = 0;
		v[n++] = strtoul(p, &end, 10);
		if (errno)
			return TK_ERR_INVAL;
		p = end;
		if (!*p)
			break;
		if (*p != '/')
			return TK_ERR_INVAL;
		p++;
	}
	if (*p || n < 2 || v[0] > 0xffff || v[1] > 0xff || v[2] > 0xff)
		return TK_ERR_INVAL;
	out->family = (uint16_t)v[0];
	out->model = (uint8_t)v[1];
	out->stepping = (uint8_t)v[2];
	out->intel = true;
	return 0;
}

int tk_pt_parse_number(const char *s, uint64_t *out)
{
	/* strtoull skips blanks and takes a sign ("-1" is 2^64-1): a digit
	 * must come first. */
	if (*s < '0' || *s > '9')
		return TK_ERR_INVAL;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return TK_ERR_INVAL;
	*out = v;
	return 0;
}

static void apply_cpu(tk_pt *pt)
{
	memset(&pt->ptcpu, 0, sizeof pt->ptcpu);
	memset(&pt->errata, 0, sizeof pt->errata);
	if (!pt->cpu.family)
		return;
	pt->ptcpu.vendor = pt->cpu.intel ? pcv_intel : pcv_unknown;
	pt->ptcpu.family = pt->cpu.family;
	pt->ptcpu.model = pt->cpu.model;
	pt->ptcpu.stepping = pt->cpu.stepping;
	if (pt->ptcpu.vendor == pcv_intel) {
		int rc = pt_cpu_errata(&pt->errata, &pt->ptcpu);
		if (rc < 0)
			tk_pt_diag(pt, TK_DIAG_WARNING, "cpu %u/%u/%u: no errata known: %s",
				   pt->cpu.family, pt->cpu.model, pt->cpu.stepping,
				   pt_errstr(pt_errcode(rc)));
	}
}

void tk_pt_config(const tk_pt *pt, struct pt_config *cfg, const uint8_t *begin,
		  const uint8_t *end)
{
	pt_config_init(cfg);
	cfg->begin = (uint8_t *)begin;
	cfg->end = (uint8_t *)end;
	cfg->cpu = pt->ptcpu;
	cfg->errata = pt->errata;
}

/* Everything after the bytes are in memory. */
static int open_loaded(tk_pt *pt, const tk_pt_opts *o)
{
	bool cpu_auto = !o->cpu || !strcmp(o->cpu, "auto");
	if (!cpu_auto && strcmp(o->cpu, "none") != 0 && tk_pt_parse_cpu_text(o->cpu, &pt->cpu) < 0) {
		tk_pt_diag(pt, TK_DIAG_ERROR, "bad --cpu '%s' (want FAMILY/MODEL[/STEPPING], auto or none)",
			   o->cpu);
		return TK_ERR_INVAL;
	}
	if (pt->file_len == 0) {
		tk_pt_diag(pt, TK_DIAG_ERROR, "the file is empty");
		return TK_ERR_EMPTY;
	}
	tk_pt_format f = o->format;
	if (f == TK_PT_FORMAT_NONE)
		f = tk_pt_probe(pt->file, pt->file_len, pt->path);
	if (f == TK_PT_FORMAT_NONE) {
		tk_pt_diag(pt, TK_DIAG_ERROR,
			   "neither Intel PT (no PSB in the first 4 KiB) nor perf.data (no PERFILE2 magic)");
		return TK_ERR_FORMAT;
	}
	pt->format = f;
	int rc = 0;
	if (f == TK_PT_FORMAT_PERF) {
		rc = tk_pt_perf_read(pt, cpu_auto);
	} else {
		pt->streams = calloc(1, sizeof *pt->streams);
		if (!pt->streams)
			return TK_ERR_NOMEM;
		pt->nstreams = 1;
		pt->streams[0].info.data = pt->file;
		pt->streams[0].info.size = pt->file_len;
	}
	if (rc == 0)
		apply_cpu(pt);
	return rc;
}

static tk_pt *alloc_pt(const char *name, const tk_pt_opts *o)
{
	tk_pt *pt = calloc(1, sizeof *pt);
	if (!pt)
		return NULL;
	pt->path = strdup(name ? name : "<memory>");
	if (!pt->path) {
		free(pt);
		return NULL;
	}
	pt->diag = o->diag;
	pt->diag_ctx = o->diag_ctx;
	return pt;
}

int tk_pt_open_mem(const void *data, size_t len, const char *name, const tk_pt_opts *opts,
		   tk_pt **out)
{
	*out = NULL;
	tk_pt_opts def;
	if (!opts) {
		tk_pt_opts_init(&def);
		opts = &def;
	}
	if (opts->size < sizeof *opts)
		return TK_ERR_INVAL;
	tk_pt *pt = alloc_pt(name, opts);
	if (!pt)
		return TK_ERR_NOMEM;
	pt->file = malloc(len ? len : 1);
	if (!pt->file) {
		tk_pt_free(pt);
		return TK_ERR_NOMEM;
	}
	if (len)
		memcpy(pt->file, data, len);
	pt->file_len = len;
	int rc = open_loaded(pt, opts);
	if (rc < 0) {
		tk_pt_free(pt);
		return rc;
	}
	*out = pt;
	return 0;
}

static int read_whole(int fd, uint8_t **buf, size_t *len)
{
	struct stat sb;
	if (fstat(fd, &sb) != 0)
		return TK_ERR_IO;
	if (S_ISDIR(sb.st_mode))
		return TK_ERR_ISDIR;
	size_t cap = S_ISREG(sb.st_mode) && sb.st_size > 0 ? (size_t)sb.st_size : 65536, n = 0;
	uint8_t *b = malloc(cap + 1);
	if (!b)
		return TK_ERR_NOMEM;
	for (;;) {
		if (n == cap) {
			uint8_t *nb = realloc(b, cap * 2 + 1);
			if (!nb) {
				free(b);
				return TK_ERR_NOMEM;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(b);
			return TK_ERR_IO;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

int tk_pt_open(const char *path, const tk_pt_opts *opts, tk_pt **out)
{
	*out = NULL;
	tk_pt_opts def;
	if (!opts) {
		tk_pt_opts_init(&def);
		opts = &def;
	}
	if (opts->size < sizeof *opts)
		return TK_ERR_INVAL;
	tk_pt *pt = alloc_pt(path, opts);
	if (!pt)
		return TK_ERR_NOMEM;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		tk_pt_diag(pt, TK_DIAG_ERROR, "cannot open: %s", strerror(e));
		tk_pt_free(pt);
		errno = e;
		return TK_ERR_OPEN;
	}
	int rc = read_whole(fd, &pt->file, &pt->file_len);
	int e = errno;
	close(fd);
	if (rc < 0) {
		if (rc == TK_ERR_ISDIR)
			tk_pt_diag(pt, TK_DIAG_ERROR, "is a directory, not a trace file");
		else if (rc == TK_ERR_IO)
			tk_pt_diag(pt, TK_DIAG_ERROR, "read error: %s", strerror(e));
		tk_pt_free(pt);
		errno = e;
		return rc;
	}
	rc = open_loaded(pt, opts);
	if (rc < 0) {
		tk_pt_free(pt);
		return rc;
	}
	*out = pt;
	return 0;
}

void tk_pt_free(tk_pt *pt)
{
	if (!pt)
		return;
	for (unsigned i = 0; i < pt->nstreams; i++) {
		free(pt->streams[i].owned);
		free(pt->streams[i].gaps);
	}
	free(pt->streams);
	tk_pt_clear_images(pt);
	tk_pt_unmap_files(pt);
	free(pt->sections);
	free(pt->images);
	free(pt->maps);
	free(pt->file);
	free(pt->path);
	free(pt);
}

tk_pt_format tk_pt_format_of(const tk_pt *pt)
{
	return pt->format;
}

const char *tk_pt_path(const tk_pt *pt)
{
	return pt->path;
}

tk_pt_cpu tk_pt_cpu_of(const tk_pt *pt)
{
	return pt->cpu;
}

unsigned tk_pt_stream_count(const tk_pt *pt)
{
	return pt->nstreams;
}

int tk_pt_stream(const tk_pt *pt, unsigned i, tk_pt_stream_info *out)
{
	if (i >= pt->nstreams)
		return TK_ERR_INVAL;
	*out = pt->streams[i].info;
	out->ngaps = pt->streams[i].ngaps;
	return 0;
}

int tk_pt_stream_add_gap(struct pt_stream *s, uint64_t offset, tk_pt_gap_kind kind,
			 const char *why)
{
	if (s->ngaps && s->gaps[s->ngaps - 1].offset == offset)
		return 0;	/* one gap per place */
	if (s->ngaps == s->gapcap) {
		uint32_t ncap = s->gapcap ? s->gapcap * 2 : 8;
		struct pt_gap *ng = realloc(s->gaps, ncap * sizeof *ng);
		if (!ng)
			return TK_ERR_NOMEM;
		s->gaps = ng;
		s->gapcap = ncap;
	}
	uint32_t i = s->ngaps++;
	while (i > 0 && s->gaps[i - 1].offset > offset) {
		s->gaps[i] = s->gaps[i - 1];
		i--;
	}
	s->gaps[i].offset = offset;
	s->gaps[i].kind = kind;
	snprintf(s->gaps[i].why, sizeof s->gaps[i].why, "%s", why);
	return 0;
}
