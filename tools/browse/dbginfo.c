/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: the image's debugging information (see dbginfo.h). */
#ifdef TK_HAVE_CURSES
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbginfo.h"

tkb_dbg *tkb_dbg_get(tkb *b)
{
	if (!b->dbg) {
		b->dbg = calloc(1, sizeof *b->dbg);
		if (!b->dbg)
			return NULL;
		b->dbg->walk_pos = TKB_NO_POS;
	}
	tkb_dbg *d = b->dbg;
	if (!d->tried) {
		d->tried = true;
		if (!b->cli->image) {
			snprintf(d->error, sizeof d->error, "frame walks and source lines need --image=ELF");
		} else if (tk_srclines_open_quiet(b->cli->image, b->cli->load_offset, &d->lines,
						  d->error, sizeof d->error) == 0) {
			tk_bt_opts o = {sizeof o, TK_BT_AUTO, tk_srclines_dwarf(d->lines),
					b->cli->load_offset};
			if (tk_bt_new(tkb_model_index(b->model), &o, &d->bt) != 0)
				snprintf(d->error, sizeof d->error, "out of memory");
		}
	}
	return d->lines && d->bt ? d : NULL;
}

void tkb_dbg_free(tkb *b)
{
	tkb_dbg *d = b->dbg;
	if (!d)
		return;
	tk_bt_free(d->bt);
	tk_srclines_free(d->lines);
	free(d->src_path);
	free(d->src_found);
	free(d->src_text);
	free(d->src_lines);
	free(d);
	b->dbg = NULL;
}

uint64_t tkb_dbg_insn(const tkb *b)
{
	if (!b->ninsns || b->pos == 0)
		return TKB_NO_POS;
	return b->pos - 1 < b->ninsns ? b->pos - 1 : b->ninsns - 1;
}

bool tkb_dbg_walk(tkb *b, tkb_dbg *d)
{
	uint64_t i = tkb_dbg_insn(b);
	if (i == TKB_NO_POS)
		return false;
	if (d->walk_pos != i) {
		if (tk_bt_walk(d->bt, i, &d->walk) != 0 || tk_bt_calls(d->bt, i, &d->stack) != 0) {
			d->walk_pos = TKB_NO_POS;
			return false;
		}
		d->walk_pos = i;
	}
	return true;
}
#endif
