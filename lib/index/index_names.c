/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the names of functions a trace gives (function events name
 * them), stored in the index for the tools that read it.
 *
 * NAMES section: varint count, then per entry, by increasing address, a
 * varint address delta, a varint length and the name's bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "tracekit/namemap.h"
#include "index_write.h"

int tk_idx_names_write(tk_ixw *w, const tk_namemap *m)
{
	uint64_t *addrs;
	const char **names;
	int err = tk_namemap_sorted(m, &addrs, &names);
	if (err)
		return err;
	uint8_t buf[32];
	if (!(err = tk_ixw_begin(w, TK_SEC_NAMES)))
		err = tk_ixw_write(w, buf, tk_putv(buf, m->count));
	uint64_t prev = 0;
	for (size_t i = 0; i < m->count && !err; i++) {
		size_t len = strlen(names[i]);
		size_t n = tk_putv(buf, addrs[i] - prev);
		n += tk_putv(buf + n, len);
		prev = addrs[i];
		if (!(err = tk_ixw_write(w, buf, n)))
			err = tk_ixw_write(w, names[i], len);
	}
	free(addrs);
	free(names);
	return err ? err : tk_ixw_end(w);
}

int tk_idx_names_decode(tk_index *idx, const uint8_t *p, uint64_t len)
{
	tk_rd r = {p, p + len, false};
	uint64_t n = tk_rdv(&r);
	if (r.err || n > len)		/* at least a byte an entry */
		return TK_ERR_CORRUPT;
	idx->name_addrs = malloc((n ? n : 1) * sizeof *idx->name_addrs);
	idx->names = calloc(n ? n : 1, sizeof *idx->names);
	if (!idx->name_addrs || !idx->names)
		return TK_ERR_NOMEM;
	uint64_t addr = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t d = tk_rdv(&r), l = tk_rdv(&r);
		const uint8_t *s = r.err ? NULL : tk_rdn(&r, l);
		if (!s || (i && !d))
			return TK_ERR_CORRUPT;
		addr += d;
		idx->name_addrs[i] = addr;
		if (!(idx->names[i] = malloc(l + 1)))
			return TK_ERR_NOMEM;
		memcpy(idx->names[i], s, l);
		idx->names[i][l] = 0;
		idx->nnames = i + 1;
	}
	return r.p == r.end ? 0 : TK_ERR_CORRUPT;
}

const char *tk_index_func_name(const tk_index *idx, uint64_t addr)
{
	size_t lo = 0, hi = idx->nnames;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (idx->name_addrs[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < idx->nnames && idx->name_addrs[lo] == addr ? idx->names[lo] : NULL;
}

int tk_index_func_names(const tk_index *idx, int (*fn)(void *ctx, uint64_t addr, const char *name),
			void *ctx)
{
	for (size_t i = 0; i < idx->nnames; i++) {
		int rc = fn(ctx, idx->name_addrs[i], idx->names[i]);
		if (rc)
			return rc;
	}
	return 0;
}
