/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor pairs`: the planned rounds, and the judgement of the measured ones, through the one
 * text/JSON printing path.  The judgement's JSON is `rdma-doctor/pairs/v1`.
 *
 * Ownership: borrows the pairs, the rounds and the writer, and keeps nothing. */
#ifndef RD_RENDER_PAIRS_H
#define RD_RENDER_PAIRS_H
#include "pairs/pairs.h"
#include "render/out.h"

#define RD_PAIRS_SCHEMA "rdma-doctor/pairs/v1"

/* JSON {"rounds": [[["A", "B"], ...], ...]}; text one block per round ("round FIRST", ...), its
 * idle nodes named. */
void rd_render_pairs_plan(struct rd_out *o, const struct rd_pairs *p, const struct rd_pairs_round *r, size_t n,
			  int first);
/* The verdicts of the last rd_pairs_judge: the run's distribution, each finding with its
 * evidence (the drain reason of a bad node: "pairs.bandwidth NODE rail RAIL: G Gb/s, peers median
 * M"), the nodes still suspect, and the next round that would settle them. */
void rd_render_pairs(struct rd_out *o, const struct rd_pairs *p, const struct rd_pairs_round *next);
/* The one-line text of a finding, as the drain reason and the report print it (owned by the caller). */
char *rd_pairs_finding_text(const struct rd_pairs *p, const struct rd_pairs_finding *f);
/* Its id: pairs.bandwidth (a bad node), pairs.link, pairs.line_rate */
const char *rd_pairs_finding_id(const struct rd_pairs_finding *f);

#endif
