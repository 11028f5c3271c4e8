/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor snapshot -o FILE.tar.gz|FILE.tar|DIR`: load the host and system models (and the
 * policy, and ibstat's view) through a recording source, then write exactly what they read:
 * files, directories, links (as links), device nodes (as empty files, their modes in
 * rdma-doctor/devnodes), the read errors met and the command outputs captured.  A file only
 * stat'ed or only listed is an empty file with its mode (no bytes: the checks did not read them;
 * rd_stat_sized marks the few stats whose size a verdict depends on), and a listing holds only the
 * names the model asked for (rd_list_dir_only), so that a snapshot sent off site carries no more
 * of the host than the checks read.  `--root` on the
 * snapshot then gives the same answers as on the host, by construction. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "fabric/fabric.h"
#include "model/umad.h"
#include "render/out.h"
#include "run/guard.h"
#include "source/snapwrite.h"

#define MAX_NOTES 8

/* ibstat's and ibstatus's view: what libibumad reads (the host model reads the rest). */
static void load_umad_view(struct rd_source *src)
{
	struct rd_umad u = {.src = src};
	struct rd_strv names = {0};
	rd_umad_list(&u, &names);
	for (size_t i = 0; i < names.n; i++) {
		struct rd_umad_ca ca;
		if (rd_umad_get_ca(&u, names.v[i], &ca) < 0)
			continue;
		for (int port = 1; port <= ca.numports && port < RD_UMAD_MAX_PORTS; port++)
			if (ca.ports[port].present)
				rd_umad_rate_is_fdr10(&u, ca.name, port);
	}
	rd_strv_free(&names);
	rd_buf_free(&u.warnings);
}

/* rdma-doctor/devnodes, "NAME MODE UID GID" per node, from the model (the live nodes' stat, or
 * the devnodes of a snapshot being snapshotted again). */
static void add_devnodes(struct rd_snap_plan *plan, const struct rd_host *h)
{
	struct rd_buf b = {0};
	for (size_t i = 0; i < h->devnodes.n && h->devnode_perms; i++) {
		const struct rd_devnode_perm *pm = &h->devnode_perms[i];
		if (pm->mode != RD_MODE_UNKNOWN && !strpbrk(h->devnodes.v[i], " \t\n"))
			rd_buf_printf(&b, "%s %04o %u %u\n", h->devnodes.v[i], pm->mode, pm->uid, pm->gid);
	}
	if (b.len)
		rd_snap_plan_add(plan, "rdma-doctor/devnodes", b.data, b.len);
	rd_buf_free(&b);
}

/* What a live snapshot could not capture, one line each: the kernel log when dmesg failed (not
 * root, kernel.dmesg_restrict), files it was refused (other users' processes under hidepid, ...)
 * and reads that timed out. */
static void not_captured(const struct rd_recording *rec, struct rd_strv *notes)
{
	for (size_t i = 0; i < rec->ncommands; i++) {
		const struct rd_rec_command *c = &rec->commands[i];
		if (strcmp(c->name, "dmesg") != 0)
			continue;
		if (c->out.err == 0 && c->out.status != 0)
			rd_strv_push_owned(notes, rd_xasprintf("the kernel log: dmesg exited with status %d%s", c->out.status,
							       geteuid() ? " (reading it needs root or CAP_SYSLOG)" : ""));
		else if (c->out.err && c->out.err != ENOENT)
			rd_strv_push_owned(notes, rd_xasprintf("the kernel log: dmesg: %s", rd_strerror(c->out.err)));
	}
	unsigned refused = 0, timed_out = 0;
	const char *first_refused = NULL, *first_timed_out = NULL;
	for (size_t i = 0; i < rec->n; i++) {
		const struct rd_rec_entry *e = &rec->entries[i];
		if (e->kind != RD_REC_ERROR)
			continue;
		if (e->err == EACCES || e->err == EPERM) {
			if (!refused++)
				first_refused = e->path;
		} else if (e->err == ETIMEDOUT) {
			if (!timed_out++)
				first_timed_out = e->path;
		}
	}
	if (refused)
		rd_strv_push_owned(notes, rd_xasprintf("%u file%s refused (permission denied), first /%s%s", refused,
						       refused == 1 ? "" : "s", first_refused,
						       geteuid() ? ": run as root to capture other users' processes" : ""));
	if (timed_out)
		rd_strv_push_owned(notes, rd_xasprintf("%u read%s timed out, first /%s", timed_out, timed_out == 1 ? "" : "s",
						       first_timed_out));
}

static void add_meta(struct rd_snap_plan *plan, struct rd_source *src, const struct rd_host *h, time_t when,
		     const struct rd_snap_stats *st, const struct rd_strv *notes)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	char stamp[64]; /* UTC computed here: gmtime reads /etc/localtime, outside any --root */
	rd_utc_iso8601((long long)when, stamp, sizeof stamp);
	struct rd_out o;
	rd_out_init(&o, f, true);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/snapshot/v1");
	rd_out_str(&o, "host", NULL, rd_attr_ok(&h->hostname) ? h->hostname.value : NULL);
	rd_out_str(&o, "kernel", NULL, rd_attr_ok(&h->osrelease) ? h->osrelease.value : NULL);
	rd_out_str(&o, "time", NULL, stamp);
	rd_out_str(&o, "version", NULL, RD_VERSION);
	rd_out_str(&o, "source", NULL, rd_source_is_live(src) ? "live" : rd_source_root(src));
	rd_out_uint(&o, "uid", NULL, geteuid());
	rd_out_uint(&o, "files", NULL, st->files);
	rd_out_uint(&o, "links", NULL, st->links);
	rd_out_uint(&o, "read_errors", NULL, st->read_errors);
	rd_out_arr_begin(&o, "not_captured");
	for (size_t i = 0; i < notes->n; i++)
		rd_out_item_str(&o, NULL, notes->v[i]);
	rd_out_arr_end(&o);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
	if (fclose(f) == 0)
		rd_snap_plan_add(plan, "rdma-doctor/meta.json", text, len);
	free(text);
}

static volatile sig_atomic_t caught;
static void on_signal(int sig)
{
	caught = sig;
}

/* Creates, writes and puts the output in place.  SIGINT, SIGTERM and SIGHUP only set a flag
 * meanwhile (a handler, not a mask: the source layer may have a thread that would take the
 * signal); once the output is written it is removed if one came, and the signal is raised again
 * after the clean-up, so an interrupted snapshot leaves nothing. */
static int write_output(struct rd_ctx *ctx, const char *out, enum rd_snap_format fmt, bool force,
			struct rd_snap_plan *plan, time_t when)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction old[3], sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
	bool installed[3] = {false};
	sigemptyset(&sa.sa_mask);
	caught = 0;
	for (int i = 0; i < 3; i++)
		if (sigaction(sigs[i], NULL, &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
			installed[i] = sigaction(sigs[i], &sa, NULL) == 0;
	char err[1024] = "";
	struct rd_snap_out *o;
	int r = rd_snap_out_open(out, fmt, force, &o, err, sizeof err);
	if (r == 0) {
		r = rd_snap_out_write(o, plan, when, err, sizeof err);
		if (r == 0 && caught) {
			r = -EINTR;
			snprintf(err, sizeof err, "interrupted (%s); %s not written", strsignal(caught), out);
		}
		if (r < 0)
			rd_snap_out_abort(o);
		else
			r = rd_snap_out_commit(o, err, sizeof err);
	}
	if (r < 0)
		rd_text_printf(ctx->err, ctx->ascii, "%s: snapshot: %s\n", ctx->prog, err[0] ? err : strerror(-r));
	for (int i = 0; i < 3; i++)
		if (installed[i])
			sigaction(sigs[i], &old[i], NULL);
	if (caught)
		raise(caught);
	return r;
}

/* What a snapshot holds, read under the guard (run/guard.h) through a recording source: prints
 * nothing (a policy that cannot be read is policy_error, the defaults' services captured). */
struct snap_load_arg {
	struct rd_load_opts o;
	const char *policy;
	bool counters;
};
struct snap_load {
	struct rd_source *src;
	struct rd_recording rec;
	struct rd_policy pol;
	struct rd_host h;
	struct rd_system sys;
	char error[1024], policy_error[1024];
};

static int snap_load(void *out, const void *arg)
{
	const struct snap_load_arg *a = arg;
	struct snap_load *l = out;
	int r = rd_load_open(&a->o, &l->src, l->error, sizeof l->error);
	if (r < 0)
		return r;
	rd_source_allow_device_commands(l->src, true); /* the MFT tools, mlnx_qos, dcb: when installed */
	rd_source_record(l->src, &l->rec);
	if (rd_policy_load(a->policy, l->src, &l->pol, l->policy_error, sizeof l->policy_error) == 0)
		l->policy_error[0] = '\0';
	rd_host_load(l->src, 0, &l->h);
	const char **services = rd_xcalloc(l->pol.services.n + 1, sizeof *services);
	for (size_t i = 0; i < l->pol.services.n; i++)
		services[i] = l->pol.services.v[i];
	rd_system_load_parts(l->src, &l->h, services, 0, a->o.env_pid, &l->sys);
	free(services);
	if (l->pol.roce_trust[0] || l->pol.roce_pfc_set) /* as check loads it (run/load.c) */
		rd_mft_load_boot(l->src, &l->sys.mft);
	if (a->counters) /* the ports' counters, as check reads them (but the policy's [counters] exclude) */
		rd_link_counters_load(l->src, &l->h, &l->pol, &l->sys.link);
	load_umad_view(l->src);
	rd_source_record(l->src, NULL);
	return 0;
}

/* --fabric: the subnet's tools as `fabric` runs them (and dump_fts, for --route and --pairs), their
 * outputs recorded as rdma-doctor/commands/NAME; on a root, the captures it holds.  Each that
 * could not be had is a note. */
static void record_fabric(struct rd_source *src, struct rd_recording *rec, struct rd_strv *notes)
{
	rd_source_record(src, rec);
	struct rd_fab_input in[RD_FAB_NIN];
	rd_fab_read_inputs(src, true, true, in);
	struct rd_text ft;
	rd_fab_read_fts(src, &ft);
	rd_source_record(src, NULL);
	for (int i = 0; i < RD_FAB_NIN; i++)
		if (in[i].text.err)
			rd_strv_push_owned(notes, rd_xasprintf("fabric: %s: %s", in[i].command,
								in[i].text.err == RD_ENOTCAPTURED ? "not in the root"
												  : rd_strerror(in[i].text.err)));
	if (ft.err)
		rd_strv_push_owned(notes, rd_xasprintf("fabric: dump_fts: %s",
							ft.err == RD_ENOTCAPTURED ? "not in the root" : rd_strerror(ft.err)));
	rd_fab_inputs_free(in);
	rd_text_free(&ft);
}

int rd_cmd_snapshot(struct rd_ctx *ctx, int argc, char **argv)
{
	enum { OPT_COUNTERS = 256, OPT_FORCE, OPT_POLICY, OPT_NO_COUNTERS, OPT_ENV_FROM, OPT_FABRIC };
	static const struct option longopts[] = {
		RD_LONGOPT_HELP,
		{"output", required_argument, NULL, 'o'},
		{"counters", no_argument, NULL, OPT_COUNTERS},
		{"no-counters", no_argument, NULL, OPT_NO_COUNTERS},
		{"force", no_argument, NULL, OPT_FORCE},
		{"policy", required_argument, NULL, OPT_POLICY},
		{"env-from", required_argument, NULL, OPT_ENV_FROM},
		{"fabric", no_argument, NULL, OPT_FABRIC},
		{NULL, 0, NULL, 0},
	};
	const char *out = NULL, *policy_path = ctx->policy;
	bool counters = true, force = false, fabric = false; /* counters: as check reads them (model/link.h) */
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "o:", .longopts = longopts};
	int stop = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &stop)) != RD_OPT_END;) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return rd_usage_error(ctx, "snapshot", "-o needs a directory or FILE.tar.gz, not an empty string");
			out = optarg;
			break;
		case OPT_COUNTERS:
			counters = true;
			break;
		case OPT_NO_COUNTERS:
			counters = false;
			break;
		case OPT_FORCE:
			force = true;
			break;
		case OPT_FABRIC:
			fabric = true;
			break;
		case OPT_POLICY:
			policy_path = optarg;
			break;
		case OPT_ENV_FROM:
			if (rd_env_from_opt(ctx, "snapshot", optarg) < 0)
				stop = RD_EXIT_USAGE;
			break;
		}
	}
	if (stop >= 0)
		return stop;
	if (!out)
		return rd_usage_error(ctx, "snapshot", "-o FILE.tar.gz|FILE.tar|DIR is required");
	int fmt = rd_snap_format_of(out);
	if (fmt < 0)
		return rd_usage_error(ctx, "snapshot", "%s: the archive types written are .tar.gz, .tgz and .tar (or give a directory)",
				      out);
	/* refuse a target that cannot be written before reading the host */
	char err[1024] = "";
	if (rd_snap_out_check(out, (enum rd_snap_format)fmt, force, err, sizeof err) < 0) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: snapshot: %s\n", ctx->prog, err);
		return 2;
	}
	struct snap_load_arg a = {rd_ctx_load_opts(ctx), policy_path, counters};
	struct snap_load l;
	if (rd_guard_load(snap_load, &a, &l, sizeof l) < 0) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s\n", ctx->prog, l.error);
		return RD_EXIT_UNKNOWN;
	}
	if (l.policy_error[0])
		rd_text_printf(ctx->err, ctx->ascii, "%s: snapshot: %s (the default policy's services are captured)\n", ctx->prog,
			       l.policy_error);
	struct rd_source *src = l.src;
	struct rd_strv notes = {0};
	struct rd_snap_plan *plan = NULL;
	int rc = 0;
	if (fabric && rd_source_is_live(src) && !rd_fab_can_run_live(src)) {
		rd_text_printf(ctx->err, ctx->ascii,
			       "%s: snapshot: --fabric: no /dev/infiniband/umad*: this host has no InfiniBand port to query "
			       "the fabric through (ib_umad loaded?); nothing written\n",
			       ctx->prog);
		rc = RD_EXIT_UNKNOWN;
		goto done;
	}
	if (fabric) /* after the guarded load: the tools have their own timeouts (60 s each) */
		record_fabric(src, &l.rec, &notes);

	plan = rd_snap_plan_new(&l.rec);
	add_devnodes(plan, &l.h);
	if (rd_source_is_live(src))
		not_captured(&l.rec, &notes);
	struct rd_snap_stats st;
	rd_snap_plan_stats(plan, &st);
	time_t when = (time_t)rd_run_time(); /* reproducible snapshots of a root */
	add_meta(plan, src, &l.h, when, &st, &notes);

	rc = write_output(ctx, out, (enum rd_snap_format)fmt, force, plan, when) < 0 ? 2 : 0;
	if (rc == 0) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: snapshot: wrote %s (%u files, %u links, %u read errors recorded)\n", ctx->prog, out,
			st.files, st.links, st.read_errors);
		for (size_t i = 0; i < notes.n && i < MAX_NOTES; i++)
			rd_text_printf(ctx->err, ctx->ascii, "%s: snapshot: not captured: %s\n", ctx->prog, notes.v[i]);
	}
done:
	rd_strv_free(&notes);
	if (plan)
		rd_snap_plan_free(plan);
	rd_system_free(&l.sys);
	rd_host_free(&l.h);
	rd_policy_free(&l.pol);
	rd_recording_free(&l.rec);
	rd_source_close(src);
	return rc;
}
