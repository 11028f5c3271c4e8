/* `rdma-doctor explain TEXT... | -`: find known error messages in the text (a whole log can be
 * piped in), then judge each one's causes with the checks on this host (or --root), confirmed
 * causes first with their fix.  Exit 0: nothing matched or all ruled out; 1: a cause confirmed;
 * 3: could not tell (or the deadline stopped the reading before anything was confirmed).  The
 * scanner, the judgement and the renderer live in explain/ and render/explain.c. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "explain/explain.h"
#include "render/explain.h"

static void scan_text(struct rd_explain_scan *s, const char *text)
{
	size_t n = strlen(text);
	rd_explain_scan_feed(s, text, n);
	if (!n || text[n - 1] != '\n')
		rd_explain_scan_feed(s, "\n", 1);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Reads fd to its end or to the deadline (0: none), feeding the scanner; in->bytes_total is the
 * size of a regular file.  Returns 0 or -errno. */
static int scan_fd(struct rd_explain_scan *s, int fd, double deadline, struct rd_explain_input *in)
{
	enum { BUF = 1 << 17 };
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		in->bytes_total = (unsigned long long)st.st_size;
	char *buf = rd_xmalloc(BUF);
	int r = 0;
	for (;;) {
		if (deadline > 0) {
			double left = deadline - now_s();
			struct pollfd p = {.fd = fd, .events = POLLIN};
			int pr = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
			if (pr < 0 && errno == EINTR)
				continue;
			if (pr < 0) {
				r = -errno;
				break;
			}
			if (pr == 0 || now_s() >= deadline) {
				in->finished = false;
				break;
			}
		}
		ssize_t n = read(fd, buf, BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		rd_explain_scan_feed(s, buf, (size_t)n);
		in->bytes_read += (unsigned long long)n;
	}
	free(buf);
	return r;
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
	/* reading stops at the deadline, keeping a tenth of it (at most 1 s) to judge what was read */
	double t0 = now_s(), reserve = ctx->timeout_s / 10 < 1 ? ctx->timeout_s / 10 : 1;
	struct rd_explain_input in = {.finished = true, .timeout_s = ctx->timeout_s};
	if (from_stdin) {
		int r = scan_fd(&scan, 0, ctx->timeout_s > 0 ? t0 + ctx->timeout_s - reserve : 0, &in);
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
	rd_explain_scan_end(&scan);
	if (!from_stdin)
		in.bytes_read = scan.bytes;
	size_t matched = 0;
	for (size_t k = 0; k < scan.nsig; k++)
		matched += scan.m[k].count > 0;

	/* the checks, only when a message needs them; the host is read within what is left of the deadline */
	struct rd_loaded l;
	struct rd_report report = {0};
	bool loaded = false;
	if (matched) {
		double timeout = ctx->timeout_s;
		if (timeout > 0) {
			double left = t0 + timeout - now_s();
			ctx->timeout_s = left > reserve ? left : reserve;
		}
		int lr = rd_ctx_load(ctx, policy_path, true, &l);
		ctx->timeout_s = timeout;
		if (lr < 0) {
			rd_explain_scan_free(&scan);
			return 3;
		}
		rd_checks_run(&l.h, &l.sys, &l.pol, rd_source_is_live(l.src), NULL, NULL, &report);
		loaded = true;
	}
	struct rd_explain_result res = {.input = in, .judged = loaded};
	rd_explain_result_build(&res, &scan, loaded ? &report : NULL, loaded ? &l.h : NULL, loaded ? &l.sys : NULL);
	if (loaded) {
		res.host = rd_attr_ok(&l.h.hostname) ? l.h.hostname.value : NULL;
		res.root = rd_source_is_live(l.src) ? NULL : rd_source_root(l.src);
	}
	if (!in.finished && res.exit_code == 0)
		res.exit_code = 3; /* not all of the input was read: nothing known is not "nothing there" */
	int rc = res.exit_code;
	rd_explain_render(ctx->out, json, &res);
	rd_explain_result_free(&res);
	if (loaded) {
		rd_report_free(&report);
		rd_loaded_free(&l);
	}
	rd_explain_scan_free(&scan);
	return rc;
}
