/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ptperf: wrap a raw PT stream as a perf.data file, as `perf record -e
 * intel_pt//u` would have written it (header, one intel_pt attribute,
 * AUXTRACE_INFO, COMM, MMAP2 of every executable mapping of the recording,
 * ITRACE_START, the PT in several AUXTRACE records, AUX records).
 *
 *   ptperf [OPTIONS] IN.pt RECORDING OUT.data
 *     --chunks=N        split the PT into N AUXTRACE records (default 3);
 *                       the cuts fall at multiples of 8 bytes, mid-packet
 *     --lose=K          the AUX record of chunk K says TRUNCATED and chunk
 *                       K+1 starts 4096 bytes further on (data lost)
 *     --second-cpu      a second buffer (idx 1, cpu 1) with the same PT
 *     --cpuid=STRING    a HEADER_CPUID feature ("GenuineIntel,6,142,10")
 *     --pipe            write a pipe-mode header (for the error test)
 *     --compressed      add a COMPRESSED record (for the error test)
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMU_TYPE 8
#define PID 4242

static uint8_t *out;
static size_t len, cap;

static void put(const void *p, size_t n)
{
	if (len + n > cap) {
		cap = (len + n) * 2;
		out = realloc(out, cap);
		if (!out)
			exit(1);
	}
	memcpy(out + len, p, n);
	len += n;
}

static void u64(uint64_t v) { put(&v, 8); }
static void u32(uint32_t v) { put(&v, 4); }
static void pad8(void)
{
	static const uint8_t z[8];
	if (len % 8)
		put(z, 8 - len % 8);
}

static void hdr(uint32_t type, uint16_t misc, uint16_t size)
{
	u32(type);
	put(&misc, 2);
	put(&size, 2);
}

static void set16(size_t at, uint16_t v) { memcpy(out + at, &v, 2); }
static void set64(size_t at, uint64_t v) { memcpy(out + at, &v, 8); }

static uint64_t now_time = 1000;

/* sample_id trailer: TID, TIME, IDENTIFIER */
static void trailer(void)
{
	u32(PID);
	u32(PID);
	u64(now_time++);
	u64(1);
}

static size_t begin_rec(uint32_t type, uint16_t misc)
{
	size_t at = len;
	hdr(type, misc, 0);
	return at;
}

static void end_rec(size_t at)
{
	pad8();
	set16(at + 6, (uint16_t)(len - at));
}

int main(int argc, char **argv)
{
	unsigned chunks = 3;
	int lose = -1;
	bool second = false, pipe = false, compressed = false;
	const char *cpuid = NULL;
	int a = 1;
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strncmp(argv[a], "--chunks=", 9))
			chunks = (unsigned)atoi(argv[a] + 9);
		else if (!strncmp(argv[a], "--lose=", 7))
			lose = atoi(argv[a] + 7);
		else if (!strcmp(argv[a], "--second-cpu"))
			second = true;
		else if (!strncmp(argv[a], "--cpuid=", 8))
			cpuid = argv[a] + 8;
		else if (!strcmp(argv[a], "--pipe"))
			pipe = true;
		else if (!strcmp(argv[a], "--compressed"))
			compressed = true;
		else
			return 2;
	}
	if (argc - a != 3 || !chunks) {
		fprintf(stderr, "usage: ptperf [OPTIONS] IN.pt RECORDING OUT.data\n");
		return 2;
	}
	FILE *f = fopen(argv[a], "rb");
	if (!f)
		return 1;
	static uint8_t pt[64 << 20];
	size_t ptlen = fread(pt, 1, sizeof pt, f);
	fclose(f);

	/* header */
	put("PERFILE2", 8);
	u64(pipe ? 16 : 104);
	if (pipe) {
		f = fopen(argv[a + 2], "wb");
		fwrite(out, 1, len, f);
		return fclose(f) != 0;
	}
	u64(128 + 16);		/* attr_size */
	u64(104);		/* attrs */
	u64(128 + 16);
	size_t data_hdr = len;
	u64(0);			/* data: set below */
	u64(0);
	u64(0);			/* event_types */
	u64(0);
	u64(cpuid ? 1ull << 9 : 0);
	u64(0);
	u64(0);
	u64(0);
	/* attr (128 bytes) + its ids section */
	size_t attr = len;
	u32(PMU_TYPE);
	u32(128);
	u64(0);			/* config */
	u64(1);			/* sample_period */
	u64(1 | 2 | 4 | 65536);	/* IP | TID | TIME | IDENTIFIER */
	u64(0);			/* read_format */
	u64((1ull << 18) | (1ull << 5) | (1ull << 6));	/* sample_id_all, exclude_kernel, exclude_hv */
	while (len < attr + 128)
		u64(0);
	u64(attr + 144);	/* ids */
	u64(8);
	u64(1);
	size_t data = len;

	size_t r = begin_rec(70, 0);	/* AUXTRACE_INFO */
	u32(1);
	u32(0);
	uint64_t priv[17] = {PMU_TYPE, 0, 1, 0, 0, 10, 11, 0, 0, 0, 9, 14, 0, 0, 1, 0, 0};
	for (int i = 0; i < 17; i++)
		u64(priv[i]);
	end_rec(r);

	r = begin_rec(3, 0x2000);	/* COMM (exec) */
	u32(PID);
	u32(PID);
	put("calls\0\0\0", 8);
	trailer();
	end_rec(r);

	FILE *rec = fopen(argv[a + 1], "r");
	if (!rec)
		return 1;
	char line[4300];
	while (fgets(line, sizeof line, rec)) {
		uint64_t s, e, o;
		char path[4096];
		if (sscanf(line, "map %" SCNx64 " %" SCNx64 " %" SCNx64 " %4095s", &s, &e, &o, path) != 4)
			continue;
		bool vdso = strstr(path, ".vdso") != NULL;
		r = begin_rec(10, 2);	/* MMAP2, user */
		u32(PID);
		u32(PID);
		u64(s);
		u64(e - s);
		u64(vdso ? 0 : o);
		u32(0);
		u32(0);
		u64(0);
		u64(0);
		u32(5);		/* PROT_READ | PROT_EXEC */
		u32(2);		/* MAP_PRIVATE */
		const char *name = vdso ? "[vdso]" : path;
		put(name, strlen(name) + 1);
		pad8();
		trailer();
		end_rec(r);
	}
	fclose(rec);

	r = begin_rec(12, 0);	/* ITRACE_START */
	u32(PID);
	u32(PID);
	trailer();
	end_rec(r);

	for (int buf = 0; buf < (second ? 2 : 1); buf++) {
		uint64_t aux_off = 0;
		size_t step = (ptlen / chunks + 7) & ~(size_t)7;
		for (unsigned c = 0, done = 0; c < chunks; c++) {
			size_t n = c + 1 == chunks ? ptlen - done : (step < ptlen - done ? step : ptlen - done);
			size_t padded = (n + 7) & ~(size_t)7;
			r = begin_rec(71, 0);	/* AUXTRACE */
			u64(padded);
			u64(aux_off);
			u64(0);
			u32((uint32_t)buf);
			u32(PID);
			u32(second ? (uint32_t)buf : UINT32_MAX);
			u32(0);
			end_rec(r);
			put(pt + done, n);
			pad8();
			r = begin_rec(11, 0);	/* AUX */
			u64(aux_off);
			u64(padded);
			u64((int)c == lose ? 1 : 0);
			trailer();
			end_rec(r);
			aux_off += padded;
			if ((int)c == lose)
				aux_off += 4096;
			done += n;
		}
	}
	if (compressed) {
		r = begin_rec(81, 0);
		u64(0);
		end_rec(r);
	}
	set64(data_hdr, data);
	set64(data_hdr + 8, len - data);
	if (cpuid) {
		size_t table = len;
		u64(0);
		u64(0);
		size_t s = len;
		uint32_t n = (uint32_t)((strlen(cpuid) + 1 + 7) & ~7u);
		u32(n);
		put(cpuid, strlen(cpuid));
		while (len < s + 4 + n)
			put("", 1);
		set64(table, s);
		set64(table + 8, len - s);
	}
	f = fopen(argv[a + 2], "wb");
	if (!f || fwrite(out, 1, len, f) != len || fclose(f) != 0)
		return 1;
	return 0;
}
