/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: HTTP with libmicrohttpd (see http.h). */
#ifdef TK_HAVE_MICROHTTPD
#include "http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#define MAX_CONNECTIONS 128
#define CONNECTION_MEMORY (160u << 10)	/* request line + headers + URL */
#define CONNECTION_TIMEOUT 60		/* seconds idle */
#define THREAD_STACK (2u << 20)

struct tks_http {
	struct MHD_Daemon *d;
	tks_server *s;
	char token[160];
	char host_ok[3][80];	/* Host headers accepted on a loopback bind */
	bool check_host;
	bool verbose;
	uint16_t port;
	char *page;		/* index.html with the token filled in */
	size_t page_len;
};

static const char csp[] =
	"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

static enum MHD_Result respond(struct MHD_Connection *c, int status, const char *type,
			    void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Content-Security-Policy", csp);
	enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result send_error(struct MHD_Connection *c, int status, const char *msg)
{
	json_t *j = json_pack("{s:s,s:i}", "error", msg, "status", status);
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!s)
		return MHD_NO;
	return respond(c, status, "application/json", s, strlen(s), MHD_RESPMEM_MUST_FREE);
}

/* Compare without leaking the position of the first difference. */
static bool same_token(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;
	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

static const char *param(void *ctx, const char *key)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, key);
}

static enum MHD_Result serve_asset(struct MHD_Connection *c, tks_http *h, const char *name)
{
	for (unsigned long i = 0; i < tks_nassets; i++)
		if (!strcmp(tks_assets[i].name, name))
			return respond(c, 200, tks_assets[i].type, (void *)tks_assets[i].data,
				    tks_assets[i].len, MHD_RESPMEM_PERSISTENT);
	return send_error(c, 404, "no such page file");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	tks_http *h = cls;
	(void)version;
	(void)upload;
	if (!*con_cls) {
		/* First call: headers only.  A body is never wanted: answer
		 * before it is read (the connection is then closed). */
		*con_cls = h;
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
		const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding");
		if ((cl && strcmp(cl, "0")) || te)
			return send_error(c, 413, "requests have no body");
		if (strcmp(method, "GET") && strcmp(method, "HEAD"))
			return send_error(c, 405, "only GET and HEAD");
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;	/* not reached: bodies are refused above */
		return MHD_YES;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return send_error(c, 405, "only GET and HEAD");
	if (h->check_host) {
		const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
		bool ok = false;
		for (int i = 0; host && i < 3 && !ok; i++)
			ok = !strcasecmp(host, h->host_ok[i]);
		if (!ok)
			return send_error(c, 403, "wrong Host header");
	}
	const char *tok = param(c, "token");
	if (!tok)
		tok = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Tracekit-Token");
	if (!tok || !same_token(tok, h->token))
		return send_error(c, 403, "this server needs the token of the link it printed");
	if (h->verbose)
		fprintf(stderr, "tracekit serve: %s %s\n", method, url);
	if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
		return respond(c, 200, "text/html; charset=utf-8", h->page, h->page_len,
			    MHD_RESPMEM_PERSISTENT);
	if (!strncmp(url, "/assets/", 8))
		return serve_asset(c, h, url + 8);
	if (!strncmp(url, "/api/v1/", 8)) {
		tks_request rq = {url + 8, param, c};
		char *body = NULL;
		size_t len = 0;
		int status = tks_api_handle(h->s, &rq, &body, &len);
		if (!body)
			return MHD_NO;
		return respond(c, status, "application/json", body, len, MHD_RESPMEM_MUST_FREE);
	}
	return send_error(c, 404, "no such page");
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
	tks_http *h = cls;
	if (!h->verbose)
		return;
	fprintf(stderr, "tracekit serve: libmicrohttpd: ");
	vfprintf(stderr, fmt, ap);
}

/* index.html with every @TOKEN@ replaced by the token. */
static int make_page(tks_http *h)
{
	const tks_asset *a = NULL;
	for (unsigned long i = 0; i < tks_nassets; i++)
		if (!strcmp(tks_assets[i].name, "index.html"))
			a = &tks_assets[i];
	if (!a)
		return -1;
	size_t tl = strlen(h->token), n = 0;
	h->page = malloc(a->len * 2 + tl * 64 + 1);
	if (!h->page)
		return -1;
	for (unsigned long i = 0; i < a->len;) {
		if (i + 7 <= a->len && !memcmp(a->data + i, "@TOKEN@", 7)) {
			memcpy(h->page + n, h->token, tl);
			n += tl;
			i += 7;
		} else {
			h->page[n++] = (char)a->data[i++];
		}
	}
	h->page_len = n;
	return 0;
}

int tks_http_start(tks_server *s, const tks_http_opts *o, tks_http **out, char *err,
		   size_t errlen)
{
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	struct sockaddr *sa;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
	memset(&sin, 0, sizeof sin);
	memset(&sin6, 0, sizeof sin6);
	bool loopback;
	if (inet_pton(AF_INET, o->bind, &sin.sin_addr) == 1) {
		sin.sin_family = AF_INET;
		sin.sin_port = htons(o->port);
		sa = (struct sockaddr *)&sin;
		loopback = (ntohl(sin.sin_addr.s_addr) >> 24) == 127;
	} else if (inet_pton(AF_INET6, o->bind, &sin6.sin6_addr) == 1) {
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons(o->port);
		sa = (struct sockaddr *)&sin6;
		flags |= MHD_USE_IPv6;
		loopback = IN6_IS_ADDR_LOOPBACK(&sin6.sin6_addr);
	} else {
		snprintf(err, errlen, "--bind: '%s' is not an IPv4 or IPv6 address", o->bind);
		return -1;
	}
	tks_http *h = calloc(1, sizeof *h);
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	h->s = s;
	h->verbose = o->verbose;
	snprintf(h->token, sizeof h->token, "%s", o->token);
	if (make_page(h)) {
		snprintf(err, errlen, "the page is missing from this build");
		free(h);
		return -1;
	}
	h->d = MHD_start_daemon(flags, o->port, NULL, NULL, handle, h,
				MHD_OPTION_SOCK_ADDR, sa,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT,
				MHD_OPTION_THREAD_STACK_SIZE, (size_t)THREAD_STACK,
				MHD_OPTION_EXTERNAL_LOGGER, log_mhd, h,
				MHD_OPTION_END);
	if (!h->d) {
		snprintf(err, errlen, "cannot listen on %s port %u (in use, or not an address of "
			 "this machine)", o->bind, o->port);
		free(h->page);
		free(h);
		return -1;
	}
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = di ? di->port : o->port;
	h->check_host = loopback;
	snprintf(h->host_ok[0], sizeof h->host_ok[0], "127.0.0.1:%u", h->port);
	snprintf(h->host_ok[1], sizeof h->host_ok[1], "localhost:%u", h->port);
	snprintf(h->host_ok[2], sizeof h->host_ok[2], "[::1]:%u", h->port);
	if (loopback && sa == (struct sockaddr *)&sin && strcmp(o->bind, "127.0.0.1"))
		snprintf(h->host_ok[2], sizeof h->host_ok[2], "%s:%u", o->bind, h->port);
	*out = h;
	return 0;
}

uint16_t tks_http_port(const tks_http *h)
{
	return h->port;
}

void tks_http_stop(tks_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	free(h->page);
	free(h);
}
#endif
