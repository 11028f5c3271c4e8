/* `rdma-doctor check` and `rdma-doctor checks`: run the catalogue, print the verdict. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks/check.h"
#include "cmd/cmd.h"
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
	"check [--format text|json] [--policy FILE] [--only ID,...] [--skip ID,...] [--no-color] "    \
	"[--probe [--probe-size BYTES]]"

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

/* check --probe: the probe's result as findings of "probe.loopback". */
static void probe_findings(const struct rd_probe_result *res, struct rd_report *rep)
{
	static const char *const id = "probe.loopback";
	const struct rd_probe_step *hs = rd_probe_failed_step(res->steps, res->nsteps);
	if (hs) {
		struct rd_finding *f = rd_report_add(rep, id, RD_FAIL, "host", "%s", hs->error);
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
			f = rd_report_add(rep, id, RD_OK, subj, "RDMA WRITE loopback verified on %s (active_mtu %u)", subj,
					  p->active_mtu);
		else if (p->state && !p->active)
			f = rd_report_add(rep, id, counted ? RD_SKIP : RD_FAIL, subj, "%s%s", fs ? fs->error : "not Active",
					  counted ? " (not probed)" : "");
		else
			f = rd_report_add(rep, id, RD_FAIL, subj, "%s", fs ? fs->error : "RDMA WRITE not verified");
		probe_evidence(f, subj, p->steps, p->nsteps);
	}
	if (!res->pass && res->nports == 0)
		rd_report_add(rep, id, RD_FAIL, "host", "%s", res->error ? res->error : "the probe failed");
}

int rd_cmd_check(struct rd_ctx *ctx, int argc, char **argv)
{
	bool json = false, color = isatty(fileno(ctx->out)), probe = false;
	struct rd_probe_opts probe_opts = {0};
	const char *only = NULL, *skip = NULL, *policy_path = NULL;
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		color = false;
	for (int i = 1; i < argc; i++) {
		int r = rd_opt_format(ctx, argc, argv, &i, &json);
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

	struct rd_loaded l;
	if (rd_ctx_load(ctx, policy_path, true, &l) < 0) {
		if (json && l.error[0]) { /* a JSON consumer gets a document, not 0 bytes */
			struct rd_out o;
			rd_out_init(&o, ctx->out, true);
			rd_out_obj_begin(&o, NULL);
			rd_out_str(&o, "schema", NULL, "rdma-doctor/error/v1");
			rd_out_str(&o, "error", NULL, l.error);
			rd_out_int(&o, "exit_code", NULL, 3);
			rd_out_obj_end(&o);
			rd_out_finish(&o);
		}
		return 3;
	}
	struct rd_source *src = l.src;
	struct rd_policy *pol = &l.pol;
	struct rd_host *h = &l.h;
	struct rd_system *sys = &l.sys;

	struct rd_report report = {0};
	bool live = rd_source_is_live(src);
	rd_checks_run(h, sys, pol, live, only, skip, &report);
	struct rd_source *psrc = NULL;
	if (probe && rd_ctx_open_source(ctx, &psrc) == 0) { /* its own read deadline, from now */
		struct rd_probe_result res;
		rd_probe_run(psrc, &probe_opts, &res);
		probe_findings(&res, &report);
		rd_probe_result_free(&res);
		rd_source_close(psrc);
	} else if (probe) {
		rd_report_free(&report);
		rd_loaded_free(&l);
		return 3;
	}

	char when[32];
	iso_time(when, sizeof when);
	struct rd_report_meta meta = {.root = live ? NULL : rd_source_root(src), .time = when, .color = color,
				      .no_hardware = !rd_host_has_rdma_hardware(h, sys)};
	if (json)
		rd_report_json(ctx->out, &report, h, sys, pol, &meta);
	else
		rd_report_text(ctx->out, &report, h, sys, pol, &meta);
	fflush(ctx->out);
	int rc = meta.no_hardware ? 3 : rd_status_exit_code(rd_report_status(&report));

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
