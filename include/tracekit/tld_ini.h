/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the INI configuration files of the trace linker.
 *
 * The grammar of the RTEMS Trace Linker's files (a SimpleIni dialect):
 *
 *   [section]          starts a section (blanks inside the brackets are
 *                      trimmed, text after ']' is ignored); a section
 *                      repeated in one file is merged into the first
 *   key = value        key and value trimmed; names are case-sensitive; a
 *                      key may repeat and every value is kept in file order
 *   ; comment          whole lines only (first non-blank ';' or '#'); there
 *                      are no inline comments
 *   key = <<<TAG       a multi-line value: the following lines up to a line
 *                      that is exactly TAG (in column 1, trailing blanks
 *                      allowed), joined with '\n'
 *
 * There are no escapes.  Values are kept raw; tk_ini_split_list() and
 * tk_ini_dequote() interpret them the way the trace linker does.
 *
 * Loading (tk_ini_load): a name is resolved as given (relative to the
 * current directory, or absolute), then in each search directory, then
 * (for an include) in the including file's directory, then in the system
 * directories, then among the built-in files.  A file's own sections are
 * registered before the files its [includes] section names, so a file
 * always wins over what it includes; lookups return the first section of
 * a name (first loaded wins).  A file loaded twice is loaded once; an
 * include cycle is an error naming the chain.
 *
 * Every section and value remembers its file and line, for messages of the
 * form "my.ini:12: error: ...".  The module never prints: problems go to
 * the diagnostic callback (file and line filled in).
 */
#ifndef TRACEKIT_TLD_INI_H
#define TRACEKIT_TLD_INI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A file compiled into the program (the shipped configurations). */
typedef struct tk_ini_builtin {
	const char *name;	/* "rtld-base.ini" */
	const char *text;
	size_t len;
} tk_ini_builtin;

typedef struct tk_ini_opts {
	size_t size;			/* sizeof(tk_ini_opts) */
	const char *const *search;	/* user search directories (-P), in order */
	size_t nsearch;
	const char *const *system;	/* directories searched after the
					 * including file's directory */
	size_t nsystem;
	const tk_ini_builtin *builtins;	/* searched last */
	size_t nbuiltins;
	tk_diag_fn diag;		/* errors, warnings; notes (where each
					 * file was found) when verbose */
	void *diag_ctx;
	bool verbose;
	size_t max_file;		/* largest file read; 0: 16 MiB */
	bool builtins_only;		/* never read files: names resolve to
					 * built-in files only (fuzzing) */
} tk_ini_opts;

/* Where a value or section was written. */
typedef struct tk_ini_loc {
	const char *file;	/* the path as found ("<built-in>/x.ini" for a
				 * built-in file) */
	uint32_t line;		/* 1-based */
} tk_ini_loc;

typedef struct tk_ini_entry {
	const char *key;
	const char *value;	/* raw: trimmed, or the block of a <<<TAG */
	tk_ini_loc loc;
} tk_ini_entry;

typedef struct tk_ini_section tk_ini_section;
typedef struct tk_ini tk_ini;

/* A new, empty configuration.  Errors: TK_ERR_NOMEM. */
int tk_ini_new(const tk_ini_opts *opts, tk_ini **out);
void tk_ini_free(tk_ini *ini);

/*
 * Load a file by name (see the resolution rules above).  from: the key
 * that names the file (an include), or NULL for the top-level file.
 * Returns 0 (also when the file was loaded before), or
 * TK_ERR_NOTFOUND (no such file), TK_ERR_OPEN/TK_ERR_IO (cannot read it),
 * TK_ERR_PARSE (a grammar error), TK_ERR_INVAL (an include cycle, an
 * [includes] list with bad quoting), TK_ERR_NOMEM; each is reported to the
 * diagnostic callback first.
 */
int tk_ini_load(tk_ini *ini, const char *name, const tk_ini_loc *from);

/* Load text as if it were a file called name (tests, fuzzing).  The
 * [includes] section of the text is processed.  Same errors. */
int tk_ini_load_text(tk_ini *ini, const char *name, const char *text, size_t len);

/* The first loaded section called name, or NULL. */
const tk_ini_section *tk_ini_find(const tk_ini *ini, const char *name);

/* Sections in load order (for dumps). */
size_t tk_ini_nsections(const tk_ini *ini);
const tk_ini_section *tk_ini_section_at(const tk_ini *ini, size_t i);
/* The files loaded, in order ("<built-in>/x.ini" for built-in ones). */
size_t tk_ini_nfiles(const tk_ini *ini);
const char *tk_ini_file_at(const tk_ini *ini, size_t i);

const char *tk_ini_section_name(const tk_ini_section *s);
tk_ini_loc tk_ini_section_loc(const tk_ini_section *s);
/* All entries of a section, in file order. */
size_t tk_ini_section_entries(const tk_ini_section *s, const tk_ini_entry **entries);
/* The n-th value of key (file order), or NULL; *count (if not NULL) gets
 * how many values the key has. */
const tk_ini_entry *tk_ini_get(const tk_ini_section *s, const char *key, size_t n,
			       size_t *count);

/*
 * A list value: split at every ',', each piece trimmed (C isspace) and
 * dequoted (a piece starting with ' or " must end with the same character;
 * one pair is removed); empty pieces are dropped.  *items is a
 * NULL-terminated array of strings in one allocation (free it with free()).
 * Returns the number of items, or TK_ERR_INVAL with *bad pointing at the
 * badly quoted piece (in *items' allocation, or NULL), or TK_ERR_NOMEM.
 */
int tk_ini_split_list(const char *value, char ***items, const char **bad);

/* A scalar value: dequoted once as a whole (quotes inside are literal,
 * blanks inside the quotes kept).  Returns a malloc'ed string, or NULL with
 * *bad set when the quoting is invalid (or NULL and *bad NULL: no memory). */
char *tk_ini_dequote(const char *value, bool *bad);

#ifdef __cplusplus
}
#endif
#endif
