/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "render/fleet_history.h"

#include <string.h>

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
