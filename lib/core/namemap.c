/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: function names from the trace (see namemap.h). */
#include <stdlib.h>
#include <string.h>

#include "tracekit/namemap.h"
#include "tracekit/error.h"

struct tk_name_slot {
	uint64_t addr;
	char *name;		/* NULL: empty slot */
};

static size_t slot_of(const tk_namemap *m, uint64_t addr)
{
	size_t i = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 17) & (m->cap - 1);
	while (m->slots[i].name && m->slots[i].addr != addr)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int grow(tk_namemap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64;
	struct tk_name_slot *old = m->slots;
	size_t ocap = m->cap;
	if (!(m->slots = calloc(cap, sizeof *m->slots))) {
		m->slots = old;
		return TK_ERR_NOMEM;
	}
	m->cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].name)
			m->slots[slot_of(m, old[i].addr)] = old[i];
	free(old);
	return 0;
}

int tk_namemap_add(tk_namemap *m, uint64_t addr, const char *name, size_t len)
{
	if (!name || !len)
		return 0;
	if (2 * (m->count + 1) > m->cap && grow(m) < 0)
		return TK_ERR_NOMEM;
	struct tk_name_slot *s = &m->slots[slot_of(m, addr)];
	if (s->name)
		return 0;
	if (!(s->name = malloc(len + 1)))
		return TK_ERR_NOMEM;
	memcpy(s->name, name, len);
	s->name[len] = 0;
	s->addr = addr;
	m->count++;
	return 0;
}

const char *tk_namemap_get(const tk_namemap *m, uint64_t addr)
{
	if (!m->cap)
		return NULL;
	const struct tk_name_slot *s = &m->slots[slot_of(m, addr)];
	return s->name;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct tk_name_slot *x = *(const struct tk_name_slot *const *)a;
	const struct tk_name_slot *y = *(const struct tk_name_slot *const *)b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int tk_namemap_sorted(const tk_namemap *m, uint64_t **addrs, const char ***names)
{
	size_t n = m->count;
	const struct tk_name_slot **v = malloc((n ? n : 1) * sizeof *v);
	*addrs = malloc((n ? n : 1) * sizeof **addrs);
	*names = malloc((n ? n : 1) * sizeof **names);
	if (!v || !*addrs || !*names) {
		free(v);
		free(*addrs);
		free(*names);
		*addrs = NULL;
		*names = NULL;
		return TK_ERR_NOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].name)
			v[k++] = &m->slots[i];
	qsort(v, k, sizeof *v, cmp_slot);
	for (size_t i = 0; i < k; i++) {
		(*addrs)[i] = v[i]->addr;
		(*names)[i] = v[i]->name;
	}
	free(v);
	return 0;
}

void tk_namemap_fini(tk_namemap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].name);
	free(m->slots);
	memset(m, 0, sizeof *m);
}
