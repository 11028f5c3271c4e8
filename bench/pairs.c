/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Benchmark (not a test): `pairs`' planner and judgement at scale on the stand-in network of
 * tests/unit/pairs_model.h (a measured-matrix model: no hosts here), with one bad node rail, one
 * bad link, 2 % jitter and 1 % dips per sample.  Per trial: round 1 planned, then every round the
 * judgement asks for, judged after each; prints the rounds to the bad node and to the bad link,
 * false findings, and the CPU time of planning and judging (the measurements are the model's).
 * Build and run: bench/pairs.sh [NODES] [TRIALS] [RAILS]
 * Targets: bad node in <= 3 rounds, bad link in <= 4, zero false drains, < 1 s CPU per 1,024-node run. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pairs_model.h"

static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024, trials = argc > 2 ? strtoul(argv[2], NULL, 10) : 100;
	size_t rails = argc > 3 ? strtoul(argv[3], NULL, 10) : 8;
	size_t hist_node[16] = {0}, hist_link[16] = {0}, false_nodes = 0, false_links = 0;
	double worst = 0, total = 0;
	char list[64];
	snprintf(list, sizeof list, "node[%06d-%06zu]", 0, n - 1);
	for (size_t t = 0; t < trials; t++) {
		struct rd_pairs p = {0};
		char err[256];
		if (rd_pairs_set_nodes(&p, list, err, sizeof err) < 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		struct pairs_model m;
		pairs_model_init(&m, n, rails, 77 + t);
		size_t bad = (size_t)(pairs_model_u(&m) * (double)n);
		m.cap[bad * rails + rails - 1] = 0.3;
		struct rd_pairs_round r;
		rd_pairs_plan(&p, RD_PAIRS_RANDOM, t, 1, &r);
		size_t k = (size_t)(pairs_model_u(&m) * (double)r.n);
		while (r.v[k].a == bad || r.v[k].b == bad)
			k = (k + 1) % r.n;
		m.bad_a = r.v[k].a;
		m.bad_b = r.v[k].b;
		m.link_factor = 0.4;
		double cpu = 0, c0;
		int round = 1, node_at = 0, link_at = 0;
		for (;;) {
			for (size_t i = 0; i < r.n; i++)
				pairs_model_measure(&m, &p, r.v[i].a, r.v[i].b, round);
			rd_pairs_round_free(&r);
			c0 = cpu_s();
			rd_pairs_judge(&p);
			rd_pairs_plan_next(&p, &r);
			cpu += cpu_s() - c0;
			for (size_t i = 0; i < p.nfindings; i++) {
				const struct rd_pairs_finding *f = &p.findings[i];
				if (f->kind == RD_PAIRS_NODE && f->node == bad && !node_at)
					node_at = round;
				if (f->kind == RD_PAIRS_LINK && !link_at && (f->node == m.bad_a || f->node == m.bad_b) &&
				    (f->peer == m.bad_a || f->peer == m.bad_b))
					link_at = round;
			}
			if (!r.n || round == 15)
				break;
			round++;
		}
		rd_pairs_round_free(&r);
		for (size_t i = 0; i < p.nfindings; i++) {
			const struct rd_pairs_finding *f = &p.findings[i];
			false_nodes += f->kind == RD_PAIRS_NODE && f->node != bad;
			false_links += f->kind == RD_PAIRS_LINK && !((f->node == m.bad_a || f->node == m.bad_b) &&
								     (f->peer == m.bad_a || f->peer == m.bad_b));
		}
		hist_node[node_at]++;
		hist_link[link_at]++;
		total += cpu;
		if (cpu > worst)
			worst = cpu;
		pairs_model_free(&m);
		rd_pairs_free(&p);
	}
	printf("%zu trials of %zu nodes x %zu rails (round 1 random; 0 = not found)\n", trials, n, rails);
	printf("rounds to the bad node:");
	for (int i = 0; i < 16; i++)
		if (hist_node[i])
			printf("  %d: %zu", i, hist_node[i]);
	printf("\nrounds to the bad link:");
	for (int i = 0; i < 16; i++)
		if (hist_link[i])
			printf("  %d: %zu", i, hist_link[i]);
	printf("\nfalse node findings (drains): %zu, false link findings: %zu\n", false_nodes, false_links);
	printf("CPU of planning and judging one run: mean %.3f s, worst %.3f s\n", total / (double)trials, worst);
	return 0;
}
