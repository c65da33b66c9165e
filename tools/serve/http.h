/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: the HTTP side (libmicrohttpd).
 *
 * Every request needs the run's token (?token=T, or the X-Tracekit-Token
 * header): without it the answer is 403.  Only GET and HEAD are served,
 * with no request body; paths are "/" (the page), "/assets/NAME" (files
 * embedded at build time) and "/api/v1/ROUTE" (serve.h); nothing is ever
 * read from the file system by a request's name.  On a loopback address the
 * Host header must name the server too (no DNS rebinding).  Each connection
 * has its own thread, up to a limit; request headers are bounded by the
 * connection's memory limit and answers by TKS_MAX_RESPONSE.
 */
#ifndef TRACEKIT_SERVE_HTTP_H
#define TRACEKIT_SERVE_HTTP_H

#include <stdbool.h>
#include <stdint.h>

#include "serve.h"

typedef struct tks_http tks_http;

typedef struct tks_http_opts {
	const char *bind;	/* address to listen on: "127.0.0.1", "::1", ... */
	uint16_t port;		/* 0: any free port */
	const char *token;
	bool verbose;		/* log each request to stderr */
} tks_http_opts;

/* Start listening and serving on threads of the library.  Returns 0 and
 * *out, or -1 with a message in err. */
int tks_http_start(tks_server *s, const tks_http_opts *o, tks_http **out, char *err,
		   size_t errlen);
/* The port listened on. */
uint16_t tks_http_port(const tks_http *h);
/* Stop: no new connections, wait for the requests being answered. */
void tks_http_stop(tks_http *h);

/* The embedded page files (generated at build time from tools/serve/web). */
typedef struct tks_asset {
	const char *name;
	const char *type;
	const unsigned char *data;
	unsigned long len;
} tks_asset;
extern const tks_asset tks_assets[];
extern const unsigned long tks_nassets;

#endif
