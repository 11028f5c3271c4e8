/* The link state file (model/state.c): round trip, then every way a file can be wrong; the PCIe
 * speed and policy parsers of the link checks. */
#include <stdlib.h>
#include <string.h>

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
	strcpy(st.boot_id, "0d5c1c7e-22aa-4d0b-b7a1-6f1f9d3e8c42");
	st.time = 1764457200;
	rd_state_add(&st, RD_STATE_COUNTER, "mlx5_0", 1, "link_downed", 3);
	rd_state_add(&st, RD_STATE_HW, "mlx5_bond_0", 1, "rnr_nak_retry_err", 18446744073709551615ull);
	rd_state_add(&st, RD_STATE_NETDEV, "enp193s0f0np0", 0, "carrier_changes", 9);
	rd_state_add(&st, RD_STATE_COUNTER, "bad name", 1, "x", 1); /* not storable: dropped */
	CHECK_INT((int)st.n, 3);
	char *text = rd_state_format(&st);
	char err[256] = "";
	CHECK_INT(parse(text, &back, err, sizeof err), 0);
	CHECK_STR(back.host, "gpu-a01");
	CHECK_STR(back.boot_id, st.boot_id);
	CHECK(back.time == 1764457200);
	CHECK_INT((int)back.n, 3);
	const struct rd_state_entry *e = rd_state_find(&back, RD_STATE_HW, "mlx5_bond_0", 1, "rnr_nak_retry_err");
	CHECK(e && e->value == 18446744073709551615ull);
	e = rd_state_find(&back, RD_STATE_NETDEV, "enp193s0f0np0", 0, "carrier_changes");
	CHECK(e && e->value == 9);
	CHECK(rd_state_find(&back, RD_STATE_COUNTER, "mlx5_0", 2, "link_downed") == NULL);
	free(text);
	rd_state_free(&back);
	rd_state_free(&st);
	/* an unknown boot_id is written "-" and read back as "" */
	struct rd_state u = {0};
	strcpy(u.host, "h");
	text = rd_state_format(&u);
	CHECK(strstr(text, "boot_id -\n") != NULL);
	CHECK_INT(parse(text, &back, err, sizeof err), 0);
	CHECK_STR(back.boot_id, "");
	rd_state_free(&back);
	free(text);
}

RD_TEST(state_ntime)
{
	/* the n lines' own time: written only when it differs, read back, else the file's time */
	struct rd_state st = {0}, back;
	char err[256] = "";
	strcpy(st.host, "h");
	st.time = st.ntime = 1764460800;
	char *text = rd_state_format(&st);
	CHECK(strstr(text, "ntime") == NULL);
	CHECK_INT(parse(text, &back, err, sizeof err), 0);
	CHECK(back.ntime == 1764460800);
	rd_state_free(&back);
	free(text);
	st.ntime = 1764457200;
	text = rd_state_format(&st);
	CHECK(strstr(text, "\nntime 1764457200\n") != NULL);
	CHECK_INT(parse(text, &back, err, sizeof err), 0);
	CHECK(back.time == 1764460800 && back.ntime == 1764457200);
	rd_state_free(&back);
	free(text);
	CHECK_INT(parse("rdma-doctor-link-state 1\nhost h\nboot_id -\ntime 1\nntime 2\nntime 3\n", &back, err,
			sizeof err), -1);
	CHECK(strstr(err, "line 6") != NULL);
}

RD_TEST(state_bad_files)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{"", "empty"},
		{"hello\n", "not a link state file"},
		{"rdma-doctor-link-state 2\nhost h\nboot_id -\ntime 1\n", "not a link state file"},
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
		CHECK_INT((int)st.n, 0);
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
	CHECK_INT(rd_policy_parse("[counters]\nexclude = mlx5_4 mlx5_5\nsymbol_error_per_hour = 500\n"
				  "[pcie]\nmin_width = 16\nmin_speed = 32.0 GT/s\n"
				  "[ports]\ndata_ports = mlx5_0:3,6,9,12 mlx5_1:3\nmanagement = compute\n",
				  "t.conf", &p, err, sizeof err),
		  0);
	CHECK(rd_strv_contains(&p.counters_exclude, "mlx5_5"));
	CHECK(p.counters_fail_per_hour[0] == 500);
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
					  "[counters]\nport_rcv_errors_per_hour = -1\n", "[ports]\nmanagement = maybe\n"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		rd_policy_defaults(&p);
		CHECK_INT(rd_policy_parse(bad[i], "t.conf", &p, err, sizeof err), -1);
		CHECK(strstr(err, "t.conf:") == err);
		rd_policy_free(&p);
	}
}
