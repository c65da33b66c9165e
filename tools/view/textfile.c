/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): the trace file's text, by byte offset (see textfile.h). */
#include "textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracekit/error.h"

int tkv_file_open(tkv_file *f, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	f->data = NULL;
	f->size = 0;
	if (fd < 0)
		return TK_ERR_OPEN;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return TK_ERR_IO;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return TK_ERR_ISDIR;
	}
	if (st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			close(fd);
			errno = e;
			return TK_ERR_IO;
		}
		f->data = p;
		f->size = (uint64_t)st.st_size;
	}
	close(fd);
	return 0;
}

void tkv_file_close(tkv_file *f)
{
	if (f->data)
		munmap((void *)f->data, (size_t)f->size);
	f->data = NULL;
	f->size = 0;
}

uint64_t tkv_line_end(const tkv_file *f, uint64_t off)
{
	if (off >= f->size)
		return f->size;
	const char *nl = memchr(f->data + off, '\n', (size_t)(f->size - off));
	uint64_t end = nl ? (uint64_t)(nl - f->data) : f->size;
	if (end > off && f->data[end - 1] == '\r')
		end--;
	return end;
}

uint64_t tkv_line_next(const tkv_file *f, uint64_t off)
{
	if (off >= f->size)
		return f->size;
	const char *nl = memchr(f->data + off, '\n', (size_t)(f->size - off));
	return nl ? (uint64_t)(nl - f->data) + 1 : f->size;
}

uint64_t tkv_line_prev(const tkv_file *f, uint64_t off)
{
	if (off == 0)
		return 0;
	if (off > f->size)
		off = f->size;
	off--;			/* the previous line's newline (or last byte) */
	while (off > 0 && f->data[off - 1] != '\n')
		off--;
	return off;
}

static void release(const tkv_file *f, uint64_t from, uint64_t to)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t page = pg > 0 ? (uint64_t)pg : 4096;
	uint64_t a = (from + page - 1) / page * page, b = to / page * page;
	if (f->data && b > a)
		madvise((void *)(f->data + a), (size_t)(b - a), MADV_DONTNEED);
}

void tkv_file_trim(const tkv_file *f)
{
	release(f, 0, f->size);
}

uint64_t tkv_count_lines(const tkv_file *f, uint64_t from, uint64_t to)
{
	uint64_t n = 0, kept = from;
	if (to > f->size)
		to = f->size;
	while (from < to) {
		const char *nl = memchr(f->data + from, '\n', (size_t)(to - from));
		n++;
		if (!nl)
			break;
		from = (uint64_t)(nl - f->data) + 1;
		if (from - kept >= (1u << 20)) {
			release(f, kept, from);
			kept = from;
		}
	}
	return n;
}
