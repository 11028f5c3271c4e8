/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `fleet --history`'s scoring (fleet/history.c) over synthetic timelines: each rule of the table,
 * the window of --days, reboots and the first report after one, duplicates, future dates, the
 * node rule, the order of nodes and the exit status. */
#include <stdlib.h>
#include <string.h>

#include "fleet/history.h"
#include "harness.h"
#include "util/util.h"

#define T0 1764460800LL /* 2025-11-30T00:00:00Z */
#define UMAD "modules.loaded\tib_umad"
#define PORT "ports.state\tmlx5_0 port 1"

static void add(struct rd_hist *h, const char *node, long long t, const char *boot, const char *ev)
{
	char why[256] = "";
	const char *evs[1] = {ev};
	CHECK_INT(rd_hist_add_raw(h, node, t, boot, ev ? RD_FS_FAIL : RD_FS_OK, evs, ev ? 1 : 0, why, sizeof why), 0);
}

static const struct rd_hist_node *node_of(const struct rd_hist *h, const char *name)
{
	for (size_t i = 0; i < h->nnodes; i++)
		if (!strcmp(h->nodes[i].name, name))
			return &h->nodes[i];
	rd_test_fail(__FILE__, __LINE__, "no node %s", name);
}

static const struct rd_hist_subject *subj_of(const struct rd_hist_node *n, const char *check)
{
	for (size_t i = 0; i < n->nsubj; i++)
		if (!strcmp(n->subj[i].check, check))
			return &n->subj[i];
	rd_test_fail(__FILE__, __LINE__, "no subject of %s on %s", check, n->name);
}

RD_TEST(hist_rules_table)
{
	struct rd_hist_rule r[RD_HIST_NRULES];
	rd_hist_rules(3, r);
	CHECK_STR(r[0].name, "2 in 5 min");
	CHECK_INT(r[0].count, 2);
	CHECK_INT(r[0].within, 300);
	CHECK_INT(r[1].count, 3);
	CHECK_INT(r[1].within, 3600);
	CHECK_INT(r[2].count, 3);
	CHECK_INT(r[2].within, 0);
	long long two_close[] = {0, 300};
	long long two_far[] = {0, 301};
	long long three_hour[] = {0, 1800, 3600};
	long long three_spread[] = {0, 1800, 3601};
	CHECK_INT(rd_hist_match(r, RD_HIST_NRULES, two_close, 2), 0);
	CHECK_INT(rd_hist_match(r, RD_HIST_NRULES, two_far, 2), -1);
	CHECK_INT(rd_hist_match(r, RD_HIST_NRULES, three_hour, 3), 1);
	CHECK_INT(rd_hist_match(r, RD_HIST_NRULES, three_spread, 3), 2); /* 3 in the window */
	CHECK_INT(rd_hist_match(r, RD_HIST_NRULES, three_spread, 1), -1);
	CHECK_INT(rd_hist_match(r, RD_HIST_NRULES, NULL, 0), -1);
	rd_hist_rules(5, r);
	CHECK_INT(rd_hist_match(r, RD_HIST_NRULES, three_spread, 3), -1); /* --repeats 5 */
}

RD_TEST(hist_lemon_when_latest_is_ok)
{
	struct rd_hist h;
	rd_hist_init(&h, T0, 7, 3);
	add(&h, "n1", T0 - 3600, "b1", UMAD);
	add(&h, "n1", T0 - 3500, "b1", UMAD); /* 100 s later: 2 in 5 min */
	add(&h, "n1", T0, "b1", NULL);        /* the latest is OK */
	add(&h, "n2", T0 - 7200, "c1", NULL);
	add(&h, "n2", T0, "c1", NULL);
	rd_hist_finish(&h);
	const struct rd_hist_node *n1 = node_of(&h, "n1"), *n2 = node_of(&h, "n2");
	CHECK(n1->lemon);
	CHECK_INT(n1->last, RD_FS_OK);
	CHECK_INT(subj_of(n1, "modules.loaded")->rule, 0);
	CHECK_INT(subj_of(n1, "modules.loaded")->n, 2);
	CHECK_INT(n1->score, 2);
	CHECK_INT(n1->rule, 0); /* the node's failing reports match too */
	CHECK(!n2->lemon);
	CHECK_INT(n2->score, 0);
	CHECK_INT(h.nlemons, 1);
	CHECK_INT(h.order[0], (size_t)(n1 - h.nodes));
	CHECK_INT(rd_hist_exit_code(&h, 0), 1);
	rd_hist_free(&h);
}

RD_TEST(hist_three_in_an_hour_and_window)
{
	struct rd_hist h;
	rd_hist_init(&h, T0, 7, 3);
	add(&h, "a", T0 - 3000, NULL, PORT);
	add(&h, "a", T0 - 1500, NULL, PORT);
	add(&h, "a", T0, NULL, PORT);
	add(&h, "b", T0 - 3 * 86400, NULL, PORT); /* a day apart: only the window rule */
	add(&h, "b", T0 - 2 * 86400, NULL, PORT);
	add(&h, "b", T0 - 1 * 86400, NULL, PORT);
	add(&h, "c", T0 - 3 * 86400, NULL, PORT); /* twice only: no rule */
	add(&h, "c", T0 - 1 * 86400, NULL, PORT);
	rd_hist_finish(&h);
	CHECK_INT(subj_of(node_of(&h, "a"), "ports.state")->rule, 1);
	CHECK_INT(subj_of(node_of(&h, "b"), "ports.state")->rule, 2);
	CHECK_STR(h.rules[2].name, "3 in 7 days");
	CHECK_INT(subj_of(node_of(&h, "c"), "ports.state")->rule, -1);
	CHECK(!node_of(&h, "c")->lemon);
	CHECK_INT(h.nlemons, 2);
	rd_hist_free(&h);
}

RD_TEST(hist_window_days)
{
	struct rd_hist h;
	rd_hist_init(&h, T0, 2, 3);
	/* three FAILs within an hour, but 5 days before the newest report: outside --days 2 */
	add(&h, "old", T0 - 5 * 86400, NULL, UMAD);
	add(&h, "old", T0 - 5 * 86400 + 60, NULL, UMAD);
	add(&h, "old", T0 - 5 * 86400 + 120, NULL, UMAD);
	add(&h, "old", T0, NULL, NULL);
	rd_hist_finish(&h);
	CHECK_INT(h.old, 3);
	CHECK_INT(h.since, T0 - 2 * 86400);
	CHECK(!node_of(&h, "old")->lemon);
	CHECK_INT(node_of(&h, "old")->nwindow, 1);
	CHECK_INT(rd_hist_exit_code(&h, 0), 0);
	rd_hist_free(&h);
}

RD_TEST(hist_reboot_transient_not_counted)
{
	struct rd_hist h;
	rd_hist_init(&h, T0, 7, 3);
	add(&h, "r", T0 - 600, "boot-a", NULL);
	add(&h, "r", T0 - 300, "boot-b", UMAD); /* first report after the reboot: transient */
	add(&h, "r", T0 - 200, "boot-b", UMAD); /* still failing: counted */
	add(&h, "r", T0, "boot-b", NULL);
	rd_hist_finish(&h);
	const struct rd_hist_node *r = node_of(&h, "r");
	CHECK_INT(r->reboots, 1);
	const struct rd_hist_subject *s = subj_of(r, "modules.loaded");
	CHECK_INT(s->transient, 1);
	CHECK_INT(s->n, 1);
	CHECK_INT(s->rule, -1);
	CHECK(!r->lemon);
	rd_hist_free(&h);

	/* reboots are counted between reports that both carry a boot_id; an unknown one is no reboot */
	rd_hist_init(&h, T0, 7, 3);
	add(&h, "u", T0 - 900, "boot-a", NULL);
	add(&h, "u", T0 - 600, NULL, NULL);
	add(&h, "u", T0 - 300, "boot-a", NULL);
	add(&h, "u", T0, "boot-c", NULL);
	rd_hist_finish(&h);
	CHECK_INT(node_of(&h, "u")->reboots, 1);
	rd_hist_free(&h);
}

RD_TEST(hist_node_rule_across_subjects)
{
	struct rd_hist h;
	rd_hist_init(&h, T0, 7, 3);
	/* a different subject each time: no subject repeats, but the node fails 3 times in an hour */
	add(&h, "x", T0 - 1200, NULL, UMAD);
	add(&h, "x", T0 - 600, NULL, PORT);
	add(&h, "x", T0, NULL, "pcie.link\tmlx5_0");
	rd_hist_finish(&h);
	const struct rd_hist_node *x = node_of(&h, "x");
	CHECK_INT(x->nlemon_subj, 0);
	CHECK_INT(x->rule, 1);
	CHECK(x->lemon);
	CHECK_INT(x->score, 3);
	rd_hist_free(&h);
}

RD_TEST(hist_duplicates_future_exit)
{
	struct rd_hist h;
	char why[256] = "";
	rd_hist_init(&h, T0, 7, 3);
	add(&h, "d", T0, NULL, UMAD);
	add(&h, "d", T0, NULL, UMAD); /* the same report twice (two copies of a file) */
	const char *ev[1] = {UMAD};
	CHECK(rd_hist_add_raw(&h, "d", T0 + 86400, NULL, RD_FS_FAIL, ev, 1, why, sizeof why) < 0);
	CHECK(strstr(why, "after this run's time") != NULL);
	rd_hist_finish(&h);
	CHECK_INT(h.duplicates, 1);
	CHECK_INT(h.future, 1);
	CHECK_INT(node_of(&h, "d")->nwindow, 1);
	CHECK(!node_of(&h, "d")->lemon);
	CHECK_INT(rd_hist_exit_code(&h, 0), 3); /* a future-dated report is bad input */
	rd_hist_free(&h);

	rd_hist_init(&h, T0, 7, 3);
	rd_hist_finish(&h);
	CHECK_INT(rd_hist_exit_code(&h, 0), 3); /* no report at all */
	rd_hist_free(&h);

	rd_hist_init(&h, T0, 7, 3);
	add(&h, "ok", T0, NULL, NULL);
	rd_hist_finish(&h);
	CHECK_INT(rd_hist_exit_code(&h, 0), 0);
	CHECK_INT(rd_hist_exit_code(&h, 1), 3); /* an unreadable input */
	rd_hist_free(&h);
}

RD_TEST(hist_same_subject_once_per_report)
{
	struct rd_hist h;
	char why[256] = "";
	rd_hist_init(&h, T0, 7, 3);
	const char *ev[3] = {UMAD, UMAD, UMAD};
	CHECK_INT(rd_hist_add_raw(&h, "s", T0, NULL, RD_FS_FAIL, ev, 3, why, sizeof why), 0);
	rd_hist_finish(&h);
	CHECK_INT(subj_of(node_of(&h, "s"), "modules.loaded")->n, 1);
	CHECK(!node_of(&h, "s")->lemon);
	rd_hist_free(&h);
}

RD_TEST(hist_bounds_subjects_and_events)
{
	struct rd_hist h;
	char why[256] = "";
	rd_hist_init(&h, T0, 7, 3);
	/* 300 distinct subjects in one report: RD_HIST_MAX_EVENTS are kept */
	char *names[300];
	for (size_t i = 0; i < 300; i++)
		names[i] = rd_xasprintf("ports.state\tmlx5_%zu port 1", i);
	CHECK_INT(rd_hist_add_raw(&h, "b", T0 - 100000, NULL, RD_FS_FAIL, (const char *const *)names, 300, why, sizeof why), 0);
	CHECK_INT(h.nodes[0].reps[0].nsubj, RD_HIST_MAX_EVENTS);
	for (size_t i = 0; i < 300; i++)
		free(names[i]);
	/* new subjects past RD_HIST_MAX_SUBJECTS of a node are counted, not kept */
	for (long long r = 1; h.nodes[0].nsubj < RD_HIST_MAX_SUBJECTS + 10 && r < 40; r++) {
		char *ev[RD_HIST_MAX_EVENTS];
		for (size_t i = 0; i < RD_HIST_MAX_EVENTS; i++)
			ev[i] = rd_xasprintf("x\t%lld-%zu", r, i);
		CHECK_INT(rd_hist_add_raw(&h, "b", T0 - 100000 + r, NULL, RD_FS_FAIL, (const char *const *)ev, RD_HIST_MAX_EVENTS,
					  why, sizeof why), 0);
		for (size_t i = 0; i < RD_HIST_MAX_EVENTS; i++)
			free(ev[i]);
	}
	CHECK_INT(h.nodes[0].nsubj, RD_HIST_MAX_SUBJECTS);
	CHECK(h.subjects_cut > 0);
	rd_hist_finish(&h);
	CHECK(node_of(&h, "b")->lemon); /* the node's failing reports: 2 in 5 min */
	rd_hist_free(&h);
}
