/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "model/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* True when only blanks and at most one newline remain. */
static bool at_end(const char *s)
{
	s = skip_blanks(s);
	if (*s == '\n')
		s++;
	return *s == '\0';
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Parses digits of base at *sp; advances it.  Returns number of digits, -1 on overflow. */
static int scan_digits(const char **sp, int base, uint64_t max, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;
	int n = 0;
	for (; digit_value(*s) < base; s++, n++) {
		unsigned d = (unsigned)digit_value(*s);
		if (v > (max - d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + d;
	}
	*sp = s;
	*out = v;
	return n;
}

int rd_parse_u64(const char *s, int base, uint64_t max, uint64_t *out)
{
	*out = 0;
	if (!s)
		return -RD_EPARSE;
	s = skip_blanks(s);
	if (base == 0) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && digit_value(s[2]) < 16) {
			base = 16;
			s += 2;
		} else if (s[0] == '0' && s[1] >= '0' && s[1] <= '7') {
			base = 8;
			s += 1;
		} else {
			base = 10;
		}
	} else if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && digit_value(s[2]) < 16) {
		s += 2;
	}
	uint64_t v;
	int n = scan_digits(&s, base, max, &v);
	if (n <= 0 || !at_end(s))
		return -RD_EPARSE;
	*out = v;
	return 0;
}

int rd_parse_enum_text(const char *s, struct rd_enum_text *out)
{
	memset(out, 0, sizeof *out);
	if (!s)
		return -RD_EPARSE;
	uint64_t v;
	const char *p = s;
	if (scan_digits(&p, 10, 0xffffffffu, &v) <= 0 || *p != ':' || p[1] != ' ')
		return -RD_EPARSE;
	p += 2;
	size_t n = 0;
	while (p[n] && p[n] != '\n') {
		unsigned char c = (unsigned char)p[n];
		if (c < 0x20 || c > 0x7e || n + 1 >= sizeof out->name) {
			memset(out, 0, sizeof *out);
			return -RD_EPARSE;
		}
		n++;
	}
	if (n == 0 || (p[n] == '\n' && p[n + 1] != '\0'))
		return -RD_EPARSE;
	out->num = (unsigned)v;
	memcpy(out->name, p, n);
	out->name[n] = '\0';
	return 0;
}

const char *rd_port_state_name(unsigned state)
{
	static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
	return state < sizeof names / sizeof names[0] ? names[state] : "UNKNOWN";
}

const char *rd_port_state_word(int state)
{
	static const char *const words[] = {"NOP", "Down", "Initializing", "Armed", "Active", "ActiveDefer"};
	return state >= 0 && state < (int)(sizeof words / sizeof words[0]) ? words[state] : "unknown";
}

const char *rd_phys_state_name(unsigned phys)
{
	static const char *const names[] = {"<unknown>", "Sleep", "Polling", "Disabled",
					    "PortConfigurationTraining", "LinkUp",
					    "LinkErrorRecovery", "Phy Test"};
	return phys < sizeof names / sizeof names[0] ? names[phys] : "<unknown>";
}

int rd_parse_rate(const char *s, struct rd_rate *out)
{
	memset(out, 0, sizeof *out);
	if (!s)
		return -RD_EPARSE;
	const char *p = s;
	uint64_t whole, width, frac = 0;
	int fdigits = 0;
	if (scan_digits(&p, 10, 100000, &whole) <= 0)
		return -RD_EPARSE;
	if (*p == '.') {
		p++;
		fdigits = scan_digits(&p, 10, 999, &frac);
		if (fdigits <= 0)
			return -RD_EPARSE;
	}
	static const char unit[] = " Gb/sec (";
	if (strncmp(p, unit, sizeof unit - 1) != 0)
		return -RD_EPARSE;
	p += sizeof unit - 1;
	if (scan_digits(&p, 10, 64, &width) <= 0 || *p != 'X')
		return -RD_EPARSE;
	p++;
	if (width != 1 && width != 2 && width != 4 && width != 8 && width != 12)
		return -RD_EPARSE;
	char speed[sizeof out->speed] = "";
	if (*p == ' ') {
		p++;
		size_t n = 0;
		while (isalnum((unsigned char)p[n])) {
			if (n + 1 >= sizeof speed)
				return -RD_EPARSE;
			speed[n] = p[n];
			n++;
		}
		if (n == 0)
			return -RD_EPARSE;
		speed[n] = '\0';
		p += n;
	}
	if (*p != ')' || !at_end(p + 1))
		return -RD_EPARSE;
	double f = (double)frac;
	for (int i = 0; i < fdigits; i++)
		f /= 10.0;
	out->gbps = (double)whole + f;
	out->width = (unsigned)width;
	memcpy(out->speed, speed, sizeof speed);
	out->lane_gbps = out->gbps / (double)width;
	return 0;
}

static int parse_groups(const char *s, unsigned ngroups, uint16_t *groups)
{
	if (!s)
		return -RD_EPARSE;
	const char *p = skip_blanks(s);
	for (unsigned i = 0; i < ngroups; i++) {
		uint64_t v;
		int n = scan_digits(&p, 16, 0xffff, &v);
		if (n <= 0 || n > 4)
			return -RD_EPARSE;
		groups[i] = (uint16_t)v;
		if (i + 1 < ngroups) {
			if (*p != ':')
				return -RD_EPARSE;
			p++;
		}
	}
	return at_end(p) ? 0 : -RD_EPARSE;
}

int rd_parse_guid(const char *s, uint64_t *out)
{
	uint16_t g[4];
	*out = 0;
	if (parse_groups(s, 4, g) < 0)
		return -RD_EPARSE;
	*out = ((uint64_t)g[0] << 48) | ((uint64_t)g[1] << 32) | ((uint64_t)g[2] << 16) | g[3];
	return 0;
}

int rd_parse_gid(const char *s, uint8_t out[16])
{
	uint16_t g[8];
	memset(out, 0, 16);
	if (parse_groups(s, 8, g) < 0)
		return -RD_EPARSE;
	for (int i = 0; i < 8; i++) {
		out[2 * i] = (uint8_t)(g[i] >> 8);
		out[2 * i + 1] = (uint8_t)g[i];
	}
	return 0;
}

bool rd_gid_is_zero(const uint8_t gid[16])
{
	for (int i = 0; i < 16; i++)
		if (gid[i])
			return false;
	return true;
}

bool rd_is_kernel_name(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n == 0 || n > max || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	while (p < end) {
		size_t l = rd_utf8_len(p, (size_t)(end - p));
		if (l == 0 || *p < 0x20 || *p == 0x7f || *p == '/' || (l == 2 && p[0] == 0xc2 && p[1] < 0xa0))
			return false; /* not UTF-8, a C0 control or DEL, a '/', a C1 control (U+0080-U+009F) */
		p += l;
	}
	return true;
}

bool rd_is_canonical_uint(const char *s, unsigned long max, unsigned long *out)
{
	size_t n = strspn(s, "0123456789");
	if (n == 0 || s[n] != '\0' || (s[0] == '0' && n > 1) || n > 10)
		return false;
	unsigned long long v = strtoull(s, NULL, 10);
	if (v > max)
		return false;
	if (out)
		*out = (unsigned long)v;
	return true;
}

bool rd_is_pci_addr(const char *s)
{
	size_t dom = 0;
	while (isxdigit((unsigned char)s[dom]))
		dom++;
	if (dom < 4 || dom > 8)
		return false;
	static const char shape[] = ":xx:xx.x"; /* bus, device, function */
	const char *t = s + dom;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'x' ? !isxdigit((unsigned char)t[i]) : t[i] != shape[i])
			return false;
	return t[sizeof shape - 1] == '\0';
}

bool rd_text_names_pci(const char *text, const char *addr, const char *after)
{
	size_t n = strlen(addr), an = strlen(after);
	if (!n)
		return false;
	for (const char *p = strstr(text, addr); p; p = strstr(p + 1, addr)) {
		if (p > text && isxdigit((unsigned char)p[-1]))
			continue;
		if (an ? strncmp(p + n, after, an) == 0 : !isxdigit((unsigned char)p[n]))
			return true;
	}
	return false;
}

int rd_parse_counter(const char *s, uint64_t *out)
{
	*out = 0;
	if (s && strncmp(skip_blanks(s), "N/A", 3) == 0)
		return -ENODATA;
	return rd_parse_u64(s, 10, UINT64_MAX, out);
}

int rd_parse_hca_type(const char *s, unsigned *device_id)
{
	uint64_t v;
	*device_id = 0;
	if (!s || strncmp(s, "MT", 2) != 0 || !isdigit((unsigned char)s[2]))
		return -RD_EPARSE;
	if (rd_parse_u64(s + 2, 10, 0xffff, &v) < 0)
		return -RD_EPARSE;
	*device_id = (unsigned)v;
	return 0;
}

const char *rd_hca_model_name(unsigned id)
{
	static const struct {
		unsigned id;
		const char *name;
	} models[] = {
		{0x1003, "ConnectX-3"},      {0x1004, "ConnectX-3 VF"},
		{0x1007, "ConnectX-3 Pro"},  {0x1013, "ConnectX-4"},
		{0x1014, "ConnectX-4 VF"},   {0x1015, "ConnectX-4 Lx"},
		{0x1016, "ConnectX-4 Lx VF"}, {0x1017, "ConnectX-5"},
		{0x1018, "ConnectX-5 VF"},   {0x1019, "ConnectX-5 Ex"},
		{0x101a, "ConnectX-5 Ex VF"}, {0x101b, "ConnectX-6"},
		{0x101c, "ConnectX-6 VF"},   {0x101d, "ConnectX-6 Dx"},
		{0x101e, "ConnectX VF (mlx5)"}, {0x101f, "ConnectX-6 Lx"},
		{0x1021, "ConnectX-7"},      {0x1023, "ConnectX-8"},
		{0xa2d2, "BlueField"},       {0xa2d6, "BlueField-2"},
		{0xa2dc, "BlueField-3"},     {0xa2df, "BlueField-4"},
	};
	for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
		if (models[i].id == id)
			return models[i].name;
	return NULL;
}

/* Copies the next blank-separated token of at most cap-1 bytes; returns false if none/too long. */
static bool next_token(const char **sp, char *buf, size_t cap)
{
	const char *s = skip_blanks(*sp);
	size_t n = 0;
	while (s[n] && s[n] != ' ' && s[n] != '\t' && s[n] != '\n')
		n++;
	if (n == 0 || n >= cap)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*sp = s + n;
	return true;
}

int rd_parse_proc_modules_line(const char *line, struct rd_proc_module *out)
{
	char size[32], ref[16], holders[4096], addr[32];
	const char *p = line;
	memset(out, 0, sizeof *out);
	if (!line || !next_token(&p, out->name, sizeof out->name) || !next_token(&p, size, sizeof size) ||
	    !next_token(&p, ref, sizeof ref) || !next_token(&p, holders, sizeof holders) ||
	    !next_token(&p, out->state, sizeof out->state) || !next_token(&p, addr, sizeof addr))
		goto bad;
	uint64_t v;
	if (rd_parse_u64(size, 10, UINT64_MAX, &v) < 0)
		goto bad;
	out->size = v;
	if (strcmp(ref, "-") == 0) {
		out->refcnt = -1;
	} else if (rd_parse_u64(ref, 10, 0x7fffffff, &v) == 0) {
		out->refcnt = (int)v;
	} else {
		goto bad;
	}
	if (strcmp(holders, "-") != 0) {
		char *h = holders;
		while (*h) {
			char *comma = strchr(h, ',');
			if (!comma)
				goto bad; /* every holder is followed by ',' */
			*comma = '\0';
			if (strcmp(h, "[permanent]") == 0) {
				out->permanent = true;
			} else if (*h) {
				if (out->nholders >= RD_MAX_HOLDERS || strlen(h) >= sizeof out->holders[0])
					goto bad;
				strcpy(out->holders[out->nholders++], h);
			}
			h = comma + 1;
		}
	}
	if (strcmp(out->state, "Live") != 0 && strcmp(out->state, "Loading") != 0 &&
	    strcmp(out->state, "Unloading") != 0)
		goto bad;
	if (strncmp(addr, "0x", 2) != 0)
		goto bad;
	char taint[32];
	if (next_token(&p, taint, sizeof taint)) {
		size_t n = strlen(taint);
		if (n < 3 || taint[0] != '(' || taint[n - 1] != ')' || n - 2 >= sizeof out->taint)
			goto bad;
		memcpy(out->taint, taint + 1, n - 2);
		out->taint[n - 2] = '\0';
		for (size_t i = 0; out->taint[i]; i++)
			if (!isupper((unsigned char)out->taint[i]))
				goto bad;
	}
	if (!at_end(p))
		goto bad;
	return 0;
bad:
	memset(out, 0, sizeof *out);
	return -RD_EPARSE;
}

static int parse_limit(const char *tok, uint64_t *out)
{
	if (strcmp(tok, "unlimited") == 0) {
		*out = UINT64_MAX;
		return 0;
	}
	return rd_parse_u64(tok, 10, UINT64_MAX - 1, out);
}

int rd_parse_limits_memlock(const char *text, uint64_t *soft, uint64_t *hard)
{
	static const char key[] = "Max locked memory";
	*soft = *hard = 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		if (strncmp(line, key, sizeof key - 1) == 0) {
			const char *p = line + sizeof key - 1;
			char a[32], b[32];
			if (!next_token(&p, a, sizeof a) || !next_token(&p, b, sizeof b))
				return -RD_EPARSE;
			if (parse_limit(a, soft) < 0 || parse_limit(b, hard) < 0) {
				*soft = *hard = 0;
				return -RD_EPARSE;
			}
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -RD_EPARSE;
}

/* ---- configuration files and tool outputs ----------------------------------------------- */

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

int rd_parse_ofed_info(const char *text, struct rd_ofed_info *out)
{
	memset(out, 0, sizeof *out);
	if (!text)
		return -RD_EPARSE;
	const char *p = skip_blanks(text);
	static const struct {
		const char *prefix, *flavor;
	} forms[] = {{"MLNX_OFED_LINUX-", "MLNX_OFED"}, {"OFED-internal-", "OFED-internal"}};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		size_t pl = strlen(forms[i].prefix);
		if (strncmp(p, forms[i].prefix, pl) != 0)
			continue;
		const char *v = p + pl;
		size_t n = strcspn(v, ": \t\n");
		if (n == 0 || n >= sizeof out->version)
			return -RD_EPARSE;
		for (size_t k = 0; k < n; k++)
			if (!isalnum((unsigned char)v[k]) && v[k] != '.' && v[k] != '-' && v[k] != '_')
				return -RD_EPARSE;
		strcpy(out->flavor, forms[i].flavor);
		memcpy(out->version, v, n);
		out->version[n] = '\0';
		return 0;
	}
	return -RD_EPARSE;
}

int rd_dpkg_package(const char *status_file, const char *package, char *version, size_t vlen)
{
	if (version && vlen)
		version[0] = '\0';
	if (!status_file)
		return -RD_EPARSE;
	size_t plen = strlen(package);
	for (const char *st = status_file; st && *st;) {
		/* one stanza: up to a blank line */
		const char *end = strstr(st, "\n\n");
		const char *stop = end ? end + 1 : st + strlen(st);
		bool match = false, named = false, installed = false;
		const char *ver = NULL;
		size_t verlen = 0;
		for (const char *line = st; line < stop;) {
			const char *nl = memchr(line, '\n', (size_t)(stop - line));
			size_t len = nl ? (size_t)(nl - line) : (size_t)(stop - line);
			if (len > 9 && strncmp(line, "Package: ", 9) == 0 && !named) { /* the first Package: names the stanza */
				named = true;
				match = len == 9 + plen && strncmp(line + 9, package, plen) == 0;
			} else if (len > 9 && strncmp(line, "Package: ", 9) == 0)
				;
			else if (len > 8 && strncmp(line, "Status: ", 8) == 0)
				installed = len >= 8 + 20 && strncmp(line + len - 20, "install ok installed", 20) == 0;
			else if (len > 9 && strncmp(line, "Version: ", 9) == 0) {
				ver = line + 9;
				verlen = len - 9;
			}
			line = nl ? nl + 1 : stop;
		}
		if (match) {
			if (installed && ver && version && vlen) {
				size_t n = verlen < vlen - 1 ? verlen : vlen - 1;
				memcpy(version, ver, n);
				version[n] = '\0';
			}
			return installed ? 1 : 0;
		}
		st = end ? end + 2 : NULL;
	}
	return 0;
}

int rd_dpkg_packages(const char *status_file, const char *const *names, size_t n, int *found, char *versions,
		     size_t vlen)
{
	for (size_t i = 0; i < n; i++) {
		/* -1: not met yet (the first stanza of a name decides, as in rd_dpkg_package) */
		found[i] = status_file ? -1 : 0;
		if (vlen)
			versions[i * vlen] = '\0';
	}
	if (!status_file)
		return -RD_EPARSE;
	size_t left = n;
	for (const char *st = status_file; st && *st && left;) {
		const char *end = strstr(st, "\n\n");
		const char *stop = end ? end + 1 : st + strlen(st);
		const char *pkg = NULL, *ver = NULL;
		size_t pkglen = 0, verlen = 0;
		bool installed = false;
		for (const char *line = st; line < stop;) {
			const char *nl = memchr(line, '\n', (size_t)(stop - line));
			size_t len = nl ? (size_t)(nl - line) : (size_t)(stop - line);
			if (len > 9 && strncmp(line, "Package: ", 9) == 0 && !pkg) {
				pkg = line + 9;
				pkglen = len - 9;
			} else if (len > 8 && strncmp(line, "Status: ", 8) == 0)
				installed = len >= 8 + 20 && strncmp(line + len - 20, "install ok installed", 20) == 0;
			else if (len > 9 && strncmp(line, "Version: ", 9) == 0) {
				ver = line + 9;
				verlen = len - 9;
			}
			line = nl ? nl + 1 : stop;
		}
		for (size_t i = 0; pkg && i < n; i++) {
			if (found[i] >= 0 || strlen(names[i]) != pkglen || strncmp(pkg, names[i], pkglen) != 0)
				continue;
			found[i] = installed ? 1 : 0;
			left--;
			if (installed && ver && vlen) {
				size_t c = verlen < vlen - 1 ? verlen : vlen - 1;
				memcpy(versions + i * vlen, ver, c);
				versions[i * vlen + c] = '\0';
			}
		}
		st = end ? end + 2 : NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (found[i] < 0)
			found[i] = 0;
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

int rd_parse_capeff(const char *status, uint64_t *mask)
{
	*mask = 0;
	for (const char *line = status; line && *line;) {
		const char *nl = strchr(line, '\n');
		if (strncmp(line, "CapEff:", 7) == 0) {
			char tok[32];
			const char *p = line + 7;
			if (!next_token(&p, tok, sizeof tok))
				return -RD_EPARSE;
			return rd_parse_u64(tok, 16, UINT64_MAX, mask);
		}
		line = nl ? nl + 1 : NULL;
	}
	return -RD_EPARSE;
}

int rd_parse_devnode_line(const char *line, char *name, size_t namelen, unsigned *mode, unsigned *uid,
			  unsigned *gid)
{
	*mode = *uid = *gid = 0;
	if (namelen)
		*name = '\0';
	const char *p = skip_blanks(line);
	const char *end = p;
	while (*end && *end != ' ' && *end != '\t' && *end != '\n')
		end++;
	size_t n = (size_t)(end - p);
	if (!n || n >= namelen || memchr(p, '/', n))
		return -RD_EPARSE;
	uint64_t v[3];
	const char *q = end;
	for (int i = 0; i < 3; i++) {
		q = skip_blanks(q);
		if (scan_digits(&q, i == 0 ? 8 : 10, i == 0 ? 07777 : UINT32_MAX, &v[i]) <= 0)
			return -RD_EPARSE;
		if (*q && *q != ' ' && *q != '\t' && *q != '\n')
			return -RD_EPARSE;
	}
	if (!at_end(q))
		return -RD_EPARSE;
	memcpy(name, p, n);
	name[n] = '\0';
	*mode = (unsigned)v[0];
	*uid = (unsigned)v[1];
	*gid = (unsigned)v[2];
	return 0;
}

unsigned rd_roce_active_mtu(uint64_t netdev_mtu)
{
	if (netdev_mtu < 96)
		return 0;
	uint64_t m = netdev_mtu - 96;
	return m >= 4096 ? 4096 : m >= 2048 ? 2048 : m >= 1024 ? 1024 : m >= 512 ? 512 : m >= 256 ? 256 : 0;
}

void rd_prio_words(uint8_t mask, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < 8; i++)
		if (mask & (1u << i))
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%d", n ? "," : "", i);
	if (!n)
		snprintf(buf, len, "none");
}
