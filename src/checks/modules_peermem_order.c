/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* modules.peermem_order: nvidia_peermem must not be configured to load before ib_core.
 * systemd-modules-load applies files in file-name order, lines in order. */
#include <string.h>

#include "checks/catalogue.h"
#include "fix/fix.h"

/* Position of a module in the boot-time load order: file index * 10000 + line; -1 if absent. */
static long position(const struct rd_system *sys, const char *module, const struct rd_modload_file **file)
{
	for (size_t i = 0; i < sys->nmodload; i++) {
		const struct rd_modload_file *f = &sys->modload[i];
		if (f->overridden)
			continue;
		for (size_t k = 0; k < f->modules.n; k++)
			if (strcmp(f->modules.v[k], module) == 0) {
				*file = f;
				return (long)i * 10000 + (long)k;
			}
	}
	*file = NULL;
	return -1;
}

void rd_check_modules_peermem_order(struct rd_check_ctx *ctx)
{
	const struct rd_modload_file *pf, *cf;
	long peer = position(ctx->sys, "nvidia_peermem", &pf);
	long core = position(ctx->sys, "ib_core", &cf);
	if (peer < 0) {
		rd_finding_add(ctx, RD_SKIP, "nvidia_peermem", "nvidia_peermem is not in any modules-load.d file");
		return;
	}
	if (core >= 0 && peer > core) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "nvidia_peermem", "nvidia_peermem (%s) loads after ib_core (%s)",
						      pf->name, cf->name);
		rd_evidence_add(f, pf->path, "nvidia_peermem");
		rd_evidence_add(f, cf->path, "ib_core");
		return;
	}
	struct rd_finding *f;
	if (core < 0) {
		f = rd_finding_add(ctx, RD_WARN, "nvidia_peermem",
				   "nvidia_peermem is configured in %s but ib_core is in no modules-load.d file: "
				   "if nvidia_peermem loads before the RDMA stack is up its registration silently fails",
				   pf->name);
		rd_evidence_add(f, pf->path, "nvidia_peermem");
	} else {
		f = rd_finding_add(ctx, RD_WARN, "nvidia_peermem",
				   "nvidia_peermem (%s) is configured to load before ib_core (%s): GPUDirect "
				   "registration silently fails when it loads first",
				   pf->name, cf->name);
		rd_evidence_add(f, pf->path, "nvidia_peermem");
		rd_evidence_add(f, cf->path, "ib_core");
	}
	/* `fix modules` moves it (keeping the operator's lines), and the same change by hand */
	struct rd_fix_plan plan;
	rd_fix_modules_plan(ctx->host, ctx->sys, ctx->policy, ctx->live, &plan);
	if (!rd_fix_plan_suggest(&plan, f)) {
		/* the guide suggests nvidia-peermem.conf, which only works when it sorts after ib_core's
		 * file (it sorts before rdma.conf): name a file that does */
		const char *after = cf ? cf->name : "rdma.conf";
		const char *name = strcmp("nvidia-peermem.conf", after) > 0 ? "nvidia-peermem.conf" : "zz-nvidia-peermem.conf";
		for (size_t i = 0; i < plan.errors.n; i++)
			rd_fix_add(f, "# %s", plan.errors.v[i]);
		rd_fix_add(f, "remove the nvidia_peermem line from %s", pf->path);
		if (!cf)
			rd_fix_add(f, "echo ib_core >> /etc/modules-load.d/rdma.conf");
		rd_fix_add(f, "echo nvidia_peermem > /etc/modules-load.d/%s    # sorts after %s", name, after);
	}
	rd_fix_plan_free(&plan);
	rd_fix_add(f, "rmmod nvidia_peermem; modprobe nvidia_peermem    # now, to register it");
}
