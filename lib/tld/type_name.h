/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: a DWARF type spelled as a C type name. */
#ifndef TRACEKIT_TLD_TYPE_NAME_H
#define TRACEKIT_TLD_TYPE_NAME_H

#include <elfutils/libdw.h>

/*
 * The C type name of a DWARF type DIE ("const struct vec3 *", "size_t",
 * "long long int", "void (*)(int, char *)", "char *const *").  Returns a
 * malloc'ed string, or NULL with *err set: TK_ERR_UNSUPPORTED (a type with
 * no C spelling: an anonymous struct not behind a typedef, C++ classes and
 * references, nesting deeper than 64), TK_ERR_NOMEM.
 */
char *tk_tld_type_name(Dwarf_Die *type, int *err);

#endif
