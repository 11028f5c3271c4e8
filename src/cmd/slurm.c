/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor slurm`: run the checks and drain or resume this Slurm node with scontrol, as a
 * HealthCheckProgram must (slurmd ignores its exit status; NHC's node-mark-offline/-online rules).
 *
 *   unhealthy (a FAIL; a WARN too with --drain-on warn):
 *       scontrol update NodeName=N State=DRAIN Reason="rdma-doctor: <check> <subject>: <message>"
 *       unless the node is already out of service for a reason that is not ours (kept), or is
 *       drained with this very reason (nothing to do);
 *   healthy: scontrol update NodeName=N State=RESUME, only when the node is drained with a reason
 *       starting "rdma-doctor:";
 *   UNKNOWN (nothing at the drain level, something not checked): no change either way.
 *
 * `scontrol show node -o N` is always run (it only reads); --dry-run prints the update instead of
 * running it.  --root changes only where the host is read from: scontrol still talks to the
 * cluster, and N is Slurm's name for the machine this runs on. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checks/check.h"
#include "cmd/cmd.h"
#include "cmd/slurm.h"
#include "render/out.h"
#include "source/spawn.h"

enum { SCONTROL_TIMEOUT_MS = 20000, SCONTROL_MAX_OUTPUT = 1 << 20 };

/* ---- the pure parts (cmd/slurm.h) ------------------------------------------------------------ */

char *rd_slurm_reason_clean(const char *text, size_t max)
{
	struct rd_buf b = {0};
	bool space = false;
	rd_buf_puts(&b, "");
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		unsigned char c = *p;
		if (c == ' ' || (c >= '\t' && c <= '\r')) {
			space = b.len > 0;
			continue;
		}
		if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xc0))
			continue; /* control characters; UTF-8 continuation bytes without their lead byte */
		if (space)
			rd_buf_putc(&b, ' ');
		space = false;
		size_t k = 1;
		/* a UTF-8 character: the ASCII an NPD line shows for it too ('-' for a dash, else '?') */
		rd_buf_putc(&b, c >= 0xc0 ? rd_utf8_ascii(p, strlen((const char *)p), &k) : c == '"' ? '\'' : (char)c);
		p += k - 1;
	}
	if (max >= 4 && b.len > max) {
		b.len = max - 3;
		while (b.len > 0 && b.data[b.len - 1] == ' ')
			b.len--;
		b.data[b.len] = '\0';
		rd_buf_puts(&b, "...");
	}
	return rd_buf_steal(&b);
}

bool rd_slurm_reason_ours(const char *reason)
{
	return reason && rd_str_has_prefix(reason, RD_SLURM_REASON_PREFIX) && !rd_slurm_reason_pairs(reason);
}

bool rd_slurm_reason_pairs(const char *reason)
{
	return reason && rd_str_has_prefix(reason, RD_SLURM_PAIRS_PREFIX);
}

/* The value of " KEY=" in line (the first occurrence), up to the next space, or NULL. */
static const char *field(const char *line, const char *key, size_t *len)
{
	size_t k = strlen(key);
	for (const char *p = line; (p = strstr(p, key)) != NULL; p += k) {
		if (p != line && p[-1] != ' ')
			continue;
		p += k;
		*len = strcspn(p, " \n");
		return p;
	}
	return NULL;
}

/* Slurm appends " [user@YYYY-MM-DDTHH:MM:SS]" to a reason (scontrol runs with
 * SLURM_TIME_FORMAT=standard, so the time has exactly this form): true when s starts with that
 * and is followed by the end of the line or a space (a field after the reason). */
static bool reason_stamp(const char *s)
{
	if (s[0] != ' ' || s[1] != '[')
		return false;
	s += 2;
	size_t u = strcspn(s, "@[] \t\n");
	if (u == 0 || s[u] != '@')
		return false;
	s += u + 1;
	static const char form[] = "dddd-dd-ddTdd:dd:dd";
	for (size_t i = 0; form[i]; i++)
		if (form[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != form[i])
			return false;
	s += sizeof form - 1;
	return s[0] == ']' && (s[1] == '\0' || s[1] == ' ' || s[1] == '\n');
}

int rd_slurm_parse_node(const char *out, struct rd_slurm_node *n)
{
	memset(n, 0, sizeof *n);
	const char *line = out;
	while (line && !rd_str_has_prefix(line, "NodeName=")) {
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	if (!line)
		return -1;
	char *copy = rd_xstrndup(line, strcspn(line, "\n"));
	size_t len;
	const char *v = field(copy, "State=", &len);
	if (!v || len == 0) {
		free(copy);
		return -1;
	}
	n->state = rd_xstrndup(v, len);
	v = field(copy, "NodeName=", &len);
	n->name = rd_xstrndup(v, len);
	const char *r = strstr(copy, " Reason=");
	if (r) {
		r += 8;
		/* the stamp is Slurm's own suffix: the last one, so that a reason holding
		 * " [u@...]" itself (a subject, an admin's text) keeps it */
		size_t end = strlen(r);
		for (size_t i = 0; r[i]; i++)
			if (reason_stamp(r + i))
				end = i;
		while (end > 0 && r[end - 1] == ' ')
			end--;
		if (end > 0 && !(end == 6 && strncmp(r, "(null)", 6) == 0))
			n->reason = rd_xstrndup(r, end);
	}
	free(copy);
	/* State is a base state and flags joined by '+'; sinfo-style suffixes (*, ~, #, ...) are dropped */
	char *st = rd_xstrdup(n->state);
	for (char *save = NULL, *tok = strtok_r(st, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		tok[strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")] = '\0';
		if (!strcasecmp(tok, "DRAIN") || !strcasecmp(tok, "DRAINED") || !strcasecmp(tok, "DRAINING"))
			n->drained = true;
		else if (!strcasecmp(tok, "DOWN") || !strcasecmp(tok, "FAIL") || !strcasecmp(tok, "FAILING"))
			n->out_of_service = true;
	}
	free(st);
	n->out_of_service |= n->drained;
	return 0;
}

void rd_slurm_node_free(struct rd_slurm_node *n)
{
	free(n->name);
	free(n->state);
	free(n->reason);
	memset(n, 0, sizeof *n);
}

enum rd_slurm_action rd_slurm_decide(enum rd_slurm_verdict v, const struct rd_slurm_node *n, const char *reason)
{
	bool ours = rd_slurm_reason_ours(n->reason);
	switch (v) {
	case RD_SLURM_UNHEALTHY:
		if (n->reason && !ours && n->out_of_service)
			return RD_SLURM_KEEP_FOREIGN; /* an admin's (or Slurm's) reason stays */
		if (n->drained && ours && reason && strcmp(n->reason, reason) == 0)
			return RD_SLURM_NOTHING;
		return RD_SLURM_DRAIN;
	case RD_SLURM_HEALTHY:
		return n->drained && ours ? RD_SLURM_RESUME : RD_SLURM_NOTHING;
	case RD_SLURM_UNKNOWN:
		break;
	}
	return RD_SLURM_KEEP_UNKNOWN;
}

/* ---- running scontrol ------------------------------------------------------------------------ */

/* Runs argv (argv[0] looked up in PATH) with stdout and stderr captured together into *text
 * (source/spawn.h).  Returns its exit status, 256 + the signal when a signal killed it, or -errno:
 * ENOENT when it is not in PATH, ETIMEDOUT when it was killed after timeout_ms. */
static int run(char *const argv[], int timeout_ms, char **text)
{
	/* the time in Slurm's standard form (a reason's " [user@time]") */
	static const char *const env[] = {"SLURM_TIME_FORMAT=standard", NULL};
	const struct rd_spawn s = {.argv = (const char *const *)argv, .env = env, .merge_stderr = true,
				   .timeout_ms = timeout_ms, .cap = SCONTROL_MAX_OUTPUT, .cap_keeps_reading = true};
	struct rd_buf b = {0};
	int st = 0;
	int r = rd_spawn_run(&s, &b, &st);
	*text = b.data ? rd_buf_steal(&b) : NULL;
	if (r < 0)
		return r;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 256 + WTERMSIG(st);
}

/* The command line as typed in a POSIX shell: argv joined by spaces; an argument "Key=value"
 * whose value needs quoting is printed Key="value" with \, $, ` and " escaped. */
static char *shell_line(char *const argv[])
{
	struct rd_buf b = {0};
	for (size_t i = 0; argv[i]; i++) {
		const char *a = argv[i];
		if (i)
			rd_buf_putc(&b, ' ');
		if (a[strcspn(a, " \t\n\"'\\$`!*?[]#~;&|<>(){}")] == '\0') {
			rd_buf_puts(&b, a);
			continue;
		}
		size_t key = strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
		size_t k = key > 0 && a[key] == '=' ? key + 1 : 0;
		rd_buf_add(&b, a, k);
		rd_buf_putc(&b, '"');
		for (const char *p = a + k; *p; p++) {
			if (strchr("\\$`\"", *p))
				rd_buf_putc(&b, '\\');
			rd_buf_putc(&b, *p);
		}
		rd_buf_putc(&b, '"');
	}
	return rd_buf_steal(&b);
}

/* The first non-empty line of text, for a one-line error. */
static char *first_line(const char *text)
{
	text += strspn(text, " \t\n");
	char *l = rd_xstrndup(text, strcspn(text, "\n"));
	char *clean = rd_slurm_reason_clean(l, 200);
	free(l);
	return clean;
}

/* Runs scontrol; prints one line and returns false when it is missing, fails or hangs past
 * timeout_ms (0: SCONTROL_TIMEOUT_MS). */
static bool scontrol(struct rd_ctx *ctx, char *const argv[], int timeout_ms, char **text)
{
	if (timeout_ms <= 0)
		timeout_ms = SCONTROL_TIMEOUT_MS;
	int r = run(argv, timeout_ms, text);
	if (r == 0)
		return true;
	char *line = shell_line(argv);
	if (r == -ENOENT)
		rd_text_printf(ctx->err, ctx->ascii, "%s: slurm: scontrol not found in PATH (install slurm-client, or set PATH)\n", ctx->prog);
	else if (r == -ETIMEDOUT)
		rd_text_printf(ctx->err, ctx->ascii, "%s: slurm: `%s` did not finish within %d s (killed)\n", ctx->prog, line,
			timeout_ms / 1000);
	else if (r < 0)
		rd_text_printf(ctx->err, ctx->ascii, "%s: slurm: cannot run scontrol: %s\n", ctx->prog, strerror(-r));
	else {
		char *why = first_line(*text);
		if (r >= 256)
			rd_text_printf(ctx->err, ctx->ascii, "%s: slurm: `%s` was killed by signal %d%s%s\n", ctx->prog, line, r - 256,
				*why ? ": " : "", why);
		else
			rd_text_printf(ctx->err, ctx->ascii, "%s: slurm: `%s` failed (exit %d)%s%s\n", ctx->prog, line, r, *why ? ": " : "",
				why);
		free(why);
	}
	free(line);
	free(*text);
	*text = NULL;
	return false;
}

/* ---- the command ----------------------------------------------------------------------------- */

#define SLURM_USAGE                                                                                   \
	"slurm [--drain-on fail|warn] [-n|--dry-run] [--node NAME] [--policy FILE] [--only ID,...] "  \
	"[--skip ID,...] [--state-dir DIR] [--no-counters]"

static void help(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [--root DIR] " SLURM_USAGE "\n\n"
		"Runs the checks, then drains or resumes this Slurm node with scontrol (for HealthCheckProgram).\n\n"
		"  --drain-on fail|warn  drain on a FAIL (default), or on a WARN too\n"
		"  -n, --dry-run         print the scontrol update command instead of running it\n"
		"  --node NAME           Slurm's node name (default: $SLURMD_NODENAME, else the short host name)\n"
		"  --policy, --only, --skip, --state-dir, --no-counters  as for check\n"
		"  -h, --help            this help\n\n"
		"A node is drained with Reason=\"" RD_SLURM_REASON_PREFIX " <check> <subject>: <message>\" and resumed only\n"
		"when that reason is ours; a node out of service for anyone else's reason is left alone.\n"
		"UNKNOWN (nothing at the drain level, something not checked) neither drains nor resumes.\n"
		"Exit status: 0 done (or nothing to do), 1 scontrol missing or failed, 3 usage error or unreadable host.\n",
		prog);
}

static bool valid_node(const char *s)
{
	return *s && strlen(s) < 256 &&
	       s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")] == '\0';
}

int rd_slurm_node_name(struct rd_ctx *ctx, const char *cmd, const char *opt, char *buf, size_t len)
{
	/* Slurm's name for this machine: --node, $SLURMD_NODENAME (set by slurmd), the short host name
	 * of the running machine (never the root's: scontrol acts on the cluster this runs in) */
	char host[256] = "";
	const char *env = getenv("SLURMD_NODENAME");
	const char *node = opt;
	if (!node && env && *env)
		node = env;
	if (!node) {
		if (gethostname(host, sizeof host - 1) < 0)
			host[0] = '\0';
		host[strcspn(host, ".")] = '\0';
		node = host;
	}
	if (!valid_node(node) || strlen(node) >= len) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s: '%s' is not a Slurm node name (use --node NAME)\n", ctx->prog, cmd, node);
		return -1;
	}
	snprintf(buf, len, "%s", node);
	return 0;
}

/* What the checks say, for Slurm: the verdict, and the finding that explains it (or NULL). */
struct verdict {
	enum rd_slurm_verdict v;
	const struct rd_finding *why;
	size_t more;       /* other findings at the drain level */
	bool warn_only;    /* healthy, but with a WARN that does not drain */
	const struct rd_finding *held; /* the first finding a rule holds (rd_slurm_run.held), or NULL */
	const char *held_rule;
};

static struct verdict judge(const struct rd_report *rep, const struct rd_slurm_run *run, bool no_hardware)
{
	struct verdict r = {.v = RD_SLURM_HEALTHY};
	const struct rd_finding *worst = NULL, *unknown = NULL, *warn = NULL;
	size_t at_level = 0;
	enum rd_status level = run->level;
	for (size_t i = 0; i < rep->n; i++) {
		const struct rd_finding *f = &rep->findings[i];
		const char *rule = run->held && (f->status == RD_FAIL || f->status == RD_WARN) ? run->held(f, run->arg) : NULL;
		if (rule) {
			if (!r.held) {
				r.held = f;
				r.held_rule = rule;
			}
		} else if (f->no_drain && f->status != RD_FAIL) {
			if (f->status == RD_WARN && !warn)
				warn = f;
		} else if (f->status == RD_FAIL || (f->status == RD_WARN && level == RD_WARN)) {
			at_level++;
			if (!worst || rd_status_worse(f->status, worst->status))
				worst = f;
		} else if (f->status == RD_UNKNOWN && !unknown) {
			unknown = f;
		} else if (f->status == RD_WARN && !warn) {
			warn = f;
		}
	}
	if (worst) {
		r.v = RD_SLURM_UNHEALTHY;
		r.why = worst;
		r.more = at_level - 1;
	} else if (unknown || no_hardware) {
		r.v = RD_SLURM_UNKNOWN;
		r.why = unknown;
	} else if (warn) {
		r.why = warn;
		r.warn_only = true;
	}
	return r;
}

static char *make_reason(const struct verdict *v)
{
	char *more = v->more ? rd_xasprintf(" (+%zu more)", v->more) : rd_xstrdup("");
	size_t room = RD_SLURM_REASON_MAX - strlen(RD_SLURM_REASON_PREFIX) - 1 - strlen(more);
	char *text = rd_xasprintf("%s %s: %s", v->why->check, v->why->subject, v->why->message);
	char *clean = rd_slurm_reason_clean(text, room);
	char *reason = rd_xasprintf(RD_SLURM_REASON_PREFIX " %s%s", clean, more);
	free(text);
	free(clean);
	free(more);
	return reason;
}

enum { OPT_DRAIN_ON = 256, OPT_NODE, OPT_ONLY, OPT_SKIP, OPT_POLICY, OPT_NO_COUNTERS, OPT_STATE_DIR };

int rd_cmd_slurm(struct rd_ctx *ctx, int argc, char **argv)
{
	static const struct option cmdopts[] = {
		{"drain-on", required_argument, NULL, OPT_DRAIN_ON},
		{"dry-run", no_argument, NULL, 'n'},
		{"node", required_argument, NULL, OPT_NODE},
		{"only", required_argument, NULL, OPT_ONLY},
		{"skip", required_argument, NULL, OPT_SKIP},
		{"policy", required_argument, NULL, OPT_POLICY},
		{"no-counters", no_argument, NULL, OPT_NO_COUNTERS},
		{"state-dir", required_argument, NULL, OPT_STATE_DIR},
		RD_LONGOPT_HELP,
		{NULL, 0, NULL, 0},
	};
	struct rd_check_sel sel = {.policy = ctx->policy};
	char only[2048] = "", skip[2048] = ""; /* repeated --only / --skip add up, as for check */
	enum rd_status level = RD_FAIL;
	bool dry = false;
	const char *node = NULL;
	struct rd_getopt g = {.argc = argc, .argv = argv, .shortopts = "n", .longopts = cmdopts, .usage = SLURM_USAGE,
			      .help = help};
	int st = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &st)) != RD_OPT_END;) {
		switch (c) {
		case OPT_DRAIN_ON:
			if (strcmp(optarg, "fail") == 0)
				level = RD_FAIL;
			else if (strcmp(optarg, "warn") == 0)
				level = RD_WARN;
			else {
				rd_text_printf(ctx->err, ctx->ascii, "%s: slurm: --drain-on takes fail or warn, not '%s'\n", ctx->prog, optarg);
				return 3;
			}
			break;
		case 'n':
			dry = true;
			break;
		case OPT_NODE:
			node = optarg;
			break;
		case OPT_ONLY:
		case OPT_SKIP: {
			char *list = c == OPT_ONLY ? only : skip;
			size_t used = strlen(list);
			if (!*optarg || used + strlen(optarg) + 2 > sizeof only) {
				rd_text_printf(ctx->err, ctx->ascii, "%s: slurm: %s needs a check id (and a list shorter than %zu bytes)\n", ctx->prog,
					c == OPT_ONLY ? "--only" : "--skip", sizeof only);
				return 3;
			}
			snprintf(list + used, sizeof only - used, "%s%s", used ? "," : "", optarg);
			if (c == OPT_ONLY)
				sel.only = only;
			else
				sel.skip = skip;
			break;
		}
		case OPT_POLICY:
			sel.policy = optarg;
			break;
		case OPT_STATE_DIR:
			if (!*optarg)
				return rd_usage_error(ctx, "slurm", "--state-dir needs a directory");
			rd_link_opt(ctx, "--state-dir", optarg);
			break;
		case OPT_NO_COUNTERS:
			rd_link_opt(ctx, "--no-counters", NULL);
			break;
		}
	}
	if (st >= 0)
		return st;

	char name[256];
	if (rd_slurm_node_name(ctx, "slurm", node, name, sizeof name) < 0)
		return 3;
	node = name;

	ctx->link.keep = true; /* the periodic caller: counters read, a sample kept (cmd/linkstate.c) */
	ctx->link.dry_run = dry; /* it judges as the real run would, and leaves the samples to it */
	struct rd_loaded l;
	struct rd_report rep;
	bool no_hw = false;
	int r = rd_check_collect(ctx, "slurm", &sel, &l, &rep, &no_hw);
	if (r < 0)
		return 3;
	const struct rd_slurm_run run = {.node = node, .level = level, .dry = dry, .pre = dry ? "# " : ""};
	int rc = rd_slurm_sync(ctx, &run, &rep, no_hw) < 0 ? 1 : 0;
	rd_report_free(&rep);
	rd_loaded_free(&l);
	return rc;
}

int rd_slurm_sync(struct rd_ctx *ctx, const struct rd_slurm_run *run, const struct rd_report *rep, bool no_hw)
{
	const char *node = run->node, *pre = run->pre ? run->pre : "";
	bool dry = run->dry;
	struct verdict v = judge(rep, run, no_hw);
	char *reason = v.v == RD_SLURM_UNHEALTHY ? make_reason(&v) : NULL;

	int rc = -1;
	char *out = NULL;
	char name[256];
	snprintf(name, sizeof name, "%s", node);
	char *show[] = {"scontrol", "show", "node", "-o", name, NULL};
	struct rd_slurm_node n = {0};
	if (!scontrol(ctx, show, run->timeout_ms, &out))
		goto done;
	if (rd_slurm_parse_node(out, &n) < 0) {
		char *line = shell_line(show), *why = first_line(out);
		rd_text_printf(ctx->err, ctx->ascii, "%s: slurm: no NodeName=... State=... line in the output of `%s`%s%s\n", ctx->prog,
			line, *why ? ": " : "", why);
		free(line);
		free(why);
		goto done;
	}
	enum rd_slurm_action act = rd_slurm_decide(v.v, &n, reason);
	/* a rule's hold: what it holds neither drains nor lets a drained node resume */
	const char *hold = v.v != RD_SLURM_UNHEALTHY && v.held ? v.held_rule : NULL;
	if (!hold && v.v == RD_SLURM_HEALTHY && run->hold && act == RD_SLURM_RESUME)
		hold = run->hold;
	if (hold && (act == RD_SLURM_RESUME || (act == RD_SLURM_NOTHING && !n.out_of_service)))
		act = RD_SLURM_HOLD;

	/* what the checks say */
	const struct rd_finding *why = v.why;
	const char *word = v.v == RD_SLURM_UNHEALTHY ? rd_status_name(v.why->status)
			   : v.v == RD_SLURM_UNKNOWN ? "UNKNOWN"
			   : v.warn_only             ? "WARN"
						     : "OK";
	if (act == RD_SLURM_HOLD && v.held) {
		why = v.held;
		word = rd_status_name(v.held->status);
	}
	rd_text_printf(ctx->out, ctx->ascii, "%s%s: %s", pre, node, word);
	if (why) {
		char *text = rd_xasprintf("%s %s: %s", why->check, why->subject, why->message);
		char *clean = rd_slurm_reason_clean(text, 200);
		rd_text_printf(ctx->out, ctx->ascii, " %s", clean);
		free(text);
		free(clean);
	} else if (v.v == RD_SLURM_UNKNOWN) {
		rd_text_printf(ctx->out, ctx->ascii, " no RDMA hardware on this host");
	}
	if (v.more)
		rd_text_printf(ctx->out, ctx->ascii, " (+%zu more)", v.more);
	if (act == RD_SLURM_HOLD)
		rd_text_printf(ctx->out, ctx->ascii, " (held: %s)", hold);
	else if (v.warn_only && v.why->no_drain)
		rd_text_printf(ctx->out, ctx->ascii, " (rdma-doctor's own bookkeeping, not the host's health: never drains)");
	else if (v.warn_only)
		rd_text_printf(ctx->out, ctx->ascii, " (a WARN does not drain; --drain-on warn)");
	fputc('\n', ctx->out);

	/* what Slurm says, and what is done */
	rd_text_printf(ctx->out, ctx->ascii, "%s%s: Slurm State=%s%s%s: ", pre, node, n.state, n.reason ? " Reason=" : "",
		n.reason ? n.reason : "");
	char *update[] = {"scontrol", "update", rd_xasprintf("NodeName=%s", node),
			  act == RD_SLURM_RESUME ? "State=RESUME" : "State=DRAIN",
			  act == RD_SLURM_DRAIN ? rd_xasprintf("Reason=%s", reason) : NULL, NULL};
	switch (act) {
	case RD_SLURM_NOTHING:
		rd_text_printf(ctx->out, ctx->ascii, "%s\n", n.drained && rd_slurm_reason_pairs(n.reason)
			? "kept (drained by pairs: only a pairs run that clears the node resumes it)" : "nothing to do");
		break;
	case RD_SLURM_HOLD:
		rd_text_printf(ctx->out, ctx->ascii, "%s\n", n.out_of_service ? "not resumed yet" : "not drained yet");
		break;
	case RD_SLURM_KEEP_FOREIGN:
		rd_text_printf(ctx->out, ctx->ascii, "%s\n", rd_slurm_reason_pairs(n.reason)
			? "kept (drained by pairs: only a pairs run that clears the node resumes it)"
			: "kept (out of service for a reason that is not rdma-doctor's)");
		break;
	case RD_SLURM_KEEP_UNKNOWN:
		rd_text_printf(ctx->out, ctx->ascii, "no change (UNKNOWN neither drains nor resumes)\n");
		break;
	case RD_SLURM_DRAIN:
	case RD_SLURM_RESUME: {
		const char *what = act == RD_SLURM_RESUME ? "resume" : rd_slurm_reason_ours(n.reason) && n.drained
								       ? "update our drain reason"
								       : "drain";
		char *line = shell_line(update);
		rd_text_printf(ctx->out, ctx->ascii, "%s%s\n", dry ? "would " : "", what);
		if (dry) {
			rd_text_printf(ctx->out, ctx->ascii, "%s\n", line);
		} else {
			fflush(ctx->out);
			char *uout = NULL;
			if (!scontrol(ctx, update, run->timeout_ms, &uout)) {
				free(line);
				goto free_update;
			}
			free(uout);
			rd_text_printf(ctx->out, ctx->ascii, "%sran: %s\n", pre, line);
		}
		free(line);
		break;
	}
	}
	rc = (int)act;
free_update:
	free(update[2]);
	free(update[4]);
done:
	fflush(ctx->out);
	rd_slurm_node_free(&n);
	free(out);
	free(reason);
	return rc;
}

int rd_slurm_pairs_set(struct rd_ctx *ctx, const char *node, const char *why, bool dry)
{
	char name[256];
	snprintf(name, sizeof name, "%s", node);
	char *show[] = {"scontrol", "show", "node", "-o", name, NULL};
	char *out = NULL;
	struct rd_slurm_node n = {0};
	int rc = -1;
	if (!scontrol(ctx, show, 0, &out))
		goto done;
	if (rd_slurm_parse_node(out, &n) < 0) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: pairs: no NodeName=... State=... line from `scontrol show node -o %s`\n",
			       ctx->prog, name);
		goto done;
	}
	char *reason = NULL;
	if (why) {
		char *text = rd_slurm_reason_clean(why, RD_SLURM_REASON_MAX - strlen(RD_SLURM_REASON_PREFIX) - 1);
		reason = rd_xasprintf(RD_SLURM_REASON_PREFIX " %s", text);
		free(text);
	}
	const char *did;
	bool act = false;
	if (why && n.out_of_service && !rd_slurm_reason_pairs(n.reason))
		did = "kept (out of service for another reason)";
	else if (why && n.drained && n.reason && strcmp(n.reason, reason) == 0)
		did = "nothing to do";
	else if (why)
		did = "drain", act = true;
	else if (n.drained && rd_slurm_reason_pairs(n.reason))
		did = "resume", act = true;
	else
		did = "nothing to do";
	rd_text_printf(ctx->out, ctx->ascii, "%s%s: Slurm State=%s%s%s: %s%s\n", dry ? "# " : "", name, n.state,
		       n.reason ? " Reason=" : "", n.reason ? n.reason : "", act && dry ? "would " : "", did);
	rc = 0;
	if (act) {
		char *update[] = {"scontrol", "update", rd_xasprintf("NodeName=%s", name), why ? "State=DRAIN" : "State=RESUME",
				  why ? rd_xasprintf("Reason=%s", reason) : NULL, NULL};
		char *line = shell_line(update);
		char *uout = NULL;
		if (dry)
			rd_text_printf(ctx->out, ctx->ascii, "%s\n", line);
		else if (scontrol(ctx, update, 0, &uout))
			rd_text_printf(ctx->out, ctx->ascii, "ran: %s\n", line);
		else
			rc = -1;
		free(uout);
		free(line);
		free(update[2]);
		free(update[4]);
	}
	free(reason);
done:
	fflush(ctx->out);
	rd_slurm_node_free(&n);
	free(out);
	return rc;
}

int rd_slurm_unavailable(struct rd_ctx *ctx, struct rd_strv *out)
{
	char *argv[] = {"scontrol", "show", "node", "-o", NULL};
	char *text = NULL;
	if (!scontrol(ctx, argv, 0, &text))
		return -1;
	for (char *line = text, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		struct rd_slurm_node n;
		if (rd_slurm_parse_node(line, &n) == 0 && n.name && n.out_of_service)
			rd_strv_push_owned(out, rd_xasprintf("%s\t%s %s", n.name, n.state, n.reason ? n.reason : ""));
		rd_slurm_node_free(&n);
	}
	free(text);
	return 0;
}
