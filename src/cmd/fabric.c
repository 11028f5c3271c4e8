/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor fabric [DIR]`: the InfiniBand subnet from infiniband-diags (iblinkinfo,
 * ibnetdiscover, sminfo), run live through this host's umad port or read from captures, judged
 * link by link; --save writes the cabling as a reference, --against compares with one. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "fabric/fabric.h"
#include "fleet/hostlist.h"
#include "render/fabric.h"
#include "render/out.h"

#define REF_CAP (64u << 20)

/* The operator's own reference file (as --policy is read): a regular file of at most REF_CAP. */
static int read_ref_file(const char *path, struct rd_buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	struct stat st;
	int r = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -RD_ENOTREG;
	if (r == 0 && (size_t)st.st_size > REF_CAP)
		r = -EFBIG;
	char chunk[65536];
	while (r == 0) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		else if (n == 0)
			break;
		else if (b->len + (size_t)n > REF_CAP)
			r = -EFBIG;
		else
			rd_buf_add(b, chunk, (size_t)n);
	}
	close(fd);
	return r;
}

/* This host reaches the fabric through an umad port; under ibsim-run (umad2sim preloaded) the
 * simulated fabric's ports stand in for it. */
static bool can_run_live(struct rd_source *src)
{
	const char *pre = getenv("LD_PRELOAD");
	if (pre && strstr(pre, "libumad2sim"))
		return true;
	return rd_fab_umad_present(src);
}

static void write_ref(FILE *f, void *arg)
{
	rd_render_fabric_ref(f, arg);
}

int rd_cmd_fabric(struct rd_ctx *ctx, int argc, char **argv)
{
	enum { OPT_SAVE = 256, OPT_AGAINST, OPT_EXPECT, OPT_NO_SMINFO };
	static const struct option longopts[] = {
		RD_LONGOPT_FORMAT,
		RD_LONGOPT_HELP,
		{"save", required_argument, NULL, OPT_SAVE},
		{"against", required_argument, NULL, OPT_AGAINST},
		{"expect", required_argument, NULL, OPT_EXPECT},
		{NULL, 0, NULL, 0},
	};
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:j", .longopts = longopts, .operands = true};
	bool json = false;
	const char *dir = NULL, *save = NULL, *against = NULL, *expect = NULL;
	int st = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &st)) != RD_OPT_END;) {
		switch (c) {
		case 'f':
			if (rd_opt_format(ctx, "fabric", optarg, &json) < 0)
				st = RD_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case OPT_SAVE:
			save = optarg;
			break;
		case OPT_AGAINST:
			against = optarg;
			break;
		case OPT_EXPECT:
			expect = optarg;
			break;
		case RD_OPT_OPERAND:
			if (dir)
				st = rd_usage_error(ctx, "fabric", "one directory of captures at most ('%s' and '%s')", dir,
						    optarg);
			dir = optarg;
			break;
		}
	}
	if (st >= 0)
		return st;
	if (dir && !*dir)
		return rd_usage_error(ctx, "fabric", "an empty directory name");
	struct rd_strv expected = {0};
	if (expect) {
		char err[256];
		if (rd_hostlist_expand(expect, &expected, err, sizeof err) < 0)
			return rd_usage_error(ctx, "fabric", "--expect: %s", err);
	}
	struct rd_fab_ref ref = {0};
	if (against) {
		struct rd_buf b = {0};
		int r = read_ref_file(against, &b);
		char err[256] = "";
		if (r == 0)
			r = rd_fab_ref_parse(b.data ? b.data : "", b.len, &ref, err, sizeof err);
		else
			snprintf(err, sizeof err, "%s", rd_strerror(-r));
		rd_buf_free(&b);
		if (r < 0) {
			rd_text_printf(ctx->err, ctx->ascii, "%s: fabric: --against %s: %s\n", ctx->prog, against, err);
			rd_strv_free(&expected);
			return RD_EXIT_UNKNOWN;
		}
	}

	const char *saved_root = ctx->root;
	if (dir)
		ctx->root = dir;
	struct rd_source *src = NULL;
	int r = rd_ctx_open_source(ctx, &src);
	ctx->root = saved_root;
	if (r < 0) {
		rd_fab_ref_free(&ref);
		rd_strv_free(&expected);
		return RD_EXIT_UNKNOWN;
	}
	bool live = rd_source_is_live(src);
	if (live && !can_run_live(src)) {
		rd_text_printf(ctx->err, ctx->ascii,
			       "%s: fabric: no /dev/infiniband/umad*: this host has no InfiniBand port to query the "
			       "fabric through (ib_umad loaded?); give a directory of captured outputs instead\n",
			       ctx->prog);
		rd_source_close(src);
		rd_fab_ref_free(&ref);
		rd_strv_free(&expected);
		return RD_EXIT_UNKNOWN;
	}
	struct rd_fab_input in[RD_FAB_NIN];
	rd_fab_read_inputs(src, true, in);
	rd_source_close(src);

	struct rd_fabric f = {0}, net = {0};
	const struct rd_text *lt = &in[RD_FAB_IN_LINKINFO].text, *nt = &in[RD_FAB_IN_NETDISCOVER].text,
			     *smt = &in[RD_FAB_IN_SMINFO].text;
	if (!lt->err)
		rd_fab_parse_iblinkinfo(&f, lt->data, lt->len);
	if (!nt->err)
		rd_fab_parse_ibnetdiscover(&net, nt->data, nt->len);
	if (!smt->err)
		rd_fab_parse_sminfo(&f, smt->data, smt->len);
	rd_fabric_merge(&f, &net);

	struct rd_report rep = {0};
	if (lt->err && nt->err) {
		struct rd_finding *fd = rd_report_add(&rep, "fabric.input", RD_SUBJ_HOST, RD_UNKNOWN, "host",
						      "neither iblinkinfo nor ibnetdiscover output could be %s",
						      live ? "had" : "read");
		for (int i = 0; i < 2; i++) {
			const struct rd_fab_input *x = &in[i == 0 ? RD_FAB_IN_LINKINFO : RD_FAB_IN_NETDISCOVER];
			rd_evidence_add(fd, x->command, "<error: %s>", x->text.err == RD_ENOTCAPTURED
									? (live ? "not run" : "not captured")
									: rd_strerror(x->text.err));
		}
		if (live)
			rd_fix_add(fd, "apt-get install infiniband-diags (or dnf install infiniband-diags)");
	} else {
		/* sminfo is judged when it was run or captured (a capture directory may lack it) */
		struct rd_fab_judge_opts jo = {.expect = expect ? &expected : NULL,
					       .sminfo = smt->err == RD_ENOTCAPTURED || (smt->err == ENOENT && live) ? NULL : smt};
		rd_fab_judge(&f, &jo, &rep);
	}
	struct rd_fab_ref cur = {0};
	rd_fab_ref_from(&f, &cur);
	if (against && f.nlinks)
		rd_fab_ref_compare(&ref, &cur, &rep);

	int rc = 0;
	if (save) {
		if (!f.nlinks) {
			rd_text_printf(ctx->err, ctx->ascii, "%s: fabric: --save %s: no link was read, nothing saved\n",
				       ctx->prog, save);
			rc = RD_EXIT_UNKNOWN;
		} else if (rd_output_atomic(ctx, "fabric", save, write_ref, &cur) < 0) {
			rc = RD_EXIT_UNKNOWN;
		}
	}
	char tbuf[40];
	rd_utc_iso8601(rd_run_time(), tbuf, sizeof tbuf);
	struct rd_fabric_meta m = {
		.source = dir ? dir : ctx->root ? ctx->root : "live",
		.time = tbuf,
		.against = against,
		.ascii = ctx->ascii,
		.inputs = in,
	};
	rd_render_fabric(ctx->out, json, &f, &rep, &m);
	if (!rc)
		rc = rd_status_exit_code(rd_report_status(&rep));
	rd_report_free(&rep);
	rd_fab_ref_free(&cur);
	rd_fab_ref_free(&ref);
	rd_fabric_free(&f);
	rd_fab_inputs_free(in);
	rd_strv_free(&expected);
	return rc;
}
