/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* peermem.loaded: with NVIDIA GPUs and RDMA devices, GPUDirect RDMA needs nvidia_peermem (or a
 * DMA-BUF capable stack). */
#include "checks/catalogue.h"

void rd_check_peermem_loaded(struct rd_check_ctx *ctx)
{
	size_t gpus = 0;
	for (size_t i = 0; i < ctx->sys->npci; i++)
		if (ctx->sys->pci[i].vendor == 0x10de && (ctx->sys->pci[i].class_code >> 16) == 0x03)
			gpus++;
	if (!gpus || !ctx->host->ndevices) {
		rd_finding_add(ctx, RD_SKIP, "nvidia_peermem", gpus ? "no RDMA device" : "no NVIDIA GPU on this host");
		return;
	}
	const struct rd_module *m = rd_host_module(ctx->host, "nvidia_peermem");
	const struct rd_module *core = rd_host_module(ctx->host, "ib_core");
	if (m && m->loaded) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "nvidia_peermem", "nvidia_peermem loaded for %zu GPU%s", gpus,
						      gpus == 1 ? "" : "s");
		rd_evidence_attr(f, &m->version);
		if (core)
			rd_evidence_add(f, "/sys/module/ib_core/holders", "%s nvidia_peermem",
					rd_strv_contains(&core->holders, "nvidia_peermem") ? "includes" : "does not include");
		return;
	}
	if (rd_system_stack(ctx->sys)->running == RD_RUN_UNKNOWN && ctx->host->proc_modules.err) {
		/* no module list: "not loaded" would be a guess */
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "nvidia_peermem",
						      "cannot tell whether nvidia_peermem is loaded for the %zu NVIDIA GPUs", gpus);
		rd_evidence_attr(f, &ctx->host->proc_modules);
		return;
	}
	struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "nvidia_peermem",
					      "%zu NVIDIA GPUs and RDMA devices but nvidia_peermem is not loaded: NCCL "
					      "moves GPU data through host memory unless it can use DMA-BUF (kernel >= 5.12, "
					      "open GPU kernel modules)",
					      gpus);
	rd_evidence_add(f, "/sys/module/nvidia_peermem", "<absent>");
	rd_fix_add(f, "modprobe nvidia_peermem");
	rd_fix_add(f, "echo nvidia_peermem > /etc/modules-load.d/zz-nvidia-peermem.conf    # after ib_core's file");
}
