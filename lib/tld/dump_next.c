/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the records of a trace buffer, one at a time.
 *
 * A record is a 6-word header then its payload, padded to a word:
 *   word 0: bits 0-15 function index, bits 16-29 record size in bytes
 *           (header + payload), bit 30 exit, bit 31 interrupt context
 *   word 1: thread id; word 2: (current priority << 8) | real priority;
 *   word 3: thread state; words 4, 5: time, high and low 32 bits
 * An entry's payload is the arguments back to back, an exit's the return
 * value (nothing for void).  A size that disagrees with the function's
 * signature, an index outside the table or a record running past the
 * buffer is damage: nothing after it can be trusted.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tld/dump_impl.h"
#include "tracekit/error.h"

static uint32_t context_of(tk_tld_dump *d, uint32_t thread)
{
	if (d->nthreads && thread == d->last_thread)
		return d->last_context;
	uint32_t i;
	for (i = 0; i < d->nthreads; i++)
		if (d->threads[i] == thread)
			break;
	if (i == d->nthreads) {
		if (d->nthreads == d->cthreads) {
			uint32_t cap = d->cthreads ? d->cthreads * 2 : 8;
			uint32_t *v = realloc(d->threads, cap * sizeof *v);
			if (!v)
				return 0;	/* out of memory: one context for the rest */
			d->threads = v;
			d->cthreads = cap;
		}
		d->threads[d->nthreads++] = thread;
	}
	d->last_thread = thread;
	d->last_context = i;
	return i;
}

/* Reading a mapped file front to back: give back the pages behind the
 * cursor every 8 MiB, so memory does not grow with the file.  Pointers
 * into them stay valid (they are read from the file again if touched). */
static void release_behind(tk_tld_dump *d)
{
	const uint64_t step = 8u << 20;
	if (!d->mapped || d->pos < d->released + 2 * step)
		return;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t from = d->released > d->info.buffer_offset ? d->released : d->info.buffer_offset;
	from = (from + page - 1) / page * page;
	uint64_t to = (d->pos - step) / page * page;
	if (to > from)
		madvise((void *)(d->data + from), (size_t)(to - from), MADV_DONTNEED);
	d->released = to;
}

static int damaged(tk_tld_dump *d, int err)
{
	d->done = true;
	return err;
}

int tk_tld_dump_next(tk_tld_dump *d, tk_tld_record *rec)
{
	if (d->done || d->pos >= d->declared_end) {
		d->done = true;
		return 0;
	}
	uint64_t at = d->pos;
	if (d->declared_end - at < TK_TLD_RECORD_HEADER) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, at,
				   "record %llu: only %llu bytes left of the buffer for a %d-byte header",
				   (unsigned long long)d->number + 1,
				   (unsigned long long)(d->declared_end - at), TK_TLD_RECORD_HEADER);
		return damaged(d, TK_ERR_CORRUPT);
	}
	if (d->len - at < TK_TLD_RECORD_HEADER) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, at,
				   "record %llu: the file ends in its header (truncated: %llu of %llu "
				   "buffer bytes present)", (unsigned long long)d->number + 1,
				   (unsigned long long)(d->len - d->info.buffer_offset),
				   (unsigned long long)(d->declared_end - d->info.buffer_offset));
		return damaged(d, TK_ERR_EOF);
	}
	uint32_t w0 = tk_tld_rd32(d, at);
	uint32_t index = w0 & 0xffff, size = (w0 >> 16) & TK_TLD_RECORD_MAX;
	bool exit = (w0 >> 30) & 1;
	if (index >= d->info.nfuncs) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, at,
				   "record %llu: function index %u, the table has %u functions",
				   (unsigned long long)d->number + 1, index, d->info.nfuncs);
		return damaged(d, TK_ERR_CORRUPT);
	}
	struct dump_func *f = &d->funcs[index];
	uint64_t want = TK_TLD_RECORD_HEADER + (exit ? f->ret_size : f->entry_size);
	/* Records longer than the size field holds are cut at its maximum. */
	uint64_t expect = want > TK_TLD_RECORD_MAX ? TK_TLD_RECORD_MAX : want;
	if (size != expect) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, at,
				   "record %llu: %s of %s is %u bytes, its signature makes it %llu",
				   (unsigned long long)d->number + 1, exit ? "exit" : "entry",
				   f->pub.name, size, (unsigned long long)expect);
		return damaged(d, TK_ERR_CORRUPT);
	}
	uint64_t span = ((uint64_t)size + 3) & ~(uint64_t)3;
	if (span > d->declared_end - at) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, at,
				   "record %llu: %u bytes, past the end of the %u words used",
				   (unsigned long long)d->number + 1, size, d->info.used_words);
		return damaged(d, TK_ERR_CORRUPT);
	}
	if (span > d->len - at) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, at,
				   "record %llu: the file ends inside it (truncated)",
				   (unsigned long long)d->number + 1);
		return damaged(d, TK_ERR_EOF);
	}
	uint32_t prio = tk_tld_rd32(d, at + 8);
	rec->exit = exit;
	rec->interrupt = w0 >> 31;
	rec->func = index;
	rec->name = f->pub.name;
	rec->name_len = f->name_len;
	rec->addr = f->pub.addr;
	rec->time = (uint64_t)tk_tld_rd32(d, at + 16) << 32 | tk_tld_rd32(d, at + 20);
	rec->number = ++d->number;
	rec->offset = at;
	rec->thread = tk_tld_rd32(d, at + 4);
	rec->context = context_of(d, rec->thread);
	rec->cur_priority = (uint8_t)(prio >> 8);
	rec->real_priority = (uint8_t)prio;
	rec->state = tk_tld_rd32(d, at + 12);

	/* The values, cut where the record was cut. */
	const uint8_t *p = d->data + at + TK_TLD_RECORD_HEADER;
	uint64_t left = size - TK_TLD_RECORD_HEADER;
	if (exit) {
		rec->nvalues = f->has_ret;
		f->exit_value.bytes = p;
		f->exit_value.avail = (uint32_t)(f->ret_size < left ? f->ret_size : left);
		rec->values = &f->exit_value;
	} else {
		rec->nvalues = f->nargs;
		for (uint32_t i = 0; i < f->nargs; i++) {
			tk_tld_value *v = &f->entry_values[i];
			v->bytes = p;
			v->avail = (uint32_t)(v->size < left ? v->size : left);
			p += v->avail;
			left -= v->avail;
		}
		rec->values = f->entry_values;
	}
	d->pos = at + span;
	release_behind(d);
	return 1;
}

int tk_tld_dump_seek(tk_tld_dump *d, uint64_t offset, uint64_t number)
{
	if (offset < d->info.buffer_offset || offset > d->declared_end ||
	    (offset - d->info.buffer_offset) % 4 || number == 0)
		return TK_ERR_INVAL;
	d->pos = offset;
	d->number = number - 1;
	d->done = false;
	d->released = 0;
	return 0;
}
