/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Browser-style jumps in a (compressed) trace: open the index and the
 * trace's text as the browser does (tk_index_open_text), then jump to
 * random positions and read what a screen shows around each: 16 KiB of
 * text before the position's line and 16 KiB from it.  Prints the time to
 * open the text (checkpoint table loaded or built) and the p50 / p99 / max
 * of the jumps.
 *
 * usage: jump_bench INDEX TRACE [JUMPS] [SEED]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracekit/error.h"
#include "tracekit/index.h"
#include "tracekit/input.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: jump_bench INDEX TRACE [JUMPS] [SEED]\n");
		return 2;
	}
	int jumps = argc > 3 ? atoi(argv[3]) : 200;
	srand(argc > 4 ? (unsigned)atoi(argv[4]) : 1);
	tk_index *idx;
	int rc = tk_index_load(argv[1], &idx);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], tk_strerror(rc));
		return 1;
	}
	double t0 = now_ms();
	tk_input *in;
	rc = tk_index_open_text(idx, argv[2], NULL, &in);
	if (rc == 0)
		rc = tk_input_random_access(in);
	double t_open = now_ms() - t0;
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", argv[2], tk_strerror(rc));
		return 1;
	}
	uint64_t n = tk_index_count(idx);
	double *t = malloc(sizeof *t * (size_t)jumps);
	static char buf[32768];
	for (int i = 0; i < jumps; i++) {
		uint64_t pos = ((uint64_t)rand() << 31 ^ (uint64_t)rand()) % (n ? n : 1);
		double s = now_ms();
		tk_index_pos p;
		size_t got;
		if (tk_index_get_pos(idx, pos, &p) == 0) {
			uint64_t from = p.offset > 16384 ? p.offset - 16384 : 0;
			rc = tk_input_pread(in, from, buf, sizeof buf, &got);
			if (rc < 0) {
				fprintf(stderr, "pread at %llu: %s\n", (unsigned long long)from,
					tk_input_error(in));
				return 1;
			}
		}
		t[i] = now_ms() - s;
	}
	qsort(t, (size_t)jumps, sizeof *t, cmp_double);
	printf("%s (%s%s): open %.1f ms, %llu restart points; %d jumps: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
	       argv[2], tk_input_format_name(tk_input_get_format(in)),
	       tk_input_is_seekable_zstd(in) ? ", seekable" : "", t_open,
	       (unsigned long long)tk_input_restart_points(in), jumps, t[jumps / 2],
	       t[jumps * 99 / 100 < jumps ? jumps * 99 / 100 : jumps - 1], t[jumps - 1]);
	free(t);
	tk_input_close(in);
	tk_index_free(idx);
	return 0;
}
