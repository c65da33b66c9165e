/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the two ways the trace linker reads a value: as a list
 * (split at every comma, trimmed, dequoted) or as one dequoted scalar. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/tld_ini.h"

int tk_ini_split_list(const char *value, char ***items, const char **bad)
{
	*items = NULL;
	*bad = NULL;
	size_t len = strlen(value), pieces = 1;
	for (const char *p = value; *p; p++)
		pieces += *p == ',';
	/* One block: the pointer array, then a copy of the text. */
	char **v = malloc((pieces + 1) * sizeof *v + len + 1);
	if (!v)
		return TK_ERR_NOMEM;
	char *text = (char *)(v + pieces + 1);
	memcpy(text, value, len + 1);
	size_t n = 0;
	char *s = text;
	for (;;) {
		char *comma = strchr(s, ',');
		char *e = comma ? comma : s + strlen(s);
		char *end = e;
		while (s < end && isspace((unsigned char)*s))
			s++;
		while (end > s && isspace((unsigned char)end[-1]))
			end--;
		*end = '\0';
		if (*s == '\'' || *s == '"') {
			if (end - s < 2 || end[-1] != *s) {
				*bad = s;
				v[n] = NULL;
				*items = v;
				return TK_ERR_INVAL;
			}
			end[-1] = '\0';
			s++;
		}
		if (*s)
			v[n++] = s;
		if (!comma)
			break;
		s = comma + 1;
	}
	v[n] = NULL;
	*items = v;
	return (int)n;
}

char *tk_ini_dequote(const char *value, bool *bad)
{
	*bad = false;
	size_t len = strlen(value);
	if (len && (value[0] == '"' || value[0] == '\'')) {
		if (len < 2 || value[len - 1] != value[0]) {
			*bad = true;
			return NULL;
		}
		return strndup(value + 1, len - 2);
	}
	return strdup(value);
}
