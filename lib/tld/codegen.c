/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the trace linker's wrapper C file.
 *
 * The layout and the symbol names are those of the RTEMS Trace Linker
 * (target code reads the tables by name); the differences are listed in
 * docs/TLD.md: <stdint.h> is included, locking is balanced, @FUNC_LABEL@
 * is the real function (__real_NAME), function-pointer and array types
 * are declared through __typeof__, struct and union tags are declared
 * ahead, and the table __rtld_trace_funcs gives each real function's
 * address.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/tld.h"

bool tk_tld_type_needs_typeof(const char *type)
{
	return strpbrk(type, "([") != NULL;
}

/* "T name": T pasted before the name, or __typeof__(T) when T has a
 * declarator that cannot be pasted (function pointers, arrays). */
static void put_decl(FILE *out, const char *type, const char *name)
{
	if (tk_tld_type_needs_typeof(type))
		fprintf(out, "__typeof__(%s) %s", type, name);
	else
		fprintf(out, "%s %s", type, name);
}

static bool is_void(const char *t)
{
	return !strcmp(t, "void");
}

struct macro {
	const char *name;
	char value[512];
};

/* Write text with every @NAME@ of macros replaced (no re-scan). */
static void put_subst(FILE *out, const char *text, const struct macro *m, size_t nm)
{
	const char *p = text;
	while (*p) {
		bool done = false;
		if (*p == '@')
			for (size_t i = 0; i < nm; i++) {
				size_t n = strlen(m[i].name);
				if (!strncmp(p, m[i].name, n)) {
					fputs(m[i].value, out);
					p += n;
					done = true;
					break;
				}
			}
		if (!done)
			putc(*p++, out);
	}
}

static void put_lines(FILE *out, const tk_tld_strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		fprintf(out, "%s\n", v->v[i]);
}

static void put_names(FILE *out, const tk_tld_config *cfg)
{
	fprintf(out, "/*\n * Names.\n */\n");
	fprintf(out, "uint32_t __rtld_trace_names_size = %zu;\n", cfg->ntraces);
	fprintf(out, "const char *const __rtld_trace_names[%zu] =\n{\n", cfg->ntraces);
	for (size_t i = 0; i < cfg->ntraces; i++)
		fprintf(out, "  \"%s\", /* %zu */\n", cfg->traces[i].name, i);
	fprintf(out, "};\n\n");
}

static void put_sigs(FILE *out, const tk_tld_config *cfg)
{
	fprintf(out, "/*\n * Signatures.\n */\n"
		     "typedef struct {\n  uint32_t size;\n  const char *const type;\n"
		     "} __rtld_trace_sig_arg;\n\n"
		     "typedef struct {\n  uint32_t argc;\n  const __rtld_trace_sig_arg *args;\n"
		     "} __rtld_trace_sig;\n\n");
	for (size_t i = 0; i < cfg->ntraces; i++) {
		const tk_tld_sig *s = cfg->traces[i].sig;
		size_t argc = 1 + (s->nargs ? s->nargs : 1);
		fprintf(out, "const __rtld_trace_sig_arg __rtld_trace_sig_args_%s[%zu] =\n{\n",
			s->name, argc);
		if (is_void(s->ret))
			fprintf(out, "  { 0, \"void\" },\n");
		else
			fprintf(out, "  { sizeof(%s), \"%s\" },\n", s->ret, s->ret);
		if (!s->nargs)
			fprintf(out, "  { 0, \"void\" },\n");
		for (size_t a = 0; a < s->nargs; a++)
			fprintf(out, "  { sizeof(%s), \"%s\" },\n", s->args[a], s->args[a]);
		fprintf(out, "};\n\n");
	}
	fprintf(out, "const __rtld_trace_sig __rtld_trace_signatures[%zu] =\n{\n", cfg->ntraces);
	for (size_t i = 0; i < cfg->ntraces; i++) {
		const tk_tld_sig *s = cfg->traces[i].sig;
		fprintf(out, "  { %zu, &__rtld_trace_sig_args_%s[0] }, /* %zu */\n",
			1 + (s->nargs ? s->nargs : 1), s->name, i);
	}
	fprintf(out, "};\n\n");
}

static void put_bitmap(FILE *out, const tk_tld_config *cfg, const char *label,
		       tk_tld_table_mode mode, bool trigger)
{
	size_t words = (cfg->ntraces + 31) / 32;
	fprintf(out, "/*\n * %c%s.\n */\n", toupper((unsigned char)label[0]), label + 1);
	fprintf(out, "uint32_t __rtld_trace_%s_size = %zu;\n", label, cfg->ntraces);
	fprintf(out, "const uint32_t __rtld_trace_%s[%zu] =\n{\n", label, words);
	for (size_t w = 0; w < words; w++) {
		uint32_t bits = 0;
		for (size_t b = 0; b < 32 && w * 32 + b < cfg->ntraces; b++) {
			const tk_tld_trace *t = &cfg->traces[w * 32 + b];
			if (mode == TK_TLD_TABLE_GLOBAL_ON || (trigger ? t->trigger : t->enabled))
				bits |= 1u << b;
		}
		fprintf(out, "%s0x%08x,%s", w % 4 ? " " : "  ", bits,
			w % 4 == 3 || w + 1 == words ? "\n" : "");
	}
	fprintf(out, "};\n\n");
}

/* "struct NAME" and "union NAME" in the signatures, declared ahead so a
 * pointer to them means the same type everywhere in the file. */
static void put_tags(FILE *out, const tk_tld_config *cfg)
{
	char **seen = NULL;
	size_t nseen = 0;
	bool any = false;
	for (size_t i = 0; i < cfg->ntraces; i++) {
		const tk_tld_sig *s = cfg->traces[i].sig;
		for (size_t a = 0; a <= s->nargs; a++) {
			const char *t = a == 0 ? s->ret : s->args[a - 1];
			for (const char *p = t; (p = strpbrk(p, "su")) != NULL; p++) {
				size_t kw = !strncmp(p, "struct ", 7) ? 6 : !strncmp(p, "union ", 6) ? 5 : 0;
				if (!kw || (p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
					continue;
				const char *n = p + kw;
				while (*n == ' ')
					n++;
				size_t len = 0;
				while (isalnum((unsigned char)n[len]) || n[len] == '_')
					len++;
				if (!len)
					continue;
				char decl[300];
				snprintf(decl, sizeof decl, "%.*s %.*s;", (int)kw, p, (int)len, n);
				bool dup = false;
				for (size_t k = 0; k < nseen; k++)
					dup |= !strcmp(seen[k], decl);
				char **v = dup ? NULL : realloc(seen, (nseen + 1) * sizeof *v);
				if (!v)
					continue;
				seen = v;
				if (!(seen[nseen] = strdup(decl)))
					continue;
				if (!any)
					fprintf(out, "/*\n * Tags used by the signatures.\n */\n");
				any = true;
				fprintf(out, "%s\n", seen[nseen++]);
			}
		}
	}
	if (any)
		fprintf(out, "\n");
	for (size_t k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
}

static void put_params(FILE *out, const tk_tld_sig *s)
{
	if (!s->nargs) {
		fputs("void", out);
		return;
	}
	for (size_t a = 0; a < s->nargs; a++) {
		char name[32];
		snprintf(name, sizeof name, "a%zu", a + 1);
		if (a)
			fputs(", ", out);
		put_decl(out, s->args[a], name);
	}
}

static void put_size_macro(FILE *out, const char *what, const tk_tld_sig *s, bool args,
			   bool ret)
{
	fprintf(out, "#define FUNC_DATA_%sSIZE_%s (", what, s->name);
	bool any = false;
	for (size_t a = 0; args && a < s->nargs; a++) {
		fprintf(out, "%ssizeof(%s)", any ? " + " : "", s->args[a]);
		any = true;
	}
	if (ret) {
		fprintf(out, "%ssizeof(%s)", any ? " + " : "", s->ret);
		any = true;
	}
	fprintf(out, "%s)\n", any ? "" : "0");
}

/* One line of generator code (with a leading blank, as the reference). */
static void put_code(FILE *out, const char *code, const struct macro *m, size_t nm)
{
	if (!code)
		return;
	putc(' ', out);
	put_subst(out, code, m, nm);
	putc('\n', out);
}

static void put_verbatim(FILE *out, const char *code)
{
	if (code)
		fprintf(out, "%s\n", code);
}

static void put_wrapper(FILE *out, const tk_tld_config *cfg, size_t index)
{
	const tk_tld_sig *s = cfg->traces[index].sig;
	const tk_tld_generator *g = &cfg->gen;
	char *const *k = g->keys;
	bool has_ret = !is_void(s->ret);
	bool trace_ret = has_ret && k[TK_TLD_RET_TRACE];
	bool trace_lock = g->lock_model == TK_TLD_LOCK_TRACE;

	put_size_macro(out, "", s, true, trace_ret);
	put_size_macro(out, "ENTRY_", s, true, false);
	put_size_macro(out, "RET_", s, false, trace_ret);

	char realname[300], wrapname[300];
	snprintf(realname, sizeof realname, "__real_%s", s->name);
	snprintf(wrapname, sizeof wrapname, "__wrap_%s", s->name);
	const char *fnames[3] = {s->name, realname, wrapname};
	for (int i = 0; i < 3; i++) {
		put_decl(out, s->ret, fnames[i]);
		putc('(', out);
		put_params(out, s);
		fputs(i < 2 ? ");\n" : ")\n{\n", out);
	}

	struct macro fm[6] = {
		{"@FUNC_NAME@", ""}, {"@FUNC_INDEX@", ""}, {"@FUNC_LABEL@", ""},
		{"@FUNC_DATA_SIZE@", ""}, {"@FUNC_DATA_ENTRY_SIZE@", ""},
		{"@FUNC_DATA_RET_SIZE@", ""},
	};
	snprintf(fm[0].value, sizeof fm[0].value, "\"%s\"", s->name);
	snprintf(fm[1].value, sizeof fm[1].value, "%zu", index);
	snprintf(fm[2].value, sizeof fm[2].value, "%s", realname);
	snprintf(fm[3].value, sizeof fm[3].value, "FUNC_DATA_SIZE_%s", s->name);
	snprintf(fm[4].value, sizeof fm[4].value, "FUNC_DATA_ENTRY_SIZE_%s", s->name);
	snprintf(fm[5].value, sizeof fm[5].value, "FUNC_DATA_RET_SIZE_%s", s->name);

	put_verbatim(out, k[TK_TLD_LOCK_LOCAL]);
	put_verbatim(out, k[TK_TLD_BUFFER_LOCAL]);
	if (has_ret) {
		fputs(" ", out);
		put_decl(out, s->ret, "ret");
		fputs(";\n", out);
	}
	/* Entry: the allocation under the lock; with the "trace" model the
	 * lock is also held through the entry and argument traces. */
	put_verbatim(out, k[TK_TLD_LOCK_ACQUIRE]);
	put_code(out, k[TK_TLD_ENTRY_ALLOC], fm, 6);
	if (!trace_lock)
		put_verbatim(out, k[TK_TLD_LOCK_RELEASE]);
	put_code(out, k[TK_TLD_ENTRY_TRACE], fm, 6);
	for (size_t a = 0; a < s->nargs; a++) {
		struct macro am[4] = {
			{"@ARG_NUM@", ""}, {"@ARG_TYPE@", ""}, {"@ARG_SIZE@", ""}, {"@ARG_LABEL@", ""},
		};
		snprintf(am[0].value, sizeof am[0].value, "%zu", a + 1);
		snprintf(am[1].value, sizeof am[1].value, "\"%s\"", s->args[a]);
		snprintf(am[2].value, sizeof am[2].value, "sizeof(%s)", s->args[a]);
		snprintf(am[3].value, sizeof am[3].value, "a%zu", a + 1);
		if (k[TK_TLD_ARG_TRACE])
			put_code(out, k[TK_TLD_ARG_TRACE], am, 4);
	}
	if (trace_lock)
		put_verbatim(out, k[TK_TLD_LOCK_RELEASE]);

	fprintf(out, " %s%s(", has_ret ? "ret = " : "", realname);
	for (size_t a = 0; a < s->nargs; a++)
		fprintf(out, "%sa%zu", a ? ", " : "", a + 1);
	fputs(");\n", out);

	/* Exit: the same, then one release for the one acquire. */
	put_verbatim(out, k[TK_TLD_LOCK_ACQUIRE]);
	put_code(out, k[TK_TLD_EXIT_ALLOC], fm, 6);
	if (!trace_lock)
		put_verbatim(out, k[TK_TLD_LOCK_RELEASE]);
	put_code(out, k[TK_TLD_EXIT_TRACE], fm, 6);
	if (trace_ret) {
		struct macro rm[3] = {{"@RET_TYPE@", ""}, {"@RET_SIZE@", ""}, {"@RET_LABEL@", "ret"}};
		snprintf(rm[0].value, sizeof rm[0].value, "\"%s\"", s->ret);
		snprintf(rm[1].value, sizeof rm[1].value, "sizeof(%s)", s->ret);
		put_code(out, k[TK_TLD_RET_TRACE], rm, 3);
	}
	if (trace_lock)
		put_verbatim(out, k[TK_TLD_LOCK_RELEASE]);
	if (has_ret)
		fputs(" return ret;\n", out);
	fputs("}\n\n", out);
}

int tk_tld_generate(const tk_tld_config *cfg, FILE *out)
{
	for (size_t i = 0; i < cfg->ntraces; i++)
		if (!cfg->traces[i].sig || !cfg->traces[i].sig->ret)
			return TK_ERR_INVAL;
	const tk_tld_generator *g = &cfg->gen;
	fprintf(out, "/*\n * RTEMS Trace Linker Wrapper (tracekit tld)\n"
		     " *\n * Automatically generated: do not edit.\n */\n\n");
	fprintf(out, "/*\n * Tracer: %s\n */\n", cfg->name);
	put_lines(out, &cfg->defines);
	fprintf(out, "\n/*\n * Generator: %s\n */\n", g->name);
	put_lines(out, &g->defines);
	put_lines(out, &g->headers);
	fprintf(out, "\n/*\n * Functions.\n */\n");
	for (size_t i = 0; i < cfg->nsets; i++) {
		const tk_tld_funcset *s = &cfg->sets[i];
		if (!s->used)
			continue;
		fprintf(out, "/*\n * Function: %s\n */\n", s->name);
		put_lines(out, &s->defines);
		put_lines(out, &s->headers);
	}
	/* After every configured define and header, so a feature macro they
	 * set still comes before the first system header. */
	fprintf(out, "\n#include <stdint.h>\n\n");
	put_tags(out, cfg);
	if (cfg->gen_names)
		put_names(out, cfg);
	if (cfg->gen_sigs)
		put_sigs(out, cfg);
	if (cfg->gen_enables != TK_TLD_TABLE_DISABLE)
		put_bitmap(out, cfg, "enables", cfg->gen_enables, false);
	if (cfg->gen_triggers != TK_TLD_TABLE_DISABLE)
		put_bitmap(out, cfg, "triggers", cfg->gen_triggers, true);
	fprintf(out, "/*\n * The real functions, in trace order (defined at the end).\n */\n"
		     "extern void (*const __rtld_trace_funcs[%zu])(void);\n\n", cfg->ntraces);
	for (size_t i = 0; i < g->code.n; i++)
		fprintf(out, "%s\n", g->code.v[i]);
	fprintf(out, "\n/*\n * Wrappers.\n */\n");
	for (size_t i = 0; i < cfg->ntraces; i++)
		put_wrapper(out, cfg, i);
	fprintf(out, "void (*const __rtld_trace_funcs[%zu])(void) =\n{\n", cfg->ntraces);
	for (size_t i = 0; i < cfg->ntraces; i++)
		fprintf(out, "  (void (*)(void)) __real_%s, /* %zu */\n", cfg->traces[i].name, i);
	fprintf(out, "};\n");
	if (fflush(out) != 0 || ferror(out))
		return TK_ERR_IO;
	return 0;
}
