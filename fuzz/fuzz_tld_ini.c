/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: libFuzzer target for the trace linker's INI parser and
 * configuration.
 *
 * The input is the top-level file; includes resolve only to two built-in
 * files (a generator and a function set), never to the disk.  A
 * configuration that loads is turned into the wrapper C file.  Beyond "no
 * crash": every error and warning names a file, and a configuration that loads
 * has a sorted, repeat-free trace list whose every entry has a signature.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/tld.h"

static const char gen_ini[] =
	"[gen]\nheader = \"#include <stdio.h>\"\nlock-acquire = \" A;\"\nlock-release = \" R;\"\n"
	"entry-trace = \"E(@FUNC_NAME@, &@FUNC_LABEL@, @FUNC_INDEX@);\"\n"
	"arg-trace = \"P(@ARG_NUM@, @ARG_TYPE@, @ARG_SIZE@, &@ARG_LABEL@);\"\n"
	"ret-trace = \"Q(@RET_TYPE@, @RET_SIZE@, &@RET_LABEL@);\"\ncode = <<<CODE\nint x;\nCODE\n"
	"[default-generator]\ngenerator = gen\n";
static const char set_ini[] =
	"[set]\nheaders = h\nsignatures = sigs\n[h]\nheader = '#include \"a.h\"'\n"
	"[sigs]\nf = int, int\ng = void, void\nh = char*, const char*, void (*)(int)\n"
	"[all]\ntrace = f, g, h\n";
static const tk_ini_builtin builtins[] = {
	{"gen.ini", gen_ini, sizeof gen_ini - 1},
	{"set.ini", set_ini, sizeof set_ini - 1},
};

static void diag(void *ctx, const tk_diag *d)
{
	(void)ctx;
	if (!d->msg || !*d->msg || (d->level != TK_DIAG_NOTE && !d->file))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	tk_ini_opts o = {.size = sizeof o, .builtins = builtins, .nbuiltins = 2, .diag = diag,
			 .builtins_only = true, .verbose = true};
	tk_ini *ini;
	if (tk_ini_new(&o, &ini))
		return 0;
	tk_tld_config *cfg = NULL;
	if (tk_ini_load_text(ini, "fuzz.ini", (const char *)data, len) == 0 &&
	    tk_tld_config_read(ini, "fuzz.ini", &cfg) == 0) {
		for (size_t i = 0; i < cfg->ntraces; i++) {
			if (!cfg->traces[i].sig)
				abort();
			if (i && strcmp(cfg->traces[i - 1].name, cfg->traces[i].name) >= 0)
				abort();
		}
		char *buf = NULL;
		size_t n = 0;
		FILE *fp = open_memstream(&buf, &n);
		if (fp) {
			int rc = tk_tld_generate(cfg, fp);
			if (rc && rc != TK_ERR_INVAL)
				abort();
			fclose(fp);
			free(buf);
		}
	}
	tk_tld_config_free(cfg);
	tk_ini_free(ini);
	return 0;
}
