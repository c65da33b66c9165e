/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the JSON shapes shared by the --json outputs of the commands
 * and the web browser's API (docs/API.md), built with jansson.
 *
 * Conventions: addresses, pcs and register values are hex strings
 * ("0x8000"; values with "??" for unknown bytes), since JSON numbers lose
 * precision beyond 2^53; line numbers, times and counts are numbers.
 *
 * Large outputs stream: tkj_stream writes an object whose last member is
 * an array, one element at a time, each element serialised by jansson, so
 * memory does not grow with the output.
 */
#ifndef TRACEKIT_JSON_JSON_OUT_H
#define TRACEKIT_JSON_JSON_OUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tracekit/calls.h"
#include "tracekit/event.h"

/* The version of the --json outputs (and of the API's shapes). */
#define TKJ_VERSION 1

json_t *tkj_hex(uint64_t v);
/* Bytes as hex, two digits each, in the given order; "??" for a byte whose
 * state is TK_BYTE_UNKNOWN and "--" for TK_BYTE_NONE (state may be NULL). */
json_t *tkj_bytes(const uint8_t *bytes, const uint8_t *state, size_t n, bool msb_first);

/* {"time","line","offset","pc"} of a point of the trace. */
json_t *tkj_tpos(const tk_tpos *p);
/* One activation of a call tree (node id; name may be NULL):
 * {"id","parent","depth","addr","name","entry","exit","call","resume",
 *  "insns"}; the root has no call/resume and parent null. */
json_t *tkj_call(const tk_call *c, uint32_t id, const char *name);
/* One event of the event model: {"kind": "insn"|"reg"|"mem"|"text"|"call"|
 * "return", ...} (docs/API.md lists the members of each). */
json_t *tkj_event(const tk_event *ev);

/* tkj_stream: json_api.h */
#include "json_api.h"

/* Write head's members (head may be NULL; it is released), then
 * "key":[ ... elements ... ]}.  Returns 0, or -1 on a write error. */
int tkj_stream_begin(tkj_stream *s, FILE *fp, json_t *head, const char *key);
/* One element (released). */
int tkj_stream_item(tkj_stream *s, json_t *item);
/* Close the array and the object, and a newline. */
int tkj_stream_end(tkj_stream *s);

/* Print a whole value and a newline (released).  0 or -1. */
int tkj_print(FILE *fp, json_t *value);

#endif
