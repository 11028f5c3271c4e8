/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The check runner: selects catalogue entries by --only / --skip lists and runs them.  On a host
 * without RDMA hardware (rd_host_has_rdma_hardware) every check but the inventory of the installed
 * stack SKIPs: a memlock limit, a kernel message or a service matters only to RDMA, and a login or
 * storage node must not be judged as a broken RDMA node. */
#include <string.h>

#include "checks/check.h"

bool rd_check_selected(const char *id, const char *list)
{
	if (!list)
		return false;
	size_t n = strlen(id);
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		/* "ports" selects every "ports.*" check */
		if ((len == n && strncmp(p, id, n) == 0) || (len < n && strncmp(p, id, len) == 0 && id[len] == '.'))
			return true;
		if (!comma)
			break;
		p = comma + 1;
	}
	return false;
}

const struct rd_check *rd_check_find(const char *id)
{
	for (const struct rd_check *c = rd_checks; c->id; c++)
		if (strcmp(c->id, id) == 0)
			return c;
	return NULL;
}

void rd_checks_run(const struct rd_host *h, const struct rd_system *sys, const struct rd_policy *p, bool live,
		   const char *only, const char *skip, struct rd_report *report)
{
	bool hardware = rd_host_has_rdma_hardware(h, sys);
	for (const struct rd_check *c = rd_checks; c->id; c++) {
		if ((only && !rd_check_selected(c->id, only)) || rd_check_selected(c->id, skip))
			continue;
		struct rd_check_ctx ctx = {.host = h, .sys = sys, .policy = p, .live = live, .report = report,
					   .check = c->id, .kind = c->subject_kind, .first = report->n};
		if (!hardware && strcmp(c->id, "stack.flavor") != 0 && strcmp(c->id, "kernel.log") != 0) {
			rd_finding_add(&ctx, RD_SKIP, "host", "no RDMA hardware on this host");
			continue;
		}
		c->run(&ctx);
		if (rd_check_quiet(&ctx))
			rd_finding_add(&ctx, RD_OK, "host", "%s", c->title);
	}
}
