/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: the traced program's files, confined to the working
 * directory.
 *
 * Without --allow-fs a program may only reach files beneath the directory
 * tracekit was started in.  Every name is resolved from a descriptor of
 * that directory, in the kernel, without following a link out of it and
 * without a window between checking and opening: openat2() with
 * RESOLVE_BENEATH (links that stay inside are followed), or, on kernels
 * without it, one component at a time with O_NOFOLLOW (no links followed
 * at all).  So "../x", "/etc/passwd", a link to "../out/x" (dangling or
 * not) and a directory renamed under the program's feet all fail with
 * EACCES or EXDEV/ELOOP, and nothing is created outside.  Removing and
 * renaming act on the name in its (confined) directory, never on what a
 * link points to.  TRACEKIT_NO_OPENAT2 in the environment forces the
 * component-wise way (the tests use it).
 */
#ifndef TRACEKIT_TOOLS_RECORD_CONFINE_H
#define TRACEKIT_TOOLS_RECORD_CONFINE_H

#include <stdbool.h>
#include <sys/types.h>

typedef struct rec_confine {
	int root;		/* O_PATH descriptor of the working directory */
	bool allow_fs;		/* no confinement (--allow-fs) */
	int mode;		/* 0 unknown, 1 openat2, 2 component-wise */
} rec_confine;

/* Open the working directory.  Returns 0, or -1 (errno). */
int rec_confine_init(rec_confine *c, bool allow_fs);
void rec_confine_fini(rec_confine *c);

/* open(2) of a name given by the program, confined.  Returns a descriptor,
 * or -1 with errno (EACCES for a name that leads outside). */
int rec_confine_open(rec_confine *c, const char *name, int flags, mode_t mode);

/* unlink(2) and rename(2), confined.  0, or -1 with errno. */
int rec_confine_unlink(rec_confine *c, const char *name);
int rec_confine_rename(rec_confine *c, const char *from, const char *to);

#endif
