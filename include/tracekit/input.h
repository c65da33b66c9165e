/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: reading trace files, plain or compressed.
 *
 * A tk_input reads a file (or standard input, or a stream, or bytes in
 * memory) and hands out its decompressed bytes.  The format is found by
 * content, never by name: gzip (1f 8b), zstd (28 b5 2f fd, or a skippable
 * frame), xz (fd 37 7a 58 5a 00); anything else is read as it is.
 *
 * Two ways of reading, usable together:
 *   - sequential: tk_input_read() from the start to the end, as fast as the
 *     decompressor goes (a plain file is read with large read(2) calls);
 *   - random access: tk_input_pread() at any decompressed offset.  A plain
 *     file is read directly.  A seekable zstd file (independent frames and a
 *     seek table, as `tracekit compress` writes them) decompresses only the
 *     frame holding the offset.  An xz file decompresses only the block
 *     holding it (xz -T or --block-size make files of many blocks).  A gzip
 *     or plain zstd file needs a checkpoint table: restart points every few
 *     MB (for gzip the inflate state and the 32 KiB window before it, for
 *     zstd frame boundaries), recorded during a sequential pass, kept in a
 *     checkpoint file (the index keeps one beside itself), and built by a
 *     pass over the file when it is missing or stale.
 *
 * Damage: a truncated or corrupt compressed stream gives every byte before
 * the damage, then an error; tk_input_error() says what and at which byte
 * of the file.
 *
 * Every fallible function returns 0 or a negative tk_err (error.h); the
 * library never prints.
 */
#ifndef TRACEKIT_INPUT_H
#define TRACEKIT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tk_input tk_input;

typedef enum tk_input_format {
	TK_INPUT_PLAIN = 0,
	TK_INPUT_GZIP,
	TK_INPUT_ZSTD,
	TK_INPUT_XZ,
} tk_input_format;

/* tk_input_size() when the decompressed size is not known (yet). */
#define TK_INPUT_SIZE_UNKNOWN UINT64_MAX

/* Progress of a long pass (building a checkpoint table): done of total
 * file bytes. */
typedef void (*tk_input_progress_fn)(void *ctx, uint64_t done, uint64_t total);

typedef struct tk_input_opts {
	size_t size;			/* sizeof(tk_input_opts) */
	/* Record checkpoints while reading sequentially (gzip, plain zstd),
	 * for tk_input_save_checkpoints() after the end is reached. */
	bool record_checkpoints;
	/* Decompressed bytes between checkpoints; 0: 4 MiB. */
	uint64_t checkpoint_spacing;
	/* Random access to gzip / plain zstd: load the checkpoint table from
	 * this file, or build it and save it there if it is missing, corrupt
	 * or describes another file.  NULL: build it in memory. */
	const char *checkpoint_file;
	tk_input_progress_fn progress;	/* while building a checkpoint table */
	void *progress_ctx;
	/* Largest decoder memory accepted (zstd window, xz dictionary);
	 * 0: 1 GiB.  A file needing more fails with TK_ERR_UNSUPPORTED. */
	uint64_t memlimit;
	/* Decompress sequential reads on the calling thread.  By default a
	 * compressed input decompresses on a second thread, ahead of the
	 * reads (2 MiB in flight), so decompression and parsing overlap. */
	bool no_thread;
} tk_input_opts;

void tk_input_opts_init(tk_input_opts *opts);

/*
 * Open a file ("-": standard input).  The first bytes are read to detect
 * the format.  opts may be NULL.
 * Errors: TK_ERR_OPEN (errno says why), TK_ERR_ISDIR, TK_ERR_IO, TK_ERR_NOMEM.
 */
int tk_input_open(const char *path, const tk_input_opts *opts, tk_input **out);

/* The same on an open descriptor (closed by tk_input_close if own; left
 * open if this fails) or a stdio stream (never closed); name is used in
 * messages.  A regular file not at offset 0 is read as a stream from
 * where it is (no random access). */
int tk_input_open_fd(int fd, bool own, const char *name, const tk_input_opts *opts,
		     tk_input **out);
int tk_input_open_stream(FILE *fp, const char *name, const tk_input_opts *opts,
			 tk_input **out);

/* Bytes in memory (not copied: they must outlive the input). */
int tk_input_open_memory(const void *data, size_t len, const char *name,
			 const tk_input_opts *opts, tk_input **out);

void tk_input_close(tk_input *in);

tk_input_format tk_input_get_format(const tk_input *in);
/* "plain", "gzip", "zstd", "xz". */
const char *tk_input_format_name(tk_input_format format);
/* True for a zstd file with a seek table (read when the file is opened). */
bool tk_input_is_seekable_zstd(const tk_input *in);
const char *tk_input_name(const tk_input *in);

/*
 * Sequential read of up to n decompressed bytes into buf: *got = bytes
 * read, 0 at the end.  After damage, the bytes before it are returned
 * first, then the error.
 * Errors: TK_ERR_IO (errno-style failure), TK_ERR_CORRUPT (bad compressed
 * data or checksum), TK_ERR_EOF (the file ends inside a compressed
 * stream), TK_ERR_UNSUPPORTED (e.g. a zstd window over the memory limit),
 * TK_ERR_NOMEM.  Errors are sticky.
 */
int tk_input_read(tk_input *in, void *buf, size_t n, size_t *got);

/* Decompressed bytes returned by tk_input_read so far. */
uint64_t tk_input_tell(const tk_input *in);
/* File bytes consumed by the sequential reads so far (for progress). */
uint64_t tk_input_consumed(const tk_input *in);
/* Bytes of the file, 0 if unknown (a pipe). */
uint64_t tk_input_file_size(const tk_input *in);
/* Decompressed size, or TK_INPUT_SIZE_UNKNOWN: known for plain files,
 * seekable zstd, and once random access is set up or a sequential read
 * reached the end. */
uint64_t tk_input_size(const tk_input *in);

/*
 * Make random access ready: read the seek table or the xz index, load the
 * checkpoint table, or build it (a pass over the whole file, reported to
 * opts->progress, saved to opts->checkpoint_file).  tk_input_pread calls
 * this itself; call it first to know tk_input_size.
 * Errors: TK_ERR_UNSUPPORTED (standard input, a stream), and the errors
 * of tk_input_read met during the pass.
 */
int tk_input_random_access(tk_input *in);

/*
 * Read up to n bytes at decompressed offset off: *got is less than n only
 * at the end of the data.  Independent of the sequential position.
 * Errors: as tk_input_random_access and tk_input_read.
 */
int tk_input_pread(tk_input *in, uint64_t off, void *buf, size_t n, size_t *got);

/* The whole of a plain regular file, mapped read-only (valid until
 * tk_input_close).  Errors: TK_ERR_UNSUPPORTED (compressed, not a
 * regular file), TK_ERR_IO. */
int tk_input_map(tk_input *in, const char **data, uint64_t *size);

/*
 * Write the checkpoint table recorded during a complete sequential pass
 * (opts->record_checkpoints) to path, atomically.  Returns 0, 1 if the
 * format needs none (plain, seekable zstd, xz), or TK_ERR_INVAL (nothing
 * complete recorded), TK_ERR_IO, TK_ERR_OPEN.
 */
int tk_input_save_checkpoints(tk_input *in, const char *path);

/* Number of restart points random access uses (checkpoints, frames or
 * blocks); 0 before random access is set up. */
uint64_t tk_input_restart_points(const tk_input *in);

/* What random access did about the checkpoint table, for -v: "" (not
 * needed or not set up yet), "loaded", "built in memory", "rebuilt and
 * saved (it was missing)", "... (it was stale: it describes another
 * file)", "... (it was corrupt)", "rebuilt but not saved (...)". */
const char *tk_input_checkpoint_status(const tk_input *in);

/* The last error: a message without the file name ("corrupt gzip data
 * at byte 1234 of the file: invalid distance too far back"), "" if none;
 * and the file offset it concerns. */
const char *tk_input_error(const tk_input *in);
uint64_t tk_input_error_offset(const tk_input *in);

/* ------------------------------------------------------------------ */
/* Writing seekable zstd                                              */
/* ------------------------------------------------------------------ */

typedef struct tk_zstd_seekable_opts {
	size_t size;			/* sizeof(tk_zstd_seekable_opts) */
	int level;			/* zstd level; 0: 7 */
	size_t frame_size;		/* decompressed bytes per frame; 0: 4 MiB */
	unsigned threads;		/* compressing threads; 0: one per CPU */
	tk_input_progress_fn progress;	/* done/total of the input file */
	void *progress_ctx;
} tk_zstd_seekable_opts;

void tk_zstd_seekable_opts_init(tk_zstd_seekable_opts *opts);

typedef struct tk_zstd_seekable_stats {
	uint64_t in_bytes, out_bytes, frames;
} tk_zstd_seekable_stats;

/*
 * Compress everything tk_input_read gives into out_fd as seekable zstd:
 * independent frames of frame_size bytes, each with its content checksum,
 * then the seek table (with checksums).  The output is written in order
 * and never seeked, so out_fd may be a pipe.  stats may be NULL.
 * Errors: those of tk_input_read (the input's message says more),
 * TK_ERR_IO (writing; errno says why), TK_ERR_INVAL (bad options),
 * TK_ERR_NOMEM.
 */
int tk_zstd_seekable_write(tk_input *in, int out_fd, const tk_zstd_seekable_opts *opts,
			   tk_zstd_seekable_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
