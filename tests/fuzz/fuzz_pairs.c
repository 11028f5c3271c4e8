/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: what `rdma-doctor pairs` reads, on any bytes: rdma-doctor/pair/v1 results (the
 * first byte even) or a Slurm topology.conf (odd), then the judgement and the next round.  A read
 * either fails with a reason or adds its documents; every sample names two different known nodes;
 * the next round is disjoint and never pairs a node with itself or with a bad node. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pairs/pairs.h"
#include "pairs/results_in.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	struct rd_pairs p = {0};
	char err[400] = "";
	if (data[0] & 1) {
		char *text = rd_xstrndup((const char *)data + 1, size - 1);
		if (rd_pairs_set_nodes(&p, "n[1-9],h[01-20]", err, sizeof err) < 0)
			abort();
		if (rd_pairs_set_topology(&p, text, err, sizeof err) < 0 && !err[0])
			abort();
		struct rd_pairs_round r[3];
		size_t n = rd_pairs_plan(&p, RD_PAIRS_RACK, 1, 3, r);
		for (size_t k = 0; k < n; k++)
			rd_pairs_round_free(&r[k]);
		free(text);
		rd_pairs_free(&p);
		return 0;
	}
	int r = rd_pairs_read_results(&p, (const char *)data + 1, size - 1, true, err, sizeof err);
	if (r < 0 && !err[0])
		abort();
	for (size_t i = 0; i < p.nsamples; i++)
		if (p.samples[i].a >= p.nodes.n || p.samples[i].b >= p.nodes.n || p.samples[i].a == p.samples[i].b)
			abort();
	if (p.nodes.n >= 2) {
		rd_pairs_judge(&p);
		struct rd_pairs_round next;
		rd_pairs_plan_next(&p, &next);
		unsigned char *used = calloc(p.nodes.n, 1);
		for (size_t i = 0; i < next.n; i++) {
			size_t a = next.v[i].a, b = next.v[i].b;
			if (a == b || used[a] || used[b] || p.state[a] == RD_PAIRS_BAD || p.state[b] == RD_PAIRS_BAD)
				abort();
			used[a] = used[b] = 1;
		}
		free(used);
		rd_pairs_round_free(&next);
	}
	rd_pairs_free(&p);
	return 0;
}
