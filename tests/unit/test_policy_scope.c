/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The policy's scoped sections: [NAME @HOSTLIST] and [NAME board=BOARD_ID], which setting wins,
 * the error of two as specific, hostile headers, and the hostlist matcher they use. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/policy.h"
#include "util/hostlist.h"

static int parse(const char *text, const char *host, struct rd_policy *p, char *err, size_t errlen)
{
	rd_policy_defaults(p);
	err[0] = '\0';
	return rd_policy_parse_host(text, "p.conf", host, p, err, errlen);
}

static const struct rd_policy_setting *setting(const struct rd_policy *p, const char *section, const char *key)
{
	for (size_t i = 0; i < p->nsettings; i++)
		if (!strcmp(p->settings[i].section, section) && !strcmp(p->settings[i].key, key))
			return &p->settings[i];
	return NULL;
}

RD_TEST(hostlist_match)
{
	static const struct {
		const char *list, *name;
		bool match;
		unsigned long long count;
	} cases[] = {
		{"gpu[001-128]", "gpu007", true, 128},   {"gpu[001-128]", "gpu7", false, 128},
		{"gpu[001-128]", "gpu129", false, 128},  {"gpu[1-10]", "gpu10", true, 10},
		{"gpu[1-10]", "gpu01", false, 10},       {"rack[1-2]n[1-2]", "rack2n1", true, 4},
		{"rack[1-2]n[1-2]", "rack3n1", false, 4}, {"a,b[1-3],c", "b2", true, 5},
		{"a,b[1-3],c", "c", true, 5},            {"a,b[1-3],c", "bb", false, 5},
		{"n[1,3,5-6]x", "n5x", true, 4},         {"n[1,3,5-6]x", "n4x", false, 4},
		{"n[98-102]", "n100", true, 5},          {"n[098-102]", "n099", true, 5},
		{"gpu-a[01-64]", "gpu-a01", true, 64},   {"node1", "node1", true, 1},
		{"[1-3][1-3][1-3][1-3][1-3][1-3][1-3][1-3]", "12312312", true, 6561},
		{"[1-3][1-3][1-3][1-3][1-3][1-3][1-3][1-3]", "12312314", false, 6561},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bool m = !cases[i].match;
		unsigned long long n = 0;
		char err[128];
		CHECK_INT(rd_hostlist_match(cases[i].list, cases[i].name, &m, &n, err, sizeof err), 0);
		if (m != cases[i].match)
			rd_test_fail(__FILE__, __LINE__, "%s in %s: %d", cases[i].name, cases[i].list, m);
		CHECK_INT(n, cases[i].count);
		/* the matcher agrees with the expansion */
		struct rd_strv v = {0};
		CHECK_INT(rd_hostlist_expand(cases[i].list, &v, err, sizeof err), 0);
		CHECK(rd_strv_contains(&v, cases[i].name) == cases[i].match);
		rd_strv_free(&v);
	}
	bool m = true;
	char err[128];
	CHECK(rd_hostlist_match("gpu[3-1]", "gpu2", &m, NULL, err, sizeof err) < 0 && !m);
}

RD_TEST(policy_scope_hosts)
{
	static const char text[] = "[ports]\nmin_rate_ib = 200\nexpect_active = 8\n"
				   "[ports @gpu[001-128]]\nmin_rate_ib = 400   ; the NDR nodes\n"
				   "[ports @gpu[001-004]]\nexpect_active = 4\n"
				   "[memlock @login[1-2]]\nmin = 64K\n";
	struct rd_policy p;
	char err[512];
	/* the NDR nodes: the pattern of 128 hosts, and on gpu002 the one of 4 for expect_active */
	CHECK_INT(parse(text, "gpu002", &p, err, sizeof err), 0);
	CHECK(p.min_rate_ib == 400);
	CHECK_INT(p.expect_active_ports, 4);
	CHECK(p.memlock_min == UINT64_MAX);
	CHECK_STR(p.host, "gpu002");
	const struct rd_policy_setting *s = setting(&p, "ports", "min_rate_ib");
	CHECK(s != NULL);
	CHECK_INT(s->line, 5);
	CHECK_STR(s->header, "ports @gpu[001-128]");
	CHECK_STR(s->value, "400");
	CHECK_INT(s->nhosts, 128);
	CHECK_INT(setting(&p, "ports", "expect_active")->line, 7);
	rd_policy_free(&p);
	/* the short name matches too */
	CHECK_INT(parse(text, "gpu100.cluster.example", &p, err, sizeof err), 0);
	CHECK(p.min_rate_ib == 400);
	CHECK_INT(p.expect_active_ports, 8);
	rd_policy_free(&p);
	/* another host: the unscoped values, and the login pattern */
	CHECK_INT(parse(text, "login2", &p, err, sizeof err), 0);
	CHECK(p.min_rate_ib == 200);
	CHECK_INT(p.expect_active_ports, 8);
	CHECK_INT(p.memlock_min, 65536);
	CHECK_INT(setting(&p, "ports", "min_rate_ib")->line, 2);
	rd_policy_free(&p);
	/* no host (rd_policy_parse): the unscoped values */
	rd_policy_defaults(&p);
	CHECK_INT(rd_policy_parse(text, "p.conf", &p, err, sizeof err), 0);
	CHECK(p.min_rate_ib == 200);
	rd_policy_free(&p);
	/* a scoped section before the unscoped one still wins, whatever the order */
	CHECK_INT(parse("[ports @gpu[1-2]]\nmin_rate_ib = 400\n[ports]\nmin_rate_ib = 200\n", "gpu1", &p, err, sizeof err), 0);
	CHECK(p.min_rate_ib == 400);
	rd_policy_free(&p);
	/* a list is replaced whole by the more specific section */
	CHECK_INT(parse("[ports]\nignore = mlx5_4 mlx5_5\n[ports @gpu1]\nignore = mlx5_9\n", "gpu1", &p, err, sizeof err), 0);
	CHECK_INT(p.ignore.n, 1);
	CHECK_STR(p.ignore.v[0], "mlx5_9");
	CHECK_INT(p.ignore_line, 4);
	rd_policy_free(&p);
}

RD_TEST(policy_scope_equal_specificity)
{
	static const char text[] = "[ports @gpu[1-2]]\nmin_rate_ib = 100\n\n[ports @gpu[1,3]]\nmin_rate_ib = 200\n";
	struct rd_policy p;
	char err[512];
	CHECK_INT(parse(text, "gpu1", &p, err, sizeof err), -1);
	CHECK_STR(err, "p.conf:5: min_rate_ib = 200 here [ports @gpu[1,3]] and min_rate_ib = 100 at p.conf:2 [ports "
		       "@gpu[1-2]]: both sections name this host and are as specific (make one name fewer hosts, or "
		       "give both one value)");
	CHECK(p.min_rate_ib == 0 && p.nsettings == 0); /* the defaults */
	rd_policy_free(&p);
	/* hosts named by only one of them: no conflict */
	CHECK_INT(parse(text, "gpu2", &p, err, sizeof err), 0);
	CHECK(p.min_rate_ib == 100);
	rd_policy_free(&p);
	CHECK_INT(parse(text, "gpu3", &p, err, sizeof err), 0);
	CHECK(p.min_rate_ib == 200);
	rd_policy_free(&p);
	/* the same value twice is no conflict; the first keeps its line */
	CHECK_INT(parse("[ports @a[1-2]]\nmin_rate_ib = 100\n[ports @a[1,3]]\nmin_rate_ib = 100\n", "a1", &p, err, sizeof err), 0);
	CHECK_INT(setting(&p, "ports", "min_rate_ib")->line, 2);
	rd_policy_free(&p);
	/* two boards' sections of one board */
	CHECK_INT(parse("[firmware board=MT_1]\nfw_ver = 1.2.3\n[firmware board=MT_1]\nfw_ver = 1.2.4\n", "a1", &p, err,
			sizeof err),
		  -1);
	CHECK(strstr(err, "p.conf:4: fw_ver = 1.2.4 here [firmware board=MT_1] and fw_ver = 1.2.3 at p.conf:2") == err);
	rd_policy_free(&p);
	/* unscoped sections keep the old rule: the later value */
	CHECK_INT(parse("[ports]\nmin_rate_ib = 100\n[ports]\nmin_rate_ib = 200\n", "a1", &p, err, sizeof err), 0);
	CHECK(p.min_rate_ib == 200);
	rd_policy_free(&p);
	/* a tie that a more specific section settles is no error, whether that section comes first or last */
	static const char *const orders[] = {
		"[ports @gpu-a[01-02]]\nexpect_active = 1\n[ports @gpu-a[01,03]]\nexpect_active = 2\n[ports @gpu-a01]\nexpect_active = 3\n",
		"[ports @gpu-a01]\nexpect_active = 3\n[ports @gpu-a[01-02]]\nexpect_active = 1\n[ports @gpu-a[01,03]]\nexpect_active = 2\n",
		"[ports @gpu-a[01-02]]\nexpect_active = 1\n[ports @gpu-a01]\nexpect_active = 3\n[ports @gpu-a[01,03]]\nexpect_active = 2\n"};
	for (size_t i = 0; i < 3; i++) {
		CHECK_INT(parse(orders[i], "gpu-a01", &p, err, sizeof err), 0);
		CHECK_INT(p.expect_active_ports, 3);
		rd_policy_free(&p);
		/* and where it names another host, the tie stands */
		CHECK_INT(parse(orders[i], "gpu-a02", &p, err, sizeof err), 0);
		CHECK_INT(p.expect_active_ports, 1);
		rd_policy_free(&p);
	}
	/* a name written twice is one host: gpu-a01,gpu-a01,gpu-a01 is more specific than two hosts */
	CHECK_INT(parse("[ports @gpu-a[01-02]]\nexpect_active = 2\n[ports @gpu-a01,gpu-a01,gpu-a01]\nexpect_active = 1\n",
			"gpu-a01", &p, err, sizeof err),
		  0);
	CHECK_INT(p.expect_active_ports, 1);
	CHECK_INT(setting(&p, "ports", "expect_active")->nhosts, 1);
	rd_policy_free(&p);
	CHECK_INT(parse("[ports @gpu-a[01-02]]\nexpect_active = 2\n[ports @gpu-a[01,01]]\nexpect_active = 1\n", "gpu-a01", &p,
			err, sizeof err),
		  0);
	CHECK_INT(p.expect_active_ports, 1);
	rd_policy_free(&p);
}

RD_TEST(policy_scope_board)
{
	static const char text[] = "[firmware]\nMT_0000000838 = 28.41.1000\nMT_0000000359 = 22.39.1002\n"
				   "[firmware @gpu[1-8]]\nMT_0000000838 = 28.42.1000\n"
				   "[firmware board=MT_0000000838]\nfw_ver = 28.43.2026\n"
				   "[mlxconfig]\nLINK_TYPE_P1 = ETH(2)\n"
				   "[mlxconfig board=MT_0000000838]\nLINK_TYPE_P1 = IB(1)\n";
	struct rd_policy p;
	char err[512];
	CHECK_INT(parse(text, "gpu1", &p, err, sizeof err), 0);
	CHECK_INT(p.npins, 2);
	CHECK_STR(p.pins[0].board_id, "MT_0000000838");
	CHECK_STR(p.pins[0].fw_ver, "28.43.2026"); /* board > host pattern > unscoped */
	CHECK_STR(p.pins[1].fw_ver, "22.39.1002");
	CHECK_INT(p.nmlxconfig, 2);
	CHECK_STR(p.mlxconfig[1].name, "MT_0000000838/LINK_TYPE_P1");
	CHECK_STR(p.mlxconfig[1].value, "IB(1)");
	const struct rd_policy_setting *s = setting(&p, "firmware", "fw_ver");
	CHECK(s && s->line == 7 && s->scope == 2);
	rd_policy_free(&p);
	/* the board section wins over the per-board form in an unscoped section after it */
	CHECK_INT(parse("[firmware board=MT_1]\nfw_ver = 2\n[firmware]\nMT_1 = 1\n", "x", &p, err, sizeof err), 0);
	CHECK_INT(p.npins, 1);
	CHECK_STR(p.pins[0].fw_ver, "2");
	rd_policy_free(&p);
}

RD_TEST(policy_scope_hostile_headers)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"[ports @gpu[1-2]\nmin_rate_ib = 1\n", "p.conf:1: a section header without its closing ']'"},
		{"[ports] extra\n", "p.conf:1: text after the section header's ']' (a comment starts with ';' or '#')"},
		{"[ports x]\n", "p.conf:1: [ports x]: 'x' is not a scope (@HOSTLIST or board=BOARD_ID)"},
		{"[ports @]\n", "p.conf:1: [ports @]: the host pattern is one Slurm hostlist without blanks (@gpu[001-128])"},
		{"[ports @a b]\n", "p.conf:1: [ports @a b]: the host pattern is one Slurm hostlist without blanks (@gpu[001-128])"},
		{"\n[ports @n[3-1]]\n", "p.conf:2: [ports @n[3-1]]: not a host pattern: invalid range '3-1' (the end is below the start)"},
		{"[ports @n[1-9999999]]\n", "p.conf:1: [ports @n[1-9999999]]: not a host pattern: too many hosts in range '1-9999999'"},
		{"[ports @n[[1]]]\n", "p.conf:1: [ports @n[[1]]]: not a host pattern: 'n[[': '[' inside '['"},
		{"[ports board=]\n", "p.conf:1: [ports board=]: board= takes one board_id (letters, digits, '_', '.', '-'; e.g. MT_0000000838)"},
		{"[ports board=$(reboot)]\n", "p.conf:1: [ports board=$(reboot)]: board= takes one board_id (letters, digits, '_', '.', '-'; e.g. MT_0000000838)"},
		{"[ports board=MT_1]\nmin_rate_ib = 1\n", "p.conf:2: [ports board=MT_1]: a board_id scope is for [firmware] and "
							  "[mlxconfig], whose settings are judged per board; [ports] takes a host pattern (@HOSTLIST)"},
		{"[firmware board=MT_1]\nMT_2 = 1\n", "p.conf:2: [firmware board=MT_1]: the setting of a board's [firmware] section is fw_ver = VERSION, not 'MT_2'"},
		{"[mlxconfig board=MT_1]\nmlx5_0/X = 1\n", "p.conf:2: [mlxconfig board=MT_1]: 'mlx5_0/X' is not NAME (the section names the board)"},
		{"[ ]\n", "p.conf:1: []: no section name"},
		/* a section for other hosts is still checked */
		{"[ports @other[1-2]]\nmin_rate_ib = fast\n", "p.conf:2: min_rate_ib: 'fast' is not a rate in Gb/s"},
		{"[nosuch @gpu1]\nx = 1\n", "p.conf:2: unknown section [nosuch] (the sections are [modules], [ports], [roce], "
					    "[firmware], [memlock], [nccl], [mlxconfig], [counters], [pcie], [watch])"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rd_policy p;
		char err[512];
		CHECK_INT(parse(bad[i].text, "gpu1", &p, err, sizeof err), -1);
		CHECK_STR(err, bad[i].msg);
		rd_policy_free(&p);
	}
	/* a header longer than inih's section names, with a comment after it */
	char text[1200];
	strcpy(text, "[ports @a");
	for (int i = 0; i < 10; i++)
		strcat(text, ",gpunode-long-name");
	strcat(text, ",gpu1]  ; many\nmin_rate_ib = 7\n");
	struct rd_policy p;
	char err[512];
	CHECK_INT(parse(text, "gpu1", &p, err, sizeof err), 0);
	CHECK(p.min_rate_ib == 7);
	rd_policy_free(&p);
	/* a header of 300 characters */
	memset(text, 'a', 300);
	text[0] = '[';
	strcpy(text + 300, "]\n");
	CHECK_INT(parse(text, "gpu1", &p, err, sizeof err), -1);
	CHECK_STR(err, "p.conf:1: a section header longer than 255 characters");
	rd_policy_free(&p);
	/* a host name longer than a header matches no pattern */
	char host[400];
	memset(host, 'g', sizeof host - 1);
	host[sizeof host - 1] = '\0';
	CHECK_INT(parse("[ports @g[1-2]]\nmin_rate_ib = 1\n", host, &p, err, sizeof err), 0);
	CHECK(p.min_rate_ib == 0);
	rd_policy_free(&p);
}
