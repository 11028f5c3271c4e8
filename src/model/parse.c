#include "model/parse.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

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
