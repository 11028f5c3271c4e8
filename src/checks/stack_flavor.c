/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* stack.flavor: inbox rdma-core, MLNX_OFED or DOCA-OFED, its version, and which stack to run.
 * The facts themselves are derived once in the model (sys->stack); this check reports them. */
#include <stdio.h>
#include <string.h>

#include "checks/catalogue.h"

void rd_check_stack_flavor(struct rd_check_ctx *ctx)
{
	const struct rd_system *s = ctx->sys;
	const struct rd_stack *st = rd_system_stack(s);
	if (!rd_host_has_rdma_hardware(ctx->host, s) && !rd_module_loaded(ctx->host, "ib_core") &&
	    !rd_module_loaded(ctx->host, "mlx5_core")) {
		rd_finding_add(ctx, RD_SKIP, "host", "no RDMA hardware and no RDMA stack loaded");
		return;
	}
	bool known = st->installed != RD_STACK_UNKNOWN;
	struct rd_finding *f = rd_finding_add(ctx, known ? RD_OK : RD_UNKNOWN, "host", "%s%s%s installed, %s modules loaded: %s",
					      rd_stack_kind_name(st->installed), st->version[0] ? " " : "", st->version,
					      rd_stack_run_name(st->running), st->advice);
	if (s->ofed_info.err == 0)
		rd_evidence_add(f, "ofed_info -s", "%.*s", (int)strcspn(s->ofed_info.data, "\n"), s->ofed_info.data);
	else
		rd_evidence_add(f, "ofed_info -s", "<%s>", rd_strerror(s->ofed_info.err));
	for (size_t i = 0; i < s->npackages; i++)
		if (s->packages[i].installed)
			rd_evidence_add(f, "/var/lib/dpkg/status", "%s %s", s->packages[i].name, s->packages[i].version);
	const struct rd_rpmdb *r = &s->rpm; /* an RPM host: its database (model/rpmdb.h) */
	if (r->consulted && r->err)
		rd_evidence_add(f, r->path, "<%s>", rd_strerror(r->err));
	for (size_t i = 0; r->consulted && i < r->npkgs; i++)
		rd_evidence_add(f, r->path, "%s %s", r->pkgs[i].name, r->pkgs[i].evr);
	const struct rd_module *m = rd_host_module(ctx->host, "mlx5_core");
	if (m) {
		rd_evidence_attr(f, &m->version);
		rd_evidence_add(f, "/sys/module/mlx5_core/taint", "%s", m->taint ? m->taint : "");
	}
	if (st->mlx_compat)
		rd_evidence_add(f, "/sys/module/mlx_compat", "present (OFED compat layer)");
	for (size_t i = 0; i < s->kmod_paths.n; i++)
		if (rd_str_has_suffix(s->kmod_names.v[i], "mlx5_core"))
			rd_evidence_add(f, s->modules_dep.path, "%s", s->kmod_paths.v[i]);
}
