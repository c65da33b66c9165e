/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: libFuzzer target for the perf.data reader (records, AUXTRACE
 * joining, gaps, MMAP images, HEADER_CPUID), then the dump and the
 * decoders on whatever streams it finds. */
#include <stddef.h>
#include <stdint.h>

#include "pt_fuzz_code.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tk_fuzz_pt_write_code();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tk_pt_opts o;
	tk_pt_opts_init(&o);
	o.format = TK_PT_FORMAT_PERF;
	tk_pt *pt;
	if (tk_pt_open_mem(data, size, "fuzz.data", &o, &pt) < 0)
		return 0;
	for (unsigned i = 0; i < tk_pt_image_count(pt); i++)
		tk_fuzz_sink += (unsigned)tk_pt_image(pt, i)->start;
	tk_fuzz_pt_dump_all(pt);
	tk_fuzz_pt_decode_all(pt, 1);
	tk_pt_free(pt);
	return 0;
}
