/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit front ends: summaries of a POWER instruction stream, shared by
 * `htm2qt -s -i -b` and `qtdis -s -i -c`: instruction counts, the
 * instruction mix by mnemonic (as the listing names them) and basic
 * blocks. */
#ifndef TRACEKIT_TOOLS_POWER_REPORT_H
#define TRACEKIT_TOOLS_POWER_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct power_report power_report;

/* NULL when out of memory. */
power_report *power_report_new(void);
void power_report_free(power_report *r);

/* One executed instruction (a prefixed pair: nwords 2); `branch`: the
 * record is flagged as a branch; `has_data`: it has a data EA. */
void power_report_add(power_report *r, uint64_t ea, const uint32_t *words, unsigned nwords,
		      bool branch, bool has_data, unsigned page_shift);

/* Counts: instructions, prefixed, branches, taken, calls, returns, data
 * accesses, page sizes. */
void power_report_print_stats(power_report *r, FILE *fp);
/* "mnemonic count percent" lines, most frequent first. */
int power_report_print_mix(power_report *r, FILE *fp);
/* Blocks executed, distinct blocks, mean length, the 20 hottest. */
void power_report_print_blocks(power_report *r, FILE *fp);

#endif
