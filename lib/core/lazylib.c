/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: shared libraries loaded on first use (lazylib.h). */
#include <dlfcn.h>

#include "lazylib.h"

/* pthread_once gives no argument: the library being loaded. */
static _Thread_local tk_lazylib *loading;

static void load_once(void)
{
	tk_lazylib *l = loading;
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return;
	for (size_t i = 0; i < l->count; i++)
		if (!(l->syms[i] = dlsym(h, l->names[i]))) {
			dlclose(h);
			return;
		}
	l->ok = true;	/* the handle stays open for the process's life */
}

bool tk_lazylib_load(tk_lazylib *l)
{
	loading = l;
	pthread_once(&l->once, load_once);
	return l->ok;
}
