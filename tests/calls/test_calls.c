/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of the call detector on synthetic event streams.
 *
 * Each test plays a small program as the Tarmac source would present it
 * (instruction events followed by their register updates) and checks the
 * tree: "(ENTRY CHILD...)" in preorder, entry pcs in hex, root first.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tracekit/calls.h"
#include "tracekit/error.h"

/* ---- a synthetic trace ---------------------------------------------------- */

struct sim {
	tk_calls *calls;
	tk_isa isa;
	uint64_t time, line;
	bool time_frozen;
	bool debug_off;		/* collect no explanations (big tests) */
	char debug[1 << 16];
};

static void on_debug(void *ctx, const char *msg)
{
	struct sim *s = ctx;
	if (s->debug_off)
		return;
	size_t n = strlen(s->debug);
	if (n + strlen(msg) + 2 > sizeof s->debug)
		n = s->debug[0] = 0;	/* keep the latest messages */
	snprintf(s->debug + n, sizeof s->debug - n, "%s\n", msg);
}

static void sim_init(struct sim *s, tk_isa isa, const tk_calls_sink *sink)
{
	memset(s, 0, sizeof *s);
	s->isa = isa;
	tk_calls_opts o;
	tk_calls_opts_init(&o);
	o.debug = on_debug;
	o.debug_ctx = s;
	o.sink = sink;
	if (tk_calls_new(&o, &s->calls) < 0)
		abort();
}

static void feed(struct sim *s, tk_event *ev)
{
	ev->line = ++s->line;
	ev->offset = ev->line * 100;
	ev->time = s->time;
	if (tk_calls_feed(s->calls, ev) < 0)
		abort();
}

static void insn_br(struct sim *s, uint64_t pc, bool executed, tk_branch br)
{
	tk_event ev = {.kind = TK_EV_INSN};
	if (!s->time_frozen)
		s->time += 10;
	ev.u.insn.pc = pc;
	ev.u.insn.isa = s->isa;
	ev.u.insn.width = s->isa == TK_ISA_T32 ? 2 : 4;
	ev.u.insn.executed = executed;
	ev.u.insn.branch = br;
	feed(s, &ev);
}

static void insn(struct sim *s, uint64_t pc) { insn_br(s, pc, true, TK_BR_UNKNOWN); }
static void insn_failed(struct sim *s, uint64_t pc) { insn_br(s, pc, false, TK_BR_UNKNOWN); }

/* Instructions at pc, pc+w, ... up to (not including) end. */
static void run(struct sim *s, uint64_t pc, uint64_t end)
{
	unsigned w = s->isa == TK_ISA_T32 ? 2 : 4;
	for (; pc < end; pc += w)
		insn(s, pc);
}

static void reg(struct sim *s, tk_reg r, uint64_t value)
{
	uint8_t bytes[8], state[8];
	unsigned len = (r >= TK_REG_X0 && r <= TK_REG_XSP) ? 8 : 4;
	for (unsigned i = 0; i < 8; i++) {
		bytes[i] = (uint8_t)(value >> (8 * i));
		state[i] = 1;
	}
	tk_event ev = {.kind = TK_EV_REG};
	ev.u.reg.view = (tk_reg_view){r, 0, (uint16_t)len};
	ev.u.reg.value = bytes;
	ev.u.reg.state = state;
	feed(s, &ev);
}

static bool a64(struct sim *s) { return s->isa == TK_ISA_A64; }
static void lr(struct sim *s, uint64_t v) { reg(s, a64(s) ? TK_REG_X30 : TK_REG_R14, v); }
static void sp(struct sim *s, uint64_t v) { reg(s, a64(s) ? TK_REG_XSP : TK_REG_R13, v); }

/* BL at pc to target: the instruction and its lr write (natural return). */
static void bl(struct sim *s, uint64_t pc, uint64_t target)
{
	(void)target;
	insn(s, pc);
	lr(s, pc + 4 + (s->isa == TK_ISA_T32));
}

/* ---- printing a tree -------------------------------------------------------- */

static void tree_str_at(const tk_calltree *t, uint32_t i, char *buf, size_t size)
{
	size_t n = strlen(buf);
	snprintf(buf + n, size - n, "(%llx", (unsigned long long)t->calls[i].entry.pc);
	for (uint32_t c = t->calls[i].first_child; c != TK_CALL_NONE; c = t->calls[c].next_sibling) {
		n = strlen(buf);
		snprintf(buf + n, size - n, " ");
		tree_str_at(t, c, buf, size);
	}
	n = strlen(buf);
	snprintf(buf + n, size - n, ")");
}

static char tree_buf[8192];

/* Finish the sim and describe its tree; checks the structural invariants. */
static const char *finish(struct sim *s, tk_calltree **keep)
{
	tk_calltree *t;
	if (tk_calls_finish(s->calls, &t) < 0)
		abort();
	tk_calls_free(s->calls);
	tree_buf[0] = 0;
	/* every root (one per context), space-separated */
	for (uint32_t r = 0; r < t->count && r != TK_CALL_NONE; r = t->calls[r].next_sibling) {
		if (r) {
			size_t n = strlen(tree_buf);
			snprintf(tree_buf + n, sizeof tree_buf - n, " ");
		}
		CHECK(t->calls[r].parent == TK_CALL_NONE && t->calls[r].depth == 0 &&
		      (t->calls[r].flags & TK_CALL_ROOT));
		tree_str_at(t, r, tree_buf, sizeof tree_buf);
	}
	/* preorder numbering, parents, depths, time order of siblings */
	for (uint32_t i = 1; i < t->count; i++) {
		const tk_call *c = &t->calls[i];
		if (c->parent == TK_CALL_NONE)
			continue;	/* another context's root */
		CHECK(c->parent < i);
		CHECK(c->context == t->calls[c->parent].context);
		CHECK(c->depth == t->calls[c->parent].depth + 1);
		/* (function-level events: call = entry, exit = resume) */
		CHECK(c->call.line <= c->entry.line && c->entry.line <= c->exit.line &&
		      c->exit.line <= c->resume.line);
		if (c->next_sibling != TK_CALL_NONE)
			CHECK(t->calls[c->next_sibling].call.line >= c->resume.line);
	}
	if (keep)
		*keep = t;
	else
		tk_calltree_free(t);
	return tree_buf;
}

/* ---- the tests ------------------------------------------------------------- */

/* main calls f by BL; f calls g by BL; returns by BX lr and POP {pc}. */
static void test_a32_nested(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A32, NULL);
	sp(&s, 0x10000);		/* register dump before the first insn */
	insn(&s, 0x8000);
	bl(&s, 0x8004, 0x9000);		/* line 4: call f */
	insn(&s, 0x9000);		/* f: PUSH {lr} */
	sp(&s, 0xfffc);
	bl(&s, 0x9004, 0xa000);		/* call g */
	run(&s, 0xa000, 0xa008);
	insn(&s, 0xa008);		/* g: BX lr */
	insn(&s, 0x9008);		/* back in f: POP {pc} */
	sp(&s, 0x10000);
	insn(&s, 0x8008);		/* back in main */
	insn(&s, 0x800c);
	tk_calltree *t;
	CHECK_STR(finish(&s, &t), "(8000 (9000 (a000)))");
	CHECK(t->count == 3);
	const tk_call *f = &t->calls[1];
	CHECK(f->call.pc == 0x8004 && f->entry.pc == 0x9000);
	CHECK(f->exit.pc == 0x9008 && f->resume.pc == 0x8008);
	CHECK(f->call.line == 3 && f->entry.line == 5);
	CHECK(f->call.offset == 300 && f->call.time == 20);
	const tk_call *root = &t->calls[0];
	CHECK(root->entry.pc == 0x8000 && root->exit.pc == 0x800c);
	CHECK(root->entry.pos == 0 && root->exit.pos == 9);
	CHECK(t->calls[2].exit.pc == 0xa008 && t->calls[2].resume.pc == 0x9008);
	tk_calltree_free(t);
}

/* A stunt call: lr loaded 2 instructions before a BX r1, pointing a few
 * instructions past the natural return (the scatter-loading pattern). */
static void test_stunt_call(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A32, NULL);
	sp(&s, 0x10000);
	insn(&s, 0x8000);		/* loop top */
	insn(&s, 0x8004);		/* LDR lr,=0x8000 */
	lr(&s, 0x8000);
	insn(&s, 0x8008);		/* MOV r0,#1 */
	insn(&s, 0x800c);		/* BX r1 -> 0x9000 */
	run(&s, 0x9000, 0x9010);	/* callee, BX lr at 0x900c */
	insn(&s, 0x8000);		/* returns to the loop top */
	insn(&s, 0x8004);
	CHECK_STR(finish(&s, NULL), "(8000 (9000))");
	CHECK(strstr(s.debug, "potential call: lr 0x8000 written 2 instructions before the branch, "
			      "16 bytes from 0x8010") != NULL);
}

/* BL used as a long branch inside a function: lr is never returned to.
 * The function's own call is still found, with the call made after the
 * long branch as its child. */
static void test_bl_long_branch(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_T32, NULL);
	sp(&s, 0x10000);
	insn(&s, 0x8000);
	bl(&s, 0x8002, 0x9000);		/* call f (lr 0x8007: Thumb bit) */
	insn(&s, 0x9000);		/* f: PUSH {r4,lr} */
	sp(&s, 0xfff8);
	bl(&s, 0x9002, 0x9800);		/* BL as a long branch */
	run(&s, 0x9800, 0x9806);
	bl(&s, 0x9806, 0xa000);		/* call g */
	run(&s, 0xa000, 0xa004);	/* g: BX lr at 0xa002 */
	insn(&s, 0x980a);		/* POP {r4,pc} */
	sp(&s, 0x10000);
	insn(&s, 0x8006);
	CHECK_STR(finish(&s, NULL), "(8000 (9000 (a000)))");
	CHECK(strstr(s.debug, "discarded: sp rose to 0x10000 above its 0xfff8") != NULL);
}

/* BX lr as a table branch: ADD lr,pc,r1,LSL #3; BX lr.  The transfer goes
 * to lr itself; nothing ever returns there, so no call appears. */
static void test_bx_lr_table_branch(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A32, NULL);
	sp(&s, 0x10000);
	insn(&s, 0x8000);
	bl(&s, 0x8004, 0x9000);		/* call f */
	insn(&s, 0x9000);		/* PUSH {r4,lr} */
	sp(&s, 0xfff8);
	insn(&s, 0x9004);		/* ADD lr,pc,r1,LSL #3 */
	lr(&s, 0x9020);
	insn(&s, 0x9008);		/* BX lr */
	insn(&s, 0x9020);		/* case 3 */
	insn(&s, 0x9024);		/* B done */
	insn(&s, 0x9030);		/* POP {r4,pc} */
	sp(&s, 0x10000);
	insn(&s, 0x8008);
	CHECK_STR(finish(&s, NULL), "(8000 (9000))");
}

/* Tail call: f jumps to h with B; h returns straight to main.  h's code is
 * part of f's activation. */
static void test_tail_call(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A64, NULL);
	sp(&s, 0x100000);
	insn(&s, 0x1000);
	bl(&s, 0x1004, 0x2000);		/* call f */
	run(&s, 0x2000, 0x2008);	/* f */
	insn(&s, 0x2008);		/* B h: lr written 3 insns ago, but 0x1008 is far */
	run(&s, 0x3000, 0x300c);	/* h, RET at 0x3008 */
	insn(&s, 0x1008);
	tk_calltree *t;
	CHECK_STR(finish(&s, &t), "(1000 (2000))");
	CHECK(t->calls[1].exit.pc == 0x3008);
	tk_calltree_free(t);
	CHECK(strstr(s.debug, "not a call: lr 0x1008 is 4100 bytes from the natural return 0x200c") != NULL);
}

/* sp rising above a potential call's sp kills it, even if sp comes back. */
static void test_sp_rise_kills(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A32, NULL);
	sp(&s, 0x10000);
	insn(&s, 0x8000);
	bl(&s, 0x8004, 0x9000);
	insn(&s, 0x9000);		/* ADD sp,sp,#8: above the caller's sp */
	sp(&s, 0x10008);
	insn(&s, 0x9004);		/* SUB sp,sp,#8 */
	sp(&s, 0x10000);
	insn(&s, 0x9008);		/* BX lr: lr and sp both match, too late */
	insn(&s, 0x8008);
	CHECK_STR(finish(&s, NULL), "(8000)");
	CHECK(strstr(s.debug, "discarded: sp rose to 0x10008 above its 0x10000") != NULL);

	/* Equal sp in between is fine. */
	sim_init(&s, TK_ISA_A32, NULL);
	sp(&s, 0x10000);
	insn(&s, 0x8000);
	bl(&s, 0x8004, 0x9000);
	insn(&s, 0x9000);
	sp(&s, 0xfff0);
	insn(&s, 0x9004);
	sp(&s, 0x10000);
	insn(&s, 0x9008);
	insn(&s, 0x8008);
	CHECK_STR(finish(&s, NULL), "(8000 (9000))");
}

/* The return must restore sp exactly: a return with a lower sp is not a
 * match (e.g. the callee jumps back to the caller without popping). */
static void test_sp_must_match(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A64, NULL);
	sp(&s, 0x100000);
	insn(&s, 0x1000);
	bl(&s, 0x1004, 0x2000);
	insn(&s, 0x2000);		/* STP x29,x30,[sp,#-16]! */
	sp(&s, 0xffff0);
	insn(&s, 0x2004);		/* BR x30 without restoring sp */
	insn(&s, 0x1008);
	CHECK_STR(finish(&s, NULL), "(1000)");
}

/* A64 with several levels, calls confirmed inside a potential call that
 * is itself never confirmed, and recursion. */
static void test_a64_recursion(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A64, NULL);
	sp(&s, 0x100000);
	insn(&s, 0x1000);
	/* fact(2) -> fact(1) -> fact(0) */
	uint64_t stack = 0x100000;
	bl(&s, 0x1004, 0x2000);
	for (int depth = 0; depth < 3; depth++) {
		insn(&s, 0x2000);	/* STP x29,x30,[sp,#-16]! */
		stack -= 16;
		sp(&s, stack);
		if (depth < 2)
			bl(&s, 0x2004, 0x2000);
	}
	insn(&s, 0x2004);		/* depth 2: skips the call */
	for (int depth = 2; depth >= 0; depth--) {
		insn(&s, 0x2008);	/* LDP x29,x30,[sp],#16 */
		stack += 16;
		sp(&s, stack);
		lr(&s, depth ? 0x2008 : 0x1008);
		insn(&s, 0x200c);	/* RET */
	}
	insn(&s, 0x1008);
	CHECK_STR(finish(&s, NULL), "(1000 (2000 (2000 (2000))))");
}

/* lr written exactly 7 instructions before the branch (8 instructions
 * counting the branch) makes a potential call; 8 before does not. */
static void test_lr_window(void)
{
	for (int gap = 6; gap <= 7; gap++) {
		struct sim s;
		sim_init(&s, TK_ISA_A32, NULL);
		sp(&s, 0x10000);
		insn(&s, 0x8000);		/* LDR lr,=0x8000+4*(gap+2) */
		uint64_t ret = 0x8004 + 4 * (uint64_t)(gap + 1);
		lr(&s, ret);
		run(&s, 0x8004, 0x8004 + 4 * (uint64_t)gap);
		insn(&s, 0x8004 + 4 * (uint64_t)gap);	/* B 0x9000 */
		run(&s, 0x9000, 0x9008);		/* BX lr */
		insn(&s, ret);
		CHECK_STR(finish(&s, NULL), gap == 6 ? "(8000 (9000))" : "(8000)");
		if (gap == 7)
			CHECK(strstr(s.debug, "not a call: lr last written 8 instructions before the branch")
			      != NULL);
	}
}

/* Condition-failed instructions are part of the sequence: they count in
 * the lr window, and falling through them is no transfer. */
static void test_condition_failed(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A32, NULL);
	sp(&s, 0x10000);
	insn(&s, 0x8000);		/* LDR lr,=0x8020 */
	lr(&s, 0x8020);
	for (uint64_t pc = 0x8004; pc < 0x8020; pc += 4)
		insn_failed(&s, pc);	/* 7 failed conditionals */
	insn(&s, 0x8020);		/* falls through: 8 insns after the LDR */
	insn(&s, 0x8024);		/* B 0x9000: lr 9 instructions old */
	run(&s, 0x9000, 0x9008);
	insn(&s, 0x8020);
	CHECK_STR(finish(&s, NULL), "(8000)");
	CHECK(strstr(s.debug, "jump 0x801c") == NULL);	/* no transfer seen there */
}

/* The distance bound: lr 64 bytes past the natural return qualifies, 68
 * does not. */
static void test_lr_distance(void)
{
	for (int extra = 64; extra <= 68; extra += 4) {
		struct sim s;
		sim_init(&s, TK_ISA_A32, NULL);
		sp(&s, 0x10000);
		insn(&s, 0x8000);	/* LDR lr,=... */
		uint64_t ret = 0x8008 + (uint64_t)extra;
		lr(&s, ret);
		insn(&s, 0x8004);	/* BX r1 */
		run(&s, 0x9000, 0x9008);
		insn(&s, ret);
		CHECK_STR(finish(&s, NULL), extra == 64 ? "(8000 (9000))" : "(8000)");
	}
}

/* Thumb: lr has bit 0 set, instructions are 2 bytes. */
static void test_thumb(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_T32, NULL);
	sp(&s, 0x20000);
	insn(&s, 0x100);
	insn(&s, 0x102);		/* BLX r3: 2 bytes, lr = 0x105 */
	lr(&s, 0x105);
	run(&s, 0x400, 0x404);		/* BX lr at 0x402 */
	insn(&s, 0x104);
	tk_calltree *t;
	CHECK_STR(finish(&s, &t), "(100 (400))");
	CHECK(t->calls[1].call.pc == 0x102 && t->calls[1].resume.pc == 0x104);
	tk_calltree_free(t);
}

/* Calls confirmed inside a potential call that is dropped (a BL used as a
 * branch, then the enclosing function returns) stay in time order under
 * the enclosing call. */
static void test_children_order(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A64, NULL);
	sp(&s, 0x100000);
	insn(&s, 0x1000);
	bl(&s, 0x1004, 0x2000);		/* call f */
	insn(&s, 0x2000);
	sp(&s, 0xffff0);
	bl(&s, 0x2004, 0x3000);		/* call a */
	insn(&s, 0x3000);		/* a: RET */
	insn(&s, 0x2008);
	bl(&s, 0x200c, 0x2100);		/* BL as a branch: lr 0x2010 never used */
	bl(&s, 0x2100, 0x4000);		/* call b */
	insn(&s, 0x4000);		/* b: RET */
	insn(&s, 0x2104);
	bl(&s, 0x2108, 0x5000);		/* call c */
	insn(&s, 0x5000);
	insn(&s, 0x210c);		/* LDP; RET */
	sp(&s, 0x100000);
	lr(&s, 0x1008);
	insn(&s, 0x2110);
	insn(&s, 0x1008);
	CHECK_STR(finish(&s, NULL), "(1000 (2000 (3000) (4000) (5000)))");
}

/* A new potential call identical to the newest pending one supersedes it:
 * a leaf called in a loop, placed just before its call site, leaves a
 * dead potential call at each return; they must not pile up. */
static void test_supersede(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A32, NULL);
	sp(&s, 0x10000);
	insn(&s, 0x8000);
	for (int i = 0; i < 1000; i++) {
		bl(&s, 0x8010, 0x8004);	/* call leaf at 0x8004 */
		insn(&s, 0x8004);
		insn(&s, 0x8008);	/* BX lr -> 0x8014: lr near, a dead potential call */
		insn(&s, 0x8014);	/* B 0x8010 */
	}
	tk_calltree *t;
	finish(&s, &t);
	CHECK(t->count == 1001);
	tk_calltree_free(t);
	CHECK(strstr(s.debug, "superseded") != NULL);
}

/* Far more never-returned potential calls than are kept: memory stays
 * bounded and the calls made meanwhile are still found. */
static void test_many_pending(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A64, NULL);
	sp(&s, 0x100000);
	insn(&s, 0x1000);
	uint64_t pc = 0x10000;
	for (int i = 0; i < 3 * TK_CALLS_MAX_PENDING; i++) {
		if (i % 1000 == 0) {
			bl(&s, pc, 0x2000);	/* a real call */
			insn(&s, 0x2000);	/* RET */
			pc += 4;
		}
		bl(&s, pc, pc + 0x100);	/* long branch, never returned to */
		pc += 0x100;
	}
	tk_calltree *t;
	finish(&s, &t);
	CHECK(t->count == 1 + (3 * TK_CALLS_MAX_PENDING + 999) / 1000);
	for (uint32_t i = 1; i < t->count; i++)
		CHECK(t->calls[i].depth == 1 && t->calls[i].entry.pc == 0x2000);
	tk_calltree_free(t);
	CHECK(strstr(s.debug, "forgetting the oldest") != NULL);
}

/* A source that knows its branches (e.g. Intel PT): no lr, no sp. */
static void test_known_branches(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_X86_64, NULL);
	insn_br(&s, 0x400000, true, TK_BR_NONE);
	insn_br(&s, 0x400004, true, TK_BR_CALL);	/* call f */
	insn_br(&s, 0x401000, true, TK_BR_CALL);	/* f: call g */
	insn_br(&s, 0x402000, true, TK_BR_JUMP);	/* g: jmp */
	insn_br(&s, 0x402100, true, TK_BR_RETURN);	/* g: ret */
	insn_br(&s, 0x401004, true, TK_BR_RETURN);	/* f: ret */
	insn_br(&s, 0x400008, true, TK_BR_NONE);
	CHECK_STR(finish(&s, NULL), "(400000 (401000 (402000)))");
}

/* Function-level events. */
static void test_func_events(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_UNKNOWN, NULL);
	tk_event ev = {.kind = TK_EV_CALL};
	ev.u.func.addr = 0x100;
	feed(&s, &ev);
	ev.u.func.addr = 0x200;
	feed(&s, &ev);
	ev.kind = TK_EV_RETURN;
	feed(&s, &ev);
	ev.u.func.addr = 0x300;		/* matches nothing */
	feed(&s, &ev);
	ev.kind = TK_EV_CALL;
	feed(&s, &ev);
	ev.kind = TK_EV_RETURN;
	ev.u.func.addr = 0x100;		/* closes 0x300 (it never returned), then 0x100 */
	feed(&s, &ev);
	tk_calltree *t;
	CHECK_STR(finish(&s, &t), "(0 (100 (200) (300)))");
	CHECK(t->count == 4 && (t->calls[3].flags & TK_CALL_UNWOUND) &&
	      !(t->calls[1].flags & TK_CALL_UNWOUND) && (t->calls[1].flags & TK_CALL_FIRM));
	CHECK_EQ(t->calls[3].exit.line, t->calls[1].exit.line);
	tk_calltree_free(t);
}

/* A function event of context ctx at time t. */
static void func(struct sim *s, tk_event_kind kind, uint32_t ctx, uint64_t addr)
{
	tk_event ev = {.kind = kind, .context = ctx};
	ev.u.func.addr = addr;
	s->time += 10;
	feed(s, &ev);
}

/* "CALL main, CALL f, RET f, CALL g": main and g never return.  Both are
 * closed at the end with their callees; the root spans the whole trace. */
static void test_func_unreturned(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_UNKNOWN, NULL);
	func(&s, TK_EV_CALL, 0, 0x100);
	func(&s, TK_EV_CALL, 0, 0x200);
	func(&s, TK_EV_RETURN, 0, 0x200);
	func(&s, TK_EV_CALL, 0, 0x300);
	tk_calltree *t;
	CHECK_STR(finish(&s, &t), "(0 (100 (200) (300)))");
	CHECK_EQ(t->count, 4);
	CHECK_EQ(t->nroots, 1);
	/* the root: the first step to the last, in trace time and steps */
	CHECK_EQ(t->calls[0].entry.time, 10);
	CHECK_EQ(t->calls[0].exit.time, 40);
	CHECK_EQ(t->calls[0].entry.pos, 0);
	CHECK_EQ(t->calls[0].exit.pos, 3);
	CHECK((t->calls[1].flags & TK_CALL_UNRETURNED) && (t->calls[3].flags & TK_CALL_UNRETURNED));
	CHECK(!(t->calls[2].flags & TK_CALL_UNRETURNED));
	CHECK_EQ(t->calls[1].exit.time, 40);
	CHECK_EQ(t->calls[3].exit.pos, 3);
	tk_calltree_free(t);
}

/* Several contexts: one stack and one root each, in order of appearance;
 * a return in one context never closes a call of another. */
static void test_func_contexts(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_UNKNOWN, NULL);
	func(&s, TK_EV_CALL, 7, 0x100);
	func(&s, TK_EV_CALL, 3, 0x500);
	func(&s, TK_EV_CALL, 7, 0x200);
	func(&s, TK_EV_RETURN, 3, 0x200);	/* no 0x200 open in context 3 */
	func(&s, TK_EV_CALL, 3, 0x600);
	func(&s, TK_EV_RETURN, 7, 0x200);
	func(&s, TK_EV_RETURN, 3, 0x600);
	func(&s, TK_EV_RETURN, 3, 0x500);
	tk_calltree *t;
	CHECK_STR(finish(&s, &t), "(0 (100 (200))) (0 (500 (600)))");
	CHECK_EQ(t->nroots, 2);
	CHECK_EQ(t->calls[0].context, 7);
	CHECK_EQ(t->calls[3].context, 3);
	/* each root spans its own context */
	CHECK_EQ(t->calls[0].entry.time, 10);
	CHECK_EQ(t->calls[0].exit.time, 60);
	CHECK_EQ(t->calls[3].entry.time, 20);
	CHECK_EQ(t->calls[3].exit.time, 80);
	CHECK(tk_calltree_keep_context(t, 3) == 0);
	CHECK_EQ(t->count, 3);
	CHECK_EQ(t->calls[0].context, 3);
	CHECK(t->calls[1].parent == 0 && t->calls[2].parent == 1);
	CHECK(tk_calltree_keep_context(t, 7) == TK_ERR_NOTFOUND);
	tk_calltree_free(t);
}

/* A million nested calls that all return: no recursion anywhere, exact. */
static void test_func_deep(void)
{
	enum { DEPTH = 1000000 };
	struct sim s;
	sim_init(&s, TK_ISA_UNKNOWN, NULL);
	s.debug_off = true;
	for (int i = 0; i < DEPTH; i++)
		func(&s, TK_EV_CALL, 0, 0x1000);
	for (int i = 0; i < DEPTH; i++)
		func(&s, TK_EV_RETURN, 0, 0x1000);
	tk_calltree *t;
	if (tk_calls_finish(s.calls, &t) < 0)
		abort();
	tk_calls_free(s.calls);
	CHECK_EQ(t->count, DEPTH + 1);
	CHECK_EQ(t->calls[DEPTH].depth, DEPTH);
	CHECK_EQ(t->calls[1].entry.pos, 0);
	CHECK_EQ(t->calls[1].exit.pos, 2 * DEPTH - 1);
	CHECK_EQ(t->calls[DEPTH].entry.pos, DEPTH - 1);
	CHECK_EQ(t->calls[DEPTH].exit.pos, DEPTH);
	bool unreturned = false;
	for (uint32_t i = 1; i < t->count; i++)
		unreturned |= (t->calls[i].flags & TK_CALL_UNRETURNED) != 0;
	CHECK(!unreturned);
	tk_calltree_free(t);

	/* and through the call-stack profile (merging forests) */
	tk_calls_sink sink;
	tk_callstacks *cs;
	CHECK(tk_callstacks_new(&cs, &sink) == 0);
	sim_init(&s, TK_ISA_UNKNOWN, &sink);
	s.debug_off = true;
	for (int rep = 0; rep < 2; rep++) {
		for (int i = 0; i < DEPTH; i++)
			func(&s, TK_EV_CALL, 0, 0x1000);
		for (int i = 0; i < DEPTH; i++)
			func(&s, TK_EV_RETURN, 0, 0x1000);
	}
	if (tk_calls_finish(s.calls, NULL) < 0)
		abort();
	tk_calls_free(s.calls);
	uint32_t n, root;
	const tk_stack_frame *f = tk_callstacks_frames(cs, &n, &root);
	uint32_t depth = 0, fr = root;
	bool twice = true;
	while (f[fr].first_child != TK_CALL_NONE) {
		fr = f[fr].first_child;
		twice &= f[fr].calls == 2 && f[fr].next_sibling == TK_CALL_NONE;
		depth++;
	}
	CHECK_EQ(depth, DEPTH);
	CHECK(twice);
	tk_callstacks_free(cs);
}

/* No call and no return is inferred across a gap. */
static void test_gap(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_X86_64, NULL);
	insn_br(&s, 0x400000, true, TK_BR_CALL);	/* call, then a gap */
	tk_event gap = {.kind = TK_EV_GAP};
	gap.u.gap.kind = TK_GAP_OVERFLOW;
	feed(&s, &gap);
	insn_br(&s, 0x401000, true, TK_BR_CALL);	/* not the callee: no frame */
	insn_br(&s, 0x402000, true, TK_BR_RETURN);
	insn_br(&s, 0x401004, true, TK_BR_NONE);	/* returns from 0x402000 */
	insn_br(&s, 0x401008, true, TK_BR_RETURN);	/* a gap before its target */
	feed(&s, &gap);
	insn_br(&s, 0x400005, true, TK_BR_NONE);
	CHECK_STR(finish(&s, NULL), "(400000 (402000))");
}

/* Known branches: a return to an outer frame's return address (longjmp)
 * closes the frames above it there. */
static void test_branch_longjmp(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_X86_64, NULL);
	insn_br(&s, 0x400000, true, TK_BR_CALL);	/* main calls a */
	insn_br(&s, 0x410000, true, TK_BR_CALL);	/* a calls b */
	insn_br(&s, 0x420000, true, TK_BR_CALL);	/* b calls c */
	insn_br(&s, 0x430000, true, TK_BR_NONE);
	insn_br(&s, 0x430004, true, TK_BR_RETURN);	/* c "returns" to main */
	insn_br(&s, 0x400004, true, TK_BR_CALL);	/* a call to the next insn: */
	insn_br(&s, 0x400008, true, TK_BR_RETURN);	/* ... no frame; nothing matches */
	insn_br(&s, 0x500000, true, TK_BR_NONE);
	tk_calltree *t;
	CHECK_STR(finish(&s, &t), "(400000 (410000 (420000 (430000))))");
	CHECK(t->count == 4 && !(t->calls[1].flags & TK_CALL_UNWOUND) &&
	      (t->calls[2].flags & TK_CALL_UNWOUND) && (t->calls[3].flags & TK_CALL_UNWOUND));
	CHECK_EQ(t->calls[1].resume.pc, 0x400004);
	tk_calltree_free(t);
}

/* x86's PIC idiom, "call next; pop reg": a call to the next instruction
 * (sequential flow, whatever its branch kind) opens no frame, so the
 * function's real return still closes its own call. */
static void x86(struct sim *s, uint64_t pc, uint8_t width, tk_branch br)
{
	tk_event ev = {.kind = TK_EV_INSN};
	s->time += 10;
	ev.u.insn.pc = pc;
	ev.u.insn.isa = TK_ISA_X86_64;
	ev.u.insn.width = width;
	ev.u.insn.executed = true;
	ev.u.insn.branch = br;
	feed(s, &ev);
}

static void test_call_next_insn(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_X86_64, NULL);
	x86(&s, 0x400000, 5, TK_BR_CALL);	/* main: call f */
	x86(&s, 0x401000, 5, TK_BR_CALL);	/* f: call 0x401005 (next) */
	x86(&s, 0x401005, 1, TK_BR_NONE);	/* pop %rbx */
	x86(&s, 0x401006, 5, TK_BR_CALL);	/* call g */
	x86(&s, 0x402000, 1, TK_BR_RETURN);	/* g: ret */
	x86(&s, 0x40100b, 1, TK_BR_RETURN);	/* f: ret */
	x86(&s, 0x400005, 1, TK_BR_NONE);	/* main goes on */
	tk_calltree *t;
	CHECK_STR(finish(&s, &t), "(400000 (401000 (402000)))");
	CHECK(t->count == 3 && !(t->calls[1].flags & (TK_CALL_UNWOUND | TK_CALL_UNRETURNED)));
	CHECK_EQ(t->calls[1].exit.pc, 0x40100b);
	CHECK_EQ(t->calls[1].resume.pc, 0x400005);
	tk_calltree_free(t);
}

/* A return whose target is its own natural successor is still a return:
 * it matches frames by its target (a "ret" that jumps to the next
 * instruction, which some call left as its return address). */
static void test_return_to_next_insn(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_X86_64, NULL);
	x86(&s, 0x401ffb, 5, TK_BR_CALL);	/* call 0x403000, back at 0x402000 */
	x86(&s, 0x403000, 2, TK_BR_JUMP);	/* jmp 0x401fff */
	x86(&s, 0x401fff, 1, TK_BR_RETURN);	/* ret to 0x402000 = 0x401fff + 1 */
	x86(&s, 0x402000, 1, TK_BR_NONE);
	tk_calltree *t;
	CHECK_STR(finish(&s, &t), "(401ffb (403000))");
	CHECK(t->count == 2 && !(t->calls[1].flags & (TK_CALL_UNWOUND | TK_CALL_UNRETURNED)));
	CHECK_EQ(t->calls[1].exit.pc, 0x401fff);
	CHECK_EQ(t->calls[1].resume.pc, 0x402000);
	tk_calltree_free(t);
}

/* A custom sink sees every call, forests joined in time order. */
struct count_sink {
	bool check_order;	/* forests made by the detector: older first */
	int confirms, joins, finishes;
	uint64_t root_exit;
};

static int cs_confirm(void *ctx, const tk_call *call, uint32_t children, uint32_t *out)
{
	struct count_sink *cs = ctx;
	(void)call;
	(void)children;
	cs->confirms++;
	*out = (uint32_t)cs->confirms;
	return 0;
}

static int cs_join(void *ctx, uint32_t a, uint32_t b, uint32_t *out)
{
	struct count_sink *cs = ctx;
	if (cs->check_order)
		CHECK(a < b);	/* earlier forests first */
	cs->joins++;
	*out = b;
	return 0;
}

static int cs_finish(void *ctx, const tk_call *root, uint32_t children)
{
	struct count_sink *cs = ctx;
	cs->finishes++;
	cs->root_exit = root->exit.pc;
	(void)children;
	return 0;
}

static void test_sink(void)
{
	struct count_sink cs = {.check_order = true};
	tk_calls_sink sink = {&cs, cs_confirm, cs_join, cs_finish};
	struct sim s;
	sim_init(&s, TK_ISA_A32, &sink);
	sp(&s, 0x10000);
	insn(&s, 0x8000);
	for (int i = 0; i < 3; i++) {
		bl(&s, 0x8004 + 8 * (uint64_t)i, 0x9000);
		insn(&s, 0x9000);
		insn(&s, 0x8008 + 8 * (uint64_t)i);
	}
	CHECK(tk_calls_finish(s.calls, NULL) == 0);
	tk_calls_free(s.calls);
	CHECK(cs.confirms == 3 && cs.joins == 2 && cs.finishes == 1);
	CHECK(cs.root_exit == 0x8018);
}

/* The call-stack profile: main calls f twice, f calls g once; times are
 * 10 per instruction. */
static const tk_stack_frame *child_at(const tk_stack_frame *f, uint32_t parent, uint64_t addr)
{
	for (uint32_t c = f[parent].first_child; c != TK_CALL_NONE; c = f[c].next_sibling)
		if (f[c].addr == addr)
			return &f[c];
	return NULL;
}

static void test_callstacks(void)
{
	tk_calls_sink sink;
	tk_callstacks *cs;
	CHECK(tk_callstacks_new(&cs, &sink) == 0);
	struct sim s;
	sim_init(&s, TK_ISA_A32, &sink);
	sp(&s, 0x10000);
	insn(&s, 0x8000);			/* insn 0, t 10 */
	bl(&s, 0x8004, 0x9000);			/* 1 */
	run(&s, 0x9000, 0x900c);		/* 2-4: f, BX lr at 0x9008 */
	bl(&s, 0x8008, 0x9000);			/* 5 */
	insn(&s, 0x9000);			/* 6: PUSH */
	sp(&s, 0xfff8);
	bl(&s, 0x9004, 0xa000);			/* 7 */
	run(&s, 0xa000, 0xa008);		/* 8-9: g */
	insn(&s, 0x9008);			/* 10: POP {pc} */
	sp(&s, 0x10000);
	insn(&s, 0x800c);			/* 11 */
	CHECK(tk_calls_finish(s.calls, NULL) == 0);
	tk_calls_free(s.calls);
	uint32_t root, count;
	const tk_stack_frame *f = tk_callstacks_frames(cs, &count, &root);
	CHECK(count == 3);	/* f, g, f (merged away), then the root reuses it */
	CHECK(root != TK_CALL_NONE);
	CHECK(f[root].addr == 0x8000 && f[root].calls == 1);
	CHECK(f[root].total_insns == 12 && f[root].total_time == 110);
	const tk_stack_frame *ff = child_at(f, root, 0x9000);
	CHECK(ff && ff->calls == 2);
	/* f #1: insns 2-4 (3, time 20); f #2: insns 6-10 (5, time 40) */
	CHECK(ff && ff->total_insns == 8 && ff->total_time == 60);
	CHECK(f[root].self_insns == 4 && f[root].self_time == 50);
	const tk_stack_frame *g = ff ? child_at(f, (uint32_t)(ff - f), 0xa000) : NULL;
	CHECK(g && g->calls == 1 && g->total_insns == 2 && g->total_time == 10);
	CHECK(ff && ff->self_insns == 6 && ff->self_time == 50);
	tk_callstacks_free(cs);
}

/* Replaying a tree into a sink gives what the detector gave it: here, the
 * tree builder again, and a call-stack profile. */
static void test_replay(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A64, NULL);
	sp(&s, 0x100000);
	insn(&s, 0x1000);
	for (int i = 0; i < 3; i++) {
		bl(&s, 0x1004 + 8 * (uint64_t)i, 0x2000);	/* f */
		insn(&s, 0x2000);
		sp(&s, 0xffff0);
		bl(&s, 0x2004, 0x3000);				/* f -> g */
		insn(&s, 0x3000);
		insn(&s, 0x2008);
		sp(&s, 0x100000);
		lr(&s, 0x1008 + 8 * (uint64_t)i);
		insn(&s, 0x200c);				/* RET */
		insn(&s, 0x1008 + 8 * (uint64_t)i);
	}
	tk_calltree *t;
	char first[256];
	snprintf(first, sizeof first, "%s", finish(&s, &t));
	CHECK_STR(first, "(1000 (2000 (3000)) (2000 (3000)) (2000 (3000)))");

	tk_calls_sink sink;
	tk_callstacks *cs;
	CHECK(tk_callstacks_new(&cs, &sink) == 0);
	CHECK(tk_calltree_replay(t, &sink) == 0);
	uint32_t root, count;
	const tk_stack_frame *f = tk_callstacks_frames(cs, &count, &root);
	CHECK(f[root].addr == 0x1000 && f[root].total_insns == 1 + 3 * 7);
	const tk_stack_frame *ff = child_at(f, root, 0x2000);
	CHECK(ff && ff->calls == 3 && ff->total_insns == 15 && ff->self_insns == 12);
	tk_callstacks_free(cs);

	/* every call once, the root last */
	struct count_sink cnt = {0};
	tk_calls_sink cntsink = {&cnt, cs_confirm, cs_join, cs_finish};
	CHECK(tk_calltree_replay(t, &cntsink) == 0);
	CHECK(cnt.confirms == 6 && cnt.finishes == 1 && cnt.root_exit == 0x1018);
	tk_calltree_free(t);
}

/* A64: a write of w30 (4 bytes) zero-extends into x30, so lr is known. */
static void test_w30(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A64, NULL);
	sp(&s, 0x100000);
	insn(&s, 0x1000);
	insn(&s, 0x1004);		/* ADR w30,0x100c (say) */
	uint8_t bytes[4] = {0x0c, 0x10, 0, 0}, state[4] = {1, 1, 1, 1};
	tk_event ev = {.kind = TK_EV_REG};
	ev.u.reg.view = (tk_reg_view){TK_REG_X30, 0, 4};
	ev.u.reg.value = bytes;
	ev.u.reg.state = state;
	feed(&s, &ev);
	insn(&s, 0x1008);		/* BR x1 */
	insn(&s, 0x2000);		/* RET */
	insn(&s, 0x100c);
	CHECK_STR(finish(&s, NULL), "(1000 (2000))");
}

/* No instruction at all: an empty tree. */
static void test_empty(void)
{
	struct sim s;
	sim_init(&s, TK_ISA_A32, NULL);
	sp(&s, 0x10000);
	tk_calltree *t;
	CHECK(tk_calls_finish(s.calls, &t) == 0);
	CHECK(t && t->count == 0);
	tk_calltree_free(t);
	tk_calls_free(s.calls);
}

int main(void)
{
	test_a32_nested();
	test_stunt_call();
	test_bl_long_branch();
	test_bx_lr_table_branch();
	test_tail_call();
	test_sp_rise_kills();
	test_sp_must_match();
	test_a64_recursion();
	test_lr_window();
	test_condition_failed();
	test_func_unreturned();
	test_func_contexts();
	test_func_deep();
	test_gap();
	test_branch_longjmp();
	test_call_next_insn();
	test_return_to_next_insn();
	test_lr_distance();
	test_thumb();
	test_children_order();
	test_supersede();
	test_many_pending();
	test_known_branches();
	test_func_events();
	test_sink();
	test_callstacks();
	test_replay();
	test_w30();
	test_empty();
	return check_report("calls");
}
