/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* watch --slurm's flap damping (run/damp.h) on reports over time: a port held, then draining by
 * time or by its count of downs within the window; a resume held until every port that went
 * down has been back long enough; old downs forgotten; the policy's [watch] settings and their
 * refusals; the records bounded. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/policy.h"
#include "run/damp.h"
#include "util/util.h"

/* A report whose ports.state FAILs are the ports named (NULL-terminated), with an OK about the host
 * and a FAIL of another check on a port, which is not a port down. */
static struct rd_report report(const char *const *down)
{
	struct rd_report r = {0};
	size_t n = 0;
	while (down[n])
		n++;
	r.findings = rd_xcalloc(n + 2, sizeof *r.findings);
	for (size_t i = 0; i < n; i++)
		r.findings[r.n++] = (struct rd_finding){.check = "ports.state", .status = RD_FAIL, .kind = RD_SUBJ_PORT,
							 .subject = rd_xstrdup(down[i]), .message = rd_xstrdup("Down")};
	r.findings[r.n++] = (struct rd_finding){.check = "ports.state", .status = RD_OK, .kind = RD_SUBJ_HOST,
						 .subject = rd_xstrdup("host"), .message = rd_xstrdup("ok")};
	r.findings[r.n++] = (struct rd_finding){.check = "ports.rate", .status = RD_FAIL, .kind = RD_SUBJ_PORT,
						 .subject = rd_xstrdup("mlx5_9 port 1"), .message = rd_xstrdup("slow")};
	return r;
}

static size_t step(struct rd_damp *d, long long now, const char *const *down)
{
	struct rd_report r = report(down);
	size_t went = rd_damp_update(d, &r, now);
	rd_report_free(&r);
	return went;
}

static struct rd_damp damper(void)
{
	struct rd_policy p;
	rd_policy_defaults(&p);
	struct rd_damp d = {0};
	rd_damp_rules_from_policy(&d.rules, &p);
	rd_policy_free(&p);
	return d;
}

static const char *const none[] = {NULL};
static const char *const p0[] = {"mlx5_0 port 1", NULL};

RD_TEST(damp_defaults_are_the_policys)
{
	struct rd_damp d = damper();
	CHECK_INT(d.rules.down_ms, 10000);
	CHECK_INT(d.rules.flaps, 2);
	CHECK_INT(d.rules.window_ms, 300000);
	CHECK_INT(d.rules.stable_ms, 300000);
}

/* a port down is held until drain_down_after, then drains; the wake time is that moment */
RD_TEST(damp_port_down_held_then_drains_by_time)
{
	struct rd_damp d = damper();
	char rule[512];
	long long wake = 0;
	CHECK_INT(step(&d, 1000, p0), 1);
	CHECK(!rd_damp_may_drain(&d, "mlx5_0 port 1", 1000, rule, sizeof rule, &wake));
	CHECK_INT(wake, 11000);
	CHECK(strstr(rule, ", drains at 10 s unless it comes back") != NULL);
	CHECK(strstr(rule, "1 of drain_flaps = 2 in 5 min") != NULL);
	CHECK_INT(step(&d, 5000, p0), 0); /* still down: not a second down */
	CHECK(!rd_damp_may_drain(&d, "mlx5_0 port 1", 10999, rule, sizeof rule, &wake));
	CHECK(rd_damp_may_drain(&d, "mlx5_0 port 1", 11000, rule, sizeof rule, &wake));
	CHECK_STR(rule, "mlx5_0 port 1 down for 10 s (drain_down_after = 10 s)");
	rd_damp_free(&d);
}

/* the second down within the window drains at once; a third after the window is the first again */
RD_TEST(damp_second_down_within_the_window_drains)
{
	struct rd_damp d = damper();
	char rule[512];
	long long wake = 0;
	step(&d, 0, p0);
	step(&d, 2000, none); /* back after 2 s: a flap */
	CHECK(!d.ports[0].down);
	CHECK_INT(d.ports[0].up_since, 2000);
	CHECK_INT(step(&d, 60000, p0), 1);
	CHECK(rd_damp_may_drain(&d, "mlx5_0 port 1", 60000, rule, sizeof rule, &wake));
	CHECK_STR(rule, "mlx5_0 port 1 went down 2 times within 5 min (drain_flaps = 2 in 5 min)");
	step(&d, 61000, none);
	CHECK_INT(step(&d, 60000 + 300000, p0), 1); /* the down at 0 and at 60 s are 5 min old or more */
	CHECK(!rd_damp_may_drain(&d, "mlx5_0 port 1", 360000, rule, sizeof rule, &wake));
	CHECK_INT(d.ports[0].ndowns, 1);
	CHECK_INT(d.ports[0].total_downs, 3);
	rd_damp_free(&d);
}

/* "drain_flaps = 1 in ..." drains on the first down; drain_down_after = 0 drains at once too */
RD_TEST(damp_rules_that_never_hold)
{
	struct rd_damp d = damper();
	char rule[512];
	long long wake = 0;
	d.rules.flaps = 1;
	step(&d, 0, p0);
	CHECK(rd_damp_may_drain(&d, "mlx5_0 port 1", 0, rule, sizeof rule, &wake));
	d.rules.flaps = 2;
	d.rules.down_ms = 0;
	CHECK(rd_damp_may_drain(&d, "mlx5_0 port 1", 0, rule, sizeof rule, &wake));
	CHECK_STR(rule, "mlx5_0 port 1 down for 0 s (drain_down_after = 0 s)");
	/* a port the damper does not follow is not held */
	CHECK(rd_damp_may_drain(&d, "mlx5_7 port 1", 0, rule, sizeof rule, &wake));
	rd_damp_free(&d);
}

/* a resume waits until the port back last has been back resume_stable; a port never down holds nothing */
RD_TEST(damp_resume_waits_for_the_last_port_back)
{
	struct rd_damp d = damper();
	char rule[512];
	long long wake = 0;
	CHECK(rd_damp_may_resume(&d, 0, rule, sizeof rule, &wake));
	CHECK_STR(rule, "");
	static const char *const both[] = {"mlx5_0 port 1", "mlx5_1 port 1", NULL};
	static const char *const p1[] = {"mlx5_1 port 1", NULL};
	step(&d, 1000, both);
	step(&d, 2000, p1);   /* mlx5_0 back at 2 s */
	step(&d, 30000, none); /* mlx5_1 back at 30 s */
	CHECK(!rd_damp_may_resume(&d, 31000, rule, sizeof rule, &wake));
	CHECK_INT(wake, 330000);
	CHECK_STR(rule, "mlx5_1 port 1 back for 1 s: no resume until it has been back 5 min (resume_stable = 5 min)");
	CHECK(!rd_damp_may_resume(&d, 329999, rule, sizeof rule, &wake));
	CHECK(rd_damp_may_resume(&d, 330000, rule, sizeof rule, &wake));
	rd_damp_free(&d);
}

/* other checks' FAILs on a port, and OKs, are not ports down */
RD_TEST(damp_only_ports_state_fails_count)
{
	struct rd_damp d = damper();
	step(&d, 0, none);
	CHECK_INT(d.n, 0);
	rd_damp_free(&d);
}

/* at RD_DAMP_PORTS_MAX records, the port up longest gives its place; when all are down, a new
 * one is not followed (and so drains, as without damping) */
RD_TEST(damp_records_bounded)
{
	struct rd_damp d = damper();
	char name[64], rule[512];
	long long wake = 0;
	for (int i = 0; i < RD_DAMP_PORTS_MAX; i++) {
		snprintf(name, sizeof name, "dev%d port 1", i);
		const char *const one[] = {name, NULL};
		step(&d, i, one); /* each down, then up at the next step */
	}
	step(&d, 5000, none);
	CHECK_INT(d.n, RD_DAMP_PORTS_MAX);
	const char *const extra[] = {"new port 1", NULL};
	step(&d, 6000, extra);
	CHECK_INT(d.n, RD_DAMP_PORTS_MAX);
	CHECK(!rd_damp_may_drain(&d, "new port 1", 6000, rule, sizeof rule, &wake));
	rd_damp_free(&d);
	struct rd_damp all = damper();
	char **names = rd_xcalloc(RD_DAMP_PORTS_MAX + 2, sizeof *names);
	for (int i = 0; i <= RD_DAMP_PORTS_MAX; i++) {
		snprintf(name, sizeof name, "dev%d port 1", i);
		names[i] = rd_xstrdup(name);
	}
	step(&all, 0, (const char *const *)names);
	CHECK_INT(all.n, RD_DAMP_PORTS_MAX);
	snprintf(name, sizeof name, "dev%d port 1", RD_DAMP_PORTS_MAX);
	CHECK(rd_damp_may_drain(&all, name, 0, rule, sizeof rule, &wake));
	CHECK(strstr(rule, "not followed") != NULL);
	for (int i = 0; i <= RD_DAMP_PORTS_MAX; i++)
		free(names[i]);
	free(names);
	rd_damp_free(&all);
}

RD_TEST(damp_policy_settings)
{
	struct rd_policy p;
	char err[512];
	rd_policy_defaults(&p);
	CHECK_INT(rd_policy_parse("[watch]\ndrain_down_after = 30s\ndrain_flaps = 3 in 1h\nresume_stable = 10m\n", "p.conf",
				  &p, err, sizeof err), 0);
	CHECK_INT(p.watch_down_s, 30);
	CHECK_INT(p.watch_flaps, 3);
	CHECK_INT(p.watch_window_s, 3600);
	CHECK_INT(p.watch_stable_s, 600);
	rd_policy_free(&p);
	static const char *const bad[][2] = {
		{"[watch]\ndrain_down_after = 2d\n", "p.conf:2: drain_down_after: '2d' is not a time from 0 to 1d"},
		{"[watch]\ndrain_flaps = 0 in 5m\n", "p.conf:2: drain_flaps: '0 in 5m' is not N in TIME"},
		{"[watch]\ndrain_flaps = 65 in 5m\n", "p.conf:2: drain_flaps: '65 in 5m' is not N in TIME"},
		{"[watch]\ndrain_flaps = 2\n", "p.conf:2: drain_flaps: '2' is not N in TIME"},
		{"[watch]\ndrain_flaps = 2 in 5m x\n", "p.conf:2: drain_flaps: '2 in 5m x' is not N in TIME"},
		{"[watch]\nresume_stable = soon\n", "p.conf:2: resume_stable: 'soon' is not a time"},
		{"[watch]\nflaps = 2\n", "p.conf:2: unknown setting 'flaps' in section [watch]"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		rd_policy_defaults(&p);
		CHECK_INT(rd_policy_parse(bad[i][0], "p.conf", &p, err, sizeof err), -1);
		if (strncmp(err, bad[i][1], strlen(bad[i][1])) != 0)
			rd_test_fail(__FILE__, __LINE__, "'%s' gave '%s'", bad[i][0], err);
		CHECK_INT(p.watch_flaps, 2); /* a refused file leaves the defaults */
		rd_policy_free(&p);
	}
}
