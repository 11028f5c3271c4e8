/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor topo`: the GPU and RDMA NIC PCIe topology in `nvidia-smi topo
 * -m`'s notation, from sysfs alone (model/pcitopo.h), on the live host, a
 * --root or a snapshot. */
#include "render/topo.h"
#include "cmd/cmd.h"
#include "render/out.h"

int rd_cmd_topo(struct rd_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	int rc = rd_format_only_opts(ctx, argc, argv, &json);
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
