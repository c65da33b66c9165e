/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: files of the traced program, confined (see confine.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef __has_include
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif
#endif

#include "confine.h"

int rec_confine_init(rec_confine *c, bool allow_fs)
{
	c->allow_fs = allow_fs;
	/* TRACEKIT_NO_OPENAT2 (for the tests): the older kernels' way. */
	c->mode = getenv("TRACEKIT_NO_OPENAT2") ? 2 : 0;
	c->root = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return c->root < 0 && !allow_fs ? -1 : 0;
}

void rec_confine_fini(rec_confine *c)
{
	if (c->root >= 0)
		close(c->root);
	c->root = -1;
}

/* Refuse what cannot name anything beneath: empty, absolute. */
static int check_name(const char *name)
{
	if (!*name) {
		errno = ENOENT;
		return -1;
	}
	if (name[0] == '/') {
		errno = EACCES;
		return -1;
	}
	return 0;
}

#ifdef HAVE_OPENAT2
static int try_openat2(rec_confine *c, const char *name, int flags, mode_t mode)
{
	struct open_how how;
	memset(&how, 0, sizeof how);
	how.flags = (unsigned)flags | O_CLOEXEC;
	how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	int fd;
	do
		fd = (int)syscall(SYS_openat2, c->root, name, &how, sizeof how);
	while (fd < 0 && errno == EAGAIN);
	if (fd < 0 && errno == EXDEV)
		errno = EACCES;	/* the name leads outside */
	return fd;
}
#endif

/* One component at a time, no link followed: the descriptor of the
 * directory holding the last component (*last points into name), or -1. */
static int walk_parent(rec_confine *c, const char *name, const char **last)
{
	int dir = dup(c->root);
	const char *p = name;
	for (;;) {
		const char *slash = strchr(p, '/');
		if (!slash) {
			*last = p;
			return dir;
		}
		size_t n = (size_t)(slash - p);
		char comp[256];
		if (n >= sizeof comp) {
			close(dir);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = 0;
		p = slash + 1;
		if (n == 0 || !strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			close(dir);
			errno = EACCES;
			return -1;
		}
		int next = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		if (next < 0) {
			if (errno == ENOTDIR || errno == ELOOP)
				errno = EACCES;	/* a link, perhaps leading out */
			return -1;
		}
		dir = next;
	}
}

static bool bad_last(const char *last)
{
	return !*last || !strcmp(last, ".") || !strcmp(last, "..");
}

int rec_confine_open(rec_confine *c, const char *name, int flags, mode_t mode)
{
	if (c->allow_fs)
		return open(name, flags | O_CLOEXEC, mode);
	if (check_name(name))
		return -1;
#ifdef HAVE_OPENAT2
	if (c->mode != 2) {
		int fd = try_openat2(c, name, flags, mode);
		if (fd >= 0 || errno != ENOSYS) {
			c->mode = 1;
			return fd;
		}
		c->mode = 2;	/* an older kernel */
	}
#endif
	const char *last;
	int dir = walk_parent(c, name, &last);
	if (dir < 0)
		return -1;
	if (!strcmp(last, "..")) {
		close(dir);
		errno = EACCES;
		return -1;
	}
	int fd = openat(dir, *last ? last : ".", flags | O_NOFOLLOW | O_CLOEXEC, mode);
	int e = errno;
	close(dir);
	if (fd < 0 && e == ELOOP)
		e = EACCES;
	errno = e;
	return fd;
}

/* The directory of name's last component, confined, and that component. */
static int parent_of(rec_confine *c, const char *name, const char **last)
{
	if (check_name(name))
		return -1;
	const char *slash = strrchr(name, '/');
	*last = slash ? slash + 1 : name;
	if (bad_last(*last)) {
		errno = EACCES;
		return -1;
	}
	if (!slash)
		return dup(c->root);
	size_t n = (size_t)(slash - name);
	char *dir = strndup(name, n ? n : 1);
	if (!dir)
		return -1;
	if (!n)
		dir[0] = '/';
	int fd = rec_confine_open(c, dir, O_PATH | O_DIRECTORY, 0);
	free(dir);
	return fd;
}

int rec_confine_unlink(rec_confine *c, const char *name)
{
	if (c->allow_fs)
		return unlink(name);
	const char *last;
	int dir = parent_of(c, name, &last);
	if (dir < 0)
		return -1;
	int rc = unlinkat(dir, last, 0);
	int e = errno;
	close(dir);
	errno = e;
	return rc;
}

int rec_confine_rename(rec_confine *c, const char *from, const char *to)
{
	if (c->allow_fs)
		return rename(from, to);
	const char *lf, *lt;
	int df = parent_of(c, from, &lf);
	if (df < 0)
		return -1;
	int dt = parent_of(c, to, &lt);
	if (dt < 0) {
		int e = errno;
		close(df);
		errno = e;
		return -1;
	}
	int rc = renameat(df, lf, dt, lt);
	int e = errno;
	close(df);
	close(dt);
	errno = e;
	return rc;
}
