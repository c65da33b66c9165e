/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: POWER disassembly through GNU libopcodes (binutils).
 *
 * libopcodes is set up as `objdump -m powerpc:common64 -M power10 -EB`
 * does: machine bfd_mach_ppc64, options "power10", big-endian words.
 * Branch and PC-relative targets go through an address printer, so the
 * caller decides how they look (the qtdis listing prints "%016lx ").
 *
 * libopcodes' decoder walks opcode tables for every call; a listing of
 * millions of records repeats a few thousand words, so the texts that do
 * not depend on the instruction's address (no target was printed) are kept
 * in a direct-mapped cache keyed by the word(s).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/ppc.h"

#ifdef TK_HAVE_LIBOPCODES
/* bfd.h insists on a config.h of the including package. */
#define PACKAGE "tracekit"
#define PACKAGE_VERSION "0"
#include <dis-asm.h>

#include "core/lazylib.h"

#ifndef TK_OPCODES_SONAME
#define TK_OPCODES_SONAME "libopcodes-multiarch.so"
#endif

/* libopcodes (and the libbfd it needs), loaded the first time a POWER
 * instruction is disassembled (core/lazylib.h): the other commands do not
 * pay for relocating its tables. */
static struct {
	__typeof__(init_disassemble_info) *init_info;
	__typeof__(disassemble_init_for_target) *init_target;
	__typeof__(disassembler) *disassembler;
	__typeof__(disassemble_free_target) *free_target;
} op;
static const char *const op_names[] = {"init_disassemble_info", "disassemble_init_for_target",
				       "disassembler", "disassemble_free_target"};
static tk_lazylib op_lib = TK_LAZYLIB_INIT(TK_OPCODES_SONAME, op_names, &op);
#endif

#define CACHE_SLOTS 16384u	/* a power of two */
#define CACHE_TEXT 54

struct cache_slot {
	uint64_t key;		/* words[0] << 32 | words[1]; prefix pairs only have bit 26.. set */
	uint8_t nwords;		/* 0: empty */
	uint8_t len;
	char text[CACHE_TEXT];
};

struct tk_ppc_disasm {
	tk_ppc_addr_fn addr_fn;
	void *addr_ctx;
	struct cache_slot *cache;
	/* the text being built */
	char *out;
	size_t out_size, out_len;
	bool used_addr;		/* the text printed an address */
#ifdef TK_HAVE_LIBOPCODES
	struct disassemble_info info;
	disassembler_ftype print;
	bool loaded;		/* libopcodes is, and info was set up */
#endif
};

static size_t default_addr(void *ctx, uint64_t addr, char *buf, size_t size)
{
	(void)ctx;
	int n = snprintf(buf, size, "%016" PRIx64 " ", addr);
	return n < 0 ? 0 : ((size_t)n < size ? (size_t)n : size - 1);
}

static void append(tk_ppc_disasm *d, const char *s, size_t n)
{
	if (d->out_len + 1 >= d->out_size)
		return;
	size_t room = d->out_size - 1 - d->out_len;
	if (n > room)
		n = room;
	memcpy(d->out + d->out_len, s, n);
	d->out_len += n;
	d->out[d->out_len] = 0;
}

bool tk_ppc_disasm_available(void)
{
#ifdef TK_HAVE_LIBOPCODES
	return true;
#else
	return false;
#endif
}

#ifdef TK_HAVE_LIBOPCODES
static void append_vf(tk_ppc_disasm *d, const char *fmt, va_list ap)
{
	char tmp[256];
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	if (n > 0)
		append(d, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static int op_printf(void *stream, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	append_vf(stream, fmt, ap);
	va_end(ap);
	return 0;
}

static int op_styled_printf(void *stream, enum disassembler_style style, const char *fmt, ...)
{
	(void)style;
	va_list ap;
	va_start(ap, fmt);
	append_vf(stream, fmt, ap);
	va_end(ap);
	return 0;
}

static void op_print_address(bfd_vma addr, struct disassemble_info *info)
{
	tk_ppc_disasm *d = info->stream;
	char tmp[256];
	size_t n = d->addr_fn(d->addr_ctx, (uint64_t)addr, tmp, sizeof tmp);
	append(d, tmp, n);
	d->used_addr = true;
}
#endif

int tk_ppc_disasm_new(tk_ppc_addr_fn addr_fn, void *addr_ctx, tk_ppc_disasm **out)
{
	*out = NULL;
	tk_ppc_disasm *d = calloc(1, sizeof *d);
	if (!d)
		return TK_ERR_NOMEM;
	d->cache = calloc(CACHE_SLOTS, sizeof *d->cache);
	if (!d->cache) {
		free(d);
		return TK_ERR_NOMEM;
	}
	d->addr_fn = addr_fn ? addr_fn : default_addr;
	d->addr_ctx = addr_ctx;
#ifdef TK_HAVE_LIBOPCODES
	if (!tk_lazylib_load(&op_lib)) {
		tk_ppc_disasm_free(d);
		return TK_ERR_UNSUPPORTED;
	}
	d->loaded = true;
	op.init_info(&d->info, d, op_printf, op_styled_printf);
	d->info.arch = bfd_arch_powerpc;
	d->info.mach = bfd_mach_ppc64;
	d->info.endian = BFD_ENDIAN_BIG;
	d->info.endian_code = BFD_ENDIAN_BIG;
	d->info.disassembler_options = "power10";
	d->info.print_address_func = op_print_address;
	op.init_target(&d->info);
	d->print = op.disassembler(bfd_arch_powerpc, true, bfd_mach_ppc64, NULL);
	if (!d->print) {
		tk_ppc_disasm_free(d);
		return TK_ERR_UNSUPPORTED;
	}
#endif
	*out = d;
	return 0;
}

void tk_ppc_disasm_free(tk_ppc_disasm *d)
{
	if (!d)
		return;
#ifdef TK_HAVE_LIBOPCODES
	if (d->loaded)
		op.free_target(&d->info);
#endif
	free(d->cache);
	free(d);
}

/* Disassemble without the cache: into d->out. */
static void run(tk_ppc_disasm *d, uint64_t ea, const uint32_t *words, unsigned nwords)
{
#ifdef TK_HAVE_LIBOPCODES
	unsigned char bytes[8];
	for (unsigned i = 0; i < nwords; i++) {
		bytes[4 * i] = (unsigned char)(words[i] >> 24);
		bytes[4 * i + 1] = (unsigned char)(words[i] >> 16);
		bytes[4 * i + 2] = (unsigned char)(words[i] >> 8);
		bytes[4 * i + 3] = (unsigned char)words[i];
	}
	d->info.buffer = bytes;
	d->info.buffer_length = 4 * nwords;
	d->info.buffer_vma = ea;
	/* As qtdis does: until the buffer is consumed (a bad prefixed pair
	 * comes out as two .long). */
	unsigned pos = 0;
	while (pos < 4 * nwords) {
		int n = d->print(ea + pos, &d->info);
		if (n <= 0)
			break;
		pos += (unsigned)n;
	}
	d->info.buffer = NULL;
#else
	char tmp[32];
	int n = nwords == 2 ? snprintf(tmp, sizeof tmp, "0x%x 0x%x", words[0], words[1])
			    : snprintf(tmp, sizeof tmp, "0x%x", words[0]);
	(void)ea;
	append(d, tmp, (size_t)n);
#endif
}

size_t tk_ppc_disasm_insn(tk_ppc_disasm *d, uint64_t ea, const uint32_t *words,
			  unsigned nwords, char *buf, size_t size)
{
	if (!size)
		return 0;
	nwords = nwords == 2 ? 2 : 1;
	uint64_t key = (uint64_t)words[0] << 32 | (nwords == 2 ? words[1] : 0);
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	struct cache_slot *slot = &d->cache[(h >> 40) & (CACHE_SLOTS - 1)];
	if (slot->nwords == nwords && slot->key == key) {
		size_t n = slot->len < size ? slot->len : size - 1;
		memcpy(buf, slot->text, n);
		buf[n] = 0;
		return n;
	}
	d->out = buf;
	d->out_size = size;
	d->out_len = 0;
	buf[0] = 0;
	d->used_addr = false;
	run(d, ea, words, nwords);
	/* A PC-relative prefixed instruction (R = 1) shows its target as a
	 * comment printed without the address callback: not cacheable. */
	bool pcrel = nwords == 2 && ((words[0] >> 20) & 1);
	if (!d->used_addr && !pcrel && d->out_len < CACHE_TEXT && d->out_len + 1 < size) {
		slot->key = key;
		slot->nwords = (uint8_t)nwords;
		slot->len = (uint8_t)d->out_len;
		memcpy(slot->text, buf, d->out_len);
	}
	return d->out_len;
}
