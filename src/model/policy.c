/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "model/policy.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/gid.h"
#include "model/host.h"
#include "model/parse.h"
#include "model/pcidevctl.h"
#include "util/dl.h"

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

void rd_policy_free(struct rd_policy *p)
{
	rd_strv_free(&p->modules);
	rd_strv_free(&p->services);
	rd_strv_free(&p->ignore);
	rd_strv_free(&p->counters_exclude);
	rd_strv_free(&p->data_ports);
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

struct parse_state {
	struct rd_policy *p;
	char why[256]; /* the first rejected setting's reason */
	char key[64];  /* and its key, to find its line (inih does not pass line numbers) */
};

static int fail_key(struct parse_state *st, const char *key, const char *fmt, const char *a, const char *b)
{
	if (!st->why[0]) {
		if (snprintf(st->why, sizeof st->why, fmt, a, b) >= (int)sizeof st->why)
			strcpy(st->why + sizeof st->why - 4, "...");
		snprintf(st->key, sizeof st->key, "%s", key);
	}
	return 0;
}
#define fail(st, fmt, a, b) fail_key(st, key, fmt, a, b)

/* Line number (1-based) of the first "key =" or "key :" line, 0 if none. */
static int key_line(const char *text, const char *key)
{
	size_t kl = strlen(key);
	int n = 1;
	for (const char *line = text; *line; n++) {
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, key, kl) == 0) {
			p += kl;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == '=' || *p == ':')
				return n;
		}
		const char *nl = strchr(line, '\n');
		if (!nl)
			break;
		line = nl + 1;
	}
	return 0;
}

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

static int handler(void *user, const char *section, const char *key, const char *raw)
{
	struct parse_state *st = user;
	struct rd_policy *p = st->p;
	double d;
	uint64_t u;
	char value[4096];
	strip_comment(raw, value, sizeof value);
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
		if (p->npins >= RD_POLICY_MAX)
			return fail(st, "too many firmware pins (at most %s)%s", "32", "");
		if (strlen(key) >= sizeof p->pins[0].board_id || strlen(value) >= sizeof p->pins[0].fw_ver || !*value)
			return fail(st, "firmware pin '%s = %s' is too long or empty", key, value);
		strcpy(p->pins[p->npins].board_id, key);
		strcpy(p->pins[p->npins].fw_ver, value);
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
		if (p->nmlxconfig >= RD_POLICY_MAX)
			return fail(st, "too many mlxconfig settings (at most %s)%s", "32", "");
		/* both go into the printed `mlxconfig set NAME=VALUE`: only what mlxconfig names and values use */
		static const char name_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_[]./";
		static const char value_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_().-";
		if (strlen(key) >= sizeof p->mlxconfig[0].name || strlen(value) >= sizeof p->mlxconfig[0].value || !*value ||
		    key[strspn(key, name_chars)] || value[strspn(value, value_chars)] || key[0] == '/' ||
		    (strchr(key, '/') && (strchr(key, '/') != strrchr(key, '/') || !strrchr(key, '/')[1])))
			return fail(st, "mlxconfig setting '%s = %s' is not NAME = VALUE as mlxconfig prints them", key, value);
		memcpy(p->mlxconfig[p->nmlxconfig].name, key, strlen(key) + 1);
		memcpy(p->mlxconfig[p->nmlxconfig].value, value, strlen(value) + 1);
		p->nmlxconfig++;
	} else if (link_key(st, p, section, key, value, &d) != 0 || watch_key(st, p, section, key, value) != 0) {
		return st->why[0] ? 0 : 1;
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

int rd_policy_parse(const char *text, const char *name, struct rd_policy *p, char *err, size_t errlen)
{
	struct parse_state st = {.p = p};
	char why[512];
	__typeof__(&ini_parse_string) parse = inih_parse_string(why, sizeof why);
	if (!parse) {
		snprintf(err, errlen, "%s: cannot be read: %s", name, why);
		rd_policy_free(p);
		rd_policy_defaults(p);
		return -1;
	}
	int line = parse(text, handler, &st);
	snprintf(p->origin, sizeof p->origin, "%s", name);
	if (line == 0) {
		p->ignore_line = key_line(text, "ignore");
		return 0;
	}
	/* the first error is either a setting the handler rejected or a line inih could not parse */
	bool rejected = st.why[0] && key_line(text, st.key) == line;
	snprintf(err, errlen, "%s:%d: %s", name, line,
		 rejected ? st.why : "syntax error (expected [section] or key = value)");
	rd_policy_free(p);
	rd_policy_defaults(p);
	return -1;
}

int rd_policy_load(const char *path, struct rd_source *src, struct rd_policy *p, char *err, size_t errlen)
{
	rd_policy_defaults(p);
	if (!path) {
		struct rd_text t;
		if (!src || rd_read_file(src, "etc/rdma-doctor.conf", RD_CAP_ATTR, &t) < 0)
			return 0; /* no policy file: the defaults */
		int r = rd_policy_parse(t.data, "/etc/rdma-doctor.conf", p, err, errlen);
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
	int r = rd_policy_parse(b.data ? b.data : "", path, p, err, errlen);
	rd_buf_free(&b);
	return r;
}
