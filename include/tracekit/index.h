/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the trace index.
 *
 * An index file records, for every instruction of a trace, where it is (line,
 * byte offset, time, pc), the state of the registers and of memory after it,
 * where each register and memory byte was written, and the call tree.  It is
 * built once by streaming the trace's events (see event.h), written next to
 * the trace (TRACE.index) and reused while it is valid and the trace has not
 * changed.  The trace text itself is not copied: a browser reads the lines of
 * a position from the trace file by their byte offsets.
 *
 * The file format is documented, with its version, in docs/INDEX-FORMAT.md.
 *
 * Positions
 * ---------
 * A position is a 0-based instruction number, 0 <= pos < tk_index_count().
 * Position i is the state *after* instruction i and every line that
 * follows it up to (not including) the next instruction line: its register
 * updates, memory accesses and any other lines.  That run of lines is the
 * position's *group*.  Lines before the first instruction (e.g. a dump of the
 * initial register values) belong to the group of position 0.  Groups are
 * contiguous: together they cover every line of the trace.
 *
 * "Written at position q" means: a line in the group of q writes it.
 *
 * Register and memory state
 * -------------------------
 * Values come with a per-byte known flag.  Registers are unknown until a
 * register line writes them; "--" bytes in a register line leave those
 * bytes unchanged.  Memory is byte-granular:
 *   - a write makes its bytes known from its position on;
 *   - a read of a byte never written before reveals what was there from the
 *     start of the trace: the byte is known at every earlier position too;
 *   - a semihosting call that writes memory the trace does not show (SYS_READ,
 *     SYS_TMPNAM, SYS_GET_CMDLINE, SYS_HEAPINFO, SYS_ELAPSED) makes its
 *     output region unknown at the call's position; the first later read of
 *     such a byte back-dates its value to the call (the seed's "Semihosting
 *     support").  A trace write whose data is not shown ("##") does the same;
 *   - a read that contradicts the known value (e.g. device memory) changes
 *     the value from the read's position on, and counts as a write.
 * Memory data are in memory order (addr + i), as decided by --li/--bi.
 *
 * Thread safety: queries take a const tk_index and keep no hidden state, so
 * one index can be queried from several threads at once.
 *
 * Every fallible function returns 0 (or a small positive status) on success
 * and a negative tk_err (error.h) on failure; the library never prints.
 */
#ifndef TRACEKIT_INDEX_H
#define TRACEKIT_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/calls.h"
#include "tracekit/event.h"
#include "tracekit/input.h"
#include "tracekit/regs.h"
#include "tracekit/source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the index file format written and read by this library.
 * A file of another version is rebuilt. */
#define TK_INDEX_FORMAT_VERSION 4

/* "No position": a root call's call/resume, and other absent positions. */
#define TK_POS_NONE UINT64_MAX

typedef struct tk_index tk_index;

/* ------------------------------------------------------------------ */
/* Opening and building                                                */
/* ------------------------------------------------------------------ */

/* What to do with an existing index file. */
typedef enum tk_index_mode {
	/* Reuse the file if it is valid (checksums, complete), of this format
	 * version, of the same trace format built with the same options that
	 * change its events, and the trace still has the size, modification
	 * time, status change time and content fingerprint (a hash of its
	 * first and last 64 KiB) recorded in it (any change of one, to an
	 * older time too, means it was rewritten or replaced); otherwise build
	 * it. */
	TK_INDEX_AUTO = 0,
	/* Always build (--force-index). */
	TK_INDEX_FORCE,
	/* Never build (--no-index): use the file only if AUTO would reuse it.
	 * Fails with TK_ERR_NOTFOUND if it is missing, TK_ERR_STALE if it
	 * describes another trace (or another version of this one, or other
	 * options), TK_ERR_CORRUPT / TK_ERR_FORMAT if it is unusable.  An
	 * index is never trusted for a trace it does not describe. */
	TK_INDEX_NEVER,
	/* Use the file only if AUTO would reuse it; never build.  For tools
	 * that can stream the trace instead (TK_ERR_NOTFOUND otherwise). */
	TK_INDEX_IF_VALID,
} tk_index_mode;

/* Verbosity levels passed to the log callback. */
enum {
	TK_INDEX_LOG_DECISION = 1,	/* why the file was reused or (re)built */
	TK_INDEX_LOG_DETAIL = 2,	/* build statistics, temporary files */
};

/* Callbacks (log, progress, diag, calls_debug) may be called from a thread
 * of the library while an index is built (the trace is read on other
 * threads), but never two at a time. */

/* One line of explanation, without a trailing newline. */
typedef void (*tk_index_log_fn)(void *ctx, int level, const char *msg);

/* Build progress: done of total trace bytes (total 0 if unknown). */
typedef void (*tk_index_progress_fn)(void *ctx, uint64_t done, uint64_t total);

typedef struct tk_index_opts {
	size_t size;			/* sizeof(tk_index_opts) */
	const char *index_path;		/* NULL: TRACE ".index" */
	tk_index_mode mode;
	/* How to read the trace: its format (NULL: detected) and the format's
	 * options (those that change the events are recorded; a change
	 * rebuilds).  NULL: detected, no options.  Its diag is not used: see
	 * diag below. */
	const tk_source_spec *source;
	tk_index_log_fn log;		/* NULL: no explanations */
	void *log_ctx;
	tk_index_progress_fn progress;	/* NULL: no progress reports */
	void *progress_ctx;
	tk_diag_fn diag;		/* trace diagnostics while building */
	void *diag_ctx;
	tk_calls_debug_fn calls_debug;	/* call heuristic explanations */
	void *calls_debug_ctx;
	/* Build the index for this run only, in memory (or an unlinked
	 * temporary file), whatever the mode; no index file is read or
	 * written (--memory-index). */
	bool in_memory;
	/* Threads to build with (0: every core).  A trace file whose format
	 * can be read in pieces (Tarmac) is cut into pieces read on all of
	 * them and stitched in order; the index is the same whatever the
	 * number of threads. */
	unsigned threads;
	/* Bytes of trace per piece (0: automatic, about 1 to 4 MB). */
	uint64_t piece_bytes;
} tk_index_opts;

/* Fill *opts with defaults: AUTO, default path, format detected. */
void tk_index_opts_init(tk_index_opts *opts);

/* tk_index_open() success statuses. */
enum {
	TK_INDEX_REUSED = 0,		/* an existing file was opened */
	TK_INDEX_BUILT = 1,		/* the file was (re)built, then opened */
};

/*
 * Open the index of a trace file, building it first if opts->mode says so.  The file is written as an unnamed file (O_TMPFILE; else under
 * a temporary name) in the index's directory, given a temporary name once
 * complete and renamed into place, so a crash never leaves a half index
 * and concurrent builders do not corrupt each other.  If that directory is
 * not writable, the index is built into an unlinked temporary file (in
 * $TMPDIR) used for this run only (logged).  opts may be NULL (defaults).
 *
 * Returns TK_INDEX_REUSED or TK_INDEX_BUILT and sets *out, or:
 *   TK_ERR_INVAL     trace_path is NULL or "-" (standard input cannot be
 *                    indexed), or opts->size is too small
 *   TK_ERR_OPEN, TK_ERR_ISDIR   the trace cannot be opened
 *   TK_ERR_NOTFOUND  mode NEVER and no index file; mode IF_VALID and no
 *                    valid up-to-date index file
 *   TK_ERR_STALE     mode NEVER and the file describes another trace, an
 *                    older version of this one, or other options
 *   TK_ERR_CORRUPT   mode NEVER and the file is corrupt or truncated
 *   TK_ERR_FORMAT    mode NEVER and the file is another format version;
 *                    any mode: the trace is in no format tracekit reads
 *   TK_ERR_IO        reading the trace or writing the index failed
 *   TK_ERR_BINARY    the trace is binary data
 *   TK_ERR_NOMEM
 */
int tk_index_open(const char *trace_path, const tk_index_opts *opts,
		  tk_index **out);

/*
 * Build an index file from any event source, to index_path (atomically, as
 * above).  The trace is identified by tk_source_path(src); its size and
 * modification time are recorded when it is a regular file.  opts may be
 * NULL; its index_path, mode and diag are not used (diagnostics go to the
 * source's own callback).  A large source is read on a second thread:
 * its diagnostic callback is then called from that thread.
 * Errors: TK_ERR_IO, TK_ERR_OPEN (cannot create the file), TK_ERR_NOMEM, and
 * any error tk_source_next() returns.
 */
int tk_index_build(tk_source *src, const char *index_path,
		   const tk_index_opts *opts);

/*
 * Open an existing index file, without looking at the trace.
 * Errors: TK_ERR_OPEN, TK_ERR_ISDIR, TK_ERR_CORRUPT (bad magic, truncated,
 * checksum mismatch, inconsistent sections), TK_ERR_FORMAT (another format
 * version), TK_ERR_NOMEM, TK_ERR_IO.
 */
int tk_index_load(const char *index_path, tk_index **out);

void tk_index_free(tk_index *idx);

/* Give back the pages of the index file that queries have mapped (an
 * interactive session calls it now and then, so that browsing a long
 * trace never makes its index resident; later queries fault back in what
 * they use, from the page cache). */
void tk_index_trim(const tk_index *idx);

/* The index file's path, and the trace path recorded in it. */
const char *tk_index_path(const tk_index *idx);
const char *tk_index_trace_path(const tk_index *idx);

/*
 * Open the indexed trace for reading its text at the offsets the index
 * gives (tk_input_pread), trace_path NULL meaning the recorded path.  A
 * compressed trace is indexed with decompressed offsets; random access
 * to a gzip or plain zstd one uses the checkpoint table written beside the
 * index when it was built (INDEX ".ckpt"), rebuilt there (a pass over
 * the trace, reported to opts->progress) if it is missing, stale or
 * corrupt.  opts may be NULL; its checkpoint_file is replaced.
 * Errors: those of tk_input_open.
 */
int tk_index_open_text(const tk_index *idx, const char *trace_path,
		       const tk_input_opts *opts, tk_input **out);

typedef struct tk_index_info {
	size_t size;			/* sizeof(tk_index_info), set by caller */
	uint32_t version;		/* TK_INDEX_FORMAT_VERSION */
	uint64_t file_size;		/* bytes of the index file */
	uint64_t trace_size;		/* bytes of the trace when indexed */
	uint64_t lines;			/* lines in the trace */
	uint64_t instructions;		/* = tk_index_count() */
	uint64_t calls;			/* calls in the call tree (root excluded) */
	uint64_t reg_updates;		/* register update events */
	uint64_t mem_accesses;		/* memory access events */
	uint32_t regs_seen;		/* canonical registers ever written */
	uint64_t mem_bytes_touched;	/* distinct bytes ever accessed */
	uint64_t mem_bytes_known;	/* distinct bytes whose value is known
					 * at some position */
	uint64_t semihosting_calls;	/* recognised semihosting traps */
	uint64_t build_ms;		/* wall time the build took */
	bool big_endian;		/* the traced machine's data byte order */
	const char *format;		/* the trace's format ("tarmac"...) */
	const char *options;		/* the format's options (canonical) */
	const char *context_name;	/* "cpu" or "thread" */
	unsigned caps;			/* the source's TK_CAP_* */
	tk_time_unit time_unit;
	tk_isa isa;			/* the main instruction set */
	bool func_steps;		/* positions are function events */
	uint32_t contexts;		/* contexts (CPUs, threads) with steps */
	const tk_source_image *images;	/* the code images the source named */
	size_t nimages;
	tk_input_format trace_format;	/* plain, or how the trace is compressed */
	uint64_t text_size;		/* bytes of text (decompressed) */
} tk_index_info;

/* Errors: TK_ERR_INVAL (info->size too small). */
int tk_index_get_info(const tk_index *idx, tk_index_info *info);

/* The name the trace itself gives the function at addr (function-level
 * sources name their functions), or NULL. */
const char *tk_index_func_name(const tk_index *idx, uint64_t addr);

/* Every such name, by increasing address; a non-zero return of fn stops
 * the walk and is returned. */
int tk_index_func_names(const tk_index *idx, int (*fn)(void *ctx, uint64_t addr, const char *name),
			void *ctx);

/* ------------------------------------------------------------------ */
/* Positions                                                           */
/* ------------------------------------------------------------------ */

/* Number of positions (= instructions in the trace). */
uint64_t tk_index_count(const tk_index *idx);

typedef struct tk_index_pos {
	uint64_t line;		/* 1-based line (record) of the step */
	uint64_t offset;	/* byte offset of that line */
	uint64_t time;
	uint64_t pc;		/* no Thumb bit; a function event's address */
	tk_event_kind kind;	/* TK_EV_INSN, or TK_EV_CALL / TK_EV_RETURN for
				 * a source without instructions */
	uint32_t context;
	tk_isa isa;
	tk_branch branch;	/* as the source gave it */
	uint8_t width;		/* bytes, 0 if unknown */
	bool executed;		/* false: the condition failed */
	uint8_t nbytes;		/* encoding bytes known (tk_insn.bytes) */
	uint8_t bytes[TK_INSN_MAX_BYTES];
	uint64_t encoding;	/* tk_insn_encoding() of them; 0 if none */
	/* The group of this position: lines [first_line, end_line) and bytes
	 * [first_offset, end_offset) of the trace. */
	uint64_t first_line, end_line;
	uint64_t first_offset, end_offset;
} tk_index_pos;

/* Describe position pos.  Errors: TK_ERR_NOTFOUND (pos >= count),
 * TK_ERR_CORRUPT. */
int tk_index_get_pos(const tk_index *idx, uint64_t pos, tk_index_pos *out);

/* The position whose group contains a 1-based line / a byte offset.
 * Errors: TK_ERR_NOTFOUND (line 0, beyond the trace, or no instruction). */
int tk_index_find_line(const tk_index *idx, uint64_t line, uint64_t *pos);
int tk_index_find_offset(const tk_index *idx, uint64_t offset, uint64_t *pos);

/* The first position whose time is >= time.  Errors: TK_ERR_NOTFOUND (no
 * such position). */
int tk_index_find_time(const tk_index *idx, uint64_t time, uint64_t *pos);

/* *pos + 1 / *pos - 1, updated in place.  Errors: TK_ERR_NOTFOUND at the
 * last / first position (then *pos is unchanged). */
int tk_index_next(const tk_index *idx, uint64_t *pos);
int tk_index_prev(const tk_index *idx, uint64_t *pos);

/* Visits of an instruction address: the smallest q > pos (forward) or the
 * largest q < pos (backward) whose pc is pc.  pos may be TK_POS_NONE to
 * search from the start (forward) or the end (backward).
 * Errors: TK_ERR_NOTFOUND. */
int tk_index_find_pc(const tk_index *idx, uint64_t pos, uint64_t pc,
		     bool forward, uint64_t *out);

/* ------------------------------------------------------------------ */
/* Registers                                                           */
/* ------------------------------------------------------------------ */

/*
 * The value of a register view at a position: view.len bytes, little-endian,
 * into value[], and known[i] = 1 if byte i is known, 0 if not (value[i] is
 * then 0).  Any view of a canonical register works, which gives the
 * architecture's aliasing: w0 is {x0, 0, 4}, s1 in AArch64 is {v1, 0, 4}.
 * Errors: TK_ERR_NOTFOUND (pos >= count), TK_ERR_INVAL (view outside its
 * register, TK_REG_NONE), TK_ERR_CORRUPT.
 */
int tk_index_reg(const tk_index *idx, uint64_t pos, tk_reg_view view,
		 uint8_t *value, uint8_t *known);

/* Map a register name ("w3", "sp", "d5", "cpsr"...) to a view, choosing the
 * AArch32 or AArch64 overlay from the ISA of the instruction at pos.
 * Errors: TK_ERR_NOTFOUND (unknown name or pos >= count). */
int tk_index_reg_lookup(const tk_index *idx, uint64_t pos, const char *name,
			tk_reg_view *view);

/* True if any update of reg appears in the trace. */
bool tk_index_reg_seen(const tk_index *idx, tk_reg reg);

/*
 * The whole register file at one position, for displays that show many
 * registers: one decode, then any number of tk_index_regset_get() calls.
 */
typedef struct tk_index_regset tk_index_regset;

/* Errors: TK_ERR_NOMEM. */
int tk_index_regset_alloc(tk_index_regset **out);
void tk_index_regset_free(tk_index_regset *rs);

/* Fill rs with the state at pos.  Errors: TK_ERR_NOTFOUND, TK_ERR_CORRUPT. */
int tk_index_regset_at(const tk_index *idx, uint64_t pos, tk_index_regset *rs);

/* As tk_index_reg(), from a filled set.  Errors: TK_ERR_INVAL. */
int tk_index_regset_get(const tk_index_regset *rs, tk_reg_view view,
			uint8_t *value, uint8_t *known);

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

/*
 * The bytes of [addr, addr + len) at a position, in memory order, into
 * bytes[], with known[i] = 1 if byte i is known, else 0 (bytes[i] = 0).
 * Errors: TK_ERR_NOTFOUND (pos >= count), TK_ERR_INVAL (addr + len wraps
 * around), TK_ERR_CORRUPT.
 */
int tk_index_mem(const tk_index *idx, uint64_t pos, uint64_t addr, size_t len,
		 uint8_t *bytes, uint8_t *known);

/* ------------------------------------------------------------------ */
/* History                                                             */
/* ------------------------------------------------------------------ */

/*
 * Where a register view, or any byte of [addr, addr + len), was written:
 *   prev: the largest q <= pos written at q (the write that the state at pos
 *         shows; to go further back, ask again with q - 1);
 *   next: the smallest q > pos written at q (where the state at pos changes).
 * Only the bytes a register line actually sets count ("--" bytes do not).
 * Memory writes are trace writes, semihosting marks and contradicting reads;
 * back-dated values revealed by reads are not writes.
 * Errors: TK_ERR_NOTFOUND (no such write, or pos >= count), TK_ERR_INVAL
 * (bad view, len 0 or wrapping range), TK_ERR_CORRUPT.
 */
int tk_index_reg_prev_write(const tk_index *idx, uint64_t pos,
			    tk_reg_view view, uint64_t *q);
int tk_index_reg_next_write(const tk_index *idx, uint64_t pos,
			    tk_reg_view view, uint64_t *q);
int tk_index_mem_prev_write(const tk_index *idx, uint64_t pos, uint64_t addr,
			    size_t len, uint64_t *q);
int tk_index_mem_next_write(const tk_index *idx, uint64_t pos, uint64_t addr,
			    size_t len, uint64_t *q);

/* Called for each range of addresses; return non-zero to stop. */
typedef int (*tk_index_range_fn)(void *ctx, uint64_t addr, uint64_t len);

/*
 * Every memory address written at some position q with from < q <= to
 * (positions may be given in either order), limited to [lo, hi] (inclusive,
 * so the whole space is 0, UINT64_MAX), reported as maximal ranges of
 * consecutive addresses, in ascending address order or descending if
 * !ascending.  For highlighting what a step or a folded call changed, and
 * for a memory view's next/previous changed address.
 * Returns 0 (also when the callback stopped early), or TK_ERR_NOTFOUND
 * (a position >= count), TK_ERR_CORRUPT.
 */
int tk_index_mem_changes(const tk_index *idx, uint64_t from, uint64_t to,
			 uint64_t lo, uint64_t hi, bool ascending,
			 tk_index_range_fn fn, void *ctx);

/* ------------------------------------------------------------------ */
/* Calls                                                               */
/* ------------------------------------------------------------------ */

/*
 * The call tree of calls.h, read in place from the file: nothing is
 * decoded when the index is opened but the roots, so a tree of any size
 * costs no memory.  Nodes are numbered in preorder, roots (one per context)
 * in the order their contexts first appear, each followed by its subtree.
 */

/* Nodes (roots included; 0 if the trace has no step) and roots. */
uint32_t tk_index_call_count(const tk_index *idx);
uint32_t tk_index_call_roots(const tk_index *idx);

/* Node n, decoded (a few microseconds: at most one group of 32 nodes).
 * Errors: TK_ERR_NOTFOUND (n >= count), TK_ERR_CORRUPT. */
int tk_index_get_call(const tk_index *idx, uint32_t n, tk_call *out);

/* A walk of the nodes from n on, in preorder (calls.h): decoded as read,
 * for printing or aggregating a whole tree.  The walk must not outlive
 * the index.  Errors: TK_ERR_NOTFOUND (n > count), TK_ERR_NOMEM. */
int tk_index_calls_walk(const tk_index *idx, uint32_t n, tk_callwalk **out);

/* The same from node 0, and the walk takes the index: tk_callwalk_free
 * frees it too (also when this fails). */
int tk_index_calls_walk_own(tk_index *idx, tk_callwalk **out);

/* Hand the tree to a sink as the detector would have (tk_calltree_replay),
 * reading it backwards: memory grows with the depth of the tree only.
 * Errors: TK_ERR_NOMEM, TK_ERR_CORRUPT, or the sink's. */
int tk_index_calls_replay(const tk_index *idx, const tk_calls_sink *sink);

/* The positions of call n's instructions (see tk_call); TK_POS_NONE for the
 * root's call and resume. */
typedef struct tk_index_call_pos {
	uint64_t call, entry, exit, resume;
} tk_index_call_pos;

/* Errors: TK_ERR_NOTFOUND (n >= count). */
int tk_index_get_call_pos(const tk_index *idx, uint32_t n, tk_index_call_pos *out);

/* The innermost activation containing pos: the deepest call c with
 * entry <= pos <= exit (0, the root, if no other).
 * Errors: TK_ERR_NOTFOUND (pos >= count). */
int tk_index_call_at(const tk_index *idx, uint64_t pos, uint32_t *call);

#ifdef __cplusplus
}
#endif
#endif
