/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Pairwise tests between hosts: which pairs to test in each round, and what the measurements say.
 *
 * Round 1 covers every node with disjoint pairs (one node idle when the count is odd); the rounds
 * after it are planned from the results: each node that was slow is paired with nodes that were
 * fast elsewhere, and a pair that was slow while both its ends were fast elsewhere is measured
 * again.  A sample is slow when it is both an outlier of the run's own distribution (below its
 * median by more than RD_PAIRS_MAD_K scaled MADs) and clearly below it (under RD_PAIRS_MEDIAN_FRAC
 * of the median), so a fleet that is uniformly below line rate drains nobody (that is one fleet
 * finding instead).  A verdict never rests on one sample:
 *   node (rail) bad   slow against RD_PAIRS_NODE_SLOW distinct partners and fast against none;
 *   link bad          the pair slow RD_PAIRS_LINK_SLOW times, never fast, while both of its ends
 *                     were fast with other partners.
 * Rails are judged apart: a node's rail is the device on its side of a sample.
 *
 * Ownership: an rd_pairs owns its node names, samples and verdicts; the functions borrow their
 * arguments; rd_pairs_free frees everything. */
#ifndef RD_PAIRS_H
#define RD_PAIRS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/map.h"
#include "util/util.h"

#define RD_PAIRS_MAD_K 4.0         /* scaled MADs below the median */
#define RD_PAIRS_MEDIAN_FRAC 0.8   /* and under this fraction of the median */
#define RD_PAIRS_LINE_FRAC 0.5     /* a run whose median is under this fraction of line rate: a fleet finding */
#define RD_PAIRS_NODE_SLOW 3       /* distinct partners a bad node is slow against */
#define RD_PAIRS_LINK_SLOW 3       /* slow samples of a bad link */
#define RD_PAIRS_MAX_NODES 100000

enum rd_pairs_order { RD_PAIRS_RING, RD_PAIRS_RANDOM, RD_PAIRS_RACK };

/* One rail of one pair measurement.  a and b are node indices; rail_a/rail_b the devices on
 * each side ("mlx5_0"); gbps < 0 with error set: no result (refused, timed out, a peer that died),
 * which counts as slow. */
struct rd_pairs_sample {
	size_t a, b;
	char *rail_a, *rail_b;
	double gbps, line_gbps, lat_us; /* line_gbps, lat_us: 0 when not known */
	int round;
	char *error;
};

enum rd_pairs_kind { RD_PAIRS_NODE, RD_PAIRS_LINK, RD_PAIRS_FLEET };
enum rd_pairs_state { RD_PAIRS_UNTESTED, RD_PAIRS_SUSPECT, RD_PAIRS_CLEARED, RD_PAIRS_BAD };

/* One verdict: a bad node's rail (FAIL: it is drained), a bad link between two nodes (WARN: the
 * path, not a node), or the whole run (WARN: below line rate everywhere). */
struct rd_pairs_finding {
	enum rd_pairs_kind kind;
	size_t node, peer;    /* LINK: both ends; NODE: node */
	char *rail;           /* the rail on node's side */
	double gbps;          /* the median of its slow samples (0 when every one failed) */
	double line_gbps;
	double peers_gbps;    /* the median of the other pairs of its line rate (FLEET: the run's) */
	size_t slow, fast;    /* its samples: slow, fast */
	struct rd_strv partners; /* NODE: the partners it was slow against; LINK: empty */
	char *error;          /* the last failure's text, when a sample failed */
};

struct rd_pairs_pair {
	size_t a, b;
};
struct rd_pairs_round {
	struct rd_pairs_pair *v;
	size_t n;
};

struct rd_pairs_judgement;
struct rd_pairs {
	struct rd_strv nodes;
	struct rd_map index;   /* name -> index + 1 */
	struct rd_strv racks;  /* nodes[i]'s rack ("" when not known) */
	struct rd_pairs_sample *samples;
	size_t nsamples, samples_cap;
	int rounds;            /* the highest round of a sample */
	/* rd_pairs_judge's results */
	double median, mad, threshold, line_gbps;
	struct rd_pairs_finding *findings;
	size_t nfindings;
	enum rd_pairs_state *state; /* per node: the worst of its rails */
	size_t suspects;            /* nodes still suspect */
	struct rd_pairs_judgement *judgement; /* the last judgement's working state (judge.c) */
};

/* Adds the nodes of a hostlist ("node[01-24],gpu7"), in order, duplicates once.  0 or -EINVAL with
 * the reason in err (a bad hostlist, more than RD_PAIRS_MAX_NODES names, fewer than 2). */
int rd_pairs_set_nodes(struct rd_pairs *p, const char *hostlist, char *err, size_t errlen);
/* The index of a node, or -1. */
long rd_pairs_node(const struct rd_pairs *p, const char *name);
/* The index of a node, added at the end when it is not there yet. */
size_t rd_pairs_add_node(struct rd_pairs *p, const char *name);
/* Reads the racks from a Slurm topology.conf text: each switch line with Nodes= is a rack of the
 * nodes it lists (the switches that list Switches= are not racks).  0, or -EINVAL naming the line. */
int rd_pairs_set_topology(struct rd_pairs *p, const char *text, char *err, size_t errlen);

/* The first `rounds` rounds, planned before any result: a round-robin over the nodes in the order
 * (ring: as given; random: shuffled with seed; rack: racks interleaved so that each pair of round
 * 1 crosses racks), whose round 1 pairs the neighbours of that order; no pair twice.  At most
 * n - 1 rounds (n rounded up to even).  Returns the number of rounds written to out. */
size_t rd_pairs_plan(const struct rd_pairs *p, enum rd_pairs_order order, uint64_t seed, size_t rounds,
		     struct rd_pairs_round *out);
/* The next round from the verdicts (rd_pairs_judge first): suspect pairs measured again, suspect
 * nodes with cleared partners they have not met.  n 0: nothing more to measure. */
void rd_pairs_plan_next(const struct rd_pairs *p, struct rd_pairs_round *out);
void rd_pairs_round_free(struct rd_pairs_round *r);

/* Adds a sample (the strings are copied). */
void rd_pairs_add(struct rd_pairs *p, const struct rd_pairs_sample *s);
/* Judges every sample so far: the distribution, each sample slow or fast, the findings, the states. */
void rd_pairs_judge(struct rd_pairs *p);
/* True when sample s is slow by the last judgement. */
bool rd_pairs_slow(const struct rd_pairs *p, const struct rd_pairs_sample *s);

void rd_pairs_free(struct rd_pairs *p);

#endif
