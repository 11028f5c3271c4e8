/* The commands of rdma-doctor: a table of names and functions (after kmod's tools/).
 *
 * Ownership: a command borrows the context; it owns and frees whatever it opens or loads.
 * Commands are the only code besides main() that prints; they return the process exit status. */
#ifndef RD_CMD_H
#define RD_CMD_H
#include <stdbool.h>
#include <stdio.h>

#include "model/host.h"
#include "model/policy.h"
#include "model/system.h"
#include "source/source.h"

struct rd_ctx {
	const char *prog;  /* "rdma-doctor" */
	const char *root;  /* --root / RDMA_DOCTOR_ROOT, or NULL for the live host */
	FILE *out, *err;
	double timeout_s;  /* --timeout: the whole run's deadline for reads (0: none) */
	bool compat;       /* ibstat/ibstatus: read like rdma-core does, with no deadline */
	unsigned load_flags; /* rd_host_load's flags for rd_ctx_load (check --counters: RD_LOAD_COUNTERS) */
};

struct rd_cmd {
	const char *name;
	int (*run)(struct rd_ctx *ctx, int argc, char **argv); /* argv[0] is the command name */
	const char *args;  /* usage after the name */
	const char *help;  /* one line */
};

/* Table of commands, ended by an entry with name == NULL. */
extern const struct rd_cmd rd_cmds[];

/* Opens ctx->root; on failure prints "rdma-doctor: <reason>" to ctx->err and returns -errno. */
int rd_ctx_open_source(struct rd_ctx *ctx, struct rd_source **src);
/* What most commands read: the source, the policy, the host and system models. */
struct rd_loaded {
	struct rd_source *src;
	struct rd_policy pol;
	struct rd_host h;
	struct rd_system sys;
};
/* Opens ctx->root and loads everything; the system model looks at the policy's services when
 * with_services.  On failure prints one line and returns -1 (nothing to free). */
int rd_ctx_load(struct rd_ctx *ctx, const char *policy_path, bool with_services, struct rd_loaded *l);
void rd_loaded_free(struct rd_loaded *l);

/* Prints the general usage (every command) to f. */
void rd_print_usage(FILE *f, const char *prog);

int rd_cmd_check(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_npd(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_checks(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_stack(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_ibstat(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_ibstatus(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_snapshot(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_fix(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_explain(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_probe(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_version(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_help(struct rd_ctx *ctx, int argc, char **argv);

/* Parses "--format text|json" style options shared by several commands.  Returns 1 if argv[*i]
 * was consumed (advancing *i past a separate value), 0 if it is not --format, -1 on a bad value
 * (message printed). */
int rd_opt_format(struct rd_ctx *ctx, int argc, char **argv, int *i, bool *json);

/* True when the context reads a root (--root / RDMA_DOCTOR_ROOT other than "/"), not the live host. */
bool rd_ctx_is_root(const struct rd_ctx *ctx);

/* The probe's options, shared by `probe` and `check --probe` (cmd/probe.c).  name is "--device",
 * "--port", "--size" or "--probe-size"; on a bad value prints one line naming cmd and returns -1. */
struct rd_probe_opts;
int rd_probe_opt(struct rd_ctx *ctx, const char *cmd, const char *name, const char *value, struct rd_probe_opts *o);

#endif
