/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor watch`: a long-running check that listens instead of polling.  One epoll loop over
 * the kernel log (/dev/kmsg), the netdevs' link changes (rtnetlink), the RDMA devices' and netdevs'
 * arrivals, removals and renames (kernel uevents), the verbs async events of the devices whose
 * driver releases an open context at removal (source/verbsev.h: the others are followed by their
 * netdev and uevents only, as a context of theirs would hold `rdma link delete` and rmmod), the
 * --interval timer, the debounce timer, the systemd watchdog timer and the signals (signalfd).  An
 * event re-runs the guarded load and the checks it concerns:
 *   a netdev's link, a verbs port event (PORT_ERR ...)       ports.state, link.flaps, roce.* (but
 *                                                            roce.congestion, the full judgements')
 *     (and again RD_WATCH_SETTLE_MS later, up to RD_WATCH_SETTLE_ROUNDS times, while a port read
 *     does not follow its netdev yet: rtnetlink tells the change before the RDMA driver follows it)
 *   kernel log lines      kernel.log, on those lines alone (what they find is added to its findings)
 *   a device, a module, DEVICE_FATAL, the timer, SIGHUP (the policy re-read), an overrun of a netlink
 *   socket                                                     every check
 * After every full judgement the set of devices open for verbs events is made the model's
 * (a device added, removed or renamed is opened or closed), and a line says which are followed and
 * which are not, and why, when that changes.
 * then writes the Prometheus textfile (check --format prometheus --output's renderer, atomically)
 * and prints one line per judgement and one per finding whose status changed.  Events are
 * coalesced: a judgement runs at once, then at most one per RD_WATCH_DEBOUNCE_MS; kernel lines are
 * judged at most once a second, RD_WATCH_LINES_PER_S a second, the rest counted.
 * With --slurm, each judgement that changes what Slurm should be told (and every full one) drains
 * or resumes the node as `rdma-doctor slurm` does (cmd/slurm.h), except that a port that is not
 * ACTIVE follows the policy's flap damping rules (run/damp.h): a timer wakes the loop when a held
 * port's time is up or a resume may happen. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>

#include "checks/check.h"
#include "cmd/cmd.h"
#include "cmd/emit.h"
#include "cmd/slurm.h"
#include "model/state.h"
#include "render/out.h"
#include "render/prometheus.h"
#include "render/report.h"
#include "run/damp.h"
#include "run/historydir.h"
#include "run/watchnotify.h"
#include "run/watchreport.h"
#include "source/kmsg.h"
#include "source/rtnl.h"
#include "source/text.h"
#include "source/uevent.h"
#include "source/verbsev.h"
#include "util/util.h"

#define RD_WATCH_DEBOUNCE_MS 200
#define RD_WATCH_KMSG_GAP_MS 1000        /* between two judgements of kernel lines alone */
#define RD_WATCH_LINES_PER_S 200         /* kernel lines judged a second */
#define RD_WATCH_LINES_MAX (256 * 1024)  /* bytes of kernel lines waiting for their judgement */
#define RD_WATCH_NETDEV_CHECKS "ports.state,link.flaps,roce"
/* what a netdev event re-runs: RD_WATCH_NETDEV_CHECKS but roce.congestion, a judgement of
 * counters over time (read and sampled by the full judgements, as link.counters' are), not of a
 * link's state */
#define RD_WATCH_NETDEV_RUN "ports.state,link.flaps,roce.mtu,roce.gid,roce.qos"
#define RD_WATCH_SETTLE_MS 250           /* the ports read again after a judgement that saw one lag */
#define RD_WATCH_SETTLE_ROUNDS 3         /* at most so many times after a netdev event */
#define RD_WATCH_NETDEVS 64              /* netdevs whose last told state is kept */
#define RD_WATCH_SLURM_RETRY_MS 30000    /* after scontrol failed */
#define RD_WATCH_SCONTROL_MS 10000       /* each scontrol: two of them stay below the unit's WatchdogSec=30 */
/* --history-dir: at most one report a minute (a change within it is written when the minute is
 * up, as the report then stands), so a port flapping for days keeps at most 1,440 reports a day,
 * and two downs within 5 min, fleet --history's tightest rule, are still two reports */
#define RD_WATCH_HISTORY_GAP_MS 60000

enum { EV_KMSG = 1, EV_NETDEV = 2, EV_FULL = 4 }; /* by how much a judgement re-runs */
enum { SRC_SIGNAL, SRC_KMSG, SRC_RTNL, SRC_UEVENT, SRC_INTERVAL, SRC_DEBOUNCE, SRC_WATCHDOG, SRC_VERBS, SRC_SETTLE,
       SRC_RULE, SRC_HISTORY };

/* watch --history-dir: the reports kept for fleet --history (run/historydir.h) */
struct watch_history {
	const char *dir;
	long long days;           /* 0: RD_HISTDIR_DAYS */
	int timer;                /* the gap is up: the change it held back is written */
	bool due;                 /* a change (or the start) not written yet */
	bool written, armed;
	long long last_ms;        /* the last write (monotonic) */
};

/* watch --slurm: the node, the damping, and what Slurm was last told */
struct watch_slurm {
	bool on;
	char node[256];
	enum rd_status level;
	int timer;                /* a damping rule's time is up */
	struct rd_damp damp;
	char *told;               /* the key of the last decision Slurm was given (NULL: none yet) */
	long long retry_at;       /* scontrol failed: when to try again, whatever the key (0: none) */
	struct rd_strv rules;     /* the rules' words of the decision being made */
	const char *action;       /* of the last decision: for the textfile */
	char rule[512];
};

struct watch {
	struct rd_ctx *ctx;
	const char *policy, *output;
	int interval_s;
	int ep, sig, interval, debounce, wdog, uevent, settle;
	bool debounce_armed;
	bool netdev_seen;               /* a netdev event since the last judgement */
	int settle_left;                /* readings again still allowed since the last netdev event */
	struct {
		char name[16];
		bool up;                /* IFF_UP and IFF_RUNNING in its last event */
	} nd[RD_WATCH_NETDEVS];         /* the netdevs' states as rtnetlink last told them */
	struct rd_kmsg kmsg;
	struct rd_rtnl *rtnl;
	struct rd_verbsev *verbs;
	bool verbs_polled;              /* its descriptor is in ep */
	char *verbs_said;               /* the last line about which devices it follows */
	struct rd_kmsg_limit limit;
	struct rd_buf lines;            /* kernel lines waiting, as dmesg prints them */
	unsigned long long lines_over;  /* not kept: RD_WATCH_LINES_MAX reached */
	unsigned long long lost_told;   /* k->lost already said */
	unsigned pending;               /* EV_* */
	char cause[200];                /* the first pending event */
	unsigned ncause;
	long long last_judged_ms, last_kmsg_ms;
	bool have_model;
	struct rd_loaded model;         /* the last full load: what the textfile shows of the host */
	struct rd_report report;
	const char *notify;
	bool stop;
	struct watch_slurm slurm;
	struct watch_history history;
	bool slurm_force; /* the next decision tells Slurm even what it was told last */
	/* what the run saw, said when it stops: judgements, and events by source (a netdev's change as
	 * rtnetlink tells it, a verbs event, a device event, a kernel line taken) */
	unsigned long long n_judged, n_netdev, n_verbs, n_device, n_lines;
};

static void stamp(char *buf, size_t len)
{
	rd_utc_iso8601(rd_run_time(), buf, len);
}

/* One line on standard output, after the time. */
static void say(struct watch *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct watch *w, const char *fmt, ...)
{
	char when[32];
	stamp(when, sizeof when);
	fprintf(w->ctx->out, "%s ", when);
	va_list ap;
	va_start(ap, fmt);
	rd_text_vprintf(w->ctx->out, w->ctx->ascii, fmt, ap);
	va_end(ap);
	fputc('\n', w->ctx->out);
}

static void arm(int fd, long long first_ms, long long every_ms)
{
	struct itimerspec it = {
		.it_value = {(time_t)(first_ms / 1000), (long)(first_ms % 1000) * 1000000L},
		.it_interval = {(time_t)(every_ms / 1000), (long)(every_ms % 1000) * 1000000L},
	};
	(void)timerfd_settime(fd, 0, &it, NULL);
}

/* An event: pending until the next judgement, which runs at once when none ran in the last
 * RD_WATCH_DEBOUNCE_MS (the loop's end decides: see settle).  The judgement names the first event
 * of the kind that decides what it re-runs. */
static void note(struct watch *w, unsigned ev, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(struct watch *w, unsigned ev, const char *fmt, ...)
{
	bool wider = ev > w->pending;
	w->pending |= ev;
	if (w->ncause++ == 0 || wider) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->cause, sizeof w->cause, fmt, ap);
		va_end(ap);
	}
}

static const char *status_word(int st)
{
	return st == RD_WATCH_NONE ? "none" : rd_status_name((enum rd_status)st);
}

struct change_ctx {
	struct watch *w;
	const char *cause;
	bool first;    /* the first judgement: only what is not OK is said */
	size_t said;
};

static void change(const char *check, const char *subject, int was, int now, void *arg)
{
	struct change_ctx *c = arg;
	if (c->first && (now == RD_OK || now == RD_SKIP))
		return;
	say(c->w, "change %s %s: %s -> %s (%s)", check, subject, status_word(was), status_word(now), c->cause);
	c->said++;
}

/* Which samples this judgement keeps (run/linkstate.h): only those of the checks it runs. */
static void link_judged(struct rd_ctx *ctx, const char *ran)
{
	ctx->link.judged[RD_SAMPLE_COUNTERS] =
		!ran || rd_check_selected("link.counters", ran) || rd_check_selected("roce.congestion", ran);
	ctx->link.judged[RD_SAMPLE_CARRIER] = !ran || rd_check_selected("link.flaps", ran);
}

/* The full load (what `check --format prometheus` reads) and the checks ran selects (NULL: all),
 * their findings in place of the old ones.  False when the host or the policy could not be read
 * (the line printed; the report and the model stay the last ones). */
static bool judge_loaded(struct watch *w, const char *ran)
{
	struct rd_ctx *ctx = w->ctx;
	ctx->load_flags = 0;
	ctx->link.keep = true;
	ctx->link.show_counters = true;
	link_judged(ctx, ran);
	struct rd_loaded l;
	if (rd_ctx_load(ctx, w->policy, true, &l) < 0)
		return false;
	rd_link_keep(&ctx->link, ctx->root, ctx->timeout_s, &l);
	struct rd_report next = {0};
	rd_checks_run(&l.h, &l.sys, &l.pol, rd_source_is_live(l.src), ran, NULL, &next);
	rd_watch_replace(&w->report, ran, &next);
	if (w->have_model)
		rd_loaded_free(&w->model);
	w->model = l;
	w->have_model = true;
	rd_damp_rules_from_policy(&w->slurm.damp.rules, &l.pol); /* SIGHUP's policy too */
	return true;
}

/* kernel.log on the waiting lines alone, over the model of the last judgement: nothing is read for
 * it, as a read can log a kernel line of its own (a counter on some HCAs; on rxe every port query,
 * lid or sm_lid or rate, logs "NETDEV speed is unknown" when the netdev has no speed) and a
 * judgement of lines that reads would then be followed by another, every second, for ever. */
static void judge_lines(struct watch *w)
{
	if (!w->lines.len || !w->have_model) {
		rd_buf_free(&w->lines);
		return;
	}
	struct rd_loaded *l = &w->model;
	struct rd_text kept = l->sys.dmesg;
	size_t len = w->lines.len;
	l->sys.dmesg = (struct rd_text){.data = rd_buf_steal(&w->lines), .len = len};
	struct rd_report next = {0};
	rd_checks_run(&l->h, &l->sys, &l->pol, rd_source_is_live(l->src), "kernel.log", NULL, &next);
	rd_watch_merge(&w->report, "kernel.log", &next);
	rd_text_free(&l->sys.dmesg);
	l->sys.dmesg = kept;
	rd_buf_free(&w->lines);
}

struct textfile {
	const struct watch *w;
	struct rd_report_meta meta;
};

static void textfile_fill(FILE *f, void *arg)
{
	const struct textfile *t = arg;
	rd_report_prometheus(f, &t->w->report, &t->w->model.h, &t->w->model.sys, &t->meta, rd_run_time());
	const struct watch_slurm *s = &t->w->slurm;
	if (!s->on)
		return;
	if (s->action) {
		fputs("# HELP rdma_doctor_watch_slurm_decision What watch --slurm last did with the node (action), and the "
		      "damping rule that made it (rule, empty when none did).\n"
		      "# TYPE rdma_doctor_watch_slurm_decision gauge\n"
		      "rdma_doctor_watch_slurm_decision{node=\"", f);
		rd_prom_label_value(f, s->node);
		fprintf(f, "\",action=\"%s\",rule=\"", s->action);
		rd_prom_label_value(f, s->rule);
		fputs("\"} 1\n", f);
	}
	if (s->damp.n) {
		fputs("# HELP rdma_doctor_watch_port_downs_total Times watch saw the port go down (a ports.state FAIL) since "
		      "it started.\n# TYPE rdma_doctor_watch_port_downs_total counter\n", f);
		for (size_t i = 0; i < s->damp.n; i++) {
			fputs("rdma_doctor_watch_port_downs_total{subject=\"", f);
			rd_prom_label_value(f, s->damp.ports[i].subject);
			fprintf(f, "\"} %llu\n", s->damp.ports[i].total_downs);
		}
	}
}

/* The textfile as check --format prometheus --output writes it: the same renderer, the same
 * atomic write (a failure is one line naming the file; the next judgement tries again). */
static void write_textfile(struct watch *w)
{
	if (!w->output || !w->have_model)
		return;
	const struct rd_loaded *l = &w->model;
	char when[32];
	stamp(when, sizeof when);
	bool live = rd_source_is_live(l->src);
	struct textfile t = {w, {.root = live ? NULL : rd_source_root(l->src), .time = when, .ascii = w->ctx->ascii,
				 .no_hardware = !rd_host_has_rdma_hardware(&l->h, &l->sys)}};
	(void)rd_output_atomic(w->ctx, "watch", w->output, textfile_fill, &t);
}

/* The report as check --format json prints it, into --history-dir: after the first judgement and
 * each one that changed a finding's status, at most one per RD_WATCH_HISTORY_GAP_MS (a change
 * within the gap is written when it is up, as the report then stands; force: at the stop, a
 * change held back).  A failure is one line on stderr; the next change tries again. */
static void write_history(struct watch *w, bool force)
{
	struct watch_history *hs = &w->history;
	if (!hs->dir || !hs->due || !w->have_model)
		return;
	long long now = rd_mono_ms(), next = hs->last_ms + RD_WATCH_HISTORY_GAP_MS;
	if (hs->written && now < next && !force) {
		if (!hs->armed)
			arm(hs->timer, next - now, 0);
		hs->armed = true;
		return;
	}
	hs->due = false;
	hs->written = true;
	hs->last_ms = now;
	const struct rd_loaded *l = &w->model;
	long long t = rd_run_time();
	char when[32];
	rd_utc_iso8601(t, when, sizeof when);
	bool live = rd_source_is_live(l->src);
	struct rd_report_meta meta = {.root = live ? NULL : rd_source_root(l->src), .time = when, .ascii = w->ctx->ascii,
				      .no_hardware = !rd_host_has_rdma_hardware(&l->h, &l->sys)};
	rd_emit_history_write(w->ctx, "watch", hs->dir, hs->days, t, &w->report, &l->h, &l->sys, &l->pol, &meta);
}

/* ---- --slurm ------------------------------------------------------------------------------- */

static bool port_down(const struct rd_finding *f)
{
	return f->kind == RD_SUBJ_PORT && f->status == RD_FAIL && strcmp(f->check, "ports.state") == 0;
}

struct held_ctx {
	struct watch *w;
	long long now;
};

/* rd_slurm_run.held: a port down that the damping rules hold back from draining */
static const char *held_rule(const struct rd_finding *f, void *arg)
{
	struct held_ctx *h = arg;
	char rule[512];
	long long wake = 0;
	if (!port_down(f) || rd_damp_may_drain(&h->w->slurm.damp, f->subject, h->now, rule, sizeof rule, &wake))
		return NULL;
	rd_strv_push(&h->w->slurm.rules, rule);
	return h->w->slurm.rules.v[h->w->slurm.rules.n - 1];
}

static const char *action_name(int act)
{
	switch (act) {
	case RD_SLURM_NOTHING:
		return "nothing";
	case RD_SLURM_DRAIN:
		return "drain";
	case RD_SLURM_RESUME:
		return "resume";
	case RD_SLURM_KEEP_FOREIGN:
		return "kept";
	case RD_SLURM_KEEP_UNKNOWN:
		return "unknown";
	case RD_SLURM_HOLD:
		return "held";
	}
	return "error";
}

static void write_textfile(struct watch *w);
static void notify(struct watch *w, const char *state);

/* Tells Slurm what the report says, when that differs from what it was last told (or force: the
 * start, SIGHUP, the interval, and after scontrol failed), and arms the rule timer for the next
 * time a damping rule's answer changes. */
static void slurm_decide(struct watch *w, const char *cause, bool force)
{
	struct watch_slurm *s = &w->slurm;
	if (!s->on || !w->have_model)
		return;
	long long now = rd_mono_ms(), wake = 0;
	struct rd_buf key = {0};
	char drain_rule[512] = "", rule[512];
	rd_buf_puts(&key, "");
	for (size_t i = 0; i < w->report.n; i++) {
		const struct rd_finding *f = &w->report.findings[i];
		if (!(f->status == RD_FAIL || (f->status == RD_WARN && s->level == RD_WARN)) ||
		    (f->no_drain && f->status != RD_FAIL))
			continue;
		long long at = 0;
		bool held = port_down(f) && !rd_damp_may_drain(&s->damp, f->subject, now, rule, sizeof rule, &at);
		if (held && (!wake || at < wake))
			wake = at;
		if (port_down(f) && !held && !drain_rule[0])
			snprintf(drain_rule, sizeof drain_rule, "%s", rule);
		rd_buf_printf(&key, "%c %s %s\n", held ? 'h' : 'd', f->check, f->subject);
	}
	char hold[512];
	long long at = 0;
	bool may_resume = rd_damp_may_resume(&s->damp, now, hold, sizeof hold, &at);
	if (!may_resume) {
		rd_buf_puts(&key, "r\n");
		if (!wake || at < wake)
			wake = at;
	}
	if (s->retry_at && now >= s->retry_at)
		force = true;
	if (!force && s->told && strcmp(s->told, key.data) == 0) {
		rd_buf_free(&key);
		if (s->retry_at && (!wake || s->retry_at < wake))
			wake = s->retry_at;
		arm(s->timer, wake > now ? wake - now : 0, 0); /* 0: none due, disarmed */
		return;
	}
	char when[32], pre[64];
	stamp(when, sizeof when);
	snprintf(pre, sizeof pre, "%s slurm ", when);
	struct held_ctx hc = {w, now};
	const struct rd_slurm_run run = {.node = s->node, .level = s->level, .pre = pre, .held = held_rule, .arg = &hc,
					 .hold = may_resume ? NULL : hold, .timeout_ms = RD_WATCH_SCONTROL_MS};
	say(w, "slurm: deciding (%s)", cause);
	if (w->wdog >= 0)
		notify(w, "WATCHDOG=1"); /* the loop is alive: scontrol may now take its time */
	int act = rd_slurm_sync(w->ctx, &run, &w->report, !rd_host_has_rdma_hardware(&w->model.h, &w->model.sys));
	s->action = action_name(act);
	s->rule[0] = '\0';
	if (act == RD_SLURM_DRAIN && drain_rule[0])
		snprintf(s->rule, sizeof s->rule, "%s", drain_rule);
	else if (act == RD_SLURM_HOLD)
		snprintf(s->rule, sizeof s->rule, "%s", s->rules.n ? s->rules.v[0] : hold);
	if (s->rule[0])
		say(w, "slurm rule: %s", s->rule);
	rd_strv_free(&s->rules);
	free(s->told);
	s->told = rd_buf_steal(&key);
	/* scontrol missing, failing or hung: not again at every judgement (each may take its timeout)
	 * but after RD_WATCH_SLURM_RETRY_MS, or at once when what Slurm should be told changes */
	s->retry_at = act < 0 ? now + RD_WATCH_SLURM_RETRY_MS : 0;
	if (s->retry_at && (!wake || s->retry_at < wake))
		wake = s->retry_at;
	arm(s->timer, wake > now ? wake - now : 0, 0);
	write_textfile(w);
	fflush(w->ctx->out);
}

static int add_fd(struct watch *w, int fd, int id);

/* Whether a port just read disagrees with the state rtnetlink last told of its netdev (ACTIVE on a
 * netdev down or without carrier, or not ACTIVE on one up and running): the RDMA driver had not
 * followed the netdev yet when the port was read (rxe sets its port in a netdev notifier that runs
 * after the RTM_NEWLINK is sent), so the ports are read again RD_WATCH_SETTLE_MS later (a port that
 * never follows, down on a netdev that is up, is read again RD_WATCH_SETTLE_ROUNDS times only). */
static bool ports_lag(const struct watch *w)
{
	const struct rd_host *h = &w->model.h;
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		for (size_t j = 0; j < d->nports; j++) {
			const struct rd_port *p = &d->ports[j];
			if (p->state_v < 0)
				continue;
			for (size_t k = 0; k < sizeof w->nd / sizeof w->nd[0] && w->nd[k].name[0]; k++) {
				bool named = d->parent && strcmp(d->parent, w->nd[k].name) == 0;
				for (size_t n = 0; n < p->nnetdevs && !named; n++)
					named = p->netdevs[n].name && strcmp(p->netdevs[n].name, w->nd[k].name) == 0;
				if (named && w->nd[k].up != (p->state_v == 4))
					return true;
			}
		}
	}
	return false;
}

/* The devices open for verbs events made those of the model whose driver releases an open context
 * at removal (source/verbsev.h); the line saying which are followed, when it changed.  A root that
 * is not the live host opens none: its devices are not this kernel's. */
static void sync_verbs(struct watch *w)
{
	const struct rd_host *h = &w->model.h;
	bool live = rd_source_is_live(w->model.src);
	const char **want = rd_xcalloc(h->ndevices + 1, sizeof *want);
	int *res = rd_xcalloc(h->ndevices + 1, sizeof *res);
	size_t nw = 0;
	struct rd_buf not = {0}, yes = {0}, line = {0};
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		const char *why = NULL;
		if (!live)
			continue;
		if (rd_verbsev_driver_releases(d->driver, &why)) {
			want[nw++] = d->name;
			continue;
		}
		rd_buf_printf(&not, "%s%s (", not.len ? ", " : "", d->name);
		if (d->driver)
			rd_buf_printf(&not, "driver %s: %s)", d->driver, why);
		else if (d->parent)
			rd_buf_printf(&not, "on %s, %s)", d->parent, why);
		else
			rd_buf_printf(&not, "%s)", why);
	}
	int n = rd_verbsev_sync(w->verbs, want, nw, res);
	for (size_t j = 0; j < nw; j++) {
		if (res[j] == 0) {
			rd_buf_printf(&yes, "%s%s", yes.len ? ", " : "", want[j]);
			continue;
		}
		rd_buf_printf(&not, "%s%s (", not.len ? ", " : "", want[j]);
		if (res[j] == -ENOSYS)
			rd_buf_printf(&not, "libibverbs: %s)", w->verbs->load_err);
		else if (res[j] == -ENOENT)
			rd_buf_printf(&not, "libibverbs does not list it)");
		else if (res[j] == -EMFILE)
			rd_buf_printf(&not, "over %d devices)", RD_VERBSEV_MAX);
		else
			rd_buf_printf(&not, "ibv_open_device: %s)", strerror(-res[j]));
	}
	if (!live)
		rd_buf_puts(&line, "verbs events: none followed (the root is not the live host)");
	else
		rd_buf_printf(&line, "verbs events: followed on %s%s%s%s", yes.len ? yes.data : "no device",
			      not.len ? "; not on " : "", not.len ? not.data : "",
			      not.len ? "; those are followed by their netdev and device events" : "");
	if (n < 0)
		rd_buf_printf(&line, " (epoll: %s)", strerror(-n));
	int fd = rd_verbsev_fd(w->verbs);
	if (fd >= 0 && !w->verbs_polled) {
		int r = add_fd(w, fd, SRC_VERBS);
		if (r < 0)
			rd_buf_printf(&line, " (epoll: %s)", strerror(-r));
		w->verbs_polled = r == 0;
	}
	if (!w->verbs_said || strcmp(w->verbs_said, line.data) != 0) {
		say(w, "%s", line.data);
		free(w->verbs_said);
		w->verbs_said = rd_buf_steal(&line);
	}
	rd_buf_free(&line);
	rd_buf_free(&yes);
	rd_buf_free(&not);
	free(res);
	free(want);
}

/* Runs the pending judgement: what the events concern, the textfile, the lines. */
static void judge(struct watch *w, bool first)
{
	unsigned ev = w->pending;
	char cause[sizeof w->cause + 32];
	if (w->ncause > 1)
		snprintf(cause, sizeof cause, "%s, and %u more", w->cause, w->ncause - 1);
	else
		snprintf(cause, sizeof cause, "%s", w->cause);
	w->pending = 0;
	w->ncause = 0;
	w->last_judged_ms = rd_mono_ms();
	w->n_judged++;

	struct rd_watch_keys before, after;
	rd_watch_keys_take(&before, &w->report);
	const char *what = ev & EV_FULL ? "every check" : ev & EV_NETDEV ? RD_WATCH_NETDEV_CHECKS : "kernel.log";
	bool ok = true;
	if (ev & EV_FULL) {
		rd_buf_free(&w->lines); /* the full load's dmesg has them */
		ok = judge_loaded(w, NULL);
	} else if (ev & EV_NETDEV) {
		ok = judge_loaded(w, RD_WATCH_NETDEV_RUN);
	}
	if (ev & EV_KMSG && w->lines.len) {
		if (ev & EV_NETDEV)
			what = RD_WATCH_NETDEV_CHECKS ",kernel.log";
		judge_lines(w);
		w->last_kmsg_ms = w->last_judged_ms;
	}
	rd_watch_keys_take(&after, &w->report);
	struct change_ctx cc = {w, cause, first, 0};
	size_t changed = rd_watch_diff(&before, &after, change, &cc);
	size_t n = cc.said;
	rd_watch_keys_free(&before);
	rd_watch_keys_free(&after);
	if (ok)
		write_textfile(w);
	if (ok && (first || changed))
		w->history.due = true;
	if (ok)
		write_history(w, false);
	if (ok && ev & EV_FULL)
		sync_verbs(w);
	if (w->netdev_seen)
		w->settle_left = RD_WATCH_SETTLE_ROUNDS;
	w->netdev_seen = false;
	if (ok && ev & (EV_NETDEV | EV_FULL) && w->settle_left > 0) { /* the ports were read: armed, or disarmed */
		bool lag = ports_lag(w);
		w->settle_left = lag ? w->settle_left - 1 : 0;
		arm(w->settle, lag ? RD_WATCH_SETTLE_MS : 0, 0);
	}
	say(w, "judged %s (%s): %zu change%s%s", what, cause, n, n == 1 ? "" : "s",
	    ok ? "" : "; the host could not be read: the last verdict stands");
	if (w->slurm.on && ok) {
		rd_damp_update(&w->slurm.damp, &w->report, rd_mono_ms());
		slurm_decide(w, cause, w->slurm_force);
		w->slurm_force = false;
	}
	if (w->limit.over || w->lines_over) {
		say(w, "kernel log: %llu line%s not judged (over %u a second)", w->limit.over + w->lines_over,
		    w->limit.over + w->lines_over == 1 ? "" : "s", RD_WATCH_LINES_PER_S);
		w->limit.over = w->lines_over = 0;
	}
	if (w->kmsg.lost != w->lost_told) {
		say(w, "kernel log: %llu record%s overwritten before they were read", w->kmsg.lost - w->lost_told,
		    w->kmsg.lost - w->lost_told == 1 ? "" : "s");
		w->lost_told = w->kmsg.lost;
	}
	fflush(w->ctx->out);
}

/* After a round of events: judge now, or arm the debounce for when it may. */
static void settle(struct watch *w)
{
	if (!w->pending || w->debounce_armed)
		return;
	long long now = rd_mono_ms(), wait = RD_WATCH_DEBOUNCE_MS - (now - w->last_judged_ms);
	if (w->pending == EV_KMSG) { /* kernel lines alone: at most once a second */
		long long k = RD_WATCH_KMSG_GAP_MS - (now - w->last_kmsg_ms);
		if (k > wait)
			wait = k;
	}
	if (wait <= 0) {
		judge(w, false);
		return;
	}
	arm(w->debounce, wait, 0);
	w->debounce_armed = true;
}

static void read_kmsg(struct watch *w)
{
	char rec[RD_KMSG_RECORD_MAX + 1];
	ssize_t n;
	while ((n = rd_kmsg_next(&w->kmsg, rec, sizeof rec)) > 0) {
		struct rd_kmsg_rec r;
		if (rd_kmsg_parse(rec, (size_t)n, &r) < 0)
			continue;
		if (!rd_kmsg_admit(&w->limit, rd_mono_ms()))
			continue;
		if (w->lines.len >= RD_WATCH_LINES_MAX) {
			w->lines_over++;
			continue;
		}
		rd_kmsg_format(&r, &w->lines);
		w->n_lines++;
		note(w, EV_KMSG, "kernel: %.*s", (int)(r.msglen < 100 ? r.msglen : 100), r.msg);
	}
}

static void netdev_event(const struct rd_rtnl_event *e, void *arg)
{
	struct watch *w = arg;
	if (!e->changed)
		return;
	w->n_netdev++;
	w->netdev_seen = true;
	if (e->name[0]) { /* its state kept for ports_lag, in the first free slot or the last */
		size_t k = 0, nslots = sizeof w->nd / sizeof w->nd[0];
		while (k < nslots - 1 && w->nd[k].name[0] && strcmp(w->nd[k].name, e->name) != 0)
			k++;
		snprintf(w->nd[k].name, sizeof w->nd[k].name, "%s", e->name);
		w->nd[k].up = !e->removed && (e->flags & IFF_UP) && (e->flags & IFF_RUNNING);
	}
	const char *state = e->removed ? "removed" : !(e->flags & IFF_UP) ? "down" : !(e->flags & IFF_RUNNING) ? "no carrier" : "up";
	if (e->operstate >= 0 && !e->removed)
		note(w, EV_NETDEV, "netdev %s: %s, operstate %s", e->name, state, rd_rtnl_operstate_name(e->operstate));
	else
		note(w, EV_NETDEV, "netdev %s: %s", e->name, state);
}

static void verbs_event(const struct rd_verbsev_event *e, void *arg)
{
	struct watch *w = arg;
	w->n_verbs++;
	if (e->scope == RD_VERBSEV_PORT)
		note(w, EV_NETDEV, "verbs %s port %d: %s", e->device, e->port, e->name);
	else if (e->scope == RD_VERBSEV_DEVICE)
		note(w, EV_FULL, "verbs %s: %s%s", e->device, e->name, e->closed ? ", closed" : "");
}

static void read_uevents(struct watch *w)
{
	struct rd_uevent e;
	int r;
	while ((r = rd_uevent_next(w->uevent, &e)) > 0 && ++w->n_device)
		note(w, EV_FULL, "%s %s: %s",
		     strcmp(e.subsystem, "net") == 0 ? "netdev" : strcmp(e.subsystem, "module") == 0 ? "module" : "device",
		     e.name, e.action);
	if (r == -ENOBUFS)
		note(w, EV_FULL, "device events dropped by the kernel");
}

static void read_signals(struct watch *w)
{
	struct signalfd_siginfo si;
	while (read(w->sig, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGHUP) {
			note(w, EV_FULL, "SIGHUP: the policy re-read");
			w->slurm_force = true;
		}
		else
			w->stop = true;
	}
}

static void drain_timer(int fd)
{
	unsigned long long n;
	(void)!read(fd, &n, sizeof n);
}

static int add_fd(struct watch *w, int fd, int id)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (unsigned)id};
	return epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static void warn_source(struct watch *w, const char *what, int err)
{
	rd_text_printf(w->ctx->err, w->ctx->ascii, "%s: watch: %s: %s: not watched\n", w->ctx->prog, what, strerror(-err));
}

static int open_sources(struct watch *w)
{
	int r;
	w->ep = epoll_create1(EPOLL_CLOEXEC);
	w->interval = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	w->debounce = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	w->settle = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (w->ep < 0 || w->interval < 0 || w->debounce < 0 || w->settle < 0 || add_fd(w, w->sig, SRC_SIGNAL) < 0 ||
	    add_fd(w, w->interval, SRC_INTERVAL) < 0 || add_fd(w, w->debounce, SRC_DEBOUNCE) < 0 ||
	    add_fd(w, w->settle, SRC_SETTLE) < 0) {
		fprintf(w->ctx->err, "%s: watch: %s\n", w->ctx->prog, strerror(errno));
		return -1;
	}
	arm(w->interval, (long long)w->interval_s * 1000, (long long)w->interval_s * 1000);
	if ((r = rd_kmsg_open("/dev/kmsg", &w->kmsg)) < 0 || (r = add_fd(w, w->kmsg.fd, SRC_KMSG)) < 0)
		warn_source(w, "/dev/kmsg", r);
	w->rtnl = rd_xcalloc(1, sizeof *w->rtnl);
	w->rtnl->fd = -1;
	if ((r = rd_rtnl_open(w->rtnl)) < 0 || (r = add_fd(w, w->rtnl->fd, SRC_RTNL)) < 0)
		warn_source(w, "rtnetlink", r);
	w->verbs = rd_xcalloc(1, sizeof *w->verbs);
	rd_verbsev_init(w->verbs);
	if ((r = w->uevent = rd_uevent_open()) < 0 || (r = add_fd(w, w->uevent, SRC_UEVENT)) < 0)
		warn_source(w, "kernel uevents", r);
	if (w->history.dir) {
		w->history.timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (w->history.timer < 0 || add_fd(w, w->history.timer, SRC_HISTORY) < 0) {
			fprintf(w->ctx->err, "%s: watch: the history timer: %s\n", w->ctx->prog, strerror(errno));
			return -1;
		}
	}
	if (w->slurm.on) {
		w->slurm.timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (w->slurm.timer < 0 || add_fd(w, w->slurm.timer, SRC_RULE) < 0) {
			fprintf(w->ctx->err, "%s: watch: the damping timer: %s\n", w->ctx->prog, strerror(errno));
			return -1;
		}
	}
	long long wd = rd_sd_watchdog_ms(getenv("WATCHDOG_USEC"), getenv("WATCHDOG_PID"), (long)getpid());
	if (wd > 0) {
		w->wdog = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (w->wdog >= 0 && add_fd(w, w->wdog, SRC_WATCHDOG) == 0)
			arm(w->wdog, wd, wd);
	}
	return 0;
}

static void close_sources(struct watch *w)
{
	int fds[] = {w->ep, w->sig, w->interval, w->debounce, w->wdog, w->uevent, w->settle, w->slurm.timer, w->history.timer};
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	rd_kmsg_close(&w->kmsg);
	if (w->rtnl)
		rd_rtnl_close(w->rtnl);
	free(w->rtnl);
	if (w->verbs)
		rd_verbsev_close(w->verbs);
	free(w->verbs);
	free(w->verbs_said);
}

static void notify(struct watch *w, const char *state)
{
	int r = rd_sd_notify(w->notify, state);
	if (r < 0)
		rd_text_printf(w->ctx->err, w->ctx->ascii, "%s: watch: NOTIFY_SOCKET %s: %s\n", w->ctx->prog, w->notify,
			       strerror(-r));
}

static int loop(struct watch *w)
{
	note(w, EV_FULL, "start");
	w->slurm_force = true;
	judge(w, true);
	if (!w->have_model)
		return RD_EXIT_UNKNOWN; /* the host or the policy cannot be read: systemd says so */
	notify(w, "READY=1");
	while (!w->stop) {
		struct epoll_event evs[8];
		int n = epoll_wait(w->ep, evs, 8, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(w->ctx->err, "%s: watch: epoll_wait: %s\n", w->ctx->prog, strerror(errno));
			return RD_EXIT_UNKNOWN;
		}
		for (int i = 0; i < n; i++) {
			switch (evs[i].data.u32) {
			case SRC_SIGNAL:
				read_signals(w);
				break;
			case SRC_KMSG:
				read_kmsg(w);
				break;
			case SRC_RTNL: {
				int r = rd_rtnl_read(w->rtnl, netdev_event, w);
				if (r == -ENOBUFS)
					note(w, EV_FULL, "netdev events dropped by the kernel");
				break;
			}
			case SRC_UEVENT:
				read_uevents(w);
				break;
			case SRC_VERBS:
				(void)rd_verbsev_read(w->verbs, verbs_event, w);
				break;
			case SRC_INTERVAL:
				drain_timer(w->interval);
				note(w, EV_FULL, "every %d s", w->interval_s);
				w->slurm_force = true;
				break;
			case SRC_DEBOUNCE:
				drain_timer(w->debounce);
				w->debounce_armed = false;
				break;
			case SRC_SETTLE:
				drain_timer(w->settle);
				note(w, EV_NETDEV, "a port read did not follow its netdev yet: read again");
				break;
			case SRC_WATCHDOG:
				drain_timer(w->wdog);
				notify(w, "WATCHDOG=1");
				break;
			case SRC_RULE:
				drain_timer(w->slurm.timer);
				slurm_decide(w, "a damping rule's time", false);
				break;
			case SRC_HISTORY:
				drain_timer(w->history.timer);
				w->history.armed = false;
				write_history(w, false);
				fflush(w->ctx->err);
				break;
			}
		}
		if (!w->stop)
			settle(w);
	}
	write_history(w, true); /* a change the gap held back */
	notify(w, "STOPPING=1");
	say(w, "stopped: %llu judgement%s; events: %llu netdev, %llu verbs, %llu device, %llu kernel line%s", w->n_judged,
	    w->n_judged == 1 ? "" : "s", w->n_netdev, w->n_verbs, w->n_device, w->n_lines, w->n_lines == 1 ? "" : "s");
	fflush(w->ctx->out);
	return RD_EXIT_OK;
}

int rd_cmd_watch(struct rd_ctx *ctx, int argc, char **argv)
{
	enum { OPT_POLICY = 256, OPT_INTERVAL, OPT_STATE_DIR, OPT_SLURM, OPT_NODE, OPT_DRAIN_ON, OPT_HISTORY_DIR,
	       OPT_HISTORY_DAYS };
	static const struct option longopts[] = {
		RD_LONGOPT_HELP,
		{"policy", required_argument, NULL, OPT_POLICY},
		{"output", required_argument, NULL, 'o'},
		{"interval", required_argument, NULL, OPT_INTERVAL},
		{"state-dir", required_argument, NULL, OPT_STATE_DIR},
		{"slurm", no_argument, NULL, OPT_SLURM},
		{"node", required_argument, NULL, OPT_NODE},
		{"drain-on", required_argument, NULL, OPT_DRAIN_ON},
		{"history-dir", required_argument, NULL, OPT_HISTORY_DIR},
		{"history-days", required_argument, NULL, OPT_HISTORY_DAYS},
		{NULL, 0, NULL, 0},
	};
	struct watch w = {.ctx = ctx, .policy = ctx->policy, .interval_s = 300, .ep = -1, .sig = -1, .interval = -1,
			  .debounce = -1, .wdog = -1, .uevent = -1, .settle = -1, .kmsg = {.fd = -1},
			  .limit = {.per_s = RD_WATCH_LINES_PER_S}, .notify = getenv("NOTIFY_SOCKET"),
			  .slurm = {.level = RD_FAIL, .timer = -1}, .history = {.timer = -1}};
	const char *node = NULL;
	bool node_given = false, drain_on_given = false;
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "o:", .longopts = longopts};
	int st = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &st)) != RD_OPT_END;) {
		switch (c) {
		case OPT_POLICY:
			w.policy = optarg;
			break;
		case 'o':
			if (!*optarg)
				st = rd_usage_error(ctx, "watch", "--output needs a file name");
			w.output = optarg;
			break;
		case OPT_INTERVAL: {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno || v < 1 || v > 86400)
				st = rd_usage_error(ctx, "watch", "--interval needs a number of seconds from 1 to 86400, not '%s'",
						    optarg);
			else
				w.interval_s = (int)v;
			break;
		}
		case OPT_STATE_DIR:
			if (!*optarg)
				st = rd_usage_error(ctx, "watch", "--state-dir needs a directory");
			rd_link_opt(ctx, "--state-dir", optarg);
			break;
		case OPT_SLURM:
			w.slurm.on = true;
			break;
		case OPT_NODE:
			node = optarg;
			node_given = true;
			break;
		case OPT_HISTORY_DIR:
			if (!*optarg)
				st = rd_usage_error(ctx, "watch", "--history-dir needs a directory");
			w.history.dir = optarg;
			break;
		case OPT_HISTORY_DAYS:
			if ((w.history.days = rd_history_days_opt(ctx, "watch", optarg)) < 0)
				st = RD_EXIT_USAGE;
			break;
		case OPT_DRAIN_ON:
			drain_on_given = true;
			if (strcmp(optarg, "fail") == 0)
				w.slurm.level = RD_FAIL;
			else if (strcmp(optarg, "warn") == 0)
				w.slurm.level = RD_WARN;
			else
				st = rd_usage_error(ctx, "watch", "--drain-on takes fail or warn, not '%s'", optarg);
			break;
		}
	}
	if (st < 0 && w.history.days && !w.history.dir)
		st = rd_usage_error(ctx, "watch", "--history-days needs --history-dir");
	if (st < 0 && (node_given || drain_on_given) && !w.slurm.on)
		st = rd_usage_error(ctx, "watch", "%s is for --slurm", node_given ? "--node" : "--drain-on");
	if (st < 0 && w.slurm.on && rd_slurm_node_name(ctx, "watch", node, w.slurm.node, sizeof w.slurm.node) < 0)
		st = RD_EXIT_UNKNOWN;
	if (st >= 0)
		return st;
	/* the signals come through signalfd: blocked before any loader thread starts (threads inherit it) */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	w.sig = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (w.sig < 0)
		fprintf(ctx->err, "%s: watch: signalfd: %s\n", ctx->prog, strerror(errno));
	int rc = w.sig < 0 || open_sources(&w) < 0 ? RD_EXIT_UNKNOWN : loop(&w);
	close_sources(&w);
	rd_buf_free(&w.lines);
	rd_report_free(&w.report);
	rd_damp_free(&w.slurm.damp);
	free(w.slurm.told);
	if (w.have_model)
		rd_loaded_free(&w.model);
	return rc;
}
