/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit front ends: instruction mix, basic blocks and counts of a POWER
 * instruction stream. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "commands/power_report.h"
#include "tracekit/ppc.h"

/* An open-addressing map from a 64-bit key to a 32-bit value. */
typedef struct umap {
	uint64_t *keys;		/* key + 1; 0 = empty */
	uint32_t *vals;
	uint32_t cap, count;
} umap;

static uint32_t umap_hash(uint64_t k, uint32_t cap)
{
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static bool umap_grow(umap *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 1024;
	uint64_t *nk = calloc(ncap, sizeof *nk);
	uint32_t *nv = calloc(ncap, sizeof *nv);
	if (!nk || !nv) {
		free(nk);
		free(nv);
		return false;
	}
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->keys[i]) {
			uint32_t h = umap_hash(m->keys[i], ncap);
			while (nk[h])
				h = (h + 1) & (ncap - 1);
			nk[h] = m->keys[i];
			nv[h] = m->vals[i];
		}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return true;
}

/* The value slot of key, inserted (value 0) if new; NULL if out of memory.
 * *added tells whether it was new. */
static uint32_t *umap_get(umap *m, uint64_t key, bool *added)
{
	if ((m->count + 1) * 2 > m->cap && !umap_grow(m))
		return NULL;
	uint64_t k = key + 1;
	uint32_t h = umap_hash(k, m->cap);
	while (m->keys[h] && m->keys[h] != k)
		h = (h + 1) & (m->cap - 1);
	*added = !m->keys[h];
	if (*added) {
		m->keys[h] = k;
		m->vals[h] = 0;
		m->count++;
	}
	return &m->vals[h];
}

static void umap_free(umap *m)
{
	free(m->keys);
	free(m->vals);
}

typedef struct mnemonic {
	char name[24];
	uint64_t count;
} mnemonic;

typedef struct block {
	uint64_t ea, count;
	uint32_t length;
} block;

struct power_report {
	tk_ppc_disasm *dis;
	umap word_to_mnem;		/* word key -> mnemonic index + 1 */
	umap name_to_mnem;		/* name hash -> mnemonic index + 1 */
	mnemonic *mnems;
	uint32_t nmnems, mnems_cap;
	bool oom;

	umap ea_to_block;		/* start EA -> block index + 1 */
	block *blocks;
	uint32_t nblocks, blocks_cap;
	uint64_t blocks_run;
	bool in_block, prev_ended;
	uint64_t block_ea, block_len, expect_ea;

	uint64_t insns, prefixed, branches, taken, calls, returns, data, jumps;
	uint64_t pages[5];		/* 4K 64K 2M 16M 1G */
	bool have_prev;
	uint64_t prev_ea;
	uint32_t prev_word;
	unsigned prev_width;
	bool prev_branch;
};

power_report *power_report_new(void)
{
	power_report *r = calloc(1, sizeof *r);
	if (r && tk_ppc_disasm_new(NULL, NULL, &r->dis) < 0) {
		free(r);
		return NULL;
	}
	return r;
}

void power_report_free(power_report *r)
{
	if (!r)
		return;
	tk_ppc_disasm_free(r->dis);
	umap_free(&r->word_to_mnem);
	umap_free(&r->name_to_mnem);
	umap_free(&r->ea_to_block);
	free(r->mnems);
	free(r->blocks);
	free(r);
}

static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static mnemonic *mnemonic_of(power_report *r, uint64_t ea, const uint32_t *words, unsigned nwords)
{
	uint64_t key = (uint64_t)words[0] << 32 | (nwords == 2 ? words[1] : 0);
	key ^= nwords == 2 ? 0x5bd1e995ull : 0;	/* pairs and single words apart */
	bool added;
	uint32_t *slot = umap_get(&r->word_to_mnem, key, &added);
	if (!slot)
		return NULL;
	if (!added)
		return &r->mnems[*slot - 1];
	char text[160];
	tk_ppc_disasm_insn(r->dis, ea, words, nwords, text, sizeof text);
	size_t n = strcspn(text, " \t");
	if (n >= sizeof r->mnems[0].name)
		n = sizeof r->mnems[0].name - 1;
	uint32_t *nslot = umap_get(&r->name_to_mnem, name_hash(text, n), &added);
	if (!nslot)
		return NULL;
	if (added) {
		if (r->nmnems == r->mnems_cap) {
			uint32_t ncap = r->mnems_cap ? r->mnems_cap * 2 : 256;
			mnemonic *m = realloc(r->mnems, ncap * sizeof *m);
			if (!m)
				return NULL;
			r->mnems = m;
			r->mnems_cap = ncap;
		}
		mnemonic *m = &r->mnems[r->nmnems++];
		memcpy(m->name, text, n);
		m->name[n] = 0;
		m->count = 0;
		*nslot = r->nmnems;
	}
	*slot = *nslot;
	return &r->mnems[*nslot - 1];
}

static void close_block(power_report *r)
{
	if (!r->in_block)
		return;
	r->in_block = false;
	r->blocks_run++;
	bool added;
	uint32_t *slot = umap_get(&r->ea_to_block, r->block_ea, &added);
	if (!slot) {
		r->oom = true;
		return;
	}
	if (added) {
		if (r->nblocks == r->blocks_cap) {
			uint32_t ncap = r->blocks_cap ? r->blocks_cap * 2 : 1024;
			block *b = realloc(r->blocks, ncap * sizeof *b);
			if (!b) {
				r->oom = true;
				return;
			}
			r->blocks = b;
			r->blocks_cap = ncap;
		}
		r->blocks[r->nblocks] = (block){r->block_ea, 0, (uint32_t)r->block_len};
		*slot = ++r->nblocks;
	}
	r->blocks[*slot - 1].count++;
}

static int page_index(unsigned shift)
{
	switch (shift) {
	case 12: return 0;
	case 16: return 1;
	case 21: return 2;
	case 24: return 3;
	case 30: return 4;
	default: return -1;
	}
}

void power_report_add(power_report *r, uint64_t ea, const uint32_t *words, unsigned nwords,
		      bool branch, bool has_data, unsigned page_shift)
{
	unsigned width = nwords == 2 ? 8 : 4;
	/* what the previous instruction did, now that its successor is known */
	if (r->have_prev) {
		tk_branch k = tk_ppc_branch_kind(r->prev_word, r->prev_width, r->prev_ea, ea);
		if (r->prev_branch && k != TK_BR_NONE)
			r->taken++;
		r->calls += k == TK_BR_CALL;
		r->returns += k == TK_BR_RETURN;
		r->jumps += ea != r->prev_ea + r->prev_width;
	}
	if (!r->in_block || r->prev_ended || ea != r->expect_ea) {
		close_block(r);
		r->in_block = true;
		r->block_ea = ea;
		r->block_len = 0;
	}
	r->block_len++;
	r->prev_ended = branch;
	r->expect_ea = ea + width;

	r->insns++;
	r->prefixed += nwords == 2;
	r->branches += branch;
	r->data += has_data;
	int pi = page_index(page_shift);
	if (pi >= 0)
		r->pages[pi]++;
	mnemonic *m = mnemonic_of(r, ea, words, nwords);
	if (m)
		m->count++;
	else
		r->oom = true;
	r->have_prev = true;
	r->prev_ea = ea;
	r->prev_word = words[0];
	r->prev_width = width;
	r->prev_branch = branch;
}

void power_report_print_stats(power_report *r, FILE *fp)
{
	fprintf(fp, "%-28s %" PRIu64 "\n", "instructions", r->insns);
	fprintf(fp, "%-28s %" PRIu64 "\n", "prefixed instructions", r->prefixed);
	fprintf(fp, "%-28s %" PRIu64 "\n", "branches", r->branches);
	fprintf(fp, "%-28s %" PRIu64 "\n", "branches taken", r->taken);
	fprintf(fp, "%-28s %" PRIu64 "\n", "calls", r->calls);
	fprintf(fp, "%-28s %" PRIu64 "\n", "returns", r->returns);
	fprintf(fp, "%-28s %" PRIu64 "\n", "changes of flow", r->jumps);
	fprintf(fp, "%-28s %" PRIu64 "\n", "data accesses", r->data);
	static const char *names[5] = {"4K", "64K", "2M", "16M", "1G"};
	for (int i = 0; i < 5; i++)
		if (r->pages[i])
			fprintf(fp, "%-28s %" PRIu64 "\n", names[i], r->pages[i]);
}

static int by_count(const void *a, const void *b)
{
	const mnemonic *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

int power_report_print_mix(power_report *r, FILE *fp)
{
	qsort(r->mnems, r->nmnems, sizeof *r->mnems, by_count);
	/* the word map points into mnems by index: it is stale now */
	umap_free(&r->word_to_mnem);
	memset(&r->word_to_mnem, 0, sizeof r->word_to_mnem);
	for (uint32_t i = 0; i < r->nmnems; i++)
		fprintf(fp, "%-16s %12" PRIu64 " %7.3f%%\n", r->mnems[i].name, r->mnems[i].count,
			r->insns ? 100.0 * (double)r->mnems[i].count / (double)r->insns : 0.0);
	return r->oom ? -1 : 0;
}

static int by_heat(const void *a, const void *b)
{
	const block *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->ea < y->ea ? -1 : x->ea > y->ea;
}

void power_report_print_blocks(power_report *r, FILE *fp)
{
	close_block(r);
	fprintf(fp, "basic blocks executed:  %" PRIu64 "\n", r->blocks_run);
	fprintf(fp, "distinct basic blocks:  %" PRIu32 "\n", r->nblocks);
	fprintf(fp, "mean length:            %.2f instructions\n",
		r->blocks_run ? (double)r->insns / (double)r->blocks_run : 0.0);
	qsort(r->blocks, r->nblocks, sizeof *r->blocks, by_heat);
	umap_free(&r->ea_to_block);
	memset(&r->ea_to_block, 0, sizeof r->ea_to_block);
	fprintf(fp, "hottest blocks:\n  %-18s %12s %8s\n", "EA", "executions", "length");
	for (uint32_t i = 0; i < r->nblocks && i < 20; i++)
		fprintf(fp, "  %016" PRIx64 "   %12" PRIu64 " %8" PRIu32 "\n", r->blocks[i].ea,
			r->blocks[i].count, r->blocks[i].length);
}
