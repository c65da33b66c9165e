/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: a map from function address to the name a trace
 * gives it (function events carry names), kept once per address. */
#ifndef TRACEKIT_NAMEMAP_H
#define TRACEKIT_NAMEMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct tk_namemap {
	struct tk_name_slot *slots;	/* open addressing */
	size_t cap, count;
} tk_namemap;

/* Remember addr's name unless it has one.  Returns 0 or TK_ERR_NOMEM. */
int tk_namemap_add(tk_namemap *m, uint64_t addr, const char *name, size_t len);

/* addr's name, or NULL. */
const char *tk_namemap_get(const tk_namemap *m, uint64_t addr);

/* Every entry, sorted by address, into addrs/names (count of them);
 * arrays owned by the caller (free), names by the map. */
int tk_namemap_sorted(const tk_namemap *m, uint64_t **addrs, const char ***names);

void tk_namemap_fini(tk_namemap *m);

#endif
