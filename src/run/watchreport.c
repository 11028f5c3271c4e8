/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `watch`'s report over time (watchreport.h). */
#include "run/watchreport.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* The position of check id in the catalogue (after the last for one not in it). */
static size_t catalogue_pos(const char *id)
{
	size_t i = 0;
	for (; rd_checks[i].id; i++)
		if (strcmp(rd_checks[i].id, id) == 0)
			return i;
	return i;
}

static void push(struct rd_report *r, const struct rd_finding *f)
{
	r->findings = rd_grow(r->findings, r->n, sizeof *r->findings);
	r->findings[r->n++] = *f;
}

void rd_watch_replace(struct rd_report *cur, const char *ran, struct rd_report *next)
{
	struct rd_report out = {0}, trash = {0};
	size_t ncat = catalogue_pos("");
	/* catalogue order; a finding of a check outside the catalogue keeps its place at the end */
	for (size_t c = 0; c <= ncat; c++) {
		bool rerun = c < ncat ? !ran || rd_check_selected(rd_checks[c].id, ran) : false;
		for (size_t i = 0; i < cur->n; i++)
			if (catalogue_pos(cur->findings[i].check) == c)
				push(rerun ? &trash : &out, &cur->findings[i]);
		for (size_t i = 0; i < next->n; i++)
			if (catalogue_pos(next->findings[i].check) == c)
				push(rerun ? &out : &trash, &next->findings[i]);
	}
	free(cur->findings);
	free(next->findings);
	memset(next, 0, sizeof *next);
	*cur = out;
	rd_report_free(&trash);
}

size_t rd_watch_merge(struct rd_report *cur, const char *check, struct rd_report *next)
{
	struct rd_report trash = {0}, add = {0};
	size_t taken = 0;
	for (size_t i = 0; i < next->n; i++) {
		struct rd_finding *f = &next->findings[i];
		if (strcmp(f->check, check) != 0 || (f->status != RD_WARN && f->status != RD_FAIL)) {
			push(&trash, f);
			continue;
		}
		taken++;
		bool placed = false;
		for (size_t j = 0; j < cur->n && !placed; j++) {
			struct rd_finding *g = &cur->findings[j];
			if (strcmp(g->check, check) == 0 && strcmp(g->subject, f->subject) == 0) {
				push(&trash, g);
				*g = *f;
				placed = true;
			}
		}
		if (!placed)
			push(&add, f);
	}
	free(next->findings);
	memset(next, 0, sizeof *next);
	if (taken) {
		/* cur without the check's OK findings, with the new ones after the check's last */
		struct rd_report out = {0};
		size_t pos = catalogue_pos(check), at = cur->n;
		for (size_t j = 0; j < cur->n && at == cur->n; j++)
			if (catalogue_pos(cur->findings[j].check) > pos)
				at = j;
		for (size_t j = 0; j <= cur->n; j++) {
			if (j == at)
				for (size_t k = 0; k < add.n; k++)
					push(&out, &add.findings[k]);
			if (j == cur->n)
				break;
			struct rd_finding *g = &cur->findings[j];
			push(strcmp(g->check, check) == 0 && g->status == RD_OK ? &trash : &out, g);
		}
		free(cur->findings);
		free(add.findings);
		*cur = out;
	}
	rd_report_free(&trash);
	return taken;
}

void rd_watch_keys_take(struct rd_watch_keys *k, const struct rd_report *r)
{
	memset(k, 0, sizeof *k);
	k->v = rd_xcalloc(r->n ? r->n : 1, sizeof *k->v);
	for (size_t i = 0; i < r->n; i++) {
		const struct rd_finding *f = &r->findings[i];
		struct rd_watch_key *hit = NULL;
		for (size_t j = 0; j < k->n && !hit; j++)
			if (strcmp(k->v[j].check, f->check) == 0 && strcmp(k->v[j].subject, f->subject) == 0)
				hit = &k->v[j];
		if (hit) {
			if (rd_status_worse(f->status, (enum rd_status)hit->status))
				hit->status = (int)f->status;
			continue;
		}
		k->v[k->n++] = (struct rd_watch_key){f->check, rd_xstrdup(f->subject), (int)f->status};
	}
}

void rd_watch_keys_free(struct rd_watch_keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].subject);
	free(k->v);
	memset(k, 0, sizeof *k);
}

static int status_of(const struct rd_watch_keys *k, const struct rd_watch_key *key)
{
	for (size_t i = 0; i < k->n; i++)
		if (strcmp(k->v[i].check, key->check) == 0 && strcmp(k->v[i].subject, key->subject) == 0)
			return k->v[i].status;
	return RD_WATCH_NONE;
}

size_t rd_watch_diff(const struct rd_watch_keys *old, const struct rd_watch_keys *cur, rd_watch_change_fn *fn,
		     void *arg)
{
	size_t n = 0;
	for (size_t i = 0; i < cur->n; i++) {
		int was = status_of(old, &cur->v[i]);
		if (was != cur->v[i].status) {
			fn(cur->v[i].check, cur->v[i].subject, was, cur->v[i].status, arg);
			n++;
		}
	}
	for (size_t i = 0; i < old->n; i++)
		if (status_of(cur, &old->v[i]) == RD_WATCH_NONE) {
			fn(old->v[i].check, old->v[i].subject, old->v[i].status, RD_WATCH_NONE, arg);
			n++;
		}
	return n;
}
