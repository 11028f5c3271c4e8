/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The link samples kept between runs (run/linkstate.c; model/state.h for the file's rules,
 * run/statefile.h for the directory): check, slurm and npd read the port counters in their load
 * and keep a sample; read-only commands (explain, stack, ibstat ...) do neither.
 *
 * Ownership: the options are borrowed; what rd_link_keep finds goes into the loaded model
 * (l->sys.link.sample), freed with it. */
#ifndef RD_LINKSTATE_H
#define RD_LINKSTATE_H
#include <stdbool.h>

#include "run/load.h"

#define RD_STATE_DIR_DEFAULT "/var/lib/rdma-doctor"

struct rd_link_opts {
	bool keep;             /* this command reads counters and keeps samples */
	bool no_counters;      /* check --no-counters: no counter read, the kept samples left as they are */
	bool dry_run;          /* slurm --dry-run: the samples are read, none is written */
	const char *state_dir; /* --state-dir; NULL: RD_STATE_DIR_DEFAULT on the live host, none under --root */
	bool judged[2];        /* this run judges link.counters [RD_SAMPLE_COUNTERS] and link.flaps
				* [RD_SAMPLE_CARRIER]: a sample of a kind is kept only then (a run of
				* other checks must not move their baseline) */
	bool show_counters;    /* the output shows the counters (Prometheus): read them even with no sample */
};

/* Whether the load must read the port counters (rd_load_opts.counters), reading root (NULL: the
 * live host). */
bool rd_link_wants_counters(const struct rd_link_opts *o, const char *root);

/* After the load, before the checks: reads the samples kept in the state directory for this host
 * and, unless a dry run or --no-counters, adds this run's and writes them back.  timeout_s bounds
 * the wait for another run's lock (half of it, at most RD_STATEFILE_WAIT_S).  What went wrong is
 * in l->sys.link.sample for link.counters to say; nothing is printed. */
void rd_link_keep(const struct rd_link_opts *o, const char *root, double timeout_s, struct rd_loaded *l);

#endif
