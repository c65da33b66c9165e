/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the backtrace module's internals (see include/tracekit/backtrace.h). */
#ifndef TRACEKIT_BACKTRACE_BT_IMPL_H
#define TRACEKIT_BACKTRACE_BT_IMPL_H

#include "tracekit/backtrace.h"
#include "tracekit/regs.h"

/* Where a function's frame record is, relative to its frame register. */
typedef struct bt_layout {
	tk_bt_layout kind;
	bool known;		/* false: Thumb code of unknown frame size */
	bool guessed;		/* a fixed default, not from CFI or code */
	tk_reg fp_reg;		/* r7, r11 or x29 */
	int64_t fp_off;		/* the caller's frame pointer at fp + fp_off */
	bool lr_saved;		/* else the return address is still in lr */
	int64_t lr_off;		/* the return address at fp + lr_off */
} bt_layout;

#define BT_MEM_SLOTS 8

struct tk_bt_ctx {
	const tk_index *idx;
	tk_bt_opts opts;
	bool big_endian;
	tk_index_regset *rs;

	/* The last position described (walk and calls ask for the same). */
	uint64_t ppos;
	tk_index_pos pdesc;

	/* 64-byte blocks of memory read at position mpos. */
	uint64_t mpos;
	struct bt_mem {
		uint64_t base;
		bool valid;
		uint8_t v[64], k[64];
	} mem[BT_MEM_SLOTS];
	unsigned mnext;

	/* Layouts by (pc, isa). */
	struct bt_lslot {
		uint64_t key;
		bool used;
		bt_layout l;
	} *lcache;
	size_t lcap, lused;
};

/* bt_layout.c: the layout of the function at pc (the address whose CFI
 * row applies).  Never fails: an unknown layout has known == false. */
void tk_bt_layout_at(tk_bt_ctx *ctx, uint64_t pc, tk_isa isa, bt_layout *out);

/* bt_thumb.c: a Thumb prologue's frame record, relative to r7.  Returns
 * true if the code from fn_start sets r7 after pushing it. */
bool tk_bt_thumb_prologue(tk_dwarf *image, uint64_t fn_start, int64_t *fp_off, bool *lr_saved,
			  int64_t *lr_off);

#endif
