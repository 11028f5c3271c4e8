/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The commands of rdma-doctor: a table of names and functions (after kmod's tools/).
 *
 * Ownership: a command borrows the context; it owns and frees whatever it opens or loads.
 * Commands are the only code besides main() that prints; they return the process exit status. */
#ifndef RD_CMD_H
#define RD_CMD_H
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "cmd/opts.h"
#include "run/linkstate.h"
#include "run/load.h"

struct rd_ctx {
	const char *prog;  /* "rdma-doctor" */
	bool ascii;        /* the locale is not UTF-8: ASCII marks (rd_env_locale_utf8) */
	const char *root;  /* --root / RDMA_DOCTOR_ROOT, or NULL for the live host */
	FILE *out, *err;
	bool out_tty;      /* standard output is a terminal (out itself is a stream over it) */
	double timeout_s;  /* --timeout: the whole run's deadline for reads (0: none) */
	bool timeout_given; /* --timeout was given (fleet has no deadline by default: pdsh may take minutes) */
	bool compat;       /* ibstat/ibstatus: read like rdma-core does, with no deadline (so nothing to
			    * guard: they read on the main thread and print as they go) */
	unsigned load_flags; /* rd_ctx_load's parts (rd_load_opts.parts): what the selected checks need */
	bool mft;          /* check --mft: rd_ctx_load lets the per-device tool commands run (source.h) */
	const char *policy; /* --policy given before the command (the command's own --policy wins) */
	bool no_color;     /* --no-color given before the command */
	struct rd_link_opts link; /* check, slurm, npd: the samples kept between runs (run/linkstate.h) */
	int env_pid;       /* check, snapshot --env-from: NCCL's environment is this process's (0: ours) */
};

/* Writes what fill writes to a new file beside path (mode 0644, or the mode of the file it replaces),
 * then renames it over path: readers see the old file or the new one.  On any failure the
 * temporary file is removed and one line naming path is printed ("PROG: CMD: --output PATH: ...");
 * returns 0 or -1.  (cmd/output.c) */
int rd_output_atomic(struct rd_ctx *ctx, const char *cmd, const char *path, void (*fill)(FILE *f, void *arg),
		     void *arg);

/* Exit statuses, one table for every command (docs/usage.md "Exit status", `help`); ibstat and ibstatus
 * exit as rdma-core's do.  check keeps the monitoring-plugin codes. */
enum {
	RD_EXIT_OK = 0,      /* success; check OK; explain: nothing known or all ruled out; probe PASS */
	RD_EXIT_WARN = 1,    /* check WARN; explain: a cause confirmed; fix: a change could not be made */
	RD_EXIT_FAIL = 2,    /* check FAIL; probe FAIL; snapshot: not written */
	RD_EXIT_UNKNOWN = 3, /* check UNKNOWN; explain: cannot tell; and for every command: a usage
			      * error, an unreadable root or policy, output that cannot be written */
	RD_EXIT_USAGE = 3,
};

struct rd_cmd {
	const char *name;
	int (*run)(struct rd_ctx *ctx, int argc, char **argv); /* argv[0] is the command name */
	const char *args;    /* usage after the name */
	const char *help;    /* one line */
	const char *options; /* `COMMAND --help`: one line per option, or NULL */
	const char *exits;   /* `COMMAND --help`: what its exit statuses mean */
};

/* Table of commands, ended by an entry with name == NULL. */
extern const struct rd_cmd rd_cmds[];

/* What the run layer loads for this context (--root, --timeout but for ibstat and ibstatus,
 * ctx->load_flags, --mft); a command's own guarded load (run/guard.h) starts from it. */
struct rd_load_opts rd_ctx_load_opts(const struct rd_ctx *ctx);
/* Opens ctx->root through the run layer (rd_load_open, with this context's deadlines); prints the
 * reason of a failure ("rdma-doctor: <reason>") to ctx->err and returns -errno. */
int rd_ctx_open_source(struct rd_ctx *ctx, struct rd_source **src);
/* Loads the source, the policy, the host and system models under the guard (the system model
 * looks at the policy's services when with_services; the counters are read when ctx->link asks),
 * then prints its notice or, on failure, its reason, and returns 0 or -1 (nothing to free). */
int rd_ctx_load(struct rd_ctx *ctx, const char *policy_path, bool with_services, struct rd_loaded *l);
/* check/slurm/npd's --state-dir DIR and --no-counters: returns 1 when opt is one of them (taken), 0 when not. */
/* --env-from's value: a process id (sets ctx->env_pid); anything else is a usage error
 * (printed, -1). */
int rd_env_from_opt(struct rd_ctx *ctx, const char *cmd, const char *value);
int rd_link_opt(struct rd_ctx *ctx, const char *opt, const char *value);

/* What `check` runs: --only/--skip (comma lists of ids or prefixes, or NULL) and --policy. */
struct rd_check_sel {
	const char *only, *skip, *policy;
};
struct rd_report;
/* Loads and runs the checks as `check` does into report (the link samples kept in between,
 * rd_link_keep), printing nothing but a one-line error naming cmd.  On success *l stays loaded (the caller frees it with rd_loaded_free, and report with
 * rd_report_free) and *no_hardware tells whether the host has no RDMA hardware at all.
 * Returns 0; -2 for an unknown check id, -1 when the host could not be read (nothing to free). */
int rd_check_collect(struct rd_ctx *ctx, const char *cmd, const struct rd_check_sel *sel, struct rd_loaded *l,
		     struct rd_report *report, bool *no_hardware);

/* A named input file (or - for standard input): a regular file or a pipe, never a device, at most
 * 64 MiB; *data NUL-terminated, the caller frees it.  0 or -errno (-EFBIG: too large, -RD_ENOTREG:
 * not a file).  rd_cmd_input_error names a failure.  (cmd/pairs.c: pairs --results, fabric --pairs) */
int rd_cmd_read_input(const char *path, char **data, size_t *len);
const char *rd_cmd_input_error(int r);

/* Prints the general usage (every command) to f. */
void rd_print_usage(FILE *f, const char *prog);

int rd_cmd_check(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_npd(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_checks(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_stack(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_gids(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_topo(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_fabric(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_ibstat(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_ibstatus(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_snapshot(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_fix(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_explain(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_probe(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_slurm(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_fleet(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_pair(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_pairs(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_watch(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_version(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_help(struct rd_ctx *ctx, int argc, char **argv);

/* Prints `rdma-doctor COMMAND --help` (usage, options, exit statuses) to f. */
void rd_print_cmd_usage(FILE *f, const char *prog, const char *cmd);

/* True when the context reads a root (--root / RDMA_DOCTOR_ROOT other than "/" as typed), not the live host. */
bool rd_ctx_is_root(const struct rd_ctx *ctx);

/* The probe's options, shared by `probe` and `check --probe` (cmd/probe.c).  name is "--device",
 * "--port", "--size" or "--probe-size"; on a bad value prints one line naming cmd and returns -1. */
struct rd_probe_opts;
int rd_probe_opt(struct rd_ctx *ctx, const char *cmd, const char *name, const char *value, struct rd_probe_opts *o);

#endif
