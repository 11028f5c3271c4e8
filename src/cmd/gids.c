/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor gids [DEV...]`: the GID table as MLNX_OFED's show_gids prints it (text), or the same
 * rows as JSON, with the index NCCL would use on each RoCE port (JSON "nccl_gids"). */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "model/gid.h"
#include "render/gids.h"
#include "render/out.h"

int rd_cmd_gids(struct rd_ctx *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {RD_LONGOPT_FORMAT, RD_LONGOPT_HELP, {NULL, 0, NULL, 0}};
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:j", .longopts = longopts};
	bool json = false;
	const char **devs = rd_xcalloc((size_t)argc + 1, sizeof *devs);
	size_t ndevs = 0;
	int rc = -1;
	for (int c; rc < 0 && (c = rd_getopt(ctx, &g)) != RD_OPT_END;) {
		switch (c) {
		case 'f':
			if (rd_opt_format(ctx, argv[0], optarg, &json) < 0)
				rc = RD_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case RD_OPT_HELP:
			rc = 0;
			break;
		case RD_OPT_OPERAND:
			devs[ndevs++] = optarg;
			break;
		default:
			rc = RD_EXIT_USAGE;
		}
	}
	for (; rc < 0 && optind < argc; optind++)
		devs[ndevs++] = argv[optind];
	if (rc >= 0) {
		free(devs);
		return rc;
	}
	struct rd_loaded l;
	if (rd_ctx_load(ctx, NULL, false, &l) < 0) {
		free(devs);
		return RD_EXIT_UNKNOWN;
	}
	for (size_t i = 0; i < ndevs; i++)
		if (!rd_host_device(&l.h, devs[i])) {
			rd_text_printf(ctx->err, ctx->ascii, "%s: gids: no RDMA device '%s'\n", ctx->prog, devs[i]);
			rc = RD_EXIT_UNKNOWN;
		}
	if (rc < 0) {
		struct rd_nccl_sel sel;
		rd_nccl_sel_make(&sel, &l.sys.nccl_env, l.pol.nccl_gid_index, l.pol.nccl_roce_version, l.pol.nccl_family,
				 l.pol.nccl_version);
		struct rd_out o;
		rd_out_init(&o, ctx->out, json);
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "schema", NULL, "rdma-doctor/gids/v1");
		rd_out_str(&o, "host", NULL, rd_attr_ok(&l.h.hostname) ? l.h.hostname.value : NULL);
		rd_render_gid_table(&o, &l.h, devs, ndevs);
		if (json) {
			/* the NCCL version whose rule nccl_gids follows: null = unknown, 2.21.5's assumed */
			rd_out_str(&o, "nccl_version", NULL, sel.version ? sel.version_short : NULL);
			rd_out_str(&o, "nccl_version_from", NULL, sel.version ? sel.version_from : NULL);
			rd_render_nccl_gids(&o, &l.h, &sel);
		}
		rd_out_obj_end(&o);
		rd_out_finish(&o);
		rc = 0;
	}
	rd_loaded_free(&l);
	free(devs);
	return rc;
}
