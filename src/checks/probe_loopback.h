/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* probe.loopback: the verbs probe's result (probe/probe.h) as findings of `check --probe`, one
 * per probed port (OK, FAIL, or SKIP for a port that is not Active while another one is), or one
 * for the host when the probe failed before any port; every step is evidence, every fix a fix.
 * Not in the catalogue: it judges the probe's result, which needs the live host, not the model.
 * Ownership: borrows res; the findings belong to rep. */
#ifndef RD_CHECKS_PROBE_LOOPBACK_H
#define RD_CHECKS_PROBE_LOOPBACK_H
#include "checks/check.h"
#include "probe/probe.h"

void rd_probe_loopback(const struct rd_probe_result *res, struct rd_report *rep);
/* The probe was not started: the checks used the run's --timeout of timeout_s (elapsed_ms so far).
 * UNKNOWN, not FAIL: nothing is known of the verbs path. */
void rd_probe_loopback_not_run(struct rd_report *rep, double timeout_s, long long elapsed_ms);
/* The host has no RDMA hardware (rd_host_has_rdma_hardware): the probe is not started.  SKIP, as
 * every check is on such a host: there is no verbs path to verify, and none is needed. */
void rd_probe_loopback_no_hardware(struct rd_report *rep);

#endif
