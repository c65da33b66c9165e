/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the index file's layout and the reader's state, shared
 * by the index modules (index_*.c).  docs/INDEX-FORMAT.md describes the
 * format in prose; the constants here are the authority.
 *
 * Every multi-byte field is little-endian and written byte by byte (no
 * struct is ever dumped), so the file reads the same on any host.
 */
#ifndef TRACEKIT_INDEX_IMPL_H
#define TRACEKIT_INDEX_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/index.h"

/* ---- File layout ---- */

#define TK_IDX_MAGIC "TKIDX\r\n\032"	/* 8 bytes; \r\n catches text-mode mangling */
#define TK_IDX_HEADER_SIZE 1024
#define TK_IDX_SECTAB_OFF 256		/* section table inside the header */
#define TK_IDX_SECT_SIZE 32		/* bytes per section table entry */
#define TK_IDX_MAX_SECT 16
#define TK_IDX_HCSUM_OFF (TK_IDX_HEADER_SIZE - 8)	/* header checksum */

/* Header field offsets. */
enum {
	TK_H_MAGIC = 0,
	TK_H_VERSION = 8,	/* u32 */
	TK_H_HSIZE = 12,	/* u32 */
	TK_H_FILESIZE = 16,	/* u64 */
	TK_H_FLAGS = 24,	/* u32 */
	TK_H_NSECT = 28,	/* u32 */
	TK_H_TRACE_SIZE = 32,
	TK_H_TRACE_MTIME = 40,	/* ns since the epoch */
	TK_H_BUILD_MS = 48,
	TK_H_LINES = 56,
	TK_H_INSNS = 64,
	TK_H_CALLS = 72,
	TK_H_REG_UPDATES = 80,
	TK_H_MEM_ACCESSES = 88,
	TK_H_MEM_TOUCHED = 96,
	TK_H_MEM_KNOWN = 104,
	TK_H_SEMIHOST = 112,
	TK_H_REGSEEN = 120,	/* 3 x u64: bitmap of canonical registers */
	TK_H_BLOCK_INSNS = 144,	/* u32: K */
	TK_H_CHUNK_SIZE = 148,	/* u32: 64 */
	TK_H_PAGE_EVENTS = 152,	/* u32: M */
	TK_H_NREGS = 156,	/* u32: TK_REG_COUNT when built */
	TK_H_TRACE_CTIME = 160,	/* u64: status change time of the trace, ns (v2) */
	TK_H_CAPS = 168,	/* u32: the source's TK_CAP_* (v3) */
	TK_H_TIME_UNIT = 172,	/* u32: tk_time_unit (v3) */
	TK_H_ISA = 176,		/* u32: the source's main tk_isa (v3) */
	TK_H_FINGERPRINT = 184,	/* u64: hash of the trace's first and last 64 KiB (v3) */
};

enum {
	TK_HF_BIG_ENDIAN = 1u << 0,
	TK_HF_RESERVED1 = 1u << 1,	/* v2: --implicit-thumb (now in SOURCE) */
	TK_HF_COMPLETE = 1u << 2,
	TK_HF_FUNC_STEPS = 1u << 3,	/* positions are function events */
};

/* Section ids. */
enum {
	TK_SEC_TRACEPATH = 1,	/* the trace path, bytes, no NUL */
	TK_SEC_BLOCKS = 2,	/* per block: positions, reg checkpoint, reg log */
	TK_SEC_BLOCKDIR = 3,	/* TK_DIR_SIZE bytes per block */
	TK_SEC_PCBLOOM = 4,	/* TK_BLOOM_BYTES per block */
	TK_SEC_MEMDATA = 5,	/* page bodies */
	TK_SEC_PAGEHDR = 6,	/* TK_PAGE_SIZE bytes per page */
	TK_SEC_CHUNKDIR = 7,	/* TK_CHUNK_ENTRY bytes per chunk */
	TK_SEC_CALLS = 8,	/* the call tree */
	TK_SEC_SOURCE = 9,	/* format, NUL, options, NUL, context name (v3) */
	TK_SEC_NAMES = 10,	/* function names the trace gives (v3) */
	TK_SEC_CALLDIR = 11,	/* per group of calls: offset, first entry (v4) */
	TK_SEC_COUNT_ = 12,
	/* Optional sections (ids from 256; a reader ignores those it does not
	 * know). */
	TK_SEC_INPUT = 256,	/* a compressed trace (index_input.c) */
};

/* The call tree: CALLS starts with u64 nodes, u32 roots, u32 group size;
 * nodes are delta-coded in groups of TK_CALL_GROUP, and CALLDIR holds per
 * group a u64 offset (in CALLS) and the u64 entry position of its first
 * node. */
#define TK_CALL_GROUP 32
#define TK_CALLS_HEADER 16
#define TK_CALLDIR_ENTRY 16

/* Instructions per block (register checkpoint interval). */
#define TK_BLOCK_INSNS 512

/* Block directory entry. */
enum {
	TK_DIR_DATA = 0,	/* u64 offset of the block in BLOCKS */
	TK_DIR_POSLEN = 8,	/* u32 bytes of the position records */
	TK_DIR_CKPTLEN = 12,	/* u32 bytes of the register checkpoint */
	TK_DIR_LOGLEN = 16,	/* u32 bytes of the register log */
	TK_DIR_NINSN = 20,	/* u32 */
	TK_DIR_LINE = 24,	/* u64 line of the first instruction */
	TK_DIR_OFFSET = 32,	/* u64 byte offset of that line */
	TK_DIR_TIME = 40,	/* u64 its time */
	TK_DIR_MAXTIME = 48,	/* u64 largest time in blocks 0..this */
	TK_DIR_REGMASK = 56,	/* 3 x u64: registers written in the block */
	TK_DIR_SIZE = 80
};

#define TK_BLOOM_BYTES 128	/* 1024-bit pc filter per block, 2 probes */

/* Memory: 64-byte chunks, pages of at most M events. */
#define TK_CHUNK_SHIFT 6
#define TK_CHUNK_BYTES 64
#define TK_PAGE_EVENTS 32

/* Page header. */
enum {
	TK_PG_FIRSTPOS = 0,	/* u64 position of the first event */
	TK_PG_BODY = 8,		/* u64 offset of the body in MEMDATA */
	TK_PG_KNOWN = 16,	/* u64 bytes known before the page */
	TK_PG_WMASK = 24,	/* u64 bytes written by the page's events */
	TK_PG_NEVENTS = 32,	/* u32 */
	TK_PG_BODYLEN = 36,	/* u32 */
	TK_PAGE_SIZE = 40
};

/* Chunk directory entry. */
enum {
	TK_CH_ADDR = 0,		/* u64 chunk address (multiple of 64) */
	TK_CH_FIRSTPAGE = 8,	/* u64 index of its first page header */
	TK_CH_NPAGES = 16,	/* u32 */
	TK_CH_ENTRY = 24
};

/* Memory event kinds (top two bits of the kind/offset byte). */
enum {
	TK_MK_WRITE = 0,	/* value written (or changed, seen by a read) */
	TK_MK_UNKNOWN = 1,	/* made unknown (semihosting, "##" write) */
	TK_MK_FILL = 2,		/* back-dated value revealed by a later read */
};

/* Position record flags byte. */
enum {
	TK_PF_ISA_MASK = 0x07,
	TK_PF_EXECUTED = 0x08,
	TK_PF_WIDTH_SHIFT = 4,	/* 2 bits: 0 none, 1 = 2, 2 = 4, 3 = a byte follows */
	TK_PF_ENCODING = 0x40,	/* the encoding follows, as a varint (width bytes) */
	TK_PF_EXT = 0x80,	/* an extension byte follows (TK_PX_*) */
};

/* Position record extension byte (v3). */
enum {
	TK_PX_KIND_MASK = 0x03,	/* step: 0 instruction, 1 call event, 2 return event */
	TK_PX_CONTEXT = 0x04,	/* the context (varint) follows: it differs from the
				 * previous record's (0 before a block's first) */
	TK_PX_BRANCH_SHIFT = 3,	/* 3 bits: tk_branch */
	TK_PX_BRANCH_MASK = 0x38,
	TK_PX_RAWBYTES = 0x40,	/* instead of the varint: a count byte and the
				 * encoding's bytes (tk_insn.bytes) */
};

/* Register log record flags. */
enum {
	TK_RF_ALLSET = 1,	/* every byte of the view set: no state bytes */
	TK_RF_VARINT = 2,	/* value (<= 8 bytes, all set) as a varint */
};

/* ---- Little-endian and varint helpers ---- */

static inline uint16_t tk_get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t tk_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t tk_get64(const uint8_t *p)
{
	return (uint64_t)tk_get32(p) | (uint64_t)tk_get32(p + 4) << 32;
}
static inline void tk_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void tk_put64(uint8_t *p, uint64_t v)
{
	tk_put32(p, (uint32_t)v);
	tk_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint64_t tk_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t tk_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Append a LEB128 varint; returns bytes written (at most 10). */
static inline size_t tk_putv(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* A bounds-checked reader over a byte range: reads past the end set err
 * and return 0, so decoders check once at the end. */
typedef struct tk_rd {
	const uint8_t *p, *end;
	bool err;
} tk_rd;

static inline uint64_t tk_rdv(tk_rd *r)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->err = true;
			return 0;
		}
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->err = true;
	return 0;
}

static inline uint8_t tk_rdb(tk_rd *r)
{
	if (r->p >= r->end) {
		r->err = true;
		return 0;
	}
	return *r->p++;
}

/* Pointer to n bytes, or NULL (and err) if fewer remain. */
static inline const uint8_t *tk_rdn(tk_rd *r, size_t n)
{
	if ((size_t)(r->end - r->p) < n) {
		r->err = true;
		r->p = r->end;
		return NULL;
	}
	const uint8_t *q = r->p;
	r->p += n;
	return q;
}

/* The file checksum: a 64-bit hash over 32-byte stripes (index_hash.c),
 * in one go or in pieces. */
uint64_t tk_idx_hash(const uint8_t *p, size_t n);

typedef struct tk_hasher {
	uint64_t a, b, c, d, total;
	uint8_t buf[32];
	size_t nbuf;
} tk_hasher;

void tk_hasher_init(tk_hasher *h);
void tk_hasher_update(tk_hasher *h, const uint8_t *p, size_t n);
uint64_t tk_hasher_final(const tk_hasher *h);

/* Bloom probes for a pc. */
static inline void tk_bloom_bits(uint64_t pc, unsigned *a, unsigned *b)
{
	uint64_t h = pc * 0x9e3779b97f4a7c15ull;
	*a = (unsigned)(h >> 54);
	*b = (unsigned)(h >> 44) & 1023;
}

/* ---- The reader ---- */

struct tk_index {
	char *path;
	char *trace_path;
	const uint8_t *map;	/* the whole file, mmapped read-only */
	size_t map_size;
	bool owns_map;

	uint32_t flags;
	uint64_t trace_size, trace_mtime_ns, trace_ctime_ns, build_ms, lines, ninsn;
	uint64_t ncalls_hdr, reg_updates, mem_accesses, mem_touched, mem_known;
	uint64_t semihost;
	uint64_t regseen[3];
	uint32_t block_insns;
	uint32_t caps, time_unit, isa;
	uint64_t fingerprint;
	char *format, *options, *context_name;	/* from SOURCE */
	tk_source_image *images;		/* likewise (paths owned) */
	size_t nimages;
	uint64_t *name_addrs;	/* from NAMES, sorted */
	char **names;
	size_t nnames;
	uint64_t text_size;	/* bytes of (decompressed) text: trace_size
				 * unless the INPUT section says otherwise */
	uint32_t input_format;	/* tk_input_format of the trace */

	const uint8_t *blocks;
	uint64_t blocks_len;
	const uint8_t *dir;
	uint64_t nblocks;
	const uint8_t *bloom;
	const uint8_t *memdata;
	uint64_t memdata_len;
	const uint8_t *pagehdr;
	uint64_t npages;
	const uint8_t *chunkdir;
	uint64_t nchunks;

	/* the call tree, read in place (index_calls.c) */
	const uint8_t *calls, *calldir;
	uint64_t calls_len;
	uint32_t ncalls, nroots;
	tk_call *roots;		/* decoded at load: one per context */
	uint32_t *root_nodes;	/* their node numbers */
};

/* Give back the mapped pages inside [from, to) (read through once: a long
 * walk must not make the file resident).  Queries fault them back in. */
void tk_idx_release(const tk_index *idx, const uint8_t *from, const uint8_t *to);

/* Load from an open descriptor (closed in all cases); as tk_index_load. */
int tk_idx_load_fd(int fd, const char *path, bool written_here, tk_index **out);

/* One decoded position record. */
typedef struct tk_posrec {
	uint64_t line, offset, time, pc;
	uint32_t context;
	uint8_t isa, width, kind, branch, nbytes;
	bool executed;
	uint8_t bytes[TK_INSN_MAX_BYTES];
} tk_posrec;

/* The step kind of a position record: TK_EV_INSN, TK_EV_CALL, TK_EV_RETURN. */
static inline tk_event_kind tk_posrec_kind(const tk_posrec *p)
{
	return p->kind == 1 ? TK_EV_CALL : p->kind == 2 ? TK_EV_RETURN : TK_EV_INSN;
}

/* Decode the position records of block b into recs (up to
 * TK_BLOCK_INSNS).  Returns the count, or TK_ERR_CORRUPT. */
int tk_idx_block_positions(const tk_index *idx, uint64_t b, tk_posrec *recs);

static inline const uint8_t *tk_idx_dirent(const tk_index *idx, uint64_t b)
{
	return idx->dir + b * TK_DIR_SIZE;
}

/* The register log of block b, as a reader; and the checkpoint. */
int tk_idx_block_log(const tk_index *idx, uint64_t b, tk_rd *log);
int tk_idx_block_ckpt(const tk_index *idx, uint64_t b, tk_rd *ck);

/* One register log record. */
typedef struct tk_regrec {
	uint64_t pos;
	tk_reg reg;
	uint16_t off, len;
	const uint8_t *state;	/* NULL if all set; else packed 2-bit states */
	uint8_t value[TK_REG_MAX_BYTES];	/* only the set bytes are meaningful */
} tk_regrec;

/* Read the next record (r->pos carries the running position; start it at
 * the block's first position).  Returns 1, 0 at the end, TK_ERR_CORRUPT. */
int tk_idx_next_regrec(tk_rd *log, tk_regrec *r);

/* State of byte i of a record (TK_BYTE_SET / UNKNOWN / NONE). */
static inline unsigned tk_regrec_state(const tk_regrec *r, unsigned i)
{
	if (!r->state)
		return TK_BYTE_SET;
	return (r->state[i >> 2] >> ((i & 3) * 2)) & 3;
}

/* Byte offset of each canonical register in a flat register file. */
unsigned tk_idx_reg_base(tk_reg reg);
#define TK_IDX_REGFILE_BYTES tk_idx_regfile_bytes()
unsigned tk_idx_regfile_bytes(void);

/* Memory: chunk lookup and page replay (index_mem.c). */
typedef struct tk_chunkstate {
	uint8_t value[TK_CHUNK_BYTES];
	uint64_t known;		/* bit i: byte i known */
} tk_chunkstate;

/* Index of the first chunk whose address is >= addr (nchunks if none). */
uint64_t tk_idx_chunk_lower(const tk_index *idx, uint64_t addr);

static inline const uint8_t *tk_idx_chunk(const tk_index *idx, uint64_t c)
{
	return idx->chunkdir + c * TK_CH_ENTRY;
}

static inline const uint8_t *tk_idx_page(const tk_index *idx, uint64_t pg)
{
	return idx->pagehdr + pg * TK_PAGE_SIZE;
}

/* In chunk c's pages, the index (absolute) of the last page whose first
 * position is <= pos; false if there is none. */
bool tk_idx_page_at(const tk_index *idx, uint64_t c, uint64_t pos, uint64_t *page);

/* One memory event. */
typedef struct tk_memrec {
	uint64_t pos;
	unsigned kind, off, len;
	const uint8_t *data;	/* len bytes for WRITE and FILL */
} tk_memrec;

/* Open page pg's body: fills *st with the state before it (if st is not
 * NULL), positions r at its first event and m->pos at the page's first
 * position.  Returns 0 or TK_ERR_CORRUPT. */
int tk_idx_page_open(const tk_index *idx, uint64_t pg, tk_chunkstate *st, tk_rd *r,
		     tk_memrec *m);
/* The next event: 1, 0 at the end of the page, or TK_ERR_CORRUPT. */
int tk_idx_page_next(tk_rd *r, tk_memrec *m);

/* Apply an event to a chunk state. */
void tk_idx_chunk_apply(tk_chunkstate *st, const tk_memrec *m);

static inline uint64_t tk_mask_range(unsigned off, unsigned len)
{
	return len >= 64 ? ~0ull : ((1ull << len) - 1) << off;
}

/* The trace's content fingerprint: a hash of its size and of its first and
 * last 64 KiB (index_hash.c).  Errors: TK_ERR_OPEN, TK_ERR_IO. */
int tk_idx_fingerprint(const char *trace_path, uint64_t *out);

/* The NAMES section: write the map's entries; decode into idx
 * (index_names.c). */
typedef struct tk_ixw tk_ixw;
typedef struct tk_namemap tk_namemap;
int tk_idx_names_write(tk_ixw *w, const tk_namemap *m);
int tk_idx_names_decode(tk_index *idx, const uint8_t *p, uint64_t len);

/* The call tree sections (index_calls.c): check the header and the
 * directory, decode the roots. */
int tk_idx_calls_decode(tk_index *idx, const uint8_t *p, uint64_t len, const uint8_t *dir,
			uint64_t dirlen);

/* The INPUT section of a compressed trace (index_input.c). */
int tk_idx_input_read(tk_index *idx, const uint8_t *p, uint64_t len);

#endif
