/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* link.counters: port error counters compared with the previous run's sample (model/link.h; the
 * sample is read and written by the run layer, run/linkstate.c; this check only judges).
 *
 *   any rise of link_downed, excessive_buffer_overrun_errors, local_link_integrity_errors or
 *   rnr_nak_retry_err                                             FAIL (NVSentinel's fatal set)
 *   symbol_error past the port's bit budget at BER 1e-12          WARN (FAIL past a policy limit)
 *   any rise of port_rcv_errors, port_xmit_discards, link_error_recovery   WARN (same)
 *   a counter at the ceiling of its width (4, 8, 16 bits)         WARN: rises can no longer be seen
 *   no previous sample, another boot_id, a counter that went down a new baseline, no alarm
 * What a run compares with is the sample the history gives for the policy's [counters] window
 * (model/state.h), so a rise is reported by every run for a window after it.  A rate is given
 * only over MIN_RATE_S or more; a shorter interval is judged as if it were that long (a rise of
 * one error a second after the last sample is not 3600 per hour).  A sample that cannot be kept
 * is a WARN that never drains (the host is not at fault). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/link.h"

#define MIN_RATE_S 300 /* the shortest interval a per-hour rate is given over */

static const struct {
	const char *name;
	unsigned bits; /* the PMA PortCounters field width (kernel drivers/infiniband/core/sysfs.c) */
} widths[] = {
	{"symbol_error", 16}, {"link_error_recovery", 8}, {"link_downed", 8}, {"port_rcv_errors", 16},
	{"port_rcv_remote_physical_errors", 16}, {"port_rcv_switch_relay_errors", 16}, {"port_xmit_discards", 16},
	{"port_xmit_constraint_errors", 8}, {"port_rcv_constraint_errors", 8}, {"local_link_integrity_errors", 4},
	{"excessive_buffer_overrun_errors", 4}, {"VL15_dropped", 16},
};

static unsigned width_of(const char *name)
{
	for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
		if (strcmp(widths[i].name, name) == 0)
			return widths[i].bits;
	return 0;
}

static bool fatal(const char *name, bool hw)
{
	return hw ? strcmp(name, "rnr_nak_retry_err") == 0
		  : strcmp(name, "link_downed") == 0 || strcmp(name, "excessive_buffer_overrun_errors") == 0 ||
			    strcmp(name, "local_link_integrity_errors") == 0;
}

static int rate_index(const char *name)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(rd_rate_counters[i], name) == 0)
			return i;
	return -1;
}

struct run {
	struct rd_check_ctx *ctx;
	const struct rd_link_sample *s;
	const struct rd_state_sample *base; /* the sample compared with */
	bool compare;
	long long secs;
	char since[32], span[32];
	size_t ports, resets, na;
	struct rd_buf sat;         /* "mlx5_0 port 1 excessive_buffer_overrun_errors=15, ..." */
	size_t nsat;
	const struct rd_counter *sat_c[16];
	struct rd_buf within;      /* symbol_error rises within their budget */
	size_t nwithin;
};

static void evidence(struct run *r, struct rd_finding *f, const struct rd_counter *c, const struct rd_state_entry *e)
{
	rd_evidence_attr(f, &c->attr);
	if (e)
		rd_evidence_add(f, r->s->file, "%s %llu at %s", c->name, (unsigned long long)e->value, r->since);
}

static void judge(struct run *r, const struct rd_device *d, const struct rd_port *p, const struct rd_counter *c, bool hw)
{
	struct rd_check_ctx *ctx = r->ctx;
	char subj[128];
	snprintf(subj, sizeof subj, "%s port %u", d->name, p->num);
	if (!rd_attr_ok(&c->attr)) {
		r->na++;
		return;
	}
	unsigned bits = hw ? 0 : width_of(c->name);
	uint64_t max = bits ? ((uint64_t)1 << bits) - 1 : 0;
	bool sat = bits && c->value >= max;
	const struct rd_state_entry *e =
		r->compare ? rd_state_find(r->base, hw ? RD_STATE_HW : RD_STATE_COUNTER, d->name, p->num, c->name) : NULL;
	if (e && c->value < e->value) {
		r->resets++; /* cleared (perfquery -R) or wrapped: a new baseline for it */
		e = NULL;
	}
	uint64_t delta = e ? c->value - e->value : 0;
	bool rated = r->secs >= MIN_RATE_S; /* long enough for a rate */
	double hours = (rated ? r->secs : MIN_RATE_S) / 3600.0;
	struct rd_finding *f = NULL;
	const char *satw = sat ? " (now at its ceiling)" : "";
	int ri = rate_index(c->name);
	if (delta && fatal(c->name, hw)) {
		f = rd_finding_add(ctx, RD_FAIL, subj, "%s: %s rose from %llu to %llu in %s (since %s)%s", subj, c->name,
				   (unsigned long long)e->value, (unsigned long long)c->value, r->span, r->since, satw);
	} else if (delta && ri >= 0) {
		double per_hour = delta / hours;
		double limit = ctx->policy->counters_fail_per_hour[ri];
		enum rd_status st = limit > 0 && per_hour > limit ? RD_FAIL : RD_WARN;
		char lim[96] = "";
		if (st == RD_FAIL)
			snprintf(lim, sizeof lim, ", past the policy's %g per hour", limit);
		if (ri == 0) {
			/* BER 1e-12: one bit error in 10^12 bits, i.e. rate(Gb/s) * 1e-3 errors per second */
			bool known = p->rate_ok && p->rate_v.gbps > 0;
			double budget_h = known ? p->rate_v.gbps * 1e-3 * 3600 : 120;
			double budget = budget_h * hours;
			if (st == RD_WARN && (double)delta <= budget) {
				if (r->nwithin++ < 4)
					rd_buf_printf(&r->within, "%s%s symbol_error +%llu (budget %.0f)", r->within.len ? ", " : "",
						      subj, (unsigned long long)delta, ceil(budget));
				return;
			}
			char basis[96];
			if (known)
				snprintf(basis, sizeof basis, "%g Gb/s at BER 1e-12", p->rate_v.gbps);
			else
				snprintf(basis, sizeof basis, "an unknown rate: NVSentinel's 120 per hour");
			if (rated)
				f = rd_finding_add(ctx, st, subj,
						   "%s: symbol_error rose by %llu in %s (%.0f per hour), past the budget of %.0f "
						   "(%.0f per hour for %s)%s%s",
						   subj, (unsigned long long)delta, r->span, per_hour, ceil(budget), budget_h, basis,
						   lim, satw);
			else
				f = rd_finding_add(ctx, st, subj,
						   "%s: symbol_error rose by %llu in %s (since %s; too short for a rate), past "
						   "the budget of %.0f for %d minutes (%.0f per hour for %s)%s%s",
						   subj, (unsigned long long)delta, r->span, r->since, ceil(budget), MIN_RATE_S / 60,
						   budget_h, basis, lim, satw);
		} else if (rated) {
			f = rd_finding_add(ctx, st, subj, "%s: %s rose from %llu to %llu in %s (%.1f per hour)%s%s", subj,
					   c->name, (unsigned long long)e->value, (unsigned long long)c->value, r->span, per_hour,
					   lim, satw);
		} else {
			f = rd_finding_add(ctx, st, subj, "%s: %s rose from %llu to %llu in %s (since %s; too short for a rate)%s%s",
					   subj, c->name, (unsigned long long)e->value, (unsigned long long)c->value, r->span,
					   r->since, lim, satw);
		}
	} else if (sat) {
		/* at the ceiling in both samples (or in the first one): a rise cannot be seen.  Real
		 * healthy hosts have their 4-bit counters at 15 (gpud's H100 sample): reported, not an alarm */
		if (r->nsat < sizeof r->sat_c / sizeof r->sat_c[0])
			r->sat_c[r->nsat] = c;
		if (r->nsat++ < 6)
			rd_buf_printf(&r->sat, "%s%s %s=%llu", r->sat.len ? ", " : "", subj, c->name, (unsigned long long)max);
		return;
	}
	if (!f)
		return;
	evidence(r, f, c, e);
	if (fatal(c->name, hw) || ri >= 0)
		rd_fix_add(f, "mlxlink -d %s -m -c -e    # BER, cable and error counters of the link",
			   d->pci_addr ? d->pci_addr : d->name);
	if (sat)
		rd_fix_add(f, "perfquery -C %s -P %u -R    # clear the port's counters so that new errors show (ib_umad)",
			   d->name, p->num);
	else if (fatal(c->name, hw) && !hw)
		rd_fix_add(f, "reseat or replace the cable; check the switch port's counters for the same link");
}

void rd_check_link_counters(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	const struct rd_link *lk = &ctx->sys->link;
	const struct rd_link_sample *s = &lk->sample;
	if (lk->counters_off) {
		rd_finding_add(ctx, RD_SKIP, "host", "port counters not read (--no-counters)");
		return;
	}
	if (s->no_dir) { /* no counter was read: the live host and its snapshot agree on a host without ports */
		bool ports = false;
		for (size_t i = 0; i < h->ndevices && !ports; i++)
			for (size_t k = 0; k < h->devices[i].nports && !ports; k++)
				ports = rd_port_judged(lk, ctx->policy, &h->devices[i], &h->devices[i].ports[k]);
		rd_finding_add(ctx, RD_SKIP, "host", "%s",
			       ports ? "nothing to compare: under --root no counter sample is kept unless --state-dir DIR is given"
				     : "no port with counters to compare");
		return;
	}
	if (!lk->counters_read) {
		rd_finding_add(ctx, RD_SKIP, "host", "port counters are read by check, slurm and npd only");
		return;
	}
	const struct rd_baseline *b = &s->base[RD_SAMPLE_COUNTERS];
	struct run r = {.ctx = ctx, .s = s, .base = b->s};
	const char *baseline = NULL;
	char why[512] = "", win[32], win2[32], when[32] = "";
	const char *boot = rd_attr_ok(&lk->boot_id) ? lk->boot_id.value : "";
	rd_span_words(s->window, win, sizeof win);
	rd_span_words(2 * s->window, win2, sizeof win2);
	if (b->newest)
		rd_utc_iso8601(b->newest->time, when, sizeof when);
	if (s->prev_problem) {
		snprintf(why, sizeof why, "new baseline: the previous sample is unusable (%s)", s->prev_problem);
		baseline = why;
	} else if (b->why == RD_BASE_NONE && s->reader) {
		snprintf(why, sizeof why, "no sample to compare with yet (%s)", s->reader_why);
		baseline = why;
	} else if (b->why == RD_BASE_NONE) {
		baseline = s->hist.ns ? "baseline recorded (the previous sample holds no counters)"
				      : "baseline recorded (first sample)";
	} else if (b->why == RD_BASE_BOOT) {
		snprintf(why, sizeof why, "new baseline: the host booted since the last sample (boot_id %s, was %s)",
			 *boot ? boot : "unknown", b->newest && b->newest->boot_id[0] ? b->newest->boot_id : "unknown");
		baseline = why;
	} else if (b->why == RD_BASE_FUTURE) {
		snprintf(why, sizeof why, "new baseline: the last sample is dated after this run (%lld > %lld)",
			 b->newest->time, s->now);
		baseline = why;
	} else if (b->why == RD_BASE_OLD) {
		snprintf(why, sizeof why,
			 "new baseline: the last sample (%s) is older than %s, twice the [counters] window, so a rise "
			 "since then cannot be placed in the last %s",
			 when, win2, win);
		baseline = why;
	}
	if (!baseline && !r.base)
		baseline = "baseline recorded (first sample)";
	r.compare = baseline == NULL;
	if (r.compare) {
		r.secs = s->now - r.base->time;
		rd_utc_iso8601(r.base->time, r.since, sizeof r.since);
		rd_span_words(r.secs, r.span, sizeof r.span);
	}
	for (size_t i = 0; i < lk->excluded.n; i++)
		rd_finding_add(ctx, RD_SKIP, lk->excluded.v[i], "%s: counters not read ([counters] exclude in the policy)",
			       lk->excluded.v[i]);
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		const struct rd_counter_refusal *ref = rd_link_refusal(lk, d->name);
		if (ref) {
			struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, d->name,
							      "%s: a counter read failed (%s); its other counters are not read "
							      "in this run (a refused read is a firmware command and a kernel log "
							      "line each time)",
							      d->name, rd_strerror(ref->err));
			rd_evidence_add(f, ref->path, "<%s>", rd_strerror(ref->err));
			rd_fix_add(f, "[counters] exclude = %s    # in the policy, when this function does not give its counters",
				   d->name);
		}
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			if (!rd_port_judged(lk, ctx->policy, d, p))
				continue;
			if (!p->ncounters && !p->nhw_counters)
				continue;
			r.ports++;
			for (size_t c = 0; c < p->ncounters; c++)
				judge(&r, d, p, &p->counters[c], false);
			for (size_t c = 0; c < p->nhw_counters; c++)
				judge(&r, d, p, &p->hw_counters[c], true);
		}
	}
	if (s->kept && s->write_problem) {
		/* a WARN: the run cannot compare next time, which the operator must see; never a FAIL
		 * or a drain, since the host itself is not at fault */
		struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "host",
						      "the counter sample cannot be kept, so no later run can compare: %s",
						      s->write_problem);
		f->no_drain = true;
		if (s->write_err == ELOOP)
			rd_fix_add(f, "rm %s    # the link; the next run writes the state file in its place", s->file);
		else if (s->write_err == EPERM)
			rd_fix_add(f, "chown root %s %s; chmod go-w %s %s    # what is refused, or give --state-dir DIR, a "
				      "directory of root's", s->dir, s->file, s->dir, s->file);
		else if (s->write_err == EROFS)
			rd_fix_add(f, "StateDirectory=rdma-doctor    # in the [Service] of a systemd unit that runs it "
				      "(ProtectSystem= makes /var/lib read-only), or --state-dir DIR on a writable file system");
		else if (s->write_err == EWOULDBLOCK)
			rd_fix_add(f, "ps -C rdma-doctor -o pid,etime,args    # the run that holds the lock");
		else
			rd_fix_add(f, "run as root, or give --state-dir DIR (a directory this user can write)");
	}
	if (!r.ports) {
		if (rd_check_quiet(ctx))
			rd_finding_add(ctx, RD_SKIP, "host", "no port with counters to compare");
		return;
	}
	char extra[160] = "";
	int n = 0;
	if (r.na)
		n = snprintf(extra, sizeof extra, "; %zu not available (N/A: no PMA)", r.na);
	if (r.resets)
		snprintf(extra + n, sizeof extra - (size_t)n, "; %zu went down (cleared: a new baseline)", r.resets);
	if (r.nsat) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host",
						      "%zu counter%s saturated, so a rise cannot be seen: %s%s (perfquery -C DEV -P PORT -R "
						      "clears a port's counters)",
						      r.nsat, r.nsat == 1 ? "" : "s", r.sat.data, r.nsat > 6 ? ", ..." : "");
		for (size_t i = 0; i < r.nsat && i < sizeof r.sat_c / sizeof r.sat_c[0]; i++)
			rd_evidence_attr(f, &r.sat_c[i]->attr);
	}
	rd_buf_free(&r.sat);
	char within[512] = "";
	if (r.nwithin)
		snprintf(within, sizeof within, "; within its budget: %s%s", r.within.data, r.nwithin > 4 ? ", ..." : "");
	rd_buf_free(&r.within);
	bool problems = false;
	for (size_t i = ctx->first; i < ctx->report->n; i++)
		problems |= ctx->report->findings[i].status != RD_OK && ctx->report->findings[i].status != RD_SKIP &&
			    !ctx->report->findings[i].no_drain; /* a sample not kept: what was compared is still said */
	if (baseline && !problems) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host", "%zu port%s: %s%s", r.ports, r.ports == 1 ? "" : "s",
						      baseline, extra);
		if (s->kept)
			rd_evidence_add(f, s->file, "%s", s->written ? "written" : s->reader ? "read, not written" : "not written");
	} else if (!problems) {
		struct rd_finding *f =
			r.nwithin ? rd_finding_add(ctx, RD_OK, "host", "%zu port%s: no error counter rose past its budget in %s "
						   "(since %s)%s%s", r.ports, r.ports == 1 ? "" : "s", r.span, r.since, within, extra)
				  : rd_finding_add(ctx, RD_OK, "host", "%zu port%s: no error counter rose in %s (since %s)%s",
						   r.ports, r.ports == 1 ? "" : "s", r.span, r.since, extra);
		rd_evidence_add(f, s->file, "boot_id %s, time %lld", r.base->boot_id[0] ? r.base->boot_id : "-", r.base->time);
	}
}
