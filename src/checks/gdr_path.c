/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* gdr.path: per NVIDIA GPU, the nearest RDMA NIC by NCCL's path type
 * (model/pcitopo.h).  Within NCCL_NET_GDR_LEVEL (PXB by default: the GPU and
 * the NIC below one PCIe switch, or switches, without the host bridge): OK.
 * Farther: WARN, since NCCL will not use GPUDirect RDMA between them and stages
 * the GPU's network traffic through host memory (paths.cc ncclTopoCheckGdr).
 * The evidence is the PCIe path, each bridge's address.  No GPU, or no RDMA
 * NIC: SKIP. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "checks/gdr_scope.h"
#include "model/pcitopo.h"

static void fn_evidence(struct rd_finding *f, const struct rd_topo_fn *x)
{
	rd_evidence_add(f, "/sys/bus/pci/devices", "%s -> %s", x->addr, x->sysfs ? x->sysfs : "<unknown>");
	rd_evidence_attr(f, &x->numa_node);
}

/* "NCCL's default (PXB)" or "NCCL_NET_GDR_LEVEL=PHB" into buf. */
static const char *level_words(const struct rd_pcitopo *t, char *buf, size_t len)
{
	int level = rd_pcitopo_gdr_level(t);
	if (t->gdr_level >= 0)
		snprintf(buf, len, "NCCL_NET_GDR_LEVEL=%s (%s)", t->gdr_env, rd_nccl_path_name(level));
	else if (t->gdr_env[0])
		snprintf(buf, len, "%s, NCCL's default: NCCL_NET_GDR_LEVEL=%s is no level NCCL reads",
			 rd_nccl_path_name(level), t->gdr_env);
	else
		snprintf(buf, len, "%s, NCCL's default", rd_nccl_path_name(level));
	return buf;
}

/* Where the path goes, in a few words. */
static const char *path_words(enum rd_topo_type t)
{
	return t == RD_TOPO_PHB	   ? "through the host bridge"
	       : t == RD_TOPO_NODE ? "across host bridges of one NUMA node"
	       : t == RD_TOPO_SYS  ? "across the CPU interconnect between NUMA nodes"
				   : "below PCIe switches";
}

static void judge_gpu(struct rd_check_ctx *ctx, const struct rd_pcitopo *t, const struct rd_topo_fn *g)
{
	if (g->err) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, g->addr, "GPU %s: cannot read its PCIe path: %s",
						      g->addr, rd_strerror(g->err));
		rd_evidence_add(f, "/sys/bus/pci/devices", "%s: <%s>", g->addr, rd_strerror(g->err));
		return;
	}
	struct rd_topo_route br, r;
	size_t unreadable;
	const struct rd_topo_fn *best = rd_pcitopo_nearest(t, g, &br, &unreadable);
	if (!best) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, g->addr,
						      "GPU %s: the PCIe path of no RDMA NIC can be read (%zu NIC%s)",
						      g->addr, unreadable, unreadable == 1 ? "" : "s");
		for (size_t i = 0; i < t->nnics; i++)
			rd_evidence_add(f, "/sys/bus/pci/devices", "%s (%s): <%s>", t->nics[i].addr,
					t->nics[i].name, rd_strerror(t->nics[i].err));
		return;
	}
	/* the other NICs as near */
	struct rd_buf also = {0};
	size_t nalso = 0;
	for (size_t i = 0; i < t->nnics; i++) {
		if (&t->nics[i] == best)
			continue;
		rd_topo_route(g, &t->nics[i], &r);
		if (r.nccl == br.nccl && r.type == br.type)
			rd_buf_printf(&also, "%s%s", nalso++ ? ", " : "", t->nics[i].name);
	}
	char lw[128], extra[256] = "";
	level_words(t, lw, sizeof lw);
	if (nalso)
		snprintf(extra, sizeof extra, " (as near: %s)", also.data);
	bool ok = br.nccl <= rd_pcitopo_gdr_level(t);
	struct rd_finding *f;
	if (ok)
		f = rd_finding_add(ctx, RD_OK, g->addr, "GPU %s: %s (%s)%s is %s, within GPUDirect RDMA distance (%s)",
				   g->addr, best->name, best->addr, extra, rd_topo_type_name(br.type), lw);
	else
		f = rd_finding_add(ctx, RD_WARN, g->addr,
				   "GPU %s: its nearest RDMA NIC, %s (%s)%s, is %s (%s), "
				   "beyond GPUDirect RDMA distance (%s): "
				   "NCCL will not use GPUDirect RDMA between them and "
				   "stages the GPU's network traffic "
				   "through host memory",
				   g->addr, best->name, best->addr, extra, rd_topo_type_name(br.type),
				   path_words(br.type), lw);
	char *route = rd_topo_route_text(g, best, &br);
	rd_evidence_add(f, "PCIe path (GPU - bridges - NIC)", "%s: %s (NCCL: %s)", rd_topo_type_name(br.type), route,
			rd_nccl_path_name(br.nccl));
	free(route);
	fn_evidence(f, g);
	fn_evidence(f, best);
	if (!ok) {
		rd_fix_add(f, "rdma-doctor topo   # every GPU's path to every NIC");
		rd_fix_add(f,
			   "place an RDMA NIC below the same PCIe switch as GPU %s (then "
			   "NCCL uses GPUDirect RDMA, PIX or PXB)",
			   g->addr);
		rd_fix_add(f,
			   "or let NCCL use GPUDirect RDMA that far, and measure it "
			   "against staging: NCCL_NET_GDR_LEVEL=%s",
			   br.nccl >= RD_NCCL_SYS ? "SYS" : "PHB");
	}
	rd_buf_free(&also);
}

void rd_check_gdr_path(struct rd_check_ctx *ctx)
{
	const struct rd_pcitopo *t = rd_gdr_topo(ctx);
	if (!t || rd_nccl_environ_unread(ctx))
		return;
	for (size_t i = 0; i < t->ngpus; i++)
		judge_gpu(ctx, t, &t->gpus[i]);
}
