/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor stack`: what RDMA stack this host runs — kernel, modules, devices, ports. */
#include "cmd/cmd.h"
#include "model/host.h"
#include "model/system.h"
#include "render/stack.h"

int rd_cmd_stack(struct rd_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	int rc = rd_format_only_opts(ctx, argc, argv, &json);
	if (rc >= 0)
		return rc;
	struct rd_source *src;
	if (rd_ctx_open_source(ctx, &src) < 0)
		return RD_EXIT_UNKNOWN;
	struct rd_host h;
	struct rd_system sys;
	rd_host_load(src, 0, &h);
	static const char *const no_services[] = {NULL};
	rd_system_load(src, &h, no_services, &sys);

	struct rd_policy pol; /* the root's own policy (data_ports, management, ignore), or the defaults */
	char perr[512];
	(void)rd_policy_load(NULL, src, &pol, perr, sizeof perr);
	rd_stack_render(ctx->out, json, &h, &sys, rd_source_is_live(src) ? NULL : rd_source_root(src), &pol);
	rd_policy_free(&pol);

	rd_system_free(&sys);
	rd_host_free(&h);
	rd_source_close(src);
	return 0;
}
