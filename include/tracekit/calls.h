/* tracekit: function call detection.
 *
 * Implements the heuristic in the seed's "Identifying function calls in a
 * trace": every transfer of control (two consecutive instructions not
 * consecutive in memory) is examined.  It is a *potential call* if lr was
 * written within the previous 8 instructions and lr lies within 64 bytes of
 * the natural return address.  It becomes a call when a later transfer goes
 * to that lr with sp equal to its value at the call, sp never having been
 * strictly larger in between.  lr/sp are r14/r13 for A32/T32 instructions and
 * x30/xsp for A64.  Sources that know their branch kinds (TK_BR_CALL /
 * TK_BR_RETURN, or TK_EV_CALL / TK_EV_RETURN events) are handled directly.
 *
 * The detector is fed events as they stream by; the tree it returns holds
 * only confirmed calls, so its memory is the size of the output.
 */
#ifndef TRACEKIT_CALLS_H
#define TRACEKIT_CALLS_H

#include <stdint.h>

#include "tracekit/event.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TK_CALL_NONE UINT32_MAX

/* One point of the trace: an instruction. */
typedef struct tk_tpos {
	uint64_t time;
	uint64_t line;
	uint64_t offset;
	uint64_t pc;
} tk_tpos;

/*
 * A function activation.  Node 0 of a tree is the root: the whole trace
 * (entry = first instruction, exit = last instruction; call/resume unset).
 * For other nodes, the calltree format prints
 *   - call   - resume       (in the caller)
 *   o entry  - exit         (the activation)
 */
typedef struct tk_call {
	tk_tpos call;		/* the instruction that transferred control */
	tk_tpos entry;		/* first instruction of the callee */
	tk_tpos exit;		/* the callee's last (return) instruction */
	tk_tpos resume;		/* first instruction back in the caller */
	uint32_t parent;	/* TK_CALL_NONE for the root */
	uint32_t first_child;	/* TK_CALL_NONE if none */
	uint32_t next_sibling;	/* in time order; TK_CALL_NONE if last */
	uint32_t depth;		/* root = 0 */
} tk_call;

typedef struct tk_calltree {
	tk_call *calls;		/* calls[0] is the root */
	uint32_t count;		/* 0 if the trace has no instruction */
} tk_calltree;

/* Called with one line of explanation per decision (--debug=call_heuristics).
 * The text has no trailing newline. */
typedef void (*tk_calls_debug_fn)(void *ctx, const char *msg);

typedef struct tk_calls_opts {
	size_t size;		/* sizeof(tk_calls_opts) */
	tk_calls_debug_fn debug;	/* NULL: no explanations */
	void *debug_ctx;
} tk_calls_opts;

void tk_calls_opts_init(tk_calls_opts *opts);

typedef struct tk_calls tk_calls;

int tk_calls_new(const tk_calls_opts *opts, tk_calls **out);

/* Feed the next event of the trace (all kinds may be fed; the detector
 * picks what it needs).  Returns 0 or TK_ERR_NOMEM. */
int tk_calls_feed(tk_calls *c, const tk_event *ev);

/* End of trace: build the tree.  *out is owned by the caller
 * (tk_calltree_free).  The detector can then only be freed. */
int tk_calls_finish(tk_calls *c, tk_calltree **out);

void tk_calls_free(tk_calls *c);
void tk_calltree_free(tk_calltree *t);

#ifdef __cplusplus
}
#endif
#endif
