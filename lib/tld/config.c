/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the trace linker's configuration: the [tracer] section, its
 * options, the gathering walk over section lists, the trace list. */
#include <stdlib.h>
#include <string.h>

#include "tld/config_impl.h"
#include "tracekit/error.h"

int tk_tld_strv_add(tk_tld_strv *v, const char *s, tk_ini_loc loc, bool unique)
{
	if (unique)
		for (size_t i = 0; i < v->n; i++)
			if (!strcmp(v->v[i], s))
				return 0;
	char **nv = realloc(v->v, (v->n + 1) * sizeof *nv);
	if (!nv)
		return TK_ERR_NOMEM;
	v->v = nv;
	tk_ini_loc *nl = realloc(v->loc, (v->n + 1) * sizeof *nl);
	if (!nl)
		return TK_ERR_NOMEM;
	v->loc = nl;
	if (!(v->v[v->n] = strdup(s)))
		return TK_ERR_NOMEM;
	v->loc[v->n++] = loc;
	return 0;
}

void tk_tld_strv_free(tk_tld_strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	free(v->loc);
	*v = (tk_tld_strv){0};
}

int tk_tld_split(tk_ini *ini, const tk_ini_entry *e, char ***items)
{
	const char *bad;
	int n = tk_ini_split_list(e->value, items, &bad);
	if (n == TK_ERR_INVAL) {
		tk_ini_report(ini, TK_DIAG_ERROR, &e->loc, "%s: %s: invalid quoting", e->key, bad);
		free(*items);
		*items = NULL;
	}
	return n;
}

const tk_ini_section *tk_tld_section(tk_ini *ini, const char *name, const tk_ini_loc *loc,
				     const char *what)
{
	const tk_ini_section *s = tk_ini_find(ini, name);
	if (!s)
		tk_ini_report(ini, TK_DIAG_ERROR, loc, "%s: no section [%s]", what, name);
	return s;
}

int tk_tld_load_includes(tk_ini *ini, const tk_ini_section *s)
{
	const tk_ini_entry *e;
	for (size_t i = 0; (e = tk_ini_get(s, "include", i, NULL)) != NULL; i++) {
		char **items;
		int n = tk_tld_split(ini, e, &items);
		if (n < 0)
			return n;
		tk_ini_loc loc = e->loc;
		for (int j = 0; j < n; j++) {
			int rc = tk_ini_load(ini, items[j], &loc);
			if (rc) {
				free(items);
				return rc;
			}
		}
		free(items);
	}
	return 0;
}

static int gather(tk_ini *ini, const tk_ini_section *s, const char *plural,
		  const char *singular, enum gather_kind kind, tk_tld_strv *out, int depth)
{
	if (depth > 32) {
		tk_ini_loc loc = tk_ini_section_loc(s);
		tk_ini_report(ini, TK_DIAG_ERROR, &loc,
			      "%s/%s: sections nested more than 32 deep (a cycle?)", plural, singular);
		return TK_ERR_INVAL;
	}
	const tk_ini_entry *e;
	for (size_t i = 0; (e = tk_ini_get(s, singular, i, NULL)) != NULL; i++) {
		if (kind == GATHER_RAW) {
			int rc = tk_tld_strv_add(out, e->value, e->loc, false);
			if (rc)
				return rc;
			continue;
		}
		char **items;
		int n = tk_tld_split(ini, e, &items);
		if (n < 0)
			return n;
		for (int j = 0; j < n; j++) {
			int rc = tk_tld_strv_add(out, items[j], e->loc, kind == GATHER_NAMES);
			if (rc) {
				free(items);
				return rc;
			}
		}
		free(items);
	}
	for (size_t i = 0; (e = tk_ini_get(s, plural, i, NULL)) != NULL; i++) {
		char **items;
		int n = tk_tld_split(ini, e, &items);
		if (n < 0)
			return n;
		tk_ini_loc loc = e->loc;
		for (int j = 0; j < n; j++) {
			const tk_ini_section *sub = tk_tld_section(ini, items[j], &loc, plural);
			int rc = sub ? gather(ini, sub, plural, singular, kind, out, depth + 1)
				     : TK_ERR_NOTFOUND;
			if (rc) {
				free(items);
				return rc;
			}
		}
		free(items);
	}
	return 0;
}

int tk_tld_gather(tk_ini *ini, const tk_ini_section *s, const char *plural,
		  const char *singular, enum gather_kind kind, tk_tld_strv *out)
{
	return gather(ini, s, plural, singular, kind, out, 0);
}

/* ---- options ------------------------------------------------------------- */

static int add_option(tk_ini *ini, tk_tld_config *cfg, const tk_ini_entry *e)
{
	for (size_t i = 0; i < cfg->noptions; i++)
		if (!strcmp(cfg->options[i].key, e->key))
			return 0;	/* an earlier section set it: first wins */
	bool bad;
	char *value = tk_ini_dequote(e->value, &bad);
	if (bad) {
		tk_ini_report(ini, TK_DIAG_ERROR, &e->loc, "option %s: %s: invalid quoting", e->key,
			      e->value);
		return TK_ERR_INVAL;
	}
	tk_tld_option *v = realloc(cfg->options, (cfg->noptions + 1) * sizeof *v);
	char *key = strdup(e->key);
	if (!value || !v || !key) {
		free(value);
		free(key);
		if (v)
			cfg->options = v;
		return TK_ERR_NOMEM;
	}
	cfg->options = v;
	v[cfg->noptions++] = (tk_tld_option){key, value, e->loc};
	return 0;
}

static const char *const known_options[] = {
	"dump-on-error", "verbose", "prefix", "cc", "ld", "cflags", "rtems-path", "rtems-bsp",
	"gen-names", "gen-sigs", "gen-enables", "gen-triggers", NULL,
};

static int load_options(tk_ini *ini, const tk_ini_section *tracer, tk_tld_config *cfg)
{
	int rc = 0;
	const tk_ini_entry *e;
	for (size_t i = 0; !rc && (e = tk_ini_get(tracer, "options", i, NULL)) != NULL; i++) {
		char **items;
		int n = tk_tld_split(ini, e, &items);
		if (n < 0)
			return n;
		for (int j = 0; !rc && j < n; j++) {
			const tk_ini_section *s = tk_tld_section(ini, items[j], &e->loc, "options");
			if (!s) {
				rc = TK_ERR_NOTFOUND;
				break;
			}
			const tk_ini_entry *o;
			size_t no = tk_ini_section_entries(s, &o);
			for (size_t k = 0; !rc && k < no; k++) {
				size_t count;
				const tk_ini_entry *first = tk_ini_get(s, o[k].key, 0, &count);
				if (count > 1 && first != &o[k]) {
					tk_ini_report(ini, TK_DIAG_ERROR, &o[k].loc,
						      "option %s: set twice in [%s] (first at line %u)",
						      o[k].key, items[j], first->loc.line);
					rc = TK_ERR_INVAL;
					break;
				}
				bool known = false;
				for (const char *const *kn = known_options; *kn; kn++)
					known |= !strcmp(*kn, o[k].key);
				if (!known)
					tk_ini_report(ini, TK_DIAG_WARNING, &o[k].loc,
						      "unknown option '%s': ignored", o[k].key);
				rc = add_option(ini, cfg, &o[k]);
			}
		}
		free(items);
	}
	return rc;
}

const tk_tld_option *tk_tld_option_get(const tk_tld_config *cfg, const char *key)
{
	for (size_t i = 0; i < cfg->noptions; i++)
		if (!strcmp(cfg->options[i].key, key))
			return &cfg->options[i];
	return NULL;
}

static void table_options(tk_ini *ini, tk_tld_config *cfg)
{
	static const char *const names[4] = {"gen-names", "gen-sigs", "gen-enables", "gen-triggers"};
	cfg->gen_names = cfg->gen_sigs = true;
	for (int i = 0; i < 4; i++) {
		const tk_tld_option *o = tk_tld_option_get(cfg, names[i]);
		if (!o)
			continue;
		bool disable = !strcmp(o->value, "disable");
		bool global = !strcmp(o->value, "global-on");
		if (!disable && strcmp(o->value, "enable") != 0 && (i < 2 || !global))
			tk_ini_report(ini, TK_DIAG_WARNING, &o->loc,
				      "%s = %s: expected %s; taken as 'enable'", o->key, o->value,
				      i < 2 ? "enable or disable" : "enable, disable or global-on");
		if (i == 0)
			cfg->gen_names = !disable;
		else if (i == 1)
			cfg->gen_sigs = !disable;
		else {
			tk_tld_table_mode m = disable ? TK_TLD_TABLE_DISABLE
					      : global ? TK_TLD_TABLE_GLOBAL_ON
						       : TK_TLD_TABLE_LIST;
			if (i == 2)
				cfg->gen_enables = m;
			else
				cfg->gen_triggers = m;
		}
	}
}

/* ---- traces -------------------------------------------------------------- */

static int cmp_trace(const void *a, const void *b)
{
	return strcmp(((const tk_tld_trace *)a)->name, ((const tk_tld_trace *)b)->name);
}

static int load_traces(tk_ini *ini, const tk_ini_section *tracer, tk_tld_config *cfg)
{
	tk_tld_strv names = {0};
	int rc = tk_tld_gather(ini, tracer, "traces", "trace", GATHER_NAMES, &names);
	if (rc) {
		tk_tld_strv_free(&names);
		return rc;
	}
	if (names.n == 0) {
		tk_ini_loc loc = tk_ini_section_loc(tracer);
		tk_ini_report(ini, TK_DIAG_ERROR, &loc,
			      "no function to trace: list them with 'trace =' in [tracer] or in "
			      "a section named by 'traces ='");
		tk_tld_strv_free(&names);
		return TK_ERR_INVAL;
	}
	cfg->traces = calloc(names.n, sizeof *cfg->traces);
	if (!cfg->traces) {
		tk_tld_strv_free(&names);
		return TK_ERR_NOMEM;
	}
	for (size_t i = 0; i < names.n; i++) {
		cfg->traces[i].name = names.v[i];
		cfg->traces[i].loc = names.loc[i];
	}
	cfg->ntraces = names.n;
	free(names.v);
	free(names.loc);
	qsort(cfg->traces, cfg->ntraces, sizeof *cfg->traces, cmp_trace);
	return 0;
}

/* Set the enabled or trigger flag of the traces a list names (names that
 * are not traced are ignored). */
static int mark(tk_ini *ini, const tk_ini_section *tracer, tk_tld_config *cfg,
		const char *plural, const char *singular, bool trigger)
{
	tk_tld_strv names = {0};
	int rc = tk_tld_gather(ini, tracer, plural, singular, GATHER_NAMES, &names);
	for (size_t i = 0; !rc && i < names.n; i++) {
		tk_tld_trace key = {.name = names.v[i]};
		tk_tld_trace *t = bsearch(&key, cfg->traces, cfg->ntraces, sizeof key, cmp_trace);
		if (t && trigger)
			t->trigger = true;
		else if (t)
			t->enabled = true;
	}
	tk_tld_strv_free(&names);
	return rc;
}

/* ---- the whole configuration --------------------------------------------- */

static int load_tracer(tk_ini *ini, const char *file, tk_tld_config *cfg)
{
	const tk_ini_section *tracer = tk_ini_find(ini, "tracer");
	if (!tracer) {
		tk_ini_loc loc = {file, 0};
		tk_ini_report(ini, TK_DIAG_ERROR, &loc, "no [tracer] section");
		return TK_ERR_NOTFOUND;
	}
	tk_ini_loc tloc = tk_ini_section_loc(tracer);
	size_t count;
	const tk_ini_entry *name = tk_ini_get(tracer, "name", 0, &count);
	if (!name) {
		tk_ini_report(ini, TK_DIAG_ERROR, &tloc, "[tracer] has no 'name ='");
		return TK_ERR_INVAL;
	}
	if (count > 1) {
		const tk_ini_entry *second = tk_ini_get(tracer, "name", 1, NULL);
		tk_ini_report(ini, TK_DIAG_ERROR, &second->loc, "name: duplicate (first at line %u)",
			      name->loc.line);
		return TK_ERR_INVAL;
	}
	if (!(cfg->name = strdup(name->value)))
		return TK_ERR_NOMEM;
	int rc;
	/* The tracer's own includes first, so option sections may live in
	 * the files it includes. */
	if ((rc = tk_tld_load_includes(ini, tracer)) || (rc = load_options(ini, tracer, cfg)))
		return rc;
	table_options(ini, cfg);
	if ((rc = tk_tld_gather(ini, tracer, "defines", "define", GATHER_LIST, &cfg->defines)))
		return rc;
	if ((rc = load_traces(ini, tracer, cfg)) || (rc = tk_tld_load_sets(ini, tracer, cfg)))
		return rc;
	if ((rc = mark(ini, tracer, cfg, "enables", "enable", false)) ||
	    (rc = mark(ini, tracer, cfg, "triggers", "trigger", true)))
		return rc;
	return tk_tld_load_generator(ini, tracer, cfg);
}

static int config_load(tk_ini *ini, const char *file, bool load, tk_tld_config **out)
{
	*out = NULL;
	tk_tld_config *cfg = calloc(1, sizeof *cfg);
	if (!cfg)
		return TK_ERR_NOMEM;
	int rc = load ? tk_ini_load(ini, file, NULL) : 0;
	if (!rc)
		rc = load_tracer(ini, file, cfg);
	if (rc) {
		tk_tld_config_free(cfg);
		return rc;
	}
	*out = cfg;
	return 0;
}

int tk_tld_config_load(tk_ini *ini, const char *file, tk_tld_config **out)
{
	return config_load(ini, file, true, out);
}

int tk_tld_config_read(tk_ini *ini, const char *file, tk_tld_config **out)
{
	return config_load(ini, file, false, out);
}

void tk_tld_config_free(tk_tld_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->name);
	tk_tld_strv_free(&cfg->defines);
	for (size_t i = 0; i < cfg->noptions; i++) {
		free(cfg->options[i].key);
		free(cfg->options[i].value);
	}
	free(cfg->options);
	for (size_t i = 0; i < cfg->nsets; i++) {
		tk_tld_funcset *s = &cfg->sets[i];
		free(s->name);
		tk_tld_strv_free(&s->defines);
		tk_tld_strv_free(&s->headers);
		for (size_t j = 0; j < s->nsigs; j++) {
			free(s->sigs[j].name);
			free(s->sigs[j].ret);
			for (size_t k = 0; k < s->sigs[j].nargs; k++)
				free(s->sigs[j].args[k]);
			free(s->sigs[j].args);
		}
		free(s->sigs);
	}
	free(cfg->sets);
	for (size_t i = 0; i < cfg->ntraces; i++)
		free(cfg->traces[i].name);
	free(cfg->traces);
	tk_tld_generator *g = &cfg->gen;
	free(g->name);
	tk_tld_strv_free(&g->defines);
	tk_tld_strv_free(&g->headers);
	tk_tld_strv_free(&g->code);
	for (int i = 0; i < TK_TLD_NGEN_KEYS; i++)
		free(g->keys[i]);
	free(cfg);
}
