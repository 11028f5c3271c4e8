/* rdma-doctor: global options, then one command from the table in cmd/table.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"

int main(int argc, char **argv)
{
	struct rd_ctx ctx = {.prog = "rdma-doctor", .out = stdout, .err = stderr, .timeout_s = 10};
	const char *env = getenv("RDMA_DOCTOR_ROOT");
	if (env && *env)
		ctx.root = env;

	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--root") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: --root needs a directory or snapshot archive\n", ctx.prog);
				return 3;
			}
			ctx.root = argv[++i];
		} else if (strncmp(a, "--root=", 7) == 0) {
			ctx.root = a + 7;
		} else if (strcmp(a, "--timeout") == 0 || strncmp(a, "--timeout=", 10) == 0) {
			const char *v = a[9] == '=' ? a + 10 : i + 1 < argc ? argv[++i] : "";
			char *end;
			ctx.timeout_s = strtod(v, &end);
			if (end == v || *end || ctx.timeout_s < 0 || ctx.timeout_s > 86400) {
				fprintf(stderr, "%s: --timeout needs a number of seconds (0 for none), not '%s'\n", ctx.prog, v);
				return 3;
			}
		} else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			return rd_cmd_version(&ctx, 0, NULL);
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			return rd_cmd_help(&ctx, 0, NULL);
		} else {
			fprintf(stderr, "%s: unknown option '%s'\n", ctx.prog, a);
			rd_print_usage(stderr, ctx.prog);
			return 3;
		}
	}
	if (i >= argc) {
		rd_print_usage(stderr, ctx.prog);
		return 3;
	}
	for (const struct rd_cmd *c = rd_cmds; c->name; c++)
		if (strcmp(c->name, argv[i]) == 0)
			return c->run(&ctx, argc - i, argv + i);
	fprintf(stderr, "%s: unknown command '%s' (try '%s help')\n", ctx.prog, argv[i], ctx.prog);
	return 3;
}
