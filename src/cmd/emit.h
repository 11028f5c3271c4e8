/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* How `check` hands its report over, besides text and JSON on standard output: the Prometheus
 * exposition format (--format prometheus), a file written atomically (--output FILE), or the one
 * line of node-problem-detector's custom plugin protocol (`rdma-doctor npd`, cmd/npd.c).
 * Ownership: borrows everything. */
#ifndef RD_EMIT_H
#define RD_EMIT_H
#include <stdbool.h>

#include "checks/check.h"
#include "cmd/cmd.h"
#include "render/report.h"

enum rd_emit_mode { RD_EMIT_CHECK, RD_EMIT_NPD };

struct rd_emit {
	enum rd_emit_mode mode;
	bool prometheus;      /* --format prometheus (the last --format wins) */
	const char *output;   /* --output FILE, or NULL for standard output */
	bool printed;         /* npd: the line was printed */
	const char *history_dir; /* --history-dir DIR: the JSON report kept there too (run/historydir.h) */
	long long history_days;  /* --history-days N (0: not given; RD_HISTDIR_DAYS) */
	long long time;          /* the report's time (seconds), its name in the history directory */
};

/* check's --format/-f (value NULL for --json/-j) and --output/-o, for its getopt_long loop: 1
 * taken (--format prometheus, --output FILE), 0 for the caller (--format text|json, which also
 * ends prometheus: the last --format wins), -1 refused (a bad value, or any of them for npd; the
 * message printed).  opt names the option in messages. */
int rd_emit_format(struct rd_ctx *ctx, const char *opt, const char *value, struct rd_emit *e);
int rd_emit_output(struct rd_ctx *ctx, const char *opt, const char *value, struct rd_emit *e);
/* --history-dir DIR and --history-days N (value: the option's); 1 taken, -1 refused. */
int rd_emit_history(struct rd_ctx *ctx, const char *opt, const char *value, struct rd_emit *e);
/* Parses --history-days' value: 1..RD_HISTDIR_DAYS_MAX, else -1 (the usage error printed). */
long long rd_history_days_opt(struct rd_ctx *ctx, const char *cmd, const char *value);
/* The JSON report into the history directory (run/historydir.h); a failure is one line on
 * stderr naming the path and why, and changes nothing else.  cmd names the command. */
void rd_emit_history_write(struct rd_ctx *ctx, const char *cmd, const char *dir, long long days, long long t,
			   const struct rd_report *r, const struct rd_host *h, const struct rd_system *s,
			   const struct rd_policy *p, const struct rd_report_meta *meta);

/* Prints the report the way e says and returns the exit status: rc (check's own) for check, 3
 * when --output could not be written (a line naming the file; nothing is left beside it), and
 * NPD's 0, 1 or 3 for npd.  With --history-dir the JSON report is also kept there: a failure
 * to keep it is a line on stderr and leaves the exit status as it is. */
int rd_emit(struct rd_ctx *ctx, struct rd_emit *e, bool json, const struct rd_report *r, const struct rd_host *h,
	    const struct rd_system *s, const struct rd_policy *p, const struct rd_report_meta *meta, int rc);

/* check and npd: parse check's options into e, run the checks, rd_emit. */
int rd_check_as(struct rd_ctx *ctx, int argc, char **argv, struct rd_emit *e);

#endif
