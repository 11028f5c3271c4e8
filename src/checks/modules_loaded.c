/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* modules.loaded: each module of the policy list is loaded when RDMA hardware is present. */
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"

/* What breaks without each module, in the operator's words (the guide). */
static const char *consequence(const char *m)
{
	static const struct {
		const char *name, *text;
	} t[] = {
		{"mlx5_core", "no ConnectX/BlueField network or RDMA function works"},
		{"mlx5_ib", "no mlx5 RDMA devices in /sys/class/infiniband: NCCL finds no IB device"},
		{"ib_core", "no RDMA at all"},
		{"ib_uverbs", "no /dev/infiniband/uverbsN: jobs fail with \"could not open RDMA device\""},
		{"ib_cm", "no InfiniBand connection manager: rdma_cm and IPoIB connected mode fail"},
		{"rdma_cm", "no RDMA connection manager: rdma_ucm cannot work and NCCL cannot use IB"},
		{"rdma_ucm", "no /dev/infiniband/rdma_cm: NCCL cannot use IB and falls back to TCP (NET/Socket)"},
		{"ib_umad", "no /dev/infiniband/umadN or issmN: MAD tools (ibnetdiscover, iblinkinfo, perfquery, sminfo, opensm) "
		    "fail with \"can't open UMAD port\" (ibstat still answers: it reads sysfs)"},
		{"ib_ipoib", "no IPoIB interfaces (ibN): IP over InfiniBand is unavailable"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(t[i].name, m) == 0)
			return t[i].text;
	return "the policy requires it";
}

static bool has_ib_port(const struct rd_host *h)
{
	for (size_t i = 0; i < h->ndevices; i++)
		for (size_t p = 0; p < h->devices[i].nports; p++)
			if (h->devices[i].ports[p].is_ib)
				return true;
	return false;
}

void rd_check_modules_loaded(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	if (h->proc_modules.err && h->proc_modules.err != RD_EPARSE) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "host", "cannot tell which modules are loaded");
		rd_evidence_attr(f, &h->proc_modules);
		return;
	}
	/* the planner's answer, which `fix modules` loads */
	struct rd_strv need = {0};
	rd_modules_to_load(h, ctx->sys, ctx->policy, &need);
	bool ib = has_ib_port(h);
	for (size_t i = 0; i < need.n; i++) {
		const char *m = need.v[i];
		enum rd_status st = (!ib && strcmp(m, "ib_ipoib") == 0) ? RD_WARN : RD_FAIL;
		struct rd_finding *f = rd_finding_add(ctx, st, m, "%s not loaded: %s", m, consequence(m));
		rd_evidence_add(f, "/proc/modules", "no %s line", m);
		char *sys = rd_xasprintf("/sys/module/%s", m);
		rd_evidence_add(f, sys, "<absent>");
		free(sys);
		rd_fix_add(f, "modprobe %s", m);
		rd_fix_add(f, "dmesg | grep -iE 'mlx5|ib_core|%s' | tail -20    # if modprobe fails", m);
	}
	if (!need.n) {
		size_t n = ctx->policy->modules.n;
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host", "all %zu required modules loaded", n);
		rd_evidence_add(f, "/proc/modules", "%zu of %zu present", n, n);
	}
	rd_strv_free(&need);
}
