/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fabric's inputs (fabric.h): infiniband-diags' outputs, run on the live host through the
 * source layer's commands (a timeout each, no shell) or read from a root or a directory of
 * captures. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"

static const struct {
	const char *name, *command;
} inputs[RD_FAB_NIN] = {
	[RD_FAB_IN_LINKINFO] = {"iblinkinfo-switches-only-l", "iblinkinfo --switches-only -l"},
	[RD_FAB_IN_NETDISCOVER] = {"ibnetdiscover-p", "ibnetdiscover -p"},
	[RD_FAB_IN_SMINFO] = {"sminfo", "sminfo"},
	[RD_FAB_IN_QUERYERRORS] = {"ibqueryerrors", "ibqueryerrors"},
};

void rd_fab_read_inputs(struct rd_source *src, bool run_live, bool counters, struct rd_fab_input in[RD_FAB_NIN])
{
	bool live = rd_source_is_live(src);
	for (int i = 0; i < RD_FAB_NIN; i++) {
		memset(&in[i], 0, sizeof in[i]);
		in[i].name = inputs[i].name;
		in[i].command = inputs[i].command;
		if ((live && !run_live) || (i == RD_FAB_IN_QUERYERRORS && !counters)) {
			in[i].text.err = RD_ENOTCAPTURED;
			in[i].text.status = -1;
			continue;
		}
		int r = rd_run_command(src, inputs[i].name, &in[i].text);
		if (!live && r == -RD_ENOTCAPTURED) {
			/* a plain directory of captures: DIR/<name> */
			rd_text_free(&in[i].text);
			memset(&in[i].text, 0, sizeof in[i].text);
			if (rd_read_file(src, inputs[i].name, RD_CAP_FILE, &in[i].text) == 0)
				in[i].from_file = true;
			else if (in[i].text.err == ENOENT)
				in[i].text.err = RD_ENOTCAPTURED;
		}
	}
}

void rd_fab_inputs_free(struct rd_fab_input in[RD_FAB_NIN])
{
	for (int i = 0; i < RD_FAB_NIN; i++)
		rd_text_free(&in[i].text);
}

bool rd_fab_umad_present(struct rd_source *src)
{
	struct rd_strv names = {0};
	bool found = false;
	if (rd_list_dir(src, "dev/infiniband", &names) == 0)
		for (size_t i = 0; i < names.n && !found; i++)
			found = rd_str_has_prefix(names.v[i], "umad");
	rd_strv_free(&names);
	return found;
}

int rd_fab_read_fts(struct rd_source *src, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	int r = rd_run_command(src, "dump_fts", out);
	if (r == 0 && out->status != 0 && rd_source_is_live(src)) {
		out->err = EIO; /* it failed here: what it printed is not every table */
		r = -EIO;
	}
	if (r == -RD_ENOTCAPTURED && !rd_source_is_live(src)) {
		rd_text_free(out);
		memset(out, 0, sizeof *out);
		r = rd_read_file(src, "dump_fts", RD_CAP_FILE, out);
		if (r == -ENOENT)
			out->err = RD_ENOTCAPTURED;
	}
	return out->err ? -out->err : r;
}

bool rd_fab_can_run_live(struct rd_source *src)
{
	const char *pre = getenv("LD_PRELOAD");
	if (pre && strstr(pre, "libumad2sim"))
		return true;
	return rd_fab_umad_present(src);
}
