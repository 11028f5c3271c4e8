/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor slurm`: the pure parts (reason text, `scontrol show node -o` parsing, the decision),
 * apart from the command so that unit tests reach them, and rd_slurm_sync, the command's run of
 * scontrol, which `watch --slurm` shares.  Only rd_slurm_sync prints or runs anything.
 * Ownership: strings returned are owned by the caller; rd_slurm_node_free releases a parsed node. */
#ifndef RD_CMD_SLURM_H
#define RD_CMD_SLURM_H
#include <stdbool.h>
#include <stddef.h>

#include "checks/check.h"

/* Every reason we set starts with this; only such reasons are ours to replace or resume. */
#define RD_SLURM_REASON_PREFIX "rdma-doctor:"
/* A Slurm reason is free text; ours is kept to this many bytes (ASCII), "..." marking a cut. */
#define RD_SLURM_REASON_MAX 100

/* text made fit for a Slurm reason: tabs and line breaks become spaces, other control characters
 * are removed, a non-ASCII (UTF-8) character becomes one '?', '"' becomes '\'' (scontrol strips
 * quotes at the ends of a value), runs of spaces become one, the ends are trimmed; longer than max
 * (>= 4) bytes, it is cut to max - 3 and "..." is appended. */
char *rd_slurm_reason_clean(const char *text, size_t max);

/* A drain by `pairs --drain` (a node slow against every partner) starts with this: neither
 * `slurm` nor `watch --slurm` lifts it (the node's own checks cannot clear it), and they keep it
 * as they keep an admin's; only a pairs run that clears the node resumes it. */
#define RD_SLURM_PAIRS_PREFIX RD_SLURM_REASON_PREFIX " pairs."

/* True when reason is one this host's checks set (rdma-doctor's, not pairs'). */
bool rd_slurm_reason_ours(const char *reason);
/* True when reason is one `pairs --drain` set. */
bool rd_slurm_reason_pairs(const char *reason);

/* One node as `scontrol show node -o NAME` prints it. */
struct rd_slurm_node {
	char *name;          /* NodeName= */
	char *state;         /* State=, e.g. "IDLE+DRAIN" */
	char *reason;        /* Reason= without Slurm's " [user@time]" suffix, or NULL when none */
	bool drained;        /* a DRAIN, DRAINED or DRAINING flag: no new jobs */
	bool out_of_service; /* drained, or DOWN, FAIL, FAILING, MAINT, POWERED_DOWN ... */
};
/* Parses the line that starts with "NodeName=" in out (other lines, such as warnings, are skipped).
 * Returns 0, or -1 when no such line or no State= is there. */
int rd_slurm_parse_node(const char *out, struct rd_slurm_node *n);
void rd_slurm_node_free(struct rd_slurm_node *n);

enum rd_slurm_verdict {
	RD_SLURM_HEALTHY,   /* nothing at or above the drain level, and nothing UNKNOWN */
	RD_SLURM_UNHEALTHY, /* a finding at or above the drain level (FAIL, or WARN with --drain-on warn) */
	RD_SLURM_UNKNOWN,   /* no finding at the drain level, but something could not be checked */
};
enum rd_slurm_action {
	RD_SLURM_NOTHING,       /* healthy and not drained by us, or unhealthy and already drained with this reason */
	RD_SLURM_DRAIN,         /* drain (or update our own reason) */
	RD_SLURM_RESUME,        /* healthy, drained with our reason */
	RD_SLURM_KEEP_FOREIGN,  /* unhealthy, but out of service for a reason that is not ours: keep it */
	RD_SLURM_KEEP_UNKNOWN,  /* UNKNOWN: neither drain nor resume */
	RD_SLURM_HOLD,          /* a rule holds it (watch's flap damping): neither drain nor resume yet */
};
/* What to do with node n for verdict v; reason is the reason we would set (unhealthy only). */
enum rd_slurm_action rd_slurm_decide(enum rd_slurm_verdict v, const struct rd_slurm_node *n, const char *reason);

struct rd_ctx;
/* One run's settings.  held (optional): the rule, in words, that holds finding f back from
 * draining now, or NULL (the string lives until the run ends); hold (optional): the rule that
 * holds a resume back now, or NULL. */
struct rd_slurm_run {
	const char *node;     /* Slurm's name for this machine (checked by the caller) */
	enum rd_status level; /* RD_FAIL, or RD_WARN (--drain-on warn) */
	bool dry;             /* print the update instead of running it */
	const char *pre;      /* before each line printed, or NULL */
	const char *(*held)(const struct rd_finding *f, void *arg);
	void *arg;
	const char *hold;
	int timeout_ms;       /* each scontrol's, 0 = 20 s */
};
/* Slurm's name for this machine into buf: opt (--node), else $SLURMD_NODENAME, else the short host
 * name.  Returns 0, or -1 with one line on ctx->err (named after cmd) when it is not a node name. */
int rd_slurm_node_name(struct rd_ctx *ctx, const char *cmd, const char *opt, char *buf, size_t len);
/* Judges rep for Slurm, runs `scontrol show node -o`, then the update the verdict calls for, and
 * prints on ctx->out what the checks say and what was done (errors on ctx->err, one line).
 * Returns the action (enum rd_slurm_action), or -1 when scontrol is missing, failed or hung. */
int rd_slurm_sync(struct rd_ctx *ctx, const struct rd_slurm_run *run, const struct rd_report *rep, bool no_hw);
/* The nodes Slurm has out of service (drained, down, failed ...): "NAME\tSTATE REASON" each, added
 * to out.  0, or -1 after scontrol failed (said on ctx->err). */
int rd_slurm_unavailable(struct rd_ctx *ctx, struct rd_strv *out);
/* pairs --drain: drains node with reason "rdma-doctor: WHY" (why: a pairs finding's text), or, with
 * why NULL, resumes it when pairs drained it; a node out of service for another reason is kept.
 * Prints what Slurm says and what is done (dry: the command instead).  0, or -1 after scontrol failed. */
int rd_slurm_pairs_set(struct rd_ctx *ctx, const char *node, const char *why, bool dry);

#endif
