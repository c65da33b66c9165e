/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An `rtrace save` file, written the way RTEMS's shell command does from
 * the trace linker's tables and the trace buffer: "RTEMS-TRACE\0", the
 * byte-order mark 0x11223344, the number of functions, their names, their
 * signatures (argc, then {size, type} pairs), the used buffer words; all
 * in the target's byte order. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct sig_arg {
	uint32_t size;
	const char *type;
};

struct sig {
	uint32_t argc;
	const struct sig_arg *args;
};

extern uint32_t __rtld_trace_names_size;
extern const char *const __rtld_trace_names[];
extern const struct sig __rtld_trace_signatures[];
extern uint32_t __rtld_tbg_buffer[];
extern volatile uint32_t __rtld_tbg_buffer_in;

int rtrace_save(const char *path)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	uint32_t bom = 0x11223344, n = __rtld_trace_names_size, in = __rtld_tbg_buffer_in;
	fwrite("RTEMS-TRACE", 1, 12, f);
	fwrite(&bom, 4, 1, f);
	fwrite(&n, 4, 1, f);
	for (uint32_t i = 0; i < n; i++)
		fwrite(__rtld_trace_names[i], 1, strlen(__rtld_trace_names[i]) + 1, f);
	for (uint32_t i = 0; i < n; i++) {
		const struct sig *s = &__rtld_trace_signatures[i];
		fwrite(&s->argc, 4, 1, f);
		for (uint32_t a = 0; a < s->argc; a++) {
			fwrite(&s->args[a].size, 4, 1, f);
			fwrite(s->args[a].type, 1, strlen(s->args[a].type) + 1, f);
		}
	}
	fwrite(__rtld_tbg_buffer, 4, in, f);
	return fclose(f) == 0 ? 0 : -1;
}
