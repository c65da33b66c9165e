/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: output files (see output.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

/* ---- inputs that must not be overwritten ---------------------------------- */

#define MAX_INPUTS 16

static struct {
	dev_t dev;
	ino_t ino;
	char *name;
} inputs[MAX_INPUTS];
static int ninputs;

void tk_out_protect(const char *path)
{
	struct stat st;
	if (!path || ninputs == MAX_INPUTS)
		return;
	int rc = strcmp(path, "-") ? stat(path, &st) : fstat(STDIN_FILENO, &st);
	if (rc != 0 || !S_ISREG(st.st_mode))
		return;
	for (int i = 0; i < ninputs; i++)
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
			return;
	char *name = strdup(strcmp(path, "-") ? path : "standard input");
	if (!name)
		return;
	inputs[ninputs].dev = st.st_dev;
	inputs[ninputs].ino = st.st_ino;
	inputs[ninputs].name = name;
	ninputs++;
}

static const char *input_of(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return NULL;
	for (int i = 0; i < ninputs; i++)
		if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
			return inputs[i].name;
	return NULL;
}

bool tk_out_is_input(const char *path, const char **input)
{
	struct stat st;
	if (!path || stat(path, &st) != 0)
		return false;
	const char *in = input_of(&st);
	if (in && input)
		*input = in;
	return in != NULL;
}

/* ---- temporary files and signals -------------------------------------------- */

#define MAX_LIVE 8

static char *volatile live[MAX_LIVE];
static bool handlers_installed;

void tk_out_remove_temporaries(void)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		char *p = live[i];
		if (p)
			unlink(p);
	}
}

void tk_out_signal_cleanup(int sig)
{
	tk_out_remove_temporaries();
	signal(sig, SIG_DFL);
	raise(sig);	/* delivered when the handler returns */
}

static void install_handlers(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	if (handlers_installed)
		return;
	handlers_installed = true;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
			continue;	/* ignored (nohup) or handled by the command */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = tk_out_signal_cleanup;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

static void live_add(char *p)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (!live[i]) {
			live[i] = p;
			return;
		}
}

static void live_remove(const char *p)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == p)
			live[i] = NULL;
}

/* ---- opening ------------------------------------------------------------------ */

static void error(const char *prog, const char *name, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: %s: ", prog, name);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* The directory part of path ("." if none), malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* Follow a chain of symbolic links to the file finally named (which may not
 * exist yet: a dangling link names the file to create).  NULL with errno
 * set on failure. */
static char *resolve_links(const char *path)
{
	char *p = strdup(path);
	for (int depth = 0; p && depth < 40; depth++) {
		struct stat st;
		if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
			return p;
		char buf[PATH_MAX];
		ssize_t n = readlink(p, buf, sizeof buf - 1);
		if (n < 0) {
			free(p);
			return NULL;
		}
		buf[n] = 0;
		char *next;
		if (buf[0] == '/') {
			next = strdup(buf);
		} else {
			char *dir = dir_of(p);
			next = dir ? malloc(strlen(dir) + (size_t)n + 2) : NULL;
			if (next)
				sprintf(next, "%s/%s", dir, buf);
			free(dir);
		}
		free(p);
		p = next;
	}
	if (p) {
		free(p);
		errno = ELOOP;
	}
	return NULL;
}

/* A temporary file next to target, made with mkstemp (never follows a
 * link planted at its name).  Returns the descriptor, or -1. */
static int make_temporary(const char *target, char **tmp_out)
{
	char *dir = dir_of(target);
	if (!dir)
		return -1;
	const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	size_t blen = strlen(base);
	if (blen > 200)
		blen = 200;	/* keep the name within NAME_MAX */
	char *tmp = malloc(strlen(dir) + blen + 32);
	if (!tmp) {
		free(dir);
		return -1;
	}
	sprintf(tmp, "%s/%.*s.tmp.XXXXXX", dir, (int)blen, base);
	free(dir);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		errno = e;
		return -1;
	}
	*tmp_out = tmp;
	return fd;
}

static int open_stdout(tk_out *o, const char *prog)
{
	struct stat st;
	const char *in;
	if (fstat(STDOUT_FILENO, &st) == 0 && (in = input_of(&st))) {
		fprintf(stderr, "%s: standard output is the input %s: refusing to overwrite it\n",
			prog, in);
		return -1;
	}
	o->fp = stdout;
	o->is_stdout = true;
	o->name = "standard output";
	return 0;
}

int tk_out_open(tk_out *o, const char *prog, const char *path)
{
	memset(o, 0, sizeof *o);
	if (!path || !strcmp(path, "-"))
		return open_stdout(o, prog);
	o->name = path;
	if (!*path) {
		fprintf(stderr, "%s: an empty output file name\n", prog);
		return -1;
	}
	o->target = resolve_links(path);
	if (!o->target) {
		error(prog, path, "%s", strerror(errno));
		return -1;
	}
	struct stat st;
	int fd;
	if (stat(o->target, &st) == 0) {
		const char *in = input_of(&st);
		if (in) {
			if (!strcmp(in, path))
				error(prog, path, "%s", "is the input: refusing to overwrite it");
			else
				error(prog, path, "is the input %s: refusing to overwrite it", in);
			goto fail;
		}
		if (S_ISDIR(st.st_mode)) {
			error(prog, path, "%s", "is a directory");
			goto fail;
		}
		if (!S_ISREG(st.st_mode)) {
			/* A fifo, a device, a socket: written as it is. */
			fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
			if (fd < 0) {
				error(prog, path, "%s", strerror(errno));
				goto fail;
			}
			o->fp = fdopen(fd, "w");
			if (!o->fp) {
				close(fd);
				error(prog, path, "%s", strerror(errno));
				goto fail;
			}
			return 0;
		}
		if (access(o->target, W_OK) != 0 || !(st.st_mode & 0222)) {
			error(prog, path, "%s",
			      "is read-only: not replaced (make it writable or remove it first)");
			goto fail;
		}
		o->existed = true;
		o->mode = st.st_mode & 07777;
		o->uid = st.st_uid;
		o->gid = st.st_gid;
	} else if (errno != ENOENT) {
		error(prog, path, "%s", strerror(errno));
		goto fail;
	} else {
		mode_t um = umask(0);
		umask(um);
		o->mode = 0666 & ~um;
	}
	fd = make_temporary(o->target, &o->tmp);
	if (fd < 0) {
		char *dir = dir_of(o->target);
		if (errno == ENOENT)
			error(prog, path, "%s", "its directory does not exist");
		else
			fprintf(stderr, "%s: %s: cannot create a file in %s: %s\n", prog, path,
				dir ? dir : ".", strerror(errno));
		free(dir);
		goto fail;
	}
	install_handlers();
	live_add(o->tmp);
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		int e = errno;
		close(fd);
		tk_out_abort(o);
		error(prog, path, "%s", strerror(e));
		return -1;
	}
	return 0;
fail:
	free(o->target);
	o->target = NULL;
	return -1;
}

/* ---- closing ------------------------------------------------------------------ */

static void release(tk_out *o)
{
	if (o->tmp) {
		live_remove(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	free(o->target);
	o->target = NULL;
	o->fp = NULL;
}

int tk_out_commit(tk_out *o, const char *prog)
{
	if (!o->fp)
		return -1;
	if (o->is_stdout) {
		errno = 0;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "%s: error writing standard output%s%s\n", prog,
				errno ? ": " : "", errno ? strerror(errno) : "");
			o->fp = NULL;
			return -1;
		}
		o->fp = NULL;
		return 0;
	}
	errno = 0;
	bool bad = fflush(o->fp) != 0 || ferror(o->fp);
	int e = errno;
	if (!bad && o->tmp) {
		if (fchmod(fileno(o->fp), o->mode) != 0) {
			/* The file keeps mkstemp's 0600: safe, if unusual. */
		}
		if (o->existed && geteuid() == 0 && fchown(fileno(o->fp), o->uid, o->gid) != 0) {
			/* Owned by root instead: still the data asked for. */
		}
	}
	if (fclose(o->fp) != 0 && !bad) {
		bad = true;
		e = errno;
	}
	o->fp = NULL;
	if (bad) {
		fprintf(stderr, "%s: %s: write error%s%s\n", prog, o->name, e ? ": " : "",
			e ? strerror(e) : "");
		if (o->tmp)
			unlink(o->tmp);
		release(o);
		return -1;
	}
	if (o->tmp && rename(o->tmp, o->target) != 0) {
		e = errno;
		unlink(o->tmp);
		fprintf(stderr, "%s: %s: %s\n", prog, o->name, strerror(e));
		release(o);
		return -1;
	}
	release(o);
	return 0;
}

void tk_out_abort(tk_out *o)
{
	if (o->is_stdout) {
		fflush(stdout);
		o->fp = NULL;
		return;
	}
	if (o->fp)
		fclose(o->fp);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}
