/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: source lines for the command front ends (see srclines.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srclines.h"
#include "tracekit/error.h"

struct slot {
	uint64_t addr;
	bool used;
	const char *text;	/* "FILE:LINE", NULL: no line */
	const char *file;	/* the full name */
	unsigned line;
};

struct tk_srclines {
	tk_dwarf *d;
	uint64_t load_offset;
	bool basenames;
	const char *prog;
	bool quiet;
	struct slot *slots;
	size_t cap, used;
	char **strs;		/* every string made, to free */
	size_t nstrs, capstrs;
};

static void diag(void *ctx, const tk_diag *dg)
{
	tk_srclines *s = ctx;
	if (s->quiet)
		return;
	fprintf(stderr, "%s: %s: %s: %s\n", s->prog, dg->file ? dg->file : "?",
		dg->level == TK_DIAG_ERROR ? "error" : "warning", dg->msg);
}

static int open_image(const char *image, uint64_t load_offset, const char *prog, bool quiet,
		      tk_srclines **out, char *msg, size_t size)
{
	*out = NULL;
	tk_srclines *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(msg, size, "out of memory");
		return -1;
	}
	s->load_offset = load_offset;
	s->prog = prog;
	s->quiet = quiet;
	tk_dwarf_opts o = {sizeof o, diag, s};
	int rc = tk_dwarf_open(image, &o, &s->d);
	if (rc < 0) {
		if (rc == TK_ERR_OPEN)
			snprintf(msg, size, "%s: cannot open image: %s", image, strerror(errno));
		else if (rc == TK_ERR_ELF)
			snprintf(msg, size, "%s: not an ELF file", image);
		else
			snprintf(msg, size, "%s: %s", image, tk_strerror(rc));
		free(s);
		return -1;
	}
	*out = s;
	return 0;
}

int tk_srclines_open(const tk_cli *cli, tk_srclines **out)
{
	char msg[600];
	*out = NULL;
	if (!cli->image) {
		tk_cli_error(cli, "--source-lines needs --image");
		return -1;
	}
	if (open_image(cli->image, cli->load_offset, cli->prog, false, out, msg, sizeof msg)) {
		tk_cli_error(cli, "%s", msg);
		return -1;
	}
	return 0;
}

int tk_srclines_open_quiet(const char *image, uint64_t load_offset, tk_srclines **out,
			   char *msg, size_t size)
{
	return open_image(image, load_offset, "tracekit", true, out, msg, size);
}

void tk_srclines_free(tk_srclines *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nstrs; i++)
		free(s->strs[i]);
	free(s->strs);
	free(s->slots);
	tk_dwarf_free(s->d);
	free(s);
}

void tk_srclines_basenames(tk_srclines *s, bool on)
{
	if (s->basenames != on) {
		s->basenames = on;
		if (s->slots)
			memset(s->slots, 0, s->cap * sizeof *s->slots);
		s->used = 0;
	}
}

tk_dwarf *tk_srclines_dwarf(tk_srclines *s)
{
	return s->d;
}

uint64_t tk_srclines_load_offset(const tk_srclines *s)
{
	return s->load_offset;
}

static char *keep(tk_srclines *s, char *str)
{
	if (!str)
		return NULL;
	if (s->nstrs == s->capstrs) {
		size_t cap = s->capstrs ? 2 * s->capstrs : 256;
		char **ns = realloc(s->strs, cap * sizeof *ns);
		if (!ns) {
			free(str);
			return NULL;
		}
		s->strs = ns;
		s->capstrs = cap;
	}
	s->strs[s->nstrs++] = str;
	return str;
}

static size_t hash(uint64_t addr, size_t cap)
{
	return (size_t)(addr * 0x9e3779b97f4a7c15ull >> 24) & (cap - 1);
}

static struct slot *lookup(tk_srclines *s, uint64_t addr)
{
	if (s->used * 2 >= s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 4096;
		struct slot *ns = calloc(ncap, sizeof *ns);
		if (!ns)
			return NULL;
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->slots[i].used)
				continue;
			size_t h = hash(s->slots[i].addr, ncap);
			while (ns[h].used)
				h = (h + 1) & (ncap - 1);
			ns[h] = s->slots[i];
		}
		free(s->slots);
		s->slots = ns;
		s->cap = ncap;
	}
	size_t h = hash(addr, s->cap);
	while (s->slots[h].used) {
		if (s->slots[h].addr == addr)
			return &s->slots[h];
		h = (h + 1) & (s->cap - 1);
	}
	struct slot *sl = &s->slots[h];
	sl->used = true;
	sl->addr = addr;
	s->used++;
	const char *file;
	unsigned line;
	if (tk_dwarf_srcline(s->d, addr - s->load_offset, &file, &line)) {
		/* file lives in the image, as long as s does. */
		sl->file = file;
		sl->line = line;
		const char *shown = file;
		if (s->basenames) {
			const char *slash = strrchr(file, '/');
			if (slash)
				shown = slash + 1;
		}
		size_t n = strlen(shown);
		char *t = malloc(n + 16);
		if (t)
			snprintf(t, n + 16, "%s:%u", shown, line);
		sl->text = keep(s, t);
	}
	return sl;
}

const char *tk_srclines_get(tk_srclines *s, uint64_t addr)
{
	struct slot *sl = lookup(s, addr);
	return sl ? sl->text : NULL;
}

const char *tk_srclines_file(tk_srclines *s, uint64_t addr, unsigned *line)
{
	struct slot *sl = lookup(s, addr);
	*line = sl ? sl->line : 0;
	return sl ? sl->file : NULL;
}

void tk_srclines_put(FILE *fp, tk_srclines *s, const char *prefix, uint64_t addr)
{
	const char *text = s ? tk_srclines_get(s, addr) : NULL;
	if (text) {
		fputs(prefix, fp);
		fputs(text, fp);
	}
}
