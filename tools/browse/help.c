/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: help screens (F1, F10), one per kind of pane. */
#ifdef TK_HAVE_CURSES
#include <curses.h>
#include <string.h>

#include "browse.h"

static const char *const general[] = {
	"General keys",
	"",
	"  Tab          move the input focus to the next pane",
	"  F1, F10      this help (Up, Down, PgUp, PgDn scroll; any other key closes)",
	"  q            quit",
	"",
	"At a prompt on the bottom line:",
	"  Ctrl-W       delete one word left of the cursor",
	"  Ctrl-U       delete everything typed so far",
	"  Escape, Ctrl-G  cancel the command",
	"  Return       accept",
	"",
	"Address expressions (m, p, P): numbers (0x hex; a leading 0 or a hex",
	"letter also means hex), registers at the current position (pc: the",
	"next instruction), ELF symbols with --image, + - * and parentheses.",
	"Registers of the other execution state (x0 in AArch32 code, r0 in",
	"AArch64 code) are refused; in AArch64 code lr is x30.",
	"Example: sp+0x10",
	"",
	NULL
};

static const char *const trace_help[] = {
	"Trace pane",
	"",
	"The marker line is the current position: after the instruction above",
	"it and its updates, before the instruction below it.  The status line",
	"shows that instruction's line, time and pc (with its symbol), and the",
	"position: instructions before the marker / in the trace.",
	"",
	"  Up, Down     move by one instruction",
	"  PgUp, PgDn   move by a screenful",
	"  Home, End    go to the start or the end of the trace",
	"  Ctrl-L       put the marker in the middle, top, bottom of the pane",
	"  - or _       fold up the function call containing the position",
	"  + or =       unfold the folded call just above the position",
	"               (a folded call's line ends in [+ N instructions folded: NAME])",
	"  [            fold every call made from the current function",
	"  ]            unfold everything inside the current function",
	"  {            fold up the whole trace",
	"  }            unfold the whole trace",
	"  l            go to a line number",
	"  t            go to a time",
	"  n, N         go to the next / previous visit of the pc above the marker",
	"  p, P         go to the next / previous visit of a pc (prompts)",
	"  ;  ,         repeat the p / P search forwards / backwards",
	"  e, E         go to the next / previous CPU exception (E, EXC lines)",
	"  m            open a memory view at an address (prompts)",
	"  r            show or hide the core registers",
	"  S            show or hide the single-precision FP registers",
	"  D            show or hide the double-precision FP registers",
	"  V            show or hide the NEON vector registers",
	"  M            show or hide the MVE vector registers",
	"  c            show or hide the call stack",
	"  s            show or hide the source (with --image)",
	"  a            highlight the next register or memory line of the",
	"               instruction above the marker (cycles, then off)",
	"  Return       go to the previous write of the highlighted",
	"               register or memory",
	"  F6           syntax highlighting on or off",
	"  F7           symbolic branch targets on or off (needs --image)",
	NULL
};

static const char *const regmem[] = {
	"Register and memory panes",
	"",
	"  Up, Down, Left, Right  move the cursor",
	"  Return       go to the previous write of the register or byte",
	"  < and >      make the pane one line shorter / taller",
	"  l            lock the pane to a line number (prompts)",
	"  t            lock the pane to a time (prompts)",
	"  Ctrl-L       unlock a locked pane, or lock it where it is",
	"",
	"Changed values (since the last move) are highlighted; values the",
	"trace has not shown yet are shown as ??.",
	NULL
};

static const char *const regs[] = {
	"Register panes",
	"",
	"  a            show in the status line the symbol that the",
	"               selected register's value points to (needs --image)",
	"",
	"The core pane's pc is the address of the last instruction executed:",
	"the one just above the marker (after a folded call, the call's return",
	"instruction).  It is highlighted only when that instruction was reached",
	"by a jump (taken branch, call, return, exception), not by falling",
	"through.  Return on pc goes to the previous visit of that address",
	"(then n / N in the trace pane: next / previous visit).",
	NULL
};

static const char *const mem[] = {
	"Memory panes",
	"",
	"  PgUp, PgDn   scroll by a pane",
	"  [ and ]      previous / next highlighted (changed) address",
	"  d            compare against a line: highlight everything written",
	"               between that line and the position shown (prompts;",
	"               an empty answer goes back to the changes of the last move)",
	"  1 2 4 8      go to the previous write to any part of the aligned",
	"               1-, 2-, 4- or 8-byte region under the cursor",
	"  x            close this memory view",
	NULL
};

static const char *const calls[] = {
	"Call-stack pane",
	"",
	"The chain of calls active at the current position, innermost first.",
	"With --image it shows the frame-pointer walk at the instruction above",
	"the marker instead (as tracekit backtrace prints it, with FILE:LINE);",
	"a '!' marks a frame where the call tree's stack differs.",
	"",
	"  Up, Down     select a call",
	"  Return       go to the call site of the selected call",
	"  C            switch between the frame walk and the call tree's stack",
	"  < and >      make the pane one line shorter / taller",
	NULL
};

static const char *const source[] = {
	"Source pane",
	"",
	"The source line of the instruction above the marker (--image with",
	"DWARF), highlighted.  The file is read at the path the image gives,",
	"else under --source-dir=DIR (that path, then the file name alone).",
	"",
	"  Up, Down     scroll (the marker stays)",
	"  Home         back to the current line",
	"  < and >      make the pane one line shorter / taller",
	NULL
};

/* The help of a pane: its own keys first, then the general ones. */
static int collect(tkb_pane_kind kind, const char **out, int max)
{
	const char *const *parts[4] = {0};
	int n = 0, np = 0;

	switch (kind) {
	case TKB_PANE_TRACE:
		parts[np++] = trace_help;
		break;
	case TKB_PANE_MEMORY:
		parts[np++] = mem;
		parts[np++] = regmem;
		break;
	case TKB_PANE_CALLS:
		parts[np++] = calls;
		break;
	case TKB_PANE_SOURCE:
		parts[np++] = source;
		break;
	default:
		parts[np++] = regs;
		parts[np++] = regmem;
		break;
	}
	parts[np++] = general;
	for (int i = 0; i < np; i++) {
		for (const char *const *l = parts[i]; *l && n < max; l++)
			out[n++] = *l;
		if (n < max)
			out[n++] = "";
	}
	return n;
}

const char *const *tkb_help_text(tkb_pane_kind kind)
{
	static const char *lines[200];
	int n = collect(kind, lines, 199);
	lines[n] = NULL;
	return lines;
}

void tkb_help(tkb *b, tkb_pane_kind kind)
{
	const char *const *lines = tkb_help_text(kind);
	int n = 0, top = 0;
	while (lines[n])
		n++;
	for (;;) {
		int h = LINES - 1;
		if (top > n - h)
			top = n - h;
		if (top < 0)
			top = 0;
		erase();
		for (int y = 0; y < h && top + y < n; y++) {
			const char *l = lines[top + y];
			bool title = l[0] && l[0] != ' ' && (top + y == 0 || !lines[top + y - 1][0]) &&
				     strchr(l, ':') == NULL && strlen(l) < 30;
			tkb_put(y, 1, COLS, tkb_attr(b, title ? TKB_A_PROMPT : TKB_A_NORMAL), l, (int)strlen(l));
		}
		char bottom[128];
		snprintf(bottom, sizeof bottom, "-- help (%d/%d): Up/Down/PgUp/PgDn scroll, any other key returns --",
			 top + 1, n);
		tkb_put(LINES - 1, 0, COLS, tkb_attr(b, TKB_A_STATUS), bottom, (int)strlen(bottom));
		refresh();
		int c = getch();
		switch (c) {
		case KEY_UP:
			top--;
			break;
		case KEY_DOWN:
			top++;
			break;
		case KEY_PPAGE:
			top -= h - 1;
			break;
		case KEY_NPAGE:
			top += h - 1;
			break;
		case KEY_RESIZE:
		case ERR:
			break;
		default:
			return;
		}
	}
}
#endif
