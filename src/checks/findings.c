/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Statuses, findings and reports: what a check produces (the renderers in render/ print it). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "fix/fix.h"

const char *rd_status_name(enum rd_status s)
{
	switch (s) {
	case RD_OK: return "OK";
	case RD_SKIP: return "SKIP";
	case RD_UNKNOWN: return "UNKNOWN";
	case RD_WARN: return "WARN";
	case RD_FAIL: return "FAIL";
	}
	return "UNKNOWN";
}

int rd_status_exit_code(enum rd_status s)
{
	switch (s) {
	case RD_WARN: return 1;
	case RD_FAIL: return 2;
	case RD_UNKNOWN: return 3;
	default: return 0;
	}
}

bool rd_status_worse(enum rd_status a, enum rd_status b)
{
	return a > b;
}

void rd_report_free(struct rd_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct rd_finding *f = &r->findings[i];
		free(f->subject);
		free(f->message);
		for (size_t e = 0; e < f->nevidence; e++) {
			free(f->evidence[e].path);
			free(f->evidence[e].value);
		}
		free(f->evidence);
		rd_strv_free(&f->fix);
	}
	free(r->findings);
	memset(r, 0, sizeof *r);
}

enum rd_status rd_report_status(const struct rd_report *r)
{
	enum rd_status worst = RD_OK;
	for (size_t i = 0; i < r->n; i++)
		if (r->findings[i].status != RD_SKIP && rd_status_worse(r->findings[i].status, worst))
			worst = r->findings[i].status;
	return worst;
}

static struct rd_finding *report_addv(struct rd_report *r, const char *check, enum rd_subject_kind kind,
				      enum rd_status st, const char *subject, const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));
static struct rd_finding *report_addv(struct rd_report *r, const char *check, enum rd_subject_kind kind,
				      enum rd_status st, const char *subject, const char *fmt, va_list ap)
{
	r->findings = rd_grow(r->findings, r->n, sizeof *r->findings);
	struct rd_finding *f = &r->findings[r->n++];
	memset(f, 0, sizeof *f);
	f->check = check;
	f->status = st;
	f->subject = rd_xstrdup(subject ? subject : "host");
	f->kind = strcmp(f->subject, "host") ? kind : RD_SUBJ_HOST;
	f->message = rd_xvasprintf(fmt, ap);
	return f;
}

struct rd_finding *rd_finding_add(struct rd_check_ctx *ctx, enum rd_status st, const char *subject,
				  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct rd_finding *f = report_addv(ctx->report, ctx->check, ctx->kind, st, subject, fmt, ap);
	va_end(ap);
	return f;
}

struct rd_finding *rd_report_add(struct rd_report *r, const char *check, enum rd_subject_kind kind, enum rd_status st,
				 const char *subject, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct rd_finding *f = report_addv(r, check, kind, st, subject, fmt, ap);
	va_end(ap);
	return f;
}

void rd_evidence_add(struct rd_finding *f, const char *path, const char *fmt, ...)
{
	f->evidence = rd_xrealloc(f->evidence, (f->nevidence + 1) * sizeof *f->evidence);
	struct rd_evidence *e = &f->evidence[f->nevidence++];
	e->path = rd_xstrdup(path);
	va_list ap;
	va_start(ap, fmt);
	e->value = rd_xvasprintf(fmt, ap);
	va_end(ap);
}

void rd_evidence_attr(struct rd_finding *f, const struct rd_attr *a)
{
	if (rd_attr_ok(a))
		rd_evidence_add(f, a->path, "%s", a->value);
	else if (a->err == RD_EPARSE && a->value)
		rd_evidence_add(f, a->path, "%s (unexpected format)", a->value);
	else
		rd_evidence_add(f, a->path ? a->path : "?", "<%s>", rd_strerror(a->err));
}

void rd_fix_add(struct rd_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rd_strv_push_owned(&f->fix, rd_xvasprintf(fmt, ap));
	va_end(ap);
}

bool rd_check_quiet(const struct rd_check_ctx *ctx)
{
	return ctx->report->n == ctx->first;
}

bool rd_tool_usable(struct rd_check_ctx *ctx, const struct rd_tool_out *o, const char *subject, const char *what,
		    size_t *missing, char *why, size_t whylen)
{
	if (o->err == RD_ENOTCAPTURED || o->err == ENOENT) {
		if (!(*missing)++)
			rd_tool_why(o, why, whylen);
		return false;
	}
	if (rd_tool_ok(o))
		return true;
	char buf[320];
	struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, subject, "cannot read the %s of %s: %s", what, subject,
					      rd_tool_why(o, buf, sizeof buf));
	rd_evidence_add(f, o->capture ? o->capture : o->cmd, "<%s>", buf);
	return false;
}

bool rd_nccl_environ_unread(struct rd_check_ctx *ctx)
{
	const struct rd_nccl_environ *e = &ctx->sys->nccl_environ;
	if (!e->pid || !e->err)
		return false;
	const char *why = e->err == ENOENT ? "no such process"
			  : e->err == EACCES || e->err == EPERM ? "permission denied: run as root or as the job's user"
								 : rd_strerror(e->err);
	struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "host",
					      "cannot read the environment of process %d (%s): what NCCL is told there is not known",
					      e->pid, why);
	rd_evidence_add(f, e->path, "<%s>", rd_strerror(e->err));
	return true;
}

bool rd_fix_plan_suggest(const struct rd_fix_plan *plan, struct rd_finding *f)
{
	if (!plan->nfiles)
		return false;
	rd_fix_add(f, "rdma-doctor fix modules --apply    # or by hand, the same change:");
	rd_fix_plan_shell(plan, &f->fix);
	return true;
}
