/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: tracekit serve's API (tks_api_handle) with arbitrary
 * routes and query parameters, on a real trace and its index, as a hostile
 * client would send them.  Input: "route\nkey=value\nkey=value...".  The
 * answer must be JSON with a status; nothing may crash or leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve/serve.h"
#include "tracekit/index.h"
#include "tracekit/symbols.h"

static tks_server server;
static tks_trace trace;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("TK_TRACES") ? getenv("TK_TRACES") : TK_FUZZ_TRACES;
	static char path[4096], elf[4096], idx[4096];
	snprintf(path, sizeof path, "%s/quicksort.tarmac", dir);
	snprintf(elf, sizeof elf, "%s/quicksort.elf", dir);
	snprintf(idx, sizeof idx, "%s/fuzz-serve-%d.index", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	tk_index_opts o;
	tk_index_opts_init(&o);
	o.index_path = idx;
	trace.cli.trace = path;
	trace.cli.image = elf;
	trace.name = "quicksort.tarmac";
	if (tk_index_open(path, &o, &trace.idx) < 0 || tkv_file_open(&trace.text, path, trace.idx, NULL)) {
		fprintf(stderr, "fuzz_serve_api: cannot open %s\n", path);
		exit(1);
	}
	remove(idx);
	tk_symtab_load(elf, 0, &trace.cli.symtab);
	trace.info.size = sizeof trace.info;
	tk_index_get_info(trace.idx, &trace.info);
	trace.ninsns = tk_index_count(trace.idx);
	pthread_mutex_init(&trace.lock, NULL);
	server.traces = &trace;
	server.ntraces = 1;
	return 0;
}

typedef struct kv {
	char *k[16], *v[16];
	int n;
} kv;

static const char *param(void *ctx, const char *key)
{
	kv *p = ctx;
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->k[i], key))
			return p->v[i];
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	kv p = {.n = 0};
	char *save, *route = strtok_r(s, "\n", &save);
	for (char *l; p.n < 16 && (l = strtok_r(NULL, "\n", &save));) {
		char *eq = strchr(l, '=');
		if (!eq)
			continue;
		*eq = '\0';
		p.k[p.n] = l;
		p.v[p.n++] = eq + 1;
	}
	tks_request rq = {route ? route : "", param, &p};
	char *body = NULL;
	size_t len = 0;
	int status = tks_api_handle(&server, &rq, &body, &len);
	if (!body || len != strlen(body) || status < 200 || status > 599 || body[0] != '{')
		abort();
	free(body);
	free(s);
	return 0;
}
