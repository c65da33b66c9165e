/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the Value Change Dump writer (see vcd.h).
 *
 * Each variable keeps two copies of its value (current, and last written)
 * as bytes plus a per-byte state; set functions update the current copy and
 * put the variable on a dirty list; advancing time compares and writes.
 * Output goes through a private 1 MB buffer: formatting a change is a few
 * table copies, not a printf.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/vcd.h"

#define OUTBUF_SIZE (1u << 20)
#define MAX_WIDTH 65536u

struct var {
	uint32_t off;		/* byte offset into the value arrays */
	uint32_t nbytes;
	uint32_t width;		/* bits: 1 or 8 * nbytes */
	bool dirty;
	bool is_string;		/* a GTKWave string: text in strs[off] */
	uint8_t idlen;
	char id[6];
};

/* The value of a string variable: current and last written. */
struct str {
	char *cur, *out;
	size_t cur_len, out_len, cur_cap, out_cap;
};

struct tk_vcd {
	FILE *fp;
	char *date, *version, *comment, *timescale;

	char *decl;		/* the $scope/$var declarations, until begin */
	size_t decl_len, decl_cap;
	int depth;

	struct var *vars;
	uint32_t nvars, vars_cap;
	uint8_t *cur_val, *cur_st, *out_val, *out_st;
	uint32_t nbytes, bytes_cap;
	uint32_t *dirty;	/* indices of dirty variables */
	uint32_t ndirty;
	struct str *strs;	/* string variables' values */
	uint32_t nstrs, strs_cap;

	bool began;
	bool time_written;	/* "#now" already written */
	uint64_t now;

	char *buf;
	size_t len;
	int err;
};

/* "00000000".."11111111" for each byte value. */
static char bits_table[256][8];

static void init_bits_table(void)
{
	if (bits_table[1][7] == '1')
		return;
	for (unsigned v = 0; v < 256; v++)
		for (unsigned b = 0; b < 8; b++)
			bits_table[v][b] = (v >> (7 - b)) & 1 ? '1' : '0';
}

void tk_vcd_opts_init(tk_vcd_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->size = sizeof *opts;
	opts->timescale = "1 ns";
}

static bool valid_timescale(const char *ts)
{
	static const char *const units[] = {"s", "ms", "us", "ns", "ps", "fs"};
	const char *p = ts;
	if (*p++ != '1')
		return false;
	int zeros = 0;
	while (*p == '0') {
		zeros++;
		p++;
	}
	if (zeros > 2)
		return false;
	while (*p == ' ')
		p++;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(p, units[i]))
			return true;
	return false;
}

static char *dup_or_null(const char *s, bool *fail)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*fail = true;
	return d;
}

int tk_vcd_new(FILE *fp, const tk_vcd_opts *opts, tk_vcd **out)
{
	*out = NULL;
	tk_vcd_opts o;
	tk_vcd_opts_init(&o);
	if (opts)
		memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);
	if (!o.timescale || !valid_timescale(o.timescale))
		return TK_ERR_INVAL;
	init_bits_table();
	tk_vcd *w = calloc(1, sizeof *w);
	if (!w)
		return TK_ERR_NOMEM;
	bool fail = false;
	w->fp = fp;
	w->date = dup_or_null(o.date, &fail);
	w->version = dup_or_null(o.version, &fail);
	w->comment = dup_or_null(o.comment, &fail);
	w->timescale = dup_or_null(o.timescale, &fail);
	w->buf = malloc(OUTBUF_SIZE);
	if (fail || !w->buf) {
		tk_vcd_free(w);
		return TK_ERR_NOMEM;
	}
	*out = w;
	return 0;
}

void tk_vcd_free(tk_vcd *w)
{
	if (!w)
		return;
	free(w->date);
	free(w->version);
	free(w->comment);
	free(w->timescale);
	free(w->decl);
	free(w->vars);
	free(w->cur_val);
	free(w->cur_st);
	free(w->out_val);
	free(w->out_st);
	free(w->dirty);
	for (uint32_t i = 0; i < w->nstrs; i++) {
		free(w->strs[i].cur);
		free(w->strs[i].out);
	}
	free(w->strs);
	free(w->buf);
	free(w);
}

/* ---- output buffer -------------------------------------------------------- */

static void drain(tk_vcd *w)
{
	if (w->len && !w->err && fwrite(w->buf, 1, w->len, w->fp) != w->len)
		w->err = TK_ERR_IO;
	w->len = 0;
}

/* Room for n more bytes (n <= OUTBUF_SIZE). */
static inline char *reserve(tk_vcd *w, size_t n)
{
	if (OUTBUF_SIZE - w->len < n)
		drain(w);
	return w->buf + w->len;
}

static void put(tk_vcd *w, const char *s, size_t n)
{
	while (n) {
		size_t k = n < OUTBUF_SIZE ? n : OUTBUF_SIZE;
		memcpy(reserve(w, k), s, k);
		w->len += k;
		s += k;
		n -= k;
	}
}

static void puts_(tk_vcd *w, const char *s)
{
	put(w, s, strlen(s));
}

static void put_u64(tk_vcd *w, uint64_t v)
{
	char tmp[24];
	int i = sizeof tmp;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(w, tmp + i, sizeof tmp - (size_t)i);
}

/* ---- declarations --------------------------------------------------------- */

static bool valid_identifier(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '$'))
			return false;
	return true;
}

static int decl_add(tk_vcd *w, const char *s)
{
	size_t n = strlen(s);
	if (w->decl_len + n + 1 > w->decl_cap) {
		size_t cap = w->decl_cap ? w->decl_cap * 2 : 4096;
		while (cap < w->decl_len + n + 1)
			cap *= 2;
		char *d = realloc(w->decl, cap);
		if (!d)
			return TK_ERR_NOMEM;
		w->decl = d;
		w->decl_cap = cap;
	}
	memcpy(w->decl + w->decl_len, s, n + 1);
	w->decl_len += n;
	return 0;
}

int tk_vcd_scope(tk_vcd *w, const char *name)
{
	if (w->began || !valid_identifier(name) || strlen(name) > 200)
		return TK_ERR_INVAL;
	char line[256];
	snprintf(line, sizeof line, "$scope module %s $end\n", name);
	int rc = decl_add(w, line);
	if (rc == 0)
		w->depth++;
	return rc;
}

int tk_vcd_upscope(tk_vcd *w)
{
	if (w->began || w->depth == 0)
		return TK_ERR_INVAL;
	w->depth--;
	return decl_add(w, "$upscope $end\n");
}

static bool valid_type(const char *t)
{
	static const char *const types[] = {
		"event", "integer", "parameter", "real", "realtime", "reg", "supply0",
		"supply1", "time", "tri", "triand", "trior", "trireg", "tri0", "tri1",
		"wand", "wire", "wor",
		"bit",	/* SystemVerilog's, which GTKWave reads */
	};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (!strcmp(t, types[i]))
			return true;
	return false;
}

/* Identifier codes: base 92 over the printable characters '!'..'~' less
 * '#' and '$', which could be mistaken for a time or a command by a reader
 * that splits the dump into words. */
static const char id_chars[] =
	"!\"%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
	"abcdefghijklmnopqrstuvwxyz{|}~";
#define NID (sizeof id_chars - 1)

static void make_id(struct var *v, uint32_t index)
{
	char tmp[6];
	int n = 0;
	do {
		tmp[n++] = id_chars[index % NID];
		index /= NID;
	} while (index && n < 5);
	v->idlen = (uint8_t)n;
	for (int i = 0; i < n; i++)
		v->id[i] = tmp[n - 1 - i];
	v->id[n] = 0;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	uint32_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, (size_t)c * elem);
	if (!q)
		return TK_ERR_NOMEM;
	*p = q;
	*cap = c;
	return 0;
}

int tk_vcd_add_var(tk_vcd *w, const char *type, unsigned width, const char *name,
	       tk_vcd_var *out)
{
	if (w->began || !valid_type(type) || !valid_identifier(name) || strlen(name) > 200 ||
	    width == 0 || width > MAX_WIDTH || (width != 1 && width % 8) || w->nvars >= NID * NID * NID)
		return TK_ERR_INVAL;
	uint32_t nbytes = width == 1 ? 1 : width / 8;
	uint32_t vars_cap = w->vars_cap;
	if (grow((void **)&w->vars, &vars_cap, w->nvars + 1, sizeof *w->vars))
		return TK_ERR_NOMEM;
	if (vars_cap != w->vars_cap) {
		/* The dirty list can hold every variable. */
		uint32_t *d = realloc(w->dirty, (size_t)vars_cap * sizeof *d);
		if (!d)
			return TK_ERR_NOMEM;
		w->dirty = d;
		w->vars_cap = vars_cap;
	}
	uint32_t need = w->nbytes + nbytes;
	if (need > w->bytes_cap) {
		uint8_t **arrays[] = {&w->cur_val, &w->cur_st, &w->out_val, &w->out_st};
		uint32_t cap = 0;
		for (int i = 0; i < 4; i++) {
			cap = w->bytes_cap;
			if (grow((void **)arrays[i], &cap, need, 1))
				return TK_ERR_NOMEM;
		}
		w->bytes_cap = cap;
	}

	struct var *v = &w->vars[w->nvars];
	memset(v, 0, sizeof *v);
	v->off = w->nbytes;
	v->nbytes = nbytes;
	v->width = width;
	make_id(v, w->nvars);
	memset(w->cur_val + v->off, 0, nbytes);
	memset(w->out_val + v->off, 0, nbytes);
	memset(w->cur_st + v->off, TK_VCD_X, nbytes);
	memset(w->out_st + v->off, TK_VCD_X, nbytes);

	char line[300];
	if (width == 1 || !strcmp(type, "integer"))
		snprintf(line, sizeof line, "$var %s %u %s %s $end\n", type, width, v->id, name);
	else
		snprintf(line, sizeof line, "$var %s %u %s %s [%u:0] $end\n", type, width, v->id,
			 name, width - 1);
	int rc = decl_add(w, line);
	if (rc < 0)
		return rc;
	w->nbytes = need;
	*out = w->nvars++;
	return 0;
}

int tk_vcd_add_string(tk_vcd *w, const char *name, tk_vcd_var *out)
{
	if (w->began || !valid_identifier(name) || strlen(name) > 200 ||
	    w->nvars >= NID * NID * NID)
		return TK_ERR_INVAL;
	/* A string takes no value bytes: declare a 1-bit var, then turn it. */
	uint32_t cap = w->strs_cap;
	if (grow((void **)&w->strs, &cap, w->nstrs + 1, sizeof *w->strs))
		return TK_ERR_NOMEM;
	w->strs_cap = cap;
	tk_vcd_var v;
	int rc = tk_vcd_add_var(w, "wire", 1, name, &v);
	if (rc < 0)
		return rc;
	/* Replace the declaration line just added. */
	struct var *sv = &w->vars[v];
	size_t n = strlen(w->decl);
	while (n > 0 && w->decl[n - 1] == '\n')
		n--;
	while (n > 0 && w->decl[n - 1] != '\n')
		n--;
	w->decl_len = n;
	w->decl[n] = 0;
	char line[300];
	snprintf(line, sizeof line, "$var string 1 %s %s $end\n", sv->id, name);
	rc = decl_add(w, line);
	if (rc < 0)
		return rc;
	sv->is_string = true;
	sv->off = w->nstrs;
	memset(&w->strs[w->nstrs++], 0, sizeof w->strs[0]);
	*out = v;
	return 0;
}

static void put_section(tk_vcd *w, const char *cmd, const char *text)
{
	if (!text)
		return;
	puts_(w, cmd);
	puts_(w, "\n\t");
	/* "$end" inside the text would end the section early. */
	for (const char *p = text; *p;) {
		if (!strncmp(p, "$end", 4)) {
			puts_(w, "$ end");
			p += 4;
		} else {
			put(w, p++, 1);
		}
	}
	puts_(w, "\n$end\n");
}

/* ---- values --------------------------------------------------------------- */

static int str_copy(char **dst, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (n + 1 > *cap) {
		size_t c = *cap ? *cap : 32;
		while (c < n + 1)
			c *= 2;
		char *d = realloc(*dst, c);
		if (!d)
			return TK_ERR_NOMEM;
		*dst = d;
		*cap = c;
	}
	if (n)
		memcpy(*dst, s, n);
	(*dst)[n] = 0;
	*len = n;
	return 0;
}


/* A string value, "s" then the text with every byte that is not a
 * printable non-blank ASCII character escaped C-style (octal for the
 * others), as GTKWave reads it and Arm's tarmac-vcd writes it: the value
 * is one word. */
static void write_string(tk_vcd *w, const struct var *v)
{
	const struct str *st = &w->strs[v->off];
	put(w, "s", 1);
	for (size_t i = 0; i < st->cur_len; i++) {
		unsigned char c = (unsigned char)st->cur[i];
		char esc[5];
		const char *e = NULL;
		switch (c) {
		case '\a': e = "\\a"; break;
		case '\b': e = "\\b"; break;
		case '\f': e = "\\f"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		case '\v': e = "\\v"; break;
		case '\'': e = "\\'"; break;
		case '"': e = "\\\""; break;
		case '\\': e = "\\\\"; break;
		case '?': e = "\\?"; break;
		default:
			if (c > ' ' && c <= '~') {
				esc[0] = (char)c;
				esc[1] = 0;
			} else {
				esc[0] = '\\';
				esc[1] = (char)('0' + (c >> 6));
				esc[2] = (char)('0' + ((c >> 3) & 7));
				esc[3] = (char)('0' + (c & 7));
				esc[4] = 0;
			}
			e = esc;
		}
		put(w, e, strlen(e));
	}
	put(w, " ", 1);
	put(w, v->id, v->idlen);
	put(w, "\n", 1);
}

static void write_value(tk_vcd *w, const struct var *v)
{
	if (v->is_string) {
		write_string(w, v);
		return;
	}
	const uint8_t *val = w->cur_val + v->off, *st = w->cur_st + v->off;
	char *p = reserve(w, (size_t)v->width + v->idlen + 4);
	char *start = p;
	if (v->width == 1) {
		*p++ = st[0] == TK_VCD_X ? 'x' : st[0] == TK_VCD_Z ? 'z' : (val[0] & 1) ? '1' : '0';
	} else {
		*p++ = 'b';
		int i = (int)v->nbytes - 1;
		/* The shortest form under left-extension: leading zeros go (keep
		 * one before an x/z), a leading run of x or z becomes one. */
		if (st[i] == TK_VCD_KNOWN) {
			/* Known zero bytes: value and state both 0, 8 at a time. */
			while (i >= 7) {
				uint64_t a, b;
				memcpy(&a, val + i - 7, 8);
				memcpy(&b, st + i - 7, 8);
				if (a | b)
					break;
				i -= 8;
			}
			while (i >= 0 && st[i] == TK_VCD_KNOWN && val[i] == 0)
				i--;
			if (i < 0) {
				*p++ = '0';
			} else if (st[i] == TK_VCD_KNOWN) {
				const char *b = bits_table[val[i]];
				int k = 0;
				while (b[k] == '0')
					k++;
				memcpy(p, b + k, (size_t)(8 - k));
				p += 8 - k;
				i--;
			} else {
				*p++ = '0';
			}
		} else {
			uint8_t s = st[i];
			while (i >= 0 && st[i] == s)
				i--;
			*p++ = s == TK_VCD_X ? 'x' : 'z';
		}
		for (; i >= 0; i--) {
			if (st[i] == TK_VCD_KNOWN)
				memcpy(p, bits_table[val[i]], 8);
			else
				memset(p, st[i] == TK_VCD_X ? 'x' : 'z', 8);
			p += 8;
		}
		*p++ = ' ';
	}
	memcpy(p, v->id, v->idlen);
	p += v->idlen;
	*p++ = '\n';
	w->len += (size_t)(p - start);
}

int tk_vcd_begin(tk_vcd *w)
{
	if (w->began)
		return TK_ERR_INVAL;
	while (w->depth > 0)
		tk_vcd_upscope(w);
	put_section(w, "$date", w->date);
	put_section(w, "$version", w->version);
	put_section(w, "$comment", w->comment);
	puts_(w, "$timescale ");
	puts_(w, w->timescale);
	puts_(w, " $end\n");
	if (w->decl)
		put(w, w->decl, w->decl_len);
	free(w->decl);
	w->decl = NULL;
	puts_(w, "$enddefinitions $end\n#0\n$dumpvars\n");
	for (uint32_t i = 0; i < w->nvars; i++) {
		write_value(w, &w->vars[i]);
		if (w->vars[i].is_string) {
			struct str *st = &w->strs[w->vars[i].off];
			if (str_copy(&st->out, &st->out_len, &st->out_cap, "", 0) < 0)
				w->err = TK_ERR_NOMEM;
		}
	}
	puts_(w, "$end\n");
	w->began = true;
	w->time_written = true;
	w->now = 0;
	return w->err;
}

static inline void mark(tk_vcd *w, tk_vcd_var idx)
{
	struct var *v = &w->vars[idx];
	if (!v->dirty) {
		v->dirty = true;
		w->dirty[w->ndirty++] = idx;
	}
}

void tk_vcd_set_bytes(tk_vcd *w, tk_vcd_var idx, unsigned offset, const uint8_t *val,
		      const uint8_t *state, unsigned n)
{
	if (idx >= w->nvars || w->vars[idx].is_string)
		return;
	struct var *v = &w->vars[idx];
	if (offset >= v->nbytes)
		return;
	if (n > v->nbytes - offset)
		n = v->nbytes - offset;
	uint8_t *cv = w->cur_val + v->off + offset, *cs = w->cur_st + v->off + offset;
	for (unsigned i = 0; i < n; i++) {
		uint8_t s = state ? state[i] : TK_VCD_KNOWN;
		if (s == TK_VCD_KEEP)
			continue;
		cs[i] = s;
		cv[i] = s == TK_VCD_KNOWN ? (v->width == 1 ? (val[i] & 1) : val[i]) : 0;
	}
	mark(w, idx);
}

void tk_vcd_set_u64(tk_vcd *w, tk_vcd_var idx, uint64_t value)
{
	if (idx >= w->nvars || w->vars[idx].is_string)
		return;
	struct var *v = &w->vars[idx];
	uint8_t *cv = w->cur_val + v->off;
	if (v->width == 1)
		value &= 1;
	uint32_t k = v->nbytes < 8 ? v->nbytes : 8;
	for (uint32_t i = 0; i < k; i++)
		cv[i] = (uint8_t)(value >> (8 * i));
	if (v->nbytes > k)
		memset(cv + k, 0, v->nbytes - k);
	memset(w->cur_st + v->off, TK_VCD_KNOWN, v->nbytes);
	mark(w, idx);
}

void tk_vcd_set_all(tk_vcd *w, tk_vcd_var idx, enum tk_vcd_state state)
{
	if (idx >= w->nvars || w->vars[idx].is_string)
		return;
	struct var *v = &w->vars[idx];
	memset(w->cur_val + v->off, 0, v->nbytes);
	memset(w->cur_st + v->off, state, v->nbytes);
	mark(w, idx);
}

void tk_vcd_set_text(tk_vcd *w, tk_vcd_var idx, const char *s, size_t n)
{
	if (idx >= w->nvars || w->vars[idx].is_string)
		return;
	struct var *v = &w->vars[idx];
	if (v->width == 1)
		return;
	if (n > v->nbytes)
		n = v->nbytes;
	uint8_t *cv = w->cur_val + v->off;
	for (size_t i = 0; i < n; i++)
		cv[i] = (uint8_t)s[n - 1 - i];
	memset(cv + n, 0, v->nbytes - n);
	memset(w->cur_st + v->off, TK_VCD_KNOWN, v->nbytes);
	mark(w, idx);
}

void tk_vcd_set_string(tk_vcd *w, tk_vcd_var idx, const char *s, size_t n)
{
	if (idx >= w->nvars || !w->vars[idx].is_string)
		return;
	struct str *st = &w->strs[w->vars[idx].off];
	if (str_copy(&st->cur, &st->cur_len, &st->cur_cap, s, n) < 0) {
		w->err = TK_ERR_NOMEM;
		return;
	}
	mark(w, idx);
}

/* Write the changed variables among the dirty ones. */
static void flush_changes(tk_vcd *w)
{
	for (uint32_t k = 0; k < w->ndirty; k++) {
		struct var *v = &w->vars[w->dirty[k]];
		v->dirty = false;
		if (v->is_string) {
			struct str *st = &w->strs[v->off];
			if (st->out && st->out_len == st->cur_len &&
			    !memcmp(st->out, st->cur ? st->cur : "", st->cur_len))
				continue;
			if (!w->time_written) {
				put(w, "#", 1);
				put_u64(w, w->now);
				put(w, "\n", 1);
				w->time_written = true;
			}
			write_value(w, v);
			if (str_copy(&st->out, &st->out_len, &st->out_cap, st->cur ? st->cur : "",
				     st->cur_len) < 0)
				w->err = TK_ERR_NOMEM;
			continue;
		}
		uint8_t *cv = w->cur_val + v->off, *cs = w->cur_st + v->off;
		uint8_t *ov = w->out_val + v->off, *os = w->out_st + v->off;
		if (!memcmp(cv, ov, v->nbytes) && !memcmp(cs, os, v->nbytes))
			continue;
		if (!w->time_written) {
			put(w, "#", 1);
			put_u64(w, w->now);
			put(w, "\n", 1);
			w->time_written = true;
		}
		write_value(w, v);
		memcpy(ov, cv, v->nbytes);
		memcpy(os, cs, v->nbytes);
	}
	w->ndirty = 0;
}

int tk_vcd_time(tk_vcd *w, uint64_t t)
{
	if (!w->began || t < w->now)
		return TK_ERR_INVAL;
	if (t == w->now)
		return w->err;
	flush_changes(w);
	w->now = t;
	w->time_written = false;
	return w->err;
}

uint64_t tk_vcd_now(const tk_vcd *w)
{
	return w->now;
}

int tk_vcd_finish(tk_vcd *w)
{
	if (!w->began)
		return TK_ERR_INVAL;
	flush_changes(w);
	drain(w);
	if (!w->err && fflush(w->fp) != 0)
		w->err = TK_ERR_IO;
	return w->err;
}
