/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* gdr.acs: per NVIDIA GPU, PCIe ACS on the bridges between it and its nearest RDMA NIC
 * (model/pcitopo.h, model/pciacs.h).  P2P Request or Completion Redirect set on one of them sends
 * the peer traffic of GPUDirect RDMA up to the root complex instead of across the switch: on
 * bare metal a WARN, with the setpci commands that clear the bridges' ACS control register, its
 * boot-time form (pci=config_acs=, Linux 6.11+) or the BIOS setting, and when not to (a host
 * that passes the devices through to virtual machines).  In a virtual machine ACS is the
 * hypervisor's isolation: OK, saying so.  A path through the host bridge (PHB, NODE, SYS) is
 * gdr.path's: it crosses the root complex whatever ACS says (SKIP).  A bridge whose ACS cannot be
 * read (config space of an unprivileged run, no lspci -vvv): UNKNOWN with that reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "checks/gdr_scope.h"
#include "model/parse.h"
#include "model/pcitopo.h"

/* The kernel's pci=config_acs= parameter (drivers/pci/pci.c, "PCI: Extend ACS configurability"). */
static bool has_config_acs(const struct rd_host *h)
{
	unsigned major = 0, minor = 0;
	if (!rd_attr_ok(&h->osrelease) || sscanf(h->osrelease.value, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 11);
}

static void bridge_evidence(struct rd_finding *f, const struct rd_topo_node *u)
{
	char bits[128];
	const struct rd_acs *a = &u->acs;
	bool lspci = a->from && strcmp(a->from, "lspci -vvv") == 0;
	char *path = lspci ? rd_xstrdup("lspci -vvv (rdma-doctor/commands/lspci-vvv)")
			   : rd_xasprintf("/sys/bus/pci/devices/%s/config", u->addr);
	if (a->state == RD_ACS_READ && lspci)
		rd_evidence_add(f, path, "%s: ACSCtl: %s", u->addr, rd_acs_ctl_text(a->ctl, bits, sizeof bits));
	else if (a->state == RD_ACS_READ)
		rd_evidence_add(f, path, "ACS at 0x%x: control 0x%04x: %s", a->pos, a->ctl,
				rd_acs_ctl_text(a->ctl, bits, sizeof bits));
	else if (a->state == RD_ACS_ABSENT)
		rd_evidence_add(f, path, "%s: no ACS capability", u->addr);
	else
		rd_evidence_add(f, path, "%s: <unknown: %s>", u->addr, a->why);
	free(path);
}

static void redirect_fix(struct rd_check_ctx *ctx, struct rd_finding *f, const struct rd_topo_node *const *red,
			 size_t nred)
{
	struct rd_buf param = {0};
	for (size_t i = 0; i < nred; i++) {
		rd_fix_add(f, "setpci -s %s ECAP_ACS+0x6.w=0000   # as root; until the next boot", red[i]->addr);
		rd_buf_printf(&param, "%s0000000@%s", i ? ";" : "", red[i]->addr);
	}
	if (has_config_acs(ctx->host)) {
		char *word = rd_xasprintf("pci=config_acs=%s", param.data);
		rd_fix_add(f, "at every boot, the kernel parameter %s (Linux 6.11+; each '0' clears one ACS bit of the "
			      "bridge after '@')", word);
		rd_gdr_cmdline_fix(f, word);
		if (nred > 1)
			rd_fix_add(f, "GRUB reads ';' as the end of a command: in /etc/default/grub write it quoted, "
				      "GRUB_CMDLINE_LINUX=\"... \\\"%s\\\"\"", word);
		free(word);
	} else {
		rd_fix_add(f,
			   "at every boot: this kernel (%s) predates pci=config_acs= (Linux 6.11): turn PCIe ACS off "
			   "in the BIOS setup, or run the setpci lines from a boot-time unit",
			   rd_attr_ok(&ctx->host->osrelease) ? ctx->host->osrelease.value : "?");
	}
	rd_fix_add(f, "not on a host that passes these devices through to virtual machines (VFIO): there ACS keeps "
		      "the guests apart; use ATS (Address Translation Services) on the NIC and the GPU instead");
	rd_buf_free(&param);
}

static void judge_gpu(struct rd_check_ctx *ctx, const struct rd_pcitopo *t, const struct rd_topo_fn *g)
{
	struct rd_topo_route r;
	const struct rd_topo_fn *nic = rd_gdr_nearest(ctx, t, g, &r);
	if (!nic)
		return;
	if (r.nccl > RD_NCCL_PXB) {
		rd_finding_add(ctx, RD_SKIP, g->addr,
			       "GPU %s: its nearest RDMA NIC, %s (%s), is %s: the traffic crosses the root complex "
			       "whatever ACS says (gdr.path)",
			       g->addr, nic->name, nic->addr, rd_topo_type_name(r.type));
		return;
	}
	const struct rd_topo_node *br[RD_TOPO_MAX_VIA], *red[RD_TOPO_MAX_VIA], *unk = NULL;
	size_t nbr = 0, nred = 0, nunk = 0;
	struct rd_buf names = {0}, rnames = {0};
	for (size_t i = 0; i < r.nvia; i++) {
		const struct rd_topo_node *u = rd_is_pci_addr(r.via[i]) ? rd_pcitopo_bridge(t, r.via[i]) : NULL;
		if (!u)
			continue;
		br[nbr++] = u;
		rd_buf_printf(&names, "%s%s", names.len ? ", " : "", u->addr);
		if (u->acs.state == RD_ACS_READ && (u->acs.ctl & RD_ACS_REDIRECT)) {
			red[nred++] = u;
			rd_buf_printf(&rnames, "%s%s (ReqRedir%c CmpltRedir%c)", rnames.len ? ", " : "", u->addr,
				      u->acs.ctl & RD_ACS_RR ? '+' : '-', u->acs.ctl & RD_ACS_CR ? '+' : '-');
		} else if (u->acs.state != RD_ACS_READ && u->acs.state != RD_ACS_ABSENT) {
			nunk++;
			if (!unk)
				unk = u;
		}
	}
	struct rd_finding *f;
	if (nred && t->guest.guest)
		f = rd_finding_add(ctx, RD_OK, g->addr,
				   "GPU %s: ACS redirects peer traffic on %s between it and %s (%s), and this host is a "
				   "virtual machine (%s): there ACS is the hypervisor's isolation of the devices it "
				   "passes through, nothing to change in the guest (with ATS the devices send translated "
				   "peer traffic directly)",
				   g->addr, rnames.data, nic->name, nic->addr, t->guest.what);
	else if (nred)
		f = rd_finding_add(ctx, RD_WARN, g->addr,
				   "GPU %s: PCIe ACS redirects peer-to-peer traffic to the root complex on %zu of the %zu "
				   "bridges between it and %s (%s): %s; GPUDirect RDMA between them crosses the root "
				   "complex (NCCL's bandwidth drops, and hangs are reported)",
				   g->addr, nred, nbr, nic->name, nic->addr, rnames.data);
	else if (nunk)
		f = rd_finding_add(ctx, RD_UNKNOWN, g->addr,
				   "GPU %s: the ACS of %zu of the %zu bridges between it and %s (%s) cannot be read: "
				   "%s: %s",
				   g->addr, nunk, nbr, nic->name, nic->addr, unk->addr, unk->acs.why);
	else
		f = rd_finding_add(ctx, RD_OK, g->addr,
				   "GPU %s: no ACS redirect on the %zu bridge%s between it and %s (%s): %s", g->addr, nbr,
				   nbr == 1 ? "" : "s", nic->name, nic->addr, nbr ? names.data : "none");
	char *route = rd_topo_route_text(g, nic, &r);
	rd_evidence_add(f, "PCIe path (GPU - bridges - NIC)", "%s: %s", rd_topo_type_name(r.type), route);
	free(route);
	for (size_t i = 0; i < nbr; i++)
		bridge_evidence(f, br[i]);
	if (nred && t->guest.guest) {
		if (t->guest.cpuinfo_flag)
			rd_evidence_add(f, "/proc/cpuinfo", "flags: ... hypervisor ...");
		rd_evidence_attr(f, &t->guest.sys_vendor);
	} else if (nred) {
		redirect_fix(ctx, f, red, nred);
	}
	rd_buf_free(&names);
	rd_buf_free(&rnames);
}

void rd_check_gdr_acs(struct rd_check_ctx *ctx)
{
	rd_gdr_each_gpu(ctx, judge_gpu);
}
