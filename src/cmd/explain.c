/* `rdma-doctor explain TEXT... | -`: find known error messages in the text (a whole log can be
 * piped in), then judge each one's causes with the checks on this host (or --root), confirmed
 * causes first with their fix.  Exit 0: nothing matched or all ruled out; 1: a cause confirmed;
 * 3: could not tell.  An operand that names an existing path is a log file (a regular file or a
 * pipe; anything else there is an error naming it), "-" is standard input, --file FILE is always
 * a file, and any other operand is the text itself. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* A log file (or a pipe, as from <(dmesg)): checked (a device is never opened), opened, checked
 * again, scanned. */
static int scan_file(struct rd_explain_scan *s, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return -RD_ENOTREG;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	int r = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) ? 0 : -RD_ENOTREG;
	if (r == 0)
		r = scan_fd(s, fd);
	close(fd);
	return r;
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
	enum { OPT_POLICY = 256, OPT_FILE };
	static const struct option longopts[] = {
		RD_LONGOPT_FORMAT,
		RD_LONGOPT_HELP,
		{"policy", required_argument, NULL, OPT_POLICY},
		{"file", required_argument, NULL, OPT_FILE},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	const char *policy_path = NULL;
	/* the inputs in order: text, "-" (standard input) or a file (--file, or an existing path) */
	struct input {
		const char *arg;
		bool file;
	} *inputs = rd_xcalloc((size_t)argc + 1, sizeof *inputs);
	size_t ninputs = 0;
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:j", .longopts = longopts};
	int bad = -1;
	for (int c; bad < 0 && (c = rd_getopt(ctx, &g)) != RD_OPT_END;) {
		switch (c) {
		case 'f':
			if (rd_opt_format(ctx, "explain", optarg, &json) < 0)
				bad = RD_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case OPT_POLICY:
			policy_path = optarg;
			break;
		case OPT_FILE:
			inputs[ninputs++] = (struct input){optarg, true};
			break;
		case RD_OPT_OPERAND:
			inputs[ninputs++] = (struct input){optarg, false};
			break;
		case RD_OPT_HELP:
			bad = 0;
			break;
		default:
			bad = RD_EXIT_USAGE;
			break;
		}
	}
	for (; bad < 0 && optind < argc; optind++) /* after "--": text, "-" or files, the same way */
		inputs[ninputs++] = (struct input){argv[optind], false};
	if (bad < 0 && !ninputs)
		bad = rd_usage_error(ctx, "explain", "give the error text, a log file, or - to read standard input");
	struct rd_explain_scan scan;
	rd_explain_scan_init(&scan);
	bool stdin_read = false;
	for (size_t k = 0; bad < 0 && k < ninputs; k++) {
		const char *arg = inputs[k].arg;
		if (!inputs[k].file && strcmp(arg, "-") == 0) {
			if (stdin_read)
				continue; /* standard input is read once */
			stdin_read = true;
			int r = scan_fd(&scan, 0);
			if (r < 0) {
				fprintf(ctx->err, "%s: explain: cannot read standard input: %s\n", ctx->prog, strerror(-r));
				bad = RD_EXIT_UNKNOWN;
			}
			continue;
		}
		struct stat st;
		if (!inputs[k].file && stat(arg, &st) < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG)) {
			scan_text(&scan, arg); /* not a path: the text itself */
			continue;
		}
		int r = scan_file(&scan, arg);
		if (r < 0) {
			rd_text_printf(ctx->err, ctx->ascii, "%s: explain: cannot read %s: %s\n", ctx->prog, arg,
				       r == -RD_ENOTREG ? "not a regular file or a pipe" : strerror(-r));
			bad = RD_EXIT_UNKNOWN;
		}
	}
	free(inputs);
	if (bad >= 0) {
		rd_explain_scan_free(&scan);
		return bad;
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
			return RD_EXIT_UNKNOWN;
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
		rd_out_text(&o, "No known RDMA error message in %zu line%s. Run 'rdma-doctor check' to examine this host.\n",
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
				static const char *const ascii_marks[] = {"+ confirmed  ", "? cannot tell", "x ruled out  "};
				rd_out_obj_begin(&o, NULL);
				rd_out_str(&o, "cause", NULL, cause->text);
				rd_out_str(&o, "verdict", NULL, rd_cause_verdict_name(v));
				rd_out_text(&o, "    %s %s", ctx->ascii ? ascii_marks[v] : marks[v], cause->text);
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
