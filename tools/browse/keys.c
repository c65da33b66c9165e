/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: dispatching a key to the focused pane. */
#ifdef TK_HAVE_CURSES
#include <curses.h>

#include "browse.h"
#include "tracekit/index.h"

static void cycle_focus(tkb *b, int dir)
{
	for (int k = 0; k < b->npanes; k++) {
		b->focus = (b->focus + dir + b->npanes) % b->npanes;
		if (b->panes[b->focus].height > 0)
			return;
	}
}

void tkb_key(tkb *b, int key)
{
	tkb_pane *p = &b->panes[b->focus];
	bool done = false;

	/* The pages the last key mapped go back: browsing a long trace must
	 * not make it or its index resident. */
	tkv_file_trim(&b->file);
	tk_index_trim(tkb_model_index(b->model));

	b->message[0] = '\0';
	if (key != TKB_CTRL('L')) {
		b->lcycle = 0;
		b->at_bottom = false;
	}
	switch (key) {
	case KEY_RESIZE:
		/* The old marker row means little in a pane of another height
		 * (on a shrink it would sit on the last row, hiding what comes
		 * next): centre it again. */
		b->recentre = -1;
		tkb_layout(b);
		return;
	case ERR:
		tkb_layout(b);
		return;
	case '\t':
		cycle_focus(b, 1);
		return;
	case KEY_BTAB:
		cycle_focus(b, -1);
		return;
	case KEY_F(1):
	case KEY_F(10):
		tkb_help(b, p->kind);
		return;
	case 'q':
		b->quit = true;
		return;
	}
	switch (p->kind) {
	case TKB_PANE_TRACE:
		done = tkb_trace_key(b, p, key);
		break;
	case TKB_PANE_MEMORY:
		done = tkb_mem_key(b, p, key);
		break;
	case TKB_PANE_CALLS:
		done = tkb_calls_key(b, p, key);
		break;
	case TKB_PANE_SOURCE:
		done = tkb_source_key(b, p, key);
		break;
	default:
		done = tkb_regs_key(b, p, key);
		break;
	}
	if (!done)
		tkb_message(b, "%s is not a command in this pane (F1 for help)", keyname(key));
}
#endif
