/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "render/fleet_history.h"

#include <string.h>

#include "render/fleet.h"
#include "render/out.h"
#include "util/util.h"

static const char *iso(long long t, char *buf, size_t len)
{
	return t < 0 ? NULL : rd_utc_iso8601(t, buf, len);
}

static const char *rule_name(const struct rd_hist *h, int rule)
{
	return rule >= 0 && rule < RD_HIST_NRULES ? h->rules[rule].name : NULL;
}

static void times(struct rd_out *o, const long long *t, size_t n)
{
	char b[40];
	rd_out_arr_begin(o, "times");
	for (size_t i = 0; i < n; i++)
		if (o->json || i < RD_HIST_TEXT_MAX_TIMES)
			rd_out_item_str(o, i ? ", %s" : "      %s", iso(t[i], b, sizeof b));
	if (n > RD_HIST_TEXT_MAX_TIMES)
		rd_out_text(o, ", ... (%zu more)", n - RD_HIST_TEXT_MAX_TIMES);
	rd_out_arr_end(o);
	if (n)
		rd_out_text(o, "\n");
}

static void subject(struct rd_out *o, const struct rd_hist *h, const struct rd_hist_subject *s)
{
	rd_out_obj_begin(o, NULL);
	rd_out_str(o, "check", "  %s ", s->check);
	rd_out_str(o, "subject", "%s: ", s->subject);
	rd_out_uint(o, "count", "%llu", s->n);
	rd_out_text(o, " counted");
	rd_out_uint(o, "transient", NULL, s->transient);
	if (s->transient)
		rd_out_text(o, " (+%zu after a reboot, not counted)", s->transient);
	rd_out_bool(o, "lemon", NULL, s->rule >= 0);
	rd_out_str(o, "rule", s->rule >= 0 ? ", LEMON by \"%s\"" : NULL, rule_name(h, s->rule));
	rd_out_text(o, "\n");
	times(o, s->times, s->n);
	rd_out_obj_end(o);
}

static void node(struct rd_out *o, const struct rd_hist *h, const struct rd_hist_node *n)
{
	char b[40];
	rd_out_obj_begin(o, NULL);
	rd_out_text(o, "%s ", n->lemon ? "LEMON" : "ok   ");
	rd_out_str(o, "node", "%s", n->name);
	rd_out_bool(o, "lemon", NULL, n->lemon);
	rd_out_uint(o, "score", "  score %llu", n->score);
	rd_out_uint(o, "reboots", "  reboots %llu", n->reboots);
	rd_out_uint(o, "reports", "  reports %llu", n->nwindow);
	rd_out_str(o, "first", NULL, iso(n->nwindow ? n->first_t : -1, b, sizeof b));
	rd_out_str(o, "last", "  last %s", iso(n->nwindow ? n->last_t : -1, b, sizeof b));
	rd_out_str(o, "last_status", " %s", n->last != RD_FS_NONE ? rd_fleet_status_name(n->last) : NULL);
	rd_out_text(o, "\n");
	rd_out_uint(o, "failing_reports", n->nfail || n->rule >= 0 ? "  (node) %llu failing reports" : NULL, n->nfail);
	rd_out_str(o, "rule", n->rule >= 0 ? ", LEMON by \"%s\"" : NULL, rule_name(h, n->rule));
	if (n->nfail)
		rd_out_text(o, "\n");
	rd_out_arr_begin(o, "subjects");
	/* lemon subjects first, then the others that had an event; each in first-seen order */
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < n->nsubj; k++) {
			const struct rd_hist_subject *s = &n->subj[k];
			if ((pass == 0) == (s->rule >= 0) && (s->n || s->transient))
				subject(o, h, s);
		}
	rd_out_arr_end(o);
	rd_out_obj_end(o);
}

void rd_hist_render(FILE *out, const struct rd_hist *h, size_t problems, bool json, bool ascii)
{
	struct rd_out o;
	char b1[40], b2[40];
	rd_out_init(&o, out, json);
	if (!json)
		o.ascii = ascii || o.ascii;
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/fleet-history/v1");
	rd_out_int(&o, "exit_code", NULL, rd_hist_exit_code(h, problems));
	rd_out_str(&o, "since", NULL, iso(h->newest >= 0 ? h->since : -1, b1, sizeof b1));
	rd_out_str(&o, "time", NULL, iso(h->newest, b2, sizeof b2));
	rd_out_int(&o, "days", NULL, h->days);
	rd_out_uint(&o, "repeats", NULL, h->rules[RD_HIST_NRULES - 1].count);
	rd_out_obj_begin(&o, "counts");
	rd_out_text(&o, "rdma-doctor fleet --history: ");
	rd_out_uint(&o, "lemons", "%llu lemon", h->nlemons);
	rd_out_text(&o, "%s among ", h->nlemons == 1 ? "" : "s");
	rd_out_uint(&o, "nodes", "%llu node", h->nnodes);
	rd_out_text(&o, "%s\n", h->nnodes == 1 ? "" : "s");
	rd_out_text(&o, "window %s to %s (%lld days)\n", h->newest >= 0 ? b1 : "-", h->newest >= 0 ? b2 : "-", h->days);
	size_t inwin = h->nreports - h->old;
	rd_out_uint(&o, "reports", "reports %llu", inwin);
	rd_out_uint(&o, "old", ", %llu older than the window", h->old);
	rd_out_uint(&o, "duplicates", ", %llu duplicate", h->duplicates);
	rd_out_uint(&o, "future", ", %llu in the future", h->future);
	rd_out_uint(&o, "problems", ", %llu unreadable (on standard error)\n", problems + h->too_many);
	rd_out_uint(&o, "subjects_cut", h->subjects_cut ? "%llu events not kept (past " RD_HIST_MAX_SUBJECTS_TEXT " subjects of a node)\n" : NULL,
		    h->subjects_cut);
	rd_out_obj_end(&o);
	rd_out_arr_begin(&o, "rules");
	rd_out_text(&o, "rules (the first that matches names the lemon):");
	for (size_t r = 0; r < RD_HIST_NRULES; r++) {
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "name", r ? ", %s" : " %s", h->rules[r].name);
		rd_out_uint(&o, "count", NULL, h->rules[r].count);
		if (h->rules[r].within > 0)
			rd_out_int(&o, "within_s", NULL, h->rules[r].within);
		else
			rd_out_null(&o, "within_s");
		rd_out_obj_end(&o);
	}
	rd_out_text(&o, "\n\n");
	rd_out_arr_end(&o);
	rd_out_arr_begin(&o, "nodes");
	for (size_t i = 0; i < h->nnodes; i++)
		node(&o, h, &h->nodes[h->order[i]]);
	rd_out_arr_end(&o);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
}

/* ---- HTML ---------------------------------------------------------------------------------- */

static int status_rank(enum rd_fleet_status s)
{
	switch (s) {
	case RD_FS_FAIL: return 4;
	case RD_FS_UNKNOWN: return 3;
	case RD_FS_WARN: return 2;
	case RD_FS_OK: return 1;
	default: return 0;
	}
}

static const char *status_css(enum rd_fleet_status s)
{
	switch (s) {
	case RD_FS_OK: return "ok";
	case RD_FS_WARN: return "warn";
	case RD_FS_FAIL: return "fail";
	case RD_FS_UNKNOWN: return "unknown";
	default: return "none";
	}
}

struct span {
	enum rd_fleet_status worst;
	unsigned reports, reboots;
};

/* The node's reports in the window, span by span; the spans' width in seconds (at least 1). */
static void spans(const struct rd_hist *h, const struct rd_hist_node *n, struct span *sp, long long *width)
{
	long long from = h->since, len = h->newest - h->since;
	long long w = len > 0 ? (len + RD_HIST_HTML_SPANS - 1) / RD_HIST_HTML_SPANS : 1;
	*width = w > 0 ? w : 1;
	memset(sp, 0, RD_HIST_HTML_SPANS * sizeof *sp);
	for (size_t i = 0; i < n->nreps; i++) {
		const struct rd_hist_report *r = &n->reps[i];
		if (!r->in_window || r->t < from)
			continue;
		long long k = (r->t - from) / *width;
		if (k >= RD_HIST_HTML_SPANS)
			k = RD_HIST_HTML_SPANS - 1;
		struct span *x = &sp[k];
		x->reports++;
		x->reboots += r->after_reboot;
		if (status_rank(r->status) > status_rank(x->worst))
			x->worst = r->status;
	}
}

static void html_timeline(FILE *out, const struct rd_hist *h, const struct rd_hist_node *n)
{
	struct span sp[RD_HIST_HTML_SPANS];
	long long w;
	char b1[40], b2[40];
	spans(h, n, sp, &w);
	fprintf(out, "<svg class=\"tl\" width=\"%d\" height=\"18\" viewBox=\"0 0 %d 18\" role=\"img\">", 3 * RD_HIST_HTML_SPANS,
		3 * RD_HIST_HTML_SPANS);
	for (int k = 0; k < RD_HIST_HTML_SPANS; k++) {
		if (!sp[k].reports)
			continue;
		long long t0 = h->since + k * w, t1 = t0 + w;
		fprintf(out, "<rect class=\"%s\" x=\"%d\" y=\"4\" width=\"3\" height=\"14\"><title>%s to %s: %u report%s, worst %s%s</title></rect>",
			status_css(sp[k].worst), 3 * k, iso(t0, b1, sizeof b1), iso(t1 < h->newest ? t1 : h->newest, b2, sizeof b2),
			sp[k].reports, sp[k].reports == 1 ? "" : "s", rd_fleet_status_name(sp[k].worst),
			sp[k].reboots ? ", after a reboot" : "");
		if (sp[k].reboots)
			fprintf(out, "<rect class=\"reboot\" x=\"%d\" y=\"0\" width=\"3\" height=\"3\"/>", 3 * k);
	}
	fputs("</svg>", out);
}

static void html_subjects(FILE *out, const struct rd_hist *h, const struct rd_hist_node *n)
{
	char b[40];
	size_t shown = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < n->nsubj; k++) {
			const struct rd_hist_subject *s = &n->subj[k];
			if ((pass == 0) != (s->rule >= 0) || !(s->n || s->transient))
				continue;
			if (!shown++)
				fputs("<ul class=\"subj\">", out);
			fprintf(out, "<li%s>", s->rule >= 0 ? " class=\"lemon\"" : "");
			rd_fleet_html_text(out, s->check);
			fputc(' ', out);
			rd_fleet_html_text(out, s->subject);
			fprintf(out, ": %zu counted", s->n);
			if (s->transient)
				fprintf(out, " (+%zu after a reboot, not counted)", s->transient);
			if (s->rule >= 0) {
				fputs(", LEMON by &quot;", out);
				rd_fleet_html_text(out, rule_name(h, s->rule));
				fputs("&quot;", out);
			}
			if (s->n) {
				fputs("<br><span class=\"t\">", out);
				for (size_t i = 0; i < s->n && i < RD_HIST_TEXT_MAX_TIMES; i++)
					fprintf(out, "%s%s", i ? ", " : "", iso(s->times[i], b, sizeof b));
				if (s->n > RD_HIST_TEXT_MAX_TIMES)
					fprintf(out, ", ... (%zu more)", s->n - RD_HIST_TEXT_MAX_TIMES);
				fputs("</span>", out);
			}
			fputs("</li>", out);
		}
	if (shown)
		fputs("</ul>", out);
}

void rd_hist_html(FILE *out, const struct rd_hist *h, size_t problems)
{
	char b1[40], b2[40];
	int code = rd_hist_exit_code(h, problems);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>rdma-doctor fleet --history</title>\n"
	      "<style>\n"
	      "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
	      "table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
	      "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\n"
	      "th{background:#eee}\n"
	      "td.n{text-align:right}\n"
	      "td.last{white-space:nowrap}\n"
	      "tr.lemon td.node{background:#f8d7da;font-weight:bold}\n"
	      "svg.tl{background:#f8f9fa;display:block}\n"
	      "rect.ok{fill:#28a745}rect.warn{fill:#e0a800}rect.fail{fill:#dc3545}rect.unknown{fill:#6c757d}"
	      "rect.none{fill:#fff}rect.reboot{fill:#000}\n"
	      ".key span{display:inline-block;width:.8em;height:.8em;margin:0 .2em 0 .8em}\n"
	      ".key .ok{background:#28a745}.key .warn{background:#e0a800}.key .fail{background:#dc3545}"
	      ".key .unknown{background:#6c757d}.key .reboot{background:#000}\n"
	      "ul.subj{margin:.3em 0;padding-left:1.2em;font-size:.85em}\n"
	      "li.lemon{color:#a71d2a}\n"
	      ".t{font-family:monospace;color:#555}\n"
	      "</style></head><body>\n",
	      out);
	fprintf(out, "<h1>rdma-doctor fleet --history: %zu lemon%s among %zu node%s</h1>\n", h->nlemons,
		h->nlemons == 1 ? "" : "s", h->nnodes, h->nnodes == 1 ? "" : "s");
	fprintf(out, "<p id=\"summary\">window %s to %s (%lld days); reports %zu, %zu older than the window, %zu duplicate, "
		"%zu in the future, %zu unreadable (on standard error); exit status %d</p>\n",
		h->newest >= 0 ? iso(h->since, b1, sizeof b1) : "-", h->newest >= 0 ? iso(h->newest, b2, sizeof b2) : "-",
		h->days, h->nreports - h->old, h->old, h->duplicates, h->future, problems + h->too_many, code);
	fputs("<p id=\"rules\">rules (the first that matches names the lemon):", out);
	for (size_t r = 0; r < RD_HIST_NRULES; r++) {
		fputs(r ? ", " : " ", out);
		rd_fleet_html_text(out, h->rules[r].name);
	}
	fputs("</p>\n<p class=\"key\">each mark is a span of the window in the worst status of its reports:"
	      "<span class=\"ok\"></span>OK<span class=\"warn\"></span>WARN<span class=\"fail\"></span>FAIL"
	      "<span class=\"unknown\"></span>UNKNOWN<span class=\"reboot\"></span>a reboot before it</p>\n",
	      out);
	fputs("<table id=\"nodes\">\n<tr><th>node</th><th>score</th><th>reboots</th><th>reports</th><th>last</th>"
	      "<th>timeline</th></tr>\n",
	      out);
	for (size_t i = 0; i < h->nnodes; i++) {
		const struct rd_hist_node *n = &h->nodes[h->order[i]];
		fprintf(out, "<tr class=\"%s\"><td class=\"node\">%s ", n->lemon ? "lemon" : "ok", n->lemon ? "LEMON" : "ok");
		rd_fleet_html_text(out, n->name);
		fprintf(out, "</td><td class=\"n\">%llu</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"last\">%s %s</td><td>",
			n->score, n->reboots, n->nwindow, n->nwindow ? iso(n->last_t, b1, sizeof b1) : "-",
			n->last != RD_FS_NONE ? rd_fleet_status_name(n->last) : "");
		html_timeline(out, h, n);
		if (n->nfail || n->rule >= 0) {
			fprintf(out, "<div class=\"t\">(node) %zu failing report%s", n->nfail, n->nfail == 1 ? "" : "s");
			if (n->rule >= 0) {
				fputs(", LEMON by &quot;", out);
				rd_fleet_html_text(out, rule_name(h, n->rule));
				fputs("&quot;", out);
			}
			fputs("</div>", out);
		}
		html_subjects(out, h, n);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n</body></html>\n", out);
}

static void label(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', out);
		if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

void rd_hist_prometheus(FILE *out, const struct rd_hist *h, size_t problems)
{
	fputs("# HELP rdma_doctor_fleet_lemon_score Counted repeat FAILs of the node's lemon subjects over the history window (0: not a lemon).\n"
	      "# TYPE rdma_doctor_fleet_lemon_score gauge\n", out);
	for (size_t i = 0; i < h->nnodes; i++) {
		const struct rd_hist_node *n = &h->nodes[h->order[i]];
		fputs("rdma_doctor_fleet_lemon_score{node=\"", out);
		label(out, n->name);
		fprintf(out, "\"} %llu\n", n->score);
	}
	fputs("# HELP rdma_doctor_fleet_reboots Reboots (boot_id changes) of the node over the history window.\n"
	      "# TYPE rdma_doctor_fleet_reboots gauge\n", out);
	for (size_t i = 0; i < h->nnodes; i++) {
		const struct rd_hist_node *n = &h->nodes[h->order[i]];
		fputs("rdma_doctor_fleet_reboots{node=\"", out);
		label(out, n->name);
		fprintf(out, "\"} %zu\n", n->reboots);
	}
	fputs("# HELP rdma_doctor_fleet_history_lemons Nodes found to be lemons.\n"
	      "# TYPE rdma_doctor_fleet_history_lemons gauge\n", out);
	fprintf(out, "rdma_doctor_fleet_history_lemons %zu\n", h->nlemons);
	fputs("# HELP rdma_doctor_fleet_history_problems Inputs and reports that could not be counted.\n"
	      "# TYPE rdma_doctor_fleet_history_problems gauge\n", out);
	fprintf(out, "rdma_doctor_fleet_history_problems %zu\n", problems + h->too_many);
}
