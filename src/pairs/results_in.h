/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The results of pair measurements: `rdma-doctor/pair/v1` JSON documents, one per measured pair,
 * one after another in a file (what the pair steps of a round print, concatenated):
 *   {"schema": "rdma-doctor/pair/v1", "round": 1, "server": "node01", "client": "node02",
 *    "rails": [{"server_device": "mlx5_0", "client_device": "mlx5_0", "gbps": 389.5,
 *               "line_gbps": 400, "lat_us": 2.4, "error": null}, ...],
 *    "error": null}
 * A rail with an error (refused, timed out, the peer gone) and no gbps is a failed sample; a
 * document with an error and no rails is one failed sample on a rail named "-".  Keys this
 * reader does not know are skipped, whatever their value.
 *
 * Ownership: the reader borrows p and adds the samples (and the nodes they name, when p does not
 * list them yet and add_nodes is true) to it; err is the caller's. */
#ifndef RD_PAIRS_RESULTS_IN_H
#define RD_PAIRS_RESULTS_IN_H
#include <stdbool.h>
#include <stddef.h>

#include "pairs/pairs.h"

#define RD_PAIRS_SCHEMA_PAIR "rdma-doctor/pair/v1"
#define RD_PAIRS_MAX_RAILS 64

/* Reads every document of data (len bytes).  Returns the number of documents added, or -EINVAL
 * with the first problem in err ("document 3: no \"server\"", "not JSON (...)", a host that is not
 * among the nodes when !add_nodes); the documents before the problem are kept.  -ENOSYS: yajl
 * could not be loaded (err says why). */
int rd_pairs_read_results(struct rd_pairs *p, const char *data, size_t len, bool add_nodes, char *err,
			  size_t errlen);

#endif
