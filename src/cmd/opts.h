/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The options of a command (cmd/opts.c): getopt_long over its argv, the global options taken
 * after the command, and one tail for what a command does not handle itself: --help, a missing
 * value, an unknown option, and its operands (before and after "--").
 *
 * Ownership: a parser borrows argv and the option tables and allocates nothing; optarg points
 * into argv. */
#ifndef RD_CMD_OPTS_H
#define RD_CMD_OPTS_H
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

struct rd_ctx;

/* A command's option parser: getopt_long over argv (argv[0] is the command), options anywhere
 * among the operands and "--" ending them, whatever POSIXLY_CORRECT says.  Zero-initialise with
 * the command's argc/argv, short options (without the leading "-:") and long options, and for
 * rd_opts_next what the command takes besides. */
struct rd_getopt {
	int argc;
	char **argv;
	const char *shortopts;
	const struct option *longopts;
	bool operands;      /* rd_opts_next returns the operands; without, the first is a usage error */
	const char *usage;  /* the messages end "(usage: USAGE)" instead of "(see 'PROG CMD --help')",
			     * and a missing value is "missing value for 'OPT'" (slurm's words) */
	void (*help)(FILE *f, const char *prog); /* --help prints this; NULL: rd_print_cmd_usage */
	bool dashed;        /* the operand rd_opts_next returned came after "--" */
	bool started, ended;
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
/* The loop of a command's options, with everything but its own options handled here:
 *	int st = -1;
 *	for (int c; (c = rd_opts_next(ctx, &g, &st)) != RD_OPT_END;)
 *		switch (c) { ... a bad value: st = rd_usage_error(...) ... }
 *	if (st >= 0)
 *		return st;
 * Returns the next option (as rd_getopt), or RD_OPT_OPERAND with optarg the operand when
 * g->operands (g->dashed tells whether it came after "--"), or RD_OPT_END: at the end of argv
 * (*status stays -1), when *status was set (>= 0) by the caller, or after --help (*status 0) or a
 * usage error it printed (*status RD_EXIT_USAGE: an unknown option, a missing value, a bad global
 * option, an operand the command does not take). */
int rd_opts_next(struct rd_ctx *ctx, struct rd_getopt *g, int *status);
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
#endif
