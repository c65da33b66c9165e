/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT: the facts of each instruction address (size, bytes, libipt's
 * class, direct target), read from the image once and classified with
 * capstone.  The block decoder gives only a block's first and last address;
 * expanding the block into instructions walks these facts, so each decoding
 * thread keeps its own cache (a hash table over entries that never move:
 * items handed out point at their bytes). */
#include <stdlib.h>
#include <string.h>

#include "pt_capstone.h"
#include "pt_impl.h"

#define SLAB 4096

struct pt_insn_cache {
	const tk_pt *pt;
	const tk_cs_api *cs_api;	/* NULL: capstone cannot be loaded */
	csh cs;
	bool cs_ok;
	struct pt_insn_info **table;	/* open addressing, power of two */
	size_t mask, used;
	struct pt_insn_info **slabs;
	size_t nslabs, slabcap, slab_used;
};

int tk_pt_insn_cache_new(const tk_pt *pt, struct pt_insn_cache **out)
{
	struct pt_insn_cache *c = calloc(1, sizeof *c);
	if (!c)
		return TK_ERR_NOMEM;
	c->pt = pt;
	c->mask = 4095;
	c->table = calloc(c->mask + 1, sizeof *c->table);
	if (!c->table) {
		free(c);
		return TK_ERR_NOMEM;
	}
	c->cs_api = tk_pt_capstone();
	if (c->cs_api && c->cs_api->open(CS_ARCH_X86, CS_MODE_64, &c->cs) == CS_ERR_OK) {
		c->cs_api->option(c->cs, CS_OPT_DETAIL, CS_OPT_ON);
		c->cs_ok = true;
	}
	c->slab_used = SLAB;
	*out = c;
	return 0;
}

void tk_pt_insn_cache_free(struct pt_insn_cache *c)
{
	if (!c)
		return;
	if (c->cs_ok)
		c->cs_api->close(&c->cs);
	for (size_t i = 0; i < c->nslabs; i++)
		free(c->slabs[i]);
	free(c->slabs);
	free(c->table);
	free(c);
}

static int class_of(unsigned id)
{
	switch (id) {
	case X86_INS_CALL:
		return ptic_call;
	case X86_INS_LCALL:
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
	case X86_INS_INT:
	case X86_INS_INT1:
	case X86_INS_INT3:
	case X86_INS_INTO:
	case X86_INS_VMCALL:
		return ptic_far_call;
	case X86_INS_RET:
		return ptic_return;
	case X86_INS_RETF:
	case X86_INS_RETFQ:
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_IRETQ:
	case X86_INS_SYSRET:
	case X86_INS_SYSEXIT:
	case X86_INS_VMLAUNCH:
	case X86_INS_VMRESUME:
		return ptic_far_return;
	case X86_INS_JMP:
		return ptic_jump;
	case X86_INS_LJMP:
		return ptic_far_jump;
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JRCXZ: case X86_INS_JE:
	case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL:
	case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS:
	case X86_INS_JO: case X86_INS_JP: case X86_INS_JS: case X86_INS_LOOP:
	case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return ptic_cond_jump;
	default:
		return ptic_other;
	}
}

/* The length of a VEX or EVEX encoded instruction (AVX-512 and its mask
 * instructions, which capstone 4 does not know), or 0.  None of them
 * branches. */
static unsigned vex_length(const uint8_t *b, size_t n)
{
	size_t i = 0;
	while (i < n && (b[i] == 0x67 || b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 ||
			 b[i] == 0x36 || b[i] == 0x64 || b[i] == 0x65))
		i++;
	if (i >= n)
		return 0;
	unsigned map;
	if (b[i] == 0xc5) {
		map = 1;
		i += 2;
	} else if (b[i] == 0xc4) {
		if (i + 1 >= n)
			return 0;
		map = b[i + 1] & 0x1f;
		i += 3;
	} else if (b[i] == 0x62) {
		if (i + 1 >= n)
			return 0;
		map = b[i + 1] & 0x7;
		i += 4;
	} else {
		return 0;
	}
	if (i >= n || map < 1 || map > 3)
		return 0;
	uint8_t op = b[i++];
	if (map == 1 && op == 0x77)
		return i <= n ? (unsigned)i : 0;	/* vzeroupper/vzeroall: no ModRM */
	if (i >= n)
		return 0;
	uint8_t modrm = b[i++];
	unsigned mod = modrm >> 6, rm = modrm & 7;
	if (mod != 3 && rm == 4) {
		if (i >= n)
			return 0;
		uint8_t sib = b[i++];
		if (mod == 0 && (sib & 7) == 5)
			i += 4;
	}
	if (mod == 0 && rm == 5)
		i += 4;
	else if (mod == 1)
		i += 1;
	else if (mod == 2)
		i += 4;
	bool imm8 = map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
					      (op >= 0xc4 && op <= 0xc6)));
	if (imm8)
		i += 1;
	return i <= n && i <= 15 ? (unsigned)i : 0;
}

void tk_pt_insn_classify(struct pt_insn_cache *c, uint64_t ip, const uint8_t *raw, uint8_t size,
			 struct pt_insn_info *out)
{
	memset(out, 0, sizeof *out);
	out->ip = ip;
	if (!c->cs_ok || !size)
		return;
	cs_insn *insn = NULL;
	size_t n = c->cs_api->disasm(c->cs, raw, size, ip, 1, &insn);
	if (n != 1) {
		unsigned len = vex_length(raw, size);
		if (len) {
			out->size = (uint8_t)len;
			memcpy(out->raw, raw, len);
			out->iclass = ptic_other;
			out->branch = TK_BR_NONE;
		}
		return;
	}
	out->size = (uint8_t)insn->size;
	memcpy(out->raw, raw, out->size);
	out->iclass = (uint8_t)class_of(insn->id);
	const cs_x86 *x = &insn->detail->x86;
	if ((out->iclass == ptic_call || out->iclass == ptic_jump ||
	     out->iclass == ptic_cond_jump) &&
	    x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		out->direct = 1;
		out->target = (uint64_t)x->operands[0].imm;
	}
	bool call_next = out->iclass == ptic_call && out->direct &&
			 out->target == ip + out->size;
	out->branch = (uint8_t)tk_pt_branch_of(out->iclass, call_next);
	c->cs_api->free(insn, 1);
}

static size_t hash_ip(uint64_t ip)
{
	ip ^= ip >> 29;
	ip *= 0xbf58476d1ce4e5b9ull;
	ip ^= ip >> 32;
	return (size_t)ip;
}

static int grow(struct pt_insn_cache *c)
{
	size_t nmask = c->mask * 2 + 1;
	struct pt_insn_info **nt = calloc(nmask + 1, sizeof *nt);
	if (!nt)
		return TK_ERR_NOMEM;
	for (size_t i = 0; i <= c->mask; i++) {
		struct pt_insn_info *e = c->table[i];
		if (!e)
			continue;
		size_t h = hash_ip(e->ip) & nmask;
		while (nt[h])
			h = (h + 1) & nmask;
		nt[h] = e;
	}
	free(c->table);
	c->table = nt;
	c->mask = nmask;
	return 0;
}

static struct pt_insn_info *new_entry(struct pt_insn_cache *c)
{
	if (c->slab_used == SLAB) {
		if (c->nslabs == c->slabcap) {
			size_t ncap = c->slabcap ? c->slabcap * 2 : 16;
			struct pt_insn_info **ns = realloc(c->slabs, ncap * sizeof *ns);
			if (!ns)
				return NULL;
			c->slabs = ns;
			c->slabcap = ncap;
		}
		struct pt_insn_info *slab = malloc(SLAB * sizeof *slab);
		if (!slab)
			return NULL;
		c->slabs[c->nslabs++] = slab;
		c->slab_used = 0;
	}
	return &c->slabs[c->nslabs - 1][c->slab_used++];
}

const struct pt_insn_info *tk_pt_insn_at(struct pt_insn_cache *c, uint64_t ip)
{
	size_t h = hash_ip(ip) & c->mask;
	for (struct pt_insn_info *e; (e = c->table[h]); h = (h + 1) & c->mask)
		if (e->ip == ip)
			return e;
	if ((c->used + 1) * 2 > c->mask) {
		if (grow(c) < 0)
			return NULL;
		h = hash_ip(ip) & c->mask;
		while (c->table[h])
			h = (h + 1) & c->mask;
	}
	struct pt_insn_info *e = new_entry(c);
	if (!e)
		return NULL;
	uint8_t raw[15];
	size_t n = tk_pt_mem_read(c->pt, ip, raw, sizeof raw);
	tk_pt_insn_classify(c, ip, raw, (uint8_t)n, e);
	c->table[h] = e;
	c->used++;
	return e;
}
