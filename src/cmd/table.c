#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"

const struct rd_cmd rd_cmds[] = {
	{"check", rd_cmd_check, "[--format text|json|prometheus [--counters]] [--output FILE] [--only ID,...] [--skip ID,...] [--no-color] [--probe]",
	 "check this host's RDMA stack and print each finding with its evidence and fix; --probe adds\n"
	 "            `probe` as check probe.loopback (live host only; --probe-size BYTES)"},
	{"npd", rd_cmd_npd, "[check options]", "check, as a node-problem-detector custom plugin: one line, exit 0 OK/WARN, 1 FAIL, 3 unknown"},
	{"checks", rd_cmd_checks, "[--format text|json]", "list the checks: id, what each detects, where it looks"},
	{"stack", rd_cmd_stack, "[--format text|json]",
	 "inventory: kernel, RDMA modules (in-tree or out-of-tree), devices, firmware, ports"},
	{"ibstat", rd_cmd_ibstat, "[-l | -p | -s] [CA [PORT]]", "the same output as rdma-core's ibstat"},
	{"ibstatus", rd_cmd_ibstatus, "[DEV[:PORT]]...", "the same output as rdma-core's ibstatus"},
	{"explain", rd_cmd_explain, "[--format text|json] TEXT... | -",
	 "find known error messages in the text (- reads a log from standard input) and tell which\n"
	 "            cause is confirmed on this host, with its fix"},
	{"fix", rd_cmd_fix, "modules [--apply] [--policy FILE]",
	 "show (default) or write /etc/modules-load.d/rdma.conf and fix nvidia_peermem's order; with --apply\n"
	 "            on a live host also load the missing modules"},
	{"snapshot", rd_cmd_snapshot, "-o DIR|FILE.tar.gz [--counters]",
	 "collect everything the checks read, to check it elsewhere with --root (--counters: the port\n"
	 "            counters too, which cost a firmware command each on some HCAs)"},
	{"probe", rd_cmd_probe, "[--device DEV] [--port N] [--size BYTES] [--format text|json]",
	 "RDMA WRITE loopback through libibverbs (loaded at run time) on each Active port of this host:\n"
	 "            query port, GID, register memory, RC QP to itself, write, compare; exit 0 pass, 2 fail"},
	{"version", rd_cmd_version, "", "print the version"},
	{"help", rd_cmd_help, "", "print this help"},
	{NULL, NULL, NULL, NULL},
};

void rd_print_usage(FILE *f, const char *prog)
{
	fprintf(f, "Usage: %s [--root DIR|SNAPSHOT.tar.gz] [--timeout SECONDS] COMMAND [ARGS]\n\n", prog);
	fprintf(f, "  --root DIR   read the host through DIR (or a snapshot archive) instead of /;\n"
		   "               nothing on the real host is read and no command is run.\n"
		   "               RDMA_DOCTOR_ROOT means the same.\n"
		   "  --timeout S  stop reading after S seconds (default 10; one file read may take 2 s);\n"
		   "               what was not read is reported UNKNOWN \"timed out\".  0: no deadline.\n\nCommands:\n");
	for (const struct rd_cmd *c = rd_cmds; c->name; c++)
		fprintf(f, "  %-9s %s\n            %s\n", c->name, c->args, c->help);
	fprintf(f, "\nExit status of check: 0 OK, 1 WARN, 2 FAIL, 3 UNKNOWN or usage error.\n");
}

bool rd_ctx_is_root(const struct rd_ctx *ctx)
{
	return ctx->root && strcmp(ctx->root, "/") != 0;
}

int rd_ctx_open_source(struct rd_ctx *ctx, struct rd_source **src)
{
	char err[1024] = "";
	int r = rd_source_open(ctx->root, src, err, sizeof err);
	if (r < 0)
		fprintf(ctx->err, "%s: %s\n", ctx->prog, err[0] ? err : strerror(-r));
	else if (!ctx->compat && ctx->timeout_s > 0) {
		/* one read may take 2 s (a wedged HCA), the whole run --timeout */
		int run = (int)(ctx->timeout_s * 1000);
		rd_source_set_deadlines(*src, run < 2000 ? run : 2000, run);
	}
	return r;
}

int rd_ctx_load(struct rd_ctx *ctx, const char *policy_path, bool with_services, struct rd_loaded *l)
{
	memset(l, 0, sizeof *l);
	if (rd_ctx_open_source(ctx, &l->src) < 0)
		return -1;
	char err[512] = "";
	if (rd_policy_load(policy_path, l->src, &l->pol, err, sizeof err) < 0) {
		fprintf(ctx->err, "%s: %s\n", ctx->prog, err);
		rd_policy_free(&l->pol);
		rd_source_close(l->src);
		return -1;
	}
	rd_host_load(l->src, ctx->load_flags, &l->h);
	const char **services = rd_xcalloc(l->pol.services.n + 1, sizeof *services);
	for (size_t i = 0; with_services && i < l->pol.services.n; i++)
		services[i] = l->pol.services.v[i];
	rd_system_load(l->src, &l->h, services, &l->sys);
	free(services);
	return 0;
}

void rd_loaded_free(struct rd_loaded *l)
{
	rd_system_free(&l->sys);
	rd_host_free(&l->h);
	rd_policy_free(&l->pol);
	rd_source_close(l->src);
	memset(l, 0, sizeof *l);
}

int rd_opt_format(struct rd_ctx *ctx, int argc, char **argv, int *i, bool *json)
{
	const char *a = argv[*i], *v;
	if (strcmp(a, "--format") == 0 || strcmp(a, "-f") == 0) {
		if (*i + 1 >= argc) {
			fprintf(ctx->err, "%s: %s needs a value: text or json\n", ctx->prog, a);
			return -1;
		}
		v = argv[++*i];
	} else if (strncmp(a, "--format=", 9) == 0) {
		v = a + 9;
	} else if (strcmp(a, "--json") == 0 || strcmp(a, "-j") == 0) {
		v = "json";
	} else {
		return 0;
	}
	if (strcmp(v, "json") == 0)
		*json = true;
	else if (strcmp(v, "text") == 0)
		*json = false;
	else {
		fprintf(ctx->err, "%s: unknown format '%s' (use text or json)\n", ctx->prog, v);
		return -1;
	}
	return 1;
}

int rd_cmd_version(struct rd_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(ctx->out, "rdma-doctor %s\n", RD_VERSION);
	return 0;
}

int rd_cmd_help(struct rd_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	rd_print_usage(ctx->out, ctx->prog);
	return 0;
}
