/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Renders `fabric`: the subnet's summary, its links by tier and the findings, as text, as one
 * JSON document (rdma-doctor/fabric/v1, docs/fabric.md) or as Prometheus series; and the
 * reference file that --save writes (rdma-doctor/fabric-ref/v1).
 * Ownership: borrows everything; keeps nothing. */
#ifndef RD_RENDER_FABRIC_H
#define RD_RENDER_FABRIC_H
#include <stdbool.h>
#include <stdio.h>

#include "fabric/fabric.h"

struct rd_fabric_meta {
	const char *source;  /* "live", or the directory the captures were read from */
	const char *time;    /* ISO 8601 UTC */
	const char *against; /* the reference file compared with, or NULL */
	bool ascii;
	const struct rd_fab_input *inputs; /* RD_FAB_NIN of them */
};

void rd_render_fabric(FILE *out, bool json, const struct rd_fabric *f, const struct rd_report *r,
		      const struct rd_fabric_meta *m);
void rd_render_fabric_ref(FILE *out, const struct rd_fab_ref *ref);
/* `fabric --format prometheus` (render/fabric_prom.c): the verdict, the findings as
 * rdma_doctor_fabric_check_status{check,subject}, every cable's width, lane speed, rate, state and
 * worst finding {a_guid,a_port,a_desc,b_guid,b_port,b_desc}, ibqueryerrors' counters, the subnet
 * manager; names rdma_doctor_fabric_* (apart from check's series, so both files can sit in one
 * textfile directory).  now: the run's time in seconds since the epoch. */
void rd_render_fabric_prometheus(FILE *out, const struct rd_fabric *f, const struct rd_report *r,
				 const struct rd_fabric_meta *m, long long now);
/* The findings as fabric's JSON "findings" member, and as its text (each finding, then the
 * "Status:" line). */
struct rd_out;
void rd_render_fabric_findings_json(struct rd_out *o, const struct rd_report *r);
void rd_render_fabric_findings_text(FILE *out, bool ascii, const struct rd_report *r);


/* `fabric --route A B` and `fabric --pairs FILE` (render/fabric_route.c): each route hop by hop
 * (JSON rdma-doctor/fabric-route/v1), and the join of pair results with the routes: the pairs,
 * the cables the slow pairs cross, the findings (JSON rdma-doctor/fabric-pairs/v1). */
struct rd_fab_router;
struct rd_fab_route;
struct rd_fab_join;
struct rd_fabric_route_meta {
	const char *source;  /* "live", or the directory */
	const char *time;
	const char *via;     /* "ibtracert" or "dump_fts" */
	bool ascii;
	const char *host_a, *host_b; /* --route */
	size_t rails_a, rails_b;     /* --route: each host's CA ports */
};
void rd_render_fabric_routes(FILE *out, bool json, const struct rd_fab_router *rt, const struct rd_fab_route *routes,
			     size_t n, const struct rd_fabric_route_meta *m);
void rd_render_fabric_join(FILE *out, bool json, const struct rd_fab_router *rt, const struct rd_fab_join *j,
			   const struct rd_report *r, const struct rd_fabric_route_meta *m);

#endif
