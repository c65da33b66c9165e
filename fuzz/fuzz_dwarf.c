/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: libFuzzer target for the DWARF module and the Thumb prologue
 * reader: the input is an ELF image, loaded through a file (the loader
 * takes a path), then asked every question the tools ask: addr2line with
 * inline chains (names demangled, every string read), source lines, CFI
 * rows, function symbols, code bytes and Thumb prologues, at addresses
 * taken from the image's own symbols and from the input's last bytes.
 * Beyond "no crash": answers must be well-formed (counts, strings). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backtrace/bt_impl.h"
#include "tracekit/dwarf.h"
#include "tracekit/symbols.h"

static char path[4096];
static volatile unsigned sink;

static void touch(const char *s)
{
	if (s)
		for (; *s; s++)
			sink += (unsigned char)*s;
}

static void cleanup(void)
{
	unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/tk-fuzz-dwarf-%d.elf", tmp && *tmp ? tmp : "/tmp",
		 (int)getpid());
	atexit(cleanup);
	return 0;
}

static void ask(tk_dwarf *d, uint64_t addr)
{
	tk_dwarf_result r;
	if (tk_dwarf_addr2line(d, addr, NULL, &r) == 0) {
		if (r.found && (!r.count || !r.locs))
			abort();
		for (unsigned i = 0; i < r.count; i++) {
			touch(r.locs[i].function);
			touch(r.locs[i].file);
			char *dm = tk_dwarf_demangle(r.locs[i].function);
			touch(dm);
			free(dm);
		}
	}
	tk_dwarf_addr2line(d, addr & 0xffff, ".text", &r);
	const char *file;
	unsigned line;
	if (tk_dwarf_srcline(d, addr, &file, &line))
		touch(file);
	tk_dwarf_cfi cfi;
	if (tk_dwarf_cfi_at(d, addr, &cfi) == 0 && cfi.start > cfi.end)
		abort();
	uint64_t start;
	bool thumb;
	uint8_t code[16];
	tk_dwarf_read(d, addr, code, sizeof code);
	if (tk_dwarf_func_sym(d, addr, &start, &thumb)) {
		int64_t fp_off, lr_off;
		bool lr_saved;
		tk_bt_thumb_prologue(d, start, &fp_off, &lr_saved, &lr_off);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return 0;
	fwrite(data, 1, size, fp);
	fclose(fp);
	tk_dwarf *d;
	if (tk_dwarf_open(path, NULL, &d) != 0)
		return 0;
	tk_symtab *st = NULL;
	if (tk_symtab_load(path, 0, &st) == 0) {
		uint32_t n;
		const tk_symbol *syms = tk_symtab_symbols(st, &n);
		for (uint32_t i = 0; i < n && i < 64; i++) {
			ask(d, syms[i].addr);
			ask(d, syms[i].addr + syms[i].size / 2);
		}
		tk_symtab_free(st);
	}
	/* Addresses from the input's last bytes. */
	for (size_t i = 0; i + 4 <= size && i < 64; i += 4) {
		const uint8_t *p = data + size - 4 - i;
		ask(d, (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24);
	}
	tk_dwarf_free(d);
	return 0;
}
