/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fabric's counters under --state-dir (run/fabricstate.h). */
#include "run/fabricstate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/state.h"
#include "run/statefile.h"

#define KEEP_HOST "_fabric" /* not a host name (RFC 1123 has no '_'): no host's state file */

static void counters_sample(const struct rd_fabric *f, long long now, struct rd_state_sample *s)
{
	memset(s, 0, sizeof *s);
	s->kind = RD_SAMPLE_COUNTERS;
	s->time = now;
	for (size_t i = 0; i < f->ncounters; i++) {
		const struct rd_fab_counter *c = &f->counters[i];
		char dev[24];
		if (!rd_fab_counter_rule(c->name))
			continue;
		snprintf(dev, sizeof dev, "0x%016llx", (unsigned long long)c->guid);
		rd_state_add(s, RD_STATE_COUNTER, dev, c->port, c->name, c->value);
	}
}

int rd_fab_counters_keep(const struct rd_fabric *f, const char *dir, long long now, struct rd_state_sample *base,
			 char *err, size_t errlen)
{
	memset(base, 0, sizeof *base);
	struct rd_statefile sf;
	int r = rd_statefile_open(&sf, dir, KEEP_HOST, true, err, errlen);
	if (r < 0) {
		rd_statefile_close(&sf);
		return r;
	}
	r = rd_statefile_lock(&sf, RD_STATEFILE_WAIT_S, err, errlen);
	if (r < 0) {
		rd_statefile_close(&sf);
		return r;
	}
	struct rd_state hist = {0};
	r = rd_statefile_read(&sf, &hist, err, errlen);
	if (r == -EPERM) { /* another user's file: refused, not replaced */
		rd_statefile_close(&sf);
		return r;
	}
	char problem[512] = "";
	if (r < 0)
		snprintf(problem, sizeof problem, "%s", err);
	else if (r == 1 && strcmp(hist.host, KEEP_HOST) != 0)
		snprintf(problem, sizeof problem, "%s/%s.link-state holds the samples of %s", dir, KEEP_HOST, hist.host);
	if (*problem)
		rd_state_free(&hist); /* not ours or not one: a new history */
	struct rd_baseline b;
	rd_state_baseline(&hist, RD_SAMPLE_COUNTERS, "", now, RD_STATE_WINDOW_DEFAULT, &b);
	if (b.why == RD_BASE_FOUND) {
		base->kind = b.s->kind;
		base->time = b.s->time;
		for (size_t i = 0; i < b.s->n; i++)
			rd_state_add(base, b.s->e[i].kind, b.s->e[i].dev, b.s->e[i].port, b.s->e[i].name, b.s->e[i].value);
		if (!base->time)
			base->time = 1; /* "a baseline" is a time, never 0 */
	}
	snprintf(hist.host, sizeof hist.host, "%s", KEEP_HOST);
	struct rd_state_sample cur;
	counters_sample(f, now, &cur);
	rd_state_record(&hist, &cur, now, RD_STATE_WINDOW_DEFAULT);
	rd_state_sample_free(&cur);
	r = rd_statefile_write(&sf, &hist, err, errlen);
	rd_state_free(&hist);
	rd_statefile_close(&sf);
	if (r < 0)
		return r;
	if (*problem) {
		snprintf(err, errlen, "%s: a new history", problem);
		return 1;
	}
	return 0;
}
