/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the GPUDirect RDMA checks share: see gdr_scope.h. */
#include <errno.h>
#include <string.h>

#include "checks/gdr_scope.h"

/* The first GPU or NIC whose path has addr right below the bridge that is not a
 * hierarchy. */
static void flat_evidence(struct rd_finding *f, const struct rd_pcitopo *t, const char *addr)
{
	for (size_t i = 0; i < t->ngpus + t->nnics; i++) {
		const struct rd_topo_fn *x = i < t->ngpus ? &t->gpus[i] : &t->nics[i - t->ngpus];
		for (size_t k = 0; k + 1 < x->nup; k++)
			if (strcmp(x->up[k].addr, addr) == 0 && strcmp(x->up[k + 1].addr, t->flat_bridge) == 0) {
				rd_evidence_add(f, "/sys/bus/pci/devices", "%s -> %s", x->addr, x->sysfs);
				return;
			}
	}
}

bool rd_gdr_scope(struct rd_check_ctx *ctx, const struct rd_pcitopo *t)
{
	if (!t->ngpus) {
		if (t->pci_err && t->pci_err != ENOENT) {
			struct rd_finding *f = rd_finding_add(
				ctx, RD_UNKNOWN, "host", "cannot list the PCI functions: %s", rd_strerror(t->pci_err));
			rd_evidence_add(f, "/sys/bus/pci/devices", "<%s>", rd_strerror(t->pci_err));
		} else {
			rd_finding_add(ctx, RD_SKIP, "host",
				       "no NVIDIA GPU (PCI vendor 0x10de, class 0x0300 or "
				       "0x0302) on this host");
		}
		return false;
	}
	if (!t->nnics) {
		rd_finding_add(ctx, RD_SKIP, "host",
			       "%zu NVIDIA GPU%s but no RDMA NIC PCI function: no NIC for "
			       "GPUDirect RDMA",
			       t->ngpus, t->ngpus == 1 ? "" : "s");
		return false;
	}
	if (t->flat_bridge[0]) {
		/* below one PCIe port every function is on its secondary bus */
		struct rd_finding *f =
			rd_finding_add(ctx, RD_SKIP, "host",
				       "the PCI tree in this root is not a PCIe hierarchy (%s and %s, of two "
				       "buses, "
				       "directly below %s): the GPU-NIC path types cannot be told",
				       t->flat_a, t->flat_b, t->flat_bridge);
		flat_evidence(f, t, t->flat_a);
		flat_evidence(f, t, t->flat_b);
		return false;
	}
	return true;
}

void rd_gdr_cmdline_fix(struct rd_finding *f, const char *param)
{
	rd_fix_add(f,
		   "GRUB hosts: add %s to GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub (Debian, Ubuntu) "
		   "or grub2-mkconfig -o /boot/grub2/grub.cfg (RHEL, SUSE), and reboot",
		   param);
	rd_fix_add(f,
		   "systemd-boot hosts: add %s to /etc/kernel/cmdline, then kernel-install add $(uname -r) "
		   "/lib/modules/$(uname -r)/vmlinuz (bootctl list shows the entry), and reboot",
		   param);
}

const struct rd_pcitopo *rd_gdr_topo(struct rd_check_ctx *ctx)
{
	rd_need(ctx->sys->unloaded, RD_LOAD_TOPO, "the GPUs' and NICs' PCIe paths");
	return rd_gdr_scope(ctx, &ctx->sys->topo) ? &ctx->sys->topo : NULL;
}

void rd_gdr_each_gpu(struct rd_check_ctx *ctx, rd_gdr_judge_fn *judge)
{
	const struct rd_pcitopo *t = rd_gdr_topo(ctx);
	for (size_t i = 0; t && i < t->ngpus; i++)
		judge(ctx, t, &t->gpus[i]);
}

const struct rd_topo_fn *rd_gdr_nearest(struct rd_check_ctx *ctx, const struct rd_pcitopo *t, const struct rd_topo_fn *g,
					struct rd_topo_route *r)
{
	size_t unreadable;
	const struct rd_topo_fn *nic = g->err ? NULL : rd_pcitopo_nearest(t, g, r, &unreadable);
	if (!nic)
		rd_finding_add(ctx, RD_UNKNOWN, g->addr, "GPU %s: its PCIe path to an RDMA NIC cannot be read (gdr.path)",
			       g->addr);
	return nic;
}
