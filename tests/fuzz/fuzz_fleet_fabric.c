/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: what `rdma-doctor fleet --fabric FILE` reads, on any bytes: a rdma-doctor/fabric/v1
 * document.  The parse either fails with a reason (and holds nothing) or gives a verdict, links
 * within the bounds and findings with a check and a subject; the fleet summary with it is then
 * rendered as text, JSON and HTML (to /dev/null). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fabric_in.h"
#include "fleet/summary.h"
#include "render/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_fleet_fabric fab;
	char err[400] = "";
	int r = rd_fleet_fabric_parse(&fab, (const char *)data, size, err, sizeof err);
	if (r < 0) {
		if (!err[0] || fab.nlinks || fab.nfinds || fab.links || fab.finds)
			abort();
		return 0;
	}
	if (fab.status == RD_FS_NONE || fab.nlinks > RD_FLEET_FABRIC_MAX_LINKS || fab.nfinds > RD_FLEET_FABRIC_MAX_FINDINGS ||
	    fab.bad_links > fab.nlinks)
		abort();
	for (size_t i = 0; i < fab.nfinds; i++)
		if (!fab.finds[i].check || !*fab.finds[i].check || !fab.finds[i].subject || fab.finds[i].status == RD_FS_NONE)
			abort();
	for (size_t i = 0; i < fab.nlinks; i++)
		if (!fab.links[i].a.guid || !fab.links[i].a.desc || !fab.links[i].a.kind || !fab.links[i].b.desc)
			abort();
	fab.origin = strdup("fabric.json");
	struct rd_fleet f;
	rd_fleet_init(&f, 1764460800, 0);
	rd_fleet_set_fabric(&f, &fab);
	rd_fleet_finish(&f);
	if (f.fabric->status == RD_FS_FAIL && f.exit_code != 2)
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
