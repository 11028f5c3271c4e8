/* ports.rate: an active port below the policy's minimum, or below the best port of the same
 * model and link layer (a degraded link: fewer lanes or a lower speed). */
#include <stdio.h>
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

static bool usable(const struct rd_check_ctx *ctx, const struct rd_device *d, const struct rd_port *p)
{
	return !rd_policy_ignores(ctx->policy, d->name, p->num) &&
	       rd_port_role(&ctx->sys->link, ctx->policy, d, p) == RD_ROLE_COMPUTE && p->state_v == RD_PORT_ACTIVE && p->rate_ok;
}

void rd_check_ports_rate(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	size_t checked = 0;
	char subj[128];
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			if (rd_policy_ignores(ctx->policy, d->name, p->num) || p->state_v != RD_PORT_ACTIVE ||
			    rd_port_role(&ctx->sys->link, ctx->policy, d, p) != RD_ROLE_COMPUTE)
				continue;
			snprintf(subj, sizeof subj, "%s port %u", d->name, p->num);
			if (!p->rate_ok) {
				struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, subj, "cannot read the rate of %s", subj);
				rd_evidence_attr(f, &p->rate);
				continue;
			}
			checked++;
			/* best rate among active ports of the same model and link layer */
			double best = 0;
			const struct rd_device *bd = NULL;
			size_t peers = 0;
			for (size_t j = 0; j < h->ndevices; j++) {
				const struct rd_device *o = &h->devices[j];
				if (strcmp(model_key(o), model_key(d)) != 0)
					continue;
				for (size_t q = 0; q < o->nports; q++)
					if (usable(ctx, o, &o->ports[q]) && o->ports[q].is_ib == p->is_ib) {
						peers++;
						if (o->ports[q].rate_v.gbps > best) {
							best = o->ports[q].rate_v.gbps;
							bd = o;
						}
					}
			}
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
	if (rd_check_quiet(ctx) && checked)
		rd_finding_add(ctx, RD_OK, "host", "%zu active port%s at full rate for their model", checked,
			       checked == 1 ? "" : "s");
	else if (rd_check_quiet(ctx))
		rd_finding_add(ctx, RD_SKIP, "host", "no active port to check");
}
