/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT: cutting a stream into pieces of whole PSB segments.
 *
 * The PSBs are found with the packet decoder.  A cut is made at the first
 * PSB at least piece_bytes after the piece's start whose PSB+ the query
 * decoder accepts; the IP it gives (or none: tracing off there) is where
 * the previous piece's decoding must stop.  Gaps (missing perf data) always
 * end a piece.  The cuts depend only on the data and piece_bytes. */
#include <stdlib.h>

#include "pt_decode.h"

struct piece_list {
	struct piece *v;
	unsigned n, cap;
};

static int push_piece(struct piece_list *l, struct piece p)
{
	if (l->n == l->cap) {
		unsigned ncap = l->cap ? l->cap * 2 : 16;
		struct piece *nv = realloc(l->v, ncap * sizeof *nv);
		if (!nv)
			return TK_ERR_NOMEM;
		l->v = nv;
		l->cap = ncap;
	}
	l->v[l->n++] = p;
	return 0;
}

/* Cut the contiguous run [s, e) of the stream. */
static int split_run(const tk_pt *pt, const struct pt_stream *st, uint64_t s, uint64_t e,
		     uint64_t piece_bytes, int gap_after, struct piece_list *l)
{
	const uint8_t *base = st->info.data + s;
	struct pt_config cfg;
	tk_pt_config(pt, &cfg, base, st->info.data + e);
	struct pt_packet_decoder *pkt = pt_pkt_alloc_decoder(&cfg);
	struct pt_query_decoder *qry = pt_qry_alloc_decoder(&cfg);
	if (!pkt || !qry) {
		pt_pkt_free_decoder(pkt);
		pt_qry_free_decoder(qry);
		return TK_ERR_NOMEM;
	}
	uint64_t start = 0;	/* relative to s */
	int rc = 0;
	while (pt_pkt_sync_forward(pkt) >= 0) {
		uint64_t off;
		if (pt_pkt_get_sync_offset(pkt, &off) < 0)
			break;
		if (off < start + piece_bytes)
			continue;
		uint64_t ip = 0;
		int status = pt_qry_sync_set(qry, &ip, off);
		if (status < 0)
			continue;	/* a damaged PSB+: no cut here */
		struct piece p = {.begin = s + start, .end = s + off};
		if (status & pts_ip_suppressed) {
			p.how = PIECE_END_DISABLED;
		} else {
			p.how = PIECE_END_AT_IP;
			p.boundary_ip = ip;
		}
		if ((rc = push_piece(l, p)) < 0)
			break;
		start = off;
	}
	if (rc == 0) {
		struct piece p = {.begin = s + start, .end = e, .how = PIECE_END_TRACE,
				  .gap_after = gap_after};
		rc = push_piece(l, p);
	}
	pt_pkt_free_decoder(pkt);
	pt_qry_free_decoder(qry);
	return rc;
}

int tk_pt_split(const tk_pt *pt, const struct pt_stream *st, uint64_t piece_bytes,
		struct piece **out, unsigned *count)
{
	struct piece_list l = {0};
	uint64_t s = 0;
	int rc = 0;
	for (uint32_t g = 0; g <= st->ngaps && rc == 0; g++) {
		uint64_t e = g < st->ngaps ? st->gaps[g].offset : st->info.size;
		if (e > st->info.size)
			e = st->info.size;
		if (e < s)
			e = s;
		int gap_after = g < st->ngaps ? (int)g + 1 : 0;
		if (e > s)
			rc = split_run(pt, st, s, e, piece_bytes, gap_after, &l);
		else if (gap_after)
			rc = push_piece(&l, (struct piece){.begin = s, .end = s,
							   .how = PIECE_END_TRACE,
							   .gap_after = gap_after});
		s = e;
	}
	if (rc < 0) {
		free(l.v);
		return rc;
	}
	*out = l.v;
	*count = l.n;
	return 0;
}
