/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Parsers of mlxlink, mlxconfig, flint, mlnx_qos, dcb and ethtool -S output, and their per-device loader
 * (model/mft.h).  The formats: Mellanox/mstflint (mlxlink's "Key : value" sections, mlxconfig's
 * query table, flint's "Key: value" lines), MLNX_OFED's mlnx_qos, iproute2's dcb-pfc(8). */
#include "model/mft.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "source/source.h"
#include "util/util.h"

/* ---- ANSI escapes ----------------------------------------------------------------------------- */

void rd_strip_ansi(char *s, size_t *len)
{
	size_t n = *len, o = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c != 0x1b) {
			s[o++] = s[i++];
			continue;
		}
		i++;
		if (i < n && s[i] == '[') { /* CSI: parameters and intermediates, then one final byte */
			for (i++; i < n && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e); i++)
				;
			if (i < n)
				i++;
		} else if (i < n && s[i] == ']') { /* OSC: to BEL or ESC \ */
			for (i++; i < n && s[i] != '\a' && s[i] != 0x1b; i++)
				;
			if (i < n && s[i] == '\a')
				i++;
			else if (i + 1 < n && s[i] == 0x1b && s[i + 1] == '\\')
				i += 2;
		} else if (i < n && (unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x5f) {
			i++; /* a two-byte sequence */
		}
	}
	s[o] = '\0';
	*len = o;
}

/* ---- small text helpers ----------------------------------------------------------------------- */

/* A copy of s[0..n) without leading and trailing blanks. */
static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return rd_xstrndup(s, n);
}

/* A loop over the lines of text: line and its length len (without the newline).  Two nested
 * loops: use continue, or return, never break. */
#define FOR_LINES(text, line, len)                                                                   \
	for (const char *line = (text), *nl_ = NULL; line && *line; line = nl_ ? nl_ + 1 : NULL)         \
		for (size_t len = (nl_ = strchr(line, '\n')) ? (size_t)(nl_ - line) : strlen(line), once_ = 1; \
		     once_; once_ = 0)

/* "key <sep> value": key and value trimmed; false when the line has no sep. */
static bool split_kv(const char *line, size_t len, char sep, char **key, char **value)
{
	const char *c = memchr(line, sep, len);
	if (!c)
		return false;
	*key = trimmed(line, (size_t)(c - line));
	*value = trimmed(c + 1, len - (size_t)(c - line) - 1);
	return true;
}

static bool parse_long(const char *s, long long *out)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 0);
	if (errno || *end || end == s)
		return false;
	*out = v;
	return true;
}

/* ---- mlxlink -------------------------------------------------------------------------------- */

int rd_parse_ber(const char *s, double *out)
{
	*out = 0;
	if (!s)
		return -RD_EPARSE;
	const char *p = s;
	size_t digits = 0;
	while (isdigit((unsigned char)*p))
		p++, digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits || (*p != 'E' && *p != 'e'))
		return -RD_EPARSE;
	p++;
	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return -RD_EPARSE;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p)
		return -RD_EPARSE;
	*out = strtod(s, NULL);
	return 0;
}

const char *rd_mlxlink_opcode_class(long op)
{
	if (op == 0 || op == 1023)
		return "ok";
	if (op == 1024)
		return "cable unplugged";
	if (op > 0 && op < 1023)
		return "PHY firmware";
	if (op > 1024 && op < 2048)
		return "management firmware";
	return "core/driver";
}

/* mlxlink --json prints one "Key" : "value", per line (jsoncpp's styled writer): the quotes and
 * the comma go; an object or array opening ("Operational Info" : {) is no field.  False then. */
static bool json_kv(char *k, char *v)
{
	size_t kn = strlen(k), vn = strlen(v);
	if (kn < 2 || k[0] != '"' || k[kn - 1] != '"')
		return true;
	memmove(k, k + 1, kn - 2);
	k[kn - 2] = '\0';
	if (vn && v[vn - 1] == ',')
		v[--vn] = '\0';
	if (vn && (v[0] == '{' || v[0] == '['))
		return false;
	if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"') {
		memmove(v, v + 1, vn - 2);
		v[vn - 2] = '\0';
	}
	return true;
}

/* "Time Since Last Clear [Min]" (MFT 4.2x-4.3x, mstflint's mstlink): the key without its unit,
 * the unit in unit ("" when none). */
static void key_unit(char *k, char *unit, size_t len)
{
	unit[0] = '\0';
	size_t n = strlen(k);
	char *open = n && k[n - 1] == ']' ? strrchr(k, '[') : NULL;
	if (!open || open == k)
		return;
	snprintf(unit, len, "%.*s", (int)(k + n - 1 - open - 1), open + 1);
	while (open > k && open[-1] == ' ')
		open--;
	*open = '\0';
}

/* "25074.8" minutes -> "25074.8 min (17 days 09:54)"; other values and units as printed. */
static char *time_since_clear(char *v, const char *unit)
{
	if (strcasecmp(unit, "Min") != 0)
		return v;
	char *end;
	errno = 0;
	double min = strtod(v, &end);
	if (errno || end == v || *end || !(min >= 0) || min > 1e9)
		return v;
	long long total = (long long)min;
	long long days = total / 1440, hours = total / 60 % 24, mins = total % 60;
	char *out = days ? rd_xasprintf("%s min (%lld day%s %02lld:%02lld)", v, days, days == 1 ? "" : "s", hours, mins)
			 : rd_xasprintf("%s min (%02lld:%02lld)", v, hours, mins);
	free(v);
	return out;
}

/* One number of a DDM line, s[0..n): the whole of it, finite. */
static bool ddm_number(const char *s, size_t n, double *out)
{
	char buf[48];
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n || n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (errno || end == buf || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

int rd_parse_ddm(const char *text, struct rd_ddm *d)
{
	d->n = 0;
	d->th = false;
	d->lo = d->hi = 0;
	if (!text)
		return -RD_EPARSE;
	size_t len = strlen(text);
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	while (len && isspace((unsigned char)*text))
		text++, len--;
	if (!len || (len == 3 && !strncasecmp(text, "N/A", 3)))
		return 0;
	const char *open = memchr(text, '[', len);
	size_t vlen = open ? (size_t)(open - text) : len;
	double v[RD_DDM_LANES];
	size_t n = 0;
	for (const char *p = text, *end = text + vlen; p < end;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		if (n == RD_DDM_LANES || !ddm_number(p, (size_t)(stop - p), &v[n]))
			return -RD_EPARSE;
		n++;
		p = comma ? comma + 1 : end;
		if (comma && p == end)
			return -RD_EPARSE; /* a trailing comma */
	}
	if (!n)
		return -RD_EPARSE;
	double lo = 0, hi = 0;
	bool th = false;
	if (open) {
		/* "[LOW..HIGH]" and nothing after it; "..", not strtod, splits "-5..75" */
		const char *in = open + 1, *close = text + len - 1;
		if (*close != ']' || close < in)
			return -RD_EPARSE;
		const char *dots = NULL;
		for (const char *q = in; q + 1 < close; q++)
			if (q[0] == '.' && q[1] == '.') {
				dots = q;
				break;
			}
		if (!dots || !ddm_number(in, (size_t)(dots - in), &lo) || !ddm_number(dots + 2, (size_t)(close - dots - 2), &hi))
			return -RD_EPARSE;
		th = lo < hi;
	}
	memcpy(d->v, v, n * sizeof v[0]);
	d->n = n;
	d->lo = lo;
	d->hi = hi;
	d->th = th;
	return 0;
}

bool rd_module_passive_copper(const struct rd_mlxlink_module *m)
{
	const char *f[] = {m->cable_type, m->cable_tech};
	for (size_t i = 0; i < 2; i++)
		if (f[i] && strcasestr(f[i], "copper") && strcasestr(f[i], "passive"))
			return true;
	return false;
}

/* The Module Info field k (its unit already cut off) of m, as a string field or a DDM line. */
static char **module_field(struct rd_mlxlink_module *m, const char *k, struct rd_ddm **ddm)
{
	static const struct {
		const char *key;
		size_t off;
	} str[] = {
		{"Identifier", offsetof(struct rd_mlxlink_module, identifier)},
		{"Cable Type", offsetof(struct rd_mlxlink_module, cable_type)},
		{"Cable Technology", offsetof(struct rd_mlxlink_module, cable_tech)},
		{"Vendor Name", offsetof(struct rd_mlxlink_module, vendor)},
		{"Vendor Part Number", offsetof(struct rd_mlxlink_module, part)},
		{"Vendor Serial Number", offsetof(struct rd_mlxlink_module, serial)},
		{"Digital Diagnostic Monitoring", offsetof(struct rd_mlxlink_module, ddm_supported)},
	};
	static const struct {
		const char *key;
		size_t off;
	} dd[] = {
		{"Temperature", offsetof(struct rd_mlxlink_module, temp)},
		{"Voltage", offsetof(struct rd_mlxlink_module, voltage)},
		{"Bias Current", offsetof(struct rd_mlxlink_module, bias)},
		{"Rx Power Current", offsetof(struct rd_mlxlink_module, rx)},
		{"Tx Power Current", offsetof(struct rd_mlxlink_module, tx)},
	};
	*ddm = NULL;
	for (size_t i = 0; i < sizeof str / sizeof str[0]; i++)
		if (!strcasecmp(k, str[i].key))
			return (char **)((char *)m + str[i].off);
	for (size_t i = 0; i < sizeof dd / sizeof dd[0]; i++)
		if (!strcasecmp(k, dd[i].key)) {
			*ddm = (struct rd_ddm *)((char *)m + dd[i].off);
			return &(*ddm)->text;
		}
	return NULL;
}

int rd_parse_mlxlink(const char *text, struct rd_mlxlink_info *m)
{
	memset(m, 0, sizeof *m);
	m->status_opcode = -1;
	bool any = false;
	FOR_LINES(text, line, len)
	{
		char *k, *v, unit[16];
		if (!split_kv(line, len, ':', &k, &v))
			continue;
		if (!json_kv(k, v)) {
			free(k);
			free(v);
			continue;
		}
		key_unit(k, unit, sizeof unit);
		char **dst = NULL;
		if (!strcasecmp(k, "State"))
			dst = &m->state;
		else if (!strcasecmp(k, "Physical state"))
			dst = &m->phys_state;
		else if (!strcasecmp(k, "Speed"))
			dst = &m->speed;
		else if (!strcasecmp(k, "Width"))
			dst = &m->width;
		else if (!strcasecmp(k, "FEC"))
			dst = &m->fec;
		else if (!strcasecmp(k, "Group Opcode"))
			dst = &m->group_opcode;
		else if (!strcasecmp(k, "Recommendation"))
			dst = &m->recommendation;
		else if (!strcasecmp(k, "Firmware Version"))
			dst = &m->fw_version;
		else if (!strcasecmp(k, "Time Since Last Clear"))
			dst = &m->time_since_clear;
		else if (!strcasecmp(k, "Effective Physical Errors"))
			dst = &m->eff_errors;
		else if (!strcasecmp(k, "Effective Physical BER"))
			dst = &m->eff_ber;
		else if (!strcasecmp(k, "Raw Physical BER"))
			dst = &m->raw_ber;
		else if (!strcasecmp(k, "Raw Physical Errors Per Lane"))
			dst = &m->raw_errors_lanes;
		struct rd_ddm *ddm;
		char **mf = dst ? NULL : module_field(&m->module, k, &ddm);
		if (mf) {
			/* the first of each, as for the other fields; "N/A" is no string (a DDM line keeps it) */
			if (!*mf && *v && (ddm || strcasecmp(v, "N/A") != 0)) {
				m->module.present = true;
				if (ddm)
					rd_parse_ddm(v, ddm);
				*mf = v;
				v = NULL;
			}
		} else if (!strcasecmp(k, "Status Opcode")) {
			long long op;
			if (parse_long(v, &op) && op >= 0 && op < 1000000) {
				m->status_opcode = (long)op;
				any = true;
			}
		} else if (dst && !*dst && *v) {
			if (dst == &m->time_since_clear)
				v = time_since_clear(v, unit);
			*dst = v;
			v = NULL;
			any |= dst == &m->state || dst == &m->eff_ber;
		}
		free(k);
		free(v);
	}
	if (m->eff_ber)
		m->eff_ber_ok = rd_parse_ber(m->eff_ber, &m->eff_ber_v) == 0;
	return any ? 0 : -RD_EPARSE;
}

void rd_mlxlink_info_free(struct rd_mlxlink_info *m)
{
	char **f[] = {&m->state, &m->phys_state, &m->speed, &m->width, &m->fec, &m->group_opcode, &m->recommendation,
		      &m->fw_version, &m->time_since_clear, &m->eff_errors, &m->eff_ber, &m->raw_ber, &m->raw_errors_lanes};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		free(*f[i]);
	struct rd_mlxlink_module *mo = &m->module;
	char *g[] = {mo->identifier, mo->cable_type, mo->cable_tech, mo->vendor, mo->part, mo->serial, mo->ddm_supported,
		     mo->temp.text, mo->voltage.text, mo->bias.text, mo->rx.text, mo->tx.text};
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
		free(g[i]);
	memset(m, 0, sizeof *m);
	m->status_opcode = -1;
}

/* ---- mlxconfig ------------------------------------------------------------------------------ */

static bool param_name(const char *s)
{
	if (!isupper((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isupper((unsigned char)*s) && !isdigit((unsigned char)*s) && !strchr("_[].", *s))
			return false;
	return true;
}

int rd_parse_mlxconfig(const char *text, struct rd_mlxconfig_info *m)
{
	memset(m, 0, sizeof *m);
	int ncols = 0, devices = 0;
	bool in_table = false, done = false;
	FOR_LINES(text, line, len)
	{
		if (done)
			continue; /* (FOR_LINES is two loops: no break) */
		char *l = trimmed(line, len);
		if (rd_str_has_prefix(l, "Device #") && ++devices > 1) {
			free(l);
			done = true; /* the first device only */
			continue;
		}
		if (rd_str_has_prefix(l, "Device type:") && !m->device_type) {
			m->device_type = trimmed(l + 12, strlen(l + 12));
		} else if (rd_str_has_prefix(l, "Configurations:")) {
			const char *h = l + 15;
			m->has_default = strstr(h, "Default") != NULL;
			m->has_current = strstr(h, "Current") != NULL;
			ncols = 1 + m->has_default + m->has_current;
			in_table = strstr(h, "Next Boot") != NULL;
		} else if (in_table && *l) {
			char *p = l;
			if (*p == '*')
				p++;
			char *tok[8];
			size_t nt = 0;
			char *save = NULL;
			for (char *t = strtok_r(p, " \t", &save); t && nt < 8; t = strtok_r(NULL, " \t", &save))
				tok[nt++] = t;
			if (nt >= 2 && param_name(tok[0]) && strlen(tok[0]) < 128) {
				m->params = rd_xrealloc(m->params, (m->nparams + 1) * sizeof *m->params);
				struct rd_mlxconfig_param *pr = &m->params[m->nparams++];
				memset(pr, 0, sizeof *pr);
				pr->name = rd_xstrdup(tok[0]);
				pr->next = rd_xstrdup(tok[nt - 1]);
				if ((int)nt - 1 == ncols) {
					size_t c = 1;
					if (m->has_default)
						pr->dflt = rd_xstrdup(tok[c++]);
					if (m->has_current)
						pr->current = rd_xstrdup(tok[c++]);
				}
			}
		}
		free(l);
	}
	return m->nparams ? 0 : -RD_EPARSE;
}

void rd_mlxconfig_info_free(struct rd_mlxconfig_info *m)
{
	for (size_t i = 0; i < m->nparams; i++) {
		free(m->params[i].name);
		free(m->params[i].dflt);
		free(m->params[i].current);
		free(m->params[i].next);
	}
	free(m->params);
	free(m->device_type);
	memset(m, 0, sizeof *m);
}

const struct rd_mlxconfig_param *rd_mlxconfig_find(const struct rd_mlxconfig_info *m, const char *name)
{
	for (size_t i = 0; i < m->nparams; i++)
		if (strcasecmp(m->params[i].name, name) == 0)
			return &m->params[i];
	return NULL;
}

struct cfg_value {
	char name[128];
	char numtext[64];
	long long num;
	bool has_num;
};

/* "IB(1)" -> name IB, number 1; "255" -> number; "per_mkey" -> name. */
static void cfg_split(const char *v, struct cfg_value *out)
{
	memset(out, 0, sizeof *out);
	size_t n = strlen(v);
	const char *open = n && v[n - 1] == ')' ? strrchr(v, '(') : NULL;
	if (open) {
		size_t nl = (size_t)(open - v), il = n - nl - 2;
		if (nl < sizeof out->name && il < sizeof out->numtext) {
			memcpy(out->numtext, open + 1, il);
			out->numtext[il] = '\0';
			if (parse_long(out->numtext, &out->num)) {
				memcpy(out->name, v, nl);
				out->name[nl] = '\0';
				out->has_num = true;
				return;
			}
		}
	}
	if (n < sizeof out->numtext && parse_long(v, &out->num)) {
		snprintf(out->numtext, sizeof out->numtext, "%s", v);
		out->has_num = true;
	} else {
		snprintf(out->name, sizeof out->name, "%s", v);
	}
}

bool rd_mlxconfig_value_matches(const char *have, const char *want)
{
	if (!have || !want)
		return false;
	if (strcasecmp(have, want) == 0)
		return true;
	struct cfg_value h, w;
	cfg_split(have, &h);
	cfg_split(want, &w);
	if (w.has_num)
		return h.has_num && h.num == w.num;
	return w.name[0] && h.name[0] && strcasecmp(h.name, w.name) == 0;
}

const char *rd_mlxconfig_set_value(const char *want, char *buf, size_t len)
{
	struct cfg_value w;
	cfg_split(want, &w);
	snprintf(buf, len, "%s", w.has_num ? w.numtext : want);
	return buf;
}

/* ---- flint ---------------------------------------------------------------------------------- */

int rd_parse_flint(const char *text, struct rd_flint_info *f)
{
	memset(f, 0, sizeof *f);
	FOR_LINES(text, line, len)
	{
		char *k, *v;
		if (!split_kv(line, len, ':', &k, &v))
			continue;
		char **dst = NULL;
		if (!strcasecmp(k, "FW Version"))
			dst = &f->fw_version;
		else if (!strcasecmp(k, "FW Version(Running)"))
			dst = &f->fw_running;
		else if (!strcasecmp(k, "PSID"))
			dst = &f->psid;
		else if (!strcasecmp(k, "Product Version"))
			dst = &f->product_version;
		if (dst && !*dst && *v && !strchr(v, ' ')) {
			*dst = v;
			v = NULL;
		}
		free(k);
		free(v);
	}
	return f->fw_version || f->psid ? 0 : -RD_EPARSE;
}

void rd_flint_info_free(struct rd_flint_info *f)
{
	free(f->fw_version);
	free(f->fw_running);
	free(f->psid);
	free(f->product_version);
	memset(f, 0, sizeof *f);
}

/* ---- QoS ------------------------------------------------------------------------------------ */

static bool set_trust(const char *word, size_t n, char trust[8])
{
	if ((n == 4 && !strncasecmp(word, "dscp", 4)) || (n == 3 && !strncasecmp(word, "pcp", 3))) {
		for (size_t i = 0; i < n; i++)
			trust[i] = (char)tolower((unsigned char)word[i]);
		trust[n] = '\0';
		return true;
	}
	return false;
}

/* "enabled 0 0 0 1 0 0 0 0" (a row of mlnx_qos's PFC table). */
static bool pfc_row(const char *line, size_t len, int pfc[8])
{
	char *l = trimmed(line, len);
	bool ok = false;
	if (rd_str_has_prefix(l, "enabled") && isspace((unsigned char)l[7])) {
		int v[8], n = 0;
		char *save = NULL;
		ok = true;
		for (char *t = strtok_r(l + 7, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
			if (n >= 8 || (strcmp(t, "0") && strcmp(t, "1"))) {
				ok = false;
				break;
			}
			v[n++] = *t - '0';
		}
		if (ok && n == 8)
			memcpy(pfc, v, sizeof v);
		ok = ok && n == 8;
	}
	free(l);
	return ok;
}

int rd_parse_mlnx_qos(const char *text, struct rd_qos_info *q)
{
	memset(q, 0, sizeof *q);
	bool in_pfc = false, trust = false;
	FOR_LINES(text, line, len)
	{
		char *k, *v;
		if (!trust && split_kv(line, len, ':', &k, &v)) {
			if (!strcasecmp(k, "Priority trust state"))
				trust = set_trust(v, strlen(v), q->trust);
			free(k);
			free(v);
		}
		char *l = trimmed(line, len);
		if (rd_str_has_prefix(l, "PFC configuration"))
			in_pfc = true;
		else if (in_pfc && !q->pfc_ok && pfc_row(line, len, q->pfc))
			q->pfc_ok = true;
		else if (rd_str_has_prefix(l, "tc:"))
			in_pfc = false;
		free(l);
	}
	return trust || q->pfc_ok ? 0 : -RD_EPARSE;
}

int rd_parse_dscp2prio(const char *text, signed char map[64])
{
	signed char m[64];
	memset(m, -1, sizeof m);
	int seen = 0;
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		const char *p = l;
		while (p < l + len && (*p == ' ' || *p == '\t'))
			p++;
		if (l + len - p > 7 && !strncmp(p, "prio:", 5) && p[5] >= '0' && p[5] <= '7' && !strncmp(p + 6, " dscp:", 6)) {
			int prio = p[5] - '0';
			for (const char *q = p + 12; q < l + len;) {
				if (*q == ',' || *q == ' ' || *q == '\t' || *q == '\r') {
					q++;
					continue;
				}
				if (*q < '0' || *q > '9')
					return -RD_EPARSE;
				int d = 0, digits = 0;
				while (q < l + len && *q >= '0' && *q <= '9' && digits < 3)
					d = d * 10 + (*q++ - '0'), digits++;
				if (d > 63 || m[d] >= 0)
					return -RD_EPARSE;
				m[d] = (signed char)prio;
				seen++;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	if (seen != 64)
		return -RD_EPARSE;
	memcpy(map, m, sizeof m);
	return 0;
}

int rd_parse_tclass(const char *text)
{
	const char *p = strstr(text, "tclass=");
	p = p ? p + 7 : text;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n' || !strncmp(p, "-1", 2))
		return -1;
	char *end;
	long v = strtol(p, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	return end != p && !*end && v >= 0 && v <= 255 ? (int)v : -2;
}

int rd_parse_dcb_pfc(const char *text, struct rd_qos_info *q)
{
	memset(q, 0, sizeof *q);
	char *copy = rd_xstrdup(text);
	bool in = false;
	int seen = 0;
	char *save = NULL;
	for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(t, "prio-pfc")) {
			in = true;
			continue;
		}
		if (!in)
			continue;
		if (t[0] >= '0' && t[0] <= '7' && t[1] == ':' && (!strcmp(t + 2, "on") || !strcmp(t + 2, "off"))) {
			q->pfc[t[0] - '0'] = strcmp(t + 2, "on") == 0;
			seen |= 1 << (t[0] - '0');
		} else {
			in = false;
		}
	}
	free(copy);
	q->pfc_ok = seen == 0xff;
	if (!q->pfc_ok)
		memset(q->pfc, 0, sizeof q->pfc);
	return q->pfc_ok ? 0 : -RD_EPARSE;
}

int rd_parse_qos_trust(const char *text, char trust[8])
{
	trust[0] = '\0';
	if (!text)
		return -RD_EPARSE;
	size_t n = strlen(text);
	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	size_t b = n;
	while (b && !isspace((unsigned char)text[b - 1]) && text[b - 1] != ':')
		b--;
	/* the word alone, or after "Priority trust state:" */
	const char *head = text;
	while (head < text + b && isspace((unsigned char)*head))
		head++;
	bool alone = head == text + b;
	bool labelled = !alone && strncasecmp(head, "Priority trust state:", 21) == 0 &&
			head + 21 <= text + b;
	if ((alone || labelled) && set_trust(text + b, n - b, trust))
		return 0;
	return -RD_EPARSE;
}

int rd_parse_qos_pfc(const char *text, int pfc[8])
{
	memset(pfc, 0, 8 * sizeof *pfc);
	if (!text)
		return -RD_EPARSE;
	FOR_LINES(text, line, len)
	{
		if (pfc_row(line, len, pfc))
			return 0;
	}
	char *copy = rd_xstrdup(text);
	int v[8], n = 0;
	bool ok = true;
	char *save = NULL;
	for (char *t = strtok_r(copy, " \t\n,", &save); t && ok; t = strtok_r(NULL, " \t\n,", &save)) {
		ok = n < 8 && (!strcmp(t, "0") || !strcmp(t, "1"));
		if (ok)
			v[n++] = *t - '0';
	}
	free(copy);
	if (!ok || n != 8)
		return -RD_EPARSE;
	memcpy(pfc, v, sizeof v);
	return 0;
}

/* ---- ethtool -S ------------------------------------------------------------------------------ */

/* "rx_prio" + digit 0..7 + rest: true and *rest set. */
static bool prio_name(const char *name, const char *dir, const char **rest)
{
	size_t n = strlen(dir);
	if (strncmp(name, dir, n) || strncmp(name + n, "_prio", 5) || name[n + 5] < '0' || name[n + 5] > '7')
		return false;
	*rest = name + n + 6;
	return true;
}

bool rd_ethtool_congestion_stat(const char *name)
{
	static const char *const port[] = {"rx_discards_phy", "tx_discards_phy", "rx_out_of_buffer", "rx_pause_ctrl_phy",
					   "tx_pause_ctrl_phy", "tx_global_pause", "tx_pause_storm_warning_events",
					   "tx_pause_storm_error_events", NULL};
	for (size_t i = 0; port[i]; i++)
		if (!strcmp(name, port[i]))
			return true;
	const char *r;
	if (prio_name(name, "rx", &r))
		return !strcmp(r, "_pause") || !strcmp(r, "_pause_duration") || !strcmp(r, "_discards") ||
		       !strcmp(r, "_buf_discard") || !strcmp(r, "_cong_discard");
	if (prio_name(name, "tx", &r))
		return !strcmp(r, "_pause") || !strcmp(r, "_pause_duration");
	return false;
}

const struct rd_ethtool_stat *rd_ethtool_find(const struct rd_ethtool_stats *s, const char *name)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

int rd_parse_ethtool_stats(const char *text, struct rd_ethtool_stats *out)
{
	out->n = 0;
	bool header = false, numbers = false;
	FOR_LINES(text, line, len)
	{
		char *l = trimmed(line, len);
		if (!strcmp(l, "NIC statistics:")) {
			header = true;
			free(l);
			continue;
		}
		char *colon = strchr(l, ':');
		if (colon && colon > l && colon - l < RD_ETHTOOL_NAME_MAX) {
			*colon = '\0';
			const char *v = colon + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			uint64_t val;
			bool name_ok = true;
			for (const char *c = l; *c && name_ok; c++)
				name_ok = isalnum((unsigned char)*c) || *c == '_' || *c == '-' || *c == '.';
			if (name_ok && rd_parse_u64(v, 10, UINT64_MAX, &val) == 0) {
				numbers = true;
				if (out->n < RD_ETHTOOL_MAX_STATS && rd_ethtool_congestion_stat(l) && !rd_ethtool_find(out, l)) {
					snprintf(out->v[out->n].name, sizeof out->v[out->n].name, "%s", l);
					out->v[out->n++].value = val;
				}
			}
		}
		free(l);
	}
	if (header || numbers)
		return 0;
	out->n = 0;
	return -RD_EPARSE;
}

void rd_pfc_list(uint8_t mask, char buf[16])
{
	for (int i = 0; i < 8; i++) {
		buf[2 * i] = mask & (1u << i) ? '1' : '0';
		buf[2 * i + 1] = i < 7 ? ',' : '\0';
	}
}

/* ---- the loader ----------------------------------------------------------------------------- */

static void tool_run(struct rd_source *src, const char *name, const char *const argv[], int timeout_ms,
		     struct rd_tool_out *o, struct rd_text *t)
{
	struct rd_buf cmd = {0};
	for (size_t i = 0; argv[i]; i++)
		rd_buf_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
	o->cmd = rd_buf_steal(&cmd);
	if (!rd_source_is_live(src))
		o->capture = rd_xasprintf("/rdma-doctor/commands/%s", name);
	rd_run_device_command(src, name, argv, timeout_ms, t);
	o->err = t->err;
	o->status = t->status;
	if (t->data) {
		rd_strip_ansi(t->data, &t->len);
		const char *p = t->data;
		while (*p == '\n' || *p == ' ' || *p == '\r')
			p++;
		size_t n = strcspn(p, "\n");
		if (n > 200)
			n = 200;
		o->first_line = trimmed(p, n);
		/* only visible text in evidence */
		for (char *c = o->first_line; *c; c++)
			if ((unsigned char)*c < ' ' || (unsigned char)*c == 0x7f)
				*c = ' ';
	}
}

bool rd_tool_ok(const struct rd_tool_out *o)
{
	return o->err == 0;
}

const char *rd_tool_why(const struct rd_tool_out *o, char *buf, size_t len)
{
	const char *prog = o->cmd ? o->cmd : "?";
	size_t pl = strcspn(prog, " ");
	if (o->err == RD_ENOTCAPTURED)
		snprintf(buf, len, o->capture ? "%.*s output not captured in this root" : "%.*s not run (add --mft)", (int)pl,
			 prog);
	else if (o->err == ENOENT)
		snprintf(buf, len, "%.*s is not installed", (int)pl, prog);
	else if (o->err == RD_EPARSE && o->status > 0)
		snprintf(buf, len, "%.*s exited with status %d%s%s", (int)pl, prog, o->status, o->first_line ? ": " : "",
			 o->first_line ? o->first_line : "");
	else if (o->err == RD_EPARSE)
		snprintf(buf, len, "%.*s output not understood%s%s", (int)pl, prog, o->first_line ? ": " : "",
			 o->first_line ? o->first_line : "");
	else if (o->err)
		snprintf(buf, len, "%.*s: %s", (int)pl, prog, rd_strerror(o->err));
	else
		buf[0] = '\0';
	return buf;
}

static void tool_free(struct rd_tool_out *o)
{
	free(o->cmd);
	free(o->capture);
	free(o->first_line);
	memset(o, 0, sizeof *o);
}

static bool mellanox_pf(struct rd_source *src, const struct rd_device *d)
{
	if (!d->pci_addr || !d->driver || strncmp(d->driver, "mlx", 3) != 0 || strchr(d->pci_addr, '/'))
		return false;
	char *physfn = rd_xasprintf("sys/bus/pci/devices/%s/physfn", d->pci_addr);
	bool vf = rd_exists(src, physfn);
	free(physfn);
	return !vf;
}

static void flint_attr(struct rd_attr *a, const char *cmd, const char *value, int err)
{
	a->path = rd_xstrdup(cmd);
	a->value = value ? rd_xstrdup(value) : NULL;
	a->err = value ? 0 : err ? err : RD_EPARSE;
}

static void load_dev(struct rd_source *src, const struct rd_device *d, struct rd_mft_dev *md)
{
	md->name = rd_xstrdup(d->name);
	md->pci = rd_xstrdup(d->pci_addr);
	struct rd_text t;
	char *name = rd_xasprintf("flint-%s", d->name);
	tool_run(src, name, (const char *const[]){"flint", "-d", d->pci_addr, "query", NULL}, 15000, &md->flint_out, &t);
	if (t.data && rd_parse_flint(t.data, &md->flint) < 0 && !md->flint_out.err)
		md->flint_out.err = RD_EPARSE;
	rd_text_free(&t);
	free(name);
	int ferr = md->flint_out.err ? md->flint_out.err : md->flint_out.status ? EIO : 0;
	flint_attr(&md->flint_fw, md->flint_out.cmd, md->flint.fw_running ? md->flint.fw_running : md->flint.fw_version, ferr);
	flint_attr(&md->flint_psid, md->flint_out.cmd, md->flint.psid, ferr);

	name = rd_xasprintf("mlxconfig-%s", d->name);
	tool_run(src, name, (const char *const[]){"mlxconfig", "-d", d->pci_addr, "query", NULL}, 20000,
		 &md->mlxconfig_out, &t);
	if (t.data && rd_parse_mlxconfig(t.data, &md->config) < 0 && !md->mlxconfig_out.err)
		md->mlxconfig_out.err = RD_EPARSE;
	rd_text_free(&t);
	free(name);

	md->ports = rd_xcalloc(d->nports ? d->nports : 1, sizeof *md->ports);
	for (size_t k = 0; k < d->nports; k++) {
		struct rd_mft_port *mp = &md->ports[md->nports++];
		mp->num = d->ports[k].num;
		mp->link.status_opcode = -1;
		char num[16];
		snprintf(num, sizeof num, "%u", mp->num);
		name = rd_xasprintf("mlxlink-%s-%u", d->name, mp->num);
		tool_run(src, name, (const char *const[]){"mlxlink", "-d", d->pci_addr, "-p", num, "-m", "-c", "-e", NULL},
			 20000, &mp->mlxlink_out, &t);
		if (t.data && rd_parse_mlxlink(t.data, &mp->link) < 0 && !mp->mlxlink_out.err)
			mp->mlxlink_out.err = RD_EPARSE;
		rd_text_free(&t);
		free(name);
	}
}

static void load_qos(struct rd_source *src, const struct rd_device *d, const struct rd_port *p, struct rd_qos_port *q)
{
	const char *ifn = p->netdevs[0].name;
	q->dev = rd_xstrdup(d->name);
	q->port = p->num;
	q->ifname = rd_xstrdup(ifn);
	char *path = rd_xasprintf("sys/class/net/%s/qos/trust", ifn);
	rd_attr_read(src, path, &q->sys_trust);
	free(path);
	path = rd_xasprintf("sys/class/net/%s/qos/pfc", ifn);
	rd_attr_read(src, path, &q->sys_pfc);
	free(path);
	if (rd_attr_ok(&q->sys_trust)) {
		if (rd_parse_qos_trust(q->sys_trust.value, q->qos.trust) == 0)
			q->trust_from = "sysfs";
		else
			q->sys_trust.err = RD_EPARSE;
	}
	if (rd_attr_ok(&q->sys_pfc)) {
		if (rd_parse_qos_pfc(q->sys_pfc.value, q->qos.pfc) == 0) {
			q->qos.pfc_ok = true;
			q->pfc_from = "sysfs";
		} else {
			q->sys_pfc.err = RD_EPARSE;
		}
	}
	if (q->trust_from && !strcmp(q->qos.trust, "dscp")) { /* the map matters only when DSCP is trusted */
		path = rd_xasprintf("sys/class/net/%s/qos/dscp2prio", ifn);
		rd_attr_read(src, path, &q->sys_map);
		free(path);
		if (rd_attr_ok(&q->sys_map) && rd_parse_dscp2prio(q->sys_map.value, q->dscp2prio) == 0)
			q->map_from = "sysfs";
	}
	struct rd_text t;
	/* mlnx_qos also when trust is dscp and only it gives the map */
	if (!q->trust_from || !q->pfc_from || (!q->map_from && !strcmp(q->qos.trust, "dscp"))) {
		char *name = rd_xasprintf("mlnx_qos-%s", ifn);
		tool_run(src, name, (const char *const[]){"mlnx_qos", "-i", ifn, NULL}, 10000, &q->mlnx_qos_out, &t);
		struct rd_qos_info mq;
		if (t.data && rd_parse_dscp2prio(t.data, q->dscp2prio) == 0)
			q->map_from = "mlnx_qos";
		if (t.data && rd_parse_mlnx_qos(t.data, &mq) == 0) {
			if (!q->trust_from && mq.trust[0]) {
				memcpy(q->qos.trust, mq.trust, sizeof mq.trust);
				q->trust_from = "mlnx_qos";
			}
			if (!q->pfc_from && mq.pfc_ok) {
				memcpy(q->qos.pfc, mq.pfc, sizeof mq.pfc);
				q->qos.pfc_ok = true;
				q->pfc_from = "mlnx_qos";
			}
		} else if (t.data && !q->mlnx_qos_out.err) {
			q->mlnx_qos_out.err = RD_EPARSE;
		}
		rd_text_free(&t);
		free(name);
	}
	if (!q->pfc_from) {
		char *name = rd_xasprintf("dcb-pfc-%s", ifn);
		tool_run(src, name, (const char *const[]){"dcb", "pfc", "show", "dev", ifn, NULL}, 5000, &q->dcb_out, &t);
		struct rd_qos_info dq;
		if (t.data && rd_parse_dcb_pfc(t.data, &dq) == 0) {
			memcpy(q->qos.pfc, dq.pfc, sizeof dq.pfc);
			q->qos.pfc_ok = true;
			q->pfc_from = "dcb";
		} else if (t.data && !q->dcb_out.err) {
			q->dcb_out.err = RD_EPARSE;
		}
		rd_text_free(&t);
		free(name);
	}
	/* ECN (OFED driver): ecn/roce_np/enable/<prio> and ecn/roce_rp/enable/<prio>; without the
	 * first one there is no ECN directory, and the other 15 are not asked for */
	for (int i = 0; i < 8; i++)
		q->ecn_np[i] = q->ecn_rp[i] = -1;
	for (int n = 0; n < 16 && (n == 0 || q->ecn_ok); n++) {
		int side = n / 8, prio = n % 8;
		path = rd_xasprintf("sys/class/net/%s/ecn/roce_%s/enable/%d", ifn, side ? "rp" : "np", prio);
		struct rd_text e;
		if (rd_read_attr(src, path, &e) == 0 && (!strcmp(e.data, "0") || !strcmp(e.data, "1"))) {
			(side ? q->ecn_rp : q->ecn_np)[prio] = e.data[0] - '0';
			q->ecn_ok = true;
		}
		rd_text_free(&e);
		free(path);
	}
	if (!strcmp(q->qos.trust, "dscp")) { /* OFED's class of every QP: judged with the DSCP map only */
		path = rd_xasprintf("sys/class/infiniband/%s/tc/%u/traffic_class", d->name, p->num);
		rd_attr_read(src, path, &q->tclass);
		free(path);
	}
	q->cm_configfs = rd_exists(src, "sys/kernel/config/rdma_cm");
	/* roce.congestion: the netdev's pause, discard and buffer counters */
	{
		char *name = rd_xasprintf("ethtool-S-%s", ifn);
		tool_run(src, name, (const char *const[]){"ethtool", "-S", ifn, NULL}, 10000, &q->ethtool_out, &t);
		if (t.data && !q->ethtool_out.err) {
			q->eth = rd_xcalloc(1, sizeof *q->eth);
			if (rd_parse_ethtool_stats(t.data, q->eth) < 0 || q->ethtool_out.status != 0) {
				q->ethtool_out.err = RD_EPARSE;
				free(q->eth);
				q->eth = NULL;
			}
		}
		rd_text_free(&t);
		free(name);
	}
	path = rd_xasprintf("sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos", d->name, p->num);
	rd_attr_read(src, path, &q->tos);
	free(path);
}

void rd_mft_load(struct rd_source *src, const struct rd_host *h, struct rd_mft *m)
{
	memset(m, 0, sizeof *m);
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		if (strchr(d->name, '/'))
			continue;
		if (mellanox_pf(src, d)) {
			m->devs = rd_xrealloc(m->devs, (m->ndevs + 1) * sizeof *m->devs);
			struct rd_mft_dev *md = &m->devs[m->ndevs++];
			memset(md, 0, sizeof *md);
			load_dev(src, d, md);
		}
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			if (p->is_ib || !p->nnetdevs || strchr(p->netdevs[0].name, '/'))
				continue;
			m->qos = rd_xrealloc(m->qos, (m->nqos + 1) * sizeof *m->qos);
			struct rd_qos_port *q = &m->qos[m->nqos++];
			memset(q, 0, sizeof *q);
			load_qos(src, d, p, q);
		}
	}
}

void rd_mft_load_boot(struct rd_source *src, struct rd_mft *m)
{
	static const char *const qos_tools[] = {"mlnx_qos", "dcb", NULL};
	if (m->unloaded || !m->nqos || m->qos_boot_read)
		return;
	rd_bootset_load(src, qos_tools, &m->qos_boot);
	m->qos_boot_read = true;
}

void rd_mft_free(struct rd_mft *m)
{
	for (size_t i = 0; i < m->ndevs; i++) {
		struct rd_mft_dev *d = &m->devs[i];
		free(d->name);
		free(d->pci);
		tool_free(&d->mlxconfig_out);
		tool_free(&d->flint_out);
		rd_mlxconfig_info_free(&d->config);
		rd_flint_info_free(&d->flint);
		rd_attr_free(&d->flint_fw);
		rd_attr_free(&d->flint_psid);
		for (size_t k = 0; k < d->nports; k++) {
			tool_free(&d->ports[k].mlxlink_out);
			rd_mlxlink_info_free(&d->ports[k].link);
		}
		free(d->ports);
	}
	free(m->devs);
	for (size_t i = 0; i < m->nqos; i++) {
		struct rd_qos_port *q = &m->qos[i];
		free(q->dev);
		free(q->ifname);
		rd_attr_free(&q->sys_trust);
		rd_attr_free(&q->sys_pfc);
		tool_free(&q->mlnx_qos_out);
		tool_free(&q->dcb_out);
		rd_attr_free(&q->tos);
		rd_attr_free(&q->sys_map);
		rd_attr_free(&q->tclass);
		tool_free(&q->ethtool_out);
		free(q->eth);
	}
	free(m->qos);
	rd_bootset_free(&m->qos_boot);
	memset(m, 0, sizeof *m);
}

const struct rd_mft_dev *rd_mft_dev(const struct rd_mft *m, const char *name)
{
	rd_need(m->unloaded ? RD_LOAD_MFT : 0, RD_LOAD_MFT, "the MFT tools' output");
	for (size_t i = 0; i < m->ndevs; i++)
		if (strcmp(m->devs[i].name, name) == 0)
			return &m->devs[i];
	return NULL;
}

const struct rd_mft_port *rd_mft_port(const struct rd_mft *m, const char *dev, unsigned port)
{
	const struct rd_mft_dev *d = rd_mft_dev(m, dev);
	for (size_t k = 0; d && k < d->nports; k++)
		if (d->ports[k].num == port)
			return &d->ports[k];
	return NULL;
}

const struct rd_qos_port *rd_mft_qos(const struct rd_mft *m, const char *dev, unsigned port)
{
	rd_need(m->unloaded ? RD_LOAD_MFT : 0, RD_LOAD_MFT, "the MFT tools' output");
	for (size_t i = 0; i < m->nqos; i++)
		if (m->qos[i].port == port && !strcmp(m->qos[i].dev, dev))
			return &m->qos[i];
	return NULL;
}

const struct rd_attr *rd_mft_fw_ver(const struct rd_mft *m, const struct rd_device *d)
{
	rd_need(m->unloaded ? RD_LOAD_MFT : 0, RD_LOAD_MFT, "the MFT tools' output");
	if (rd_attr_ok(&d->fw_ver) && *d->fw_ver.value)
		return &d->fw_ver;
	const struct rd_mft_dev *md = rd_mft_dev(m, d->name);
	return md && rd_attr_ok(&md->flint_fw) ? &md->flint_fw : &d->fw_ver;
}

const struct rd_attr *rd_mft_board_id(const struct rd_mft *m, const struct rd_device *d)
{
	rd_need(m->unloaded ? RD_LOAD_MFT : 0, RD_LOAD_MFT, "the MFT tools' output");
	if (rd_attr_ok(&d->board_id) && *d->board_id.value)
		return &d->board_id;
	const struct rd_mft_dev *md = rd_mft_dev(m, d->name);
	return md && rd_attr_ok(&md->flint_psid) ? &md->flint_psid : &d->board_id;
}
