/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A stand-in for a cluster's network (no hosts here to measure): a measured-matrix model that
 * gives each pair's bandwidth per rail from each node's rail capacity and each path's factor,
 * with jitter and rare transient dips, so that the planner and the judgement of pairs/ can be run
 * round after round at scale.  Used by tests/unit/test_pairs.c and bench/pairs.c.
 *
 * Ownership: a model owns its arrays; pairs_model_free frees them. */
#ifndef RD_PAIRS_MODEL_H
#define RD_PAIRS_MODEL_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pairs/pairs.h"

struct pairs_model {
	size_t nodes, rails;
	double line;       /* Gb/s */
	double *cap;       /* nodes x rails: 1.0, or lower for a bad rail */
	size_t bad_a, bad_b; /* the bad link (nodes), all rails; bad_a == bad_b: none */
	double link_factor;
	double jitter;     /* relative standard deviation */
	double dip;        /* probability of a transient dip to 50-75 % */
	uint64_t rng;
};

static inline double pairs_model_u(struct pairs_model *m)
{
	uint64_t z = (m->rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static inline void pairs_model_init(struct pairs_model *m, size_t nodes, size_t rails, uint64_t seed)
{
	*m = (struct pairs_model){.nodes = nodes, .rails = rails, .line = 400, .link_factor = 1, .jitter = 0.02,
				  .dip = 0.01, .rng = seed};
	m->cap = calloc(nodes * rails, sizeof *m->cap);
	for (size_t i = 0; i < nodes * rails; i++)
		m->cap[i] = 1;
}

static inline void pairs_model_free(struct pairs_model *m)
{
	free(m->cap);
}

/* one measurement of pair (a, b), every rail, added to p with its round */
static inline void pairs_model_measure(struct pairs_model *m, struct rd_pairs *p, size_t a, size_t b, int round)
{
	for (size_t r = 0; r < m->rails; r++) {
		double f = m->cap[a * m->rails + r] < m->cap[b * m->rails + r] ? m->cap[a * m->rails + r]
									      : m->cap[b * m->rails + r];
		if ((a == m->bad_a && b == m->bad_b) || (a == m->bad_b && b == m->bad_a))
			f = f < m->link_factor ? f : m->link_factor;
		double u1 = pairs_model_u(m), u2 = pairs_model_u(m);
		double gauss = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
		double g = m->line * 0.94 * f * (1 + m->jitter * gauss);
		if (pairs_model_u(m) < m->dip)
			g *= 0.5 + 0.25 * pairs_model_u(m);
		char rail[32];
		snprintf(rail, sizeof rail, "mlx5_%zu", r);
		struct rd_pairs_sample s = {.a = a, .b = b, .rail_a = rail, .rail_b = rail, .gbps = g,
					    .line_gbps = m->line, .lat_us = 2.5, .round = round};
		rd_pairs_add(p, &s);
	}
}

/* Runs round 1 (the plan) and the rounds the judgement asks for, up to max_rounds; returns the
 * number of rounds run.  p has its nodes set. */
static inline int pairs_model_run(struct pairs_model *m, struct rd_pairs *p, enum rd_pairs_order order,
				  uint64_t seed, int max_rounds)
{
	struct rd_pairs_round r;
	rd_pairs_plan(p, order, seed, 1, &r);
	int round = 1;
	for (;;) {
		for (size_t i = 0; i < r.n; i++)
			pairs_model_measure(m, p, r.v[i].a, r.v[i].b, round);
		rd_pairs_round_free(&r);
		rd_pairs_judge(p);
		if (round == max_rounds)
			break;
		rd_pairs_plan_next(p, &r);
		if (!r.n) {
			rd_pairs_round_free(&r);
			break;
		}
		round++;
	}
	return round;
}

#endif
