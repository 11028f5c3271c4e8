/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Renders `fleet --history` (fleet/history.h): text for people (the lemons first, each with its
 * counts, rule and times), one JSON document (schema rdma-doctor/fleet-history/v1,
 * docs/fleet.md) from the same printing calls, one self-contained HTML page (a timeline per
 * node), and Prometheus series (rdma_doctor_fleet_lemon_score, rdma_doctor_fleet_reboots per
 * node).
 * Ownership: borrows everything; keeps nothing. */
#ifndef RD_RENDER_FLEET_HISTORY_H
#define RD_RENDER_FLEET_HISTORY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fleet/history.h"

/* Text shows at most this many times per subject (JSON every one). */
#define RD_HIST_TEXT_MAX_TIMES 8

/* problems: the inputs and reports that could not be counted (told on standard error). */
void rd_hist_render(FILE *out, const struct rd_hist *h, size_t problems, bool json, bool ascii);
/* The page's timeline: the window cut into this many spans, each drawn in the worst status of
 * the node's reports in it (so the page grows with nodes, not with reports). */
#define RD_HIST_HTML_SPANS 192
void rd_hist_html(FILE *out, const struct rd_hist *h, size_t problems);
void rd_hist_prometheus(FILE *out, const struct rd_hist *h, size_t problems);

#endif
