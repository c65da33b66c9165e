/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the trace linker's configuration, code generator and DWARF
 * signatures (the library side of `tracekit tld`).
 *
 * tk_tld_config_load() reads a configuration (INI files, tld_ini.h) the
 * way the RTEMS Trace Linker does, starting at the fixed section [tracer]:
 * options, defines, function sets with their signatures, the traced
 * functions (de-duplicated and sorted bytewise: a function's position is
 * its index in every table), enables, triggers and the one generator.
 * tk_tld_dwarf_signatures() fills the signatures written with an empty
 * value from the DWARF of the link inputs; tk_tld_generate() writes the
 * wrapper C file.  docs/TLD.md describes each step and every difference
 * from rtems-tld.
 *
 * Errors are reported through the INI module's diagnostic callback with
 * the file and line of the key at fault ("my.ini:12: error: ...").
 */
#ifndef TRACEKIT_TLD_H
#define TRACEKIT_TLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracekit/tld_ini.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A list of strings, each with the place it was written. */
typedef struct tk_tld_strv {
	char **v;
	tk_ini_loc *loc;
	size_t n;
} tk_tld_strv;

/* One signature: "name = ret, arg1, arg2..." */
typedef struct tk_tld_sig {
	char *name;
	char *ret;		/* "void" for none; NULL until DWARF fills it */
	char **args;		/* nargs types; nargs == 0: no parameters */
	size_t nargs;
	tk_ini_loc loc;		/* the signature key */
	bool from_dwarf;	/* written with an empty value */
} tk_tld_sig;

/* A function set (a section of [tracer] functions). */
typedef struct tk_tld_funcset {
	char *name;
	tk_ini_loc loc;
	tk_tld_strv defines, headers;
	tk_tld_sig *sigs;
	size_t nsigs;
	bool used;		/* defines at least one traced function */
} tk_tld_funcset;

typedef struct tk_tld_trace {
	char *name;
	tk_ini_loc loc;		/* where it was listed first */
	const tk_tld_sig *sig;
	size_t set;		/* index of its function set */
	bool enabled, trigger;
} tk_tld_trace;

typedef enum tk_tld_lock_model {
	TK_TLD_LOCK_ALLOC = 0,	/* the lock covers the allocations only */
	TK_TLD_LOCK_TRACE,	/* the lock is held while tracing */
} tk_tld_lock_model;

/* The generator's code fragments, in the order of enum tk_tld_gen_key. */
enum tk_tld_gen_key {
	TK_TLD_LOCK_LOCAL,
	TK_TLD_LOCK_ACQUIRE,
	TK_TLD_LOCK_RELEASE,
	TK_TLD_BUFFER_LOCAL,
	TK_TLD_ENTRY_ALLOC,
	TK_TLD_ENTRY_TRACE,
	TK_TLD_ARG_TRACE,
	TK_TLD_EXIT_ALLOC,
	TK_TLD_EXIT_TRACE,
	TK_TLD_RET_TRACE,
	TK_TLD_NGEN_KEYS
};

typedef struct tk_tld_generator {
	char *name;
	tk_ini_loc loc;
	tk_tld_strv defines, headers, code;
	char *keys[TK_TLD_NGEN_KEYS];	/* dequoted, or NULL if not set */
	tk_tld_lock_model lock_model;
} tk_tld_generator;

typedef struct tk_tld_option {
	char *key;
	char *value;		/* dequoted when written in quotes */
	tk_ini_loc loc;
} tk_tld_option;

/* gen-enables / gen-triggers */
typedef enum tk_tld_table_mode {
	TK_TLD_TABLE_LIST = 0,	/* the enable/trigger lists */
	TK_TLD_TABLE_DISABLE,	/* no table */
	TK_TLD_TABLE_GLOBAL_ON,	/* every bit set */
} tk_tld_table_mode;

typedef struct tk_tld_config {
	char *name;			/* [tracer] name */
	tk_tld_strv defines;		/* [tracer] define(s) */
	tk_tld_option *options;		/* in the order of [tracer] options */
	size_t noptions;
	tk_tld_funcset *sets;		/* in [tracer] functions order */
	size_t nsets;
	tk_tld_trace *traces;		/* sorted by name, no repeats */
	size_t ntraces;
	tk_tld_generator gen;
	bool gen_names, gen_sigs;
	tk_tld_table_mode gen_enables, gen_triggers;
} tk_tld_config;

/*
 * Load the configuration file `file` (tk_ini_load) into ini and interpret
 * it.  Errors (each reported first, with file and line): TK_ERR_NOTFOUND
 * (a file or section that does not exist, a traced function with no
 * signature), TK_ERR_PARSE (grammar), TK_ERR_INVAL (bad quoting, a
 * duplicate key, a bad signature, two generators, no traced function...),
 * TK_ERR_NOMEM.
 */
int tk_tld_config_load(tk_ini *ini, const char *file, tk_tld_config **out);

/* The same for a configuration already loaded into ini (tk_ini_load_text):
 * file names it in messages. */
int tk_tld_config_read(tk_ini *ini, const char *file, tk_tld_config **out);
void tk_tld_config_free(tk_tld_config *cfg);

/* The value of an option (first section that sets it wins), or NULL. */
const tk_tld_option *tk_tld_option_get(const tk_tld_config *cfg, const char *key);

/*
 * Fill the signatures written with an empty value ("dot =") of the traced
 * functions from the DWARF of the given ELF objects, archives or
 * executables (built with -g): return and parameter types written in C
 * (base types by their DWARF name, typedef names kept, "const struct
 * vec3 *", "void (*)(int)").  Errors (reported through the INI
 * diagnostics at the signature's key): TK_ERR_NOTFOUND (no DWARF
 * describes the function), TK_ERR_UNSUPPORTED (a variadic function, a type
 * with no C spelling), TK_ERR_ELF (an input that cannot be read),
 * TK_ERR_NOMEM.
 */
int tk_tld_dwarf_signatures(tk_ini *ini, tk_tld_config *cfg, const char *const *inputs,
			    size_t ninputs);

/* Does any traced function need its signature from DWARF? */
bool tk_tld_needs_dwarf(const tk_tld_config *cfg);

/*
 * Write the wrapper C file: tracer, generator and function-set defines and
 * headers, the tables (__rtld_trace_names, __rtld_trace_signatures,
 * __rtld_trace_enables, __rtld_trace_triggers, __rtld_trace_funcs), the
 * generator's code blocks, one __wrap_NAME per traced function.
 * Errors: TK_ERR_IO (writing failed), TK_ERR_INVAL (a signature DWARF has
 * not filled).
 */
int tk_tld_generate(const tk_tld_config *cfg, FILE *out);

/* The type as written in C declarations: "T aN" needs __typeof__(T) when
 * T is a function pointer or array type. */
bool tk_tld_type_needs_typeof(const char *type);

#ifdef __cplusplus
}
#endif
#endif
