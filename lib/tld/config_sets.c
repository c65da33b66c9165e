/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: function sets ([tracer] functions) and their signatures, and
 * which set describes each traced function. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tld/config_impl.h"
#include "tracekit/error.h"

static bool is_identifier(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* A type written in a signature: C type-name characters only.  Returns
 * NULL or what is wrong with it. */
static const char *bad_type(const char *t)
{
	if (strstr(t, "..."))
		return "variadic functions cannot be wrapped";
	for (const char *p = t; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_ \t*()[]", *p))
			return "not a C type name";
	int depth = 0;
	for (const char *p = t; *p; p++) {
		depth += *p == '(' || *p == '[';
		depth -= *p == ')' || *p == ']';
		if (depth < 0)
			break;
	}
	if (depth)
		return "unbalanced brackets";
	return NULL;
}

static void free_items(char **items)
{
	free(items);
}

static int parse_sig(tk_ini *ini, const tk_ini_entry *e, tk_tld_sig *sig)
{
	*sig = (tk_tld_sig){0};
	sig->loc = e->loc;
	if (!is_identifier(e->key)) {
		tk_ini_report(ini, TK_DIAG_ERROR, &e->loc,
			      "bad signature: '%s' is not a C function name", e->key);
		return TK_ERR_INVAL;
	}
	if (!(sig->name = strdup(e->key)))
		return TK_ERR_NOMEM;
	char **items;
	int n = tk_tld_split(ini, e, &items);
	if (n < 0)
		return n;
	if (n == 0) {
		sig->from_dwarf = true;
		free_items(items);
		return 0;
	}
	if (n == 1) {
		tk_ini_report(ini, TK_DIAG_ERROR, &e->loc,
			      "bad signature: %s: no arguments (write '%s = %s, void' for a "
			      "function without parameters)", e->key, e->key, items[0]);
		free_items(items);
		return TK_ERR_INVAL;
	}
	for (int i = 0; i < n; i++) {
		const char *why = bad_type(items[i]);
		if (why) {
			tk_ini_report(ini, TK_DIAG_ERROR, &e->loc, "bad signature: %s: '%s': %s",
				      e->key, items[i], why);
			free_items(items);
			return TK_ERR_INVAL;
		}
		if (i > 0 && n > 2 && !strcmp(items[i], "void")) {
			tk_ini_report(ini, TK_DIAG_ERROR, &e->loc,
				      "bad signature: %s: 'void' among other parameters", e->key);
			free_items(items);
			return TK_ERR_INVAL;
		}
	}
	size_t nargs = (n == 2 && !strcmp(items[1], "void")) ? 0 : (size_t)n - 1;
	sig->ret = strdup(items[0]);
	sig->args = calloc(nargs ? nargs : 1, sizeof *sig->args);
	if (!sig->ret || !sig->args) {
		free_items(items);
		return TK_ERR_NOMEM;
	}
	for (size_t i = 0; i < nargs; i++)
		if (!(sig->args[i] = strdup(items[i + 1]))) {
			free_items(items);
			return TK_ERR_NOMEM;
		}
	sig->nargs = nargs;
	free_items(items);
	return 0;
}

static void free_sig(tk_tld_sig *sig)
{
	free(sig->name);
	free(sig->ret);
	if (sig->args)
		for (size_t k = 0; k < sig->nargs; k++)
			free(sig->args[k]);
	free(sig->args);
}

/* Every key of a signatures section is one signature; a key repeated in
 * one section is an error; across the set's sections the first wins. */
static int load_sigs(tk_ini *ini, const tk_ini_section *s, tk_tld_funcset *set)
{
	const tk_ini_entry *e;
	size_t n = tk_ini_section_entries(s, &e);
	for (size_t i = 0; i < n; i++) {
		size_t count;
		const tk_ini_entry *first = tk_ini_get(s, e[i].key, 0, &count);
		if (count > 1 && first != &e[i]) {
			tk_ini_report(ini, TK_DIAG_ERROR, &e[i].loc,
				      "signature %s: duplicate in [%s] (first at line %u)", e[i].key,
				      tk_ini_section_name(s), first->loc.line);
			return TK_ERR_INVAL;
		}
		bool seen = false;
		for (size_t j = 0; j < set->nsigs; j++)
			seen |= !strcmp(set->sigs[j].name, e[i].key);
		if (seen)
			continue;
		tk_tld_sig *v = realloc(set->sigs, (set->nsigs + 1) * sizeof *v);
		if (!v)
			return TK_ERR_NOMEM;
		set->sigs = v;
		int rc = parse_sig(ini, &e[i], &v[set->nsigs]);
		if (rc) {
			free_sig(&v[set->nsigs]);
			return rc;
		}
		set->nsigs++;
	}
	return 0;
}

static int load_set(tk_ini *ini, const char *name, const tk_ini_loc *at, tk_tld_funcset *set)
{
	const tk_ini_section *s = tk_tld_section(ini, name, at, "functions");
	if (!s)
		return TK_ERR_NOTFOUND;
	set->loc = tk_ini_section_loc(s);
	int rc;
	if ((rc = tk_tld_load_includes(ini, s)) ||
	    (rc = tk_tld_gather(ini, s, "headers", "header", GATHER_LIST, &set->headers)) ||
	    (rc = tk_tld_gather(ini, s, "defines", "define", GATHER_LIST, &set->defines)))
		return rc;
	const tk_ini_entry *e = tk_ini_get(s, "signatures", 0, NULL);
	if (!e) {
		tk_ini_report(ini, TK_DIAG_ERROR, &set->loc,
			      "function set [%s] has no 'signatures ='", name);
		return TK_ERR_INVAL;
	}
	for (size_t i = 0; (e = tk_ini_get(s, "signatures", i, NULL)) != NULL; i++) {
		char **items;
		int n = tk_tld_split(ini, e, &items);
		if (n < 0)
			return n;
		for (int j = 0; j < n; j++) {
			const tk_ini_section *sigs = tk_tld_section(ini, items[j], &e->loc, "signatures");
			rc = sigs ? load_sigs(ini, sigs, set) : TK_ERR_NOTFOUND;
			if (rc) {
				free(items);
				return rc;
			}
		}
		free(items);
	}
	return 0;
}

int tk_tld_load_sets(tk_ini *ini, const tk_ini_section *tracer, tk_tld_config *cfg)
{
	tk_tld_strv names = {0};
	const tk_ini_entry *e;
	int rc = 0;
	for (size_t i = 0; !rc && (e = tk_ini_get(tracer, "functions", i, NULL)) != NULL; i++) {
		char **items;
		int n = tk_tld_split(ini, e, &items);
		if (n < 0) {
			rc = n;
			break;
		}
		for (int j = 0; !rc && j < n; j++)
			rc = tk_tld_strv_add(&names, items[j], e->loc, true);
		free(items);
	}
	if (!rc && names.n == 0) {
		tk_ini_loc loc = tk_ini_section_loc(tracer);
		tk_ini_report(ini, TK_DIAG_ERROR, &loc,
			      "[tracer] has no 'functions =' (the sections that hold signatures)");
		rc = TK_ERR_INVAL;
	}
	if (!rc && !(cfg->sets = calloc(names.n, sizeof *cfg->sets)))
		rc = TK_ERR_NOMEM;
	for (size_t i = 0; !rc && i < names.n; i++) {
		cfg->nsets++;
		cfg->sets[i].name = strdup(names.v[i]);
		rc = cfg->sets[i].name ? load_set(ini, names.v[i], &names.loc[i], &cfg->sets[i])
				       : TK_ERR_NOMEM;
	}
	tk_tld_strv_free(&names);
	if (rc)
		return rc;

	/* Each trace takes its signature from the first set that has one. */
	for (size_t t = 0; t < cfg->ntraces; t++) {
		tk_tld_trace *tr = &cfg->traces[t];
		for (size_t i = 0; i < cfg->nsets && !tr->sig; i++)
			for (size_t j = 0; j < cfg->sets[i].nsigs; j++)
				if (!strcmp(cfg->sets[i].sigs[j].name, tr->name)) {
					tr->sig = &cfg->sets[i].sigs[j];
					tr->set = i;
					cfg->sets[i].used = true;
					break;
				}
		if (!tr->sig) {
			tk_ini_report(ini, TK_DIAG_ERROR, &tr->loc,
				      "trace %s: no signature for it in any function set "
				      "(add '%s = RET, ARGS...' or '%s =' for DWARF to a signatures "
				      "section)", tr->name, tr->name, tr->name);
			rc = TK_ERR_NOTFOUND;
		}
	}
	return rc;
}
