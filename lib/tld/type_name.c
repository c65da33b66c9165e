/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: spelling DWARF types in C.
 *
 * C declarators read inside out, so the printer carries the declarator
 * built so far ("*", "*const", "(*)(int)") and wraps it as it walks from
 * the outer type (a pointer) to the inner one (what it points to): a
 * pointer puts '*' before it (in parentheses when it points to a function
 * or an array), an array or a function puts its suffix after it, a
 * qualifier on a pointer goes after the '*', on anything else before the
 * type name, and a named type (base type, typedef, struct/union/enum tag)
 * ends the walk.
 */
#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tld/type_name.h"
#include "tracekit/error.h"

/* A malloc'ed printf. */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static const char *name_of(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

/* The tag of the type after cv-qualifiers (0 for void). */
static int core_tag(Dwarf_Die *die)
{
	Dwarf_Die d = *die, n;
	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(&d);
		if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return tag;
		if (!type_of(&d, &n))
			return 0;
		d = n;
	}
	return 0;
}

static char *spell(Dwarf_Die *type, const char *decl, int depth, int *err);

/* The parameter list of a subroutine type: "(int, char *)", "(void)". */
static char *params(Dwarf_Die *fn, int depth, int *err)
{
	char *list = strdup("");
	Dwarf_Die child;
	bool any = false;
	if (list && dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			char *p = NULL;
			if (tag == DW_TAG_unspecified_parameters) {
				p = strdup("...");
			} else if (tag == DW_TAG_formal_parameter) {
				Dwarf_Die t;
				p = type_of(&child, &t) ? spell(&t, "", depth + 1, err) : strdup("void");
			} else {
				continue;
			}
			char *n = p ? fmt("%s%s%s", list, any ? ", " : "", p) : NULL;
			free(p);
			free(list);
			list = n;
			any = true;
		} while (list && dwarf_siblingof(&child, &child) == 0);
	}
	if (!list)
		return NULL;
	char *r = fmt("(%s)", any ? list : "void");
	free(list);
	return r;
}

/* "name" or "name decl". */
static char *named(const char *prefix, const char *name, const char *decl)
{
	return fmt("%s%s%s%s", prefix, name, *decl ? " " : "", decl);
}

static char *spell(Dwarf_Die *type, const char *decl, int depth, int *err)
{
	if (depth > 64) {
		*err = TK_ERR_UNSUPPORTED;
		return NULL;
	}
	if (!type)
		return named("", "void", decl);
	int tag = dwarf_tag(type);
	Dwarf_Die inner, *in = type_of(type, &inner) ? &inner : NULL;
	const char *name = name_of(type);
	char *r = NULL, *d = NULL;
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
	case DW_TAG_unspecified_type:
		if (!name)
			break;
		if (!strncmp(name, "complex ", 8)) {	/* GCC's "complex float" */
			char *n = fmt("_Complex %s", name + 8);
			r = n ? named("", n, decl) : NULL;
			free(n);
			return r ? r : (*err = TK_ERR_NOMEM, NULL);
		}
		r = named("", name, decl);
		break;
	case DW_TAG_structure_type:
		r = name ? named("struct ", name, decl) : NULL;
		break;
	case DW_TAG_union_type:
		r = name ? named("union ", name, decl) : NULL;
		break;
	case DW_TAG_enumeration_type:
		r = name ? named("enum ", name, decl) : NULL;
		break;
	case DW_TAG_pointer_type: {
		int it = in ? core_tag(in) : 0;
		bool paren = it == DW_TAG_subroutine_type || it == DW_TAG_array_type;
		d = fmt(paren ? "(*%s)" : "*%s", decl);
		r = d ? spell(in, d, depth + 1, err) : NULL;
		break;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type: {
		/* A run of qualifiers, written in C's usual order. */
		static const struct {
			int tag;
			const char *word;
		} quals[] = {{DW_TAG_const_type, "const"}, {DW_TAG_volatile_type, "volatile"},
			     {DW_TAG_restrict_type, "restrict"}, {DW_TAG_atomic_type, "_Atomic"}};
		unsigned bits = 0;
		Dwarf_Die cur = *type, next;
		Dwarf_Die *q = &cur;
		for (int guard = 0; q && guard < 16; guard++) {
			int t = dwarf_tag(q);
			unsigned k;
			for (k = 0; k < 4 && quals[k].tag != t; k++)
				;
			if (k == 4)
				break;
			bits |= 1u << k;
			if (type_of(q, &next)) {
				cur = next;
			} else {
				q = NULL;
			}
		}
		char words[64] = "";
		for (unsigned k = 0; k < 4; k++)
			if (bits & (1u << k)) {
				strcat(words, *words ? " " : "");
				strcat(words, quals[k].word);
			}
		if (q && dwarf_tag(q) == DW_TAG_pointer_type) {
			d = fmt("%s%s%s", words, *decl ? " " : "", decl);
			r = d ? spell(q, d, depth + 1, err) : NULL;
		} else {
			char *t = spell(q, decl, depth + 1, err);
			r = t ? fmt("%s %s", words, t) : NULL;
			free(t);
		}
		break;
	}
	case DW_TAG_array_type: {
		char dims[256] = "";
		size_t n = 0;
		Dwarf_Die sub;
		if (dwarf_child(type, &sub) == 0) {
			do {
				if (dwarf_tag(&sub) != DW_TAG_subrange_type)
					continue;
				Dwarf_Attribute a;
				Dwarf_Word v;
				if (dwarf_attr(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &v) == 0)
					n += (size_t)snprintf(dims + n, sizeof dims - n, "[%llu]",
							      (unsigned long long)v);
				else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) &&
					 dwarf_formudata(&a, &v) == 0)
					n += (size_t)snprintf(dims + n, sizeof dims - n, "[%llu]",
							      (unsigned long long)v + 1);
				else
					n += (size_t)snprintf(dims + n, sizeof dims - n, "[]");
				if (n >= sizeof dims)
					break;
			} while (dwarf_siblingof(&sub, &sub) == 0);
		}
		if (n >= sizeof dims)
			break;
		d = fmt("%s%s", decl, n ? dims : "[]");
		r = d ? spell(in, d, depth + 1, err) : NULL;
		break;
	}
	case DW_TAG_subroutine_type: {
		char *p = params(type, depth, err);
		d = p ? fmt("%s%s", decl, p) : NULL;
		free(p);
		r = d ? spell(in, d, depth + 1, err) : NULL;
		break;
	}
	default:
		break;	/* C++ references, classes, pointers to members... */
	}
	free(d);
	if (!r && !*err)
		*err = TK_ERR_UNSUPPORTED;
	return r;
}

char *tk_tld_type_name(Dwarf_Die *type, int *err)
{
	*err = 0;
	return spell(type, "", 0, err);
}
