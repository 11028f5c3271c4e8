/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* link.phy: the physical layer as mlxlink sees it (mlxlink -d <pci> -p <port> -m -c -e):
 * an Effective Physical BER of 1E-12 or worse (the guide: "a flapping cable / dirty connector"),
 * a Status Opcode other than 0 or 1023 (1-1022 PHY firmware, 1024-2047 management firmware with
 * 1024 = cable unplugged, 2048 and up core/driver) with the firmware's Recommendation as the
 * message, and the State / Physical state it reports against sysfs.
 *
 * And the transceiver, from -m's Module Info (digital diagnostics, model/mft.h rd_ddm): mlxlink
 * prints the module's own alarm thresholds, not its warning thresholds, so "near" is measured from
 * the alarm: a temperature at or within TEMP_MARGIN C of the high alarm, a lane's Rx or Tx power
 * at or within POWER_MARGIN dB of the low alarm.  Modules' warning thresholds sit about that far
 * inside their alarms (SFF-8636 / SFF-8472 thresholds as modules set them: 75 C alarm / 72 C
 * warning, -8.9 dBm / -6.9 dBm Rx; a Finisar datasheet 78 C / 73 C).  A module that prints no
 * temperature threshold is held to 70 C, the top of the commercial case temperature range
 * (0..70 C) optics datasheets give.  A passive copper cable, or a module without DDM ("N/A"), is
 * never judged; module telemetry alone is never a FAIL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checks/catalogue.h"
#include "model/mft.h"

#define BER_LIMIT 1e-12
#define TEMP_MARGIN 5.0   /* C below the high temperature alarm */
#define TEMP_DEFAULT 70.0 /* C, with no threshold printed */
#define POWER_MARGIN 2.0  /* dB above the low Rx/Tx power alarm */

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

/* Where a Module Info line is shown from: the capture in a root, else the command. */
static const char *module_src(const struct rd_tool_out *o)
{
	return o->capture ? o->capture : o->cmd;
}

/* "OSFP CLT T-F4GS-BV0 (serial CWJH05025502589)", or what of it was printed. */
static void module_name(const struct rd_mlxlink_module *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s%s%s%s", m->identifier ? m->identifier : "module", m->vendor ? " " : "",
		 m->vendor ? m->vendor : "", m->part ? " " : "", m->part ? m->part : "", m->serial ? " (serial " : "",
		 m->serial ? m->serial : "", m->serial ? ")" : "");
}

/* True when the module's diagnostics are judged: DDM values printed, not passive copper. */
static bool module_judged(const struct rd_mlxlink_module *m)
{
	if (!m->present || rd_module_passive_copper(m))
		return false;
	if (m->ddm_supported && !strcasecmp(m->ddm_supported, "No"))
		return false;
	return m->temp.n || m->rx.n || m->tx.n;
}

/* The lanes of d at or below lo + margin: "2" or "2,3" in buf; false when none. */
static bool low_lanes(const struct rd_ddm *d, char *buf, size_t len, bool *below)
{
	size_t o = 0;
	*below = false;
	buf[0] = '\0';
	if (!d->th)
		return false;
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i] <= d->lo + POWER_MARGIN) {
			*below |= d->v[i] <= d->lo;
			int w = snprintf(buf + o, len - o, "%s%zu", o ? "," : "", i + 1);
			if (w < 0 || (size_t)w >= len - o)
				break;
			o += (size_t)w;
		}
	return o > 0;
}

static void judge_power(struct rd_check_ctx *ctx, const struct rd_device *d, const struct rd_port *p,
			const struct rd_mft_port *mp, const char *subj, const char *name, bool rx)
{
	const struct rd_mlxlink_module *m = &mp->link.module;
	const struct rd_ddm *dd = rx ? &m->rx : &m->tx;
	char lanes[64];
	bool below;
	if (!low_lanes(dd, lanes, sizeof lanes, &below))
		return;
	bool many = strchr(lanes, ',') != NULL;
	struct rd_finding *f = rd_finding_add(
		ctx, RD_WARN, subj, "%s: %s power of %s lane%s %s %s %s the module's low alarm %g dBm%s: %s", subj,
		rx ? "Rx" : "Tx", name, many ? "s" : "", lanes, many ? "are" : "is", below ? "at or below" : "within 2 dB of",
		dd->lo, below ? "" : " (about where its low warning sits)",
		rx ? "too little light arrives (a dirty or damaged fiber end or connector, a bent cable, or a failing "
		     "laser at the far end)"
		   : "its own laser is weakening (the module is ageing or failing)");
	rd_evidence_add(f, module_src(&mp->mlxlink_out), "%s [dBm]: %s", rx ? "Rx Power Current" : "Tx Power Current",
			dd->text);
	if (m->bias.text && rx == false)
		rd_evidence_add(f, module_src(&mp->mlxlink_out), "Bias Current [mA]: %s", m->bias.text);
	if (m->temp.text)
		rd_evidence_add(f, module_src(&mp->mlxlink_out), "Temperature [C]: %s", m->temp.text);
	if (rx) {
		rd_fix_add(f, "# clean both fiber ends and the module's receptacle (a one-click cleaner), check the "
			      "cable for bends, reseat the module of %s",
			   subj);
		rd_fix_add(f, "# if the power stays low: swap the cable, then the module at this end and at the far end");
	} else {
		rd_fix_add(f, "# reseat the module of %s; replace it if its Tx power stays this low", subj);
	}
	rd_fix_add(f, "mlxlink -d %s -p %u -m    # read the module's diagnostics again", d->pci_addr, p->num);
}

/* The transceiver's temperature and Rx/Tx power against its own alarm thresholds. */
static void judge_module(struct rd_check_ctx *ctx, const struct rd_device *d, const struct rd_port *p,
			 const struct rd_mft_port *mp, const char *subj)
{
	const struct rd_mlxlink_module *m = &mp->link.module;
	if (!module_judged(m))
		return;
	char name[200];
	module_name(m, name, sizeof name);
	const struct rd_ddm *t = &m->temp;
	if (t->n) {
		double hi = t->th ? t->hi : TEMP_DEFAULT;
		double at = t->th ? hi - TEMP_MARGIN : hi;
		if (t->v[0] >= at) {
			bool over = t->v[0] >= hi;
			struct rd_finding *f;
			if (t->th)
				f = rd_finding_add(ctx, RD_WARN, subj,
						   "%s: %s is at %g C, %s its high temperature alarm %g C: it runs hot, and "
						   "a hot optic takes errors and can drop the link",
						   subj, name, t->v[0], over ? "at or above" : "within 5 C of", hi);
			else
				f = rd_finding_add(ctx, RD_WARN, subj,
						   "%s: %s is at %g C, at or above 70 C (it prints no threshold; 70 C is the "
						   "top of an optic's commercial case temperature range): it runs hot",
						   subj, name, t->v[0]);
			rd_evidence_add(f, module_src(&mp->mlxlink_out), "Temperature [C]: %s", t->text);
			rd_fix_add(f, "# check the airflow at the module of %s: fan speed and failures, blanking panels, "
				      "the cage's heatsink, a hot neighbour",
				   subj);
			rd_fix_add(f, "# if the airflow is fine: reseat the module, then replace it");
			rd_fix_add(f, "mlxlink -d %s -p %u -m    # read the temperature again", d->pci_addr, p->num);
		}
	}
	judge_power(ctx, d, p, mp, subj, name, true);
	judge_power(ctx, d, p, mp, subj, name, false);
}

/* "mlx5_0 port 1 OSFP CLT T-F4GS-BV0 54 C" appended to *list (for the OK line). */
static void module_list_add(char **list, const char *subj, const struct rd_mlxlink_module *m)
{
	if (!m->present)
		return;
	char name[200], what[64];
	module_name(m, name, sizeof name);
	/* the OK line names the module, not its serial */
	char *paren = strstr(name, " (serial ");
	if (paren)
		*paren = '\0';
	if (rd_module_passive_copper(m))
		snprintf(what, sizeof what, " (passive copper, not judged)");
	else if (module_judged(m) && m->temp.n)
		snprintf(what, sizeof what, m->temp.th ? " at %g C (alarm %g C)" : " at %g C (no threshold printed; 70 C)",
			 m->temp.v[0], m->temp.hi);
	else if (!module_judged(m))
		snprintf(what, sizeof what, " (no diagnostics)");
	else
		what[0] = '\0';
	char *n = rd_xasprintf("%s%s%s %s%s", *list ? *list : "", *list ? ", " : "", subj, name, what);
	free(*list);
	*list = n;
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
	judge_module(ctx, d, p, mp, subj);
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
	char *modules = NULL;
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			const struct rd_mft_port *mp = rd_mft_port(m, d->name, p->num);
			if (!mp || rd_policy_ignores(ctx->policy, d->name, p->num))
				continue;
			snprintf(subj, sizeof subj, "%s port %u", d->name, p->num);
			if (rd_tool_usable(ctx, &mp->mlxlink_out, subj, "link", &missing, why, sizeof why) &&
			    judge(ctx, d, p, mp, subj)) {
				judged++;
				module_list_add(&modules, subj, &mp->link.module);
			}
		}
	}
	for (size_t i = ctx->first; i < ctx->report->n; i++)
		if (ctx->report->findings[i].status != RD_SKIP) {
			free(modules);
			return;
		}
	if (judged)
		rd_finding_add(ctx, RD_OK, "host",
			       "%zu port%s: mlxlink Status Opcode 0, Effective Physical BER below 1E-12, state as in sysfs%s%s%s",
			       judged, judged == 1 ? "" : "s", modules ? "; modules: " : "",
			       modules ? modules : "", missing ? " (others not read)" : "");
	else if (missing)
		rd_finding_add(ctx, RD_SKIP, "host", "%s", why);
	else
		rd_finding_add(ctx, RD_SKIP, "host", "no Mellanox/NVIDIA PCI function to ask mlxlink about");
	free(modules);
}
