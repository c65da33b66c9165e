/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the INI grammar of the trace linker's files (see tld_ini.h):
 * sections, repeated keys, whole-line comments, <<<TAG blocks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tld/ini_impl.h"
#include "tracekit/error.h"

void tk_ini_report(const tk_ini *ini, tk_diag_level level, const tk_ini_loc *loc,
		   const char *fmt, ...)
{
	if (!ini->opts.diag)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tk_diag d = {level, loc ? loc->file : NULL, loc ? loc->line : 0, msg, false, 0};
	ini->opts.diag(ini->opts.diag_ctx, &d);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* [*s, *e) with blanks removed at both ends. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && blank(**s))
		(*s)++;
	while (*e > *s && blank((*e)[-1]))
		(*e)--;
}

static tk_ini_section *new_section(tk_ini *ini, const char *name, size_t len, tk_ini_loc loc)
{
	if (ini->nsections == ini->cap) {
		size_t cap = ini->cap ? ini->cap * 2 : 16;
		tk_ini_section **v = realloc(ini->sections, cap * sizeof *v);
		if (!v)
			return NULL;
		ini->sections = v;
		ini->cap = cap;
	}
	tk_ini_section *s = calloc(1, sizeof *s);
	if (!s || !(s->name = strndup(name, len))) {
		free(s);
		return NULL;
	}
	s->loc = loc;
	ini->sections[ini->nsections++] = s;
	return s;
}

static int add_entry(tk_ini_section *s, const char *key, size_t klen, char *value,
		     tk_ini_loc loc)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		tk_ini_entry *v = realloc(s->entries, cap * sizeof *v);
		if (!v)
			return TK_ERR_NOMEM;
		s->entries = v;
		s->cap = cap;
	}
	char *k = strndup(key, klen);
	if (!k)
		return TK_ERR_NOMEM;
	s->entries[s->n++] = (tk_ini_entry){k, value, loc};
	return 0;
}

/* A line of the text: [*ls, *le), without its newline or '\r'; *next is
 * where the following line starts.  Returns false at the end. */
static bool next_line(const char *text, size_t len, size_t *pos, const char **ls,
		      const char **le)
{
	if (*pos >= len)
		return false;
	const char *s = text + *pos;
	const char *nl = memchr(s, '\n', len - *pos);
	const char *e = nl ? nl : text + len;
	*pos = nl ? (size_t)(nl - text) + 1 : len;
	if (e > s && e[-1] == '\r')
		e--;
	*ls = s;
	*le = e;
	return true;
}

/* Read the lines of a <<<TAG block after the key's line.  Returns the
 * value (malloc'ed) and advances *pos and *lineno. */
static char *read_block(const tk_ini *ini, const char *text, size_t len, size_t *pos,
			uint32_t *lineno, const char *tag, size_t taglen, tk_ini_loc start)
{
	size_t cap = 256, n = 0;
	char *v = malloc(cap);
	if (!v)
		return NULL;
	bool first = true, ended = false;
	const char *ls, *le;
	while (next_line(text, len, pos, &ls, &le)) {
		(*lineno)++;
		const char *te = le;
		while (te > ls && blank(te[-1]))
			te--;
		if ((size_t)(te - ls) == taglen && !memcmp(ls, tag, taglen)) {
			ended = true;
			break;
		}
		size_t need = n + (size_t)(le - ls) + 2;
		if (need > cap) {
			while (cap < need)
				cap *= 2;
			char *nv = realloc(v, cap);
			if (!nv) {
				free(v);
				return NULL;
			}
			v = nv;
		}
		if (!first)
			v[n++] = '\n';
		memcpy(v + n, ls, (size_t)(le - ls));
		n += (size_t)(le - ls);
		first = false;
	}
	v[n] = '\0';
	if (!ended)
		tk_ini_report(ini, TK_DIAG_WARNING, &start,
			      "no line '%.*s' ends this <<<%.*s block: it runs to the end of the file",
			      (int)taglen, tag, (int)taglen, tag);
	return v;
}

int tk_ini_parse_text(tk_ini *ini, const char *path, const char *text, size_t len,
		      size_t *first)
{
	*first = ini->nsections;
	if (memchr(text, '\0', len)) {
		uint32_t line = 1;
		for (const char *p = text; *p; p++)
			line += *p == '\n';
		tk_ini_loc loc = {path, line};
		tk_ini_report(ini, TK_DIAG_ERROR, &loc, "NUL byte: not a text file");
		return TK_ERR_PARSE;
	}
	size_t pos = 0;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		pos = 3;	/* UTF-8 byte order mark */
	uint32_t lineno = 0;
	tk_ini_section *cur = NULL;
	const char *ls, *le;
	while (next_line(text, len, &pos, &ls, &le)) {
		lineno++;
		tk_ini_loc loc = {path, lineno};
		trim(&ls, &le);
		if (ls == le || *ls == ';' || *ls == '#')
			continue;
		if (*ls == '[') {
			const char *close = memchr(ls, ']', (size_t)(le - ls));
			if (!close) {
				tk_ini_report(ini, TK_DIAG_ERROR, &loc, "section name without ']'");
				return TK_ERR_PARSE;
			}
			const char *ns = ls + 1, *ne = close;
			trim(&ns, &ne);
			if (ns == ne) {
				tk_ini_report(ini, TK_DIAG_ERROR, &loc, "empty section name");
				return TK_ERR_PARSE;
			}
			/* A section repeated in the same file is merged. */
			cur = NULL;
			for (size_t i = *first; i < ini->nsections; i++) {
				const char *n = ini->sections[i]->name;
				if (strlen(n) == (size_t)(ne - ns) && !memcmp(n, ns, (size_t)(ne - ns)))
					cur = ini->sections[i];
			}
			if (!cur && !(cur = new_section(ini, ns, (size_t)(ne - ns), loc)))
				return TK_ERR_NOMEM;
			continue;
		}
		const char *eq = memchr(ls, '=', (size_t)(le - ls));
		if (!eq) {
			tk_ini_report(ini, TK_DIAG_WARNING, &loc, "no '=' on this line: ignored");
			continue;
		}
		const char *ks = ls, *ke = eq, *vs = eq + 1, *ve = le;
		trim(&ks, &ke);
		trim(&vs, &ve);
		if (ks == ke) {
			tk_ini_report(ini, TK_DIAG_WARNING, &loc, "no key before '=': line ignored");
			continue;
		}
		char *value;
		if (ve - vs > 3 && !memcmp(vs, "<<<", 3)) {
			const char *tag = vs + 3;
			value = read_block(ini, text, len, &pos, &lineno, tag, (size_t)(ve - tag), loc);
		} else {
			value = strndup(vs, (size_t)(ve - vs));
		}
		if (!value)
			return TK_ERR_NOMEM;
		if (!cur) {
			tk_ini_report(ini, TK_DIAG_WARNING, &loc,
				      "key '%.*s' before any [section]: ignored", (int)(ke - ks), ks);
			free(value);
			continue;
		}
		int rc = add_entry(cur, ks, (size_t)(ke - ks), value, loc);
		if (rc) {
			free(value);
			return rc;
		}
	}
	return 0;
}
