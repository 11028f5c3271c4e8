/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The link state file (model/state.c): round trip, the first format, the history's window, every
 * way a file can be wrong; the state directory's rules (run/statefile.c); the PCIe
 * speed and policy parsers of the link checks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/statefile.h"
#include "harness.h"
#include "model/link.h"
#include "model/policy.h"
#include "model/state.h"
#include "util/util.h"

static int parse(const char *text, struct rd_state *st, char *err, size_t len)
{
	return rd_state_parse(text, strlen(text), st, err, len);
}

RD_TEST(state_round_trip)
{
	struct rd_state st = {0}, back;
	strcpy(st.host, "gpu-a01");
	struct rd_state_sample *c = rd_state_add_sample(&st, RD_SAMPLE_COUNTERS, 1764457200,
							 "0d5c1c7e-22aa-4d0b-b7a1-6f1f9d3e8c42");
	rd_state_add(c, RD_STATE_COUNTER, "mlx5_0", 1, "link_downed", 3);
	rd_state_add(c, RD_STATE_HW, "mlx5_bond_0", 1, "rnr_nak_retry_err", 18446744073709551615ull);
	rd_state_add(c, RD_STATE_COUNTER, "bad name", 1, "x", 1); /* not storable: dropped */
	rd_state_add(c, RD_STATE_ETHTOOL, "mlx5_2", 1, "rx_prio3_pause", 41927); /* roce.congestion's ethtool -S */
	struct rd_state_sample *n = rd_state_add_sample(&st, RD_SAMPLE_CARRIER, 1764457200, "");
	rd_state_add(n, RD_STATE_NETDEV, "enp193s0f0np0", 0, "carrier_changes", 9);
	CHECK_INT((int)st.s[0].n, 3);
	char *text = rd_state_format(&st);
	CHECK(strstr(text, "\ne mlx5_2 1 rx_prio3_pause 41927\n") != NULL);
	CHECK(strstr(text, "rdma-doctor-link-state 2\nhost gpu-a01\nsample counters 1764457200 0d5c1c7e-") == text);
	CHECK(strstr(text, "\nsample carrier 1764457200 -\nn enp193s0f0np0 carrier_changes 9\n") != NULL);
	char err[256] = "";
	CHECK_INT(parse(text, &back, err, sizeof err), 0);
	CHECK_STR(back.host, "gpu-a01");
	CHECK_INT(back.version, 2);
	CHECK_INT((int)back.ns, 2);
	CHECK_STR(back.s[0].boot_id, "0d5c1c7e-22aa-4d0b-b7a1-6f1f9d3e8c42");
	CHECK_STR(back.s[1].boot_id, "");
	CHECK(back.s[0].time == 1764457200);
	const struct rd_state_entry *e = rd_state_find(&back.s[0], RD_STATE_HW, "mlx5_bond_0", 1, "rnr_nak_retry_err");
	CHECK(e && e->value == 18446744073709551615ull);
	e = rd_state_find(&back.s[0], RD_STATE_ETHTOOL, "mlx5_2", 1, "rx_prio3_pause");
	CHECK(e && e->value == 41927);
	CHECK(rd_state_find(&back.s[0], RD_STATE_HW, "mlx5_2", 1, "rx_prio3_pause") == NULL);
	e = rd_state_find(&back.s[1], RD_STATE_NETDEV, "enp193s0f0np0", 0, "carrier_changes");
	CHECK(e && e->value == 9);
	CHECK(rd_state_find(&back.s[0], RD_STATE_COUNTER, "mlx5_0", 2, "link_downed") == NULL);
	free(text);
	rd_state_free(&back);
	rd_state_free(&st);
}

RD_TEST(state_version_1_is_read)
{
	/* a file of the first format is one sample: its c/h lines at time, its n lines at ntime */
	struct rd_state st;
	char err[256] = "";
	CHECK_INT(parse("rdma-doctor-link-state 1\nhost h\nboot_id b1\ntime 1764460800\nntime 1764457200\n"
			"c mlx5_0 1 link_downed 2\nn ib0 carrier_changes 4\nh mlx5_0 1 rnr_nak_retry_err 1\n",
			&st, err, sizeof err),
		  0);
	CHECK_INT(st.version, 1);
	CHECK_INT((int)st.ns, 2);
	CHECK_INT(st.s[0].kind, RD_SAMPLE_CARRIER); /* oldest first */
	CHECK(st.s[0].time == 1764457200 && st.s[1].time == 1764460800);
	CHECK_STR(st.s[1].boot_id, "b1");
	CHECK_INT((int)st.s[1].n, 2);
	CHECK(rd_state_find(&st.s[0], RD_STATE_NETDEV, "ib0", 0, "carrier_changes")->value == 4);
	rd_state_free(&st);
	/* no ntime: both at time; no n lines: one sample */
	CHECK_INT(parse("rdma-doctor-link-state 1\nhost h\nboot_id -\ntime 5\nc mlx5_0 1 link_downed 2\n", &st, err,
			sizeof err),
		  0);
	CHECK_INT((int)st.ns, 1);
	CHECK(st.s[0].time == 5 && st.s[0].kind == RD_SAMPLE_COUNTERS);
	rd_state_free(&st);
	CHECK_INT(parse("rdma-doctor-link-state 1\nhost h\nboot_id -\ntime 1\nntime 2\nntime 3\n", &st, err, sizeof err),
		  -1);
	CHECK(strstr(err, "line 6") != NULL);
}

static struct rd_state_sample one(int kind, long long t, const char *boot, uint64_t v)
{
	struct rd_state tmp = {0};
	struct rd_state_sample *s = rd_state_add_sample(&tmp, kind, t, boot);
	if (kind == RD_SAMPLE_COUNTERS)
		rd_state_add(s, RD_STATE_COUNTER, "mlx5_0", 1, "link_downed", v);
	else
		rd_state_add(s, RD_STATE_NETDEV, "ib0", 0, "carrier_changes", v);
	struct rd_state_sample r = *s;
	free(tmp.s);
	return r;
}

RD_TEST(state_baseline_window)
{
	const long long W = 3600, T = 1764460800;
	struct rd_state st = {0};
	struct rd_baseline b;
	rd_state_baseline(&st, RD_SAMPLE_COUNTERS, "b", T, W, &b);
	CHECK_INT(b.why, RD_BASE_NONE);
	/* samples every 5 minutes for 3 hours: the newest at or before T - W is the baseline */
	for (long long t = T - 3 * W; t <= T; t += 300) {
		struct rd_state_sample s = one(RD_SAMPLE_COUNTERS, t, "b", (uint64_t)(t >= T - 600));
		rd_state_record(&st, &s, t, W);
	}
	size_t nc = 0;
	for (size_t i = 0; i < st.ns; i++)
		nc += st.s[i].kind == RD_SAMPLE_COUNTERS;
	CHECK(nc <= RD_STATE_MAX_SAMPLES);
	CHECK(st.s[0].time == T - W); /* nothing older than the baseline is kept */
	/* a run a minute later, and another 20 minutes later, compare with the same sample: a rise
	 * ten minutes ago is seen by both */
	rd_state_baseline(&st, RD_SAMPLE_COUNTERS, "b", T + 60, W, &b);
	CHECK_INT(b.why, RD_BASE_FOUND);
	CHECK(b.s->time <= T + 60 - W && b.s->time >= T + 60 - W - 600);
	CHECK(b.s->e[0].value == 0);
	rd_state_baseline(&st, RD_SAMPLE_COUNTERS, "b", T + 1200, W, &b);
	CHECK_INT(b.why, RD_BASE_FOUND);
	CHECK(b.s->e[0].value == 0);
	/* the other kind has no sample; another boot, a later clock, an old history */
	rd_state_baseline(&st, RD_SAMPLE_CARRIER, "b", T, W, &b);
	CHECK_INT(b.why, RD_BASE_NONE);
	rd_state_baseline(&st, RD_SAMPLE_COUNTERS, "other", T, W, &b);
	CHECK_INT(b.why, RD_BASE_BOOT);
	CHECK_STR(b.newest->boot_id, "b");
	rd_state_baseline(&st, RD_SAMPLE_COUNTERS, "b", T - 4 * W, W, &b);
	CHECK_INT(b.why, RD_BASE_FUTURE);
	rd_state_baseline(&st, RD_SAMPLE_COUNTERS, "b", T + 3 * W, W, &b);
	CHECK_INT(b.why, RD_BASE_OLD);
	/* within the window with no sample before it: the oldest one in it */
	struct rd_state young = {0};
	struct rd_state_sample s1 = one(RD_SAMPLE_COUNTERS, T - 600, "b", 1), s2 = one(RD_SAMPLE_COUNTERS, T - 300, "b", 2);
	rd_state_record(&young, &s1, T - 600, W);
	rd_state_record(&young, &s2, T - 300, W);
	rd_state_baseline(&young, RD_SAMPLE_COUNTERS, "b", T, W, &b);
	CHECK(b.why == RD_BASE_FOUND && b.s->time == T - 600);
	/* a carrier sample does not move the counters' history, and a new boot drops the old one */
	struct rd_state_sample n1 = one(RD_SAMPLE_CARRIER, T, "b", 7), c3 = one(RD_SAMPLE_COUNTERS, T, "b2", 0);
	rd_state_record(&young, &n1, T, W);
	CHECK_INT((int)young.ns, 3);
	rd_state_record(&young, &c3, T, W);
	CHECK_INT((int)young.ns, 2);
	char *text = rd_state_format(&young);
	struct rd_state back;
	char err[256];
	CHECK_INT(parse(text, &back, err, sizeof err), 0);
	CHECK_INT((int)back.ns, 2);
	rd_state_free(&back);
	free(text);
	rd_state_free(&young);
	rd_state_free(&st);
}

RD_TEST(state_bad_files)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{"", "empty"},
		{"hello\n", "not a link state file"},
		{"rdma-doctor-link-state 3\nhost h\nboot_id -\ntime 1\n", "not a link state file"},
		{"rdma-doctor-link-state 2\nhost h\nboot_id -\n", "line 3"},
		{"rdma-doctor-link-state 2\nhost h\nc mlx5_0 1 link_downed 1\n", "line 3: an entry before"},
		{"rdma-doctor-link-state 2\nhost h\nsample counters 5 -\nn ib0 carrier_changes 1\n", "line 4"},
		{"rdma-doctor-link-state 2\nhost h\nsample carrier 5 -\nc mlx5_0 1 link_downed 1\n", "line 4"},
		{"rdma-doctor-link-state 2\nhost h\nsample carrier 5 -\ne mlx5_2 1 rx_prio3_pause 1\n", "line 4"},
		{"rdma-doctor-link-state 2\nhost h\nsample counters 5 -\ne enp193s0f0np0 rx_prio3_pause 1\n", "line 4"},
		{"rdma-doctor-link-state 2\nhost h\nsample counters 5 -\nsample counters 4 -\n", "out of order"},
		{"rdma-doctor-link-state 2\nhost h\nsample other 5 -\n", "line 3"},
		{"rdma-doctor-link-state 2\nsample counters 5 -\n", "host missing"},
		{"rdma-doctor-link-state 1\nhost h\nboot_id -\n", "missing"},
		{"rdma-doctor-link-state 1\nhost h\nboot_id -\ntime 1\nc mlx5_0 1 link_downed", "line 5"},
		{"rdma-doctor-link-state 1\nhost h\nboot_id -\ntime 1\nc mlx5_0 0 link_downed 1\n", "line 5"},
		{"rdma-doctor-link-state 1\nhost h\nboot_id -\ntime 1\nc mlx5_0 1 link_downed -1\n", "line 5"},
		{"rdma-doctor-link-state 1\nhost h\nboot_id -\ntime 1\nc mlx5_0 1 link_downed 18446744073709551616\n", "line 5"},
		{"rdma-doctor-link-state 1\nhost h\nboot_id -\ntime 1\nc ../etc 1 x 1\n", "line 5"},
		{"rdma-doctor-link-state 1\nhost h\nboot_id -\ntime 99999999999999\n", "line 4"},
		{"rdma-doctor-link-state 1\nhost h\nhost h2\nboot_id -\ntime 1\n", "line 3"},
		{"rdma-doctor-link-state 1\nhost h\nboot_id -\ntime 1\nz 1 2 3 4\n", "line 5"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rd_state st;
		char err[256] = "";
		CHECK_INT(parse(bad[i].text, &st, err, sizeof err), -1);
		CHECK(strstr(err, bad[i].why) != NULL);
		CHECK_INT((int)st.ns, 0);
	}
	/* NUL bytes and a file past the cap */
	struct rd_state st;
	char err[256] = "";
	CHECK_INT(rd_state_parse("rdma-doctor-link-state 1\n\0x\n", 27, &st, err, sizeof err), -1);
	CHECK(strstr(err, "NUL") != NULL);
	size_t big = RD_STATE_MAX_BYTES + 1;
	char *huge = malloc(big);
	memset(huge, '#', big);
	CHECK_INT(rd_state_parse(huge, big, &st, err, sizeof err), -1);
	CHECK(strstr(err, "larger") != NULL);
	free(huge);
}

RD_TEST(state_file_name_is_safe)
{
	char buf[512];
	CHECK_STR(rd_state_file_name("gpu-a01", buf, sizeof buf), "gpu-a01.link-state");
	CHECK_STR(rd_state_file_name("../../etc/passwd", buf, sizeof buf), "_._.._etc_passwd.link-state");
	CHECK_STR(rd_state_file_name("", buf, sizeof buf), "localhost.link-state");
	CHECK(strchr(rd_state_file_name("a/b c\n", buf, sizeof buf), '/') == NULL);
}

RD_TEST(pcie_speed_strings)
{
	CHECK(rd_parse_pcie_speed("2.5 GT/s PCIe") == 2.5);
	CHECK(rd_parse_pcie_speed("32.0 GT/s PCIe") == 32.0);
	CHECK(rd_parse_pcie_speed("8 GT/s") == 8.0); /* older kernels */
	CHECK(rd_parse_pcie_speed("Unknown") == 0);
	CHECK(rd_parse_pcie_speed("Unknown speed") == 0);
	CHECK(rd_parse_pcie_speed("") == 0);
	CHECK(rd_parse_pcie_speed(NULL) == 0);
}

RD_TEST(policy_link_keys)
{
	struct rd_policy p;
	char err[256] = "";
	rd_policy_defaults(&p);
	CHECK(p.counters_window_s == 3600);
	CHECK_INT(rd_policy_parse("[counters]\nexclude = mlx5_4 mlx5_5\nsymbol_error_per_hour = 500\nwindow = 90m\n"
				  "[pcie]\nmin_width = 16\nmin_speed = 32.0 GT/s\n"
				  "[ports]\ndata_ports = mlx5_0:3,6,9,12 mlx5_1:3\nmanagement = compute\n",
				  "t.conf", &p, err, sizeof err),
		  0);
	CHECK(rd_strv_contains(&p.counters_exclude, "mlx5_5"));
	CHECK(p.counters_fail_per_hour[0] == 500);
	CHECK(p.counters_window_s == 5400);
	CHECK_INT((int)p.pcie_min_width, 16);
	CHECK(p.pcie_min_speed == 32.0);
	CHECK(p.management_is_compute);
	bool listed;
	CHECK(rd_policy_data_port(&p, "mlx5_0", 9, &listed) && listed);
	CHECK(!rd_policy_data_port(&p, "mlx5_0", 1, &listed) && listed);
	CHECK(!rd_policy_data_port(&p, "mlx5_10", 3, &listed) && !listed);
	rd_policy_free(&p);
	static const char *const bad[] = {"[pcie]\nmin_width = 12\n", "[pcie]\nmin_speed = fast\n",
					  "[ports]\ndata_ports = mlx5_0\n", "[ports]\ndata_ports = mlx5_0:3,,6\n",
					  "[counters]\nport_rcv_errors_per_hour = -1\n", "[ports]\nmanagement = maybe\n",
					  "[counters]\nwindow = 10s\n", "[counters]\nwindow = 1x\n", "[counters]\nwindow = 31d\n"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		rd_policy_defaults(&p);
		CHECK_INT(rd_policy_parse(bad[i], "t.conf", &p, err, sizeof err), -1);
		CHECK(strstr(err, "t.conf:") == err);
		rd_policy_free(&p);
	}
}

/* the state directory (run/statefile.c): one descriptor through a link, the ownership rule, the lock */
RD_TEST(statefile_dir_rules)
{
	char tmpl[512];
	char *top = rd_test_mkdtemp(tmpl, sizeof tmpl, "rd-test-state");
	CHECK(top != NULL);
	if (!top)
		return;
	chmod(top, 0755);
	char *real = rd_path_join(top, "real"), *link = rd_path_join(top, "link"), *lfile = NULL;
	CHECK_INT(mkdir(real, 0755), 0);
	CHECK_INT(symlink("real", link), 0);
	struct rd_statefile a, b;
	char err[512] = "";
	/* through a link: read and written in the directory it names */
	CHECK_INT(rd_statefile_open(&a, link, "h", true, err, sizeof err), 0);
	CHECK_INT(rd_statefile_lock(&a, 1, err, sizeof err), 0);
	struct rd_state st = {0}, back;
	strcpy(st.host, "h");
	rd_state_add(rd_state_add_sample(&st, RD_SAMPLE_COUNTERS, 5, "b"), RD_STATE_COUNTER, "mlx5_0", 1, "link_downed", 1);
	CHECK_INT(rd_statefile_write(&a, &st, err, sizeof err), 0);
	/* while a holds the lock, another writer and a reader wait, then give up */
	CHECK_INT(rd_statefile_open(&b, real, "h", true, err, sizeof err), 0);
	CHECK_INT(rd_statefile_lock(&b, 0.05, err, sizeof err), -EWOULDBLOCK);
	CHECK(strstr(err, "another run held the lock") != NULL);
	CHECK_INT(rd_statefile_write(&b, &st, err, sizeof err), -ENOLCK);
	rd_statefile_close(&b);
	CHECK_INT(rd_statefile_open(&b, real, "h", false, err, sizeof err), 0);
	CHECK_INT(rd_statefile_lock(&b, 0.05, err, sizeof err), -EWOULDBLOCK);
	CHECK_INT(rd_statefile_read(&b, &back, err, sizeof err), 1); /* still read: a write is a rename */
	CHECK_INT((int)back.ns, 1);
	rd_state_free(&back);
	rd_statefile_close(&b);
	rd_statefile_close(&a);
	lfile = rd_path_join(real, "h.link-state");
	struct stat sb;
	CHECK_INT(lstat(lfile, &sb), 0);
	/* a reader takes the lock shared: two at once */
	CHECK_INT(rd_statefile_open(&a, real, "h", false, err, sizeof err), 0);
	CHECK_INT(rd_statefile_lock(&a, 0.05, err, sizeof err), 0);
	CHECK_INT(rd_statefile_open(&b, real, "h", false, err, sizeof err), 0);
	CHECK_INT(rd_statefile_lock(&b, 0.05, err, sizeof err), 0);
	rd_statefile_close(&b);
	rd_statefile_close(&a);
	/* refused: a directory others can write, a state file another user owns */
	CHECK_INT(chmod(real, 0777), 0);
	CHECK_INT(rd_statefile_open(&a, real, "h", false, err, sizeof err), -EPERM);
	CHECK(strstr(err, "writable by others (mode 0777)") != NULL);
	rd_statefile_close(&a);
	CHECK_INT(chmod(real, 0755), 0);
	if (geteuid() == 0 && chown(lfile, 65534, 65534) == 0) {
		CHECK_INT(rd_statefile_open(&a, real, "h", false, err, sizeof err), 0);
		CHECK_INT(rd_statefile_read(&a, &back, err, sizeof err), -EPERM);
		CHECK(strstr(err, "owned by uid 65534") != NULL);
		rd_statefile_close(&a);
		CHECK_INT(chown(real, 65534, 65534), 0);
		CHECK_INT(rd_statefile_open(&a, real, "h", false, err, sizeof err), -EPERM);
		CHECK(strstr(err, "refused: owned by uid 65534") != NULL);
		rd_statefile_close(&a);
	}
	/* a link in place of the state file is neither followed nor replaced */
	unlink(lfile);
	CHECK_INT(symlink("/etc/passwd", lfile), 0);
	CHECK_INT(chown(real, 0, 0), 0);
	CHECK_INT(rd_statefile_open(&a, real, "h", true, err, sizeof err), 0);
	CHECK_INT(rd_statefile_lock(&a, 1, err, sizeof err), 0);
	CHECK_INT(rd_statefile_read(&a, &back, err, sizeof err), -ELOOP);
	CHECK_INT(rd_statefile_write(&a, &st, err, sizeof err), -ELOOP);
	rd_statefile_close(&a);
	CHECK_INT(lstat(lfile, &sb), 0);
	CHECK(S_ISLNK(sb.st_mode));
	rd_state_free(&st);
	char *lock = rd_path_join(real, "h.link-state.lock");
	unlink(lock);
	unlink(lfile);
	rmdir(real);
	unlink(link);
	rmdir(top);
	free(lock);
	free(lfile);
	free(real);
	free(link);
}
