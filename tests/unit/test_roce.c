/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The firmware-train table (model/fwtrain.h) and NCCL's GID choice (model/gid.h). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/fwtrain.h"
#include "model/gid.h"
#include "model/parse.h"

RD_TEST(fwtrain_adapters_and_majors)
{
	CHECK_INT(rd_adapter_of(0x1021), RD_AD_CX7);
	CHECK_INT(rd_adapter_fw_major(rd_adapter_of(0x1021)), 28);
	CHECK_INT(rd_adapter_fw_major(rd_adapter_of(0x1013)), 12);
	CHECK_INT(rd_adapter_fw_major(rd_adapter_of(0x1015)), 14);
	CHECK_INT(rd_adapter_fw_major(rd_adapter_of(0x1017)), 16);
	CHECK_INT(rd_adapter_fw_major(rd_adapter_of(0x1019)), 16);
	CHECK_INT(rd_adapter_fw_major(rd_adapter_of(0x101b)), 20);
	CHECK_INT(rd_adapter_fw_major(rd_adapter_of(0x101d)), 22);
	CHECK_INT(rd_adapter_fw_major(rd_adapter_of(0x101f)), 26);
	CHECK_INT(rd_adapter_fw_major(rd_adapter_of(0xa2d6)), 24);
	CHECK_INT(rd_adapter_fw_major(rd_adapter_of(0xa2dc)), 32);
	CHECK_INT(rd_adapter_fw_major(rd_adapter_of(0x1023)), 40);
	CHECK_INT(rd_adapter_of(0x1018), RD_AD_NONE); /* a ConnectX-5 VF */
	CHECK_INT(rd_adapter_of(0x1003), RD_AD_NONE); /* ConnectX-3 */
	CHECK_INT(rd_adapter_of(0), RD_AD_NONE);
	CHECK_STR(rd_adapter_name(RD_AD_CX6DX), "ConnectX-6 Dx");
	CHECK_STR(rd_adapter_name(RD_AD_NONE), "");
}

RD_TEST(fwtrain_every_row_is_sourced_and_well_formed)
{
	size_t n = 0;
	for (const struct rd_fw_release *r = rd_fw_releases; r->version; r++, n++) {
		CHECK(r->source && strlen(r->source) > 20);
		CHECK(strncmp(r->source, "https://docs.nvidia.com/", 24) == 0); /* every row cites its page */
		CHECK(r->flavor == RD_STACK_MLNX_OFED || r->flavor == RD_STACK_DOCA_OFED);
		for (int a = 0; a < RD_AD_N; a++) {
			if (!r->fw[a])
				continue;
			/* each alternative starts with the adapter's major */
			char major[8];
			snprintf(major, sizeof major, "%u.", rd_adapter_fw_major((enum rd_adapter)a));
			for (const char *p = r->fw[a]; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
				CHECK(strncmp(p, major, strlen(major)) == 0);
		}
		/* ConnectX-4/-5 are never judged; MLNX_OFED knows no BlueField-3 or ConnectX-8 */
		CHECK(!r->fw[RD_AD_CX4] && !r->fw[RD_AD_CX4LX] && !r->fw[RD_AD_CX5]);
		if (r->flavor == RD_STACK_MLNX_OFED)
			CHECK(!r->fw[RD_AD_BF3] && !r->fw[RD_AD_CX8] && r->fw[RD_AD_CX7]);
	}
	CHECK(n >= 13);
}

/* Releases whose train NVIDIA's pages state ("Firmware xx.38.1002" beside "MLNX_OFED 23.07-0"...);
 * the firmware strings are the ones those trains ship and hosts report. */
RD_TEST(fwtrain_rows_of_older_and_lts_releases)
{
	static const struct {
		const char *release, *cx7, *fw_ok, *fw_old;
	} rows[] = {
		{"5.8-7.0.6.1", "28.35.45xx", "20.35.4554", "20.35.3006"},
		{"5.8-6.0.4.2", "28.35.45xx", "22.35.4506", "22.35.4030"},
		{"5.8-5.1.1.2", "28.35.4030", "26.35.4030", "26.35.3006"},
		{"5.8-3.0.7.0", "28.35.3006", "28.35.3006", "28.35.2000"},
		{"23.04-0.5.3.3", "28.37.1014", "20.37.1014", "20.36.1010"},
		{"23.07-0.5.0.0", "28.38.1002", "22.38.1002", "22.37.1014"},
		{"23.07-0.5.1.2", "28.38.1002", "28.38.1002", "28.37.1014"},
		{"24.04-0.6.6.0", "28.41.10xx", "28.41.1000", "28.40.1000"},
		{"24.07-0.6.1.0", "28.42.1000", "20.42.1000", "20.41.1000"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct rd_fw_release *r = rd_fwtrain_find(RD_STACK_MLNX_OFED, rows[i].release, NULL);
		CHECK(r != NULL);
		if (!r)
			continue;
		CHECK_STR(rd_fwtrain_expected(r, RD_AD_CX7), rows[i].cx7);
		enum rd_adapter a = rows[i].fw_ok[0] == '2' && rows[i].fw_ok[1] == '0'   ? RD_AD_CX6
				    : rows[i].fw_ok[0] == '2' && rows[i].fw_ok[1] == '2' ? RD_AD_CX6DX
				    : rows[i].fw_ok[0] == '2' && rows[i].fw_ok[1] == '6' ? RD_AD_CX6LX
										 : RD_AD_CX7;
		CHECK(rd_fwtrain_match(rd_fwtrain_expected(r, a), rows[i].fw_ok));
		CHECK(!rd_fwtrain_match(rd_fwtrain_expected(r, a), rows[i].fw_old));
	}
	/* the ofed_info forms of the same releases */
	CHECK(rd_fwtrain_find(RD_STACK_MLNX_OFED, "23.07-0.5.1", NULL) != NULL);
	CHECK(rd_fwtrain_find(RD_STACK_MLNX_OFED, "5.8-7.0.6", NULL) != NULL);
	/* a release whose train no page states has no row rather than a guessed one */
	CHECK(rd_fwtrain_find(RD_STACK_MLNX_OFED, "5.8-4.1.5.0", NULL) == NULL);
}

RD_TEST(fwtrain_lookup_by_every_version_form)
{
	const struct rd_fw_release *r = rd_fwtrain_find(RD_STACK_MLNX_OFED, "24.10-1.1.4.0", NULL);
	CHECK(r && strcmp(r->version, "24.10-1.1.4.0") == 0);
	CHECK(rd_fwtrain_find(RD_STACK_MLNX_OFED, "24.10-1.1.4", NULL) == r);              /* ofed_info without .0 */
	CHECK(rd_fwtrain_find(RD_STACK_MLNX_OFED, "24.10.OFED.24.10.1.1.4.1", NULL) == r); /* the dpkg version */
	CHECK(rd_fwtrain_find(RD_STACK_DOCA_OFED, "24.10-1.1.4", NULL) == NULL);         /* flavours never mix */
	CHECK(rd_fwtrain_find(RD_STACK_OFED, "24.10-1.1.4.0", NULL) == NULL);
	CHECK(rd_fwtrain_find(RD_STACK_INBOX, "rdma-core 44.0-2", NULL) == NULL);
	CHECK(rd_fwtrain_find(RD_STACK_MLNX_OFED, "24.10-1.1.5.0", NULL) == NULL);
	CHECK(rd_fwtrain_find(RD_STACK_MLNX_OFED, "23.10-3.2.1.1", NULL) == NULL); /* 3.2.2 is in, 3.2.1 not */
	CHECK(rd_fwtrain_find(RD_STACK_MLNX_OFED, "", NULL) == NULL);
	CHECK(rd_fwtrain_find(RD_STACK_MLNX_OFED, "24.10", NULL) == NULL);
	CHECK(rd_fwtrain_find(RD_STACK_MLNX_OFED, "99999999999999999999.10-1.1.4.0", NULL) == NULL);
	const struct rd_fw_release *d = rd_fwtrain_find(RD_STACK_DOCA_OFED, "24.10-1.1.4", "2.9.1-0.1.6");
	CHECK(d && strcmp(d->version, "2.9.1") == 0);
	CHECK(rd_fwtrain_find(RD_STACK_DOCA_OFED, NULL, "2.9.10-1") == NULL);
	CHECK(rd_fwtrain_find(RD_STACK_DOCA_OFED, NULL, "2.9") == NULL);
	CHECK(rd_fwtrain_find(RD_STACK_DOCA_OFED, NULL, "3.2.1-041000-25.10") == NULL);
	/* DOCA 2.9.1: BlueField-2 on 24.43.2402 while ConnectX-7 is on 28.43.2026; CX-6 stays on .43 in 3.1.0 */
	CHECK_STR(rd_fwtrain_expected(d, RD_AD_BF2), "24.43.2402");
	CHECK_STR(rd_fwtrain_expected(d, RD_AD_CX7), "28.43.2026");
	CHECK(rd_fwtrain_expected(d, RD_AD_CX5) == NULL);
	CHECK(rd_fwtrain_expected(d, RD_AD_NONE) == NULL);
	CHECK(rd_fwtrain_expected(NULL, RD_AD_CX7) == NULL);
	CHECK_STR(rd_fwtrain_expected(rd_fwtrain_find(RD_STACK_DOCA_OFED, NULL, "3.1.0-1"), RD_AD_CX6), "20.43.3608");
}

RD_TEST(fwtrain_match_patterns)
{
	/* the guide's example: MLNX_OFED 24.10-1.1.4.0 ships 28.43.2026, so 28.41.1000 is a mismatch */
	const char *want = rd_fwtrain_expected(rd_fwtrain_find(RD_STACK_MLNX_OFED, "24.10-1.1.4.0", NULL), RD_AD_CX7);
	CHECK(rd_fwtrain_match(want, "28.43.2026"));
	CHECK(!rd_fwtrain_match(want, "28.41.1000"));
	CHECK(!rd_fwtrain_match(want, "22.43.2026"));
	CHECK(rd_fwtrain_match("28.41.10xx", "28.41.1010"));
	CHECK(!rd_fwtrain_match("28.41.10xx", "28.41.1110"));
	CHECK(!rd_fwtrain_match("28.41.10xx", "28.41.10"));
	CHECK(!rd_fwtrain_match("28.41.10xx", "28.41.10a1"));
	CHECK(!rd_fwtrain_match("28.43.2026", "28.43.20260"));
	CHECK(!rd_fwtrain_match("28.43.2026", "28.43.2026\n"));
	CHECK(!rd_fwtrain_match("28.43.2026", ""));
	CHECK(!rd_fwtrain_match(NULL, "28.43.2026"));
	CHECK(!rd_fwtrain_match("28.43.2026", NULL));
	CHECK(rd_fwtrain_match("28.43.4100|28.43.4076", "28.43.4076"));
	CHECK(rd_fwtrain_match("28.43.4100|28.43.4076", "28.43.4100"));
	CHECK(!rd_fwtrain_match("28.43.4100|28.43.4076", "28.43.4077"));
	CHECK(!rd_fwtrain_match("x", "1"));
}

/* ---- GIDs ---- */

struct tgid {
	unsigned index;
	const char *gid, *type, *ndev;
};

static void make_port(struct rd_port *p, const struct tgid *t, size_t n)
{
	memset(p, 0, sizeof *p);
	p->gids = calloc(n, sizeof *p->gids);
	for (size_t i = 0; i < n; i++) {
		struct rd_gid *g = &p->gids[p->ngids++];
		g->index = t[i].index;
		CHECK_INT(rd_parse_gid(t[i].gid, g->gid), 0);
		g->text = strdup(t[i].gid);
		g->type = t[i].type ? strdup(t[i].type) : NULL;
		g->ndev = t[i].ndev ? strdup(t[i].ndev) : NULL;
	}
}

static void free_port(struct rd_port *p)
{
	for (size_t i = 0; i < p->ngids; i++) {
		free(p->gids[i].text);
		free(p->gids[i].type);
		free(p->gids[i].ndev);
	}
	free(p->gids);
	memset(p, 0, sizeof *p);
}

#define LL "fe80:0000:0000:0000:ba59:9fff:fee3:142a"
#define V4 "0000:0000:0000:0000:0000:ffff:0a0a:0511"
#define ZERO "0000:0000:0000:0000:0000:0000:0000:0000"

static const char *no_env(const char *n)
{
	(void)n;
	return NULL;
}

static struct rd_nccl_sel defaults(void)
{
	struct rd_nccl_sel s;
	rd_nccl_sel_make(&s, NULL, -1, 0, 0, 0);
	return s;
}

RD_TEST(gid_classes)
{
	uint8_t g[16];
	rd_parse_gid(V4, g);
	CHECK_INT(rd_gid_family(g), RD_GID_INET);
	CHECK(rd_gid_valid(g));
	char buf[20];
	rd_gid_ipv4(g, buf, sizeof buf);
	CHECK_STR(buf, "10.10.5.17");
	rd_parse_gid(LL, g);
	CHECK_INT(rd_gid_family(g), RD_GID_INET6);
	CHECK(rd_gid_link_local(g) && !rd_gid_valid(g));
	rd_gid_ipv4(g, buf, sizeof buf);
	CHECK_STR(buf, "");
	rd_parse_gid(ZERO, g);
	CHECK(!rd_gid_valid(g));
	CHECK_INT(rd_gid_family(g), RD_GID_INET6);
	rd_parse_gid("fe80:0000:0000:0000:0000:0000:0000:0000", g);
	CHECK(!rd_gid_valid(g));
	rd_parse_gid("fec0:0000:0000:0000:5054:00ff:fe12:3456", g);
	CHECK(rd_gid_valid(g) && rd_gid_family(g) == RD_GID_INET6);
	rd_parse_gid("ff0e:0000:0000:0000:0000:ffff:e000:0001", g); /* IPv4-mapped multicast */
	CHECK_INT(rd_gid_family(g), RD_GID_INET);
	CHECK_INT(rd_gid_roce_version("IB/RoCE v1"), 1);
	CHECK_INT(rd_gid_roce_version("RoCE v1"), 1);
	CHECK_INT(rd_gid_roce_version("RoCE v2"), 2);
	CHECK_INT(rd_gid_roce_version("Invalid GID type"), -1);
	CHECK_INT(rd_gid_roce_version(NULL), -1);
	CHECK_INT(rd_gid_parse_family("AF_INET6"), RD_GID_INET6);
	CHECK_INT(rd_gid_parse_family("inet"), 0);
}

RD_TEST(nccl_choice_on_a_mlx5_table)
{
	/* the kernel's usual layout: v1/v2 pairs per address, link-local first */
	static const struct tgid t[] = {{0, LL, "IB/RoCE v1", "eth2"}, {1, LL, "RoCE v2", "eth2"},
					{2, V4, "IB/RoCE v1", "eth2"}, {3, V4, "RoCE v2", "eth2"}};
	struct rd_port p;
	make_port(&p, t, 4);
	struct rd_nccl_sel s = defaults();
	CHECK_INT(rd_nccl_auto_gid(&p, &s), 3);
	CHECK(rd_nccl_gid_usable(&p, 3, &s, NULL, 0));
	char why[96];
	CHECK(!rd_nccl_gid_usable(&p, 2, &s, why, sizeof why));
	CHECK_STR(why, "RoCE v1, not v2");
	CHECK(!rd_nccl_gid_usable(&p, 1, &s, why, sizeof why));
	CHECK_STR(why, "link-local (fe80::)");
	CHECK(!rd_nccl_gid_usable(&p, 7, &s, why, sizeof why));
	CHECK_STR(why, "empty (an all-zero GID)");
	s.roce_version = 1;
	CHECK_INT(rd_nccl_auto_gid(&p, &s), 2);
	/* IPv6 wanted: no global IPv6 GID, NCCL stays on index 0 */
	s = defaults();
	s.family = RD_GID_INET6;
	CHECK_INT(rd_nccl_auto_gid(&p, &s), 0);
	free_port(&p);
}

RD_TEST(nccl_choice_on_rxe_and_link_local_only)
{
	/* Soft-RoCE (a real 6.1 guest, examples/rxe-qemu): v2 only, an IPv4 and a site-local IPv6 address */
	static const struct tgid rxe[] = {{0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2", "eth0"},
					  {1, "0000:0000:0000:0000:0000:ffff:0a00:020f", "RoCE v2", "eth0"},
					  {2, "fec0:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2", "eth0"}};
	struct rd_port p;
	make_port(&p, rxe, 3);
	struct rd_nccl_sel s = defaults();
	CHECK_INT(rd_nccl_auto_gid(&p, &s), 1);
	s.family = RD_GID_INET6;
	CHECK_INT(rd_nccl_auto_gid(&p, &s), 2);
	free_port(&p);
	static const struct tgid ll[] = {{0, LL, "IB/RoCE v1", "eth2"}, {1, LL, "RoCE v2", "eth2"}};
	make_port(&p, ll, 2);
	s = defaults();
	CHECK_INT(rd_nccl_auto_gid(&p, &s), 0);
	CHECK(!rd_nccl_gid_usable(&p, 0, &s, NULL, 0));
	free_port(&p);
	/* an IPv4 GID whose type cannot be read (EINVAL): taken for its family, never for its version */
	static const struct tgid odd[] = {{0, LL, "IB/RoCE v1", "eth2"}, {4, V4, NULL, NULL}, {5, V4, "RoCE v2", "eth2"}};
	make_port(&p, odd, 3);
	CHECK_INT(rd_nccl_auto_gid(&p, &s), 5);
	free_port(&p);
	memset(&p, 0, sizeof p);
	CHECK_INT(rd_nccl_auto_gid(&p, &s), -1);
}

static const char *env_a(const char *n)
{
	if (strcmp(n, "NCCL_IB_GID_INDEX") == 0)
		return "3";
	if (strcmp(n, "NCCL_IB_ROCE_VERSION_NUM") == 0)
		return "1";
	if (strcmp(n, "NCCL_IB_ADDR_FAMILY") == 0)
		return "AF_INET6";
	if (strcmp(n, "NCCL_IB_ADDR_RANGE") == 0)
		return "fd00::/8";
	return NULL;
}

static const char *env_bad(const char *n)
{
	if (strcmp(n, "NCCL_IB_GID_INDEX") == 0)
		return "three";
	if (strcmp(n, "NCCL_IB_ADDR_FAMILY") == 0)
		return "inet";
	if (strcmp(n, "NCCL_IB_ADDR_RANGE") == 0)
		return "10.0.0.0";
	return NULL;
}

static const char *env_range(const char *n)
{
	return strcmp(n, "NCCL_IB_ADDR_RANGE") == 0 ? "10.10.0.0/16" : strcmp(n, "NCCL_IB_GID_INDEX") == 0 ? "-1" : NULL;
}

RD_TEST(nccl_environment_over_policy_over_defaults)
{
	struct rd_nccl_env e;
	struct rd_nccl_sel s;
	rd_nccl_env_read(&e, no_env);
	rd_nccl_sel_make(&s, &e, 2, 1, RD_GID_INET6, 0);
	CHECK_INT(s.gid_index, 2);
	CHECK_STR(s.gid_index_from, "the policy's [nccl] gid_index");
	CHECK_INT(s.roce_version, 1);
	CHECK_INT(s.family, RD_GID_INET6);
	rd_nccl_env_read(&e, env_a);
	rd_nccl_sel_make(&s, &e, 2, 2, RD_GID_INET, 0);
	CHECK_INT(s.gid_index, 3);
	CHECK_STR(s.gid_index_from, "NCCL_IB_GID_INDEX");
	CHECK_INT(s.roce_version, 1);
	CHECK_INT(s.family, RD_GID_INET6);
	CHECK(s.range_set && s.prefixlen == 8);
	/* what NCCL does with bad values: ncclLoadParam's strtoll makes "three" 0 (errno stays 0), an
	 * unknown family is AF_INET, a range without /BITS is none */
	rd_nccl_env_read(&e, env_bad);
	rd_nccl_sel_make(&s, &e, -1, 0, 0, 0);
	CHECK_INT(s.gid_index, 0);
	CHECK_STR(s.gid_index_from, "NCCL_IB_GID_INDEX");
	CHECK_INT(s.family, RD_GID_INET);
	CHECK(!s.range_set);
	/* -1 in the environment is "automatic", even over a policy index */
	rd_nccl_env_read(&e, env_range);
	rd_nccl_sel_make(&s, &e, 2, 0, 0, 0);
	CHECK_INT(s.gid_index, -1);
	CHECK(s.range_set && s.prefixlen == 16);
	static const struct tgid t[] = {{0, LL, "IB/RoCE v1", "e"}, {1, "0000:0000:0000:0000:0000:ffff:c0a8:0101", "RoCE v2", "e"},
					{2, V4, "RoCE v2", "e"}};
	struct rd_port p;
	make_port(&p, t, 3);
	CHECK_INT(rd_nccl_auto_gid(&p, &s), 2); /* 192.168.1.1 is outside 10.10/16 */
	char why[96];
	CHECK(!rd_nccl_gid_usable(&p, 1, &s, why, sizeof why));
	CHECK_STR(why, "outside NCCL_IB_ADDR_RANGE");
	free_port(&p);
}

static const char *env_numbers(const char *n)
{
	if (strcmp(n, "NCCL_IB_GID_INDEX") == 0)
		return "3x"; /* strtoll stops at the x: 3 */
	if (strcmp(n, "NCCL_IB_ROCE_VERSION_NUM") == 0)
		return "99999999999999999999"; /* ERANGE: NCCL keeps its default */
	return NULL;
}

static const char *env_family6(const char *n)
{
	return strcmp(n, "NCCL_IB_ADDR_FAMILY") == 0 ? "AF_INET6" : strcmp(n, "NCCL_IB_ROCE_VERSION_NUM") == 0 ? "1" : NULL;
}

RD_TEST(nccl_numbers_parse_as_ncclloadparam)
{
	struct rd_nccl_env e;
	struct rd_nccl_sel s;
	rd_nccl_env_read(&e, env_numbers);
	rd_nccl_sel_make(&s, &e, -1, 0, 0, 0);
	CHECK_INT(s.gid_index, 3);
	CHECK_INT(s.roce_version, 2);
	CHECK(s.roce_version_from == NULL);
}

/* NVIDIA/nccl v2.20.5-1 src/transport/net_ib.cc: NCCL_PARAM(IbGidIndex, "IB_GID_INDEX", 0) and no
 * NCCL_IB_ROCE_VERSION_NUM; v2.21.5-1: NCCL_PARAM(IbGidIndex, "IB_GID_INDEX", -1) with
 * ncclIbGetGidIndex's search.  The table is MLNX_OFED's usual RoCE one: 0/1 fe80 v1/v2, 2/3 IPv4. */
RD_TEST(nccl_before_2_21_5_takes_index_0)
{
	CHECK_INT(rd_nccl_version_parse("2.21.5"), RD_NCCL_AUTO_GID_VERSION);
	CHECK_INT(rd_nccl_version_parse("2.19.3"), 2019003);
	CHECK_INT(rd_nccl_version_parse("2.19"), 0);
	CHECK_INT(rd_nccl_version_parse("2.19.3.1"), 0);
	CHECK_INT(rd_nccl_version_parse("2.1999.3"), 0);
	CHECK_INT(rd_nccl_libname_version("libnccl.so.2.18.3"), 2018003);
	CHECK_INT(rd_nccl_libname_version("libnccl.so.2"), 0);
	CHECK_INT(rd_nccl_libname_version("libnccl.so.2.18.3.bak"), 0);
	CHECK_INT(rd_nccl_libname_version("libnccl-net.so.2.18.3"), 0);
	static const struct tgid t[] = {{0, LL, "IB/RoCE v1", "e"}, {1, LL, "RoCE v2", "e"}, {2, V4, "IB/RoCE v1", "e"},
					{3, V4, "RoCE v2", "e"}};
	struct rd_port p;
	make_port(&p, t, 4);
	struct rd_nccl_env e;
	struct rd_nccl_sel s;
	rd_nccl_env_read(&e, env_family6);
	/* unknown version: 2.21.5's rules, AF_INET6 and v1 honoured (no IPv6 GID: stays at 0) */
	rd_nccl_sel_make(&s, &e, -1, 0, 0, 0);
	CHECK(!s.legacy && s.family == RD_GID_INET6 && s.roce_version == 1);
	CHECK_STR(s.version_text, "");
	/* a library found: the oldest one is judged by, the others named */
	e.lib_oldest = 2019003;
	e.lib_newest = 2023004;
	snprintf(e.lib_oldest_where, sizeof e.lib_oldest_where, "libnccl.so.2.19.3 in /usr/lib64");
	rd_nccl_sel_make(&s, &e, -1, 0, 0, 0);
	CHECK(s.legacy);
	CHECK_STR(s.version_text, "NCCL 2.19.3 (libnccl.so.2.19.3 in /usr/lib64; 2.23.4 is installed too)");
	CHECK_INT(rd_nccl_auto_gid(&p, &s), 0);
	/* NCCL 2.19.3 reads neither variable: RoCE v2 over IPv4 stays the usable GID */
	CHECK(s.family == RD_GID_INET && s.roce_version == 2 && !s.family_from && !s.roce_version_from);
	CHECK(rd_nccl_gid_usable(&p, 3, &s, NULL, 0));
	/* the policy's version wins over the libraries */
	rd_nccl_sel_make(&s, &e, -1, 0, 0, 2021005);
	CHECK(!s.legacy);
	CHECK_STR(s.version_text, "NCCL 2.21.5 (the policy's [nccl] version)");
	e.family_set = e.roce_version_set = false;
	rd_nccl_sel_make(&s, &e, -1, 0, 0, 2021005);
	CHECK_INT(rd_nccl_auto_gid(&p, &s), 3);
	/* an index given is used by either */
	rd_nccl_sel_make(&s, &e, 3, 0, 0, 2018003);
	CHECK(s.legacy && s.gid_index == 3);
	free_port(&p);
}
