/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: loading the trace linker's INI files: resolving names along
 * the search path, [includes], repeats and cycles (see tld_ini.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tld/ini_impl.h"
#include "tracekit/error.h"

#define BUILTIN_PREFIX "<built-in>/"

static char **copy_dirs(const char *const *v, size_t n)
{
	char **c = calloc(n + 1, sizeof *c);
	if (!c)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(c[i] = strdup(v[i]))) {
			while (i--)
				free(c[i]);
			free(c);
			return NULL;
		}
	return c;
}

static void free_dirs(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int tk_ini_new(const tk_ini_opts *opts, tk_ini **out)
{
	*out = NULL;
	tk_ini *ini = calloc(1, sizeof *ini);
	if (!ini)
		return TK_ERR_NOMEM;
	if (opts) {
		size_t n = opts->size && opts->size < sizeof ini->opts ? opts->size : sizeof ini->opts;
		memcpy(&ini->opts, opts, n);
	}
	ini->search = copy_dirs(ini->opts.search, ini->opts.nsearch);
	ini->system = copy_dirs(ini->opts.system, ini->opts.nsystem);
	if (!ini->search || !ini->system) {
		tk_ini_free(ini);
		return TK_ERR_NOMEM;
	}
	if (!ini->opts.max_file)
		ini->opts.max_file = 16u << 20;
	*out = ini;
	return 0;
}

void tk_ini_free(tk_ini *ini)
{
	if (!ini)
		return;
	for (size_t i = 0; i < ini->nsections; i++) {
		tk_ini_section *s = ini->sections[i];
		for (size_t j = 0; j < s->n; j++) {
			free((char *)s->entries[j].key);
			free((char *)s->entries[j].value);
		}
		free(s->entries);
		free(s->name);
		free(s);
	}
	free(ini->sections);
	for (size_t i = 0; i < ini->nfiles; i++) {
		free(ini->files[i].path);
		free(ini->files[i].identity);
	}
	free(ini->files);
	free_dirs(ini->search, ini->opts.nsearch);
	free_dirs(ini->system, ini->opts.nsystem);
	free(ini);
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s%s%s", dir, *dir && dir[strlen(dir) - 1] != '/' ? "/" : "", name);
	return p;
}

/* The directory part of path ("." if none). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* Try dir/name; on success *path gets it. */
static int try_dir(const char *dir, const char *name, char **path)
{
	char *p = join(dir, name);
	if (!p)
		return TK_ERR_NOMEM;
	if (is_file(p)) {
		*path = p;
		return 1;
	}
	free(p);
	return 0;
}

/* Resolve name: *path (malloc'ed) is a file path or "<built-in>/NAME" with
 * *builtin set.  from_path: the including file, or NULL. */
static int resolve(tk_ini *ini, const char *name, const char *from_path, char **path,
		   const tk_ini_builtin **builtin)
{
	*path = NULL;
	*builtin = NULL;
	if (ini->opts.builtins_only)
		goto builtins;
	if (is_file(name))
		return (*path = strdup(name)) ? 0 : TK_ERR_NOMEM;
	if (name[0] == '/')
		return TK_ERR_NOTFOUND;
	int rc;
	for (size_t i = 0; i < ini->opts.nsearch; i++)
		if ((rc = try_dir(ini->search[i], name, path)) != 0)
			return rc < 0 ? rc : 0;
	if (from_path && strncmp(from_path, BUILTIN_PREFIX, strlen(BUILTIN_PREFIX)) != 0) {
		char *dir = dir_of(from_path);
		if (!dir)
			return TK_ERR_NOMEM;
		rc = try_dir(dir, name, path);
		free(dir);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	for (size_t i = 0; i < ini->opts.nsystem; i++)
		if ((rc = try_dir(ini->system[i], name, path)) != 0)
			return rc < 0 ? rc : 0;
builtins:
	for (size_t i = 0; i < ini->opts.nbuiltins; i++)
		if (!strcmp(ini->opts.builtins[i].name, name)) {
			*builtin = &ini->opts.builtins[i];
			return (*path = join(BUILTIN_PREFIX, name)) ? 0 : TK_ERR_NOMEM;
		}
	return TK_ERR_NOTFOUND;
}

static int read_file(tk_ini *ini, const char *path, const tk_ini_loc *from, char **text,
		     size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tk_ini_report(ini, TK_DIAG_ERROR, from, "%s: %s", path, strerror(errno));
		return TK_ERR_OPEN;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			close(fd);
			return TK_ERR_NOMEM;
		}
		if (n == cap) {
			if (cap >= ini->opts.max_file) {
				tk_ini_report(ini, TK_DIAG_ERROR, from,
					      "%s: larger than %zu bytes: not a configuration file",
					      path, ini->opts.max_file);
				free(buf);
				close(fd);
				return TK_ERR_FORMAT;
			}
			cap *= 2;
			char *nb = realloc(buf, cap);
			if (!nb)
				free(buf);
			buf = nb;
			continue;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			tk_ini_report(ini, TK_DIAG_ERROR, from, "%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return TK_ERR_IO;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*text = buf;
	*len = n;
	return 0;
}

static struct ini_file *add_file(tk_ini *ini, char *path, char *identity)
{
	if (ini->nfiles == ini->fcap) {
		size_t cap = ini->fcap ? ini->fcap * 2 : 8;
		struct ini_file *v = realloc(ini->files, cap * sizeof *v);
		if (!v)
			return NULL;
		ini->files = v;
		ini->fcap = cap;
	}
	struct ini_file *f = &ini->files[ini->nfiles++];
	*f = (struct ini_file){path, identity, true, NULL};
	return f;
}

/* "a.ini -> b.ini -> a.ini": the include chain that ends at index i. */
static void report_cycle(tk_ini *ini, size_t i, const tk_ini_loc *from)
{
	char chain[1024] = "";
	size_t n = 0;
	for (size_t j = i; j < ini->nfiles && n < sizeof chain; j++)
		if (ini->files[j].loading)
			n += (size_t)snprintf(chain + n, sizeof chain - n, "%s -> ", ini->files[j].path);
	if (n < sizeof chain)
		snprintf(chain + n, sizeof chain - n, "%s", ini->files[i].path);
	tk_ini_report(ini, TK_DIAG_ERROR, from, "include cycle: %s", chain);
}

static int load_includes(tk_ini *ini, size_t first, size_t last);

static int load_resolved(tk_ini *ini, char *path, char *identity, const char *text,
			 size_t len, const tk_ini_loc *from)
{
	for (size_t i = 0; i < ini->nfiles; i++) {
		if (strcmp(ini->files[i].identity, identity) != 0)
			continue;
		if (ini->files[i].loading) {
			report_cycle(ini, i, from);
			free(path);
			free(identity);
			return TK_ERR_INVAL;
		}
		if (ini->opts.verbose)
			tk_ini_report(ini, TK_DIAG_NOTE, from, "%s: already loaded", path);
		free(path);
		free(identity);
		return 0;
	}
	if (ini->depth >= 64) {
		tk_ini_report(ini, TK_DIAG_ERROR, from, "%s: includes nested too deeply", path);
		free(path);
		free(identity);
		return TK_ERR_INVAL;
	}
	struct ini_file *f = add_file(ini, path, identity);
	if (!f) {
		free(path);
		free(identity);
		return TK_ERR_NOMEM;
	}
	size_t index = ini->nfiles - 1;
	if (ini->opts.verbose)
		tk_ini_report(ini, TK_DIAG_NOTE, from, "loading %s", path);
	size_t first;
	int rc = tk_ini_parse_text(ini, ini->files[index].path, text, len, &first);
	if (rc == 0) {
		ini->depth++;
		rc = load_includes(ini, first, ini->nsections);
		ini->depth--;
	}
	ini->files[index].loading = false;
	return rc;
}

int tk_ini_load(tk_ini *ini, const char *name, const tk_ini_loc *from)
{
	char *path;
	const tk_ini_builtin *builtin;
	int rc = resolve(ini, name, from ? from->file : NULL, &path, &builtin);
	if (rc == TK_ERR_NOTFOUND) {
		char where[1024];
		size_t n = (size_t)snprintf(where, sizeof where, "%s",
					    name[0] == '/' ? "" : " (searched: the current directory");
		if (name[0] != '/') {
			for (size_t i = 0; i < ini->opts.nsearch && n < sizeof where; i++)
				n += (size_t)snprintf(where + n, sizeof where - n, ", %s", ini->search[i]);
			if (from && n < sizeof where)
				n += (size_t)snprintf(where + n, sizeof where - n,
						      ", the including file's directory");
			for (size_t i = 0; i < ini->opts.nsystem && n < sizeof where; i++)
				n += (size_t)snprintf(where + n, sizeof where - n, ", %s", ini->system[i]);
			if (n < sizeof where)
				snprintf(where + n, sizeof where - n, "%s)",
					 ini->opts.nbuiltins ? ", the built-in files" : "");
		}
		tk_ini_report(ini, TK_DIAG_ERROR, from, "%s: configuration file not found%s", name,
			      where);
		return rc;
	}
	if (rc)
		return rc;
	if (builtin) {
		char *identity = strdup(path);
		if (!identity) {
			free(path);
			return TK_ERR_NOMEM;
		}
		return load_resolved(ini, path, identity, builtin->text, builtin->len, from);
	}
	char *identity = realpath(path, NULL);
	if (!identity)
		identity = strdup(path);
	if (!identity) {
		free(path);
		return TK_ERR_NOMEM;
	}
	char *text;
	size_t len;
	rc = read_file(ini, path, from, &text, &len);
	if (rc) {
		free(path);
		free(identity);
		return rc;
	}
	rc = load_resolved(ini, path, identity, text, len, from);
	free(text);
	return rc;
}

int tk_ini_load_text(tk_ini *ini, const char *name, const char *text, size_t len)
{
	char *path = strdup(name), *identity = malloc(strlen(name) + 8);
	if (!path || !identity) {
		free(path);
		free(identity);
		return TK_ERR_NOMEM;
	}
	snprintf(identity, strlen(name) + 8, "<text>/%s", name);
	return load_resolved(ini, path, identity, text, len, NULL);
}

/* The [includes] section among the sections just parsed: load its files. */
static int load_includes(tk_ini *ini, size_t first, size_t last)
{
	const tk_ini_section *inc = NULL;
	for (size_t i = first; i < last; i++)
		if (!strcmp(ini->sections[i]->name, "includes"))
			inc = ini->sections[i];
	if (!inc)
		return 0;
	for (size_t i = 0; i < inc->n; i++) {
		const tk_ini_entry *e = &inc->entries[i];
		if (strcmp(e->key, "include") != 0)
			continue;
		char **items;
		const char *bad;
		int n = tk_ini_split_list(e->value, &items, &bad);
		if (n == TK_ERR_INVAL) {
			tk_ini_report(ini, TK_DIAG_ERROR, &e->loc, "include: %s: invalid quoting", bad);
			free(items);
			return n;
		}
		if (n < 0)
			return n;
		/* e->loc stays valid: the section list only grows. */
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

const tk_ini_section *tk_ini_find(const tk_ini *ini, const char *name)
{
	for (size_t i = 0; i < ini->nsections; i++)
		if (!strcmp(ini->sections[i]->name, name))
			return ini->sections[i];
	return NULL;
}

size_t tk_ini_nsections(const tk_ini *ini)
{
	return ini->nsections;
}

const tk_ini_section *tk_ini_section_at(const tk_ini *ini, size_t i)
{
	return i < ini->nsections ? ini->sections[i] : NULL;
}

size_t tk_ini_nfiles(const tk_ini *ini)
{
	return ini->nfiles;
}

const char *tk_ini_file_at(const tk_ini *ini, size_t i)
{
	return i < ini->nfiles ? ini->files[i].path : NULL;
}

const char *tk_ini_section_name(const tk_ini_section *s)
{
	return s->name;
}

tk_ini_loc tk_ini_section_loc(const tk_ini_section *s)
{
	return s->loc;
}

size_t tk_ini_section_entries(const tk_ini_section *s, const tk_ini_entry **entries)
{
	*entries = s->entries;
	return s->n;
}

const tk_ini_entry *tk_ini_get(const tk_ini_section *s, const char *key, size_t n,
			       size_t *count)
{
	const tk_ini_entry *found = NULL;
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->entries[i].key, key)) {
			if (k == n)
				found = &s->entries[i];
			k++;
		}
	if (count)
		*count = k;
	return found;
}
