/* check --format prometheus, --output FILE and npd's line: see emit.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/emit.h"
#include "render/npd.h"
#include "render/prometheus.h"

static const char *opt_value(int argc, char **argv, int *i, const char *longname, const char *shortname,
			     bool *missing)
{
	const char *a = argv[*i];
	size_t n = strlen(longname);
	*missing = false;
	if (strncmp(a, longname, n) == 0 && a[n] == '=')
		return a + n + 1;
	if (strcmp(a, longname) == 0 || (shortname && strcmp(a, shortname) == 0)) {
		if (*i + 1 >= argc) {
			*missing = true;
			return NULL;
		}
		return argv[++*i];
	}
	return NULL;
}

static int npd_refuses(struct rd_ctx *ctx, const char *opt)
{
	fprintf(ctx->err, "%s: npd: %s: npd prints NPD's one line (no --format, --output)\n", ctx->prog, opt);
	return -1;
}

int rd_emit_format(struct rd_ctx *ctx, const char *opt, const char *value, struct rd_emit *e)
{
	if (e->mode == RD_EMIT_NPD)
		return npd_refuses(ctx, opt);
	if (value && strcmp(value, "prometheus") == 0) {
		e->prometheus = true;
		return 1;
	}
	if (!value || strcmp(value, "text") == 0 || strcmp(value, "json") == 0) {
		e->prometheus = false; /* the last --format wins */
		return 0;
	}
	rd_usage_error(ctx, "check", "unknown format '%s' (use text, json or prometheus)", value);
	return -1;
}

int rd_emit_output(struct rd_ctx *ctx, const char *opt, const char *value, struct rd_emit *e)
{
	if (e->mode == RD_EMIT_NPD)
		return npd_refuses(ctx, opt);
	if (!value || !*value) {
		fprintf(ctx->err, "%s: check: %s needs a file name\n", ctx->prog, opt);
		return -1;
	}
	e->output = value;
	return 1;
}

int rd_emit_counters(struct rd_ctx *ctx, struct rd_emit *e)
{
	/* check reads the counters by default now (cmd/linkstate.c, through the policy's
	 * [counters] exclude); --counters is kept for the command lines that name it */
	(void)ctx;
	(void)e;
	return 1;
}

int rd_emit_opt(struct rd_ctx *ctx, int argc, char **argv, int *i, struct rd_emit *e)
{
	const char *a = argv[*i];
	bool missing;
	int at = *i;
	if (strcmp(a, "--counters") == 0)
		return rd_emit_counters(ctx, e);
	if (strcmp(a, "--json") == 0 || strcmp(a, "-j") == 0)
		return rd_emit_format(ctx, a, NULL, e);
	const char *v = opt_value(argc, argv, i, "--format", "-f", &missing);
	if (v || (missing && e->mode == RD_EMIT_NPD)) {
		int r = rd_emit_format(ctx, a, v, e);
		if (r == 0)
			*i = at; /* text and json are rd_opt_format's */
		return r;
	}
	if (missing)
		return 0; /* rd_opt_format says --format needs a value */
	v = opt_value(argc, argv, i, "--output", "-o", &missing);
	if (v || missing)
		return rd_emit_output(ctx, a, v, e);
	return 0;
}

static long long run_time(void)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	return sde && *sde ? strtoll(sde, NULL, 10) : (long long)time(NULL);
}

static void render(FILE *f, const struct rd_emit *e, bool json, const struct rd_report *r, const struct rd_host *h,
		   const struct rd_system *s, const struct rd_policy *p, const struct rd_report_meta *meta)
{
	if (e->prometheus)
		rd_report_prometheus(f, r, h, s, meta, run_time());
	else if (json)
		rd_report_json(f, r, h, s, p, meta);
	else
		rd_report_text(f, r, h, s, p, meta);
}

/* Writes the report to a new file beside e->output, then renames it over e->output.  On any
 * failure the temporary file is removed: the directory holds the old file or the new one and
 * nothing else (node_exporter's textfile collector reads every *.prom there). */
static int write_output(struct rd_ctx *ctx, const struct rd_emit *e, bool json, const struct rd_report *r,
			const struct rd_host *h, const struct rd_system *s, const struct rd_policy *p,
			const struct rd_report_meta *meta)
{
	const char *out = e->output, *slash = strrchr(out, '/');
	const char *base = slash ? slash + 1 : out;
	if (!*base) {
		fprintf(ctx->err, "%s: check: --output %s: not a file name\n", ctx->prog, out);
		return -1;
	}
	int dlen = slash ? (int)(slash - out) + 1 : 0;
	char *tmp = NULL;
	int fd = -1;
	/* ".NAME.tmp-PID-N" does not end in .prom: the collector never reads a half-written file */
	for (unsigned n = 0; n < 100 && fd < 0; n++) {
		free(tmp);
		tmp = rd_xasprintf("%.*s.%s.tmp-%ld-%u", dlen, out, base, (long)getpid(), n);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		fprintf(ctx->err, "%s: check: --output %s: cannot create a file in its directory: %s\n", ctx->prog, out,
			strerror(errno));
		free(tmp);
		return -1;
	}
	struct stat st;
	if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
		(void)fchmod(fd, st.st_mode & 07777); /* keep the mode of the file it replaces */
	FILE *f = fdopen(fd, "w");
	int err = 0;
	if (!f) {
		err = errno;
		close(fd);
	} else {
		struct rd_report_meta m = *meta;
		m.color = false; /* a file is not a terminal */
		render(f, e, json, r, h, s, p, &m);
		if (fflush(f) != 0 || ferror(f))
			err = errno ? errno : EIO;
		else if (fsync(fileno(f)) != 0)
			err = errno;
		if (fclose(f) != 0 && !err)
			err = errno ? errno : EIO;
	}
	if (!err && rename(tmp, out) != 0)
		err = errno;
	if (err) {
		unlink(tmp);
		fprintf(ctx->err, "%s: check: --output %s: %s\n", ctx->prog, out, strerror(err));
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int rd_emit(struct rd_ctx *ctx, struct rd_emit *e, bool json, const struct rd_report *r, const struct rd_host *h,
	    const struct rd_system *s, const struct rd_policy *p, const struct rd_report_meta *meta, int rc)
{
	if (e->mode == RD_EMIT_NPD) {
		char line[RD_NPD_LINE_MAX + 1];
		rc = rd_report_npd(r, meta, line, sizeof line);
		fprintf(ctx->out, "%s\n", line);
		fflush(ctx->out);
		e->printed = true;
		return rc;
	}
	if (e->output)
		return write_output(ctx, e, json, r, h, s, p, meta) < 0 ? 3 : rc;
	render(ctx->out, e, json, r, h, s, p, meta);
	fflush(ctx->out);
	return rc;
}
