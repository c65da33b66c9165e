/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The trace linker's INI module: grammar (multi-key, <<<TAG blocks,
 * whole-line comments, quoting), loading (search path, includes, first
 * wins, cycles, built-in files) and the diagnostics' file:line.
 *
 *   test_tld_ini WORKDIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/tld_ini.h"

static char diags[16384];

static void collect(void *ctx, const tk_diag *d)
{
	(void)ctx;
	size_t n = strlen(diags);
	const char *lvl = d->level == TK_DIAG_ERROR ? "error" : d->level == TK_DIAG_WARNING ? "warning" : "note";
	snprintf(diags + n, sizeof diags - n, "%s:%llu: %s: %s\n", d->file ? d->file : "-",
		 (unsigned long long)d->line, lvl, d->msg);
}

static tk_ini *new_ini(const tk_ini_opts *base)
{
	tk_ini_opts o = {0};
	if (base)
		o = *base;
	o.size = sizeof o;
	o.diag = collect;
	diags[0] = '\0';
	tk_ini *ini;
	CHECK(tk_ini_new(&o, &ini) == 0);
	return ini;
}

static const char *value(const tk_ini *ini, const char *sec, const char *key, size_t n)
{
	const tk_ini_section *s = tk_ini_find(ini, sec);
	const tk_ini_entry *e = s ? tk_ini_get(s, key, n, NULL) : NULL;
	return e ? e->value : NULL;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	CHECKF(fp != NULL, "%s: %s", path, strerror(errno));
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

static void test_grammar(void)
{
	tk_ini *ini = new_ini(NULL);
	const char *text =
		"\xef\xbb\xbf; a comment\n"
		"# another\n"
		"[ first ] text after the bracket\n"
		"trace = a, b\r\n"
		"trace=c\n"
		"   ; indented comment\n"
		"inline = foo ; bar\n"
		"empty =\n"
		"noequals line\n"
		" = no key\n"
		"code = <<<CODE\n"
		"; kept\n"
		"#define X 1\n"
		"  CODE\n"
		"CODE   \n"
		"after = 1\n"
		"[second]\n"
		"k = v\n"
		"[first]\n"
		"trace = d\n";
	CHECK(tk_ini_load_text(ini, "g.ini", text, strlen(text)) == 0);
	size_t count;
	const tk_ini_section *s = tk_ini_find(ini, "first");
	CHECK(s != NULL);
	CHECK(tk_ini_get(s, "trace", 0, &count) != NULL);
	CHECK_EQ(count, 3);	/* multi-key, merged section */
	CHECK_STR(value(ini, "first", "trace", 0), "a, b");
	CHECK_STR(value(ini, "first", "trace", 1), "c");
	CHECK_STR(value(ini, "first", "trace", 2), "d");
	CHECK_STR(value(ini, "first", "inline", 0), "foo ; bar");
	CHECK_STR(value(ini, "first", "empty", 0), "");
	CHECK_STR(value(ini, "first", "code", 0), "; kept\n#define X 1\n  CODE");
	CHECK_STR(value(ini, "first", "after", 0), "1");
	CHECK_STR(value(ini, "second", "k", 0), "v");
	CHECK_EQ(tk_ini_nsections(ini), 2);
	tk_ini_loc loc = tk_ini_section_loc(s);
	CHECK_EQ(loc.line, 3);
	CHECK_EQ(tk_ini_get(s, "after", 0, NULL)->loc.line, 16);
	CHECKF(strstr(diags, "g.ini:9: warning: no '='") != NULL, "%s", diags);
	CHECKF(strstr(diags, "g.ini:10: warning: no key") != NULL, "%s", diags);
	tk_ini_free(ini);

	/* A block without its end runs to the end of the file, with a warning. */
	ini = new_ini(NULL);
	text = "[s]\ncode = <<<END\nline 1\nline 2\n";
	CHECK(tk_ini_load_text(ini, "b.ini", text, strlen(text)) == 0);
	CHECK_STR(value(ini, "s", "code", 0), "line 1\nline 2");
	CHECKF(strstr(diags, "b.ini:2: warning: no line 'END'") != NULL, "%s", diags);
	tk_ini_free(ini);

	/* Errors: NUL byte, unterminated section name, empty name. */
	ini = new_ini(NULL);
	CHECK(tk_ini_load_text(ini, "n.ini", "[s]\nk = v\0x\n", 11) == TK_ERR_PARSE);
	CHECKF(strstr(diags, "n.ini:2: error: NUL byte") != NULL, "%s", diags);
	tk_ini_free(ini);
	ini = new_ini(NULL);
	CHECK(tk_ini_load_text(ini, "u.ini", "[s]\n[broken\n", 12) == TK_ERR_PARSE);
	CHECKF(strstr(diags, "u.ini:2: error: section name without ']'") != NULL, "%s", diags);
	tk_ini_free(ini);
	ini = new_ini(NULL);
	CHECK(tk_ini_load_text(ini, "e.ini", "k = 1\n[ ]\n", 10) == TK_ERR_PARSE);
	CHECKF(strstr(diags, "e.ini:1: warning: key 'k' before any [section]") != NULL, "%s", diags);
	CHECKF(strstr(diags, "e.ini:2: error: empty section name") != NULL, "%s", diags);
	tk_ini_free(ini);
}

static void test_values(void)
{
	char **items;
	const char *bad;
	CHECK_EQ(tk_ini_split_list("a, b,", &items, &bad), 2);
	CHECK_STR(items[0], "a");
	CHECK_STR(items[1], "b");
	CHECK(items[2] == NULL);
	free(items);
	CHECK_EQ(tk_ini_split_list("\"#include <a.h>\", '#include \"b.h\"' ,, ''", &items, &bad), 2);
	CHECK_STR(items[0], "#include <a.h>");
	CHECK_STR(items[1], "#include \"b.h\"");
	free(items);
	/* A comma inside quotes still splits: the pieces are badly quoted. */
	CHECK_EQ(tk_ini_split_list("\"#include <a.h>, #include <b.h>\"", &items, &bad), TK_ERR_INVAL);
	CHECK_STR(bad, "\"#include <a.h>");
	free(items);
	CHECK_EQ(tk_ini_split_list("'x", &items, &bad), TK_ERR_INVAL);
	CHECK_STR(bad, "'x");
	free(items);
	CHECK_EQ(tk_ini_split_list("", &items, &bad), 0);
	free(items);
	/* No escapes: a backslash stays. */
	CHECK_EQ(tk_ini_split_list("a\\,b", &items, &bad), 2);
	CHECK_STR(items[0], "a\\");
	free(items);

	bool b;
	char *s = tk_ini_dequote("\"printf(\"in %s\\n\", x);\"", &b);
	CHECK(!b);
	CHECK_STR(s, "printf(\"in %s\\n\", x);");
	free(s);
	s = tk_ini_dequote("\" int x;\"", &b);
	CHECK_STR(s, " int x;");
	free(s);
	s = tk_ini_dequote("plain, with comma", &b);
	CHECK_STR(s, "plain, with comma");
	free(s);
	s = tk_ini_dequote("\"open", &b);
	CHECK(s == NULL && b);
	s = tk_ini_dequote("'", &b);
	CHECK(s == NULL && b);
}

static void test_files(const char *work)
{
	char d1[512], d2[512], sub[512], p[600];
	snprintf(d1, sizeof d1, "%s/ini-d1", work);
	snprintf(d2, sizeof d2, "%s/ini-d2", work);
	snprintf(sub, sizeof sub, "%s/ini-sub", work);
	mkdir(d1, 0755);
	mkdir(d2, 0755);
	mkdir(sub, 0755);
	/* top.ini's own sections win over those of the file it includes,
	 * whatever their names (rtems-tld: only names sorting before
	 * "includes"). */
	snprintf(p, sizeof p, "%s/top.ini", sub);
	write_file(p, "[zzz]\nk = top\n[aaa]\nk = top\n[includes]\ninclude = inc.ini, near.ini\n");
	snprintf(p, sizeof p, "%s/inc.ini", d2);
	write_file(p, "[zzz]\nk = inc\n[aaa]\nk = inc\n[only-inc]\nk = d2\n");
	snprintf(p, sizeof p, "%s/inc.ini", d1);
	write_file(p, "[only-inc]\nk = d1\n");
	/* near.ini is beside top.ini only: found as the fallback. */
	snprintf(p, sizeof p, "%s/near.ini", sub);
	write_file(p, "[near]\nk = near\n[includes]\ninclude = top.ini\n");

	const char *search[2] = {d1, d2};
	tk_ini_opts o = {.search = search, .nsearch = 2};
	tk_ini *ini = new_ini(&o);
	snprintf(p, sizeof p, "%s/top.ini", sub);
	/* near.ini includes top.ini again: a cycle (top -> near -> top). */
	CHECK_EQ(tk_ini_load(ini, p, NULL), TK_ERR_INVAL);
	CHECKF(strstr(diags, "near.ini:4: error: include cycle: ") != NULL, "%s", diags);
	CHECKF(strstr(diags, "top.ini -> ") != NULL, "%s", diags);
	tk_ini_free(ini);

	snprintf(p, sizeof p, "%s/near.ini", sub);
	write_file(p, "[near]\nk = near\n");
	ini = new_ini(&o);
	snprintf(p, sizeof p, "%s/top.ini", sub);
	CHECK_EQ(tk_ini_load(ini, p, NULL), 0);
	CHECK_STR(value(ini, "zzz", "k", 0), "top");
	CHECK_STR(value(ini, "aaa", "k", 0), "top");
	/* -P order: d1 comes first, so its inc.ini is the one loaded. */
	CHECK_STR(value(ini, "only-inc", "k", 0), "d1");
	CHECK_STR(value(ini, "near", "k", 0), "near");
	CHECK_EQ(tk_ini_nfiles(ini), 3);
	/* Loading a file again does nothing. */
	CHECK_EQ(tk_ini_load(ini, p, NULL), 0);
	CHECK_EQ(tk_ini_nfiles(ini), 3);
	/* Not found: an error naming the key that asked for it. */
	tk_ini_loc at = {"x.ini", 7};
	CHECK_EQ(tk_ini_load(ini, "missing.ini", &at), TK_ERR_NOTFOUND);
	CHECKF(strstr(diags, "x.ini:7: error: missing.ini: configuration file not found (searched: "
			     "the current directory, ") != NULL, "%s", diags);
	tk_ini_free(ini);

	/* The search path alone (a name, not a path). */
	ini = new_ini(&o);
	CHECK_EQ(tk_ini_load(ini, "inc.ini", NULL), 0);
	CHECK_STR(value(ini, "only-inc", "k", 0), "d1");
	tk_ini_free(ini);

	/* Built-in files come last; files on disk win. */
	static const char builtin_text[] = "[b]\nk = builtin\n[includes]\ninclude = inc.ini\n";
	tk_ini_builtin b[2] = {{"b.ini", builtin_text, sizeof builtin_text - 1},
			       {"inc.ini", "[only-inc]\nk = builtin\n", 23}};
	tk_ini_opts ob = o;
	ob.builtins = b;
	ob.nbuiltins = 2;
	ini = new_ini(&ob);
	CHECK_EQ(tk_ini_load(ini, "b.ini", NULL), 0);
	CHECK_STR(value(ini, "b", "k", 0), "builtin");
	CHECK_STR(value(ini, "only-inc", "k", 0), "d1");
	CHECK_STR(tk_ini_file_at(ini, 0), "<built-in>/b.ini");
	tk_ini_free(ini);
	ob.nsearch = 0;
	ob.builtins_only = true;
	ini = new_ini(&ob);
	CHECK_EQ(tk_ini_load(ini, "b.ini", NULL), 0);
	CHECK_STR(value(ini, "only-inc", "k", 0), "builtin");
	tk_ini_free(ini);

	/* A self-include is a cycle too. */
	snprintf(p, sizeof p, "%s/self.ini", d1);
	write_file(p, "[includes]\ninclude = self.ini\n");
	ini = new_ini(&o);
	CHECK_EQ(tk_ini_load(ini, "self.ini", NULL), TK_ERR_INVAL);
	CHECKF(strstr(diags, "self.ini:2: error: include cycle: ") != NULL, "%s", diags);
	tk_ini_free(ini);

	/* Bad quoting in an include list. */
	snprintf(p, sizeof p, "%s/badinc.ini", d1);
	write_file(p, "[includes]\ninclude = 'a.ini\n");
	ini = new_ini(&o);
	CHECK_EQ(tk_ini_load(ini, "badinc.ini", NULL), TK_ERR_INVAL);
	CHECKF(strstr(diags, "badinc.ini:2: error: include: 'a.ini: invalid quoting") != NULL, "%s",
	       diags);
	tk_ini_free(ini);
}

int main(int argc, char **argv)
{
	const char *work = argc > 1 ? argv[1] : ".";
	mkdir(work, 0755);
	test_grammar();
	test_values();
	test_files(work);
	return check_report("test_tld_ini");
}
