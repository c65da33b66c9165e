/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the index file checksum.
 *
 * A 64-bit non-cryptographic hash: four independent multiply-rotate lanes
 * over 32-byte stripes (so it runs at memory speed), then the tail, then a
 * final avalanche.  It only has to catch truncation, bit rot and stray
 * writes, so that a damaged index is rebuilt instead of trusted.  It can be
 * computed in pieces (tk_hasher), which lets the writer read the file back
 * through a small buffer and the reader release pages as it goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index_impl.h"

#define P1 0x9e3779b185ebca87ull
#define P2 0xc2b2ae3d27d4eb4full
#define P3 0x165667b19e3779f9ull

static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t lane(uint64_t acc, uint64_t v)
{
	acc += v * P2;
	acc = rotl(acc, 31);
	return acc * P1;
}

void tk_hasher_init(tk_hasher *h)
{
	h->a = P1 + P2;
	h->b = P2;
	h->c = 0;
	h->d = (uint64_t)0 - P1;
	h->total = 0;
	h->nbuf = 0;
}

static void stripe(tk_hasher *h, const uint8_t *p)
{
	h->a = lane(h->a, tk_get64(p));
	h->b = lane(h->b, tk_get64(p + 8));
	h->c = lane(h->c, tk_get64(p + 16));
	h->d = lane(h->d, tk_get64(p + 24));
}

void tk_hasher_update(tk_hasher *h, const uint8_t *p, size_t n)
{
	if (!n)
		return;	/* p may be NULL */
	h->total += n;
	if (h->nbuf) {
		size_t k = 32 - h->nbuf < n ? 32 - h->nbuf : n;
		memcpy(h->buf + h->nbuf, p, k);
		h->nbuf += k;
		p += k;
		n -= k;
		if (h->nbuf < 32)
			return;
		stripe(h, h->buf);
		h->nbuf = 0;
	}
	for (; n >= 32; p += 32, n -= 32)
		stripe(h, p);
	memcpy(h->buf, p, n);
	h->nbuf = n;
}

uint64_t tk_hasher_final(const tk_hasher *hs)
{
	uint64_t h = rotl(hs->a, 1) + rotl(hs->b, 7) + rotl(hs->c, 12) + rotl(hs->d, 18) + hs->total;
	size_t i = 0;
	for (; i + 8 <= hs->nbuf; i += 8)
		h = rotl(h ^ lane(0, tk_get64(hs->buf + i)), 27) * P1 + P3;
	for (; i < hs->nbuf; i++)
		h = rotl(h ^ (hs->buf[i] * P3), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

uint64_t tk_idx_hash(const uint8_t *p, size_t n)
{
	tk_hasher h;
	tk_hasher_init(&h);
	tk_hasher_update(&h, p, n);
	return tk_hasher_final(&h);
}

/* ---- the trace's fingerprint ---- */

#define FP_SPAN (64u << 10)

/* Read up to n bytes at off; returns bytes read or -1. */
static ssize_t read_at(int fd, uint8_t *buf, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(fd, buf + got, n - got, off + (off_t)got);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

int tk_idx_fingerprint(const char *trace_path, uint64_t *out)
{
	int fd = open(trace_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return TK_ERR_OPEN;
	struct stat st;
	uint8_t *buf = malloc(FP_SPAN);
	int rc = 0;
	if (!buf) {
		rc = TK_ERR_NOMEM;
	} else if (fstat(fd, &st) != 0) {
		rc = TK_ERR_IO;
	} else {
		tk_hasher h;
		tk_hasher_init(&h);
		uint8_t size[8];
		tk_put64(size, (uint64_t)st.st_size);
		tk_hasher_update(&h, size, sizeof size);
		off_t tail = st.st_size > (off_t)FP_SPAN ? st.st_size - (off_t)FP_SPAN : 0;
		ssize_t k = read_at(fd, buf, FP_SPAN, 0);
		if (k >= 0)
			tk_hasher_update(&h, buf, (size_t)k);
		if (k >= 0 && tail > 0 && (k = read_at(fd, buf, FP_SPAN, tail)) >= 0)
			tk_hasher_update(&h, buf, (size_t)k);
		if (k < 0)
			rc = TK_ERR_IO;
		*out = tk_hasher_final(&h);
	}
	free(buf);
	close(fd);
	return rc;
}
