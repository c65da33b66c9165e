/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: a shared library loaded on first use (dlopen), so that the
 * commands that never need it do not pay for loading it.  capstone and GNU
 * libopcodes relocate about 8 MB of tables at every start of a program
 * linked with them; only Intel PT and POWER disassembly use them. */
#ifndef TRACEKIT_CORE_LAZYLIB_H
#define TRACEKIT_CORE_LAZYLIB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct tk_lazylib {
	const char *soname;	/* the name given to dlopen */
	const char *const *names;	/* the symbols, in the order of syms */
	size_t count;
	void **syms;		/* filled on the first tk_lazylib_load */
	pthread_once_t once;
	bool ok;
} tk_lazylib;

#define TK_LAZYLIB_INIT(soname, names, syms) \
	{(soname), (names), sizeof(names) / sizeof((names)[0]), (void **)(syms), PTHREAD_ONCE_INIT, false}

/* Load the library and look up every symbol, once (thread-safe); false if
 * the library or one of its symbols is missing. */
bool tk_lazylib_load(tk_lazylib *l);

#endif
