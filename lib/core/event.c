/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: helpers for the common event model. */
#include "tracekit/event.h"

const char *tk_isa_name(tk_isa isa)
{
	switch (isa) {
	case TK_ISA_A32: return "A32";
	case TK_ISA_T32: return "T32";
	case TK_ISA_A64: return "A64";
	case TK_ISA_X86_64: return "x86-64";
	case TK_ISA_PPC64: return "ppc64";
	case TK_ISA_UNKNOWN: break;
	}
	return "?";
}
