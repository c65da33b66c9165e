/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: ELF symbol tables, read with libelf.
 *
 * Loads STT_FUNC and STT_OBJECT symbols (and untyped global symbols with a
 * section, as some hand-written assembly has), sorted by address.  Arm Thumb
 * function addresses have bit 0 set in the ELF: it is cleared here and kept
 * as a flag.  POWER ELFv2 functions that set up a TOC pointer have a second,
 * local entry point a few instructions in (st_other bits 5-7), where direct
 * calls from code sharing the TOC land; it is kept so that an address
 * lookup there finds the function.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracekit/error.h"
#include "tracekit/symbols.h"

#ifdef TK_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

struct tk_symtab {
	tk_symbol *syms;	/* sorted by address */
	uint32_t count;
	tk_symbol **by_name;	/* sorted by name */
	char *names;		/* all names, NUL-separated */
	char **more_names;	/* the name buffers of merged tables */
	size_t nmore;
	char **demangled;	/* per symbol (address order), or NULL */
	bool big_endian;
	unsigned machine;
};

static int cmp_addr(const void *a, const void *b)
{
	const tk_symbol *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* functions first, then larger symbols first, then by name */
	if (x->kind != y->kind)
		return x->kind == TK_SYM_FUNC ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_name(const void *a, const void *b)
{
	const tk_symbol *const *x = a, *const *y = b;
	return strcmp((*x)->linkage_name, (*y)->linkage_name);
}

/* Whether a symbol is worth keeping: named functions and objects, not
 * mapping symbols ($a, $t, $d, $x) nor section/file symbols. */
static bool wanted(Elf *elf, const GElf_Sym *s, const char *name, tk_sym_kind *kind)
{
	int type = GELF_ST_TYPE(s->st_info);
	if (!name || !*name || name[0] == '$')
		return false;
	if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC) {
		*kind = TK_SYM_FUNC;
		return true;
	}
	/* A TLS symbol's value is an offset in each thread's block, not an
	 * address: it would name whatever lives at 0 + offset. */
	if (type == STT_OBJECT) {
		*kind = TK_SYM_OBJECT;
		return true;
	}
	if (type == STT_NOTYPE) {
		/* Labels in hand-written assembly: global ones, and local ones
		 * in code sections (they name the routines of such programs). */
		if (GELF_ST_BIND(s->st_info) != STB_LOCAL) {
			*kind = TK_SYM_FUNC;
			return true;
		}
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
		if (scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR)) {
			*kind = TK_SYM_FUNC;
			return true;
		}
	}
	return false;
}

/* Offset of the ELFv2 local entry point: st_other bits 5-7 hold log2 of
 * it (values 0 and 1: none; 7 is reserved). */
static uint8_t ppc64_local_entry(unsigned char other)
{
	unsigned v = (other >> 5) & 7;
	return v >= 2 && v <= 6 ? (uint8_t)(1u << v) : 0;
}

static int load(Elf *elf, uint64_t load_offset, tk_symtab *st)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh))
		return TK_ERR_ELF;
	st->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	st->machine = eh.e_machine;

	/* Prefer .symtab; fall back to .dynsym. */
	Elf_Scn *scn = NULL, *chosen = NULL;
	GElf_Shdr sh, chosen_sh = {0};
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !chosen)) {
			chosen = scn;
			chosen_sh = sh;
		}
	}
	if (!chosen)
		return TK_ERR_ELF;
	Elf_Data *data = elf_getdata(chosen, NULL);
	if (!data || chosen_sh.sh_entsize == 0)
		return TK_ERR_ELF;
	size_t n = chosen_sh.sh_size / chosen_sh.sh_entsize;

	size_t names_len = 0, count = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		tk_sym_kind kind;
		if (!gelf_getsym(data, (int)i, &s))
			continue;
		const char *name = elf_strptr(elf, chosen_sh.sh_link, s.st_name);
		if (!wanted(elf, &s, name, &kind))
			continue;
		names_len += strlen(name) + 1;
		count++;
	}
	st->syms = calloc(count ? count : 1, sizeof *st->syms);
	st->by_name = calloc(count ? count : 1, sizeof *st->by_name);
	st->names = malloc(names_len ? names_len : 1);
	if (!st->syms || !st->by_name || !st->names)
		return TK_ERR_NOMEM;

	char *np = st->names;
	bool arm = eh.e_machine == EM_ARM;
	bool ppc64 = eh.e_machine == EM_PPC64;
	for (size_t i = 0; i < n && st->count < count; i++) {
		GElf_Sym s;
		tk_sym_kind kind;
		if (!gelf_getsym(data, (int)i, &s))
			continue;
		const char *name = elf_strptr(elf, chosen_sh.sh_link, s.st_name);
		if (!wanted(elf, &s, name, &kind))
			continue;
		size_t len = strlen(name) + 1;
		memcpy(np, name, len);
		tk_symbol *sym = &st->syms[st->count++];
		sym->name = sym->linkage_name = np;
		np += len;
		sym->kind = kind;
		sym->size = s.st_size;
		sym->thumb = arm && kind == TK_SYM_FUNC && (s.st_value & 1);
		sym->addr = (sym->thumb ? s.st_value & ~(GElf_Addr)1 : s.st_value) + load_offset;
		if (ppc64 && kind == TK_SYM_FUNC)
			sym->local_entry = ppc64_local_entry(s.st_other);
	}
	qsort(st->syms, st->count, sizeof *st->syms, cmp_addr);
	for (uint32_t i = 0; i < st->count; i++)
		st->by_name[i] = &st->syms[i];
	qsort(st->by_name, st->count, sizeof *st->by_name, cmp_name);
	return 0;
}

int tk_symtab_load(const char *path, uint64_t load_offset, tk_symtab **out)
{
	*out = NULL;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return TK_ERR_OPEN;
	struct stat sb;
	if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		close(fd);
		return TK_ERR_ISDIR;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		close(fd);
		return TK_ERR_ELF;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return TK_ERR_ELF;
	}
	tk_symtab *st = calloc(1, sizeof *st);
	int rc = st ? load(elf, load_offset, st) : TK_ERR_NOMEM;
	elf_end(elf);
	close(fd);
	if (rc < 0) {
		tk_symtab_free(st);
		return rc;
	}
	*out = st;
	return 0;
}

void tk_symtab_free(tk_symtab *st)
{
	if (!st)
		return;
	free(st->syms);
	free(st->by_name);
	free(st->names);
	for (size_t i = 0; i < st->nmore; i++)
		free(st->more_names[i]);
	free(st->more_names);
	if (st->demangled)
		for (uint32_t i = 0; i < st->count; i++)
			free(st->demangled[i]);
	free(st->demangled);
	free(st);
}

/* Index of the first symbol with address > addr. */
static uint32_t upper_bound(const tk_symtab *st, uint64_t addr)
{
	uint32_t lo = 0, hi = st->count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (st->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const tk_symbol *tk_symtab_at(const tk_symtab *st, uint64_t addr)
{
	if (!st)
		return NULL;
	uint32_t i = upper_bound(st, addr);
	/* syms[i-1] is the last with address <= addr; walk back over equals
	 * to the first (functions sort first among equal addresses). */
	const tk_symbol *best = NULL;
	while (i > 0 && st->syms[i - 1].addr == addr)
		best = &st->syms[--i];
	if (best || st->machine != EM_PPC64)
		return best;
	/* A POWER local entry point: at most 64 bytes after the symbol. */
	for (; i > 0 && addr - st->syms[i - 1].addr <= 64; i--) {
		const tk_symbol *s = &st->syms[i - 1];
		if (s->local_entry && s->addr + s->local_entry == addr)
			return s;
	}
	return NULL;
}

const tk_symbol *tk_symtab_containing(const tk_symtab *st, uint64_t addr)
{
	if (!st)
		return NULL;
	const tk_symbol *exact = tk_symtab_at(st, addr);
	if (exact)
		return exact;
	uint32_t i = upper_bound(st, addr);
	/* The innermost sized symbol covering addr; else a size-0 one just
	 * below (labels in hand-written code). */
	for (uint32_t k = i; k > 0; k--) {
		const tk_symbol *s = &st->syms[k - 1];
		if (s->size && addr - s->addr < s->size)
			return s;
		if (!s->size && k == i)
			return s;
		if (addr - s->addr > (1u << 20))
			break;	/* no symbol is that big in practice */
	}
	return NULL;
}

const tk_symbol *tk_symtab_find(const tk_symtab *st, const char *name)
{
	if (!st || !name)
		return NULL;
	uint32_t lo = 0, hi = st->count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(st->by_name[mid]->linkage_name, name);
		if (c == 0)
			return st->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Demangled names: looked up only on user input, so a scan will do. */
	if (st->demangled)
		for (uint32_t i = 0; i < st->count; i++)
			if (st->demangled[i] && !strcmp(st->demangled[i], name))
				return &st->syms[i];
	return NULL;
}

int tk_symtab_demangle(tk_symtab *st)
{
#ifdef TK_HAVE_LIBIBERTY
	if (!st || st->demangled)
		return 0;
	st->demangled = calloc(st->count ? st->count : 1, sizeof *st->demangled);
	if (!st->demangled)
		return TK_ERR_NOMEM;
	for (uint32_t i = 0; i < st->count; i++) {
		tk_symbol *s = &st->syms[i];
		if (strncmp(s->linkage_name, "_Z", 2) != 0)
			continue;
		char *d = cplus_demangle(s->linkage_name, DMGL_PARAMS | DMGL_ANSI);
		if (d) {
			st->demangled[i] = d;
			s->name = d;
		}
	}
	return 0;
#else
	(void)st;
	return TK_ERR_UNSUPPORTED;
#endif
}

const tk_symbol *tk_symtab_symbols(const tk_symtab *st, uint32_t *count)
{
	*count = st ? st->count : 0;
	return st ? st->syms : NULL;
}

bool tk_symtab_big_endian(const tk_symtab *st)
{
	return st && st->big_endian;
}

unsigned tk_symtab_machine(const tk_symtab *st)
{
	return st ? st->machine : 0;
}

int tk_symtab_merge(tk_symtab *into, tk_symtab *from)
{
	if (!from)
		return 0;
	if (into->demangled || from->demangled) {
		tk_symtab_free(from);
		return TK_ERR_INVAL;	/* merge first, then demangle */
	}
	uint32_t n = into->count + from->count;
	tk_symbol *syms = realloc(into->syms, (n ? n : 1) * sizeof *syms);
	tk_symbol **by_name = syms ? realloc(into->by_name, (n ? n : 1) * sizeof *by_name) : NULL;
	char **more = by_name ? realloc(into->more_names,
					(into->nmore + from->nmore + 1) * sizeof *more) : NULL;
	if (syms)
		into->syms = syms;
	if (by_name)
		into->by_name = by_name;
	if (!more) {
		tk_symtab_free(from);
		return TK_ERR_NOMEM;
	}
	into->more_names = more;
	memcpy(syms + into->count, from->syms, from->count * sizeof *syms);
	into->count = n;
	more[into->nmore++] = from->names;
	for (size_t i = 0; i < from->nmore; i++)
		more[into->nmore++] = from->more_names[i];
	from->names = NULL;
	from->nmore = 0;
	tk_symtab_free(from);
	qsort(into->syms, into->count, sizeof *into->syms, cmp_addr);
	for (uint32_t i = 0; i < into->count; i++)
		into->by_name[i] = &into->syms[i];
	qsort(into->by_name, into->count, sizeof *into->by_name, cmp_name);
	return 0;
}

int tk_elf_load_base(const char *path, uint64_t *base)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return TK_ERR_OPEN;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		close(fd);
		return TK_ERR_ELF;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t n = 0;
	int rc = TK_ERR_ELF;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &n) == 0) {
		uint64_t lowest = UINT64_MAX;
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < lowest)
				lowest = ph.p_vaddr;
		}
		if (lowest != UINT64_MAX) {
			*base = lowest;
			rc = 0;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}
