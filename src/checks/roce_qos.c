/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* roce.qos: trust mode, PFC per priority and ECN of each RoCE port's netdev, from sysfs
 * /sys/class/net/<if>/qos/{trust,pfc} and ecn/ (MLNX_OFED's mlx5), else the captured
 * `mlnx_qos -i <if>` or `dcb pfc show dev <if>`; rdma_cm's default ToS from configfs.  With
 * [roce] trust / pfc in the policy a port that differs is WARN, with the mlnx_qos command that
 * sets it; without them what is seen is reported (OK), never judged. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/mft.h"

static uint8_t pfc_mask(const int pfc[8])
{
	uint8_t m = 0;
	for (int i = 0; i < 8; i++)
		if (pfc[i])
			m |= (uint8_t)(1u << i);
	return m;
}

/* "PFC on priority 3", "PFC on priorities 3,4", "PFC off on every priority" */
static void on_phrase(const char *what, uint8_t mask, char *buf, size_t len)
{
	char w[32];
	rd_prio_words(mask, w, sizeof w);
	if (!mask)
		snprintf(buf, len, "%s off on every priority", what);
	else
		snprintf(buf, len, "%s on priorit%s %s", what, mask & (mask - 1) ? "ies" : "y", w);
}

/* Where trust or pfc came from, as evidence. */
static void source_evidence(struct rd_finding *f, const struct rd_qos_port *q, const char *from, bool trust)
{
	char pl[16];
	if (!from) {
		char why[320];
		if (trust ? rd_attr_ok(&q->sys_trust) || q->sys_trust.err != ENOENT : rd_attr_ok(&q->sys_pfc) || q->sys_pfc.err != ENOENT)
			rd_evidence_attr(f, trust ? &q->sys_trust : &q->sys_pfc);
		if (q->mlnx_qos_out.cmd)
			rd_evidence_add(f, q->mlnx_qos_out.cmd, "<%s>", rd_tool_why(&q->mlnx_qos_out, why, sizeof why));
		if (!trust && q->dcb_out.cmd)
			rd_evidence_add(f, q->dcb_out.cmd, "<%s>", rd_tool_why(&q->dcb_out, why, sizeof why));
		return;
	}
	if (!strcmp(from, "sysfs")) {
		rd_evidence_attr(f, trust ? &q->sys_trust : &q->sys_pfc);
	} else {
		const struct rd_tool_out *o = !strcmp(from, "dcb") ? &q->dcb_out : &q->mlnx_qos_out;
		rd_pfc_list(pfc_mask(q->qos.pfc), pl);
		if (trust)
			rd_evidence_add(f, o->cmd, "Priority trust state: %s", q->qos.trust);
		else
			rd_evidence_add(f, o->cmd, "PFC enabled: %s", pl);
	}
}

static void tos_words(const struct rd_qos_port *q, char *buf, size_t len)
{
	if (rd_attr_ok(&q->tos))
		snprintf(buf, len, "rdma_cm default ToS %s", q->tos.value);
	else if (q->tos.err == ENOENT)
		/* rdma_cm/<dev> appears in configfs only after someone mkdirs it: nobody set a default */
		snprintf(buf, len, "rdma_cm default ToS not set (%s: ToS 0 unless the application sets one)",
			 q->cm_configfs ? "no configfs entry for the device" : "configfs rdma_cm not present");
	else
		snprintf(buf, len, "rdma_cm default ToS unreadable (%s)", rd_strerror(q->tos.err));
}

static void summary(const struct rd_qos_port *q, char *buf, size_t len)
{
	char pfc[64] = "PFC unknown", np[64], rp[64], tos[200], trust[64] = "trust unknown";
	if (q->qos.pfc_ok) {
		on_phrase("PFC", pfc_mask(q->qos.pfc), pfc, sizeof pfc - 16);
		snprintf(pfc + strlen(pfc), 16, " (%s)", q->pfc_from);
	}
	if (q->trust_from)
		snprintf(trust, sizeof trust, "trust %s (%s)", q->qos.trust, q->trust_from);
	int m_np = 0, m_rp = 0;
	for (int i = 0; i < 8; i++) {
		m_np |= q->ecn_np[i] > 0 ? 1 << i : 0;
		m_rp |= q->ecn_rp[i] > 0 ? 1 << i : 0;
	}
	on_phrase("notification point", (uint8_t)m_np, np, sizeof np);
	on_phrase("reaction point", (uint8_t)m_rp, rp, sizeof rp);
	tos_words(q, tos, sizeof tos);
	char ecn[160] = "ECN not readable";
	if (q->ecn_ok)
		snprintf(ecn, sizeof ecn, "ECN %s, %s", np, rp);
	snprintf(buf, len, "%s, %s, %s, %s", trust, pfc, ecn, tos);
}

/* The first boot-time hook line that sets q's interface, or NULL. */
static const struct rd_bootset_line *boot_line(const struct rd_mft *m, const struct rd_qos_port *q)
{
	for (size_t i = 0; i < m->qos_boot.n; i++)
		if (rd_bootset_covers(&m->qos_boot.v[i], q->ifname))
			return &m->qos_boot.v[i];
	return NULL;
}

/* The policy's trust and PFC, met by the ports in seen: whether something sets them again at every
 * boot (mlnx_qos and dcb settings live in the driver: a reboot or a driver restart puts the port
 * back to trust pcp and PFC off).  Said in the OK, never judged: the network operator's daemon or
 * the switch's DCBX can set them without a file on the host. */
static void boot_words(const struct rd_mft *m, const struct rd_qos_port *const *seen, size_t n, struct rd_buf *msg)
{
	size_t covered = 0;
	const struct rd_bootset_line *first = NULL;
	struct rd_buf not = {0};
	for (size_t i = 0; i < n; i++) {
		const struct rd_bootset_line *l = boot_line(m, seen[i]);
		if (l && !first)
			first = l;
		if (l)
			covered++;
		else if (not.len < 200)
			rd_buf_printf(&not, "%s%s", not.len ? ", " : "", seen[i]->ifname);
	}
	if (covered == n)
		rd_buf_printf(msg, "; set at every boot by %s line %u", first->file, first->line);
	else if (covered)
		rd_buf_printf(msg, "; set at every boot by %s line %u, but not for %s: a reboot or driver restart "
			      "undoes it there", first->file, first->line, not.data);
	else if (m->qos_boot.n)
		rd_buf_printf(msg, "; %s line %u runs %s at boot, but not for %s: a reboot or driver restart undoes it",
			      m->qos_boot.v[0].file, m->qos_boot.v[0].line,
			      strstr(m->qos_boot.v[0].text, "mlnx_qos") ? "mlnx_qos" : "dcb", not.data);
	else
		rd_buf_puts(msg, "; no boot-time hook in /etc runs mlnx_qos or dcb: a reboot or driver restart undoes it, "
			    "unless the network operator or the switch's DCBX sets it");
	rd_buf_free(&not);
}

static void boot_evidence(const struct rd_mft *m, struct rd_finding *f)
{
	for (size_t i = 0; i < m->qos_boot.n && i < 4; i++)
		rd_evidence_add(f, m->qos_boot.v[i].file, "line %u: %s", m->qos_boot.v[i].line, m->qos_boot.v[i].text);
	if (!m->qos_boot.n)
		rd_evidence_add(f, "/etc",
				"udev rules, systemd units and the scripts they run, if-up and dispatcher hooks, rc.local: "
				"none runs mlnx_qos or dcb (%u files read)",
				m->qos_boot.files);
}

/* The tools were not run (live without --mft) or are absent: say so, do not judge. */
static bool not_asked(const struct rd_qos_port *q)
{
	const struct rd_tool_out *o = &q->mlnx_qos_out;
	return o->cmd && (o->err == RD_ENOTCAPTURED || o->err == ENOENT) &&
	       (!q->dcb_out.cmd || q->dcb_out.err == RD_ENOTCAPTURED || q->dcb_out.err == ENOENT);
}

void rd_check_roce_qos(struct rd_check_ctx *ctx)
{
	const struct rd_policy *pol = ctx->policy;
	const struct rd_mft *m = &ctx->sys->mft;
	bool want_trust = pol->roce_trust[0] != '\0', want_pfc = pol->roce_pfc_set;
	size_t seen = 0, unread = 0, nmet = 0;
	const struct rd_qos_port **met = rd_xcalloc(m->nqos + 1, sizeof *met); /* as the policy sets */
	char subj[160], desc[600], why[320] = "";
	for (size_t i = 0; i < m->nqos; i++) {
		const struct rd_qos_port *q = &m->qos[i];
		if (rd_policy_ignores(pol, q->dev, q->port))
			continue;
		snprintf(subj, sizeof subj, "%s port %u", q->dev, q->port);
		bool known = q->trust_from || q->qos.pfc_ok;
		summary(q, desc, sizeof desc);
		if (!want_trust && !want_pfc) {
			if (!known) {
				if (!unread++)
					snprintf(why, sizeof why, "%s: QoS not readable: no /sys/class/net/%s/qos and %s", q->ifname,
						 q->ifname, rd_tool_why(&q->mlnx_qos_out, desc, sizeof desc));
				continue;
			}
			seen++;
			struct rd_finding *f = rd_finding_add(ctx, RD_OK, subj, "%s (%s): %s", q->ifname, subj, desc);
			source_evidence(f, q, q->trust_from, true);
			source_evidence(f, q, q->pfc_from, false);
			if (rd_attr_ok(&q->tos))
				rd_evidence_attr(f, &q->tos);
			continue;
		}
		bool trust_unknown = want_trust && !q->trust_from, pfc_unknown = want_pfc && !q->qos.pfc_ok;
		bool trust_bad = want_trust && q->trust_from && strcmp(q->qos.trust, pol->roce_trust) != 0;
		bool pfc_bad = want_pfc && q->qos.pfc_ok && pfc_mask(q->qos.pfc) != pol->roce_pfc;
		if (trust_bad || pfc_bad) {
			char want[64], have[64], list[16];
			on_phrase("PFC", pol->roce_pfc, want, sizeof want);
			on_phrase("PFC", pfc_mask(q->qos.pfc), have, sizeof have);
			struct rd_buf msg = {0};
			if (trust_bad)
				rd_buf_printf(&msg, "trust %s (the policy: %s)", q->qos.trust, pol->roce_trust);
			if (pfc_bad)
				rd_buf_printf(&msg, "%s%s (the policy: %s)", trust_bad ? ", " : "", have, want);
			struct rd_finding *f = rd_finding_add(
				ctx, RD_WARN, subj,
				"%s (%s): %s: RoCE traffic is not lossless as the fabric expects (drops, go-back-N "
				"retransmits, stalled collectives)",
				q->ifname, subj, msg.data ? msg.data : "");
			rd_buf_free(&msg);
			if (trust_bad)
				source_evidence(f, q, q->trust_from, true);
			if (pfc_bad)
				source_evidence(f, q, q->pfc_from, false);
			rd_pfc_list(pol->roce_pfc, list);
			struct rd_buf fix = {0};
			/* the inbox driver's host has no mlnx_qos: iproute2's dcb sets PFC there (dcb-pfc(8)) */
			bool no_mlnx_qos = q->mlnx_qos_out.err == ENOENT && q->dcb_out.cmd && q->dcb_out.err == 0;
			if (no_mlnx_qos && want_pfc && !trust_bad) {
				rd_buf_printf(&fix, "dcb pfc set dev %s prio-pfc all:off", q->ifname);
				for (int k = 0; k < 8; k++)
					if (pol->roce_pfc & (1u << k))
						rd_buf_printf(&fix, " %d:on", k);
			} else {
				rd_buf_printf(&fix, "mlnx_qos -i %s", q->ifname);
				if (want_trust)
					rd_buf_printf(&fix, " --trust %s", pol->roce_trust);
				if (want_pfc)
					rd_buf_printf(&fix, " --pfc %s", list);
			}
			rd_fix_add(f, "%s", fix.data);
			const struct rd_bootset_line *bl = m->qos_boot_read ? boot_line(m, q) : NULL;
			if (bl)
				rd_fix_add(f, "# and in %s line %u, which sets this port's QoS at every boot: or the next boot "
					   "restores the old values", bl->file, bl->line);
			else
				rd_fix_add(f, "# %s settings do not survive a reboot or driver restart: apply them at boot too (a "
					   "udev rule or a systemd unit)", no_mlnx_qos && want_pfc && !trust_bad ? "dcb" : "mlnx_qos");
			rd_buf_free(&fix);
		} else if (trust_unknown || pfc_unknown) {
			if (not_asked(q) && !q->trust_from && !q->qos.pfc_ok) {
				if (!unread++)
					snprintf(why, sizeof why, "%s: QoS not readable: no /sys/class/net/%s/qos and %s", q->ifname,
						 q->ifname, rd_tool_why(&q->mlnx_qos_out, desc, sizeof desc));
				continue;
			}
			struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, subj, "%s (%s): cannot read the %s the policy sets",
							      q->ifname, subj,
							      trust_unknown && pfc_unknown ? "trust mode and PFC"
							      : trust_unknown		   ? "trust mode"
											   : "PFC priorities");
			if (trust_unknown)
				source_evidence(f, q, NULL, true);
			if (pfc_unknown)
				source_evidence(f, q, NULL, false);
		} else {
			seen++;
			met[nmet++] = q;
		}
	}
	if (!rd_check_quiet(ctx)) {
		free(met);
		return;
	}
	if (seen) { /* the policy's case: without one, each port had its own OK */
		char want[64] = "";
		if (want_pfc)
			on_phrase(want_trust ? ", PFC" : " PFC", pol->roce_pfc, want, sizeof want);
		struct rd_buf boot = {0};
		if (m->qos_boot_read)
			boot_words(m, met, nmet, &boot);
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host", "%zu RoCE port%s as the policy sets:%s%s%s%s", seen,
						      seen == 1 ? "" : "s", want_trust ? " trust " : "",
						      want_trust ? pol->roce_trust : "", want, boot.data ? boot.data : "");
		if (m->qos_boot_read)
			boot_evidence(m, f);
		rd_buf_free(&boot);
	}
	else if (unread)
		rd_finding_add(ctx, RD_SKIP, "host", "%s", why);
	else
		rd_finding_add(ctx, RD_SKIP, "host", "no RoCE port with a netdev");
	free(met);
}
