/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* pairs/: the rounds (disjoint, every node, no pair twice, racks crossed), the topology file, and
 * the judgement round after round on a stand-in network (pairs_model.h, a measured-matrix model:
 * there are no hosts here): one bad node, one bad link, noisy good pairs, 1,024 nodes. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pairs/pairs.h"
#include "pairs_model.h"

static void nodes(struct rd_pairs *p, const char *list)
{
	char err[256] = "";
	int r = rd_pairs_set_nodes(p, list, err, sizeof err);
	if (r < 0)
		rd_test_fail(__FILE__, __LINE__, "%s: %s", list, err);
}

/* every round disjoint; no pair in two rounds; returns how many pairs in all */
static size_t check_rounds(const struct rd_pairs *p, struct rd_pairs_round *r, size_t nr)
{
	size_t n = p->nodes.n, total = 0;
	unsigned char *met = calloc(n * n, 1);
	for (size_t k = 0; k < nr; k++) {
		unsigned char *used = calloc(n, 1);
		for (size_t i = 0; i < r[k].n; i++) {
			size_t a = r[k].v[i].a, b = r[k].v[i].b;
			CHECK(a < n && b < n && a != b);
			CHECK(!used[a] && !used[b]);
			used[a] = used[b] = 1;
			CHECK(!met[a * n + b]);
			met[a * n + b] = met[b * n + a] = 1;
			total++;
		}
		CHECK_INT(r[k].n, n / 2);
		free(used);
	}
	free(met);
	return total;
}

RD_TEST(plan_ring_round_one_pairs_neighbours)
{
	struct rd_pairs p = {0};
	nodes(&p, "node[01-06]");
	struct rd_pairs_round r[10];
	CHECK_INT(rd_pairs_plan(&p, RD_PAIRS_RING, 1, 10, r), 5);
	CHECK_INT(check_rounds(&p, r, 5), 15); /* every pair of 6 nodes exactly once */
	CHECK_INT(r[0].n, 3);
	CHECK_INT(r[0].v[0].a, 0);
	CHECK_INT(r[0].v[0].b, 1);
	CHECK_INT(r[0].v[1].a, 2);
	CHECK_INT(r[0].v[1].b, 3);
	CHECK_INT(r[0].v[2].a, 4);
	CHECK_INT(r[0].v[2].b, 5);
	for (int i = 0; i < 5; i++)
		rd_pairs_round_free(&r[i]);
	rd_pairs_free(&p);
}

RD_TEST(plan_odd_leaves_one_node_out_each_round)
{
	struct rd_pairs p = {0};
	nodes(&p, "n[1-7]");
	struct rd_pairs_round r[7];
	CHECK_INT(rd_pairs_plan(&p, RD_PAIRS_RING, 1, 7, r), 7);
	CHECK_INT(check_rounds(&p, r, 7), 21);
	/* round 1: n1-n2, n3-n4, n5-n6; n7 idle */
	CHECK_INT(r[0].n, 3);
	CHECK_INT(r[0].v[2].a, 4);
	CHECK_INT(r[0].v[2].b, 5);
	for (int i = 0; i < 7; i++)
		rd_pairs_round_free(&r[i]);
	rd_pairs_free(&p);
}

RD_TEST(plan_random_is_seeded_and_valid)
{
	struct rd_pairs p = {0};
	nodes(&p, "gpu[000-099]");
	struct rd_pairs_round a[3], b[3], c[1];
	rd_pairs_plan(&p, RD_PAIRS_RANDOM, 42, 3, a);
	rd_pairs_plan(&p, RD_PAIRS_RANDOM, 42, 3, b);
	rd_pairs_plan(&p, RD_PAIRS_RANDOM, 43, 1, c);
	CHECK_INT(check_rounds(&p, a, 3), 150);
	CHECK(memcmp(a[0].v, b[0].v, a[0].n * sizeof *a[0].v) == 0);
	CHECK(memcmp(a[0].v, c[0].v, a[0].n * sizeof *a[0].v) != 0);
	size_t neighbours = 0;
	for (size_t i = 0; i < a[0].n; i++)
		neighbours += a[0].v[i].b == a[0].v[i].a + 1 || a[0].v[i].a == a[0].v[i].b + 1;
	CHECK(neighbours < 10);
	for (int i = 0; i < 3; i++) {
		rd_pairs_round_free(&a[i]);
		rd_pairs_round_free(&b[i]);
	}
	rd_pairs_round_free(&c[0]);
	rd_pairs_free(&p);
}

RD_TEST(plan_rack_crosses_racks)
{
	struct rd_pairs p = {0};
	nodes(&p, "node[01-12]");
	char err[256] = "";
	const char *topo = "# Slurm topology.conf\n"
			   "SwitchName=leaf1 Nodes=node[01-04]\n"
			   "SwitchName=leaf2 Nodes=node[05-08] LinkSpeed=400\n"
			   "switchname=leaf3 nodes=node[09-12]\n"
			   "SwitchName=spine Switches=leaf[1-3]\n";
	CHECK_INT(rd_pairs_set_topology(&p, topo, err, sizeof err), 0);
	CHECK_STR(p.racks.v[0], "leaf1");
	CHECK_STR(p.racks.v[11], "leaf3");
	struct rd_pairs_round r[11];
	CHECK_INT(rd_pairs_plan(&p, RD_PAIRS_RACK, 1, 11, r), 11);
	CHECK_INT(check_rounds(&p, r, 11), 66);
	for (size_t i = 0; i < r[0].n; i++)
		CHECK(strcmp(p.racks.v[r[0].v[i].a], p.racks.v[r[0].v[i].b]) != 0);
	for (int i = 0; i < 11; i++)
		rd_pairs_round_free(&r[i]);
	rd_pairs_free(&p);
}

RD_TEST(topology_and_nodes_bad_input)
{
	struct rd_pairs p = {0};
	char err[256] = "";
	CHECK(rd_pairs_set_nodes(&p, "node[1-", err, sizeof err) < 0);
	CHECK(err[0]);
	rd_pairs_free(&p);
	struct rd_pairs q = {0};
	CHECK(rd_pairs_set_nodes(&q, "solo", err, sizeof err) < 0);
	CHECK(strstr(err, "a pair needs two"));
	rd_pairs_free(&q);
	struct rd_pairs t = {0};
	nodes(&t, "a,b,a");
	CHECK_INT(t.nodes.n, 2);
	CHECK(rd_pairs_set_topology(&t, "SwitchName=s1 Nodes=x[1-\n", err, sizeof err) < 0);
	CHECK(strstr(err, "line 1"));
	CHECK(rd_pairs_set_topology(&t, "\n\nNodeName=a\n", err, sizeof err) < 0);
	CHECK(strstr(err, "line 3: not a SwitchName= line"));
	rd_pairs_free(&t);
}

static size_t count_kind(const struct rd_pairs *p, enum rd_pairs_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nfindings; i++)
		n += p->findings[i].kind == k;
	return n;
}

RD_TEST(judge_small_run_bad_node_needs_three_partners)
{
	/* 8 nodes, one rail: n3 delivers a third of the others' rate */
	struct rd_pairs p = {0};
	nodes(&p, "n[0-7]");
	struct pairs_model m;
	pairs_model_init(&m, 8, 1, 7);
	m.dip = 0;
	m.cap[3] = 0.33;
	int rounds = pairs_model_run(&m, &p, RD_PAIRS_RING, 1, 10);
	CHECK_INT(count_kind(&p, RD_PAIRS_NODE), 1);
	CHECK_INT(p.findings[0].node, 3);
	CHECK_INT(p.findings[0].partners.n, 3);
	CHECK_STR(p.findings[0].rail, "mlx5_0");
	CHECK(rounds <= 3);
	CHECK_INT(p.state[3], RD_PAIRS_BAD);
	CHECK_INT(p.state[2], RD_PAIRS_CLEARED); /* its round-1 partner */
	/* one sample never convicts: after round 1 alone nobody is bad */
	struct rd_pairs q = {0};
	nodes(&q, "n[0-7]");
	pairs_model_run(&m, &q, RD_PAIRS_RING, 1, 1);
	CHECK_INT(count_kind(&q, RD_PAIRS_NODE), 0);
	CHECK_INT(q.state[3], RD_PAIRS_SUSPECT);
	CHECK_INT(q.state[2], RD_PAIRS_SUSPECT);
	rd_pairs_free(&q);
	pairs_model_free(&m);
	rd_pairs_free(&p);
}

RD_TEST(judge_uniformly_slow_fleet_drains_nobody)
{
	/* every pair at 40 % of line rate (Gen3 slots, say): one fleet finding, no node */
	struct rd_pairs p = {0};
	nodes(&p, "n[00-31]");
	struct pairs_model m;
	pairs_model_init(&m, 32, 2, 9);
	for (size_t i = 0; i < 64; i++)
		m.cap[i] = 0.42;
	pairs_model_run(&m, &p, RD_PAIRS_RANDOM, 5, 6);
	CHECK_INT(count_kind(&p, RD_PAIRS_NODE), 0);
	CHECK_INT(count_kind(&p, RD_PAIRS_LINK), 0);
	CHECK_INT(count_kind(&p, RD_PAIRS_FLEET), 1);
	pairs_model_free(&m);
	rd_pairs_free(&p);
}

RD_TEST(judge_failed_pair_counts_as_slow)
{
	/* a node that cannot connect to anyone (every sample an error) is bad after three partners */
	struct rd_pairs p = {0};
	nodes(&p, "h[1-8]");
	struct rd_pairs_round r;
	rd_pairs_plan(&p, RD_PAIRS_RING, 1, 1, &r);
	int round = 1;
	for (;;) {
		for (size_t i = 0; i < r.n; i++) {
			bool dead = r.v[i].a == 4 || r.v[i].b == 4;
			struct rd_pairs_sample s = {.a = r.v[i].a, .b = r.v[i].b, .rail_a = "mlx5_0", .rail_b = "mlx5_0",
						    .gbps = dead ? -1 : 380, .line_gbps = 400, .round = round,
						    .error = dead ? "rdma_cm: REJECTED by h5" : NULL};
			rd_pairs_add(&p, &s);
		}
		rd_pairs_round_free(&r);
		rd_pairs_judge(&p);
		rd_pairs_plan_next(&p, &r);
		if (!r.n || round == 6)
			break;
		round++;
	}
	rd_pairs_round_free(&r);
	CHECK_INT(count_kind(&p, RD_PAIRS_NODE), 1);
	CHECK_INT(p.findings[0].node, 4);
	CHECK_STR(p.findings[0].error, "rdma_cm: REJECTED by h5");
	CHECK(p.findings[0].gbps == 0);
	rd_pairs_free(&p);
}

RD_TEST(judge_peers_median_is_of_its_rate_without_it)
{
	/* h1-h6 on 400 Gb/s rails, h7-h10 on 200 Gb/s ones; h10 gets 60.  Its peers are the other
	 * 200 Gb/s pairs (190), not the run's larger 400 Gb/s group (390), and not its own samples. */
	struct rd_pairs p = {0};
	nodes(&p, "h[1-10]");
	for (size_t a = 0; a < 10; a++)
		for (size_t b = a + 1; b < 10; b++) {
			if ((a < 6) != (b < 6))
				continue;
			struct rd_pairs_sample s = {.a = a, .b = b, .rail_a = "mlx5_0", .rail_b = "mlx5_0",
						    .gbps = a < 6 ? 390 : b == 9 ? 60 : 190,
						    .line_gbps = a < 6 ? 400 : 200, .round = 1};
			rd_pairs_add(&p, &s);
		}
	rd_pairs_judge(&p);
	CHECK_INT(count_kind(&p, RD_PAIRS_NODE), 1);
	CHECK_INT(p.findings[0].node, 9);
	CHECK(p.median == 390);
	CHECK(p.findings[0].peers_gbps == 190);
	CHECK(p.findings[0].gbps == 60);
	rd_pairs_free(&p);
}

/* 1,024 nodes, 2 rails: one bad node rail, one bad link, 2 % jitter and 1 % dips; 100 trials */
RD_TEST(judge_1024_nodes_100_noisy_trials)
{
	size_t link_hist[10] = {0};
	size_t n = 1024, node_rounds_max = 0, link_rounds_max = 0, false_nodes = 0, false_links = 0, missed = 0;
	for (uint64_t trial = 0; trial < 100; trial++) {
		struct rd_pairs p = {0};
		nodes(&p, "gpu[0000-1023]");
		struct pairs_model m;
		pairs_model_init(&m, n, 2, 1000 + trial);
		size_t bad = (size_t)(pairs_model_u(&m) * n);
		m.cap[bad * 2 + 1] = 0.3; /* its second rail at 30 % */
		/* the bad link: a pair of round 1 (a pair only shows when it is measured) */
		struct rd_pairs_round r1;
		rd_pairs_plan(&p, RD_PAIRS_RANDOM, trial, 1, &r1);
		size_t k = (size_t)(pairs_model_u(&m) * r1.n);
		while (r1.v[k].a == bad || r1.v[k].b == bad)
			k = (k + 1) % r1.n;
		m.bad_a = r1.v[k].a;
		m.bad_b = r1.v[k].b;
		m.link_factor = 0.4;
		rd_pairs_round_free(&r1);

		struct rd_pairs_round r;
		rd_pairs_plan(&p, RD_PAIRS_RANDOM, trial, 1, &r);
		int round = 1, node_at = 0, link_at = 0;
		for (;;) {
			for (size_t i = 0; i < r.n; i++)
				pairs_model_measure(&m, &p, r.v[i].a, r.v[i].b, round);
			rd_pairs_round_free(&r);
			rd_pairs_judge(&p);
			for (size_t i = 0; i < p.nfindings; i++) {
				const struct rd_pairs_finding *f = &p.findings[i];
				if (f->kind == RD_PAIRS_NODE && f->node == bad && !node_at)
					node_at = round;
				if (f->kind == RD_PAIRS_LINK && !link_at &&
				    ((f->node == m.bad_a && f->peer == m.bad_b) || (f->node == m.bad_b && f->peer == m.bad_a)))
					link_at = round;
			}
			rd_pairs_plan_next(&p, &r);
			if (!r.n || round == 8) {
				rd_pairs_round_free(&r);
				break;
			}
			round++;
		}
		for (size_t i = 0; i < p.nfindings; i++) {
			const struct rd_pairs_finding *f = &p.findings[i];
			if (f->kind == RD_PAIRS_NODE && f->node != bad)
				false_nodes++;
			if (f->kind == RD_PAIRS_LINK && !((f->node == m.bad_a && f->peer == m.bad_b) ||
							  (f->node == m.bad_b && f->peer == m.bad_a)))
				false_links++;
		}
		link_hist[link_at < 9 ? link_at : 9]++;
		missed += !node_at || !link_at;
		if ((size_t)node_at > node_rounds_max)
			node_rounds_max = (size_t)node_at;
		if ((size_t)link_at > link_rounds_max)
			link_rounds_max = (size_t)link_at;
		pairs_model_free(&m);
		rd_pairs_free(&p);
	}
	printf("# 100 trials of 1024 nodes: bad node found by round %zu at most, bad link by round %zu; "
	       "false nodes %zu, false links %zu, missed %zu\n",
	       node_rounds_max, link_rounds_max, false_nodes, false_links, missed);
	printf("# rounds to the bad link:");
	for (int i = 1; i < 10; i++)
		if (link_hist[i])
			printf(" %d: %zu", i, link_hist[i]);
	printf("\n");
	CHECK_INT(missed, 0);
	CHECK_INT(false_nodes, 0); /* zero false drains */
	CHECK_INT(false_links, 0);
	CHECK(node_rounds_max <= 3);
	/* a dip on a link end's other sample costs that end one more partner before the retests */
	CHECK(link_hist[1] + link_hist[2] + link_hist[3] + link_hist[4] >= 95);
	CHECK(link_rounds_max <= 5);
}
