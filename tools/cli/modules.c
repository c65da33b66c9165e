/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: loading the modules that hold the commands needing large
 * libraries (cmake/TkTools.cmake): tk-NAME.so is looked for in
 * $TRACEKIT_MODULES, then in tracekit-modules/ beside the binary (a build
 * tree), then in ../lib/tracekit/ from it (an installation). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "json/json_api.h"
#include "modules.h"

static const char *dlerr = "";

static void *try_open(const char *dir, const char *name)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%s/tk-%s.so", dir, name) >= (int)sizeof path)
		return NULL;
	if (access(path, R_OK) != 0)
		return NULL;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		dlerr = dlerror();
	return h;
}

void *tk_cli_module(const char *name)
{
	static struct {
		const char *name;
		void *h;
	} loaded[8];
	for (int i = 0; i < 8 && loaded[i].name; i++)
		if (!strcmp(loaded[i].name, name))
			return loaded[i].h;
	void *h = NULL;
	const char *env = getenv("TRACEKIT_MODULES");
	if (env && *env)
		h = try_open(env, name);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (!h && n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash && (size_t)(slash - exe) + 32 < sizeof exe) {
			/* the binary's directory, then the module directories */
			strcpy(slash, "/tracekit-modules");
			h = try_open(exe, name);
			if (!h) {
				strcpy(slash, "/../lib/tracekit");
				h = try_open(exe, name);
			}
		}
	}
	for (int i = 0; h && i < 8; i++)
		if (!loaded[i].name) {
			loaded[i].name = name;
			loaded[i].h = h;
			break;
		}
	return h;
}

const char *tk_cli_module_error(void)
{
	return *dlerr ? dlerr : "not found beside the program nor in its lib/tracekit";
}

const tkj_api *tkj_load(tk_cli *cli)
{
	void *h = tk_cli_module("json");
	const tkj_api *api = h ? dlsym(h, "tkj_api_table") : NULL;
	if (!api)
		tk_cli_error(cli, "cannot write JSON: module tk-json.so: %s", tk_cli_module_error());
	return api;
}
