/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The join of pair measurements with the fabric's routes (route.h): which cable the slow pairs
 * share and the healthy pairs avoid.
 *   fabric.route.suspect  WARN     one cable that every slow pair crosses, crossed by at most a
 *                                  quarter as many healthy pairs, fewer than any other such cable
 *                         OK       no pair is slow
 *                         UNKNOWN  slow pairs whose routes do not single out one cable: none they
 *                                  all cross, several with equally few healthy crossings, one
 *                                  slow pair only, routes that could not be had */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/route.h"
#include "pairs/pairs.h"

#define EVIDENCE_PAIRS 12 /* slow pairs named in a finding's evidence */
#define NAMED_LINKS 6     /* tied cables named in a message */

static void jpair_free(struct rd_fab_jpair *x)
{
	free(x->client);
	free(x->client_dev);
	free(x->server);
	free(x->server_dev);
	free(x->links);
	rd_fab_route_free(&x->route);
}

void rd_fab_join_free(struct rd_fab_join *j)
{
	for (size_t i = 0; i < j->n; i++)
		jpair_free(&j->v[i]);
	free(j->v);
	memset(j, 0, sizeof *j);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct key {
	size_t client, server;
	const char *cdev, *sdev;
	size_t sample;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	if (x->client != y->client)
		return x->client < y->client ? -1 : 1;
	if (x->server != y->server)
		return x->server < y->server ? -1 : 1;
	int c = strcmp(x->cdev, y->cdev);
	if (c)
		return c;
	c = strcmp(x->sdev, y->sdev);
	if (c)
		return c;
	return (x->sample > y->sample) - (x->sample < y->sample);
}

void rd_fab_join_from_pairs(struct rd_fab_join *j, const struct rd_pairs *p)
{
	memset(j, 0, sizeof *j);
	struct key *k = rd_xcalloc(p->nsamples + 1, sizeof *k);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct rd_pairs_sample *s = &p->samples[i];
		/* a = server, b = client (results_in.c); the data flows from the client */
		k[i] = (struct key){s->b, s->a, s->rail_b ? s->rail_b : "-", s->rail_a ? s->rail_a : "-", i};
	}
	if (p->nsamples > 1)
		qsort(k, p->nsamples, sizeof *k, key_cmp);
	double *g = rd_xcalloc(p->nsamples + 1, sizeof *g);
	for (size_t i = 0; i < p->nsamples;) {
		size_t e = i;
		while (e < p->nsamples && k[e].client == k[i].client && k[e].server == k[i].server &&
		       strcmp(k[e].cdev, k[i].cdev) == 0 && strcmp(k[e].sdev, k[i].sdev) == 0)
			e++;
		size_t slow = 0, fast = 0, ng = 0;
		for (size_t m = i; m < e; m++) {
			const struct rd_pairs_sample *s = &p->samples[k[m].sample];
			if (s->error || s->gbps < 0)
				continue; /* no result: says nothing of a cable's bandwidth */
			g[ng++] = s->gbps;
			if (rd_pairs_slow(p, s))
				slow++;
			else
				fast++;
		}
		if (!ng) {
			j->failed++;
		} else {
			j->v = rd_grow(j->v, j->n, sizeof *j->v);
			struct rd_fab_jpair *x = &j->v[j->n++];
			memset(x, 0, sizeof *x);
			x->client = rd_xstrdup(p->nodes.v[k[i].client]);
			x->server = rd_xstrdup(p->nodes.v[k[i].server]);
			x->client_dev = rd_xstrdup(k[i].cdev);
			x->server_dev = rd_xstrdup(k[i].sdev);
			x->slow = slow;
			x->fast = fast;
			qsort(g, ng, sizeof *g, dbl_cmp);
			x->gbps = ng % 2 ? g[ng / 2] : (g[ng / 2 - 1] + g[ng / 2]) / 2;
			x->is_slow = slow && !fast;
			x->is_fast = fast && !slow;
		}
		i = e;
	}
	free(g);
	free(k);
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

void rd_fab_join_links(struct rd_fab_join *j, const struct rd_fab_router *rt)
{
	for (size_t i = 0; i < j->n; i++) {
		struct rd_fab_jpair *x = &j->v[i];
		free(x->links);
		x->links = NULL;
		x->nlinks = 0;
		if (x->route.error || x->route.nhops < 2)
			continue;
		x->links = rd_xcalloc(x->route.nhops, sizeof *x->links);
		for (size_t h = 0; h + 1 < x->route.nhops; h++) {
			const struct rd_fab_link *l = rd_fab_router_link(rt, x->route.hops[h].guid, x->route.hops[h].out_port, NULL);
			if (l)
				x->links[x->nlinks++] = (size_t)(l - rt->f->links);
		}
		/* each cable once per route */
		qsort(x->links, x->nlinks, sizeof *x->links, size_cmp);
		size_t w = 0;
		for (size_t m = 0; m < x->nlinks; m++)
			if (!w || x->links[w - 1] != x->links[m])
				x->links[w++] = x->links[m];
		x->nlinks = w;
	}
}

void rd_fab_join_counts(const struct rd_fab_join *j, const struct rd_fabric *f, size_t **slow, size_t **healthy)
{
	*slow = rd_xcalloc(f->nlinks + 1, sizeof **slow);
	*healthy = rd_xcalloc(f->nlinks + 1, sizeof **healthy);
	for (size_t i = 0; i < j->n; i++) {
		const struct rd_fab_jpair *x = &j->v[i];
		for (size_t m = 0; m < x->nlinks; m++) {
			if (x->links[m] >= f->nlinks)
				continue;
			if (x->is_slow)
				(*slow)[x->links[m]]++;
			else if (x->is_fast)
				(*healthy)[x->links[m]]++;
		}
	}
}

static void end_text(const struct rd_fabric *f, const struct rd_fab_end *e, char *buf, size_t cap)
{
	const struct rd_fab_node *n = rd_fabric_node(f, e->guid);
	const char *d = n && n->desc && *n->desc ? n->desc : e->desc && *e->desc ? e->desc : NULL;
	if (d)
		snprintf(buf, cap, "%s[%u]", d, e->port);
	else
		snprintf(buf, cap, "0x%016llx[%u]", (unsigned long long)e->guid, e->port);
}

static void link_text(const struct rd_fabric *f, const struct rd_fab_link *l, char *buf, size_t cap)
{
	char a[160], b[160];
	end_text(f, &l->a, a, sizeof a);
	end_text(f, &l->b, b, sizeof b);
	snprintf(buf, cap, "%s - %s", a, b);
}

static void pair_evidence(struct rd_finding *fd, const struct rd_fab_jpair *x)
{
	rd_evidence_add(fd, "pairs", "%s %s -> %s %s: %g Gb/s (%zu slow, %zu fast samples)", x->client, x->client_dev,
			x->server, x->server_dev, x->gbps, x->slow, x->fast);
}

void rd_fab_join_judge(const struct rd_fab_join *j, const struct rd_fabric *f, struct rd_report *r)
{
	size_t nslow = 0, nfast = 0, routed_slow = 0, routed_fast = 0, mixed = 0;
	for (size_t i = 0; i < j->n; i++) {
		const struct rd_fab_jpair *x = &j->v[i];
		bool routed = !x->route.error && x->nlinks;
		if (x->is_slow) {
			nslow++;
			routed_slow += routed;
		} else if (x->is_fast) {
			nfast++;
			routed_fast += routed;
		} else {
			mixed++;
		}
	}
	const char *id = "fabric.route.suspect";
	struct rd_finding *fd;
	if (!nslow) {
		rd_report_add(r, id, RD_SUBJ_HOST, RD_OK, "fabric",
			      "no pair is slow (%zu healthy, %zu with slow and fast samples, %zu without a result): no cable "
			      "to suspect",
			      nfast, mixed, j->failed);
		return;
	}
	if (routed_slow < nslow) {
		fd = rd_report_add(r, id, RD_SUBJ_HOST, RD_UNKNOWN, "fabric",
				   "the route of %zu of the %zu slow pairs could not be had: the cable they share cannot be told",
				   nslow - routed_slow, nslow);
		size_t named = 0;
		for (size_t i = 0; i < j->n && named < EVIDENCE_PAIRS; i++)
			if (j->v[i].is_slow && (j->v[i].route.error || !j->v[i].nlinks)) {
				rd_evidence_add(fd, "route", "%s %s -> %s %s: %s", j->v[i].client, j->v[i].client_dev,
						j->v[i].server, j->v[i].server_dev,
						j->v[i].route.error ? j->v[i].route.error : "no cable of the fabric on it");
				named++;
			}
		return;
	}
	if (nslow == 1) {
		fd = rd_report_add(r, id, RD_SUBJ_HOST, RD_UNKNOWN, "fabric",
				   "one slow pair: a verdict does not rest on one route; measure more pairs");
		for (size_t i = 0; i < j->n; i++)
			if (j->v[i].is_slow)
				pair_evidence(fd, &j->v[i]);
		rd_fix_add(fd, "rdma-doctor pairs --results FILE --plan (the next round to measure)");
		return;
	}
	size_t *slow, *healthy;
	rd_fab_join_counts(j, f, &slow, &healthy);
	size_t best = (size_t)-1, nbest = 0, most = 0;
	for (size_t l = 0; l < f->nlinks; l++) {
		if (slow[l] > most)
			most = slow[l];
		if (slow[l] != nslow)
			continue;
		if (healthy[l] < best) {
			best = healthy[l];
			nbest = 0;
		}
		if (healthy[l] == best)
			nbest++;
	}
	char subj[400];
	if (!nbest) {
		fd = rd_report_add(r, id, RD_SUBJ_HOST, RD_UNKNOWN, "fabric",
				   "no cable is crossed by every one of the %zu slow pairs (at most %zu of them share one): more "
				   "than one cause, or a cause outside the fabric",
				   nslow, most);
	} else if (nbest > 1) {
		struct rd_buf names = {0};
		size_t named = 0;
		for (size_t l = 0; l < f->nlinks; l++)
			if (slow[l] == nslow && healthy[l] == best && named++ < NAMED_LINKS) {
				link_text(f, &f->links[l], subj, sizeof subj);
				rd_buf_printf(&names, "%s%s", named > 1 ? "; " : "", subj);
			}
		fd = rd_report_add(r, id, RD_SUBJ_HOST, RD_UNKNOWN, "fabric",
				   "every one of the %zu slow pairs crosses %zu cables, each also crossed by %zu healthy "
				   "pairs: %s%s; the pairs measured do not tell them apart",
				   nslow, nbest, best, names.data ? names.data : "", nbest > NAMED_LINKS ? " ..." : "");
		rd_buf_free(&names);
		rd_fix_add(fd, "measure pairs whose routes cross one of these cables but not the others (fabric --route A B "
			       "shows a route)");
	} else if (best * 4 > nslow) {
		size_t l = 0;
		while (!(slow[l] == nslow && healthy[l] == best))
			l++;
		link_text(f, &f->links[l], subj, sizeof subj);
		fd = rd_report_add(r, id, RD_SUBJ_HOST, RD_UNKNOWN, "fabric",
				   "every one of the %zu slow pairs crosses %s, but so do %zu healthy pairs: not one bad cable",
				   nslow, subj, best);
	} else {
		size_t l = 0;
		while (!(slow[l] == nslow && healthy[l] == best))
			l++;
		const struct rd_fab_link *k = &f->links[l];
		size_t next = (size_t)-1; /* the fewest healthy crossings of the other cables all slow pairs cross */
		for (size_t m = 0; m < f->nlinks; m++)
			if (m != l && slow[m] == nslow && healthy[m] < next)
				next = healthy[m];
		link_text(f, k, subj, sizeof subj);
		char rate[64];
		if (k->width)
			snprintf(rate, sizeof rate, "%uX %g Gbps", k->width, k->speed);
		else
			snprintf(rate, sizeof rate, "down");
		char others[120] = "";
		if (next != (size_t)-1)
			snprintf(others, sizeof others, " (each other cable they all cross: by %zu or more healthy pairs)", next);
		fd = rd_report_add(r, id, RD_SUBJ_PORT, RD_WARN, subj,
				   "every one of the %zu slow pairs crosses this cable, and %zu of the %zu healthy pairs do%s; "
				   "it runs at %s",
				   nslow, best, routed_fast, others, rate);
		const struct rd_fab_node *na = rd_fabric_node(f, k->a.guid), *nb = rd_fabric_node(f, k->b.guid);
		rd_evidence_add(fd, "cable", "%s (0x%016llx) port %u - %s (0x%016llx) port %u, %s %s",
				na && na->desc ? na->desc : "?", (unsigned long long)k->a.guid, k->a.port,
				nb && nb->desc ? nb->desc : "?", (unsigned long long)k->b.guid, k->b.port, rate, k->state);
		size_t named = 0;
		for (size_t i = 0; i < j->n && named < EVIDENCE_PAIRS; i++)
			if (j->v[i].is_slow) {
				pair_evidence(fd, &j->v[i]);
				named++;
			}
		if (nslow > named)
			rd_evidence_add(fd, "pairs", "... and %zu more slow pairs", nslow - named);
		rd_fix_add(fd, "reseat the cable between %s port %u and %s port %u, then replace it if it trains or measures "
			       "the same",
			   na && na->desc ? na->desc : "?", k->a.port, nb && nb->desc ? nb->desc : "?", k->b.port);
		rd_fix_add(fd, "ibportstate -G 0x%016llx %u query; perfquery -G 0x%016llx %u (the port's state and error "
			       "counters)",
			   (unsigned long long)k->a.guid, k->a.port, (unsigned long long)k->a.guid, k->a.port);
	}
	free(slow);
	free(healthy);
}
