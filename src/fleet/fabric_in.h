/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fleet's fabric reader: one `rdma-doctor fabric --format json` document (schema
 * rdma-doctor/fabric/v1, docs/fabric.md), given to fleet with --fabric FILE.  Kept: the verdict
 * (summary.status), the counts, every link with both ends (each end named by its node's
 * description in nodes[] when it has one, as fabric's findings name it), width and speed against
 * what they could be, and every finding (check, status, subject, message); each link is given the
 * worst status of the findings naming it ("DESC[PORT] - DESC[PORT]", either way round).
 * Counters, evidence and fixes are skipped.  Keys this reader does not know are skipped,
 * whatever their value.
 *
 * Ownership: struct rd_fleet_fabric owns every string and array in it (rd_fleet_fabric_free);
 * the parser borrows its input; err is the caller's.  Library code: nothing here prints. */
#ifndef RD_FLEET_FABRIC_IN_H
#define RD_FLEET_FABRIC_IN_H
#include <stdbool.h>
#include <stddef.h>

#include "fleet/report_in.h"

#define RD_FLEET_FABRIC_SCHEMA "rdma-doctor/fabric/v1"
/* Bounds: past them the rest is counted, not kept. */
#define RD_FLEET_FABRIC_MAX_LINKS 262144
#define RD_FLEET_FABRIC_MAX_FINDINGS 65536
#define RD_FLEET_FABRIC_MAX_MSG 1024 /* bytes of a kept message (RD_FLEET_MAX_STR for the rest) */

struct rd_fleet_fab_end {
	char *guid;   /* "0x0002c90300000001", or "" */
	unsigned port;
	char *kind;   /* "CA", "SW", "RT", "?" */
	char *desc;   /* the node description, or "" */
};

struct rd_fleet_fab_link {
	struct rd_fleet_fab_end a, b; /* b valid when has_peer */
	bool has_peer;
	unsigned width, could_width;  /* 0: down, unknown, or (could_*) none printed */
	double speed, could_speed;    /* Gb/s per lane */
	char *speed_name;             /* "FDR10", or NULL */
	char *state, *phys;           /* "Active", "LinkUp" ... or NULL */
	enum rd_fleet_status status;  /* the worst finding naming it; RD_FS_NONE: none */
};

struct rd_fleet_fab_finding {
	char *check, *subject, *message;
	enum rd_fleet_status status;
};

struct rd_fleet_fabric {
	char *origin;                 /* the file it was read from */
	char *time, *source;          /* the document's, or NULL */
	enum rd_fleet_status status;  /* the worst of summary.status and the findings' */
	unsigned long long switches, cas, hosts, cables; /* summary's counts */
	struct rd_fleet_fab_link *links;
	size_t nlinks, links_cut;     /* links_cut: links past RD_FLEET_FABRIC_MAX_LINKS */
	struct rd_fleet_fab_finding *finds;
	size_t nfinds, finds_cut;
	size_t nfail, nwarn, nunknown; /* the findings by status, all of them */
	size_t bad_links;             /* links with a WARN, FAIL or UNKNOWN finding */
};

/* Parses the document (len bytes) into fab (zeroed first).  0, or -EINVAL with a one-line reason
 * in err ("not JSON (...)", "schema \"rdma-doctor/report/v1\", not rdma-doctor/fabric/v1", "no
 * summary.status"); -ENOSYS: yajl could not be loaded (err says why).  On an error fab holds
 * nothing (freed). */
int rd_fleet_fabric_parse(struct rd_fleet_fabric *fab, const char *data, size_t len, char *err, size_t errlen);
/* A link's end as findings name it: "DESC[PORT]" (the GUID for an end without a description),
 * owned by the caller. */
char *rd_fleet_fab_end_name(const struct rd_fleet_fab_end *e);
void rd_fleet_fabric_free(struct rd_fleet_fabric *fab);

#endif
