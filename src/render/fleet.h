/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Renders the fleet summary (fleet/summary.h): text for people, one JSON document (schema
 * rdma-doctor/fleet/v1, docs/fleet-json.md), or one self-contained HTML page (drift tables, the
 * fabric switch by switch when --fabric gave one, and a nodes-by-checks grid; no script, no
 * external asset).
 * Ownership: borrows everything; keeps nothing. */
#ifndef RD_RENDER_FLEET_H
#define RD_RENDER_FLEET_H
#include <stdbool.h>
#include <stdio.h>

#include "fleet/summary.h"

/* The grid of the HTML page shows at most this many nodes (those with a non-OK check first). */
#define RD_FLEET_HTML_MAX_ROWS 5000
/* Text lists at most this many unreadable inputs and notes (JSON lists every one kept). */
#define RD_FLEET_TEXT_MAX_PROBLEMS 20
/* Text lists at most this many of the fabric's findings (JSON lists every one kept). */
#define RD_FLEET_TEXT_MAX_FABRIC 100
/* The HTML page's fabric section shows at most this many switch ports (rows). */
#define RD_FLEET_HTML_MAX_LINK_ROWS 20000

/* The fleet's verdict word for its exit status: FAIL, WARN, UNKNOWN, OK. */
const char *rd_fleet_verdict(const struct rd_fleet *f);

void rd_fleet_text(FILE *out, const struct rd_fleet *f, bool ascii);
void rd_fleet_json(FILE *out, const struct rd_fleet *f);
void rd_fleet_html(FILE *out, const struct rd_fleet *f);
/* s as HTML text: first made visible as the text output makes it, then & < > " ' escaped. */
void rd_fleet_html_text(FILE *out, const char *s);

#endif
