/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The options and trace opening shared by the Intel PT commands. */
#include <stdlib.h>
#include <string.h>

#include "pt_cli.h"

/* "FILE<sep>ADDR": split at the last sep whose right side is a number. */
static bool split_addr(char *arg, int sep, uint64_t *addr)
{
	char *p = strrchr(arg, sep);
	if (!p || p == arg || tk_pt_parse_number(p + 1, addr) < 0)
		return false;
	*p = 0;
	return true;
}

static int add_image(tk_cli *cli, tk_pt_cli *p, const char *opt, const char *arg, bool raw,
		     int sep)
{
	if (p->nimages == (int)(sizeof p->images / sizeof p->images[0])) {
		tk_cli_error(cli, "%s: too many images", opt);
		return -1;
	}
	char *copy = strdup(arg);	/* freed by tk_pt_cli_open */
	if (!copy) {
		tk_cli_error(cli, "out of memory");
		return -1;
	}
	tk_pt_cli_image *im = &p->images[p->nimages];
	uint64_t addr = 0;
	bool at = split_addr(copy, sep, &addr);
	if (!at && raw && sep == '@')
		at = split_addr(copy, ':', &addr);	/* libipt's FILE:BASE */
	if (raw && !at) {
		tk_cli_error(cli, "%s=%s: give the load address as FILE@ADDR", opt, arg);
		free(copy);
		return -1;
	}
	im->path = copy;
	im->raw = raw;
	im->at = at;
	im->addr = addr;
	p->nimages++;
	return 0;
}

int tk_pt_cli_option(tk_cli *cli, tk_pt_cli *p, int val, const char *arg)
{
	switch (val) {
	case PTO_PT:
		if (p->trace) {
			tk_cli_error(cli, "--pt given twice");
			return -1;
		}
		p->trace = arg;
		return 0;
	case PTO_IMAGE:
		return add_image(cli, p, "--image", arg, false, '@');
	case PTO_ELF:
		return add_image(cli, p, "--elf", arg, false, ':');
	case PTO_RAW:
		return add_image(cli, p, "--raw", arg, true, '@');
	case PTO_CPU: {
		tk_pt_cpu c;
		if (strcmp(arg, "auto") && strcmp(arg, "none") && tk_pt_parse_cpu_text(arg, &c) < 0) {
			tk_cli_error(cli, "--cpu=%s: want FAMILY/MODEL[/STEPPING], auto or none", arg);
			return -1;
		}
		p->cpu = arg;
		return 0;
	}
	case PTO_FORMAT:
		if (!strcmp(arg, "pt") || !strcmp(arg, "raw"))
			p->format = TK_PT_FORMAT_RAW;
		else if (!strcmp(arg, "perf"))
			p->format = TK_PT_FORMAT_PERF;
		else {
			tk_cli_error(cli, "--format=%s: this command reads pt or perf", arg);
			return -1;
		}
		return 0;
	case PTO_THREADS: {
		uint64_t n;
		if (tk_pt_parse_number(arg, &n) < 0 || n < 1 || n > 1024) {
			tk_cli_error(cli, "--threads=%s: want a number from 1 to 1024", arg);
			return -1;
		}
		p->threads = (unsigned)n;
		return 0;
	}
	case PTO_PIECE:
		if (tk_pt_parse_number(arg, &p->piece_bytes) < 0 || p->piece_bytes < 1) {
			tk_cli_error(cli, "--piece-size=%s: want a number of bytes", arg);
			return -1;
		}
		return 0;
	}
	return 1;
}

int tk_pt_cli_trace(tk_cli *cli, tk_pt_cli *p)
{
	if (!p->trace) {
		if (cli->nargs < 1) {
			tk_cli_error(cli, "no trace file given (TRACE or --pt=FILE)");
			return -1;
		}
		p->trace = cli->args[0];
	} else if (cli->nargs > 0) {
		tk_cli_error(cli, "unexpected argument '%s': the trace is given by --pt", cli->args[0]);
		return -1;
	}
	return 0;
}

void tk_pt_cli_diag(void *ctx, const tk_diag *d)
{
	tk_cli *cli = ctx;
	if (d->level != TK_DIAG_ERROR)
		cli->warnings++;
	const char *lvl = d->level == TK_DIAG_ERROR ? "error" :
			  d->level == TK_DIAG_WARNING ? "warning" : "note";
	fflush(stdout);
	fprintf(stderr, "%s: %s: %s\n", d->file ? d->file : cli->prog, lvl, d->msg);
}

int tk_pt_cli_open(tk_cli *cli, const tk_pt_cli *p, tk_pt **out)
{
	tk_pt_opts o;
	tk_pt_opts_init(&o);
	o.format = p->format;
	o.cpu = p->cpu;
	o.diag = tk_pt_cli_diag;
	o.diag_ctx = cli;
	int rc = tk_pt_open(p->trace, &o, out);
	for (int i = 0; i < p->nimages && rc == 0; i++) {
		const tk_pt_cli_image *im = &p->images[i];
		rc = im->raw ? tk_pt_add_raw(*out, im->path, im->addr)
			     : tk_pt_add_elf(*out, im->path, im->at, im->addr);
		if (rc < 0) {
			tk_cli_error(cli, "%s", tk_pt_error_detail(*out));
			tk_pt_free(*out);
			*out = NULL;
		}
	}
	/* The library keeps its own copies of the paths. */
	for (int i = 0; i < p->nimages; i++)
		free((char *)p->images[i].path);
	return rc < 0 ? TK_EXIT_FAIL : 0;	/* a diagnostic said why */
}
