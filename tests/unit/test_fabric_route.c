/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Routes and the join of pair results with them (fabric/route.h): the real ibtracert's and
 * dump_fts's output of the simulated subnet in tests/fabric/captures/w1 (its leaf1[6] - spine1[2]
 * cable at 1X; pairs-standin.json: stand-in results, slow for the pairs whose route crosses it),
 * lines in their layouts the simulator does not print, and what is not theirs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/route.h"
#include "harness.h"
#include "pairs/pairs.h"
#include "pairs/results_in.h"
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

/* The w1 fabric, finished, and its forwarding tables. */
static void w1(struct rd_fabric *f, struct rd_fab_lfts *t)
{
	struct rd_fabric net = {0};
	char *li = slurp("fabric/captures/w1/iblinkinfo-switches-only-l");
	char *nd = slurp("fabric/captures/w1/ibnetdiscover-p");
	char *ft = slurp("fabric/captures/w1/dump_fts");
	memset(f, 0, sizeof *f);
	memset(t, 0, sizeof *t);
	rd_fab_parse_iblinkinfo(f, li, strlen(li));
	rd_fab_parse_ibnetdiscover(&net, nd, strlen(nd));
	rd_fabric_merge(f, &net);
	rd_fab_parse_lfts(t, ft, strlen(ft));
	free(li);
	free(nd);
	free(ft);
}

RD_TEST(ibtracert_real)
{
	char *s = slurp("fabric/captures/w1/ibtracert-2-9");
	struct rd_fab_route r = {0};
	char err[200] = "";
	CHECK_INT(rd_fab_parse_ibtracert(s, strlen(s), &r, err, sizeof err), 0);
	CHECK_INT(r.nhops, 5);
	CHECK_INT(r.hops[0].kind, RD_FAB_CA);
	CHECK_INT(r.hops[0].lid, 2);
	CHECK_INT(r.hops[0].in_port, 0);
	CHECK_INT(r.hops[0].out_port, 1);
	CHECK_STR(r.hops[0].desc, "node01 mlx5_0");
	CHECK(r.hops[1].guid == 0x200000);
	CHECK_STR(r.hops[1].desc, "leaf1");
	CHECK_INT(r.hops[1].in_port, 1);
	CHECK_INT(r.hops[1].out_port, 6);
	CHECK_INT(r.hops[2].in_port, 2);
	CHECK_INT(r.hops[2].out_port, 4);
	CHECK_INT(r.hops[3].kind, RD_FAB_SW);
	CHECK(r.hops[4].guid == 0x100009);
	CHECK_INT(r.hops[4].in_port, 1);
	CHECK_INT(r.hops[4].out_port, 0);
	CHECK_INT(r.hops[4].lid, 9);
	rd_fab_route_free(&r);
	free(s);
}

RD_TEST(ibtracert_from_switch_and_not_one)
{
	const char *sw = "From switch {0x0000000000200000} portnum 0 lid 1-1 \"leaf1\"\n"
			 "[6] -> switch port {0x0000000000200002}[2] lid 4-4 \"spine1\"\n"
			 "[4] -> router port {0x0000000000300001}[1] lid 12-15 \"a \\\"quoted\\\" one\"\n"
			 "To router {0x0000000000300000} portnum 1 lid 12-15 \"a \\\"quoted\\\" one\"\n"
			 "something after\n";
	struct rd_fab_route r = {0};
	char err[200] = "";
	CHECK_INT(rd_fab_parse_ibtracert(sw, strlen(sw), &r, err, sizeof err), 0);
	CHECK_INT(r.nhops, 3);
	CHECK_INT(r.hops[0].out_port, 6);
	CHECK_INT(r.hops[2].kind, RD_FAB_RT);
	CHECK_STR(r.hops[2].desc, "a \\\"quoted\\\" one");
	rd_fab_route_free(&r);
	static const char *bad[] = {
		"",
		"ibtracert: iberror: failed: Failed to get route information\n",
		"From ca {0x1} portnum 1 lid 2-2 \"a\"\n",
		"From ca {0x1} portnum 1 lid 2-2 \"a\"\nTo ca {0x1} portnum 1 lid 2-2 \"a\"\n",
		"From ca {0x1} portnum 1 lid 2-2 \"a\"\n[1] -> ca port {0x2}[1] lid 3-3 \"b\"\nTo ca {0x2} portnum 1 lid 4-4 \"b\"\n",
		"From ca {0x1} portnum 1 lid 2-2 \"a\"\n[256] -> ca port {0x2}[1] lid 3-3 \"b\"\nTo ca {0x2} portnum 1 lid 3-3 \"b\"\n",
		"From ca {0x11111111111111111} portnum 1 lid 2-2 \"a\"\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rd_fab_route x = {0};
		err[0] = 0;
		CHECK_INT(rd_fab_parse_ibtracert(bad[i], strlen(bad[i]), &x, err, sizeof err), -22);
		CHECK(err[0]);
		CHECK_INT(x.nhops, 0);
		rd_fab_route_free(&x);
	}
	/* more hops than ibtracert's MAXHOPS */
	struct rd_buf b = {0};
	rd_buf_puts(&b, "From ca {0x1} portnum 1 lid 2-2 \"a\"\n");
	for (int i = 0; i < 80; i++)
		rd_buf_puts(&b, "[1] -> switch port {0x5}[2] lid 3-3 \"s\"\n");
	rd_buf_puts(&b, "To switch {0x5} portnum 0 lid 3-3 \"s\"\n");
	CHECK_INT(rd_fab_parse_ibtracert(b.data, b.len, &r, err, sizeof err), -22);
	CHECK(strstr(err, "more than 64 hops") != NULL);
	rd_buf_free(&b);
}

RD_TEST(lfts_real_and_layouts)
{
	struct rd_fabric f;
	struct rd_fab_lfts t;
	w1(&f, &t);
	CHECK_INT(t.n, 4);
	CHECK_INT(t.skipped, 0);
	CHECK_INT(rd_fab_lft_port(&t, 0x200000, 9), 6); /* leaf1 toward node05 */
	CHECK_INT(rd_fab_lft_port(&t, 0x200000, 1), 0);
	CHECK_INT(rd_fab_lft_port(&t, 0x200000, 99), -1);
	CHECK_INT(rd_fab_lft_port(&t, 0x999, 1), -1);
	rd_fab_lfts_free(&t);
	rd_fabric_free(&f);
	/* ibroute's header; a table twice (the first entry of a LID kept); a multicast table; junk */
	const char *s = "Unicast lids [0x0-0x3] of switch Lid 1 guid 0x0000000000000abc (sw (a):\n"
			"  Lid  Out   Destination\n"
			"       Port     Info \n"
			"0x0003 007 : (Channel Adapter portguid 0x0000000000000001: 'h mlx5_0')\n"
			"0x0002 001 : (illegal port)\n"
			"2 valid lids dumped \n"
			"Unicast lids [0x0-0x3] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000000abc (sw (a):\n"
			"0x0003 009 : (x)\n"
			"0x0001 004\n"
			"0x0002 1000\n"
			"0x10000 001\n"
			"Unicast lids [0x0-0x3] of switch x guid 0xzz (no):\n"
			"Multicast mlids [0xc000-0xc3ff] of switch Lid 1 guid 0x0000000000000abc (sw):\n"
			"     Ports: 0 1 2\n"
			" MLid\n"
			"0xc000      x   x\n"
			"\n"
			"*** WARNING ***: this command has been replaced by dump_fts\n"
			"0x0005 002\n"
			"garbage\n";
	memset(&t, 0, sizeof t);
	CHECK_INT(rd_fab_parse_lfts(&t, s, strlen(s)), 2);
	CHECK_INT(t.n, 1);
	CHECK_STR(t.sw[0].desc, "sw (a");
	CHECK_INT(rd_fab_lft_port(&t, 0xabc, 3), 7);
	CHECK_INT(rd_fab_lft_port(&t, 0xabc, 2), 1);
	CHECK_INT(rd_fab_lft_port(&t, 0xabc, 1), 4);
	CHECK_INT(rd_fab_lft_port(&t, 0xabc, 5), -1); /* after a multicast table, no unicast one */
	CHECK_INT(t.skipped, 4);
	CHECK_INT(t.first_skipped, 10);
	rd_fab_lfts_free(&t);
}

RD_TEST(route_by_tables)
{
	struct rd_fabric f;
	struct rd_fab_lfts t;
	w1(&f, &t);
	struct rd_fab_router rt;
	rd_fab_router_init(&rt, &f, &t);
	const struct rd_fab_node **a, **b;
	CHECK_INT(rd_fab_host_ports(&f, "node99", &a), 0);
	CHECK(a == NULL);
	CHECK_INT(rd_fab_host_ports(&f, "node01", &a), 1);
	CHECK_INT(rd_fab_host_ports(&f, "node05", &b), 1);
	struct rd_fab_route r;
	CHECK_INT(rd_fab_route_lft(&rt, a[0], b[0], &r), 0);
	/* what the real ibtracert printed between the same ports */
	char *s = slurp("fabric/captures/w1/ibtracert-2-9");
	struct rd_fab_route tr = {0};
	char err[200];
	CHECK_INT(rd_fab_parse_ibtracert(s, strlen(s), &tr, err, sizeof err), 0);
	CHECK_INT(r.nhops, tr.nhops);
	for (size_t i = 1; i < r.nhops && i < tr.nhops; i++) {
		CHECK(r.hops[i].guid == tr.hops[i].guid);
		CHECK_INT(r.hops[i].in_port, tr.hops[i].in_port);
		CHECK_INT(r.hops[i].out_port, tr.hops[i].out_port);
	}
	const struct rd_fab_end *peer;
	const struct rd_fab_link *l = rd_fab_router_link(&rt, 0x200000, 6, &peer);
	CHECK(l && l->width == 1 && peer->guid == 0x200002 && peer->port == 2);
	CHECK(rd_fab_router_link(&rt, 0x200000, 4, NULL) == NULL); /* not cabled */
	rd_fab_route_free(&r);
	rd_fab_route_free(&tr);
	free(s);
	/* no tables; a destination without a LID */
	struct rd_fab_router none;
	rd_fab_router_init(&none, &f, NULL);
	CHECK_INT(rd_fab_route_lft(&none, a[0], b[0], &r), -1);
	CHECK(strstr(r.error, "no forwarding tables") != NULL);
	rd_fab_route_free(&r);
	rd_fab_router_free(&none);
	struct rd_fab_node nolid = *b[0];
	nolid.lid = 0;
	CHECK_INT(rd_fab_route_lft(&rt, a[0], &nolid, &r), -1);
	CHECK(strstr(r.error, "no LID") != NULL);
	rd_fab_route_free(&r);
	/* a table that loops between leaf1 and spine1 */
	for (size_t i = 0; i < t.n; i++)
		if (t.sw[i].guid == 0x200002)
			for (size_t k = 0; k < t.sw[i].n; k++)
				if (t.sw[i].v[k].lid == 9)
					t.sw[i].v[k].port = 2;
	CHECK_INT(rd_fab_route_lft(&rt, a[0], b[0], &r), -1);
	CHECK(strstr(r.error, "a loop") != NULL);
	rd_fab_route_free(&r);
	free(a);
	free(b);
	rd_fab_router_free(&rt);
	rd_fab_lfts_free(&t);
	rd_fabric_free(&f);
}

/* The join over the w1 fabric's real routes (its forwarding tables): the stand-in results are
 * slow for the six pairs whose route crosses leaf1[6] - spine1[2], and each of them also crosses
 * leaf2[6] - spine1[4], which no healthy pair crosses: two cables the pairs do not tell apart. */
static void join_w1(const char *results, struct rd_report *rep, struct rd_fab_join *j)
{
	struct rd_fabric f;
	struct rd_fab_lfts t;
	w1(&f, &t);
	struct rd_fab_router rt;
	rd_fab_router_init(&rt, &f, &t);
	struct rd_pairs p = {0};
	char err[200] = "";
	CHECK(rd_pairs_read_results(&p, results, strlen(results), true, err, sizeof err) > 0);
	rd_pairs_judge(&p);
	rd_fab_join_from_pairs(j, &p);
	for (size_t i = 0; i < j->n; i++) {
		const struct rd_fab_node *from = rd_fab_host_port(&f, j->v[i].client, j->v[i].client_dev);
		const struct rd_fab_node *to = rd_fab_host_port(&f, j->v[i].server, j->v[i].server_dev);
		CHECK(from && to);
		if (from && to)
			CHECK_INT(rd_fab_route_lft(&rt, from, to, &j->v[i].route), 0);
	}
	rd_fab_join_links(j, &rt);
	rd_fab_join_judge(j, &f, rep);
	rd_pairs_free(&p);
	rd_fab_router_free(&rt);
	rd_fab_lfts_free(&t);
	rd_fabric_free(&f);
}

RD_TEST(join_tie_is_unknown)
{
	char *s = slurp("fabric/captures/w1/pairs-standin.json");
	struct rd_report rep = {0};
	struct rd_fab_join j;
	join_w1(s, &rep, &j);
	CHECK_INT(j.n, 30);
	size_t slow = 0;
	for (size_t i = 0; i < j.n; i++)
		slow += j.v[i].is_slow;
	CHECK_INT(slow, 6);
	CHECK_INT(rep.n, 1);
	CHECK_STR(rep.findings[0].check, "fabric.route.suspect");
	CHECK_INT(rep.findings[0].status, RD_UNKNOWN);
	CHECK(strstr(rep.findings[0].message, "leaf1[6] - spine1[2]; leaf2[6] - spine1[4]") != NULL);
	rd_report_free(&rep);
	rd_fab_join_free(&j);
	free(s);
}

static char *doc(const char *server, const char *client, double gbps)
{
	return rd_xasprintf("{\"schema\": \"rdma-doctor/pair/v1\", \"server\": \"%s\", \"client\": \"%s\", \"rails\": "
			    "[{\"server_device\": \"mlx5_0\", \"client_device\": \"mlx5_0\", \"gbps\": %g}]}\n",
			    server, client, gbps);
}

/* Results of the pairs (client c, server s) of node01..node06 that keep(c, s) keeps, slow(c, s) at
 * 90 Gb/s, the others at 390. */
static void results(struct rd_buf *b, bool (*keep)(int c, int s), bool (*slow)(int c, int s))
{
	for (int c = 1; c <= 6; c++)
		for (int s = 1; s <= 6; s++)
			if (c != s && keep(c, s)) {
				char cn[16], sn[16];
				snprintf(cn, sizeof cn, "node%02d", c);
				snprintf(sn, sizeof sn, "node%02d", s);
				char *d = doc(sn, cn, slow(c, s) ? 90 : 390);
				rd_buf_puts(b, d);
				free(d);
			}
}

/* node06's cable: the pairs from leaf1's hosts to node06 slow, node06 in no other pair */
static bool keep_no06(int c, int s)
{
	return c != 6 && (s != 6 || c <= 3);
}
static bool slow_to06(int c, int s)
{
	(void)c;
	return s == 6;
}
static bool keep_all(int c, int s)
{
	(void)c;
	(void)s;
	return true;
}
static bool slow_none(int c, int s)
{
	(void)c;
	(void)s;
	return false;
}
static bool slow_1to5(int c, int s)
{
	return c == 1 && s == 5;
}

static bool slow_two(int c, int s)
{
	return s == 6 || (s == 1 && (c == 4 || c == 5));
}

static const struct rd_finding *join_of(struct rd_buf *b, struct rd_report *rep)
{
	struct rd_fab_join j;
	memset(rep, 0, sizeof *rep);
	join_w1(b->data, rep, &j);
	rd_fab_join_free(&j);
	CHECK_INT(rep->n, 1);
	return rep->n ? &rep->findings[0] : NULL;
}

RD_TEST(join_suspect_and_not)
{
	struct rd_buf b = {0};
	struct rd_report rep;
	results(&b, keep_no06, slow_to06);
	const struct rd_finding *fd = join_of(&b, &rep);
	CHECK_INT(fd->status, RD_WARN);
	CHECK_STR(fd->subject, "leaf2[3] - node06 mlx5_0[1]");
	CHECK(strstr(fd->message, "every one of the 3 slow pairs crosses this cable, and 0 of the 20 healthy") != NULL);
	CHECK_STR(fd->evidence[0].value, "leaf2 (0x0000000000200001) port 3 - node06 mlx5_0 (0x000000000010000b) port 1, 4X 2.5 "
					 "Gbps Active");
	rd_report_free(&rep);
	rd_buf_free(&b);
	/* nothing slow: OK; a pair without a result is not evidence */
	results(&b, keep_all, slow_none);
	rd_buf_puts(&b, "{\"schema\": \"rdma-doctor/pair/v1\", \"server\": \"node01\", \"client\": \"node06\", \"rails\": [], "
			"\"error\": \"refused\"}\n");
	fd = join_of(&b, &rep);
	CHECK_INT(fd->status, RD_OK);
	CHECK(strstr(fd->message, "30 healthy, 0 with slow and fast samples, 1 without a result") != NULL);
	rd_report_free(&rep);
	rd_buf_free(&b);
	/* one slow pair: every cable of its route as suspect as the others */
	results(&b, keep_all, slow_1to5);
	fd = join_of(&b, &rep);
	CHECK_INT(fd->status, RD_UNKNOWN);
	CHECK(strstr(fd->message, "one slow pair") != NULL);
	rd_report_free(&rep);
	/* and measured again, fast: slow and fast samples, neither slow nor healthy */
	char *d = doc("node05", "node01", 390);
	rd_buf_puts(&b, d);
	free(d);
	fd = join_of(&b, &rep);
	CHECK_INT(fd->status, RD_OK);
	CHECK(strstr(fd->message, "29 healthy, 1 with slow and fast samples") != NULL);
	rd_report_free(&rep);
	rd_buf_free(&b);
	/* slow pairs with two causes: no cable they all cross */
	results(&b, keep_no06, slow_two);
	fd = join_of(&b, &rep);
	CHECK_INT(fd->status, RD_UNKNOWN);
	CHECK(strstr(fd->message, "no cable is crossed by every one of the 5 slow pairs") != NULL);
	rd_report_free(&rep);
	rd_buf_free(&b);
}

/* A host's rails: its CA ports in the natural order of their devices, rail i to rail i. */
RD_TEST(host_rails)
{
	const char *li =
		"0x0000000000200001 \"                         leaf1\"      1    1[  ] ==( 4X     25.78125 Gbps Active/  LinkUp)==>"
		"  0x0000000000100001      7    1[  ] \"gpu1 mlx5_10\" ( )\n"
		"0x0000000000200001 \"                         leaf1\"      1    2[  ] ==( 4X     25.78125 Gbps Active/  LinkUp)==>"
		"  0x0000000000100002      8    1[  ] \"gpu1 mlx5_2\" ( )\n"
		"0x0000000000200001 \"                         leaf1\"      1    3[  ] ==( 4X     25.78125 Gbps Active/  LinkUp)==>"
		"  0x0000000000100003      9    1[  ] \"gpu1 mlx5_0\" ( )\n"
		"0x0000000000200001 \"                         leaf1\"      1    4[  ] ==( 4X     25.78125 Gbps Active/  LinkUp)==>"
		"  0x0000000000100004     10    1[  ] \"gpu10 mlx5_0\" ( )\n";
	struct rd_fabric f = {0};
	CHECK_INT(rd_fab_parse_iblinkinfo(&f, li, strlen(li)), 4);
	rd_fabric_finish(&f);
	const struct rd_fab_node **p;
	CHECK_INT(rd_fab_host_ports(&f, "gpu1", &p), 3);
	CHECK_STR(p[0]->device, "mlx5_0");
	CHECK_STR(p[1]->device, "mlx5_2");
	CHECK_STR(p[2]->device, "mlx5_10");
	free(p);
	CHECK(rd_fab_host_port(&f, "gpu1", "mlx5_2")->lid == 8);
	CHECK(rd_fab_host_port(&f, "gpu1", "mlx5_3") == NULL);
	CHECK(rd_fab_host_port(&f, "gpu", "mlx5_0") == NULL);
	rd_fabric_free(&f);
}
