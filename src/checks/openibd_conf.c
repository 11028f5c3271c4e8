/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* openibd.conf: every module /etc/infiniband/openib.conf asks openibd to load must exist for the
 * running kernel, or openibd stays dead. */
#include "checks/catalogue.h"

void rd_check_openibd_conf(struct rd_check_ctx *ctx)
{
	const struct rd_system *s = ctx->sys;
	const struct rd_host *h = ctx->host;
	const struct rd_stack *st = rd_system_stack(s);
	if (!rd_attr_ok(&s->openib_conf)) {
		/* the reason follows the one answer on what is installed (model/stack.h) */
		if (rd_stack_is_ofed(st->installed))
			rd_finding_add(ctx, RD_SKIP, "openib.conf", "no /etc/infiniband/openib.conf in this root (%s is "
				       "installed: see openibd.state)", rd_stack_kind_name(st->installed));
		else if (st->installed == RD_STACK_INBOX)
			rd_finding_add(ctx, RD_SKIP, "openib.conf", "no /etc/infiniband/openib.conf (not an OFED install)");
		else
			rd_finding_add(ctx, RD_SKIP, "openib.conf", "no /etc/infiniband/openib.conf");
		return;
	}
	if (!rd_attr_ok(&s->modules_dep)) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "openib.conf",
						      "cannot tell which modules the running kernel has");
		rd_evidence_attr(f, &s->modules_dep);
		return;
	}
	size_t missing = 0;
	for (size_t i = 0; i < s->openib_modules.n; i++) {
		const char *m = s->openib_modules.v[i];
		if (rd_strv_contains(&s->kmod_names, m) || rd_module_loaded(h, m))
			continue;
		missing++;
		struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, m,
						      "openib.conf loads %s, which kernel %s does not have: openibd fails "
						      "and stays inactive (dead)",
						      m, rd_attr_ok(&h->osrelease) ? h->osrelease.value : "?");
		rd_evidence_add(f, s->openib_conf.path, "asks for %s", m);
		rd_evidence_add(f, s->modules_dep.path, "no %s", m);
		rd_fix_add(f, "set the matching *_LOAD=no in /etc/infiniband/openib.conf (or rebuild OFED for this kernel)");
		rd_fix_add(f, "or rely on /etc/modules-load.d/rdma.conf, which survives kernel and OS upgrades");
	}
	if (!missing) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "openib.conf", "all %zu modules openib.conf loads exist",
						      s->openib_modules.n);
		rd_evidence_add(f, s->openib_conf.path, "%zu module%s", s->openib_modules.n, s->openib_modules.n == 1 ? "" : "s");
	}
}
