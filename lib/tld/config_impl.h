/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: helpers shared by the configuration files of the
 * trace linker (config*.c). */
#ifndef TRACEKIT_TLD_CONFIG_IMPL_H
#define TRACEKIT_TLD_CONFIG_IMPL_H

#include "tld/ini_impl.h"
#include "tracekit/tld.h"

/* Append a copy of s (with its place); de-duplicated when unique is set
 * (the first occurrence stays).  Returns 0 or TK_ERR_NOMEM. */
int tk_tld_strv_add(tk_tld_strv *v, const char *s, tk_ini_loc loc, bool unique);
void tk_tld_strv_free(tk_tld_strv *v);

/* How the items of a key are read. */
enum gather_kind {
	GATHER_NAMES,	/* split and dequoted (tk_ini_split_list), repeats dropped */
	GATHER_LIST,	/* split and dequoted, every item kept (C lines) */
	GATHER_RAW,	/* the value as written (code blocks) */
};

/*
 * The trace linker's gathering walk: the items of `singular` in section s,
 * then, for each section named by `plural` (in order), the same
 * recursively.  Items are appended to out.  An unknown
 * section, bad quoting or more than 32 levels is an error reported at the
 * key that caused it.  Returns 0 or a negative tk_err.
 */
int tk_tld_gather(tk_ini *ini, const tk_ini_section *s, const char *plural,
		  const char *singular, enum gather_kind kind, tk_tld_strv *out);

/* Split a list value, reporting bad quoting at e.  Returns the count (>= 0)
 * with *items to free(), or a negative tk_err. */
int tk_tld_split(tk_ini *ini, const tk_ini_entry *e, char ***items);

/* The section called name, or an error reported at loc. */
const tk_ini_section *tk_tld_section(tk_ini *ini, const char *name, const tk_ini_loc *loc,
				     const char *what);

/* Load the files of the `include` key of s. */
int tk_tld_load_includes(tk_ini *ini, const tk_ini_section *s);

/* Function sets and signatures (config_sets.c). */
int tk_tld_load_sets(tk_ini *ini, const tk_ini_section *tracer, tk_tld_config *cfg);
/* Generator (config_gen.c): gen_name NULL means the default generator. */
int tk_tld_load_generator(tk_ini *ini, const tk_ini_section *tracer, tk_tld_config *cfg);

#endif
