/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: what `rdma-doctor fleet --pairs FILE` reads, on any bytes: a rdma-doctor/pairs/v1
 * judgement.  The parse either fails with a reason (and holds nothing) or gives a verdict and
 * findings with an id and a host name; the fleet summary with it is then rendered as text, JSON
 * and HTML (to /dev/null). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/pairs_in.h"
#include "fleet/summary.h"
#include "render/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_fleet_pairs p;
	char err[400] = "";
	if (rd_fleet_pairs_parse(&p, (const char *)data, size, err, sizeof err) < 0) {
		if (!err[0] || p.finds || p.nfinds || p.bad)
			abort();
		return 0;
	}
	if (p.status == RD_FS_NONE || p.nfinds > RD_FLEET_PAIRS_MAX_FINDINGS || !p.bad || !p.cleared)
		abort();
	for (size_t i = 0; i < p.nfinds; i++)
		if (!p.finds[i].id || !*p.finds[i].id || !rd_fleet_hostname_ok(p.finds[i].host) ||
		    (p.finds[i].peer && !rd_fleet_hostname_ok(p.finds[i].peer)) || p.finds[i].status == RD_FS_NONE)
			abort();
	p.origin = strdup("pairs.json");
	struct rd_fleet f;
	rd_fleet_init(&f, 1764460800, 0);
	rd_fleet_set_pairs(&f, &p);
	rd_fleet_finish(&f);
	if (f.pairs->status == RD_FS_FAIL && f.exit_code != 2)
		abort();
	FILE *out = fopen("/dev/null", "w");
	if (out) {
		rd_fleet_text(out, &f, false);
		rd_fleet_json(out, &f);
		rd_fleet_html(out, &f);
		fclose(out);
	}
	rd_fleet_free(&f);
	return 0;
}
