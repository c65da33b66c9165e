/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: guest memory.
 *
 * Every guest range is backed by a host buffer of ours (mapped into unicorn
 * with uc_mem_map_ptr by the caller), so the memory hooks and semihosting
 * read guest data with a plain memory access instead of a call into the
 * emulator.
 */
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include "record.h"

#define PAGE 0x1000ull

int rec_mem_add(rec_mem *m, uint64_t base, uint64_t size)
{
	if (size == 0)
		return 0;
	uint64_t lo = base & ~(PAGE - 1);
	uint64_t hi = (base + size + PAGE - 1) & ~(PAGE - 1);
	if (hi <= lo)
		return -1;
	/* Absorb every range that overlaps or touches [lo, hi). */
	for (int i = 0; i < m->n;) {
		rec_region *r = &m->r[i];
		if (r->base <= hi && lo <= r->base + r->size) {
			if (r->base < lo)
				lo = r->base;
			if (r->base + r->size > hi)
				hi = r->base + r->size;
			m->r[i] = m->r[--m->n];
		} else {
			i++;
		}
	}
	if (m->n == REC_MAX_REGIONS)
		return -1;
	m->r[m->n].base = lo;
	m->r[m->n].size = hi - lo;
	m->r[m->n].host = NULL;
	m->n++;
	return 0;
}

static int by_base(const void *a, const void *b)
{
	const rec_region *x = a, *y = b;
	return x->base < y->base ? -1 : x->base > y->base;
}

int rec_mem_alloc(rec_mem *m)
{
	qsort(m->r, (size_t)m->n, sizeof m->r[0], by_base);
	for (int i = 0; i < m->n; i++) {
		void *p = mmap(NULL, m->r[i].size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		m->r[i].host = p;
	}
	m->last = 0;
	return 0;
}

void rec_mem_free(rec_mem *m)
{
	for (int i = 0; i < m->n; i++)
		if (m->r[i].host)
			munmap(m->r[i].host, m->r[i].size);
	m->n = 0;
}

/* Copy len bytes between guest memory at addr and buf, towards the guest
 * if to_guest; one byte at a time only across region boundaries. */
static int copy(rec_mem *m, uint64_t addr, unsigned char *buf, size_t len, bool to_guest)
{
	while (len) {
		size_t step = len;
		unsigned char *p = rec_mem_ptr(m, addr, len);
		if (!p) {
			step = 1;
			p = rec_mem_ptr(m, addr, 1);
			if (!p)
				return -1;
		}
		if (to_guest)
			memcpy(p, buf, step);
		else
			memcpy(buf, p, step);
		buf += step;
		addr += step;
		len -= step;
	}
	return 0;
}

int rec_mem_read(rec_mem *m, uint64_t addr, void *buf, size_t len)
{
	return copy(m, addr, buf, len, false);
}

int rec_mem_write(rec_mem *m, uint64_t addr, const void *buf, size_t len)
{
	/* copy() does not write through buf when to_guest is set. */
	return copy(m, addr, (unsigned char *)buf, len, true);
}
