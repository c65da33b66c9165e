/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The trace linker's configuration and wrapper generator: how [tracer]
 * and the sections it names are read, every configuration error with its
 * file:line, and the generated C (tables, wrappers, locking).  Several
 * checks are regression tests of rtems-tld bugs tracekit fixes; each says
 * which. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/tld.h"

static char diags[16384];

static void collect(void *ctx, const tk_diag *d)
{
	(void)ctx;
	size_t n = strlen(diags);
	const char *lvl = d->level == TK_DIAG_ERROR ? "error" : d->level == TK_DIAG_WARNING ? "warning" : "note";
	snprintf(diags + n, sizeof diags - n, "%s:%llu: %s: %s\n", d->file ? d->file : "-",
		 (unsigned long long)d->line, lvl, d->msg);
}

/* A generator with every key, for the wrapper checks. */
static const char gen_ini[] =
	"[gen]\n"
	"header = \"#include <gen.h>\"\n"
	"define = \"#define GEN 1\"\n"
	"code = <<<CODE\n"
	"static int gen_code;\n"
	"CODE\n"
	"lock-local = \" LOCAL;\"\n"
	"lock-acquire = \" ACQUIRE;\"\n"
	"lock-release = \" RELEASE;\"\n"
	"buffer-local = \" BUFFER;\"\n"
	"entry-alloc = \"EALLOC(@FUNC_INDEX@, @FUNC_DATA_ENTRY_SIZE@);\"\n"
	"entry-trace = \"ETRACE(@FUNC_NAME@, &@FUNC_LABEL@, @FUNC_DATA_SIZE@);\"\n"
	"arg-trace = \"ATRACE(@ARG_NUM@, @ARG_TYPE@, @ARG_SIZE@, &@ARG_LABEL@, @FUNC_NAME@);\"\n"
	"exit-alloc = \"XALLOC(@FUNC_INDEX@, @FUNC_DATA_RET_SIZE@);\"\n"
	"exit-trace = \"XTRACE(@FUNC_NAME@);\"\n"
	"ret-trace = \"RTRACE(@RET_TYPE@, @RET_SIZE@, &@RET_LABEL@);\"\n"
	"[gen-trace-lock]\n"
	"lock-model = trace\n"
	"lock-acquire = \" ACQUIRE;\"\n"
	"lock-release = \" RELEASE;\"\n"
	"entry-trace = \"ETRACE();\"\n"
	"[default-generator]\n"
	"generator = gen\n";

static const tk_ini_builtin builtins[] = {{"gen.ini", gen_ini, sizeof gen_ini - 1}};

/* Load `text` as top.ini (generators from gen.ini); returns the result
 * and the configuration (or NULL). */
static int load(const char *text, tk_ini **ini_out, tk_tld_config **cfg)
{
	tk_ini_opts o = {.size = sizeof o, .builtins = builtins, .nbuiltins = 1,
			 .diag = collect, .builtins_only = true};
	diags[0] = '\0';
	tk_ini *ini;
	CHECK(tk_ini_new(&o, &ini) == 0);
	int rc = tk_ini_load_text(ini, "top.ini", text, strlen(text));
	*cfg = NULL;
	if (!rc)
		rc = tk_tld_config_read(ini, "top.ini", cfg);
	*ini_out = ini;
	return rc;
}

static void unload(tk_ini *ini, tk_tld_config *cfg)
{
	tk_tld_config_free(cfg);
	tk_ini_free(ini);
}

/* Expect an error whose message starts with `want` ("top.ini:12: error: ..."). */
static void expect_error(const char *text, int rc_want, const char *want)
{
	tk_ini *ini;
	tk_tld_config *cfg;
	int rc = load(text, &ini, &cfg);
	CHECKF(rc == rc_want, "rc %d, expected %d (%s)", rc, rc_want, want);
	CHECKF(cfg == NULL, "a configuration despite the error (%s)", want);
	CHECKF(strstr(diags, want) != NULL, "expected \"%s\" in:\n%s", want, diags);
	unload(ini, cfg);
}

static char *generate(const tk_tld_config *cfg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	CHECK(tk_tld_generate(cfg, fp) == 0);
	fclose(fp);
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

#define BASE                                                                                       \
	"[tracer]\nname = T\nfunctions = set1, set2\ninclude = gen.ini\ntraces = tr1, tr2\n"      \
	"enables = en\ntriggers = tg\ndefine = \"#define TRACER 1\"\n"                             \
	"[tr1]\ntrace = zeta, alpha\ngenerator = gen\n"                                           \
	"[tr2]\ntrace = alpha, mid\ntraces = tr3\n"                                                \
	"[tr3]\ntrace = zeta\n"                                                                    \
	"[en]\nenable = mid, notraced\n"                                                           \
	"[tg]\ntrigger = zeta\n"                                                                   \
	"[set1]\nheader = '#include \"set1.h\"'\nsignatures = sig1\n"                             \
	"[sig1]\nalpha = int, int, char*\nmid = void, void\n"                                     \
	"[set2]\nheader = '#include \"set2.h\"'\nsignatures = sig2\n"                             \
	"[sig2]\nalpha = long, long\nzeta = void, void (*)(int), const struct vec3 *\n"          \
	"[unused]\nheader = '#include \"unused.h\"'\n"

static void test_semantics(void)
{
	tk_ini *ini;
	tk_tld_config *cfg;
	CHECKF(load(BASE, &ini, &cfg) == 0, "%s", diags);
	if (!cfg)
		return;
	CHECK_STR(cfg->name, "T");
	/* De-duplicated (alpha and zeta are listed twice, in different
	 * sections: rtems-tld wrapped them twice and failed to compile) and
	 * sorted bytewise. */
	CHECK_EQ(cfg->ntraces, 3);
	CHECK_STR(cfg->traces[0].name, "alpha");
	CHECK_STR(cfg->traces[1].name, "mid");
	CHECK_STR(cfg->traces[2].name, "zeta");
	/* alpha is in both sets: the first set wins. */
	CHECK_STR(cfg->traces[0].sig->ret, "int");
	CHECK_EQ(cfg->traces[0].sig->nargs, 2);
	CHECK_EQ(cfg->traces[0].set, 0);
	CHECK_EQ(cfg->traces[1].sig->nargs, 0);
	CHECK_STR(cfg->traces[2].sig->args[0], "void (*)(int)");
	CHECK_EQ(cfg->traces[2].set, 1);
	CHECK(cfg->sets[0].used && cfg->sets[1].used);
	CHECK(!cfg->traces[0].enabled && cfg->traces[1].enabled && !cfg->traces[2].enabled);
	CHECK(cfg->traces[2].trigger && !cfg->traces[0].trigger);
	CHECK_STR(cfg->gen.name, "gen");
	CHECK_EQ(cfg->gen.lock_model, TK_TLD_LOCK_ALLOC);

	char *c = generate(cfg);
	/* stdint.h comes from the generator itself (rtems-tld relied on a
	 * configured header), after every configured header. */
	const char *stdint = strstr(c, "#include <stdint.h>");
	CHECK(stdint && strstr(c, "#include \"set2.h\"") < stdint);
	CHECK(strstr(c, "#define TRACER 1") < strstr(c, "#define GEN 1"));
	CHECK(strstr(c, "#include <gen.h>") < strstr(c, "#include \"set1.h\""));
	CHECK(strstr(c, "unused.h") == NULL);
	/* rtems-tld wrote "const char const*". */
	CHECK(strstr(c, "const char *const __rtld_trace_names[3] =") != NULL);
	CHECK(strstr(c, "uint32_t __rtld_trace_names_size = 3;") != NULL);
	CHECK(strstr(c, "  \"alpha\", /* 0 */\n  \"mid\", /* 1 */\n  \"zeta\", /* 2 */") != NULL);
	CHECK(strstr(c, "__rtld_trace_sig_args_alpha[3] =\n{\n  { sizeof(int), \"int\" },") != NULL);
	CHECK(strstr(c, "__rtld_trace_sig_args_mid[2] =\n{\n  { 0, \"void\" },\n  { 0, \"void\" },") != NULL);
	CHECK(strstr(c, "{ 3, &__rtld_trace_sig_args_zeta[0] }, /* 2 */") != NULL);
	CHECK(strstr(c, "__rtld_trace_enables[1] =\n{\n  0x00000002,") != NULL);
	CHECK(strstr(c, "__rtld_trace_triggers[1] =\n{\n  0x00000004,") != NULL);
	CHECK(strstr(c, "static int gen_code;") < strstr(c, "Wrappers."));
	CHECK(strstr(c, "extern void (*const __rtld_trace_funcs[3])(void);") < strstr(c, "gen_code"));
	/* One wrapper per function. */
	CHECK_EQ(count(c, "__wrap_alpha("), 1);
	CHECK_EQ(count(c, "__wrap_zeta("), 1);
	/* Function-pointer types through __typeof__; the struct tag ahead. */
	CHECK(strstr(c, "void __wrap_zeta(__typeof__(void (*)(int)) a1, const struct vec3 * a2)") != NULL);
	CHECK(strstr(c, "struct vec3;\n") < strstr(c, "Wrappers."));
	CHECK(strstr(c, "void mid(void);\nvoid __real_mid(void);\nvoid __wrap_mid(void)\n{") != NULL);
	CHECK(strstr(c, "#define FUNC_DATA_SIZE_alpha (sizeof(int) + sizeof(char*) + sizeof(int))") != NULL);
	CHECK(strstr(c, "#define FUNC_DATA_ENTRY_SIZE_mid (0)") != NULL);
	/* Macros: @FUNC_LABEL@ is the real function (rtems-tld: the wrapper,
	 * since &name inside the wrapper object resolves to __wrap_name);
	 * @FUNC_NAME@ is not substituted in arg-trace. */
	CHECK(strstr(c, " EALLOC(0, FUNC_DATA_ENTRY_SIZE_alpha);") != NULL);
	CHECK(strstr(c, " ETRACE(\"alpha\", &__real_alpha, FUNC_DATA_SIZE_alpha);") != NULL);
	CHECK(strstr(c, " ATRACE(2, \"char*\", sizeof(char*), &a2, @FUNC_NAME@);") != NULL);
	CHECK(strstr(c, " RTRACE(\"int\", sizeof(int), &ret);") != NULL);
	CHECK(strstr(c, " XALLOC(2, FUNC_DATA_RET_SIZE_zeta);") != NULL);
	CHECK(strstr(c, "(void (*)(void)) __real_zeta, /* 2 */") != NULL);
	/* Balanced locking in the alloc model (rtems-tld released twice on
	 * exit): acquire, alloc, release around each allocation only. */
	const char *body = strstr(c, "int __wrap_alpha(int a1, char* a2)\n{\n");
	CHECK(body != NULL);
	if (body) {
		const char *end = strstr(body, "\n}\n");
		char *w = strndup(body, (size_t)(end - body));
		CHECK_EQ(count(w, "ACQUIRE;"), 2);
		CHECK_EQ(count(w, "RELEASE;"), 2);
		CHECKF(strstr(w, "{\n LOCAL;\n BUFFER;\n int ret;\n ACQUIRE;\n EALLOC(0, FUNC_DATA_ENTRY_SIZE_alpha);\n"
				 " RELEASE;\n ETRACE(") != NULL, "%s", w);
		CHECKF(strstr(w, " ret = __real_alpha(a1, a2);\n ACQUIRE;\n XALLOC(0, FUNC_DATA_RET_SIZE_alpha);\n"
				 " RELEASE;\n XTRACE(\"alpha\");\n RTRACE(\"int\", sizeof(int), &ret);\n return ret;") != NULL,
		       "%s", w);
		free(w);
	}
	free(c);
	unload(ini, cfg);

	/* The trace lock model holds the lock while tracing, one release per
	 * acquire. */
	const char *tl = "[tracer]\nname = T\nfunctions = f\ninclude = gen.ini\n"
			 "generator = gen-trace-lock\ntrace = f1\n[f]\nsignatures = s\n[s]\nf1 = int, int\n";
	CHECKF(load(tl, &ini, &cfg) == 0, "%s", diags);
	if (cfg) {
		CHECK_EQ(cfg->gen.lock_model, TK_TLD_LOCK_TRACE);
		c = generate(cfg);
		CHECKF(strstr(c, "{\n int ret;\n ACQUIRE;\n ETRACE();\n RELEASE;\n ret = __real_f1(a1);\n"
				 " ACQUIRE;\n RELEASE;\n return ret;\n}") != NULL, "%s", c);
		free(c);
	}
	unload(ini, cfg);

	/* The default generator, global-on tables, disabled names. */
	const char *def = "[tracer]\nname = D\noptions = o\nfunctions = f\ninclude = gen.ini\n"
			  "trace = f00, f01, f02, f03, f04, f05, f06, f07, f08, f09, f10, f11, f12\n"
			  "trace = f13, f14, f15, f16, f17, f18, f19, f20, f21, f22, f23, f24, f25\n"
			  "trace = f26, f27, f28, f29, f30, f31, f32\n"
			  "[o]\ngen-enables = global-on\ngen-names = disable\ngen-triggers = disable\n"
			  "gen-sigs = disable\ncc = \"my-cc\"\nbogus = 1\n"
			  "[f]\nsignatures = s\n[s]\n"
			  "f00 = void, void\nf01 = void, void\nf02 = void, void\nf03 = void, void\n"
			  "f04 = void, void\nf05 = void, void\nf06 = void, void\nf07 = void, void\n"
			  "f08 = void, void\nf09 = void, void\nf10 = void, void\nf11 = void, void\n"
			  "f12 = void, void\nf13 = void, void\nf14 = void, void\nf15 = void, void\n"
			  "f16 = void, void\nf17 = void, void\nf18 = void, void\nf19 = void, void\n"
			  "f20 = void, void\nf21 = void, void\nf22 = void, void\nf23 = void, void\n"
			  "f24 = void, void\nf25 = void, void\nf26 = void, void\nf27 = void, void\n"
			  "f28 = void, void\nf29 = void, void\nf30 = void, void\nf31 = void, void\n"
			  "f32 = void, void\n";
	CHECKF(load(def, &ini, &cfg) == 0, "%s", diags);
	if (cfg) {
		CHECK_STR(cfg->gen.name, "gen");
		CHECK_EQ(cfg->ntraces, 33);
		CHECK_STR(tk_tld_option_get(cfg, "cc")->value, "my-cc");
		CHECKF(strstr(diags, "top.ini:15: warning: unknown option 'bogus'") != NULL, "%s", diags);
		c = generate(cfg);
		CHECK(strstr(c, "__rtld_trace_enables[2] =\n{\n  0xffffffff, 0x00000001,\n};") != NULL);
		CHECK(strstr(c, "__rtld_trace_names") == NULL);
		CHECK(strstr(c, "__rtld_trace_triggers") == NULL);
		CHECK(strstr(c, "__rtld_trace_signatures") == NULL);
		free(c);
	}
	unload(ini, cfg);
}

/* Every configuration error names the file and line of the key at fault. */
static void test_errors(void)
{
#define T "[tracer]\nname = E\nfunctions = f\ninclude = gen.ini\n"
	expect_error("[nottracer]\n", TK_ERR_NOTFOUND, "top.ini:0: error: no [tracer] section");
	expect_error("[tracer]\nfunctions = f\n", TK_ERR_INVAL, "top.ini:1: error: [tracer] has no 'name ='");
	expect_error("[tracer]\nname = a\nname = b\n", TK_ERR_INVAL, "top.ini:3: error: name: duplicate (first at line 2)");
	/* Unknown sections, at the key that names them. */
	expect_error(T "traces = t, nosuch\n[t]\ntrace = x\n[f]\nsignatures = s\n[s]\nx = int, int\n",
		     TK_ERR_NOTFOUND, "top.ini:5: error: traces: no section [nosuch]");
	expect_error(T "trace = x\n[f]\nsignatures = s, gone\n[s]\nx = int, int\n", TK_ERR_NOTFOUND,
		     "top.ini:7: error: signatures: no section [gone]");
	expect_error("[tracer]\nname = E\nfunctions = f, g\ninclude = gen.ini\ntrace = x\n[f]\nsignatures = s\n[s]\nx = int, int\n",
		     TK_ERR_NOTFOUND, "top.ini:3: error: functions: no section [g]");
	expect_error("[tracer]\nname = E\noptions = nope\nfunctions = f\n", TK_ERR_NOTFOUND,
		     "top.ini:3: error: options: no section [nope]");
	/* Bad quoting. */
	expect_error(T "trace = 'x\n", TK_ERR_INVAL, "top.ini:5: error: trace: 'x: invalid quoting");
	expect_error(T "trace = x\n[f]\nheader = \"#include <a.h>, #include <b.h>\"\nsignatures = s\n[s]\nx = int, int\n",
		     TK_ERR_INVAL, "top.ini:7: error: header: \"#include <a.h>: invalid quoting");
	/* Duplicate keys. */
	expect_error(T "trace = x\n[f]\nsignatures = s\n[s]\nx = int, int\nx = int, long\n", TK_ERR_INVAL,
		     "top.ini:10: error: signature x: duplicate in [s] (first at line 9)");
	expect_error("[tracer]\nname = E\noptions = o\nfunctions = f\n[o]\ncc = a\ncc = b\n", TK_ERR_INVAL,
		     "top.ini:7: error: option cc: set twice in [o] (first at line 6)");
	expect_error(T "trace = x\ngenerator = g\n[f]\nsignatures = s\n[s]\nx = int, int\n[g]\nentry-trace = a\nentry-trace = b\n",
		     TK_ERR_INVAL, "top.ini:13: error: g/entry-trace: duplicate (first at line 12)");
	/* Bad signatures. */
	expect_error(T "trace = x\n[f]\nsignatures = s\n[s]\nx = int\n", TK_ERR_INVAL,
		     "top.ini:9: error: bad signature: x: no arguments (write 'x = int, void'");
	expect_error(T "trace = x\n[f]\nsignatures = s\n[s]\nx = int, const char *, ...\n", TK_ERR_INVAL,
		     "top.ini:9: error: bad signature: x: '...': variadic functions cannot be wrapped");
	expect_error(T "trace = x\n[f]\nsignatures = s\n[s]\nx = int, int; system(\"rm\")\n", TK_ERR_INVAL,
		     "top.ini:9: error: bad signature: x: 'int; system(\"rm\")': not a C type name");
	expect_error(T "trace = x\n[f]\nsignatures = s\n[s]\nx = int, int, void\n", TK_ERR_INVAL,
		     "top.ini:9: error: bad signature: x: 'void' among other parameters");
	expect_error(T "trace = x\n[f]\nsignatures = s\n[s]\nx y = int, int\n", TK_ERR_INVAL,
		     "top.ini:9: error: bad signature: 'x y' is not a C function name");
	expect_error(T "trace = x\n[f]\nsignatures = s\n[s]\nx = int, (int\n", TK_ERR_INVAL,
		     "top.ini:9: error: bad signature: x: '(int': unbalanced brackets");
	/* A traced function no set describes: named, at the line listing it. */
	expect_error(T "trace = x, ghost\n[f]\nsignatures = s\n[s]\nx = int, int\n", TK_ERR_NOTFOUND,
		     "top.ini:5: error: trace ghost: no signature for it in any function set");
	/* rtems-tld accepted an empty trace list and generated [0] arrays. */
	expect_error(T "[f]\nsignatures = s\n[s]\nx = int, int\n", TK_ERR_INVAL,
		     "top.ini:1: error: no function to trace");
	expect_error("[tracer]\nname = E\ntrace = x\n", TK_ERR_INVAL,
		     "top.ini:1: error: [tracer] has no 'functions ='");
	expect_error(T "trace = x\n[f]\nheader = a\n[s]\nx = int, int\n", TK_ERR_INVAL,
		     "top.ini:6: error: function set [f] has no 'signatures ='");
	/* Generators. */
	expect_error(T "traces = a, b\n[a]\ntrace = x\ngenerator = gen\n[b]\ngenerator = gen-trace-lock\n"
		       "[f]\nsignatures = s\n[s]\nx = int, int\n",
		     TK_ERR_INVAL, "top.ini:10: error: two generators: gen-trace-lock (here) and gen");
	expect_error(T "trace = x\ngenerator = g\n[f]\nsignatures = s\n[s]\nx = int, int\n[g]\nlock-model = capture\n",
		     TK_ERR_INVAL, "top.ini:12: error: lock-model = capture: unknown (use alloc or trace)");
	expect_error("[tracer]\nname = E\nfunctions = f\ntrace = x\n[f]\nsignatures = s\n[s]\nx = int, int\n",
		     TK_ERR_NOTFOUND, "top.ini:1: error: no generator");
	expect_error(T "trace = x\ngenerator = g\n[f]\nsignatures = s\n[s]\nx = int, int\n", TK_ERR_NOTFOUND,
		     "top.ini:6: error: generator: no section [g]");
	/* Nested trace sections that refer to each other. */
	expect_error(T "traces = a\n[a]\ntraces = b\n[b]\ntraces = a\n", TK_ERR_INVAL,
		     "traces/trace: sections nested more than 32 deep (a cycle?)");
	/* A missing include, at the include key. */
	expect_error(T "include = nowhere.ini\n", TK_ERR_NOTFOUND,
		     "top.ini:5: error: nowhere.ini: configuration file not found");
#undef T
}

int main(void)
{
	test_semantics();
	test_errors();
	return check_report("test_tld_config");
}
