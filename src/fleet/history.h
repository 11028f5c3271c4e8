/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `fleet --history`: repeat offenders ("lemons") across many timestamped reports per node.
 * Reports are added one at a time (rd_hist_add); only what the scoring needs is kept: per report
 * its node, time, boot_id, summary status and the (check, subject) pairs that count as events
 * (a FAIL finding, or a WARN of ports.state / link.flaps: a port down, a link flap).
 * rd_hist_finish orders each node's reports by time, drops the ones older than the window
 * (relative to the newest report), counts reboots (boot_id changing between two consecutive
 * reports) and applies the rules (rd_hist_rules) per (node, check, subject) and per node.
 *
 * Ownership: struct rd_hist owns everything in it; rd_hist_free releases it.  Library code:
 * nothing here prints or exits. */
#ifndef RD_FLEET_HISTORY_H
#define RD_FLEET_HISTORY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet/report_in.h"
#include "util/map.h"

/* Bounds: reports kept in all, events (check, subject) kept per report. */
#define RD_HIST_MAX_REPORTS 200000
#define RD_HIST_MAX_EVENTS 256
#define RD_HIST_MAX_SUBJECTS 4096 /* distinct (check, subject) pairs per node; past it new ones are not kept */
#define RD_HIST_MAX_SUBJECTS_TEXT "4096"
/* A report dated later than the run's time (SOURCE_DATE_EPOCH, else the clock) by more than this
 * (seconds) is refused: one hostile date must not move the window. */
#define RD_HIST_MAX_SKEW 300

/* One rule: `count` events of one subject within `within` seconds (0: within the window). */
struct rd_hist_rule {
	const char *name; /* "2 in 5 min" */
	unsigned count;
	long long within;
};
/* The rules in the order they are tried (the first that matches names the lemon); the last
 * one's count is --repeats N (rd_hist.repeats). */
#define RD_HIST_NRULES 3
void rd_hist_rules(unsigned repeats, struct rd_hist_rule out[RD_HIST_NRULES]);
/* Index of the first rule that the sorted times t[0..n) match, or -1. */
int rd_hist_match(const struct rd_hist_rule *rules, size_t nrules, const long long *t, size_t n);

struct rd_hist_report {
	long long t;
	char *boot_id; /* NULL when unknown */
	enum rd_fleet_status status;
	uint32_t *subj; /* indexes into the node's subjects, each once */
	size_t nsubj;
	bool in_window, after_reboot;
};

struct rd_hist_subject {
	char *check, *subject;
	/* after rd_hist_finish: the times of the counted events (in the window, not the first
	 * report after a reboot), sorted; transient: the ones not counted for the reboot */
	long long *times;
	size_t n, transient;
	int rule; /* -1: not a lemon */
};

struct rd_hist_node {
	char *name;
	struct rd_hist_report *reps;
	size_t nreps;
	struct rd_hist_subject *subj;
	size_t nsubj;
	struct rd_map subjmap;
	struct rd_map timemap; /* the reports' times (8 bytes each): a second report of a time is a duplicate */
	/* after rd_hist_finish */
	size_t nwindow;      /* reports in the window */
	size_t reboots;
	long long *fail_times; /* reports (in the window) with a counted event */
	size_t nfail;
	int rule;            /* per node: the rule its failing reports match, or -1 */
	size_t nlemon_subj;
	unsigned long long score; /* the counted events of its lemon subjects (+ the node's failing
				     reports when only the node rule matched); 0: not a lemon */
	bool lemon;
	enum rd_fleet_status last;
	long long first_t, last_t;
};

struct rd_hist {
	long long now;       /* reports dated later than now + RD_HIST_MAX_SKEW are refused */
	long long days;      /* the window, in days */
	unsigned repeats;    /* the window rule's count */
	struct rd_hist_rule rules[RD_HIST_NRULES]; /* the last one named by window_rule */
	char window_rule[48];
	struct rd_hist_node *nodes;
	size_t nnodes;
	struct rd_map nodemap;
	size_t nreports, duplicates, future, too_many;
	size_t subjects_cut; /* events not kept: past RD_HIST_MAX_SUBJECTS of their node */
	/* after rd_hist_finish */
	long long newest, since;
	size_t old, nlemons;
	size_t *order; /* node indexes: lemons first (by score, then name), then the rest by name */
	bool finished;
};

void rd_hist_init(struct rd_hist *h, long long now, long long days, unsigned repeats);
/* One report (already valid: rd_fleet_report_valid).  Returns 0, or a negative value with a
 * one-line reason in why: dated in the future, past RD_HIST_MAX_REPORTS.  A second report of
 * the same node and time is a duplicate: counted, not kept (returns 0). */
int rd_hist_add(struct rd_hist *h, const struct rd_fleet_report *r, char *why, size_t whylen);
/* The same from plain values (unit tests; events: "check\tsubject" strings). */
int rd_hist_add_raw(struct rd_hist *h, const char *node, long long t, const char *boot_id,
		    enum rd_fleet_status status, const char *const *events, size_t nevents, char *why, size_t whylen);
void rd_hist_finish(struct rd_hist *h);
/* The exit status: 1 a lemon was found; else 3 when input was bad (problems: the inputs and
 * reports the caller could not read, plus reports dated in the future or past the bound) or there
 * was no report at all; else 0. */
int rd_hist_exit_code(const struct rd_hist *h, size_t problems);
void rd_hist_free(struct rd_hist *h);

#endif
