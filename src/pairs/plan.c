/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The nodes, their racks, and the rounds of pairs (see pairs.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/hostlist.h"
#include "pairs/pairs.h"

long rd_pairs_node(const struct rd_pairs *p, const char *name)
{
	struct rd_map_slot *s = rd_map_get(&p->index, name, strlen(name));
	return s ? (long)s->val.ix - 1 : -1;
}

size_t rd_pairs_add_node(struct rd_pairs *p, const char *name)
{
	bool isnew = false;
	struct rd_map_slot *s = rd_map_put(&p->index, name, strlen(name), &isnew);
	if (isnew) {
		s->val.ix = p->nodes.n + 1;
		rd_strv_push(&p->nodes, name);
		rd_strv_push(&p->racks, "");
	}
	return s->val.ix - 1;
}

int rd_pairs_set_nodes(struct rd_pairs *p, const char *hostlist, char *err, size_t errlen)
{
	unsigned long long count = 0;
	if (rd_hostlist_count(hostlist, &count, err, errlen) < 0)
		return -EINVAL;
	if (count > RD_PAIRS_MAX_NODES) {
		rd_set_err(err, errlen, "%llu nodes: at most %d", count, RD_PAIRS_MAX_NODES);
		return -EINVAL;
	}
	struct rd_strv names = {0};
	if (rd_hostlist_expand(hostlist, &names, err, errlen) < 0) {
		rd_strv_free(&names);
		return -EINVAL;
	}
	for (size_t i = 0; i < names.n; i++)
		rd_pairs_add_node(p, names.v[i]);
	rd_strv_free(&names);
	if (p->nodes.n < 2) {
		rd_set_err(err, errlen, "%zu node%s: a pair needs two", p->nodes.n, p->nodes.n == 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
}

/* the value of KEY=VALUE among a line's words (case-insensitive keys, as Slurm reads them), or NULL */
static char *word_value(char *const *w, size_t n, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i < n; i++)
		if (strncasecmp(w[i], key, kl) == 0 && w[i][kl] == '=')
			return w[i] + kl + 1;
	return NULL;
}

int rd_pairs_set_topology(struct rd_pairs *p, const char *text, char *err, size_t errlen)
{
	int line = 0;
	for (const char *at = text; *at;) {
		size_t len = strcspn(at, "\n");
		char *l = rd_xstrndup(at, len);
		at += len + (at[len] == '\n');
		line++;
		char *hash = strchr(l, '#');
		if (hash)
			*hash = '\0';
		char *w[64];
		size_t n = 0;
		for (char *save = NULL, *t = strtok_r(l, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
			if (n == sizeof w / sizeof w[0]) {
				rd_set_err(err, errlen, "line %d: more than %zu words", line, sizeof w / sizeof w[0]);
				free(l);
				return -EINVAL;
			}
			w[n++] = t;
		}
		const char *sw = word_value(w, n, "SwitchName"), *nodes = word_value(w, n, "Nodes");
		if (n && !sw) {
			rd_set_err(err, errlen, "line %d: not a SwitchName= line", line);
			free(l);
			return -EINVAL;
		}
		if (sw && nodes) {
			struct rd_strv names = {0};
			char why[200];
			if (rd_hostlist_expand(nodes, &names, why, sizeof why) < 0) {
				rd_set_err(err, errlen, "line %d: Nodes=%s: %s", line, nodes, why);
				rd_strv_free(&names);
				free(l);
				return -EINVAL;
			}
			for (size_t i = 0; i < names.n; i++) {
				long ix = rd_pairs_node(p, names.v[i]);
				if (ix >= 0) {
					free(p->racks.v[ix]);
					p->racks.v[ix] = rd_xstrdup(sw);
				}
			}
			rd_strv_free(&names);
		}
		free(l);
	}
	return 0;
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* the order whose neighbours (0,1), (2,3), ... are round 1's pairs */
static void order_nodes(const struct rd_pairs *p, enum rd_pairs_order order, uint64_t seed, size_t *P)
{
	size_t n = p->nodes.n;
	for (size_t i = 0; i < n; i++)
		P[i] = i;
	if (order == RD_PAIRS_RANDOM) {
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = (size_t)(splitmix64(&seed) % (i + 1));
			size_t t = P[i];
			P[i] = P[j];
			P[j] = t;
		}
	} else if (order == RD_PAIRS_RACK) {
		/* the racks in order of first appearance, each a queue of its nodes in the given order */
		struct rd_map racks = {0};
		size_t *rack_of = rd_xcalloc(n, sizeof *rack_of), nr = 0;
		for (size_t i = 0; i < n; i++) {
			bool isnew = false;
			struct rd_map_slot *s = rd_map_put(&racks, p->racks.v[i], strlen(p->racks.v[i]), &isnew);
			if (isnew)
				s->val.ix = nr++;
			rack_of[i] = s->val.ix;
		}
		size_t *left = rd_xcalloc(nr, sizeof *left), *next = rd_xcalloc(nr, sizeof *next);
		for (size_t i = 0; i < n; i++)
			left[rack_of[i]]++;
		/* each pair: the rack with the most nodes left, then the fullest other one */
		for (size_t k = 0; k < n; k++) {
			size_t avoid = k % 2 ? rack_of[P[k - 1]] : nr, best = nr;
			for (size_t r = 0; r < nr; r++)
				if (left[r] && r != avoid && (best == nr || left[r] > left[best]))
					best = r;
			if (best == nr) /* only the pair's first node's rack has nodes left */
				best = avoid;
			while (rack_of[next[best]] != best)
				next[best]++;
			P[k] = next[best]++;
			left[best]--;
		}
		free(left);
		free(next);
		free(rack_of);
		rd_map_free(&racks, NULL);
	}
}

size_t rd_pairs_plan(const struct rd_pairs *p, enum rd_pairs_order order, uint64_t seed, size_t rounds,
		     struct rd_pairs_round *out)
{
	size_t n = p->nodes.n, even = n + (n & 1), m = even - 1, bye = n;
	if (rounds > m)
		rounds = m;
	size_t *P = rd_xcalloc(even, sizeof *P);
	order_nodes(p, order, seed, P);
	if (n & 1)
		P[n] = bye;
	/* the circle method: P[0] stays, the others turn; slot s holds P[2s] or P[2s+1] so that
	 * round 0 pairs neighbours */
	size_t *slot = rd_xcalloc(m, sizeof *slot);
	slot[0] = P[1];
	for (size_t i = 1; i < even / 2; i++) {
		slot[i] = P[2 * i];
		slot[m - i] = P[2 * i + 1];
	}
	for (size_t r = 0; r < rounds; r++) {
		struct rd_pairs_round *R = &out[r];
		R->v = rd_xcalloc(even / 2, sizeof *R->v);
		R->n = 0;
		for (size_t i = 0; i < even / 2; i++) {
			size_t a = i == 0 ? P[0] : slot[(r + i) % m], b = i == 0 ? slot[r % m] : slot[(r + m - i) % m];
			if (a == bye || b == bye)
				continue;
			R->v[R->n++] = (struct rd_pairs_pair){a, b};
		}
	}
	free(slot);
	free(P);
	return rounds;
}

void rd_pairs_round_free(struct rd_pairs_round *r)
{
	free(r->v);
	r->v = NULL;
	r->n = 0;
}
