/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "model/policy.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/gid.h"
#include "model/host.h"
#include "model/parse.h"
#include "model/pcidevctl.h"
#include "util/dl.h"
#include "util/hostlist.h"

static const char *const default_modules[] = {"mlx5_core", "mlx5_ib", "ib_core", "ib_uverbs", "ib_cm",
					      "rdma_cm", "rdma_ucm", "ib_umad", "ib_ipoib", NULL};

void rd_policy_defaults(struct rd_policy *p)
{
	memset(p, 0, sizeof *p);
	for (const char *const *m = default_modules; *m; m++)
		rd_strv_push(&p->modules, *m);
	rd_strv_push(&p->services, "slurmd");
	p->roce_min_active_mtu = 4096;
	p->nccl_gid_index = -1;
	p->memlock_min = UINT64_MAX;
	p->expect_active_ports = -1;
	p->counters_window_s = 3600;
	p->watch_down_s = 10;
	p->watch_flaps = 2;
	p->watch_window_s = 300;
	p->watch_stable_s = 300;
}

static void setting_free(struct rd_policy_setting *s)
{
	free(s->section);
	free(s->key);
	free(s->pkey);
	free(s->value);
	free(s->header);
	free(s->conflict);
}

void rd_policy_free(struct rd_policy *p)
{
	rd_strv_free(&p->modules);
	rd_strv_free(&p->services);
	rd_strv_free(&p->ignore);
	rd_strv_free(&p->counters_exclude);
	rd_strv_free(&p->data_ports);
	for (size_t i = 0; i < p->nsettings; i++)
		setting_free(&p->settings[i]);
	free(p->settings);
	memset(p, 0, sizeof *p);
}

bool rd_policy_ignores(const struct rd_policy *p, const char *dev, unsigned port)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s/%u", dev, port);
	return rd_strv_contains(&p->ignore, dev) || rd_strv_contains(&p->ignore, buf);
}

int rd_policy_unmatched_ignores(const struct rd_policy *p, const struct rd_host *h, char *buf, size_t len)
{
	int n = 0;
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < p->ignore.n; i++) {
		const char *e = p->ignore.v[i];
		const char *slash = strchr(e, '/');
		bool found = false;
		for (size_t d = 0; d < h->ndevices && !found; d++) {
			const struct rd_device *dev = &h->devices[d];
			size_t nl = slash ? (size_t)(slash - e) : strlen(e);
			if (strlen(dev->name) != nl || strncmp(dev->name, e, nl) != 0)
				continue;
			if (!slash)
				found = true;
			for (size_t k = 0; slash && k < dev->nports && !found; k++) {
				char num[16];
				snprintf(num, sizeof num, "%u", dev->ports[k].num);
				found = strcmp(slash + 1, num) == 0;
			}
		}
		if (found)
			continue;
		int w = snprintf(buf + used, used < len ? len - used : 0, "%s%s", n ? " " : "", e);
		if (w > 0 && used + (size_t)w < len)
			used += (size_t)w;
		n++;
	}
	return n;
}

/* A section's header: [NAME], [NAME @HOSTLIST] or [NAME board=BOARD_ID].  The text inih parses has
 * each header replaced by its index here ("[3]"), so that a header inih would cut (it ends at the
 * first ']', at 50 bytes) reaches the handler whole, with its line. */
enum { SCOPE_NONE, SCOPE_HOST, SCOPE_BOARD };
struct scope_hdr {
	int line;
	int scope;
	bool applies;              /* a host pattern naming this host; always for the others */
	unsigned long long nhosts; /* SCOPE_HOST: how many hosts the pattern names */
	char base[64];             /* the section's name */
	char board[64];            /* SCOPE_BOARD */
	char header[RD_POLICY_HEADER_MAX]; /* as written between the brackets, blanks trimmed */
};

struct parse_state {
	struct rd_policy *p;
	struct rd_policy scratch; /* a setting that does not apply here is parsed into this: still checked */
	const char *text;  /* the text as written */
	const char *name;  /* the file's name, for messages */
	size_t *lines;     /* offset of line N+1 in text */
	size_t nlines;
	struct scope_hdr *hdr;
	size_t nhdr;
	int last_k, last_line; /* the section and line of the previous setting */
	int line;          /* the line of the setting the handler is at */
	unsigned fails;    /* settings refused so far */
	char why[512];     /* the first rejected setting's reason */
	int why_line;      /* and its line */
};

static int failv(struct parse_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int failv(struct parse_state *st, const char *fmt, ...)
{
	st->fails++;
	if (!st->why[0]) {
		va_list ap;
		va_start(ap, fmt);
		if (vsnprintf(st->why, sizeof st->why, fmt, ap) >= (int)sizeof st->why)
			strcpy(st->why + sizeof st->why - 4, "...");
		va_end(ap);
		st->why_line = st->line;
	}
	return 0;
}
#define fail(st, fmt, a, b) failv(st, fmt, a, b)

static void words(const char *v, struct rd_strv *out)
{
	rd_strv_free(out);
	char *copy = rd_xstrdup(v);
	for (char *t = strtok(copy, " \t,"); t; t = strtok(NULL, " \t,"))
		rd_strv_push(out, t);
	free(copy);
}

static bool number(const char *v, double *out)
{
	char *end;
	double d = strtod(v, &end);
	if (end == v || *end || d < 0 || d > 1e6)
		return false;
	*out = d;
	return true;
}

/* Debian's libinih (55) is built with inline comments for ';' only (INI_INLINE_COMMENT_PREFIXES
 * ";"): "9  # nine" reaches the handler whole.  The policy takes '#' and ';' comments after a
 * value too (a prefix at the start of the value or after a blank), as the sample policy of docs/usage.md does:
 * strip them here, whatever the library was built with. */
static void strip_comment(const char *v, char *out, size_t len)
{
	size_t n = 0;
	for (const char *c = v; *c && n + 1 < len; c++) {
		if ((*c == '#' || *c == ';') && (c == v || c[-1] == ' ' || c[-1] == '\t'))
			break;
		out[n++] = *c;
	}
	while (n && (out[n - 1] == ' ' || out[n - 1] == '\t'))
		n--;
	out[n] = '\0';
}

/* ---- link health: [counters], [pcie], [ports] data_ports / management (link.* and pcie.link) ---- */
const char *const rd_rate_counters[4] = {"symbol_error", "port_rcv_errors", "port_xmit_discards", "link_error_recovery"};

/* A time N[s|m|h|d] (no unit: seconds) from min to max seconds into *out; false when it is not one. */
static bool duration(const char *value, long long min, long long max, long long *out)
{
	char *end;
	double v = strtod(value, &end);
	double unit = 1;
	if (end != value && *end && !end[1])
		unit = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : *end == 'd' ? 86400 : 0, end++;
	if (end == value || *end || unit == 0 || !(v * unit >= (double)min && v * unit <= (double)max))
		return false;
	*out = (long long)(v * unit);
	return true;
}

/* [watch]: 1 taken, -1 refused (st->why), 0 not this block's. */
static int watch_key(struct parse_state *st, struct rd_policy *p, const char *section, const char *key, const char *value)
{
	if (strcmp(section, "watch") != 0)
		return 0;
	if (strcmp(key, "drain_down_after") == 0 || strcmp(key, "resume_stable") == 0) {
		long long *to = key[0] == 'd' ? &p->watch_down_s : &p->watch_stable_s;
		if (!duration(value, 0, 86400, to))
			return fail(st, "%s: '%s' is not a time from 0 to 1d (e.g. 10s, 5m)", key, value), -1;
		return 1;
	}
	if (strcmp(key, "drain_flaps") == 0) {
		/* N in TIME */
		char n[32], t[64], extra;
		uint64_t u;
		if (sscanf(value, "%31s in %63s %c", n, t, &extra) != 2 || rd_parse_u64(n, 10, RD_POLICY_FLAPS_MAX, &u) < 0 ||
		    u == 0 || !duration(t, 1, 86400, &p->watch_window_s))
			return fail(st, "%s: '%s' is not N in TIME (N from 1 to 64, TIME from 1s to 1d: e.g. 2 in 5m)", key, value),
			       -1;
		p->watch_flaps = (unsigned)u;
		return 1;
	}
	return fail(st, "unknown setting '%s' in section [%s]", key, section), -1;
}

/* 1: the setting was this block's and is taken; -1: it was and is refused (st->why); 0: not this block's. */
static int link_key(struct parse_state *st, struct rd_policy *p, const char *section, const char *key,
		    const char *value, double *d)
{
	uint64_t u;
	if (strcmp(section, "counters") == 0 && strcmp(key, "exclude") == 0) {
		words(value, &p->counters_exclude);
		return 1;
	}
	if (strcmp(section, "counters") == 0 && strcmp(key, "window") == 0) {
		/* N[s|m|h|d]: from a minute to 30 days */
		if (!duration(value, 60, 30 * 86400, &p->counters_window_s))
			return fail(st, "%s: '%s' is not a time from 1m to 30d (e.g. 1h, 90m, 3600)", key, value), -1;
		return 1;
	}
	if (strcmp(section, "counters") == 0) {
		for (size_t i = 0; i < 4; i++) {
			char name[64];
			snprintf(name, sizeof name, "%s_per_hour", rd_rate_counters[i]);
			if (strcmp(key, name) == 0) {
				if (!number(value, d) || *d <= 0)
					return fail(st, "%s: '%s' is not a number of errors per hour", key, value), -1;
				p->counters_fail_per_hour[i] = *d;
				return 1;
			}
		}
		return 0;
	}
	if (strcmp(section, "pcie") == 0 && strcmp(key, "min_width") == 0) {
		if (rd_parse_u64(value, 10, 32, &u) < 0 || !(u == 1 || u == 2 || u == 4 || u == 8 || u == 16 || u == 32))
			return fail(st, "%s: '%s' is not a PCIe width (1, 2, 4, 8, 16 or 32 lanes)", key, value), -1;
		p->pcie_min_width = (unsigned)u;
		return 1;
	}
	if (strcmp(section, "pcie") == 0 && strcmp(key, "max_read_request") == 0) {
		if (rd_parse_u64(value, 10, 4096, &u) < 0 || rd_devctl_code((unsigned)u) < 0)
			return fail(st, "%s: '%s' is not a PCIe Max Read Request size (128, 256, 512, 1024, 2048 or 4096 bytes)",
				    key, value),
			       -1;
		p->pcie_max_read_request = (unsigned)u;
		return 1;
	}
	if (strcmp(section, "pcie") == 0 && strcmp(key, "min_speed") == 0) {
		char *end;
		double v = strtod(value, &end);
		while (*end == ' ')
			end++;
		if (end == value || v < 2.5 || v > 128 || (*end && strcmp(end, "GT/s") != 0))
			return fail(st, "%s: '%s' is not a PCIe speed in GT/s (2.5 ... 64)", key, value), -1;
		p->pcie_min_speed = v;
		return 1;
	}
	if (strcmp(section, "ports") == 0 && strcmp(key, "data_ports") == 0) {
		rd_strv_free(&p->data_ports);
		char *copy = rd_xstrdup(value);
		for (char *t = strtok(copy, " \t"); t; t = strtok(NULL, " \t")) {
			const char *colon = strchr(t, ':');
			bool ok = colon && colon > t && colon[1];
			for (const char *c = colon ? colon + 1 : ""; ok && *c; c++)
				ok = (*c >= '0' && *c <= '9') || (*c == ',' && c[1] && c[1] != ',');
			if (!ok) {
				fail(st, "%s: '%s' is not DEVICE:PORT,PORT... (e.g. mlx5_0:3,6,9,12)", key, t);
				free(copy);
				return -1;
			}
			rd_strv_push(&p->data_ports, t);
		}
		free(copy);
		return 1;
	}
	if (strcmp(section, "ports") == 0 && strcmp(key, "management") == 0) {
		if (strcmp(value, "compute") != 0 && strcmp(value, "skip") != 0)
			return fail(st, "%s: '%s' is neither compute nor skip", key, value), -1;
		p->management_is_compute = strcmp(value, "compute") == 0;
		return 1;
	}
	return 0;
}

bool rd_policy_data_port(const struct rd_policy *p, const char *dev, unsigned port, bool *listed)
{
	size_t dl = strlen(dev);
	*listed = false;
	for (size_t i = 0; i < p->data_ports.n; i++) {
		const char *e = p->data_ports.v[i];
		if (strncmp(e, dev, dl) != 0 || e[dl] != ':')
			continue;
		*listed = true;
		for (const char *c = e + dl + 1; *c;) {
			char *end;
			unsigned long v = strtoul(c, &end, 10);
			if (end == c)
				break;
			if (v == port)
				return true;
			if (*end != ',')
				break;
			c = end + 1;
		}
	}
	return false;
}

/* The sections the handler reads (a setting in another one is a misspelt section, not a setting) */
#define SECTIONS "[modules], [ports], [roce], [firmware], [memlock], [nccl], [mlxconfig], [counters], [pcie], [watch]"
static bool known_section(const char *section)
{
	static const char *const known[] = {"modules", "ports", "roce", "firmware", "memlock", "nccl", "mlxconfig",
					    "counters", "pcie", "watch"};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(known[i], section) == 0)
			return true;
	return false;
}

/* Takes one setting into p: 1, or 0 after fail() */
static int apply(struct parse_state *st, struct rd_policy *p, const char *section, const char *key, const char *value)
{
	double d;
	uint64_t u;
	unsigned fails = st->fails;
	if (strcmp(section, "modules") == 0 && strcmp(key, "required") == 0) {
		p->modules_set = true;
		if (!value[0])
			return fail(st, "%s: an empty list (remove the line to require the default %s modules)", key, "9");
		words(value, &p->modules);
	} else if (strcmp(section, "ports") == 0 && strcmp(key, "min_rate_ib") == 0) {
		if (!number(value, &d))
			return fail(st, "%s: '%s' is not a rate in Gb/s", key, value);
		p->min_rate_ib = d;
	} else if (strcmp(section, "ports") == 0 && strcmp(key, "min_rate_ethernet") == 0) {
		if (!number(value, &d))
			return fail(st, "%s: '%s' is not a rate in Gb/s", key, value);
		p->min_rate_eth = d;
	} else if (strcmp(section, "ports") == 0 && strcmp(key, "expect_active") == 0) {
		if (rd_parse_u64(value, 10, 4096, &u) < 0)
			return fail(st, "%s: '%s' is not a number of ports", key, value);
		p->expect_active_ports = (int)u;
	} else if (strcmp(section, "ports") == 0 && strcmp(key, "ignore") == 0) {
		words(value, &p->ignore);
	} else if (strcmp(section, "roce") == 0 && strcmp(key, "netdev_mtu") == 0) {
		if (rd_parse_u64(value, 10, 65535, &u) < 0 || u < 576)
			return fail(st, "%s: '%s' is not an MTU (576..65535)", key, value);
		p->roce_netdev_mtu = (unsigned)u;
	} else if (strcmp(section, "roce") == 0 && strcmp(key, "min_active_mtu") == 0) {
		if (rd_parse_u64(value, 10, 4096, &u) < 0 || (u != 256 && u != 512 && u != 1024 && u != 2048 && u != 4096))
			return fail(st, "%s: '%s' is not an IB MTU (256, 512, 1024, 2048 or 4096)", key, value);
		p->roce_min_active_mtu = (unsigned)u;
	} else if (strcmp(section, "firmware") == 0) {
		size_t at = 0; /* a board pinned again: the new pin replaces it */
		while (at < p->npins && strcmp(p->pins[at].board_id, key) != 0)
			at++;
		if (at >= RD_POLICY_MAX)
			return fail(st, "too many firmware pins (at most %s)%s", "32", "");
		if (strlen(key) >= sizeof p->pins[0].board_id || strlen(value) >= sizeof p->pins[0].fw_ver || !*value)
			return fail(st, "firmware pin '%s = %s' is too long or empty", key, value);
		strcpy(p->pins[at].board_id, key);
		strcpy(p->pins[at].fw_ver, value);
		if (at == p->npins)
			p->npins++;
	} else if (strcmp(section, "memlock") == 0 && strcmp(key, "min") == 0) {
		if (strcmp(value, "unlimited") == 0)
			p->memlock_min = UINT64_MAX;
		else if (rd_parse_systemd_size(value, &u) == 0)
			p->memlock_min = u;
		else
			return fail(st, "%s: '%s' is not a size (unlimited, 64K, 8M, bytes)", key, value);
	} else if (strcmp(section, "memlock") == 0 && strcmp(key, "services") == 0) {
		words(value, &p->services);
	} else if (strcmp(section, "nccl") == 0 && strcmp(key, "gid_index") == 0) {
		if (rd_parse_u64(value, 10, 0xffff, &u) < 0)
			return fail(st, "%s: '%s' is not a GID index (0..65535)", key, value);
		p->nccl_gid_index = (int)u;
	} else if (strcmp(section, "nccl") == 0 && strcmp(key, "roce_version") == 0) {
		if (strcmp(value, "1") != 0 && strcmp(value, "2") != 0)
			return fail(st, "%s: '%s' is not a RoCE version (1 or 2)", key, value);
		p->nccl_roce_version = value[0] - '0';
	} else if (strcmp(section, "nccl") == 0 && strcmp(key, "addr_family") == 0) {
		if (!rd_gid_parse_family(value))
			return fail(st, "%s: '%s' is not AF_INET or AF_INET6", key, value);
		p->nccl_family = rd_gid_parse_family(value);
	} else if (strcmp(section, "nccl") == 0 && strcmp(key, "version") == 0) {
		if (!(p->nccl_version = rd_nccl_version_parse(value)))
			return fail(st, "%s: '%s' is not an NCCL version (2.19.3)", key, value);
	} else if (strcmp(section, "roce") == 0 && strcmp(key, "trust") == 0) {
		if (strcmp(value, "dscp") != 0 && strcmp(value, "pcp") != 0)
			return fail(st, "%s: '%s' is not a trust mode (dscp or pcp)", key, value);
		strcpy(p->roce_trust, value[0] == 'd' ? "dscp" : "pcp");
	} else if (strcmp(section, "roce") == 0 && strcmp(key, "pfc") == 0) {
		uint8_t mask = 0;
		bool ok = *value != '\0';
		if (strcmp(value, "none") != 0) {
			char *copy = rd_xstrdup(value), *save = NULL;
			for (char *t = strtok_r(copy, " \t,", &save); t && ok; t = strtok_r(NULL, " \t,", &save)) {
				ok = t[0] >= '0' && t[0] <= '7' && !t[1];
				if (ok)
					mask |= (uint8_t)(1u << (t[0] - '0'));
			}
			free(copy);
			ok = ok && mask;
		}
		if (!ok)
			return fail(st, "%s: '%s' is not a list of priorities 0..7 (or none)", key, value);
		p->roce_pfc_set = true;
		p->roce_pfc = mask;
	} else if (strcmp(section, "mlxconfig") == 0) {
		/* any NAME: the adapters of a fleet differ in the parameters they have */
		size_t at = 0; /* a NAME set again: the new value replaces it */
		while (at < p->nmlxconfig && strcmp(p->mlxconfig[at].name, key) != 0)
			at++;
		if (at >= RD_POLICY_MAX)
			return fail(st, "too many mlxconfig settings (at most %s)%s", "32", "");
		/* both go into the printed `mlxconfig set NAME=VALUE`: only what mlxconfig names and values use */
		static const char name_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_[]./";
		static const char value_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_().-";
		if (strlen(key) >= sizeof p->mlxconfig[0].name || strlen(value) >= sizeof p->mlxconfig[0].value || !*value ||
		    key[strspn(key, name_chars)] || value[strspn(value, value_chars)] || key[0] == '/' ||
		    (strchr(key, '/') && (strchr(key, '/') != strrchr(key, '/') || !strrchr(key, '/')[1])))
			return fail(st, "mlxconfig setting '%s = %s' is not NAME = VALUE as mlxconfig prints them", key, value);
		memcpy(p->mlxconfig[at].name, key, strlen(key) + 1);
		memcpy(p->mlxconfig[at].value, value, strlen(value) + 1);
		if (at == p->nmlxconfig)
			p->nmlxconfig++;
	} else if (link_key(st, p, section, key, value, &d) != 0 || watch_key(st, p, section, key, value) != 0) {
		return st->fails == fails;
	} else if (!*section) {
		return fail(st, "setting '%s' is outside any [section]%s", key, "");
	} else if (!known_section(section)) {
		return fail(st, "unknown section [%s] (the sections are %s)", section, SECTIONS);
	} else {
		return fail(st, "unknown setting '%s' in section [%s]", key, section);
	}
	return 1;
}

/* inih (Debian libinih1) is loaded on the first policy file read (util/dl.h): a run without one,
 * and every `ibstat`, never maps it.  The pointer has exactly the type <ini.h> declares. */
static __typeof__(&ini_parse_string) inih_parse_string(char *err, size_t errlen)
{
	static __typeof__(&ini_parse_string) fn;
	static int state; /* 0: not tried, 1: loaded, -1: failed (reason kept) */
	static char reason[512];
	if (state == 0) {
		static const char *const names[] = {"ini_parse_string"};
		void *sym;
		state = rd_dl_load("libinih.so.1", "libinih1", "a newer libinih1 needed", names, &sym, 1, reason,
				   sizeof reason) == 0 ? 1 : -1;
		if (state > 0)
			memcpy(&fn, &sym, sizeof sym); /* POSIX: object and function pointers convert */
	}
	if (state < 0)
		rd_set_err(err, errlen, "%s", reason);
	return state > 0 ? fn : NULL;
}

/* ---- sections scoped to hosts or boards, and which setting wins ---------------------------- */

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The line of the setting key that inih is at: the next "key =" line of section k after the
 * previous setting (inih does not pass line numbers); a continuation line keeps the last one. */
static int setting_line(struct parse_state *st, int k, const char *key)
{
	int from = k < 0 ? 1 : st->hdr[k].line + 1;
	int to = k + 1 < (int)st->nhdr ? st->hdr[k + 1].line : (int)st->nlines + 1;
	if (st->last_k == k && st->last_line >= from)
		from = st->last_line + 1;
	size_t kl = strlen(key);
	for (int n = from; n < to; n++) {
		const char *c = st->text + st->lines[n - 1];
		while (blank(*c))
			c++;
		if (strncmp(c, key, kl) != 0)
			continue;
		for (c += kl; blank(*c);)
			c++;
		if (*c == '=' || *c == ':') {
			st->last_k = k;
			st->last_line = n;
			return n;
		}
	}
	return st->last_k == k && st->last_line ? st->last_line : from;
}

static struct rd_policy_setting *find_setting(struct rd_policy *p, const char *section, const char *pkey)
{
	for (size_t i = 0; i < p->nsettings; i++)
		if (strcmp(p->settings[i].section, section) == 0 && strcmp(p->settings[i].pkey, pkey) == 0)
			return &p->settings[i];
	return NULL;
}

/* > 0: a setting of section h is more specific than s (board > host pattern > none; of two host
 * patterns, the one naming fewer hosts), or is a later one of the same section or of two unscoped
 * ones; < 0: less; 0: as specific. */
static int specificity(const struct scope_hdr *h, int k, const struct rd_policy_setting *s)
{
	if (s->header_index == k || (h->scope == SCOPE_NONE && s->scope == SCOPE_NONE))
		return 1;
	if (h->scope != s->scope)
		return h->scope > s->scope ? 1 : -1;
	if (h->scope == SCOPE_HOST && h->nhosts != s->nhosts)
		return h->nhosts < s->nhosts ? 1 : -1;
	return 0;
}

static void record(struct parse_state *st, struct rd_policy_setting *old, const struct scope_hdr *h, int k,
		   const char *key, const char *pkey, const char *value)
{
	struct rd_policy *p = st->p;
	if (!old) {
		p->settings = rd_xrealloc(p->settings, (p->nsettings + 1) * sizeof *p->settings);
		old = &p->settings[p->nsettings++];
	} else {
		setting_free(old);
	}
	*old = (struct rd_policy_setting){.section = rd_xstrdup(h->base), .key = rd_xstrdup(key), .pkey = rd_xstrdup(pkey),
					  .value = rd_xstrdup(value), .header = rd_xstrdup(h->header), .line = st->line,
					  .scope = h->scope, .nhosts = h->nhosts, .header_index = k};
}

static int handler(void *user, const char *section, const char *key, const char *raw)
{
	struct parse_state *st = user;
	char value[4096];
	strip_comment(raw, value, sizeof value);
	char *end;
	unsigned long k = *section ? strtoul(section, &end, 10) : 0;
	if (!*section || *end || k >= st->nhdr) { /* before any header */
		st->line = setting_line(st, -1, key);
		return fail(st, "setting '%s' is outside any [section]%s", key, "");
	}
	const struct scope_hdr *h = &st->hdr[k];
	st->line = setting_line(st, (int)k, key);
	/* a board's section is the per-board form of its settings: [firmware] BOARD = FW, [mlxconfig] BOARD/NAME */
	char pkey[192];
	snprintf(pkey, sizeof pkey, "%s", key);
	if (h->scope == SCOPE_BOARD && strcmp(h->base, "firmware") == 0) {
		if (strcmp(key, "fw_ver") != 0)
			return failv(st, "[%s]: the setting of a board's [firmware] section is fw_ver = VERSION, not '%s'", h->header,
				     key);
		snprintf(pkey, sizeof pkey, "%s", h->board);
	} else if (h->scope == SCOPE_BOARD && strcmp(h->base, "mlxconfig") == 0) {
		if (strchr(key, '/') || strlen(key) > 64)
			return failv(st, "[%s]: '%s' is not NAME (the section names the board)", h->header, key);
		snprintf(pkey, sizeof pkey, "%s/%s", h->board, key);
	} else if (h->scope == SCOPE_BOARD) {
		return failv(st, "[%s]: a board_id scope is for [firmware] and [mlxconfig], whose settings are judged per "
				 "board; [%s] takes a host pattern (@HOSTLIST)",
			     h->header, h->base);
	}
	struct rd_policy *target = h->applies ? st->p : NULL;
	struct rd_policy_setting *old = find_setting(st->p, h->base, pkey);
	if (target && old) {
		int c = specificity(h, (int)k, old);
		/* a tie is an error only if no more specific section settles it, wherever that section is */
		if (c == 0 && strcmp(old->value, value) != 0 && !old->conflict) {
			old->conflict = rd_xasprintf("%s = %s here [%s] and %s = %s at %s:%d [%s]: both sections name this host "
						     "and are as specific (make one name fewer hosts, or give both one value)",
						     key, value, h->header, old->key, old->value, st->name, old->line, old->header);
			old->conflict_line = st->line;
		}
		if (c <= 0)
			target = NULL;
	}
	if (!target) { /* checked, not taken */
		target = &st->scratch;
		target->npins = target->nmlxconfig = 0;
	}
	unsigned fails = st->fails;
	apply(st, target, h->base, pkey, value);
	if (st->fails != fails)
		return 0;
	if (target == st->p)
		record(st, old, h, (int)k, key, pkey, value);
	return 1;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether name, or its short form (up to the first '.'), is one of the hostlist's names. */
static int host_matches(const char *list, const char *name, bool *match, unsigned long long *count, char *err,
			size_t errlen)
{
	int r = rd_hostlist_match(list, name ? name : "", match, count, err, errlen);
	const char *dot = name ? strchr(name, '.') : NULL;
	if (r == 0 && !*match && dot && dot > name) {
		char shortname[RD_POLICY_HEADER_MAX];
		snprintf(shortname, sizeof shortname, "%.*s", (int)(dot - name), name);
		r = rd_hostlist_match(list, shortname, match, count, err, errlen);
	}
	/* specificity counts distinct hosts: gpu01,gpu01 or gpu[01,01] names one (a list this small is
	 * cheap to expand; a larger one is counted as written) */
	if (r == 0 && *match && count && *count > 1 && *count <= 65536) {
		struct rd_strv names = {0};
		if (rd_hostlist_expand(list, &names, err, errlen) == 0) {
			qsort(names.v, names.n, sizeof *names.v, cmp_names);
			unsigned long long distinct = 0;
			for (size_t i = 0; i < names.n; i++)
				distinct += !i || strcmp(names.v[i - 1], names.v[i]) != 0;
			*count = distinct;
		}
		rd_strv_free(&names);
	}
	return r;
}

/* One header line (from '[' to the end of the line) into st->hdr; 0, or -1 with "NAME:LINE: reason". */
static int header(struct parse_state *st, const char *at, const char *eol, int line, const char *host, char *err,
		  size_t errlen)
{
	int depth = 0;
	const char *close = NULL;
	for (const char *c = at; c < eol && !close; c++) {
		depth += *c == '[' ? 1 : *c == ']' ? -1 : 0;
		if (depth == 0)
			close = c;
	}
	if (!close) {
		rd_set_err(err, errlen, "%s:%d: a section header without its closing ']'", st->name, line);
		return -1;
	}
	const char *rest = close + 1;
	while (rest < eol && blank(*rest))
		rest++;
	if (rest < eol && *rest != ';' && *rest != '#') {
		rd_set_err(err, errlen, "%s:%d: text after the section header's ']' (a comment starts with ';' or '#')",
			   st->name, line);
		return -1;
	}
	const char *b = at + 1, *e = close;
	while (b < e && blank(*b))
		b++;
	while (e > b && blank(e[-1]))
		e--;
	if ((size_t)(e - b) >= RD_POLICY_HEADER_MAX) {
		rd_set_err(err, errlen, "%s:%d: a section header longer than %d characters", st->name, line,
			   RD_POLICY_HEADER_MAX - 1);
		return -1;
	}
	struct scope_hdr h = {.line = line, .applies = true};
	memcpy(h.header, b, (size_t)(e - b));
	size_t bl = strcspn(h.header, " \t\r");
	const char *scope = h.header + bl;
	while (blank(*scope))
		scope++;
	if (bl == 0 || bl >= sizeof h.base) {
		rd_set_err(err, errlen, "%s:%d: [%.64s]: %s", st->name, line, h.header,
			   bl == 0 ? "no section name" : "the section name is too long");
		return -1;
	}
	memcpy(h.base, h.header, bl);
	if (*scope == '@') {
		char why[256];
		const char *list = scope + 1;
		h.scope = SCOPE_HOST;
		if (!*list || list[strcspn(list, " \t\r")]) {
			rd_set_err(err, errlen, "%s:%d: [%s]: the host pattern is one Slurm hostlist without blanks (@gpu[001-128])",
				   st->name, line, h.header);
			return -1;
		}
		bool match = false;
		bool usable = host && *host && strlen(host) < RD_POLICY_HEADER_MAX;
		int r = host_matches(list, usable ? host : "", &match, &h.nhosts, why, sizeof why);
		if (r < 0 || h.nhosts == 0) {
			rd_set_err(err, errlen, "%s:%d: [%s]: not a host pattern: %s", st->name, line, h.header,
				   r < 0 ? why : "it names no host");
			return -1;
		}
		h.applies = usable && match;
	} else if (strncmp(scope, "board=", 6) == 0) {
		static const char id_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-";
		const char *id = scope + 6;
		h.scope = SCOPE_BOARD;
		if (!*id || id[strspn(id, id_chars)] || strlen(id) >= sizeof h.board) {
			rd_set_err(err, errlen, "%s:%d: [%s]: board= takes one board_id (letters, digits, '_', '.', '-'; e.g. "
						"MT_0000000838)",
				   st->name, line, h.header);
			return -1;
		}
		memcpy(h.board, id, strlen(id) + 1);
	} else if (*scope) {
		rd_set_err(err, errlen, "%s:%d: [%s]: '%s' is not a scope (@HOSTLIST or board=BOARD_ID)", st->name, line,
			   h.header, scope);
		return -1;
	}
	st->hdr = rd_xrealloc(st->hdr, (st->nhdr + 1) * sizeof *st->hdr);
	st->hdr[st->nhdr++] = h;
	return 0;
}

/* The text inih reads: every header line "[K]", K its index in st->hdr; the other lines as they are. */
static char *prepass(struct parse_state *st, const char *host, char *err, size_t errlen)
{
	struct rd_buf out = {0};
	rd_buf_puts(&out, "");
	const char *line = st->text;
	for (int n = 1;; n++) {
		const char *eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		st->lines = rd_xrealloc(st->lines, (st->nlines + 1) * sizeof *st->lines);
		st->lines[st->nlines++] = (size_t)(line - st->text);
		const char *c = line;
		if (n == 1 && strncmp(c, "\xEF\xBB\xBF", 3) == 0)
			c += 3;
		while (blank(*c))
			c++;
		if (*c == '[') {
			if (header(st, c, eol, n, host, err, errlen) < 0) {
				rd_buf_free(&out);
				return NULL;
			}
			rd_buf_printf(&out, "[%zu]", st->nhdr - 1);
		} else {
			rd_buf_add(&out, line, (size_t)(eol - line));
		}
		if (!*eol)
			break;
		rd_buf_putc(&out, '\n');
		line = eol + 1;
	}
	return rd_buf_steal(&out);
}

int rd_policy_parse_host(const char *text, const char *name, const char *host, struct rd_policy *p, char *err,
			 size_t errlen)
{
	struct parse_state st = {.p = p, .text = text, .name = name, .last_k = -2};
	char why[512];
	__typeof__(&ini_parse_string) parse = inih_parse_string(why, sizeof why);
	if (!parse) {
		snprintf(err, errlen, "%s: cannot be read: %s", name, why);
		rd_policy_free(p);
		rd_policy_defaults(p);
		return -1;
	}
	rd_policy_defaults(&st.scratch);
	char *rewritten = prepass(&st, host, err, errlen);
	int line = rewritten ? parse(rewritten, handler, &st) : -1;
	free(rewritten);
	free(st.lines);
	free(st.hdr);
	rd_policy_free(&st.scratch);
	snprintf(p->origin, sizeof p->origin, "%s", name);
	snprintf(p->host, sizeof p->host, "%s", host ? host : "");
	for (size_t i = 0; line == 0 && i < p->nsettings; i++)
		if (p->settings[i].conflict) {
			snprintf(err, errlen, "%s:%d: %s", name, p->settings[i].conflict_line, p->settings[i].conflict);
			rd_policy_free(p);
			rd_policy_defaults(p);
			return -1;
		}
	if (line == 0) {
		const struct rd_policy_setting *ig = find_setting(p, "ports", "ignore");
		p->ignore_line = ig ? ig->line : 0;
		return 0;
	}
	/* the first error is either a setting the handler rejected or a line inih could not parse */
	if (line > 0)
		snprintf(err, errlen, "%s:%d: %s", name, line,
			 st.why[0] && st.why_line == line ? st.why : "syntax error (expected [section] or key = value)");
	rd_policy_free(p);
	rd_policy_defaults(p);
	return -1;
}

int rd_policy_parse(const char *text, const char *name, struct rd_policy *p, char *err, size_t errlen)
{
	return rd_policy_parse_host(text, name, NULL, p, err, errlen);
}

int rd_policy_load(const char *path, struct rd_source *src, struct rd_policy *p, char *err, size_t errlen)
{
	rd_policy_defaults(p);
	struct rd_attr hostname = {0};
	char host[RD_POLICY_HEADER_MAX] = "";
	if (src) { /* the root's name, as the report's "host": what host-scoped sections match */
		rd_host_read_name(src, &hostname);
		if (rd_attr_value(&hostname))
			snprintf(host, sizeof host, "%s", rd_attr_value(&hostname));
		rd_attr_free(&hostname);
	}
	if (!path) {
		struct rd_text t;
		if (!src || rd_read_file(src, "etc/rdma-doctor.conf", RD_CAP_ATTR, &t) < 0) {
			snprintf(p->host, sizeof p->host, "%s", host); /* no policy file: the defaults, for this host */
			return 0;
		}
		int r = rd_policy_parse_host(t.data, "/etc/rdma-doctor.conf", host, p, err, errlen);
		rd_text_free(&t);
		return r;
	}
	FILE *f = fopen(path, "r");
	struct stat st;
	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f) {
		snprintf(err, errlen, "%s: cannot read the policy file: %s", path, strerror(errno));
		return -1;
	}
	struct rd_buf b = {0};
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < RD_CAP_ATTR)
		rd_buf_add(&b, chunk, n);
	int rerr = ferror(f) ? errno : 0;
	bool bad = ferror(f) || b.len >= RD_CAP_ATTR;
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "%s: cannot read the policy file: %s", path,
			 b.len >= RD_CAP_ATTR ? "too large" : rerr ? strerror(rerr) : "read error");
		rd_buf_free(&b);
		return -1;
	}
	int r = rd_policy_parse_host(b.data ? b.data : "", path, host, p, err, errlen);
	rd_buf_free(&b);
	return r;
}
