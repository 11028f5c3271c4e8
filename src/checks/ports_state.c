/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ports.state: every port Active with physical LinkUp; otherwise say what the state means. */
#include <stdio.h>
#include <string.h>

#include "checks/catalogue.h"

static void subject(char *buf, size_t len, const struct rd_device *d, const struct rd_port *p)
{
	snprintf(buf, len, "%s port %u", d->name, p->num);
}

void rd_check_ports_state(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	if (h->refused_devices.n) {
		/* one finding for all of them: its subject is no name that could collide with another's */
		struct rd_buf names = {0};
		for (size_t i = 0; i < h->refused_devices.n; i++)
			rd_buf_printf(&names, "%s'%s'", i ? ", " : "", h->refused_devices.v[i]);
		struct rd_finding *f = rd_finding_add(
			ctx, RD_UNKNOWN, "/sys/class/infiniband",
			"%zu entr%s of /sys/class/infiniband %s not a kernel device name (a control character, bytes "
			"that are not UTF-8, or longer than %d bytes), so not read as a device: %s",
			h->refused_devices.n, h->refused_devices.n == 1 ? "y" : "ies", h->refused_devices.n == 1 ? "is" : "are",
			RD_DEVICE_NAME_MAX, names.data);
		rd_evidence_add(f, "/sys/class/infiniband", "%zu entr%s refused", h->refused_devices.n,
				h->refused_devices.n == 1 ? "y" : "ies");
		rd_buf_free(&names);
	}
	if (!h->ndevices) {
		rd_finding_add(ctx, RD_SKIP, "host", "no RDMA device");
		return;
	}
	size_t active = 0, total = 0, ignored = 0, other = 0; /* other: VFs, management NIC, non-data planes */
	char subj[128];
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		size_t planes = 0;
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			if (rd_policy_ignores(ctx->policy, d->name, p->num)) {
				ignored++;
				continue;
			}
			enum rd_port_role role = rd_port_role(&ctx->sys->link, ctx->policy, d, p);
			if (role == RD_ROLE_PLANE)
				planes++;
			if (role != RD_ROLE_COMPUTE) {
				other++; /* listed by `stack`, not judged by port rules (model/link.h) */
				continue;
			}
			total++;
			subject(subj, sizeof subj, d, p);
			if (p->state_v < 0 || p->phys_v < 0) {
				struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, subj, "cannot read the state of %s", subj);
				rd_evidence_attr(f, &p->state);
				rd_evidence_attr(f, &p->phys_state);
				continue;
			}
			if (p->state_v == RD_PORT_ACTIVE && p->phys_v == RD_PHYS_LINKUP) {
				active++;
				continue;
			}
			struct rd_finding *f;
			if (!p->is_ib) {
				const struct rd_netdev *nd = p->nnetdevs ? &p->netdevs[0] : NULL;
				f = rd_finding_add(ctx, RD_FAIL, subj,
						   "RoCE port %s: %s: the netdev%s%s is down or has no carrier (link, cable "
						   "or switch port)",
						   rd_port_state_name((unsigned)p->state_v), rd_phys_state_name((unsigned)p->phys_v),
						   nd ? " " : "", nd ? nd->name : "");
				rd_evidence_attr(f, &p->state);
				rd_evidence_attr(f, &p->phys_state);
				if (nd) {
					rd_evidence_attr(f, &nd->operstate);
					rd_evidence_attr(f, &nd->carrier);
					rd_fix_add(f, "ip link set dev %s up", nd->name);
					rd_fix_add(f, "ethtool %s | grep -E 'Speed|Link detected'", nd->name);
				}
				rd_fix_add(f, "check the cable and the switch port; mlxlink -d %s -m -e shows why the link is down",
					   d->pci_addr ? d->pci_addr : d->name);
				continue;
			}
			if (p->state_v == RD_PORT_INIT && p->phys_v == RD_PHYS_LINKUP) {
				f = rd_finding_add(ctx, RD_FAIL, subj,
						   "Initializing: link up but no subnet manager has configured the port");
				rd_fix_add(f, "make sure a subnet manager runs on the fabric (switch-managed SM, or OpenSM: "
					      "systemctl start opensm on one node)");
				rd_fix_add(f, "sminfo    # from infiniband-diags: which SM answers, if any");
			} else if (p->phys_v == RD_PHYS_POLLING) {
				f = rd_finding_add(ctx, RD_FAIL, subj,
						   "Polling: no physical link — cable or switch port (unplugged, bad cable, "
						   "or the switch port is down)");
				rd_fix_add(f, "reseat or replace the cable; check the switch port is enabled");
				rd_fix_add(f, "mlxlink -d %s -m -c -e    # cable, eye and error counters",
					   d->pci_addr ? d->pci_addr : d->name);
			} else if (p->phys_v == RD_PHYS_DISABLED) {
				f = rd_finding_add(ctx, RD_FAIL, subj, "Disabled: the port is administratively disabled");
				rd_fix_add(f, "enable the port (ibportstate <lid> %u enable) or the switch side", p->num);
			} else if (p->state_v == RD_PORT_ARMED) {
				f = rd_finding_add(ctx, RD_WARN, subj,
						   "Armed: the subnet manager configured the port but has not activated it yet");
				rd_fix_add(f, "wait for the SM sweep; if it stays Armed, check the SM log");
			} else if (p->phys_v == RD_PHYS_ERROR_RECOVERY || p->phys_v == RD_PHYS_TRAINING) {
				f = rd_finding_add(ctx, RD_FAIL, subj, "%s: the link is flapping or cannot train",
						   rd_phys_state_name((unsigned)p->phys_v));
				rd_fix_add(f, "mlxlink -d %s -m -c -e    # BER and error counters; replace the cable if they grow",
					   d->pci_addr ? d->pci_addr : d->name);
			} else {
				f = rd_finding_add(ctx, RD_FAIL, subj, "%s / %s: the port is not usable",
						   rd_port_state_name((unsigned)p->state_v), rd_phys_state_name((unsigned)p->phys_v));
				rd_fix_add(f, "check the cable, the switch port and the subnet manager");
			}
			rd_evidence_attr(f, &p->state);
			rd_evidence_attr(f, &p->phys_state);
			rd_evidence_attr(f, &p->link_layer);
			if (p->state_v == RD_PORT_INIT) {
				/* the SM side of this one problem (ports.sm leaves this port to us) */
				rd_evidence_attr(f, &p->lid);
				rd_evidence_attr(f, &p->sm_lid);
			}
		}
		if (planes) {
			struct rd_finding *f = rd_finding_add(ctx, RD_WARN, d->name,
							      "%s is a multi-plane ConnectX-8 with %zu of %zu ports not Active and no "
							      "[ports] data_ports for it: which planes carry data is not known",
							      d->name, planes, d->nports);
			rd_evidence_add(f, d->dir, "%zu ports", d->nports);
			rd_fix_add(f, "[ports] data_ports = %s:PORT,PORT...    # in the policy: the ports that carry data", d->name);
		}
	}
	/* "9 ports, 2 ignored by the policy": expect_active counts only the ports not ignored */
	char ign[192] = "";
	if (ignored && !other)
		snprintf(ign, sizeof ign, " (%zu ports, %zu ignored by the policy)", total + ignored, ignored);
	else if (ignored)
		snprintf(ign, sizeof ign, " (%zu ports, %zu ignored: %zu by the policy, %zu not compute port%s, see `rdma-doctor stack`)",
			 total + ignored + other, ignored + other, ignored, other, other == 1 ? "" : "s");
	else if (other)
		snprintf(ign, sizeof ign, " (%zu ports, %zu ignored: not compute port%s, see `rdma-doctor stack`)",
			 total + other, other, other == 1 ? "" : "s");
	if (ctx->policy->expect_active_ports >= 0 && (int)active < ctx->policy->expect_active_ports) {
		struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, "host",
						      "%zu port%s Active/LinkUp, the policy expects %d%s: the node cannot run "
						      "jobs that need every rail",
						      active, active == 1 ? "" : "s", ctx->policy->expect_active_ports, ign);
		if (ignored)
			rd_evidence_add(f, "/sys/class/infiniband", "%zu port%s, %zu ignored by the policy, %zu Active/LinkUp",
					total + ignored, total + ignored == 1 ? "" : "s", ignored, active);
		else
			rd_evidence_add(f, "/sys/class/infiniband", "%zu port%s, %zu Active/LinkUp", total, total == 1 ? "" : "s",
					active);
		rd_fix_add(f, "fix the ports above, or list spare ports under [ports] ignore in the policy");
	}
	if (active == total && total == 1 && rd_check_quiet(ctx))
		rd_finding_add(ctx, RD_OK, "host", "the only port is Active/LinkUp%s", ign);
	else if (active == total && total && rd_check_quiet(ctx))
		rd_finding_add(ctx, RD_OK, "host", "all %zu ports Active/LinkUp%s", total, ign);
	else if (!total)
		rd_finding_add(ctx, RD_SKIP, "host", "no port to check%s", ign);
}
