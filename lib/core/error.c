/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: error messages. */
#include "tracekit/error.h"

const char *tk_strerror(int err)
{
	switch (err) {
	case TK_OK: return "success";
	case TK_ERR_NOMEM: return "out of memory";
	case TK_ERR_IO: return "read or write error";
	case TK_ERR_OPEN: return "cannot open file";
	case TK_ERR_ISDIR: return "is a directory";
	case TK_ERR_EMPTY: return "file is empty";
	case TK_ERR_FORMAT: return "not in the expected format";
	case TK_ERR_PARSE: return "malformed line";
	case TK_ERR_INVAL: return "invalid argument";
	case TK_ERR_NOTFOUND: return "not found";
	case TK_ERR_ELF: return "not a readable ELF image with symbols";
	case TK_ERR_BINARY: return "binary data, not a text trace";
	case TK_ERR_UNSUPPORTED: return "not supported";
	case TK_ERR_CORRUPT: return "file is corrupt";
	case TK_ERR_EOF: return "unexpected end of input";
	case TK_ERR_STALE: return "the index does not describe the trace as it is now";
	}
	return "unknown error";
}
