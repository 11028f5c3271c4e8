/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ports.rate: an active port below the policy's minimum, or below the best port of the same
 * model and link layer (a degraded link: fewer lanes or a lower speed).  The ports are compared
 * with each other, not with what their model can do: the OK line says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"

static const char *model_key(const struct rd_device *d)
{
	if (rd_attr_ok(&d->board_id))
		return d->board_id.value;
	if (rd_attr_ok(&d->hca_type))
		return d->hca_type.value;
	return d->name;
}

/* The active, readable, not ignored ports of one model and link layer: the best rate among them. */
struct group {
	const char *model;
	bool is_ib;
	double best;
	const struct rd_device *best_dev;
	size_t peers;
};

void rd_check_ports_rate(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	size_t checked = 0, others = 0;
	char subj[128];
	/* one pass over the ports: whether each counts (the policy asked once per port), and the best
	 * rate of each model and link layer; then one pass to judge each port against its group */
	size_t nports = 0;
	for (size_t i = 0; i < h->ndevices; i++)
		nports += h->devices[i].nports;
	bool *counts = rd_xcalloc(nports + 1, sizeof *counts);
	struct group *groups = rd_xcalloc(nports + 1, sizeof *groups);
	size_t *group_of = rd_xcalloc(nports + 1, sizeof *group_of);
	size_t ngroups = 0;
	for (size_t i = 0, at = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		const char *model = model_key(d);
		for (size_t k = 0; k < d->nports; k++, at++) {
			const struct rd_port *p = &d->ports[k];
			bool judged = p->state_v == RD_PORT_ACTIVE && !rd_policy_ignores(ctx->policy, d->name, p->num);
			counts[at] = judged && rd_port_role(&ctx->sys->link, ctx->policy, d, p) == RD_ROLE_COMPUTE;
			others += judged && !counts[at]; /* a VF, the management NIC ...: `stack` says which */
			/* the ports of a device share its group: try the last one first */
			size_t g = ngroups && groups[ngroups - 1].is_ib == p->is_ib && strcmp(groups[ngroups - 1].model, model) == 0
					   ? ngroups - 1 : 0;
			while (g < ngroups && (groups[g].is_ib != p->is_ib || strcmp(groups[g].model, model) != 0))
				g++;
			if (g == ngroups)
				groups[ngroups++] = (struct group){.model = model, .is_ib = p->is_ib};
			group_of[at] = g;
			if (counts[at] && p->rate_ok) {
				groups[g].peers++;
				if (p->rate_v.gbps > groups[g].best) {
					groups[g].best = p->rate_v.gbps;
					groups[g].best_dev = d;
				}
			}
		}
	}
	for (size_t i = 0, at = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		for (size_t k = 0; k < d->nports; k++, at++) {
			const struct rd_port *p = &d->ports[k];
			if (!counts[at])
				continue;
			snprintf(subj, sizeof subj, "%s port %u", d->name, p->num);
			if (!p->rate_ok) {
				struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, subj, "cannot read the rate of %s", subj);
				rd_evidence_attr(f, &p->rate);
				continue;
			}
			checked++;
			const struct group *g = &groups[group_of[at]];
			double best = g->best;
			const struct rd_device *bd = g->best_dev;
			size_t peers = g->peers;
			double min = p->is_ib ? ctx->policy->min_rate_ib : ctx->policy->min_rate_eth;
			struct rd_finding *f = NULL;
			if (min > 0 && p->rate_v.gbps < min) {
				f = rd_finding_add(ctx, RD_FAIL, subj, "%s runs at %g Gb/s, below the policy's %g Gb/s for %s",
						   subj, p->rate_v.gbps, min, p->is_ib ? "InfiniBand" : "Ethernet");
			} else if (peers > 1 && p->rate_v.gbps < best) {
				f = rd_finding_add(ctx, RD_WARN, subj,
						   "%s runs at %g Gb/s (%uX %s) while %s of the same model runs at %g Gb/s: a "
						   "degraded link (lanes down or a lower speed negotiated)",
						   subj, p->rate_v.gbps, p->rate_v.width, p->rate_v.speed[0] ? p->rate_v.speed : "",
						   bd->name, best);
			}
			if (f) {
				rd_evidence_attr(f, &p->rate);
				rd_fix_add(f, "mlxlink -d %s -m -c -e    # width, speed, cable and BER",
					   d->pci_addr ? d->pci_addr : d->name);
				rd_fix_add(f, "reseat or replace the cable; check the switch port's configured speed and width");
			}
		}
	}
	char not_judged[96] = "";
	if (others)
		snprintf(not_judged, sizeof not_judged, " (%zu active port%s not judged: %s, see stack)", others,
			 others == 1 ? "" : "s", others == 1 ? "not a compute port" : "not compute ports");
	/* what was compared: the ports of one model with each other (what the model could do is not
	 * read), and the policy's minimum when it has one */
	size_t alone = 0;
	for (size_t i = 0, at = 0; i < h->ndevices; i++)
		for (size_t k = 0; k < h->devices[i].nports; k++, at++)
			alone += counts[at] && h->devices[i].ports[k].rate_ok && groups[group_of[at]].peers == 1;
	char extra[192] = "";
	const struct rd_policy *pol = ctx->policy;
	if (pol->min_rate_ib > 0 || pol->min_rate_eth > 0) {
		char ib[48] = "", eth[48] = "";
		if (pol->min_rate_ib > 0)
			snprintf(ib, sizeof ib, "%g Gb/s InfiniBand", pol->min_rate_ib);
		if (pol->min_rate_eth > 0)
			snprintf(eth, sizeof eth, "%g Gb/s Ethernet", pol->min_rate_eth);
		snprintf(extra, sizeof extra, "; none below the policy's %s%s%s", ib, ib[0] && eth[0] ? ", " : "", eth);
	}
	if (alone) {
		size_t n = strlen(extra);
		snprintf(extra + n, sizeof extra - n, "; %zu alone of its model, not compared", alone);
	}
	if (rd_check_quiet(ctx) && checked)
		rd_finding_add(ctx, RD_OK, "host",
			       "%zu active port%s, none slower than the fastest port of its model here (compared with each other "
			       "only)%s%s",
			       checked, checked == 1 ? "" : "s", extra, not_judged);
	else if (rd_check_quiet(ctx))
		rd_finding_add(ctx, RD_SKIP, "host", "no active %sport to check%s", others ? "compute " : "", not_judged);
	free(counts);
	free(groups);
	free(group_of);
}
