/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: opening an index file and checking it.
 *
 * The file is mapped read-only and checked before any query can see it:
 * magic, format version, header checksum, the recorded file size (a
 * truncated file fails), every section's bounds and checksum, and the
 * consistency of the section sizes with the header.  Queries still decode
 * with bounds checks, so even a file that passes these but lies cannot make
 * them read outside the mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index_impl.h"

static char *dup_n(const void *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

/* Checksum a section of the mapping in pieces, releasing each piece's
 * pages once read: verifying a large index must not make its whole size
 * resident (queries fault back in, from the page cache, what they use). */
void tk_idx_release(const tk_index *idx, const uint8_t *from, const uint8_t *to)
{
	if (!idx->owns_map || to <= from)
		return;
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
	/* The whole page from is in, the page to is in only if it ends there:
	 * giving back a page still in use only costs a fault (the mapping is
	 * read-only), and a walk that gives back [a, b) then [b, c) must not
	 * keep the page between. */
	uintptr_t a = (uintptr_t)from / page * page, b = (uintptr_t)to / page * page;
	if (a < (uintptr_t)idx->map)
		a = (uintptr_t)idx->map;
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

static uint64_t hash_and_release(const tk_index *idx, uint64_t off, uint64_t len)
{
	const size_t piece = 256u << 10;
	tk_hasher h;
	tk_hasher_init(&h);
	const uint8_t *kept = idx->map + off;	/* given back up to here */
	while (len) {
		size_t k = len < piece ? (size_t)len : piece;
		tk_hasher_update(&h, idx->map + off, k);
		off += k;
		len -= k;
		tk_idx_release(idx, kept, idx->map + off);
		/* the partial page at the end goes with the next piece */
		long pg = sysconf(_SC_PAGESIZE);
		uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
		kept = (const uint8_t *)((uintptr_t)(idx->map + off) / page * page);
		if (kept < idx->map)
			kept = idx->map;
	}
	return tk_hasher_final(&h);
}

static int check(tk_index *idx, bool written_here)
{
	const uint8_t *h = idx->map;
	size_t size = idx->map_size;
	if (size < TK_IDX_HEADER_SIZE || memcmp(h, TK_IDX_MAGIC, 8) != 0)
		return TK_ERR_CORRUPT;
	if (tk_get32(h + TK_H_VERSION) != TK_INDEX_FORMAT_VERSION)
		return TK_ERR_FORMAT;
	if (tk_get64(h + TK_IDX_HCSUM_OFF) != tk_idx_hash(h, TK_IDX_HCSUM_OFF))
		return TK_ERR_CORRUPT;
	idx->flags = tk_get32(h + TK_H_FLAGS);
	if (!(idx->flags & TK_HF_COMPLETE) || tk_get64(h + TK_H_FILESIZE) != size ||
	    tk_get32(h + TK_H_HSIZE) != TK_IDX_HEADER_SIZE)
		return TK_ERR_CORRUPT;
	if (tk_get32(h + TK_H_BLOCK_INSNS) != TK_BLOCK_INSNS ||
	    tk_get32(h + TK_H_CHUNK_SIZE) != TK_CHUNK_BYTES ||
	    tk_get32(h + TK_H_PAGE_EVENTS) != TK_PAGE_EVENTS ||
	    tk_get32(h + TK_H_NREGS) != TK_REG_COUNT)
		return TK_ERR_FORMAT;

	const uint8_t *sec[TK_SEC_COUNT_] = {0};
	const uint8_t *input = NULL;
	uint64_t input_len = 0;
	uint64_t len[TK_SEC_COUNT_] = {0};
	uint32_t n = tk_get32(h + TK_H_NSECT);
	if (n > TK_IDX_MAX_SECT)
		return TK_ERR_CORRUPT;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = h + TK_IDX_SECTAB_OFF + i * TK_IDX_SECT_SIZE;
		uint32_t id = tk_get32(e);
		uint64_t off = tk_get64(e + 8), l = tk_get64(e + 16);
		if (off < TK_IDX_HEADER_SIZE || off > size || l > size - off)
			return TK_ERR_CORRUPT;
		/* An index this process has just written was checksummed as it
		 * was written: reading it all back would only read the page
		 * cache. */
		if (!written_here && hash_and_release(idx, off, l) != tk_get64(e + 24))
			return TK_ERR_CORRUPT;
		if (id < TK_SEC_COUNT_) {
			sec[id] = h + off;
			len[id] = l;
		} else if (id == TK_SEC_INPUT) {
			input = h + off;
			input_len = l;
		}
	}
	for (int id = 1; id < TK_SEC_COUNT_; id++)
		if (!sec[id])
			return TK_ERR_CORRUPT;

	idx->trace_size = tk_get64(h + TK_H_TRACE_SIZE);
	idx->trace_mtime_ns = tk_get64(h + TK_H_TRACE_MTIME);
	idx->trace_ctime_ns = tk_get64(h + TK_H_TRACE_CTIME);
	idx->text_size = idx->trace_size;
	if (input && tk_idx_input_read(idx, input, input_len))
		return TK_ERR_CORRUPT;
	idx->build_ms = tk_get64(h + TK_H_BUILD_MS);
	idx->lines = tk_get64(h + TK_H_LINES);
	idx->ninsn = tk_get64(h + TK_H_INSNS);
	idx->ncalls_hdr = tk_get64(h + TK_H_CALLS);
	idx->reg_updates = tk_get64(h + TK_H_REG_UPDATES);
	idx->mem_accesses = tk_get64(h + TK_H_MEM_ACCESSES);
	idx->mem_touched = tk_get64(h + TK_H_MEM_TOUCHED);
	idx->mem_known = tk_get64(h + TK_H_MEM_KNOWN);
	idx->semihost = tk_get64(h + TK_H_SEMIHOST);
	for (int i = 0; i < 3; i++)
		idx->regseen[i] = tk_get64(h + TK_H_REGSEEN + 8 * i);
	idx->block_insns = TK_BLOCK_INSNS;

	idx->blocks = sec[TK_SEC_BLOCKS];
	idx->blocks_len = len[TK_SEC_BLOCKS];
	idx->dir = sec[TK_SEC_BLOCKDIR];
	idx->nblocks = len[TK_SEC_BLOCKDIR] / TK_DIR_SIZE;
	idx->bloom = sec[TK_SEC_PCBLOOM];
	idx->memdata = sec[TK_SEC_MEMDATA];
	idx->memdata_len = len[TK_SEC_MEMDATA];
	idx->pagehdr = sec[TK_SEC_PAGEHDR];
	idx->npages = len[TK_SEC_PAGEHDR] / TK_PAGE_SIZE;
	idx->chunkdir = sec[TK_SEC_CHUNKDIR];
	idx->nchunks = len[TK_SEC_CHUNKDIR] / TK_CH_ENTRY;
	if (len[TK_SEC_BLOCKDIR] % TK_DIR_SIZE || len[TK_SEC_PAGEHDR] % TK_PAGE_SIZE ||
	    len[TK_SEC_CHUNKDIR] % TK_CH_ENTRY ||
	    len[TK_SEC_PCBLOOM] != idx->nblocks * TK_BLOOM_BYTES ||
	    idx->nblocks != (idx->ninsn + TK_BLOCK_INSNS - 1) / TK_BLOCK_INSNS)
		return TK_ERR_CORRUPT;
	/* Every block but the last is full; blocks lie inside BLOCKS. */
	for (uint64_t b = 0; b < idx->nblocks; b++) {
		const uint8_t *d = tk_idx_dirent(idx, b);
		uint64_t want = b + 1 < idx->nblocks ? TK_BLOCK_INSNS
						      : idx->ninsn - b * TK_BLOCK_INSNS;
		uint64_t off = tk_get64(d + TK_DIR_DATA);
		uint64_t l = (uint64_t)tk_get32(d + TK_DIR_POSLEN) + tk_get32(d + TK_DIR_CKPTLEN) +
			     tk_get32(d + TK_DIR_LOGLEN);
		if (tk_get32(d + TK_DIR_NINSN) != want || off > idx->blocks_len ||
		    l > idx->blocks_len - off)
			return TK_ERR_CORRUPT;
		if (b % 2048 == 2047)	/* a directory read through is given back */
			tk_idx_release(idx, idx->dir, d);
	}
	for (uint64_t c = 0; c < idx->nchunks; c++) {
		const uint8_t *e = tk_idx_chunk(idx, c);
		uint64_t first = tk_get64(e + TK_CH_FIRSTPAGE), np = tk_get32(e + TK_CH_NPAGES);
		if (!np || first > idx->npages || np > idx->npages - first ||
		    (tk_get64(e + TK_CH_ADDR) & (TK_CHUNK_BYTES - 1)) ||
		    (c && tk_get64(e + TK_CH_ADDR) <= tk_get64(e - TK_CH_ENTRY + TK_CH_ADDR)))
			return TK_ERR_CORRUPT;
		if (c % 8192 == 8191)
			tk_idx_release(idx, idx->chunkdir, e - TK_CH_ENTRY);
	}
	for (uint64_t pg = 0; pg < idx->npages; pg++) {
		const uint8_t *p = tk_idx_page(idx, pg);
		uint64_t off = tk_get64(p + TK_PG_BODY), l = tk_get32(p + TK_PG_BODYLEN);
		if (off > idx->memdata_len || l > idx->memdata_len - off)
			return TK_ERR_CORRUPT;
		if (pg % 4096 == 4095)
			tk_idx_release(idx, idx->pagehdr, p);
	}
	/* The directories were read through: give their pages back (and
	 * whatever the checksums mapped beyond their ranges). */
	tk_idx_release(idx, idx->map, idx->map + size);
	idx->caps = tk_get32(h + TK_H_CAPS);
	idx->time_unit = tk_get32(h + TK_H_TIME_UNIT);
	idx->isa = tk_get32(h + TK_H_ISA);
	idx->fingerprint = tk_get64(h + TK_H_FINGERPRINT);
	idx->trace_path = dup_n(sec[TK_SEC_TRACEPATH], len[TK_SEC_TRACEPATH]);
	if (!idx->trace_path)
		return TK_ERR_NOMEM;
	/* format NUL options NUL context-name NUL, then (path NUL bias) per image */
	const char *sp = (const char *)sec[TK_SEC_SOURCE], *se = sp + len[TK_SEC_SOURCE];
	char **fields[3] = {&idx->format, &idx->options, &idx->context_name};
	for (int f = 0; f < 3; f++) {
		const char *z = memchr(sp, 0, (size_t)(se - sp));
		if (!z)
			return TK_ERR_CORRUPT;
		if (!(*fields[f] = dup_n(sp, (size_t)(z - sp))))
			return TK_ERR_NOMEM;
		sp = z + 1;
	}
	while (sp < se) {
		const char *z = memchr(sp, 0, (size_t)(se - sp));
		if (!z || se - z - 1 < 8)
			return TK_ERR_CORRUPT;
		tk_source_image *im = realloc(idx->images, (idx->nimages + 1) * sizeof *im);
		if (!im)
			return TK_ERR_NOMEM;
		idx->images = im;
		im[idx->nimages].bias = tk_get64((const uint8_t *)z + 1);
		if (!(im[idx->nimages].path = dup_n(sp, (size_t)(z - sp))))
			return TK_ERR_NOMEM;
		idx->nimages++;
		sp = z + 9;
	}
	int err = tk_idx_names_decode(idx, sec[TK_SEC_NAMES], len[TK_SEC_NAMES]);
	if (err)
		return err;
	return tk_idx_calls_decode(idx, sec[TK_SEC_CALLS], len[TK_SEC_CALLS], sec[TK_SEC_CALLDIR],
				   len[TK_SEC_CALLDIR]);
}

/* Load from an open descriptor (closed here in all cases); written_here:
 * the builder's descriptor of the index it has just written. */
int tk_idx_load_fd(int fd, const char *path, bool written_here, tk_index **out)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return TK_ERR_IO;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return TK_ERR_ISDIR;
	}
	tk_index *idx = calloc(1, sizeof *idx);
	if (!idx) {
		close(fd);
		return TK_ERR_NOMEM;
	}
	idx->path = dup_n(path, strlen(path));
	if (!idx->path) {
		close(fd);
		free(idx);
		return TK_ERR_NOMEM;
	}
	idx->map_size = (size_t)st.st_size;
	if (idx->map_size >= TK_IDX_HEADER_SIZE) {
		void *m = mmap(NULL, idx->map_size, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			close(fd);
			tk_index_free(idx);
			return TK_ERR_IO;
		}
		idx->map = m;
		idx->owns_map = true;
	}
	close(fd);
	int err = check(idx, written_here);
	if (err) {
		tk_index_free(idx);
		return err;
	}
	*out = idx;
	return 0;
}

int tk_index_load(const char *index_path, tk_index **out)
{
	if (!index_path || !out)
		return TK_ERR_INVAL;
	int fd = open(index_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == EISDIR ? TK_ERR_ISDIR : TK_ERR_OPEN;
	return tk_idx_load_fd(fd, index_path, false, out);
}

void tk_index_free(tk_index *idx)
{
	if (!idx)
		return;
	if (idx->owns_map && idx->map)
		munmap((void *)idx->map, idx->map_size);
	free(idx->roots);
	free(idx->root_nodes);
	free(idx->trace_path);
	free(idx->format);
	free(idx->options);
	free(idx->context_name);
	for (size_t i = 0; i < idx->nimages; i++)
		free((char *)idx->images[i].path);
	free(idx->images);
	for (size_t i = 0; i < idx->nnames; i++)
		free(idx->names[i]);
	free(idx->names);
	free(idx->name_addrs);
	free(idx->path);
	free(idx);
}

void tk_index_trim(const tk_index *idx)
{
	tk_idx_release(idx, idx->map, idx->map + idx->map_size);
}

const char *tk_index_path(const tk_index *idx)
{
	return idx->path;
}

const char *tk_index_trace_path(const tk_index *idx)
{
	return idx->trace_path;
}

uint64_t tk_index_count(const tk_index *idx)
{
	return idx->ninsn;
}

bool tk_index_reg_seen(const tk_index *idx, tk_reg reg)
{
	return reg < TK_REG_COUNT && (idx->regseen[reg >> 6] >> (reg & 63) & 1);
}

int tk_index_get_info(const tk_index *idx, tk_index_info *info)
{
	if (!info || info->size < sizeof *info)
		return TK_ERR_INVAL;
	size_t sz = info->size;
	memset(info, 0, sizeof *info);
	info->size = sz;
	info->version = TK_INDEX_FORMAT_VERSION;
	info->file_size = idx->map_size;
	info->trace_size = idx->trace_size;
	info->lines = idx->lines;
	info->instructions = idx->ninsn;
	info->calls = idx->ncalls - idx->nroots;
	info->reg_updates = idx->reg_updates;
	info->mem_accesses = idx->mem_accesses;
	for (int i = 0; i < 3; i++)
		info->regs_seen += (uint32_t)__builtin_popcountll(idx->regseen[i]);
	info->mem_bytes_touched = idx->mem_touched;
	info->mem_bytes_known = idx->mem_known;
	info->semihosting_calls = idx->semihost;
	info->trace_format = (tk_input_format)idx->input_format;
	info->text_size = idx->text_size;
	info->build_ms = idx->build_ms;
	info->big_endian = idx->flags & TK_HF_BIG_ENDIAN;
	info->format = idx->format;
	info->options = idx->options;
	info->context_name = idx->context_name;
	info->caps = idx->caps;
	info->time_unit = (tk_time_unit)idx->time_unit;
	info->isa = (tk_isa)idx->isa;
	info->func_steps = idx->flags & TK_HF_FUNC_STEPS;
	info->contexts = idx->nroots;
	info->images = idx->images;
	info->nimages = idx->nimages;
	return 0;
}

void tk_index_opts_init(tk_index_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->size = sizeof *opts;
	opts->mode = TK_INDEX_AUTO;
}
