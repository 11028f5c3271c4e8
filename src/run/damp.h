/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Flap damping for `watch --slurm`: when a port that is not ACTIVE may drain the node, and when a
 * node drained for its ports may resume.  Each judgement's report is shown to rd_damp_update; a
 * port is "down" while ports.state has a FAIL about it.  The rules ([watch] of the policy):
 *   a port down for drain_down_after drains;
 *   a port that went down drain_flaps times within the window drains at once (the current one counts);
 *   else its FAIL is held: it neither drains nor lets the node resume;
 *   a resume waits until every port that went down has been back for resume_stable.
 * Times are milliseconds of one monotonic clock, given by the caller.  Nothing here prints or runs
 * anything.  Ownership: an rd_damp owns its port records; rd_damp_free releases them. */
#ifndef RD_RUN_DAMP_H
#define RD_RUN_DAMP_H
#include <stdbool.h>
#include <stddef.h>

#include "checks/check.h"
#include "model/policy.h"

/* The ports followed at most: past it, the record of the port longest stable is dropped first. */
#define RD_DAMP_PORTS_MAX 1024

struct rd_damp_rules {
	long long down_ms;   /* drain_down_after */
	unsigned flaps;      /* drain_flaps N ... */
	long long window_ms; /* ... in this window */
	long long stable_ms; /* resume_stable */
};
void rd_damp_rules_from_policy(struct rd_damp_rules *r, const struct rd_policy *p);

struct rd_damp_port {
	char *subject;              /* "mlx5_0 port 1", as ports.state names it */
	bool down;
	long long down_since, up_since;
	long long downs[RD_POLICY_FLAPS_MAX]; /* when it went down, the newest last; within the window */
	unsigned ndowns;
	unsigned long long total_downs;       /* since watch started */
	unsigned long long gen;               /* the last update that saw it down */
};
struct rd_damp {
	struct rd_damp_rules rules;
	struct rd_damp_port *ports;
	size_t n;
	unsigned long long gen; /* updates so far */
};

/* What the report says of every port now: a ports.state FAIL about a port is a port down; a port
 * followed and not FAIL is up.  Returns the number of ports that went down with this report. */
size_t rd_damp_update(struct rd_damp *d, const struct rd_report *rep, long long now);

/* Whether the FAIL about subject (a port down) may drain now.  rule gets the rule that decided, in
 * words ("mlx5_0 port 1 down for 12 s (drain_down_after = 10 s)"); *wake, when the answer is no,
 * the time at which it becomes yes unless the port comes back (else it is left alone). */
bool rd_damp_may_drain(const struct rd_damp *d, const char *subject, long long now, char *rule, size_t len,
		       long long *wake);

/* Whether a node may resume now, as far as its ports go: no while a port that went down has been
 * back for less than resume_stable (rule names the one back last; *wake gets when it will have
 * been back that long).  True with rule "" when no port holds it back.  A port still down is the
 * caller's: its FAIL is either held or drains. */
bool rd_damp_may_resume(const struct rd_damp *d, long long now, char *rule, size_t len, long long *wake);

void rd_damp_free(struct rd_damp *d);

#endif
