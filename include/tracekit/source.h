/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: event sources.
 *
 * A source turns one trace file into a stream of tk_event (see event.h).
 * Sources are pulled: tk_source_next() returns one event at a time, so a
 * tool never needs the whole trace in memory.  Every trace format is a
 * source behind this one interface: tk_source_open() finds the format (named,
 * or detected from the file's content) in the registry of formats and opens
 * the file with it.
 *
 * Problems in the input are reported through a diagnostic callback with the
 * file and line (or byte offset); the source then goes on where it safely
 * can.
 */
#ifndef TRACEKIT_SOURCE_H
#define TRACEKIT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/event.h"
#include "tracekit/input.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tk_diag_level {
	TK_DIAG_NOTE,
	TK_DIAG_WARNING,
	TK_DIAG_ERROR,
} tk_diag_level;

typedef struct tk_diag {
	tk_diag_level level;
	const char *file;	/* may be NULL */
	uint64_t line;		/* 0 if not about one line (record) */
	const char *msg;
	/* Binary formats: the byte offset the message is about, if any.  A
	 * message with has_offset and no line reads "FILE: offset 0x...". */
	bool has_offset;
	uint64_t offset;
} tk_diag;

typedef void (*tk_diag_fn)(void *ctx, const tk_diag *diag);

typedef struct tk_source tk_source;
typedef struct tk_source_format tk_source_format;

/* ------------------------------------------------------------------ */
/* What a source is                                                    */
/* ------------------------------------------------------------------ */

/* The unit of tk_event.time. */
typedef enum tk_time_unit {
	TK_TIME_UNKNOWN = 0,
	TK_TIME_TICKS,		/* the trace's own clock (Tarmac: tic, cyc, clk...) */
	TK_TIME_PS,
	TK_TIME_NS,
	TK_TIME_INSNS,		/* instructions executed */
	TK_TIME_RECORDS,	/* records of the file */
} tk_time_unit;

/* "ticks", "ps", "ns", "instructions", "records", "unknown". */
const char *tk_time_unit_name(tk_time_unit unit);

/* Capabilities: what the events of a source can tell. */
enum {
	TK_CAP_INSNS = 1u << 0,		/* instruction events */
	TK_CAP_REGS = 1u << 1,		/* register values */
	TK_CAP_MEM = 1u << 2,		/* memory accesses (addresses) */
	TK_CAP_MEM_VALUES = 1u << 3,	/* ... with the values read or written */
	TK_CAP_CALLS = 1u << 4,		/* knows calls and returns (branch kinds
					 * or function events): no heuristic */
	TK_CAP_FUNCS = 1u << 5,		/* function enter/exit events */
	TK_CAP_CONTEXTS = 1u << 6,	/* several CPUs or threads */
	TK_CAP_TEXT = 1u << 7,		/* a text format: events carry raw lines */
	TK_CAP_SEEK = 1u << 8,		/* tk_source_seek() works */
};

/* Names of the capabilities set in caps, comma-separated, into buf. */
const char *tk_caps_string(unsigned caps, char *buf, size_t size);

/* A code image of the traced program: an ELF file and its load offset
 * (run-time address - ELF address).  Its symbols name the trace's code. */
typedef struct tk_source_image {
	const char *path;
	uint64_t bias;
} tk_source_image;

typedef struct tk_source_info {
	size_t size;		/* sizeof(tk_source_info), set by the caller */
	const char *format;	/* the format's name: "tarmac", ... */
	tk_isa isa;		/* the main instruction set, as far as known so
				 * far (Tarmac: after the first instruction) */
	bool big_endian;	/* data byte order of the traced machine */
	tk_time_unit time_unit;
	unsigned caps;		/* TK_CAP_* */
	const char *context_name; /* what a context is: "cpu" or "thread" */
	/* The options the source was opened with that change its events,
	 * canonical ("bi,implicit-thumb"): an index records it and is rebuilt
	 * when it changes.  Empty if none. */
	const char *options;
	/* The code images the trace's addresses are in, when the source
	 * knows them (from the trace itself, e.g. perf.data's mappings, or
	 * from the --image options it decodes with); else none. */
	const tk_source_image *images;
	size_t nimages;
} tk_source_info;

/* Errors: TK_ERR_INVAL (info->size too small). */
int tk_source_get_info(const tk_source *src, tk_source_info *info);

/* Steps are what positions count: instructions, or, in a source without
 * instructions, its function events. */
static inline bool tk_source_info_func_steps(const tk_source_info *info)
{
	return !(info->caps & TK_CAP_INSNS) && (info->caps & TK_CAP_FUNCS);
}

/* ------------------------------------------------------------------ */
/* Opening                                                             */
/* ------------------------------------------------------------------ */

/* One option given to a format: name without "--", value ("" for a flag). */
typedef struct tk_source_opt {
	const char *name;
	const char *value;
} tk_source_opt;

typedef struct tk_source_spec {
	size_t size;			/* sizeof(tk_source_spec) */
	const char *format;		/* NULL: detect from the content */
	const tk_source_opt *opts;	/* the formats' options given */
	size_t nopts;
	const char *const *images;	/* --image arguments ("ELF[@ADDR]") */
	size_t nimages;
	tk_diag_fn diag;		/* may be NULL: diagnostics are dropped */
	void *diag_ctx;
	/* How formats that read through the input layer (text formats,
	 * compressed or not) open it: e.g. recording checkpoints while the
	 * index is built.  NULL: the defaults. */
	const tk_input_opts *input_opts;
	/* Threads a format that decodes in parallel by itself (Intel PT)
	 * uses; 0: one per online CPU. */
	unsigned threads;
} tk_source_spec;

void tk_source_spec_init(tk_source_spec *spec);

/* The value of option name in spec: "" for a flag given, NULL if not
 * given (the last one given wins). */
const char *tk_source_spec_get(const tk_source_spec *spec, const char *name);

/*
 * Open a trace.  path "-" reads standard input (formats that can stream
 * it).  The format is spec->format, or the one whose probe is most sure of
 * the file's first bytes (magic numbers, first lines; the name only breaks
 * ties where a format says so).  spec may be NULL (detect, no options).
 * Errors: TK_ERR_OPEN (errno says why), TK_ERR_ISDIR, TK_ERR_NOTFOUND
 * (no format of that name), TK_ERR_FORMAT (no format recognises the
 * content; a diagnostic says why), TK_ERR_UNSUPPORTED (the format cannot
 * read standard input), TK_ERR_INVAL (a bad option value: a diagnostic
 * says which), TK_ERR_NOMEM, or the format's own open errors.
 */
int tk_source_open(const char *path, const tk_source_spec *spec, tk_source **out);

/* The format tk_source_open would choose for path (spec->format is not
 * looked at).  Errors as tk_source_open. */
int tk_source_detect(const char *path, const tk_source_spec *spec,
		     const tk_source_format **out);

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

/*
 * Read the next event.
 * Returns 1 and fills *ev, 0 at the end of the trace, or a negative tk_err
 * (TK_ERR_IO) if reading failed.  Malformed lines are not errors: they are
 * reported to the diagnostic callback and skipped (or kept as text).
 */
int tk_source_next(tk_source *src, tk_event *ev);

/*
 * Read up to cap (>= 1) events at once into evs: the events
 * tk_source_next() would give one by one, all valid until the next call
 * into the source.  Returns how many (1 or more), 0 at the end of the
 * trace, or a negative tk_err.  A source that reads runs (below) may fill
 * many per call, which spares its reader a call per event; others give
 * one.
 */
int tk_source_next_many(tk_source *src, tk_event *evs, size_t cap);

/*
 * Ask for runs of instructions (TK_EV_RUN, event.h) in place of the
 * TK_EV_INSN events they stand for, where the source can give them; before
 * the first tk_source_next().  For readers that need no more of the
 * instructions than a run tells (the call detector does not).  Returns
 * true if the source will give runs, false if it goes on giving every
 * instruction.
 */
bool tk_source_want_runs(tk_source *src);

/*
 * Go back (or forward) to a record the source reported before: the next
 * events are those of the line (record) that starts at byte `offset`, which
 * is numbered `line`, with `time` as the time in force before it (a Tarmac
 * line without a timestamp repeats the previous one) and `context` likewise.
 * For re-reading the events of one position (the browser).
 * Errors: TK_ERR_UNSUPPORTED (the source cannot seek: a pipe, a format
 * without it), TK_ERR_INVAL (offset beyond the file), TK_ERR_IO.
 */
typedef struct tk_seek_point {
	uint64_t offset, line, time;
	uint32_t context;
} tk_seek_point;

int tk_source_seek(tk_source *src, const tk_seek_point *at);

/* Bytes consumed so far and in all (0 if unknown, e.g. a pipe): for
 * progress meters. */
uint64_t tk_source_pos(const tk_source *src);
uint64_t tk_source_size(const tk_source *src);

/* Number of lines reported as malformed so far. */
uint64_t tk_source_warnings(const tk_source *src);

/* The path the source reads ("-" or "<stdin>" for standard input). */
const char *tk_source_path(const tk_source *src);

/* The input a file source reads through (its format, decompressed size,
 * checkpoints), or NULL. */
tk_input *tk_source_input(const tk_source *src);

void tk_source_free(tk_source *src);

/* ------------------------------------------------------------------ */
/* The registry of formats                                             */
/* ------------------------------------------------------------------ */

/* An option a format adds to every command that reads traces. */
typedef struct tk_source_option {
	const char *name;	/* long option, without "--" */
	const char *arg;	/* argument's name in --help ("F/M[/S]"), or NULL
				 * for a flag */
	const char *help;	/* one line */
	bool index_key;		/* it changes the events: part of an index's key */
} tk_source_option;

/* A trace format (see source_author.h for writing one). */
struct tk_source_format {
	const char *name;	/* "tarmac", ...: --format=NAME */
	const char *summary;	/* one line: what the format is */
	const char *detection;	/* how its files are recognised, for people */
	unsigned caps;		/* TK_CAP_* a trace of this format can have */
	tk_time_unit time_unit;	/* the unit of its times */
	const tk_source_option *options; /* NULL-name terminated, or NULL */
	bool images_in_key;	/* the --image options change the events (the
				 * format decodes code from them): index key */
	/*
	 * How sure the format is that a file is its own, from the first
	 * bytes (len <= 4096; fewer if the file is shorter) and the path
	 * ("-" for standard input): 0 (no) to 100 (a magic number).  The
	 * highest wins; a tie goes to the earlier format of the registry.
	 */
	int (*probe)(const uint8_t *head, size_t len, const char *path);
	/* Open a file.  Errors as tk_source_open. */
	int (*open)(const char *path, const tk_source_spec *spec, tk_source **out);
	/*
	 * Open standard input, or NULL if the format cannot stream: `in`
	 * (the source owns it from now on, even on failure) reads it,
	 * decompressed, from its start, except that head (len bytes) was
	 * already read from it for the probe and must be taken first.
	 */
	int (*open_stream)(tk_input *in, const uint8_t *head, size_t len, const char *name,
			   const tk_source_spec *spec, tk_source **out);
	/* Reading a piece of a file on its own, for reading it on several
	 * threads (source_author.h), or NULL: the file is read in order. */
	const struct tk_chunk_ops *chunks;
};

/* Every format tracekit reads, in a fixed order: *list receives the array,
 * the count is returned. */
size_t tk_source_formats(const tk_source_format *const **list);

/* The options of spec that change fmt's events, canonical: the index_key
 * options given, sorted, "name" or "name=value", comma-separated ("" if
 * none), then "image=ARG" for each --image if the format decodes code from
 * them.  *out is malloc'ed.  Errors: TK_ERR_NOMEM. */
int tk_source_options_key(const tk_source_format *fmt, const tk_source_spec *spec, char **out);

/* The format of that name, or NULL. */
const tk_source_format *tk_source_format_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
