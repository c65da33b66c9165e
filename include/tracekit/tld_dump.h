/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: function enter/exit records of the trace linker's
 * trace-buffer generator, read back on the host.
 *
 * Two files carry them:
 *   - the dump file ("TKTLDUMP" magic) that the generated code saves at
 *     exit or on request, and that `tracekit tld-extract` rebuilds from a
 *     Tarmac trace; its layout is in docs/TLD.md;
 *   - the file the RTEMS shell command `rtrace save` writes
 *     ("RTEMS-TRACE\0"), which has no addresses: they come from an ELF
 *     image by name (opts.symtab).
 * Both hold a table of the traced functions (name, real address, return
 * and parameter types with their sizes) and the raw buffer of records.
 *
 * The reader is pulled: tk_tld_dump_next() yields one record at a time,
 * an entry (maps to TK_EV_CALL) or an exit (TK_EV_RETURN), with the
 * function, its address, the time, the record number (1-based, the "line"),
 * the byte offset in the file, the thread, and the argument or return
 * bytes with their C types.  The strings and bytes a record points to
 * stay valid until tk_tld_dump_free(); its values array until the next
 * call of tk_tld_dump_next().
 *
 * Damage: a truncated, corrupt or empty file gives a diagnostic naming the
 * file and the byte offset; the records before the damage are returned
 * first, then tk_tld_dump_next() returns the error once and 0 afterwards.
 */
#ifndef TRACEKIT_TLD_DUMP_H
#define TRACEKIT_TLD_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracekit/event.h"
#include "tracekit/source.h"
#include "tracekit/symbols.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TK_TLD_DUMP_MAGIC "TKTLDUMP"	/* 8 bytes */
#define TK_TLD_DUMP_VERSION 1
#define TK_TLD_RTRACE_MAGIC "RTEMS-TRACE"	/* 12 bytes with its NUL */
#define TK_TLD_RECORD_HEADER 24		/* bytes: 6 words */
#define TK_TLD_RECORD_MAX 0x3fff	/* largest record size the header holds */

typedef enum tk_tld_file_kind {
	TK_TLD_FILE_DUMP = 1,
	TK_TLD_FILE_RTRACE = 2,
} tk_tld_file_kind;

/* What a record's time counts. */
typedef enum tk_tld_clock {
	TK_TLD_CLOCK_NS = 0,		/* nanoseconds (CLOCK_MONOTONIC, RTEMS uptime) */
	TK_TLD_CLOCK_SEQUENCE = 1,	/* a record sequence number: no clock */
	TK_TLD_CLOCK_TICKS = 2,		/* ticks of RTLD_TRACE_BUFFER_CLOCK() (clock_hz if known) */
	TK_TLD_CLOCK_TRACE = 3,		/* the time of the trace it was extracted from */
} tk_tld_clock;

typedef struct tk_tld_dump_info {
	size_t size;			/* sizeof(tk_tld_dump_info) */
	tk_tld_file_kind kind;
	bool big_endian;		/* the target's byte order */
	unsigned version;		/* dump format version (0 for rtrace) */
	unsigned pointer_size;		/* bytes; 0 if unknown (rtrace) */
	tk_tld_clock clock;
	uint64_t clock_hz;		/* ticks per second, 0 if unknown */
	unsigned machine;		/* ELF e_machine of the target, 0 if unknown */
	bool finished;			/* the buffer filled up: later calls were lost */
	bool triggered;
	uint32_t mode;			/* __rtld_tbg_mode */
	uint32_t nfuncs;
	uint32_t capacity_words;	/* the buffer's size */
	uint32_t used_words;		/* words recorded */
	uint64_t buffer_offset;		/* byte offset of the first record */
	uint64_t file_size;
} tk_tld_dump_info;

/* One traced function.  types[0]/sizes[0] describe the return value
 * ({0, "void"} for none), then one entry per parameter; a single
 * {0, "void"} parameter means none (as in __rtld_trace_signatures). */
typedef struct tk_tld_func {
	const char *name;
	uint64_t addr;			/* the real function; 0 if unknown */
	uint32_t argc;			/* entries in sizes and types (>= 1) */
	const uint32_t *sizes;
	const char *const *types;
} tk_tld_func;

/* An argument or a return value. */
typedef struct tk_tld_value {
	const char *type;		/* C type, as in the signature */
	uint32_t size;			/* sizeof the type */
	uint32_t avail;			/* bytes recorded: < size when the record
					 * was cut at TK_TLD_RECORD_MAX bytes */
	const uint8_t *bytes;		/* avail bytes in the target's memory order */
} tk_tld_value;

typedef struct tk_tld_record {
	bool exit;			/* false: entry (call), true: exit (return) */
	bool interrupt;			/* recorded in interrupt context */
	uint32_t func;			/* index in the function table */
	const char *name;
	size_t name_len;
	uint64_t addr;			/* the function's address (0 if unknown) */
	uint64_t time;			/* in info.clock units */
	uint64_t number;		/* 1-based record number */
	uint64_t offset;		/* byte offset of the record in the file */
	uint32_t thread;		/* the thread id as recorded */
	uint32_t context;		/* threads numbered 0, 1, ... in order of
					 * first appearance */
	uint8_t cur_priority, real_priority;
	uint32_t state;			/* the thread's state word (RTEMS) */
	uint32_t nvalues;		/* entry: the arguments; exit: 1 (the
					 * return value) or 0 (void) */
	const tk_tld_value *values;
} tk_tld_record;

typedef struct tk_tld_dump_opts {
	size_t size;			/* sizeof(tk_tld_dump_opts) */
	tk_diag_fn diag;		/* may be NULL */
	void *diag_ctx;
	const tk_symtab *symtab;	/* addresses by name (rtrace files); may
					 * be NULL.  Also fills addresses a dump
					 * lacks (0). */
} tk_tld_dump_opts;

typedef struct tk_tld_dump tk_tld_dump;

/* Does this look like a dump or an rtrace file?  0 (no) or 100 (magic). */
int tk_tld_probe(const void *head, size_t len);

/*
 * Open a dump or rtrace file (mapped read-only; "-" reads standard input).
 * Errors, reported first with the byte offset: TK_ERR_OPEN, TK_ERR_ISDIR,
 * TK_ERR_EMPTY (empty file), TK_ERR_FORMAT (no magic), TK_ERR_UNSUPPORTED
 * (a later format version), TK_ERR_CORRUPT (a bad header or function
 * table), TK_ERR_EOF (the file ends inside them), TK_ERR_NOMEM.
 */
int tk_tld_dump_open(const char *path, const tk_tld_dump_opts *opts, tk_tld_dump **out);

/* The same on bytes in memory (not copied: they must outlive the
 * reader); name is used in diagnostics. */
int tk_tld_dump_open_mem(const void *data, size_t len, const char *name,
			 const tk_tld_dump_opts *opts, tk_tld_dump **out);

const tk_tld_dump_info *tk_tld_dump_get_info(const tk_tld_dump *d);
/* Function i (< info.nfuncs), or NULL. */
const tk_tld_func *tk_tld_dump_func(const tk_tld_dump *d, uint32_t i);

/*
 * The next record: 1 (filled in *rec), 0 at the end, or a negative tk_err
 * once at damage (TK_ERR_CORRUPT: a record that cannot be right;
 * TK_ERR_EOF: the file ends inside a record), reported first with the
 * byte offset; 0 afterwards.
 */
int tk_tld_dump_next(tk_tld_dump *d, tk_tld_record *rec);

/* Go back (or forward) to a record boundary reported earlier: its offset
 * and number.  TK_ERR_INVAL if offset is not inside the buffer on a word
 * boundary. */
int tk_tld_dump_seek(tk_tld_dump *d, uint64_t offset, uint64_t number);

/* Bytes of the file consumed so far (for progress meters). */
uint64_t tk_tld_dump_pos(const tk_tld_dump *d);

/* The message of the last error or warning ("byte offset 120: ..."). */
const char *tk_tld_dump_error(const tk_tld_dump *d);

void tk_tld_dump_free(tk_tld_dump *d);

/*
 * Write a dump file: the header from info (kind, version, nfuncs,
 * buffer_offset and file_size are ignored), the function table, and
 * info->used_words words of buffer (raw target memory, in the info's byte
 * order).  Returns 0 or TK_ERR_IO / TK_ERR_INVAL.
 */
int tk_tld_dump_write(FILE *fp, const tk_tld_dump_info *info, const tk_tld_func *funcs,
		      uint32_t nfuncs, const void *buffer);

/* ---- rebuilding a dump from a trace of the target's memory ---------------- */

/* What a trace-linked ELF image says about its trace buffer. */
typedef struct tk_tld_image {
	size_t size;			/* sizeof(tk_tld_image) */
	bool big_endian;
	unsigned pointer_size;		/* 4 or 8 */
	unsigned machine;		/* ELF e_machine */
	uint64_t buffer_addr;		/* __rtld_tbg_buffer */
	uint32_t capacity_words;	/* __rtld_tbg_buffer_size */
	uint64_t in_addr;		/* __rtld_tbg_buffer_in */
	uint64_t finished_addr;		/* __rtld_tbg_finished */
	uint64_t triggered_addr;	/* __rtld_tbg_triggered */
	uint32_t mode;			/* __rtld_tbg_mode */
	uint32_t nfuncs;
	tk_tld_func *funcs;		/* names, real addresses, signatures */
} tk_tld_image;

/*
 * Read the trace-buffer symbols and the tables (__rtld_trace_names,
 * __rtld_trace_signatures, __rtld_trace_funcs) from a trace-linked ELF
 * image.  Errors (reported through diag): TK_ERR_OPEN, TK_ERR_ELF (not an
 * ELF file), TK_ERR_NOTFOUND (not linked with the trace-buffer
 * generator), TK_ERR_CORRUPT (tables that point outside the image),
 * TK_ERR_NOMEM.
 */
int tk_tld_image_load(const char *path, tk_diag_fn diag, void *diag_ctx, tk_tld_image **out);
void tk_tld_image_free(tk_tld_image *img);

/* The buffer rebuilt from the memory writes of a trace. */
typedef struct tk_tld_extract tk_tld_extract;

int tk_tld_extract_new(const tk_tld_image *img, tk_tld_extract **out);
/* Feed one memory access of the trace (writes to the buffer, its cursor
 * and flags are kept, with the time of each word's last write). */
void tk_tld_extract_mem(tk_tld_extract *x, const tk_mem_access *m, uint64_t time);
/* Bytes of the buffer written so far (for messages). */
uint64_t tk_tld_extract_writes(const tk_tld_extract *x);
/* Write the dump: the buffer up to the final cursor, each record's time
 * replaced by the time of the write of its first word (clock
 * TK_TLD_CLOCK_TRACE).  Returns 0 or TK_ERR_IO. */
int tk_tld_extract_write(tk_tld_extract *x, FILE *fp);
void tk_tld_extract_free(tk_tld_extract *x);

#ifdef __cplusplus
}
#endif
#endif
