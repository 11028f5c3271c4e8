/* `rdma-doctor probe`: a verbs RDMA WRITE loopback on each Active port of the running host. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "model/parse.h"
#include "probe/probe.h"
#include "render/probe.h"

#define PROBE_USAGE "probe [--device DEV] [--port N] [--size BYTES] [--format text|json]"

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
			fprintf(ctx->err, "%s: %s: --port needs a port number 1..255, not '%s'\n", ctx->prog, cmd, value);
			return -1;
		}
		o->port = (unsigned)v;
	} else { /* --size or --probe-size */
		uint64_t v;
		char a[32], b[32];
		/* bytes, or K, M, G as systemd writes sizes */
		if (rd_parse_systemd_size(value, &v) < 0 || v < RD_PROBE_MIN_SIZE || v > RD_PROBE_MAX_SIZE) {
			fprintf(ctx->err, "%s: %s: %s needs a size from %s to %s (bytes, or with K, M, G), not '%s'\n",
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
	bool json = false;
	struct rd_probe_opts opts = {0};
	for (int i = 1; i < argc; i++) {
		int r = rd_opt_format(ctx, argc, argv, &i, &json);
		if (r < 0)
			return 3;
		if (r > 0)
			continue;
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t nl = eq ? (size_t)(eq - a) : strlen(a);
		static const char *const opts_with_value[] = {"--device", "--port", "--size", NULL};
		const char *name = NULL;
		for (const char *const *n = opts_with_value; *n; n++)
			if (strlen(*n) == nl && strncmp(a, *n, nl) == 0)
				name = *n;
		if (!name) {
			fprintf(ctx->err, "%s: probe: unknown argument '%s' (usage: %s)\n", ctx->prog, a, PROBE_USAGE);
			return 3;
		}
		if (!eq && i + 1 >= argc) {
			fprintf(ctx->err, "%s: probe: missing value for %s (usage: %s)\n", ctx->prog, a, PROBE_USAGE);
			return 3;
		}
		if (rd_probe_opt(ctx, "probe", name, eq ? eq + 1 : argv[++i], &opts) < 0)
			return 3;
	}
	if (rd_ctx_is_root(ctx)) {
		fprintf(ctx->err, "%s: probe talks to the running host's devices; it cannot run on --root\n", ctx->prog);
		return 3;
	}
	struct rd_probe_result res;
	/* in a child process: a library that crashes, exits or hangs is the probe's result */
	int r = rd_probe_run_contained(&opts, (int)(ctx->timeout_s * 1000), &res);
	if (r == -EINVAL) {
		fprintf(ctx->err, "%s: probe: %s\n", ctx->prog, res.error);
		rd_probe_result_free(&res);
		return 3;
	}
	rd_probe_render(ctx->out, json, &res);
	int rc = res.pass ? 0 : 2;
	rd_probe_result_free(&res);
	return rc;
}
