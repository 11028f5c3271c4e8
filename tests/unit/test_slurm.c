/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor slurm`'s pure parts: the reason sanitiser, `scontrol show node -o` parsing (lines
 * as Slurm 22.05 prints them), and the drain/resume decision. */
#include <stdlib.h>
#include <string.h>

#include "cmd/slurm.h"
#include "harness.h"
#include "util/util.h"

static void clean_is(const char *in, size_t max, const char *want)
{
	char *got = rd_slurm_reason_clean(in, max);
	CHECK_STR(got, want);
	free(got);
}

RD_TEST(reason_control_characters)
{
	clean_is("a\tb\nc\r\nd", 100, "a b c d");     /* line breaks and tabs: one space */
	clean_is("bell\a esc\x1b[31mred\x1b[0m del\x7f", 100, "bell esc[31mred[0m del"); /* removed */
	clean_is("  lead and trail \n", 100, "lead and trail");
	clean_is("many     spaces", 100, "many spaces");
	clean_is("say \"hi\"", 100, "say 'hi'");    /* scontrol strips quotes at a value's ends */
	clean_is("caf\xc3\xa9 \xe2\x80\xa6 x", 100, "caf? ? x"); /* one '?' per UTF-8 character */
	clean_is("\x80\xbf stray", 100, "stray");   /* continuation bytes without a lead */
	/* a dash is a dash, as in the NPD line of the same finding */
	clean_is("no link \xe2\x80\x94 cable \xe2\x80\x93 or switch", 100, "no link - cable - or switch");
	clean_is("", 100, "");
	clean_is("\n\t", 100, "");
}

RD_TEST(reason_length_cut)
{
	char in[300];
	memset(in, 'x', sizeof in - 1);
	in[sizeof in - 1] = '\0';
	char *got = rd_slurm_reason_clean(in, RD_SLURM_REASON_MAX);
	CHECK_INT(strlen(got), RD_SLURM_REASON_MAX);
	CHECK(strcmp(got + RD_SLURM_REASON_MAX - 3, "...") == 0);
	for (size_t i = 0; i < RD_SLURM_REASON_MAX - 3; i++)
		CHECK(got[i] == 'x');
	free(got);
	clean_is("0123456789", 10, "0123456789"); /* exactly max: kept whole */
	clean_is("0123456789a", 10, "0123456...");
	clean_is("012345 789a", 10, "012345...");  /* no space before the marker */
	clean_is("0123\n\n\n\n\n\n\n56", 10, "0123 56"); /* cleaned first, then measured */
	/* every byte of the result is printable ASCII, whatever came in */
	char all[256];
	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	got = rd_slurm_reason_clean(all, 1000);
	for (const char *p = got; *p; p++)
		CHECK(*p >= 0x20 && *p < 0x7f && *p != '"');
	free(got);
}

RD_TEST(reason_ours)
{
	CHECK(rd_slurm_reason_ours("rdma-doctor: modules.loaded host: ib_umad not loaded"));
	CHECK(!rd_slurm_reason_ours("maintenance: swap PSU"));
	CHECK(!rd_slurm_reason_ours("NHC: rdma-doctor: x"));
	CHECK(!rd_slurm_reason_ours("rdma-doctor")); /* the prefix includes the colon */
	CHECK(!rd_slurm_reason_ours(NULL));
	/* a drain by pairs is not this host's checks' to lift */
	CHECK(!rd_slurm_reason_ours("rdma-doctor: pairs.bandwidth n3 rail mlx5_0: 120 Gb/s, peers median 388"));
	CHECK(rd_slurm_reason_pairs("rdma-doctor: pairs.bandwidth n3 rail mlx5_0: 120 Gb/s, peers median 388"));
	CHECK(!rd_slurm_reason_pairs("rdma-doctor: ports.state mlx5_0 port 1: Down"));
	CHECK(!rd_slurm_reason_pairs("pairs.bandwidth n3"));
}

#define LINE_HEAD                                                                                      \
	"NodeName=localhost Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=8.37 "  \
	"AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=localhost NodeHostName=localhost " \
	"Version=22.05.8 OS=Linux 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0  RealMemory=1000 AllocMem=0 "      \
	"FreeMem=20977 Sockets=2 Boards=1 "
#define LINE_TAIL                                                                                      \
	" ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug  "                  \
	"BootTime=2026-12-01T06:42:15 SlurmdStartTime=2026-12-01T07:29:22 CfgTRES=cpu=2,mem=1000M,billing=2 " \
	"AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s"

RD_TEST(parse_show_node)
{
	struct rd_slurm_node n;
	/* a real 22.05.8 line, drained by an admin, with quotes and '=' in the reason */
	CHECK_INT(rd_slurm_parse_node(LINE_HEAD "State=IDLE+DRAIN" LINE_TAIL
				      " Reason=maintenance: swap PSU \"x\" a=b [root@2026-12-01T07:29:31]\n",
				      &n),
		  0);
	CHECK_STR(n.name, "localhost");
	CHECK_STR(n.state, "IDLE+DRAIN");
	CHECK_STR(n.reason, "maintenance: swap PSU \"x\" a=b");
	CHECK(n.drained && n.out_of_service);
	rd_slurm_node_free(&n);

	/* idle, no reason; a warning line before the record is skipped */
	CHECK_INT(rd_slurm_parse_node("scontrol: warning: something\n" LINE_HEAD "State=IDLE" LINE_TAIL "\n", &n), 0);
	CHECK_STR(n.state, "IDLE");
	CHECK(n.reason == NULL && !n.drained && !n.out_of_service);
	rd_slurm_node_free(&n);

	/* fields after the reason (Comment=), a " [" inside the reason */
	CHECK_INT(rd_slurm_parse_node(LINE_HEAD "State=MIXED+DRAIN" LINE_TAIL
				      " Reason=rdma-doctor: a [b] c [slurm@2026-12-01T07:29:31] Comment=x",
				      &n),
		  0);
	CHECK_STR(n.reason, "rdma-doctor: a [b] c");
	CHECK(n.drained);
	rd_slurm_node_free(&n);

	/* only Slurm's own suffix, the last one, is cut: a reason holding " [u@1] " (from a subject)
	 * or a whole stamp keeps it, so it compares equal to the reason that was set */
	CHECK_INT(rd_slurm_parse_node(LINE_HEAD "State=IDLE+DRAIN" LINE_TAIL
				      " Reason=rdma-doctor: ports.state mx [u@1] y port 1: down [root@2026-12-01T07:29:31]\n",
				      &n),
		  0);
	CHECK_STR(n.reason, "rdma-doctor: ports.state mx [u@1] y port 1: down");
	rd_slurm_node_free(&n);
	CHECK_INT(rd_slurm_parse_node(LINE_HEAD "State=IDLE+DRAIN" LINE_TAIL
				      " Reason=a [u@2026-12-01T07:29:31] b [slurm@2026-12-01T07:29:32]",
				      &n),
		  0);
	CHECK_STR(n.reason, "a [u@2026-12-01T07:29:31] b");
	rd_slurm_node_free(&n);
	/* no stamp (a reason with no time): nothing is cut; a stamp of another form is text */
	CHECK_INT(rd_slurm_parse_node("NodeName=x State=DRAIN Reason=x [u@1] y [u@1]", &n), 0);
	CHECK_STR(n.reason, "x [u@1] y [u@1]");
	rd_slurm_node_free(&n);
	CHECK_INT(rd_slurm_parse_node("NodeName=x State=DRAIN Reason=(n [root@2026-12-01T07:29:31]", &n), 0);
	CHECK_STR(n.reason, "(n");
	rd_slurm_node_free(&n);
	CHECK_INT(rd_slurm_parse_node("NodeName=x State=DRAIN Reason=(null)", &n), 0);
	CHECK(n.reason == NULL);
	rd_slurm_node_free(&n);

	/* down and not responding: out of service but not drained */
	CHECK_INT(rd_slurm_parse_node(LINE_HEAD "State=DOWN+NOT_RESPONDING" LINE_TAIL
				      " Reason=Not responding [slurm@2026-12-01T07:29:31]",
				      &n),
		  0);
	CHECK(!n.drained && n.out_of_service);
	CHECK_STR(n.reason, "Not responding");
	rd_slurm_node_free(&n);

	/* older and sinfo-like spellings */
	static const char *const drained[] = {"DRAINED", "DRAINING", "drain", "IDLE+DRAIN*", "DOWN*+DRAIN"};
	for (size_t i = 0; i < sizeof drained / sizeof drained[0]; i++) {
		char *line = rd_xasprintf("NodeName=x State=%s Reason=r", drained[i]);
		CHECK_INT(rd_slurm_parse_node(line, &n), 0);
		CHECK(n.drained);
		rd_slurm_node_free(&n);
		free(line);
	}
	/* ALLOCATED, COMPLETING, DRAINAGE-like names are not drained */
	CHECK_INT(rd_slurm_parse_node("NodeName=x State=ALLOCATED+COMPLETING", &n), 0);
	CHECK(!n.drained && !n.out_of_service);
	rd_slurm_node_free(&n);

	/* not a node record */
	CHECK_INT(rd_slurm_parse_node("Node nosuch not found\n", &n), -1);
	CHECK_INT(rd_slurm_parse_node("", &n), -1);
	CHECK_INT(rd_slurm_parse_node("NodeName=x Arch=x86_64", &n), -1);
	CHECK_INT(rd_slurm_parse_node("NodeName=x MyState=IDLE", &n), -1);
}

RD_TEST(decide)
{
	const char *ours = "rdma-doctor: modules.loaded host: ib_umad not loaded";
	struct rd_slurm_node idle = {.state = (char[]){"IDLE"}};
	struct rd_slurm_node by_us = {.state = (char[]){"IDLE+DRAIN"}, .reason = (char[]){"rdma-doctor: old"},
				      .drained = true, .out_of_service = true};
	struct rd_slurm_node same = by_us;
	same.reason = (char[]){"rdma-doctor: modules.loaded host: ib_umad not loaded"};
	struct rd_slurm_node admin = {.state = (char[]){"IDLE+DRAIN"}, .reason = (char[]){"maintenance: swap PSU"},
				      .drained = true, .out_of_service = true};
	struct rd_slurm_node down = {.state = (char[]){"DOWN"}, .reason = (char[]){"Not responding"},
				     .out_of_service = true};
	struct rd_slurm_node stale = {.state = (char[]){"IDLE"}, .reason = (char[]){"old note"}};

	CHECK_INT(rd_slurm_decide(RD_SLURM_UNHEALTHY, &idle, ours), RD_SLURM_DRAIN);
	CHECK_INT(rd_slurm_decide(RD_SLURM_UNHEALTHY, &by_us, ours), RD_SLURM_DRAIN); /* our reason, updated */
	CHECK_INT(rd_slurm_decide(RD_SLURM_UNHEALTHY, &same, ours), RD_SLURM_NOTHING);
	CHECK_INT(rd_slurm_decide(RD_SLURM_UNHEALTHY, &admin, ours), RD_SLURM_KEEP_FOREIGN);
	CHECK_INT(rd_slurm_decide(RD_SLURM_UNHEALTHY, &down, ours), RD_SLURM_KEEP_FOREIGN);
	CHECK_INT(rd_slurm_decide(RD_SLURM_UNHEALTHY, &stale, ours), RD_SLURM_DRAIN); /* in service: drain */

	CHECK_INT(rd_slurm_decide(RD_SLURM_HEALTHY, &idle, NULL), RD_SLURM_NOTHING);
	CHECK_INT(rd_slurm_decide(RD_SLURM_HEALTHY, &by_us, NULL), RD_SLURM_RESUME);
	CHECK_INT(rd_slurm_decide(RD_SLURM_HEALTHY, &admin, NULL), RD_SLURM_NOTHING); /* never resume theirs */
	CHECK_INT(rd_slurm_decide(RD_SLURM_HEALTHY, &down, NULL), RD_SLURM_NOTHING);

	struct rd_slurm_node by_pairs = {.state = (char[]){"IDLE+DRAIN"},
					 .reason = (char[]){"rdma-doctor: pairs.bandwidth n3 rail mlx5_0: 120 Gb/s"},
					 .drained = true, .out_of_service = true};
	CHECK_INT(rd_slurm_decide(RD_SLURM_HEALTHY, &by_pairs, NULL), RD_SLURM_NOTHING); /* not resumed */
	CHECK_INT(rd_slurm_decide(RD_SLURM_UNHEALTHY, &by_pairs, ours), RD_SLURM_KEEP_FOREIGN); /* nor replaced */

	CHECK_INT(rd_slurm_decide(RD_SLURM_UNKNOWN, &idle, NULL), RD_SLURM_KEEP_UNKNOWN);
	CHECK_INT(rd_slurm_decide(RD_SLURM_UNKNOWN, &by_us, NULL), RD_SLURM_KEEP_UNKNOWN);
}
