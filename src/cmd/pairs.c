/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor pairs`: the rounds of a pairwise test between hosts (--plan), and the judgement of
 * measured rounds (--results): which node is slow against every partner, which pair is slow only
 * together, and the round that would settle the rest (pairs/pairs.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "pairs/pairs.h"
#include "pairs/results_in.h"
#include "render/out.h"
#include "render/pairs.h"

#define RD_PAIRS_INPUT_MAX (64u << 20) /* bytes of one results or topology file */

/* A named input file (or - for standard input): a regular file or a pipe, never a device, at
 * most RD_PAIRS_INPUT_MAX bytes.  0 or -errno (-EFBIG: too large, -RD_ENOTREG: not a file). */
static int read_input(const char *path, char **data, size_t *len)
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

static const char *input_error(int r)
{
	return r == -EFBIG ? "larger than 64 MiB" : rd_strerror(-r);
}

int rd_cmd_pairs(struct rd_ctx *ctx, int argc, char **argv)
{
	enum { OPT_NODES = 256, OPT_PLAN, OPT_ROUNDS, OPT_ORDER, OPT_SEED, OPT_TOPOLOGY, OPT_RESULTS };
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
		{NULL, 0, NULL, 0},
	};
	bool json = false, plan = false, order_given = false;
	const char *nodes = NULL, *topology = NULL;
	long rounds = 1;
	unsigned long long seed = 1;
	enum rd_pairs_order order = RD_PAIRS_RING;
	struct rd_strv results = {0};
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:j", .longopts = longopts};
	int st = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &st)) != RD_OPT_END;) {
		char *end;
		switch (c) {
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
		}
	}
	if (st < 0 && !nodes && !results.n)
		st = rd_usage_error(ctx, "pairs", "--nodes HOSTLIST or --results FILE is needed");
	if (st < 0 && !plan && !results.n)
		st = rd_usage_error(ctx, "pairs", "nothing to do: --plan prints the rounds, --results judges measured ones");
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
		int r = read_input(results.v[i], &data, &len);
		if (r < 0) {
			fprintf(ctx->err, "%s: pairs: --results %s: %s\n", ctx->prog, results.v[i], input_error(r));
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
	if (p.nodes.n < 2) {
		fprintf(ctx->err, "%s: pairs: no pair to judge (%zu node%s in the results)\n", ctx->prog, p.nodes.n,
			p.nodes.n == 1 ? "" : "s");
		rd_pairs_free(&p);
		return RD_EXIT_UNKNOWN;
	}
	if (topology) {
		char *data = NULL;
		size_t len = 0;
		int r = read_input(topology, &data, &len);
		if (r < 0 || memchr(data, '\0', len) || rd_pairs_set_topology(&p, data, err, sizeof err) < 0) {
			fprintf(ctx->err, "%s: pairs: --topology %s: %s\n", ctx->prog, topology,
				r < 0 ? input_error(r) : memchr(data, '\0', len) ? "not text (a NUL byte)" : err);
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
	}
	if (printed)
		rd_out_finish(&o);
	rd_pairs_free(&p);
	if (fflush(ctx->out) != 0 || ferror(ctx->out))
		status = RD_EXIT_UNKNOWN;
	return status;
}
