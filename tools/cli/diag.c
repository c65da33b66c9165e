/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: diagnostics and the progress meter, for every command.
 *
 * Trace diagnostics print as "FILE:LINE: warning: MSG" (or "FILE: offset
 * 0xOFF: ..." for a binary format); only the first 20 warnings unless -v,
 * then a count.  The meter is one line on stderr, redrawn at most ten times
 * a second, and erased before anything else is printed there.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#define MAX_SHOWN_WARNINGS 20

static struct {
	double last;		/* seconds of the last redraw */
	bool drawn;
} meter;

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void tk_cli_progress_clear(void)
{
	if (meter.drawn) {
		fputs("\r\033[K", stderr);
		meter.drawn = false;
	}
}

void tk_cli_progress(tk_cli *cli, const char *what, uint64_t done, uint64_t total)
{
	if (!cli->progress)
		return;
	double t = now_seconds();
	if (t - meter.last < 0.1 && (!total || done < total))
		return;
	meter.last = t;
	if (total) {
		uint64_t d = done < total ? done : total;
		unsigned pct = (unsigned)(d * 100 / total);
		char bar[41];
		unsigned filled = pct * 40 / 100;
		memset(bar, '#', filled);
		memset(bar + filled, '.', 40 - filled);
		bar[40] = 0;
		fprintf(stderr, "\r%s %s [%s] %3u%% %.0f/%.0f MB", what, cli->trace, bar, pct,
			d / 1e6, total / 1e6);
	} else {
		fprintf(stderr, "\r%s %s: %.0f MB", what, cli->trace, done / 1e6);
	}
	meter.drawn = true;
}

void tk_cli_print_diag(void *ctx, const tk_diag *d)
{
	tk_cli *cli = ctx;
	if (d->level == TK_DIAG_ERROR)
		cli->errors++;
	else {
		cli->warnings++;
		if (cli->warnings > MAX_SHOWN_WARNINGS && !cli->verbose)
			return;
	}
	tk_cli_progress_clear();
	const char *lvl = d->level == TK_DIAG_ERROR ? "error" :
			  d->level == TK_DIAG_WARNING ? "warning" : "note";
	const char *file = d->file ? d->file : cli->prog;
	if (d->file && d->line)
		fprintf(stderr, "%s:%llu: %s: %s\n", file, (unsigned long long)d->line, lvl, d->msg);
	else if (d->has_offset)
		fprintf(stderr, "%s: offset 0x%llx: %s: %s\n", file, (unsigned long long)d->offset,
			lvl, d->msg);
	else
		fprintf(stderr, "%s: %s: %s\n", file, lvl, d->msg);
}

void tk_cli_warning_summary(tk_cli *cli)
{
	if (cli->warnings > MAX_SHOWN_WARNINGS && !cli->verbose)
		fprintf(stderr, "%s: %llu warnings in %s (%llu not shown; -v shows all)\n",
			cli->prog, (unsigned long long)cli->warnings, cli->trace,
			(unsigned long long)(cli->warnings - MAX_SHOWN_WARNINGS));
	cli->warnings = 0;
}

void tk_cli_print_calls_debug(void *ctx, const char *msg)
{
	(void)ctx;
	tk_cli_progress_clear();
	fprintf(stderr, "call_heuristics: %s\n", msg);
}
