/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit test of lib/analysis/loop_detect.c (Arm's truncate rule, loop.h):
 * hand-made event streams with the line each must stop at, then random
 * streams checked against the rule computed the slow way, from the whole
 * history, for every line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/loop.h"

#include "../check.h"

/* A line of a synthetic trace. */
enum kind { INSN, REG, TEXT, EXC, MEM, ABORT, NAMED };
struct line {
	enum kind kind;
	uint64_t v;		/* pc, register value, text id, address */
	int reg;		/* register (REG: x0 + reg; NAMED: name id) */
};

static const char *const texts[] = {"A", "B", "C", "D", "E DebugEvent_Halt", "F", "G", "H", "I",
				    "J"};

/* The events of one line. */
static size_t make_event(const struct line *l, tk_event *ev, uint8_t *bytes, uint8_t *state,
			 char *name)
{
	memset(ev, 0, sizeof *ev);
	switch (l->kind) {
	case INSN:
		ev->kind = TK_EV_INSN;
		ev->u.insn.pc = l->v;
		ev->u.insn.isa = TK_ISA_A64;
		ev->u.insn.width = 4;
		ev->u.insn.executed = true;
		return 1;
	case REG:
	case NAMED:
		ev->kind = TK_EV_REG;
		for (int i = 0; i < 8; i++) {
			bytes[i] = (uint8_t)(l->v >> (8 * i));
			state[i] = TK_BYTE_SET;
		}
		ev->u.reg.value = bytes;
		ev->u.reg.state = state;
		ev->u.reg.view.len = 8;
		if (l->kind == REG) {
			ev->u.reg.view.reg = (tk_reg)(TK_REG_X0 + l->reg);
		} else {
			/* Unmodelled registers are told apart by name, case aside. */
			ev->u.reg.view.reg = TK_REG_NONE;
			sprintf(name, l->v & 1 ? "SCTLR_%d" : "sctlr_%d", l->reg);
			ev->u.reg.name = name;
			ev->u.reg.name_len = strlen(name);
			bytes[0] &= 0xfe;
		}
		return 1;
	case TEXT:
		ev->kind = TK_EV_TEXT;
		ev->u.text.text = texts[l->v];
		ev->u.text.len = strlen(texts[l->v]);
		ev->u.text.kind = texts[l->v];
		ev->u.text.kind_len = 1;
		return 1;
	case EXC:
		ev->kind = TK_EV_TEXT;
		ev->u.text.text = "E 00000010 00000001 CoreEvent_SVC";
		ev->u.text.len = strlen(ev->u.text.text);
		ev->u.text.kind = "E";
		ev->u.text.kind_len = 1;
		return 1;
	case MEM:
	case ABORT:
		ev->kind = TK_EV_MEM;
		ev->u.mem.addr = l->v;
		ev->u.mem.size = 4;
		ev->u.mem.aborted = l->kind == ABORT;
		memset(bytes, 0, 4);
		memset(state, l->kind == ABORT ? TK_BYTE_NONE : TK_BYTE_SET, 4);
		ev->u.mem.bytes = bytes;
		ev->u.mem.state = state;
		return 1;
	}
	return 0;
}

/* Run the detector; the 0-based line it stops at, or -1. */
static long detect(const struct line *t, long n, int *why)
{
	tk_loopdet *d;
	CHECK(tk_loopdet_new(&d) == 0);
	long stop = -1;
	for (long i = 0; i < n && stop < 0; i++) {
		tk_event ev;
		uint8_t bytes[8], state[8];
		char name[32];
		size_t ne = make_event(&t[i], &ev, bytes, state, name);
		int r = tk_loopdet_line(d, &ev, ne);
		CHECK(r >= 0);
		if (r > 0) {
			stop = i;
			*why = r;
		}
	}
	tk_loopdet_free(d);
	return stop;
}

/* ---- the rule, the slow way -------------------------------------------------- */

/* Does the register line i change its register's value (or is it its
 * first write)?  From the whole history. */
static int changes(const struct line *t, long i)
{
	/* NAMED lines carry the name's case in bit 0 (not part of the value). */
	uint64_t mask = t[i].kind == NAMED ? ~1ull : ~0ull;
	for (long j = i - 1; j >= 0; j--)
		if (t[j].kind == t[i].kind && t[j].reg == t[i].reg)
			return (t[j].v & mask) != (t[i].v & mask);
	return 1;
}

static int is_text(const struct line *l)
{
	return l->kind == TEXT || l->kind == ABORT;
}

static int same_text(const struct line *a, const struct line *b)
{
	return a->kind == b->kind && a->v == b->v;
}

static long reference(const struct line *t, long n, int *why)
{
	for (long i = 0; i < n; i++) {
		if (t[i].kind == INSN) {
			/* The pcs of the last 16 instructions since the last
			 * register line that changed a value. */
			long seen = 0;
			for (long j = i - 1; j >= 0 && seen < 16; j--) {
				if ((t[j].kind == REG || t[j].kind == NAMED) && changes(t, j))
					break;
				if (t[j].kind == INSN) {
					if (t[j].v == t[i].v) {
						*why = TK_LOOP_PC;
						return i;
					}
					seen++;
				}
			}
		} else if (is_text(&t[i])) {
			/* The text-only lines since the last instruction or
			 * register line, the last 32 of them. */
			const struct line *w[32];
			long m = 0;
			for (long j = i; j >= 0 && m < 32; j--) {
				if (t[j].kind == INSN || t[j].kind == REG || t[j].kind == NAMED)
					break;
				if (is_text(&t[j]))
					w[m++] = &t[j];	/* w[0] is the newest */
			}
			for (long k = 8; 2 * k <= m; k++) {
				long s = 0;
				while (s < k && same_text(w[s], w[s + k]))
					s++;
				if (s == k) {
					*why = TK_LOOP_TEXT;
					return i;
				}
			}
		}
	}
	return -1;
}

/* ---- cases -------------------------------------------------------------------------- */

#define N(a) ((long)(sizeof a / sizeof a[0]))

static void expect(const char *name, const struct line *t, long n, long want, int want_why)
{
	int why = 0, rwhy = 0;
	long got = detect(t, n, &why);
	long ref = reference(t, n, &rwhy);
	CHECKF(got == want && (want < 0 || why == want_why), "%s: stopped at %ld (%d), want %ld (%d)",
	       name, got, why, want, want_why);
	CHECKF(ref == want, "%s: the reference stops at %ld, want %ld", name, ref, want);
}

static void hand_made(void)
{
	/* B . : the second visit of the address ends it. */
	struct line b_self[] = {{INSN, 0x100, 0}, {INSN, 0x104, 0}, {INSN, 0x104, 0}, {INSN, 0x104, 0}};
	expect("B .", b_self, N(b_self), 2, TK_LOOP_PC);
	/* A counting loop: r0 changes every round, never a cut. */
	struct line count[40];
	for (int i = 0; i < 20; i++) {
		count[2 * i] = (struct line){INSN, 0x200, 0};
		count[2 * i + 1] = (struct line){REG, (uint64_t)i + 1, 0};
	}
	expect("counting loop", count, N(count), -1, 0);
	/* The same value written again is no change: the window, emptied by
	 * the first write of r0 at line 1, holds 0x204 and 0x200 when 0x204
	 * comes back at line 5. */
	struct line same[] = {{INSN, 0x200, 0}, {REG, 5, 0}, {INSN, 0x204, 0},
			      {INSN, 0x200, 0}, {REG, 5, 0}, {INSN, 0x204, 0}};
	expect("same value", same, N(same), 5, TK_LOOP_PC);
	/* A first write is a change; memory lines change nothing. */
	struct line first[] = {{INSN, 0x300, 0}, {REG, 0, 1}, {INSN, 0x300, 0}, {MEM, 0x10, 0},
			       {INSN, 0x304, 0}, {INSN, 0x300, 0}};
	expect("first write", first, N(first), 5, TK_LOOP_PC);
	/* Only 16 addresses are remembered: a 17-instruction loop never cuts. */
	struct line long_loop[17 * 3];
	for (int i = 0; i < N(long_loop); i++)
		long_loop[i] = (struct line){INSN, 0x1000 + 4 * (uint64_t)(i % 17), 0};
	expect("17-instruction loop", long_loop, N(long_loop), -1, 0);
	struct line loop16[16 * 2 + 1];
	for (int i = 0; i < N(loop16); i++)
		loop16[i] = (struct line){INSN, 0x1000 + 4 * (uint64_t)(i % 16), 0};
	expect("16-instruction loop", loop16, N(loop16), 16, TK_LOOP_PC);
	/* Unmodelled registers by name, case aside: SCTLR_1 then sctlr_1 with
	 * the same value is no change. */
	struct line named[] = {{INSN, 0x40, 0}, {NAMED, 0x1201, 1}, {INSN, 0x44, 0},
			       {NAMED, 0x1200, 1}, {INSN, 0x44, 0}};
	expect("named registers", named, N(named), 4, TK_LOOP_PC);
	struct line named2[] = {{INSN, 0x40, 0}, {NAMED, 0x1201, 1}, {INSN, 0x44, 0},
				{NAMED, 0x1300, 1}, {INSN, 0x44, 0}};
	expect("named register changed", named2, N(named2), -1, 0);
	/* Text: a block of 8 repeated twice in a row ends it, at the line
	 * completing the repetition; 7 is not enough. */
	struct line text8[1 + 16 + 3];
	text8[0] = (struct line){INSN, 0x50, 0};
	for (int i = 0; i < 19; i++)
		text8[1 + i] = (struct line){TEXT, (uint64_t)(i % 8), 0};
	expect("text block of 8", text8, N(text8), 16, TK_LOOP_TEXT);
	struct line text7[1 + 30];
	text7[0] = (struct line){INSN, 0x50, 0};
	for (int i = 0; i < 30; i++)
		text7[1 + i] = (struct line){TEXT, (uint64_t)(i % 7), 0};
	/* Period 7: the first block length >= 8 it repeats with is 14, seen
	 * once 28 lines are in the window (line 28). */
	expect("text block of 7", text7, N(text7), 28, TK_LOOP_TEXT);
	/* A register line (even an unchanged one) empties the text window;
	 * exception lines and memory lines neither count nor empty it;
	 * aborted accesses are text lines. */
	struct line textreg[1 + 10 + 1 + 10];
	textreg[0] = (struct line){REG, 1, 2};
	for (int i = 0; i < 10; i++)
		textreg[1 + i] = (struct line){TEXT, (uint64_t)(i % 2), 0};
	textreg[11] = (struct line){REG, 1, 2};
	for (int i = 0; i < 10; i++)
		textreg[12 + i] = (struct line){TEXT, (uint64_t)(i % 2), 0};
	expect("register line empties text", textreg, N(textreg), -1, 0);
	struct line textexc[16 + 8];
	for (int i = 0, k = 0; i < N(textexc); i++)
		textexc[i] = i % 3 == 2 ? (struct line){i % 2 ? EXC : MEM, 4, 0}
					: (struct line){TEXT, (uint64_t)(k++ % 8), 0};
	/* The 16th text line is at index 22 (every third line is an E or a
	 * memory line). */
	expect("exception lines ignored", textexc, N(textexc), 22, TK_LOOP_TEXT);
	struct line aborts[16];
	for (int i = 0; i < 16; i++)
		aborts[i] = (struct line){ABORT, 0x10 + (uint64_t)(i % 8), 0};
	expect("aborted accesses", aborts, N(aborts), 15, TK_LOOP_TEXT);
	/* Only 32 text lines are remembered: a block of 17 never repeats
	 * within the window. */
	struct line text17[17 * 3];
	for (int i = 0; i < N(text17); i++)
		text17[i] = (struct line){TEXT, (uint64_t)(i % 17 < 10 ? i % 17 : 9), 0};
	expect("text block of 17", text17, N(text17), -1, 0);
}

/* Random streams over small alphabets, so loops of every kind happen. */
static void random_streams(void)
{
	static struct line t[400];
	unsigned seed = 12345;
	int stops = 0, pcstops = 0, textstops = 0;
	for (int round = 0; round < 3000; round++) {
		int style = round % 3;
		for (long i = 0; i < N(t); i++) {
			seed = seed * 1103515245 + 12345;
			unsigned r = (seed >> 16) & 0x7fff;
			int p = r % 100;
			if (style == 0)	/* instructions, registers */
				t[i] = p < 55 ? (struct line){INSN, 0x100 + 4 * (uint64_t)(r % 24), 0}
				       : p < 85 ? (struct line){REG, (uint64_t)(r % 3), (int)(r % 2)}
				       : p < 95 ? (struct line){NAMED, (uint64_t)(r % 4) << 8 | (r & 1), (int)(r % 2)}
						: (struct line){MEM, r, 0};
			else if (style == 1)	/* mostly text */
				t[i] = p < 80 ? (struct line){TEXT, (uint64_t)(r % 2), 0}
				       : p < 88 ? (struct line){EXC, 0, 0}
				       : p < 94 ? (struct line){ABORT, r % 2, 0}
				       : p < 97 ? (struct line){MEM, r, 0} : (struct line){REG, r % 2, 0};
			else	/* a mixture */
				t[i] = p < 30 ? (struct line){INSN, 0x100 + 4 * (uint64_t)(r % 40), 0}
				       : p < 45 ? (struct line){REG, (uint64_t)(r % 5), (int)(r % 3)}
				       : (struct line){TEXT, (uint64_t)(r % 3), 0};
		}
		int why = 0, rwhy = 0;
		long got = detect(t, N(t), &why);
		long ref = reference(t, N(t), &rwhy);
		CHECKF(got == ref && (got < 0 || why == rwhy), "random round %d: %ld (%d), reference %ld (%d)",
		       round, got, why, ref, rwhy);
		if (got >= 0) {
			stops++;
			pcstops += why == TK_LOOP_PC;
			textstops += why == TK_LOOP_TEXT;
		}
	}
	/* The streams must exercise both rules. */
	CHECKF(pcstops > 100 && textstops > 100, "random streams: %d pc stops, %d text stops",
	       pcstops, textstops);
	printf("random streams: %d of 3000 stop (%d pc, %d text)\n", stops, pcstops, textstops);
}

int main(void)
{
	hand_made();
	random_streams();
	return check_report("loop detector");
}
