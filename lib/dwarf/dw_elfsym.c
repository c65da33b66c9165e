/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: ELF symbols the way binutils' addr2line uses them.
 *
 * When DWARF names no function for an address (code without debugging
 * information, or a C++ function known only by DW_AT_name), binutils takes
 * the ELF symbol "containing" it (_bfd_elf_find_function):
 *  - the symbol table is .symtab, or .dynsym if .symtab has no symbol;
 *  - candidates are symbols of the address's section that may be
 *    functions: not sections, files, objects or TLS; on Arm and AArch64
 *    only STT_FUNC and STT_NOTYPE, and not mapping symbols ($a, $t, $d,
 *    $x...); nowhere a local, hidden, untyped, zero-size symbol (those are
 *    annotations); a size of 0 counts as 1;
 *  - the candidate starting nearest below the address wins, whatever its
 *    size; of several starting there, the largest, and of equally large
 *    ones the first in the symbol table;
 *  - the file name given with it is that of the STT_FILE before it, for a
 *    local symbol, or for a global one if no STT_FILE follows a symbol in
 *    the table before it;
 *  - the last answer is cached: an address of the same section inside the
 *    last symbol's [start, start + size) gets the same answer without a new
 *    search, even where a smaller symbol starts inside it.  The cache makes
 *    answers depend on earlier queries, so it is reproduced too.
 */
#include <stdlib.h>
#include <string.h>

#include "dw_impl.h"
#include "tracekit/error.h"

#ifndef STT_ARM_TFUNC
#define STT_ARM_TFUNC 13
#endif

/* A symbol as the candidate scan sees it (kept only while loading). */
typedef struct rawsym {
	uint64_t value, size;
	const char *name;
	uint32_t sec;
	uint8_t type, bind, vis;
} rawsym;

static bool arm_special(const char *n, unsigned machine)
{
	if (n[0] != '$')
		return false;
	if (machine == EM_AARCH64) {
		if (n[1] != 'x' && n[1] != 'd' && n[1] != 'm' && n[1] != 'f' && n[1] != 'p')
			return false;
	} else if (!(n[1] >= 'a' && n[1] <= 'z')) {
		return false;
	}
	return n[2] == 0 || n[2] == '.';
}

/* binutils' maybe_function_sym for the image's machine. */
static bool may_be_function(const tk_dwarf *d, const rawsym *s)
{
	if (s->type == STT_SECTION || s->type == STT_FILE || s->type == STT_OBJECT ||
	    s->type == STT_COMMON || s->type == STT_TLS || s->sec == 0 || s->sec >= d->nsecs)
		return false;
	bool annobin = s->size == 0 && s->bind == STB_LOCAL && s->type == STT_NOTYPE &&
		       s->vis == STV_HIDDEN;
	if (annobin)
		return false;
	if (d->machine == EM_ARM || d->machine == EM_AARCH64) {
		if (s->type != STT_NOTYPE && s->type != STT_FUNC)
			return false;
		if (s->bind == STB_LOCAL && arm_special(s->name, d->machine))
			return false;
	}
	return true;
}

static int cmp_fsym(const void *a, const void *b)
{
	const dw_fsym *x = a, *y = b;
	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_asym(const void *a, const void *b)
{
	const dw_asym *x = a, *y = b;
	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_funcsym(const void *a, const void *b)
{
	const dw_funcsym *x = a, *y = b;
	return x->value < y->value ? -1 : x->value > y->value;
}

static Elf_Scn *symbol_table(tk_dwarf *d, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr dsh;
	while ((scn = elf_nextscn(d->elf, scn)) != NULL) {
		GElf_Shdr h;
		if (!gelf_getshdr(scn, &h) || !h.sh_entsize)
			continue;
		if (h.sh_type == SHT_SYMTAB && h.sh_size / h.sh_entsize > 1) {
			*sh = h;
			return scn;
		}
		if (h.sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = h;
		}
	}
	if (dyn)
		*sh = dsh;
	return dyn;
}

int tk_dw_load_symbols(tk_dwarf *d)
{
	GElf_Shdr sh;
	Elf_Scn *scn = symbol_table(d, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data)
		return 0;
	size_t n = sh.sh_size / sh.sh_entsize;
	if (n > data->d_size / sh.sh_entsize)
		n = data->d_size / sh.sh_entsize;
	d->fsyms = calloc(n ? n : 1, sizeof *d->fsyms);
	d->funcsyms = calloc(n ? n : 1, sizeof *d->funcsyms);
	d->asyms = calloc(n ? n : 1, sizeof *d->asyms);
	if (!d->fsyms || !d->funcsyms || !d->asyms)
		return TK_ERR_NOMEM;
	d->have_syms = n > 1;
	enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL } state = NOTHING_SEEN;
	const char *file = NULL;
	bool arm = d->machine == EM_ARM;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym es;
		if (!gelf_getsym(data, (int)i, &es))
			continue;
		const char *name = elf_strptr(d->elf, sh.sh_link, es.st_name);
		rawsym s = {es.st_value, es.st_size, name ? name : "", es.st_shndx,
			    (uint8_t)GELF_ST_TYPE(es.st_info), (uint8_t)GELF_ST_BIND(es.st_info),
			    (uint8_t)GELF_ST_VISIBILITY(es.st_other)};
		if (s.sec >= SHN_LORESERVE)
			s.sec = 0;
		if (arm && s.type == STT_ARM_TFUNC)
			s.type = STT_FUNC;
		if (arm && (s.type == STT_FUNC || s.type == STT_GNU_IFUNC))
			s.value &= ~(uint64_t)1;
		if (s.type == STT_FUNC && s.size && s.sec) {
			dw_funcsym *f = &d->funcsyms[d->nfuncsyms++];
			f->value = s.value;
			f->size = s.size;
			f->thumb = arm && (es.st_value & 1);
		}
		if (s.sec)
			d->asyms[d->nasyms++] = (dw_asym){s.value, s.name, s.sec, (uint32_t)i,
							  s.bind == STB_GLOBAL, s.type == STT_SECTION};
		if (s.type == STT_FILE) {
			file = s.name;
			if (state == SYMBOL_SEEN)
				state = FILE_AFTER_SYMBOL;
			continue;
		}
		if (state == NOTHING_SEEN)
			state = SYMBOL_SEEN;
		if (!may_be_function(d, &s))
			continue;
		dw_fsym *f = &d->fsyms[d->nfsyms++];
		f->value = s.value;
		f->off = s.value - d->secs[s.sec].addr;
		f->size = s.size ? s.size : 1;
		f->name = s.name;
		f->file = file && (s.bind == STB_LOCAL || state != FILE_AFTER_SYMBOL) ? file : NULL;
		f->sec = s.sec;
		f->local = s.bind == STB_LOCAL;
		f->order = (uint32_t)i;
	}
	qsort(d->fsyms, d->nfsyms, sizeof *d->fsyms, cmp_fsym);
	qsort(d->funcsyms, d->nfuncsyms, sizeof *d->funcsyms, cmp_funcsym);
	qsort(d->asyms, d->nasyms, sizeof *d->asyms, cmp_asym);
	d->cache_sec = DW_NONE;
	return 0;
}

const dw_fsym *tk_dw_find_function(tk_dwarf *d, uint32_t sec, uint64_t addr)
{
	if (!d->have_syms)
		return NULL;
	/* binutils works in offsets into the section: a symbol "of" the
	 * section but below its start is never a candidate. */
	uint64_t off = addr - d->secs[sec].addr;
	if (d->cache_sym && d->cache_sec == sec && off >= d->cache_sym->off &&
	    off - d->cache_sym->off < d->cache_sym->size)
		return d->cache_sym;
	d->cache_sec = sec;
	d->cache_sym = NULL;
	/* The last candidates of section sec starting at or below off. */
	size_t lo = 0, hi = d->nfsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const dw_fsym *f = &d->fsyms[mid];
		if (f->sec < sec || (f->sec == sec && f->off <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || d->fsyms[lo - 1].sec != sec)
		return NULL;
	size_t first = lo - 1;
	uint64_t start = d->fsyms[first].off;
	while (first > 0 && d->fsyms[first - 1].sec == sec && d->fsyms[first - 1].off == start)
		first--;
	/* Of those (in symbol table order), the first of the largest. */
	const dw_fsym *best = &d->fsyms[first];
	for (size_t i = first + 1; i < lo; i++)
		if (d->fsyms[i].size > best->size)
			best = &d->fsyms[i];
	d->cache_sym = best;
	return best;
}

int tk_dwarf_func_sym(const tk_dwarf *d, uint64_t addr, uint64_t *start, bool *thumb)
{
	size_t lo = 0, hi = d->nfuncsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->funcsyms[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const dw_funcsym *f = &d->funcsyms[i];
		if (addr - f->value < f->size) {
			*start = f->value;
			*thumb = f->thumb;
			return 1;
		}
		if (addr - f->value > (1u << 24))
			break;
	}
	return 0;
}

const dw_asym *tk_dw_exact_symbol(const tk_dwarf *d, uint32_t sec, uint64_t addr)
{
	size_t lo = 0, hi = d->nasyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const dw_asym *a = &d->asyms[mid];
		if (a->sec < sec || (a->sec == sec && a->value < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	const dw_asym *pick = NULL;
	for (; lo < d->nasyms && d->asyms[lo].sec == sec && d->asyms[lo].value == addr; lo++) {
		if (d->asyms[lo].section)
			continue;
		pick = &d->asyms[lo];
		if (pick->global)
			break;
	}
	return pick;
}
