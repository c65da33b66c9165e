/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The expected trace, written by the traced functions themselves: each
 * prints, in the printf generator's format, its own (real) address and
 * name on entry, the bytes of each parameter it received, and on return
 * the bytes of its result.  The lines go to a memory buffer written to
 * oracle.txt by oracle_flush(), so they never mix with the generator's.
 *
 * Addresses are shown without the Arm Thumb bit, as the dump reader
 * shows them.
 *
 * T(INI, DWARF) is the type as the INI signature writes it, or as the
 * trace linker spells it from DWARF (built with -DORACLE_DWARF). */
#ifndef TLD_TEST_ORACLE_H
#define TLD_TEST_ORACLE_H

#include <stddef.h>

#ifdef ORACLE_DWARF
#define T(ini, dwarf) dwarf
#else
#define T(ini, dwarf) ini
#endif

void oracle_enter(const char *name, const void *addr);
void oracle_arg(int num, const char *type, const void *value, size_t size);
void oracle_exit(const char *name, const void *addr);
void oracle_ret(const char *type, const void *value, size_t size);
void oracle_flush(void);

/* Set to stop recording (threads calling at once). */
extern int oracle_off;

#define ORACLE_ENTER(fn) oracle_enter(#fn, (const void *)&fn)
#define ORACLE_EXIT(fn) oracle_exit(#fn, (const void *)&fn)
#define ORACLE_ARG(n, ini, dwarf, v) oracle_arg(n, T(ini, dwarf), &(v), sizeof(v))
#define ORACLE_RET(ini, dwarf, v) oracle_ret(T(ini, dwarf), &(v), sizeof(v))

#endif
