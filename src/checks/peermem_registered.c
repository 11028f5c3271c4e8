/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* peermem.registered: a loaded nvidia_peermem must have registered with ib_core's peer-memory
 * API.  That API (and /sys/kernel/mm/memory_peers) exists only in MLNX_OFED/DOCA-OFED's ib_core;
 * with the inbox ib_core the guide's "ls /sys/kernel/mm/memory_peers" test does not apply. */
#include <errno.h>
#include <string.h>

#include "checks/catalogue.h"

void rd_check_peermem_registered(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	const struct rd_system *s = ctx->sys;
	const struct rd_module *m = rd_host_module(h, "nvidia_peermem");
	if (!m || !m->loaded) {
		if (rd_system_stack(s)->running == RD_RUN_UNKNOWN && h->proc_modules.err)
			rd_finding_add(ctx, RD_SKIP, "nvidia_peermem",
				       "no module list, so whether nvidia_peermem is loaded is not known (see peermem.loaded)");
		else
			rd_finding_add(ctx, RD_SKIP, "nvidia_peermem", "nvidia_peermem is not loaded");
		return;
	}
	if (!rd_system_stack(s)->ib_core_ofed) {
		struct rd_finding *f = rd_finding_add(
			ctx, RD_SKIP, "nvidia_peermem",
			"inbox ib_core has no peer-memory API, so /sys/kernel/mm/memory_peers never exists here; NCCL "
			"treats nvidia_peermem as loaded when /sys/module/nvidia_peermem/version exists");
		rd_evidence_attr(f, &m->version);
		return;
	}
	if (rd_attr_ok(&s->memory_peers_nv_mem) || rd_attr_ok(&s->memory_peers_nv_mem_nc)) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "nvidia_peermem", "nvidia_peermem is registered with ib_core (nv_mem)");
		rd_evidence_attr(f, rd_attr_ok(&s->memory_peers_nv_mem) ? &s->memory_peers_nv_mem : &s->memory_peers_nv_mem_nc);
		return;
	}
	/* only a registration known to be missing fails: an unreadable file or a root without
	 * /sys/kernel/mm (a partial capture) says nothing */
	const struct rd_attr *nv = &s->memory_peers_nv_mem;
	if (!s->kernel_mm_dir || (nv->err != ENOENT && nv->err != 0)) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "nvidia_peermem",
						      "cannot tell whether nvidia_peermem registered with ib_core: %s",
						      s->kernel_mm_dir ? "its memory_peers entry cannot be read"
								       : "this root has no /sys/kernel/mm");
		rd_evidence_attr(f, nv);
		return;
	}
	struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, "nvidia_peermem",
					      "nvidia_peermem is loaded but not registered with ib_core: it was loaded before "
					      "ib_core was up and registration silently failed, so GPUDirect RDMA is off");
	rd_evidence_add(f, "/sys/kernel/mm/memory_peers", s->memory_peers_dir ? "present, no nv_mem" : "<No such file or directory>");
	rd_evidence_attr(f, &s->memory_peers_nv_mem);
	rd_fix_add(f, "rmmod nvidia_peermem && modprobe nvidia_peermem");
	rd_fix_add(f, "ls /sys/kernel/mm/memory_peers/    # nv_mem must appear");
}
