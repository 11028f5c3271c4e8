/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fabric's parsers, model, judgements and reference (fabric/fabric.h): lines of the real
 * iblinkinfo, ibnetdiscover and sminfo (captured from a simulated subnet in
 * tests/fabric/captures/w1, its net file beside them), lines in the layouts of rdma-core's
 * print_port and out_ports that the simulator does not print (EDR, FDR10, a port not available),
 * and what is not a line of theirs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "harness.h"
#include "render/fabric.h"
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

static size_t linkinfo(struct rd_fabric *f, const char *s)
{
	return rd_fab_parse_iblinkinfo(f, s, strlen(s));
}

RD_TEST(iblinkinfo_line_active)
{
	struct rd_fabric f = {0};
	CHECK_INT(linkinfo(&f, "0x0000000000200001 \"                         leaf2\"      3    1[  ] ==( 4X           "
			       "2.5 Gbps Active/  LinkUp)==>  0x0000000000100007      8    1[  ] \"node04 mlx5_0\" "
			       "(Could be 12X Could be 10.0 Gbps)\n"),
		  1);
	CHECK_INT(f.nlinks, 1);
	const struct rd_fab_link *l = &f.links[0];
	CHECK(l->a.guid == 0x200001);
	CHECK_STR(l->a.desc, "leaf2");
	CHECK_INT(l->a.lid, 3);
	CHECK_INT(l->a.port, 1);
	CHECK(l->has_peer);
	CHECK(l->b.guid == 0x100007);
	CHECK_INT(l->b.lid, 8);
	CHECK_INT(l->b.port, 1);
	CHECK_STR(l->b.desc, "node04 mlx5_0");
	CHECK_INT(l->width, 4);
	CHECK(fabs(l->speed - 2.5) < 1e-9);
	CHECK_STR(l->state, "Active");
	CHECK_STR(l->phys, "LinkUp");
	CHECK_INT(l->could_width, 12);
	CHECK(fabs(l->could_speed - 10.0) < 1e-9);
	CHECK_INT(f.skipped, 0);
	rd_fabric_free(&f);
}

RD_TEST(iblinkinfo_line_layouts)
{
	struct rd_fabric f = {0};
	/* a Down port (no width or speed), a port not available, EDR and FDR10 with get_max_msg's words
	 * (the FDR10 one with its parenthesis), a description with a quote and parentheses */
	const char *text =
		"0x0000000000200001 \"                       Switch2\"      0    4[  ] ==(                Down/ Polling)==>"
		"             [  ] \"\" ( )\n"
		"0x0000000000200001 \"                       Switch2\"      0    9[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==>"
		"    \"Port not available\"\n"
		"0x248a0703005a1b2c \"          MF0;sw-a:MSB7800/U1\"     12   17[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>"
		"  0x98039b03009fcf4e     33    1[  ] \"gpu17 mlx5_0\" ( )\n"
		"0x248a0703005a1b2c \"          MF0;sw-a:MSB7800/U1\"     12   18[  ] ==( 4X 10.0 Gbps (FDR10) Active/  LinkUp)==>"
		"  0x98039b03009fcf50     34    1[  ] \"odd \\\"name\\\" (x)\" ( Could be FDR10 (Found link at QDR but expected "
		"speed is FDR10))\n"
		"not a line of iblinkinfo\n"
		"\n";
	CHECK_INT(linkinfo(&f, text), 4);
	CHECK_INT(f.nlinks, 4);
	CHECK_INT(f.skipped, 1);
	CHECK_INT(f.first_skipped, 5);
	CHECK(!f.links[0].has_peer);
	CHECK_INT(f.links[0].width, 0);
	CHECK_STR(f.links[0].state, "Down");
	CHECK_STR(f.links[0].phys, "Polling");
	CHECK(!f.links[1].has_peer);
	CHECK(fabs(f.links[1].speed - 25.78125) < 1e-9);
	CHECK(f.links[2].has_peer);
	CHECK_STR(f.links[2].a.desc, "MF0;sw-a:MSB7800/U1");
	CHECK_INT(f.links[2].a.lid, 12);
	CHECK(f.links[2].b.guid == 0x98039b03009fcf4eULL);
	CHECK_INT(f.links[2].could_width, 0);
	CHECK_STR(f.links[3].speed_name, "FDR10");
	CHECK(fabs(f.links[3].speed - 10.0) < 1e-9);
	CHECK_STR(f.links[3].b.desc, "odd \\\"name\\\" (x)");
	CHECK_INT(f.links[3].could_width, 0);
	CHECK(f.links[3].could_speed == 0);
	rd_fabric_free(&f);
}

RD_TEST(iblinkinfo_not_lines)
{
	static const char *bad[] = {
		"0x0000000000200001 \"leaf2\"      3    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)",      /* no ==> */
		"0x00000000002000011 \"leaf2\"      3    1[  ] ==( 4X 2.5 Gbps Active/ LinkUp)==>  [  ] \"\" ( )", /* 17 digits */
		"0x0000000000200001 \"leaf2\"  99999    1[  ] ==( 4X 2.5 Gbps Active/ LinkUp)==>  [  ] \"\" ( )", /* LID */
		"0x0000000000200001 \"leaf2\"      3  256[  ] ==( 4X 2.5 Gbps Active/ LinkUp)==>  [  ] \"\" ( )", /* port */
		"0x0000000000200001 \"leaf2\"      3    1[  ] ==( 4X 2.5 Gbps Active LinkUp)==>  [  ] \"\" ( )", /* no / */
		"0x0000000000200001 \"leaf2\"      3    1[  ] ==( 4X 2.5 Gbps Active/ LinkUp)==>  0x1 2 3[ ] \"x", /* quote */
		"Switch: 0x0000000000200001 leaf2:", /* the header of the mode without -l */
		"\"",
		"0x",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rd_fabric f = {0};
		CHECK_INT(linkinfo(&f, bad[i]), 0);
		CHECK_INT(f.nlinks, 0);
		CHECK_INT(f.skipped, 1);
		rd_fabric_free(&f);
	}
}

/* The " - " of the two descriptions overlapping the closing "' )" (found by fuzz_fabric): the line
 * is skipped, not read from before its start. */
RD_TEST(ibnetdiscover_overlapping_descriptions)
{
	struct rd_fabric f = {0};
	const char *t = "CA     9  1 0x0000000000100009 4x SDR - SW     3  2 0x0000000000200001 ( '' - ' )\n";
	CHECK_INT(rd_fab_parse_ibnetdiscover(&f, t, strlen(t)), 0);
	CHECK_INT(f.skipped, 1);
	rd_fabric_free(&f);
}

RD_TEST(ibnetdiscover_lines)
{
	struct rd_fabric f = {0};
	const char *t = "CA     0  1 0x000000000010000a 4x SDR - SW     0  2 0x0000000000200001 ( 'Hca4' - 'Switch2' )\n"
			"SW     0  8 0x0000000000200001 4x SDR                                    'Switch2'\n"
			"SW    12 17 0x248a0703005a1b2c 4x EDR - CA    33  1 0x98039b03009fcf4e ( 'MF0;sw-a' - 'gpu17 mlx5_0' )\n"
			"XX     0  1 0x1 4x SDR 'x'\n";
	CHECK_INT(rd_fab_parse_ibnetdiscover(&f, t, strlen(t)), 3);
	CHECK_INT(f.skipped, 1);
	CHECK_INT(f.links[0].a.kind, RD_FAB_CA);
	CHECK_INT(f.links[0].b.kind, RD_FAB_SW);
	CHECK_STR(f.links[0].a.desc, "Hca4");
	CHECK_STR(f.links[0].b.desc, "Switch2");
	CHECK_INT(f.links[0].b.port, 2);
	CHECK(!f.links[1].has_peer);
	CHECK_INT(f.links[1].width, 0);
	CHECK(fabs(f.links[2].speed - 25.78125) < 1e-9);
	CHECK_STR(f.links[2].speed_name, "EDR");
	CHECK_INT(f.links[2].a.lid, 12);
	CHECK_INT(f.links[2].b.lid, 33);
	rd_fabric_finish(&f);
	/* the switch's end first; the CA's description names its host and device */
	const struct rd_fab_node *n = rd_fabric_node(&f, 0x98039b03009fcf4eULL);
	CHECK(n && n->host && strcmp(n->host, "gpu17") == 0 && strcmp(n->device, "mlx5_0") == 0);
	n = rd_fabric_node(&f, 0x10000a);
	CHECK(n && n->host && strcmp(n->host, "Hca4") == 0 && !n->device);
	rd_fabric_free(&f);
}

RD_TEST(sminfo_line)
{
	struct rd_fabric f = {0};
	const char *ok = "sminfo: sm lid 1 sm guid 0x200000, activity count 249 priority 0 state 3 SMINFO_MASTER\n";
	CHECK_INT(rd_fab_parse_sminfo(&f, ok, strlen(ok)), 1);
	CHECK(f.sm.read);
	CHECK_INT(f.sm.lid, 1);
	CHECK(f.sm.guid == 0x200000);
	CHECK_INT(f.sm.activity, 249);
	CHECK_INT(f.sm.state, 3);
	CHECK_STR(f.sm.state_name, "SMINFO_MASTER");
	struct rd_fabric g = {0};
	const char *failed = "sminfo: iberror: failed: query\n";
	CHECK_INT(rd_fab_parse_sminfo(&g, failed, strlen(failed)), 0);
	CHECK(!g.sm.read);
	CHECK_INT(g.skipped, 0); /* not a line of the fabric */
	rd_fabric_free(&f);
	rd_fabric_free(&g);
}

RD_TEST(host_mapping)
{
	struct rd_fabric f = {0};
	const char *t = "SW     1  1 0x0000000000000100 4x EDR - CA     2  1 0x0000000000000001 ( 'sw' - 'MT4123 ConnectX6 "
			"Mellanox Technologies' )\n"
			"SW     1  2 0x0000000000000100 4x EDR - CA     3  1 0x0000000000000002 ( 'sw' - 'gpu-a12 mlx5_3' )\n"
			"SW     1  3 0x0000000000000100 4x EDR - CA     4  1 0x0000000000000003 ( 'sw' - 'gpu-a13 HCA-1' )\n";
	rd_fab_parse_ibnetdiscover(&f, t, strlen(t));
	rd_fabric_finish(&f);
	CHECK(!rd_fabric_node(&f, 1)->host); /* the vendor's default description names no host */
	CHECK_STR(rd_fabric_node(&f, 2)->host, "gpu-a12");
	CHECK_STR(rd_fabric_node(&f, 2)->device, "mlx5_3");
	CHECK(!rd_fabric_node(&f, 3)->host);
	CHECK_INT(rd_fabric_node(&f, 0x100)->level, 1);
	CHECK_INT(rd_fabric_node(&f, 2)->level, 0);
	rd_fabric_free(&f);
}

static struct rd_fab_link mklink(uint64_t ga, enum rd_fab_kind ka, uint64_t gb, enum rd_fab_kind kb, unsigned port)
{
	struct rd_fab_link l = {.has_peer = true, .width = 4, .speed = 25};
	l.a = (struct rd_fab_end){.guid = ga, .port = port, .desc = rd_xstrdup("a"), .kind = ka};
	l.b = (struct rd_fab_end){.guid = gb, .port = 1, .desc = rd_xstrdup("b"), .kind = kb};
	return l;
}

/* ibnetdiscover's links give f the kinds of its nodes (the later telling of a GUID winning) and
 * the CA-to-CA cables; a cable taken keeps its own kinds against earlier tellings. */
RD_TEST(merge_kinds_and_ca_links)
{
	struct rd_fabric f = {0}, net = {0};
	f.links = rd_xcalloc(8, sizeof *f.links);
	f.links[f.nlinks++] = mklink(0x100, RD_FAB_SW, 1, RD_FAB_UNKNOWN, 1);
	f.links[f.nlinks++] = mklink(0x100, RD_FAB_SW, 2, RD_FAB_UNKNOWN, 2);
	rd_fabric_finish(&f);
	CHECK_INT(rd_fabric_node(&f, 1)->kind, RD_FAB_CA);
	net.links = rd_xcalloc(8, sizeof *net.links);
	net.links[net.nlinks++] = mklink(0x100, RD_FAB_SW, 1, RD_FAB_CA, 1);
	net.links[net.nlinks++] = mklink(0x100, RD_FAB_SW, 1, RD_FAB_RT, 1); /* later: wins */
	net.links[net.nlinks++] = mklink(3, RD_FAB_CA, 4, RD_FAB_CA, 1);     /* taken */
	net.links[net.nlinks++] = mklink(0x100, RD_FAB_SW, 3, RD_FAB_RT, 3); /* after: retells 3 */
	net.links[net.nlinks++] = mklink(0x100, RD_FAB_SW, 2, RD_FAB_UNKNOWN, 2); /* tells nothing of 2 */
	rd_fabric_merge(&f, &net);
	CHECK_INT(rd_fabric_node(&f, 1)->kind, RD_FAB_RT);
	CHECK_INT(rd_fabric_node(&f, 2)->kind, RD_FAB_CA);
	CHECK(rd_fabric_node(&f, 4) != NULL);
	CHECK_INT(rd_fabric_node(&f, 4)->kind, RD_FAB_CA);
	CHECK_INT(rd_fabric_node(&f, 3)->kind, RD_FAB_RT);
	CHECK_INT(f.nlinks, 3);
	rd_fabric_free(&f);
}

/* The captures of the simulated subnet with one leaf-spine cable at w=1 (tests/fabric). */
static void load_w1(struct rd_fabric *f)
{
	char *li = slurp("fabric/captures/w1/iblinkinfo-switches-only-l");
	char *nd = slurp("fabric/captures/w1/ibnetdiscover-p");
	char *sm = slurp("fabric/captures/w1/sminfo");
	struct rd_fabric net = {0};
	memset(f, 0, sizeof *f);
	CHECK_INT(rd_fab_parse_iblinkinfo(f, li, strlen(li)), 32);
	CHECK_INT(rd_fab_parse_ibnetdiscover(&net, nd, strlen(nd)), 38);
	CHECK_INT(rd_fab_parse_sminfo(f, sm, strlen(sm)), 1);
	rd_fabric_merge(f, &net);
	free(li);
	free(nd);
	free(sm);
}

RD_TEST(model_and_judgement_w1)
{
	struct rd_fabric f;
	load_w1(&f);
	CHECK_INT(f.skipped, 0);
	size_t cabled = 0, sw = 0, ca = 0;
	for (size_t i = 0; i < f.nlinks; i++)
		cabled += f.links[i].has_peer;
	for (size_t i = 0; i < f.nnodes; i++) {
		sw += f.nodes[i].kind == RD_FAB_SW;
		ca += f.nodes[i].kind == RD_FAB_CA;
	}
	CHECK_INT(cabled, 14); /* 6 hosts, 8 leaf-spine cables (each seen from both switches: kept once) */
	CHECK_INT(sw, 4);
	CHECK_INT(ca, 6);
	struct rd_report r = {0};
	struct rd_text smt = {.data = (char *)"x", .len = 1};
	struct rd_fab_judge_opts o = {.sminfo = &smt};
	rd_fab_judge(&f, &o, &r);
	size_t warn = 0;
	for (size_t i = 0; i < r.n; i++)
		if (r.findings[i].status != RD_OK) {
			warn++;
			CHECK_STR(r.findings[i].check, "fabric.link.degraded");
			CHECK_STR(r.findings[i].subject, "leaf1[6] - spine1[2]");
		}
	CHECK_INT(warn, 1);
	rd_report_free(&r);
	/* expected hosts: one absent */
	struct rd_strv ex = {0};
	rd_strv_push(&ex, "node01");
	rd_strv_push(&ex, "node07");
	o.expect = &ex;
	rd_fab_judge(&f, &o, &r);
	size_t absent = 0;
	for (size_t i = 0; i < r.n; i++)
		if (strcmp(r.findings[i].check, "fabric.expect") == 0) {
			absent++;
			CHECK_STR(r.findings[i].subject, "node07");
		}
	CHECK_INT(absent, 1);
	rd_report_free(&r);
	rd_strv_free(&ex);
	rd_fabric_free(&f);
}

RD_TEST(reference_round_trip)
{
	struct rd_fabric f;
	load_w1(&f);
	struct rd_fab_ref ref, back;
	rd_fab_ref_from(&f, &ref);
	CHECK_INT(ref.n, 14);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	rd_render_fabric_ref(m, &ref);
	fclose(m);
	char err[256];
	CHECK_INT(rd_fab_ref_parse(buf, len, &back, err, sizeof err), 0);
	CHECK_INT(back.n, 14);
	struct rd_report r = {0};
	rd_fab_ref_compare(&ref, &back, &r);
	CHECK_INT(r.n, 0);
	/* one cable changed width, one removed */
	back.links[0].width = 1;
	free(back.links[back.n - 1].a.desc);
	free(back.links[back.n - 1].b.desc);
	back.n--;
	rd_fab_ref_compare(&ref, &back, &r);
	CHECK_INT(r.n, 2);
	CHECK_STR(r.findings[0].check, "fabric.ref.changed");
	CHECK_STR(r.findings[1].check, "fabric.ref.missing");
	rd_report_free(&r);
	rd_fab_ref_free(&back);
	rd_fab_ref_free(&ref);
	free(buf);
	rd_fabric_free(&f);
}

RD_TEST(reference_not_one)
{
	static const char *bad[] = {
		"",
		"[]",
		"{}",
		"{\"schema\": \"rdma-doctor/fabric/v1\", \"links\": []}",
		"{\"schema\": \"rdma-doctor/fabric-ref/v1\"}",
		"{\"schema\": \"rdma-doctor/fabric-ref/v1\", \"links\": [{\"a\": {}}]}",
		"{\"schema\": \"rdma-doctor/fabric-ref/v1\", \"links\": [{\"a\": {\"guid\": \"12\", \"port\": 1}, "
		"\"b\": {\"guid\": \"0x2\", \"port\": 1}}]}",
		"{\"schema\": \"rdma-doctor/fabric-ref/v1\", \"links\": [{\"a\": {\"guid\": \"0x1\", \"port\": 256}, "
		"\"b\": {\"guid\": \"0x2\", \"port\": 1}}]}",
		"{\"schema\": \"rdma-doctor/fabric-ref/v1\", \"links\": []} x",
		"{\"schema\": \"rdma-doctor/fabric-ref/v1\", \"links\": [], \"x\": [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}",
		"{\"schema\": \"rdma-doctor/fabric-ref/v1\", \"links\": [",
		"{\"schema\": \"rdma-doctor/fabric-ref/v1\", \"links\": [], \"s\": \"\\x\"}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rd_fab_ref ref;
		char err[256] = "";
		CHECK_INT(rd_fab_ref_parse(bad[i], strlen(bad[i]), &ref, err, sizeof err), -22);
		CHECK(err[0]);
		CHECK_INT(ref.n, 0);
	}
	struct rd_fab_ref ref;
	char err[256];
	const char *good = "{\"later\": {\"a\": [1, 2.5e3, true, null, \"\\u0041\"]}, \"schema\": \"rdma-doctor/fabric-ref/v1\", "
			   "\"links\": [{\"a\": {\"guid\": \"0x1\", \"port\": 1, \"desc\": \"a\\u0041\"}, \"b\": {\"guid\": "
			   "\"0x2\", \"port\": 3}, \"width\": 4, \"speed\": 25.78125, \"new\": {}}]}";
	CHECK_INT(rd_fab_ref_parse(good, strlen(good), &ref, err, sizeof err), 0);
	CHECK_INT(ref.n, 1);
	CHECK_STR(ref.links[0].a.desc, "aA");
	CHECK_STR(ref.links[0].b.desc, "");
	CHECK_INT(ref.links[0].b.port, 3);
	CHECK(fabs(ref.links[0].speed - 25.78125) < 1e-9);
	rd_fab_ref_free(&ref);
}
