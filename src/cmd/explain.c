/* `rdma-doctor explain TEXT... | -`: find known error messages in the text (a whole log can be
 * piped in), then judge each one's causes with the checks on this host (or --root), confirmed
 * causes first with their fix.  Exit 0: nothing matched or all ruled out; 1: a cause confirmed;
 * 3: could not tell. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "explain/explain.h"
#include "render/out.h"

static void scan_text(struct rd_explain_scan *s, const char *text)
{
	for (const char *p = text;;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		rd_explain_scan_line(s, p, n);
		if (!nl || !nl[1])
			break;
		p = nl + 1;
	}
}

/* Standard input in chunks; a line longer than the buffer is cut (the scanner looks at its start). */
static int scan_fd(struct rd_explain_scan *s, int fd)
{
	enum { BUF = 1 << 16 };
	char *buf = rd_xmalloc(BUF);
	size_t have = 0;
	bool skipping = false; /* inside the cut-off tail of an over-long line */
	for (;;) {
		ssize_t n = read(fd, buf + have, BUF - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		size_t start = 0;
		for (;;) {
			char *nl = memchr(buf + start, '\n', have - start);
			if (!nl)
				break;
			size_t len = (size_t)(nl - (buf + start));
			if (!skipping)
				rd_explain_scan_line(s, buf + start, len);
			skipping = false;
			start += len + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have == BUF) { /* an over-long line: scan what we have, drop the rest of it */
			if (!skipping)
				rd_explain_scan_line(s, buf, have);
			skipping = true;
			have = 0;
		}
	}
	if (have && !skipping)
		rd_explain_scan_line(s, buf, have);
	free(buf);
	return 0;
}

static void lines_text(struct rd_buf *b, const struct rd_sig_match *m)
{
	size_t shown = m->count < RD_EXPLAIN_MAX_LINES ? m->count : RD_EXPLAIN_MAX_LINES;
	for (size_t i = 0; i < shown; i++)
		rd_buf_printf(b, "%s%zu", i ? ", " : "", m->lines[i]);
	if (m->count > shown)
		rd_buf_printf(b, ", ...");
}

int rd_cmd_explain(struct rd_ctx *ctx, int argc, char **argv)
{
	bool json = false, from_stdin = false;
	const char *policy_path = NULL;
	struct rd_explain_scan scan;
	rd_explain_scan_init(&scan);
	int texts = 0;
	for (int i = 1; i < argc; i++) {
		int r = rd_opt_format(ctx, argc, argv, &i, &json);
		if (r < 0) {
			rd_explain_scan_free(&scan);
			return 3;
		}
		if (r > 0)
			continue;
		if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
			policy_path = argv[++i];
		} else if (strcmp(argv[i], "-") == 0) {
			from_stdin = true;
		} else if (strcmp(argv[i], "--") == 0) {
			for (i++; i < argc; i++, texts++)
				scan_text(&scan, argv[i]);
		} else {
			scan_text(&scan, argv[i]);
			texts++;
		}
	}
	if (from_stdin) {
		int r = scan_fd(&scan, 0);
		if (r < 0) {
			fprintf(ctx->err, "%s: explain: cannot read standard input: %s\n", ctx->prog, strerror(-r));
			rd_explain_scan_free(&scan);
			return 3;
		}
	} else if (!texts) {
		fprintf(ctx->err, "%s: explain: give the error text, or - to read it from standard input\n", ctx->prog);
		rd_explain_scan_free(&scan);
		return 3;
	}
	size_t matched = 0;
	for (size_t k = 0; k < scan.nsig; k++)
		matched += scan.m[k].count > 0;

	/* the checks, only when a message needs them */
	struct rd_loaded l;
	struct rd_report report = {0};
	bool loaded = false;
	if (matched) {
		if (rd_ctx_load(ctx, policy_path, true, &l) < 0) {
			rd_explain_scan_free(&scan);
			return 3;
		}
		rd_checks_run(&l.h, &l.sys, &l.pol, rd_source_is_live(l.src), NULL, NULL, &report);
		loaded = true;
	}
	struct rd_source *src = loaded ? l.src : NULL;
	const struct rd_host *hp = loaded ? &l.h : NULL;

	bool any_confirmed = false, any_unknown = false;
	struct rd_out o;
	rd_out_init(&o, ctx->out, json);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/explain/v1");
	rd_out_uint(&o, "lines_read", NULL, scan.line);
	if (loaded) {
		rd_out_str(&o, "host", NULL, rd_attr_ok(&hp->hostname) ? hp->hostname.value : NULL);
		rd_out_str(&o, "root", NULL, rd_source_is_live(src) ? NULL : rd_source_root(src));
		rd_out_text(&o, "rdma-doctor explain: %zu known message%s in %zu line%s; causes judged on %s%s%s\n", matched,
			    matched == 1 ? "" : "s", scan.line, scan.line == 1 ? "" : "s",
			    rd_attr_ok(&hp->hostname) ? hp->hostname.value : "this host", rd_source_is_live(src) ? "" : " from ",
			    rd_source_is_live(src) ? "" : rd_source_root(src));
	} else {
		rd_out_text(&o, "No known RDMA error message in %zu line%s.  Run 'rdma-doctor check' to examine this host.\n",
			    scan.line, scan.line == 1 ? "" : "s");
	}
	rd_out_arr_begin(&o, "matches");
	for (size_t k = 0; k < scan.nsig; k++) {
		const struct rd_sig_match *m = &scan.m[k];
		if (!m->count)
			continue;
		const struct rd_signature *sig = &rd_signatures[k];
		struct rd_buf lines = {0};
		lines_text(&lines, m);
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "signature", "\n%s", sig->id);
		rd_out_str(&o, "meaning", ": %s\n", sig->meaning);
		rd_out_uint(&o, "count", NULL, m->count);
		rd_out_text(&o, "    line%s %s: %s\n", m->count == 1 ? "" : "s", lines.data, m->sample);
		rd_out_arr_begin(&o, "lines");
		for (size_t i = 0; i < m->count && i < RD_EXPLAIN_MAX_LINES; i++)
			rd_out_item_uint(&o, NULL, m->lines[i]);
		rd_out_arr_end(&o);
		rd_out_str(&o, "first_line", NULL, m->sample);
		rd_buf_free(&lines);
		/* causes: confirmed first, then cannot tell, then ruled out; each in table order */
		rd_out_arr_begin(&o, "causes");
		for (int pass = RD_CAUSE_CONFIRMED; pass <= RD_CAUSE_RULED_OUT; pass++)
			for (int c = 0; c < RD_SIG_MAX_CAUSES && sig->causes[c].text; c++) {
				const struct rd_sig_cause *cause = &sig->causes[c];
				const struct rd_finding *f;
				enum rd_cause_verdict v = rd_explain_judge(cause, &report, &f);
				if ((int)v != pass)
					continue;
				any_confirmed |= v == RD_CAUSE_CONFIRMED;
				any_unknown |= v == RD_CAUSE_CANNOT_TELL;
				static const char *const marks[] = {"\u2714 confirmed  ", "? cannot tell", "\u2716 ruled out  "};
				rd_out_obj_begin(&o, NULL);
				rd_out_str(&o, "cause", NULL, cause->text);
				rd_out_str(&o, "verdict", NULL, rd_cause_verdict_name(v));
				rd_out_text(&o, "    %s %s", marks[v], cause->text);
				rd_out_arr_begin(&o, "checks");
				for (int i = 0; i < 3 && cause->checks[i]; i++)
					rd_out_item_str(&o, i ? ", %s" : " [%s", cause->checks[i]);
				rd_out_arr_end(&o);
				rd_out_text(&o, "%s", cause->checks[0] ? "]" : "");
				if (f && v != RD_CAUSE_CONFIRMED)
					rd_out_text(&o, ": %s", f->message);
				else if (!f && v == RD_CAUSE_CANNOT_TELL && cause->otherwise)
					rd_out_text(&o, ": %s", cause->otherwise);
				rd_out_text(&o, "\n");
				rd_out_str(&o, "finding", NULL, f ? f->message : NULL);
				rd_out_str(&o, "note", NULL, !f && cause->otherwise ? cause->otherwise : NULL);
				rd_out_arr_begin(&o, "evidence");
				if (f && v != RD_CAUSE_RULED_OUT)
					for (size_t e = 0; e < f->nevidence; e++) {
						rd_out_obj_begin(&o, NULL);
						rd_out_str(&o, "path", "                   %s", f->evidence[e].path);
						rd_out_str(&o, "value", " = %s\n", f->evidence[e].value);
						rd_out_obj_end(&o);
					}
				rd_out_arr_end(&o);
				rd_out_arr_begin(&o, "fix");
				if (f && v == RD_CAUSE_CONFIRMED)
					for (size_t i = 0; i < f->fix.n; i++)
						rd_out_item_str(&o, i ? "                        %s\n" : "                   fix: %s\n",
								f->fix.v[i]);
				rd_out_arr_end(&o);
				rd_out_obj_end(&o);
			}
		rd_out_arr_end(&o);
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	int rc = any_confirmed ? 1 : any_unknown ? 3 : 0;
	rd_out_str(&o, "status", NULL, any_confirmed ? "confirmed" : any_unknown ? "cannot tell" : matched ? "ruled out" : "no match");
	rd_out_int(&o, "exit_code", NULL, rc);
	if (matched)
		rd_out_text(&o, "\n%s\n",
			    any_confirmed ? "A cause is confirmed on this host: see it above, with its fix."
			    : any_unknown ? "No cause confirmed here; some cannot be told from this host (see above)."
					  : "Every known cause is ruled out on this host.");
	rd_out_obj_end(&o);
	rd_out_finish(&o);
	if (loaded) {
		rd_report_free(&report);
		rd_loaded_free(&l);
	}
	rd_explain_scan_free(&scan);
	return rc;
}
