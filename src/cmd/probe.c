/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor probe`: a verbs RDMA WRITE loopback on each Active port of the running host. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "model/parse.h"
#include "probe/probe.h"
#include "render/out.h"
#include "render/probe.h"

int rd_probe_opt(struct rd_ctx *ctx, const char *cmd, const char *name, const char *value, struct rd_probe_opts *o)
{
	if (strcmp(name, "--device") == 0) {
		if (!*value) {
			fprintf(ctx->err, "%s: %s: --device needs a device name\n", ctx->prog, cmd);
			return -1;
		}
		o->device = value;
	} else if (strcmp(name, "--port") == 0) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(value, &end, 10);
		if (!*value || *end || errno || v < 1 || v > 255 || *value == '-' || *value == '+') {
			rd_text_printf(ctx->err, ctx->ascii, "%s: %s: --port needs a port number 1..255, not '%s'\n", ctx->prog, cmd, value);
			return -1;
		}
		o->port = (unsigned)v;
	} else { /* --size or --probe-size */
		uint64_t v;
		char a[32], b[32];
		/* bytes, or K, M, G as systemd writes sizes */
		if (rd_parse_systemd_size(value, &v) < 0 || v < RD_PROBE_MIN_SIZE || v > RD_PROBE_MAX_SIZE) {
			rd_text_printf(ctx->err, ctx->ascii, "%s: %s: %s needs a size from %s to %s (bytes, or with K, M, G), not '%s'\n",
				ctx->prog, cmd, name, rd_size_words(RD_PROBE_MIN_SIZE, a, sizeof a),
				rd_size_words(RD_PROBE_MAX_SIZE, b, sizeof b), value);
			return -1;
		}
		o->size = v;
	}
	return 0;
}

int rd_cmd_probe(struct rd_ctx *ctx, int argc, char **argv)
{
	enum { OPT_DEVICE = 256, OPT_PORT, OPT_SIZE };
	static const struct option longopts[] = {
		RD_LONGOPT_FORMAT,
		RD_LONGOPT_HELP,
		{"device", required_argument, NULL, OPT_DEVICE},
		{"port", required_argument, NULL, OPT_PORT},
		{"size", required_argument, NULL, OPT_SIZE},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	struct rd_probe_opts opts = {0};
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:j", .longopts = longopts};
	for (int c; (c = rd_getopt(ctx, &g)) != RD_OPT_END;) {
		const char *name = c == OPT_DEVICE ? "--device" : c == OPT_PORT ? "--port" : "--size";
		switch (c) {
		case 'f':
			if (rd_opt_format(ctx, "probe", optarg, &json) < 0)
				return RD_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case OPT_DEVICE:
		case OPT_PORT:
		case OPT_SIZE:
			if (rd_probe_opt(ctx, "probe", name, optarg, &opts) < 0)
				return RD_EXIT_USAGE;
			break;
		case RD_OPT_HELP:
			return 0;
		case RD_OPT_OPERAND:
			return rd_usage_error(ctx, "probe", "unexpected argument '%s'", optarg);
		default:
			return RD_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return rd_usage_error(ctx, "probe", "unexpected argument '%s'", argv[optind]);
	if (rd_ctx_is_root(ctx)) {
		fprintf(ctx->err, "%s: probe talks to the running host's devices; it cannot run on --root\n", ctx->prog);
		return 3;
	}
	struct rd_probe_result res;
	/* in a child process: a library that crashes, exits or hangs is the probe's result */
	int r = rd_probe_run_contained(&opts, (int)(ctx->timeout_s * 1000), &res);
	if (r == -EINVAL) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: probe: %s\n", ctx->prog, res.error);
		rd_probe_result_free(&res);
		return 3;
	}
	rd_probe_render(ctx->out, json, &res);
	int rc = res.pass ? 0 : 2;
	rd_probe_result_free(&res);
	return rc;
}
