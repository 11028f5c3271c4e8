/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor ibstatus`: byte-identical to rdma-core's ibstatus script (infiniband-diags 44.0,
 * run by dash) on the same sysfs.  The script prints each value through an unquoted command
 * substitution and echo, so values lose trailing newlines, have their blanks collapsed and
 * their backslash escapes interpreted; that is reproduced here.  (The one thing not reproduced:
 * a value containing * ? [ is not expanded as a file name pattern.)  What the script reads is
 * model/umad.c's (rd_umad_status_*); this file is the script's echo and its messages. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "model/umad.h"

#define BASE "sys/class/infiniband" /* in its messages */

/* dash's echo: backslash escapes in its arguments; returns false after \c (stop output). */
static bool echo_escapes(struct rd_buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s != '\\') {
			rd_buf_putc(out, *s);
			continue;
		}
		char c = s[1];
		const char *map = "a\ab\bf\fn\nr\rt\tv\v\\\\";
		const char *m = c ? strchr(map, c) : NULL;
		if (c == 'c')
			return false;
		if (c == '0') {
			unsigned v = 0;
			int n = 0;
			while (n < 3 && s[2 + n] >= '0' && s[2 + n] <= '7')
				v = v * 8 + (unsigned)(s[2 + n++] - '0');
			rd_buf_putc(out, (char)v);
			s += 1 + n;
		} else if (m && (m - map) % 2 == 0) {
			rd_buf_putc(out, m[1]);
			s++;
		} else {
			rd_buf_putc(out, '\\');
		}
	}
	return true;
}

struct ibstatus {
	struct rd_ctx *ctx;
	struct rd_umad umad; /* its source and its view of sys/class/infiniband */
	struct rd_buf out;
	bool stopped; /* a \c ended all output */
};

/* echo "label" `value`: words of the value split on blanks, joined with single spaces. */
static void echo_line(struct ibstatus *s, const char *label, const char *value)
{
	if (s->stopped)
		return;
	struct rd_buf line = {0};
	rd_buf_puts(&line, label);
	if (value) {
		const char *p = value;
		for (;;) {
			while (*p == ' ' || *p == '\t' || *p == '\n')
				p++;
			if (!*p)
				break;
			size_t n = strcspn(p, " \t\n");
			rd_buf_putc(&line, ' ');
			rd_buf_add(&line, p, n);
			p += n;
		}
	}
	if (echo_escapes(&s->out, line.data))
		rd_buf_putc(&s->out, '\n');
	else
		s->stopped = true;
	rd_buf_free(&line);
}

/* `[ -r f ] && cat f || echo fallback` */
static void show(struct ibstatus *s, const char *label, const char *dev, const char *port, int file,
		 const char *fallback)
{
	struct rd_text t;
	const char *name = rd_umad_status_files[file];
	int r = rd_umad_status_read(&s->umad, dev, port, name, &t);
	if (r < 0)
		fprintf(s->ctx->err, "cat: /" BASE "/%s/ports/%s/%s: %s\n", dev, port, name, strerror(-r));
	echo_line(s, label, r > 0 ? t.data : fallback);
	rd_text_free(&t);
}

static void port_status(struct ibstatus *s, const char *dev, const char *port)
{
	static const char *const label[RD_UMAD_STATUS_NFILES] = {
		"\tdefault gid:\t", "\tbase lid:\t", "\tsm lid:\t\t", "\tstate:\t\t",
		"\tphys state:\t", "\trate:\t\t", "\tlink_layer:\t",
	};
	char *head = rd_xasprintf("Infiniband device '%s' port %s status:", dev, port);
	echo_line(s, head, NULL);
	for (int i = 0; i < RD_UMAD_STATUS_NFILES; i++)
		show(s, label[i], dev, port, i, i == RD_UMAD_STATUS_NFILES - 1 ? "IB" : "unknown");
	echo_line(s, "", NULL);
	free(head);
}

static int fatal(struct ibstatus *s, const char *msg)
{
	echo_line(s, "Fatal error: ", msg);
	return 255;
}

/* ib_status DEV PORT ("+" = every port); all_mode: called without arguments (cwd = BASE). */
static int ib_status(struct ibstatus *s, const char *dev, const char *port, bool all_mode)
{
	int rc = 0;
	if (!rd_umad_status_dir(&s->umad, dev)) {
		char *m = rd_xasprintf("device '%s': sys files not found (/" BASE "/%s/ports)", dev, dev);
		rc = fatal(s, m);
		free(m);
	} else if (strcmp(port, "+") == 0) {
		struct rd_strv ports = {0};
		rd_umad_status_glob(&s->umad, dev, &ports);
		/* an empty ports/ leaves "*", expanded again where the script runs */
		if (ports.n == 1 && strcmp(ports.v[0], "*") == 0 && all_mode) {
			rd_strv_free(&ports);
			rd_umad_status_glob(&s->umad, NULL, &ports);
		}
		for (size_t i = 0; i < ports.n; i++)
			port_status(s, dev, ports.v[i]);
		rd_strv_free(&ports);
	} else {
		/* `for i in $ports`: split on blanks */
		char *copy = rd_xstrdup(port);
		for (char *tok = strtok(copy, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
			port_status(s, dev, tok);
		free(copy);
	}
	return rc;
}

int rd_cmd_ibstatus(struct rd_ctx *ctx, int argc, char **argv)
{
	struct ibstatus s = {.ctx = ctx};
	int rc = 0;
	if (argc > 1 && strcmp(argv[1], "-h") == 0) {
		fputs("Usage:  ibstatus  [-h] [devname[:portnum]]\n"
		      "\t-h:\tthis help screen\n"
		      "\tExamples:\n"
		      "\t\tibstatus mthca1\t\t# shows status of all ports of 'mthca1'\n"
		      "\t\tibstatus mthca0:2\t# shows status port number 2 of 'mthca0'\n"
		      "\t\tibstatus\t\t# default: shows status of all 'mthca0' ports\n",
		      ctx->out);
		return 255;
	}
	ctx->compat = true; /* like rdma-core: no read deadline */
	if (rd_ctx_open_source(ctx, &s.umad.src) < 0)
		return 255;
	if (argc < 2 || argv[1][0] == '\0') {
		if (!rd_umad_status_dir(&s.umad, NULL)) {
			rc = fatal(&s, "No devices");
		} else {
			struct rd_strv devs = {0};
			rd_umad_status_glob(&s.umad, NULL, &devs);
			for (size_t i = 0; i < devs.n && rc == 0; i++)
				rc = ib_status(&s, devs.v[i], "+", true);
			rd_strv_free(&devs);
		}
	} else {
		for (int i = 1; i < argc && argv[i][0] && rc == 0; i++) {
			const char *a = argv[i];
			const char *first = strchr(a, ':'), *last = strrchr(a, ':');
			char *dev = first ? rd_xstrndup(a, (size_t)(first - a)) : rd_xstrdup(a);
			const char *port = last ? last + 1 : a;
			if (strcmp(port, dev) == 0)
				port = "+";
			rc = ib_status(&s, dev, port, false);
			free(dev);
		}
	}
	fwrite(s.out.data ? s.out.data : "", 1, s.out.len, ctx->out);
	fflush(ctx->out);
	rd_buf_free(&s.out);
	rd_buf_free(&s.umad.warnings);
	rd_source_close(s.umad.src);
	return rc;
}
