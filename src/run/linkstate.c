/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The link samples kept between runs (linkstate.h; model/state.h for the file).
 *
 * Where: --state-dir DIR, else /var/lib/rdma-doctor on the live host.  Under --root no sample is
 * kept unless --state-dir is given: a root is another host (or the same one at another time), and
 * comparing it with this machine's samples would compare unrelated counters; with --state-dir,
 * successive snapshots of one host can be compared on purpose.  --root never moves the state
 * directory into the root.
 *
 * boot_id: the one of the host read, proc/sys/kernel/random/boot_id through the source (the
 * running kernel's on the live host, the captured one in a root); a root without it has an
 * unknown boot_id, and a change from or to unknown is a new baseline too.
 *
 * The file is read, locked and written only through run/statefile.c (one directory descriptor,
 * the ownership rule, flock); what a run compares with and what it keeps are model/state.h's
 * rules (a short history judged over the policy's [counters] window).  A run that judges only
 * one of link.counters (or roce.congestion, which judges the same sample) and link.flaps adds only
 * that kind's sample.  A dry run (slurm -n) and
 * --no-counters only read.  Every problem becomes a message in the model and a new baseline,
 * never an abort. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/state.h"
#include "run/linkstate.h"
#include "run/statefile.h"
#include "util/util.h"

/* This run's sample of kind. */
static void sample_now(const struct rd_loaded *l, int kind, long long now, struct rd_state_sample *out)
{
	const struct rd_link *lk = &l->sys.link;
	struct rd_state tmp = {0};
	const char *boot = rd_attr_ok(&lk->boot_id) ? lk->boot_id.value : "";
	struct rd_state_sample *st = rd_state_add_sample(&tmp, kind, now, boot);
	if (kind == RD_SAMPLE_COUNTERS) {
		for (size_t i = 0; i < l->h.ndevices; i++) {
			const struct rd_device *d = &l->h.devices[i];
			for (size_t k = 0; k < d->nports; k++) {
				const struct rd_port *p = &d->ports[k];
				for (size_t c = 0; c < p->ncounters; c++)
					if (rd_attr_ok(&p->counters[c].attr))
						rd_state_add(st, RD_STATE_COUNTER, d->name, p->num, p->counters[c].name,
							     p->counters[c].value);
				for (size_t c = 0; c < p->nhw_counters; c++)
					if (rd_attr_ok(&p->hw_counters[c].attr))
						rd_state_add(st, RD_STATE_HW, d->name, p->num, p->hw_counters[c].name,
							     p->hw_counters[c].value);
			}
		}
		/* roce.congestion: ethtool -S of each RoCE port's netdev, when this run read it */
		const struct rd_mft *m = &l->sys.mft;
		for (size_t i = 0; !m->unloaded && i < m->nqos; i++)
			for (size_t k = 0; m->qos[i].eth && k < m->qos[i].eth->n; k++)
				rd_state_add(st, RD_STATE_ETHTOOL, m->qos[i].dev, m->qos[i].port, m->qos[i].eth->v[k].name,
					     m->qos[i].eth->v[k].value);
	} else {
		for (size_t i = 0; i < lk->nnetdevs; i++)
			if (rd_attr_ok(&lk->netdevs[i].carrier_changes))
				rd_state_add(st, RD_STATE_NETDEV, lk->netdevs[i].name, 0, "carrier_changes",
					     lk->netdevs[i].changes);
	}
	*out = *st;
	free(tmp.s);
}

/* The state directory of this run, or NULL; *default_dir when it is RD_STATE_DIR_DEFAULT. */
static const char *state_dir(const struct rd_link_opts *o, const char *root, bool *default_dir)
{
	*default_dir = !o->state_dir && !rd_load_is_root(root);
	const char *dir = *default_dir ? RD_STATE_DIR_DEFAULT : o->state_dir;
	return dir && *dir ? dir : NULL;
}

bool rd_link_wants_counters(const struct rd_link_opts *o, const char *root)
{
	bool default_dir;
	return o->keep && !o->no_counters &&
	       ((o->judged[RD_SAMPLE_COUNTERS] && state_dir(o, root, &default_dir)) || o->show_counters);
}

void rd_link_keep(const struct rd_link_opts *o, const char *root, double timeout_s, struct rd_loaded *l)
{
	struct rd_link *lk = &l->sys.link;
	if (!o->keep)
		return;
	const bool *judged = o->judged;
	bool default_dir;
	const char *dir = state_dir(o, root, &default_dir);
	bool have_dir = dir != NULL;
	struct rd_link_sample *s = &lk->sample;
	if (o->no_counters)
		lk->counters_off = true; /* else read by the load when rd_link_wants_counters */
	s->now = rd_run_time();
	s->window = l->pol.counters_window_s > 0 ? l->pol.counters_window_s : RD_STATE_WINDOW_DEFAULT;
	if (!judged[0] && !judged[1])
		return; /* nothing compares: the samples are neither read nor replaced */
	if (!have_dir) {
		s->no_dir = true;
		return;
	}
	s->kept = true;
	for (int k = 0; k < 2; k++) /* none yet: what an unreadable or missing directory leaves */
		rd_state_baseline(&s->hist, k, "", s->now, s->window, &s->base[k]);
	s->dir = rd_xstrdup(dir);
	const char *host = rd_attr_ok(&l->h.hostname) && *l->h.hostname.value ? l->h.hostname.value : "localhost";
	char name[RD_STATE_NAME_MAX * 4 + 16];
	rd_state_file_name(host, name, sizeof name);
	s->file = rd_path_join(dir, name);
	char safe_host[RD_STATE_NAME_MAX * 4];
	snprintf(safe_host, sizeof safe_host, "%.*s", (int)(strlen(name) - strlen(".link-state")), name);
	const char *boot = rd_attr_ok(&lk->boot_id) && rd_state_name_ok(lk->boot_id.value) ? lk->boot_id.value : "";

	/* who writes: not a dry run, not --no-counters, and on the live host's default directory
	 * not a user who cannot write it (root's runs keep the samples; such a user only reads them) */
	if (o->dry_run)
		s->reader_why = "a dry run writes no sample";
	else if (o->no_counters)
		s->reader_why = "--no-counters writes no sample";
	bool update = !s->reader_why;
	struct rd_statefile sf;
	char err[1024] = "";
	int r;
	if (update && default_dir && geteuid() != 0) {
		r = rd_statefile_open(&sf, dir, safe_host, false, err, sizeof err);
		if (r < 0 || !rd_statefile_writable(&sf)) {
			update = false;
			s->reader_why = "this user cannot write the state directory; root's runs keep the samples";
		}
		rd_statefile_close(&sf);
	}
	s->reader = !update;
	r = rd_statefile_open(&sf, dir, safe_host, update, err, sizeof err);
	if (r == -ENOENT) {
		rd_statefile_close(&sf);
		return; /* no directory: no samples, none written (a reader) */
	}
	if (r < 0) {
		s->prev_problem = rd_xstrdup(err);
		if (update) {
			s->write_problem = rd_xstrdup(err);
			s->write_err = -r;
		}
		rd_statefile_close(&sf);
		return;
	}
	/* the wait for another run's lock: at most RD_STATEFILE_WAIT_S, and half of a shorter --timeout */
	double wait = timeout_s > 0 && timeout_s / 2 < RD_STATEFILE_WAIT_S ? timeout_s / 2 : RD_STATEFILE_WAIT_S;
	int lr = rd_statefile_lock(&sf, wait, err, sizeof err);
	if (lr < 0 && update) {
		s->write_problem = rd_xstrdup(err);
		s->write_err = -lr;
	}
	r = rd_statefile_read(&sf, &s->hist, err, sizeof err);
	if (r < 0)
		s->prev_problem = rd_xstrdup(err);
	if (r == -EPERM && update && !s->write_problem) {
		/* a state file of another user's is refused, not replaced: someone must look at it */
		s->write_problem = rd_xasprintf("%s; not replaced", err);
		s->write_err = EPERM;
	}
	if (r == 1 && strcmp(s->hist.host, safe_host) != 0) {
		s->prev_problem = rd_xasprintf("%s holds the samples of host %s, not %s", s->file, s->hist.host, safe_host);
		rd_state_free(&s->hist);
	}
	for (int k = 0; k < 2; k++)
		rd_state_baseline(&s->hist, k, boot, s->now, s->window, &s->base[k]);
	if (update && sf.locked && !s->write_problem) {
		/* what is written: the history read (a file that does not parse starts again), with
		 * this run's sample of each kind it judges; the baselines above point into s->hist */
		struct rd_state next = {0};
		snprintf(next.host, sizeof next.host, "%s", safe_host);
		for (size_t i = 0; i < s->hist.ns; i++) {
			const struct rd_state_sample *from = &s->hist.s[i];
			struct rd_state_sample *to = rd_state_add_sample(&next, from->kind, from->time, from->boot_id);
			for (size_t j = 0; j < from->n; j++)
				rd_state_add(to, from->e[j].kind, from->e[j].dev, from->e[j].port, from->e[j].name,
					     from->e[j].value);
		}
		size_t added = 0;
		for (int k = 0; k < 2; k++) {
			if (!judged[k])
				continue;
			struct rd_state_sample cur;
			sample_now(l, k, s->now, &cur);
			if (cur.n) {
				rd_state_record(&next, &cur, s->now, s->window);
				added++;
			}
			rd_state_sample_free(&cur);
		}
		if (added) {
			r = rd_statefile_write(&sf, &next, err, sizeof err);
			if (r < 0) {
				s->write_problem = rd_xstrdup(err);
				s->write_err = -r;
			}
			s->written = r == 0;
		}
		rd_state_free(&next);
	}
	rd_statefile_close(&sf);
}
