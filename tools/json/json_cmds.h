/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the --json outputs of calltree, callinfo, profile and dump
 * (shapes in docs/API.md, "JSON output of the commands").  Each writes one
 * JSON document and a newline; large ones stream (json_out.h). */
#ifndef TRACEKIT_JSON_JSON_CMDS_H
#define TRACEKIT_JSON_JSON_CMDS_H

#include <stdio.h>

#include "cli/cli.h"
#include "json_out.h"
#include "tracekit/index.h"

/* calltree --json: {"trace", "calls": [tkj_call...]} in preorder. */
int tkj_calltree(FILE *fp, tk_cli *cli, tk_callwalk *t);

/* callinfo --json: {"trace", "functions": [{"addr","name","calls":[tpos]}]}:
 * begin, then per function one tkj_callinfo_function with its hits. */
int tkj_callinfo_begin(tkj_stream *s, FILE *fp, tk_cli *cli);
int tkj_callinfo_function(tkj_stream *s, tk_cli *cli, uint64_t addr, const tk_tpos *const *hits,
			  size_t n);

/* profile --json: {"trace", "functions": [{"addr","name","count","time"}]}. */
int tkj_profile_begin(tkj_stream *s, FILE *fp, tk_cli *cli);
int tkj_profile_row(tkj_stream *s, tk_cli *cli, uint64_t addr, uint64_t count, uint64_t time);

/* dump --json: one document per query. */
json_t *tkj_position(const tk_index *idx, uint64_t pos);
json_t *tkj_dump_regs(const tk_index *idx, uint64_t pos);
json_t *tkj_dump_mem(const tk_index *idx, uint64_t pos, uint64_t addr, uint64_t len);

#endif
