/* Judging causes against the check findings, and the finished result of explain. */
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"

const char *rd_cause_verdict_name(enum rd_cause_verdict v)
{
	switch (v) {
	case RD_CAUSE_CONFIRMED: return "confirmed";
	case RD_CAUSE_RULED_OUT: return "ruled out";
	default: return "cannot tell";
	}
}

static bool is_check_of(const struct rd_sig_cause *c, const struct rd_finding *f)
{
	for (int i = 0; i < 3 && c->checks[i]; i++)
		if (strcmp(c->checks[i], f->check) == 0)
			return true;
	return false;
}

static bool passes_filter(const struct rd_sig_cause *c, const struct rd_finding *f)
{
	return !c->filter || strstr(f->subject, c->filter) || strstr(f->message, c->filter);
}

enum rd_cause_verdict rd_explain_judge(const struct rd_sig_cause *c, const struct rd_report *r,
				       const struct rd_finding **decisive)
{
	*decisive = NULL;
	if (!c->checks[0])
		return RD_CAUSE_CANNOT_TELL;
	const struct rd_finding *unknown = NULL, *clear = NULL;
	bool ran = false;
	for (size_t i = 0; i < r->n; i++) {
		const struct rd_finding *f = &r->findings[i];
		if (!is_check_of(c, f))
			continue;
		ran = true;
		if ((f->status == RD_FAIL || f->status == RD_WARN || (c->ok_confirms && f->status == RD_OK)) &&
		    passes_filter(c, f)) {
			*decisive = f;
			return RD_CAUSE_CONFIRMED;
		}
		if (f->status == RD_UNKNOWN && !unknown)
			unknown = f;
		if ((f->status == RD_OK || f->status == RD_SKIP) && !clear)
			clear = f;
	}
	if (unknown || !ran) {
		*decisive = unknown;
		return RD_CAUSE_CANNOT_TELL;
	}
	*decisive = clear;
	return RD_CAUSE_RULED_OUT;
}

void rd_explain_result_build(struct rd_explain_result *res, const struct rd_explain_scan *scan,
			     const struct rd_report *report)
{
	static const struct rd_report none = {0};
	if (!report)
		report = &none;
	res->scan = scan;
	res->matches = rd_xcalloc(scan->nsig ? scan->nsig : 1, sizeof *res->matches);
	res->nmatch = 0;
	res->any_confirmed = res->any_unknown = false;
	for (size_t k = 0; k < scan->nsig; k++) {
		if (!scan->m[k].count)
			continue;
		struct rd_explain_match *x = &res->matches[res->nmatch++];
		x->sig = &rd_signatures[k];
		x->m = &scan->m[k];
		x->ncauses = 0;
		for (int pass = RD_CAUSE_CONFIRMED; pass <= RD_CAUSE_RULED_OUT; pass++)
			for (int c = 0; c < RD_SIG_MAX_CAUSES && x->sig->causes[c].text; c++) {
				const struct rd_sig_cause *cause = &x->sig->causes[c];
				const struct rd_finding *f;
				enum rd_cause_verdict v = rd_explain_judge(cause, report, &f);
				if ((int)v != pass)
					continue;
				res->any_confirmed |= v == RD_CAUSE_CONFIRMED;
				res->any_unknown |= v == RD_CAUSE_CANNOT_TELL;
				x->causes[x->ncauses++] = (struct rd_explain_verdict){cause, v, f};
			}
	}
	res->exit_code = res->any_confirmed ? 1 : res->any_unknown ? 3 : 0;
}

void rd_explain_result_free(struct rd_explain_result *res)
{
	free(res->matches);
	res->matches = NULL;
	res->nmatch = 0;
}
