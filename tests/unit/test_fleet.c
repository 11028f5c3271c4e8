/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor fleet`'s parts: Slurm hostlists (expand, compress), the streaming report reader
 * (JSON, pdsh/clush `host: line`, clush -b blocks, every kind of bad input), and the summary
 * (the newest of several reports counts, stale reports, drift, the exit status), and the fabric
 * document reader (--fabric: the w1 capture's document, bad documents, the exit status) and the
 * pairs judgement reader (--pairs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hostlist.h"
#include "fleet/fabric_in.h"
#include "fleet/pairs_in.h"
#include "fleet/report_in.h"
#include "fleet/summary.h"
#include "harness.h"
#include "util/util.h"

static void expand_is(const char *list, const char *want)
{
	struct rd_strv v = {0};
	char err[256] = "";
	int r = rd_hostlist_expand(list, &v, err, sizeof err);
	struct rd_buf b = {0};
	rd_buf_puts(&b, "");
	if (r < 0)
		rd_buf_printf(&b, "error: %s", err);
	for (size_t i = 0; r == 0 && i < v.n; i++)
		rd_buf_printf(&b, "%s%s", i ? " " : "", v.v[i]);
	CHECK_STR(b.data, want);
	rd_buf_free(&b);
	rd_strv_free(&v);
}

static void compress_is(const char *names, const char *want)
{
	struct rd_strv v = {0};
	char *copy = rd_xstrdup(names);
	for (char *t = strtok(copy, " "); t; t = strtok(NULL, " "))
		rd_strv_push(&v, t);
	char *got = rd_hostlist_compress((const char *const *)v.v, v.n);
	CHECK_STR(got, want);
	free(got);
	free(copy);
	rd_strv_free(&v);
}

RD_TEST(hostlist_expand)
{
	expand_is("node[01-03]", "node01 node02 node03");
	expand_is("node[8-11]", "node8 node9 node10 node11");
	expand_is("n[01-3]", "n01 n02 n03");     /* the start's width */
	expand_is("n[1-03]", "n1 n2 n3");
	expand_is("tux[0-2,12,20-21]", "tux0 tux1 tux2 tux12 tux20 tux21");
	expand_is("a[1-2]b[3-4]", "a1b3 a1b4 a2b3 a2b4");
	expand_is("x,y z", "x y z");
	expand_is("node[098-101]", "node098 node099 node100 node101");
	expand_is("rack1-n[1-2].ib", "rack1-n1.ib rack1-n2.ib");
	expand_is("", "");
	expand_is("n[3-1]", "error: invalid range '3-1' (the end is below the start)");
	expand_is("n[a-b]", "error: invalid range 'a-b'");
	expand_is("n[1-3", "error: 'n[1-3': '[' without ']'");
	expand_is("n1-3]", "error: 'n1-3]': ']' without '['");
	expand_is("n[[1]]", "error: 'n[[': '[' inside '['");
	expand_is("n[1-100000000]", "error: too many hosts in range '1-100000000'");
	expand_is("n[1-1000]m[1-1001]", "error: 'n[1-1000]m[1-1001]': more than 1000000 hosts");
	expand_is("n[]", "error: invalid range ''");
	/* counted without making the names (a clush -b header) */
	unsigned long long n = 0;
	char err[128];
	CHECK_INT(rd_hostlist_count("h[1-1000000]", &n, err, sizeof err), 0);
	CHECK_INT(n, 1000000);
	CHECK_INT(rd_hostlist_count("a[1-2]b[3-4],x", &n, err, sizeof err), 0);
	CHECK_INT(n, 5);
	CHECK(rd_hostlist_count("n[1-1000]m[1-1001]", &n, err, sizeof err) < 0);
	CHECK(rd_hostlist_count("n[3-1]", &n, err, sizeof err) < 0);
}

RD_TEST(hostlist_compress)
{
	compress_is("node01 node02 node03", "node[01-03]");
	compress_is("node3 node1 node2 node5 gpu10 gpu9 x y", "gpu[9-10],node[1-3,5],x,y");
	compress_is("node8 node9 node10 node11", "node[8-11]");
	compress_is("n009 n010 n8 n9", "n[8-9,009-010]");
	compress_is("node1 node01 node2 node10 node9", "node[1-2,9,01,10]");
	compress_is("node098 node099 node100 node101", "node[098-101]");
	compress_is("n1 n1 n2", "n[1-2]");       /* a duplicate is kept once */
	compress_is("n5", "n5");
	compress_is("n5 n5", "n5");
	compress_is("node1-ib node2-ib", "node1-ib,node2-ib"); /* only a trailing number is bracketed */
	compress_is("a b a", "a,b");
	compress_is("", "");
	compress_is("n1234567890123456789 n1", "n1,n1234567890123456789"); /* too long a number: part of the name */
}

/* ---- the reader ---------------------------------------------------------------------------- */

struct got {
	struct rd_buf log;
	size_t reports;
};

static void g_report(void *arg, const char *origin, const char *label, const struct rd_fleet_report *r)
{
	struct got *g = arg;
	char why[256];
	g->reports++;
	if (rd_fleet_report_valid(r, why, sizeof why))
		rd_buf_printf(&g->log, "[%s%s%s: %s %s %zu dev %zu mod %zu find]", origin, label ? " " : "", label ? label : "",
			      r->host, rd_fleet_status_name(r->status), r->ndevs, r->nmods, r->nfinds);
	else
		rd_buf_printf(&g->log, "[%s%s%s: invalid: %s]", origin, label ? " " : "", label ? label : "", why);
}

static void g_problem(void *arg, const char *origin, const char *label, const char *msg)
{
	struct got *g = arg;
	rd_buf_printf(&g->log, "{%s%s%s: %s}", origin, label ? " " : "", label ? label : "", msg);
}

static const struct rd_fleet_input_cb gcb = {g_report, g_problem};

/* feeds text in pieces of `piece` bytes and returns the log */
static char *read_text(const char *text, size_t len, size_t piece)
{
	struct got g = {0};
	rd_buf_puts(&g.log, "");
	struct rd_fleet_input *in = rd_fleet_input_new("in", &gcb, &g);
	bool dead = false;
	for (size_t at = 0; at < len && !dead; at += piece)
		dead = rd_fleet_input_feed(in, text + at, len - at < piece ? len - at : piece) < 0;
	if (!dead)
		rd_fleet_input_end(in);
	rd_fleet_input_free(in);
	return rd_buf_steal(&g.log);
}

static void reads_as(const char *text, const char *want)
{
	static const size_t pieces[] = {1, 7, 4096};
	for (size_t i = 0; i < 3; i++) {
		char *got = read_text(text, strlen(text), pieces[i]);
		CHECK_STR(got, want);
		free(got);
	}
}

#define R1 "{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n1\",\"time\":\"2025-11-30T00:00:00Z\"," \
	   "\"kernel\":\"6.1.0\",\"summary\":{\"status\":\"WARN\",\"exit_code\":1}," \
	   "\"stack\":{\"installed\":\"inbox\",\"version\":\"rdma-core 44.0-2\"}," \
	   "\"devices\":[{\"name\":\"mlx5_0\",\"board_id\":\"MT_1\",\"fw_ver\":\"28.41.1000\",\"model\":\"ConnectX-7\"," \
	   "\"ports\":[{\"port\":1,\"state\":\"ACTIVE\",\"rate_gbps\":400,\"link_layer\":\"InfiniBand\",\"netdevs\":[]}]}]," \
	   "\"modules\":[{\"name\":\"ib_umad\",\"loaded\":false,\"builtin\":false,\"persistent\":true}]," \
	   "\"findings\":[{\"check\":\"modules.loaded\",\"status\":\"WARN\",\"subject\":\"ib_umad\",\"message\":\"m\"," \
	   "\"evidence\":[{\"path\":\"/proc/modules\",\"value\":\"x\"}],\"fix\":[\"modprobe ib_umad\"]}]}"

RD_TEST(reader_json_streams)
{
	reads_as(R1, "[in: n1 WARN 1 dev 1 mod 1 find]");
	reads_as(" \n" R1 "\n" R1 "\n", "[in: n1 WARN 1 dev 1 mod 1 find][in: n1 WARN 1 dev 1 mod 1 find]");
	reads_as(R1 R1, "[in: n1 WARN 1 dev 1 mod 1 find][in: n1 WARN 1 dev 1 mod 1 find]");
	/* bad input: one line each, naming what was wrong */
	reads_as("", "{in: empty: no report in it}");
	reads_as("  \n\t", "{in: empty: no report in it}");
	reads_as("{\"schema\":\"rdma-doctor/report/v1\",\"host\":", "{in: truncated: the input ends inside a report}");
	reads_as("{\"a\":1} garbage", "[in: invalid: not a report (no \"schema\"; want rdma-doctor/report/v1)]"
				      "{in: not JSON after the last complete report (lexical error: invalid char in json text.)}");
	reads_as("{\"schema\":\"rdma-doctor/stack/v1\",\"host\":\"n1\"}",
		 "[in: invalid: schema \"rdma-doctor/stack/v1\", not rdma-doctor/report/v1]");
	reads_as("{\"schema\":\"rdma-doctor/error/v1\",\"error\":\"p.conf:3: bad key\",\"exit_code\":3}",
		 "[in: invalid: the check could not make a report: p.conf:3: bad key]");
	reads_as("{\"schema\":\"rdma-doctor/report/v1\",\"host\":null}", "[in: invalid: the report has a null \"host\"]");
	reads_as("{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"a b\"}", "[in: invalid: \"host\" \"a b\" is not a host name]");
	reads_as("{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n\",\"time\":\"yesterday\"}",
		 "[in: invalid: \"time\" \"yesterday\" is not an ISO 8601 UTC time]");
	reads_as("{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n\",\"time\":\"2025-11-30T00:00:00Z\"}",
		 "[in: invalid: no summary.status (OK, WARN, FAIL or UNKNOWN)]");
	reads_as("[1,2]", "{in: not a report: the JSON value is an array, not an object}");
	reads_as("{\"a\":1}\n42", "[in: invalid: not a report (no \"schema\"; want rdma-doctor/report/v1)]"
				  "{in: not a report: the JSON value is not an object}");
	reads_as("{\"a\":[[[[[[[[[[[[[[[[[[[[{\"b\":\"c\"}]]]]]]]]]]]]]]]]]]]]}",
		 "[in: invalid: not a report (no \"schema\"; want rdma-doctor/report/v1)]"); /* deep: only counted */
}

RD_TEST(reader_pdsh_and_clush)
{
	/* pdsh: the lines of two hosts interleaved, each host's lines its report */
	reads_as("n1: {\"schema\":\"rdma-doctor/report/v1\",\nn2: {\"schema\":\"rdma-doctor/report/v1\",\n"
		 "n1: \"host\":\"n1\",\"time\":\"2025-11-30T00:00:00Z\",\"summary\":{\"status\":\"OK\"}}\n"
		 "n2: \"host\":\"n2\",\"time\":\"2025-11-30T00:00:00Z\",\"summary\":{\"status\":\"FAIL\"}}\n",
		 "[in n1: n1 OK 0 dev 0 mod 0 find][in n2: n2 FAIL 0 dev 0 mod 0 find]");
	/* a host whose output stopped inside its report; one that printed something else */
	reads_as("n1: {\"schema\":\"rdma-doctor/report/v1\",\nn2: rdma-doctor: command not found\nn3:\n",
		 "{in n2: not JSON (lexical error: invalid char in json text.)}{in n1: truncated: the input ends inside a report}"
		 "{in n3: no report in its output}");
	/* what is neither is never echoed (it may be a secret) */
	reads_as("hello world\n", "{in: not JSON and not pdsh/clush output (line 1 is neither)}");
	reads_as("n1: {\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n1\",\"time\":\"2025-11-30T00:00:00Z\","
		 "\"summary\":{\"status\":\"OK\"}}\nstray line\r\n",
		 "[in n1: n1 OK 0 dev 0 mod 0 find]{in: 1 line is not pdsh/clush output, ignored (first: line 2)}");
	/* clush -b: a block per node set, one parser per block */
	reads_as("---------------\nn1\n---------------\n{\"schema\":\"rdma-doctor/report/v1\",\n\"host\":\"n1\","
		 "\"time\":\"2025-11-30T00:00:00Z\",\"summary\":{\"status\":\"OK\"}}\n"
		 "---------------\nn[2-3] (2)\n---------------\nnope\n",
		 "[in n1: n1 OK 0 dev 0 mod 0 find]{in n[2-3]: not JSON (lexical error: invalid string in json text.)}");
	/* several nodes with the same report: it speaks for one host, so it is counted for none */
	reads_as("---------------\nn[1-2] (2)\n---------------\n{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n1\","
		 "\"time\":\"2025-11-30T00:00:00Z\",\"summary\":{\"status\":\"OK\"}}\n",
		 "{in n[1-2]: 2 nodes printed the same report (of host n1): not counted, a report speaks for one host}");
	/* a block naming a million nodes and opening a report: one parser, not a million */
	reads_as("-----\nh[1-1000000]\n-----\n{\"a\":[\n", "{in h[1-1000000]: truncated: the input ends inside a report}");
	/* a header that is no node set: its block is not read */
	reads_as("-----\nn[1-\n-----\n{}\n", "{in: not JSON and not pdsh/clush output (line 2 is neither)}");
}

RD_TEST(reader_bounds)
{
	/* a report larger than the bound is refused without reading it all */
	size_t n = RD_FLEET_MAX_REPORT + (1u << 20);
	char *big = rd_xmalloc(n + 1);
	memcpy(big, "{\"schema\":\"", 11);
	memset(big + 11, 'x', n - 11);
	big[n] = '\0';
	char *got = read_text(big, n, 1u << 16);
	CHECK_STR(got, "{in: a report larger than 16 MiB: not read further}");
	free(got);
	/* a line longer than the bound, after pdsh lines */
	memset(big, 'y', n);
	memcpy(big, "n1: {\n", 6);
	got = read_text(big, n, 1u << 16);
	CHECK_STR(got, "{in: line 2 is longer than 16 MiB: not read further}");
	free(got);
	/* neither JSON nor pdsh/clush lines: given up after 1 MiB, one long line or many short ones */
	memset(big, 'y', n);
	got = read_text(big, n, 1u << 16);
	CHECK_STR(got, "{in: not JSON and not pdsh/clush output (no such line in its first 1024 KiB; line 1 is neither)}");
	free(got);
	for (size_t i = 0; i < n; i += 10)
		big[i] = '\n';
	got = read_text(big, n, 1u << 16);
	CHECK_STR(got, "{in: not JSON and not pdsh/clush output (no such line in its first 1024 KiB; line 1 is neither)}");
	free(got);
	memset(big, ' ', n);
	got = read_text(big, n, 1u << 16);
	CHECK_STR(got, "{in: only white space in its first 1024 KiB: not read further}");
	free(got);
	free(big);
	/* more devices than kept: the report is still read, the bound noted */
	struct rd_buf b = {0};
	rd_buf_puts(&b, "{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n1\",\"time\":\"2025-11-30T00:00:00Z\","
			"\"summary\":{\"status\":\"OK\"},\"devices\":[");
	for (int i = 0; i < RD_FLEET_MAX_DEVICES + 5; i++)
		rd_buf_printf(&b, "%s{\"name\":\"d%d\"}", i ? "," : "", i);
	rd_buf_puts(&b, "]}");
	got = read_text(b.data, b.len, 4096);
	CHECK_STR(got, "[in: n1 OK 256 dev 0 mod 0 find]");
	free(got);
	rd_buf_free(&b);
}

/* ---- the summary ----------------------------------------------------------------------------- */

static void f_report(void *arg, const char *origin, const char *label, const struct rd_fleet_report *r)
{
	rd_fleet_add(arg, origin, label, r);
}

static void f_problem(void *arg, const char *origin, const char *label, const char *msg)
{
	rd_fleet_problem(arg, origin, label, msg);
}

static const struct rd_fleet_input_cb fcb = {f_report, f_problem};

static void feed(struct rd_fleet *f, const char *origin, const char *text)
{
	struct rd_fleet_input *in = rd_fleet_input_new(origin, &fcb, f);
	if (rd_fleet_input_feed(in, text, strlen(text)) == 0)
		rd_fleet_input_end(in);
	rd_fleet_input_free(in);
}

static char *report(const char *host, const char *time, const char *status, const char *fw, unsigned mtu)
{
	return rd_xasprintf("{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"%s\",\"time\":\"%s\",\"kernel\":\"6.1\","
			    "\"summary\":{\"status\":\"%s\"},\"stack\":{\"installed\":\"inbox\",\"version\":\"rdma-core 44\"},"
			    "\"devices\":[{\"name\":\"mlx5_0\",\"board_id\":\"MT_1\",\"model\":\"ConnectX-7\",\"fw_ver\":\"%s\","
			    "\"ports\":[{\"port\":1,\"state\":\"ACTIVE\",\"rate_gbps\":100,\"link_layer\":\"Ethernet\","
			    "\"netdevs\":[{\"name\":\"eth0\",\"mtu\":%u}]}]}],\"findings\":[]}",
			    host, time, status, fw, mtu);
}

static void add(struct rd_fleet *f, const char *origin, const char *host, const char *time, const char *status,
		const char *fw, unsigned mtu)
{
	char *r = report(host, time, status, fw, mtu);
	feed(f, origin, r);
	free(r);
}

static const struct rd_fleet_group *group(const struct rd_fleet *f, const char *scope, enum rd_fleet_kind k)
{
	for (size_t i = 0; i < f->norder; i++) {
		const struct rd_fleet_group *g = &f->groups[f->order[i]];
		if (g->kind == k && !strcmp(g->scope, scope))
			return g;
	}
	return NULL;
}

static void values_are(const struct rd_fleet *f, const struct rd_fleet_group *g, const char *want)
{
	struct rd_buf b = {0};
	rd_buf_puts(&b, "");
	for (size_t i = 0; g && i < g->n; i++) {
		const struct rd_fleet_entry *e = &f->entries[g->entries[i]];
		char *hl = rd_fleet_entry_hostlist(f, e);
		rd_buf_printf(&b, "%s%s=%zu:%s", i ? " " : "", e->value, e->n, hl);
		free(hl);
	}
	CHECK_STR(b.data, want);
	rd_buf_free(&b);
}

#define T0 "2025-11-30T00:00:00Z"
#define T1 "2025-11-30T01:00:00Z"

RD_TEST(summary_uniform_and_healthy)
{
	struct rd_fleet f;
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	for (int i = 1; i <= 4; i++) {
		char h[16];
		snprintf(h, sizeof h, "n%d", i);
		add(&f, h, h, T0, "OK", "28.41.1000", 9000);
	}
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 0);
	CHECK_INT(f.nreported, 4);
	values_are(&f, group(&f, "MT_1", RD_FK_FIRMWARE), "28.41.1000=4:n[1-4]");
	values_are(&f, group(&f, "", RD_FK_ACTIVE_MTU), "4096=4:n[1-4]");
	rd_fleet_free(&f);
}

RD_TEST(summary_drift_newest_stale_missing)
{
	struct rd_strv exp = {0};
	char err[64];
	CHECK_INT(rd_hostlist_expand("n[1-5]", &exp, err, sizeof err), 0);
	struct rd_fleet f;
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 1800);
	rd_fleet_expect(&f, &exp);
	rd_strv_free(&exp);
	add(&f, "a", "n1", T1, "OK", "28.41.1000", 9000);
	add(&f, "b", "n2", T1, "OK", "28.39.1010", 9000);
	add(&f, "c", "n3", T1, "OK", "28.41.1000", 1500); /* MTU drift */
	add(&f, "d", "n3", T0, "FAIL", "28.41.1000", 9000); /* older: ignored */
	add(&f, "e", "n4", T0, "FAIL", "28.41.1000", 9000); /* stale: out of the summary */
	add(&f, "g", "n1", T1, "OK", "28.41.1000", 9000);   /* the same time: the later read counts */
	feed(&f, "h", "{\"schema\":\"rdma-doctor/report/v1\"");
	rd_fleet_finish(&f);
	CHECK_INT(f.nreported, 3);
	CHECK_INT(f.nstale, 1);
	CHECK_INT(f.nmissing, 1); /* n5 */
	CHECK_INT(f.problems.total, 1);
	CHECK_INT(f.untrusted.total, 2); /* two reports for n3, two for n1 */
	CHECK(f.drift);
	/* n3's older report FAILs: of several reports for one host the worst status counts (the stale
	 * FAIL of n4 does not) */
	CHECK_INT(f.exit_code, 2);
	CHECK_INT(f.nodes[2].status, RD_FS_FAIL);
	values_are(&f, group(&f, "MT_1", RD_FK_FIRMWARE), "28.41.1000=2:n[1,3] 28.39.1010=1:n2");
	values_are(&f, group(&f, "", RD_FK_MTU), "9000=2:n[1-2] 1500=1:n3");
	values_are(&f, group(&f, "", RD_FK_ACTIVE_MTU), "4096=2:n[1-2] 1024=1:n3");
	CHECK_STR(f.nodes[0].origin, "g");
	rd_fleet_free(&f);
}

RD_TEST(summary_exit_ranks)
{
	struct rd_fleet f;
	/* a FAIL outranks drift and missing reports */
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add(&f, "a", "n1", T0, "FAIL", "1", 9000);
	add(&f, "b", "n2", T0, "OK", "2", 9000);
	feed(&f, "c", "not json");
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 2);
	rd_fleet_free(&f);
	/* unreadable only: 3 */
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add(&f, "a", "n1", T0, "OK", "1", 9000);
	feed(&f, "c", "");
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 3);
	rd_fleet_free(&f);
	/* nothing read at all: 3 */
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 3);
	rd_fleet_free(&f);
	/* a WARN: 1; an UNKNOWN node: 3 */
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add(&f, "a", "n1", T0, "WARN", "1", 9000);
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 1);
	rd_fleet_free(&f);
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add(&f, "a", "n1", T0, "UNKNOWN", "1", 9000);
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 3);
	rd_fleet_free(&f);
}

RD_TEST(reader_many_reports_in_one_stream)
{
	/* 40,000 reports (over 16 MiB) in one JSON stream: the size bound is per report, not per stream */
	struct rd_buf b = {0};
	for (int i = 0; i < 40000; i++)
		rd_buf_puts(&b, R1 "\n");
	CHECK(b.len > RD_FLEET_MAX_REPORT);
	struct got g = {0};
	rd_buf_puts(&g.log, "");
	struct rd_fleet_input *in = rd_fleet_input_new("in", &gcb, &g);
	for (size_t at = 0; at < b.len; at += 1u << 20)
		CHECK_INT(rd_fleet_input_feed(in, b.data + at, b.len - at < (1u << 20) ? b.len - at : (1u << 20)), 0);
	rd_fleet_input_end(in);
	rd_fleet_input_free(in);
	CHECK_INT(g.reports, 40000);
	CHECK(!strchr(g.log.data, '{')); /* no problem told */
	rd_buf_free(&g.log);
	rd_buf_free(&b);
}

RD_TEST(summary_label_and_unexpected)
{
	struct rd_strv exp = {0};
	char err[64];
	CHECK_INT(rd_hostlist_expand("n1", &exp, err, sizeof err), 0);
	struct rd_fleet f;
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	rd_fleet_expect(&f, &exp);
	rd_strv_free(&exp);
	/* pdsh's host n1 whose report says n1.cluster: the same host, counted as n1 */
	char *r = report("n1.cluster", T0, "OK", "1", 9000);
	struct rd_buf b = {0};
	for (const char *p = r; *p;) {
		size_t n = strcspn(p, ",");
		rd_buf_printf(&b, "n1: %.*s%s\n", (int)n, p, p[n] ? "," : "");
		p += n + (p[n] ? 1 : 0);
	}
	feed(&f, "-", b.data);
	rd_buf_free(&b);
	free(r);
	add(&f, "x", "n2", T0, "OK", "1", 9000); /* not expected */
	rd_fleet_finish(&f);
	CHECK_INT(f.nreported, 2);
	CHECK_INT(f.nmissing, 0);
	CHECK_INT(f.nunexpected, 1);
	CHECK_INT(f.nexpected, 1);
	CHECK_INT(f.nexpected_reported, 1);
	CHECK_INT(f.notes.total + f.untrusted.total, 0);
	CHECK_INT(f.exit_code, 0);
	rd_fleet_free(&f);
}

/* where a report came from names its node: one that names another host, or is dated in the
 * future, is not counted and makes the verdict UNKNOWN; a lesser status never hides a missing node */
RD_TEST(summary_identity)
{
	CHECK(rd_fleet_same_host("n1", "n1"));
	CHECK(rd_fleet_same_host("n1", "n1.cluster.local"));
	CHECK(rd_fleet_same_host("n1.cluster", "n1"));
	CHECK(!rd_fleet_same_host("n1", "n2"));
	CHECK(!rd_fleet_same_host("n1", "n10"));
	CHECK(rd_fleet_same_host("n1.a", "n1.b")); /* the same first label */
	struct rd_strv exp = {0};
	char err[64];
	CHECK_INT(rd_hostlist_expand("n[1-3]", &exp, err, sizeof err), 0);
	struct rd_fleet f;
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 3600);
	rd_fleet_expect(&f, &exp);
	rd_strv_free(&exp);
	/* n1's file: its own report, and one for n2 dated 2099 (OK) */
	char *a = report("n1", T1, "OK", "1", 9000), *b = report("n2", "2099-01-01T00:00:00Z", "OK", "1", 9000);
	char *both = rd_xasprintf("%s\n%s\n", a, b);
	struct rd_fleet_input *in = rd_fleet_input_new("d/n1.json", &fcb, &f);
	rd_fleet_input_node(in, "n1", false);
	CHECK_INT(rd_fleet_input_feed(in, both, strlen(both)), 0);
	rd_fleet_input_end(in);
	rd_fleet_input_free(in);
	free(a);
	free(b);
	free(both);
	/* n2's own: a FAIL */
	a = report("n2", T1, "FAIL", "1", 9000);
	in = rd_fleet_input_new("d/n2.json", &fcb, &f);
	rd_fleet_input_node(in, "n2", false);
	CHECK_INT(rd_fleet_input_feed(in, a, strlen(a)), 0);
	rd_fleet_input_end(in);
	rd_fleet_input_free(in);
	free(a);
	/* on standard input (no file to name it) a report dated the future is not counted either */
	add(&f, "-", "n4", "2099-01-01T00:00:00Z", "OK", "1", 9000);
	rd_fleet_finish(&f);
	CHECK_INT(f.untrusted.total, 2);
	CHECK_STR(f.untrusted.v[0].msg, "the report is dated 2099-01-01T00:00:00Z, more than 5 minutes after 2025-11-30T01:00:00Z: not counted");
	CHECK_STR(f.untrusted.v[1].msg, "the report is dated 2099-01-01T00:00:00Z, more than 5 minutes after 2025-11-30T01:00:00Z: not counted");
	CHECK_INT(f.nodes[1].status, RD_FS_FAIL); /* n2: its own report */
	CHECK_INT(f.nmissing, 1);                 /* n3 */
	CHECK_INT(f.exit_code, 2);
	rd_fleet_free(&f);
	/* a missing node outranks drift and WARN: 3, not 1 */
	CHECK_INT(rd_hostlist_expand("n[1-3]", &exp, err, sizeof err), 0);
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	rd_fleet_expect(&f, &exp);
	rd_strv_free(&exp);
	add(&f, "a", "n1", T0, "WARN", "1", 9000);
	add(&f, "b", "n2", T0, "OK", "2", 9000);
	add(&f, "c", "lab-ib-03", T0, "OK", "1", 9000);
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 3);
	CHECK_INT(f.nexpected, 3);
	CHECK_INT(f.nexpected_reported, 2);
	CHECK_INT(f.nreported, 3);
	CHECK_INT(f.nunexpected, 1);
	CHECK_INT(f.nmissing, 1);
	rd_fleet_free(&f);
	/* several reports for one host: the worst status counts, whichever is newer */
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add(&f, "a", "n1", T0, "FAIL", "1", 9000);
	add(&f, "b", "n1", T1, "OK", "1", 9000);
	rd_fleet_finish(&f);
	CHECK_INT(f.nodes[0].status, RD_FS_FAIL);
	CHECK_INT(f.exit_code, 2);
	CHECK_INT(f.untrusted.total, 1);
	values_are(&f, group(&f, "", RD_FK_STATUS), "FAIL=1:n1");
	rd_fleet_free(&f);
	/* a report naming another host than where it came from: counted as where it came from, and
	 * then it is one of several reports for that node: the worst status counts */
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	a = report("n1", T1, "OK", "1", 9000);
	b = report("n2", T1, "FAIL", "1", 9000);
	both = rd_xasprintf("%s\n%s\n", a, b);
	in = rd_fleet_input_new("d/n1.json", &fcb, &f);
	rd_fleet_input_node(in, "n1", false);
	CHECK_INT(rd_fleet_input_feed(in, both, strlen(both)), 0);
	rd_fleet_input_end(in);
	rd_fleet_input_free(in);
	free(a);
	free(b);
	free(both);
	rd_fleet_finish(&f);
	CHECK_INT(f.nnodes, 1);
	CHECK_INT(f.nodes[0].status, RD_FS_FAIL);
	CHECK_INT(f.untrusted.total, 2);
	CHECK_STR(f.untrusted.v[0].msg, "the report names host n2, not n1 where it came from: counted as n1");
	CHECK_INT(f.exit_code, 2);
	rd_fleet_free(&f);
	/* a directory's file holding pdsh lines: refused, it cannot speak for other hosts */
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	in = rd_fleet_input_new("d/n1", &fcb, &f);
	rd_fleet_input_node(in, "n1", false);
	CHECK(rd_fleet_input_feed(in, "n2: {\n", 6) < 0);
	rd_fleet_input_free(in);
	rd_fleet_finish(&f);
	CHECK_INT(f.problems.total, 1);
	CHECK_INT(f.nreported, 0);
	rd_fleet_free(&f);
}

/* a report is judged by its findings: summary.status can make it worse, never better */
RD_TEST(summary_judged_by_findings)
{
	struct rd_fleet f;
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	feed(&f, "a", "{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n1\",\"time\":\"" T0 "\",\"summary\":{\"status\":\"OK\"},"
		      "\"findings\":[{\"check\":\"x.y\",\"status\":\"OK\"},{\"check\":\"p.q\",\"status\":\"FAIL\"}]}");
	feed(&f, "b", "{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n2\",\"time\":\"" T0 "\",\"summary\":{\"status\":\"OK\"},"
		      "\"findings\":[{\"check\":\"x.y\",\"status\":\"SKIP\"}]}");
	feed(&f, "c", "{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n3\",\"time\":\"" T0 "\",\"summary\":{\"status\":\"OK\"},"
		      "\"findings\":[{\"check\":\"x.y\",\"status\":\"BAD\"}]}");
	rd_fleet_finish(&f);
	CHECK_INT(f.nodes[0].status, RD_FS_FAIL);
	CHECK_INT(f.nodes[1].status, RD_FS_OK);      /* only SKIP: OK, as check says */
	CHECK_INT(f.nodes[2].status, RD_FS_UNKNOWN); /* a status it cannot be judged by */
	CHECK_INT(f.exit_code, 2);
	values_are(&f, group(&f, "", RD_FK_STATUS), "FAIL=1:n1 OK=1:n2 UNKNOWN=1:n3");
	rd_fleet_free(&f);
	/* a FAIL past the findings the reader keeps still counts */
	struct rd_buf b = {0};
	rd_buf_puts(&b, "{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n1\",\"time\":\"" T0 "\",\"summary\":{\"status\":\"OK\"},"
			"\"findings\":[");
	for (int i = 0; i < RD_FLEET_MAX_FINDINGS + 3; i++)
		rd_buf_printf(&b, "%s{\"check\":\"c.%d\",\"status\":\"%s\"}", i ? "," : "", i,
			      i == RD_FLEET_MAX_FINDINGS + 1 ? "FAIL" : "OK");
	rd_buf_puts(&b, "]}");
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	feed(&f, "a", b.data);
	rd_fleet_finish(&f);
	CHECK_INT(f.nodes[0].status, RD_FS_FAIL);
	rd_fleet_free(&f);
	rd_buf_free(&b);
}

/* pdsh lines of a million hosts, each opening a report: bounded by the reports in progress */
RD_TEST(reader_many_open_reports)
{
	struct rd_buf b = {0};
	for (int i = 0; i < RD_FLEET_MAX_OPEN + 10; i++)
		rd_buf_printf(&b, "h%d: {\"schema\":\"rdma-doctor/report/v1\",\n", i);
	/* the host fed longest ago was given up; a later one completes */
	rd_buf_printf(&b, "h%d: \"host\":\"h%d\",\"time\":\"" T0 "\",\"summary\":{\"status\":\"OK\"}}\n", RD_FLEET_MAX_OPEN + 9,
		      RD_FLEET_MAX_OPEN + 9);
	rd_buf_puts(&b, "h0: \"host\":\"h0\",\"time\":\"" T0 "\",\"summary\":{\"status\":\"OK\"}}\n");
	struct rd_fleet f;
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	feed(&f, "-", b.data);
	rd_fleet_finish(&f);
	CHECK_INT(f.nreported, 1);
	CHECK_STR(f.problems.v[0].label, "h0");
	CHECK_STR(f.problems.v[0].msg, "its report was still incomplete when more than 1024 other hosts' reports were in "
				       "progress: not read further");
	rd_fleet_free(&f);
	rd_buf_free(&b);
}

/* ---- RoCE QoS (devices[].ports[].qos) ------------------------------------------------------ */

/* what the reader kept of each port's qos: "trust/pfc-mask" per port, "-" for none */
static void q_report(void *arg, const char *origin, const char *label, const struct rd_fleet_report *r)
{
	(void)origin;
	(void)label;
	struct rd_buf *b = arg;
	for (size_t i = 0; i < r->ndevs; i++)
		for (size_t j = 0; j < r->devs[i].nports; j++) {
			const struct rd_fleet_port *p = &r->devs[i].ports[j];
			rd_buf_printf(b, "[%s/", p->trust ? p->trust : "-");
			if (p->has_pfc)
				rd_buf_printf(b, "%#x]", p->pfc);
			else
				rd_buf_puts(b, "-]");
		}
}

static void q_problem(void *arg, const char *origin, const char *label, const char *msg)
{
	(void)origin;
	(void)label;
	rd_buf_printf(arg, "{%s}", msg);
}

#define QHEAD "{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n1\",\"time\":\"2025-11-30T00:00:00Z\"," \
	      "\"summary\":{\"status\":\"OK\"},\"devices\":[{\"name\":\"mlx5_0\",\"ports\":["

static void qos_reads_as(const char *ports, const char *want)
{
	char *text = rd_xasprintf(QHEAD "%s]}]}", ports);
	static const size_t pieces[] = {1, 7, 4096};
	for (size_t i = 0; i < 3; i++) {
		struct rd_buf b = {0};
		rd_buf_puts(&b, "");
		const struct rd_fleet_input_cb cb = {q_report, q_problem};
		struct rd_fleet_input *in = rd_fleet_input_new("in", &cb, &b);
		bool dead = false;
		size_t len = strlen(text);
		for (size_t at = 0; at < len && !dead; at += pieces[i])
			dead = rd_fleet_input_feed(in, text + at, len - at < pieces[i] ? len - at : pieces[i]) < 0;
		if (!dead)
			rd_fleet_input_end(in);
		rd_fleet_input_free(in);
		CHECK_STR(b.data, want);
		rd_buf_free(&b);
	}
	free(text);
}

RD_TEST(reader_qos)
{
	/* as check --format json writes it: trust and the priorities with PFC on */
	qos_reads_as("{\"port\":1,\"link_layer\":\"Ethernet\",\"netdevs\":[{\"name\":\"e0\",\"mtu\":9000}],"
		     "\"qos\":{\"trust\":\"dscp\",\"pfc\":[3],\"ecn\":{\"np\":[3],\"rp\":[3]},\"default_roce_tos\":106,"
		     "\"source\":\"sysfs\",\"pfc_source\":\"sysfs\"}}",
		     "[dscp/0x8]");
	/* PFC off everywhere is a value ("none"), not unknown; several priorities */
	qos_reads_as("{\"port\":1,\"qos\":{\"trust\":\"pcp\",\"pfc\":[]}},{\"port\":2,\"qos\":{\"pfc\":[0,3,4,7],\"trust\":null}}",
		     "[pcp/0][-/0x99]");
	/* nothing readable (qos null), an InfiniBand port (no qos), PFC unreadable (null) */
	qos_reads_as("{\"port\":1,\"qos\":null},{\"port\":2},{\"port\":3,\"qos\":{\"trust\":\"dscp\",\"pfc\":null}}",
		     "[-/-][-/-][dscp/-]");
	/* hostile: what is not a priority 0..7 is not kept; an array or object as trust is no trust;
	 * a second trust that is null clears the first */
	qos_reads_as("{\"port\":1,\"qos\":{\"trust\":[\"dscp\"],\"pfc\":[8,-1,3.5,\"3\",1e0,2,{\"a\":5},[6]]}},"
		     "{\"port\":2,\"qos\":{\"trust\":\"dscp\",\"trust\":null,\"pfc\":{\"3\":1}}}",
		     "[-/0x4][-/-]");
}

/* a report whose RoCE port has this qos (a JSON value) */
static void add_qos(struct rd_fleet *f, const char *host, const char *qos)
{
	char *r = rd_xasprintf("{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"%s\",\"time\":\"" T0 "\","
			       "\"summary\":{\"status\":\"OK\"},\"devices\":[{\"name\":\"mlx5_2\",\"board_id\":\"MT_2\","
			       "\"ports\":[{\"port\":1,\"state\":\"ACTIVE\",\"link_layer\":\"Ethernet\",\"qos\":%s}]},"
			       "{\"name\":\"mlx5_0\",\"board_id\":\"MT_1\",\"ports\":[{\"port\":1,\"state\":\"ACTIVE\","
			       "\"link_layer\":\"InfiniBand\",\"qos\":{\"trust\":\"pcp\",\"pfc\":[]}}]}]}",
			       host, qos);
	feed(f, host, r);
	free(r);
}

RD_TEST(summary_qos_drift)
{
	struct rd_fleet f;
	/* the same trust and PFC everywhere (a node with nothing readable adds no value): no drift */
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add_qos(&f, "n1", "{\"trust\":\"dscp\",\"pfc\":[3]}");
	add_qos(&f, "n2", "{\"trust\":\"dscp\",\"pfc\":[3]}");
	add_qos(&f, "n3", "null");
	rd_fleet_finish(&f);
	CHECK(!f.drift);
	CHECK_INT(f.exit_code, 0);
	values_are(&f, group(&f, "", RD_FK_TRUST), "dscp=2:n[1-2]");
	values_are(&f, group(&f, "", RD_FK_PFC), "3=2:n[1-2]");
	CHECK(group(&f, "MT_1", RD_FK_TRUST) == NULL); /* not from an InfiniBand port */
	rd_fleet_free(&f);
	/* one node trusts pcp with PFC off: drift across the fleet, exit 1, as MTU drift */
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add_qos(&f, "n1", "{\"trust\":\"dscp\",\"pfc\":[3]}");
	add_qos(&f, "n2", "{\"trust\":\"dscp\",\"pfc\":[3]}");
	add_qos(&f, "n3", "{\"trust\":\"pcp\",\"pfc\":[]}");
	add_qos(&f, "n4", "{\"trust\":\"dscp\",\"pfc\":[3,4]}");
	rd_fleet_finish(&f);
	CHECK(f.drift);
	CHECK_INT(f.exit_code, 1);
	values_are(&f, group(&f, "", RD_FK_TRUST), "dscp=3:n[1-2,4] pcp=1:n3");
	values_are(&f, group(&f, "", RD_FK_PFC), "3=2:n[1-2] 3,4=1:n4 none=1:n3");
	CHECK(group(&f, "", RD_FK_TRUST)->drift);
	CHECK(group(&f, "", RD_FK_PFC)->drift);
	/* per board the values are shown, the drift is the fleet's (as the MTU) */
	values_are(&f, group(&f, "MT_2", RD_FK_TRUST), "dscp=3:n[1-2,4] pcp=1:n3");
	CHECK(!group(&f, "MT_2", RD_FK_TRUST)->drift);
	rd_fleet_free(&f);
}

/* ---- GPU hosts (gpudirect) ------------------------------------------------------------------ */

/* a report with this gpudirect object (a JSON value) */
static void add_gdr(struct rd_fleet *f, const char *host, const char *gdr)
{
	char *r = rd_xasprintf("{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"%s\",\"time\":\"" T0 "\","
			       "\"summary\":{\"status\":\"OK\"},\"gpudirect\":%s,\"devices\":[]}",
			       host, gdr);
	feed(f, host, r);
	free(r);
}

#define GPU(n, nic, type, acs) "{\"name\":\"GPU" #n "\",\"pci_id\":\"10de:2330\",\"nic\":\"" nic "\",\"type\":\"" type "\"" acs "}"
#define ACS0 ",\"acs_redirect\":[],\"acs_unknown\":0"
#define ACS2 ",\"acs_redirect\":[\"0000:17:01.0\",\"0000:17:02.0\"],\"acs_unknown\":0"

RD_TEST(summary_gpudirect_drift)
{
	struct rd_fleet f;
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add_gdr(&f, "n1", "{\"iommu\":\"identity\",\"gpus\":[" GPU(0, "mlx5_0", "PIX", ACS0) "," GPU(1, "mlx5_1", "PIX", ACS0) "]}");
	add_gdr(&f, "n2", "{\"iommu\":\"identity\",\"gpus\":[" GPU(0, "mlx5_0", "PIX", ACS0) "," GPU(1, "mlx5_1", "PIX", ACS0) "]}");
	/* one GPU a host bridge away, DMA-FQ, ACS redirect on its switch ports */
	add_gdr(&f, "n3", "{\"iommu\":\"DMA-FQ\",\"gpus\":[" GPU(0, "mlx5_0", "PIX", ACS2) "," GPU(1, "mlx5_0", "PHB", ACS0) "]}");
	/* ACS not read, the IOMMU not told, a GPU with no readable path: no value where nothing is known */
	add_gdr(&f, "n4", "{\"iommu\":null,\"gpus\":[" GPU(0, "mlx5_0", "PIX", "") ",{\"name\":\"GPU1\",\"pci_id\":\"10de:2330\",\"nic\":null,\"type\":null}]}");
	/* hostile: an array where a GPU should be, numbers as names, a huge acs list counted not kept */
	add_gdr(&f, "n5", "{\"iommu\":[\"identity\"],\"gpus\":[[1],{\"name\":7,\"type\":\"PIX\",\"acs_redirect\":[1,\"a\",\"b\"]}]}");
	rd_fleet_finish(&f);
	CHECK(f.drift);
	CHECK_INT(f.exit_code, 1);
	values_are(&f, group(&f, "", RD_FK_GDR_PATH),
		   "10de:2330 x2: 2 PIX=2:n[1-2] 10de:2330 x2: 1 PIX, 1 PHB (GPU1)=1:n3 10de:2330 x2: 1 PIX, 1 no path (GPU1)=1:n4 ? x1: 1 PIX=1:n5");
	values_are(&f, group(&f, "", RD_FK_IOMMU), "identity=2:n[1-2] DMA-FQ=1:n3");
	values_are(&f, group(&f, "", RD_FK_ACS), "2 bridges redirect=2:n[3,5] none=2:n[1-2]");
	CHECK(group(&f, "", RD_FK_IOMMU)->drift && group(&f, "", RD_FK_ACS)->drift && group(&f, "", RD_FK_GDR_PATH)->drift);
	rd_fleet_free(&f);
	/* the same everywhere: no drift; a host without GPUs adds nothing */
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add_gdr(&f, "n1", "{\"iommu\":\"none\",\"gpus\":[" GPU(0, "mlx5_0", "PXB", ACS0) "]}");
	add_gdr(&f, "n2", "{\"iommu\":\"none\",\"gpus\":[" GPU(0, "mlx5_0", "PXB", ACS0) "]}");
	feed(&f, "n3", "{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n3\",\"time\":\"" T0 "\",\"summary\":{\"status\":\"OK\"}}");
	rd_fleet_finish(&f);
	CHECK(!f.drift);
	values_are(&f, group(&f, "", RD_FK_GDR_PATH), "10de:2330 x1: 1 PXB=2:n[1-2]");
	rd_fleet_free(&f);
}

static char *slurp_test(const char *rel)
{
	char *path = rd_xasprintf("%s/%s", rd_test_dir(), rel);
	FILE *fp = fopen(path, "rb");
	if (!fp)
		rd_test_fail(__FILE__, __LINE__, "cannot read %s", path);
	free(path);
	struct rd_buf b = {0};
	rd_buf_puts(&b, "");
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		rd_buf_add(&b, chunk, n);
	fclose(fp);
	return rd_buf_steal(&b);
}

static const struct rd_fleet_fab_link *fab_link(const struct rd_fleet_fabric *fab, const char *a, unsigned pa)
{
	for (size_t i = 0; i < fab->nlinks; i++)
		if (!strcmp(fab->links[i].a.desc, a) && fab->links[i].a.port == pa)
			return &fab->links[i];
	return NULL;
}

/* What fabric made of tests/fabric/captures/w1: a leaf-spine cable at 1X with error counters
 * (FAIL), a host cable with receive errors (WARN). */
RD_TEST(fabric_doc_w1)
{
	char *doc = slurp_test("fleet/fabric-w1.json");
	struct rd_fleet_fabric fab;
	char err[400] = "";
	CHECK_INT(rd_fleet_fabric_parse(&fab, doc, strlen(doc), err, sizeof err), 0);
	CHECK_STR(err, "");
	CHECK_INT(fab.status, RD_FS_FAIL);
	CHECK_INT(fab.switches, 4);
	CHECK_INT(fab.cables, 14);
	CHECK_INT(fab.nfinds, 5); /* 1 FAIL, 2 WARN, 2 OK notes */
	CHECK_INT(fab.nfail, 1);
	CHECK_INT(fab.nwarn, 2);
	CHECK_INT(fab.bad_links, 2);
	const struct rd_fleet_fab_link *l = fab_link(&fab, "leaf1", 6);
	CHECK(l != NULL);
	if (l) {
		CHECK(l->has_peer);
		CHECK_STR(l->b.desc, "spine1");
		CHECK_INT(l->b.port, 2);
		CHECK_INT(l->width, 1);
		CHECK_INT(l->could_width, 12);
		CHECK_STR(l->state, "Active");
		CHECK_INT(l->status, RD_FS_FAIL);
	}
	l = fab_link(&fab, "leaf2", 2);
	CHECK(l && l->status == RD_FS_WARN);
	l = fab_link(&fab, "leaf1", 5);
	CHECK(l && l->status == RD_FS_NONE);
	/* the fleet: the fabric's FAIL is a FAIL of the whole, even with every node OK */
	struct rd_fleet f;
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add(&f, "a", "n1", T0, "OK", "1", 9000);
	rd_fleet_set_fabric(&f, &fab);
	CHECK_INT(fab.nlinks, 0); /* taken over */
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 2);
	rd_fleet_free(&f);
	free(doc);
}

static void fabric_bad(const char *doc, const char *want)
{
	struct rd_fleet_fabric fab;
	char err[400] = "";
	CHECK_INT(rd_fleet_fabric_parse(&fab, doc, strlen(doc), err, sizeof err), -EINVAL);
	CHECK_STR(err, want);
	CHECK(!fab.links && !fab.finds && !fab.nlinks);
}

RD_TEST(fabric_doc_bad)
{
	fabric_bad("", "not JSON (parse error: premature EOF)");
	fabric_bad("[1]", "an array, not a rdma-doctor/fabric/v1 document");
	fabric_bad("{\"schema\":\"rdma-doctor/report/v1\"}", "schema \"rdma-doctor/report/v1\", not rdma-doctor/fabric/v1");
	fabric_bad("{\"schema\":\"\\u001b[31m\"}",
		   "not a fabric document (its \"schema\" is not rdma-doctor's; want rdma-doctor/fabric/v1)");
	fabric_bad("{\"schema\":\"rdma-doctor/fabric/v1\"}", "no summary.status (FAIL, WARN, UNKNOWN, OK, SKIP)");
	fabric_bad("{\"summary\":{\"status\":\"OK\"}}", "no \"schema\": not a rdma-doctor/fabric/v1 document");
	fabric_bad("{\"schema\":\"rdma-doctor/fabric/v1\",\"summary\":{\"status\":\"OK\",\"links\":-1}}",
		   "summary.links is not a count");
	fabric_bad("{\"schema\":\"rdma-doctor/fabric/v1\",\"links\":[{\"a\":{\"port\":256}}]}",
		   "a link's \"port\" is not a port number");
	fabric_bad("{\"schema\":\"rdma-doctor/fabric/v1\",\"findings\":[{\"status\":\"WARN\"}]}",
		   "a finding without \"check\"");
	fabric_bad("{\"schema\":\"rdma-doctor/fabric/v1\",\"findings\":[1]}", "\"findings\" holds something that is not an object");
	fabric_bad("{\"schema\":\"rdma-doctor/fabric/v1\",\"summary\":{\"status\":\"OK\"}", "cut short: the document ends inside it");
	fabric_bad("{\"schema\":\"rdma-doctor/fabric/v1\",\"summary\":{\"status\":\"OK\"}} {}", "not JSON (parse error: trailing garbage)");
}

/* A WARN finding on a link makes the fabric WARN (worse than its summary's OK): exit 1; an
 * unknown finding status counts as UNKNOWN (exit 3); unknown keys are skipped. */
RD_TEST(fabric_doc_verdicts)
{
	const char *warn = "{\"schema\":\"rdma-doctor/fabric/v1\",\"x\":{\"links\":[1]},\"summary\":{\"status\":\"OK\"},"
			   "\"links\":[{\"a\":{\"guid\":\"0x1\",\"port\":2,\"kind\":\"SW\",\"desc\":\"<sw>\"},\"b\":{\"guid\":"
			   "\"0x2\",\"port\":1,\"kind\":\"CA\",\"desc\":\"\"},\"width\":1,\"new\":[{}]}],"
			   "\"findings\":[{\"check\":\"fabric.link.degraded\",\"status\":\"WARN\",\"subject\":\"0x2[1] - <sw>[2]\"}]}";
	struct rd_fleet_fabric fab;
	char err[400] = "";
	CHECK_INT(rd_fleet_fabric_parse(&fab, warn, strlen(warn), err, sizeof err), 0);
	CHECK_INT(fab.status, RD_FS_WARN);
	CHECK_INT(fab.nlinks, 1);
	CHECK_INT(fab.bad_links, 1); /* named the other way round, the GUID for the end without a description */
	struct rd_fleet f;
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add(&f, "a", "n1", T0, "OK", "1", 9000);
	rd_fleet_set_fabric(&f, &fab);
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 1);
	rd_fleet_free(&f);
	/* an end whose line printed no description is named by its node's, as fabric's findings are */
	const char *nodes = "{\"schema\":\"rdma-doctor/fabric/v1\",\"summary\":{\"status\":\"OK\"},\"nodes\":[{\"guid\":\"0x2\","
			    "\"desc\":\"h2 mlx5_0\"},{\"guid\":\"0x1\"}],\"links\":[{\"a\":{\"guid\":\"0x1\",\"port\":2,\"kind\":\"SW\","
			    "\"desc\":\"sw\"},\"b\":{\"guid\":\"0x2\",\"port\":1,\"kind\":\"CA\",\"desc\":\"\"}}],\"findings\":[{\"check\":"
			    "\"fabric.link.errors\",\"status\":\"FAIL\",\"subject\":\"sw[2] - h2 mlx5_0[1]\"}]}";
	CHECK_INT(rd_fleet_fabric_parse(&fab, nodes, strlen(nodes), err, sizeof err), 0);
	CHECK_INT(fab.bad_links, 1);
	CHECK_STR(fab.links[0].b.desc, "h2 mlx5_0");
	CHECK_STR(fab.links[0].a.desc, "sw");
	rd_fleet_fabric_free(&fab);
	const char *unk = "{\"schema\":\"rdma-doctor/fabric/v1\",\"summary\":{\"status\":\"OK\"},"
			  "\"findings\":[{\"check\":\"fabric.sm\",\"status\":\"MAYBE\",\"subject\":\"subnet\"}]}";
	CHECK_INT(rd_fleet_fabric_parse(&fab, unk, strlen(unk), err, sizeof err), 0);
	CHECK_INT(fab.status, RD_FS_UNKNOWN);
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add(&f, "a", "n1", T0, "OK", "1", 9000);
	rd_fleet_set_fabric(&f, &fab);
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 3);
	rd_fleet_free(&f);
}

/* What pairs judged of tests/pairs/results-8.json: n4 slow on every pair (FAIL, bad), n5 - n6 slow
 * together on two rails (WARN). */
RD_TEST(pairs_doc_8)
{
	char *doc = slurp_test("fleet/pairs-8.json");
	struct rd_fleet_pairs p;
	char err[400] = "";
	CHECK_INT(rd_fleet_pairs_parse(&p, doc, strlen(doc), err, sizeof err), 0);
	CHECK_STR(err, "");
	CHECK_INT(p.status, RD_FS_FAIL);
	CHECK_INT(p.nodes, 8);
	CHECK_INT(p.samples, 22);
	CHECK_INT(p.nfinds, 3);
	CHECK_INT(p.nfail, 1);
	CHECK_INT(p.nwarn, 2);
	CHECK_STR(p.bad, "n4");
	CHECK_STR(p.cleared, "n[1-3,5-8]");
	CHECK_STR(p.finds[0].host, "n4");
	CHECK(p.finds[0].peer == NULL);
	CHECK_STR(p.finds[1].peer, "n6");
	struct rd_fleet f;
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add(&f, "a", "n1", T0, "OK", "1", 9000);
	rd_fleet_set_pairs(&f, &p);
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 2);
	rd_fleet_free(&f);
	free(doc);
	/* bad documents */
	const char *bad[][2] = {
		{"{\"schema\":\"rdma-doctor/fabric/v1\"}", "schema \"rdma-doctor/fabric/v1\", not rdma-doctor/pairs/v1"},
		{"{\"schema\":\"rdma-doctor/pairs/v1\",\"findings\":[{\"id\":\"pairs.link\",\"host\":\"a b\"}]}",
		 "a finding without a \"host\" that is a host name"},
		{"{\"schema\":\"rdma-doctor/pairs/v1\",\"findings\":[{\"id\":\"pairs.link\",\"host\":\"a\",\"peer\":\"<b>\"}]}",
		 "a finding's \"peer\" is not a host name"},
		{"{\"nodes\":1}", "no \"schema\": not a rdma-doctor/pairs/v1 document"},
		{"{\"schema\":\"rdma-doctor/pairs/v1\"", "cut short: the document ends inside it"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		CHECK_INT(rd_fleet_pairs_parse(&p, bad[i][0], strlen(bad[i][0]), err, sizeof err), -EINVAL);
		CHECK_STR(err, bad[i][1]);
		CHECK(!p.finds && !p.bad);
	}
	/* a WARN only (a slow pair): exit 1 with every node OK */
	const char *warn = "{\"schema\":\"rdma-doctor/pairs/v1\",\"findings\":[{\"id\":\"pairs.link\",\"status\":\"WARN\","
			   "\"host\":\"n1\",\"peer\":\"n2\",\"gbps\":100}],\"hosts\":{\"bad\":\"\"}}";
	CHECK_INT(rd_fleet_pairs_parse(&p, warn, strlen(warn), err, sizeof err), 0);
	CHECK_INT(p.status, RD_FS_WARN);
	rd_fleet_init(&f, rd_fleet_parse_time(T1), 0);
	add(&f, "a", "n1", T0, "OK", "1", 9000);
	rd_fleet_set_pairs(&f, &p);
	rd_fleet_finish(&f);
	CHECK_INT(f.exit_code, 1);
	rd_fleet_free(&f);
}
