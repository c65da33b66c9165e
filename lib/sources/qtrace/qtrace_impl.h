/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: Qtrace flag words and the radix-block codec shared by
 * the reader and the writer. */
#ifndef TRACEKIT_QTRACE_IMPL_H
#define TRACEKIT_QTRACE_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "tracekit/qtrace.h"

/* Header flags (hdr_flags). */
enum {
	QTH_MAGIC = 0x8000, QTH_VERSION = 0x4000, QTH_IAR = 0x2000, QTH_IAR_VSID = 0x1000,
	QTH_IAR_RPN = 0x0800, QTH_IAR_PAGE_SIZE = 0x0040, QTH_IAR_GPAGE_SIZE = 0x0010,
	QTH_COMMENT = 0x0002,
	QTH_KNOWN = 0xF852,
};

/* Primary record flags. */
enum {
	QTF_IAR_CHANGE = 0x8000, QTF_NODE = 0x4000, QTF_TERMINATION = 0x2000,
	QTF_PROCESSOR = 0x1000, QTF_DATA_ADDRESS = 0x0800, QTF_DATA_VSID = 0x0400,
	QTF_DATA_RPN = 0x0200, QTF_LENGTH = 0x0100, QTF_DATA = 0x0080, QTF_IAR = 0x0040,
	QTF_IAR_VSID = 0x0020, QTF_IAR_RPN = 0x0010, QTF_REGISTER_TRACE = 0x0008,
	QTF_EXTENDED = 0x0001,
	QTF_UNKNOWN = 0x0006,
};

/* First extended flags. */
enum {
	QTF2_SEQ_RPN = 0x4000, QTF2_TRACE_ERROR = 0x1000, QTF2_IAR_PAGE_SIZE = 0x0200,
	QTF2_DATA_PAGE_SIZE = 0x0100, QTF2_SEQ_PAGE_SIZE = 0x0020,
	QTF2_INSN_GPAGE_SIZE = 0x0008, QTF2_DATA_GPAGE_SIZE = 0x0004,
	QTF2_FILE_HEADER = 0x0002, QTF2_EXTENDED2 = 0x0001,
	QTF2_KNOWN = 0x533F,
};

/* Second extended flags: translation modes (2 bits each). */
enum {
	QTF3_DATA_HOST_SHIFT = 14, QTF3_DATA_GUEST_SHIFT = 12,
	QTF3_INSN_HOST_SHIFT = 10, QTF3_INSN_GUEST_SHIFT = 8,
	QTF3_PTCR = 0x0080, QTF3_LPID = 0x0040, QTF3_PID = 0x0020,
};

enum { QT_MODE_RADIX = 0, QT_MODE_REAL = 1, QT_MODE_HPT = 2, QT_MODE_NOT_DEFINED = 3 };

/* The two mode bits of a side for a walk of this shape (the walk exists). */
static inline unsigned qt_walk_guest_mode(const tk_qt_walk *w)
{
	if (w->nr_walks > 1)
		return QT_MODE_RADIX;
	switch (w->type) {
	case TK_QT_WALK_GUEST_REAL: return QT_MODE_REAL;
	case TK_QT_WALK_UNSPECIFIED: return QT_MODE_HPT;
	default: return QT_MODE_NOT_DEFINED;
	}
}

static inline bool qt_walk_present(const tk_qt_walk *w)
{
	return w && w->nr_ptes > 0 && w->nr_walks > 0;
}

#endif
