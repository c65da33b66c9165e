/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the call detector's parts (see calls.h).
 *
 *   stack.c        the call stack of one context: open frames, matching by
 *                  key, confirming, dropping, closing at the end
 *   calls.c        the detector: contexts, steps, roots, gaps, dispatch
 *   calls_arm.c    Arm's lr/sp heuristic (potential frames)
 *   calls_known.c  sources that know their calls: branch kinds and
 *                  function events (firm frames)
 *
 * A stack lives in a ring buffer addressed by absolute positions
 * [bottom, top): matches and discards pop at the top, and the oldest
 * potential frame is forgotten at the bottom when the ring is full.  A hash
 * table maps a key to the newest open frame with that key; each frame links
 * to the previous one with the same key, so a return is matched in O(1)
 * whatever the depth.  The newest few frames stay out of the table and are
 * searched one by one (cheaper than hashing for calls that soon return).
 */
#ifndef TRACEKIT_CALLS_IMPL_H
#define TRACEKIT_CALLS_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "tracekit/calls.h"

#define TK_NO_FRAME UINT64_MAX

/* What a frame's key means. */
enum {
	TK_KEY_RETURN = 0,	/* (return address, sp): a call returns there */
	TK_KEY_FUNC = 1,	/* (function address): a function event */
};

/* Arm register families of the heuristic. */
enum { TK_FAM_A32, TK_FAM_A64, TK_FAM_NONE, TK_NFAM = 2 };

typedef struct tk_frame {
	uint64_t key;		/* return address, or function address */
	uint64_t sp;		/* (heuristic) sp before the call instruction */
	tk_tpos call, entry;
	uint64_t prev_same;	/* older open frame with the same key */
	uint32_t forest;	/* calls confirmed inside this one */
	uint8_t space;		/* TK_KEY_* */
	uint8_t fam;		/* TK_FAM_* */
	bool sp_known;
	bool firm;		/* the source said call */
	bool linked;		/* (heuristic) the branch itself wrote lr */
} tk_frame;

typedef struct tk_stack {
	tk_frame *ring;
	uint64_t mask;		/* ring capacity - 1 */
	uint64_t bottom, top;
	uint64_t hashed;	/* [bottom, hashed) are in the table (stack.c) */
	uint64_t *table;	/* frame position + 1, 0 = empty; 2x ring capacity */
	uint64_t tmask;
	uint32_t root_forest;	/* calls with no open caller */
} tk_stack;

typedef struct tk_reg64 {
	uint64_t value;
	uint8_t known;		/* bit i: byte i holds a known value */
} tk_reg64;

/* One context: its stack, its root, and the producers' state. */
typedef struct tk_cctx {
	uint32_t id;
	tk_stack stack;
	bool have_first;	/* a step seen: first/last are set */
	tk_tpos first, last;
	bool have_text;		/* text before the first step */
	uint64_t text_line, text_offset;

	/* the previous instruction (cleared by a gap) */
	bool have_prev;
	tk_tpos prev;
	uint8_t prev_width;
	tk_isa prev_isa;
	tk_branch prev_branch;
	uint64_t ninsn;		/* instructions of this context */

	/* Arm's heuristic */
	tk_reg64 lr[TK_NFAM], sp[TK_NFAM];
	uint64_t lr_written[TK_NFAM];	/* ninsn of the insn that last wrote lr */
	tk_reg64 sp_before[TK_NFAM];	/* sp before the previous instruction */
} tk_cctx;

struct tk_calls {
	tk_calls_opts opts;
	tk_calls_sink sink;
	struct tk_calltree_builder *builder;	/* when no sink was given */
	int error;			/* sticky sink error */
	bool func_steps;		/* decided by opts.steps or the first step */
	bool steps_decided;
	uint64_t nsteps;

	tk_cctx **ctx;			/* in order of first appearance */
	uint32_t nctx, ctxcap;
	uint32_t *ctxmap;		/* hash: index into ctx + 1, 0 = empty */
	uint32_t ctxmask;
	tk_cctx *last;			/* the context of the last event */
};

/* Is an instruction at pc the natural successor of the previous one of
 * its context?  *natural receives that successor's address (for a width
 * of 0, any legal size counts: 2 or 4 bytes in Thumb). */
static inline bool tk_calls_sequential(uint64_t prev_pc, uint8_t prev_width, tk_isa prev_isa,
				       uint64_t pc, uint64_t *natural)
{
	uint64_t w = prev_width;
	if (w) {
		*natural = prev_pc + w;
		return pc == prev_pc + w;
	}
	w = prev_isa == TK_ISA_T32 ? 2 : 4;
	*natural = prev_pc + w;
	return pc == prev_pc + w || (prev_isa == TK_ISA_T32 && pc == prev_pc + 4);
}

/* Must the detector look at the step from the previous instruction to one
 * at pc?  Yes if pc is not its natural successor (*natural, as above), and
 * always after a known return: a return matches frames by its target,
 * wherever that is (so its width is never needed). */
static inline bool tk_calls_transfer(uint64_t prev_pc, uint8_t prev_width, tk_isa prev_isa,
				     tk_branch prev_branch, uint64_t pc, uint64_t *natural)
{
	*natural = 0;
	return prev_branch == TK_BR_RETURN ||
	       !tk_calls_sequential(prev_pc, prev_width, prev_isa, pc, natural);
}

/* ---- piece summaries (callsum.c; callsum.h says what they hold) ---- */

enum {
	TK_CS_INSN = 1,	/* t: the instruction (pos: local step + 1) */
	TK_CS_STEPS,	/* x sequential instructions, t the last */
	TK_CS_REG,	/* an lr or sp write: view, value, state */
	TK_CS_TOUCH,	/* another register line of ctx: it clears the root's text */
	TK_CS_MEM,	/* a memory line of ctx; x: the context of the last line
			 * looked up before it in the piece + 1, 0 if none */
	TK_CS_TEXT,	/* t.line/offset: a text line of ctx */
	TK_CS_GAP,	/* t.line */
	TK_CS_FUNC,	/* branch: 1 call, 2 return; t: at (pc = the function); x: site */
	TK_CS_LAST,	/* ctx: the context of the piece's last looked-up line */
};

typedef struct tk_csrec {
	tk_tpos t;
	uint64_t x;
	uint32_t ctx;
	uint8_t type, isa, width, branch;
	tk_reg_view view;
	uint8_t value[8], state[8];
} tk_csrec;

/* ---- explanations (--debug=call_heuristics) ---- */

void tk_calls_debugf(tk_calls *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define TK_CALLS_DEBUG(c, ...) \
	do { if ((c)->opts.debug) tk_calls_debugf((c), __VA_ARGS__); } while (0)

/* ---- the stack of one context (stack.c) ---- */

int tk_stack_init(tk_stack *s);
void tk_stack_fini(tk_stack *s);

static inline tk_frame *tk_stack_at(tk_stack *s, uint64_t pos)
{
	return &s->ring[pos & s->mask];
}

/* The newest frame, or NULL. */
static inline tk_frame *tk_stack_top(tk_stack *s)
{
	return s->top > s->bottom ? tk_stack_at(s, s->top - 1) : NULL;
}

/* Push a frame (its forest and prev_same are set here).  A full ring
 * forgets its oldest frame if that one is potential and the limit is
 * reached, else grows.  Errors: TK_ERR_NOMEM, a sink's error. */
int tk_stack_push(tk_calls *c, tk_stack *s, const tk_frame *f);

/* The same, built in place: the new top frame with its forest set, every
 * other field for the caller to fill in; NULL with *rc on error. */
tk_frame *tk_stack_push_new(tk_calls *c, tk_stack *s, int *rc);

/* The newest open frame with this key, or TK_NO_FRAME. */
uint64_t tk_stack_lookup(tk_stack *s, unsigned space, uint64_t key, uint64_t sp, bool sp_known);

/* Remove the newest frame without confirming it: its calls move down. */
int tk_stack_drop_top(tk_calls *c, tk_stack *s);

/* A return matched the frame at pos: close it at exit/resume; frames above
 * it are closed too (firm: TK_CALL_UNWOUND) or dropped (potential). */
int tk_stack_close_at(tk_calls *c, tk_cctx *x, uint64_t pos, const tk_tpos *exit,
		      const tk_tpos *resume);

/* End of the trace: close firm frames at the context's last step, drop
 * potential ones, and finish the context's root. */
int tk_stack_finish(tk_calls *c, tk_cctx *x);

/* ---- the producers ---- */

/* Arm's heuristic (calls_arm.c). */
void tk_calls_arm_init(tk_cctx *x);
int tk_calls_arm_transfer(tk_calls *c, tk_cctx *x, const tk_tpos *cur, uint64_t natural);
int tk_calls_arm_reg(tk_calls *c, tk_cctx *x, const tk_reg_update *u);
/* After every instruction: sp as it was before it (inline: it is on the
 * path of every instruction and run). */
static inline void tk_calls_arm_step(tk_cctx *x)
{
	x->sp_before[TK_FAM_A32] = x->sp[TK_FAM_A32];
	x->sp_before[TK_FAM_A64] = x->sp[TK_FAM_A64];
}

/* Known calls (calls_known.c). */
int tk_calls_branch_transfer(tk_calls *c, tk_cctx *x, const tk_tpos *cur, uint64_t natural);
int tk_calls_func_event(tk_calls *c, tk_cctx *x, const tk_event *ev, const tk_tpos *at);

#endif
