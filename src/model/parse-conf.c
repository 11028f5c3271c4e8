/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Configuration files: modules-load.d, openib.conf, systemd unit values, limits.conf
 * (parse.h). */
#include "model/parse-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool module_name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= 56)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

/* One line as systemd-modules-load judges it: stripped of blanks; empty, or first character '#'
 * or ';', is a comment; anything else is taken whole as one module name. */
static void modules_load_line(const char *p, const char *end, unsigned lineno, struct rd_strv *modules,
			      struct rd_modload_bad **bad, size_t *nbad)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (p == end || *p == '#' || *p == ';')
		return;
	if (module_name_ok(p, (size_t)(end - p))) {
		char *m = rd_xstrndup(p, (size_t)(end - p));
		for (char *c = m; *c; c++)
			if (*c == '-')
				*c = '_';
		rd_strv_push_owned(modules, m);
		return;
	}
	if (bad) {
		struct rd_buf shown = {0};
		size_t n = (size_t)(end - p) > 80 ? 80 : (size_t)(end - p);
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)p[i];
			if (c < 0x20 || c == 0x7f || c == '\\')
				rd_buf_printf(&shown, "\\x%02x", c);
			else
				rd_buf_add(&shown, (const char *)&p[i], 1);
		}
		if ((size_t)(end - p) > n)
			rd_buf_printf(&shown, "...");
		*bad = rd_xrealloc(*bad, (*nbad + 1) * sizeof **bad);
		(*bad)[*nbad].line = lineno;
		(*bad)[*nbad].text = rd_buf_steal(&shown);
	}
	++*nbad;
}

size_t rd_parse_modules_load(const char *text, size_t len, struct rd_strv *modules, struct rd_modload_bad **bad,
			     size_t *nbad)
{
	size_t count = 0;
	if (!nbad)
		nbad = &count;
	*nbad = 0;
	if (bad)
		*bad = NULL;
	unsigned lineno = 1;
	const char *p = text, *end = text ? text + len : NULL;
	while (p && p < end) {
		/* systemd's read_line ends a line at '\n', '\r', "\r\n" or a NUL byte; the line
		 * number is the editor's (counted in '\n') */
		const char *e = p;
		while (e < end && *e != '\n' && *e != '\r' && *e != '\0')
			e++;
		modules_load_line(p, e, lineno, modules, bad, nbad);
		if (e < end && *e == '\r' && e + 1 < end && e[1] == '\n')
			e++;
		if (e < end && *e == '\n')
			lineno++;
		p = e + 1;
	}
	return *nbad;
}

void rd_modload_bad_free(struct rd_modload_bad *bad, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(bad[i].text);
	free(bad);
}

int rd_parse_openib_conf(const char *text, struct rd_strv *modules)
{
	static const struct {
		const char *key;
		const char *mods;
	} map[] = {
		{"UCM_LOAD", "ib_ucm"},        {"RDMA_CM_LOAD", "rdma_cm"},   {"RDMA_UCM_LOAD", "rdma_ucm"},
		{"IPOIB_LOAD", "ib_ipoib"},    {"SRP_LOAD", "ib_srp"},        {"SRPT_LOAD", "ib_srpt"},
		{"ISER_LOAD", "ib_iser"},      {"ISERT_LOAD", "ib_isert"},    {"RDS_LOAD", "rds_rdma"},
		{"UMAD_LOAD", "ib_umad"},      {"UVERBS_LOAD", "ib_uverbs"},  {"MLX4_LOAD", "mlx4_core mlx4_ib"},
		{"MLX5_LOAD", "mlx5_core mlx5_ib"}, {"MLX4_EN_LOAD", "mlx4_en"}, {"E_IPOIB_LOAD", "eth_ipoib"},
		{"NVME_LOAD", "nvme_rdma"},    {"NVMET_LOAD", "nvmet_rdma"},  {"MLX5_FPGA_LOAD", "mlx5_fpga_tools"},
	};
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *p = line;
		while ((size_t)(p - line) < len && isspace((unsigned char)*p))
			p++;
		const char *eq = memchr(p, '=', len - (size_t)(p - line));
		if (*p != '#' && eq) {
			size_t klen = (size_t)(eq - p);
			const char *v = eq + 1;
			size_t vlen = len - (size_t)(v - line);
			while (vlen && isspace((unsigned char)v[vlen - 1]))
				vlen--;
			if (vlen >= 2 && (v[0] == '"' || v[0] == '\'') && v[vlen - 1] == v[0]) {
				v++;
				vlen -= 2;
			}
			bool yes = vlen == 3 && strncasecmp(v, "yes", 3) == 0;
			if (yes && klen > 5 && strncmp(eq - 5, "_LOAD", 5) == 0) {
				bool known = false;
				for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
					if (strlen(map[i].key) == klen && strncmp(map[i].key, p, klen) == 0) {
						char *copy = rd_xstrdup(map[i].mods);
						for (char *t = strtok(copy, " "); t; t = strtok(NULL, " "))
							if (!rd_strv_contains(modules, t))
								rd_strv_push(modules, t);
						free(copy);
						known = true;
					}
				if (!known) {
					char *m = rd_xstrndup(p, klen - 5);
					for (char *c = m; *c; c++)
						*c = (char)tolower((unsigned char)*c);
					if (module_name_ok(m, strlen(m)) && !rd_strv_contains(modules, m))
						rd_strv_push_owned(modules, m);
					else
						free(m);
				}
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

int rd_parse_systemd_size(const char *s, uint64_t *bytes)
{
	*bytes = 0;
	if (!s)
		return -RD_EPARSE;
	s = skip_blanks(s);
	if (strncmp(s, "infinity", 8) == 0 && at_end(s + 8)) {
		*bytes = UINT64_MAX;
		return 0;
	}
	uint64_t v;
	const char *p = s;
	if (scan_digits(&p, 10, UINT64_MAX, &v) <= 0)
		return -RD_EPARSE;
	uint64_t mul = 1;
	switch (*p) {
	case 'K': mul = 1ULL << 10; p++; break;
	case 'M': mul = 1ULL << 20; p++; break;
	case 'G': mul = 1ULL << 30; p++; break;
	case 'T': mul = 1ULL << 40; p++; break;
	default: break;
	}
	if (!at_end(p) || (mul > 1 && v > UINT64_MAX / mul))
		return -RD_EPARSE;
	*bytes = v * mul;
	return 0;
}

bool rd_systemd_value(const char *text, const char *key, char *buf, size_t len)
{
	bool found = false;
	size_t kl = strlen(key);
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *p = skip_blanks(line);
		if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
			const char *v = skip_blanks(p + kl + 1);
			size_t n = nl ? (size_t)(nl - v) : strlen(v);
			while (n && isspace((unsigned char)v[n - 1]))
				n--;
			if (n >= len)
				n = len - 1;
			memcpy(buf, v, n);
			buf[n] = '\0';
			found = true; /* the last assignment wins */
		}
		line = nl ? nl + 1 : NULL;
	}
	return found;
}

int rd_limits_conf_memlock(const char *text, const char *user, uint64_t *soft, uint64_t *hard)
{
	int found = 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		char dom[64], type[16], item[32], val[32];
		const char *p = line;
		if (*skip_blanks(p) != '#' && next_token(&p, dom, sizeof dom) && next_token(&p, type, sizeof type) &&
		    next_token(&p, item, sizeof item) && next_token(&p, val, sizeof val) &&
		    strcmp(item, "memlock") == 0 && (strcmp(dom, "*") == 0 || (user && strcmp(dom, user) == 0))) {
			uint64_t v;
			bool ok = true;
			if (strcmp(val, "unlimited") == 0 || strcmp(val, "infinity") == 0 || strcmp(val, "-1") == 0)
				v = UINT64_MAX;
			else if (rd_parse_u64(val, 10, UINT64_MAX / 1024, &v) == 0)
				v *= 1024;
			else
				ok = false;
			if (ok) {
				if (strcmp(type, "soft") == 0 || strcmp(type, "-") == 0)
					*soft = v;
				if (strcmp(type, "hard") == 0 || strcmp(type, "-") == 0)
					*hard = v;
				found = 1;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return found;
}
