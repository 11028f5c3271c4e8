/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor topo`: the GPU and RDMA NIC matrix in `nvidia-smi topo -m`'s
 * notation (text), or the same facts as one JSON document, through the one
 * text/JSON printing path. Ownership: borrows the topology and the writer and
 * keeps nothing. */
#ifndef RD_RENDER_TOPO_H
#define RD_RENDER_TOPO_H
#include "model/pcitopo.h"
#include "render/out.h"

/* Text: the matrix (GPUs then NICs, CPU and NUMA affinity of each GPU), its
 * legend, the NIC legend, the GPU legend and NCCL's GPUDirect RDMA distance.
 * JSON: "gdr_level", "gpus", "nics" and "paths" (every pair, with NCCL's type
 * and the bridges between). */
void rd_render_topo(struct rd_out *o, const struct rd_pcitopo *t);
/* The report's "gpudirect" object (JSON only; nothing when the host has no GPU): the IOMMU domain
 * types of the GPUs' and NICs' groups ("identity", "DMA-FQ,identity", "none" without an IOMMU,
 * null when not known), NCCL's GPUDirect distance, and for each GPU its nearest RDMA NIC, the
 * path type and the bridges on that path whose ACS redirects (what fleet compares across nodes). */
void rd_render_topo_report(struct rd_out *o, const struct rd_pcitopo *t);
#endif
