/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: what the recorder's modules share.
 *
 * The recorder runs a bare-metal Arm ELF program under the unicorn emulator
 * and writes a Tarmac trace in the Arm Fast Model style.  Modules:
 *   image.c     the ELF program: segments, entry point, architecture guess
 *   memory.c    guest memory, backed by host buffers we can read directly
 *   out.c       buffered trace output with hand-written number formatting
 *   insn.c      decoded-instruction cache: disassembly text, condition kind,
 *               the registers an instruction may write
 *   rstate.c    the register model per architecture and the shadow copy
 *               that register updates are diffed against
 *   trace.c     the unicorn hooks that produce IT/IS, MR/MW and R lines
 *   semihost.c  the Arm semihosting calls
 *   cmd_record.c  the command line and the run
 */
#ifndef TRACEKIT_TOOLS_RECORD_H
#define TRACEKIT_TOOLS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Instruction set state: the Tarmac state letters O, A and T. */
enum rec_isa { REC_ISA_A64, REC_ISA_A32, REC_ISA_T32 };

/* What kind of core runs the program. */
enum rec_profile {
	REC_PROFILE_A64,	/* AArch64 */
	REC_PROFILE_A32,	/* AArch32 A/R-profile: Arm and Thumb */
	REC_PROFILE_M,		/* M-profile: Thumb only */
};

/* ---- image.c ---- */

typedef struct rec_segment {
	uint64_t vaddr, paddr;	/* where it runs / where its bytes load */
	uint64_t filesz, memsz;
	unsigned char *data;	/* filesz bytes */
} rec_segment;

typedef struct rec_image {
	rec_segment *seg;
	int nseg;
	uint64_t entry;		/* bit 0 set: Thumb entry */
	enum rec_profile profile;
	bool thumb_entry;
	int cpu_arch;		/* Tag_CPU_arch, -1 if absent */
	int fp_arch;		/* Tag_FP_arch, 0 if none */
	int simd_arch;		/* Tag_Advanced_SIMD_arch */
} rec_image;

/* Load PATH; on failure writes a message to err and returns non-zero. */
int rec_image_load(const char *path, rec_image *img, char *err, size_t errlen);
void rec_image_free(rec_image *img);

/* ---- memory.c ---- */

typedef struct rec_region {
	uint64_t base, size;
	unsigned char *host;
} rec_region;

#define REC_MAX_REGIONS 32

typedef struct rec_mem {
	rec_region r[REC_MAX_REGIONS];
	int n;
	int last;		/* index of the last region hit */
} rec_mem;

/* Add [base, base+size) (page-rounded, merged with overlapping ranges). */
int rec_mem_add(rec_mem *m, uint64_t base, uint64_t size);
/* Allocate host buffers for the merged ranges. */
int rec_mem_alloc(rec_mem *m);
void rec_mem_free(rec_mem *m);

/* Host pointer for [addr, addr+len) if it lies inside one region. */
static inline unsigned char *rec_mem_ptr(rec_mem *m, uint64_t addr, uint64_t len)
{
	rec_region *r = &m->r[m->last];
	if (addr - r->base < r->size && len <= r->size - (addr - r->base))
		return r->host + (addr - r->base);
	for (int i = 0; i < m->n; i++) {
		r = &m->r[i];
		if (addr - r->base < r->size && len <= r->size - (addr - r->base)) {
			m->last = i;
			return r->host + (addr - r->base);
		}
	}
	return NULL;
}

/* Copy to/from guest memory; non-zero if any byte is unmapped. */
int rec_mem_read(rec_mem *m, uint64_t addr, void *buf, size_t len);
int rec_mem_write(rec_mem *m, uint64_t addr, const void *buf, size_t len);

/* ---- out.c ---- */

typedef struct rec_out {
	FILE *fp;
	char *buf;
	size_t len, cap;
	bool failed;
	/* The "N clk " prefix of the current time, kept as text and
	 * incremented in place. */
	char ts[32];
	int tslen;
	uint64_t count;
	uint64_t written;	/* bytes flushed to fp */
} rec_out;

int rec_out_init(rec_out *o, FILE *fp);
void rec_out_flush(rec_out *o);
void rec_out_free(rec_out *o);
/* Set the time (and instruction index) to n. */
void rec_out_set_time(rec_out *o, uint64_t n);
/* Advance the time by one. */
void rec_out_tick(rec_out *o);

/* Room for n more bytes; returns the write position. */
static inline char *rec_out_room(rec_out *o, size_t n)
{
	if (o->len + n > o->cap)
		rec_out_flush(o);
	return o->buf + o->len;
}

static inline char *rec_put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* rec_put for the short strings of every line, in whole 8-byte words:
 * both s and p must have room for n rounded up to a multiple of 8 (the
 * time prefix, register names, mode text and instruction text are kept
 * so, and every line reserves more output room than it uses). */
static inline char *rec_put_words(char *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i += 8)
		memcpy(p + i, s + i, 8);
	return p + n;
}

/* Two hex digits for each byte value, lower and upper case (filled in by
 * rec_out_init). */
extern char rec_hex_lower[512], rec_hex_upper[512];

/* digits (an even number) hex digits of v, most significant first; hex is
 * rec_hex_lower or rec_hex_upper. */
static inline char *rec_put_hex(char *p, uint64_t v, int digits, const char *hex)
{
	for (int i = digits - 2; i >= 0; i -= 2) {
		memcpy(p + i, hex + 2 * (v & 0xFF), 2);
		v >>= 8;
	}
	return p + digits;
}

char *rec_put_dec(char *p, uint64_t v);

/* ---- insn.c ---- */

/* How an instruction may fail its condition (an IS line). */
enum rec_cond_kind {
	REC_COND_NONE,		/* always executes */
	REC_COND_FIELD,		/* cond in arg (A32 cond, B.cond, Thumb B<c>) */
	REC_COND_CBZ,		/* taken if reg arg is zero (arg2: 64-bit) */
	REC_COND_CBNZ,
	REC_COND_TBZ,		/* taken if bit arg2 of reg arg is zero */
	REC_COND_TBNZ,
};

/* Instruction flags. */
enum {
	REC_INSN_FP = 1 << 0,	/* an FP/vector instruction */
	REC_INSN_IT = 1 << 1,	/* a Thumb IT instruction */
	REC_INSN_ALL = 1 << 3,	/* may write anything: check every register */
	REC_INSN_LINK = 1 << 4,	/* a branch with link: writes lr */
};

#define REC_MAX_SET 32

typedef struct rec_insn {
	struct rec_insn *next;	/* hash chain */
	uint64_t addr;
	uint32_t enc;		/* Thumb-32: first halfword in the top half */
	uint8_t isa, size, flags;
	uint8_t cond_kind, cond_arg, cond_arg2;
	uint8_t nset;		/* the register slots it may write, sorted */
	uint8_t set[REC_MAX_SET];
	uint16_t head_len, tail_len;
	char *head;		/* "0000800c a9bf4ffe " */
	char *tail;		/* " : STP      x30,x19,[sp,#-0x10]!\n" */
} rec_insn;

typedef struct rec_insn_cache rec_insn_cache;

/* m_class: disassemble Thumb as M-profile; dregs: the AArch32 FP D
 * registers the core has. */
rec_insn_cache *rec_insn_cache_new(bool m_class, unsigned dregs);
void rec_insn_cache_free(rec_insn_cache *c);
/* The decoded instruction at addr with these bytes; NULL on out of memory. */
rec_insn *rec_insn_get(rec_insn_cache *c, uint64_t addr, int isa,
		       const unsigned char *bytes, unsigned size);

/* The condition check of an Arm condition code against NZCV (bits 31:28). */
static inline bool rec_cond_holds(unsigned cond, uint32_t nzcv)
{
	bool n = nzcv >> 31 & 1, z = nzcv >> 30 & 1, c = nzcv >> 29 & 1, v = nzcv >> 28 & 1;
	bool r;
	switch (cond >> 1) {
	case 0: r = z; break;
	case 1: r = c; break;
	case 2: r = n; break;
	case 3: r = v; break;
	case 4: r = c && !z; break;
	case 5: r = n == v; break;
	case 6: r = n == v && !z; break;
	default: return true;
	}
	return (cond & 1) && cond != 15 ? !r : r;
}

/* ---- semihost.c ---- */

typedef struct rec_semihost rec_semihost;
struct rec;

rec_semihost *rec_semihost_new(bool allow_fs, bool host_time, bool console_stderr,
			       char **argv, int argc);
void rec_semihost_free(rec_semihost *s);
/* The quote character an argument needs in the semihosting command line
 * (0: none), or -1 if it cannot be passed there at all. */
int rec_semihost_arg_quote(const char *arg);
/* Is this instruction a semihosting trap? */
bool rec_semihost_is_trap(const rec_insn *in);
/* Perform the call in r0/x0 with r1/x1; returns the r0/x0 result.
 * Sets rec->exited / rec->exit_status for SYS_EXIT. */
uint64_t rec_semihost_call(struct rec *r, uint64_t op, uint64_t param);

#endif
