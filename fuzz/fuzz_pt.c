/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: libFuzzer target for raw Intel PT: the packet dump and both
 * libipt decoders through tracekit's pieces and threads (the first byte
 * picks one or two threads), against a small code image. */
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
	o.format = TK_PT_FORMAT_RAW;
	tk_pt *pt;
	if (tk_pt_open_mem(data, size, "fuzz.pt", &o, &pt) < 0)
		return 0;
	if (tk_pt_add_raw(pt, TK_FUZZ_PT_CODE_PATH, TK_FUZZ_PT_CODE_ADDR) == 0) {
		tk_fuzz_pt_dump_all(pt);
		tk_fuzz_pt_decode_all(pt, size && (data[size - 1] & 1) ? 2 : 1);
	}
	tk_pt_free(pt);
	return 0;
}
