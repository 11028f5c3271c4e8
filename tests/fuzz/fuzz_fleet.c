/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the fleet's report reader (fleet/report_in.c) over any input, fed in pieces whose
 * sizes the input's first byte chooses (JSON, pdsh `host: line` and clush -b blocks across
 * feeds; as standard input or as a node's file), every report into the summary, which is then finished and rendered as text, JSON and
 * HTML, and every valid one into fleet --history's scoring (fleet/history.c), rendered as text,
 * JSON and Prometheus: no crash, no leak, the summary's and the history's counts consistent. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleet/history.h"
#include "fleet/report_in.h"
#include "fleet/summary.h"
#include "render/fleet.h"
#include "render/fleet_history.h"

struct both {
	struct rd_fleet f;
	struct rd_hist h;
};

static void on_report(void *arg, const char *origin, const char *label, const struct rd_fleet_report *r)
{
	struct both *b = arg;
	rd_fleet_add(&b->f, origin, label, r);
	char why[320];
	if (rd_fleet_report_valid(r, why, sizeof why))
		(void)rd_hist_add(&b->h, r, why, sizeof why);
}

static void on_problem(void *arg, const char *origin, const char *label, const char *msg)
{
	rd_fleet_problem(&((struct both *)arg)->f, origin, label, msg);
}

static const struct rd_fleet_input_cb cb = {on_report, on_problem};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct both b;
	struct rd_fleet f;
	rd_fleet_init(&b.f, 1764460800, size && data[0] & 1 ? 3600 : 0);
	rd_hist_init(&b.h, 1764460800, size && data[0] & 8 ? 1 : 7, size && data[0] & 16 ? 1 : 3);
	struct rd_fleet_input *in = rd_fleet_input_new("fuzz", &cb, &b);
	if (size && data[0] & 4) /* a directory's file: named by its node, pdsh/clush lines refused */
		rd_fleet_input_node(in, "n1", false);
	size_t piece = size ? 1 + (size_t)data[0] * 131 : 1;
	int r = 0;
	for (size_t at = 0; at < size && r == 0;) {
		size_t n = size - at < piece ? size - at : piece;
		r = rd_fleet_input_feed(in, (const char *)data + at, n);
		at += n;
	}
	if (r == 0)
		rd_fleet_input_end(in);
	rd_fleet_input_free(in);
	f = b.f;
	rd_fleet_finish(&f);
	rd_hist_finish(&b.h);
	size_t old = 0, lemons = 0;
	for (size_t i = 0; i < b.h.nnodes; i++) {
		old += b.h.nodes[i].nreps - b.h.nodes[i].nwindow;
		lemons += b.h.nodes[i].lemon;
		if (b.h.nodes[i].lemon != (b.h.nodes[i].score > 0))
			abort();
	}
	if (old != b.h.old || lemons != b.h.nlemons || b.h.old > b.h.nreports)
		abort();
	size_t sum = 0;
	for (int s = 0; s < 6; s++)
		sum += f.nstatus[s];
	if (sum != f.nreported || f.nreported + f.nstale + f.nmissing != f.nnodes || f.nexpected_reported > f.nreported)
		abort();
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		rd_fleet_text(null, &f, size && data[0] & 2);
		rd_fleet_json(null, &f);
		rd_fleet_html(null, &f);
		rd_hist_render(null, &b.h, 0, false, size && data[0] & 2);
		rd_hist_render(null, &b.h, 0, true, false);
		rd_hist_prometheus(null, &b.h, 0);
		fclose(null);
	}
	rd_fleet_free(&f);
	rd_hist_free(&b.h);
	return 0;
}
