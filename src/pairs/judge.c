/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The samples, the judgement and the rounds it asks for (see pairs.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairs/pairs.h"

void rd_pairs_add(struct rd_pairs *p, const struct rd_pairs_sample *s)
{
	if (p->nsamples == p->samples_cap) {
		p->samples_cap = p->samples_cap ? p->samples_cap * 2 : 256;
		p->samples = rd_xrealloc(p->samples, p->samples_cap * sizeof *p->samples);
	}
	struct rd_pairs_sample *d = &p->samples[p->nsamples++];
	*d = *s;
	d->rail_a = rd_xstrdup(s->rail_a ? s->rail_a : "");
	d->rail_b = rd_xstrdup(s->rail_b ? s->rail_b : "");
	d->error = s->error ? rd_xstrdup(s->error) : NULL;
	if (s->round > p->rounds)
		p->rounds = s->round;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The samples of one line rate are judged together: a 200 Gb/s rail is not slow beside 400 Gb/s ones. */
struct group {
	double line, median, mad, threshold;
	size_t n;
};

static size_t group_of(struct group *g, size_t *ng, double line)
{
	for (size_t i = 0; i < *ng; i++)
		if (fabs(g[i].line - line) < 0.5)
			return i;
	g[*ng] = (struct group){.line = line};
	return (*ng)++;
}

/* per node and rail: the distinct partners it was slow and fast against */
struct side {
	size_t node;
	const char *rail;
	size_t *slow, nslow, *fast, nfast, cap_slow, cap_fast;
	double *slow_gbps;
	size_t nslow_gbps;
	const char *error;
	double line;
	enum rd_pairs_state state;
	struct side *next; /* the node's next rail */
};

static void push_partner(size_t **v, size_t *n, size_t *cap, size_t x)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == x)
			return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		*v = rd_xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = x;
}

/* per pair and rails: how often slow, how often fast */
struct link {
	size_t a, b; /* a < b */
	const char *rail_a, *rail_b;
	size_t slow, fast;
	double *gbps;
	size_t ngbps, cap;
	double line;
	const char *error;
	struct side *sa, *sb;
};

struct rd_pairs_judgement {
	struct group groups[16];
	size_t ngroups;
	size_t *group;  /* per sample */
	bool *slow;     /* per sample */
	struct rd_map sides, links;
	struct side **sidev;
	size_t nsides, cap_sides;
	struct link **linkv;
	size_t nlinks, cap_links;
	struct side **of_node; /* per node: its rails, a list through side.next */
	bool *node_bad;
};

static char *key2(size_t x, const char *rail, size_t *len)
{
	char *k = rd_xasprintf("%zu %s", x, rail);
	*len = strlen(k);
	return k;
}

static struct side *side_get(struct rd_pairs_judgement *j, size_t node, const char *rail)
{
	size_t len;
	char *k = key2(node, rail, &len);
	bool isnew = false;
	struct rd_map_slot *s = rd_map_put(&j->sides, k, len, &isnew);
	free(k);
	if (isnew) {
		struct side *d = rd_xcalloc(1, sizeof *d);
		d->node = node;
		d->rail = rail;
		s->val.p = d;
		if (j->nsides == j->cap_sides) {
			j->cap_sides = j->cap_sides ? j->cap_sides * 2 : 64;
			j->sidev = rd_xrealloc(j->sidev, j->cap_sides * sizeof *j->sidev);
		}
		j->sidev[j->nsides++] = d;
	}
	return s->val.p;
}

static struct link *link_get(struct rd_pairs_judgement *j, const struct rd_pairs_sample *s)
{
	bool swap = s->a > s->b;
	size_t a = swap ? s->b : s->a, b = swap ? s->a : s->b;
	const char *ra = swap ? s->rail_b : s->rail_a, *rb = swap ? s->rail_a : s->rail_b;
	char *k = rd_xasprintf("%zu %zu %s %s", a, b, ra, rb);
	bool isnew = false;
	struct rd_map_slot *slot = rd_map_put(&j->links, k, strlen(k), &isnew);
	free(k);
	if (isnew) {
		struct link *l = rd_xcalloc(1, sizeof *l);
		*l = (struct link){.a = a, .b = b, .rail_a = ra, .rail_b = rb};
		slot->val.p = l;
		if (j->nlinks == j->cap_links) {
			j->cap_links = j->cap_links ? j->cap_links * 2 : 64;
			j->linkv = rd_xrealloc(j->linkv, j->cap_links * sizeof *j->linkv);
		}
		j->linkv[j->nlinks++] = l;
	}
	return slot->val.p;
}

static void judgement_free(struct rd_pairs_judgement *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nsides; i++) {
		free(j->sidev[i]->slow);
		free(j->sidev[i]->fast);
		free(j->sidev[i]->slow_gbps);
		free(j->sidev[i]);
	}
	for (size_t i = 0; i < j->nlinks; i++) {
		free(j->linkv[i]->gbps);
		free(j->linkv[i]);
	}
	free(j->sidev);
	free(j->linkv);
	rd_map_free(&j->sides, NULL);
	rd_map_free(&j->links, NULL);
	free(j->group);
	free(j->slow);
	free(j->of_node);
	free(j->node_bad);
	free(j);
}

static struct rd_pairs_judgement *J(const struct rd_pairs *p)
{
	return p->judgement;
}

bool rd_pairs_slow(const struct rd_pairs *p, const struct rd_pairs_sample *s)
{
	struct rd_pairs_judgement *j = J(p);
	if (!j || s < p->samples || s >= p->samples + p->nsamples)
		return false;
	return j->slow[s - p->samples];
}

static void findings_free(struct rd_pairs *p)
{
	for (size_t i = 0; i < p->nfindings; i++) {
		free(p->findings[i].rail);
		free(p->findings[i].error);
		rd_strv_free(&p->findings[i].partners);
	}
	free(p->findings);
	p->findings = NULL;
	p->nfindings = 0;
}

static struct rd_pairs_finding *finding_new(struct rd_pairs *p, size_t *cap)
{
	if (p->nfindings == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		p->findings = rd_xrealloc(p->findings, *cap * sizeof *p->findings);
	}
	struct rd_pairs_finding *f = &p->findings[p->nfindings++];
	memset(f, 0, sizeof *f);
	return f;
}

/* What its peers get: the median of the measured samples of the group that line rate falls in,
 * leaving out every sample of node x (a node) or of the pair x-y (a link, y != x).  The run's
 * median when no other sample is left. */
static double peers_median(const struct rd_pairs *p, const struct rd_pairs_judgement *j, double line,
			   size_t x, size_t y)
{
	size_t g = j->ngroups;
	for (size_t i = 0; i < j->ngroups && g == j->ngroups; i++)
		if (fabs(j->groups[i].line - line) < 0.5)
			g = i;
	double *v = rd_xcalloc(p->nsamples ? p->nsamples : 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct rd_pairs_sample *s = &p->samples[i];
		if ((g < j->ngroups && j->group[i] != g) || s->error || s->gbps < 0)
			continue;
		if (x == y ? s->a == x || s->b == x : (s->a == x && s->b == y) || (s->a == y && s->b == x))
			continue;
		v[n++] = s->gbps;
	}
	double m = n ? median_of(v, n) : p->median;
	free(v);
	return m;
}

static void distribution(struct rd_pairs *p, struct rd_pairs_judgement *j)
{
	j->group = rd_xcalloc(p->nsamples ? p->nsamples : 1, sizeof *j->group);
	double *v = rd_xcalloc(p->nsamples ? p->nsamples : 1, sizeof *v);
	for (size_t i = 0; i < p->nsamples; i++) {
		size_t g = group_of(j->groups, &j->ngroups, p->samples[i].line_gbps);
		if (j->ngroups == sizeof j->groups / sizeof j->groups[0]) /* the rest share the last group */
			j->ngroups--;
		j->group[i] = g;
	}
	for (size_t g = 0; g < j->ngroups; g++) {
		size_t n = 0;
		double top = 0;
		for (size_t i = 0; i < p->nsamples; i++)
			if (j->group[i] == g && !p->samples[i].error && p->samples[i].gbps >= 0) {
				v[n++] = p->samples[i].gbps;
				if (p->samples[i].gbps > top)
					top = p->samples[i].gbps;
			}
		struct group *G = &j->groups[g];
		G->n = n;
		if (!n)
			continue;
		G->median = median_of(v, n);
		for (size_t i = 0; i < n; i++)
			v[i] = fabs(v[i] - G->median);
		G->mad = median_of(v, n);
		/* With few samples a median says little: the fastest pair shows what the path can do. */
		if (n < 8)
			G->threshold = RD_PAIRS_MEDIAN_FRAC * top;
		else {
			double stat = G->median - RD_PAIRS_MAD_K * 1.4826 * G->mad, frac = RD_PAIRS_MEDIAN_FRAC * G->median;
			G->threshold = stat < frac ? stat : frac;
		}
	}
	free(v);
	/* the largest group is the run's */
	size_t big = 0;
	for (size_t g = 1; g < j->ngroups; g++)
		if (j->groups[g].n > j->groups[big].n)
			big = g;
	if (j->ngroups) {
		p->median = j->groups[big].median;
		p->mad = j->groups[big].mad;
		p->threshold = j->groups[big].threshold;
		p->line_gbps = j->groups[big].line;
	}
}

static double median_copy(const double *v, size_t n)
{
	if (!n)
		return 0;
	double *c = rd_xmalloc(n * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	double m = median_of(c, n);
	free(c);
	return m;
}

/* a rail that, apart from its samples with partner, was fast at least as often as slow (a bad
 * partner's samples aside) */
static bool side_ok_except(const struct rd_pairs_judgement *j, const struct side *x, size_t partner)
{
	size_t slow = 0;
	for (size_t k = 0; k < x->nslow; k++)
		slow += x->slow[k] != partner && !j->node_bad[x->slow[k]];
	return x->nfast && slow <= x->nfast;
}

/* every rail of node so */
static bool node_ok_except(const struct rd_pairs_judgement *j, size_t node, size_t partner)
{
	for (const struct side *x = j->of_node[node]; x; x = x->next)
		if (x->state == RD_PAIRS_BAD || !side_ok_except(j, x, partner))
			return false;
	return true;
}

void rd_pairs_judge(struct rd_pairs *p)
{
	judgement_free(p->judgement);
	findings_free(p);
	struct rd_pairs_judgement *j = rd_xcalloc(1, sizeof *j);
	p->judgement = j;
	distribution(p, j);
	j->slow = rd_xcalloc(p->nsamples ? p->nsamples : 1, sizeof *j->slow);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct rd_pairs_sample *s = &p->samples[i];
		bool slow = s->error || s->gbps < 0 || s->gbps < j->groups[j->group[i]].threshold;
		j->slow[i] = slow;
		struct side *sa = side_get(j, s->a, s->rail_a), *sb = side_get(j, s->b, s->rail_b);
		struct link *l = link_get(j, s);
		l->sa = s->a < s->b ? sa : sb;
		l->sb = s->a < s->b ? sb : sa;
		l->line = s->line_gbps;
		sa->line = sb->line = s->line_gbps;
		if (slow) {
			push_partner(&sa->slow, &sa->nslow, &sa->cap_slow, s->b);
			push_partner(&sb->slow, &sb->nslow, &sb->cap_slow, s->a);
			double g = s->error || s->gbps < 0 ? 0 : s->gbps;
			for (struct side *x = sa;; x = sb) {
				x->slow_gbps = rd_xrealloc(x->slow_gbps, (x->nslow_gbps + 1) * sizeof *x->slow_gbps);
				x->slow_gbps[x->nslow_gbps++] = g;
				if (s->error)
					x->error = s->error;
				if (x == sb)
					break;
			}
			l->slow++;
			if (s->error)
				l->error = s->error;
		} else {
			push_partner(&sa->fast, &sa->nfast, &sa->cap_fast, s->b);
			push_partner(&sb->fast, &sb->nfast, &sb->cap_fast, s->a);
			l->fast++;
		}
		if (l->ngbps == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 4;
			l->gbps = rd_xrealloc(l->gbps, l->cap * sizeof *l->gbps);
		}
		l->gbps[l->ngbps++] = s->error || s->gbps < 0 ? 0 : s->gbps;
	}
	/* bad rails first: slow against enough distinct partners and fast against none */
	for (size_t i = 0; i < j->nsides; i++) {
		struct side *x = j->sidev[i];
		x->state = x->nslow >= RD_PAIRS_NODE_SLOW && x->nfast == 0 ? RD_PAIRS_BAD : RD_PAIRS_UNTESTED;
	}
	bool *node_bad = j->node_bad = rd_xcalloc(p->nodes.n, sizeof *node_bad);
	j->of_node = rd_xcalloc(p->nodes.n, sizeof *j->of_node);
	for (size_t i = j->nsides; i-- > 0;) {
		struct side *x = j->sidev[i];
		x->next = j->of_node[x->node];
		j->of_node[x->node] = x;
		if (x->state == RD_PAIRS_BAD)
			node_bad[x->node] = true;
	}
	/* a node that was slow only with one partner, or with bad ones, and fast with others is cleared */
	for (size_t i = 0; i < j->nsides; i++) {
		struct side *x = j->sidev[i];
		if (x->state == RD_PAIRS_BAD)
			continue;
		size_t slow = 0;
		for (size_t k = 0; k < x->nslow; k++)
			slow += !node_bad[x->slow[k]];
		if (x->nfast && slow <= x->nfast)
			x->state = RD_PAIRS_CLEARED;
		else
			x->state = RD_PAIRS_SUSPECT;
	}
	/* a node is the worst of its rails (BAD > SUSPECT > CLEARED); one that no sample reached is untested */
	free(p->state);
	p->state = rd_xcalloc(p->nodes.n, sizeof *p->state);
	for (size_t n = 0; n < p->nodes.n; n++)
		p->state[n] = RD_PAIRS_UNTESTED;
	static const int rank[] = {[RD_PAIRS_UNTESTED] = 0, [RD_PAIRS_CLEARED] = 1, [RD_PAIRS_SUSPECT] = 2,
				   [RD_PAIRS_BAD] = 3};
	for (size_t i = 0; i < j->nsides; i++) {
		struct side *x = j->sidev[i];
		if (rank[x->state] > rank[p->state[x->node]])
			p->state[x->node] = x->state;
	}
	size_t cap = 0;
	for (size_t i = 0; i < j->nsides; i++) {
		struct side *x = j->sidev[i];
		if (x->state != RD_PAIRS_BAD)
			continue;
		struct rd_pairs_finding *f = finding_new(p, &cap);
		f->kind = RD_PAIRS_NODE;
		f->node = x->node;
		f->rail = rd_xstrdup(x->rail);
		f->gbps = median_copy(x->slow_gbps, x->nslow_gbps);
		f->line_gbps = x->line;
		f->peers_gbps = peers_median(p, j, x->line, x->node, x->node);
		f->slow = x->nslow;
		f->fast = x->nfast;
		for (size_t k = 0; k < x->nslow; k++)
			rd_strv_push(&f->partners, p->nodes.v[x->slow[k]]);
		f->error = x->error ? rd_xstrdup(x->error) : NULL;
	}
	for (size_t i = 0; i < j->nlinks; i++) {
		struct link *l = j->linkv[i];
		if (l->slow >= RD_PAIRS_LINK_SLOW && !l->fast && l->sa->state != RD_PAIRS_BAD &&
		    l->sb->state != RD_PAIRS_BAD && side_ok_except(j, l->sa, l->b) && side_ok_except(j, l->sb, l->a)) {
			struct rd_pairs_finding *f = finding_new(p, &cap);
			f->kind = RD_PAIRS_LINK;
			f->node = l->a;
			f->peer = l->b;
			f->rail = rd_xstrdup(l->rail_a);
			f->gbps = median_copy(l->gbps, l->ngbps);
			f->line_gbps = l->line;
			f->peers_gbps = peers_median(p, j, l->line, l->a, l->b);
			f->slow = l->slow;
			f->fast = l->fast;
			f->error = l->error ? rd_xstrdup(l->error) : NULL;
		}
	}
	if (p->line_gbps > 0 && p->median > 0 && p->median < RD_PAIRS_LINE_FRAC * p->line_gbps) {
		struct rd_pairs_finding *f = finding_new(p, &cap);
		f->kind = RD_PAIRS_FLEET;
		f->gbps = p->median;
		f->line_gbps = p->line_gbps;
		f->peers_gbps = p->median;
	}
	p->suspects = 0;
	for (size_t n = 0; n < p->nodes.n; n++)
		p->suspects += p->state[n] == RD_PAIRS_SUSPECT;
}

/* the link of a pair that asks to be measured again: slow, never fast, fewer than
 * RD_PAIRS_LINK_SLOW times, while every rail of both ends was fast elsewhere (a node still
 * suspect apart from this pair meets new partners first) */
static bool link_pending(const struct rd_pairs_judgement *j, const struct link *l)
{
	return l->slow && !l->fast && l->slow < RD_PAIRS_LINK_SLOW && node_ok_except(j, l->a, l->b) &&
	       node_ok_except(j, l->b, l->a);
}

void rd_pairs_plan_next(const struct rd_pairs *p, struct rd_pairs_round *out)
{
	size_t n = p->nodes.n;
	out->v = rd_xcalloc(n / 2 + 1, sizeof *out->v);
	out->n = 0;
	struct rd_pairs_judgement *j = J(p);
	if (!j || !p->state)
		return;
	bool *busy = rd_xcalloc(n, sizeof *busy);
	/* who has met whom */
	struct rd_map met = {0};
	for (size_t i = 0; i < p->nsamples; i++) {
		size_t a = p->samples[i].a, b = p->samples[i].b;
		char *k = rd_xasprintf("%zu %zu", a < b ? a : b, a < b ? b : a);
		rd_map_put(&met, k, strlen(k), NULL);
		free(k);
	}
	for (size_t i = 0; i < j->nlinks; i++) {
		struct link *l = j->linkv[i];
		if (link_pending(j, l) && !busy[l->a] && !busy[l->b]) {
			busy[l->a] = busy[l->b] = true;
			out->v[out->n++] = (struct rd_pairs_pair){l->a, l->b};
		}
	}
	/* a node that needs a partner: suspect, or not yet judged (idle, or only met bad nodes) */
	size_t *cleared = rd_xcalloc(n, sizeof *cleared), ncleared = 0, turn = 0;
	for (size_t x = 0; x < n; x++)
		if (p->state[x] == RD_PAIRS_CLEARED)
			cleared[ncleared++] = x;
	for (size_t x = 0; x < n; x++) {
		if (busy[x] || (p->state[x] != RD_PAIRS_SUSPECT && p->state[x] != RD_PAIRS_UNTESTED))
			continue;
		size_t pick = n;
		for (int pass = 0; pass < 2 && pick == n; pass++) {
			/* pass 0: a cleared node it has not met, taken in turn so that the load spreads;
			 * pass 1: any node that is not bad */
			size_t count = pass ? n : ncleared;
			for (size_t k = 0; k < count && pick == n; k++) {
				size_t y = pass ? k : cleared[(turn + k) % ncleared];
				if (y == x || busy[y] || p->state[y] == RD_PAIRS_BAD || (pass && p->state[y] == RD_PAIRS_CLEARED))
					continue;
				char *key = rd_xasprintf("%zu %zu", x < y ? x : y, x < y ? y : x);
				bool seen = rd_map_get(&met, key, strlen(key)) != NULL;
				free(key);
				if (!seen) {
					pick = y;
					if (!pass)
						turn = (turn + k + 1) % ncleared;
				}
			}
		}
		if (pick == n)
			continue;
		busy[x] = busy[pick] = true;
		out->v[out->n++] = (struct rd_pairs_pair){x, pick};
	}
	free(cleared);
	free(busy);
	rd_map_free(&met, NULL);
}

void rd_pairs_free(struct rd_pairs *p)
{
	judgement_free(p->judgement);
	findings_free(p);
	for (size_t i = 0; i < p->nsamples; i++) {
		free(p->samples[i].rail_a);
		free(p->samples[i].rail_b);
		free(p->samples[i].error);
	}
	free(p->samples);
	free(p->state);
	rd_strv_free(&p->nodes);
	rd_strv_free(&p->racks);
	rd_map_free(&p->index, NULL);
	memset(p, 0, sizeof *p);
}
