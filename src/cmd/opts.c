/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The options of a command (cmd/opts.h). */
#include "cmd/opts.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "render/out.h"

int rd_usage_error(struct rd_ctx *ctx, const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(ctx->err, "%s: %s: ", ctx->prog, cmd);
	rd_text_vprintf(ctx->err, ctx->ascii, fmt, ap);
	fprintf(ctx->err, " (see '%s %s --help')\n", ctx->prog, cmd);
	va_end(ap);
	return RD_EXIT_USAGE;
}

int rd_global_opt(struct rd_ctx *ctx, const char *cmd, int which, const char *value)
{
	const char *sep = *cmd ? ": " : "";
	if (which == RD_GLOBAL_ROOT) {
		if (!*value) {
			fprintf(ctx->err, "%s: %s%s--root needs a directory or snapshot archive, not an empty string (see '%s --help')\n",
				ctx->prog, cmd, sep, ctx->prog);
			return RD_EXIT_USAGE;
		}
		ctx->root = value;
		return 0;
	}
	char *end;
	double t = strtod(value, &end);
	if (end == value || *end || !(t >= 0 && t <= 86400)) {
		fprintf(ctx->err, "%s: %s%s--timeout needs a number of seconds (0 for none), not '", ctx->prog, cmd, sep);
		rd_text_printf(ctx->err, ctx->ascii, "%s", value);
		fprintf(ctx->err, "' (see '%s --help')\n", ctx->prog);
		return RD_EXIT_USAGE;
	}
	ctx->timeout_s = t;
	ctx->timeout_given = true;
	return 0;
}

/* One line about argv: "PROG: CMD: MESSAGE" and how to learn the usage (rd_getopt's usage). */
static int opt_error(struct rd_ctx *ctx, const struct rd_getopt *g, const char *fmt, const char *arg)
	__attribute__((format(printf, 3, 0)));
static int opt_error(struct rd_ctx *ctx, const struct rd_getopt *g, const char *fmt, const char *arg)
{
	if (!g->usage)
		return rd_usage_error(ctx, g->argv[0], fmt, arg);
	fprintf(ctx->err, "%s: %s: ", ctx->prog, g->argv[0]);
	rd_text_printf(ctx->err, ctx->ascii, fmt, arg);
	fprintf(ctx->err, " (usage: %s)\n", g->usage);
	return RD_EXIT_USAGE;
}

int rd_getopt(struct rd_ctx *ctx, struct rd_getopt *g)
{
	const char *cmd = g->argv[0];
	if (!g->started) {
		/* "-": operands are returned in order (POSIXLY_CORRECT cannot change it);
		 * ":": a missing value is told apart from an unknown option */
		snprintf(g->spec, sizeof g->spec, "-:%sh", g->shortopts ? g->shortopts : "");
		/* the command's options, then the global ones it does not have itself */
		size_t n = 0, max = sizeof g->merged / sizeof g->merged[0] - 3;
		for (; g->longopts && g->longopts[n].name && n < max; n++)
			g->merged[n] = g->longopts[n];
		static const struct option globals[] = {{"root", required_argument, NULL, RD_GLOBAL_ROOT},
							{"timeout", required_argument, NULL, RD_GLOBAL_TIMEOUT}};
		for (size_t k = 0; k < 2; k++) {
			bool own = false;
			for (size_t i = 0; i < n; i++)
				own |= strcmp(g->merged[i].name, globals[k].name) == 0;
			if (!own)
				g->merged[n++] = globals[k];
		}
		g->merged[n] = (struct option){NULL, 0, NULL, 0};
		optind = 0; /* glibc: a full re-initialisation */
		opterr = 0;
		g->started = true;
	}
	int c;
	while ((c = getopt_long(g->argc, g->argv, g->spec, g->merged, NULL)) == RD_GLOBAL_ROOT || c == RD_GLOBAL_TIMEOUT)
		if (rd_global_opt(ctx, cmd, c, optarg) != 0)
			return RD_OPT_BAD;
	if (c == 'h') {
		if (g->help)
			g->help(ctx->out, ctx->prog);
		else
			rd_print_cmd_usage(ctx->out, ctx->prog, cmd);
		return RD_OPT_HELP;
	}
	if (c == '?' || c == ':') {
		const char *a = optind > 0 && optind <= g->argc ? g->argv[optind - 1] : "";
		bool islong = a[0] == '-' && a[1] == '-';
		char name[64];
		if (islong)
			snprintf(name, sizeof name, "%.*s", (int)strcspn(a, "="), a);
		else
			snprintf(name, sizeof name, "-%c", optopt);
		if (c == ':')
			opt_error(ctx, g, g->usage ? "missing value for '%s'" : "option '%s' needs a value", name);
		else if (islong && optopt)
			opt_error(ctx, g, "option '%s' takes no value", name);
		else
			opt_error(ctx, g, "unknown option '%s'", name);
		return RD_OPT_BAD;
	}
	return c;
}

int rd_opts_next(struct rd_ctx *ctx, struct rd_getopt *g, int *status)
{
	if (*status >= 0)
		return RD_OPT_END;
	if (!g->ended) {
		int c = rd_getopt(ctx, g);
		if (c == RD_OPT_HELP || c == RD_OPT_BAD) {
			*status = c == RD_OPT_HELP ? 0 : RD_EXIT_USAGE;
			return RD_OPT_END;
		}
		if (c == RD_OPT_OPERAND && !g->operands) {
			*status = opt_error(ctx, g, "unexpected argument '%s'", optarg);
			return RD_OPT_END;
		}
		if (c != RD_OPT_END) {
			g->dashed = false;
			return c;
		}
		g->ended = true;
	}
	if (optind >= g->argc) /* the operands after "--" */
		return RD_OPT_END;
	if (!g->operands) {
		*status = opt_error(ctx, g, "unexpected argument '%s'", g->argv[optind]);
		return RD_OPT_END;
	}
	optarg = g->argv[optind++];
	g->dashed = true;
	return RD_OPT_OPERAND;
}

int rd_opt_format(struct rd_ctx *ctx, const char *cmd, const char *value, bool *json)
{
	if (strcmp(value, "json") == 0)
		*json = true;
	else if (strcmp(value, "text") == 0)
		*json = false;
	else {
		rd_usage_error(ctx, cmd, "unknown format '%s' (use text or json)", value);
		return -1;
	}
	return 0;
}

int rd_format_only_opts(struct rd_ctx *ctx, int argc, char **argv, bool *json)
{
	static const struct option longopts[] = {RD_LONGOPT_FORMAT, RD_LONGOPT_HELP, {NULL, 0, NULL, 0}};
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:j", .longopts = longopts};
	int st = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &st)) != RD_OPT_END;)
		if (c == 'f' && rd_opt_format(ctx, argv[0], optarg, json) < 0)
			st = RD_EXIT_USAGE;
		else if (c == 'j')
			*json = true;
	return st;
}
