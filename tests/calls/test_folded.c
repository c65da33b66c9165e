/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit test of tools/commands/flamegraph_folded.c: on random trees of
 * frames whose names are prefixes of each other, contain blanks and
 * digits, or repeat under one caller, the folded text must be exactly what
 * building every stack's text, adding up equal ones, dropping zeros and
 * sorting the stacks with strcmp gives (as Arm's tool does, with a map of
 * stack strings); and a chain of 1,000,000 frames is written from a
 * thread with a 256 KB stack (nothing recurses per frame). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/flamegraph_folded.h"

#include "../check.h"

static const char *const pool[] = {"f", "f + 0x8", "f1", "f.a", "g", "0x10", "f 1", "f 12", "ff",
				   "_start", "f+", "f-x"};
#define NPOOL (sizeof pool / sizeof pool[0])

/* ---- the reference: every line built, summed, sorted ----------------------- */

struct ref_line {
	char *text;
	unsigned long long v;
};

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(((const struct ref_line *)a)->text, ((const struct ref_line *)b)->text);
}

static char *reference(const tk_stack_frame *f, uint32_t n, uint32_t root, const char *const *names)
{
	struct ref_line *l = calloc(n, sizeof *l);
	uint32_t *parent = malloc(n * sizeof *parent);
	size_t nl = 0;
	for (uint32_t i = 0; i < n; i++)
		parent[i] = TK_CALL_NONE;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t c = f[i].first_child; c != TK_CALL_NONE; c = f[c].next_sibling)
			parent[c] = i;
	for (uint32_t i = 0; i < n; i++) {
		/* The path of frame i, root first. */
		char buf[4096] = "";
		uint32_t chain[256], d = 0;
		for (uint32_t k = i; k != TK_CALL_NONE && d < 256; k = parent[k])
			chain[d++] = k;
		if (chain[d - 1] != root)
			continue;
		for (uint32_t k = d; k-- > 0;) {
			if (k != d - 1)
				strcat(buf, ";");
			strcat(buf, names[chain[k]]);
		}
		l[nl].text = strdup(buf);
		l[nl++].v = f[i].self_time;
	}
	qsort(l, nl, sizeof *l, cmp_lines);
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	out[0] = 0;
	for (size_t i = 0; i < nl;) {
		size_t j = i;
		unsigned long long v = 0;
		while (j < nl && !strcmp(l[j].text, l[i].text))
			v += l[j++].v;
		if (v) {
			while (len + strlen(l[i].text) + 32 > cap)
				out = realloc(out, cap *= 2);
			len += (size_t)sprintf(out + len, "%s %llu\n", l[i].text, v);
		}
		i = j;
	}
	for (size_t i = 0; i < nl; i++)
		free(l[i].text);
	free(l);
	free(parent);
	return out;
}

static char *folded(const tk_stack_frame *f, uint32_t n, uint32_t root, const char *const *names,
		    int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	*rc = tk_flamegraph_folded(fp, f, n, root, names, false, false);
	fclose(fp);
	return buf;
}

static void random_trees(void)
{
	unsigned seed = 7;
	for (int round = 0; round < 2000; round++) {
		uint32_t n = 1 + (uint32_t)(round % 60);
		tk_stack_frame *f = calloc(n, sizeof *f);
		const char **names = malloc(n * sizeof *names);
		for (uint32_t i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			f[i].first_child = f[i].next_sibling = TK_CALL_NONE;
			f[i].self_time = (seed >> 16) % 4 == 0 ? 0 : (seed >> 20) % 100;
			names[i] = pool[(seed >> 8) % NPOOL];
			if (i > 0) {	/* a random earlier frame is the parent */
				uint32_t p = (seed >> 12) % i;
				f[i].next_sibling = f[p].first_child;
				f[p].first_child = i;
			}
		}
		int rc;
		char *got = folded(f, n, 0, names, &rc);
		char *want = reference(f, n, 0, names);
		CHECKF(rc == 0 && !strcmp(got, want), "round %d (%u frames):\n--- got:\n%s--- want:\n%s",
		       round, n, got, want);
		free(got);
		free(want);
		free(f);
		free(names);
	}
}

/* ---- deep ------------------------------------------------------------------------- */

#define DEEP 1000000u

static tk_stack_frame *deep_frames;
static const char **deep_names;
static int deep_rc;
static char *deep_out;
static size_t deep_len;

static void *write_deep(void *arg)
{
	(void)arg;
	FILE *fp = open_memstream(&deep_out, &deep_len);
	deep_rc = tk_flamegraph_folded(fp, deep_frames, DEEP, 0, deep_names, false, false);
	fclose(fp);
	return NULL;
}

static void deep_chain(void)
{
	deep_frames = calloc(DEEP, sizeof *deep_frames);
	deep_names = malloc(DEEP * sizeof *deep_names);
	for (uint32_t i = 0; i < DEEP; i++) {
		deep_frames[i].first_child = i + 1 < DEEP ? i + 1 : TK_CALL_NONE;
		deep_frames[i].next_sibling = TK_CALL_NONE;
		deep_names[i] = "f";
	}
	deep_frames[DEEP - 1].self_time = 1;	/* only the deepest has time */
	pthread_attr_t a;
	pthread_t th;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 256 * 1024);
	CHECK(pthread_create(&th, &a, write_deep, NULL) == 0);
	pthread_join(th, NULL);
	CHECK_EQ(deep_rc, 0);
	/* One line: "f" a million times, joined by ';', then " 1". */
	CHECK_EQ(deep_len, 2u * DEEP - 1 + 3);
	CHECK(deep_out && !strncmp(deep_out, "f;f;f;", 6) &&
	      !strcmp(deep_out + deep_len - 5, ";f 1\n"));
	free(deep_out);
	free(deep_frames);
	free(deep_names);
}

int main(void)
{
	random_trees();
	deep_chain();
	return check_report("folded stacks");
}
