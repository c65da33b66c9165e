/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: function calls: one ISA-neutral call stack per context, and the
 * producers that feed it.
 *
 * The call stack
 * --------------
 * Every context (a CPU or a thread: tk_event.context) has its own stack of
 * open frames.  A frame is *firm* when the source knows it is a call (an
 * instruction marked TK_BR_CALL, a TK_EV_CALL function event) and
 * *potential* when a heuristic only suspects one (Arm's lr/sp rule below).
 *  - A return closes the innermost open frame it matches, at any depth.
 *    Firm frames above it are closed there too (a longjmp, a function that
 *    never returned by itself: flagged TK_CALL_UNWOUND); potential frames
 *    above it are dropped, the calls confirmed inside them moving to the
 *    frame below.
 *  - At the end of the trace, firm frames still open are closed at the
 *    context's last step (TK_CALL_UNRETURNED) with all their callees;
 *    potential ones are dropped.
 *  - A TK_EV_GAP event in a context makes the next step of that context
 *    start afresh: no call or return is inferred across a gap.
 *  - The root activation of a context spans it: from its first step to its
 *    last, in the trace's own time unit.  Text events of the context just
 *    before its first step (an ES-style trace that starts with "ES EXC
 *    Reset") belong to that first step: the root starts at the first such
 *    line.  Register and memory lines before the first step belong to no
 *    activation, nor does text before them (a file header neither).
 *
 * Steps are instructions, or, in a source without instructions, its
 * function events (tk_calls_opts.steps): tk_tpos.pos numbers them from 0
 * in trace order over all contexts, as the index numbers its positions.
 *
 * The producers
 * -------------
 *  - Instructions with a known branch kind (Intel PT, POWER): a TK_BR_CALL
 *    that transfers control pushes a firm frame returning to pc + width (a
 *    call to the next instruction, the get-PC idiom, transfers nothing and
 *    is no call); a TK_BR_RETURN closes the innermost frame whose return
 *    address is its target, or nothing.  TK_BR_JUMP and TK_BR_NONE are
 *    never calls or returns.
 *  - Function events: TK_EV_CALL pushes a firm frame for u.func.addr;
 *    TK_EV_RETURN closes the innermost open frame of the same address (of
 *    any function if addr is 0).
 *  - Instructions with TK_BR_UNKNOWN (Tarmac): Arm's lr/sp heuristic, the
 *    seed's "Identifying function calls in a trace", below.
 *
 * Arm's heuristic
 * ---------------
 * Every *transfer of control* is examined: an instruction event whose pc
 * is not the previous instruction's pc + width (condition-failed
 * instructions are part of the sequence; when an instruction arrives, every
 * register update of the previous one has been seen).
 *
 *  - It is a *potential call* if lr was written by one of the last 8
 *    instructions, counting the branch itself (so a BL, or an LDR lr
 *    followed by up to 6 more instructions and a BX, qualify), and the
 *    value of lr then lies within 64 bytes (either way) of the natural
 *    return address, branch pc + width.  The potential call remembers lr
 *    (Thumb bit cleared) and sp as it was *before* the branch instruction.
 *    If the branch instruction itself raised sp above that value, the
 *    potential call is dead at once (e.g. a POP {..,pc} shortly after a BL).
 *  - It is a *return* that confirms the most recent potential call whose lr
 *    equals the branch target and whose sp equals sp after the return
 *    instruction.  Whenever sp rises strictly above a potential call's sp,
 *    that potential call is discarded, so "sp never strictly greater in
 *    between" holds for every one still pending.
 *  - On a match, the potential calls above the matched one are dropped:
 *    the calls confirmed inside them become children of the matched call
 *    (so children are always in time order).  A transfer is first checked
 *    as a return, then as a potential call.
 *  - One refinement: a new potential call with the same lr and sp as the
 *    newest pending one supersedes it (that one is dropped).  Both cannot
 *    be genuine: the newer one returns to the older one's return address,
 *    so the older activation can never return by itself.  Without this, a
 *    loop whose leaf call returns near lr would pile up dead entries.
 *    Which of the two is the call: the newer one, unless the older branch
 *    wrote lr itself (BL, BLX, BLR) and the newer did not.  Then the newer
 *    one is a branch inside the function just called (a conditional branch
 *    at the entry of a small function near its call site, e.g. recursion)
 *    and is not a potential call at all; otherwise (lr loaded by hand, then
 *    a conditional branch, then BX) the later transfer is the call.
 *
 * lr/sp are r14/r13 for A32/T32 instructions and x30/xsp for A64 (the
 * execution state of the branch instruction decides).  A register with any
 * byte of unknown value is unknown: no potential call is noted without a
 * known lr.  A potential call made while sp is unknown (before the trace
 * first writes it) is matched on lr alone and never discarded by sp.
 *
 * Cost: O(1) amortised per event and no allocation in the steady state.
 * Open frames are looked up by key ((return address, sp), or a function's
 * address) in a hash table per context.  At most TK_CALLS_MAX_PENDING
 * potential frames are kept per context, the oldest being forgotten beyond
 * that (calls confirmed inside it move up to its parent); firm frames are
 * never forgotten.  Only confirmed calls leave the detector.
 */
#ifndef TRACEKIT_CALLS_H
#define TRACEKIT_CALLS_H

#include <stdint.h>

#include "tracekit/event.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TK_CALL_NONE UINT32_MAX

/* The heuristic's constants (see above). */
#define TK_CALLS_LR_WINDOW 8		/* instructions */
#define TK_CALLS_LR_DISTANCE 64		/* bytes */
#define TK_CALLS_MAX_PENDING 262144	/* potential calls kept at most (~30 MB) */

/* One point of the trace: a step. */
typedef struct tk_tpos {
	uint64_t time;
	uint64_t line;
	uint64_t offset;	/* byte offset of the line in the trace */
	uint64_t pc;		/* a function event's address */
	uint64_t pos;		/* 0-based step number (the index's position) */
} tk_tpos;

/* tk_call.flags */
enum {
	TK_CALL_ROOT = 1u << 0,		/* a context's root activation */
	TK_CALL_FIRM = 1u << 1,		/* the source said call (not a heuristic) */
	TK_CALL_UNRETURNED = 1u << 2,	/* still open at the end: closed there */
	TK_CALL_UNWOUND = 1u << 3,	/* closed when an outer activation returned */
};

/*
 * A function activation.  A tree has one root per context: the whole
 * context (entry = its first step, exit = its last; call/resume unset).
 * For other nodes, the calltree format prints
 *   - call   - resume       (in the caller)
 *   o entry  - exit         (the activation)
 * An activation that never returned resumes nowhere: resume = exit.
 * Nodes are numbered in preorder, roots in the order their contexts first
 * appear in the trace, each followed by its subtree (calls in call order).
 */
typedef struct tk_call {
	tk_tpos call;		/* the step that transferred control */
	tk_tpos entry;		/* first step of the callee */
	tk_tpos exit;		/* the callee's last (return) step */
	tk_tpos resume;		/* first step back in the caller */
	uint32_t parent;	/* TK_CALL_NONE for a root */
	uint32_t first_child;	/* TK_CALL_NONE if none */
	uint32_t next_sibling;	/* in time order; TK_CALL_NONE if last.  Roots:
				 * the next context's root */
	uint32_t depth;		/* root = 0 */
	uint32_t context;
	uint32_t flags;		/* TK_CALL_* */
} tk_call;

typedef struct tk_calltree {
	tk_call *calls;		/* calls[0] is the first context's root */
	uint32_t count;		/* 0 if the trace has no step */
	uint32_t nroots;	/* contexts */
} tk_calltree;

/* Called with one line of explanation per decision (--debug=call_heuristics).
 * The text has no trailing newline. */
typedef void (*tk_calls_debug_fn)(void *ctx, const char *msg);

/*
 * Where confirmed calls go, for consumers that aggregate instead of keeping
 * the whole tree (profiles, flame graphs).  The detector never learns a
 * call's parent when it confirms it (the pending calls below it may or may
 * not be confirmed later), so it hands the sink *forests*: opaque uint32_t
 * handles, TK_CALL_NONE being the empty forest, that the sink creates and
 * the detector only passes back.
 *
 *   confirm  a call was confirmed; `children` is the forest of the calls
 *            confirmed inside it.  Set *out to a forest holding the call
 *            (or TK_CALL_NONE if the sink keeps nothing).
 *   join     concatenate two forests, `first` preceding `second` in time.
 *   finish   the end of a context: `root` is its root activation,
 *            `children` its top-level calls.  Called by tk_calls_finish
 *            once per context, in the order the contexts first appeared.
 *
 * In the tk_call passed, only call/entry/exit/resume are meaningful; the
 * root's call and resume are zero.  Callbacks return 0 or a negative tk_err,
 * which the detector returns from tk_calls_feed / tk_calls_finish.
 */
typedef struct tk_calls_sink {
	void *ctx;
	int (*confirm)(void *ctx, const tk_call *call, uint32_t children, uint32_t *out);
	int (*join)(void *ctx, uint32_t first, uint32_t second, uint32_t *out);
	int (*finish)(void *ctx, const tk_call *root, uint32_t children);
} tk_calls_sink;

/* What the steps of the trace are (tk_calls_opts.steps). */
typedef enum tk_calls_steps {
	TK_STEPS_AUTO = 0,	/* the first instruction or function event decides */
	TK_STEPS_INSNS,		/* instructions (function events are not steps) */
	TK_STEPS_FUNCS,		/* function events (a source without instructions) */
} tk_calls_steps;

typedef struct tk_calls_opts {
	size_t size;		/* sizeof(tk_calls_opts) */
	tk_calls_debug_fn debug;	/* NULL: no explanations */
	void *debug_ctx;
	const tk_calls_sink *sink;	/* NULL: build a tk_calltree */
	tk_calls_steps steps;
} tk_calls_opts;

void tk_calls_opts_init(tk_calls_opts *opts);

typedef struct tk_calls tk_calls;

/* Errors: TK_ERR_NOMEM, TK_ERR_INVAL (opts->size too small). */
int tk_calls_new(const tk_calls_opts *opts, tk_calls **out);

/* Feed the next event of the trace (all kinds may be fed; the detector
 * picks what it needs).  Returns 0, TK_ERR_NOMEM, or a sink's error. */
int tk_calls_feed(tk_calls *c, const tk_event *ev);

/* Feed n events in order (tk_source_next_many's); as tk_calls_feed. */
int tk_calls_feed_many(tk_calls *c, const tk_event *evs, size_t n);

/* End of trace: in every context, close the firm frames still open, move
 * the calls confirmed inside still-pending potential calls up to their
 * parents, and hand the result to the sink.  Without a sink, *out receives the tree (owned by the
 * caller: tk_calltree_free); with one, out may be NULL.  The detector can
 * then only be freed. */
int tk_calls_finish(tk_calls *c, tk_calltree **out);

void tk_calls_free(tk_calls *c);
void tk_calltree_free(tk_calltree *t);

/* What the detector's steps are (TK_STEPS_AUTO until the first step when
 * left to decide). */
tk_calls_steps tk_calls_steps_of(const tk_calls *c);

typedef struct tk_namemap tk_namemap;
typedef struct tk_source tk_source;

typedef struct tk_calls_read_opts {
	size_t size;		/* sizeof(tk_calls_read_opts) */
	unsigned threads;	/* 0: every core */
	uint64_t piece_bytes;	/* 0: automatic */
	tk_namemap *names;	/* NULL, or receives the names function events give */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
} tk_calls_read_opts;

void tk_calls_read_opts_init(tk_calls_read_opts *o);

/*
 * Feed the detector every event of a trace file, reading it in pieces on
 * several threads: each piece is summarized on its own, and the detector
 * runs over the summaries in order on the calling thread, so its calls
 * (and their order) are those tk_calls_feed gives over the events.  The
 * source's diagnostics go to its callback, in order.  The detector's steps
 * must be decided (tk_calls_opts.steps).  Then call tk_calls_finish.
 * Errors: TK_ERR_UNSUPPORTED (not a regular file, or a format that cannot
 * be read in pieces: feed the events instead, nothing was read),
 * TK_ERR_INVAL (steps not decided), the source's reading errors, the
 * sink's, TK_ERR_NOMEM.
 */
int tk_calls_read(tk_calls *c, tk_source *src, const tk_calls_read_opts *opts);

/* Keep only the root of one context and its subtree, renumbered from 0.
 * Errors: TK_ERR_NOTFOUND (no such context: t is unchanged). */
int tk_calltree_keep_context(tk_calltree *t, uint32_t context);

/* Hand a finished tree (e.g. one read from an index) to a sink, as the
 * detector would have: every call confirmed after its callees, forests
 * joined in time order, then finish with each root.  A tree of count 0
 * makes no call.  Errors: TK_ERR_NOMEM, or the sink's. */
int tk_calltree_replay(const tk_calltree *t, const tk_calls_sink *sink);

/*
 * Walking a call tree
 * -------------------
 * A tree of any size read one node at a time, in preorder (nodes numbered
 * from 0: the n-th node returned is node n), without holding it in
 * memory: from an index (tk_index_calls_walk in index.h) or from a spill
 * (below).  The links of each tk_call are node numbers, as in a tk_calltree.
 */
typedef struct tk_callwalk tk_callwalk;

/* The next node: 1 and *out, 0 after the last.  Errors: TK_ERR_IO,
 * TK_ERR_NOMEM, TK_ERR_CORRUPT. */
int tk_callwalk_next(tk_callwalk *w, tk_call *out);

/* Nodes in all (roots included) and roots (contexts). */
uint32_t tk_callwalk_count(const tk_callwalk *w);
uint32_t tk_callwalk_roots(const tk_callwalk *w);

/* Before the first tk_callwalk_next: keep only one context's root and its
 * subtree, renumbered from 0 (as tk_calltree_keep_context).
 * Errors: TK_ERR_NOTFOUND (no such context: the walk is unchanged),
 * TK_ERR_INVAL (nodes were already read), TK_ERR_IO. */
int tk_callwalk_keep_context(tk_callwalk *w, uint32_t context);

void tk_callwalk_free(tk_callwalk *w);

/* A walk over an in-memory tree (which must outlive it).
 * Errors: TK_ERR_NOMEM. */
int tk_calltree_walk(const tk_calltree *t, tk_callwalk **out);

/*
 * The call spill: a sink (tk_calls_opts.sink) that writes each confirmed
 * call to a temporary file as it is confirmed, in a compact record (about
 * 40 bytes, deltas of positions, lines, offsets, times and pcs), so the
 * detector's output never sits in memory.  After tk_calls_finish, the
 * tree is read back in preorder through a tk_callwalk: the confirmation
 * order (each call after its callees) is turned into preorder by one pass
 * backwards over the file and an external sort, in a few MB of memory
 * whatever the number of calls.  Memory grows only with the depth of the
 * tree and the number of contexts.
 */
typedef struct tk_callspill tk_callspill;

/* Errors: TK_ERR_NOMEM.  *sink receives the callbacks to give the
 * detector. */
int tk_callspill_new(tk_callspill **out, tk_calls_sink *sink);

/* Calls confirmed so far (roots included). */
uint64_t tk_callspill_count(const tk_callspill *s);

/* After the detector's finish: the tree.  The walk owns what it reads; the
 * spill can be freed at once.  A spill that received no root gives an
 * empty walk.  Errors: TK_ERR_IO, TK_ERR_NOMEM, TK_ERR_UNSUPPORTED (more
 * than 2^32 - 1 nodes), TK_ERR_CORRUPT (the callbacks were not used as the
 * detector uses them). */
int tk_callspill_walk(tk_callspill *s, tk_callwalk **out);

void tk_callspill_free(tk_callspill *s);

/*
 * Call-stack profiles: a sink that folds the calls into a tree of distinct
 * call stacks as they are confirmed (what flame graphs draw), so memory is
 * the number of distinct stacks, not of calls.
 *
 * A frame is one call stack: its function and the frames called from it.
 * For each activation, "total" is its duration and "self" the total less
 * its direct callees' totals, in two units: trace time (exit - entry
 * timestamps, as tarmac-flamegraph measures) and steps (the activation's
 * instructions, or function events, its first and last included).  So for
 * every frame total = self + the children's totals.  Each context has its
 * own root frame.
 */
typedef struct tk_stack_frame {
	uint64_t addr;		/* entry address of the function */
	uint32_t context;	/* (roots) the context */
	uint64_t calls;		/* activations folded into this frame */
	uint64_t total_time, self_time;
	uint64_t total_insns, self_insns;
	uint32_t first_child;	/* TK_CALL_NONE-terminated list, unordered */
	uint32_t next_sibling;
	/* With tk_callstacks_new_by_site: the call instruction's address (in
	 * the caller; 0 for the root).  Frames of one function called from
	 * different instructions are then different frames. */
	uint64_t site;
} tk_stack_frame;

typedef struct tk_callstacks tk_callstacks;

/* Errors: TK_ERR_NOMEM.  *sink receives the callbacks to give the call
 * detector (tk_calls_opts.sink). */
int tk_callstacks_new(tk_callstacks **out, tk_calls_sink *sink);
/* The same, one frame per function and call site (tk_stack_frame.site),
 * for profiles by source line. */
int tk_callstacks_new_by_site(tk_callstacks **out, tk_calls_sink *sink);

/* After the detector's finish: the frames (*count of them, a few possibly
 * unused), and the first context's root frame, or TK_CALL_NONE if the trace
 * had no step.  The roots of the other contexts follow it through
 * next_sibling, in the order the contexts first appeared. */
const tk_stack_frame *tk_callstacks_frames(const tk_callstacks *s, uint32_t *count,
					   uint32_t *root);

void tk_callstacks_free(tk_callstacks *s);

#ifdef __cplusplus
}
#endif
#endif
