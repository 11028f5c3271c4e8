/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `fleet --history`'s scoring (fleet/history.h): repeats of a FAIL per (node, check, subject) and
 * per node, over a window of days, by a small table of rules. */
#include "fleet/history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void rd_hist_rules(unsigned repeats, struct rd_hist_rule out[RD_HIST_NRULES])
{
	/* the table: tried in this order, the first that matches names the lemon */
	static const struct rd_hist_rule table[RD_HIST_NRULES] = {
		{"2 in 5 min", 2, 5 * 60},
		{"3 in 1 h", 3, 60 * 60},
		{"N in the window", 3, 0},
	};
	for (size_t i = 0; i < RD_HIST_NRULES; i++)
		out[i] = table[i];
	out[RD_HIST_NRULES - 1].count = repeats ? repeats : 1;
}

int rd_hist_match(const struct rd_hist_rule *rules, size_t nrules, const long long *t, size_t n)
{
	for (size_t r = 0; r < nrules; r++) {
		size_t c = rules[r].count;
		if (c == 0 || n < c)
			continue;
		if (rules[r].within <= 0)
			return (int)r;
		for (size_t i = 0; i + c - 1 < n; i++)
			if (t[i + c - 1] - t[i] <= rules[r].within)
				return (int)r;
	}
	return -1;
}

void rd_hist_init(struct rd_hist *h, long long now, long long days, unsigned repeats)
{
	memset(h, 0, sizeof *h);
	h->now = now;
	h->days = days;
	h->repeats = repeats;
	rd_hist_rules(repeats, h->rules);
	snprintf(h->window_rule, sizeof h->window_rule, "%u in %lld day%s", h->rules[RD_HIST_NRULES - 1].count, days,
		 days == 1 ? "" : "s");
	h->rules[RD_HIST_NRULES - 1].name = h->window_rule;
}

static struct rd_hist_node *node_get(struct rd_hist *h, const char *name)
{
	bool isnew;
	struct rd_map_slot *s = rd_map_put(&h->nodemap, name, strlen(name), &isnew);
	if (isnew) {
		h->nodes = rd_grow(h->nodes, h->nnodes, sizeof *h->nodes);
		memset(&h->nodes[h->nnodes], 0, sizeof *h->nodes);
		h->nodes[h->nnodes].name = rd_xstrdup(name);
		h->nodes[h->nnodes].rule = -1;
		s->val.ix = h->nnodes++;
	}
	return &h->nodes[s->val.ix];
}

/* The subject's index, or -1 past RD_HIST_MAX_SUBJECTS of the node (counted in h->subjects_cut). */
static long subj_get(struct rd_hist *h, struct rd_hist_node *n, const char *check, const char *subject)
{
	char *key = rd_xasprintf("%s\t%s", check, subject);
	struct rd_map_slot *s = rd_map_get(&n->subjmap, key, strlen(key));
	if (!s && n->nsubj >= RD_HIST_MAX_SUBJECTS) {
		free(key);
		h->subjects_cut++;
		return -1;
	}
	bool isnew;
	s = rd_map_put(&n->subjmap, key, strlen(key), &isnew);
	free(key);
	if (isnew) {
		n->subj = rd_grow(n->subj, n->nsubj, sizeof *n->subj);
		memset(&n->subj[n->nsubj], 0, sizeof *n->subj);
		n->subj[n->nsubj].check = rd_xstrdup(check);
		n->subj[n->nsubj].subject = rd_xstrdup(subject);
		n->subj[n->nsubj].rule = -1;
		s->val.ix = n->nsubj++;
	}
	return (long)s->val.ix;
}

/* A finding that counts: a FAIL, or a WARN of a port down or a link flap. */
static bool is_event(const struct rd_fleet_finding *x)
{
	if (!x->check)
		return false;
	if (x->status == RD_FS_FAIL)
		return true;
	return x->status == RD_FS_WARN && (!strcmp(x->check, "ports.state") || !strcmp(x->check, "link.flaps"));
}

static int add_common(struct rd_hist *h, const char *name, long long t, const char *boot_id,
		      enum rd_fleet_status status, struct rd_hist_report **out, char *why, size_t whylen)
{
	*out = NULL;
	if (t > h->now + RD_HIST_MAX_SKEW) {
		h->future++;
		rd_set_err(why, whylen, "dated %lld s after this run's time: not counted", t - h->now);
		return -1;
	}
	if (h->nreports >= RD_HIST_MAX_REPORTS) {
		h->too_many++;
		rd_set_err(why, whylen, "more than %u reports: the rest are not counted", (unsigned)RD_HIST_MAX_REPORTS);
		return -1;
	}
	struct rd_hist_node *n = node_get(h, name);
	bool isnew;
	rd_map_put(&n->timemap, (const char *)&t, sizeof t, &isnew);
	if (!isnew) {
		h->duplicates++;
		return 0;
	}
	n->reps = rd_grow(n->reps, n->nreps, sizeof *n->reps);
	struct rd_hist_report *r = &n->reps[n->nreps++];
	memset(r, 0, sizeof *r);
	r->t = t;
	r->boot_id = boot_id && *boot_id ? rd_xstrndup(boot_id, strnlen(boot_id, 64)) : NULL;
	r->status = status;
	h->nreports++;
	*out = r;
	return 0;
}

static void rep_add_subj(struct rd_hist_report *r, uint32_t ix)
{
	for (size_t i = 0; i < r->nsubj; i++)
		if (r->subj[i] == ix)
			return;
	if (r->nsubj >= RD_HIST_MAX_EVENTS)
		return;
	r->subj = rd_grow(r->subj, r->nsubj, sizeof *r->subj);
	r->subj[r->nsubj++] = ix;
}

int rd_hist_add(struct rd_hist *h, const struct rd_fleet_report *r, char *why, size_t whylen)
{
	struct rd_hist_report *hr;
	if (add_common(h, r->host, rd_fleet_parse_time(r->time), r->boot_id, r->status, &hr, why, whylen) < 0)
		return -1;
	if (!hr)
		return 0;
	struct rd_hist_node *n = &h->nodes[rd_map_get(&h->nodemap, r->host, strlen(r->host))->val.ix];
	for (size_t i = 0; i < r->nfinds && hr->nsubj < RD_HIST_MAX_EVENTS; i++)
		if (is_event(&r->finds[i])) {
			long ix = subj_get(h, n, r->finds[i].check, r->finds[i].subject ? r->finds[i].subject : "host");
			if (ix >= 0)
				rep_add_subj(hr, (uint32_t)ix);
		}
	return 0;
}

int rd_hist_add_raw(struct rd_hist *h, const char *node, long long t, const char *boot_id,
		    enum rd_fleet_status status, const char *const *events, size_t nevents, char *why, size_t whylen)
{
	struct rd_hist_report *hr;
	if (add_common(h, node, t, boot_id, status, &hr, why, whylen) < 0)
		return -1;
	if (!hr)
		return 0;
	struct rd_hist_node *n = &h->nodes[rd_map_get(&h->nodemap, node, strlen(node))->val.ix];
	for (size_t i = 0; i < nevents && hr->nsubj < RD_HIST_MAX_EVENTS; i++) {
		const char *tab = strchr(events[i], '\t');
		char *check = tab ? rd_xstrndup(events[i], (size_t)(tab - events[i])) : rd_xstrdup(events[i]);
		long ix = subj_get(h, n, check, tab ? tab + 1 : "host");
		free(check);
		if (ix >= 0)
			rep_add_subj(hr, (uint32_t)ix);
	}
	return 0;
}

static int cmp_rep(const void *a, const void *b)
{
	const struct rd_hist_report *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

static int cmp_order(const void *a, const void *b)
{
	const struct rd_hist_node *x = *(const struct rd_hist_node *const *)a, *y = *(const struct rd_hist_node *const *)b;
	if (x->lemon != y->lemon)
		return x->lemon ? -1 : 1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return rd_natural_cmp(x->name, y->name);
}

static void score_node(struct rd_hist *h, struct rd_hist_node *n)
{
	qsort(n->reps, n->nreps, sizeof *n->reps, cmp_rep);
	const char *prev_boot = NULL;
	bool have_prev = false;
	n->last = RD_FS_NONE;
	for (size_t i = 0; i < n->nreps; i++) {
		struct rd_hist_report *r = &n->reps[i];
		r->in_window = r->t >= h->since;
		if (!r->in_window)
			continue;
		/* a reboot: the boot_id changed between two reports that both carry one */
		if (have_prev && prev_boot && r->boot_id && strcmp(prev_boot, r->boot_id) != 0) {
			n->reboots++;
			r->after_reboot = true;
		}
		if (r->boot_id)
			prev_boot = r->boot_id;
		have_prev = true;
		if (!n->nwindow++)
			n->first_t = r->t;
		n->last_t = r->t;
		n->last = r->status;
		bool counted = false;
		for (size_t k = 0; k < r->nsubj; k++) {
			struct rd_hist_subject *s = &n->subj[r->subj[k]];
			if (r->after_reboot) {
				s->transient++;
				continue;
			}
			s->times = rd_grow(s->times, s->n, sizeof *s->times);
			s->times[s->n++] = r->t;
			counted = true;
		}
		if (counted) {
			n->fail_times = rd_grow(n->fail_times, n->nfail, sizeof *n->fail_times);
			n->fail_times[n->nfail++] = r->t;
		}
	}
	unsigned long long subj_score = 0;
	for (size_t k = 0; k < n->nsubj; k++) {
		struct rd_hist_subject *s = &n->subj[k];
		if (s->n > 1)
			qsort(s->times, s->n, sizeof *s->times, cmp_ll);
		s->rule = rd_hist_match(h->rules, RD_HIST_NRULES, s->times, s->n);
		if (s->rule >= 0) {
			n->nlemon_subj++;
			subj_score += s->n;
		}
	}
	n->rule = rd_hist_match(h->rules, RD_HIST_NRULES, n->fail_times, n->nfail);
	n->lemon = n->nlemon_subj > 0 || n->rule >= 0;
	n->score = n->nlemon_subj ? subj_score : n->rule >= 0 ? n->nfail : 0;
}

void rd_hist_finish(struct rd_hist *h)
{
	if (h->finished)
		return;
	h->finished = true;
	h->newest = -1;
	for (size_t i = 0; i < h->nnodes; i++)
		for (size_t j = 0; j < h->nodes[i].nreps; j++)
			if (h->nodes[i].reps[j].t > h->newest)
				h->newest = h->nodes[i].reps[j].t;
	h->since = h->newest - h->days * 86400;
	for (size_t i = 0; i < h->nnodes; i++) {
		struct rd_hist_node *n = &h->nodes[i];
		score_node(h, n);
		for (size_t j = 0; j < n->nreps; j++)
			h->old += !n->reps[j].in_window;
		h->nlemons += n->lemon;
	}
	struct rd_hist_node **v = rd_xcalloc(h->nnodes ? h->nnodes : 1, sizeof *v);
	for (size_t i = 0; i < h->nnodes; i++)
		v[i] = &h->nodes[i];
	if (h->nnodes > 1)
		qsort(v, h->nnodes, sizeof *v, cmp_order);
	h->order = rd_xcalloc(h->nnodes ? h->nnodes : 1, sizeof *h->order);
	for (size_t i = 0; i < h->nnodes; i++)
		h->order[i] = (size_t)(v[i] - h->nodes);
	free(v);
}

int rd_hist_exit_code(const struct rd_hist *h, size_t problems)
{
	return h->nlemons ? 1 : problems || h->future || h->too_many || !h->nreports ? 3 : 0;
}

void rd_hist_free(struct rd_hist *h)
{
	for (size_t i = 0; i < h->nnodes; i++) {
		struct rd_hist_node *n = &h->nodes[i];
		for (size_t j = 0; j < n->nreps; j++) {
			free(n->reps[j].boot_id);
			free(n->reps[j].subj);
		}
		free(n->reps);
		for (size_t k = 0; k < n->nsubj; k++) {
			free(n->subj[k].check);
			free(n->subj[k].subject);
			free(n->subj[k].times);
		}
		free(n->subj);
		rd_map_free(&n->subjmap, NULL);
		rd_map_free(&n->timemap, NULL);
		free(n->fail_times);
		free(n->name);
	}
	free(h->nodes);
	rd_map_free(&h->nodemap, NULL);
	free(h->order);
	memset(h, 0, sizeof *h);
}
