/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* gdr.iommu: per NVIDIA GPU, the IOMMU domains of it and of its nearest RDMA NIC
 * (model/pcitopo.h: each function's iommu_group and sys/kernel/iommu_groups/N/type).  A
 * translating domain (DMA, DMA-FQ) on either: WARN, since every peer DMA of GPUDirect RDMA is
 * translated by the IOMMU (or, with ACS, sent up to it), with the kernel command-line fix
 * (iommu=pt on x86, iommu.passthrough=1 on arm64) on GRUB and systemd-boot hosts.  Passthrough
 * (identity) on both, or no IOMMU: OK.  A group whose type cannot be read, a root that does not
 * say: UNKNOWN. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "checks/gdr_scope.h"
#include "model/pcitopo.h"

enum dom { DOM_NONE, DOM_IDENTITY, DOM_DMA, DOM_OTHER, DOM_UNKNOWN };

static enum dom domain_of(const struct rd_pcitopo *t, const struct rd_topo_fn *x)
{
	if (!x->iommu_group)
		return x->iommu_group_err == ENOENT && t->iommu_absence_real ? DOM_NONE : DOM_UNKNOWN;
	if (!rd_attr_ok(&x->iommu_type))
		return DOM_UNKNOWN;
	if (strcmp(x->iommu_type.value, "identity") == 0)
		return DOM_IDENTITY;
	if (strcmp(x->iommu_type.value, "DMA") == 0 || strcmp(x->iommu_type.value, "DMA-FQ") == 0)
		return DOM_DMA;
	return DOM_OTHER;
}

/* "IOMMU group 12, DMA-FQ" into buf. */
static const char *fn_words(const struct rd_topo_fn *x, enum dom d, char *buf, size_t len)
{
	if (d == DOM_NONE)
		snprintf(buf, len, "no IOMMU group");
	else if (!x->iommu_group)
		snprintf(buf, len, "IOMMU group unknown: %s", rd_strerror(x->iommu_group_err));
	else if (!rd_attr_ok(&x->iommu_type))
		snprintf(buf, len, "IOMMU group %s, its type unknown: %s", x->iommu_group, rd_strerror(x->iommu_type.err));
	else
		snprintf(buf, len, "IOMMU group %s, %s", x->iommu_group, x->iommu_type.value);
	return buf;
}

static void fn_evidence(struct rd_finding *f, const struct rd_topo_fn *x)
{
	if (x->iommu_group) {
		rd_evidence_add(f, "/sys/bus/pci/devices", "%s/iommu_group -> %s", x->addr, x->iommu_group);
		rd_evidence_attr(f, &x->iommu_type);
	} else {
		rd_evidence_add(f, "/sys/bus/pci/devices", "%s/iommu_group: <%s>", x->addr,
				rd_strerror(x->iommu_group_err));
	}
}

static void judge_gpu(struct rd_check_ctx *ctx, const struct rd_pcitopo *t, const struct rd_topo_fn *g)
{
	struct rd_topo_route r;
	const struct rd_topo_fn *nic = rd_gdr_nearest(ctx, t, g, &r);
	if (!nic)
		return;
	enum dom dg = domain_of(t, g), dn = domain_of(t, nic);
	char wg[160], wn[160];
	fn_words(g, dg, wg, sizeof wg);
	fn_words(nic, dn, wn, sizeof wn);
	struct rd_finding *f;
	if (dg == DOM_DMA || dn == DOM_DMA)
		f = rd_finding_add(ctx, RD_WARN, g->addr,
				   "GPU %s (%s) and its nearest RDMA NIC %s (%s; %s): the IOMMU translates their DMA, so "
				   "GPUDirect RDMA's peer DMA between them goes up to the root complex to be translated "
				   "instead of across the PCIe switch (lower bandwidth)",
				   g->addr, wg, nic->name, nic->addr, wn);
	else if (dg == DOM_UNKNOWN || dn == DOM_UNKNOWN)
		f = rd_finding_add(ctx, RD_UNKNOWN, g->addr,
				   "GPU %s (%s) and its nearest RDMA NIC %s (%s; %s): their IOMMU domains cannot be told",
				   g->addr, wg, nic->name, nic->addr, wn);
	else if (dg == DOM_OTHER || dn == DOM_OTHER)
		f = rd_finding_add(ctx, RD_UNKNOWN, g->addr,
				   "GPU %s (%s) and its nearest RDMA NIC %s (%s; %s): an IOMMU domain this check does not "
				   "judge (VFIO's unmanaged, or blocked)",
				   g->addr, wg, nic->name, nic->addr, wn);
	else
		f = rd_finding_add(ctx, RD_OK, g->addr,
				   "GPU %s (%s) and its nearest RDMA NIC %s (%s; %s): %s", g->addr, wg, nic->name,
				   nic->addr, wn,
				   dg == DOM_NONE && dn == DOM_NONE ? "no IOMMU translates their DMA"
								  : "the IOMMU passes their DMA through untranslated");
	fn_evidence(f, g);
	fn_evidence(f, nic);
	rd_evidence_attr(f, &t->cmdline);
	if (!g->iommu_group && !nic->iommu_group)
		rd_evidence_add(f, "/sys/kernel/iommu_groups", "%s",
				t->iommu_groups_err ? rd_strerror(t->iommu_groups_err) : "no group");
	if (dg == DOM_DMA || dn == DOM_DMA) {
		rd_fix_add(f, "the kernel parameter iommu=pt (x86) or iommu.passthrough=1 (arm64) keeps the IOMMU on, "
			      "without translating the host's own DMA:");
		rd_gdr_cmdline_fix(f, "iommu=pt (arm64: iommu.passthrough=1)");
		rd_fix_add(f, "cat /proc/cmdline; cat /sys/kernel/iommu_groups/%s/type   # after the reboot: identity",
			   dg == DOM_DMA ? g->iommu_group : nic->iommu_group);
	}
}

void rd_check_gdr_iommu(struct rd_check_ctx *ctx)
{
	rd_gdr_each_gpu(ctx, judge_gpu);
}
