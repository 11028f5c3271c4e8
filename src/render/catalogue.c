/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "render/catalogue.h"

#include "checks/check.h"
#include "render/out.h"

void rd_catalogue_render(FILE *f, bool json)
{
	struct rd_out o;
	rd_out_init(&o, f, json);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/checks/v1");
	rd_out_arr_begin(&o, "checks");
	for (const struct rd_check *c = rd_checks; c->id; c++) {
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "id", "%-22s", c->id);
		rd_out_str(&o, "title", "%s\n", c->title);
		rd_out_str(&o, "detects", "    detects: %s\n", c->detects);
		rd_out_str(&o, "evidence", "    reads:   %s\n", c->evidence);
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
}
