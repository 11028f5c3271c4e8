/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Parsers against every format in ../shared/reference/rdma-host-facts.md, then malformed input. */
#include <errno.h>
#include <stdlib.h>

#include "harness.h"
#include "model/parse.h"
#include "util/util.h"

RD_TEST(rate_every_kernel_string)
{
	/* rate_show(): rate per lane (deci-Gb/s) x width, "%d%s Gb/sec (%dX%s)" */
	static const struct {
		const char *name;
		int deci;
	} speeds[] = {{"SDR", 25}, {"DDR", 50}, {"QDR", 100}, {"FDR10", 100}, {"FDR", 140},
		      {"EDR", 250}, {"HDR", 500}, {"NDR", 1000}, {"XDR", 2000}};
	static const int widths[] = {1, 2, 4, 8, 12};
	for (size_t s = 0; s < sizeof speeds / sizeof speeds[0]; s++)
		for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
			int r = speeds[s].deci * widths[w];
			for (int nl = 0; nl < 2; nl++) {
				char *text = rd_xasprintf("%d%s Gb/sec (%dX %s)%s", r / 10, r % 10 ? ".5" : "",
							  widths[w], speeds[s].name, nl ? "\n" : "");
				struct rd_rate rate;
				CHECK_INT(rd_parse_rate(text, &rate), 0);
				CHECK(rate.gbps * 10 > r - 0.01 && rate.gbps * 10 < r + 0.01);
				CHECK_INT(rate.width, widths[w]);
				CHECK_STR(rate.speed, speeds[s].name);
				free(text);
			}
		}
}

RD_TEST(rate_real_and_old_forms)
{
	struct rd_rate r;
	CHECK_INT(rd_parse_rate("2.5 Gb/sec (1X SDR)\n", &r), 0);
	CHECK(r.gbps == 2.5 && r.width == 1);
	CHECK_INT(rd_parse_rate("10 Gb/sec (4X)", &r), 0); /* old kernels: no speed name */
	CHECK(r.gbps == 10 && r.width == 4);
	CHECK_STR(r.speed, "");
	CHECK(r.lane_gbps == 2.5);
	CHECK_INT(rd_parse_rate("200 Gb/sec (2X NDR)", &r), 0); /* BlueField-3 RoCE LAG */
	CHECK(r.lane_gbps == 100);
	CHECK_INT(rd_parse_rate("40 Gb/sec (4X QDR)\n", &r), 0); /* RoCE port with no link */
}

RD_TEST(rate_malformed)
{
	static const char *const bad[] = {"", "\n", "400", "400 Gb/sec", "400 Gb/sec (4X NDR", "400 Gb/sec (3X NDR)",
					  "400 Gb/sec (4X NDR) extra", "x Gb/sec (4X)", "400 Gb/sec (4X NDR)\n\n",
					  "-400 Gb/sec (4X NDR)", "400.  Gb/sec (4X)", "400 Gb/sec (4X )",
					  "400 Gb/sec (4X SUPERLONGNAME)", "N/A (no PMA)", "\xff\xfe"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rd_rate r;
		CHECK_INT(rd_parse_rate(bad[i], &r), -RD_EPARSE);
		CHECK(r.gbps == 0 && r.width == 0);
	}
	struct rd_rate r;
	CHECK_INT(rd_parse_rate(NULL, &r), -RD_EPARSE);
}

RD_TEST(port_states)
{
	static const char *const states[] = {"0: NOP", "1: DOWN", "2: INIT", "3: ARMED", "4: ACTIVE", "5: ACTIVE_DEFER"};
	for (unsigned i = 0; i < 6; i++) {
		struct rd_enum_text e;
		CHECK_INT(rd_parse_enum_text(states[i], &e), 0);
		CHECK_INT(e.num, i);
		CHECK_STR(e.name, rd_port_state_name(i));
	}
	static const char *const phys[] = {"1: Sleep", "2: Polling", "3: Disabled", "4: PortConfigurationTraining",
					   "5: LinkUp", "6: LinkErrorRecovery", "7: Phy Test"};
	for (unsigned i = 0; i < 7; i++) {
		struct rd_enum_text e;
		CHECK_INT(rd_parse_enum_text(phys[i], &e), 0);
		CHECK_INT(e.num, i + 1);
		CHECK_STR(e.name, rd_phys_state_name(i + 1));
	}
	struct rd_enum_text e;
	CHECK_INT(rd_parse_enum_text("9: UNKNOWN\n", &e), 0);
	CHECK_STR(rd_port_state_name(9), "UNKNOWN");
	CHECK_INT(rd_parse_enum_text("0: <unknown>", &e), 0);
	CHECK_STR(e.name, "<unknown>");
	CHECK_INT(rd_parse_enum_text("1: CA\n", &e), 0); /* node_type */
	CHECK_INT(e.num, 1);
	CHECK_INT(rd_parse_enum_text("6: usNIC UDP", &e), 0);
	CHECK_STR(e.name, "usNIC UDP");
}

RD_TEST(enum_malformed)
{
	static const char *const bad[] = {"", "4", "4:", "4: ", "ACTIVE", ": ACTIVE", "4:ACTIVE", "4: ACTIVE\nX",
					  "4: \x01", "99999999999: X", "4: ACT\xc3\xa9", "-1: DOWN"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rd_enum_text e;
		CHECK_INT(rd_parse_enum_text(bad[i], &e), -RD_EPARSE);
	}
}

RD_TEST(numbers)
{
	uint64_t v;
	CHECK_INT(rd_parse_u64("0x33bf\n", 0, 0xffff, &v), 0);
	CHECK_INT(v, 0x33bf);
	CHECK_INT(rd_parse_u64("0x0", 0, 0xffff, &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(rd_parse_u64("0xa651ec48", 0, 0xffffffffu, &v), 0);
	CHECK_INT(v, 0xa651ec48u);
	CHECK_INT(rd_parse_u64("12\n", 10, 255, &v), 0);
	CHECK_INT(rd_parse_u64("0xffff", 0, 0xffff, &v), 0);
	CHECK_INT(rd_parse_u64("0x10000", 0, 0xffff, &v), -RD_EPARSE); /* out of range */
	CHECK_INT(rd_parse_u64("18446744073709551616", 10, UINT64_MAX, &v), -RD_EPARSE);
	CHECK_INT(rd_parse_u64("", 0, 10, &v), -RD_EPARSE);
	CHECK_INT(rd_parse_u64("0x", 0, 10, &v), -RD_EPARSE);
	CHECK_INT(rd_parse_u64("12abc", 0, 100, &v), -RD_EPARSE);
	CHECK_INT(rd_parse_u64("-1", 0, 100, &v), -RD_EPARSE);
	CHECK_INT(rd_parse_u64("1\n2", 0, 100, &v), -RD_EPARSE);
}

RD_TEST(guids_and_gids)
{
	uint64_t g;
	CHECK_INT(rd_parse_guid("a088:c203:00c8:de4a\n", &g), 0);
	CHECK(g == 0xa088c20300c8de4aULL);
	CHECK_INT(rd_parse_guid("5054:00ff:fe12:3456", &g), 0); /* rxe, no newline */
	CHECK(g == 0x505400fffe123456ULL);
	static const char *const bad[] = {"", "node_guid", "a088:c203:00c8", "a088:c203:00c8:de4a:0000",
					  "a088c20300c8de4a", "a088:c203:00c8:de4g", "12345:0:0:0", "a088::00c8:de4a"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK_INT(rd_parse_guid(bad[i], &g), -RD_EPARSE);

	uint8_t gid[16];
	CHECK_INT(rd_parse_gid("fe80:0000:0000:0000:a288:c2ff:fee3:142a\n", gid), 0);
	CHECK(gid[0] == 0xfe && gid[1] == 0x80 && gid[15] == 0x2a && !rd_gid_is_zero(gid));
	CHECK_INT(rd_parse_gid("0000:0000:0000:0000:0000:ffff:c0a8:7701", gid), 0); /* RoCE v2 IPv4 */
	CHECK(gid[10] == 0xff && gid[12] == 0xc0 && gid[15] == 0x01);
	CHECK_INT(rd_parse_gid("0000:0000:0000:0000:0000:0000:0000:0000", gid), 0);
	CHECK(rd_gid_is_zero(gid));
	CHECK_INT(rd_parse_gid("fe80::a288:c2ff:fee3:142a", gid), -RD_EPARSE); /* sysfs never compresses */
	CHECK_INT(rd_parse_gid("fe80:0000:0000:0000:a288:c2ff:fee3", gid), -RD_EPARSE);
}

RD_TEST(counters)
{
	uint64_t v;
	CHECK_INT(rd_parse_counter("230539874932483\n", &v), 0);
	CHECK(v == 230539874932483ULL);
	CHECK_INT(rd_parse_counter("18446744073709551615", &v), 0);
	CHECK(v == UINT64_MAX);
	CHECK_INT(rd_parse_counter("N/A (no PMA)\n", &v), -ENODATA); /* old kernels */
	CHECK_INT(rd_parse_counter("", &v), -RD_EPARSE);
	CHECK_INT(rd_parse_counter("12 34", &v), -RD_EPARSE);
}

RD_TEST(hca_types_and_models)
{
	unsigned id;
	CHECK_INT(rd_parse_hca_type("MT4129\n", &id), 0);
	CHECK_INT(id, 0x1021);
	CHECK_STR(rd_hca_model_name(id), "ConnectX-7");
	CHECK_INT(rd_parse_hca_type("MT41692", &id), 0);
	CHECK_STR(rd_hca_model_name(id), "BlueField-3");
	static const struct {
		const char *t, *m;
	} known[] = {{"MT4099", "ConnectX-3"}, {"MT4103", "ConnectX-3 Pro"}, {"MT4115", "ConnectX-4"},
		     {"MT4117", "ConnectX-4 Lx"}, {"MT4119", "ConnectX-5"},     {"MT4121", "ConnectX-5 Ex"},
		     {"MT4123", "ConnectX-6"},    {"MT4124", "ConnectX-6 VF"},  {"MT4125", "ConnectX-6 Dx"},
		     {"MT4127", "ConnectX-6 Lx"}, {"MT4131", "ConnectX-8"},     {"MT41686", "BlueField-2"},
		     {"MT41695", "BlueField-4"}};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		CHECK_INT(rd_parse_hca_type(known[i].t, &id), 0);
		CHECK_STR(rd_hca_model_name(id), known[i].m);
	}
	CHECK(rd_hca_model_name(0x1234) == NULL);
	CHECK_INT(rd_parse_hca_type("hca_type", &id), -RD_EPARSE); /* sanitized gcm value */
	CHECK_INT(rd_parse_hca_type("MT", &id), -RD_EPARSE);
	CHECK_INT(rd_parse_hca_type("MT99999999", &id), -RD_EPARSE);
}

RD_TEST(proc_modules_real_lines)
{
	struct rd_proc_module m;
	CHECK_INT(rd_parse_proc_modules_line("mlx5_core 1448990 1 mlx5_ib, Live 0xffffffffc0521000 (OE)", &m), 0);
	CHECK_STR(m.name, "mlx5_core");
	CHECK(m.size == 1448990 && m.refcnt == 1 && m.nholders == 1);
	CHECK_STR(m.holders[0], "mlx5_ib");
	CHECK_STR(m.state, "Live");
	CHECK_STR(m.taint, "OE");
	CHECK_INT(rd_parse_proc_modules_line("ib_core 442368 9 mlx5_ib,rdma_rxe,ib_ipoib,rdma_ucm,rdma_cm,iw_cm,ib_cm,"
					     "ib_umad,ib_uverbs, Live 0xffffffffc029f000",
					     &m),
		  0);
	CHECK_INT(m.nholders, 9);
	CHECK_STR(m.holders[8], "ib_uverbs");
	CHECK_STR(m.taint, "");
	CHECK_INT(rd_parse_proc_modules_line("rdma_rxe 135168 0 - Live 0x0000000000000000\n", &m), 0);
	CHECK_INT(m.nholders, 0);
	CHECK_INT(rd_parse_proc_modules_line("nvidia 56623104 2 nvidia_uvm,nvidia_modeset, Live 0xffffffffc1000000 (POE)", &m), 0);
	CHECK_STR(m.taint, "POE");
	CHECK_INT(rd_parse_proc_modules_line("foo 16384 - - Live 0xffffffffc0000000", &m), 0); /* no MODULE_UNLOAD */
	CHECK_INT(m.refcnt, -1);
	CHECK_INT(rd_parse_proc_modules_line("bar 16384 0 [permanent], Live 0xffffffffc0000000", &m), 0);
	CHECK(m.permanent);
	CHECK_INT(rd_parse_proc_modules_line("baz 16384 1 - Loading 0xffffffffc0000000", &m), 0);
	CHECK_STR(m.state, "Loading");
}

RD_TEST(proc_modules_malformed)
{
	static const char *const bad[] = {"", "mlx5_core", "mlx5_core 12", "mlx5_core x 1 - Live 0x0",
					  "mlx5_core 1 1 mlx5_ib Live 0x0", "mlx5_core 1 1 - Dead 0x0",
					  "mlx5_core 1 1 - Live 0x0 (oe)", "mlx5_core 1 1 - Live 0x0 (OE) extra",
					  "mlx5_core 1 1 - Live zz", "m 1 1 - Live 0x0 ()"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rd_proc_module m;
		CHECK_INT(rd_parse_proc_modules_line(bad[i], &m), -RD_EPARSE);
	}
	/* a holder list longer than the struct holds is an error, not an overflow */
	struct rd_buf b = {0};
	rd_buf_puts(&b, "ib_core 1 100 ");
	for (int i = 0; i < 100; i++)
		rd_buf_printf(&b, "m%d,", i);
	rd_buf_puts(&b, " Live 0x0");
	struct rd_proc_module m;
	CHECK_INT(rd_parse_proc_modules_line(b.data, &m), -RD_EPARSE);
	rd_buf_free(&b);
}

RD_TEST(limits_memlock)
{
	static const char limits[] =
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max cpu time              unlimited            unlimited            seconds   \n"
		"Max locked memory         8388608              8388608              bytes     \n";
	uint64_t soft, hard;
	CHECK_INT(rd_parse_limits_memlock(limits, &soft, &hard), 0);
	CHECK(soft == 8388608 && hard == 8388608);
	CHECK_INT(rd_parse_limits_memlock("Max locked memory         unlimited            unlimited            bytes\n",
					  &soft, &hard),
		  0);
	CHECK(soft == UINT64_MAX && hard == UINT64_MAX);
	CHECK_INT(rd_parse_limits_memlock("Max cpu time  unlimited unlimited seconds\n", &soft, &hard), -RD_EPARSE);
	CHECK_INT(rd_parse_limits_memlock("Max locked memory  lots  65536 bytes\n", &soft, &hard), -RD_EPARSE);
	CHECK_INT(rd_parse_limits_memlock("", &soft, &hard), -RD_EPARSE);
}

/* Every parser on junk: an error value, never a crash (ASan runs this too). */
RD_TEST(devnode_lines)
{
	char name[16];
	unsigned mode, uid, gid;
	CHECK_INT(rd_parse_devnode_line("uverbs0 0666 0 0\n", name, sizeof name, &mode, &uid, &gid), 0);
	CHECK_STR(name, "uverbs0");
	CHECK_INT(mode, 0666);
	CHECK_INT(rd_parse_devnode_line("umad0 0600 0 992", name, sizeof name, &mode, &uid, &gid), 0);
	CHECK_INT(mode, 0600);
	CHECK_INT(gid, 992);
	CHECK_INT(rd_parse_devnode_line("issm0 600 0 0", name, sizeof name, &mode, &uid, &gid), 0);
	CHECK_INT(mode, 0600);
	/* not octal, too many bits, missing fields, a path, a name too long, trailing junk */
	CHECK_INT(rd_parse_devnode_line("uverbs0 0668 0 0", name, sizeof name, &mode, &uid, &gid), -RD_EPARSE);
	CHECK_INT(rd_parse_devnode_line("uverbs0 17777 0 0", name, sizeof name, &mode, &uid, &gid), -RD_EPARSE);
	CHECK_INT(rd_parse_devnode_line("uverbs0 0666", name, sizeof name, &mode, &uid, &gid), -RD_EPARSE);
	CHECK_INT(rd_parse_devnode_line("../uverbs0 0666 0 0", name, sizeof name, &mode, &uid, &gid), -RD_EPARSE);
	CHECK_INT(rd_parse_devnode_line("a_very_long_device_name 0666 0 0", name, sizeof name, &mode, &uid, &gid),
		  -RD_EPARSE);
	CHECK_INT(rd_parse_devnode_line("uverbs0 0666 0 0 x", name, sizeof name, &mode, &uid, &gid), -RD_EPARSE);
	CHECK_INT(rd_parse_devnode_line("", name, sizeof name, &mode, &uid, &gid), -RD_EPARSE);
}

RD_TEST(every_parser_on_junk)
{
	size_t n = 1 << 20;
	char *junk = rd_xmalloc(n + 1);
	unsigned seed = 12345;
	for (int round = 0; round < 4; round++) {
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			junk[i] = round == 0 ? 'A' : round == 1 ? (char)(0x80 | (seed >> 16)) : (char)(seed >> 16);
			if (junk[i] == 0)
				junk[i] = ':';
		}
		junk[n] = '\0';
		for (size_t len = 0; len <= n; len = len ? len * 4 : 1) {
			char saved = junk[len];
			junk[len] = '\0';
			struct rd_rate r;
			struct rd_enum_text e;
			struct rd_proc_module m;
			uint64_t v, w;
			uint8_t gid[16];
			unsigned id;
			CHECK(rd_parse_rate(junk, &r) < 0 || len < 20);
			CHECK(rd_parse_enum_text(junk, &e) < 0);
			CHECK(rd_parse_u64(junk, 0, UINT64_MAX, &v) < 0);
			CHECK(rd_parse_guid(junk, &v) < 0 || len < 20);
			CHECK(rd_parse_gid(junk, gid) < 0 || len < 40);
			CHECK(rd_parse_counter(junk, &v) < 0);
			CHECK(rd_parse_hca_type(junk, &id) < 0);
			CHECK(rd_parse_proc_modules_line(junk, &m) < 0);
			CHECK(rd_parse_limits_memlock(junk, &v, &w) < 0);
			junk[len] = saved;
		}
	}
	free(junk);
}

RD_TEST(natural_order)
{
	CHECK(rd_natural_cmp("mlx5_2", "mlx5_10") < 0);
	CHECK(rd_natural_cmp("mlx5_10", "mlx5_bond_0") < 0);
	CHECK(rd_natural_cmp("mlx5_0", "mlx5_0") == 0);
	CHECK(rd_natural_cmp("a", "ab") < 0);
}

RD_TEST(pci_address_shapes)
{
	CHECK(rd_is_pci_addr("0000:1b:00.0"));
	CHECK(rd_is_pci_addr("0000:C1:00.7"));
	CHECK(rd_is_pci_addr("10000:e1:00.0")); /* an Intel VMD domain */
	CHECK(rd_is_pci_addr("ffffffff:00:1f.3"));
	CHECK(!rd_is_pci_addr("000:1b:00.0"));
	CHECK(!rd_is_pci_addr("100000000:e1:00.0"));
	CHECK(!rd_is_pci_addr("pci0000:00"));
	CHECK(!rd_is_pci_addr("pci10000:e0"));
	CHECK(!rd_is_pci_addr("0000:1b:00.0x"));
	CHECK(!rd_is_pci_addr("0000:1b:00"));
	CHECK(!rd_is_pci_addr("0000:1b:0g.0"));
	CHECK(!rd_is_pci_addr(""));
}

RD_TEST(kernel_names_and_numbers)
{
	CHECK(rd_is_kernel_name("mlx5_0", 63));
	CHECK(rd_is_kernel_name("mx [u@1] y", 63)); /* a space is a byte the kernel allows */
	CHECK(rd_is_kernel_name("caf\xc3\xa9", 63)); /* UTF-8 */
	CHECK(!rd_is_kernel_name("mx\x01", 63));
	CHECK(!rd_is_kernel_name("mx\x02", 63));
	CHECK(!rd_is_kernel_name("x\nOK", 63));
	CHECK(!rd_is_kernel_name("mx\x7f", 63));
	CHECK(!rd_is_kernel_name("mx\xff", 63));       /* not UTF-8 */
	CHECK(!rd_is_kernel_name("mx\xc2\x9b", 63));   /* a C1 control (CSI) */
	CHECK(rd_is_kernel_name("mx\xc2\xa0", 63));    /* U+00A0 is not one */
	CHECK(!rd_is_kernel_name("", 63));
	CHECK(!rd_is_kernel_name(".", 63));
	CHECK(!rd_is_kernel_name("..", 63));
	CHECK(!rd_is_kernel_name("a/b", 63));
	char longest[65];
	memset(longest, 'a', 64);
	longest[64] = '\0';
	CHECK(!rd_is_kernel_name(longest, 63));
	longest[63] = '\0';
	CHECK(rd_is_kernel_name(longest, 63));

	unsigned long v = 99;
	CHECK(rd_is_canonical_uint("0", 255, &v) && v == 0);
	CHECK(rd_is_canonical_uint("1", 255, &v) && v == 1);
	CHECK(rd_is_canonical_uint("255", 255, &v) && v == 255);
	CHECK(!rd_is_canonical_uint("256", 255, NULL));
	CHECK(!rd_is_canonical_uint("01", 255, NULL));
	CHECK(!rd_is_canonical_uint("00", 255, NULL));
	CHECK(!rd_is_canonical_uint("1.0", 255, NULL));
	CHECK(!rd_is_canonical_uint("+1", 255, NULL));
	CHECK(!rd_is_canonical_uint(" 1", 255, NULL));
	CHECK(!rd_is_canonical_uint("1 ", 255, NULL));
	CHECK(!rd_is_canonical_uint("", 255, NULL));
	CHECK(!rd_is_canonical_uint("99999999999", 0xffffffffUL, NULL));
	CHECK(rd_is_canonical_uint("4294967295", 0xffffffffUL, &v) && v == 4294967295UL);
}

RD_TEST(pci_address_in_text)
{
	const char *l = "mlx5_core 10000:e1:00.0: Port module event: module 0, Cable plugged";
	CHECK(rd_text_names_pci(l, "10000:e1:00.0", ": "));
	CHECK(!rd_text_names_pci(l, "0000:e1:00.0", ": "));
	CHECK(!rd_text_names_pci(l, "0000:e1:00.0", ""));
	CHECK(rd_text_names_pci("limited by 8.0 GT/s PCIe x8 link at 0000:00:03.0 (capable", "0000:00:03.0", ""));
	CHECK(rd_text_names_pci("0000:1b:00.0", "0000:1b:00.0", ""));
	CHECK(!rd_text_names_pci("0000:1b:00.0", "0000:1b:00.0", ": "));
	CHECK(!rd_text_names_pci("x", "", ""));
}
