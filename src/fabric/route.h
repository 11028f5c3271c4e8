/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Routes through the fabric between two hosts' CA ports, and the join of pair measurements with
 * them.  A route is had live from the real `ibtracert SLID DLID` (its output parsed: rdma-core
 * infiniband-diags ibtracert.c dump_endnode / dump_route), or computed from the switches'
 * unicast forwarding tables as `dump_fts` (and `ibroute`, the same printf: dump_fts.c /
 * ibroute.c dump_unicast_tables) prints them, over a finished fabric model (fabric.h) that gives
 * the cables and the CA ports' LIDs.
 *
 * The join: each pair of a `pairs` result (client rail to server rail, the direction the data
 * flows) is slow or healthy by the pairs judgement; the cable that every slow pair's route crosses
 * and (almost) no healthy pair's does is the suspect.  When the routes do not single one out,
 * that is said, never guessed.
 *
 * Ownership: a route, a set of forwarding tables and a join own their strings and arrays (their
 * _free); a router borrows its fabric and tables, which must outlive it. */
#ifndef RD_FABRIC_ROUTE_H
#define RD_FABRIC_ROUTE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"

#define RD_FAB_MAX_HOPS 64 /* ibtracert's MAXHOPS is 63 */

/* One node a route passes: the source CA port (in_port 0), the switches, the destination CA
 * port (out_port 0). */
struct rd_fab_hop {
	uint64_t guid;          /* a switch's GUID, a CA port's GUID */
	char *desc;
	enum rd_fab_kind kind;
	unsigned lid;
	unsigned in_port, out_port;
};
struct rd_fab_route {
	uint64_t from, to;      /* the two CA ports (GUIDs of the model's nodes) */
	struct rd_fab_hop *hops;
	size_t nhops;
	char *error;            /* why there is no route; NULL when hops hold it */
};
void rd_fab_route_free(struct rd_fab_route *r);

/* ibtracert's output (its default form): "From ca {0x...} portnum 1 lid 2-2 \"desc\"", one
 * "[OUT] -> TYPE port {0x...}[IN] lid L-L \"desc\"" per hop, "To ...".  Lines in no such form are
 * skipped.  0, or -EINVAL with the reason in err (no From or To, more than RD_FAB_MAX_HOPS hops). */
int rd_fab_parse_ibtracert(const char *text, size_t len, struct rd_fab_route *r, char *err, size_t errlen);

/* The unicast forwarding tables: per switch, LID -> out port. */
struct rd_fab_lft_entry {
	uint16_t lid;
	uint8_t port;
};
struct rd_fab_lft {
	uint64_t guid;
	char *desc;
	struct rd_fab_lft_entry *v; /* sorted by LID, one entry per LID */
	size_t n, cap;
};
struct rd_fab_lfts {
	struct rd_fab_lft *sw;
	size_t n;
	unsigned skipped, first_skipped; /* lines not understood */
};
/* Appends the tables of dump_fts (or ibroute) output: "Unicast lids [0x0-0xa] of switch ... guid
 * 0x... (desc):" then "0x0001 008 : (...)" lines.  Multicast sections are passed over.  Returns
 * the number of switch tables read. */
size_t rd_fab_parse_lfts(struct rd_fab_lfts *t, const char *text, size_t len);
void rd_fab_lfts_free(struct rd_fab_lfts *t);
/* The out port of switch guid toward lid: 0..255, or -1 (no table, no entry). */
int rd_fab_lft_port(const struct rd_fab_lfts *t, uint64_t guid, unsigned lid);

/* An index of a finished fabric's cables by their ends. */
struct rd_fab_portref;
struct rd_fab_router {
	const struct rd_fabric *f;
	const struct rd_fab_lfts *lfts; /* or NULL */
	struct rd_fab_portref *ports;
	size_t nports;
};
void rd_fab_router_init(struct rd_fab_router *rt, const struct rd_fabric *f, const struct rd_fab_lfts *lfts);
void rd_fab_router_free(struct rd_fab_router *rt);
/* The cable at a port (either end), or NULL; *peer (when not NULL) is its other end. */
const struct rd_fab_link *rd_fab_router_link(const struct rd_fab_router *rt, uint64_t guid, unsigned port,
					     const struct rd_fab_end **peer);

/* A host's CA ports ("host mlx5_0", "host mlx5_1" ...), sorted by device then GUID: rail i is
 * the i-th.  *out (the caller frees it) points into f->nodes.  Returns how many. */
size_t rd_fab_host_ports(const struct rd_fabric *f, const char *host, const struct rd_fab_node ***out);
/* A host's CA port on device, or NULL. */
const struct rd_fab_node *rd_fab_host_port(const struct rd_fabric *f, const char *host, const char *device);

/* The route from one CA port to another by the forwarding tables (rt->lfts).  0, or -1 with
 * r->error set. */
int rd_fab_route_lft(const struct rd_fab_router *rt, const struct rd_fab_node *from, const struct rd_fab_node *to,
		     struct rd_fab_route *r);
/* The route by the real ibtracert between the two ports' LIDs, run through the source layer
 * (rd_run_fabric_command, 10 s); the source port's GUID is the model's.  0, or -1 with r->error. */
int rd_fab_route_live(struct rd_source *src, const struct rd_fab_node *from, const struct rd_fab_node *to,
		      struct rd_fab_route *r);

/* ---- the join of pair measurements with the routes ---------------------------------------- */

struct rd_pairs;
struct rd_fab_jpair {
	char *client, *client_dev, *server, *server_dev;
	size_t slow, fast;      /* its samples with a result, by the pairs judgement */
	double gbps;            /* the median of its samples with a result */
	bool is_slow, is_fast;  /* every sample slow / every sample fast (neither: mixed) */
	struct rd_fab_route route; /* client -> server */
	size_t *links;          /* indices into the fabric's links that the route crosses */
	size_t nlinks;
};
struct rd_fab_join {
	struct rd_fab_jpair *v;
	size_t n;
	size_t failed;          /* pairs with no sample that has a result (not evidence of a link) */
};
/* The pairs of a judged rd_pairs (rd_pairs_judge first): one per (client, its device, server, its
 * device), samples without a result left out. */
void rd_fab_join_from_pairs(struct rd_fab_join *j, const struct rd_pairs *p);
void rd_fab_join_free(struct rd_fab_join *j);
/* After each pair's route is set: the links it crosses. */
void rd_fab_join_links(struct rd_fab_join *j, const struct rd_fab_router *rt);
/* Per link of the fabric: how many slow and how many healthy pairs cross it (arrays of
 * f->nlinks, the caller frees them). */
void rd_fab_join_counts(const struct rd_fab_join *j, const struct rd_fabric *f, size_t **slow, size_t **healthy);
/* The finding fabric.route.suspect: WARN naming the cable that every slow pair crosses and at
 * most a quarter as many healthy pairs do, when exactly one such cable has the fewest healthy
 * crossings; else OK (no slow pair) or UNKNOWN (the routes do not single out one cable). */
void rd_fab_join_judge(const struct rd_fab_join *j, const struct rd_fabric *f, struct rd_report *r);

#endif
