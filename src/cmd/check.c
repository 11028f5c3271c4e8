/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor check` and `rdma-doctor checks`: run the catalogue, print the verdict. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks/check.h"
#include "cmd/cmd.h"
#include "cmd/emit.h"
#include "checks/probe_loopback.h"
#include "probe/probe.h"
#include "render/catalogue.h"
#include "render/out.h"
#include "render/policy.h"
#include "render/report.h"

static void iso_time(long long t, char *buf, size_t len)
{
	/* SOURCE_DATE_EPOCH makes reports reproducible (tests, packaging); UTC computed here, since
	 * gmtime would read /etc/localtime, outside any --root */
	rd_utc_iso8601(t, buf, len);
}

static bool ids_valid(struct rd_ctx *ctx, const char *cmd, const char *list, const char *opt)
{
	if (!list)
		return true;
	char *copy = rd_xstrdup(list);
	bool ok = true;
	for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
		bool found = false;
		for (const struct rd_check *c = rd_checks; c->id; c++)
			found |= rd_check_selected(c->id, tok);
		if (!found) {
			rd_text_printf(ctx->err, ctx->ascii, "%s: %s: %s: no check '%s' (see '%s checks')\n", ctx->prog, cmd, opt,
				       tok, ctx->prog);
			ok = false;
		}
	}
	free(copy);
	return ok;
}

/* An --only item whose every check is skipped asks for nothing: "--only X --skip X" is an error. */
static bool only_skip_agree(struct rd_ctx *ctx, const char *only, const char *skip)
{
	if (!only || !skip)
		return true;
	char *copy = rd_xstrdup(only), *save = NULL;
	bool ok = true;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool left = false;
		for (const struct rd_check *c = rd_checks; c->id; c++)
			left |= rd_check_selected(c->id, tok) && !rd_check_selected(c->id, skip);
		if (!left) {
			rd_usage_error(ctx, "check", "--only %s asks for nothing: --skip skips every check it names",
				       tok);
			ok = false;
		}
	}
	free(copy);
	return ok;
}

/* Repeated --only / --skip add to the list. */
static void add_list(struct rd_buf *b, const char *v)
{
	if (b->len && *v)
		rd_buf_putc(b, ',');
	rd_buf_puts(b, v);
}

/* The samples of a kind are kept only by a run that judges its check (run/linkstate.h). */
static void link_select(struct rd_ctx *ctx, const char *only, const char *skip)
{
	/* roce.congestion judges the counters sample as link.counters does */
	static const char *const ids[2][2] = {[RD_SAMPLE_COUNTERS] = {"link.counters", "roce.congestion"},
					      [RD_SAMPLE_CARRIER] = {"link.flaps", NULL}};
	for (int k = 0; k < 2; k++) {
		ctx->link.judged[k] = false;
		for (int i = 0; i < 2 && ids[k][i]; i++)
			ctx->link.judged[k] |= (!only || rd_check_selected(ids[k][i], only)) &&
					       !(skip && rd_check_selected(ids[k][i], skip));
	}
}

static int run_check(struct rd_ctx *ctx, bool json, bool color, const char *policy_path, const char *only,
		     const char *skip, const struct rd_probe_opts *probe_opts, struct rd_emit *e);

static bool valid_ids(struct rd_ctx *ctx, const char *list, const char *opt)
{
	return ids_valid(ctx, "check", list, opt);
}

/* check --probe: what is left of --timeout for the probe's watchdog (0: no deadline), or -1 when
 * less than RD_PROBE_MIN_BUDGET_MS is left (the probe is then not started: a probe cut short
 * by the checks' time would be a false FAIL). */
#define RD_PROBE_MIN_BUDGET_MS 1000
static int probe_budget_ms(const struct rd_ctx *ctx, long long started)
{
	if (ctx->timeout_s <= 0)
		return 0;
	long long left = (long long)(ctx->timeout_s * 1000) - (rd_mono_ms() - started);
	return left >= RD_PROBE_MIN_BUDGET_MS ? (int)left : -1;
}

/* check --policy-explain: the policy as this host (the root's) takes it, each value with its
 * FILE:LINE and section; no check is run, nothing but the host name and the policy is read. */
/* A policy that cannot be read: a JSON consumer gets an rdma-doctor/error/v1 document, not 0 bytes
 * (the text is the loader's line on stderr). */
static int policy_failed(struct rd_ctx *ctx, bool json, const struct rd_loaded *l)
{
	if (json && l->policy_failed) {
		struct rd_out o;
		rd_out_init(&o, ctx->out, true);
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "schema", NULL, "rdma-doctor/error/v1");
		rd_out_str(&o, "error", NULL, l->error);
		rd_out_int(&o, "exit_code", NULL, RD_EXIT_UNKNOWN);
		rd_out_obj_end(&o);
		rd_out_finish(&o);
	}
	return RD_EXIT_UNKNOWN;
}

static int policy_explain(struct rd_ctx *ctx, bool json, const char *policy_path)
{
	ctx->load_flags |= RD_LOAD_ONLY;
	ctx->link.no_counters = true;
	ctx->link.judged[0] = ctx->link.judged[1] = false;
	struct rd_loaded l;
	if (rd_ctx_load(ctx, policy_path, false, &l) < 0) {
		return policy_failed(ctx, json, &l);
	}
	rd_render_policy_explain(ctx->out, json, &l.pol);
	rd_loaded_free(&l);
	return 0;
}

int rd_cmd_check(struct rd_ctx *ctx, int argc, char **argv)
{
	struct rd_emit e = {.mode = RD_EMIT_CHECK};
	return rd_check_as(ctx, argc, argv, &e);
}

int rd_check_as(struct rd_ctx *ctx, int argc, char **argv, struct rd_emit *e)
{
	enum { OPT_ONLY = 256, OPT_SKIP, OPT_POLICY, OPT_NO_COLOR, OPT_PROBE, OPT_PROBE_SIZE, OPT_COUNTERS, OPT_MFT,
	       OPT_NO_COUNTERS, OPT_STATE_DIR, OPT_ENV_FROM, OPT_POLICY_EXPLAIN, OPT_HISTORY_DIR, OPT_HISTORY_DAYS };
	static const struct option longopts[] = {
		RD_LONGOPT_FORMAT,
		RD_LONGOPT_HELP,
		{"only", required_argument, NULL, OPT_ONLY},
		{"skip", required_argument, NULL, OPT_SKIP},
		{"policy", required_argument, NULL, OPT_POLICY},
		{"no-color", no_argument, NULL, OPT_NO_COLOR},
		{"probe", no_argument, NULL, OPT_PROBE},
		{"probe-size", required_argument, NULL, OPT_PROBE_SIZE},
		{"output", required_argument, NULL, 'o'},
		{"counters", no_argument, NULL, OPT_COUNTERS},
		{"mft", no_argument, NULL, OPT_MFT},
		{"no-counters", no_argument, NULL, OPT_NO_COUNTERS},
		{"state-dir", required_argument, NULL, OPT_STATE_DIR},
		{"env-from", required_argument, NULL, OPT_ENV_FROM},
		{"policy-explain", no_argument, NULL, OPT_POLICY_EXPLAIN},
		{"history-dir", required_argument, NULL, OPT_HISTORY_DIR},
		{"history-days", required_argument, NULL, OPT_HISTORY_DAYS},
		{NULL, 0, NULL, 0},
	};
	bool json = false, color = !ctx->no_color && rd_out_want_color(ctx->out_tty), probe = false, sized = false;
	bool explain = false;
	struct rd_probe_opts probe_opts = {0};
	struct rd_buf only_b = {0}, skip_b = {0};
	bool has_only = false, has_skip = false;
	const char *policy_path = ctx->policy;
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:jo:", .longopts = longopts};
	int bad = -1, r;
	for (int c; (c = rd_opts_next(ctx, &g, &bad)) != RD_OPT_END;) {
		switch (c) {
		case 'f':
			if ((r = rd_emit_format(ctx, "--format", optarg, e)) < 0 ||
			    (r == 0 && rd_opt_format(ctx, "check", optarg, &json) < 0))
				bad = RD_EXIT_USAGE;
			break;
		case 'j':
			if (rd_emit_format(ctx, "--json", NULL, e) < 0)
				bad = RD_EXIT_USAGE;
			json = true;
			break;
		case 'o':
			if (rd_emit_output(ctx, "--output", optarg, e) < 0)
				bad = RD_EXIT_USAGE;
			break;
		case OPT_HISTORY_DIR:
			if (rd_emit_history(ctx, "--history-dir", optarg, e) < 0)
				bad = RD_EXIT_USAGE;
			break;
		case OPT_HISTORY_DAYS:
			if (rd_emit_history(ctx, "--history-days", optarg, e) < 0)
				bad = RD_EXIT_USAGE;
			break;
		case OPT_COUNTERS: /* the default: kept for the command lines that name it */
			break;
		case OPT_MFT:
			ctx->mft = true;
			break;
		case OPT_NO_COUNTERS:
			rd_link_opt(ctx, "--no-counters", NULL);
			break;
		case OPT_STATE_DIR:
			if (!*optarg)
				bad = rd_usage_error(ctx, "check", "--state-dir needs a directory");
			rd_link_opt(ctx, "--state-dir", optarg);
			break;
		case OPT_ENV_FROM:
			if (rd_env_from_opt(ctx, "check", optarg) < 0)
				bad = RD_EXIT_USAGE;
			break;
		case OPT_ONLY:
			add_list(&only_b, optarg);
			has_only = true;
			break;
		case OPT_SKIP:
			add_list(&skip_b, optarg);
			has_skip = true;
			break;
		case OPT_POLICY:
			policy_path = optarg;
			break;
		case OPT_POLICY_EXPLAIN:
			if (e->mode != RD_EMIT_CHECK)
				bad = rd_usage_error(ctx, argv[0], "unknown option '--policy-explain' (check --policy-explain shows the policy)");
			explain = true;
			break;
		case OPT_NO_COLOR:
			color = false;
			break;
		case OPT_PROBE:
			probe = true;
			break;
		case OPT_PROBE_SIZE:
			if (rd_probe_opt(ctx, "check", "--probe-size", optarg, &probe_opts) < 0)
				bad = RD_EXIT_USAGE;
			sized = true;
			break;
		}
	}
	const char *only = has_only ? (only_b.data ? only_b.data : "") : NULL;
	const char *skip = has_skip ? (skip_b.data ? skip_b.data : "") : NULL;
	if (bad < 0 && (has_only && !*only))
		bad = rd_usage_error(ctx, "check", "--only needs a check id");
	if (bad < 0 && (has_skip && !*skip))
		bad = rd_usage_error(ctx, "check", "--skip needs a check id");
	if (bad < 0 && (!valid_ids(ctx, only, "--only") || !valid_ids(ctx, skip, "--skip") ||
			!only_skip_agree(ctx, only, skip)))
		bad = RD_EXIT_USAGE;
	if (bad < 0 && sized && !probe)
		bad = rd_usage_error(ctx, "check", "--probe-size is the size of --probe's memory region: add --probe");
	if (bad < 0 && probe && rd_ctx_is_root(ctx)) {
		fprintf(ctx->err, "%s: check: --probe talks to the running host's devices; it cannot run on --root\n",
			ctx->prog);
		bad = RD_EXIT_USAGE;
	}
	if (bad < 0 && e->history_days && !e->history_dir)
		bad = rd_usage_error(ctx, "check", "--history-days needs --history-dir");
	if (bad < 0 && explain && (e->prometheus || e->output || e->history_dir || probe || has_only || has_skip))
		bad = rd_usage_error(ctx, "check", "--policy-explain prints the policy, as text or json, and runs no check: "
						   "it takes --policy and --format text|json only");
	if (bad >= 0) {
		rd_buf_free(&only_b);
		rd_buf_free(&skip_b);
		return bad;
	}
	if (explain)
		return policy_explain(ctx, json, policy_path);
	ctx->link.keep = true; /* check and npd read the counters and keep a sample (run/linkstate.h) */
	int rc = run_check(ctx, json, color, policy_path, only, skip, probe ? &probe_opts : NULL, e);
	rd_buf_free(&only_b);
	rd_buf_free(&skip_b);
	return rc;
}

static int run_check(struct rd_ctx *ctx, bool json, bool color, const char *policy_path, const char *only,
		     const char *skip, const struct rd_probe_opts *probe_opts, struct rd_emit *e)
{
	bool probe = probe_opts != NULL;
	long long started = rd_mono_ms(); /* --timeout is the whole run's, the probe's included */
	/* the text report and the NPD line show only findings: read what the selected checks need
	 * (the JSON and Prometheus views show the whole inventory: everything is read for them) */
	if (!json && !e->prometheus && !e->history_dir) { /* the history keeps the JSON report */
		unsigned parts = RD_LOAD_ONLY;
		for (const struct rd_check *c = rd_checks; c->id; c++)
			if ((!only || rd_check_selected(c->id, only)) && !(skip && rd_check_selected(c->id, skip)))
				parts |= rd_check_needs(c->id);
		ctx->load_flags |= parts;
	}
	link_select(ctx, only, skip);
	ctx->link.show_counters = e->prometheus;
	struct rd_loaded l;
	if (rd_ctx_load(ctx, policy_path, true, &l) < 0) {
		return policy_failed(ctx, json, &l);
	}
	rd_link_keep(&ctx->link, ctx->root, ctx->timeout_s, &l);
	struct rd_source *src = l.src;
	struct rd_policy *pol = &l.pol;
	struct rd_host *h = &l.h;
	struct rd_system *sys = &l.sys;

	struct rd_report report = {0};
	bool live = rd_source_is_live(src);
	rd_checks_run(h, sys, pol, live, only, skip, &report);
	bool hardware = rd_host_has_rdma_hardware(h, sys);
	int budget = probe && hardware ? probe_budget_ms(ctx, started) : 0;
	if (probe && !hardware) {
		rd_probe_loopback_no_hardware(&report);
	} else if (probe && budget < 0) {
		rd_probe_loopback_not_run(&report, ctx->timeout_s, rd_mono_ms() - started);
	} else if (probe) { /* in a child process, which reads the live host itself */
		struct rd_probe_result res;
		rd_probe_run_contained(probe_opts, budget, &res);
		rd_probe_loopback(&res, &report);
		rd_probe_result_free(&res);
	}

	char when[32];
	e->time = rd_run_time(); /* once: the report's time and its name in --history-dir agree */
	iso_time(e->time, when, sizeof when);
	struct rd_report_meta meta = {.root = live ? NULL : rd_source_root(src), .time = when, .color = color,
				      .ascii = ctx->ascii, .no_hardware = !hardware};
	int rc = rd_status_exit_code(rd_report_summary_status(&report, &meta));
	rc = rd_emit(ctx, e, json, &report, h, sys, pol, &meta, rc);

	rd_report_free(&report);
	rd_loaded_free(&l);
	return rc;
}

int rd_cmd_checks(struct rd_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	int rc = rd_format_only_opts(ctx, argc, argv, &json);
	if (rc >= 0)
		return rc;
	rd_catalogue_render(ctx->out, json);
	return 0;
}

int rd_check_collect(struct rd_ctx *ctx, const char *cmd, const struct rd_check_sel *sel, struct rd_loaded *l,
		     struct rd_report *report, bool *no_hardware)
{
	memset(report, 0, sizeof *report);
	if (!ids_valid(ctx, cmd, sel->only, "--only") || !ids_valid(ctx, cmd, sel->skip, "--skip"))
		return -2;
	link_select(ctx, sel->only, sel->skip);
	if (rd_ctx_load(ctx, sel->policy, true, l) < 0)
		return -1;
	rd_link_keep(&ctx->link, ctx->root, ctx->timeout_s, l);
	rd_checks_run(&l->h, &l->sys, &l->pol, rd_source_is_live(l->src), sel->only, sel->skip, report);
	*no_hardware = !rd_host_has_rdma_hardware(&l->h, &l->sys);
	return 0;
}
