/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* RoCE GIDs as NCCL sees them (model/gid.h). */
#include "model/gid.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t word(const uint8_t g[16], int i)
{
	return (uint32_t)g[4 * i] << 24 | (uint32_t)g[4 * i + 1] << 16 | (uint32_t)g[4 * i + 2] << 8 | g[4 * i + 3];
}

int rd_gid_family(const uint8_t g[16])
{
	bool mapped = word(g, 0) == 0 && word(g, 1) == 0 && word(g, 2) == 0x0000ffffu;
	bool mapped_mc = word(g, 0) == 0xff0e0000u && word(g, 1) == 0 && word(g, 2) == 0x0000ffffu;
	return mapped || mapped_mc ? RD_GID_INET : RD_GID_INET6;
}

bool rd_gid_link_local(const uint8_t g[16])
{
	return word(g, 0) == 0xfe800000u && word(g, 1) == 0;
}

bool rd_gid_valid(const uint8_t g[16])
{
	uint32_t trailer = word(g, 1) | word(g, 2) | word(g, 3);
	bool configured = !((word(g, 0) | trailer) == 0 || (word(g, 0) == 0xfe800000u && trailer == 0));
	return configured && !rd_gid_link_local(g);
}

int rd_gid_roce_version(const char *type)
{
	if (!type)
		return -1;
	if (strncmp(type, "IB/RoCE v1", 10) == 0 || strncmp(type, "RoCE v1", 7) == 0)
		return 1;
	if (strncmp(type, "RoCE v2", 7) == 0)
		return 2;
	return -1;
}

void rd_gid_ipv4(const uint8_t g[16], char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (word(g, 0) == 0 && word(g, 1) == 0 && word(g, 2) == 0x0000ffffu)
		snprintf(buf, len, "%u.%u.%u.%u", g[12], g[13], g[14], g[15]);
}

int rd_gid_parse_family(const char *s)
{
	if (!s)
		return 0;
	if (strcmp(s, "AF_INET") == 0)
		return RD_GID_INET;
	if (strcmp(s, "AF_INET6") == 0)
		return RD_GID_INET6;
	return 0;
}

/* NCCL_PARAM (src/misc/param.cc, ncclLoadParam): strtoll(base 0) of a non-empty value; only an
 * errno (out of range) keeps the default, so "abc" is 0 and "3x" is 3. */
static bool nccl_number(const char *s, long long *out)
{
	if (!s || !*s)
		return false;
	errno = 0;
	long long v = strtoll(s, NULL, 0);
	if (errno)
		return false;
	*out = v;
	return true;
}

static bool three_numbers(const char *s, unsigned n[3], const char **end)
{
	for (int k = 0; k < 3; k++) {
		if (!isdigit((unsigned char)*s))
			return false;
		unsigned long x = 0;
		int digits = 0;
		for (; isdigit((unsigned char)*s); s++)
			if (++digits > 3 || (x = x * 10 + (unsigned long)(*s - '0')) > 999)
				return false;
		n[k] = (unsigned)x;
		if (k < 2 && *s++ != '.')
			return false;
	}
	*end = s;
	return true;
}

unsigned rd_nccl_version_parse(const char *s)
{
	unsigned n[3];
	const char *end;
	if (!s || !three_numbers(s, n, &end) || *end || n[0] == 0)
		return 0;
	return n[0] * 1000000u + n[1] * 1000u + n[2];
}

unsigned rd_nccl_libname_version(const char *name)
{
	static const char prefix[] = "libnccl.so.";
	if (!name || strncmp(name, prefix, sizeof prefix - 1) != 0)
		return 0;
	return rd_nccl_version_parse(name + sizeof prefix - 1);
}

void rd_nccl_version_text(unsigned v, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u", v / 1000000u, v / 1000u % 1000u, v % 1000u);
}

void rd_nccl_env_read(struct rd_nccl_env *e, const char *(*getenv_fn)(const char *))
{
	memset(e, 0, sizeof *e);
	const char *v = getenv_fn("NCCL_IB_GID_INDEX");
	if (v && *v) {
		snprintf(e->raw_gid_index, sizeof e->raw_gid_index, "%s", v);
		e->gid_index_set = nccl_number(v, &e->gid_index);
	}
	v = getenv_fn("NCCL_IB_ROCE_VERSION_NUM");
	if (v && *v) {
		snprintf(e->raw_roce_version, sizeof e->raw_roce_version, "%s", v);
		e->roce_version_set = nccl_number(v, &e->roce_version);
	}
	v = getenv_fn("NCCL_IB_ADDR_FAMILY");
	if (v && *v) {
		snprintf(e->raw_family, sizeof e->raw_family, "%s", v);
		snprintf(e->family, sizeof e->family, "%s", v);
		e->family_set = true;
	}
	v = getenv_fn("NCCL_IB_ADDR_RANGE");
	if (v && *v) {
		snprintf(e->range, sizeof e->range, "%s", v);
		e->range_set = true;
	}
}

/* envIbAddrRange: "ADDR/BITS" for the family; anything else means no range. */
static void parse_range(struct rd_nccl_sel *s, const char *text)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", text);
	char *slash = strchr(buf, '/');
	if (!slash)
		return;
	*slash++ = '\0';
	uint8_t addr[16] = {0};
	if (s->family == RD_GID_INET) {
		if (inet_pton(AF_INET, buf, addr + 12) != 1)
			return;
	} else if (inet_pton(AF_INET6, buf, addr) != 1) {
		return;
	}
	long bits = strtol(slash, NULL, 10);
	if (bits <= 0 || bits > (s->family == RD_GID_INET ? 32 : 128))
		return;
	memcpy(s->range, addr, 16);
	s->prefixlen = (int)bits;
	s->range_set = true;
	snprintf(s->range_text, sizeof s->range_text, "%s", text);
}

void rd_nccl_sel_make(struct rd_nccl_sel *s, const struct rd_nccl_env *env, int pol_gid_index, int pol_roce_version,
		      int pol_family, unsigned pol_version)
{
	memset(s, 0, sizeof *s);
	s->gid_index = -1;
	s->roce_version = 2;
	s->family = RD_GID_INET;
	if (pol_version) {
		s->version = pol_version;
		snprintf(s->version_from, sizeof s->version_from, "the policy's [nccl] version");
	} else if (env && env->lib_oldest) {
		s->version = env->lib_oldest;
		char newest[16];
		rd_nccl_version_text(env->lib_newest, newest, sizeof newest);
		snprintf(s->version_from, sizeof s->version_from, "%s%s%s%s", env->lib_oldest_where,
			 env->lib_newest != env->lib_oldest ? "; " : "", env->lib_newest != env->lib_oldest ? newest : "",
			 env->lib_newest != env->lib_oldest ? " is installed too" : "");
	}
	if (s->version) {
		rd_nccl_version_text(s->version, s->version_short, sizeof s->version_short);
		snprintf(s->version_text, sizeof s->version_text, "NCCL %s (%s)", s->version_short, s->version_from);
	}
	s->legacy = s->version && s->version < RD_NCCL_AUTO_GID_VERSION;
	if (env && env->gid_index_set) {
		s->gid_index = env->gid_index < 0 ? -1 : env->gid_index > 0xffff ? 0xffff : (int)env->gid_index;
		s->gid_index_from = "NCCL_IB_GID_INDEX";
	} else if (pol_gid_index >= 0) {
		s->gid_index = pol_gid_index;
		s->gid_index_from = "the policy's [nccl] gid_index";
	}
	if (s->legacy) /* an older NCCL reads none of the variables below: RoCE v2 and IPv4 stay what routes */
		return;
	if (env && env->roce_version_set) {
		s->roce_version = env->roce_version < -1 || env->roce_version > 1000 ? -1 : (int)env->roce_version;
		s->roce_version_from = "NCCL_IB_ROCE_VERSION_NUM";
	} else if (pol_roce_version) {
		s->roce_version = pol_roce_version;
		s->roce_version_from = "the policy's [nccl] roce_version";
	}
	if (env && env->family_set) {
		/* NCCL: anything but AF_INET6 leaves AF_INET */
		s->family = rd_gid_parse_family(env->family) == RD_GID_INET6 ? RD_GID_INET6 : RD_GID_INET;
		s->family_from = "NCCL_IB_ADDR_FAMILY";
	} else if (pol_family) {
		s->family = pol_family;
		s->family_from = "the policy's [nccl] addr_family";
	}
	if (env && env->range_set) {
		parse_range(s, env->range);
		s->range_from = s->range_set ? "NCCL_IB_ADDR_RANGE" : NULL;
	}
}

static bool in_range(const uint8_t g[16], const struct rd_nccl_sel *s)
{
	if (!s->range_set || s->prefixlen <= 0)
		return true;
	int start = s->family == RD_GID_INET ? 12 : 0;
	int bits = s->prefixlen;
	for (int i = start; i < 16 && bits > 0; i++, bits -= 8) {
		uint8_t mask = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));
		if ((g[i] & mask) != (s->range[i] & mask))
			return false;
	}
	return true;
}

const struct rd_gid *rd_port_gid(const struct rd_port *p, unsigned idx)
{
	rd_need(p->gids_err == RD_ENOTLOADED ? RD_LOAD_GIDS : 0, RD_LOAD_GIDS, "a port's GIDs");
	for (size_t i = 0; i < p->ngids; i++)
		if (p->gids[i].index == idx)
			return &p->gids[i];
	return NULL;
}

static const uint8_t zero[16];

int rd_nccl_auto_gid(const struct rd_port *p, const struct rd_nccl_sel *s)
{
	rd_need(p->gids_err == RD_ENOTLOADED ? RD_LOAD_GIDS : 0, RD_LOAD_GIDS, "a port's GIDs");
	if (!p->ngids)
		return -1;
	if (s->legacy) /* NCCL_IB_GID_INDEX's default before 2.21.5 */
		return 0;
	unsigned last = 0;
	for (size_t i = 0; i < p->ngids; i++)
		if (p->gids[i].index > last)
			last = p->gids[i].index;
	unsigned cur = 0;
	for (unsigned c = 1; c <= last; c++) {
		const struct rd_gid *gc = rd_port_gid(p, c), *gk = rd_port_gid(p, cur);
		const uint8_t *cand = gc ? gc->gid : zero, *now = gk ? gk->gid : zero;
		int fc = rd_gid_family(cand);
		bool match = in_range(cand, s);
		if (fc != rd_gid_family(now) && fc == s->family && match) {
			cur = c;
			continue;
		}
		if (fc != s->family || !rd_gid_valid(cand) || !match)
			continue;
		int vnow = rd_gid_roce_version(gk ? gk->type : NULL), vc = rd_gid_roce_version(gc ? gc->type : NULL);
		if ((vnow != vc || !rd_gid_valid(now)) && vc == s->roce_version)
			cur = c;
	}
	return (int)cur;
}

bool rd_nccl_gid_usable(const struct rd_port *p, unsigned idx, const struct rd_nccl_sel *s, char *why, size_t len)
{
	const struct rd_gid *g = rd_port_gid(p, idx);
	const char *r = NULL;
	char buf[64];
	if (!g || rd_gid_is_zero(g->gid))
		r = "empty (an all-zero GID)";
	else if (rd_gid_link_local(g->gid))
		r = "link-local (fe80::)";
	else if (!rd_gid_valid(g->gid))
		r = "not a configured address";
	else if (rd_gid_family(g->gid) != s->family)
		r = s->family == RD_GID_INET ? "IPv6, not IPv4" : "IPv4, not IPv6";
	else if (rd_gid_roce_version(g->type) != s->roce_version) {
		int v = rd_gid_roce_version(g->type);
		if (v < 0)
			snprintf(buf, sizeof buf, "of unknown RoCE version");
		else
			snprintf(buf, sizeof buf, "RoCE v%d, not v%d", v, s->roce_version);
		r = buf;
	} else if (!in_range(g->gid, s))
		r = "outside NCCL_IB_ADDR_RANGE";
	if (why && len)
		snprintf(why, len, "%s", r ? r : "");
	return r == NULL;
}
