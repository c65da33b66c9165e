/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: JSON shapes shared by --json and the web API (json_out.h). */
#include "json_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

json_t *tkj_hex(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "0x%" PRIx64, v);
	return json_string(buf);
}

json_t *tkj_bytes(const uint8_t *bytes, const uint8_t *state, size_t n, bool msb_first)
{
	static const char hex[] = "0123456789abcdef";
	char *buf = malloc(2 * n + 1);
	if (!buf)
		return NULL;
	for (size_t k = 0; k < n; k++) {
		size_t i = msb_first ? n - 1 - k : k;
		uint8_t st = state ? state[i] : TK_BYTE_SET;
		char *o = buf + 2 * k;
		if (st == TK_BYTE_SET) {
			o[0] = hex[bytes[i] >> 4];
			o[1] = hex[bytes[i] & 15];
		} else {
			o[0] = o[1] = st == TK_BYTE_UNKNOWN ? '?' : '-';
		}
	}
	json_t *j = json_stringn(buf, 2 * n);
	free(buf);
	return j;
}

json_t *tkj_tpos(const tk_tpos *p)
{
	return json_pack("{s:I,s:I,s:I,s:o}", "time", (json_int_t)p->time, "line",
			 (json_int_t)p->line, "offset", (json_int_t)p->offset, "pc", tkj_hex(p->pc));
}

json_t *tkj_call(const tk_call *c, uint32_t id, const char *name)
{
	json_t *j = json_pack("{s:I,s:I,s:o,s:o,s:o,s:I}", "id", (json_int_t)id, "depth",
			      (json_int_t)c->depth, "addr", tkj_hex(c->entry.pc), "entry",
			      tkj_tpos(&c->entry), "exit", tkj_tpos(&c->exit), "insns",
			      (json_int_t)(c->exit.pos - c->entry.pos + 1));
	if (!j)
		return NULL;
	json_object_set_new(j, "parent", c->parent == TK_CALL_NONE ? json_null()
				 : json_integer((json_int_t)c->parent));
	json_object_set_new(j, "name", name ? json_string(name) : json_null());
	if (c->parent != TK_CALL_NONE) {
		json_object_set_new(j, "call", tkj_tpos(&c->call));
		json_object_set_new(j, "resume", tkj_tpos(&c->resume));
	}
	return j;
}

static json_t *str(const char *s, size_t n)
{
	/* Trace text that is not UTF-8 becomes null rather than invalid JSON. */
	json_t *j = json_stringn(s ? s : "", s ? n : 0);
	return j ? j : json_null();
}

json_t *tkj_event(const tk_event *ev)
{
	json_t *j = NULL;
	switch (ev->kind) {
	case TK_EV_INSN: {
		const tk_insn *in = &ev->u.insn;
		j = json_pack("{s:s,s:o,s:s,s:i,s:b,s:o,s:o}", "kind", "insn", "pc", tkj_hex(in->pc),
			      "isa", tk_isa_name(in->isa), "width", in->width, "executed",
			      in->executed, "mode", str(in->mode, in->mode_len), "disasm",
			      str(in->disasm, in->disasm_len));
		if (j && in->nbytes) {
			char enc[40];
			snprintf(enc, sizeof enc, "%0*llx", in->nbytes * 2,
				 (unsigned long long)tk_insn_encoding(in));
			json_object_set_new(j, "encoding", json_string(enc));
		}
		break;
	}
	case TK_EV_REG: {
		const tk_reg_update *r = &ev->u.reg;
		j = json_pack("{s:s,s:o,s:o}", "kind", "reg", "name", str(r->name, r->name_len),
			      "value", tkj_bytes(r->value, r->state, r->view.len, true));
		if (j && r->view.reg != TK_REG_NONE) {
			json_object_set_new(j, "reg", json_string(tk_reg_name(r->view.reg)));
			json_object_set_new(j, "offset", json_integer(r->view.offset));
			json_object_set_new(j, "len", json_integer(r->view.len));
		}
		break;
	}
	case TK_EV_MEM: {
		const tk_mem_access *m = &ev->u.mem;
		j = json_pack("{s:s,s:o,s:i,s:b,s:b,s:b,s:o}", "kind", "mem", "addr", tkj_hex(m->addr),
			      "size", (int)m->size, "write", m->write, "exclusive", m->exclusive,
			      "aborted", m->aborted, "bytes",
			      tkj_bytes(m->bytes, m->state, m->size, false));
		if (j && m->has_paddr)
			json_object_set_new(j, "paddr", tkj_hex(m->paddr));
		break;
	}
	case TK_EV_TEXT:
		j = json_pack("{s:s,s:o}", "kind", "text", "type",
			      str(ev->u.text.kind, ev->u.text.kind_len));
		break;
	case TK_EV_CALL:
	case TK_EV_RETURN:
		j = json_pack("{s:s,s:o,s:o}", "kind", ev->kind == TK_EV_CALL ? "call" : "return",
			      "addr", tkj_hex(ev->u.func.addr), "site", tkj_hex(ev->u.func.site));
		if (j && ev->u.func.name)
			json_object_set_new(j, "name", str(ev->u.func.name, ev->u.func.name_len));
		break;
	case TK_EV_GAP:
		j = json_pack("{s:s,s:s,s:o}", "kind", "gap", "gap", tk_gap_kind_name(ev->u.gap.kind),
			      "message", str(ev->u.gap.msg, ev->u.gap.msg_len));
		break;
	case TK_EV_RUN:
		j = json_pack("{s:s,s:o,s:I,s:o,s:i}", "kind", "run", "first_pc",
			      tkj_hex(ev->u.run.first_pc), "count", (json_int_t)ev->u.run.count,
			      "last_pc", tkj_hex(ev->u.run.last.pc), "width", ev->u.run.last.width);
		break;
	}
	if (j) {
		json_object_set_new(j, "time", json_integer((json_int_t)ev->time));
		json_object_set_new(j, "cpu", json_integer(ev->context));
		json_object_set_new(j, "context", json_integer(ev->context));
	}
	return j;
}

static int put(FILE *fp, const char *s)
{
	return fputs(s, fp) < 0 ? -1 : 0;
}

int tkj_stream_begin(tkj_stream *s, FILE *fp, json_t *head, const char *key)
{
	s->fp = fp;
	s->open = true;
	s->first = true;
	int rc = 0;
	if (head && json_object_size(head)) {
		char *h = json_dumps(head, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!h) {
			json_decref(head);
			return -1;
		}
		h[strlen(h) - 1] = ',';	/* the closing brace: more follows */
		rc = put(fp, h);
		free(h);
	} else {
		rc = put(fp, "{");
	}
	json_decref(head);
	json_t *k = json_string(key);
	char *ks = k ? json_dumps(k, JSON_ENCODE_ANY) : NULL;
	json_decref(k);
	if (!ks)
		return -1;
	rc |= put(fp, ks);
	free(ks);
	return rc | put(fp, ":[");
}

int tkj_stream_item(tkj_stream *s, json_t *item)
{
	if (!item)
		return -1;
	int rc = s->first ? 0 : put(s->fp, ",");
	s->first = false;
	rc |= json_dumpf(item, s->fp, JSON_COMPACT | JSON_PRESERVE_ORDER) ? -1 : 0;
	json_decref(item);
	return rc;
}

int tkj_stream_end(tkj_stream *s)
{
	s->open = false;
	return put(s->fp, "]}\n");
}

int tkj_print(FILE *fp, json_t *value)
{
	if (!value)
		return -1;
	int rc = json_dumpf(value, fp, JSON_COMPACT | JSON_PRESERVE_ORDER) ? -1 : 0;
	json_decref(value);
	return rc | put(fp, "\n");
}
