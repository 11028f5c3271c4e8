/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fleet summary: what many nodes' reports say, as value -> set of nodes, for the whole fleet
 * and per board_id (HCA model).  Reports are added one at a time (rd_fleet_add) and not kept:
 * only the node table (a name, a time, a status) and, per value, the node indexes that have it.
 *
 * Ownership: struct rd_fleet owns everything in it; rd_fleet_free releases it.  Library code:
 * nothing here prints. */
#ifndef RD_FLEET_SUMMARY_H
#define RD_FLEET_SUMMARY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/map.h"
#include "fleet/fabric_in.h"
#include "fleet/pairs_in.h"
#include "fleet/report_in.h"
#include "util/util.h"

enum rd_fleet_kind {
	RD_FK_NODES,      /* board scope: the model of the board's devices */
	RD_FK_STATUS,     /* the report's summary.status */
	RD_FK_FIRMWARE,   /* board scope */
	RD_FK_KERNEL,
	RD_FK_STACK,      /* stack.installed + stack.version */
	RD_FK_PORT,       /* "STATE RATE" per link layer (the group's name says which) */
	RD_FK_MTU,        /* RoCE (Ethernet link layer) ports: the netdev MTU */
	RD_FK_ACTIVE_MTU, /* ... and the active MTU it gives */
	RD_FK_TRUST,      /* RoCE ports: qos.trust ("dscp", "pcp") */
	RD_FK_PFC,        /* RoCE ports: qos.pfc, the priorities with PFC on ("3", "3,4", "none") */
	RD_FK_GDR_PATH,   /* GPUs: the path types to their nearest NICs ("10de:2330 x8: 8 PIX") */
	RD_FK_IOMMU,      /* GPUs: the IOMMU domain types of the GPUs' and NICs' groups */
	RD_FK_ACS,        /* GPUs: the bridges with ACS redirect on the GPU-NIC paths ("none", "16 bridges") */
	RD_FK_MEMLOCK,    /* memlock.limit's limits lines */
	RD_FK_MODULES,    /* "NAME not loaded", "NAME not persistent": problems only */
	RD_FK_FINDING,    /* a check's non-OK findings: the group's name is the check id */
};
/* The kind's key in the JSON document and its heading in text. */
const char *rd_fleet_kind_key(enum rd_fleet_kind k);
const char *rd_fleet_kind_title(enum rd_fleet_kind k);

struct rd_fleet_entry {
	size_t group;
	char *value;
	uint32_t *hosts; /* node indexes */
	size_t n, cap;
	enum rd_fleet_status status; /* findings */
	char *message;               /* findings: the message of the first node seen */
};

struct rd_fleet_group {
	char *scope; /* "" for the whole fleet, else the board_id */
	enum rd_fleet_kind kind;
	char *name;  /* the heading: "firmware", "port (InfiniBand)", a check id */
	size_t *entries, n; /* after rd_fleet_finish: the live ones, majority first */
	size_t order;       /* findings: the check's first position in a report */
	bool drift;         /* firmware/stack differing within a board, MTU, trust or PFC differing across RoCE ports */
};

struct rd_fleet_node {
	char *name, *origin, *time;
	long long t;
	enum rd_fleet_status status;
	uint32_t *entries;
	size_t n, cap;
	unsigned char *checks; /* per rd_fleet.checks index: the worst status (0: none) */
	size_t nchecks;
	bool reported, expected, stale;
};

struct rd_fleet_note {
	char *origin, *label, *msg;
};

struct rd_fleet_notes {
	struct rd_fleet_note *v;
	size_t n, total; /* total counts the ones past RD_FLEET_MAX_NOTES too */
};
#define RD_FLEET_MAX_NOTES 1000

struct rd_fleet {
	long long now, max_age; /* max_age 0: no limit */
	struct rd_fleet_node *nodes;
	size_t nnodes;
	struct rd_map nodemap;
	struct rd_fleet_group *groups;
	size_t ngroups;
	struct rd_map groupmap;
	struct rd_fleet_entry *entries;
	size_t nentries;
	struct rd_map entrymap;
	struct rd_strv checks; /* check ids in first-seen order */
	struct rd_map checkmap;
	struct rd_fleet_notes problems;  /* unreadable inputs and reports */
	struct rd_fleet_notes untrusted; /* reports not taken at their word: naming another host than
					  * where they came from, dated in the future, several for one host */
	struct rd_fleet_notes notes;     /* more than the reader keeps, summary.status and findings disagreeing */
	bool have_expect;
	struct rd_fleet_fabric *fabric; /* --fabric's document, or NULL (owned) */
	struct rd_fleet_pairs *pairs;   /* --pairs' document, or NULL (owned) */
	/* after rd_fleet_finish */
	size_t *order; /* group indexes: fleet scope first (by kind), then boards (by board_id), findings last */
	size_t norder;
	size_t nreported, nmissing, nstale, nunexpected;
	size_t nexpected, nexpected_reported; /* --expect's nodes; those with a fresh report */
	size_t nstatus[6]; /* reported, not stale, by status */
	bool drift;
	int exit_code;
	bool finished;
};

/* A report dated later than the summary's time by more than this (seconds) is not counted. */
#define RD_FLEET_MAX_SKEW 300
/* The scope of devices without a board_id: shown together, never compared (no drift). */
#define RD_FLEET_NO_BOARD "(no board_id)"

void rd_fleet_init(struct rd_fleet *f, long long now, long long max_age);
/* label (where a report came from) and host (what it says) are the same host: equal, or equal
 * up to the first '.' (pdsh -w node01 reaching node01.cluster.local, srun's %N). */
bool rd_fleet_same_host(const char *label, const char *host);
/* The node a file is the output of: its name without a directory and without .json, .out, .txt or
 * .log (srun --output=DIR/%N, clush --outdir, NODE.json).  Owned by the caller. */
char *rd_fleet_file_node(const char *path);
/* The nodes that should report (--expect). */
void rd_fleet_expect(struct rd_fleet *f, const struct rd_strv *names);
/* One parsed report from origin (label: the node it came from, or NULL: then its host).  An
 * invalid one becomes a problem naming origin.  Untrusted: one dated in the future (not counted),
 * one naming another host than label (counted as label: where it came from), several for one node
 * (the worst status of them counts).  A node's status is the worst of summary.status and its
 * findings. */
void rd_fleet_add(struct rd_fleet *f, const char *origin, const char *label, const struct rd_fleet_report *r);
void rd_fleet_problem(struct rd_fleet *f, const char *origin, const char *label, const char *msg);
/* The fabric's document (--fabric), taken over by f (fab is left empty). */
void rd_fleet_set_fabric(struct rd_fleet *f, struct rd_fleet_fabric *fab);
/* The pairs' judgement (--pairs), taken over by f (p is left empty). */
void rd_fleet_set_pairs(struct rd_fleet *f, struct rd_fleet_pairs *p);
/* Missing and stale nodes, drift, the order of groups and entries, the exit status, by rank: 2 a
 * node, the fabric or the pairs FAIL; 3 missing, stale, unreadable or untrusted reports (or a
 * node, the fabric or the pairs UNKNOWN); 1 drift or a WARN (of a node, the fabric or the pairs);
 * 0 uniform and healthy. */
void rd_fleet_finish(struct rd_fleet *f);
/* The entry's nodes as a compressed hostlist (owned by the caller). */
char *rd_fleet_entry_hostlist(const struct rd_fleet *f, const struct rd_fleet_entry *e);
/* The nodes for which pick(node) is true, as a compressed hostlist (owned by the caller). */
char *rd_fleet_nodes_hostlist(const struct rd_fleet *f, bool (*pick)(const struct rd_fleet_node *n));
/* The number of nodes of a scope ("" the fleet: every reported, fresh node). */
size_t rd_fleet_scope_nodes(const struct rd_fleet *f, const char *scope);
void rd_fleet_free(struct rd_fleet *f);

#endif
