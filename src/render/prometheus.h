/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Renders a check report and the host's ports in the Prometheus text exposition format (0.0.4),
 * for node_exporter's textfile collector: HELP and TYPE for every metric, base units, `_total`
 * only on counters, no timestamps.  Names start with rdma_doctor_ so they never clash with
 * node_exporter's node_infiniband_*.  Every label value from the host is escaped (backslash,
 * double quote, newline) and made valid UTF-8.
 *
 * rdma_doctor_check_status{check,subject} carries the monitoring-plugin value (0 OK, 1 WARN,
 * 2 FAIL, 3 UNKNOWN); a SKIP finding is not a status and is left out (it is counted in
 * rdma_doctor_findings{status="SKIP"}).  Two findings with the same check and subject give one
 * series with the worse status.
 * Ownership: borrows everything; keeps nothing. */
#ifndef RD_PROMETHEUS_H
#define RD_PROMETHEUS_H
#include <stdio.h>

#include "checks/check.h"
#include "render/report.h"

/* now: the run's time in seconds since the epoch (rdma_doctor_last_run_timestamp_seconds). */
void rd_report_prometheus(FILE *f, const struct rd_report *r, const struct rd_host *h, const struct rd_system *s,
			  const struct rd_report_meta *meta, long long now);

/* Writes s as an escaped label value (without the quotes) to f; appends it to b. */
void rd_prom_label_value(FILE *f, const char *s);
struct rd_buf;
void rd_prom_label_escape(struct rd_buf *b, const char *s);
/* The "# HELP" and "# TYPE" lines of a metric. */
void rd_prom_head(FILE *f, const char *name, const char *type, const char *help);
/* name{k1="v1",k2="v2",...} followed by a space (the caller prints the value): keys and escaped
 * values alternate in kv, ended by NULL; kv NULL or empty: no braces. */
void rd_prom_series(FILE *f, const char *name, const char *const *kv);
/* name{status} for OK, WARN, FAIL, UNKNOWN and SKIP: r's findings of each, with its HELP/TYPE. */
void rd_prom_findings(FILE *f, const char *name, const char *help, const struct rd_report *r);

#endif
