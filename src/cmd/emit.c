/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* check --format prometheus, --output FILE and npd's line: see emit.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/emit.h"
#include "render/npd.h"
#include "render/prometheus.h"

static const char *opt_value(int argc, char **argv, int *i, const char *longname, const char *shortname,
			     bool *missing)
{
	const char *a = argv[*i];
	size_t n = strlen(longname);
	*missing = false;
	if (strncmp(a, longname, n) == 0 && a[n] == '=')
		return a + n + 1;
	if (strcmp(a, longname) == 0 || (shortname && strcmp(a, shortname) == 0)) {
		if (*i + 1 >= argc) {
			*missing = true;
			return NULL;
		}
		return argv[++*i];
	}
	return NULL;
}

static int npd_refuses(struct rd_ctx *ctx, const char *opt)
{
	fprintf(ctx->err, "%s: npd: %s: npd prints NPD's one line (no --format, --output)\n", ctx->prog, opt);
	return -1;
}

int rd_emit_format(struct rd_ctx *ctx, const char *opt, const char *value, struct rd_emit *e)
{
	if (e->mode == RD_EMIT_NPD)
		return npd_refuses(ctx, opt);
	if (value && strcmp(value, "prometheus") == 0) {
		e->prometheus = true;
		return 1;
	}
	if (!value || strcmp(value, "text") == 0 || strcmp(value, "json") == 0) {
		e->prometheus = false; /* the last --format wins */
		return 0;
	}
	rd_usage_error(ctx, "check", "unknown format '%s' (use text, json or prometheus)", value);
	return -1;
}

int rd_emit_output(struct rd_ctx *ctx, const char *opt, const char *value, struct rd_emit *e)
{
	if (e->mode == RD_EMIT_NPD)
		return npd_refuses(ctx, opt);
	if (!value || !*value) {
		fprintf(ctx->err, "%s: check: %s needs a file name\n", ctx->prog, opt);
		return -1;
	}
	e->output = value;
	return 1;
}

int rd_emit_counters(struct rd_ctx *ctx, struct rd_emit *e)
{
	/* check reads the counters by default now (cmd/linkstate.c, through the policy's
	 * [counters] exclude); --counters is kept for the command lines that name it */
	(void)ctx;
	(void)e;
	return 1;
}

int rd_emit_opt(struct rd_ctx *ctx, int argc, char **argv, int *i, struct rd_emit *e)
{
	const char *a = argv[*i];
	bool missing;
	int at = *i;
	if (strcmp(a, "--counters") == 0)
		return rd_emit_counters(ctx, e);
	if (strcmp(a, "--json") == 0 || strcmp(a, "-j") == 0)
		return rd_emit_format(ctx, a, NULL, e);
	const char *v = opt_value(argc, argv, i, "--format", "-f", &missing);
	if (v || (missing && e->mode == RD_EMIT_NPD)) {
		int r = rd_emit_format(ctx, a, v, e);
		if (r == 0)
			*i = at; /* text and json are rd_opt_format's */
		return r;
	}
	if (missing)
		return 0; /* rd_opt_format says --format needs a value */
	v = opt_value(argc, argv, i, "--output", "-o", &missing);
	if (v || missing)
		return rd_emit_output(ctx, a, v, e);
	return 0;
}

static void render(FILE *f, const struct rd_emit *e, bool json, const struct rd_report *r, const struct rd_host *h,
		   const struct rd_system *s, const struct rd_policy *p, const struct rd_report_meta *meta)
{
	if (e->prometheus)
		rd_report_prometheus(f, r, h, s, meta, rd_run_time());
	else if (json)
		rd_report_json(f, r, h, s, p, meta);
	else
		rd_report_text(f, r, h, s, p, meta);
}

struct emit_job {
	const struct rd_emit *e;
	bool json;
	const struct rd_report *r;
	const struct rd_host *h;
	const struct rd_system *s;
	const struct rd_policy *p;
	struct rd_report_meta meta;
};

static void emit_fill(FILE *f, void *arg)
{
	const struct emit_job *j = arg;
	render(f, j->e, j->json, j->r, j->h, j->s, j->p, &j->meta);
}

/* The report to e->output, atomically (rd_output_atomic): the directory holds the old file or the
 * new one and nothing else (node_exporter's textfile collector reads every *.prom there). */
static int write_output(struct rd_ctx *ctx, const struct rd_emit *e, bool json, const struct rd_report *r,
			const struct rd_host *h, const struct rd_system *s, const struct rd_policy *p,
			const struct rd_report_meta *meta)
{
	struct emit_job j = {e, json, r, h, s, p, *meta};
	j.meta.color = false; /* a file is not a terminal */
	return rd_output_atomic(ctx, "check", e->output, emit_fill, &j);
}

int rd_emit(struct rd_ctx *ctx, struct rd_emit *e, bool json, const struct rd_report *r, const struct rd_host *h,
	    const struct rd_system *s, const struct rd_policy *p, const struct rd_report_meta *meta, int rc)
{
	if (e->mode == RD_EMIT_NPD) {
		char line[RD_NPD_LINE_MAX + 1];
		rc = rd_report_npd(r, meta, line, sizeof line);
		fprintf(ctx->out, "%s\n", line);
		fflush(ctx->out);
		e->printed = true;
		return rc;
	}
	if (e->output)
		return write_output(ctx, e, json, r, h, s, p, meta) < 0 ? 3 : rc;
	render(ctx->out, e, json, r, h, s, p, meta);
	fflush(ctx->out);
	return rc;
}
