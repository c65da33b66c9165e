/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Round-trip check of a recorded instruction stream against a Qtrace file
 * or an HTM dump read through tracekit/power.h (the stream a trace source
 * adapter gets), and the call counts by link-register semantics.
 *
 *   test_power_power STREAM FILE [ELF NAME=COUNT...]
 *
 * Every instruction of FILE must be the stream's: EA, word(s), data EA,
 * and the next EA; the branch kinds must balance (as many returns as
 * calls in a program that returns from every call); with an ELF, the calls
 * whose target is (the global or local entry of) NAME must number COUNT. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/power.h"
#include "tracekit/qtrace.h"
#include "tracekit/symbols.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_power_power STREAM FILE [ELF NAME=COUNT...]\n");
		return 2;
	}
	FILE *fp = fopen(argv[1], "r");
	if (!fp) {
		perror(argv[1]);
		return 1;
	}
	size_t cap = 1 << 14, n = 0;
	tk_qt_stream_insn *s = malloc(cap * sizeof *s);
	char line[256];
	while (fgets(line, sizeof line, fp)) {
		const char *why;
		if (n == cap)
			s = realloc(s, (cap *= 2) * sizeof *s);
		int rc = tk_qt_stream_parse(line, strcspn(line, "\n"), &s[n], &why);
		CHECKF(rc >= 0, "stream line %zu: %s", n + 1, why ? why : "");
		if (rc > 0)
			n++;
	}
	fclose(fp);

	tk_symtab *st = NULL;
	if (argc > 3)
		CHECK(tk_symtab_load(argv[3], 0, &st) == 0);
	uint64_t *calls_to = calloc(argc, sizeof *calls_to);

	tk_power *p;
	int rc = tk_power_open(argv[2], NULL, &p);
	CHECKF(rc == 0, "%s: %s %s", argv[2], tk_strerror(rc), tk_power_last_error());
	if (rc < 0)
		return check_report("test_power");
	tk_power_insn in;
	size_t i = 0;
	uint64_t calls = 0, returns = 0, jumps = 0, last_number = 0, last_offset = 0;
	while ((rc = tk_power_next(p, &in)) > 0) {
		if (i >= n) {
			CHECKF(0, "more instructions than the stream's %zu", n);
			break;
		}
		const tk_qt_stream_insn *w = &s[i];
		CHECKF(in.ea == w->ea && in.width == 4 * w->nwords && in.words[0] == w->words[0] &&
		       (w->nwords == 1 || in.words[1] == w->words[1]),
		       "instruction %zu: %016" PRIx64 " %08x/%u, stream %016" PRIx64 " %08x/%u", i, in.ea,
		       in.words[0], in.width, w->ea, w->words[0], 4 * w->nwords);
		CHECKF(in.has_data_ea == w->has_data_ea && (!w->has_data_ea || in.data_ea == w->data_ea),
		       "instruction %zu at %016" PRIx64 ": data EA", i, in.ea);
		uint64_t want_next = i + 1 < n ? s[i + 1].ea : in.ea + in.width;
		CHECKF(in.next_ea == want_next, "instruction %zu: next EA %016" PRIx64 ", stream %016" PRIx64,
		       i, in.next_ea, want_next);
		CHECK(in.number > last_number && in.offset >= last_offset);
		CHECK(!in.gap_before);
		last_number = in.number;
		last_offset = in.offset;
		calls += in.branch == TK_BR_CALL;
		returns += in.branch == TK_BR_RETURN;
		jumps += in.branch == TK_BR_JUMP;
		if (in.branch == TK_BR_CALL && st) {
			const tk_symbol *sym = tk_symtab_at(st, in.next_ea);
			for (int a = 4; sym && a < argc; a++)
				if (!strncmp(argv[a], sym->name, strlen(sym->name)) &&
				    argv[a][strlen(sym->name)] == '=')
					calls_to[a]++;
		}
		i++;
	}
	CHECKF(rc == 0, "read error: %s", tk_power_error(p));
	CHECKF(i == n, "%zu instructions, the stream has %zu", i, n);
	CHECKF(calls == returns && calls > 0, "%" PRIu64 " calls, %" PRIu64 " returns", calls, returns);
	for (int a = 4; a < argc; a++) {
		const char *eq = strchr(argv[a], '=');
		uint64_t want = eq ? strtoull(eq + 1, NULL, 10) : 0;
		CHECKF(calls_to[a] == want, "calls to %.*s: %" PRIu64 ", expected %" PRIu64,
		       (int)(eq ? eq - argv[a] : 0), argv[a], calls_to[a], want);
	}
	printf("%s: %zu instructions, %" PRIu64 " calls, %" PRIu64 " returns, %" PRIu64 " jumps (%s)\n",
	       argv[2], i, calls, returns, jumps,
	       tk_power_format_of(p) == TK_POWER_QTRACE ? "Qtrace" : "HTM");
	tk_power_free(p);
	tk_symtab_free(st);
	free(calls_to);
	free(s);
	return check_report("test_power");
}
