/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Renders a probe result (probe/probe.h) as text for people (each host step, then each port with
 * its steps, timings, errors and fixes, and a closing "probe: PASS|FAIL" line) or as JSON (schema
 * rdma-doctor/probe/v1), both from the same result.
 * Ownership: borrows everything; keeps nothing. */
#ifndef RD_RENDER_PROBE_H
#define RD_RENDER_PROBE_H
#include <stdbool.h>
#include <stdio.h>

#include "probe/probe.h"

void rd_probe_render(FILE *f, bool json, const struct rd_probe_result *r);

#endif
