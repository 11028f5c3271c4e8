/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* roce.mtu: the active MTU of a RoCE port follows its netdev's MTU (minus 96 bytes of headers,
 * rounded down to 256..4096); 1500 gives 1024.  All RoCE ports should agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"

void rd_check_roce_mtu(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	const struct rd_policy *pol = ctx->policy;
	size_t roce = 0;
	uint64_t first_mtu = 0;
	const char *first_if = NULL;
	bool differ = false;
	char subj[128];
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			if (p->is_ib || rd_policy_ignores(pol, d->name, p->num) || p->state_v != RD_PORT_ACTIVE ||
			    rd_port_role(&ctx->sys->link, pol, d, p) != RD_ROLE_COMPUTE)
				continue;
			snprintf(subj, sizeof subj, "%s port %u", d->name, p->num);
			if (!p->nnetdevs) {
				struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, subj, "no netdev found for RoCE %s", subj);
				char *path = rd_xasprintf("%s/gid_attrs/ndevs", p->dir);
				rd_evidence_add(f, path, "no readable entry");
				free(path);
				continue;
			}
			const struct rd_netdev *nd = &p->netdevs[0];
			if (!nd->mtu_v) {
				struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, subj, "cannot read the MTU of %s", nd->name);
				rd_evidence_attr(f, &nd->mtu);
				continue;
			}
			roce++;
			if (!first_if) {
				first_if = nd->name;
				first_mtu = nd->mtu_v;
			} else if (nd->mtu_v != first_mtu) {
				differ = true;
			}
			unsigned act = rd_roce_active_mtu(nd->mtu_v);
			bool below_pin = pol->roce_netdev_mtu && nd->mtu_v < pol->roce_netdev_mtu;
			if (below_pin || act < pol->roce_min_active_mtu) {
				struct rd_finding *f = rd_finding_add(
					ctx, below_pin ? RD_FAIL : RD_WARN, subj,
					"%s has MTU %llu, so RoCE runs with an active MTU of %u (below %u)%s", nd->name,
					(unsigned long long)nd->mtu_v, act, pol->roce_min_active_mtu,
					below_pin ? "; the policy expects the fabric's jumbo MTU" : "");
				rd_evidence_attr(f, &nd->mtu);
				unsigned want = pol->roce_netdev_mtu ? pol->roce_netdev_mtu : 9000;
				rd_fix_add(f, "ip link set dev %s mtu %u", nd->name, want);
				rd_fix_add(f, "make it persistent (netplan/NetworkManager/ifupdown) and use the same MTU on every "
					      "NIC and switch port in the path");
			}
		}
	}
	if (differ) {
		struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "host",
						      "RoCE netdevs have different MTUs: all NICs in the path must agree, "
						      "or QPs fail (\"Failed to set up RDMA QP\")");
		for (size_t i = 0; i < h->ndevices; i++)
			for (size_t k = 0; k < h->devices[i].nports; k++) {
				const struct rd_port *p = &h->devices[i].ports[k];
				if (!p->is_ib && p->nnetdevs && p->netdevs[0].mtu_v)
					rd_evidence_attr(f, &p->netdevs[0].mtu);
			}
		rd_fix_add(f, "set one MTU (e.g. 9000) on every RoCE netdev: ip link set dev <if> mtu 9000");
	}
	if (rd_check_quiet(ctx)) {
		if (roce)
			rd_finding_add(ctx, RD_OK, "host", "%zu RoCE port%s, netdev MTU %llu (active MTU %u)", roce, roce == 1 ? "" : "s",
				       (unsigned long long)first_mtu, rd_roce_active_mtu(first_mtu));
		else
			rd_finding_add(ctx, RD_SKIP, "host", "no active RoCE port");
	}
}
