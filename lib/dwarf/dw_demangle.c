/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: demangling as addr2line -C does it (binutils' bfd_demangle):
 * leading dots and dollars (PowerPC, XCOFF) and an "@..." suffix (symbol
 * versions, @plt) are set aside, the rest is given to libiberty's
 * cplus_demangle with parameters and ANSI qualifiers, and they are put
 * back around the result. */
#include <stdlib.h>
#include <string.h>

#include "tracekit/dwarf.h"

#ifdef TK_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

char *tk_dwarf_demangle(const char *name)
{
#ifdef TK_HAVE_LIBIBERTY
	if (!name)
		return NULL;
	const char *pre = name;
	while (*name == '.' || *name == '$')
		name++;
	size_t pre_len = (size_t)(name - pre);
	const char *suf = strchr(name, '@');
	char *base = NULL;
	if (suf) {
		base = strndup(name, (size_t)(suf - name));
		if (!base)
			return NULL;
		name = base;
	}
	char *res = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	free(base);
	if (!res || (!pre_len && !suf))
		return res;
	size_t rl = strlen(res), sl = suf ? strlen(suf) : 0;
	char *full = malloc(pre_len + rl + sl + 1);
	if (full) {
		memcpy(full, pre, pre_len);
		memcpy(full + pre_len, res, rl);
		memcpy(full + pre_len + rl, suf ? suf : "", sl + 1);
	}
	free(res);
	return full;
#else
	(void)name;
	return NULL;
#endif
}
