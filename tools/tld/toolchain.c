/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tld: tool names, RTEMS BSP pkg-config files, link inputs. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "tld/tld.h"

char *tld_tool_name(const char *given, const char *exec_prefix, const char *tool)
{
	char *s = NULL;
	if (given && *given)
		return strdup(given);
	if (!exec_prefix || !*exec_prefix)
		return strdup(tool);
	size_t n = strlen(exec_prefix);
	if (exec_prefix[n - 1] == '-') {
		if (asprintf(&s, "%s%s", exec_prefix, tool) < 0)
			s = NULL;
	} else if (asprintf(&s, "%s-rtems%d-%s", exec_prefix, TK_TLD_RTEMS_VERSION, tool) < 0) {
		s = NULL;
	}
	return s;
}

/* ---- pkg-config files ------------------------------------------------------ */

struct pc_var {
	char *name, *value;
};

struct pc {
	struct pc_var *vars;	/* variables (name=value) and fields (Name: value) */
	size_t n;
};

static void pc_free(struct pc *pc)
{
	for (size_t i = 0; i < pc->n; i++) {
		free(pc->vars[i].name);
		free(pc->vars[i].value);
	}
	free(pc->vars);
}

static const char *pc_get(const struct pc *pc, const char *name, bool field)
{
	for (size_t i = 0; i < pc->n; i++) {
		const char *n = pc->vars[i].name;
		bool is_field = n[0] == ':';
		if (is_field == field && (field ? !strcasecmp(n + 1, name) : !strcmp(n, name)))
			return pc->vars[i].value;
	}
	return NULL;
}

/* ${var} references expanded (nested up to 16 deep). */
static char *pc_expand(const struct pc *pc, const char *s, int depth)
{
	size_t cap = strlen(s) + 64, n = 0;
	char *out = malloc(cap);
	while (out && *s) {
		const char *v = NULL;
		char *ev = NULL;
		size_t skip = 1;
		if (s[0] == '$' && s[1] == '{' && depth < 16) {
			const char *e = strchr(s + 2, '}');
			if (e) {
				char *name = strndup(s + 2, (size_t)(e - s - 2));
				v = name ? pc_get(pc, name, false) : NULL;
				free(name);
				ev = v ? pc_expand(pc, v, depth + 1) : strdup("");
				skip = (size_t)(e - s + 1);
			}
		}
		const char *add = ev ? ev : s;
		size_t len = ev ? strlen(ev) : 1;
		if (n + len + 1 > cap) {
			cap = (n + len + 1) * 2;
			char *no = realloc(out, cap);
			if (!no) {
				free(out);
				free(ev);
				return NULL;
			}
			out = no;
		}
		memcpy(out + n, add, len);
		n += len;
		free(ev);
		s += skip;
	}
	if (out)
		out[n] = '\0';
	return out;
}

static int pc_read(FILE *fp, struct pc *pc)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, fp)) >= 0) {
		while (len > 0 && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		size_t k = strcspn(p, ":=");
		if (!p[k])
			continue;
		bool field = p[k] == ':';
		char *v = p + k + 1;
		while (isspace((unsigned char)*v))
			v++;
		while (k > 0 && isspace((unsigned char)p[k - 1]))
			k--;
		struct pc_var *nv = realloc(pc->vars, (pc->n + 1) * sizeof *nv);
		if (!nv)
			break;
		pc->vars = nv;
		char *name = malloc(k + 2);
		if (!name)
			break;
		snprintf(name, k + 2, "%s%.*s", field ? ":" : "", (int)k, p);
		pc->vars[pc->n].name = name;
		pc->vars[pc->n].value = strdup(v);
		if (!pc->vars[pc->n++].value)
			break;
	}
	free(line);
	return ferror(fp) ? -1 : 0;
}

int tld_load_bsp(const char *prog, const char *rtems_path, const char *arch_bsp,
		 tld_argv *cflags, char **arch)
{
	struct stat st;
	if (stat(rtems_path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: error: RTEMS path %s: invalid RTEMS path (%s)\n", prog,
			rtems_path, errno ? strerror(errno) : "not a directory");
		return -1;
	}
	const char *slash = strchr(arch_bsp, '/');
	if (!slash || slash == arch_bsp || !slash[1] || strchr(slash + 1, '/')) {
		fprintf(stderr, "%s: error: RTEMS BSP '%s': expected ARCH/BSP (e.g. arm/xilinx_zynq_zc706)\n",
			prog, arch_bsp);
		return -1;
	}
	char *name = NULL, *path = NULL;
	if (asprintf(&name, "%.*s-rtems%d-%s", (int)(slash - arch_bsp), arch_bsp,
		     TK_TLD_RTEMS_VERSION, slash + 1) < 0 ||
	    asprintf(&path, "%s/lib/pkgconfig/%s.pc", rtems_path, name) < 0) {
		free(name);
		return -1;
	}
	int rc = -1;
	struct pc pc = {0};
	FILE *fp = fopen(path, "r");
	if (!fp) {
		fprintf(stderr, "%s: error: RTEMS BSP not found: %s: %s\n", prog, path, strerror(errno));
		goto out;
	}
	if (pc_read(fp, &pc)) {
		fprintf(stderr, "%s: error: %s: read error\n", prog, path);
		goto out;
	}
	const char *pcname = pc_get(&pc, "Name", true);
	char *expanded = pcname ? pc_expand(&pc, pcname, 0) : NULL;
	if (!pcname) {
		fprintf(stderr, "%s: error: %s: RTEMS BSP: no Name in the pkg-config file\n", prog, path);
		goto out;
	}
	if (!expanded || strcmp(expanded, name) != 0) {
		fprintf(stderr, "%s: error: %s: RTEMS BSP %s does not match the Name in the pkg-config file (%s)\n",
			prog, path, name, expanded ? expanded : pcname);
		free(expanded);
		goto out;
	}
	free(expanded);
	const char *cf = pc_get(&pc, "CFLAGS", true);
	char *flags = cf ? pc_expand(&pc, cf, 0) : NULL;
	const char *err = NULL;
	if (flags && tld_cflags_add(cflags, flags, &err)) {
		fprintf(stderr, "%s: error: %s: CFLAGS: %s\n", prog, path, err);
		free(flags);
		goto out;
	}
	free(flags);
	*arch = strndup(arch_bsp, (size_t)(slash - arch_bsp));
	rc = *arch ? 0 : -1;
out:
	if (fp)
		fclose(fp);
	pc_free(&pc);
	free(name);
	free(path);
	return rc;
}

/* ---- link inputs ------------------------------------------------------------ */

/* Driver options whose argument is the next word (not an input file). */
static bool link_option_takes_argument(const char *w)
{
	static const char *const opts[] = {
		"-o", "-T", "-e", "-u", "-L", "-l", "-x", "-z", "-Xlinker", "-Xassembler",
		"-Xpreprocessor", "-include", "-imacros", "-I", "-isystem", "-MF", "-MT", "-MQ",
		"-D", "-U", "-B", "--sysroot", "-specs", NULL,
	};
	for (const char *const *o = opts; *o; o++)
		if (!strcmp(w, *o))
			return true;
	return false;
}

static bool is_object(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return false;
	char head[8] = {0};
	size_t n = fread(head, 1, sizeof head, fp);
	fclose(fp);
	return (n >= 4 && !memcmp(head, "\177ELF", 4)) || (n == 8 && !memcmp(head, "!<arch>\n", 8));
}

int tld_link_inputs(const tld_argv *link, tld_argv *inputs)
{
	for (size_t i = 0; i < link->n; i++) {
		const char *w = link->v[i];
		if (w[0] == '-') {
			if (link_option_takes_argument(w))
				i++;
			continue;
		}
		if (is_object(w) && tld_argv_add(inputs, w))
			return -1;
	}
	return 0;
}
