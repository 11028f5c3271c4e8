/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* roce.congestion: drops, losses and PFC pause on each RoCE port, judged by what rose since the
 * sample link.counters compares with (the same history under --state-dir and the same [counters]
 * window: model/state.h; run/linkstate.c keeps it), never by values since boot.
 *
 * Read: the port's hw_counters (mlx5's names, drivers/infiniband/hw/mlx5/counters.c) and
 * `ethtool -S <netdev>`'s congestion counters (model/mft.h; run like mlnx_qos: check --mft,
 * snapshot, replayed under --root from rdma-doctor/commands/ethtool-S-<netdev>).
 *
 *   out_of_buffer, rx_discards_phy, tx_discards_phy, rx_prioN_{discards,buf_discard,cong_discard}
 *   rising                                                    WARN (packets dropped)
 *   local_ack_timeout_err, packet_seq_err, out_of_sequence, implied_nak_seq_err rising
 *                                                             WARN (losses: retransmits)
 *   rp_cnp_ignored, rx_icrc_encapsulated, tx_pause_storm_* rising     WARN
 *   rx/tx_prioN_pause rising on a priority PFC is not on (when PFC is known)   WARN
 *   ECN marks, CNPs sent / handled, pause on a PFC priority    reported (congestion control at
 *                                                             work), with the share of the
 *                                                             interval the port was paused
 *   no earlier sample (or another boot, too old ...)          OK "baseline recorded (first sample)"
 * A counter that went down is a new baseline for it; one missing from the earlier sample (ethtool
 * not read then) is a first sample of its own. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/link.h"
#include "model/mft.h"

enum kind { K_DROP, K_LOSS, K_WARN, K_INFO, K_KEPT };

static const struct {
	const char *name;
	enum kind kind;
	const char *why;
} hw_table[] = {
	{"out_of_buffer", K_DROP, "no receive WQE: packets dropped at the responder"},
	{"local_ack_timeout_err", K_LOSS, "ACK timeouts: the requester retransmitted"},
	{"packet_seq_err", K_LOSS, "NAKs for sequence errors: packets lost"},
	{"out_of_sequence", K_LOSS, "out-of-sequence packets received: packets lost"},
	{"implied_nak_seq_err", K_LOSS, "implied NAKs: packets lost"},
	{"rp_cnp_ignored", K_WARN, "CNPs ignored: the reaction point is off on their priority"},
	{"rx_icrc_encapsulated", K_WARN, "RoCE packets with an ICRC error"},
	{"np_ecn_marked_roce_packets", K_INFO, NULL},
	{"np_cnp_sent", K_INFO, NULL},
	{"rp_cnp_handled", K_INFO, NULL},
};

/* "rx_prio3_pause" -> 3 (and *rx), else -1; with suffix "" or "_duration". */
static int pause_prio(const char *name, const char *suffix, bool *rx)
{
	if ((strncmp(name, "rx_prio", 7) && strncmp(name, "tx_prio", 7)) || name[7] < '0' || name[7] > '7')
		return -1;
	char want[32];
	snprintf(want, sizeof want, "_pause%s", suffix);
	if (strcmp(name + 8, want))
		return -1;
	*rx = name[0] == 'r';
	return name[7] - '0';
}

/* rx_out_of_buffer counts the netdev's receive rings (the kernel's TCP/IP path, not RoCE, whose
 * drops are hw_counters' out_of_buffer): kept and exported, not judged here. */
static enum kind ethtool_kind(const char *name)
{
	if (!strcmp(name, "rx_out_of_buffer"))
		return K_KEPT;
	if (strstr(name, "discard"))
		return K_DROP;
	if (!strncmp(name, "tx_pause_storm_", 15))
		return K_WARN;
	return K_INFO;
}

struct port_run {
	struct rd_buf warn, info;
	size_t nwarn, ninfo, first, resets;
	bool drop, loss, wrong_prio, cnp_ignored, storm;
	uint8_t wrong_mask;
	struct {
		const char *path; /* NULL: an attr */
		const struct rd_attr *attr;
		char name[64];
		unsigned long long was, now;
	} ev[8];
	size_t nev;
};

static void add_ev(struct port_run *pr, const struct rd_attr *a, const char *path, const char *name, uint64_t was,
		   uint64_t now)
{
	if (pr->nev >= sizeof pr->ev / sizeof pr->ev[0])
		return;
	pr->ev[pr->nev].attr = a;
	pr->ev[pr->nev].path = path;
	snprintf(pr->ev[pr->nev].name, sizeof pr->ev[pr->nev].name, "%s", name);
	pr->ev[pr->nev].was = was;
	pr->ev[pr->nev].now = now;
	pr->nev++;
}

/* The rise of name since base (false: none to judge; counted as a first sample or a reset). */
static bool rise(struct port_run *pr, const struct rd_state_sample *base, char kind, const char *dev, unsigned port,
		 const char *name, uint64_t now, uint64_t *was, uint64_t *delta)
{
	const struct rd_state_entry *e = base ? rd_state_find(base, kind, dev, port, name) : NULL;
	if (!e) {
		pr->first++;
		return false;
	}
	if (now < e->value) {
		pr->resets++;
		return false;
	}
	*was = e->value;
	*delta = now - e->value;
	return *delta > 0;
}

static void item(struct rd_buf *b, size_t *n, const char *name, uint64_t delta, const char *why)
{
	if ((*n)++ < 8)
		rd_buf_printf(b, "%s%s +%llu%s%s%s", b->len ? ", " : "", name, (unsigned long long)delta, why ? " (" : "", why ? why : "",
			      why ? ")" : "");
	else if (*n == 9)
		rd_buf_puts(b, ", ...");
}

void rd_check_roce_congestion(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	const struct rd_link *lk = &ctx->sys->link;
	const struct rd_link_sample *s = &lk->sample;
	const struct rd_mft *m = &ctx->sys->mft;
	size_t nroce = 0;
	for (size_t i = 0; i < h->ndevices; i++)
		for (size_t k = 0; k < h->devices[i].nports; k++)
			nroce += !h->devices[i].ports[k].is_ib &&
				 rd_port_judged(lk, ctx->policy, &h->devices[i], &h->devices[i].ports[k]);
	if (!nroce) {
		rd_finding_add(ctx, RD_SKIP, "host", "no RoCE port");
		return;
	}
	if (lk->counters_off) {
		rd_finding_add(ctx, RD_SKIP, "host", "port counters not read (--no-counters)");
		return;
	}
	if (s->no_dir) {
		rd_finding_add(ctx, RD_SKIP, "host",
			       "nothing to compare: under --root no counter sample is kept unless --state-dir DIR is given");
		return;
	}
	if (!lk->counters_read) {
		rd_finding_add(ctx, RD_SKIP, "host", "port counters are read by check, slurm and npd only");
		return;
	}
	const struct rd_baseline *b = &s->base[RD_SAMPLE_COUNTERS];
	const char *baseline = NULL;
	if (s->prev_problem)
		baseline = "new baseline: the previous sample is unusable (link.counters says why)";
	else if (b->why == RD_BASE_BOOT)
		baseline = "new baseline: the host booted since the last sample";
	else if (b->why == RD_BASE_FUTURE)
		baseline = "new baseline: the last sample is dated after this run";
	else if (b->why == RD_BASE_OLD)
		baseline = "new baseline: the last sample is older than twice the [counters] window";
	else if (b->why == RD_BASE_NONE || !b->s)
		baseline = "baseline recorded (first sample)";
	const struct rd_state_sample *base = baseline ? NULL : b->s;
	char since[32] = "", span[32] = "";
	long long secs = base ? s->now - base->time : 0;
	if (base) {
		rd_utc_iso8601(base->time, since, sizeof since);
		rd_span_words(secs, span, sizeof span);
	}
	size_t noeth = 0, quiet_ports = 0, quiet_first = 0, quiet_resets = 0;
	char noeth_why[320] = "";
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			if (p->is_ib || !rd_port_judged(lk, ctx->policy, d, p))
				continue;
			const struct rd_qos_port *q = rd_mft_qos(m, d->name, p->num);
			char port_eth[360] = "";
			if (!q || !q->eth) {
				char why[320];
				if (q)
					rd_tool_why(&q->ethtool_out, why, sizeof why);
				else
					snprintf(why, sizeof why, "no netdev");
				if (!noeth++)
					snprintf(noeth_why, sizeof noeth_why, "%s", why);
				snprintf(port_eth, sizeof port_eth, "; hw_counters only (ethtool -S: %s)", why);
			}
			if (!base)
				continue;
			char subj[128], ifdesc[96] = "";
			snprintf(subj, sizeof subj, "%s port %u", d->name, p->num);
			if (q)
				snprintf(ifdesc, sizeof ifdesc, " (%s)", q->ifname);
			struct port_run pr = {0};
			uint64_t was, delta;
			for (size_t c = 0; c < p->nhw_counters; c++) {
				const struct rd_counter *hc = &p->hw_counters[c];
				size_t t = 0;
				while (t < sizeof hw_table / sizeof hw_table[0] && strcmp(hw_table[t].name, hc->name))
					t++;
				if (t == sizeof hw_table / sizeof hw_table[0] || !rd_attr_ok(&hc->attr))
					continue;
				if (!rise(&pr, base, RD_STATE_HW, d->name, p->num, hc->name, hc->value, &was, &delta))
					continue;
				enum kind kd = hw_table[t].kind;
				if (kd == K_INFO) {
					item(&pr.info, &pr.ninfo, hc->name, delta, NULL);
					continue;
				}
				pr.drop |= kd == K_DROP;
				pr.loss |= kd == K_LOSS;
				pr.cnp_ignored |= !strcmp(hc->name, "rp_cnp_ignored");
				item(&pr.warn, &pr.nwarn, hc->name, delta, hw_table[t].why);
				add_ev(&pr, &hc->attr, NULL, hc->name, was, hc->value);
			}
			const char *epath = q && q->eth ? (q->ethtool_out.capture ? q->ethtool_out.capture : q->ethtool_out.cmd) : NULL;
			for (size_t c = 0; q && q->eth && c < q->eth->n; c++) {
				const struct rd_ethtool_stat *st = &q->eth->v[c];
				bool rx;
				if (pause_prio(st->name, "_duration", &rx) >= 0)
					continue; /* with its pause count below */
				if (!rise(&pr, base, RD_STATE_ETHTOOL, d->name, p->num, st->name, st->value, &was, &delta))
					continue;
				int prio = pause_prio(st->name, "", &rx);
				if (prio >= 0) {
					char dur[32], why[160] = "";
					snprintf(dur, sizeof dur, "%s_duration", st->name);
					const struct rd_ethtool_stat *ds = rd_ethtool_find(q->eth, dur);
					uint64_t dwas, dd;
					size_t f0 = pr.first, r0 = pr.resets;
					if (ds && secs > 0 && rise(&pr, base, RD_STATE_ETHTOOL, d->name, p->num, dur, ds->value, &dwas, &dd))
						snprintf(why, sizeof why, "%s %.2f%% of the interval", rx ? "paused by the peer" : "pausing the peer",
							 (double)dd / 1e4 / (double)secs);
					pr.first = f0, pr.resets = r0; /* the duration is not a counter of its own here */
					if (q->qos.pfc_ok && !q->qos.pfc[prio]) {
						char w[200];
						snprintf(w, sizeof w, "priority %d has no PFC here%s%s", prio, *why ? "; " : "", why);
						pr.wrong_prio = true;
						pr.wrong_mask |= (uint8_t)(1u << prio);
						item(&pr.warn, &pr.nwarn, st->name, delta, w);
						add_ev(&pr, NULL, epath, st->name, was, st->value);
					} else {
						item(&pr.info, &pr.ninfo, st->name, delta, *why ? why : NULL);
					}
					continue;
				}
				enum kind kd = ethtool_kind(st->name);
				if (kd == K_KEPT)
					continue;
				if (kd == K_INFO) {
					item(&pr.info, &pr.ninfo, st->name, delta, NULL);
					continue;
				}
				pr.drop |= kd == K_DROP;
				bool err = !strcmp(st->name, "tx_pause_storm_error_events");
				pr.storm |= kd == K_WARN;
				item(&pr.warn, &pr.nwarn, st->name, delta,
				     kd == K_DROP ? "packets dropped"
				     : err	   ? "receive stalled past the storm threshold: storm prevention stopped its pause frames"
						   : "receive stalled past the pause storm warning threshold");
				add_ev(&pr, NULL, epath, st->name, was, st->value);
			}
			char tail[512] = "";
			int n = 0;
			if (pr.ninfo)
				n = snprintf(tail, sizeof tail, "; congestion control at work: %s", pr.info.data);
			if (n >= 0 && (size_t)n < sizeof tail && pr.first)
				n += snprintf(tail + n, sizeof tail - (size_t)n, "; %zu counter%s first sampled", pr.first,
					      pr.first == 1 ? "" : "s");
			if (n >= 0 && (size_t)n < sizeof tail && pr.resets)
				n += snprintf(tail + n, sizeof tail - (size_t)n, "; %zu went down (a new baseline)", pr.resets);
			if (n >= 0 && (size_t)n < sizeof tail)
				snprintf(tail + n, sizeof tail - (size_t)n, "%s", port_eth);
			if (pr.nwarn) {
				struct rd_finding *f = rd_finding_add(ctx, RD_WARN, subj, "%s%s: %s in %s (since %s)%s", subj, ifdesc,
								      pr.warn.data, span, since, tail);
				for (size_t e = 0; e < pr.nev; e++) {
					if (pr.ev[e].attr)
						rd_evidence_attr(f, pr.ev[e].attr);
					else
						rd_evidence_add(f, pr.ev[e].path, "%s: %llu", pr.ev[e].name, pr.ev[e].now);
					rd_evidence_add(f, s->file, "%s %llu at %s", pr.ev[e].name, pr.ev[e].was, since);
				}
				const char *ifn = q ? q->ifname : "IF";
				if (pr.wrong_prio) {
					char on[32] = "", off[32];
					uint8_t mask = 0;
					for (int i2 = 0; i2 < 8; i2++)
						mask |= q->qos.pfc[i2] ? (uint8_t)(1u << i2) : 0;
					rd_prio_words(mask, on, sizeof on);
					rd_prio_words(pr.wrong_mask, off, sizeof off);
					rd_fix_add(f, "mlnx_qos -i %s    # PFC %s%s here, pause frames on priorit%s %s: make the switch "
						      "port's PFC priorities and this port's the same", ifn, mask ? "on priority " : "off",
						   mask ? on : "", pr.wrong_mask & (pr.wrong_mask - 1) ? "ies" : "y", off);
				}
				if (pr.drop)
					rd_fix_add(f, "ethtool -S %s | grep -E 'pause|discard|out_of_buffer'    # again under load: drops "
						      "with PFC on mean the lossless class overflows (switch buffers, PFC and ECN thresholds)",
						   ifn);
				if (pr.loss)
					rd_fix_add(f, "check the switch ports on the path for drops, and PFC and ECN on the RoCE priority end "
						      "to end (mlnx_qos -i %s)", ifn);
				if (pr.storm)
					rd_fix_add(f, "find what keeps this host from draining its receive queues (a hung process, CPU "
						      "starvation, the driver's recovery in dmesg): a port that cannot drain pauses its peer");
				if (pr.cnp_ignored)
					rd_fix_add(f, "grep . /sys/class/net/%s/ecn/roce_rp/enable/*    # the reaction point must be on for "
						      "the RoCE priority", ifn);
			} else if (pr.ninfo) {
				struct rd_finding *f = rd_finding_add(ctx, RD_OK, subj, "%s%s: no drop or loss counter rose in %s (since %s)%s",
								      subj, ifdesc, span, since, tail);
				rd_evidence_add(f, s->file, "boot_id %s, time %lld", base->boot_id[0] ? base->boot_id : "-", base->time);
			} else {
				quiet_ports++;
				quiet_first += pr.first;
				quiet_resets += pr.resets;
			}
			rd_buf_free(&pr.warn);
			rd_buf_free(&pr.info);
		}
	}
	char eth[400] = "";
	if (noeth)
		snprintf(eth, sizeof eth, "; ethtool -S of %zu port%s not read (%s)", noeth, noeth == 1 ? "" : "s", noeth_why);
	if (!base) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host", "%zu RoCE port%s: %s%s", nroce, nroce == 1 ? "" : "s",
						      baseline, eth);
		if (s->kept)
			rd_evidence_add(f, s->file, "%s", s->written ? "written" : s->reader ? "read, not written" : "not written");
	} else if (quiet_ports) {
		char more[128] = "";
		int n = 0;
		if (quiet_first)
			n = snprintf(more, sizeof more, "; %zu counter%s first sampled (not in the earlier sample)", quiet_first,
				     quiet_first == 1 ? "" : "s");
		if (quiet_resets && n >= 0 && (size_t)n < sizeof more)
			snprintf(more + n, sizeof more - (size_t)n, "; %zu went down (a new baseline)", quiet_resets);
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host",
						      "%zu RoCE port%s: no drop, loss or congestion counter rose in %s (since %s)%s%s",
						      quiet_ports, quiet_ports == 1 ? "" : "s", span, since, more, eth);
		rd_evidence_add(f, s->file, "boot_id %s, time %lld", base->boot_id[0] ? base->boot_id : "-", base->time);
	}
}
