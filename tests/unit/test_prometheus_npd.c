/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Unit tests of the Prometheus label escaping (render/prometheus.c) and the NPD line
 * (render/npd.c): escaping of hostile bytes, one series per (check, subject) with the worst
 * status, the line's length, characters and exit status. */
#include <stdlib.h>

#include "harness.h"
#include "render/npd.h"
#include "render/prometheus.h"

static char *label(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	rd_prom_label_value(f, s);
	fclose(f);
	return buf;
}

RD_TEST(label_escapes_backslash_quote_newline)
{
	char *v = label("a\\b\"c\nd");
	CHECK_STR(v, "a\\\\b\\\"c\\nd");
	free(v);
}

RD_TEST(label_invalid_utf8_and_controls_become_replacement)
{
	char *v = label("x\xff" "y\x01z\xc3\xa9\xe2\x82" "\xed\xa0\x80");
	/* \xff, \x01, the cut sequence \xe2\x82 and the surrogate (three bytes) each become U+FFFD per byte */
	CHECK_STR(v, "x\xef\xbf\xbdy\xef\xbf\xbdz\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(v);
	v = label(NULL);
	CHECK_STR(v, "");
	free(v);
}

static char *render(const struct rd_report *r, bool no_hw)
{
	struct rd_host h = {0};
	struct rd_system s = {0};
	struct rd_report_meta m = {.time = "2025-12-01T00:00:00Z", .no_hardware = no_hw};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	rd_report_prometheus(f, r, &h, &s, &m, 1764460800);
	fclose(f);
	return buf;
}

RD_TEST(prometheus_one_series_per_check_subject_worst_wins_skip_left_out)
{
	struct rd_report r = {0};
	rd_report_add(&r, "kernel.log", RD_SUBJ_LOG, RD_WARN, "host", "one");
	rd_report_add(&r, "kernel.log", RD_SUBJ_LOG, RD_OK, "host", "two");
	rd_report_add(&r, "kernel.log", RD_SUBJ_LOG, RD_FAIL, "host", "three");
	rd_report_add(&r, "ports.state", RD_SUBJ_PORT, RD_SKIP, "mlx5_0 port 1", "ignored");
	rd_report_add(&r, "ports.state", RD_SUBJ_PORT, RD_UNKNOWN, "mlx5_1 port 1", "unreadable");
	char *out = render(&r, false);
	CHECK(strstr(out, "rdma_doctor_check_status{check=\"kernel.log\",subject=\"host\"} 2\n"));
	CHECK(!strstr(out, "mlx5_0 port 1"));
	CHECK(strstr(out, "rdma_doctor_check_status{check=\"ports.state\",subject=\"mlx5_1 port 1\"} 3\n"));
	CHECK(strstr(out, "rdma_doctor_findings{status=\"SKIP\"} 1\n"));
	CHECK(strstr(out, "rdma_doctor_status 2\n"));
	CHECK(strstr(out, "rdma_doctor_last_run_timestamp_seconds 1764460800\n"));
	/* kernel.log/host appears once */
	const char *first = strstr(out, "check=\"kernel.log\"");
	CHECK(first && !strstr(first + 1, "check=\"kernel.log\""));
	free(out);
	rd_report_free(&r);
}

RD_TEST(prometheus_no_hardware_is_unknown)
{
	struct rd_report r = {0};
	char *out = render(&r, true);
	CHECK(strstr(out, "rdma_doctor_status 3\n"));
	CHECK(strstr(out, "rdma_doctor_rdma_hardware 0\n"));
	free(out);
}

RD_TEST(npd_sanitise_ascii_blanks_and_cut)
{
	char line[RD_NPD_LINE_MAX + 1];
	rd_npd_sanitise(line, sizeof line, "  a\tb\n\nc \xc3\xa9\x1b d \xe2\x80\x94 e  ");
	CHECK_STR(line, "a b c ?? d - e");
	char longs[300];
	memset(longs, 'x', sizeof longs - 1);
	longs[sizeof longs - 1] = '\0';
	rd_npd_sanitise(line, sizeof line, longs);
	CHECK(strlen(line) == RD_NPD_LINE_MAX);
	CHECK(strcmp(line + RD_NPD_LINE_MAX - 3, "...") == 0);
	memset(longs, 'y', RD_NPD_LINE_MAX);
	longs[RD_NPD_LINE_MAX] = '\0';
	rd_npd_sanitise(line, sizeof line, longs); /* exactly 80: not cut */
	CHECK(strlen(line) == RD_NPD_LINE_MAX && line[RD_NPD_LINE_MAX - 1] == 'y');
	char small[8];
	rd_npd_sanitise(small, sizeof small, "abcdefghij");
	CHECK_STR(small, "abcd...");
}

RD_TEST(npd_exit_status_and_worst_finding)
{
	char line[RD_NPD_LINE_MAX + 1];
	struct rd_report_meta m = {0};
	struct rd_report r = {0};
	rd_report_add(&r, "stack.flavor", RD_SUBJ_HOST, RD_OK, "host", "fine");
	CHECK(rd_report_npd(&r, &m, line, sizeof line) == 0);
	CHECK_STR(line, "OK: rdma-doctor found no problem");
	rd_report_add(&r, "ports.state", RD_SUBJ_PORT, RD_UNKNOWN, "mlx5_1 port 1", "cannot read");
	CHECK(rd_report_npd(&r, &m, line, sizeof line) == 3);
	CHECK_STR(line, "UNKNOWN ports.state mlx5_1 port 1: cannot read");
	rd_report_add(&r, "firmware.uniform", RD_SUBJ_DEVICE, RD_WARN, "mlx5_1", "older");
	CHECK(rd_report_npd(&r, &m, line, sizeof line) == 0); /* a WARN is OK for NPD, with its message */
	CHECK_STR(line, "WARN firmware.uniform mlx5_1: older");
	rd_report_add(&r, "ports.state", RD_SUBJ_PORT, RD_FAIL, "mlx5_2 port 1", "Polling: %s", "no link \xe2\x80\x94 cable");
	rd_report_add(&r, "modules.loaded", RD_SUBJ_MODULE, RD_FAIL, "ib_umad", "%0200d", 7);
	CHECK(rd_report_npd(&r, &m, line, sizeof line) == 1);
	CHECK_STR(line, "FAIL ports.state mlx5_2 port 1: Polling: no link - cable (+1 more)");
	rd_report_free(&r);
	struct rd_report r2 = {0};
	rd_report_add(&r2, "modules.loaded", RD_SUBJ_MODULE, RD_FAIL, "ib_umad", "%0200d", 7);
	rd_report_add(&r2, "devnodes.present", RD_SUBJ_DEVNODE, RD_FAIL, "umad", "x");
	CHECK(rd_report_npd(&r2, &m, line, sizeof line) == 1);
	CHECK(strlen(line) == RD_NPD_LINE_MAX);
	CHECK(strstr(line, "... (+1 more)") == line + RD_NPD_LINE_MAX - strlen("... (+1 more)"));
	rd_report_free(&r2);
	m.no_hardware = true;
	struct rd_report empty = {0};
	CHECK(rd_report_npd(&empty, &m, line, sizeof line) == 3);
	CHECK_STR(line, "UNKNOWN: no RDMA hardware on this host");
}
