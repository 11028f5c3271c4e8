/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "run/damp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void rd_damp_rules_from_policy(struct rd_damp_rules *r, const struct rd_policy *p)
{
	r->down_ms = p->watch_down_s * 1000;
	r->flaps = p->watch_flaps ? p->watch_flaps : 1;
	r->window_ms = p->watch_window_s * 1000;
	r->stable_ms = p->watch_stable_s * 1000;
}

/* "90 s", "5 min", "2 h": a time as the policy would write it, whole units only when exact. */
static void span(char *buf, size_t len, long long ms)
{
	long long s = ms / 1000;
	if (s >= 3600 && s % 3600 == 0)
		snprintf(buf, len, "%lld h", s / 3600);
	else if (s >= 60 && s % 60 == 0)
		snprintf(buf, len, "%lld min", s / 60);
	else
		snprintf(buf, len, "%lld s", s);
}

static struct rd_damp_port *find(const struct rd_damp *d, const char *subject)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->ports[i].subject, subject) == 0)
			return &d->ports[i];
	return NULL;
}

/* The downs older than the window are forgotten. */
static void expire(const struct rd_damp *d, struct rd_damp_port *p, long long now)
{
	unsigned k = 0;
	while (k < p->ndowns && now - p->downs[k] >= d->rules.window_ms)
		k++;
	if (k) {
		memmove(p->downs, p->downs + k, (p->ndowns - k) * sizeof p->downs[0]);
		p->ndowns -= k;
	}
}

/* A record for subject; at RD_DAMP_PORTS_MAX, the up port longest up gives its place. */
static struct rd_damp_port *add(struct rd_damp *d, const char *subject)
{
	if (d->n == RD_DAMP_PORTS_MAX) {
		size_t victim = d->n;
		for (size_t i = 0; i < d->n; i++)
			if (!d->ports[i].down && (victim == d->n || d->ports[i].up_since < d->ports[victim].up_since))
				victim = i;
		if (victim == d->n)
			return NULL; /* every one of them down: the new one is not followed */
		free(d->ports[victim].subject);
		d->ports[victim] = d->ports[--d->n];
	}
	if (d->n % 16 == 0)
		d->ports = rd_xrealloc(d->ports, (d->n + 16) * sizeof *d->ports);
	struct rd_damp_port *p = &d->ports[d->n++];
	memset(p, 0, sizeof *p);
	p->subject = rd_xstrdup(subject);
	return p;
}

size_t rd_damp_update(struct rd_damp *d, const struct rd_report *rep, long long now)
{
	size_t went = 0;
	d->gen++;
	for (size_t i = 0; i < rep->n; i++) {
		const struct rd_finding *f = &rep->findings[i];
		if (f->kind != RD_SUBJ_PORT || f->status != RD_FAIL || strcmp(f->check, "ports.state") != 0)
			continue;
		struct rd_damp_port *p = find(d, f->subject);
		if (!p && !(p = add(d, f->subject)))
			continue;
		p->gen = d->gen;
		if (p->down)
			continue;
		p->down = true;
		p->down_since = now;
		expire(d, p, now);
		if (p->ndowns == RD_POLICY_FLAPS_MAX) /* only the newest are needed: N is at most this */
			memmove(p->downs, p->downs + 1, --p->ndowns * sizeof p->downs[0]);
		p->downs[p->ndowns++] = now;
		p->total_downs++;
		went++;
	}
	for (size_t i = 0; i < d->n; i++) {
		struct rd_damp_port *p = &d->ports[i];
		if (p->down && p->gen != d->gen) {
			p->down = false;
			p->up_since = now;
		}
	}
	return went;
}

bool rd_damp_may_drain(const struct rd_damp *d, const char *subject, long long now, char *rule, size_t len,
		       long long *wake)
{
	const struct rd_damp_port *p = find(d, subject);
	char down[32], want[32], win[32];
	span(want, sizeof want, d->rules.down_ms);
	span(win, sizeof win, d->rules.window_ms);
	if (!p || !p->down) { /* not followed (every record taken by ports that are down): no damping */
		snprintf(rule, len, "%s not followed: drains", subject);
		return true;
	}
	unsigned recent = 0;
	for (unsigned i = 0; i < p->ndowns; i++)
		recent += now - p->downs[i] < d->rules.window_ms;
	span(down, sizeof down, now - p->down_since);
	if (recent >= d->rules.flaps) {
		snprintf(rule, len, "%s went down %u time%s within %s (drain_flaps = %u in %s)", subject, recent,
			 recent == 1 ? "" : "s", win, d->rules.flaps, win);
		return true;
	}
	if (now - p->down_since >= d->rules.down_ms) {
		snprintf(rule, len, "%s down for %s (drain_down_after = %s)", subject, down, want);
		return true;
	}
	snprintf(rule, len, "%s down for %s, drains at %s unless it comes back (drain_down_after = %s; %u of "
		 "drain_flaps = %u in %s)", subject, down, want, want, recent, d->rules.flaps, win);
	*wake = p->down_since + d->rules.down_ms;
	return false;
}

bool rd_damp_may_resume(const struct rd_damp *d, long long now, char *rule, size_t len, long long *wake)
{
	const struct rd_damp_port *last = NULL;
	rule[0] = '\0';
	for (size_t i = 0; i < d->n; i++) {
		const struct rd_damp_port *p = &d->ports[i];
		if (p->down || !p->total_downs || now - p->up_since >= d->rules.stable_ms)
			continue;
		if (!last || p->up_since > last->up_since)
			last = p;
	}
	if (!last)
		return true;
	char up[32], want[32];
	span(up, sizeof up, now - last->up_since);
	span(want, sizeof want, d->rules.stable_ms);
	snprintf(rule, len, "%s back for %s: no resume until it has been back %s (resume_stable = %s)", last->subject, up,
		 want, want);
	*wake = last->up_since + d->rules.stable_ms;
	return false;
}

void rd_damp_free(struct rd_damp *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->ports[i].subject);
	free(d->ports);
	d->ports = NULL;
	d->n = 0;
}
