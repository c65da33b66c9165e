/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: capstone, loaded the first time an x86 instruction is
 * classified or disassembled (core/lazylib.h): a command that reads no
 * Intel PT trace does not load it. */
#ifndef TRACEKIT_PT_CAPSTONE_H
#define TRACEKIT_PT_CAPSTONE_H

#include <capstone/capstone.h>

/* The functions used, with capstone's own types. */
typedef struct tk_cs_api {
	__typeof__(cs_open) *open;
	__typeof__(cs_option) *option;
	__typeof__(cs_disasm) *disasm;
	__typeof__(cs_free) *free;
	__typeof__(cs_close) *close;
} tk_cs_api;

/* capstone's functions, or NULL if it cannot be loaded. */
const tk_cs_api *tk_pt_capstone(void);

#endif
