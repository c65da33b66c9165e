/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the architecture hooks of each instruction set (arch.h). */
#include "arch.h"

const tk_arch *tk_arch_of(tk_isa isa)
{
	switch (isa) {
	case TK_ISA_A32:
	case TK_ISA_T32:
	case TK_ISA_A64:
		return &tk_arch_arm;
	default:
		return NULL;
	}
}
