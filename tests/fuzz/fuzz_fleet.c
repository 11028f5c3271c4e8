/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the fleet's report reader (fleet/report_in.c) over any input, fed in pieces whose
 * sizes the input's first byte chooses (JSON, pdsh `host: line` and clush -b blocks across
 * feeds; as standard input or as a node's file), every report into the summary, which is then finished and rendered as text, JSON and
 * HTML: no crash, no leak, the summary's counts consistent. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleet/report_in.h"
#include "fleet/summary.h"
#include "render/fleet.h"

static void on_report(void *arg, const char *origin, const char *label, const struct rd_fleet_report *r)
{
	rd_fleet_add(arg, origin, label, r);
}

static void on_problem(void *arg, const char *origin, const char *label, const char *msg)
{
	rd_fleet_problem(arg, origin, label, msg);
}

static const struct rd_fleet_input_cb cb = {on_report, on_problem};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_fleet f;
	rd_fleet_init(&f, 1764460800, size && data[0] & 1 ? 3600 : 0);
	struct rd_fleet_input *in = rd_fleet_input_new("fuzz", &cb, &f);
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
	rd_fleet_finish(&f);
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
		fclose(null);
	}
	rd_fleet_free(&f);
	return 0;
}
