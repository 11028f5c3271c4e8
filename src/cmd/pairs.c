/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor pairs`: the rounds of a pairwise test between hosts (--plan), and the judgement of
 * measured rounds (--results): which node is slow against every partner, which pair is slow only
 * together, and the round that would settle the rest (pairs/pairs.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/slurm.h"
#include "pairs/pairs.h"
#include "source/spawn.h"
#include "pairs/results_in.h"
#include "render/out.h"
#include "render/pairs.h"
#include "util/hostlist.h"

#define RD_PAIRS_INPUT_MAX (64u << 20) /* bytes of one results or topology file */
#define RD_PAIRS_STEP_NODES 110        /* nodes of one job step: above ~300 a single job lost results */
#define RD_PAIRS_STEP_MS (10 * 60 * 1000) /* one job step's time, at most */

int rd_cmd_read_input(const char *path, char **data, size_t *len)
{
	int fd = 0;
	if (strcmp(path, "-") != 0) {
		struct stat st;
		if (stat(path, &st) < 0)
			return -errno;
		if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
			return -RD_ENOTREG;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return -errno;
		if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))) {
			close(fd);
			return -RD_ENOTREG;
		}
		/* a file known to be too large is refused before any of it is read */
		if (S_ISREG(st.st_mode) && st.st_size > (off_t)RD_PAIRS_INPUT_MAX) {
			close(fd);
			return -EFBIG;
		}
	}
	struct rd_buf b = {0};
	rd_buf_puts(&b, "");
	char chunk[65536];
	int r = 0;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > RD_PAIRS_INPUT_MAX) {
			r = -EFBIG;
			break;
		}
		rd_buf_add(&b, chunk, (size_t)n);
	}
	if (fd)
		close(fd);
	*len = b.len;
	*data = rd_buf_steal(&b);
	if (r < 0) {
		free(*data);
		*data = NULL;
	}
	return r;
}

const char *rd_cmd_input_error(int r)
{
	return r == -EFBIG ? "larger than 64 MiB" : rd_strerror(-r);
}

/* ---- --run: each round as Slurm job steps, or through pdsh or clush ---------------------------- */

enum launcher { LAUNCH_DEFAULT, LAUNCH_SLURM, LAUNCH_PDSH, LAUNCH_CLUSH };
static const char *const launcher_prog[] = {"srun", "srun", "pdsh", "clush"};
static const char *const launcher_pkg[] = {"slurm-client", "slurm-client", "pdsh", "clustershell"};

/* A name pdsh or clush may be given: their -w and the remote shell command line (ssh joins the
 * words with spaces; clush's exec worker runs its line with /bin/sh) take it as it is, so it is
 * letters, digits, '.', '_' and '-' only, not first '-' or '.' (pdsh's exclusion, a hidden name)
 * and never '%' (their substitutions), '@', ':', '^', '/', '[', ',' (their node syntax). */
static bool launch_name_ok(const char *s)
{
	size_t n = strlen(s);
	return n && n <= 63 && s[0] != '-' && s[0] != '.' &&
	       !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")];
}

/* The program the nodes run, on their remote shell's command line: an absolute path of the same
 * safe characters and '/', '+'. */
static bool launch_path_ok(const char *s)
{
	return s[0] == '/' && strlen(s) < 1024 &&
	       !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/+")];
}

static volatile sig_atomic_t run_stop; /* SIGINT, SIGTERM or SIGHUP during --run */
static void on_stop(int sig)
{
	run_stop = sig;
}

/* What pdsh ("pdsh@HOST: NODE: MSG") and clush ("clush: NODES: MSG", NODES folded) said of a node
 * on their standard error: "NODE\tMSG" each, the first said of each node in step (its names). */
static void launcher_says(const char *err, const struct rd_strv *step, struct rd_strv *out)
{
	char *copy = rd_xstrdup(err ? err : "");
	for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *rest = NULL;
		if (strncmp(line, "pdsh@", 5) == 0 && (rest = strstr(line, ": ")))
			rest += 2;
		else if (strncmp(line, "clush: ", 7) == 0)
			rest = line + 7;
		char *sep = rest ? strstr(rest, ": ") : NULL;
		if (!sep || sep == rest || (size_t)(sep - rest) > 4096)
			continue;
		*sep = '\0';
		struct rd_strv names = {0};
		char e[80];
		unsigned long long count = 0; /* a remote's standard error is there too: no huge ranges */
		if (rd_hostlist_count(rest, &count, e, sizeof e) == 0 && count <= step->n &&
		    rd_hostlist_expand(rest, &names, e, sizeof e) == 0)
			for (size_t i = 0; i < names.n; i++) {
				bool in = false, said = false;
				size_t nl = strlen(names.v[i]);
				for (size_t k = 0; k < step->n && !in; k++)
					in = strcmp(step->v[k], names.v[i]) == 0;
				for (size_t k = 0; k < out->n && !said; k++)
					said = strncmp(out->v[k], names.v[i], nl) == 0 && out->v[k][nl] == '\t';
				if (in && !said)
					rd_strv_push_owned(out, rd_xasprintf("%s\t%.200s", names.v[i], sep + 2));
			}
		rd_strv_free(&names);
	}
	free(copy);
}

/* What the launcher said of node, or NULL. */
static const char *said_of(const struct rd_strv *says, const char *node)
{
	size_t nl = strlen(node);
	for (size_t k = 0; k < says->n; k++)
		if (strncmp(says->v[k], node, nl) == 0 && says->v[k][nl] == '\t')
			return says->v[k] + nl + 1;
	return NULL;
}

static void fmt_span(char *buf, size_t len, int ms)
{
	if (ms % 60000 == 0)
		snprintf(buf, len, "%d min", ms / 60000);
	else
		snprintf(buf, len, "%d s", (ms + 999) / 1000);
}

/* A failed sample for a pair whose client printed nothing (its step failed or was killed), as a
 * document the reader takes like any other. */
static void missing_doc(struct rd_buf *b, const char *a, const char *bn, int round, const char *why)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	fprintf(f, "{\"schema\":\"%s\",\"round\":%d,\"server\":", RD_PAIRS_SCHEMA_PAIR, round);
	rd_json_write_string(f, a);
	fputs(",\"client\":", f);
	rd_json_write_string(f, bn);
	fputs(",\"rails\":[],\"error\":", f);
	rd_json_write_string(f, why);
	fputs("}\n", f);
	fclose(f);
	rd_buf_add(b, text, len);
	free(text);
}

/* Whether the documents in docs hold a sample of a with b in this round (the reader's view). */
static bool measured(const struct rd_pairs *p, size_t before, size_t a, size_t b, int round)
{
	for (size_t i = before; i < p->nsamples; i++) {
		const struct rd_pairs_sample *s = &p->samples[i];
		if (s->round == round && ((s->a == a && s->b == b) || (s->a == b && s->b == a)))
			return true;
	}
	return false;
}

/* Runs round r's pairs as job steps of at most RD_PAIRS_STEP_NODES nodes, one task per node:
 * `srun ... EXEC pair --step A+B,... --round R`; the clients' documents (their standard output)
 * become samples, and a pair whose client printed none is a failed sample naming why.  A step
 * that fails is said, and the next one runs. */
static void run_round(struct rd_ctx *ctx, struct rd_pairs *p, const struct rd_pairs_round *all, int r, const char *exec,
		      bool json, enum launcher how, int step_ms)
{
	/* a node Slurm has out of service runs no job step: its pairs are not run (no sample, no
	 * blame), and said */
	struct rd_strv away = {0};
	struct rd_pairs_round kept = {.v = rd_xcalloc(all->n ? all->n : 1, sizeof *kept.v)};
	if (how == LAUNCH_SLURM && rd_slurm_unavailable(ctx, &away) < 0)
		rd_text_printf(ctx->err, ctx->ascii, "%s: pairs: round %d: the nodes' states are not known: every pair is tried\n",
			       ctx->prog, r);
	for (size_t k = 0; k < all->n; k++) {
		const char *why = NULL;
		for (size_t i = 0; i < away.n && !why; i++)
			for (int side = 0; side < 2 && !why; side++) {
				const char *name = p->nodes.v[side ? all->v[k].b : all->v[k].a];
				size_t nl = strlen(name);
				if (strncmp(away.v[i], name, nl) == 0 && away.v[i][nl] == '\t')
					why = away.v[i];
			}
		if (why)
			rd_text_printf(ctx->err, ctx->ascii, "%s: pairs: round %d: %s+%s not run: %.*s is %s\n", ctx->prog, r,
				       p->nodes.v[all->v[k].a], p->nodes.v[all->v[k].b], (int)strcspn(why, "\t"), why,
				       why + strcspn(why, "\t") + 1);
		else
			kept.v[kept.n++] = all->v[k];
	}
	rd_strv_free(&away);
	const struct rd_pairs_round *rnd = &kept;
	for (size_t first = 0; first < rnd->n;) {
		size_t n = rnd->n - first;
		if (n > RD_PAIRS_STEP_NODES / 2)
			n = RD_PAIRS_STEP_NODES / 2;
		struct rd_buf spec = {0}, list = {0};
		for (size_t k = first; k < first + n; k++) {
			const char *a = p->nodes.v[rnd->v[k].a], *b = p->nodes.v[rnd->v[k].b];
			rd_buf_printf(&spec, "%s%s+%s", k > first ? "," : "", a, b);
			rd_buf_printf(&list, "%s%s,%s", k > first ? "," : "", a, b);
		}
		char round[16], fan[16], cmd_s[16], span[32];
		snprintf(round, sizeof round, "%d", r);
		snprintf(fan, sizeof fan, "%zu", 2 * n); /* every task of the round at once: a pair's two ends meet */
		/* the launcher's own command timeout first (it names the node that hung; pdsh looks
		 * every 2 s), then ours */
		int step_s = step_ms / 1000;
		snprintf(cmd_s, sizeof cmd_s, "%d", step_s >= 10 ? step_s - 5 : step_s >= 2 ? step_s / 2 : 1);
		fmt_span(span, sizeof span, step_ms);
		char *nodes = rd_xasprintf("--nodes=%zu", 2 * n), *nodelist = rd_xasprintf("--nodelist=%s", list.data);
		const char *slurm_argv[] = {"srun", nodes, "--ntasks-per-node=1", nodelist, "--kill-on-bad-exit=0",
					    "--job-name=rdma-doctor-pairs", "--quiet", exec, "pair", "--step", spec.data,
					    "--round", round, NULL};
		/* -N: no "node: " labels (each document names its pair); -S: the largest exit status; %h:
		 * each node's name as the launcher knows it (clush over ssh leaves "%h": the host's name) */
		const char *pdsh_argv[] = {"pdsh", "-N", "-S", "-f", fan, "-u", cmd_s, "-w", list.data, exec, "pair",
					   "--step", spec.data, "--round", round, "--as", "%h", NULL};
		const char *clush_argv[] = {"clush", "--nostdin", "-N", "-S", "-f", fan, "-u", cmd_s, "-w", list.data, exec,
					    "pair", "--step", spec.data, "--round", round, "--as", "%h", NULL};
		const char *tool = how == LAUNCH_PDSH ? "pdsh" : how == LAUNCH_CLUSH ? "clush" : "srun";
		struct rd_buf errs = {0};
		const struct rd_spawn sp = {.argv = how == LAUNCH_PDSH ? pdsh_argv : how == LAUNCH_CLUSH ? clush_argv : slurm_argv,
					    .timeout_ms = step_ms, .cap = RD_PAIRS_INPUT_MAX, .cap_keeps_reading = true,
					    .err = how == LAUNCH_SLURM ? NULL : &errs, .err_cap = 256u << 10,
					    /* srun is left as it was: in the terminal's group, killed alone at
					     * the deadline (it ends its job step itself on the terminal's ^C) */
					    .own_group = how != LAUNCH_SLURM, .stop = how == LAUNCH_SLURM ? NULL : &run_stop};
		struct rd_buf out = {0};
		int status = 0;
		long long t0 = rd_mono_ms();
		int rc = run_stop ? -EINTR : rd_spawn_run(&sp, &out, &status);
		if (how != LAUNCH_SLURM) /* what the launcher left behind it (its commands' own sessions) */
			(void)rd_spawn_end_orphans(2000);
		char why[200];
		const char *what = how == LAUNCH_SLURM ? "its job step" : tool;
		if (rc == -ENOENT)
			snprintf(why, sizeof why, "%s not found in PATH (install %s)", tool, launcher_pkg[how]);
		else if (rc == -EINTR)
			snprintf(why, sizeof why, "interrupted (signal %d): %s stopped", (int)run_stop, what);
		else if (rc == -ETIMEDOUT)
			snprintf(why, sizeof why, "%s did not end within %s (killed)", what, span);
		else if (rc < 0)
			snprintf(why, sizeof why, "%s could not start: %s", what, strerror(-rc));
		else if (WIFSIGNALED(status))
			snprintf(why, sizeof why, "%s was killed by signal %d", what, WTERMSIG(status));
		else if (how == LAUNCH_SLURM)
			snprintf(why, sizeof why, "no result from its job step (srun exit %d)", WEXITSTATUS(status));
		else
			snprintf(why, sizeof why, "no result from %s (exit %d)", tool, WEXITSTATUS(status));
		/* what the launcher said of a node: the why of its pairs without a result */
		struct rd_strv step_nodes = {0}, says = {0};
		for (size_t k = first; k < first + n; k++) {
			rd_strv_push(&step_nodes, p->nodes.v[rnd->v[k].a]);
			rd_strv_push(&step_nodes, p->nodes.v[rnd->v[k].b]);
		}
		if (how != LAUNCH_SLURM)
			launcher_says(errs.data, &step_nodes, &says);
		rd_strv_free(&step_nodes);
		size_t before = p->nsamples;
		char err[400] = "";
		int docs = out.len ? rd_pairs_read_results(p, out.data, out.len, false, err, sizeof err) : 0;
		if (docs < 0)
			rd_text_printf(ctx->err, ctx->ascii, "%s: pairs: round %d: the step's output: %s\n", ctx->prog, r, err);
		struct rd_buf miss = {0};
		size_t missing = 0;
		for (size_t k = first; k < first + n; k++)
			if (!measured(p, before, rnd->v[k].a, rnd->v[k].b, r)) {
				const char *a = p->nodes.v[rnd->v[k].a], *b = p->nodes.v[rnd->v[k].b];
				const char *sa = said_of(&says, a), *sb = sa ? NULL : said_of(&says, b);
				char *one = sa || sb ? rd_xasprintf("%s: %s: %s", tool, sa ? a : b, sa ? sa : sb) : NULL;
				if (one)
					rd_text_printf(ctx->err, ctx->ascii, "%s: pairs: round %d: %s+%s: %s\n", ctx->prog, r, a, b, one);
				missing_doc(&miss, a, b, r, one ? one : why);
				free(one);
				missing++;
			}
		rd_strv_free(&says);
		rd_buf_free(&errs);
		if (miss.len)
			(void)rd_pairs_read_results(p, miss.data, miss.len, false, err, sizeof err);
		bool ran = rc == 0 && WIFEXITED(status);
		if (!ran || missing)
			rd_text_printf(ctx->err, ctx->ascii, "%s: pairs: round %d: %zu pair%s on %zu nodes in %lld s: %s; %zu without a result\n",
				       ctx->prog, r, n, n == 1 ? "" : "s", 2 * n, (rd_mono_ms() - t0 + 500) / 1000, why, missing);
		else if (!json)
			rd_text_printf(ctx->err, ctx->ascii, "%s: pairs: round %d: %zu pair%s on %zu nodes in %lld s%s%s%s\n", ctx->prog, r,
				       n, n == 1 ? "" : "s", 2 * n, (rd_mono_ms() - t0 + 500) / 1000,
				       how == LAUNCH_SLURM ? "" : " by ", how == LAUNCH_SLURM ? "" : tool,
				       WEXITSTATUS(status) ? " (some measured nothing: their results say why)" : "");
		rd_buf_free(&miss);
		rd_buf_free(&out);
		rd_buf_free(&spec);
		rd_buf_free(&list);
		free(nodes);
		free(nodelist);
		first += n;
	}
	free(kept.v);
}

/* --drain: each bad node drained with its finding as the reason ("rdma-doctor: pairs.bandwidth
 * NODE rail RAIL: G Gb/s, peers median M"), each node the run cleared resumed when pairs drained
 * it; suspect and untested nodes are left as they are (no verdict rests on one sample).  The
 * lines go to standard error under --json (standard output is the one document).  0, or -1 when
 * scontrol failed for a node. */
static int drain_nodes(struct rd_ctx *ctx, const struct rd_pairs *p, bool json, bool dry)
{
	struct rd_ctx c = *ctx;
	if (json)
		c.out = ctx->err;
	int rc = 0;
	for (size_t i = 0; i < p->nodes.n; i++) {
		char *why = NULL;
		if (p->state[i] == RD_PAIRS_BAD) {
			for (size_t k = 0; k < p->nfindings && !why; k++)
				if (p->findings[k].kind == RD_PAIRS_NODE && p->findings[k].node == i)
					why = rd_pairs_finding_text(p, &p->findings[k]);
		} else if (p->state[i] != RD_PAIRS_CLEARED) {
			continue;
		}
		if (p->state[i] == RD_PAIRS_BAD && !why)
			continue;
		if (rd_slurm_pairs_set(&c, p->nodes.v[i], why, dry) < 0)
			rc = -1;
		free(why);
	}
	return rc;
}

int rd_cmd_pairs(struct rd_ctx *ctx, int argc, char **argv)
{
	enum { OPT_NODES = 256, OPT_PLAN, OPT_ROUNDS, OPT_ORDER, OPT_SEED, OPT_TOPOLOGY, OPT_RESULTS, OPT_RUN, OPT_EXEC,
	       OPT_DRAIN, OPT_LAUNCHER };
	static const struct option longopts[] = {
		RD_LONGOPT_FORMAT,
		RD_LONGOPT_HELP,
		{"nodes", required_argument, NULL, OPT_NODES},
		{"plan", no_argument, NULL, OPT_PLAN},
		{"rounds", required_argument, NULL, OPT_ROUNDS},
		{"order", required_argument, NULL, OPT_ORDER},
		{"seed", required_argument, NULL, OPT_SEED},
		{"topology", required_argument, NULL, OPT_TOPOLOGY},
		{"results", required_argument, NULL, OPT_RESULTS},
		{"run", no_argument, NULL, OPT_RUN},
		{"exec", required_argument, NULL, OPT_EXEC},
		{"launcher", required_argument, NULL, OPT_LAUNCHER},
		{"drain", no_argument, NULL, OPT_DRAIN},
		{"dry-run", no_argument, NULL, 'n'},
		{NULL, 0, NULL, 0},
	};
	bool json = false, plan = false, order_given = false, run = false, drain = false, dry = false;
	const char *nodes = NULL, *topology = NULL, *exec = NULL;
	long rounds = 1;
	unsigned long long seed = 1;
	enum rd_pairs_order order = RD_PAIRS_RING;
	enum launcher how = LAUNCH_DEFAULT;
	struct rd_strv results = {0};
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:jn", .longopts = longopts};
	int st = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &st)) != RD_OPT_END;) {
		char *end;
		switch (c) {
		case OPT_DRAIN:
			drain = true;
			break;
		case 'n':
			dry = true;
			break;
		case 'f':
			if (rd_opt_format(ctx, "pairs", optarg, &json) < 0)
				st = RD_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case OPT_NODES:
			nodes = optarg;
			break;
		case OPT_PLAN:
			plan = true;
			break;
		case OPT_ROUNDS:
			errno = 0;
			rounds = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || rounds < 1 || rounds > RD_PAIRS_MAX_NODES)
				st = rd_usage_error(ctx, "pairs", "--rounds '%s': a whole number from 1", optarg);
			break;
		case OPT_ORDER:
			order_given = true;
			if (strcmp(optarg, "ring") == 0)
				order = RD_PAIRS_RING;
			else if (strcmp(optarg, "random") == 0)
				order = RD_PAIRS_RANDOM;
			else if (strcmp(optarg, "rack") == 0)
				order = RD_PAIRS_RACK;
			else
				st = rd_usage_error(ctx, "pairs", "--order '%s': ring, random or rack", optarg);
			break;
		case OPT_SEED:
			errno = 0;
			seed = strtoull(optarg, &end, 10);
			if (!*optarg || *end || errno || *optarg == '-')
				st = rd_usage_error(ctx, "pairs", "--seed '%s': a whole number", optarg);
			break;
		case OPT_TOPOLOGY:
			topology = optarg;
			break;
		case OPT_RESULTS:
			rd_strv_push(&results, optarg);
			break;
		case OPT_RUN:
			run = true;
			break;
		case OPT_LAUNCHER:
			if (strcmp(optarg, "slurm") == 0)
				how = LAUNCH_SLURM;
			else if (strcmp(optarg, "pdsh") == 0)
				how = LAUNCH_PDSH;
			else if (strcmp(optarg, "clush") == 0)
				how = LAUNCH_CLUSH;
			else
				st = rd_usage_error(ctx, "pairs", "--launcher '%s': slurm, pdsh or clush", optarg);
			break;
		case OPT_EXEC:
			if (optarg[0] != '/')
				st = rd_usage_error(ctx, "pairs", "--exec needs an absolute path (the nodes run it), not '%s'", optarg);
			exec = optarg;
			break;
		}
	}
	if (st < 0 && run && (!nodes || plan || results.n))
		st = rd_usage_error(ctx, "pairs", "--run needs --nodes, and takes no --plan or --results");
	if (st < 0 && exec && !run)
		st = rd_usage_error(ctx, "pairs", "--exec is for --run");
	if (st < 0 && how != LAUNCH_DEFAULT && !run)
		st = rd_usage_error(ctx, "pairs", "--launcher is for --run");
	if (st < 0 && exec && how > LAUNCH_SLURM && !launch_path_ok(exec))
		st = rd_usage_error(ctx, "pairs",
				    "--exec '%s': the nodes' shell would read it: letters, digits and ._-/+ only with --launcher %s",
				    exec, launcher_prog[how]);
	if (st < 0 && (drain || dry) && (plan || (!run && !results.n)))
		st = rd_usage_error(ctx, "pairs", "%s needs a judgement: --run or --results, without --plan",
				    drain ? "--drain" : "--dry-run");
	if (st < 0 && dry && !drain)
		st = rd_usage_error(ctx, "pairs", "--dry-run is for --drain");
	if (st < 0 && !nodes && !results.n)
		st = rd_usage_error(ctx, "pairs", "--nodes HOSTLIST or --results FILE is needed");
	if (st < 0 && !plan && !results.n && !run)
		st = rd_usage_error(ctx, "pairs",
				    "nothing to do: --plan prints the rounds, --run measures them, --results judges measured ones");
	if (st < 0 && order == RD_PAIRS_RACK && !topology)
		st = rd_usage_error(ctx, "pairs", "--order rack needs --topology FILE (Slurm's topology.conf)");
	if (st >= 0) {
		rd_strv_free(&results);
		return st;
	}
	if (topology && !order_given)
		order = RD_PAIRS_RACK;

	struct rd_pairs p = {0};
	char err[400] = "";
	int status = RD_EXIT_OK;
	if (nodes && rd_pairs_set_nodes(&p, nodes, err, sizeof err) < 0) {
		fprintf(ctx->err, "%s: pairs: --nodes: %s\n", ctx->prog, err);
		rd_pairs_free(&p);
		rd_strv_free(&results);
		return RD_EXIT_USAGE;
	}
	/* the results: a file that cannot be read, or holds a bad document, is named; the others count */
	size_t docs = 0;
	for (size_t i = 0; i < results.n; i++) {
		char *data = NULL;
		size_t len = 0;
		int r = rd_cmd_read_input(results.v[i], &data, &len);
		if (r < 0) {
			fprintf(ctx->err, "%s: pairs: --results %s: %s\n", ctx->prog, results.v[i], rd_cmd_input_error(r));
			status = RD_EXIT_UNKNOWN;
			continue;
		}
		r = rd_pairs_read_results(&p, data, len, !nodes, err, sizeof err);
		free(data);
		if (r < 0) {
			fprintf(ctx->err, "%s: pairs: --results %s: %s\n", ctx->prog, results.v[i], err);
			status = RD_EXIT_UNKNOWN;
			if (r == -ENOSYS)
				break;
			continue;
		}
		if (r == 0) {
			fprintf(ctx->err, "%s: pairs: --results %s: no %s document\n", ctx->prog, results.v[i],
				RD_PAIRS_SCHEMA_PAIR);
			status = RD_EXIT_UNKNOWN;
		}
		docs += (size_t)r;
	}
	rd_strv_free(&results);
	char self[4096];
	if (run && !exec) { /* the nodes run this very program, at the same path */
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n <= 0) {
			fprintf(ctx->err, "%s: pairs: --run: where this program is cannot be told: use --exec PATH\n", ctx->prog);
			rd_pairs_free(&p);
			return RD_EXIT_USAGE;
		}
		self[n] = '\0';
		exec = self;
	}
	if (run && how > LAUNCH_SLURM) { /* the names go on a remote shell's command line */
		for (size_t i = 0; i < p.nodes.n; i++)
			if (!launch_name_ok(p.nodes.v[i])) {
				rd_text_printf(ctx->err, ctx->ascii,
					       "%s: pairs: --nodes: '%s' is not a node name %s can be given (letters, digits, ._- only; not first - or .)\n",
					       ctx->prog, p.nodes.v[i], launcher_prog[how]);
				rd_pairs_free(&p);
				return RD_EXIT_USAGE;
			}
		if (!launch_path_ok(exec)) {
			fprintf(ctx->err, "%s: pairs: --run: this program's path has characters a shell would read: use --exec PATH\n",
				ctx->prog);
			rd_pairs_free(&p);
			return RD_EXIT_USAGE;
		}
	}
	if (run && how == LAUNCH_DEFAULT) {
		/* Slurm when there is one that answers; else the operator says which launcher: pdsh and
		 * clush reach nodes their own way (ssh, rsh, their configuration), not ours to guess */
		int why = 0;
		const char *path = getenv("PATH");
		char *srun = rd_spawn_find("srun", path ? path : "/bin:/usr/bin", &why);
		struct rd_strv away = {0};
		bool found = srun != NULL, answers = found && rd_slurm_unavailable(ctx, &away) == 0;
		rd_strv_free(&away);
		free(srun);
		if (!answers) {
			fprintf(ctx->err, "%s: pairs: --run: %s: give --launcher pdsh or --launcher clush (or --launcher slurm)\n",
				ctx->prog, found ? "Slurm does not answer" : "no srun in PATH");
			rd_pairs_free(&p);
			return RD_EXIT_USAGE;
		}
		how = LAUNCH_SLURM;
	}
	/* each step's deadline: --timeout, else 10 min; an hour at most */
	int step_ms = RD_PAIRS_STEP_MS;
	if (ctx->timeout_given && ctx->timeout_s > 0)
		step_ms = ctx->timeout_s * 1000 > RD_PAIRS_STEP_MS * 6.0 ? RD_PAIRS_STEP_MS * 6 : (int)(ctx->timeout_s * 1000);
	if (step_ms < 1000)
		step_ms = 1000;
	struct sigaction stop_sa = {.sa_handler = on_stop}, old_sa[3];
	static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
	bool catch = run && how != LAUNCH_SLURM;
	if (catch) {
		/* what a launcher leaves when it dies comes to this process, which ends it; a signal
		 * stops the launcher's whole process group, and the run ends with what it has */
		(void)rd_spawn_adopt_orphans();
		for (size_t i = 0; i < 3; i++)
			sigaction(stop_sigs[i], &stop_sa, &old_sa[i]);
	}
	if (run && p.nodes.n >= 2) {
		/* round 1 covers every node; each later one is what the judgement asks for, until it asks
		 * for nothing or --rounds are done */
		for (int r = 1; r <= (int)rounds; r++) {
			struct rd_pairs_round rnd = {0};
			if (r == 1) {
				(void)rd_pairs_plan(&p, order, seed, 1, &rnd);
			} else {
				rd_pairs_judge(&p);
				rd_pairs_plan_next(&p, &rnd);
			}
			if (rnd.n)
				run_round(ctx, &p, &rnd, r, exec, json, how, step_ms);
			size_t npairs = rnd.n;
			rd_pairs_round_free(&rnd);
			if (!npairs || run_stop)
				break;
		}
		docs = p.nsamples ? 1 : 0;
	}
	if (catch)
		for (size_t i = 0; i < 3; i++)
			sigaction(stop_sigs[i], &old_sa[i], NULL);
	if (p.nodes.n < 2) {
		fprintf(ctx->err, "%s: pairs: no pair to judge (%zu node%s in the results)\n", ctx->prog, p.nodes.n,
			p.nodes.n == 1 ? "" : "s");
		rd_pairs_free(&p);
		return RD_EXIT_UNKNOWN;
	}
	if (topology) {
		char *data = NULL;
		size_t len = 0;
		int r = rd_cmd_read_input(topology, &data, &len);
		if (r < 0 || memchr(data, '\0', len) || rd_pairs_set_topology(&p, data, err, sizeof err) < 0) {
			fprintf(ctx->err, "%s: pairs: --topology %s: %s\n", ctx->prog, topology,
				r < 0 ? rd_cmd_input_error(r) : memchr(data, '\0', len) ? "not text (a NUL byte)" : err);
			free(data);
			rd_pairs_free(&p);
			return RD_EXIT_USAGE;
		}
		free(data);
	}

	struct rd_out o;
	rd_out_init(&o, ctx->out, json);
	o.ascii = ctx->ascii;
	bool printed = plan || docs;
	if (!docs && plan) {
		size_t want = (size_t)rounds;
		struct rd_pairs_round *r = rd_xcalloc(want, sizeof *r);
		size_t got = rd_pairs_plan(&p, order, seed, want, r);
		rd_render_pairs_plan(&o, &p, r, got, 1);
		for (size_t k = 0; k < got; k++)
			rd_pairs_round_free(&r[k]);
		free(r);
	} else if (docs) {
		rd_pairs_judge(&p);
		struct rd_pairs_round next;
		rd_pairs_plan_next(&p, &next);
		if (plan)
			rd_render_pairs_plan(&o, &p, &next, next.n ? 1 : 0, p.rounds + 1);
		else
			rd_render_pairs(&o, &p, &next);
		int verdict = RD_EXIT_OK;
		for (size_t i = 0; i < p.nfindings; i++)
			verdict = p.findings[i].kind == RD_PAIRS_NODE ? RD_EXIT_FAIL : verdict > RD_EXIT_WARN ? verdict : RD_EXIT_WARN;
		if (verdict == RD_EXIT_OK && (p.suspects || next.n))
			verdict = RD_EXIT_WARN;
		if (status == RD_EXIT_OK || (verdict == RD_EXIT_FAIL))
			status = verdict;
		rd_pairs_round_free(&next);
		if (drain && !plan && drain_nodes(ctx, &p, json, dry) < 0 && status < RD_EXIT_UNKNOWN)
			status = RD_EXIT_UNKNOWN;
	}
	if (printed)
		rd_out_finish(&o);
	rd_pairs_free(&p);
	if (fflush(ctx->out) != 0 || ferror(ctx->out))
		status = RD_EXIT_UNKNOWN;
	return status;
}
