/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor fleet`: drift across nodes from their `check --format json` reports, gathered by
 * Slurm, pdsh or clush (rdma-doctor never fans out itself).  Reads each PATH as it comes: a
 * report file, a directory of reports (a file per node, named by it), or - (standard input);
 * every report is parsed once (fleet/report_in.c) into the summary (fleet/summary.c), which
 * render/fleet.c prints.  A report's node is where it came from: the file's name, the pdsh/clush
 * prefix; on standard input without one, its own host.  With --history the same reading (directories
 * to RD_FLEET_HISTORY_MAX_DEPTH levels, *.json only) feeds fleet/history.c instead, each report's
 * node its own host, and render/fleet_history.c prints the lemons. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "fleet/fabric_in.h"
#include "fleet/history.h"
#include "fleet/pairs_in.h"
#include "fleet/report_in.h"
#include "fleet/summary.h"
#include "render/fleet.h"
#include "render/fleet_history.h"
#include "render/out.h"
#include "util/hostlist.h"
#include "util/util.h"

enum fmt { FMT_TEXT, FMT_JSON, FMT_HTML, FMT_PROM };

/* --history's bounds on what it reads: files in all, bytes of one file, directory levels. */
#define RD_FLEET_HISTORY_MAX_FILES 100000
#define RD_FLEET_HISTORY_MAX_FILES_TEXT "100000"
#define RD_FLEET_HISTORY_MAX_FILE (64u << 20)
#define RD_FLEET_HISTORY_MAX_FILE_TEXT "64 MiB"
#define RD_FLEET_HISTORY_MAX_DEPTH 3

static void on_report(void *arg, const char *origin, const char *label, const struct rd_fleet_report *r)
{
	rd_fleet_add(arg, origin, label, r);
}

static void on_problem(void *arg, const char *origin, const char *label, const char *msg)
{
	rd_fleet_problem(arg, origin, label, msg);
}

static const struct rd_fleet_input_cb input_cb = {on_report, on_problem};

/* --history: reports go to the scoring, problems to standard error (one line each). */
struct hist_run {
	struct rd_hist h;
	size_t problems, told;
	FILE *err;
	const char *prog;
};

/* One line on standard error (the first RD_FLEET_MAX_NOTES of them). */
static void hist_say(struct hist_run *hr, const char *origin, const char *label, const char *msg)
{
	if (++hr->told > RD_FLEET_MAX_NOTES)
		return;
	rd_text_printf(hr->err, false, "%s: fleet: %s%s%s: %s\n", hr->prog, origin, label ? " " : "", label ? label : "",
		       msg);
	if (hr->told == RD_FLEET_MAX_NOTES)
		fprintf(hr->err, "%s: fleet: more problems are counted, not told\n", hr->prog);
}

static void hist_problem(void *arg, const char *origin, const char *label, const char *msg)
{
	struct hist_run *hr = arg;
	hr->problems++;
	hist_say(hr, origin, label, msg);
}

static void hist_report(void *arg, const char *origin, const char *label, const struct rd_fleet_report *r)
{
	struct hist_run *hr = arg;
	char why[320];
	if (!rd_fleet_report_valid(r, why, sizeof why)) {
		hist_problem(hr, origin, label, why);
		return;
	}
	if (rd_hist_add(&hr->h, r, why, sizeof why) < 0)
		hist_say(hr, origin, label, why); /* counted by rd_hist: future, too many */
}

static const struct rd_fleet_input_cb hist_cb = {hist_report, hist_problem};

/* The run's reading: --timeout's deadline (only when given: pdsh and clush may take minutes, and
 * their own -u/-t bound each node) stops it, and what was read is summarised. */
struct reading {
	const struct rd_fleet_input_cb *cb; /* where reports and problems go */
	void *arg;
	const size_t *problems;             /* the count of problems told so far */
	unsigned depth;                     /* directories inside a directory read (--history) */
	bool history;                       /* --history: only *.json files; the host is the report's */
	size_t files;                       /* files opened so far (--history's bound) */
	double timeout_s, deadline; /* monotonic seconds; 0: none */
	bool timed_out;
};

static double mono_s(void)
{
	return (double)rd_mono_ms() / 1e3;
}

static bool past_deadline(struct reading *rd)
{
	if (rd->deadline > 0 && mono_s() >= rd->deadline)
		rd->timed_out = true;
	return rd->timed_out;
}

static void timeout_problem(struct reading *rd, const char *origin, const char *what)
{
	char msg[160];
	snprintf(msg, sizeof msg, "--timeout %gs passed: %s", rd->timeout_s, what);
	rd->cb->problem(rd->arg, origin, NULL, msg);
}

/* Reads fd to its end (or the deadline) into the summary.  origin names it; node: the node it is
 * the output of (NULL: standard input), lines_ok: pdsh/clush output is read in it. */
static void read_fd(struct reading *rd, int fd, const char *origin, const char *node, bool lines_ok)
{
	struct rd_fleet_input *in = rd_fleet_input_new(origin, rd->cb, rd->arg);
	rd_fleet_input_node(in, node, lines_ok);
	/* large pieces: yajl lexes a token cut across two calls again from its start */
	static char buf[1 << 20];
	for (bool end = false; !end;) {
		size_t len = 0;
		while (len < sizeof buf) {
			if (rd->deadline > 0) {
				double left = rd->deadline - mono_s();
				struct pollfd pfd = {.fd = fd, .events = POLLIN};
				int pr = left > 0 ? poll(&pfd, 1, (int)(left * 1000) + 1) : 0;
				if (pr < 0 && errno == EINTR)
					continue;
				if (pr == 0 || past_deadline(rd)) {
					rd->timed_out = true;
					break;
				}
			}
			ssize_t n = read(fd, buf + len, sizeof buf - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				char msg[128];
				snprintf(msg, sizeof msg, "read failed: %s", strerror(errno));
				rd->cb->problem(rd->arg, origin, NULL, msg);
				rd_fleet_input_free(in);
				return;
			}
			if (n == 0) {
				end = true;
				break;
			}
			len += (size_t)n;
		}
		if (len && rd_fleet_input_feed(in, buf, len) < 0)
			break; /* the input said what was wrong; the rest is not read */
		if (!end && past_deadline(rd)) {
			timeout_problem(rd, origin, "reading stopped here, the rest of it is not summarised");
			break;
		}
		if (end)
			rd_fleet_input_end(in);
	}
	rd_fleet_input_free(in);
}

static void problem_errno(struct reading *rd, const char *origin, const char *what, int err)
{
	char msg[160];
	snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
	rd->cb->problem(rd->arg, origin, NULL, msg);
}

static const char *kind_of(mode_t m)
{
	return S_ISLNK(m) ? "a symbolic link: not followed" : S_ISCHR(m) ? "a character device: not read"
	     : S_ISBLK(m) ? "a block device: not read" : S_ISSOCK(m) ? "a socket: not read"
	     : S_ISDIR(m) ? "a directory inside the directory: not read" : S_ISFIFO(m) ? "a FIFO: not read"
	     : "not a regular file: not read";
}

/* A path that is not a directory.  In a directory (in_dir) only a regular file is a report, and
 * a link is never followed; as an operand a FIFO (a shell's <(...)) is read too, a device never.
 * Nothing but a report's own fields is ever echoed from what is read. */
static void read_dir(struct reading *rd, int atfd, const char *name, const char *path, unsigned depth);

static void read_path(struct reading *rd, int dirfd, const char *name, const char *origin, bool in_dir, unsigned depth)
{
	struct stat st;
	/* a device is never even opened (a tape rewinds, a terminal becomes ours) */
	if (fstatat(dirfd, name, &st, in_dir ? AT_SYMLINK_NOFOLLOW : 0) < 0) {
		problem_errno(rd, origin, "cannot stat", errno);
		return;
	}
	if (in_dir && S_ISDIR(st.st_mode) && depth < rd->depth) {
		read_dir(rd, dirfd, name, origin, depth + 1);
		return;
	}
	if (in_dir && rd->history && S_ISREG(st.st_mode) && !rd_str_has_suffix(name, ".json"))
		return; /* --history reads *.json only (an srun .err beside them is no report) */
	if (in_dir ? !S_ISREG(st.st_mode) : !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		rd->cb->problem(rd->arg, origin, NULL, kind_of(st.st_mode));
		return;
	}
	if (rd->history && S_ISREG(st.st_mode) && st.st_size > (off_t)RD_FLEET_HISTORY_MAX_FILE) {
		rd->cb->problem(rd->arg, origin, NULL, "larger than " RD_FLEET_HISTORY_MAX_FILE_TEXT ": not read");
		return;
	}
	if (rd->history && ++rd->files > RD_FLEET_HISTORY_MAX_FILES) {
		if (rd->files == RD_FLEET_HISTORY_MAX_FILES + 1)
			rd->cb->problem(rd->arg, origin, NULL,
					"more than " RD_FLEET_HISTORY_MAX_FILES_TEXT " files: this one and the rest are not read");
		return;
	}
	int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (in_dir ? O_NOFOLLOW : 0));
	if (fd < 0) {
		problem_errno(rd, origin, errno == ELOOP && in_dir ? "a symbolic link, not followed" : "cannot open", errno);
		return;
	}
	struct stat fst;
	if (fstat(fd, &fst) < 0) {
		problem_errno(rd, origin, "cannot stat", errno);
		close(fd);
		return;
	}
	if (in_dir && (fst.st_dev != st.st_dev || fst.st_ino != st.st_ino || !S_ISREG(fst.st_mode))) {
		rd->cb->problem(rd->arg, origin, NULL, "replaced while it was opened: not read");
		close(fd);
		return;
	}
	if (!S_ISREG(fst.st_mode) && !S_ISFIFO(fst.st_mode)) {
		rd->cb->problem(rd->arg, origin, NULL, kind_of(fst.st_mode));
		close(fd);
		return;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	/* a FIFO (a shell's <(...), /dev/fd/63) has no name of a node: a stream, as standard input */
	char *node = S_ISFIFO(fst.st_mode) || rd->history ? NULL : rd_fleet_file_node(origin);
	read_fd(rd, fd, origin, node, !in_dir);
	free(node);
	close(fd);
}

static int cmp_names(const void *a, const void *b)
{
	return rd_natural_cmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of the directory whose name does not start with "." (a half-written
 * temporary file such as -o's), in natural order; with --history its directories too, to
 * rd->depth levels (never through a symbolic link). */
static void read_dir(struct reading *rd, int atfd, const char *name, const char *path, unsigned depth)
{
	int dfd = openat(atfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (depth ? O_NOFOLLOW : 0));
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		problem_errno(rd, path, "cannot read the directory", errno);
		if (dfd >= 0)
			close(dfd);
		return;
	}
	struct rd_strv names = {0};
	for (struct dirent *de; (errno = 0, de = readdir(d));)
		if (de->d_name[0] != '.')
			rd_strv_push(&names, de->d_name);
	if (errno)
		problem_errno(rd, path, "cannot read the directory to its end", errno);
	if (names.n)
		qsort(names.v, names.n, sizeof *names.v, cmp_names);
	size_t before = *rd->problems;
	for (size_t i = 0; i < names.n; i++) {
		if (past_deadline(rd)) {
			char what[96];
			snprintf(what, sizeof what, "%zu of its files not read", names.n - i);
			timeout_problem(rd, path, what);
			break;
		}
		char *origin = rd_path_join(path, names.v[i]);
		read_path(rd, dirfd(d), names.v[i], origin, true, depth);
		free(origin);
	}
	if (!names.n && *rd->problems == before)
		rd->cb->problem(rd->arg, path, NULL, "an empty directory: no report in it");
	rd_strv_free(&names);
	closedir(d);
}

/* "90", "90s", "15m", "2h", "7d" -> seconds; -1 when not a duration */
static long long parse_duration(const char *s)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || v <= 0 || *s == '-' || *s == '+')
		return -1;
	long long mul = !*end || !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60 : !strcmp(end, "h") ? 3600
		      : !strcmp(end, "d") ? 86400 : 0;
	if (!mul || v > (1LL << 40) / mul)
		return -1;
	return v * mul;
}

/* Each PATH: - (standard input), a directory, or a file. */
static void read_paths(struct reading *rd, const struct rd_strv *paths)
{
	for (size_t i = 0; i < paths->n; i++) {
		const char *p = paths->v[i];
		struct stat st;
		if (past_deadline(rd))
			timeout_problem(rd, p, "not read");
		else if (!strcmp(p, "-"))
			read_fd(rd, 0, "-", NULL, true);
		else if (stat(p, &st) < 0)
			problem_errno(rd, p, "cannot read", errno);
		else if (S_ISDIR(st.st_mode))
			read_dir(rd, AT_FDCWD, p, p, 0);
		else
			read_path(rd, AT_FDCWD, p, p, false, 0);
	}
}

/* --fabric FILE: `fabric --format json`'s document, into the summary; a file that cannot be read
 * or is no such document is one problem naming it (the rest is summarised all the same). */
static void read_fabric(struct rd_fleet *f, const char *path)
{
	char *data = NULL, err[400] = "", msg[460];
	size_t len = 0;
	int r = rd_cmd_read_input(path, &data, &len);
	if (r < 0) {
		snprintf(msg, sizeof msg, "--fabric: %s", rd_cmd_input_error(r));
		rd_fleet_problem(f, path, NULL, msg);
		return;
	}
	struct rd_fleet_fabric fab;
	r = rd_fleet_fabric_parse(&fab, data, len, err, sizeof err);
	free(data);
	if (r < 0) {
		snprintf(msg, sizeof msg, "--fabric: %s", err);
		rd_fleet_problem(f, path, NULL, msg);
		return;
	}
	fab.origin = rd_xstrdup(path);
	rd_fleet_set_fabric(f, &fab);
}

/* --pairs FILE: `pairs --results ... --format json`'s judgement, into the summary, as --fabric. */
static void read_pairs(struct rd_fleet *f, const char *path)
{
	char *data = NULL, err[400] = "", msg[460];
	size_t len = 0;
	int r = rd_cmd_read_input(path, &data, &len);
	if (r < 0) {
		snprintf(msg, sizeof msg, "--pairs: %s", rd_cmd_input_error(r));
		rd_fleet_problem(f, path, NULL, msg);
		return;
	}
	struct rd_fleet_pairs p;
	r = rd_fleet_pairs_parse(&p, data, len, err, sizeof err);
	free(data);
	if (r < 0) {
		snprintf(msg, sizeof msg, "--pairs: %s", err);
		rd_fleet_problem(f, path, NULL, msg);
		return;
	}
	p.origin = rd_xstrdup(path);
	rd_fleet_set_pairs(f, &p);
}

struct hist_job {
	const struct hist_run *hr;
	enum fmt fmt;
	bool ascii;
};

static void hist_fill(FILE *out, void *arg)
{
	const struct hist_job *j = arg;
	if (j->fmt == FMT_PROM)
		rd_hist_prometheus(out, &j->hr->h, j->hr->problems);
	else if (j->fmt == FMT_HTML)
		rd_hist_html(out, &j->hr->h, j->hr->problems);
	else
		rd_hist_render(out, &j->hr->h, j->hr->problems, j->fmt == FMT_JSON, j->ascii);
}

/* fleet --history: every report of every PATH (directories read to RD_FLEET_HISTORY_MAX_DEPTH
 * levels, *.json files only), scored by fleet/history.c. */
static int run_history(struct rd_ctx *ctx, const struct rd_strv *paths, enum fmt fmt, long long days,
		       unsigned repeats, const char *output)
{
	struct hist_run hr = {.err = ctx->err, .prog = ctx->prog};
	rd_hist_init(&hr.h, rd_run_time(), days, repeats);
	struct reading rd = {.cb = &hist_cb, .arg = &hr, .problems = &hr.problems, .depth = RD_FLEET_HISTORY_MAX_DEPTH,
			     .history = true, .timeout_s = ctx->timeout_s};
	if (ctx->timeout_given && ctx->timeout_s > 0)
		rd.deadline = mono_s() + ctx->timeout_s;
	read_paths(&rd, paths);
	rd_hist_finish(&hr.h);
	int rc = rd_hist_exit_code(&hr.h, hr.problems);
	struct hist_job j = {&hr, fmt, ctx->ascii};
	if (output) {
		if (rd_output_atomic(ctx, "fleet", output, hist_fill, &j) < 0)
			rc = RD_EXIT_UNKNOWN;
	} else {
		hist_fill(ctx->out, &j);
		if (fflush(ctx->out) != 0 || ferror(ctx->out))
			rc = RD_EXIT_UNKNOWN;
	}
	rd_hist_free(&hr.h);
	return rc;
}

static void render(FILE *out, const struct rd_fleet *f, enum fmt fmt, bool ascii)
{
	if (fmt == FMT_JSON)
		rd_fleet_json(out, f);
	else if (fmt == FMT_HTML)
		rd_fleet_html(out, f);
	else
		rd_fleet_text(out, f, ascii);
}

struct fleet_job {
	const struct rd_fleet *f;
	enum fmt fmt;
	bool ascii;
};

static void fleet_fill(FILE *out, void *arg)
{
	const struct fleet_job *j = arg;
	render(out, j->f, j->fmt, j->ascii);
}

/* A new file beside path, renamed over it (rd_output_atomic): readers see the old summary or the new one. */
static int write_atomic(struct rd_ctx *ctx, const char *path, const struct rd_fleet *f, enum fmt fmt)
{
	struct fleet_job j = {f, fmt, ctx->ascii};
	return rd_output_atomic(ctx, "fleet", path, fleet_fill, &j);
}

int rd_cmd_fleet(struct rd_ctx *ctx, int argc, char **argv)
{
	enum { OPT_EXPECT = 256, OPT_MAX_AGE, OPT_HISTORY, OPT_DAYS, OPT_REPEATS, OPT_FABRIC, OPT_PAIRS };
	static const struct option longopts[] = {
		RD_LONGOPT_FORMAT,
		RD_LONGOPT_HELP,
		{"expect", required_argument, NULL, OPT_EXPECT},
		{"max-age", required_argument, NULL, OPT_MAX_AGE},
		{"history", no_argument, NULL, OPT_HISTORY},
		{"days", required_argument, NULL, OPT_DAYS},
		{"repeats", required_argument, NULL, OPT_REPEATS},
		{"fabric", required_argument, NULL, OPT_FABRIC},
		{"pairs", required_argument, NULL, OPT_PAIRS},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	enum fmt fmt = FMT_TEXT;
	const char *output = NULL, *expect = NULL, *fabric = NULL, *pairs = NULL;
	long long max_age = 0, days = 7, repeats = 3;
	bool history = false, history_opt = false;
	struct rd_strv paths = {0};
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:jo:", .longopts = longopts, .operands = true};
	int bad = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &bad)) != RD_OPT_END;) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text"))
				fmt = FMT_TEXT;
			else if (!strcmp(optarg, "json"))
				fmt = FMT_JSON;
			else if (!strcmp(optarg, "html"))
				fmt = FMT_HTML;
			else if (!strcmp(optarg, "prometheus"))
				fmt = FMT_PROM;
			else
				bad = rd_usage_error(ctx, "fleet", "unknown format '%s' (use text, json, html or, with --history, prometheus)", optarg);
			break;
		case 'j':
			fmt = FMT_JSON;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_EXPECT:
			expect = optarg;
			break;
		case OPT_FABRIC:
			if (fabric)
				bad = rd_usage_error(ctx, "fleet", "--fabric given twice (one fabric document)");
			fabric = optarg;
			break;
		case OPT_PAIRS:
			if (pairs)
				bad = rd_usage_error(ctx, "fleet", "--pairs given twice (one pairs document)");
			pairs = optarg;
			break;
		case OPT_MAX_AGE:
			if ((max_age = parse_duration(optarg)) < 0)
				bad = rd_usage_error(ctx, "fleet", "--max-age '%s' is not a duration (SECONDS, or with s, m, h, d)", optarg);
			break;
		case OPT_HISTORY:
			history = true;
			break;
		case OPT_DAYS:
		case OPT_REPEATS: {
			char *end;
			errno = 0;
			long long v = strtoll(optarg, &end, 10);
			bool is_days = c == OPT_DAYS;
			if (errno || end == optarg || *end || *optarg == '-' || *optarg == '+' || v < 1 || v > (is_days ? 3650 : 1000))
				bad = rd_usage_error(ctx, "fleet", "--%s '%s' is not a number from 1 to %d", is_days ? "days" : "repeats",
						     optarg, is_days ? 3650 : 1000);
			else if (is_days)
				days = v;
			else
				repeats = v;
			history_opt = true;
			break;
		}
		case RD_OPT_OPERAND:
			rd_strv_push(&paths, optarg);
			break;
		}
	}
	if (bad < 0 && !paths.n)
		bad = rd_usage_error(ctx, "fleet", "no PATH (a report, a directory of reports, or - for standard input)");
	size_t stdin_n = 0;
	for (size_t i = 0; bad < 0 && i < paths.n; i++)
		if (!strcmp(paths.v[i], "-") && ++stdin_n > 1)
			bad = rd_usage_error(ctx, "fleet", "- (standard input) given twice");
	if (bad < 0 && fabric && !strcmp(fabric, "-") && stdin_n)
		bad = rd_usage_error(ctx, "fleet", "- (standard input) given twice: as a PATH and as --fabric");
	if (bad < 0 && pairs && !strcmp(pairs, "-") && (stdin_n || (fabric && !strcmp(fabric, "-"))))
		bad = rd_usage_error(ctx, "fleet", "- (standard input) given twice: --pairs and %s", stdin_n ? "a PATH" : "--fabric");
	if (bad < 0 && history && (fabric || pairs))
		bad = rd_usage_error(ctx, "fleet", "--history has no %s", fabric ? "--fabric" : "--pairs");
	if (bad < 0 && history_opt && !history)
		bad = rd_usage_error(ctx, "fleet", "--days and --repeats need --history");
	if (bad < 0 && history && (expect || max_age))
		bad = rd_usage_error(ctx, "fleet", "--history has no %s", expect ? "--expect" : "--max-age (--days is its window)");
	if (bad < 0 && !history && fmt == FMT_PROM)
		bad = rd_usage_error(ctx, "fleet", "--format prometheus needs --history");
	if (bad < 0 && history) {
		int rc = run_history(ctx, &paths, fmt, days, (unsigned)repeats, output);
		rd_strv_free(&paths);
		return rc;
	}
	struct rd_strv expected = {0};
	if (bad < 0 && expect) {
		char err[256];
		if (rd_hostlist_expand(expect, &expected, err, sizeof err) < 0)
			bad = rd_usage_error(ctx, "fleet", "--expect: %s", err);
		for (size_t i = 0; bad < 0 && i < expected.n; i++)
			if (!rd_fleet_hostname_ok(expected.v[i]))
				bad = rd_usage_error(ctx, "fleet", "--expect: '%s' is not a host name", expected.v[i]);
		if (bad < 0 && !expected.n)
			bad = rd_usage_error(ctx, "fleet", "--expect: an empty hostlist");
	}
	if (bad >= 0) {
		rd_strv_free(&paths);
		rd_strv_free(&expected);
		return bad;
	}
	long long now = rd_run_time();
	struct rd_fleet f;
	rd_fleet_init(&f, now, max_age);
	if (expect)
		rd_fleet_expect(&f, &expected);
	rd_strv_free(&expected);
	struct reading rd = {.cb = &input_cb, .arg = &f, .problems = &f.problems.total, .timeout_s = ctx->timeout_s};
	if (ctx->timeout_given && ctx->timeout_s > 0)
		rd.deadline = mono_s() + ctx->timeout_s;
	read_paths(&rd, &paths);
	rd_strv_free(&paths);
	if (fabric)
		read_fabric(&f, fabric);
	if (pairs)
		read_pairs(&f, pairs);
	rd_fleet_finish(&f);
	int rc = f.exit_code;
	if (output) {
		if (write_atomic(ctx, output, &f, fmt) < 0)
			rc = RD_EXIT_UNKNOWN;
	} else {
		render(ctx->out, &f, fmt, ctx->ascii);
		if (fflush(ctx->out) != 0 || ferror(ctx->out))
			rc = RD_EXIT_UNKNOWN;
	}
	rd_fleet_free(&f);
	return rc;
}
