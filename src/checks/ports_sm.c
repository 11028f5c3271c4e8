/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ports.sm: an InfiniBand port needs a subnet manager: a LID and an SM LID.
 *
 * One problem, one finding: a port that is not Active (Initializing with no SM, Polling,
 * Disabled...) is ports.state's finding, which says why; here it is only referenced.  This check
 * judges the LID and SM LID of the ports whose state says the SM has been there (Armed, Active). */
#include <stdio.h>

#include "checks/catalogue.h"

void rd_check_ports_sm(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	size_t ib = 0;
	char subj[128];
	struct rd_buf elsewhere = {0};
	size_t nelse = 0;
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			if (!p->is_ib || rd_policy_ignores(ctx->policy, d->name, p->num) ||
			    rd_port_role(&ctx->sys->link, ctx->policy, d, p) != RD_ROLE_COMPUTE)
				continue;
			/* a port with no physical link cannot reach an SM: ports.state says why */
			if (p->phys_v != RD_PHYS_LINKUP || d->node_type_v == 2)
				continue;
			snprintf(subj, sizeof subj, "%s port %u", d->name, p->num);
			if (p->state_v >= 0 && p->state_v != RD_PORT_ACTIVE && p->state_v != RD_PORT_ARMED) {
				/* Initializing: ports.state reports it, with the SM evidence */
				rd_buf_printf(&elsewhere, "%s%s", nelse++ ? ", " : "", subj);
				continue;
			}
			ib++;
			if (p->lid_v < 0 || p->sm_lid_v < 0) {
				struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, subj, "cannot tell whether %s has a subnet manager", subj);
				rd_evidence_attr(f, &p->lid);
				rd_evidence_attr(f, &p->sm_lid);
				continue;
			}
			if (p->lid_v == 0 || p->lid_v == 0xffff || p->sm_lid_v == 0) {
				struct rd_finding *f = rd_finding_add(
					ctx, RD_FAIL, subj,
					"no subnet manager: %s has %s and SM LID %ld, so it cannot reach any other node", subj,
					p->lid_v == 0 || p->lid_v == 0xffff ? "no LID" : "a LID", p->sm_lid_v);
				rd_evidence_attr(f, &p->lid);
				rd_evidence_attr(f, &p->sm_lid);
				rd_fix_add(f, "run a subnet manager on the fabric: enable the switch-managed SM, or "
					      "systemctl enable --now opensm on one node");
				rd_fix_add(f, "sminfo    # shows the master SM once one runs");
			}
		}
	}
	if (rd_check_quiet(ctx)) {
		if (ib && nelse)
			rd_finding_add(ctx, RD_OK, "host",
				       "every Active InfiniBand port has a LID and an SM; %s %s not Active: see ports.state",
				       elsewhere.data, nelse == 1 ? "is" : "are");
		else if (ib)
			rd_finding_add(ctx, RD_OK, "host", "every InfiniBand port with a link has a LID and an SM");
		else if (nelse)
			rd_finding_add(ctx, RD_SKIP, "host", "no Active InfiniBand port to judge; %s %s not Active: see ports.state",
				       elsewhere.data, nelse == 1 ? "is" : "are");
		else
			rd_finding_add(ctx, RD_SKIP, "host", "no InfiniBand port with a link");
	}
	rd_buf_free(&elsewhere);
}
