/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-doctor: global options, then one command from the table in cmd/table.c. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "render/out.h"
#include "source/watchdog.h"
#include "util/util.h"

/* A closed 0, 1 or 2 would be taken by the first file opened, and output would go into it:
 * hold each with /dev/null, opened so that a write to a closed stdout still fails (O_RDONLY). */
static void hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int n = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
			if (n >= 0 && n != fd) {
				dup2(n, fd);
				close(n);
			}
		}
}

/* Standard output through a stream that remembers the first write error's errno (stdio keeps
 * only a flag, and errno is gone by the time the program ends). */
struct out_sink {
	int fd;
	int err;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct out_sink *s = cookie;
	int r = rd_write_all(s->fd, buf, n);
	if (r < 0) {
		if (!s->err)
			s->err = -r;
		return -1;
	}
	return (ssize_t)n;
}

static FILE *open_out(struct out_sink *sink)
{
	FILE *f = fopencookie(sink, "w", (cookie_io_functions_t){.write = sink_write});
	if (!f)
		return stdout;
	setvbuf(f, NULL, isatty(sink->fd) ? _IOLBF : _IOFBF, BUFSIZ);
	return f;
}

/* The output must have reached its file: a write error (a full disk, a closed stdout) is one line
 * on stderr and exit status 3; a closed pipe (`| head -1`) is quiet. */
static int finish_output(struct rd_ctx *ctx, struct out_sink *sink, int rc)
{
	errno = 0;
	bool failed = fflush(ctx->out) == EOF || ferror(ctx->out) || sink->err;
	int e = sink->err ? sink->err : errno;
	if (ctx->out != stdout)
		fclose(ctx->out);
	if (!failed)
		return rc;
	if (e != EPIPE)
		fprintf(stderr, "%s: cannot write the output: %s\n", ctx->prog, e ? strerror(e) : "write error");
	return RD_EXIT_UNKNOWN;
}

static int usage_error(struct rd_ctx *ctx, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", ctx->prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see '%s --help')\n", ctx->prog);
	return RD_EXIT_USAGE;
}

static int run(struct rd_ctx *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"root", required_argument, NULL, RD_GLOBAL_ROOT}, {"timeout", required_argument, NULL, RD_GLOBAL_TIMEOUT},
		{"policy", required_argument, NULL, 'p'},         {"no-color", no_argument, NULL, 'C'},
		{"version", no_argument, NULL, 'V'},              {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *env = getenv("RDMA_DOCTOR_ROOT");
	bool root_given = false;
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, "+:hV", longopts, NULL)) != -1;) {
		switch (c) {
		case RD_GLOBAL_ROOT:
		case RD_GLOBAL_TIMEOUT:
			if (rd_global_opt(ctx, "", c, optarg) != 0)
				return RD_EXIT_USAGE;
			root_given |= c == RD_GLOBAL_ROOT;
			break;
		case 'p': /* a command's option, typed before it */
			ctx->policy = optarg;
			break;
		case 'C':
			ctx->no_color = true;
			break;
		case 'V':
			return rd_cmd_version(ctx, 0, NULL);
		case 'h':
			return rd_cmd_help(ctx, 0, NULL);
		case ':':
			return usage_error(ctx, "option '%s' needs a value", argv[optind - 1]);
		default: {
			const char *a = argv[optind - 1];
			char name[64];
			if (a[0] == '-' && a[1] == '-')
				snprintf(name, sizeof name, "%.*s", (int)strcspn(a, "="), a);
			else
				snprintf(name, sizeof name, "-%c", optopt);
			return usage_error(ctx, "unknown option '%s'", name);
		}
		}
	}
	opterr = 1; /* ibstat prints getopt's own messages, as rdma-core's does */
	if (!root_given && env) {
		if (!*env) {
			fprintf(stderr, "%s: RDMA_DOCTOR_ROOT is set but empty: unset it to check the running host, or name a "
					"directory or snapshot archive\n",
				ctx->prog);
			return RD_EXIT_USAGE;
		}
		ctx->root = env;
	}
	if (optind >= argc) {
		rd_print_usage(stderr, ctx->prog);
		return RD_EXIT_USAGE;
	}
	for (const struct rd_cmd *c = rd_cmds; c->name; c++)
		if (strcmp(c->name, argv[optind]) == 0) {
			/* --policy and --no-color before the command are the command's, if it has them */
			static const char *const with_policy[] = {"check", "explain", "fix", "snapshot", "slurm", "npd", "watch", NULL};
			static const char *const with_no_color[] = {"check", NULL};
			const char *const *w;
			for (w = with_policy; ctx->policy && *w && strcmp(*w, c->name) != 0; w++)
				;
			if (ctx->policy && !*w)
				return usage_error(ctx, "option '--policy' is not an option of '%s'", c->name);
			for (w = with_no_color; ctx->no_color && *w && strcmp(*w, c->name) != 0; w++)
				;
			if (ctx->no_color && !*w)
				return usage_error(ctx, "option '--no-color' is not an option of '%s'", c->name);
			return c->run(ctx, argc - optind, argv + optind);
		}
	rd_text_printf(stderr, ctx->ascii, "%s: unknown command '%s' (try '%s help')\n", ctx->prog, argv[optind], ctx->prog);
	return RD_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	hold_std_fds();
	/* a closed pipe ends the program quietly, whatever the parent left SIGPIPE as */
	signal(SIGPIPE, SIG_DFL);
	struct out_sink sink = {.fd = 1};
	struct rd_ctx ctx = {.prog = "rdma-doctor", .out = open_out(&sink), .err = stderr, .out_tty = isatty(1),
			     .timeout_s = 10, .ascii = !rd_env_locale_utf8()};
	int rc = run(&ctx, argc, argv);
	return finish_output(&ctx, &sink, rc);
}
