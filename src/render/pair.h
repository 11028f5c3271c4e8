/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor pair`: one measurement between two hosts, through the one text/JSON printing
 * path.  The JSON is `rdma-doctor/pair/v1` (pairs/results_in.h reads it: `pairs --results`).
 *
 * Ownership: borrows the result and the writer, and keeps nothing. */
#ifndef RD_RENDER_PAIR_H
#define RD_RENDER_PAIR_H
#include "probe/pair.h"
#include "render/out.h"

struct rd_pair_meta {
	const char *server, *client; /* host names ("?" when the hello never came) */
	int round;                   /* 1.. (pairs' round), 0 for none */
	bool server_side;            /* the result is the server's: its rails are the server's */
};

void rd_render_pair(struct rd_out *o, const struct rd_pair_result *r, const struct rd_pair_meta *m);

#endif
