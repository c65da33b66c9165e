/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tld: argv helpers and the wrapper's compile flags.
 *
 * rtems-tld split CFLAGS at blanks and kept only the options it knew by
 * prefix, silently dropping -D, -U, -std= and the like.  tracekit splits
 * like a shell and passes everything through but optimisation, debug and
 * warning options (the wrapper is compiled with -O2 -g, and warnings about
 * generated code are not the user's).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tld/tld.h"

int tld_argv_add(tld_argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		char **v = realloc(a->v, cap * sizeof *v);
		if (!v)
			return -1;
		a->v = v;
		a->cap = cap;
	}
	if (!(a->v[a->n] = strdup(s)))
		return -1;
	a->v[++a->n] = NULL;
	return 0;
}

int tld_argv_addf(tld_argv *a, const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	int rc = tld_argv_add(a, s);
	free(s);
	return rc;
}

void tld_argv_free(tld_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	*a = (tld_argv){0};
}

/* Options whose argument is the next word. */
static bool takes_argument(const char *w)
{
	static const char *const opts[] = {
		"-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros", "-isysroot",
		"-iprefix", "-iwithprefix", "-D", "-U", "-B", "-MF", "-MT", "-MQ", "-x",
		"--sysroot", "-target", "-Xpreprocessor", "-Xassembler", "-Xclang", "--param",
		"-specs", NULL,
	};
	for (const char *const *o = opts; *o; o++)
		if (!strcmp(w, *o))
			return true;
	return false;
}

static bool dropped(const char *w)
{
	if (!strncmp(w, "-O", 2) || !strncmp(w, "-g", 2))
		return true;
	if (!strncmp(w, "-W", 2))
		return strncmp(w, "-Wa,", 4) && strncmp(w, "-Wp,", 4) && strncmp(w, "-Wl,", 4);
	return false;
}

/* The next shell-like word of *s into buf (as long as s); false at the end. */
static bool next_word(const char **s, char *buf, const char **err)
{
	const char *p = *s;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (!*p) {
		*s = p;
		return false;
	}
	size_t n = 0;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
		if (*p == '\'') {
			const char *e = strchr(p + 1, '\'');
			if (!e) {
				*err = "unterminated ' quote";
				return false;
			}
			memcpy(buf + n, p + 1, (size_t)(e - p - 1));
			n += (size_t)(e - p - 1);
			p = e + 1;
		} else if (*p == '"') {
			p++;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
					p++;
				buf[n++] = *p++;
			}
			if (!*p) {
				*err = "unterminated \" quote";
				return false;
			}
			p++;
		} else if (*p == '\\' && p[1]) {
			buf[n++] = p[1];
			p += 2;
		} else {
			buf[n++] = *p++;
		}
	}
	buf[n] = '\0';
	*s = p;
	return true;
}

int tld_cflags_add(tld_argv *out, const char *flags, const char **err)
{
	*err = NULL;
	char *buf = malloc(strlen(flags) + 1);
	if (!buf) {
		*err = "out of memory";
		return -1;
	}
	const char *s = flags;
	bool argument = false;
	while (next_word(&s, buf, err)) {
		if (!argument && dropped(buf))
			continue;
		if (tld_argv_add(out, buf)) {
			*err = "out of memory";
			break;
		}
		argument = !argument && takes_argument(buf);
	}
	free(buf);
	return *err ? -1 : 0;
}
