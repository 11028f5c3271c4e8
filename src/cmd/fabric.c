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
#include "fabric/route.h"
#include "model/state.h"
#include "pairs/pairs.h"
#include "pairs/results_in.h"
#include "render/fabric.h"
#include "render/out.h"
#include "run/fabricstate.h"
#include "util/hostlist.h"

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


static void write_ref(FILE *f, void *arg)
{
	rd_render_fabric_ref(f, arg);
}

/* --pairs FILE...: every rdma-doctor/pair/v1 document of the files (pairs' reader), judged.  0, or
 * -1 after naming the file that could not be read or held no document. */
static int read_pairs(struct rd_ctx *ctx, const struct rd_strv *files, struct rd_pairs *p)
{
	char err[400] = "";
	for (size_t i = 0; i < files->n; i++) {
		char *data = NULL;
		size_t len = 0;
		int r = rd_cmd_read_input(files->v[i], &data, &len);
		if (r < 0) {
			rd_text_printf(ctx->err, ctx->ascii, "%s: fabric: --pairs %s: %s\n", ctx->prog, files->v[i],
				       rd_cmd_input_error(r));
			return -1;
		}
		r = rd_pairs_read_results(p, data, len, true, err, sizeof err);
		free(data);
		if (r <= 0) {
			rd_text_printf(ctx->err, ctx->ascii, "%s: fabric: --pairs %s: %s\n", ctx->prog, files->v[i],
				       r < 0 ? err : "no " RD_PAIRS_SCHEMA_PAIR " document");
			return -1;
		}
	}
	if (p->nodes.n < 2) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: fabric: --pairs: no pair in the results\n", ctx->prog);
		return -1;
	}
	rd_pairs_judge(p);
	return 0;
}

/* The route of one pair of CA ports: traced (ibtracert), or through the forwarding tables. */
static void one_route(struct rd_source *src, const struct rd_fab_router *rt, bool trace, const struct rd_fab_node *from,
		      const struct rd_fab_node *to, struct rd_fab_route *r)
{
	if (trace)
		(void)rd_fab_route_live(src, from, to, r);
	else
		(void)rd_fab_route_lft(rt, from, to, r);
}

/* --route A B and --pairs: the routes, and the join of the pairs with them. */
static int route_pairs(struct rd_ctx *ctx, struct rd_source *src, const struct rd_fabric *f, bool json,
		       const char *source, const char *route_a, const char *route_b, const struct rd_pairs *p)
{
	/* live, --route traces with the real ibtracert; --pairs reads every switch's table once
	 * (one dump_fts, not one ibtracert per pair) and traces only when dump_fts cannot be had */
	bool live = rd_source_is_live(src), trace = live && route_a;
	struct rd_fab_lfts lfts = {0};
	if (!trace) {
		struct rd_text t = {0};
		int r = rd_fab_read_fts(src, &t);
		if (r == 0)
			rd_fab_parse_lfts(&lfts, t.data, t.len);
		rd_text_free(&t);
		if (live && !lfts.n) {
			rd_text_printf(ctx->err, ctx->ascii, "%s: fabric: dump_fts: %s: each pair is traced with ibtracert\n",
				       ctx->prog, r < 0 ? rd_strerror(-r) : "no forwarding table in its output");
			trace = true;
		} else if (r < 0 || !lfts.n) {
			rd_text_printf(ctx->err, ctx->ascii,
				       "%s: fabric: %s: no forwarding tables (%s): capture dump_fts's output beside the others\n",
				       ctx->prog, source, r == -RD_ENOTCAPTURED ? "no dump_fts" : r < 0 ? rd_strerror(-r) : "none in dump_fts");
			rd_fab_lfts_free(&lfts);
			return RD_EXIT_UNKNOWN;
		}
	}
	struct rd_fab_router rt;
	rd_fab_router_init(&rt, f, &lfts);
	char tbuf[40];
	rd_utc_iso8601(rd_run_time(), tbuf, sizeof tbuf);
	struct rd_fabric_route_meta m = {.source = source, .time = tbuf, .via = trace ? "ibtracert" : "dump_fts",
					 .ascii = ctx->ascii, .host_a = route_a, .host_b = route_b};
	int rc = RD_EXIT_OK;
	if (route_a) {
		const struct rd_fab_node **pa = NULL, **pb = NULL;
		size_t na = rd_fab_host_ports(f, route_a, &pa), nb = rd_fab_host_ports(f, route_b, &pb);
		if (!na || !nb) {
			rd_text_printf(ctx->err, ctx->ascii, "%s: fabric: --route: no CA port of %s in the fabric (its node "
							     "descriptions name hosts as \"HOST DEVICE\")\n",
				       ctx->prog, !na ? route_a : route_b);
			rc = RD_EXIT_UNKNOWN;
		} else {
			size_t n = na < nb ? na : nb;
			struct rd_fab_route *routes = rd_xcalloc(n, sizeof *routes);
			for (size_t i = 0; i < n; i++) {
				one_route(src, &rt, trace, pa[i], pb[i], &routes[i]);
				if (routes[i].error)
					rc = RD_EXIT_UNKNOWN;
			}
			m.rails_a = na;
			m.rails_b = nb;
			rd_render_fabric_routes(ctx->out, json, &rt, routes, n, &m);
			for (size_t i = 0; i < n; i++)
				rd_fab_route_free(&routes[i]);
			free(routes);
		}
		free(pa);
		free(pb);
	} else {
		struct rd_fab_join j;
		rd_fab_join_from_pairs(&j, p);
		for (size_t i = 0; i < j.n; i++) {
			struct rd_fab_jpair *x = &j.v[i];
			const struct rd_fab_node *from = rd_fab_host_port(f, x->client, x->client_dev),
						 *to = rd_fab_host_port(f, x->server, x->server_dev);
			if (!from || !to) {
				x->route.error = rd_xasprintf("no CA port \"%s %s\" in the fabric", !from ? x->client : x->server,
							      !from ? x->client_dev : x->server_dev);
				continue;
			}
			one_route(src, &rt, trace, from, to, &x->route);
		}
		rd_fab_join_links(&j, &rt);
		struct rd_report rep = {0};
		rd_fab_join_judge(&j, f, &rep);
		rd_render_fabric_join(ctx->out, json, &rt, &j, &rep, &m);
		rc = rd_status_exit_code(rd_report_status(&rep));
		rd_report_free(&rep);
		rd_fab_join_free(&j);
	}
	rd_fab_router_free(&rt);
	rd_fab_lfts_free(&lfts);
	if (fflush(ctx->out) != 0 || ferror(ctx->out))
		rc = RD_EXIT_UNKNOWN;
	return rc;
}

struct report_out {
	const struct rd_fabric *f;
	const struct rd_report *rep;
	const struct rd_fabric_meta *m;
	bool json, prom;
	long long now;
};

static void write_report(FILE *out, void *arg)
{
	const struct report_out *ro = arg;
	if (ro->prom)
		rd_render_fabric_prometheus(out, ro->f, ro->rep, ro->m, ro->now);
	else
		rd_render_fabric(out, ro->json, ro->f, ro->rep, ro->m);
}

int rd_cmd_fabric(struct rd_ctx *ctx, int argc, char **argv)
{
	enum { OPT_SAVE = 256, OPT_AGAINST, OPT_EXPECT, OPT_ROUTE, OPT_PAIRS, OPT_STATE_DIR };
	static const struct option longopts[] = {
		RD_LONGOPT_FORMAT,
		RD_LONGOPT_HELP,
		{"output", required_argument, NULL, 'o'},
		{"save", required_argument, NULL, OPT_SAVE},
		{"against", required_argument, NULL, OPT_AGAINST},
		{"expect", required_argument, NULL, OPT_EXPECT},
		{"route", required_argument, NULL, OPT_ROUTE},
		{"pairs", required_argument, NULL, OPT_PAIRS},
		{"state-dir", required_argument, NULL, OPT_STATE_DIR},
		{NULL, 0, NULL, 0},
	};
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:jo:", .longopts = longopts, .operands = true};
	bool json = false, prom = false;
	const char *dir = NULL, *save = NULL, *against = NULL, *expect = NULL, *route_a = NULL, *route_b = NULL;
	const char *output = NULL;
	const char *state_dir = NULL;
	struct rd_strv pairs_files = {0};
	int st = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &st)) != RD_OPT_END;) {
		switch (c) {
		case 'f':
			prom = strcmp(optarg, "prometheus") == 0;
			if (prom)
				json = false;
			else if (strcmp(optarg, "json") == 0 || strcmp(optarg, "text") == 0)
				json = optarg[0] == 'j';
			else
				st = rd_usage_error(ctx, "fabric", "unknown format '%s' (use text, json or prometheus)", optarg);
			break;
		case 'j':
			json = true, prom = false;
			break;
		case 'o':
			if (!*optarg)
				st = rd_usage_error(ctx, "fabric", "--output needs a file name");
			output = optarg;
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
		case OPT_STATE_DIR:
			if (!*optarg)
				st = rd_usage_error(ctx, "fabric", "--state-dir needs a directory");
			state_dir = optarg;
			break;
		case OPT_ROUTE: /* --route HOST_A HOST_B: the word after HOST_A is HOST_B */
			if (route_a)
				st = rd_usage_error(ctx, "fabric", "--route once");
			else if (optind >= argc || !argv[optind][0] || argv[optind][0] == '-')
				st = rd_usage_error(ctx, "fabric", "--route HOST_A HOST_B: two host names");
			else {
				route_a = optarg;
				route_b = argv[optind++];
			}
			break;
		case OPT_PAIRS:
			rd_strv_push(&pairs_files, optarg);
			break;
		case RD_OPT_OPERAND:
			if (dir)
				st = rd_usage_error(ctx, "fabric", "one directory of captures at most ('%s' and '%s')", dir,
						    optarg);
			dir = optarg;
			break;
		}
	}
	if (st < 0 && route_a && pairs_files.n)
		st = rd_usage_error(ctx, "fabric", "--route or --pairs, not both");
	if (st < 0 && (route_a || pairs_files.n) && (save || against || expect))
		st = rd_usage_error(ctx, "fabric", "%s takes no --save, --against or --expect", route_a ? "--route" : "--pairs");
	if (st < 0 && (route_a || pairs_files.n) && state_dir)
		st = rd_usage_error(ctx, "fabric", "%s takes no --state-dir", route_a ? "--route" : "--pairs");
	if (st < 0 && (route_a || pairs_files.n) && (prom || output))
		st = rd_usage_error(ctx, "fabric", "%s takes no %s", route_a ? "--route" : "--pairs",
				    prom ? "--format prometheus" : "--output");
	if (st < 0 && route_a && (!*route_a || strcmp(route_a, route_b) == 0))
		st = rd_usage_error(ctx, "fabric", "--route: two different hosts");
	if (st < 0 && dir && !*dir)
		st = rd_usage_error(ctx, "fabric", "an empty directory name");
	if (st >= 0) {
		rd_strv_free(&pairs_files);
		return st;
	}
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

	/* --pairs: the results, judged as `pairs --results` judges them */
	struct rd_pairs pr = {0};
	bool join = pairs_files.n > 0;
	if (join) {
		int rr = read_pairs(ctx, &pairs_files, &pr);
		rd_strv_free(&pairs_files);
		if (rr < 0) {
			rd_pairs_free(&pr);
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
		rd_pairs_free(&pr);
		return RD_EXIT_UNKNOWN;
	}
	bool live = rd_source_is_live(src);
	if (live && !rd_fab_can_run_live(src)) {
		rd_text_printf(ctx->err, ctx->ascii,
			       "%s: fabric: no /dev/infiniband/umad*: this host has no InfiniBand port to query the "
			       "fabric through (ib_umad loaded?); give a directory of captured outputs instead\n",
			       ctx->prog);
		rd_source_close(src);
		rd_fab_ref_free(&ref);
		rd_strv_free(&expected);
		rd_pairs_free(&pr);
		return RD_EXIT_UNKNOWN;
	}
	struct rd_fab_input in[RD_FAB_NIN];
	rd_fab_read_inputs(src, true, !route_a && !join, in); /* routes need no counters */

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
	const struct rd_text *qet = &in[RD_FAB_IN_QUERYERRORS].text;
	if (!qet->err)
		rd_fab_parse_ibqueryerrors(&f, qet->data, qet->len);
	if (route_a || join) {
		r = RD_EXIT_UNKNOWN;
		if (lt->err && nt->err)
			rd_text_printf(ctx->err, ctx->ascii, "%s: fabric: neither iblinkinfo nor ibnetdiscover output could be %s\n",
				       ctx->prog, live ? "had" : "read");
		else if (!f.nlinks)
			rd_text_printf(ctx->err, ctx->ascii, "%s: fabric: no link of the fabric was read\n", ctx->prog);
		else
			r = route_pairs(ctx, src, &f, json, dir ? dir : ctx->root ? ctx->root : "live", route_a, route_b, &pr);
		rd_source_close(src);
		rd_fabric_free(&f);
		rd_fab_inputs_free(in);
		rd_pairs_free(&pr);
		rd_strv_free(&expected);
		return r;
	}
	rd_source_close(src);

	struct rd_report rep = {0};
	if (lt->err && nt->err) {
		struct rd_finding *fd = rd_report_add(&rep, "fabric.input", RD_SUBJ_HOST, RD_UNKNOWN, "host",
						      "neither iblinkinfo nor ibnetdiscover output could be %s",
						      live ? "had" : "read");
		for (int i = 0; i < 2; i++) {
			const struct rd_fab_input *x = &in[i == 0 ? RD_FAB_IN_LINKINFO : RD_FAB_IN_NETDISCOVER];
			rd_evidence_add(fd, x->command, "<%s>", x->text.err == RD_ENOTCAPTURED
									? (live ? "not run" : "not captured")
									: rd_strerror(x->text.err));
		}
		if (live)
			rd_fix_add(fd, "apt-get install infiniband-diags (or dnf install infiniband-diags)");
	} else {
		/* sminfo is judged when it was run or captured (a capture directory may lack it) */
		/* --state-dir: the counters kept, and what they were before (a rise is what is judged) */
		struct rd_state_sample base = {0};
		if (state_dir && f.counters_read) {
			char err[1024] = "";
			int kr = rd_fab_counters_keep(&f, state_dir, rd_run_time(), &base, err, sizeof err);
			if (kr != 0)
				rd_text_printf(ctx->err, ctx->ascii, "%s: fabric: --state-dir %s: %s; the counters are judged "
					       "without a baseline\n", ctx->prog, state_dir, err);
		}
		struct rd_fab_judge_opts jo = {.counters_base = base.time ? &base : NULL,
					       .expect = expect ? &expected : NULL,
					       .sminfo = smt->err == RD_ENOTCAPTURED || (smt->err == ENOENT && live) ? NULL : smt,
					       .queryerrors = qet->err == RD_ENOTCAPTURED || (qet->err == ENOENT && live) ? NULL : qet};
		rd_fab_judge(&f, &jo, &rep);
		rd_state_sample_free(&base);
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
	long long now = rd_run_time();
	rd_utc_iso8601(now, tbuf, sizeof tbuf);
	struct rd_fabric_meta m = {
		.source = dir ? dir : ctx->root ? ctx->root : "live",
		.time = tbuf,
		.against = against,
		.ascii = ctx->ascii,
		.inputs = in,
	};
	struct report_out ro = {.f = &f, .rep = &rep, .m = &m, .json = json, .prom = prom, .now = now};
	if (output) {
		if (rd_output_atomic(ctx, "fabric", output, write_report, &ro) < 0)
			rc = RD_EXIT_UNKNOWN;
	} else {
		write_report(ctx->out, &ro);
	}
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
