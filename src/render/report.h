/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Renders a check report as text for people (marks, colour on a terminal, failures first with
 * evidence and fix, a one-line summary) or as the JSON report (schema rdma-doctor/report/v1,
 * docs/report-json.md), both from the same result model.
 * Ownership: borrows everything; keeps nothing. */
#ifndef RD_REPORT_H
#define RD_REPORT_H
#include <stdbool.h>
#include <stdio.h>

#include "checks/check.h"

struct rd_report_meta {
	const char *root;        /* NULL for the live host */
	const char *time;        /* ISO 8601 UTC */
	bool color;
	bool ascii;              /* the terminal is not UTF-8: ASCII marks, non-ASCII bytes escaped */
	bool no_hardware;        /* the host has no RDMA hardware at all */
};

/* The report's status: the worst finding (SKIP counts as OK), and at least UNKNOWN on a host with
 * no RDMA hardware.  The text summary label, the JSON summary.status and check's exit status. */
enum rd_status rd_report_summary_status(const struct rd_report *r, const struct rd_report_meta *meta);

void rd_report_text(FILE *f, const struct rd_report *r, const struct rd_host *h, const struct rd_system *s,
		    const struct rd_policy *p, const struct rd_report_meta *meta);
void rd_report_json(FILE *f, const struct rd_report *r, const struct rd_host *h, const struct rd_system *s,
		    const struct rd_policy *p, const struct rd_report_meta *meta);

#endif
