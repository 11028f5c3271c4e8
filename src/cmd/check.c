/* `rdma-doctor check` and `rdma-doctor checks`: run the catalogue, print the verdict. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks/check.h"
#include "checks/probe_loopback.h"
#include "cmd/cmd.h"
#include "cmd/emit.h"
#include "probe/probe.h"
#include "render/out.h"
#include "render/report.h"

static void iso_time(char *buf, size_t len)
{
	/* SOURCE_DATE_EPOCH makes reports reproducible (tests, packaging) */
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	time_t t = sde && *sde ? (time_t)strtoll(sde, NULL, 10) : time(NULL);
	struct tm tm;
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
}

static bool valid_ids(struct rd_ctx *ctx, const char *list, const char *opt)
{
	if (!list)
		return true;
	char *copy = rd_xstrdup(list);
	bool ok = true;
	for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
		bool found = false;
		size_t n = strlen(tok);
		for (const struct rd_check *c = rd_checks; c->id; c++)
			found |= strcmp(c->id, tok) == 0 || (strncmp(c->id, tok, n) == 0 && c->id[n] == '.');
		if (!found) {
			fprintf(ctx->err, "%s: check: %s: no check '%s' (see '%s checks')\n", ctx->prog, opt, tok, ctx->prog);
			ok = false;
		}
	}
	free(copy);
	return ok;
}

#define CHECK_USAGE                                                                                   \
	"check [--format text|json|prometheus [--counters]] [--output FILE] [--policy FILE] [--only ID,...] [--skip ID,...] [--no-color] "    \
	"[--probe [--probe-size BYTES]]"

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* check --probe: what is left of --timeout for the probe's watchdog (0: no deadline), or -1 when
 * less than RD_PROBE_MIN_BUDGET_MS is left (the probe is then not started: a probe cut short
 * by the checks' time would be a false FAIL). */
#define RD_PROBE_MIN_BUDGET_MS 1000
static int probe_budget_ms(const struct rd_ctx *ctx, long long started)
{
	if (ctx->timeout_s <= 0)
		return 0;
	long long left = (long long)(ctx->timeout_s * 1000) - (mono_ms() - started);
	return left >= RD_PROBE_MIN_BUDGET_MS ? (int)left : -1;
}

int rd_cmd_check(struct rd_ctx *ctx, int argc, char **argv)
{
	struct rd_emit e = {.mode = RD_EMIT_CHECK};
	return rd_check_as(ctx, argc, argv, &e);
}

int rd_check_as(struct rd_ctx *ctx, int argc, char **argv, struct rd_emit *e)
{
	bool json = false, color = isatty(fileno(ctx->out)), probe = false;
	struct rd_probe_opts probe_opts = {0};
	const char *only = NULL, *skip = NULL, *policy_path = NULL;
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		color = false;
	for (int i = 1; i < argc; i++) {
		int r = rd_emit_opt(ctx, argc, argv, &i, e);
		if (r == 0)
			r = rd_opt_format(ctx, argc, argv, &i, &json);
		if (r < 0)
			return 3;
		if (r > 0)
			continue;
		const char *a = argv[i];
		const char **dst = strcmp(a, "--only") == 0 ? &only : strcmp(a, "--skip") == 0 ? &skip
				   : strcmp(a, "--policy") == 0 ? &policy_path : NULL;
		if (dst && i + 1 < argc) {
			*dst = argv[++i];
		} else if (strncmp(a, "--only=", 7) == 0) {
			only = a + 7;
		} else if (strncmp(a, "--skip=", 7) == 0) {
			skip = a + 7;
		} else if (strncmp(a, "--policy=", 9) == 0) {
			policy_path = a + 9;
		} else if (strcmp(a, "--no-color") == 0) {
			color = false;
		} else if (strcmp(a, "--probe") == 0) {
			probe = true;
		} else if ((strcmp(a, "--probe-size") == 0 && i + 1 < argc) || strncmp(a, "--probe-size=", 13) == 0) {
			if (rd_probe_opt(ctx, "check", "--probe-size", a[12] == '=' ? a + 13 : argv[++i], &probe_opts) < 0)
				return 3;
			probe = true;
		} else {
			fprintf(ctx->err, "%s: check: %s '%s' (usage: " CHECK_USAGE ")\n", ctx->prog,
				dst || strcmp(a, "--probe-size") == 0 ? "missing value for" : "unknown argument", a);
			return 3;
		}
	}
	if (!valid_ids(ctx, only, "--only") || !valid_ids(ctx, skip, "--skip"))
		return 3;
	if (probe && rd_ctx_is_root(ctx)) {
		fprintf(ctx->err, "%s: check: --probe talks to the running host's devices; it cannot run on --root\n",
			ctx->prog);
		return 3;
	}

	long long started = mono_ms(); /* --timeout is the whole run's, the probe's included */
	struct rd_loaded l;
	if (rd_ctx_load(ctx, policy_path, true, &l) < 0)
		return 3;
	struct rd_source *src = l.src;
	struct rd_policy *pol = &l.pol;
	struct rd_host *h = &l.h;
	struct rd_system *sys = &l.sys;

	struct rd_report report = {0};
	bool live = rd_source_is_live(src);
	rd_checks_run(h, sys, pol, live, only, skip, &report);
	int budget = probe ? probe_budget_ms(ctx, started) : 0;
	if (probe && budget < 0) {
		rd_probe_loopback_not_run(&report, ctx->timeout_s, mono_ms() - started);
	} else if (probe) { /* in a child process, which reads the live host itself */
		struct rd_probe_result res;
		rd_probe_run_contained(&probe_opts, budget, &res);
		rd_probe_loopback(&res, &report);
		rd_probe_result_free(&res);
	}

	char when[32];
	iso_time(when, sizeof when);
	struct rd_report_meta meta = {.root = live ? NULL : rd_source_root(src), .time = when, .color = color,
				      .no_hardware = !rd_host_has_rdma_hardware(h, sys)};
	int rc = meta.no_hardware ? 3 : rd_status_exit_code(rd_report_status(&report));
	rc = rd_emit(ctx, e, json, &report, h, sys, pol, &meta, rc);

	rd_report_free(&report);
	rd_loaded_free(&l);
	return rc;
}

int rd_cmd_checks(struct rd_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		int r = rd_opt_format(ctx, argc, argv, &i, &json);
		if (r <= 0) {
			if (r == 0)
				fprintf(ctx->err, "%s: checks: unknown argument '%s'\n", ctx->prog, argv[i]);
			return 2;
		}
	}
	struct rd_out o;
	rd_out_init(&o, ctx->out, json);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/checks/v1");
	rd_out_arr_begin(&o, "checks");
	for (const struct rd_check *c = rd_checks; c->id; c++) {
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "id", "%-22s", c->id);
		rd_out_str(&o, "title", "%s\n", c->title);
		rd_out_str(&o, "detects", "    detects: %s\n", c->detects);
		rd_out_str(&o, "evidence", "    reads:   %s\n", c->evidence);
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
	return 0;
}
