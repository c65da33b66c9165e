/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT: reading perf.data (PERFILE2, little-endian).
 *
 * Kept: AUXTRACE_INFO (must be type 1, Intel PT), the AUXTRACE records and
 * their data (joined per buffer index in offset order; a record may end in
 * the middle of a packet, and its zero padding is dropped where the next
 * record's offset says so), AUX records flagged TRUNCATED or PARTIAL (gaps),
 * MMAP/MMAP2 of the traced process (images), ITRACE_START (which process is
 * traced) and the HEADER_CPUID feature (the CPU for errata). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pt_impl.h"

enum {
	REC_MMAP = 1, REC_AUX = 11, REC_ITRACE_START = 12, REC_MMAP2 = 10,
	REC_HEADER_ATTR = 64, REC_AUXTRACE_INFO = 70, REC_AUXTRACE = 71,
	REC_COMPRESSED = 81,
	FEAT_CPUID = 9,
	MISC_MMAP_DATA = 1 << 13,
	PROT_EXEC_BIT = 4,
	SAMPLE_TID = 1 << 1, SAMPLE_TIME = 1 << 2, SAMPLE_ID = 1 << 6, SAMPLE_CPU = 1 << 7,
	SAMPLE_STREAM_ID = 1 << 9, SAMPLE_IDENTIFIER = 1 << 16,
	AUX_TRUNCATED = 1, AUX_PARTIAL = 4,
};

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

struct aux_chunk {
	uint64_t offset, size;	/* in the AUX buffer */
	const uint8_t *data;
	uint32_t idx, cpu, tid;
	uint64_t order;		/* file order, for a stable sort */
};

struct aux_loss {
	uint32_t cpu;
	uint64_t at;		/* AUX buffer offset where data went missing */
	tk_pt_gap_kind kind;
};

struct mmap_rec {
	uint32_t pid;
	uint64_t addr, len, pgoff;
	const char *name;	/* points into the file */
	size_t name_len;
};

struct perf_state {
	tk_pt *pt;
	struct aux_chunk *aux;
	size_t naux, auxcap;
	struct aux_loss *loss;
	size_t nloss, losscap;
	struct mmap_rec *maps;
	size_t nmaps, mapcap;
	bool have_info, have_itrace_pid;
	uint32_t itrace_pid;
	uint64_t sample_type;
	bool sample_id_all;
};

#define GROW(arr, n, cap)                                                                 \
	((n) < (cap) ? 0                                                                  \
		     : ((cap) = (cap) ? (cap) * 2 : 64,                                   \
			((arr) = reallocarray_or_free((arr), (cap), sizeof *(arr))) ? 0 : -1))

static void *reallocarray_or_free(void *p, size_t n, size_t sz)
{
	void *q = realloc(p, n * sz);
	if (!q)
		free(p);
	return q;
}

static int cmp_aux(const void *a, const void *b)
{
	const struct aux_chunk *x = a, *y = b;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The CPU in a non-sample record's sample_id trailer, or -1. */
static int64_t trailer_cpu(const struct perf_state *ps, const uint8_t *rec, size_t size)
{
	if (!ps->sample_id_all || !(ps->sample_type & SAMPLE_CPU))
		return -1;
	size_t back = 8 + ((ps->sample_type & SAMPLE_IDENTIFIER) ? 8 : 0);
	if (size < 8 + back)
		return -1;
	return rd32(rec + size - back);
}

static int read_attrs(struct perf_state *ps, const uint8_t *f, size_t len)
{
	uint64_t attr_size = rd64(f + 16), off = rd64(f + 24), size = rd64(f + 32);
	if (!size)
		return 0;
	if (attr_size < 48 || off > len || size > len - off) {
		tk_pt_diag(ps->pt, TK_DIAG_ERROR, "offset 0x%llx: the attribute section lies outside the file",
			   (unsigned long long)off);
		return TK_ERR_CORRUPT;
	}
	if (size < 48) {	/* sample_type and the flags are read from its first 48 bytes */
		tk_pt_diag(ps->pt, TK_DIAG_ERROR, "offset 0x%llx: the attribute section is too short "
			   "(%llu bytes, at least 48)", (unsigned long long)off, (unsigned long long)size);
		return TK_ERR_CORRUPT;
	}
	ps->sample_type = rd64(f + off + 24);
	ps->sample_id_all = (rd64(f + off + 40) >> 18) & 1;
	return 0;
}

static int on_record(struct perf_state *ps, const uint8_t *f, size_t len, uint64_t pos,
		     uint32_t type, uint16_t misc, uint16_t size, uint64_t *skip)
{
	const uint8_t *r = f + pos;
	tk_pt *pt = ps->pt;
	switch (type) {
	case REC_HEADER_ATTR:
		tk_pt_diag(pt, TK_DIAG_ERROR, "offset 0x%llx: pipe-mode perf.data is not supported "
			   "(record to a file: perf record -o FILE)", (unsigned long long)pos);
		return TK_ERR_UNSUPPORTED;
	case REC_COMPRESSED:
		tk_pt_diag(pt, TK_DIAG_ERROR, "offset 0x%llx: compressed perf.data (perf record -z) "
			   "is not supported", (unsigned long long)pos);
		return TK_ERR_UNSUPPORTED;
	case REC_AUXTRACE_INFO:
		if (size < 16)
			break;
		if (rd32(r + 8) != 1) {
			tk_pt_diag(pt, TK_DIAG_ERROR, "offset 0x%llx: the AUX data is of type %u, not "
				   "Intel PT (1)", (unsigned long long)pos, rd32(r + 8));
			return TK_ERR_FORMAT;
		}
		ps->have_info = true;
		break;
	case REC_AUXTRACE: {
		if (size < 48)
			break;
		uint64_t dsize = rd64(r + 8);
		uint64_t at = pos + size;
		if (at > len || dsize > len - at) {
			tk_pt_diag(pt, TK_DIAG_WARNING, "offset 0x%llx: AUXTRACE record of %llu bytes "
				   "cut short by the end of the file (%llu bytes kept)",
				   (unsigned long long)pos, (unsigned long long)dsize,
				   (unsigned long long)(len - (at < len ? at : len)));
			dsize = at < len ? len - at : 0;
		}
		if (GROW(ps->aux, ps->naux, ps->auxcap) < 0)
			return TK_ERR_NOMEM;
		ps->aux[ps->naux] = (struct aux_chunk){
			.offset = rd64(r + 16), .size = dsize, .data = f + at, .idx = rd32(r + 32),
			.tid = rd32(r + 36), .cpu = rd32(r + 40), .order = ps->naux};
		ps->naux++;
		*skip = rd64(r + 8);
		break;
	}
	case REC_AUX: {
		if (size < 32)
			break;
		uint64_t flags = rd64(r + 24);
		if (!(flags & (AUX_TRUNCATED | AUX_PARTIAL)))
			break;
		if (GROW(ps->loss, ps->nloss, ps->losscap) < 0)
			return TK_ERR_NOMEM;
		int64_t cpu = trailer_cpu(ps, r, size);
		ps->loss[ps->nloss++] = (struct aux_loss){
			.cpu = cpu < 0 ? UINT32_MAX : (uint32_t)cpu,
			.at = rd64(r + 8) + rd64(r + 16),
			.kind = (flags & AUX_TRUNCATED) ? TK_PT_GAP_BUFFER_FULL : TK_PT_GAP_OTHER};
		break;
	}
	case REC_ITRACE_START:
		if (size >= 16 && !ps->have_itrace_pid) {
			ps->itrace_pid = rd32(r + 8);
			ps->have_itrace_pid = true;
		}
		break;
	case REC_MMAP:
	case REC_MMAP2: {
		size_t name_at = type == REC_MMAP ? 40 : 72;
		if (size <= name_at)
			break;
		if (type == REC_MMAP && (misc & MISC_MMAP_DATA))
			break;
		if (type == REC_MMAP2 && !(rd32(r + 64) & PROT_EXEC_BIT))
			break;
		uint32_t pid = rd32(r + 8);
		if (pid == UINT32_MAX)
			break;	/* the kernel */
		if (GROW(ps->maps, ps->nmaps, ps->mapcap) < 0)
			return TK_ERR_NOMEM;
		const char *name = (const char *)r + name_at;
		ps->maps[ps->nmaps++] = (struct mmap_rec){
			.pid = pid, .addr = rd64(r + 16), .len = rd64(r + 24), .pgoff = rd64(r + 32),
			.name = name, .name_len = strnlen(name, size - name_at)};
		break;
	}
	default:
		break;
	}
	return 0;
}

static int read_records(struct perf_state *ps, const uint8_t *f, size_t len)
{
	uint64_t off = rd64(f + 40), size = rd64(f + 48);
	if (off > len || size > len - off) {
		tk_pt_diag(ps->pt, TK_DIAG_WARNING, "offset 0x%llx: the data section (%llu bytes) "
			   "runs past the end of the file: truncated perf.data",
			   (unsigned long long)off, (unsigned long long)size);
		if (off > len)
			return TK_ERR_EOF;
		size = len - off;
	}
	uint64_t pos = off, end = off + size;
	while (pos < end) {
		if (end - pos < 8) {
			tk_pt_diag(ps->pt, TK_DIAG_WARNING, "offset 0x%llx: a record header is cut short",
				   (unsigned long long)pos);
			break;
		}
		uint32_t type = rd32(f + pos);
		uint16_t misc, rsize;
		memcpy(&misc, f + pos + 4, 2);
		memcpy(&rsize, f + pos + 6, 2);
		if (rsize < 8 || rsize > end - pos) {
			tk_pt_diag(ps->pt, TK_DIAG_WARNING, "offset 0x%llx: bad record (type %u, size %u): "
				   "the rest of the file is not read", (unsigned long long)pos, type,
				   rsize);
			break;
		}
		uint64_t skip = 0;
		int rc = on_record(ps, f, len, pos, type, misc, rsize, &skip);
		if (rc < 0)
			return rc;
		pos += rsize;
		if (skip > end - pos)
			break;	/* AUXTRACE data cut short: already reported */
		pos += skip;
	}
	return 0;
}

static void read_cpuid(struct perf_state *ps, const uint8_t *f, size_t len, tk_pt_cpu *cpu)
{
	uint64_t feat = rd64(f + 72);
	if (!(feat & (1ull << FEAT_CPUID)))
		return;
	unsigned index = 0;
	for (unsigned b = 0; b < FEAT_CPUID; b++)
		index += (feat >> b) & 1;
	uint64_t sec = rd64(f + 40) + rd64(f + 48) + 16ull * index;
	if (sec > len || len - sec < 16)
		return;
	uint64_t off = rd64(f + sec), size = rd64(f + sec + 8);
	if (off > len || size > len - off || size < 5)
		return;
	uint32_t slen = rd32(f + off);
	if (slen > size - 4)
		slen = (uint32_t)(size - 4);
	char s[128];
	size_t n = slen < sizeof s - 1 ? slen : sizeof s - 1;
	memcpy(s, f + off + 4, n);
	s[n] = 0;
	/* "GenuineIntel,6,142,10" */
	char vendor[32];
	unsigned fam, model, step;
	if (sscanf(s, "%31[^,],%u,%u,%u", vendor, &fam, &model, &step) == 4 && fam <= 0xffff &&
	    model <= 0xff && step <= 0xff) {
		cpu->family = (uint16_t)fam;
		cpu->model = (uint8_t)model;
		cpu->stepping = (uint8_t)step;
		cpu->intel = !strcmp(vendor, "GenuineIntel");
	} else {
		tk_pt_diag(ps->pt, TK_DIAG_WARNING, "HEADER_CPUID '%s' not understood: no errata applied", s);
	}
}

/* Join the chunks of each buffer index into streams. */
static int build_streams(struct perf_state *ps)
{
	tk_pt *pt = ps->pt;
	qsort(ps->aux, ps->naux, sizeof *ps->aux, cmp_aux);
	unsigned nstreams = 0;
	for (size_t i = 0; i < ps->naux; i++)
		if (i == 0 || ps->aux[i].idx != ps->aux[i - 1].idx)
			nstreams++;
	pt->streams = calloc(nstreams ? nstreams : 1, sizeof *pt->streams);
	if (!pt->streams)
		return TK_ERR_NOMEM;
	for (size_t i = 0; i < ps->naux;) {
		size_t j = i, total = 0;
		while (j < ps->naux && ps->aux[j].idx == ps->aux[i].idx)
			total += ps->aux[j++].size;
		struct pt_stream *s = &pt->streams[pt->nstreams++];
		s->owned = malloc(total ? total : 1);
		if (!s->owned)
			return TK_ERR_NOMEM;
		s->info.index = ps->aux[i].idx;
		s->info.cpu = ps->aux[i].cpu == UINT32_MAX ? 0 : ps->aux[i].cpu;
		s->info.tid = ps->aux[i].cpu == UINT32_MAX ? ps->aux[i].tid : 0;
		uint64_t n = 0, buf_end = ps->aux[i].offset;
		for (size_t k = i; k < j; k++) {
			const struct aux_chunk *c = &ps->aux[k];
			if (k > i && c->offset < buf_end) {
				/* Overlap: the previous record's tail was padding. */
				uint64_t back = buf_end - c->offset;
				n = back > n ? 0 : n - back;
			} else if (k > i && c->offset > buf_end) {
				char why[96];
				snprintf(why, sizeof why, "AUX data 0x%llx-0x%llx of buffer %u missing",
					 (unsigned long long)buf_end, (unsigned long long)c->offset,
					 s->info.index);
				if (tk_pt_stream_add_gap(s, n, TK_PT_GAP_OTHER, why) < 0)
					return TK_ERR_NOMEM;
			}
			memcpy(s->owned + n, c->data, c->size);
			n += c->size;
			buf_end = c->offset + c->size;
			/* Losses the kernel reported inside this record's range. */
			for (size_t l = 0; l < ps->nloss; l++) {
				const struct aux_loss *a = &ps->loss[l];
				if ((a->cpu != UINT32_MAX && a->cpu != c->cpu && c->cpu != UINT32_MAX) ||
				    a->at <= c->offset || a->at > buf_end)
					continue;
				if (a->cpu == UINT32_MAX && nstreams > 1)
					continue;
				uint64_t at = n - (buf_end - a->at);
				const char *why = a->kind == TK_PT_GAP_BUFFER_FULL
					? "perf lost AUX data (AUX record flagged TRUNCATED)"
					: "AUX data incomplete (AUX record flagged PARTIAL)";
				if (at < n && tk_pt_stream_add_gap(s, at, a->kind, why) < 0)
					return TK_ERR_NOMEM;
				if (at == n && tk_pt_stream_add_gap(s, n, a->kind, why) < 0)
					return TK_ERR_NOMEM;
			}
		}
		s->info.data = s->owned;
		s->info.size = n;
		i = j;
	}
	return 0;
}

static bool add_image_once(tk_pt *pt, const char *path, uint64_t bias, uint64_t start,
			   uint64_t end)
{
	for (unsigned i = 0; i < pt->nimages; i++) {
		tk_pt_image_info *im = &pt->images[i];
		if (!strcmp(im->path, path) && im->bias == bias) {
			if (start < im->start)
				im->start = start;
			if (end > im->end)
				im->end = end;
			return true;
		}
	}
	return tk_pt_add_image_info(pt, path, bias, start, end, false) == 0;
}

static int add_mmaps(struct perf_state *ps)
{
	tk_pt *pt = ps->pt;
	if (!ps->nmaps)
		return 0;
	uint32_t pid = ps->have_itrace_pid ? ps->itrace_pid : ps->maps[0].pid;
	bool other = false;
	for (size_t i = 0; i < ps->nmaps; i++) {
		const struct mmap_rec *m = &ps->maps[i];
		if (m->pid != pid) {
			other = true;
			continue;
		}
		char path[4096];
		size_t n = m->name_len < sizeof path - 1 ? m->name_len : sizeof path - 1;
		memcpy(path, m->name, n);
		path[n] = 0;
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = ps->maps[k].pid == pid && ps->maps[k].name_len == m->name_len &&
			       !memcmp(ps->maps[k].name, m->name, m->name_len);
		if (path[0] == '[') {
			if (!seen)
				tk_pt_diag(pt, TK_DIAG_WARNING, "%s: no file to read its code from: left out",
					   path);
			continue;
		}
		const struct pt_filemap *fm;
		int rc = tk_pt_map_file(pt, path, &fm);
		if (rc < 0) {
			if (!seen)
				tk_pt_diag(pt, TK_DIAG_WARNING, "%s: cannot read (%s): its code is left out",
					   path, rc == TK_ERR_OPEN ? strerror(errno) : tk_strerror(rc));
			continue;
		}
		if ((rc = tk_pt_add_section(pt, fm, m->pgoff, m->len, m->addr)) < 0)
			return rc;
		uint64_t bias = tk_pt_elf_bias(fm, m->addr, m->pgoff);
		if (!add_image_once(pt, fm->path, bias, m->addr, m->addr + m->len))
			return TK_ERR_NOMEM;
	}
	if (other)
		tk_pt_diag(pt, TK_DIAG_NOTE, "mappings of several processes: the images of pid %u are used",
			   pid);
	return 0;
}

int tk_pt_perf_read(tk_pt *pt, bool cpu_auto)
{
	const uint8_t *f = pt->file;
	size_t len = pt->file_len;
	if (len >= 16 && rd64(f + 8) == 16) {
		tk_pt_diag(pt, TK_DIAG_ERROR, "pipe-mode perf.data is not supported "
			   "(record to a file: perf record -o FILE)");
		return TK_ERR_UNSUPPORTED;
	}
	if (len < 104) {
		tk_pt_diag(pt, TK_DIAG_ERROR, "offset 0x%zx: the perf.data header is cut short", len);
		return TK_ERR_EOF;
	}
	struct perf_state ps = {.pt = pt};
	int rc = read_attrs(&ps, f, len);
	if (rc == 0)
		rc = read_records(&ps, f, len);
	if (rc == 0 && (!ps.have_info || !ps.naux)) {
		tk_pt_diag(pt, TK_DIAG_ERROR, "no Intel PT data in this perf.data (%s)",
			   !ps.have_info ? "no AUXTRACE_INFO record"
					 : "no AUXTRACE record: nothing was captured");
		rc = TK_ERR_FORMAT;
	}
	if (rc == 0)
		rc = build_streams(&ps);
	if (rc == 0)
		rc = add_mmaps(&ps);
	if (rc == 0 && cpu_auto)
		read_cpuid(&ps, f, len, &pt->cpu);
	free(ps.aux);
	free(ps.loss);
	free(ps.maps);
	if (rc == TK_ERR_NOMEM)
		tk_pt_diag(pt, TK_DIAG_ERROR, "out of memory");
	return rc;
}
