/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: helpers for the common event model: names, instruction
 * encodings, and copying events out of their source. */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/event.h"

const char *tk_isa_name(tk_isa isa)
{
	switch (isa) {
	case TK_ISA_A32: return "A32";
	case TK_ISA_T32: return "T32";
	case TK_ISA_A64: return "A64";
	case TK_ISA_X86_64: return "x86-64";
	case TK_ISA_PPC64: return "ppc64";
	case TK_ISA_UNKNOWN: break;
	}
	return "?";
}

const char *tk_event_kind_name(tk_event_kind kind)
{
	static const char *const names[] = {
		[TK_EV_INSN] = "INSN", [TK_EV_REG] = "REG", [TK_EV_MEM] = "MEM",
		[TK_EV_TEXT] = "TEXT", [TK_EV_CALL] = "CALL", [TK_EV_RETURN] = "RETURN",
		[TK_EV_GAP] = "GAP", [TK_EV_RUN] = "RUN",
	};
	return (unsigned)kind <= TK_EV_KIND_MAX && names[kind] ? names[kind] : "?";
}

const char *tk_gap_kind_name(tk_gap_kind kind)
{
	switch (kind) {
	case TK_GAP_DISABLED: return "disabled";
	case TK_GAP_OVERFLOW: return "overflow";
	case TK_GAP_DECODE_ERROR: return "decode error";
	case TK_GAP_BUFFER_FULL: return "buffer full";
	case TK_GAP_OTHER: break;
	}
	return "other";
}

/* Bytes per unit of the canonical order, and whether a unit is stored
 * little-endian (see tk_insn.bytes). */
static void unit_of(tk_isa isa, unsigned *unit, bool *little)
{
	switch (isa) {
	case TK_ISA_T32: *unit = 2; *little = true; return;
	case TK_ISA_A32:
	case TK_ISA_A64: *unit = 4; *little = true; return;
	case TK_ISA_PPC64: *unit = 4; *little = false; return;
	default: *unit = 1; *little = false; return;
	}
}

uint64_t tk_insn_encoding(const tk_insn *in)
{
	/* The usual Arm cases first: one little-endian word or halfword(s). */
	const uint8_t *b = in->bytes;
	if (in->nbytes == 4 && (in->isa == TK_ISA_A64 || in->isa == TK_ISA_A32))
		return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		       (uint32_t)b[3] << 24;
	if (in->isa == TK_ISA_T32 && (in->nbytes == 2 || in->nbytes == 4)) {
		uint32_t h = (uint32_t)b[0] | (uint32_t)b[1] << 8;
		return in->nbytes == 2 ? h : h << 16 | b[2] | (uint32_t)b[3] << 8;
	}
	unsigned unit, n = in->nbytes < 8 ? in->nbytes : 8;
	bool little;
	unit_of(in->isa, &unit, &little);
	if (n % unit)
		unit = 1, little = false;
	uint64_t v = 0;
	for (unsigned u = 0; u < n; u += unit)
		for (unsigned i = 0; i < unit; i++)
			v = v << 8 | in->bytes[u + (little ? unit - 1 - i : i)];
	return v;
}

void tk_insn_set_encoding(tk_insn *in, uint64_t value, unsigned nbytes)
{
	unsigned unit;
	bool little;
	if (nbytes == 4 && (in->isa == TK_ISA_A64 || in->isa == TK_ISA_A32)) {
		in->nbytes = 4;
		for (int i = 0; i < 4; i++)
			in->bytes[i] = (uint8_t)(value >> (8 * i));
		return;
	}
	if (nbytes > 8)
		nbytes = 8;
	unit_of(in->isa, &unit, &little);
	if (nbytes % unit)
		unit = 1, little = false;
	in->nbytes = (uint8_t)nbytes;
	/* Most significant unit first, each unit in its own byte order. */
	for (unsigned u = 0; u < nbytes; u += unit)
		for (unsigned i = 0; i < unit; i++) {
			unsigned shift = 8 * (nbytes - 1 - u - i);
			uint8_t b = (uint8_t)(value >> shift);
			in->bytes[u + (little ? unit - 1 - i : i)] = b;
		}
}

/* ---- copies ---- */

#define ALIGN_UP(n, a) (((n) + (a) - 1) / (a) * (a))

static size_t strings_size(const tk_event *ev, unsigned flags)
{
	bool all = !(flags & TK_COPY_DATA_ONLY);
	size_t n = all ? ev->raw_len : 0;
	switch (ev->kind) {
	case TK_EV_INSN:
		if (all)
			n += ev->u.insn.mode_len + ev->u.insn.disasm_len;
		break;
	case TK_EV_RUN:
		if (all)
			n += ev->u.run.last.mode_len + ev->u.run.last.disasm_len;
		break;
	case TK_EV_REG:
		n += 2 * (size_t)ev->u.reg.view.len;
		if (all)
			n += ev->u.reg.name_len;
		break;
	case TK_EV_MEM:
		n += 2 * (size_t)ev->u.mem.size;
		break;
	case TK_EV_TEXT:
		if (all)
			n += ev->u.text.kind_len + ev->u.text.len;
		break;
	case TK_EV_CALL:
	case TK_EV_RETURN:
		n += ev->u.func.name_len;
		for (uint32_t i = 0; i < ev->u.func.nvalues; i++)
			n += ev->u.func.values[i].size + (all ? ev->u.func.values[i].type_len : 0);
		break;
	case TK_EV_GAP:
		if (all)
			n += ev->u.gap.msg_len;
		break;
	}
	return n;
}

size_t tk_event_copy_size(const tk_event *ev, unsigned flags)
{
	size_t n = ALIGN_UP(sizeof(tk_event), alignof(tk_value));
	if (ev->kind == TK_EV_CALL || ev->kind == TK_EV_RETURN)
		n += (size_t)ev->u.func.nvalues * sizeof(tk_value);
	/* One spare byte per string, so that an empty string is "" not NULL. */
	return n + strings_size(ev, flags) + 16;
}

typedef struct arena {
	char *p, *end;
} arena;

/* Copy n bytes (a string: also when empty) into the arena. */
static const void *keep(arena *a, const void *src, size_t n)
{
	if (!src)
		return NULL;
	char *d = a->p;
	if (n)
		memcpy(d, src, n);
	a->p += n;
	return d;
}

tk_event *tk_event_copy_into(const tk_event *ev, unsigned flags, void *buf, size_t size)
{
	if (size < tk_event_copy_size(ev, flags))
		return NULL;
	bool all = !(flags & TK_COPY_DATA_ONLY);
	tk_event *e = buf;
	*e = *ev;
	char *base = buf;
	arena a = {base + ALIGN_UP(sizeof(tk_event), alignof(tk_value)), base + size};
	tk_value *vals = NULL;
	if (ev->kind == TK_EV_CALL || ev->kind == TK_EV_RETURN) {
		vals = (tk_value *)a.p;
		a.p += (size_t)ev->u.func.nvalues * sizeof(tk_value);
	}
	if (all) {
		e->raw = keep(&a, ev->raw, ev->raw_len);
	} else {
		e->raw = NULL;
		e->raw_len = 0;
	}
	switch (ev->kind) {
	case TK_EV_INSN:
	case TK_EV_RUN: {
		tk_insn *in = ev->kind == TK_EV_RUN ? &e->u.run.last : &e->u.insn;
		if (all) {
			in->mode = keep(&a, in->mode, in->mode_len);
			in->disasm = keep(&a, in->disasm, in->disasm_len);
		} else {
			in->mode = in->disasm = "";
			in->mode_len = in->disasm_len = 0;
		}
		break;
	}
	case TK_EV_REG:
		e->u.reg.value = keep(&a, ev->u.reg.value, ev->u.reg.view.len);
		e->u.reg.state = keep(&a, ev->u.reg.state, ev->u.reg.view.len);
		if (all) {
			e->u.reg.name = keep(&a, ev->u.reg.name, ev->u.reg.name_len);
		} else {
			e->u.reg.name = "";
			e->u.reg.name_len = 0;
		}
		break;
	case TK_EV_MEM:
		e->u.mem.bytes = keep(&a, ev->u.mem.bytes, ev->u.mem.size);
		e->u.mem.state = keep(&a, ev->u.mem.state, ev->u.mem.size);
		break;
	case TK_EV_TEXT:
		if (all) {
			e->u.text.kind = keep(&a, ev->u.text.kind, ev->u.text.kind_len);
			e->u.text.text = keep(&a, ev->u.text.text, ev->u.text.len);
		} else {
			e->u.text.kind = e->u.text.text = "";
			e->u.text.kind_len = e->u.text.len = 0;
		}
		break;
	case TK_EV_CALL:
	case TK_EV_RETURN:
		e->u.func.name = keep(&a, ev->u.func.name, ev->u.func.name_len);
		for (uint32_t i = 0; i < ev->u.func.nvalues; i++) {
			const tk_value *v = &ev->u.func.values[i];
			vals[i] = *v;
			vals[i].bytes = keep(&a, v->bytes, v->size);
			if (all) {
				vals[i].type = keep(&a, v->type, v->type_len);
			} else {
				vals[i].type = "";
				vals[i].type_len = 0;
			}
		}
		e->u.func.values = ev->u.func.nvalues ? vals : NULL;
		break;
	case TK_EV_GAP:
		if (all) {
			e->u.gap.msg = keep(&a, ev->u.gap.msg, ev->u.gap.msg_len);
		} else {
			e->u.gap.msg = "";
			e->u.gap.msg_len = 0;
		}
		break;
	}
	return e;
}

int tk_event_copy(const tk_event *ev, unsigned flags, tk_event **out)
{
	size_t n = tk_event_copy_size(ev, flags);
	void *buf = malloc(n);
	*out = buf ? tk_event_copy_into(ev, flags, buf, n) : NULL;
	return *out ? 0 : TK_ERR_NOMEM;
}
