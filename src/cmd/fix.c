/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor fix modules [--apply] [--policy FILE]`: show (default) or make the module-loading
 * fix.  Without --apply nothing changes: each file's unified diff and the commands are printed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "fix/fix.h"
#include "render/out.h"
#include "source/atomic.h"

static int fix_modules(struct rd_ctx *ctx, bool apply, const char *policy_path)
{
	struct rd_loaded l;
	if (rd_ctx_load(ctx, policy_path, false, &l) < 0)
		return RD_EXIT_UNKNOWN;
	struct rd_source *src = l.src;
	int rc = 0;
	if (apply && rd_source_is_archive(src)) {
		fprintf(ctx->err, "%s: fix: %s is a snapshot archive: nothing to apply it to (unpack it, or run on the host)\n",
			ctx->prog, rd_source_root(src));
		rd_loaded_free(&l);
		return RD_EXIT_USAGE;
	}
	bool live = rd_source_is_live(src);
	struct rd_policy *pol = &l.pol;
	struct rd_fix_plan plan;
	rd_fix_modules_plan(&l.h, &l.sys, pol, live, &plan);
	FILE *o = ctx->out;

	for (size_t i = 0; i < plan.errors.n; i++)
		rd_text_printf(ctx->err, ctx->ascii, "%s: fix: %s\n", ctx->prog, plan.errors.v[i]);
	if (plan.errors.n)
		rc = 1;
	if (!plan.nfiles && !plan.load.n) {
		if (plan.errors.n)
			fprintf(o, "nothing changed: see the errors above\n");
		else if (!rd_host_has_rdma_hardware(&l.h, &l.sys))
			fprintf(o, "nothing to change: no RDMA hardware on this host, so no module needs to load, now or at boot\n");
		else
			fprintf(o, "nothing to change: the %zu modules of the policy are listed in modules-load.d and "
				   "loaded (or have no hardware to drive), and nvidia_peermem, if listed, loads after ib_core\n",
				pol->modules.n);
		for (size_t i = 0; i < plan.notes.n && !plan.errors.n; i++)
			if (rd_host_has_rdma_hardware(&l.h, &l.sys))
				rd_text_printf(o, ctx->ascii, "note: %s\n", plan.notes.v[i]);
		goto out;
	}
	if (!apply)
		fprintf(o, "rdma-doctor fix modules: %zu file%s to change, %zu module%s to load (dry run: nothing is "
			   "changed; --apply does it)\n\n",
			plan.nfiles, plan.nfiles == 1 ? "" : "s", plan.load.n, plan.load.n == 1 ? "" : "s");
	if (apply && !plan.nfiles) /* a second --apply: the files are done, only loading is left */
		fprintf(o, "nothing to change in modules-load.d: the %zu modules of the policy are listed there, and "
			   "nvidia_peermem, if listed, loads after ib_core\n",
			pol->modules.n);
	for (size_t i = 0; i < plan.nfiles; i++) {
		const struct rd_file_change *c = &plan.files[i];
		char *path = rd_xasprintf("/%s/%s", c->dir, c->name);
		if (!apply) {
			char *d = rd_unified_diff(path, c->old, c->new);
			rd_text_printf(o, ctx->ascii, "%s (%s)\n", path, c->why); /* values from the host: printed safe */
			rd_text_lines(o, ctx->ascii, d);
			fputc('\n', o);
			free(d);
		} else {
			char why[512] = "";
			int r = rd_atomic_write(src, c->dir, c->name, c->new, strlen(c->new), 0644, why, sizeof why);
			if (r < 0) {
				rd_text_printf(ctx->err, ctx->ascii, "%s: fix: not written: %s\n", ctx->prog, why); /* names the root */
				rc = 1;
			} else {
				rd_text_printf(o, ctx->ascii, "wrote %s (%s)\n", path, c->why);
			}
		}
		free(path);
	}
	if (plan.load.n) {
		if (!apply || !live) {
			fprintf(o, "%s:\n", live ? "then, on this host" : apply ? "not loaded (this is a root, not the running host); "
										  "on the host it was taken from, run"
									  : "then, on the host this root was taken from");
			for (size_t i = 0; i < plan.load.n; i++)
				rd_text_printf(o, ctx->ascii, "  modprobe %s\n", plan.load.v[i]);
		} else if (geteuid() != 0) {
			fprintf(ctx->err, "%s: fix: loading modules needs root; not loaded: ", ctx->prog);
			for (size_t i = 0; i < plan.load.n; i++)
				rd_text_printf(ctx->err, ctx->ascii, "%s%s", i ? " " : "", plan.load.v[i]);
			fputc('\n', ctx->err);
			rc = 1;
		} else {
			for (size_t i = 0; i < plan.load.n; i++) {
				const char *argv[] = {"modprobe", plan.load.v[i], NULL};
				struct rd_text t;
				int r = rd_run_program(src, argv, 30000, &t);
				if (r == 0 && t.status == 0) {
					rd_text_printf(o, ctx->ascii, "loaded %s\n", plan.load.v[i]);
				} else {
					size_t n = t.data ? strcspn(t.data, "\n") : 0;
					rd_text_printf(ctx->err, ctx->ascii, "%s: fix: modprobe %s failed: %.*s%s\n", ctx->prog, plan.load.v[i], (int)n,
						t.data ? t.data : "", r < 0 ? rd_strerror(-r) : "");
					rc = 1;
				}
				rd_text_free(&t);
			}
		}
	}
	for (size_t i = 0; i < plan.notes.n; i++)
		rd_text_printf(o, ctx->ascii, "note: %s\n", plan.notes.v[i]);
out:
	fflush(o);
	rd_fix_plan_free(&plan);
	rd_loaded_free(&l);
	return rc;
}

int rd_cmd_fix(struct rd_ctx *ctx, int argc, char **argv)
{
	enum { OPT_APPLY = 256, OPT_POLICY };
	static const struct option longopts[] = {
		RD_LONGOPT_HELP,
		{"apply", no_argument, NULL, OPT_APPLY},
		{"policy", required_argument, NULL, OPT_POLICY},
		{NULL, 0, NULL, 0},
	};
	bool apply = false;
	const char *what = NULL, *policy = ctx->policy;
	struct rd_getopt g = {.argc = argc, .argv = argv, .longopts = longopts};
	for (int c; (c = rd_getopt(ctx, &g)) != RD_OPT_END;) {
		switch (c) {
		case OPT_APPLY:
			apply = true;
			break;
		case OPT_POLICY:
			policy = optarg;
			break;
		case RD_OPT_HELP:
			return 0;
		case RD_OPT_OPERAND:
			if (what)
				return rd_usage_error(ctx, "fix", "unexpected argument '%s'", optarg);
			what = optarg;
			break;
		default:
			return RD_EXIT_USAGE;
		}
	}
	for (; optind < argc; optind++) { /* after "--" */
		if (what)
			return rd_usage_error(ctx, "fix", "unexpected argument '%s'", argv[optind]);
		what = argv[optind];
	}
	if (!what)
		return rd_usage_error(ctx, "fix", "what to fix? (fix modules)");
	if (strcmp(what, "modules") != 0)
		return rd_usage_error(ctx, "fix", "cannot fix '%s': only 'modules'", what);
	return fix_modules(ctx, apply, policy);
}
