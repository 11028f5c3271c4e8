/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the GPUDirect RDMA checks (gdr.*) share: whether the host has what they judge per GPU.
 *
 * Ownership: nothing is allocated here; findings belong to the check context's report. */
#ifndef RD_GDR_SCOPE_H
#define RD_GDR_SCOPE_H
#include <stdbool.h>

#include "checks/check.h"
#include "model/pcitopo.h"

/* True when t has NVIDIA GPUs, RDMA NICs and a PCIe hierarchy to judge them in.  Otherwise adds
 * the check's one finding (SKIP: no GPU, no NIC, a tree that is no hierarchy; UNKNOWN: the PCI
 * functions cannot be listed) and returns false. */
bool rd_gdr_scope(struct rd_check_ctx *ctx, const struct rd_pcitopo *t);
/* The topology the gdr.* checks judge (after rd_need of RD_LOAD_TOPO), or NULL when rd_gdr_scope
 * added the check's one finding. */
const struct rd_pcitopo *rd_gdr_topo(struct rd_check_ctx *ctx);
typedef void rd_gdr_judge_fn(struct rd_check_ctx *ctx, const struct rd_pcitopo *t, const struct rd_topo_fn *gpu);
/* rd_gdr_topo, then judge for each GPU. */
void rd_gdr_each_gpu(struct rd_check_ctx *ctx, rd_gdr_judge_fn *judge);
/* The RDMA NIC nearest to g and its route in *r (rd_pcitopo_nearest), or NULL after adding an
 * UNKNOWN finding: g's path to a NIC cannot be read. */
const struct rd_topo_fn *rd_gdr_nearest(struct rd_check_ctx *ctx, const struct rd_pcitopo *t, const struct rd_topo_fn *g,
					struct rd_topo_route *r);
/* The fix lines that add param (one kernel command-line word) at every boot: on GRUB and on
 * systemd-boot hosts. */
void rd_gdr_cmdline_fix(struct rd_finding *f, const char *param);
#endif
