/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the generator section: found through the traces (one
 * distinct `generator` at most) or [default-generator]. */
#include <stdlib.h>
#include <string.h>

#include "tld/config_impl.h"
#include "tracekit/error.h"

static const char *const key_names[TK_TLD_NGEN_KEYS] = {
	"lock-local", "lock-acquire", "lock-release", "buffer-local", "entry-alloc",
	"entry-trace", "arg-trace", "exit-alloc", "exit-trace", "ret-trace",
};

/* Scalar keys: at most once, dequoted as a whole. */
static int load_keys(tk_ini *ini, const tk_ini_section *s, tk_tld_generator *g)
{
	for (int k = 0; k < TK_TLD_NGEN_KEYS; k++) {
		size_t count;
		const tk_ini_entry *e = tk_ini_get(s, key_names[k], 0, &count);
		if (!e)
			continue;
		if (count > 1) {
			const tk_ini_entry *second = tk_ini_get(s, key_names[k], 1, NULL);
			tk_ini_report(ini, TK_DIAG_ERROR, &second->loc,
				      "%s/%s: duplicate (first at line %u)", g->name, key_names[k],
				      e->loc.line);
			return TK_ERR_INVAL;
		}
		bool bad;
		g->keys[k] = tk_ini_dequote(e->value, &bad);
		if (bad) {
			tk_ini_report(ini, TK_DIAG_ERROR, &e->loc, "%s: %s: invalid quoting",
				      key_names[k], e->value);
			return TK_ERR_INVAL;
		}
		if (!g->keys[k])
			return TK_ERR_NOMEM;
	}
	size_t count;
	const tk_ini_entry *e = tk_ini_get(s, "lock-model", 0, &count);
	if (e) {
		if (count > 1) {
			const tk_ini_entry *second = tk_ini_get(s, "lock-model", 1, NULL);
			tk_ini_report(ini, TK_DIAG_ERROR, &second->loc,
				      "%s/lock-model: duplicate (first at line %u)", g->name,
				      e->loc.line);
			return TK_ERR_INVAL;
		}
		bool bad;
		char *m = tk_ini_dequote(e->value, &bad);
		if (!m && !bad)
			return TK_ERR_NOMEM;
		if (!bad && (!*m || !strcmp(m, "alloc")))
			g->lock_model = TK_TLD_LOCK_ALLOC;
		else if (!bad && !strcmp(m, "trace"))
			g->lock_model = TK_TLD_LOCK_TRACE;
		else {
			tk_ini_report(ini, TK_DIAG_ERROR, &e->loc,
				      "lock-model = %s: unknown (use alloc or trace)", e->value);
			free(m);
			return TK_ERR_INVAL;
		}
		free(m);
	}
	if (tk_ini_get(s, "buffer-alloc", 0, NULL)) {
		const tk_ini_entry *b = tk_ini_get(s, "buffer-alloc", 0, NULL);
		tk_ini_report(ini, TK_DIAG_WARNING, &b->loc,
			      "buffer-alloc is not a generator key (use entry-alloc and "
			      "exit-alloc): ignored");
	}
	return 0;
}

static int load_section(tk_ini *ini, const char *name, const tk_ini_loc *at,
			tk_tld_generator *g)
{
	if (!(g->name = strdup(name)))
		return TK_ERR_NOMEM;
	const tk_ini_section *s = tk_tld_section(ini, name, at, "generator");
	if (!s)
		return TK_ERR_NOTFOUND;
	g->loc = tk_ini_section_loc(s);
	int rc;
	if ((rc = tk_tld_load_includes(ini, s)) ||
	    (rc = tk_tld_gather(ini, s, "defines", "define", GATHER_LIST, &g->defines)) ||
	    (rc = tk_tld_gather(ini, s, "headers", "header", GATHER_LIST, &g->headers)) ||
	    (rc = tk_tld_gather(ini, s, "code-blocks", "code", GATHER_RAW, &g->code)))
		return rc;
	return load_keys(ini, s, g);
}

int tk_tld_load_generator(tk_ini *ini, const tk_ini_section *tracer, tk_tld_config *cfg)
{
	tk_tld_strv gens = {0};
	int rc = tk_tld_gather(ini, tracer, "traces", "generator", GATHER_NAMES, &gens);
	if (rc) {
		tk_tld_strv_free(&gens);
		return rc;
	}
	if (gens.n > 1) {
		tk_ini_report(ini, TK_DIAG_ERROR, &gens.loc[1],
			      "two generators: %s (here) and %s (%s:%u); traces can use only one",
			      gens.v[1], gens.v[0], gens.loc[0].file, gens.loc[0].line);
		tk_tld_strv_free(&gens);
		return TK_ERR_INVAL;
	}
	if (gens.n == 1) {
		rc = load_section(ini, gens.v[0], &gens.loc[0], &cfg->gen);
		tk_tld_strv_free(&gens);
		return rc;
	}
	tk_tld_strv_free(&gens);

	/* No generator named: [default-generator] says which. */
	tk_ini_loc tloc = tk_ini_section_loc(tracer);
	const tk_ini_section *def = tk_ini_find(ini, "default-generator");
	if (!def) {
		tk_ini_report(ini, TK_DIAG_ERROR, &tloc,
			      "no generator: name one with 'generator =' in a trace section, or "
			      "include rtld-base.ini for [default-generator]");
		return TK_ERR_NOTFOUND;
	}
	size_t count;
	const tk_ini_entry *e = tk_ini_get(def, "generator", 0, &count);
	if (!e) {
		tk_ini_loc dloc = tk_ini_section_loc(def);
		tk_ini_report(ini, TK_DIAG_ERROR, &dloc, "[default-generator] has no 'generator ='");
		return TK_ERR_INVAL;
	}
	char **items;
	int n = tk_tld_split(ini, e, &items);
	if (n < 0)
		return n;
	if (n != 1 || count > 1) {
		tk_ini_report(ini, TK_DIAG_ERROR, &e->loc,
			      "[default-generator] must name exactly one generator");
		free(items);
		return TK_ERR_INVAL;
	}
	tk_ini_loc eloc = e->loc;
	rc = tk_tld_load_includes(ini, def);
	if (!rc)
		rc = load_section(ini, items[0], &eloc, &cfg->gen);
	free(items);
	return rc;
}
