/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fleet's pairs reader: one `rdma-doctor pairs --results ... --format json` document (schema
 * rdma-doctor/pairs/v1), given to fleet with --pairs FILE.  Kept: the counts, the median, the
 * hosts by state (hostlists as written) and every finding (id, status, host, peer, rail,
 * message, Gb/s); the rest is skipped, whatever its value.
 *
 * Ownership: struct rd_fleet_pairs owns every string and array in it (rd_fleet_pairs_free); the
 * parser borrows its input; err is the caller's.  Library code: nothing here prints. */
#ifndef RD_FLEET_PAIRS_IN_H
#define RD_FLEET_PAIRS_IN_H
#include <stdbool.h>
#include <stddef.h>

#include "fleet/report_in.h"

#define RD_FLEET_PAIRS_SCHEMA "rdma-doctor/pairs/v1"
#define RD_FLEET_PAIRS_MAX_FINDINGS 65536 /* past it the rest is counted, not kept */

struct rd_fleet_pairs_finding {
	char *id;          /* "pairs.bandwidth" (a slow node), "pairs.link" (a slow pair) ... */
	enum rd_fleet_status status;
	char *host, *peer; /* peer NULL for a node's finding */
	char *rail, *message;
	double gbps;       /* -1: none */
};

struct rd_fleet_pairs {
	char *origin;      /* the file it was read from */
	unsigned long long nodes, rounds, samples;
	double median;     /* -1: none */
	char *bad, *suspect, *untested, *cleared; /* hosts.* hostlists, "" when absent */
	struct rd_fleet_pairs_finding *finds;
	size_t nfinds, finds_cut;
	size_t nfail, nwarn, nunknown; /* the findings by status, all of them */
	enum rd_fleet_status status;   /* the worst finding's (a bad host FAIL); OK without one */
};

/* Parses the document (len bytes) into p (zeroed first).  0, or -EINVAL with a one-line reason
 * in err; -ENOSYS: yajl could not be loaded.  On an error p holds nothing. */
int rd_fleet_pairs_parse(struct rd_fleet_pairs *p, const char *data, size_t len, char *err, size_t errlen);
void rd_fleet_pairs_free(struct rd_fleet_pairs *p);

#endif
