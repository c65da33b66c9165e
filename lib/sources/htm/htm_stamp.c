/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: HTM stamp words (bits 0-19 = 0xACEFF): record counters, end and
 * pause cycle counts, marks, syncs and timestamps.  They never change the
 * decoded instructions. */
#include <stdio.h>
#include <string.h>

#include "sources/htm/htm_impl.h"
#include "tracekit/error.h"

int tk_htm_stamp_decode(uint64_t w, tk_htm_stamp *s)
{
	memset(s, 0, sizeof *s);
	s->word = w;
	unsigned type = (unsigned)(w >> 40) & 0xF;	/* low nibble of bits 0-23 */
	if (!htm_is_stamp(w))
		return TK_ERR_CORRUPT;
	switch (type) {
	case 0:
		s->kind = TK_HTM_STAMP_RECORD;
		s->counter = (uint32_t)(w >> 32) & 0xFF;
		return 0;
	case 1:
	case 2:
		s->kind = type == 1 ? TK_HTM_STAMP_COMPLETE : TK_HTM_STAMP_PAUSE;
		s->cycles = (uint32_t)(w & 0xFFFFFFF);
		return 0;
	case 3:
		s->kind = TK_HTM_STAMP_MARK;
		s->group = (uint16_t)((w >> 36) & 0xF);
		s->chip = (uint16_t)((w >> 33) & 0x7);
		s->unit = (uint16_t)((w >> 23) & 0x3FF);
		s->marker = (uint16_t)((w >> 11) & 0xFFF);
		s->dropped = w & 1;
		return ((w >> 1) & 0x3FF) ? TK_ERR_CORRUPT : 0;	/* reserved bits 53-62 */
	case 4:
		s->kind = TK_HTM_STAMP_SYNC;
		return 0;
	case 5:
	case 6:
	case 7:
		return TK_ERR_CORRUPT;
	default:
		s->kind = TK_HTM_STAMP_TIME;
		s->indicator = (uint8_t)(w >> 36);
		s->cycles = (uint32_t)(w & 0xFFFFFFF);
		s->counter = (uint32_t)(w >> 28) & 0xFF;
		return 0;
	}
}

size_t tk_htm_stamp_text(const tk_htm_stamp *s, char *buf, size_t size)
{
	int n = 0;
	switch (s->kind) {
	case TK_HTM_STAMP_RECORD:
		n = snprintf(buf, size, "REC  counter = %d", (int)s->counter);
		break;
	case TK_HTM_STAMP_COMPLETE:
		n = snprintf(buf, size, "END  cycles = %d", (int)s->cycles);
		break;
	case TK_HTM_STAMP_PAUSE:
		n = snprintf(buf, size, "PAUSEcycles = %d", (int)s->cycles);
		break;
	case TK_HTM_STAMP_MARK:
		n = snprintf(buf, size, "MARK group = %d, chip = %d, unit = %d, marker = %d, set = %d",
			     s->group, s->chip, s->unit, s->marker, s->dropped ? 1 : 0);
		break;
	case TK_HTM_STAMP_SYNC:
		n = snprintf(buf, size, "SYNC ");
		break;
	case TK_HTM_STAMP_TIME:
		switch (s->indicator) {
		case 0x80: n = snprintf(buf, size, "TIME cycles = %d", (int)s->cycles); break;
		case 0x90: n = snprintf(buf, size, "TIME markers dropped"); break;
		case 0xA0:
			n = snprintf(buf, size, "TIME record dropped counter overflow, counter= %d",
				     (int)s->counter);
			break;
		case 0xB0: n = snprintf(buf, size, "TIME elapsed time overflow"); break;
		case 0x88: n = snprintf(buf, size, "TIME CResp record dropped"); break;
		case 0x84: n = snprintf(buf, size, "TIME trigger dropped"); break;
		case 0x82: n = snprintf(buf, size, "TIME trace full asserted"); break;
		default: n = snprintf(buf, size, "TIME unknown indicator 0x%02x", s->indicator); break;
		}
		break;
	}
	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : (size ? size - 1 : 0);
}
