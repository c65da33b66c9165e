/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: capstone loaded on first use (pt_capstone.h). */
#include "core/lazylib.h"
#include "pt_capstone.h"

#ifndef TK_CAPSTONE_SONAME
#define TK_CAPSTONE_SONAME "libcapstone.so"
#endif

static tk_cs_api api;
static const char *const names[] = {"cs_open", "cs_option", "cs_disasm", "cs_free", "cs_close"};
static tk_lazylib lib = TK_LAZYLIB_INIT(TK_CAPSTONE_SONAME, names, &api);

const tk_cs_api *tk_pt_capstone(void)
{
	_Static_assert(sizeof api == sizeof names / sizeof names[0] * sizeof(void *),
		       "one pointer per name");
	return tk_lazylib_load(&lib) ? &api : NULL;
}
