/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The InfiniBand subnet as infiniband-diags shows it: parsers of `iblinkinfo --switches-only -l`,
 * `ibnetdiscover -p` and `sminfo` output (formats from rdma-core's infiniband-diags, v44:
 * iblinkinfo.c print_port, ibnetdiscover.c out_ports, sminfo.c), the model they fill (nodes,
 * ports, links with both ends), the judgements over it (links below what both ends can do or
 * below their siblings of the same tier, no subnet manager, expected hosts absent, port error
 * counters above their thresholds (`ibqueryerrors`), duplicate GUIDs and LIDs) and the reference
 * topology (--save / --against).
 *
 * Ownership: an rd_fabric owns every string and array in it (rd_fabric_free); the parsers and
 * judgements borrow their input; a report filled here owns its findings (rd_report_free). */
#ifndef RD_FABRIC_H
#define RD_FABRIC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checks/check.h"
#include "source/source.h"

enum rd_fab_kind { RD_FAB_UNKNOWN, RD_FAB_CA, RD_FAB_SW, RD_FAB_RT };
const char *rd_fab_kind_name(enum rd_fab_kind k); /* "CA", "SW", "RT", "?" */

/* One end of a link: a port of a node. */
struct rd_fab_end {
	uint64_t guid;          /* the port's GUID (a switch's ports share its port 0 GUID) */
	unsigned port;          /* 1..255 */
	unsigned lid;           /* the port's LID (a switch's: its port 0 LID); 0 without an SM */
	char *desc;             /* node description, as printed (no padding) */
	enum rd_fab_kind kind;
};

/* One port of a switch (or CA) and, when cabled, its peer. */
struct rd_fab_link {
	struct rd_fab_end a;    /* the port the line is about (the switch side in iblinkinfo) */
	struct rd_fab_end b;    /* the peer; valid when has_peer */
	bool has_peer;
	unsigned width;         /* active lanes (1, 2, 4, 8, 12); 0 down or unknown */
	double speed;           /* active Gb/s per lane (2.5 ... 106.25); 0 down or unknown */
	char speed_name[16];    /* "FDR10" when printed so, else "" */
	char state[24];         /* "Active", "Initialize", "Down" ... */
	char phys[32];          /* "LinkUp", "Polling" ... */
	unsigned could_width;   /* iblinkinfo "Could be 12X": the widest both ends enable; 0 none */
	double could_speed;     /* "Could be 10.0 Gbps"; 0 none */
	unsigned line;          /* line number in its capture */
};

struct rd_fab_node {
	uint64_t guid;
	char *desc;
	char *host;             /* node_desc "hostname mlx5_0" → "hostname"; a desc of one word is itself */
	char *device;           /* "mlx5_0", or NULL */
	enum rd_fab_kind kind;
	unsigned lid;
	int level;              /* hops from the nearest CA (CA 0, leaf 1, spine 2 ...); -1 unreached */
};

struct rd_fab_sm {
	bool read;              /* sminfo's output was read and understood */
	unsigned lid, priority, state, activity;
	uint64_t guid;
	char state_name[24];    /* "SMINFO_MASTER" ... */
};

/* One counter of one port as `ibqueryerrors` printed it ("GUID 0x... port 6: [SymbolErrorCounter ==
 * 500]"): a port's line lists the counters above ibqueryerrors' threshold (0 without a threshold
 * file).  The aggregate "port ALL" lines are not kept. */
struct rd_fab_counter {
	uint64_t guid;          /* as printed: a CA's port GUID, a switch's node GUID */
	unsigned port;          /* 0..255 */
	char name[40];          /* "SymbolErrorCounter" ... */
	uint64_t value;
	unsigned line;
	char *desc;             /* the node description of its "Errors for" line, or NULL */
};

/* The IBTA PortCounters this judges: ibqueryerrors' own default thresholds (the commented values
 * of infiniband-diags' etc/error_thresholds) and each counter's width in bits (IBTA 1.3, 16.1.3.5:
 * the counters stop at all ones rather than wrap).  NULL when name is not judged. */
struct rd_fab_counter_rule {
	const char *name;
	uint64_t threshold;     /* above it: a finding */
	unsigned bits;          /* at 2^bits - 1 the counter is saturated */
	const char *means;      /* what it counts, for the message */
};
const struct rd_fab_counter_rule *rd_fab_counter_rule(const char *name);

struct rd_fabric {
	struct rd_fab_counter *counters; /* ibqueryerrors' per-port counters, in its order */
	size_t ncounters;
	bool counters_read;     /* ibqueryerrors' output was read (its "## Summary" line seen) */
	unsigned ports_checked; /* its summary's "N ports checked" */
	struct rd_fab_link *links; /* iblinkinfo's ports (each switch-to-switch link kept once) */
	size_t nlinks;
	struct rd_fab_node *nodes; /* every node seen, sorted by GUID */
	size_t nnodes;
	struct rd_fab_sm sm;
	unsigned skipped;       /* lines of the captures that were not understood */
	unsigned first_skipped; /* the first of them (line number), 0 none */
};
void rd_fabric_free(struct rd_fabric *f);

/* Parsers: append what text (NUL-terminated, len bytes) holds to f.  They accept every line the
 * tool prints and count the others in f->skipped.  Return the number of lines understood. */
size_t rd_fab_parse_iblinkinfo(struct rd_fabric *f, const char *text, size_t len);
size_t rd_fab_parse_ibnetdiscover(struct rd_fabric *f, const char *text, size_t len);
/* sminfo's one line: "sminfo: sm lid 1 sm guid 0x..., activity count 5 priority 0 state 3
 * SMINFO_MASTER".  Returns 1 when understood (f->sm.read), else 0. */
size_t rd_fab_parse_sminfo(struct rd_fabric *f, const char *text, size_t len);
/* `ibqueryerrors` (infiniband-diags ibqueryerrors.c: print_port_hdr / print_results, summary):
 * "Errors for 0x... \"desc\"", "GUID 0x... port N: [Name == V] ...", "Link info: ..." (-r),
 * "## Summary: ...".  At most RD_FAB_MAX_COUNTERS counters are kept.  Returns the lines understood. */
#define RD_FAB_MAX_COUNTERS 100000
size_t rd_fab_parse_ibqueryerrors(struct rd_fabric *f, const char *text, size_t len);
/* After the parsers: one link per cable (a switch-to-switch link seen from both switches is kept
 * once), the node list with hosts and tiers. */
void rd_fabric_finish(struct rd_fabric *f);
/* Takes from net (ibnetdiscover's links, finished) what f lacks: every link when f has none (no
 * iblinkinfo), else the kinds of the nodes (CA, SW, RT) and the CA-to-CA links. */
void rd_fabric_merge(struct rd_fabric *f, struct rd_fabric *net);
const struct rd_fab_node *rd_fabric_node(const struct rd_fabric *f, uint64_t guid);
/* A link's rate in Gb/s: width × speed (0 when down). */
double rd_fab_rate(const struct rd_fab_link *l);
/* An end's node description (the node's, else the one its line printed), or NULL when neither
 * has one. */
const char *rd_fab_end_desc(const struct rd_fabric *f, const struct rd_fab_end *e);
/* A cabled link as its findings name it: "DESC[PORT] - DESC[PORT]" (a GUID for an end without a
 * description). */
void rd_fab_link_subject(const struct rd_fabric *f, const struct rd_fab_link *l, char *buf, size_t cap);

/* What the captures or the live tools gave: each input's text and how it was read. */
enum { RD_FAB_IN_LINKINFO, RD_FAB_IN_NETDISCOVER, RD_FAB_IN_SMINFO, RD_FAB_IN_QUERYERRORS, RD_FAB_NIN };
struct rd_fab_input {
	const char *name;      /* the capture's file name: "iblinkinfo-switches-only-l" ... */
	const char *command;   /* "iblinkinfo --switches-only -l" ... */
	struct rd_text text;
	bool from_file;        /* read from DIR/<name> (not rdma-doctor/commands/<name>) */
};
/* Reads the inputs: on a live source runs the tools (through the source layer's commands, a
 * timeout each; only when run_live); in a root or DIR reads rdma-doctor/commands/<name> or
 * <name> at its top; ibqueryerrors' only when counters (it queries every port).  Fills
 * in[RD_FAB_NIN] (texts owned by the caller: rd_fab_inputs_free). */
void rd_fab_read_inputs(struct rd_source *src, bool run_live, bool counters, struct rd_fab_input in[RD_FAB_NIN]);
void rd_fab_inputs_free(struct rd_fab_input in[RD_FAB_NIN]);
/* The switches' forwarding tables as `dump_fts` prints them: run live (through the source
 * layer's commands, 60 s; EIO when it exits non-zero), or from a root or DIR
 * (rdma-doctor/commands/dump_fts or dump_fts at its top).  0, or -errno with out->err set
 * (RD_ENOTCAPTURED: not captured). */
int rd_fab_read_fts(struct rd_source *src, struct rd_text *out);
/* True when the source's dev/infiniband holds an umad device node (a port to send MADs from). */
bool rd_fab_umad_present(struct rd_source *src);
/* True when the tools can be run here: an umad port, or ibsim-run's umad2sim preloaded (a
 * simulated fabric's ports stand in for it). */
bool rd_fab_can_run_live(struct rd_source *src);

/* The judgements (findings of ids fabric.*) over a finished fabric.  expect: host names that
 * should be in the fabric (or NULL); sm_expected: sminfo was asked for (its absence or failure
 * is then a finding). */
struct rd_fab_judge_opts {
	const struct rd_strv *expect;
	const struct rd_text *sminfo; /* sminfo's capture or run (NULL: not asked) */
	const struct rd_text *queryerrors; /* ibqueryerrors' capture or run (NULL: not asked) */
	const struct rd_state_sample *counters_base; /* --state-dir: the counters before (NULL: none) */
};
void rd_fab_judge(const struct rd_fabric *f, const struct rd_fab_judge_opts *o, struct rd_report *r);

/* The reference topology: one link per cable with both ends and width/speed. */
struct rd_fab_ref_end {
	uint64_t guid;
	unsigned port;
	char *desc;
};
struct rd_fab_ref_link {
	struct rd_fab_ref_end a, b;
	unsigned width;
	double speed;
};
struct rd_fab_ref {
	struct rd_fab_ref_link *links;
	size_t n;
};
void rd_fab_ref_free(struct rd_fab_ref *ref);
/* The cabled links of f as a reference. */
void rd_fab_ref_from(const struct rd_fabric *f, struct rd_fab_ref *ref);
/* Parses a reference file (JSON, schema rdma-doctor/fabric-ref/v1, as rd_fab_ref_write writes).
 * Returns 0, or -EINVAL with a one-line reason in err. */
int rd_fab_ref_parse(const char *text, size_t len, struct rd_fab_ref *ref, char *err, size_t errlen);
/* Findings fabric.ref.{missing,moved,added,changed}: cur compared with ref. */
void rd_fab_ref_compare(const struct rd_fab_ref *ref, const struct rd_fab_ref *cur, struct rd_report *r);

#endif
