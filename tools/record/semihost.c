/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: Arm semihosting.
 *
 * The calls newlib's rdimon library makes, after the Arm "Semihosting for
 * AArch32 and AArch64" specification.  The console (":tt") is tracekit's
 * own stdin/stdout/stderr and always claims to be a terminal, so a
 * program's buffering, and hence its trace, does not depend on where
 * tracekit's output goes.  Time is derived from the instruction count (one
 * instruction = one tick of a 100 MHz clock) unless --host-time is given.
 * Files are confined to the working directory unless --allow-fs (see
 * confine.h); a name with a NUL byte inside its given length is refused
 * (EINVAL), never cut short.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"
#include "trace.h"

enum {
	SYS_OPEN = 0x01, SYS_CLOSE = 0x02, SYS_WRITEC = 0x03, SYS_WRITE0 = 0x04,
	SYS_WRITE = 0x05, SYS_READ = 0x06, SYS_READC = 0x07, SYS_ISERROR = 0x08,
	SYS_ISTTY = 0x09, SYS_SEEK = 0x0A, SYS_FLEN = 0x0C, SYS_TMPNAM = 0x0D,
	SYS_REMOVE = 0x0E, SYS_RENAME = 0x0F, SYS_CLOCK = 0x10, SYS_TIME = 0x11,
	SYS_SYSTEM = 0x12, SYS_ERRNO = 0x13, SYS_GET_CMDLINE = 0x15,
	SYS_HEAPINFO = 0x16, SYS_EXIT = 0x18, SYS_EXIT_EXTENDED = 0x20,
	SYS_ELAPSED = 0x30, SYS_TICKFREQ = 0x31,
};

#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define TICK_HZ 100000000ull	/* one instruction per tick */
#define MAX_FILES 64
#define MAX_NAME 4096

/* The ":semihosting-features" pseudo-file: magic and feature byte
 * (bit 0 SYS_EXIT_EXTENDED, bit 1 stdout/stderr through ":tt"). */
static const unsigned char features[5] = {'S', 'H', 'F', 'B', 0x03};

enum file_kind { F_FREE, F_HOST, F_STDIN, F_STDOUT, F_STDERR, F_FEATURES };

struct sh_file {
	enum file_kind kind;
	int fd;
	size_t pos;		/* F_FEATURES */
};

struct rec_semihost {
	bool allow_fs, host_time;
	bool console_stderr;	/* the trace goes to stdout */
	char *cmdline;
	struct sh_file f[MAX_FILES];	/* handle = index; 0 unused */
	int err;		/* errno of the last failed call */
	rec_confine files;	/* the program's files, confined */
	struct timespec start;
	bool warned[256];
};

/* The command line goes to the program as one string, which its start-up
 * code splits.  newlib's (libgloss crt0, what rdimon.specs programs run)
 * splits at blanks; an argument that starts with " or ' runs to the next
 * same quote; there is no escape character.  So an argument with a blank
 * (or empty, or starting with a quote) is put in whichever quote it does
 * not contain; a backslash would be taken literally, not as an escape. */
int rec_semihost_arg_quote(const char *a)
{
	bool plain = *a && !strpbrk(a, " \t") && *a != '"' && *a != '\'';
	if (plain)
		return 0;
	if (!strchr(a, '"'))
		return '"';
	if (!strchr(a, '\''))
		return '\'';
	/* Both quotes: only a tab is left to protect, and newlib does not
	 * split at tabs. */
	return *a && !strchr(a, ' ') && *a != '"' && *a != '\'' ? 0 : -1;
}

rec_semihost *rec_semihost_new(bool allow_fs, bool host_time, bool console_stderr,
			       char **argv, int argc)
{
	rec_semihost *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->allow_fs = allow_fs;
	s->console_stderr = console_stderr;
	s->host_time = host_time;
	/* Without a working directory to stay beneath, every name fails. */
	rec_confine_init(&s->files, allow_fs);
	clock_gettime(CLOCK_MONOTONIC, &s->start);
	/* The command line, each argument quoted as rec_semihost_arg_quote
	 * says (cmd_record.c has refused the ones that cannot be passed). */
	size_t n = 1;
	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 3;
	s->cmdline = malloc(n);
	if (!s->cmdline) {
		free(s);
		return NULL;
	}
	char *p = s->cmdline;
	for (int i = 0; i < argc; i++) {
		if (i)
			*p++ = ' ';
		int q = rec_semihost_arg_quote(argv[i]);
		if (q > 0)
			*p++ = (char)q;
		size_t len = strlen(argv[i]);
		memcpy(p, argv[i], len);
		p += len;
		if (q > 0)
			*p++ = (char)q;
	}
	*p = 0;
	return s;
}

void rec_semihost_free(rec_semihost *s)
{
	if (!s)
		return;
	for (int i = 1; i < MAX_FILES; i++)
		if (s->f[i].kind == F_HOST)
			close(s->f[i].fd);
	rec_confine_fini(&s->files);
	free(s->cmdline);
	free(s);
}

bool rec_semihost_is_trap(const rec_insn *in)
{
	uint32_t e = in->enc;
	switch (in->isa) {
	case REC_ISA_A64:
		return e == 0xD45E0000;				/* HLT #0xF000 */
	case REC_ISA_A32:
		return (e & 0x0FFFFFFF) == 0x0F123456 ||	/* SVC #0x123456 */
		       (e & 0x0FFFFFFF) == 0x010F0070;		/* HLT #0xF000 */
	default:
		if (in->size != 2)
			return false;
		/* SVC #0xAB, BKPT #0xAB, HLT #0x3C (the specification's
		 * value) and HLT #0x3F (the seed's list). */
		return e == 0xDFAB || e == 0xBEAB || e == 0xBABC || e == 0xBABF;
	}
}

/* ---- guest memory helpers ---- */

static unsigned word_size(const rec *r)
{
	return r->profile == REC_PROFILE_A64 ? 8 : 4;
}

/* Read n words of the parameter block; non-zero if unmapped. */
static int args(rec *r, uint64_t block, uint64_t *a, int n)
{
	unsigned w = word_size(r);
	for (int i = 0; i < n; i++) {
		unsigned char b[8] = {0};
		if (rec_mem_read(&r->mem, block + (uint64_t)i * w, b, w))
			return -1;
		a[i] = 0;
		for (int k = (int)w - 1; k >= 0; k--)
			a[i] = a[i] << 8 | b[k];
	}
	return 0;
}

static int put_word(rec *r, uint64_t addr, uint64_t v)
{
	unsigned char b[8];
	for (int k = 0; k < 8; k++)
		b[k] = (unsigned char)(v >> (8 * k));
	return rec_mem_write(&r->mem, addr, b, word_size(r));
}

static uint64_t minus_one(const rec *r)
{
	return r->profile == REC_PROFILE_A64 ? ~0ull : 0xFFFFFFFFull;
}

/* A NUL-terminated copy of len bytes of guest memory (len 0: up to NUL).
 * NULL with *err set: EFAULT (unmapped, too long), EINVAL (a NUL inside
 * the len bytes: a name must not be cut short silently). */
static char *guest_string(rec *r, uint64_t addr, uint64_t len, int *err)
{
	*err = EFAULT;
	if (len >= MAX_NAME)
		return NULL;
	char *s = malloc(MAX_NAME);
	if (!s)
		return NULL;
	if (len) {
		if (rec_mem_read(&r->mem, addr, s, (size_t)len)) {
			free(s);
			return NULL;
		}
		if (memchr(s, 0, (size_t)len)) {
			free(s);
			*err = EINVAL;
			return NULL;
		}
		s[len] = 0;
		return s;
	}
	for (size_t i = 0; i < MAX_NAME - 1; i++) {
		if (rec_mem_read(&r->mem, addr + i, &s[i], 1)) {
			free(s);
			return NULL;
		}
		if (!s[i])
			return s;
	}
	s[MAX_NAME - 1] = 0;
	return s;
}

/* ---- files ---- */

static int new_handle(rec_semihost *s)
{
	for (int i = 1; i < MAX_FILES; i++)
		if (s->f[i].kind == F_FREE)
			return i;
	return -1;
}

static struct sh_file *handle(rec_semihost *s, uint64_t h)
{
	if (h == 0 || h >= MAX_FILES || s->f[h].kind == F_FREE)
		return NULL;
	return &s->f[h];
}

static uint64_t sys_open(rec *r, uint64_t block)
{
	rec_semihost *s = r->sh;
	uint64_t a[3];
	if (args(r, block, a, 3))
		return minus_one(r);
	int gerr;
	char *name = guest_string(r, a[0], a[2], &gerr);
	if (!name) {
		s->err = gerr;
		return minus_one(r);
	}
	uint64_t mode = a[1];
	int h = new_handle(s);
	uint64_t ret = minus_one(r);
	if (h < 0) {
		s->err = EMFILE;
	} else if (mode > 11) {
		s->err = EINVAL;
	} else if (!strcmp(name, ":tt")) {
		s->f[h].kind = mode < 4 ? F_STDIN : mode < 8 ? F_STDOUT : F_STDERR;
		ret = (uint64_t)h;
	} else if (!strcmp(name, ":semihosting-features")) {
		if (mode < 4) {
			s->f[h].kind = F_FEATURES;
			s->f[h].pos = 0;
			ret = (uint64_t)h;
		} else {
			s->err = EACCES;
		}
	} else {
		static const int flags[3] = {O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC,
					     O_WRONLY | O_CREAT | O_APPEND};
		int fl = flags[mode / 4];
		if (mode & 2)	/* the "+" modes */
			fl = (fl & ~(O_WRONLY | O_RDONLY)) | O_RDWR;
		int fd = rec_confine_open(&s->files, name, fl, 0644);
		if (fd < 0) {
			s->err = errno;
		} else {
			s->f[h].kind = F_HOST;
			s->f[h].fd = fd;
			ret = (uint64_t)h;
		}
	}
	free(name);
	return ret;
}

static void console_write(const rec_semihost *s, const void *buf, size_t n, bool err)
{
	fwrite(buf, 1, n, err || s->console_stderr ? stderr : stdout);
}

/* Returns the number of bytes NOT written. */
static uint64_t sys_write(rec *r, uint64_t block)
{
	rec_semihost *s = r->sh;
	uint64_t a[3];
	if (args(r, block, a, 3))
		return minus_one(r);
	struct sh_file *f = handle(s, a[0]);
	uint64_t len = a[2];
	if (!f || f->kind == F_STDIN || f->kind == F_FEATURES) {
		s->err = EBADF;
		return len;
	}
	uint64_t done = 0;
	char buf[65536];
	while (done < len) {
		size_t n = len - done < sizeof buf ? (size_t)(len - done) : sizeof buf;
		if (rec_mem_read(&r->mem, a[1] + done, buf, n)) {
			s->err = EFAULT;
			break;
		}
		if (f->kind == F_HOST) {
			ssize_t k = write(f->fd, buf, n);
			if (k < 0) {
				s->err = errno;
				break;
			}
			done += (uint64_t)k;
			if ((size_t)k < n)
				break;
		} else {
			console_write(s, buf, n, f->kind == F_STDERR);
			done += n;
		}
	}
	return len - done;
}

/* Returns the number of bytes NOT read. */
static uint64_t sys_read(rec *r, uint64_t block)
{
	rec_semihost *s = r->sh;
	uint64_t a[3];
	if (args(r, block, a, 3))
		return minus_one(r);
	struct sh_file *f = handle(s, a[0]);
	uint64_t len = a[2];
	if (!f || f->kind == F_STDOUT || f->kind == F_STDERR) {
		s->err = EBADF;
		return minus_one(r);
	}
	if (f->kind == F_FEATURES) {
		size_t n = f->pos < sizeof features ? sizeof features - f->pos : 0;
		if (n > len)
			n = (size_t)len;
		if (rec_mem_write(&r->mem, a[1], features + f->pos, n)) {
			s->err = EFAULT;
			return minus_one(r);
		}
		f->pos += n;
		return len - n;
	}
	int fd = f->kind == F_STDIN ? 0 : f->fd;
	if (f->kind == F_STDIN)
		fflush(stdout);
	uint64_t done = 0;
	char buf[65536];
	while (done < len) {
		size_t n = len - done < sizeof buf ? (size_t)(len - done) : sizeof buf;
		ssize_t k = read(fd, buf, n);
		if (k < 0) {
			s->err = errno;
			return minus_one(r);
		}
		if (k == 0)
			break;
		if (rec_mem_write(&r->mem, a[1] + done, buf, (size_t)k)) {
			s->err = EFAULT;
			return minus_one(r);
		}
		done += (uint64_t)k;
		if (f->kind == F_STDIN)
			break;	/* a console read returns what is there */
	}
	return len - done;
}

static uint64_t sys_close(rec *r, uint64_t block)
{
	rec_semihost *s = r->sh;
	uint64_t a[1];
	if (args(r, block, a, 1))
		return minus_one(r);
	struct sh_file *f = handle(s, a[0]);
	if (!f) {
		s->err = EBADF;
		return minus_one(r);
	}
	int rc = 0;
	if (f->kind == F_HOST && close(f->fd) != 0) {
		s->err = errno;
		rc = -1;
	}
	f->kind = F_FREE;
	return rc ? minus_one(r) : 0;
}

static uint64_t sys_seek(rec *r, uint64_t block)
{
	rec_semihost *s = r->sh;
	uint64_t a[2];
	if (args(r, block, a, 2))
		return minus_one(r);
	struct sh_file *f = handle(s, a[0]);
	if (!f || f->kind == F_STDIN || f->kind == F_STDOUT || f->kind == F_STDERR) {
		s->err = EBADF;
		return minus_one(r);
	}
	if (f->kind == F_FEATURES) {
		f->pos = (size_t)a[1];
		return 0;
	}
	if (lseek(f->fd, (off_t)a[1], SEEK_SET) < 0) {
		s->err = errno;
		return minus_one(r);
	}
	return 0;
}

static uint64_t sys_flen(rec *r, uint64_t block)
{
	rec_semihost *s = r->sh;
	uint64_t a[1];
	if (args(r, block, a, 1))
		return minus_one(r);
	struct sh_file *f = handle(s, a[0]);
	if (f && f->kind == F_FEATURES)
		return sizeof features;
	struct stat st;
	if (!f || f->kind != F_HOST || fstat(f->fd, &st) != 0) {
		s->err = f ? (f->kind == F_HOST ? errno : EINVAL) : EBADF;
		return minus_one(r);
	}
	return (uint64_t)st.st_size;
}

static uint64_t sys_remove_rename(rec *r, uint64_t op, uint64_t block)
{
	rec_semihost *s = r->sh;
	uint64_t a[4];
	int n = op == SYS_REMOVE ? 2 : 4;
	if (args(r, block, a, n))
		return minus_one(r);
	int ferr = 0, terr = 0;
	char *from = guest_string(r, a[0], a[1], &ferr);
	char *to = op == SYS_RENAME ? guest_string(r, a[2], a[3], &terr) : NULL;
	uint64_t ret = minus_one(r);
	if (!from || (op == SYS_RENAME && !to)) {
		s->err = !from ? ferr : terr;
	} else if ((op == SYS_REMOVE ? rec_confine_unlink(&s->files, from)
				     : rec_confine_rename(&s->files, from, to)) != 0) {
		s->err = errno;
	} else {
		ret = 0;
	}
	free(from);
	free(to);
	return ret;
}

static uint64_t sys_tmpnam(rec *r, uint64_t block)
{
	uint64_t a[3];
	if (args(r, block, a, 3))
		return minus_one(r);
	char name[32];
	int n = snprintf(name, sizeof name, "tracekit-tmp-%02x.tmp", (unsigned)(a[1] & 0xFF));
	if ((uint64_t)n + 1 > a[2] || rec_mem_write(&r->mem, a[0], name, (size_t)n + 1))
		return minus_one(r);
	return 0;
}

static uint64_t sys_cmdline(rec *r, uint64_t block)
{
	rec_semihost *s = r->sh;
	uint64_t a[2];
	if (args(r, block, a, 2))
		return minus_one(r);
	size_t n = strlen(s->cmdline);
	if (n + 1 > a[1] || rec_mem_write(&r->mem, a[0], s->cmdline, n + 1) ||
	    put_word(r, block + word_size(r), n)) {
		s->err = EINVAL;
		return minus_one(r);
	}
	return 0;
}

static uint64_t sys_heapinfo(rec *r, uint64_t param)
{
	uint64_t a[1];
	if (args(r, param, a, 1))
		return minus_one(r);
	unsigned w = word_size(r);
	if (put_word(r, a[0], r->heap_base) || put_word(r, a[0] + w, r->heap_limit) ||
	    put_word(r, a[0] + 2 * w, r->stack_base) || put_word(r, a[0] + 3 * w, r->stack_limit))
		return minus_one(r);
	return 0;
}

/* SYS_EXIT and SYS_EXIT_EXTENDED. */
static void sys_exit(rec *r, uint64_t reason, uint64_t subcode, bool have_subcode)
{
	r->stop = REC_STOP_EXIT;
	if (reason == ADP_STOPPED_APPLICATION_EXIT) {
		r->exit_status = have_subcode ? (int)(subcode & 0xFF) : 0;
	} else {
		r->exit_status = 1;
		fprintf(stderr, "tracekit record: the program stopped with reason 0x%llx\n",
			(unsigned long long)reason);
	}
}

static uint64_t now_ticks(rec *r)
{
	if (!r->sh->host_time)
		return r->out.count;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)(t.tv_sec - r->sh->start.tv_sec) * 1000000000ull +
	       (uint64_t)(t.tv_nsec - r->sh->start.tv_nsec);
}

static uint64_t tick_hz(rec *r)
{
	return r->sh->host_time ? 1000000000ull : TICK_HZ;
}

uint64_t rec_semihost_call(rec *r, uint64_t op, uint64_t param)
{
	rec_semihost *s = r->sh;
	uint64_t a[2];
	unsigned char c;
	switch (op) {
	case SYS_OPEN:
		return sys_open(r, param);
	case SYS_CLOSE:
		return sys_close(r, param);
	case SYS_WRITEC:
		if (rec_mem_read(&r->mem, param, &c, 1) == 0)
			console_write(s, &c, 1, false);
		return 0;
	case SYS_WRITE0: {
		int gerr;
		char *str = guest_string(r, param, 0, &gerr);
		if (str)
			console_write(s, str, strlen(str), false);
		free(str);
		return 0;
	}
	case SYS_WRITE:
		return sys_write(r, param);
	case SYS_READ:
		return sys_read(r, param);
	case SYS_READC: {
		fflush(stdout);
		int ch = getchar();
		return ch == EOF ? minus_one(r) : (uint64_t)ch;
	}
	case SYS_ISERROR:
		if (args(r, param, a, 1))
			return minus_one(r);
		return word_size(r) == 8 ? (int64_t)a[0] < 0 : (int32_t)a[0] < 0;
	case SYS_ISTTY: {
		if (args(r, param, a, 1))
			return minus_one(r);
		struct sh_file *f = handle(s, a[0]);
		if (!f) {
			s->err = EBADF;
			return 0;
		}
		return f->kind == F_STDIN || f->kind == F_STDOUT || f->kind == F_STDERR;
	}
	case SYS_SEEK:
		return sys_seek(r, param);
	case SYS_FLEN:
		return sys_flen(r, param);
	case SYS_TMPNAM:
		return sys_tmpnam(r, param);
	case SYS_REMOVE:
	case SYS_RENAME:
		return sys_remove_rename(r, op, param);
	case SYS_CLOCK:
		return now_ticks(r) / (tick_hz(r) / 100);
	case SYS_TIME:
		return s->host_time ? (uint64_t)time(NULL) : now_ticks(r) / tick_hz(r);
	case SYS_SYSTEM:
		s->err = ENOSYS;	/* never run host commands */
		return minus_one(r);
	case SYS_ERRNO:
		return (uint64_t)s->err;
	case SYS_GET_CMDLINE:
		return sys_cmdline(r, param);
	case SYS_HEAPINFO:
		return sys_heapinfo(r, param);
	case SYS_EXIT:
		if (word_size(r) == 8) {
			if (args(r, param, a, 2))
				a[0] = param, a[1] = 1;
			sys_exit(r, a[0], a[1], true);
		} else {
			sys_exit(r, param, 0, false);
		}
		return 0;
	case SYS_EXIT_EXTENDED:
		if (args(r, param, a, 2))
			a[0] = 0, a[1] = 1;
		sys_exit(r, a[0], a[1], true);
		return 0;
	case SYS_ELAPSED: {
		uint64_t t = now_ticks(r);
		unsigned char b[8];
		for (int k = 0; k < 8; k++)
			b[k] = (unsigned char)(t >> (8 * k));
		return rec_mem_write(&r->mem, param, b, 8) ? minus_one(r) : 0;
	}
	case SYS_TICKFREQ:
		return tick_hz(r);
	default:
		if (!s->warned[op & 0xFF]) {
			s->warned[op & 0xFF] = true;
			fprintf(stderr, "tracekit record: unsupported semihosting call 0x%llx\n",
				(unsigned long long)op);
		}
		s->err = ENOSYS;
		return minus_one(r);
	}
}
