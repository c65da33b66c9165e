/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tld: running the compiler and the linker, and the temporary
 * files that must not outlive the run. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tld/tld.h"

extern char **environ;

int tld_run_child(char *const *argv, char **output)
{
	*output = NULL;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	pid_t pid;
	int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (err) {
		close(fds[0]);
		errno = err;
		return -1;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (buf && n + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			} else {
				buf = nb;
				cap *= 2;
			}
		}
		char sink[4096];
		ssize_t r = buf ? read(fds[0], buf + n, cap - n - 1) : read(fds[0], sink, sizeof sink);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (buf)
			n += (size_t)r;
	}
	close(fds[0]);
	if (buf)
		buf[n] = '\0';
	*output = buf;
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status))
		return 256 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* ---- temporary files ------------------------------------------------------- */

#define MAX_TEMPS 8
static char *temps[MAX_TEMPS];
static volatile sig_atomic_t ntemps;

int tld_temp_register(const char *path)
{
	if (ntemps >= MAX_TEMPS)
		return -1;
	char *p = strdup(path);
	if (!p)
		return -1;
	temps[ntemps] = p;
	ntemps = ntemps + 1;
	return 0;
}

void tld_temp_cleanup(void)
{
	for (int i = 0; i < ntemps; i++) {
		unlink(temps[i]);
		free(temps[i]);
	}
	ntemps = 0;
}

static void on_signal(int sig)
{
	for (int i = 0; i < ntemps; i++)
		unlink(temps[i]);	/* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

void tld_temp_install_handlers(void)
{
	static const int sigs[] = {SIGINT, SIGHUP, SIGTERM, SIGPIPE};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa = {0};
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}
