/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the data of the INI module (tld_ini.h). */
#ifndef TRACEKIT_TLD_INI_IMPL_H
#define TRACEKIT_TLD_INI_IMPL_H

#include "tracekit/tld_ini.h"

struct tk_ini_section {
	char *name;
	tk_ini_loc loc;
	tk_ini_entry *entries;
	size_t n, cap;
};

/* One file being loaded or loaded: its identity (real path, or
 * "<built-in>/NAME") detects repeats and cycles. */
struct ini_file {
	char *path;		/* as shown in messages */
	char *identity;
	bool loading;		/* on the include stack */
	const tk_ini_loc *from;	/* the include that named it (while loading) */
};

struct tk_ini {
	tk_ini_opts opts;
	char **search, **system; /* owned copies of the option arrays */
	tk_ini_section **sections;
	size_t nsections, cap;
	struct ini_file *files;
	size_t nfiles, fcap;
	unsigned depth;
};

/* Parse one file's text into sections appended to ini (merging sections
 * repeated within the file); the new sections are ini->sections[first..].
 * Returns 0 or a negative tk_err after reporting it. */
int tk_ini_parse_text(tk_ini *ini, const char *path, const char *text, size_t len,
		      size_t *first);

/* Report a diagnostic at loc (may be NULL). */
void tk_ini_report(const tk_ini *ini, tk_diag_level level, const tk_ini_loc *loc,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
