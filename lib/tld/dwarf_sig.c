/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: signatures of traced functions from DWARF (libdw/libdwfl).
 *
 * The link inputs (objects, archives, executables) are reported to libdwfl
 * as offline modules, which applies the relocations of relocatable
 * objects.  For each global function wanted, the first definition found
 * (or else a declaration) gives the return and parameter types, spelled
 * in C by a small declarator printer (type_name.c).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "tld/config_impl.h"
#include "tld/type_name.h"
#include "tracekit/error.h"

/* No separate debug files: only what the inputs carry (and never a
 * network look-up). */
static int no_debuginfo(Dwfl_Module *mod, void **user, const char *modname, Dwarf_Addr base,
			const char *file, const char *debuglink, GElf_Word crc, char **path)
{
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct wanted {
	tk_tld_sig *sig;
	bool found, definition;
	int error;		/* a tk_err found while spelling */
	char why[256];
	char module[256];
};

struct search {
	tk_ini *ini;
	struct wanted *w;
	size_t n;
};

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

static bool die_flag(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	bool v = false;
	return dwarf_attr_integrate(die, name, &a) && dwarf_formflag(&a, &v) == 0 && v;
}

/* The type DIE of die, or false for void (no DW_AT_type). */
static bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, type);
}

static void set_types(struct wanted *w, char *ret, char **args, size_t nargs)
{
	tk_tld_sig *s = w->sig;
	free(s->ret);
	for (size_t i = 0; i < s->nargs; i++)
		free(s->args[i]);
	free(s->args);
	s->ret = ret;
	s->args = args;
	s->nargs = nargs;
}

/* Read the signature of subprogram die into w. */
static void read_sig(Dwarf_Die *die, struct wanted *w, bool definition, const char *module)
{
	char *ret = NULL, **args = NULL;
	size_t nargs = 0;
	int err = 0;
	Dwarf_Die t, child;
	ret = die_type(die, &t) ? tk_tld_type_name(&t, &err) : strdup("void");
	if (!ret) {
		err = err ? err : TK_ERR_NOMEM;
		goto fail;
	}
	if (dwarf_child(die, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			if (tag == DW_TAG_unspecified_parameters) {
				err = TK_ERR_UNSUPPORTED;
				snprintf(w->why, sizeof w->why,
					 "is variadic (...): variadic functions cannot be wrapped");
				goto fail;
			}
			if (tag != DW_TAG_formal_parameter || die_flag(&child, DW_AT_artificial))
				continue;
			char **v = realloc(args, (nargs + 1) * sizeof *v);
			if (!v) {
				err = TK_ERR_NOMEM;
				goto fail;
			}
			args = v;
			args[nargs] = die_type(&child, &t) ? tk_tld_type_name(&t, &err) : NULL;
			if (!args[nargs]) {
				err = err ? err : TK_ERR_UNSUPPORTED;
				goto fail;
			}
			nargs++;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	set_types(w, ret, args, nargs);
	w->found = true;
	w->definition = definition;
	w->error = 0;
	snprintf(w->module, sizeof w->module, "%s", module);
	return;
fail:
	free(ret);
	for (size_t i = 0; i < nargs; i++)
		free(args[i]);
	free(args);
	w->found = true;
	w->definition = definition;
	w->error = err;
	if (!w->why[0])
		snprintf(w->why, sizeof w->why, "%s",
			 err == TK_ERR_NOMEM ? "out of memory"
					     : "has a parameter or return type with no C spelling");
	snprintf(w->module, sizeof w->module, "%s", module);
}

static void scan_cu(Dwarf_Die *cu, struct search *s, const char *module)
{
	Dwarf_Die die;
	if (dwarf_child(cu, &die) != 0)
		return;
	do {
		if (dwarf_tag(&die) != DW_TAG_subprogram || !die_flag(&die, DW_AT_external))
			continue;
		const char *name = die_name(&die);
		if (!name)
			continue;
		bool definition = !die_flag(&die, DW_AT_declaration);
		for (size_t i = 0; i < s->n; i++) {
			struct wanted *w = &s->w[i];
			if (strcmp(w->sig->name, name) != 0)
				continue;
			if (w->definition || (w->found && !definition))
				break;	/* a definition was read; or keep the first declaration */
			w->why[0] = '\0';
			read_sig(&die, w, definition, module);
			break;
		}
	} while (dwarf_siblingof(&die, &die) == 0);
}

static int each_module(Dwfl_Module *mod, void **user, const char *name, Dwarf_Addr base,
		       void *arg)
{
	struct search *s = arg;
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	if (!dw)
		return DWARF_CB_OK;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu))
			scan_cu(&cu, s, name);
		off = next;
	}
	return DWARF_CB_OK;
}

bool tk_tld_needs_dwarf(const tk_tld_config *cfg)
{
	for (size_t i = 0; i < cfg->ntraces; i++)
		if (cfg->traces[i].sig && cfg->traces[i].sig->from_dwarf)
			return true;
	return false;
}

int tk_tld_dwarf_signatures(tk_ini *ini, tk_tld_config *cfg, const char *const *inputs,
			    size_t ninputs)
{
	struct search s = {ini, NULL, 0};
	s.w = calloc(cfg->ntraces ? cfg->ntraces : 1, sizeof *s.w);
	if (!s.w)
		return TK_ERR_NOMEM;
	for (size_t i = 0; i < cfg->ntraces; i++) {
		tk_tld_sig *sig = (tk_tld_sig *)cfg->traces[i].sig;
		if (sig && sig->from_dwarf)
			s.w[s.n++].sig = sig;
	}
	if (!s.n) {
		free(s.w);
		return 0;
	}
	int rc = 0;
	Dwfl *dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl) {
		free(s.w);
		return TK_ERR_NOMEM;
	}
	for (size_t i = 0; i < ninputs; i++)
		if (!dwfl_report_offline(dwfl, inputs[i], inputs[i], -1)) {
			tk_ini_report(ini, TK_DIAG_ERROR, NULL, "%s: cannot read for DWARF: %s",
				      inputs[i], dwfl_errmsg(-1));
			rc = TK_ERR_ELF;
		}
	if (!rc) {
		dwfl_report_end(dwfl, NULL, NULL);
		dwfl_getmodules(dwfl, each_module, &s, 0);
		for (size_t i = 0; i < s.n; i++) {
			struct wanted *w = &s.w[i];
			if (!w->found) {
				tk_ini_report(ini, TK_DIAG_ERROR, &w->sig->loc,
					      "signature %s: no DWARF describes it in the link inputs "
					      "(%zu file%s; compile them with -g, or write the "
					      "signature)", w->sig->name, ninputs,
					      ninputs == 1 ? "" : "s");
				rc = rc ? rc : TK_ERR_NOTFOUND;
			} else if (w->error) {
				tk_ini_report(ini, TK_DIAG_ERROR, &w->sig->loc,
					      "signature %s (DWARF of %s): %s", w->sig->name,
					      w->module, w->why);
				rc = rc ? rc : w->error;
			}
		}
	}
	dwfl_end(dwfl);
	free(s.w);
	return rc;
}
