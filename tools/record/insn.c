/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: the decoded-instruction cache.
 *
 * Each instruction address is decoded once: the fixed text of its trace line
 * (address, encoding, capstone disassembly in the Fast Model layout), how it
 * can fail its condition, and which registers it may write.  A cached entry
 * is checked against the bytes in memory on every use, so self-modifying
 * code is decoded again.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#ifdef TK_HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif

#include "record.h"
#include "rstate.h"

struct rec_insn_cache {
	rec_insn **bucket;
	size_t nbucket, count;
	unsigned dregs;		/* AArch32 FP D registers that exist */
#ifdef TK_HAVE_CAPSTONE
	csh cs[3];		/* per rec_isa */
	bool cs_ok[3];
	cs_insn *ci[3];
#endif
};

rec_insn_cache *rec_insn_cache_new(bool m_class, unsigned dregs)
{
	rec_insn_cache *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->dregs = dregs;
	c->nbucket = 1 << 14;
	c->bucket = calloc(c->nbucket, sizeof *c->bucket);
	if (!c->bucket) {
		free(c);
		return NULL;
	}
#ifdef TK_HAVE_CAPSTONE
	static const cs_arch arch[3] = {CS_ARCH_ARM64, CS_ARCH_ARM, CS_ARCH_ARM};
	cs_mode mode[3] = {CS_MODE_ARM, CS_MODE_ARM | CS_MODE_V8,
			   CS_MODE_THUMB | CS_MODE_V8 | (m_class ? CS_MODE_MCLASS : 0)};
	for (int i = 0; i < 3; i++) {
		c->cs_ok[i] = cs_open(arch[i], mode[i], &c->cs[i]) == CS_ERR_OK;
		if (c->cs_ok[i]) {
			c->ci[i] = cs_malloc(c->cs[i]);
			if (!c->ci[i]) {
				cs_close(&c->cs[i]);
				c->cs_ok[i] = false;
			}
		}
	}
#else
	(void)m_class;
#endif
	return c;
}

void rec_insn_cache_free(rec_insn_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nbucket; i++)
		for (rec_insn *in = c->bucket[i], *next; in; in = next) {
			next = in->next;
			free(in);
		}
	free(c->bucket);
#ifdef TK_HAVE_CAPSTONE
	for (int i = 0; i < 3; i++)
		if (c->cs_ok[i]) {
			cs_free(c->ci[i], 1);
			cs_close(&c->cs[i]);
		}
#endif
	free(c);
}

static inline size_t hash(uint64_t addr, int isa, size_t nbucket)
{
	uint64_t k = (addr >> 1) ^ ((uint64_t)isa << 60);
	return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & (nbucket - 1);
}

static void grow(rec_insn_cache *c)
{
	size_t n = c->nbucket * 4;
	rec_insn **b = calloc(n, sizeof *b);
	if (!b)
		return;		/* keep the longer chains */
	for (size_t i = 0; i < c->nbucket; i++)
		for (rec_insn *in = c->bucket[i], *next; in; in = next) {
			next = in->next;
			size_t h = hash(in->addr, in->isa, n);
			in->next = b[h];
			b[h] = in;
		}
	free(c->bucket);
	c->bucket = b;
	c->nbucket = n;
}

#ifdef TK_HAVE_CAPSTONE
/* "MNEMONIC operands" in the Fast Model layout: the mnemonic upper case and
 * padded to 9 columns, no space after the commas. */
static size_t format_text(char *dst, size_t cap, const char *mnem, const char *ops)
{
	size_t n = 0;
	for (const char *s = mnem; *s && n + 1 < cap; s++)
		dst[n++] = (char)toupper((unsigned char)*s);
	if (*ops) {
		do
			dst[n++] = ' ';
		while (n < 9 && n + 1 < cap);
	}
	for (const char *s = ops; *s && n + 1 < cap; s++) {
		if (*s == ' ' && s > ops && s[-1] == ',')
			continue;
		dst[n++] = *s;
	}
	dst[n] = 0;
	return n;
}
#endif

static void add_slot(rec_insn *in, int slot)
{
	for (int i = 0; i < in->nset; i++)
		if (in->set[i] == slot)
			return;
	if (in->nset < REC_MAX_SET)
		in->set[in->nset++] = (uint8_t)slot;
	else
		in->flags |= REC_INSN_ALL;
}

/* A64: every register operand sits in one of the 5-bit fields at bits 0,
 * 5, 10 and 16 (plus Rs+1 for CASP), and the encoding class says which of
 * them can be written, so only those registers (with sp and the flags) are
 * read back after the instruction. */
static void analyse_a64(rec_insn *in)
{
	uint32_t e = in->enc;
	if ((e & 0xFF000010) == 0x54000000 && (e & 0xE) != 0xE) {
		in->cond_kind = REC_COND_FIELD;
		in->cond_arg = e & 0xF;
	} else if ((e & 0x7E000000) == 0x34000000) {
		in->cond_kind = (e >> 24 & 1) ? REC_COND_CBNZ : REC_COND_CBZ;
		in->cond_arg = e & 31;
		in->cond_arg2 = e >> 31;
	} else if ((e & 0x7E000000) == 0x36000000) {
		in->cond_kind = (e >> 24 & 1) ? REC_COND_TBNZ : REC_COND_TBZ;
		in->cond_arg = e & 31;
		in->cond_arg2 = (uint8_t)((e >> 31) << 5 | (e >> 19 & 31));
	}
	if ((e & 0xFC000000) == 0x94000000 || (e & 0xFEFFF000) == 0xD63F0000)
		in->flags |= REC_INSN_LINK;	/* BL, BLR (and BLRAA...) */
	unsigned f0 = e & 31, f5 = e >> 5 & 31, f10 = e >> 10 & 31, f16 = e >> 16 & 31;
	unsigned op0 = e >> 25 & 15;	/* bits 28:25 */
	add_slot(in, A64_SP);
	add_slot(in, A64_PSR);
	if ((op0 & 0xE) == 0x8 || (op0 & 0x7) == 0x5) {
		/* Data processing, immediate or register: Rd. */
		if (f0 != 31)
			add_slot(in, A64_X0 + (int)f0);
	} else if ((op0 & 0xE) == 0xA) {
		/* Branches (x30), exceptions, system (MRS Rt, FPCR/FPSR). */
		add_slot(in, A64_X0 + 30);
		if (f0 != 31)
			add_slot(in, A64_X0 + (int)f0);
		if ((e & 0xFFC00000) == 0xD5000000) {	/* MSR, MRS, SYS */
			add_slot(in, A64_FPSR);
			add_slot(in, A64_FPCR);
		}
	} else if ((op0 & 0x7) == 0x7) {
		/* Scalar FP and Advanced SIMD: Vd, or Rd, and FPSR. */
		in->flags |= REC_INSN_FP;
		if (f0 != 31)
			add_slot(in, A64_X0 + (int)f0);
		add_slot(in, A64_Q0 + (int)f0);
		add_slot(in, A64_FPSR);
	} else if ((op0 & 0x5) == 0x4) {
		/* Loads and stores: Rt, Rt2, the base (writeback), Rs and
		 * Rs+1 (exclusives, CAS, CASP); with V set, Vt..Vt+3 and Vt2. */
		unsigned fields[5] = {f0, f5, f10, f16, (f16 + 1) & 31};
		for (int i = 0; i < 5; i++)
			if (fields[i] != 31)
				add_slot(in, A64_X0 + (int)fields[i]);
		if (e & 0x04000000) {
			in->flags |= REC_INSN_FP;
			for (unsigned k = 0; k < 4; k++)
				add_slot(in, A64_Q0 + (int)((f0 + k) & 31));
			add_slot(in, A64_Q0 + (int)f10);
		}
	} else {
		/* SVE, SME or unallocated: check everything. */
		in->flags |= REC_INSN_ALL;
	}
}

/* An AArch32 core register an instruction may write (r15 is not
 * reported: the IT lines show where execution goes). */
static void add_r(rec_insn *in, unsigned n)
{
	if (n < 15)
		add_slot(in, A32_R0 + (int)n);
}

static void add_list(rec_insn *in, unsigned list)
{
	for (unsigned n = 0; n < 15; n++)
		if (list >> n & 1)
			add_r(in, n);
}

/* An AArch32 FP register an instruction may write, if the core has it. */
static void add_d(rec_insn *in, unsigned n, unsigned dregs)
{
	if (n < dregs)
		add_slot(in, A32_D0 + (int)n);
}

/* The D registers a VFP or Advanced SIMD instruction may write, from bits
 * 27:0 of its encoding (laid out alike in A32 and T32): every register
 * field read as a D register, as the low half of a Q register and as an S
 * register's D register, and the ranges of VLDM/VPOP and VLD1-4. */
static void analyse_fp32(rec_insn *in, uint32_t e, unsigned dregs)
{
	unsigned vd = e >> 12 & 15, vn = e >> 16 & 15, vm = e & 15;
	unsigned d = e >> 22 & 1, n = e >> 7 & 1, m = e >> 5 & 1;
	unsigned cand[6] = {d << 4 | vd, vd, n << 4 | vn, vn, m << 4 | vm, vm};
	for (int i = 0; i < 6; i++) {
		add_d(in, cand[i], dregs);
		add_d(in, cand[i] + 1, dregs);
	}
	unsigned first = 0, count = 0;
	bool p = e >> 24 & 1, u = e >> 23 & 1, w = e >> 21 & 1;
	if ((e & 0x0E100E00) == 0x0C100A00 && ((!p && u) || (p && w))) {
		/* VLDM, VPOP */
		unsigned imm8 = e & 0xFF;
		if (e & 0x100) {
			first = d << 4 | vd;
			count = imm8 / 2;
		} else {
			first = vd;
			count = (imm8 + 2) / 2;
		}
	} else if ((e & 0x0F300000) == 0x04200000 || (e & 0x0F300000) == 0x09200000) {
		first = d << 4 | vd;	/* VLD1-4: up to 4 registers, spaced by 2 */
		count = 8;
	}
	for (unsigned k = 0; k < count && first + k < dregs; k++)
		add_d(in, first + k, dregs);
	add_slot(in, A32_FPSCR);
}

/* A32 and T32, like A64: the registers come from the fields where the
 * encodings put them (and the register lists of LDM/POP); sp, lr and the
 * PSR are always checked. */
static void analyse_a32(rec_insn *in, unsigned dregs)
{
	uint32_t e = in->enc;
	if ((e >> 28) < 14) {
		in->cond_kind = REC_COND_FIELD;
		in->cond_arg = e >> 28;
	}
	if ((e & 0x0C000000) == 0x0C000000 || (e & 0xFE000000) == 0xF2000000 ||
	    (e & 0xFF100000) == 0xF4000000) {
		in->flags |= REC_INSN_FP;
		if (dregs)
			analyse_fp32(in, e, dregs);
	}
	add_r(in, e & 15);		/* Rm */
	add_r(in, e >> 8 & 15);		/* Rs */
	add_r(in, e >> 12 & 15);	/* Rd, Rt, RdLo */
	add_r(in, (e >> 12 & 15) + 1);	/* Rt+1 of LDRD, LDREXD, MRRC */
	add_r(in, e >> 16 & 15);	/* Rn, RdHi, Rt2 */
	if ((e & 0x0E100000) == 0x08100000)	/* LDM */
		add_list(in, e & 0xFFFF);
	if (((e & 0x0F000000) == 0x0B000000 && (e >> 28) != 15) ||	/* BL */
	    (e & 0xFE000000) == 0xFA000000 ||				/* BLX imm */
	    (e & 0x0FFFFFF0) == 0x012FFF30)				/* BLX reg */
		in->flags |= REC_INSN_LINK;
	add_slot(in, A32_SP);
	add_slot(in, A32_LR);
	add_slot(in, A32_PSR);
}

static void analyse_t32(rec_insn *in, unsigned dregs)
{
	uint32_t e = in->enc;
	add_slot(in, A32_SP);
	add_slot(in, A32_LR);
	add_slot(in, A32_PSR);
	if (in->size == 2) {
		if ((e & 0xFF00) == 0xBF00 && (e & 0xF)) {
			in->flags |= REC_INSN_IT;
			in->cond_arg = e & 0xFF;
		} else if ((e & 0xF000) == 0xD000 && (e >> 8 & 0xE) != 0xE) {
			in->cond_kind = REC_COND_FIELD;
			in->cond_arg = e >> 8 & 0xF;
		} else if ((e & 0xF500) == 0xB100) {
			in->cond_kind = (e & 0x0800) ? REC_COND_CBNZ : REC_COND_CBZ;
			in->cond_arg = e & 7;
		}
		add_r(in, e & 7);
		add_r(in, e >> 3 & 7);
		add_r(in, e >> 6 & 7);
		add_r(in, e >> 8 & 7);
		add_r(in, (e >> 4 & 8) | (e & 7));	/* DN:Rdn */
		add_r(in, e >> 3 & 15);
		if ((e & 0xF800) == 0xC800 || (e & 0xFE00) == 0xBC00)	/* LDM, POP */
			add_list(in, e & 0xFF);
		if ((e & 0xFF87) == 0x4780)	/* BLX reg */
			in->flags |= REC_INSN_LINK;
		return;
	}
	uint32_t hw1 = e >> 16, hw2 = e & 0xFFFF;
	if ((hw1 & 0xF800) == 0xF000 && (hw2 & 0xD000) == 0x8000 && (hw1 >> 7 & 7) != 7) {
		in->cond_kind = REC_COND_FIELD;
		in->cond_arg = hw1 >> 6 & 0xF;
	}
	if ((hw1 & 0xEC00) == 0xEC00 || (hw1 & 0xFF10) == 0xF900) {
		in->flags |= REC_INSN_FP;
		if (dregs)
			analyse_fp32(in, e, dregs);
	}
	if ((hw1 & 0xF800) == 0xF000 && (hw2 & 0xC000) == 0xC000)	/* BL, BLX */
		in->flags |= REC_INSN_LINK;
	add_r(in, hw1 & 15);		/* Rn */
	add_r(in, hw2 & 15);		/* Rm, STREX Rd */
	add_r(in, hw2 >> 8 & 15);	/* Rd, RdHi, Rt2 */
	add_r(in, hw2 >> 12 & 15);	/* Rt, RdLo, Ra */
	if ((hw1 & 0xFE50) == 0xE810)	/* LDM, LDMDB, POP.W */
		add_list(in, hw2);
}

static rec_insn *decode(rec_insn_cache *c, uint64_t addr, int isa,
			const unsigned char *bytes, unsigned size, uint32_t enc)
{
	char text[256];
	size_t tlen = 0;
#ifdef TK_HAVE_CAPSTONE
	if (c->cs_ok[isa]) {
		const uint8_t *code = bytes;
		size_t csize = size;
		uint64_t a = addr;
		if (cs_disasm_iter(c->cs[isa], &code, &csize, &a, c->ci[isa]) &&
		    c->ci[isa]->size == size)
			tlen = format_text(text, sizeof text, c->ci[isa]->mnemonic,
					   c->ci[isa]->op_str);
	}
#else
	(void)c;
	(void)bytes;
#endif
	if (!tlen) {
		char word[16];
		char *w = rec_put_hex(word, enc, size == 2 ? 4 : 8, rec_hex_lower);
		*w = 0;
		/* Not decoded (capstone 4 lacks the Armv8.1 atomics, say):
		 * the raw word, as a Fast Model shows an unknown encoding. */
		tlen = (size_t)snprintf(text, sizeof text, "DCI      0x%s", word);
	}

	char head[40], *h = head;
	int adigits = addr >> 32 ? 16 : 8;
	h = rec_put_hex(h, addr, adigits, rec_hex_lower);
	*h++ = ' ';
	h = rec_put_hex(h, enc, size == 2 ? 4 : 8, rec_hex_lower);
	*h++ = ' ';
	size_t hlen = (size_t)(h - head);

	/* + 8: room for rec_put_words to read whole words. */
	rec_insn *in = calloc(1, sizeof *in + hlen + tlen + 4 + 8);
	if (!in)
		return NULL;
	in->addr = addr;
	in->enc = enc;
	in->isa = (uint8_t)isa;
	in->size = (uint8_t)size;
	in->head = (char *)(in + 1);
	memcpy(in->head, head, hlen);
	in->head_len = (uint16_t)hlen;
	in->tail = in->head + hlen;
	memcpy(in->tail, " : ", 3);
	memcpy(in->tail + 3, text, tlen);
	in->tail[3 + tlen] = '\n';
	in->tail_len = (uint16_t)(tlen + 4);
	if (isa == REC_ISA_A64)
		analyse_a64(in);
	else if (isa == REC_ISA_A32)
		analyse_a32(in, c->dregs);
	else
		analyse_t32(in, c->dregs);
	/* Registers are reported in slot order. */
	for (int i = 1; i < in->nset; i++)
		for (int j = i; j > 0 && in->set[j - 1] > in->set[j]; j--) {
			uint8_t t = in->set[j];
			in->set[j] = in->set[j - 1];
			in->set[j - 1] = t;
		}
	return in;
}

rec_insn *rec_insn_get(rec_insn_cache *c, uint64_t addr, int isa,
		       const unsigned char *bytes, unsigned size)
{
	uint32_t enc;
	if (size == 2)
		enc = bytes[0] | bytes[1] << 8;
	else if (isa == REC_ISA_T32)
		enc = (uint32_t)(bytes[0] | bytes[1] << 8) << 16 | (uint32_t)(bytes[2] | bytes[3] << 8);
	else
		enc = bytes[0] | bytes[1] << 8 | bytes[2] << 16 | (uint32_t)bytes[3] << 24;

	size_t h = hash(addr, isa, c->nbucket);
	rec_insn **pp = &c->bucket[h];
	for (rec_insn *in = *pp; in; pp = &in->next, in = in->next) {
		if (in->addr != addr || in->isa != isa)
			continue;
		if (in->enc == enc && in->size == size)
			return in;
		/* The code changed: decode it again in place of the old entry. */
		rec_insn *fresh = decode(c, addr, isa, bytes, size, enc);
		if (!fresh)
			return NULL;
		fresh->next = in->next;
		*pp = fresh;
		free(in);
		return fresh;
	}
	rec_insn *in = decode(c, addr, isa, bytes, size, enc);
	if (!in)
		return NULL;
	in->next = c->bucket[h];
	c->bucket[h] = in;
	if (++c->count > c->nbucket)
		grow(c);
	return in;
}
