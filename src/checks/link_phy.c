/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* link.phy: the physical layer as mlxlink sees it (mlxlink -d <pci> -p <port> -m -c -e):
 * an Effective Physical BER of 1E-12 or worse (the guide: "a flapping cable / dirty connector"),
 * a Status Opcode other than 0 or 1023 (1-1022 PHY firmware, 1024-2047 management firmware with
 * 1024 = cable unplugged, 2048 and up core/driver) with the firmware's Recommendation as the
 * message, and the State / Physical state it reports against sysfs. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "checks/catalogue.h"
#include "model/mft.h"

#define BER_LIMIT 1e-12

static void add_line(struct rd_finding *f, const struct rd_tool_out *o, const char *key, const char *value)
{
	if (value)
		rd_evidence_add(f, o->cmd, "%s: %s", key, value);
}

static void ber_evidence(struct rd_finding *f, const struct rd_tool_out *o, const struct rd_mlxlink_info *l)
{
	add_line(f, o, "Effective Physical BER", l->eff_ber);
	add_line(f, o, "Effective Physical Errors", l->eff_errors);
	add_line(f, o, "Raw Physical Errors Per Lane", l->raw_errors_lanes);
	add_line(f, o, "Raw Physical BER", l->raw_ber);
	add_line(f, o, "Time Since Last Clear", l->time_since_clear);
}

static const char *sysfs_word(const struct rd_attr *a)
{
	return rd_attr_ok(a) ? a->value : "?";
}

/* False when the port is down in both views (not judged here). */
static bool judge(struct rd_check_ctx *ctx, const struct rd_device *d, const struct rd_port *p,
		  const struct rd_mft_port *mp, const char *subj)
{
	const struct rd_mlxlink_info *l = &mp->link;
	const struct rd_tool_out *o = &mp->mlxlink_out;
	bool ml_down = l->state && strcasecmp(l->state, "Active") != 0;
	if (p->state_v >= 0 && p->state_v != RD_PORT_ACTIVE && (ml_down || !l->state)) {
		/* a port down in both views is ports.state's finding (one problem, one finding): what the
		 * firmware says about it is told here, not judged again */
		bool op = l->status_opcode > 0 && l->status_opcode != 1023;
		struct rd_finding *f;
		if (op)
			f = rd_finding_add(ctx, RD_SKIP, subj,
					   "%s is not Active (ports.state); the firmware says: %s (Status Opcode %ld, %s)", subj,
					   l->recommendation ? l->recommendation : "no recommendation given", l->status_opcode,
					   rd_mlxlink_opcode_class(l->status_opcode));
		else
			f = rd_finding_add(ctx, RD_SKIP, subj, "%s is not Active (ports.state): its link is not judged here", subj);
		(void)f;
		if (op) {
			rd_evidence_add(f, o->cmd, "Status Opcode: %ld", l->status_opcode);
			add_line(f, o, "Recommendation", l->recommendation);
		}
		return false;
	}
	if (l->status_opcode > 0 && l->status_opcode != 1023) {
		struct rd_finding *f = rd_finding_add(
			ctx, RD_WARN, subj, "%s: %s (mlxlink Status Opcode %ld, %s)", subj,
			l->recommendation && *l->recommendation ? l->recommendation : "no recommendation given",
			l->status_opcode, rd_mlxlink_opcode_class(l->status_opcode));
		rd_evidence_add(f, o->cmd, "Status Opcode: %ld", l->status_opcode);
		add_line(f, o, "Group Opcode", l->group_opcode);
		add_line(f, o, "Recommendation", l->recommendation);
		ber_evidence(f, o, l);
		if (l->status_opcode == 1024)
			rd_fix_add(f, "plug the cable of %s in (or check the transceiver), then: mlxlink -d %s -p %u", subj,
				   d->pci_addr, p->num);
		else
			rd_fix_add(f, "follow the Recommendation, then check again: mlxlink -d %s -p %u -m -c -e", d->pci_addr,
				   p->num);
	}
	if (l->eff_ber_ok && l->eff_ber_v >= BER_LIMIT) {
		struct rd_finding *f = rd_finding_add(
			ctx, RD_WARN, subj,
			"%s: Effective Physical BER %s is 1E-12 or worse: a flapping cable or a dirty connector", subj,
			l->eff_ber);
		ber_evidence(f, o, l);
		rd_fix_add(f, "reseat and clean the connectors of %s at both ends; replace the cable or transceiver if the "
			      "BER stays at 1E-12 or worse",
			   subj);
		rd_fix_add(f, "mlxlink -d %s -p %u -m -c -e    # check the BER again", d->pci_addr, p->num);
	}
	/* State here vs sysfs: the two views of one port must agree */
	if (l->state && p->state_v >= 0) {
		bool ml_active = strcasecmp(l->state, "Active") == 0;
		bool sys_active = p->state_v == RD_PORT_ACTIVE;
		bool phys_differs = p->is_ib && l->phys_state && p->phys_v >= 0 &&
				    (strcasecmp(l->phys_state, "LinkUp") == 0) != (p->phys_v == RD_PHYS_LINKUP);
		if (ml_active != sys_active || phys_differs) {
			struct rd_finding *f = rd_finding_add(
				ctx, RD_WARN, subj,
				"%s: mlxlink reports State %s, Physical state %s but sysfs %s, %s: the firmware and the "
				"driver disagree about the link (it changed between the reads, or the driver's view is stale)",
				subj, l->state, l->phys_state ? l->phys_state : "?", sysfs_word(&p->state),
				sysfs_word(&p->phys_state));
			add_line(f, o, "State", l->state);
			add_line(f, o, "Physical state", l->phys_state);
			rd_evidence_attr(f, &p->state);
			rd_evidence_attr(f, &p->phys_state);
			rd_fix_add(f, "mlxlink -d %s -p %u; cat %s/state %s/phys_state    # read both again", d->pci_addr, p->num,
				   p->dir, p->dir);
		}
	}
	return true;
}

void rd_check_link_phy(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	const struct rd_mft *m = &ctx->sys->mft;
	size_t judged = 0, missing = 0;
	char subj[160], why[320] = "";
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			const struct rd_mft_port *mp = rd_mft_port(m, d->name, p->num);
			if (!mp || rd_policy_ignores(ctx->policy, d->name, p->num))
				continue;
			snprintf(subj, sizeof subj, "%s port %u", d->name, p->num);
			if (rd_tool_usable(ctx, &mp->mlxlink_out, subj, "link", &missing, why, sizeof why))
				judged += judge(ctx, d, p, mp, subj);
		}
	}
	for (size_t i = ctx->first; i < ctx->report->n; i++)
		if (ctx->report->findings[i].status != RD_SKIP)
			return;
	if (judged)
		rd_finding_add(ctx, RD_OK, "host",
			       "%zu port%s: mlxlink Status Opcode 0, Effective Physical BER below 1E-12, state as in sysfs%s",
			       judged, judged == 1 ? "" : "s", missing ? " (others not read)" : "");
	else if (missing)
		rd_finding_add(ctx, RD_SKIP, "host", "%s", why);
	else
		rd_finding_add(ctx, RD_SKIP, "host", "no Mellanox/NVIDIA PCI function to ask mlxlink about");
}
