/* `rdma-doctor fix modules [--apply] [--policy FILE]`: show (default) or make the module-loading
 * fix.  Without --apply nothing changes: each file's unified diff and the commands are printed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "fix/fix.h"
#include "source/atomic.h"

static int fix_modules(struct rd_ctx *ctx, bool apply, const char *policy_path)
{
	struct rd_loaded l;
	if (rd_ctx_load(ctx, policy_path, false, &l) < 0)
		return 2;
	struct rd_source *src = l.src;
	int rc = 0;
	if (apply && strcmp(rd_source_dir(src), rd_source_root(src)) != 0) {
		fprintf(ctx->err, "%s: fix: %s is a snapshot archive: nothing to apply it to (unpack it, or run on the host)\n",
			ctx->prog, rd_source_root(src));
		rd_loaded_free(&l);
		return 2;
	}
	bool live = rd_source_is_live(src);
	struct rd_policy *pol = &l.pol;
	struct rd_fix_plan plan;
	rd_fix_modules_plan(&l.h, &l.sys, pol, live, &plan);
	FILE *o = ctx->out;

	for (size_t i = 0; i < plan.errors.n; i++)
		fprintf(ctx->err, "%s: fix: %s\n", ctx->prog, plan.errors.v[i]);
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
				fprintf(o, "note: %s\n", plan.notes.v[i]);
		goto out;
	}
	if (!apply)
		fprintf(o, "rdma-doctor fix modules: %zu file%s to change, %zu module%s to load (dry run: nothing is "
			   "changed; --apply does it)\n\n",
			plan.nfiles, plan.nfiles == 1 ? "" : "s", plan.load.n, plan.load.n == 1 ? "" : "s");
	for (size_t i = 0; i < plan.nfiles; i++) {
		const struct rd_file_change *c = &plan.files[i];
		char *path = rd_xasprintf("/%s/%s", c->dir, c->name);
		if (!apply) {
			char *d = rd_unified_diff(path, c->old, c->new);
			fprintf(o, "%s (%s)\n%s\n", path, c->why, d);
			free(d);
		} else {
			char why[512] = "";
			int r = rd_atomic_write(src, c->dir, c->name, c->new, strlen(c->new), 0644, why, sizeof why);
			if (r < 0) {
				fprintf(ctx->err, "%s: fix: not written: %s\n", ctx->prog, why);
				rc = 1;
			} else {
				fprintf(o, "wrote %s (%s)\n", path, c->why);
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
				fprintf(o, "  modprobe %s\n", plan.load.v[i]);
		} else if (geteuid() != 0) {
			fprintf(ctx->err, "%s: fix: loading modules needs root; not loaded: ", ctx->prog);
			for (size_t i = 0; i < plan.load.n; i++)
				fprintf(ctx->err, "%s%s", i ? " " : "", plan.load.v[i]);
			fputc('\n', ctx->err);
			rc = 1;
		} else {
			for (size_t i = 0; i < plan.load.n; i++) {
				const char *argv[] = {"modprobe", plan.load.v[i], NULL};
				struct rd_text t;
				int r = rd_run_program(src, argv, 30000, &t);
				if (r == 0 && t.status == 0) {
					fprintf(o, "loaded %s\n", plan.load.v[i]);
				} else {
					size_t n = t.data ? strcspn(t.data, "\n") : 0;
					fprintf(ctx->err, "%s: fix: modprobe %s failed: %.*s%s\n", ctx->prog, plan.load.v[i], (int)n,
						t.data ? t.data : "", r < 0 ? rd_strerror(-r) : "");
					rc = 1;
				}
				rd_text_free(&t);
			}
		}
	}
	for (size_t i = 0; i < plan.notes.n; i++)
		fprintf(o, "note: %s\n", plan.notes.v[i]);
out:
	fflush(o);
	rd_fix_plan_free(&plan);
	rd_loaded_free(&l);
	return rc;
}

int rd_cmd_fix(struct rd_ctx *ctx, int argc, char **argv)
{
	bool apply = false;
	const char *what = NULL, *policy = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--apply") == 0)
			apply = true;
		else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc)
			policy = argv[++i];
		else if (strncmp(argv[i], "--policy=", 9) == 0)
			policy = argv[i] + 9;
		else if (!what && argv[i][0] != '-')
			what = argv[i];
		else {
			fprintf(ctx->err, "%s: fix: unknown argument '%s' (usage: fix modules [--apply] [--policy FILE])\n",
				ctx->prog, argv[i]);
			return 2;
		}
	}
	if (!what || strcmp(what, "modules") != 0) {
		fprintf(ctx->err, "%s: fix: what to fix? (usage: fix modules [--apply] [--policy FILE])\n", ctx->prog);
		return 2;
	}
	return fix_modules(ctx, apply, policy);
}
