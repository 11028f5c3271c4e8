/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The run layer's load (load.h). */
#include "run/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/link.h"
#include "run/guard.h"
#include "source/watchdog.h"
#include "util/util.h"

bool rd_load_is_root(const char *root)
{
	return root && *root && strcmp(root, "/") != 0;
}

int rd_load_open(const struct rd_load_opts *o, struct rd_source **src, char *err, size_t errlen)
{
	err[0] = '\0';
	/* one read may take 2 s (a wedged HCA), the whole run --timeout, reading an archive included */
	int run = o->timeout_s > 0 ? (int)(o->timeout_s * 1000) : 0;
	long long deadline = run ? rd_mono_ms() + run : 0, kept = rd_watchdog_deadline();
	if (run && kept) /* a replaying loader: the first loader's deadline */
		deadline = kept;
	int r = rd_source_open_until(rd_load_is_root(o->root) ? o->root : NULL, deadline, src, err, errlen);
	if (r < 0) {
		if (!err[0])
			snprintf(err, errlen, "%s", strerror(-r));
		return r;
	}
	if (run) {
		long long left = deadline - rd_mono_ms();
		int rest = left > 1 ? (int)left : 1;
		rd_source_set_deadlines(*src, rest < 2000 ? rest : 2000, rest);
	}
	return 0;
}

/* The load itself, on a loader thread (guard.h): reads and builds, prints nothing. */
static int load(void *out, const void *arg)
{
	const struct rd_load_opts *o = arg;
	struct rd_loaded *l = out;
	int r = rd_load_open(o, &l->src, l->error, sizeof l->error);
	if (r < 0)
		return r;
	rd_source_memo(l->src, true); /* one view of the host for the whole load */
	rd_source_allow_device_commands(l->src, o->mft);
	if (rd_policy_load(o->policy, l->src, &l->pol, l->error, sizeof l->error) < 0) {
		l->policy_failed = true;
		rd_policy_free(&l->pol);
		rd_source_close(l->src);
		l->src = NULL;
		return -EINVAL;
	}
	rd_host_load(l->src, o->parts, &l->h);
	rd_policy_add_driver_modules(&l->pol, &l->h); /* the default set follows the host's devices */
	char unmatched[512];
	int nu = l->h.devices_err ? 0 : rd_policy_unmatched_ignores(&l->pol, &l->h, unmatched, sizeof unmatched);
	if (nu)
		snprintf(l->notice, sizeof l->notice, "%s:%d: ignore: %s %s no RDMA device or port on this host",
			 l->pol.origin, l->pol.ignore_line, unmatched, nu == 1 ? "names" : "name");
	const char **services = rd_xcalloc(l->pol.services.n + 1, sizeof *services);
	for (size_t i = 0; o->with_services && i < l->pol.services.n; i++)
		services[i] = l->pol.services.v[i];
	rd_system_load_parts(l->src, &l->h, services, o->parts, o->env_pid, &l->sys);
	free(services);
	if (l->pol.roce_trust[0] || l->pol.roce_pfc_set) /* roce.qos: is what the policy sets set at boot */
		rd_mft_load_boot(l->src, &l->sys.mft);
	if (o->counters) /* each read can be a firmware command */
		rd_link_counters_load(l->src, &l->h, &l->pol, &l->sys.link);
	rd_source_memo(l->src, false); /* what the command reads after its load is read again */
	return 0;
}

int rd_load(const struct rd_load_opts *o, struct rd_loaded *l)
{
	int r = rd_guard_load(load, o, l, sizeof *l);
	return r < 0 ? r : 0;
}

void rd_loaded_free(struct rd_loaded *l)
{
	rd_system_free(&l->sys);
	rd_host_free(&l->h);
	rd_policy_free(&l->pol);
	rd_source_close(l->src);
	memset(l, 0, sizeof *l);
}
