/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fabric's port error counters and duplicate identities (fabric/fabric.h, counters.c,
 * judge.c): the real ibqueryerrors run on the simulated subnet of tests/fabric/captures/w1 after
 * ibsim's console set five counters (PerformanceSet "leaf1"[6] PortCounters.SymbolErrorCounter=500,
 * "spine1"[2] LinkDownedCounter=255, "node02 mlx5_0"[1] PortXmitDiscards=7, "node05 mlx5_0"[1]
 * PortRcvErrors=12, "leaf2"[2] PortRcvErrors=3); lines of a real switch's ibqueryerrors (a Mellanox
 * SX6036, from a public mailing-list message: several counters on a line, port 0, saturated
 * 16- and 32-bit counters); what is not a line of ibqueryerrors; duplicate GUIDs and LIDs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "harness.h"
#include "model/state.h"
#include "util/util.h"

static char *slurp(const char *rel)
{
	char *path = rd_xasprintf("%s/%s", rd_test_dir(), rel);
	FILE *f = fopen(path, "rb");
	if (!f)
		rd_test_fail(__FILE__, __LINE__, "cannot read %s", path);
	free(path);
	struct rd_buf b = {0};
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		rd_buf_add(&b, chunk, n);
	fclose(f);
	return b.data ? rd_buf_steal(&b) : rd_xstrdup("");
}

static void load_w1(struct rd_fabric *f, bool counters)
{
	char *li = slurp("fabric/captures/w1/iblinkinfo-switches-only-l");
	char *nd = slurp("fabric/captures/w1/ibnetdiscover-p");
	char *sm = slurp("fabric/captures/w1/sminfo");
	struct rd_fabric net = {0};
	memset(f, 0, sizeof *f);
	rd_fab_parse_iblinkinfo(f, li, strlen(li));
	rd_fab_parse_ibnetdiscover(&net, nd, strlen(nd));
	rd_fab_parse_sminfo(f, sm, strlen(sm));
	rd_fabric_merge(f, &net);
	if (counters) {
		char *qe = slurp("fabric/captures/w1/ibqueryerrors");
		CHECK_INT(rd_fab_parse_ibqueryerrors(f, qe, strlen(qe)), 17); /* 5 headers, 8 port lines (3 of them ALL), 4 "##" */
		free(qe);
	}
	free(li);
	free(nd);
	free(sm);
}

static const struct rd_finding *find(const struct rd_report *r, const char *check, const char *subject)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->findings[i].check, check) == 0 && (!subject || strcmp(r->findings[i].subject, subject) == 0))
			return &r->findings[i];
	return NULL;
}

static size_t count(const struct rd_report *r, const char *check)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += strcmp(r->findings[i].check, check) == 0;
	return n;
}

RD_TEST(ibqueryerrors_simulated)
{
	struct rd_fabric f;
	load_w1(&f, true);
	CHECK(f.counters_read);
	CHECK_INT(f.ports_checked, 38);
	CHECK_INT(f.skipped, 0);
	CHECK_INT(f.ncounters, 5); /* the "port ALL" aggregates are not kept */
	CHECK(f.counters[0].guid == 0x100009);
	CHECK_INT(f.counters[0].port, 1);
	CHECK_STR(f.counters[0].name, "PortRcvErrors");
	CHECK(f.counters[0].value == 12);
	CHECK_STR(f.counters[0].desc, "node05 mlx5_0");
	CHECK_INT(f.counters[0].line, 2);
	CHECK_STR(f.counters[2].desc, "spine1");
	CHECK(f.counters[2].value == 255);

	struct rd_report r = {0};
	struct rd_text qe = {.data = (char *)"", .len = 0};
	struct rd_fab_judge_opts o = {.queryerrors = &qe};
	rd_fab_judge(&f, &o, &r);
	CHECK_INT(count(&r, "fabric.link.errors"), 2); /* node02's 7 PortXmitDiscards are below 100 */
	/* both ends of the degraded uplink: one saturated (8 bits, 255), one above 10 */
	const struct rd_finding *x = find(&r, "fabric.link.errors", "leaf1[6] - spine1[2]");
	CHECK(x != NULL);
	if (x) {
		CHECK_INT(x->status, RD_FAIL);
		CHECK(strstr(x->message, "spine1[2] LinkDownedCounter 255, saturated") != NULL);
		CHECK(strstr(x->message, "leaf1[6] SymbolErrorCounter 500 (threshold 10;") != NULL);
		CHECK_INT(x->nevidence, 3); /* the two counters' lines and the cable's */
	}
	/* a host's cable, both ends above PortRcvErrors' 10 together in one finding: 12 and 3 */
	x = find(&r, "fabric.link.errors", "leaf2[2] - node05 mlx5_0[1]");
	CHECK(x != NULL);
	if (x) {
		CHECK_INT(x->status, RD_WARN);
		CHECK(strstr(x->message, "node05 mlx5_0[1] PortRcvErrors 12") != NULL);
		CHECK(strstr(x->message, "PortRcvErrors 3") == NULL); /* below its threshold: not named */
	}
	/* PortXmitDiscards 7 is below its 100 */
	CHECK(find(&r, "fabric.link.errors", "leaf1[2] - node02 mlx5_0[1]") == NULL);
	CHECK(find(&r, "fabric.duplicate", NULL) == NULL);
	rd_report_free(&r);
	rd_fabric_free(&f);
}

RD_TEST(ibqueryerrors_none_and_not_asked)
{
	struct rd_fabric f;
	load_w1(&f, false);
	static char clean[] = "\n## Summary: 10 nodes checked, 0 bad nodes found\n##          38 ports checked, 0 ports have "
			    "errors beyond threshold\n## Thresholds: \n## Suppressed:\n";
	CHECK_INT(rd_fab_parse_ibqueryerrors(&f, clean, strlen(clean)), 4);
	struct rd_report r = {0};
	struct rd_text qe = {.data = clean, .len = strlen(clean)};
	struct rd_fab_judge_opts o = {.queryerrors = &qe};
	rd_fab_judge(&f, &o, &r);
	const struct rd_finding *x = find(&r, "fabric.link.errors", NULL);
	CHECK(x != NULL && x->status == RD_OK && strstr(x->message, "38 ports checked"));
	rd_report_free(&r);
	/* not asked for (no capture): no finding */
	o.queryerrors = NULL;
	rd_fab_judge(&f, &o, &r);
	CHECK_INT(count(&r, "fabric.link.errors"), 0);
	rd_report_free(&r);
	rd_fabric_free(&f);
}

RD_TEST(ibqueryerrors_failed)
{
	struct rd_fabric f;
	load_w1(&f, false);
	/* what it prints without a subnet manager (to stderr) leaves stdout without its summary */
	static char out[] = "ibwarn: [1] mad_rpc_open_port: can't open UMAD port ((null):0)\n";
	CHECK_INT(rd_fab_parse_ibqueryerrors(&f, out, strlen(out)), 0);
	CHECK(!f.counters_read);
	struct rd_report r = {0};
	struct rd_text qe = {.data = out, .len = strlen(out), .status = 255};
	struct rd_fab_judge_opts o = {.queryerrors = &qe};
	rd_fab_judge(&f, &o, &r);
	const struct rd_finding *x = find(&r, "fabric.link.errors", NULL);
	CHECK(x != NULL && x->status == RD_UNKNOWN);
	CHECK(x && x->nevidence == 1 && strstr(x->evidence[0].value, "exit status 255"));
	rd_report_free(&r);
	struct rd_text gone = {.err = ENOENT};
	o.queryerrors = &gone;
	rd_fab_judge(&f, &o, &r);
	x = find(&r, "fabric.link.errors", NULL);
	CHECK(x != NULL && x->status == RD_UNKNOWN);
	rd_report_free(&r);
	rd_fabric_free(&f);
}

/* Lines of a real SX6036 switch's and its hosts' ibqueryerrors, shortened: from a public
 * mailing-list message (a home cluster's opensm and Ceph question, "Possible mis-set mkey?"),
 * found through a public code and mail index; its archive address was not at hand. */
static char real_sx6036[] =
	"Errors for \"dl380g7 mlx4_0\"\n"
	"   GUID 0x7cfe900300179b31 port 1: [VL15Dropped == 14] [PortXmitWait == 4294967295]\n"
	"Errors for 0x2c903006e29b0 \"MF0;ys23ib4:SX6036/U1\"\n"
	"   GUID 0x2c903006e29b0 port ALL: [LinkErrorRecoveryCounter == 15] [LinkDownedCounter == 48] "
	"[PortRcvSwitchRelayErrors == 2461] [PortXmitDiscards == 15854] [VL15Dropped == 5] [PortXmitWait == 4294967295]\n"
	"   GUID 0x2c903006e29b0 port 0: [PortXmitWait == 76959324]\n"
	"   GUID 0x2c903006e29b0 port 5: [SymbolErrorCounter == 65535] [LinkErrorRecoveryCounter == 8] "
	"[LinkDownedCounter == 2] [PortRcvSwitchRelayErrors == 149] [PortXmitDiscards == 649] [PortXmitWait == 84704351]\n"
	"   GUID 0x2c903006e29b0 port 6: [LinkDownedCounter == 9] [PortRcvSwitchRelayErrors == 2285] "
	"[PortXmitDiscards == 14176] [PortXmitWait == 4294967295]\n"
	"\n"
	"## Summary: 4 nodes checked, 4 bad nodes found\n"
	"##          43 ports checked, 14 ports have errors beyond threshold\n"
	"## Thresholds:\n"
	"## Suppressed:\n";

RD_TEST(ibqueryerrors_real_switch)
{
	struct rd_fabric f = {0};
	CHECK_INT(rd_fab_parse_ibqueryerrors(&f, real_sx6036, strlen(real_sx6036)), 11);
	CHECK_INT(f.skipped, 0);
	CHECK_INT(f.ncounters, 2 + 1 + 6 + 4);
	CHECK_INT(f.ports_checked, 43);
	CHECK(f.counters[0].guid == 0x7cfe900300179b31);
	CHECK_STR(f.counters[1].name, "PortXmitWait");
	CHECK(f.counters[1].value == 4294967295u);
	CHECK_STR(f.counters[3].desc, "MF0;ys23ib4:SX6036/U1");
	CHECK_INT(f.counters[3].port, 5);
	CHECK(f.counters[3].value == 65535);
	/* no iblinkinfo here: each port's finding names the port alone */
	struct rd_report r = {0};
	struct rd_text qe = {.data = real_sx6036, .len = strlen(real_sx6036)};
	struct rd_fab_judge_opts o = {.queryerrors = &qe};
	rd_fab_judge(&f, &o, &r); /* no links: only fabric.input */
	CHECK_INT(count(&r, "fabric.input"), 1);
	rd_report_free(&r);
	rd_fabric_free(&f);

	/* with the w1 fabric's links, the real switch's ports are ports without a cable here */
	load_w1(&f, false);
	rd_fab_parse_ibqueryerrors(&f, real_sx6036, strlen(real_sx6036));
	rd_fab_judge(&f, &o, &r);
	const struct rd_finding *x = find(&r, "fabric.link.errors", "MF0;ys23ib4:SX6036/U1[5]");
	CHECK(x != NULL);
	if (x) {
		CHECK_INT(x->status, RD_FAIL); /* SymbolErrorCounter 65535: 16 bits, saturated */
		CHECK(strstr(x->message, "SymbolErrorCounter 65535, saturated") != NULL);
		CHECK(strstr(x->message, "PortXmitDiscards 649") != NULL);
		CHECK(strstr(x->message, "PortXmitWait") == NULL);             /* congestion: not judged */
		CHECK(strstr(x->message, "PortRcvSwitchRelayErrors") == NULL); /* ibqueryerrors -c's common one */
		CHECK(strstr(x->message, "LinkDownedCounter") == NULL);        /* 2: below 10 */
		CHECK(strstr(x->message, "without a cable") != NULL);
	}
	x = find(&r, "fabric.link.errors", "MF0;ys23ib4:SX6036/U1[6]");
	CHECK(x != NULL && x->status == RD_WARN);
	CHECK(find(&r, "fabric.link.errors", "MF0;ys23ib4:SX6036/U1[0]") == NULL);
	CHECK(find(&r, "fabric.link.errors", "dl380g7 mlx4_0[1]") == NULL); /* VL15Dropped, PortXmitWait */
	rd_report_free(&r);
	rd_fabric_free(&f);
}

RD_TEST(ibqueryerrors_not_lines)
{
	struct rd_fabric f = {0};
	const char *text = "Errors for\n"
			   "Errors for \"unterminated\n"
			   "   GUID 0x1 port 1:\n"                              /* no counter */
			   "   GUID 0x1 port 256: [PortRcvErrors == 1]\n"       /* no such port */
			   "   GUID 0x1 port 1: [PortRcvErrors == 99999999999999999999]\n" /* beyond 64 bits */
			   "   GUID 0x1 port 1: [PortRcvErrors = 1]\n"
			   "   GUID 0x1 port 1 [PortRcvErrors == 1]\n"
			   "   GUID zz port 1: [PortRcvErrors == 1]\n"
			   "something else\n"
			   "   GUID 0x1 port 2: [ == 4] [PortRcvErrors == 4] [junk\n"; /* the good one kept */
	CHECK_INT(rd_fab_parse_ibqueryerrors(&f, text, strlen(text)), 1);
	CHECK_INT(f.skipped, 9);
	CHECK_INT(f.ncounters, 1);
	CHECK(f.counters[0].value == 4 && f.counters[0].port == 2 && !f.counters[0].desc);
	CHECK(!f.counters_read);
	CHECK_INT(rd_fab_parse_ibqueryerrors(&f, NULL, 0), 0);
	rd_fabric_free(&f);
}

RD_TEST(counter_rules)
{
	const struct rd_fab_counter_rule *ru = rd_fab_counter_rule("SymbolErrorCounter");
	CHECK(ru && ru->threshold == 10 && ru->bits == 16);
	ru = rd_fab_counter_rule("LocalLinkIntegrityErrors");
	CHECK(ru && ru->bits == 4);
	ru = rd_fab_counter_rule("PortXmitDiscards");
	CHECK(ru && ru->threshold == 100);
	CHECK(rd_fab_counter_rule("PortXmitWait") == NULL);
	CHECK(rd_fab_counter_rule("PortRcvSwitchRelayErrors") == NULL);
}

/* ---- duplicates ---- */

static void lines(struct rd_fabric *f, const char *s)
{
	rd_fab_parse_iblinkinfo(f, s, strlen(s));
	struct rd_fabric net = {0};
	rd_fabric_merge(f, &net);
}

#define LI_SW1 "0x0000000000200000 \"leaf1\"      1    "
#define LI_SW2 "0x0000000000200001 \"leaf2\"      2    "
#define LI_MID "[  ] ==( 4X           2.5 Gbps Active/  LinkUp)==>  "

RD_TEST(duplicate_guid_and_lid)
{
	struct rd_fabric f = {0};
	/* node02 and node07 have one port GUID (a cloned image); node03 and node04 one LID */
	lines(&f, LI_SW1 "1" LI_MID "0x0000000000100001      5    1[  ] \"node01 mlx5_0\" ( )\n"
		  LI_SW1 "2" LI_MID "0x0000000000100003      6    1[  ] \"node02 mlx5_0\" ( )\n"
		  LI_SW1 "3" LI_MID "0x0000000000100005      7    1[  ] \"node03 mlx5_0\" ( )\n"
		  LI_SW2 "1" LI_MID "0x0000000000100007      7    1[  ] \"node04 mlx5_0\" ( )\n"
		  LI_SW2 "2" LI_MID "0x0000000000100003      9    1[  ] \"node07 mlx5_0\" ( )\n");
	struct rd_report r = {0};
	struct rd_fab_judge_opts o = {0};
	rd_fab_judge(&f, &o, &r);
	CHECK_INT(count(&r, "fabric.duplicate"), 2);
	const struct rd_finding *x = find(&r, "fabric.duplicate", "GUID 0x0000000000100003");
	CHECK(x != NULL);
	if (x) {
		CHECK_INT(x->status, RD_FAIL);
		CHECK(strstr(x->message, "\"node02 mlx5_0\" port 1 (cabled to leaf1[2], line 2)") != NULL);
		CHECK(strstr(x->message, "\"node07 mlx5_0\" port 1 (cabled to leaf2[2], line 5)") != NULL);
	}
	x = find(&r, "fabric.duplicate", "LID 7");
	CHECK(x != NULL);
	if (x) {
		CHECK(strstr(x->message, "node03 mlx5_0") != NULL);
		CHECK(strstr(x->message, "node04 mlx5_0") != NULL);
	}
	rd_report_free(&r);
	rd_fabric_free(&f);

	/* one GUID, one description, two cables: still two devices */
	memset(&f, 0, sizeof f);
	lines(&f, LI_SW1 "1" LI_MID "0x0000000000100001      5    1[  ] \"gpu mlx5_0\" ( )\n"
		  LI_SW2 "1" LI_MID "0x0000000000100001      5    1[  ] \"gpu mlx5_0\" ( )\n");
	rd_fab_judge(&f, &o, &r);
	CHECK(find(&r, "fabric.duplicate", "GUID 0x0000000000100001") != NULL);
	CHECK(find(&r, "fabric.duplicate", "LID 5") == NULL); /* one GUID: not a second port on the LID */
	rd_report_free(&r);
	rd_fabric_free(&f);
}

RD_TEST(no_duplicates_in_w1)
{
	struct rd_fabric f;
	load_w1(&f, false);
	struct rd_report r = {0};
	struct rd_fab_judge_opts o = {0};
	rd_fab_judge(&f, &o, &r);
	CHECK_INT(count(&r, "fabric.duplicate"), 0); /* switches' ports share their GUID and LID */
	rd_report_free(&r);
	rd_fabric_free(&f);
}

RD_TEST(counters_rise_since_baseline)
{
	struct rd_fabric f;
	load_w1(&f, true);
	/* the sample before: leaf1[6]'s symbol errors 500 (unchanged), node05's PortRcvErrors 4 (up 8),
	 * spine1[2]'s saturated LinkDownedCounter 255 (unchanged: a rise cannot be seen) */
	struct rd_state_sample base = {.kind = RD_SAMPLE_COUNTERS, .time = rd_run_time() - 600};
	rd_state_add(&base, RD_STATE_COUNTER, "0x0000000000200000", 6, "SymbolErrorCounter", 500);
	rd_state_add(&base, RD_STATE_COUNTER, "0x0000000000100009", 1, "PortRcvErrors", 4);
	rd_state_add(&base, RD_STATE_COUNTER, "0x0000000000200002", 2, "LinkDownedCounter", 255);
	struct rd_report r = {0};
	struct rd_text qe = {.data = (char *)"", .len = 0};
	struct rd_fab_judge_opts o = {.queryerrors = &qe, .counters_base = &base};
	rd_fab_judge(&f, &o, &r);
	const struct rd_finding *x = find(&r, "fabric.link.errors", "leaf1[6] - spine1[2]");
	CHECK(x != NULL && x->status == RD_WARN);
	CHECK(x && strstr(x->message, "SymbolErrorCounter 500, unchanged in 600s (old errors)"));
	x = find(&r, "fabric.link.errors", "leaf2[2] - node05 mlx5_0[1]");
	CHECK(x != NULL && x->status == RD_WARN);
	CHECK(x && strstr(x->message, "PortRcvErrors 12, up 8 in 600s"));
	rd_report_free(&r);
	/* the symbol errors cleared since (now below what was kept): all of them are new */
	base.e[0].value = 900;
	base.e[2].value = 200;
	rd_fab_judge(&f, &o, &r);
	x = find(&r, "fabric.link.errors", "leaf1[6] - spine1[2]");
	CHECK(x != NULL && x->status == RD_FAIL); /* the saturated one rose: 200 -> 255 */
	CHECK(x && strstr(x->message, "SymbolErrorCounter 500, up 500 in"));
	rd_report_free(&r);
	rd_state_sample_free(&base);
	rd_fabric_free(&f);
}

RD_TEST(duplicate_as_the_real_tools_show_it)
{
	/* iblinkinfo on ibsim -I with two CAs of port GUID 0x100012: libibnetdisc kept the one it found
	 * first, and the switch port of the other is up with no node behind it */
	struct rd_fabric f = {0};
	lines(&f, "0x0000000000200000 \"                         leaf1\"      0    1[  ] ==( 4X           2.5 Gbps "
		  "Initialize/  LinkUp)==>      \"Port not available\"\n"
		  "0x0000000000200000 \"                         leaf1\"      0    2[  ] ==( 4X           2.5 Gbps "
		  "Initialize/  LinkUp)==>  0x0000000000100012      0    1[  ] \"node01 mlx5_0\" (Could be 12X Could be 10.0 Gbps)\n"
		  "0x0000000000200000 \"                         leaf1\"      0    3[  ] ==(                Down/ Polling)==>"
		  "             [  ] \"\" ( )\n");
	struct rd_report r = {0};
	struct rd_fab_judge_opts o = {0};
	rd_fab_judge(&f, &o, &r);
	CHECK_INT(count(&r, "fabric.duplicate"), 1);
	const struct rd_finding *x = find(&r, "fabric.duplicate", "leaf1[1]");
	CHECK(x != NULL && x->status == RD_WARN);
	CHECK(x && x->nevidence == 1 && strstr(x->evidence[0].value, "line 1:"));
	rd_report_free(&r);
	rd_fabric_free(&f);
}
