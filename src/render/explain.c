/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The explain renderer: each matched signature with its lines and its judged causes, confirmed
 * first with the evidence and fix of the finding that confirmed it. */
#include "render/explain.h"

#include <stdio.h>
#include <string.h>

#include "render/out.h"
#include "util/util.h"

static void lines_text(struct rd_buf *b, const struct rd_sig_match *m)
{
	size_t shown = m->count < RD_EXPLAIN_MAX_LINES ? m->count : RD_EXPLAIN_MAX_LINES;
	for (size_t i = 0; i < shown; i++)
		rd_buf_printf(b, "%s%zu", i ? ", " : "", m->lines[i]);
	if (m->count > shown)
		rd_buf_printf(b, ", ...");
}

static void render_cause(struct rd_out *o, bool ascii, const struct rd_explain_verdict *x)
{
	/* a ruled-out cause is nothing wrong: its mark is not check's FAIL mark (\u2716 / x) */
	static const char *const marks[] = {"\u2714 confirmed  ", "? cannot tell", "\u25cb ruled out  "};
	static const char *const ascii_marks[] = {"+ confirmed  ", "? cannot tell", "o ruled out  "};
	const struct rd_sig_cause *cause = x->cause;
	const struct rd_finding *f = x->finding;
	enum rd_cause_verdict v = x->v;
	rd_out_obj_begin(o, NULL);
	rd_out_str(o, "id", NULL, cause->id);
	rd_out_str(o, "cause", NULL, cause->text);
	rd_out_str(o, "verdict", NULL, rd_cause_verdict_name(v));
	rd_out_text(o, "    %s %s", ascii ? ascii_marks[v] : marks[v], cause->text);
	rd_out_arr_begin(o, "checks");
	for (int i = 0; i < 3 && cause->checks[i]; i++)
		rd_out_item_str(o, i ? ", %s" : " [%s", cause->checks[i]);
	rd_out_arr_end(o);
	rd_out_text(o, "%s", cause->checks[0] ? "]" : "");
	if (x->why[0])
		rd_out_text(o, ": %s", x->why);
	else if (f && v != RD_CAUSE_CONFIRMED)
		rd_out_text(o, ": %s", f->message);
	else if (!f && v == RD_CAUSE_CANNOT_TELL && cause->otherwise)
		rd_out_text(o, ": %s", cause->otherwise);
	rd_out_text(o, "\n");
	rd_out_str(o, "finding", NULL, f ? f->message : NULL);
	rd_out_str(o, "why", NULL, x->why[0] ? x->why : NULL);
	rd_out_str(o, "note", NULL, !f && cause->otherwise ? cause->otherwise : NULL);
	/* the evidence and fix of each finding that confirms it (a fix line once) */
	const struct rd_finding *all[1 + RD_EXPLAIN_MORE] = {f};
	size_t nall = f ? 1 : 0;
	for (size_t i = 0; i < x->nmore; i++)
		all[nall++] = x->more[i];
	rd_out_arr_begin(o, "evidence");
	for (size_t k = 0; k < nall && v != RD_CAUSE_RULED_OUT; k++)
		for (size_t e = 0; e < all[k]->nevidence; e++) {
			rd_out_obj_begin(o, NULL);
			rd_out_str(o, "path", "                   %s", all[k]->evidence[e].path);
			rd_out_str(o, "value", " = %s\n", all[k]->evidence[e].value);
			rd_out_obj_end(o);
		}
	rd_out_arr_end(o);
	rd_out_arr_begin(o, "fix");
	size_t shown = 0;
	for (size_t k = 0; k < nall && v == RD_CAUSE_CONFIRMED; k++)
		for (size_t i = 0; i < all[k]->fix.n; i++) {
			bool seen = false;
			for (size_t j = 0; j < k && !seen; j++)
				seen = rd_strv_contains(&all[j]->fix, all[k]->fix.v[i]);
			if (!seen)
				rd_out_item_str(o, shown++ ? "                        %s\n" : "                   fix: %s\n",
						all[k]->fix.v[i]);
		}
	/* no finding gave a fix: the one its fact found for this host, else the cause's own */
	for (int i = 0; v == RD_CAUSE_CONFIRMED && !shown && i < x->nfix; i++)
		rd_out_item_str(o, i ? "                        %s\n" : "                   fix: %s\n", x->fix[i]);
	for (const char *p = cause->fix; v == RD_CAUSE_CONFIRMED && !shown && !x->nfix && p && *p;) {
		size_t n = strcspn(p, "\n");
		char line[400];
		snprintf(line, sizeof line, "%.*s", (int)n, p);
		rd_out_item_str(o, p == cause->fix ? "                   fix: %s\n" : "                        %s\n", line);
		p += n + (p[n] == '\n');
	}
	rd_out_arr_end(o);
	rd_out_obj_end(o);
}

void rd_explain_render(FILE *f, bool json, bool ascii, const struct rd_explain_result *r)
{
	const struct rd_explain_scan *scan = r->scan;
	struct rd_out o;
	rd_out_init(&o, f, json);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/explain/v1");
	rd_out_uint(&o, "lines_read", NULL, scan->line);
	if (!r->input.finished && r->input.bytes_total)
		rd_out_text(&o, "rdma-doctor explain: read %llu of %llu bytes before the deadline (--timeout %g s): the rest "
				"was not scanned\n",
			    r->input.bytes_read, r->input.bytes_total, r->input.timeout_s);
	else if (!r->input.finished)
		rd_out_text(&o, "rdma-doctor explain: read %llu bytes before the deadline (--timeout %g s): the rest was not "
				"scanned\n",
			    r->input.bytes_read, r->input.timeout_s);
	if (r->judged) {
		rd_out_str(&o, "host", NULL, r->host);
		rd_out_str(&o, "root", NULL, r->root);
		rd_out_text(&o, "rdma-doctor explain: %zu known message%s in %zu line%s; causes judged on %s%s%s\n", r->nmatch,
			    r->nmatch == 1 ? "" : "s", scan->line, scan->line == 1 ? "" : "s",
			    r->host ? r->host : "this host", r->root ? " from " : "", r->root ? r->root : "");
	} else {
		rd_out_text(&o, "No known RDMA error message in %zu line%s. Run 'rdma-doctor check' to examine this host.\n",
			    scan->line, scan->line == 1 ? "" : "s");
	}
	rd_out_obj_begin(&o, "input");
	rd_out_uint(&o, "bytes_read", NULL, r->input.bytes_read);
	if (r->input.bytes_total)
		rd_out_uint(&o, "bytes_total", NULL, r->input.bytes_total);
	else
		rd_out_null(&o, "bytes_total");
	rd_out_bool(&o, "finished", NULL, r->input.finished);
	rd_out_obj_end(&o);
	rd_out_arr_begin(&o, "matches");
	for (size_t k = 0; k < r->nmatch; k++) {
		const struct rd_explain_match *x = &r->matches[k];
		const struct rd_sig_match *m = x->m;
		struct rd_buf lines = {0};
		lines_text(&lines, m);
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "signature", "\n%s", x->sig->id);
		rd_out_str(&o, "meaning", ": %s\n", x->sig->meaning);
		rd_out_uint(&o, "count", NULL, m->count);
		rd_out_text(&o, "    line%s %s: %s\n", m->count == 1 ? "" : "s", lines.data, m->sample);
		rd_out_arr_begin(&o, "lines");
		for (size_t i = 0; i < m->count && i < RD_EXPLAIN_MAX_LINES; i++)
			rd_out_item_uint(&o, NULL, m->lines[i]);
		rd_out_arr_end(&o);
		rd_out_str(&o, "first_line", NULL, m->sample);
		rd_buf_free(&lines);
		rd_out_arr_begin(&o, "causes");
		for (size_t c = 0; c < x->ncauses; c++)
			render_cause(&o, ascii, &x->causes[c]);
		rd_out_arr_end(&o);
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	rd_out_str(&o, "status", NULL,
		   r->any_confirmed ? "confirmed" : r->any_unknown ? "cannot tell" : r->nmatch ? "ruled out" : "no match");
	rd_out_int(&o, "exit_code", NULL, r->exit_code);
	if (r->nmatch)
		rd_out_text(&o, "\n%s\n",
			    r->any_confirmed ? "A cause is confirmed on this host: see it above, with its fix."
			    : r->any_unknown ? "No cause confirmed here; some cannot be told from this host (see above)."
					     : "Every known cause is ruled out on this host.");
	rd_out_obj_end(&o);
	rd_out_finish(&o);
}
