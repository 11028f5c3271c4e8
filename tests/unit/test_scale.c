/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ports.rate on a host of many devices, built in memory: its findings, and (under callgrind, from
 * tests/readpath/run.sh: RD_SCALE_DEVICES=N, --toggle-collect=rd_check_ports_rate) a cost that
 * grows linearly with the ports, not with their square. */
#include <stdlib.h>

#include "checks/check.h"
#include "harness.h"

static void build(struct rd_host *h, size_t n)
{
	memset(h, 0, sizeof *h);
	h->devices = rd_xcalloc(n, sizeof *h->devices);
	h->ndevices = n;
	for (size_t i = 0; i < n; i++) {
		struct rd_device *d = &h->devices[i];
		d->name = rd_xasprintf("mlx5_%zu", i);
		d->board_id.value = rd_xstrdup(i % 2 ? "MT_0000000838" : "MT_0000000970");
		d->ports = rd_xcalloc(1, sizeof *d->ports);
		d->nports = 1;
		struct rd_port *p = &d->ports[0];
		p->num = 1;
		p->state_v = RD_PORT_ACTIVE;
		p->is_ib = true;
		p->rate_ok = true;
		p->rate_v.gbps = i == n / 2 ? 200 : 400; /* one degraded link */
		p->rate.path = rd_xasprintf("/sys/class/infiniband/mlx5_%zu/ports/1/rate", i);
		p->rate.value = rd_xstrdup(i == n / 2 ? "200 Gb/sec (4X HDR)" : "400 Gb/sec (4X NDR)");
	}
}

RD_TEST(ports_rate_many_devices)
{
	const char *env = getenv("RD_SCALE_DEVICES");
	size_t n = env ? (size_t)strtoul(env, NULL, 10) : 2048;
	struct rd_host h;
	struct rd_system sys;
	memset(&sys, 0, sizeof sys);
	struct rd_policy pol;
	rd_policy_defaults(&pol);
	build(&h, n);
	struct rd_report r = {0};
	rd_checks_run(&h, &sys, &pol, false, "ports.rate", NULL, &r);
	size_t warn = 0;
	for (size_t i = 0; i < r.n; i++)
		warn += r.findings[i].status == RD_WARN;
	CHECK_INT(warn, 1);
	CHECK_INT(r.n, 1);
	rd_report_free(&r);
	rd_policy_free(&pol);
	rd_host_free(&h);
}
