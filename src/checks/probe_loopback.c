/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "checks/probe_loopback.h"

#include <stdio.h>
#include <stdlib.h>

static void probe_evidence(struct rd_finding *f, const char *where, const struct rd_probe_step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct rd_probe_step *s = &steps[i];
		char *path = rd_xasprintf("probe %s%s%s", where, *where ? " " : "", s->name);
		if (s->ok)
			rd_evidence_add(f, path, "%s", s->detail ? s->detail : "ok");
		else
			rd_evidence_add(f, path, "FAIL: %s%s%s", s->error, s->detail ? "; " : "", s->detail ? s->detail : "");
		free(path);
		for (size_t k = 0; k < s->fix.n; k++)
			rd_fix_add(f, "%s", s->fix.v[k]);
	}
}

void rd_probe_loopback(const struct rd_probe_result *res, struct rd_report *rep)
{
	static const char *const id = "probe.loopback";
	const struct rd_probe_step *hs = rd_probe_failed_step(res->steps, res->nsteps);
	if (hs) {
		struct rd_finding *f = rd_report_add(rep, id, RD_SUBJ_HOST, RD_FAIL, "host", "%s", hs->error);
		probe_evidence(f, "", res->steps, res->nsteps);
		return;
	}
	size_t counted = 0;
	for (size_t i = 0; i < res->nports; i++)
		counted += !(res->ports[i].state && !res->ports[i].active);
	for (size_t i = 0; i < res->nports; i++) {
		const struct rd_probe_port *p = &res->ports[i];
		char subj[160]; /* "rxe0 port 1", or the device when it did not open */
		if (p->port)
			snprintf(subj, sizeof subj, "%s port %u", p->device, p->port);
		else
			snprintf(subj, sizeof subj, "%s", p->device);
		const struct rd_probe_step *fs = rd_probe_failed_step(p->steps, p->nsteps);
		struct rd_finding *f;
		if (p->pass)
			f = rd_report_add(rep, id, RD_SUBJ_HOST, RD_OK, subj, "RDMA WRITE loopback verified on %s (active_mtu %u)", subj,
					  p->active_mtu);
		else if (p->state && !p->active)
			f = rd_report_add(rep, id, RD_SUBJ_HOST, counted ? RD_SKIP : RD_FAIL, subj, "%s%s", fs ? fs->error : "not Active",
					  counted ? " (not probed)" : "");
		else
			f = rd_report_add(rep, id, RD_SUBJ_HOST, RD_FAIL, subj, "%s", fs ? fs->error : "RDMA WRITE not verified");
		probe_evidence(f, subj, p->steps, p->nsteps);
	}
	if (!res->pass && res->nports == 0)
		rd_report_add(rep, id, RD_SUBJ_HOST, RD_FAIL, "host", "%s", res->error ? res->error : "the probe failed");
}

void rd_probe_loopback_not_run(struct rd_report *rep, double timeout_s, long long elapsed_ms)
{
	struct rd_finding *f = rd_report_add(rep, "probe.loopback", RD_SUBJ_HOST, RD_UNKNOWN, "host",
					     "not run: the checks took %.3g s of the --timeout of %g s, too little was left "
					     "for the probe",
					     elapsed_ms / 1000.0, timeout_s);
	rd_fix_add(f, "rdma-doctor --timeout %g check --probe    # a longer deadline", timeout_s * 2 > 30 ? timeout_s * 2 : 30);
}

void rd_probe_loopback_no_hardware(struct rd_report *rep)
{
	rd_report_add(rep, "probe.loopback", RD_SUBJ_HOST, RD_SKIP, "host",
		      "not run: this host has no RDMA NIC (no RDMA device and no Mellanox/NVIDIA network PCI function), "
		      "so there is no verbs path to verify");
}
