/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the output files of every command (-o FILE, record's trace).
 *
 * What a target is decides how it is written:
 *   - "-" (or no name): standard output, written directly;
 *   - a fifo, a character or block device, a socket: opened and written
 *     directly, streaming (never replaced: `-o /dev/null` stays a device);
 *   - a symbolic link: followed (through any chain), and its target is
 *     written as below; the link itself stays;
 *   - a regular file, or a name that does not exist yet: written to a
 *     temporary file made with mkstemp in the target's own directory, then
 *     renamed over the target when the command succeeds, so a failed or
 *     interrupted run never leaves half a file; an existing target's mode
 *     (and, for root, owner) is kept, a new file gets 0666 less the umask;
 *   - an existing directory: an error;
 *   - an existing regular file that is read-only: refused (not replaced);
 *   - a file that is one of the command's inputs (same device and inode,
 *     see tk_out_protect): refused before anything is written.
 *
 * While a temporary file exists, SIGINT, SIGTERM, SIGHUP and SIGQUIT remove
 * it before the process dies (unless the signal was ignored when the file
 * was made, or a command installed its own handler, as record does).
 *
 * Errors are printed as "PROG: FILE: what went wrong"; the functions then
 * return -1.
 */
#ifndef TRACEKIT_TOOLS_OUTPUT_H
#define TRACEKIT_TOOLS_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct tk_out {
	FILE *fp;		/* write here */
	const char *name;	/* as given, for messages */
	/* private */
	char *target;		/* the file finally written (links resolved) */
	char *tmp;		/* the temporary file, NULL when direct */
	bool is_stdout;
	bool existed;
	mode_t mode;
	uid_t uid;
	gid_t gid;
} tk_out;

/* Record an input file (a trace, an image, "-" for standard input) that
 * no output may overwrite.  Paths that do not exist are ignored. */
void tk_out_protect(const char *path);

/* Non-zero if path names one of the protected inputs (same device and
 * inode); *input is then set to the input's name as protected. */
bool tk_out_is_input(const char *path, const char **input);

/*
 * Open an output.  path NULL or "-" is standard output.  Returns 0 and
 * fills *o, or prints an error and returns -1.
 */
int tk_out_open(tk_out *o, const char *prog, const char *path);

/* Flush and finish: rename the temporary file into place.  Returns 0, or
 * prints the error (a write error, a full disk...) and returns -1, the
 * target being left as it was. */
int tk_out_commit(tk_out *o, const char *prog);

/* Abandon the output after an error: the temporary file is removed and the
 * target left as it was (a direct output keeps what was written). */
void tk_out_abort(tk_out *o);

/* Remove every live temporary file now (for a command's own signal
 * handler; async-signal-safe). */
void tk_out_remove_temporaries(void);

/* The handler tk_out_open installs: remove the temporaries, then die of
 * the signal.  Exposed so that a command can restore it. */
void tk_out_signal_cleanup(int sig);

#endif
