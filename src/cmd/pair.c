/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor pair serve` and `rdma-doctor pair HOST[:PORT]`: the measurement between two hosts
 * (probe/pair.h), one end each.  The rails are this host's ACTIVE ports (the policy's ignored
 * ones left out), by device name, the GID on RoCE the one NCCL picks (roce.gid's rule, its
 * environment and nccl.conf).  Each measurement runs in a child process under a deadline
 * (source/spawn.h): a provider that crashes or hangs, or a peer that stops answering, is the
 * measurement's result, printed as any other (JSON: rdma-doctor/pair/v1, which `pairs --results`
 * reads).  The server takes one client at a time; with --once it ends after one, with --idle S it
 * ends when no client came for S seconds, so that a job step never leaves it behind. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checks/check.h"
#include "cmd/cmd.h"
#include "model/gid.h"
#include "model/parse.h"
#include "probe/pair.h"
#include "render/out.h"
#include "render/pair.h"
#include "source/spawn.h"

#define PAIR_OUT_MAX (1u << 20)
#define CHILD_DONE 10 /* the child's exit status: this plus the command's */

struct pair_cfg {
	bool server, json, once;
	bool step;               /* --step: the server's result to standard error, stdout is the client's */
	const char *host;        /* the server, as given */
	char port[8];
	int idle_s;              /* 0: none */
	const char *device;
	int round;
	struct rd_pair_opts o;
	char me[64];
};

/* This machine's short host name, in the characters a hello may carry. */
static void my_name(char *buf, size_t len)
{
	char h[256] = "";
	if (gethostname(h, sizeof h - 1) < 0 || !h[0])
		snprintf(h, sizeof h, "host");
	h[strcspn(h, ".")] = '\0';
	size_t n = 0;
	for (const char *p = h; *p && n + 1 < len && n < 63; p++)
		buf[n++] = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-", *p) ? *p : '-';
	buf[n] = '\0';
}

/* The rails: every ACTIVE port of the host's devices (by name), not ignored by the policy. */
static size_t rails_of(const struct rd_loaded *l, const char *only, struct rd_pair_rail_spec *out, size_t max)
{
	struct rd_nccl_sel sel;
	rd_nccl_sel_make(&sel, &l->sys.nccl_env, l->pol.nccl_gid_index, l->pol.nccl_roce_version, l->pol.nccl_family,
			 l->pol.nccl_version);
	size_t n = 0;
	const struct rd_host *h = &l->h;
	/* by device name: the i-th rail of one end meets the i-th of the other */
	size_t order[RD_PAIR_RAILS_MAX];
	size_t nd = 0;
	for (size_t i = 0; i < h->ndevices && nd < RD_PAIR_RAILS_MAX; i++) {
		size_t k = nd++;
		while (k > 0 && strcmp(h->devices[order[k - 1]].name, h->devices[i].name) > 0) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	for (size_t j = 0; j < nd && n < max; j++) {
		const struct rd_device *d = &h->devices[order[j]];
		if ((only && strcmp(only, d->name) != 0) || strlen(d->name) >= sizeof out->device)
			continue;
		for (size_t k = 0; k < d->nports && n < max; k++) {
			const struct rd_port *p = &d->ports[k];
			if (p->state_v != RD_PORT_ACTIVE || rd_policy_ignores(&l->pol, d->name, p->num))
				continue;
			struct rd_pair_rail_spec *s = &out[n++];
			memset(s, 0, sizeof *s);
			snprintf(s->device, sizeof s->device, "%s", d->name);
			s->port = p->num;
			s->gid_index = p->is_ib ? -1 : sel.gid_index >= 0 ? sel.gid_index : rd_nccl_auto_gid(p, &sel);
			s->line_gbps = p->rate_ok ? p->rate_v.gbps : 0;
			s->numa_node = d->numa_node;
		}
	}
	return n;
}

/* ---- the child: one measurement ----------------------------------------------------------- */

struct child_args {
	const struct pair_cfg *cfg;
	int fd; /* the connected socket */
};

static void render(FILE *f, const struct pair_cfg *cfg, const struct rd_pair_result *r)
{
	struct rd_out o;
	rd_out_init(&o, f, cfg->json);
	const char *peer = r->peer ? r->peer : cfg->server ? "?" : cfg->host;
	const struct rd_pair_meta m = {.server = cfg->server ? cfg->me : peer, .client = cfg->server ? peer : cfg->me,
				       .round = cfg->round, .server_side = cfg->server};
	rd_render_pair(&o, r, &m);
}

static void child_run(int out, void *arg)
{
	const struct child_args *a = arg;
	struct rd_pair_result r;
	(void)rd_pair_run(a->fd, a->cfg->server, &a->cfg->o, &r);
	close(a->fd);
	FILE *f = fdopen(out, "w");
	if (!f)
		_exit(4);
	render(f, a->cfg, &r);
	fflush(f);
	/* every rail with a result, some, none: 10 + the command's exit status (a crash's or a
	 * sanitizer's status is never mistaken for one) */
	size_t measured = 0;
	for (size_t i = 0; i < r.nrails; i++)
		measured += !r.rails[i].error;
	int rc = r.nrails && measured == r.nrails && !r.error ? 0 : measured ? 1 : 2;
	rd_pair_result_free(&r);
	_exit(ferror(f) ? 4 : CHILD_DONE + rc);
}

/* Runs the measurement on fd in a child; prints its result, or the result that says how it
 * ended.  Returns the exit status: 0 every rail measured, 1 some rail not, 2 none. */
static int measure(struct rd_ctx *ctx, const struct pair_cfg *cfg, int fd, long long budget_ms)
{
	struct child_args a = {cfg, fd};
	const struct rd_spawn s = {.fn = child_run, .arg = &a, .timeout_ms = (int)budget_ms, .cap = PAIR_OUT_MAX};
	struct rd_buf b = {0};
	int status = 0;
	int r = rd_spawn_run(&s, &b, &status);
	int rc;
	if (r == 0 && WIFEXITED(status) && WEXITSTATUS(status) >= CHILD_DONE && WEXITSTATUS(status) <= CHILD_DONE + 2 &&
	    b.len) {
		fwrite(b.data, 1, b.len, cfg->step && cfg->server ? ctx->err : ctx->out);
		rc = WEXITSTATUS(status) - CHILD_DONE;
	} else {
		struct rd_pair_result e = {0};
		if (r == -ETIMEDOUT)
			e.error = rd_xasprintf("the measurement did not end within %lld s (killed)", budget_ms / 1000);
		else if (r < 0)
			e.error = rd_xasprintf("the measurement could not start: %s", strerror(-r));
		else if (WIFSIGNALED(status))
			e.error = rd_xasprintf("the measurement died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			e.error = rd_xasprintf("the measurement exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		render(cfg->step && cfg->server ? ctx->err : ctx->out, cfg, &e);
		rd_pair_result_free(&e);
		rc = 2;
	}
	fflush(ctx->out);
	fflush(ctx->err);
	rd_buf_free(&b);
	return rc;
}

/* ---- the two ends -------------------------------------------------------------------------- */

static long long budget(const struct rd_ctx *ctx, const struct pair_cfg *cfg)
{
	if (ctx->timeout_given && ctx->timeout_s > 0)
		return (long long)(ctx->timeout_s * 1000);
	if (cfg->server) /* the client's hello says how long its run takes; this bounds it */
		return RD_PAIR_BUDGET_MAX_MS;
	/* per rail: each size's run, the ping-pong and the setup; the whole run bounded */
	long long per = (long long)cfg->o.nsizes * cfg->o.duration_ms + 5000;
	return 10000 + (long long)(cfg->o.nrails ? cfg->o.nrails : 1) * per;
}

/* The connection to the server, or -1 with why. */
static int dial(const struct pair_cfg *cfg, long long deadline, char *why, size_t wlen)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *res = NULL;
	int g = getaddrinfo(cfg->host, cfg->port, &hints, &res);
	if (g) {
		snprintf(why, wlen, "%s: %s", cfg->host, gai_strerror(g));
		return -1;
	}
	int fd = -1, err = 0;
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (errno == EINPROGRESS) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};
			long long left = deadline - rd_mono_ms();
			int pr = poll(&p, 1, left > 0 ? (int)left : 0);
			int soerr = 0;
			socklen_t sl = sizeof soerr;
			if (pr == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0)
				break;
			err = pr == 0 ? ETIMEDOUT : soerr ? soerr : errno;
		} else {
			err = errno;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(why, wlen, "cannot connect to %s port %s: %s", cfg->host, cfg->port, strerror(err ? err : EHOSTUNREACH));
	return fd;
}

static int serve(struct rd_ctx *ctx, struct pair_cfg *cfg)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV, .ai_family = AF_INET6},
			*res = NULL;
	int g = getaddrinfo(NULL, cfg->port, &hints, &res);
	int fd = g ? -1 : socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1, zero = 0;
	if (fd >= 0) {
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero); /* IPv4 too */
	}
	if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 4) < 0) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: pair: serve: port %s: %s\n", ctx->prog, cfg->port,
			       g ? gai_strerror(g) : strerror(errno));
		if (res)
			freeaddrinfo(res);
		if (fd >= 0)
			close(fd);
		return 3;
	}
	freeaddrinfo(res);
	rd_text_printf(ctx->err, ctx->ascii, "%s: pair: serving %zu rail%s on port %s%s\n", ctx->prog, cfg->o.nrails,
		       cfg->o.nrails == 1 ? "" : "s", cfg->port, cfg->once ? " (one client)" : "");
	int rc = 0;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int pr = poll(&p, 1, cfg->idle_s > 0 ? cfg->idle_s * 1000 : -1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0) {
			rd_text_printf(ctx->err, ctx->ascii, "%s: pair: serve: no client for %d s: done\n", ctx->prog, cfg->idle_s);
			break;
		}
		int c = pr < 0 ? -1 : accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			rd_text_printf(ctx->err, ctx->ascii, "%s: pair: serve: accept: %s\n", ctx->prog, strerror(errno));
			rc = 3;
			break;
		}
		long long b = budget(ctx, cfg);
		cfg->o.deadline_ms = rd_mono_ms() + b - 500; /* the child's waits end before it is killed */
		rc = measure(ctx, cfg, c, b);
		close(c);
		if (cfg->once)
			break;
	}
	close(fd);
	return rc;
}

/* --step SPEC: "SERVER+CLIENT,..." of one round; this task's part in it.  The task is the node
 * as (--as NAME, which pdsh and clush fill in with %h), else $SLURMD_NODENAME, else the short
 * host name ("%h" itself, from a launcher that does not fill it in, is the host name too); a
 * node named k times in SPEC runs k tasks, the
 * one of $SLURM_LOCALID (0 first) taking the k-th naming (so that one machine can stand for two
 * nodes in a test).  Returns 1 (a part: *server, *peer set), 0 (none: the node idles this round)
 * or RD_EXIT_USAGE after a message. */
static int step_role(struct rd_ctx *ctx, const char *spec, const char *as, bool *server, char *peer, size_t plen,
		     char *me, size_t mlen)
{
	const char *env = as && strcmp(as, "%h") != 0 ? as : as ? NULL : getenv("SLURMD_NODENAME");
	if (env && *env && strlen(env) < mlen && strlen(env) < 64 &&
	    !env[strspn(env, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")])
		snprintf(me, mlen, "%s", env);
	else
		my_name(me, mlen);
	const char *lid = getenv("SLURM_LOCALID");
	long want = lid && *lid ? strtol(lid, NULL, 10) : 0, seen = 0;
	int found = 0;
	char *copy = rd_xstrdup(spec);
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *plus = strchr(t, '+');
		const char *ok = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
		if (!plus || plus == t || !plus[1] || strchr(plus + 1, '+') || strlen(t) > 300) {
			free(copy);
			return rd_usage_error(ctx, "pair", "--step takes SERVER+CLIENT,..., not '%s'", t);
		}
		*plus = '\0';
		const char *a = t, *b = plus + 1;
		if (a[strspn(a, ok)] || b[strspn(b, ok)]) {
			free(copy);
			return rd_usage_error(ctx, "pair", "--step: '%s+%s' is not two node names", a, b);
		}
		for (int side = 0; side < 2 && !found; side++) {
			if (strcmp(side ? b : a, me) != 0 || seen++ != want)
				continue;
			*server = side == 0;
			snprintf(peer, plen, "%s", side ? a : b);
			found = 1;
		}
	}
	free(copy);
	return found;
}

static int parse_sizes(struct rd_ctx *ctx, const char *v, struct rd_pair_opts *o)
{
	char *copy = rd_xstrdup(v);
	o->nsizes = 0;
	int rc = 0;
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t s;
		if (o->nsizes == RD_PAIR_SIZES_MAX || rd_parse_systemd_size(t, &s) < 0 || s < 8 || s > RD_PAIR_DATA) {
			rc = rd_usage_error(ctx, "pair", "--size takes up to %d sizes from 8 bytes to 4M, not '%s'",
					    RD_PAIR_SIZES_MAX, v);
			break;
		}
		o->sizes[o->nsizes++] = s;
	}
	if (!rc && !o->nsizes)
		rc = rd_usage_error(ctx, "pair", "--size needs a size");
	free(copy);
	return rc;
}

static int num_opt(struct rd_ctx *ctx, const char *name, const char *v, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < lo || n > hi)
		return rd_usage_error(ctx, "pair", "%s needs a number from %ld to %ld, not '%s'", name, lo, hi, v);
	*out = n;
	return 0;
}

int rd_cmd_pair(struct rd_ctx *ctx, int argc, char **argv)
{
	enum { OPT_PORT = 256, OPT_ONCE, OPT_IDLE, OPT_DEVICE, OPT_SIZE, OPT_DURATION, OPT_ITERS, OPT_ROUND, OPT_STEP,
	       OPT_AS };
	static const struct option longopts[] = {
		RD_LONGOPT_FORMAT,
		RD_LONGOPT_HELP,
		{"port", required_argument, NULL, OPT_PORT},
		{"once", no_argument, NULL, OPT_ONCE},
		{"idle", required_argument, NULL, OPT_IDLE},
		{"device", required_argument, NULL, OPT_DEVICE},
		{"size", required_argument, NULL, OPT_SIZE},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"iters", required_argument, NULL, OPT_ITERS},
		{"round", required_argument, NULL, OPT_ROUND},
		{"step", required_argument, NULL, OPT_STEP},
		{"as", required_argument, NULL, OPT_AS},
		{NULL, 0, NULL, 0},
	};
	struct pair_cfg cfg = {.o = {.sizes = {64u << 10, 1u << 20}, .nsizes = 2, .duration_ms = 1000, .lat_iters = 1000}};
	snprintf(cfg.port, sizeof cfg.port, "%d", RD_PAIR_PORT);
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "f:j", .longopts = longopts, .operands = true};
	const char *target = NULL, *step = NULL, *as = NULL;
	long v;
	int st = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &st)) != RD_OPT_END;) {
		switch (c) {
		case 'f':
			if (rd_opt_format(ctx, "pair", optarg, &cfg.json) < 0)
				st = RD_EXIT_USAGE;
			break;
		case 'j':
			cfg.json = true;
			break;
		case OPT_PORT:
			if (num_opt(ctx, "--port", optarg, 1, 65535, &v) == 0)
				snprintf(cfg.port, sizeof cfg.port, "%ld", v);
			else
				st = RD_EXIT_USAGE;
			break;
		case OPT_ONCE:
			cfg.once = true;
			break;
		case OPT_IDLE:
			st = num_opt(ctx, "--idle", optarg, 1, 86400, &v) ? RD_EXIT_USAGE : st;
			cfg.idle_s = (int)v;
			break;
		case OPT_DEVICE:
			cfg.device = optarg;
			break;
		case OPT_SIZE:
			if (parse_sizes(ctx, optarg, &cfg.o))
				st = RD_EXIT_USAGE;
			break;
		case OPT_DURATION:
			st = num_opt(ctx, "--duration", optarg, 10, 60000, &v) ? RD_EXIT_USAGE : st;
			cfg.o.duration_ms = (unsigned)v;
			break;
		case OPT_ITERS:
			st = num_opt(ctx, "--iters", optarg, 1, 1000000, &v) ? RD_EXIT_USAGE : st;
			cfg.o.lat_iters = (unsigned)v;
			break;
		case OPT_ROUND:
			st = num_opt(ctx, "--round", optarg, 1, 100000, &v) ? RD_EXIT_USAGE : st;
			cfg.round = (int)v;
			break;
		case OPT_STEP:
			step = optarg;
			break;
		case OPT_AS:
			/* a node name, or "%h" that a launcher did not fill in */
			if (strcmp(optarg, "%h") != 0 &&
			    (!*optarg || strlen(optarg) > 63 || *optarg == '-' ||
			     optarg[strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")]))
				st = rd_usage_error(ctx, "pair", "--as takes a node name, not '%s'", optarg);
			as = optarg;
			break;
		case RD_OPT_OPERAND:
			if (target)
				st = rd_usage_error(ctx, "pair", "unexpected argument '%s'", optarg);
			target = optarg;
			break;
		}
	}
	if (st >= 0)
		return st;
	char hostbuf[256];
	if (step) { /* a task of a job step that `pairs --run` started: its part of the round */
		if (target || cfg.once || cfg.idle_s)
			return rd_usage_error(ctx, "pair", "--step takes no HOST, serve, --once or --idle");
		int r = step_role(ctx, step, as, &cfg.server, hostbuf, sizeof hostbuf, cfg.me, sizeof cfg.me);
		if (r != 1)
			return r == 0 ? RD_EXIT_OK : r;
		cfg.step = true;
		cfg.json = true;
		cfg.once = cfg.server;
		cfg.idle_s = cfg.server ? 60 : 0; /* the client dials for 30 s at most */
		target = cfg.server ? "serve" : hostbuf;
	}
	if (as && !step)
		return rd_usage_error(ctx, "pair", "--as is for --step");
	if (!target)
		return rd_usage_error(ctx, "pair", "give 'serve' or the server's HOST[:PORT]");
	cfg.server = strcmp(target, "serve") == 0;
	if (!cfg.server && (cfg.once || cfg.idle_s))
		return rd_usage_error(ctx, "pair", "%s is for 'pair serve'", cfg.once ? "--once" : "--idle");
	if (!cfg.server && !cfg.step) {
		/* HOST, HOST:PORT, [V6]:PORT, or a bare IPv6 address */
		const char *colon = strrchr(target, ':');
		if (target[0] == '[' && strchr(target, ']')) {
			const char *close = strchr(target, ']');
			snprintf(hostbuf, sizeof hostbuf, "%.*s", (int)(close - target - 1), target + 1);
			if (close[1] == ':' && num_opt(ctx, "the port", close + 2, 1, 65535, &v) == 0)
				snprintf(cfg.port, sizeof cfg.port, "%ld", v);
			else if (close[1])
				return RD_EXIT_USAGE;
		} else if (colon && strchr(target, ':') == colon) {
			snprintf(hostbuf, sizeof hostbuf, "%.*s", (int)(colon - target), target);
			if (num_opt(ctx, "the port", colon + 1, 1, 65535, &v))
				return RD_EXIT_USAGE;
			snprintf(cfg.port, sizeof cfg.port, "%ld", v);
		} else {
			snprintf(hostbuf, sizeof hostbuf, "%s", target);
		}
		if (!hostbuf[0])
			return rd_usage_error(ctx, "pair", "no host in '%s'", target);
		cfg.host = hostbuf;
	}
	if (cfg.step && !cfg.server)
		cfg.host = hostbuf;
	if (rd_ctx_is_root(ctx)) {
		fprintf(ctx->err, "%s: pair measures the running host's devices; it cannot run on --root\n", ctx->prog);
		return RD_EXIT_USAGE;
	}
	/* the host's ports, GIDs (NCCL's choice) and NUMA nodes, through the guarded load */
	ctx->load_flags = RD_LOAD_ONLY | rd_check_needs("roce.gid") | RD_LOAD_PORTS | RD_LOAD_DEVLINK;
	struct rd_loaded l;
	if (rd_ctx_load(ctx, NULL, false, &l) < 0)
		return RD_EXIT_USAGE;
	struct rd_pair_rail_spec rails[RD_PAIR_RAILS_MAX];
	cfg.o.rails = rails;
	cfg.o.nrails = rails_of(&l, cfg.device, rails, RD_PAIR_RAILS_MAX);
	rd_loaded_free(&l);
	if (!cfg.step) /* a step's name is its Slurm node's (step_role) */
		my_name(cfg.me, sizeof cfg.me);
	cfg.o.host = cfg.me;
	if (!cfg.o.nrails)
		rd_text_printf(ctx->err, ctx->ascii, "%s: pair: no ACTIVE RDMA port%s%s on this host (rdma-doctor check --only ports.state)\n",
			       ctx->prog, cfg.device ? " on " : "", cfg.device ? cfg.device : "");
	if (cfg.server)
		return serve(ctx, &cfg);
	long long b = budget(ctx, &cfg);
	long long start = rd_mono_ms();
	char why[512];
	int fd = dial(&cfg, start + (b < 10000 ? b : 10000), why, sizeof why);
	/* a job step's client may start before its server listens: it dials again for 30 s */
	while (fd < 0 && cfg.step && rd_mono_ms() - start < 30000 && strstr(why, "refused")) {
		struct timespec nap = {0, 200 * 1000000L};
		nanosleep(&nap, NULL);
		fd = dial(&cfg, rd_mono_ms() + 5000, why, sizeof why);
	}
	if (fd < 0) { /* a result too: pairs counts it as a failed sample */
		rd_text_printf(ctx->err, ctx->ascii, "%s: pair: %s\n", ctx->prog, why);
		struct rd_pair_result e = {.error = why};
		render(ctx->out, &cfg, &e);
		fflush(ctx->out);
		return 2;
	}
	/* the run's time counts from the start; a step's from its connection (its dialling waited for
	 * the server task, which the budget does not foresee) */
	long long t0 = cfg.step ? rd_mono_ms() : start, left = b - (rd_mono_ms() - t0);
	if (left < 1000)
		left = 1000;
	cfg.o.deadline_ms = rd_mono_ms() + left - 500;
	int rc = measure(ctx, &cfg, fd, left);
	close(fd);
	return rc;
}
