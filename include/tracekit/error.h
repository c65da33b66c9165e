/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: error codes.
 *
 * Fallible library functions return int: zero (or a small positive status)
 * on success, a negative tk_err value on failure.  The library never prints
 * and never exits; tk_strerror() turns a code into a message.
 */
#ifndef TRACEKIT_ERROR_H
#define TRACEKIT_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum tk_err {
	TK_OK = 0,
	TK_ERR_NOMEM = -1,	/* out of memory */
	TK_ERR_IO = -2,		/* read/write error (see errno) */
	TK_ERR_OPEN = -3,	/* cannot open file (see errno) */
	TK_ERR_ISDIR = -4,	/* path is a directory */
	TK_ERR_EMPTY = -5,	/* input is empty */
	TK_ERR_FORMAT = -6,	/* input is not in the expected format */
	TK_ERR_PARSE = -7,	/* a line could not be parsed */
	TK_ERR_INVAL = -8,	/* invalid argument */
	TK_ERR_NOTFOUND = -9,	/* no such symbol / register / position */
	TK_ERR_ELF = -10,	/* ELF image could not be read */
	TK_ERR_BINARY = -11,	/* input looks like binary data, not text */
	TK_ERR_UNSUPPORTED = -12, /* feature not supported */
	TK_ERR_CORRUPT = -13,	/* a file (e.g. an index) is corrupt */
	TK_ERR_EOF = -14,	/* unexpected end of input */
	TK_ERR_STALE = -15,	/* an index that does not describe the trace now */
};

/* A static English message for an error code; never NULL. */
const char *tk_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif
