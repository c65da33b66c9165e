/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit front ends: qtdis listing lines (see qtdis_format.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "commands/qtdis_format.h"

static const char hexdig[] = "0123456789abcdef";

typedef struct sbuf {
	char *p, *end;	/* end: the last usable byte (room for the NUL) */
} sbuf;

static void put(sbuf *b, const char *s, size_t n)
{
	if ((size_t)(b->end - b->p) < n)
		n = (size_t)(b->end - b->p);
	memcpy(b->p, s, n);
	b->p += n;
}

static void puts_(sbuf *b, const char *s) { put(b, s, strlen(s)); }

static void hex(sbuf *b, uint64_t v, int digits)
{
	char t[16];
	for (int i = digits - 1; i >= 0; i--) {
		t[i] = hexdig[v & 15];
		v >>= 4;
	}
	put(b, t, (size_t)digits);
}

static void fmt(sbuf *b, const char *f, ...) __attribute__((format(printf, 2, 3)));

static void fmt(sbuf *b, const char *f, ...)
{
	char t[128];
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(t, sizeof t, f, ap);
	va_end(ap);
	if (n > 0)
		put(b, t, (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

/* "%016lx " or "%016lx <sym+0x%lx> " */
static void address(sbuf *b, const tk_symtab *st, uint64_t addr)
{
	hex(b, addr, 16);
	const tk_symbol *s = st ? tk_symtab_containing(st, addr) : NULL;
	if (s)
		fmt(b, " <%s+0x%" PRIx64 ">", s->name, addr - s->addr);
	put(b, " ", 1);
}

static size_t print_target(void *ctx, uint64_t addr, char *buf, size_t size)
{
	qtdis_format *f = ctx;
	sbuf b = {buf, buf + size - 1};
	if (f->targets == QTDIS_ADDR_DUMMY) {
		puts_(&b, "_dummy_");
		hex(&b, addr, 16);
		put(&b, " ", 1);
	} else {
		address(&b, f->targets == QTDIS_ADDR_SYMBOL ? f->symtab : NULL, addr);
	}
	*b.p = 0;
	return (size_t)(b.p - buf);
}

int qtdis_format_init(qtdis_format *f, const tk_symtab *symtab, qtdis_addr_style targets)
{
	memset(f, 0, sizeof *f);
	f->symtab = symtab;
	f->targets = targets;
	return tk_ppc_disasm_new(print_target, f, &f->dis);
}

void qtdis_format_fini(qtdis_format *f)
{
	tk_ppc_disasm_free(f->dis);
	f->dis = NULL;
}

size_t qtdis_disasm(qtdis_format *f, uint64_t ea, const uint32_t *words, unsigned nwords,
		    char *out, size_t size)
{
	return tk_ppc_disasm_insn(f->dis, ea, words, nwords, out, size);
}

/* "GUEST L1 %016lx HOST L1 0x%016lx ... GUEST HOST REAL 0x%016lx " */
static void walk_text(sbuf *b, const tk_qt_walk *w)
{
	for (unsigned j = 0; j < w->nr_walks; j++) {
		fmt(b, "GUEST L%u ", j + 1);
		hex(b, w->guest_real_addrs[j], 16);
		put(b, " ", 1);
		for (unsigned i = 0; i < w->nr_ptes; i++) {
			fmt(b, "HOST L%u 0x", i + 1);
			hex(b, w->host_ptes[j][i], 16);
			put(b, " ", 1);
		}
		if (j + 1 < w->nr_walks) {
			puts_(b, "GUEST HOST REAL 0x");
			hex(b, w->host_real_addrs[j], 16);
			put(b, " ", 1);
		}
	}
}

static void annotations(sbuf *b, const tk_qt_record *r)
{
	const uint32_t any = TK_QT_DATA_EA | TK_QT_DATA_RPN | TK_QT_NEXT_RPN | TK_QT_NODE |
			     TK_QT_BRANCH | TK_QT_DATA_PAGE_SHIFT | TK_QT_NEXT_PAGE_SHIFT;
	if (!(r->valid & any))
		return;
	puts_(b, "\t #");
	if (r->valid & TK_QT_DATA_EA) {
		puts_(b, " 0x");
		hex(b, r->data_ea, 16);
	}
	if (r->valid & TK_QT_DATA_RPN) {
		puts_(b, " DATA RPN 0x");
		hex(b, r->data_rpn, 8);
	}
	if (r->data_walk && r->data_walk->nr_ptes) {
		puts_(b, " DATA RADIX ");
		walk_text(b, r->data_walk);
	}
	if (r->valid & TK_QT_DATA_PAGE_SHIFT)
		fmt(b, " DATA PAGE SIZE %d", r->data_page_shift);
	if (r->valid & TK_QT_NEXT_RPN) {
		puts_(b, " INSN RPN 0x");
		hex(b, r->next_rpn, 8);
		if (r->insn_walk && r->insn_walk->nr_ptes) {
			puts_(b, " INSN RADIX ");
			walk_text(b, r->insn_walk);
		}
	}
	if (r->valid & TK_QT_NEXT_PAGE_SHIFT)
		fmt(b, " INSN PAGE SIZE %d", r->next_page_shift);
	if (r->valid & TK_QT_NODE) {
		puts_(b, " NODE 0x");
		hex(b, r->node, 2);
	}
	if (r->valid & TK_QT_BRANCH) {
		puts_(b, " TERM NODE 0x");
		hex(b, r->term_node, 2);
		puts_(b, " TERM CODE 0x");
		hex(b, r->term_code, 2);
	}
}

size_t qtdis_line(qtdis_format *f, const tk_qt_record *rec, const uint32_t *words,
		  unsigned nwords, char *out)
{
	sbuf b = {out, out + QTDIS_LINE_MAX - 1};
	address(&b, f->targets == QTDIS_ADDR_SYMBOL ? f->symtab : NULL, rec->ea);
	if (f->raw) {
		put(&b, "\t", 1);
		for (unsigned i = 0; i < nwords; i++)
			for (int k = 0; k < 4; k++) {
				int shift = f->raw_host_order ? 8 * k : 24 - 8 * k;
				hex(&b, (words[i] >> shift) & 0xFF, 2);
				put(&b, " ", 1);
			}
	}
	put(&b, "\t", 1);
	b.p += tk_ppc_disasm_insn(f->dis, rec->ea, words, nwords, b.p, (size_t)(b.end - b.p) + 1);
	if (f->verbose)
		annotations(&b, rec);
	put(&b, "\n", 1);
	*b.p = 0;
	return (size_t)(b.p - out);
}
