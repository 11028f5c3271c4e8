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

#include "model/host.h"
#include "model/policy.h"
#include "model/system.h"
#include "source/source.h"

/* Link health (cmd/linkstate.c): check, slurm and npd read the port counters and keep a sample
 * between runs; read-only commands (explain, stack, ibstat ...) do neither. */
struct rd_link_opts {
	bool keep;             /* this command reads counters and keeps samples */
	bool no_counters;      /* check --no-counters: no counter read, the kept samples left as they are */
	bool dry_run;          /* slurm --dry-run: the samples are read, none is written */
	const char *state_dir; /* --state-dir; NULL: /var/lib/rdma-doctor on the live host, none under --root */
	const char *only, *skip; /* the run's check selection: counters are read and a sample kept only
				  * for link.counters and link.flaps (a run of others must not move their baseline) */
	bool show_counters;    /* the output shows the counters (Prometheus): read them even with no sample */
};

struct rd_ctx {
	const char *prog;  /* "rdma-doctor" */
	bool ascii;        /* the locale is not UTF-8: ASCII marks (rd_env_locale_utf8) */
	const char *root;  /* --root / RDMA_DOCTOR_ROOT, or NULL for the live host */
	FILE *out, *err;
	bool out_tty;      /* standard output is a terminal (out itself is a stream over it) */
	double timeout_s;  /* --timeout: the whole run's deadline for reads (0: none) */
	bool timeout_given; /* --timeout was given (fleet has no deadline by default: pdsh may take minutes) */
	bool compat;       /* ibstat/ibstatus: read like rdma-core does, with no deadline */
	unsigned load_flags; /* rd_host_load's flags for rd_ctx_load (check --counters: RD_LOAD_COUNTERS) */
	bool mft;          /* check --mft: rd_ctx_load lets the per-device tool commands run (source.h) */
	const char *policy; /* --policy given before the command (the command's own --policy wins) */
	bool no_color;     /* --no-color given before the command */
	bool no_rerun;     /* the command read what it cannot read again (standard input): after a wedged
			    * read it ends with one line instead of running again (main.c's takeover) */
	struct rd_link_opts link;
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

/* Opens ctx->root; on failure prints "rdma-doctor: <reason>" to ctx->err and returns -errno. */
int rd_ctx_open_source(struct rd_ctx *ctx, struct rd_source **src);
/* What most commands read: the source, the policy, the host and system models. */
struct rd_loaded {
	struct rd_source *src;
	struct rd_policy pol;
	struct rd_host h;
	struct rd_system sys;
	char error[1024]; /* after a failed rd_ctx_load: the line it printed ("" when the source failed) */
};
/* Opens ctx->root and loads everything; the system model looks at the policy's services when
 * with_services.  On failure prints one line and returns -1 (nothing to free). */
int rd_ctx_load(struct rd_ctx *ctx, const char *policy_path, bool with_services, struct rd_loaded *l);
void rd_loaded_free(struct rd_loaded *l);
/* rd_ctx_load's last step when ctx->link.keep: reads the counters and the samples kept in the
 * state directory, and adds this run's (cmd/linkstate.c, through cmd/statefile.c).  What went
 * wrong is in l->sys.link.sample for link.counters to say. */
#define RD_STATE_DIR_DEFAULT "/var/lib/rdma-doctor"
void rd_link_prepare(struct rd_ctx *ctx, struct rd_loaded *l);
/* check/slurm/npd's --state-dir DIR and --no-counters: returns 1 when opt is one of them (taken), 0 when not. */
int rd_link_opt(struct rd_ctx *ctx, const char *opt, const char *value);

/* What `check` runs: --only/--skip (comma lists of ids or prefixes, or NULL) and --policy. */
struct rd_check_sel {
	const char *only, *skip, *policy;
};
struct rd_report;
/* Runs the checks as `check` does into report, printing nothing but a one-line error naming cmd.
 * On success *l stays loaded (the caller frees it with rd_loaded_free, and report with
 * rd_report_free) and *no_hardware tells whether the host has no RDMA hardware at all.
 * Returns 0; -2 for an unknown check id, -1 when the host could not be read (nothing to free). */
int rd_check_collect(struct rd_ctx *ctx, const char *cmd, const struct rd_check_sel *sel, struct rd_loaded *l,
		     struct rd_report *report, bool *no_hardware);

/* Prints the general usage (every command) to f. */
void rd_print_usage(FILE *f, const char *prog);

int rd_cmd_check(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_npd(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_checks(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_stack(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_gids(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_topo(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_ibstat(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_ibstatus(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_snapshot(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_fix(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_explain(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_probe(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_slurm(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_fleet(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_version(struct rd_ctx *ctx, int argc, char **argv);
int rd_cmd_help(struct rd_ctx *ctx, int argc, char **argv);

/* Prints `rdma-doctor COMMAND --help` (usage, options, exit statuses) to f. */
void rd_print_cmd_usage(FILE *f, const char *prog, const char *cmd);

/* A command's option parser: getopt_long over argv (argv[0] is the command), options anywhere
 * among the operands and "--" ending them, whatever POSIXLY_CORRECT says.  Zero-initialise with
 * the command's argc/argv, short options (without the leading "-:") and long options. */
struct rd_getopt {
	int argc;
	char **argv;
	const char *shortopts;
	const struct option *longopts;
	bool started;
	char spec[64];
	struct option merged[48]; /* longopts and the global options (rd_global_opt) */
};
enum { RD_OPT_END = -1, RD_OPT_HELP = -2, RD_OPT_BAD = -3, RD_OPT_OPERAND = 1 };
/* The next option's value (its short letter or long option's val, with optarg set), RD_OPT_OPERAND
 * for an operand before "--" (optarg is it), RD_OPT_END at the end (the operands after "--" are
 * argv[optind..argc)), RD_OPT_HELP after printing the command's --help to ctx->out ("-h" and
 * "--help" are handled here), or RD_OPT_BAD after printing one line for an unknown option or a
 * missing value. */
int rd_getopt(struct rd_ctx *ctx, struct rd_getopt *g);
/* The options of every command, before or after it (docs/usage.md: options come before or after
 * the operands): --root DIR and --timeout SECONDS set ctx->root / ctx->timeout_s; cmd is the
 * command ("" before it) for the message of a bad value.  rd_getopt takes them after the command.
 * Returns 0, or RD_EXIT_USAGE after printing one line. */
enum { RD_GLOBAL_ROOT = 'r' + 1024, RD_GLOBAL_TIMEOUT = 't' + 1024 };
int rd_global_opt(struct rd_ctx *ctx, const char *cmd, int which, const char *value);
/* An error about the command line: "rdma-doctor: CMD: MESSAGE (see 'rdma-doctor CMD --help')",
 * returns RD_EXIT_USAGE. */
int rd_usage_error(struct rd_ctx *ctx, const char *cmd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* --format's value: "text" or "json" (sets *json); anything else is a usage error (printed, -1). */
int rd_opt_format(struct rd_ctx *ctx, const char *cmd, const char *value, bool *json);
/* The options of a command that has only --format (and --help): returns -1 to go on, or the exit
 * status to return now (0 after --help, RD_EXIT_USAGE after an error). */
int rd_format_only_opts(struct rd_ctx *ctx, int argc, char **argv, bool *json);
/* The --format/-f and --json/-j long options, to put in a command's table. */
#define RD_LONGOPT_FORMAT {"format", required_argument, NULL, 'f'}, {"json", no_argument, NULL, 'j'}
#define RD_LONGOPT_HELP {"help", no_argument, NULL, 'h'}

/* True when the context reads a root (--root / RDMA_DOCTOR_ROOT other than "/" as typed), not the live host. */
bool rd_ctx_is_root(const struct rd_ctx *ctx);

/* The probe's options, shared by `probe` and `check --probe` (cmd/probe.c).  name is "--device",
 * "--port", "--size" or "--probe-size"; on a bad value prints one line naming cmd and returns -1. */
struct rd_probe_opts;
int rd_probe_opt(struct rd_ctx *ctx, const char *cmd, const char *name, const char *value, struct rd_probe_opts *o);

#endif
