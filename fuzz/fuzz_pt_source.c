/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: libFuzzer target for raw Intel PT read as a trace source: the
 * decoder's items turned into events, one per instruction and as runs
 * (what the report tools read), each fed to the call detector.  Both
 * readings must agree: the same instructions, gaps and call tree, with one
 * decoding thread and with two (the last byte of the input picks which
 * reading gets two).  A difference aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_fuzz_code.h"
#include "tracekit/calls.h"
#include "tracekit/source.h"

static char trace_path[64], code_path[64];

static void remove_files(void)
{
	remove(trace_path);
	remove(code_path);
}

/* The code goes to a file of this process's own: the readings are
 * compared, and another fuzzer rewriting a shared file in the middle of
 * one would make libipt refuse the code in that reading only. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(code_path, sizeof code_path, "/tmp/tracekit-fuzz-src.%ld.code", (long)getpid());
	tk_fuzz_pt_write_code_at(code_path);
	snprintf(trace_path, sizeof trace_path, "/tmp/tracekit-fuzz-src.%ld.pt", (long)getpid());
	atexit(remove_files);
	return 0;
}

/* What one reading saw. */
struct reading {
	bool opened;
	uint64_t insns, gaps, events;
	uint64_t calls, tree_hash;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static void read_trace(bool runs, unsigned threads, struct reading *out)
{
	memset(out, 0, sizeof *out);
	char raw[sizeof code_path + 16];
	snprintf(raw, sizeof raw, "%s@0x%x", code_path, TK_FUZZ_PT_CODE_ADDR);
	/* A short endless-loop guard: the code has such loops, and the
	 * default (2^26 instructions) takes minutes under the sanitizers. */
	tk_source_opt opts[] = {{"raw", raw}, {"max-linear", "4096"}};
	tk_source_spec spec;
	tk_source_spec_init(&spec);
	spec.format = "pt";
	spec.opts = opts;
	spec.nopts = 2;
	spec.threads = threads;
	tk_source *src;
	if (tk_source_open(trace_path, &spec, &src) < 0)
		return;
	out->opened = true;
	if (runs)
		tk_source_want_runs(src);
	tk_calls_opts co;
	tk_calls_opts_init(&co);
	co.steps = TK_STEPS_INSNS;
	tk_calls *calls = NULL;
	int rc = tk_calls_new(&co, &calls);
	/* Runs are read many at a time, as the report tools read them. */
	tk_event evs[16];
	int n;
	while (rc == 0 && (n = tk_source_next_many(src, evs, runs ? 16 : 1)) > 0) {
		for (int i = 0; i < n; i++) {
			const tk_event *ev = &evs[i];
			out->events++;
			if (ev->kind == TK_EV_INSN)
				out->insns++;
			else if (ev->kind == TK_EV_RUN)
				out->insns += ev->u.run.count;
			else if (ev->kind == TK_EV_GAP)
				out->gaps++;
		}
		rc = tk_calls_feed_many(calls, evs, (size_t)n);
	}
	tk_source_free(src);
	tk_calltree *tree = NULL;
	if (rc == 0 && tk_calls_finish(calls, &tree) == 0 && tree) {
		out->calls = tree->count;
		for (uint32_t i = 0; i < tree->count; i++) {
			const tk_call *c = &tree->calls[i];
			uint64_t h = out->tree_hash;
			h = mix(h, c->entry.pc);
			h = mix(h, c->entry.line);
			h = mix(h, c->exit.line);
			h = mix(h, c->call.line);
			h = mix(h, c->resume.line);
			h = mix(h, c->depth);
			h = mix(h, c->flags);
			out->tree_hash = h;
		}
	}
	tk_calltree_free(tree);
	tk_calls_free(calls);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(trace_path, "wb");
	if (!f)
		return 0;
	size_t n = fwrite(data, 1, size, f);
	if (fclose(f) != 0 || n != size)
		return 0;
	bool two = size && (data[size - 1] & 1);
	struct reading one, run;
	read_trace(false, two ? 1 : 2, &one);
	read_trace(true, two ? 2 : 1, &run);
	if (one.opened != run.opened || one.insns != run.insns || one.gaps != run.gaps ||
	    one.calls != run.calls || one.tree_hash != run.tree_hash) {
		fprintf(stderr,
			"instructions and runs disagree: insns %llu/%llu, gaps %llu/%llu, "
			"calls %llu/%llu, tree %s\n",
			(unsigned long long)one.insns, (unsigned long long)run.insns,
			(unsigned long long)one.gaps, (unsigned long long)run.gaps,
			(unsigned long long)one.calls, (unsigned long long)run.calls,
			one.tree_hash == run.tree_hash ? "same" : "different");
		abort();
	}
	if (run.events > run.insns + run.gaps)
		abort();	/* a run is never empty; only gaps come besides */
	return 0;
}
