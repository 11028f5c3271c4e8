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
#include "render/out.h"
#include "render/prometheus.h"
#include "run/historydir.h"

static int npd_refuses(struct rd_ctx *ctx, const char *opt)
{
	fprintf(ctx->err, "%s: npd: %s: not for npd, which prints NPD's one line\n", ctx->prog, opt);
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

long long rd_history_days_opt(struct rd_ctx *ctx, const char *cmd, const char *value)
{
	char *end;
	errno = 0;
	long long v = strtoll(value, &end, 10);
	if (end == value || *end || errno || v < 1 || v > RD_HISTDIR_DAYS_MAX) {
		rd_usage_error(ctx, cmd, "--history-days needs a number of days from 1 to %d, not '%s'", RD_HISTDIR_DAYS_MAX,
			       value);
		return -1;
	}
	return v;
}

int rd_emit_history(struct rd_ctx *ctx, const char *opt, const char *value, struct rd_emit *e)
{
	if (e->mode == RD_EMIT_NPD)
		return npd_refuses(ctx, opt);
	if (strcmp(opt, "--history-days") == 0) {
		e->history_days = rd_history_days_opt(ctx, "check", value);
		return e->history_days < 0 ? -1 : 1;
	}
	if (!*value) {
		rd_usage_error(ctx, "check", "--history-dir needs a directory");
		return -1;
	}
	e->history_dir = value;
	return 1;
}

struct history_job {
	const struct rd_report *r;
	const struct rd_host *h;
	const struct rd_system *s;
	const struct rd_policy *p;
	struct rd_report_meta meta;
};

static void history_fill(FILE *f, void *arg)
{
	const struct history_job *j = arg;
	rd_report_json(f, j->r, j->h, j->s, j->p, &j->meta);
}

void rd_emit_history_write(struct rd_ctx *ctx, const char *cmd, const char *dir, long long days, long long t,
			   const struct rd_report *r, const struct rd_host *h, const struct rd_system *s,
			   const struct rd_policy *p, const struct rd_report_meta *meta)
{
	struct history_job j = {r, h, s, p, *meta};
	j.meta.color = false;
	char err[1024];
	size_t pruned = 0;
	if (rd_histdir_write(dir, rd_attr_value(&h->hostname), t, days > 0 ? days : RD_HISTDIR_DAYS, history_fill, &j,
			     &pruned, err, sizeof err) < 0)
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s: --history-dir: %s\n", ctx->prog, cmd, err);
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
	if (e->output) {
		if (write_output(ctx, e, json, r, h, s, p, meta) < 0)
			rc = 3;
	} else {
		render(ctx->out, e, json, r, h, s, p, meta);
		fflush(ctx->out);
	}
	if (e->history_dir)
		rd_emit_history_write(ctx, "check", e->history_dir, e->history_days, e->time, r, h, s, p, meta);
	return rc;
}
