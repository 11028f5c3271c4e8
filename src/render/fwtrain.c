/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The firmware train of the installed release (render/fwtrain.h). */
#include "render/fwtrain.h"

#include <stdio.h>
#include <string.h>

#include "model/fwtrain.h"
#include "model/mft.h"

void rd_render_fw_train(struct rd_out *o, const struct rd_host *h, const struct rd_stack *st, const struct rd_mft *m)
{
	const struct rd_fw_release *r = st->fw_release;
	if (!r) {
		char why[256];
		rd_fwtrain_why_none(st, why, sizeof why);
		rd_out_null(o, "firmware_train");
		rd_out_str(o, "firmware_train_reason", "Firmware: no train to compare with (%s)\n", why);
		return;
	}
	char name[96];
	snprintf(name, sizeof name, "%s %s", r->flavor == RD_STACK_DOCA_OFED ? "DOCA" : "MLNX_OFED", r->version);
	rd_out_obj_begin(o, "firmware_train");
	rd_out_str(o, "release", "Firmware: %s ships", name);
	rd_out_arr_begin(o, "devices");
	size_t shown = 0;
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		enum rd_adapter a = rd_adapter_of(d->device_id);
		if (a == RD_AD_NONE)
			continue;
		const char *want = rd_fwtrain_expected(r, a);
		const struct rd_attr *fa = m ? rd_mft_fw_ver(m, d) : &d->fw_ver; /* sysfs, else flint's */
		const char *fw = rd_attr_ok(fa) && *fa->value ? fa->value : NULL;
		char exp[64] = "";
		if (want)
			snprintf(exp, sizeof exp, "%.*s", (int)strcspn(want, "|"), want);
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "name", shown++ ? ", %s" : " %s", d->name);
		rd_out_str(o, "adapter", NULL, rd_adapter_name(a));
		rd_out_str(o, "fw_ver", NULL, fw);
		rd_out_str(o, "expected", NULL, want ? exp : NULL);
		if (want)
			rd_out_text(o, " %s", exp);
		else
			rd_out_text(o, " (%s: not judged)", rd_adapter_name(a));
		if (want && fw) {
			bool ok = rd_fwtrain_match(want, fw);
			rd_out_bool(o, "matches", NULL, ok);
			if (!ok)
				rd_out_text(o, " (runs %s)", fw);
		} else {
			rd_out_null(o, "matches");
		}
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
	if (!shown)
		rd_out_text(o, " (no ConnectX-4+ or BlueField-2+ HCA here)");
	rd_out_str(o, "source", "\n          %s\n", r->source);
	rd_out_obj_end(o);
}
