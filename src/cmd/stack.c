/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor stack`: what RDMA stack this host runs — kernel, modules, devices, ports. */
#include "cmd/cmd.h"
#include "model/host.h"
#include "model/system.h"
#include "render/out.h"
#include "render/stack.h"
#include "run/guard.h"

/* What stack shows, read under the guard (run/guard.h): prints nothing. */
struct stack_load {
	struct rd_source *src;
	struct rd_host h;
	struct rd_system sys;
	struct rd_policy pol; /* the root's own policy (data_ports, management, ignore), or the defaults */
	char error[1024];
};

static int stack_load(void *out, const void *arg)
{
	struct stack_load *s = out;
	int r = rd_load_open(arg, &s->src, s->error, sizeof s->error);
	if (r < 0)
		return r;
	rd_host_load(s->src, 0, &s->h);
	static const char *const no_services[] = {NULL};
	rd_system_load(s->src, &s->h, no_services, &s->sys);
	char perr[512];
	(void)rd_policy_load(NULL, s->src, &s->pol, perr, sizeof perr);
	return 0;
}

int rd_cmd_stack(struct rd_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	int rc = rd_format_only_opts(ctx, argc, argv, &json);
	if (rc >= 0)
		return rc;
	struct rd_load_opts o = rd_ctx_load_opts(ctx);
	struct stack_load s;
	if (rd_guard_load(stack_load, &o, &s, sizeof s) < 0) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s\n", ctx->prog, s.error);
		return RD_EXIT_UNKNOWN;
	}
	rd_stack_render(ctx->out, json, &s.h, &s.sys, rd_source_is_live(s.src) ? NULL : rd_source_root(s.src), &s.pol);
	rd_policy_free(&s.pol);
	rd_system_free(&s.sys);
	rd_host_free(&s.h);
	rd_source_close(s.src);
	return 0;
}
