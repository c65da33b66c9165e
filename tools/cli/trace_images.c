/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: symbols from the images a trace names.
 *
 * Some sources know the code the trace ran: perf.data's mappings, or the
 * ELF files a decoder was given as --image=ELF@ADDR (relocated).  They
 * list them in tk_source_info.images, each with its bias; when no plain
 * --image names the symbols, the report tools name functions from those.
 */
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "tracekit/error.h"

bool tk_cli_image_is_plain(const char *image)
{
	struct stat sb;
	return !strchr(image, '@') || stat(image, &sb) == 0;
}

tk_status tk_cli_load_trace_images(tk_cli *cli)
{
	if (!cli->trace || !strcmp(cli->trace, "-"))
		return TK_ST_OK;	/* no trace, or one that can be read only once */
	const tk_source_format *fmt = cli->format ? tk_source_format_find(cli->format) : NULL;
	if (!fmt && tk_source_detect(cli->trace, NULL, &fmt) < 0)
		return TK_ST_OK;	/* opening the trace will say why */
	if (!fmt || (fmt->caps & TK_CAP_TEXT))
		return TK_ST_OK;	/* text formats name no images: not worth a read */
	/* A quiet look: the real opening reports the trace's problems. */
	tk_source_spec spec = cli->spec;
	spec.diag = NULL;
	spec.diag_ctx = NULL;
	tk_source *src;
	if (tk_source_open(cli->trace, &spec, &src) < 0)
		return TK_ST_OK;
	tk_source_info info = {.size = sizeof info};
	tk_source_get_info(src, &info);
	tk_symtab *all = NULL;
	tk_status st = TK_ST_OK;
	for (size_t i = 0; i < info.nimages && st == TK_ST_OK; i++) {
		tk_symtab *one;
		int rc = tk_symtab_load(info.images[i].path, info.images[i].bias, &one);
		if (rc < 0) {
			if (cli->verbose)
				tk_cli_warning(cli, "%s: no symbols: %s", info.images[i].path,
					       tk_strerror(rc));
			continue;
		}
		if (!all)
			all = one;
		else if ((rc = tk_symtab_merge(all, one)) < 0) {
			tk_cli_error(cli, "%s: %s", info.images[i].path, tk_strerror(rc));
			st = TK_ST_FAIL;
		}
	}
	tk_source_free(src);
	if (st != TK_ST_OK) {
		tk_symtab_free(all);
		return st;
	}
	if (all && cli->demangle) {
		int rc = tk_symtab_demangle(all);
		if (rc < 0)
			tk_cli_warning(cli, "--demangle: %s", tk_strerror(rc));
	}
	cli->symtab = all;
	return TK_ST_OK;
}
