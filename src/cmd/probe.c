/* `rdma-doctor probe`: a verbs RDMA WRITE loopback on each Active port of the running host. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "model/parse.h"
#include "probe/probe.h"
#include "render/out.h"

#define STEP_INDENT "                                "

int rd_probe_opt(struct rd_ctx *ctx, const char *cmd, const char *name, const char *value, struct rd_probe_opts *o)
{
	if (strcmp(name, "--device") == 0) {
		if (!*value) {
			fprintf(ctx->err, "%s: %s: --device needs a device name\n", ctx->prog, cmd);
			return -1;
		}
		o->device = value;
	} else if (strcmp(name, "--port") == 0) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(value, &end, 10);
		if (!*value || *end || errno || v < 1 || v > 255 || *value == '-' || *value == '+') {
			fprintf(ctx->err, "%s: %s: --port needs a port number 1..255, not '%s'\n", ctx->prog, cmd, value);
			return -1;
		}
		o->port = (unsigned)v;
	} else { /* --size or --probe-size */
		uint64_t v;
		char a[32], b[32];
		/* bytes, or K, M, G as systemd writes sizes */
		if (rd_parse_systemd_size(value, &v) < 0 || v < RD_PROBE_MIN_SIZE || v > RD_PROBE_MAX_SIZE) {
			fprintf(ctx->err, "%s: %s: %s needs a size from %s to %s (bytes, or with K, M, G), not '%s'\n",
				ctx->prog, cmd, name, rd_size_words(RD_PROBE_MIN_SIZE, a, sizeof a),
				rd_size_words(RD_PROBE_MAX_SIZE, b, sizeof b), value);
			return -1;
		}
		o->size = v;
	}
	return 0;
}

static void render_steps(struct rd_out *o, const struct rd_probe_step *steps, size_t n)
{
	rd_out_arr_begin(o, "steps");
	for (size_t i = 0; i < n; i++) {
		const struct rd_probe_step *s = &steps[i];
		rd_out_obj_begin(o, NULL);
		rd_out_text(o, "  %-4s  ", s->ok ? "OK" : "FAIL");
		rd_out_str(o, "name", "%-11s", s->name);
		rd_out_uint(o, "usec", "%8llu us  ", (unsigned long long)s->usec);
		rd_out_bool(o, "ok", NULL, s->ok);
		const char *en = s->err > 0 ? strerrorname_np(s->err) : NULL;
		rd_out_str(o, "errno", NULL, en);
		rd_out_str(o, "error", s->error ? "%s\n" : NULL, s->error);
		if (s->detail)
			rd_out_str(o, "detail", s->error ? STEP_INDENT "%s\n" : "%s\n", s->detail);
		else
			rd_out_null(o, "detail");
		if (!s->error && !s->detail)
			rd_out_text(o, "\n");
		rd_out_arr_begin(o, "fix");
		for (size_t k = 0; k < s->fix.n; k++)
			rd_out_item_str(o, k ? STEP_INDENT "     %s\n" : STEP_INDENT "fix: %s\n", s->fix.v[k]);
		rd_out_arr_end(o);
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
}

static void render_port(struct rd_out *o, const struct rd_probe_port *p)
{
	bool eth = p->link_layer && strcmp(p->link_layer, "Ethernet") == 0;
	rd_out_obj_begin(o, NULL);
	rd_out_str(o, "device", "\n%s", p->device);
	if (p->port)
		rd_out_uint(o, "port", " port %llu", p->port);
	else
		rd_out_null(o, "port");
	rd_out_str(o, "link_layer", p->link_layer ? "  %s" : NULL, p->link_layer);
	rd_out_str(o, "state", p->state ? "  %s" : NULL, p->state);
	if (p->active_mtu)
		rd_out_uint(o, "active_mtu", "  active_mtu %llu", p->active_mtu);
	else
		rd_out_null(o, "active_mtu");
	if (p->state)
		rd_out_uint(o, "lid", eth ? NULL : "  lid %llu", p->lid);
	else
		rd_out_null(o, "lid");
	if (p->gid_index >= 0)
		rd_out_int(o, "gid_index", "  gid[%lld]", p->gid_index);
	else
		rd_out_null(o, "gid_index");
	rd_out_str(o, "gid", p->gid ? " %s" : NULL, p->gid);
	rd_out_str(o, "gid_type", p->gid_type ? " (%s)" : NULL, p->gid_type);
	rd_out_text(o, "\n");
	rd_out_bool(o, "probed", NULL, p->active);
	rd_out_bool(o, "pass", NULL, p->pass);
	rd_out_uint(o, "bytes", NULL, p->bytes);
	rd_out_bool(o, "verified", NULL, p->verified);
	render_steps(o, p->steps, p->nsteps);
	rd_out_obj_end(o);
}

void rd_probe_render(FILE *f, bool json, const struct rd_probe_result *r)
{
	struct rd_out o;
	char words[32];
	rd_out_init(&o, f, json);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/probe/v1");
	rd_out_str(&o, "result", NULL, r->pass ? "pass" : "fail");
	rd_out_str(&o, "error", NULL, r->error);
	rd_out_uint(&o, "size", NULL, r->size);
	rd_out_text(&o, "rdma-doctor probe: RDMA WRITE loopback through libibverbs, memory region of %s\n",
		    rd_size_words(r->size, words, sizeof words));
	rd_out_str(&o, "library", NULL, r->library);
	rd_out_text(&o, "\n");
	render_steps(&o, r->steps, r->nsteps);
	rd_out_arr_begin(&o, "ports");
	for (size_t i = 0; i < r->nports; i++)
		render_port(&o, &r->ports[i]);
	rd_out_arr_end(&o);
	rd_out_obj_end(&o);

	/* the verdict, text only (JSON has result and error above) */
	if (!r->pass) {
		rd_out_text(&o, "\nprobe: FAIL %s\n", r->error ? r->error : "unknown failure");
	} else {
		rd_out_text(&o, "\nprobe: PASS");
		uint64_t bytes = 0;
		size_t k = 0;
		for (size_t i = 0; i < r->nports; i++)
			if (r->ports[i].pass) {
				rd_out_text(&o, "%s %s/%u", k++ ? "," : "", r->ports[i].device, r->ports[i].port);
				bytes = r->ports[i].bytes;
			}
		rd_out_text(&o, " (RDMA WRITE of %llu bytes verified%s)", (unsigned long long)bytes, k > 1 ? " on each" : "");
		k = 0;
		for (size_t i = 0; i < r->nports; i++)
			if (!r->ports[i].active)
				rd_out_text(&o, "%s %s/%u (%s)", k++ ? "," : "; not probed:", r->ports[i].device,
					    r->ports[i].port, r->ports[i].state ? r->ports[i].state : "?");
		rd_out_text(&o, "\n");
	}
	rd_out_finish(&o);
}

int rd_cmd_probe(struct rd_ctx *ctx, int argc, char **argv)
{
	enum { OPT_DEVICE = 256, OPT_PORT, OPT_SIZE };
	static const struct option longopts[] = {
		RD_LONGOPT_FORMAT,
		RD_LONGOPT_HELP,
		{"device", required_argument, NULL, OPT_DEVICE},
		{"port", required_argument, NULL, OPT_PORT},
		{"size", required_argument, NULL, OPT_SIZE},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	struct rd_probe_opts opts = {0};
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:j", .longopts = longopts};
	for (int c; (c = rd_getopt(ctx, &g)) != RD_OPT_END;) {
		const char *name = c == OPT_DEVICE ? "--device" : c == OPT_PORT ? "--port" : "--size";
		switch (c) {
		case 'f':
			if (rd_opt_format(ctx, "probe", optarg, &json) < 0)
				return RD_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case OPT_DEVICE:
		case OPT_PORT:
		case OPT_SIZE:
			if (rd_probe_opt(ctx, "probe", name, optarg, &opts) < 0)
				return RD_EXIT_USAGE;
			break;
		case RD_OPT_HELP:
			return 0;
		case RD_OPT_OPERAND:
			return rd_usage_error(ctx, "probe", "unexpected argument '%s'", optarg);
		default:
			return RD_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return rd_usage_error(ctx, "probe", "unexpected argument '%s'", argv[optind]);
	if (rd_ctx_is_root(ctx)) {
		fprintf(ctx->err, "%s: probe talks to the running host's devices; it cannot run on --root\n", ctx->prog);
		return 3;
	}
	struct rd_source *src;
	if (rd_ctx_open_source(ctx, &src) < 0)
		return 3;
	struct rd_probe_result res;
	int r = rd_probe_run(src, &opts, &res);
	if (r == -EINVAL) {
		fprintf(ctx->err, "%s: probe: %s\n", ctx->prog, res.error);
		rd_probe_result_free(&res);
		rd_source_close(src);
		return 3;
	}
	rd_probe_render(ctx->out, json, &res);
	int rc = res.pass ? 0 : 2;
	rd_probe_result_free(&res);
	rd_source_close(src);
	return rc;
}
