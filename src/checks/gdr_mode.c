/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* gdr.mode: what NCCL will use for GPUDirect RDMA on this host, one finding.  NCCL registers GPU
 * memory with the NIC through DMA-BUF when NCCL_DMABUF_ENABLE is not 0 (init.cc dmaBufSupported),
 * the GPU says it supports it (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: the NVIDIA open kernel
 * module, a driver for CUDA 11.7+, R515) and the kernel can import it into the RDMA stack
 * (ibv_reg_dmabuf_mr: Linux 5.12+ with CONFIG_DMA_SHARED_BUFFER; net_ib/gdr.cc probes it with fd
 * -1); else through nvidia_peermem when one of the files of ncclIbGdrSupport exists; else not at
 * all (it stages through host memory).  A GPU whose nearest NIC is beyond NCCL_NET_GDR_LEVEL uses
 * none either way (gdr.path): with no GPU within that distance, none.  OK: DMA-BUF or
 * nvidia_peermem.  WARN: none.  UNKNOWN: DMA-BUF cannot be told and nvidia_peermem is not
 * loaded.  No GPU or NIC: SKIP. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "checks/gdr_scope.h"
#include "model/pcitopo.h"

enum verdict { YES = RD_DMABUF_YES, NO = RD_DMABUF_NO, UNSURE = RD_DMABUF_UNSURE };

void rd_check_gdr_mode(struct rd_check_ctx *ctx)
{
	const struct rd_pcitopo *t = rd_gdr_topo(ctx);
	if (!t || rd_nccl_environ_unread(ctx))
		return;
	size_t within = 0;
	for (size_t i = 0; i < t->ngpus; i++) {
		struct rd_topo_route r;
		size_t unreadable;
		if (!t->gpus[i].err && rd_pcitopo_nearest(t, &t->gpus[i], &r, &unreadable) &&
		    r.nccl <= rd_pcitopo_gdr_level(t))
			within++;
	}
	const char *pm = NULL;
	for (size_t i = 0; i < 3 && !pm; i++)
		if (t->peermem_file[i])
			pm = rd_nccl_peermem_files[i];
	struct rd_buf why = {0}, yes = {0}, gpus = {0};
	enum verdict d = (enum verdict)rd_pcitopo_dmabuf(ctx->host, t, &why, &yes);
	if (within < t->ngpus)
		rd_buf_printf(&gpus, "; %zu of the %zu GPUs have no RDMA NIC within NCCL_NET_GDR_LEVEL (%s) and use none (gdr.path)",
			      t->ngpus - within, t->ngpus, rd_nccl_path_name(rd_pcitopo_gdr_level(t)));
	struct rd_finding *f;
	if (!within)
		f = rd_finding_add(ctx, RD_WARN, "host",
				   "NCCL will use no GPUDirect RDMA, because no GPU has an RDMA NIC within "
				   "NCCL_NET_GDR_LEVEL (%s): it stages the GPUs' network traffic through host memory "
				   "(gdr.path)",
				   rd_nccl_path_name(rd_pcitopo_gdr_level(t)));
	else if (d == YES)
		f = rd_finding_add(ctx, RD_OK, "host",
				   "NCCL will use DMA-BUF, because %s (and libibverbs' ibv_reg_dmabuf_mr, rdma-core 34+, "
				   "which NCCL probes at run time)%s",
				   yes.data, gpus.len ? gpus.data : "");
	else if (pm && d == NO)
		f = rd_finding_add(ctx, RD_OK, "host", "NCCL will use nvidia_peermem, because /%s exists and not DMA-BUF: %s%s",
				   pm, why.data, gpus.len ? gpus.data : "");
	else if (pm)
		f = rd_finding_add(ctx, RD_OK, "host",
				   "NCCL will use DMA-BUF or else nvidia_peermem (/%s exists): GPUDirect RDMA either way "
				   "(DMA-BUF: %s)%s",
				   pm, why.data, gpus.len ? gpus.data : "");
	else if (d == NO)
		f = rd_finding_add(ctx, RD_WARN, "host",
				   "NCCL will use no GPUDirect RDMA, because not DMA-BUF: %s, and nvidia_peermem is not "
				   "loaded (none of the files NCCL looks for exists): it stages the GPUs' network traffic "
				   "through host memory%s",
				   why.data, gpus.len ? gpus.data : "");
	else
		f = rd_finding_add(ctx, RD_UNKNOWN, "host",
				   "NCCL will use DMA-BUF if this host supports it, which cannot be told (%s), else no "
				   "GPUDirect RDMA: nvidia_peermem is not loaded%s",
				   why.data, gpus.len ? gpus.data : "");
	rd_evidence_attr(f, &ctx->host->osrelease);
	rd_evidence_attr(f, &t->nv_version);
	if (t->kconfig_path && !t->kconfig_err)
		rd_evidence_add(f, t->kconfig_path, "CONFIG_DMA_SHARED_BUFFER=%s CONFIG_PCI_P2PDMA=%s",
				t->kc_dmabuf[0] ? t->kc_dmabuf : "<absent>", t->kc_p2pdma[0] ? t->kc_p2pdma : "<absent>");
	else if (t->kconfig_path)
		rd_evidence_add(f, t->kconfig_path, "<%s>", t->kconfig_why[0] ? t->kconfig_why : rd_strerror(t->kconfig_err));
	for (size_t i = 0; i < 3; i++)
		rd_evidence_add(f, "NCCL's nvidia_peermem probe", "/%s: %s", rd_nccl_peermem_files[i],
				t->peermem_file[i] ? "exists" : "absent");
	rd_evidence_add(f, "NCCL_DMABUF_ENABLE", "%s", t->dmabuf_env[0] ? t->dmabuf_env : "<unset>");
	if (f->status == RD_WARN && within) {
		rd_fix_add(f, "modprobe nvidia_peermem   # GPUDirect RDMA through nvidia_peermem (peermem.loaded)");
		if (!t->dmabuf_enable)
			rd_fix_add(f, "unset NCCL_DMABUF_ENABLE   # NCCL's default, 1, lets it use DMA-BUF");
		else
			rd_fix_add(f, "or DMA-BUF: the NVIDIA open kernel module (R515+) on Linux 5.12+ with "
				      "CONFIG_DMA_SHARED_BUFFER=y");
	}
	rd_buf_free(&why);
	rd_buf_free(&yes);
	rd_buf_free(&gpus);
}
