/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor explain TEXT... | -`: find known error messages in the text (a whole log can be
 * piped in), then judge each one's causes with the checks on this host (or --root), confirmed
 * causes first with their fix.  Exit 0: nothing matched or all ruled out; 1: a cause confirmed;
 * 3: could not tell (or the deadline stopped the reading before anything was confirmed).  An
 * operand that names an existing path is a log file (a regular file or a pipe; anything else there
 * is an error naming it), "-" is standard input, --file FILE is always a file, an operand that
 * looks like a path (one word with a '/', or a file name ending in an extension) and does not
 * exist is an error naming it (a mistyped log name is not error text), unless it follows "--",
 * and any other operand is the text itself.  The scanner, the judgement and the renderer live in explain/ and
 * render/explain.c. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "explain/explain.h"
#include "render/explain.h"
#include "render/out.h"

static void scan_text(struct rd_explain_scan *s, const char *text)
{
	size_t n = strlen(text);
	rd_explain_scan_feed(s, text, n);
	if (!n || text[n - 1] != '\n')
		rd_explain_scan_feed(s, "\n", 1);
}

/* One word that reads as a file name: no blank or control character, and a '/' in it or a final
 * extension of a letter and up to four letters or digits ("errs.txtt", "./job.log", "/tmp/x");
 * not "0000:9a:00.0" (a PCI address) nor words of a message. */
static bool looks_like_path(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '\'' || *p == '"')
			return false;
	if (strchr(s, '/'))
		return true;
	const char *dot = strrchr(s, '.');
	if (!dot || dot == s || !((dot[1] >= 'a' && dot[1] <= 'z') || (dot[1] >= 'A' && dot[1] <= 'Z')))
		return false;
	size_t n = strlen(dot + 1);
	if (n > 5)
		return false;
	for (const char *p = dot + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

static double now_s(void)
{
	return (double)rd_mono_ms() / 1e3;
}

/* Reads fd to its end or to the deadline (0: none), feeding the scanner; in->bytes_total is the
 * size of a regular file.  Returns 0 or -errno. */
static int scan_fd(struct rd_explain_scan *s, int fd, double deadline, struct rd_explain_input *in)
{
	enum { BUF = 1 << 17 };
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		in->bytes_total += (unsigned long long)st.st_size;
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

/* A log file (or a pipe, as from <(dmesg)): checked (a device is never opened), opened, checked
 * again, scanned until the deadline. */
static int scan_file(struct rd_explain_scan *s, const char *path, double deadline, struct rd_explain_input *in)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return -RD_ENOTREG;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	int r = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) ? 0 : -RD_ENOTREG;
	if (r == 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		r = -errno;
	if (r == 0)
		r = scan_fd(s, fd, deadline, in);
	close(fd);
	return r;
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
	const char *policy_path = ctx->policy;
	/* the inputs in order: text, "-" (standard input) or a file (--file, or an existing path) */
	struct input {
		const char *arg;
		bool file;
		bool text; /* after "--": an operand that is no path is text, whatever it looks like */
	} *inputs = rd_xcalloc((size_t)argc + 1, sizeof *inputs);
	size_t ninputs = 0;
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:j", .longopts = longopts, .operands = true};
	int bad = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &bad)) != RD_OPT_END;) {
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
			inputs[ninputs++] = (struct input){optarg, true, false};
			break;
		case RD_OPT_OPERAND: /* after "--": text, "-" or files, the same way */
			inputs[ninputs++] = (struct input){optarg, false, g.dashed};
			break;
		}
	}
	if (bad < 0 && !ninputs)
		bad = rd_usage_error(ctx, "explain", "give the error text, a log file, or - to read standard input");
	struct rd_explain_scan scan;
	rd_explain_scan_init(&scan);
	/* reading stops at the deadline, keeping a tenth of it (at most 1 s) to judge what was read */
	double t0 = now_s(), reserve = ctx->timeout_s / 10 < 1 ? ctx->timeout_s / 10 : 1;
	double deadline = ctx->timeout_s > 0 ? t0 + ctx->timeout_s - reserve : 0;
	struct rd_explain_input in = {.finished = true, .timeout_s = ctx->timeout_s};
	bool stdin_read = false, from_fd = false;
	for (size_t k = 0; bad < 0 && k < ninputs && in.finished; k++) {
		const char *arg = inputs[k].arg;
		if (!inputs[k].file && strcmp(arg, "-") == 0) {
			if (stdin_read)
				continue; /* standard input is read once */
			stdin_read = from_fd = true;
			int r = scan_fd(&scan, 0, deadline, &in);
			if (r < 0) {
				fprintf(ctx->err, "%s: explain: cannot read standard input: %s\n", ctx->prog, strerror(-r));
				bad = RD_EXIT_UNKNOWN;
			}
			continue;
		}
		struct stat st;
		if (!inputs[k].file && stat(arg, &st) < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG)) {
			int e = errno;
			if (!inputs[k].text && looks_like_path(arg)) {
				rd_text_printf(ctx->err, ctx->ascii,
					       "%s: explain: cannot read %s: %s (to have it taken as the error text, give it "
					       "after --)\n",
					       ctx->prog, arg, strerror(e));
				bad = RD_EXIT_UNKNOWN;
				continue;
			}
			scan_text(&scan, arg); /* not a path: the text itself */
			in.bytes_read += strlen(arg);
			continue;
		}
		from_fd = true;
		int r = scan_file(&scan, arg, deadline, &in);
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
	rd_explain_scan_end(&scan);
	if (!from_fd)
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
			return RD_EXIT_UNKNOWN;
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
	rd_explain_render(ctx->out, json, ctx->ascii, &res);
	rd_explain_result_free(&res);
	if (loaded) {
		rd_report_free(&report);
		rd_loaded_free(&l);
	}
	rd_explain_scan_free(&scan);
	return rc;
}
