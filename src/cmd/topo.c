/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor topo`: the GPU and RDMA NIC PCIe topology in `nvidia-smi topo
 * -m`'s notation, from sysfs alone (model/pcitopo.h), on the live host, a
 * --root or a snapshot. */
#include "render/topo.h"
#include "cmd/cmd.h"
#include "render/out.h"

int rd_cmd_topo(struct rd_ctx *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {RD_LONGOPT_FORMAT, RD_LONGOPT_HELP, {NULL, 0, NULL, 0}};
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:j", .longopts = longopts};
	bool json = false;
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
			rc = rd_usage_error(ctx, argv[0], "takes no operand, not '%s'", optarg);
			break;
		default:
			rc = RD_EXIT_USAGE;
		}
	}
	if (rc < 0 && optind < argc)
		rc = rd_usage_error(ctx, argv[0], "takes no operand, not '%s'", argv[optind]);
	if (rc >= 0)
		return rc;
	struct rd_loaded l;
	if (rd_ctx_load(ctx, NULL, false, &l) < 0)
		return RD_EXIT_UNKNOWN;
	struct rd_out o;
	rd_out_init(&o, ctx->out, json);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/topo/v1");
	rd_out_str(&o, "host", NULL, rd_attr_value(&l.h.hostname));
	rd_render_topo(&o, &l.sys.topo);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
	rd_loaded_free(&l);
	return 0;
}
