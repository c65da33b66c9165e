/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the --json outputs of the commands (json_cmds.h). */
#include "json_cmds.h"

#include <stdlib.h>

static json_t *head(tk_cli *cli)
{
	return json_pack("{s:s,s:i,s:s}", "format", "tracekit", "version", TKJ_VERSION, "trace",
			 cli->trace);
}

static json_t *name_of(tk_cli *cli, uint64_t addr)
{
	const char *n = tk_cli_symbol_name(cli, addr);
	return n ? json_string(n) : json_null();
}

int tkj_calltree(FILE *fp, tk_cli *cli, tk_callwalk *t)
{
	tkj_stream s;
	int rc = tkj_stream_begin(&s, fp, head(cli), "calls");
	tk_call c;
	int more = 0;
	for (uint32_t i = 0; rc == 0 && (more = tk_callwalk_next(t, &c)) > 0; i++)
		rc = tkj_stream_item(&s, tkj_call(&c, i, tk_cli_symbol_name(cli, c.entry.pc)));
	if (more < 0) {
		tk_cli_error(cli, "%s: %s", cli->trace, tk_strerror(more));
		return -1;
	}
	return rc ? rc : tkj_stream_end(&s);
}

int tkj_callinfo_begin(tkj_stream *s, FILE *fp, tk_cli *cli)
{
	return tkj_stream_begin(s, fp, head(cli), "functions");
}

int tkj_callinfo_function(tkj_stream *s, tk_cli *cli, uint64_t addr, const tk_tpos *const *hits,
			  size_t n)
{
	json_t *calls = json_array();
	for (size_t i = 0; calls && i < n; i++)
		json_array_append_new(calls, tkj_tpos(hits[i]));
	return tkj_stream_item(s, json_pack("{s:o,s:o,s:I,s:o}", "addr", tkj_hex(addr), "name",
					    name_of(cli, addr), "count", (json_int_t)n, "calls", calls));
}

int tkj_profile_begin(tkj_stream *s, FILE *fp, tk_cli *cli)
{
	return tkj_stream_begin(s, fp, head(cli), "functions");
}

int tkj_profile_row(tkj_stream *s, tk_cli *cli, uint64_t addr, uint64_t count, uint64_t time)
{
	return tkj_stream_item(s, json_pack("{s:o,s:o,s:I,s:I}", "addr", tkj_hex(addr), "name",
					    name_of(cli, addr), "count", (json_int_t)count, "time",
					    (json_int_t)time));
}

json_t *tkj_position(const tk_index *idx, uint64_t pos)
{
	tk_index_pos p;
	if (tk_index_get_pos(idx, pos, &p))
		return NULL;
	json_t *j = json_pack("{s:I,s:I,s:I,s:I,s:I,s:o,s:s,s:i,s:b,s:I,s:I}", "insn",
			      (json_int_t)pos, "line", (json_int_t)p.line, "offset",
			      (json_int_t)p.offset, "first_line", (json_int_t)p.first_line,
			      "end_line", (json_int_t)p.end_line, "pc", tkj_hex(p.pc), "isa",
			      tk_isa_name(p.isa), "width", p.width, "executed", p.executed,
			      "time", (json_int_t)p.time, "end_offset", (json_int_t)p.end_offset);
	if (j && p.nbytes) {
		char enc[40];
		snprintf(enc, sizeof enc, "%0*llx", p.nbytes * 2, (unsigned long long)p.encoding);
		json_object_set_new(j, "encoding", json_string(enc));
	}
	return j;
}

json_t *tkj_dump_regs(const tk_index *idx, uint64_t pos)
{
	tk_index_regset *rs;
	if (tk_index_regset_alloc(&rs))
		return NULL;
	json_t *regs = json_object();
	if (tk_index_regset_at(idx, pos, rs) == 0) {
		for (tk_reg r = 0; regs && r < TK_REG_COUNT; r++) {
			uint8_t v[TK_REG_MAX_BYTES], k[TK_REG_MAX_BYTES], st[TK_REG_MAX_BYTES];
			tk_reg_view view = {r, 0, (uint16_t)tk_reg_size(r)};
			tk_index_regset_get(rs, view, v, k);
			bool any = false;
			for (unsigned i = 0; i < view.len; i++) {
				any |= k[i];
				st[i] = k[i] ? TK_BYTE_SET : TK_BYTE_UNKNOWN;
			}
			if (any)
				json_object_set_new(regs, tk_reg_name(r), tkj_bytes(v, st, view.len, true));
		}
	}
	tk_index_regset_free(rs);
	return json_pack("{s:o,s:o}", "position", tkj_position(idx, pos), "registers", regs);
}

json_t *tkj_dump_mem(const tk_index *idx, uint64_t pos, uint64_t addr, uint64_t len)
{
	uint8_t *v = malloc(len ? len : 1), *k = malloc(len ? len : 1);
	json_t *out = NULL;
	if (v && k && tk_index_mem(idx, pos, addr, len, v, k) == 0) {
		for (uint64_t i = 0; i < len; i++)
			k[i] = k[i] ? TK_BYTE_SET : TK_BYTE_UNKNOWN;
		out = json_pack("{s:o,s:o,s:I,s:o}", "position", tkj_position(idx, pos), "addr",
				tkj_hex(addr), "len", (json_int_t)len, "bytes",
				tkj_bytes(v, k, len, false));
	}
	free(v);
	free(k);
	return out;
}

/* What the json module offers the binary's commands (json_api.h). */
const tkj_api tkj_api_table = {
	tkj_calltree,
	tkj_callinfo_begin,
	tkj_callinfo_function,
	tkj_profile_begin,
	tkj_profile_row,
	tkj_stream_end,
};
