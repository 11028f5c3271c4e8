/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* sysfs attributes of RDMA devices and ports: states, rates, GUIDs and GIDs, PCI addresses,
 * counters, HCA types; RoCE's MTU and priorities (parse.h). */
#include "model/parse-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
