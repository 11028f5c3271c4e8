/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* MFT and QoS parsers (model/mft.h) on real output read in place (the operator's guide's mlxlink,
 * mlxconfig and flint blocks in ../shared/seed; a real ConnectX-3 Pro mlxconfig query and a real
 * mlxlink PCIe output in ../shared/fixtures/real), the formats of mlnx_qos and dcb-pfc(8), the
 * policy's [mlxconfig] and [roce] keys, the congestion counters of ethtool -S, and the per-device
 * command runner (live and root). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "model/mft.h"
#include "model/policy.h"
#include "source/source.h"
#include "util/util.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		rd_test_fail(__FILE__, __LINE__, "cannot read %s (set RD_REAL_FIXTURES)", path);
	struct rd_buf b = {0};
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		rd_buf_add(&b, chunk, n);
	fclose(f);
	return b.data ? rd_buf_steal(&b) : rd_xstrdup("");
}

/* The lines of the guide after the one starting with first, up to the one starting with last. */
static char *guide_block(const char *first, const char *last)
{
	const char *real = rd_test_real_dir_or_skip();
	char *path = rd_xasprintf("%s/../../seed/000_82afedced5993be5.txt", real);
	char *all = slurp(path);
	free(path);
	char *a = strstr(all, first);
	CHECK(a != NULL);
	a = strchr(a, '\n') + 1;
	char *b = strstr(a, last);
	CHECK(b != NULL);
	char *nl = strchr(b, '\n');
	char *out = rd_xstrndup(a, nl ? (size_t)(nl - a) : strlen(a));
	free(all);
	return out;
}

RD_TEST(ansi_stripped)
{
	char s[] = "State : \x1b[32mActive\x1b[0m\n\x1b]0;title\x07x\x1b[1;31;40mRed\x1b[m\x1b" "Dy\x1b";
	size_t n = sizeof s - 1;
	rd_strip_ansi(s, &n);
	CHECK_STR(s, "State : Active\nxRedy");
	CHECK_INT(n, strlen(s));
	/* whatever the bytes, no ESC survives */
	char r[512];
	unsigned x = 12345;
	for (int round = 0; round < 200; round++) {
		for (size_t i = 0; i < sizeof r; i++) {
			x = x * 1103515245u + 12345u;
			r[i] = (char)((x >> 16) % 5 == 0 ? 0x1b : (x >> 8) & 0x7f);
		}
		n = sizeof r - 1;
		rd_strip_ansi(r, &n);
		CHECK(memchr(r, 0x1b, n) == NULL);
	}
}

RD_TEST(mlxlink_guide_block_coloured)
{
	char *text = guide_block("$ mlxlink -d /dev/mst/mt4129_pciconf0 -p 1 -m -c -e", "Raw Physical BER");
	/* as mlxlink prints it on a terminal or not: every value in colour */
	struct rd_buf b = {0};
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *colon = memchr(line, ':', len);
		if (colon)
			rd_buf_printf(&b, "%.*s\x1b[32m%.*s\x1b[0m\n", (int)(colon + 2 - line), line,
				      (int)(len - (size_t)(colon + 2 - line)), colon + 2);
		else
			rd_buf_printf(&b, "%.*s\n", (int)len, line);
		line = nl ? nl + 1 : NULL;
	}
	rd_strip_ansi(b.data, &b.len);
	struct rd_mlxlink_info m;
	CHECK_INT(rd_parse_mlxlink(b.data, &m), 0);
	CHECK_STR(m.state, "Active");
	CHECK_STR(m.phys_state, "LinkUp");
	CHECK_STR(m.speed, "NDR");
	CHECK_INT(m.status_opcode, 0);
	CHECK_STR(m.recommendation, "No issue was observed.");
	CHECK_STR(m.fw_version, "28.41.1000");
	CHECK_STR(m.time_since_clear, "4 days 11:24:18");
	CHECK_STR(m.eff_ber, "1E-255");
	CHECK(m.eff_ber_ok && m.eff_ber_v < 1e-200);
	CHECK_STR(m.raw_errors_lanes, "0,0,0,0");
	CHECK_STR(rd_mlxlink_opcode_class(m.status_opcode), "ok");
	rd_mlxlink_info_free(&m);
	rd_buf_free(&b);
	free(text);
}

RD_TEST(mlxlink_real_pcie_output_has_no_port_fields)
{
	const char *real = rd_test_real_dir_or_skip();
	char *path = rd_xasprintf("%s/skyao__cx6-ocp3__mlxlink-pcie-e.txt", real);
	char *text = slurp(path);
	free(path);
	struct rd_mlxlink_info m;
	CHECK_INT(rd_parse_mlxlink(text, &m), -RD_EPARSE);
	CHECK(m.state == NULL && m.status_opcode == -1);
	rd_mlxlink_info_free(&m);
	free(text);
}

RD_TEST(mlxlink_opcodes_and_ber)
{
	struct rd_mlxlink_info m;
	CHECK_INT(rd_parse_mlxlink("Status Opcode      : 1024\nRecommendation     : Cable is unplugged\n"
				   "Effective Physical BER : 15E-12\n",
				   &m),
		  0);
	CHECK_INT(m.status_opcode, 1024);
	CHECK(m.eff_ber_ok && fabs(m.eff_ber_v - 1.5e-11) < 1e-20);
	rd_mlxlink_info_free(&m);
	CHECK_STR(rd_mlxlink_opcode_class(1023), "ok");
	CHECK_STR(rd_mlxlink_opcode_class(1), "PHY firmware");
	CHECK_STR(rd_mlxlink_opcode_class(1022), "PHY firmware");
	CHECK_STR(rd_mlxlink_opcode_class(1024), "cable unplugged");
	CHECK_STR(rd_mlxlink_opcode_class(2047), "management firmware");
	CHECK_STR(rd_mlxlink_opcode_class(2048), "core/driver");
	double d;
	CHECK_INT(rd_parse_ber("1.5E-12", &d), 0);
	CHECK(d > 1.4e-12 && d < 1.6e-12);
	CHECK_INT(rd_parse_ber("1E-255", &d), 0);
	static const char *const bad[] = {"", "E-12", "1E", "N/A", "1E-12x", "-1E-12", "1.E", " 1E-12"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK_INT(rd_parse_ber(bad[i], &d), -RD_EPARSE);
	CHECK_INT(rd_parse_mlxlink("", &m), -RD_EPARSE);
	rd_mlxlink_info_free(&m);
	CHECK_INT(rd_parse_mlxlink("Status Opcode : lots\nState\n: x\n", &m), -RD_EPARSE);
	rd_mlxlink_info_free(&m);
}

RD_TEST(mlxconfig_guide_block)
{
	char *text = guide_block("$ mlxconfig -d /dev/mst/mt4129_pciconf0 query | head -40", "Setting + reset:");
	struct rd_mlxconfig_info c;
	CHECK_INT(rd_parse_mlxconfig(text, &c), 0);
	CHECK_STR(c.device_type, "ConnectX7");
	CHECK(!c.has_default && !c.has_current);
	CHECK_INT(c.nparams, 6);
	const struct rd_mlxconfig_param *p = rd_mlxconfig_find(&c, "LINK_TYPE_P1");
	CHECK(p && !p->current);
	CHECK_STR(p->next, "IB(1)");
	CHECK_STR(rd_mlxconfig_find(&c, "CNP_DSCP_P2")->next, "48");
	CHECK(rd_mlxconfig_find(&c, "PCI_WR_ORDERING") == NULL);
	rd_mlxconfig_info_free(&c);
	free(text);
}

RD_TEST(mlxconfig_real_connectx3_pro)
{
	const char *real = rd_test_real_dir_or_skip();
	char *path = rd_xasprintf("%s/skyao__hp544-cx3pro__mlxconfig-query.txt", real);
	char *text = slurp(path);
	free(path);
	struct rd_mlxconfig_info c;
	CHECK_INT(rd_parse_mlxconfig(text, &c), 0);
	CHECK_STR(c.device_type, "ConnectX3Pro");
	CHECK_INT(c.nparams, 28);
	CHECK_STR(rd_mlxconfig_find(&c, "SRIOV_EN")->next, "True(1)");
	CHECK_STR(rd_mlxconfig_find(&c, "NUM_OF_VFS")->next, "16");
	CHECK_STR(rd_mlxconfig_find(&c, "XFI_MODE_P1")->next, "_10G(0)");
	CHECK_STR(rd_mlxconfig_find(&c, "STEER_FORCE_VLAN")->next, "False(0)");
	CHECK(rd_mlxconfig_value_matches(rd_mlxconfig_find(&c, "LINK_TYPE_P1")->next, "ETH"));
	rd_mlxconfig_info_free(&c);
	free(text);
}

RD_TEST(mlxconfig_three_columns_and_marks)
{
	const char *text = "Device #1:\n----------\n\nDevice type:    ConnectX6DX\n\n"
			   "Configurations:                  Default         Current         Next Boot\n"
			   "        LINK_TYPE_P1             ETH(2)          ETH(2)          IB(1)\n"
			   "*       ADVANCED_PCI_SETTINGS    False(0)        True(1)         True(1)\n"
			   "The '*' shows parameters with next value different from default/current value.\n"
			   "Device #2:\n----------\nConfigurations:   Next Boot\n  OTHER_DEVICE   1\n";
	struct rd_mlxconfig_info c;
	CHECK_INT(rd_parse_mlxconfig(text, &c), 0);
	CHECK(c.has_default && c.has_current);
	CHECK_INT(c.nparams, 2);
	const struct rd_mlxconfig_param *p = rd_mlxconfig_find(&c, "link_type_p1");
	CHECK_STR(p->dflt, "ETH(2)");
	CHECK_STR(p->current, "ETH(2)");
	CHECK_STR(p->next, "IB(1)");
	CHECK_STR(rd_mlxconfig_find(&c, "ADVANCED_PCI_SETTINGS")->current, "True(1)");
	rd_mlxconfig_info_free(&c);
	CHECK_INT(rd_parse_mlxconfig("-E- Failed to open device\n", &c), -RD_EPARSE);
	rd_mlxconfig_info_free(&c);
}

RD_TEST(mlxconfig_values)
{
	CHECK(rd_mlxconfig_value_matches("IB(1)", "IB(1)"));
	CHECK(rd_mlxconfig_value_matches("IB(1)", "IB"));
	CHECK(rd_mlxconfig_value_matches("IB(1)", "ib"));
	CHECK(rd_mlxconfig_value_matches("IB(1)", "1"));
	CHECK(!rd_mlxconfig_value_matches("ETH(2)", "IB(1)"));
	CHECK(!rd_mlxconfig_value_matches("ETH(2)", "IB"));
	CHECK(!rd_mlxconfig_value_matches("ETH(2)", "1"));
	CHECK(rd_mlxconfig_value_matches("255", "255"));
	CHECK(rd_mlxconfig_value_matches("255", "0xff"));
	CHECK(!rd_mlxconfig_value_matches("255", "25"));
	CHECK(rd_mlxconfig_value_matches("True(1)", "True"));
	CHECK(!rd_mlxconfig_value_matches("False(0)", "1"));
	CHECK(rd_mlxconfig_value_matches("per_mkey(0)", "0"));
	CHECK(!rd_mlxconfig_value_matches(NULL, "0"));
	char v[64];
	CHECK_STR(rd_mlxconfig_set_value("IB(1)", v, sizeof v), "1");
	CHECK_STR(rd_mlxconfig_set_value("IB", v, sizeof v), "IB");
	CHECK_STR(rd_mlxconfig_set_value("48", v, sizeof v), "48");
	CHECK_STR(rd_mlxconfig_set_value("force_relax(1)", v, sizeof v), "1");
}

/* MFT 4.2x-4.3x and mstflint's mstlink print the unit in the key: "Time Since Last Clear [Min]",
 * minutes with one decimal (Mellanox/mstflint mlxlink/modules/mlxlink_commander.cpp, prepareBerInfo:
 * setPrintVal(_berInfoCmd, "Time Since Last Clear [Min]", ...)); an Ethernet port's Physical state
 * is a PHY state machine's name. */
RD_TEST(mlxlink_mft_4_30_layout)
{
	static const char text[] = "Operational Info\n"
				   "----------------\n"
				   "State                              : Active\n"
				   "Physical state                     : ETH_AN_FSM_ENABLE\n"
				   "Speed                              : 100G\n"
				   "Width                              : 4x\n"
				   "FEC                                : Standard RS-FEC - RS(528,514)\n"
				   "\n"
				   "Troubleshooting Info\n"
				   "--------------------\n"
				   "Status Opcode                      : 0\n"
				   "Group Opcode                       : N/A\n"
				   "Recommendation                     : No issue was observed\n"
				   "\n"
				   "Physical Counters and BER Info\n"
				   "------------------------------\n"
				   "Time Since Last Clear [Min]        : 25074.8\n"
				   "Effective Physical Errors          : 0\n"
				   "Effective Physical BER             : 15E-255\n"
				   "Raw Physical Errors Per Lane       : 0,0,0,0\n"
				   "Link Down Counter                  : 0\n"
				   "Link Error Recovery Counter        : 0\n"
				   "Raw Physical BER                   : 15E-255\n";
	struct rd_mlxlink_info m;
	CHECK_INT(rd_parse_mlxlink(text, &m), 0);
	CHECK_STR(m.time_since_clear, "25074.8 min (17 days 09:54)");
	CHECK_STR(m.phys_state, "ETH_AN_FSM_ENABLE");
	CHECK_STR(m.eff_ber, "15E-255");
	CHECK(m.eff_ber_ok && m.eff_ber_v < 1e-200);
	CHECK_STR(m.raw_ber, "15E-255");
	CHECK_INT(m.status_opcode, 0);
	rd_mlxlink_info_free(&m);
	/* under an hour; a unit other than minutes stays as printed */
	CHECK_INT(rd_parse_mlxlink("State : Active\nTime Since Last Clear [Min] : 0.5\n", &m), 0);
	CHECK_STR(m.time_since_clear, "0.5 min (00:00)");
	rd_mlxlink_info_free(&m);
	CHECK_INT(rd_parse_mlxlink("State : Active\nTime Since Last Clear [Sec] : 30\n", &m), 0);
	CHECK_STR(m.time_since_clear, "30");
	rd_mlxlink_info_free(&m);
}

/* mlxlink --json: the real Operational Info of a ConnectX-5 EDR port in MrBr-github/lshca#11
 * (https://github.com/MrBr-github/lshca/issues/11, `mlxlink -d /dev/mst/mt4119_pciconf0 -p 1 --json`),
 * with a counters section in the same style. */
RD_TEST(mlxlink_json)
{
	static const char text[] = "{\n"
				   "   \"result\" : {\n"
				   "      \"output\" : {\n"
				   "         \"Operational Info\" : {\n"
				   "            \"Auto Negotiation\" : \"ON\",\n"
				   "            \"FEC\" : \"No FEC\",\n"
				   "            \"Loopback Mode\" : \"No Loopback\",\n"
				   "            \"Physical state\" : \"LinkUp\",\n"
				   "            \"Speed\" : \"IB-EDR\",\n"
				   "            \"State\" : \"Active\",\n"
				   "            \"Width\" : \"4x\"\n"
				   "         },\n"
				   "         \"Supported Info\" : {\n"
				   "            \"Enabled Link Speed\" : {\n"
				   "               \"mask\" : \"0x0000003f\",\n"
				   "               \"values\" : [ \"EDR\", \"FDR\", \"FDR10\", \"QDR\" ]\n"
				   "            }\n"
				   "         },\n"
				   "         \"Physical Counters and BER Info\" : {\n"
				   "            \"Time Since Last Clear [Min]\" : \"6444.3\",\n"
				   "            \"Effective Physical BER\" : \"15E-12\",\n"
				   "            \"Effective Physical Errors\" : \"1822\"\n"
				   "         }\n"
				   "      }\n"
				   "   }\n"
				   "}\n";
	struct rd_mlxlink_info m;
	CHECK_INT(rd_parse_mlxlink(text, &m), 0);
	CHECK_STR(m.state, "Active");
	CHECK_STR(m.phys_state, "LinkUp");
	CHECK_STR(m.speed, "IB-EDR");
	CHECK_STR(m.width, "4x");
	CHECK_STR(m.fec, "No FEC");
	CHECK_STR(m.time_since_clear, "6444.3 min (4 days 11:24)");
	CHECK_STR(m.eff_errors, "1822");
	CHECK(m.eff_ber_ok && m.eff_ber_v > 1.4e-11 && m.eff_ber_v < 1.6e-11);
	rd_mlxlink_info_free(&m);
}

/* A real mstflint query after a burn, before the reset (tests/fixtures/real/SOURCES.txt). */
RD_TEST(flint_pending_image_real)
{
	char *path = rd_xasprintf("%s/fixtures/real/openstack-ironic-python-agent__mstflint-query-running.txt", rd_test_dir());
	char *text = slurp(path);
	struct rd_flint_info f;
	CHECK_INT(rd_parse_flint(text, &f), 0);
	CHECK_STR(f.fw_version, "20.35.1012");
	CHECK_STR(f.fw_running, "20.34.1002");
	CHECK_STR(f.psid, "MT_0000000228");
	rd_flint_info_free(&f);
	free(text);
	free(path);
}

/* mlxlink -m's Module Info (tests/fixtures/real/SOURCES.txt): a ConnectX-7 OSFP optic's diagnostics
 * with its own alarm thresholds, "VALUE [LOW..HIGH]" (mstflint MlxlinkCommander::prepareDDMSection,
 * getValueAndThresholdsStr). */
RD_TEST(mlxlink_module_info_osfp_optic)
{
	char *path = rd_xasprintf("%s/fixtures/real/facebookresearch-gcm__mlxlink-m-cx7-osfp.txt", rd_test_dir());
	char *text = slurp(path);
	free(path);
	struct rd_mlxlink_info m;
	CHECK_INT(rd_parse_mlxlink(text, &m), 0);
	const struct rd_mlxlink_module *mo = &m.module;
	CHECK(mo->present);
	CHECK(mo->identifier == NULL && mo->vendor == NULL && !rd_module_passive_copper(mo));
	CHECK_STR(mo->temp.text, "49 [-10..80]");
	CHECK(mo->temp.n == 1 && mo->temp.v[0] == 49 && mo->temp.th && mo->temp.lo == -10 && mo->temp.hi == 80);
	CHECK(mo->voltage.n == 1 && fabs(mo->voltage.v[0] - 3189.4) < 1e-9 && mo->voltage.hi == 3500);
	CHECK(mo->bias.n == 4 && fabs(mo->bias.v[1] - 9.264) < 1e-9 && mo->bias.lo == 7 && mo->bias.hi == 11);
	CHECK(mo->rx.n == 4 && fabs(mo->rx.v[2] - 2.167) < 1e-9 && fabs(mo->rx.lo + 5.003) < 1e-9 && mo->rx.th);
	CHECK(mo->tx.n == 4 && fabs(mo->tx.v[0] - 0.867) < 1e-9 && fabs(mo->tx.lo + 3.468) < 1e-9);
	CHECK_STR(m.state, "Active");
	rd_mlxlink_info_free(&m);
	CHECK(m.module.temp.text == NULL && !m.module.present);
	free(text);
}

/* A passive copper cable, in the layout of two real captures (tests/scenarios/MFT-SOURCES.md): MFT
 * 4.30 on a BlueField-3 prints N/A for every diagnostic of a QSFP28 DAC and "Digital Diagnostic
 * Monitoring : No"; MFT 4.35 on a ConnectX-7 prints "0 [0..0]" for an OSFP DAC and "Yes". */
RD_TEST(mlxlink_module_info_passive_copper)
{
	static const char na[] = "State                              : Active\n"
				 "Module Info\n-----------\n"
				 "Temperature [C]                    : N/A\n"
				 "Rx Power Current [dBm]             : N/A\n"
				 "Identifier                         : QSFP28\n"
				 "Cable Technology                   : Copper cable, passive, unequalized\n"
				 "Cable Type                         : Passive copper cable\n"
				 "Vendor Name                        : ACME\n"
				 "Vendor Part Number                 : DAC-100G-3M\n"
				 "Vendor Serial Number               : N/A\n"
				 "Digital Diagnostic Monitoring      : No\n";
	struct rd_mlxlink_info m;
	CHECK_INT(rd_parse_mlxlink(na, &m), 0);
	CHECK(m.module.present && rd_module_passive_copper(&m.module));
	CHECK_STR(m.module.identifier, "QSFP28");
	CHECK_STR(m.module.part, "DAC-100G-3M");
	CHECK(m.module.serial == NULL);
	CHECK_STR(m.module.temp.text, "N/A");
	CHECK(m.module.temp.n == 0 && m.module.rx.n == 0);
	CHECK_STR(m.module.ddm_supported, "No");
	rd_mlxlink_info_free(&m);
	static const char zero[] = "State                              : Active\n"
				   "Temperature [C]                    : 0 [0..0]\n"
				   "Bias Current [mA]                  : 0,0,0,0 [0..0]\n"
				   "Rx Power Current [dBm]             : 0,0,0,0 [0..0]\n"
				   "Identifier                         : OSFP\n"
				   "Cable Type                         : Passive copper cable\n"
				   "Digital Diagnostic Monitoring      : Yes\n";
	CHECK_INT(rd_parse_mlxlink(zero, &m), 0);
	CHECK(rd_module_passive_copper(&m.module));
	CHECK(m.module.temp.n == 1 && !m.module.temp.th); /* [0..0]: no threshold */
	CHECK(m.module.rx.n == 4 && !m.module.rx.th);
	rd_mlxlink_info_free(&m);
	/* no Module Info at all (the guide's block, mlxlink without -m) */
	CHECK_INT(rd_parse_mlxlink("State : Active\n", &m), 0);
	CHECK(!m.module.present && m.module.temp.text == NULL);
	rd_mlxlink_info_free(&m);
}

/* mlxlink --json: the Module Info object's members, one "Key" : "value", a line (jsoncpp). */
RD_TEST(mlxlink_module_info_json)
{
	static const char js[] = "{\n   \"result\" : {\n      \"output\" : {\n"
				 "         \"Module Info\" : {\n"
				 "            \"Identifier\" : \"OSFP\",\n"
				 "            \"Rx Power Current [dBm]\" : \"-12.5,1.2,1.3,1.1 [-10.41..6]\",\n"
				 "            \"Temperature [C]\" : \"61 [-5..75]\",\n"
				 "            \"Vendor Name\" : \"ACME\"\n         },\n"
				 "         \"Operational Info\" : {\n            \"State\" : \"Active\"\n         }\n"
				 "      }\n   }\n}\n";
	struct rd_mlxlink_info m;
	CHECK_INT(rd_parse_mlxlink(js, &m), 0);
	CHECK_STR(m.module.identifier, "OSFP");
	CHECK_STR(m.module.vendor, "ACME");
	CHECK(m.module.rx.n == 4 && m.module.rx.v[0] == -12.5 && fabs(m.module.rx.lo + 10.41) < 1e-9 && m.module.rx.hi == 6);
	CHECK(m.module.temp.n == 1 && m.module.temp.v[0] == 61 && m.module.temp.hi == 75);
	rd_mlxlink_info_free(&m);
}

RD_TEST(ddm_line_forms)
{
	struct rd_ddm d = {0};
	CHECK_INT(rd_parse_ddm("61 [-5..75]", &d), 0);
	CHECK(d.n == 1 && d.v[0] == 61 && d.th && d.lo == -5 && d.hi == 75);
	CHECK_INT(rd_parse_ddm("  1.5,-2.25,-40,0.001 [-10.41..6]  ", &d), 0);
	CHECK(d.n == 4 && d.v[1] == -2.25 && d.v[2] == -40 && fabs(d.lo + 10.41) < 1e-12 && d.hi == 6);
	CHECK_INT(rd_parse_ddm("-3 [-8.5..-1]", &d), 0); /* a negative high threshold */
	CHECK(d.th && d.lo == -8.5 && d.hi == -1);
	CHECK_INT(rd_parse_ddm("3261.2", &d), 0); /* no thresholds */
	CHECK(d.n == 1 && !d.th);
	CHECK_INT(rd_parse_ddm("N/A", &d), 0);
	CHECK(d.n == 0);
	CHECK_INT(rd_parse_ddm("5 [7..3]", &d), 0); /* inverted: not a threshold */
	CHECK(d.n == 1 && !d.th);
	static const char *const bad[] = {"1,,2", "1,", ",1", "[1..2]", "1 [2..]", "1 [..2]", "1 [1.2]", "abc", "1 [1..2]x",
					  "1 [1..2", "inf", "nan [0..1]", "1e999", "1 [0..1e999]",
					  "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_INT(rd_parse_ddm(bad[i], &d), -RD_EPARSE);
		CHECK(d.n == 0);
	}
	CHECK_INT(rd_parse_ddm(NULL, &d), -RD_EPARSE);
}

RD_TEST(flint_guide_block)
{
	char *text = guide_block("$ flint -d /dev/mst/mt4129_pciconf0 query | head -5", "Rom Info:");
	struct rd_flint_info f;
	CHECK_INT(rd_parse_flint(text, &f), 0);
	CHECK_STR(f.fw_version, "28.41.1000");
	CHECK_STR(f.product_version, "28.41.1000");
	CHECK(f.psid == NULL && f.fw_running == NULL);
	rd_flint_info_free(&f);
	free(text);
	CHECK_INT(rd_parse_flint("FW Version:            16.35.2000\nFW Version(Running):   16.33.1048\n"
				 "PSID:                  MT_0000000008\n",
				 &f),
		  0);
	CHECK_STR(f.fw_running, "16.33.1048");
	CHECK_STR(f.psid, "MT_0000000008");
	rd_flint_info_free(&f);
	CHECK_INT(rd_parse_flint("-E- Cannot open Device: 0000:1b:00.0. No such file or directory\n", &f), -RD_EPARSE);
	rd_flint_info_free(&f);
}

RD_TEST(qos_formats)
{
	struct rd_qos_info q;
	CHECK_INT(rd_parse_mlnx_qos("DCBX mode: OS controlled\nPriority trust state: dscp\ndscp2prio mapping:\n"
				    "\tprio:0 dscp:07,06,05,04,03,02,01,00,\nCable len: 7\nPFC configuration:\n"
				    "\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   1   0   0   0   0\n"
				    "\tbuffer      0   0   0   1   0   0   0   0\ntc: 0 ratelimit: unlimited, tsa: vendor\n",
				    &q),
		  0);
	CHECK_STR(q.trust, "dscp");
	CHECK(q.pfc_ok && q.pfc[3] == 1 && q.pfc[0] == 0 && q.pfc[7] == 0);
	/* the older layout: rows not indented */
	CHECK_INT(rd_parse_mlnx_qos("PFC configuration:\npriority 0 1 2 3 4 5 6 7\nenabled 1 0 1 0 0 0 1 1\n", &q), 0);
	CHECK(q.pfc_ok && q.pfc[0] && q.pfc[2] && !q.pfc[3] && q.pfc[7] && !q.trust[0]);
	CHECK_INT(rd_parse_mlnx_qos("Netlink error: Operation not supported\n", &q), -RD_EPARSE);
	CHECK_INT(rd_parse_mlnx_qos("PFC configuration:\n\tenabled 0 0 0 1\n", &q), -RD_EPARSE);

	CHECK_INT(rd_parse_dcb_pfc("pfc-cap 8 macsec-bypass off delay 4096\n"
				   "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n",
				   &q),
		  0);
	CHECK(q.pfc_ok && q.pfc[3] == 1 && q.pfc[4] == 0);
	CHECK_INT(rd_parse_dcb_pfc("prio-pfc 0:off 1:on 2:off 3:off 4:off 5:off 6:on 7:off", &q), 0);
	CHECK(q.pfc[1] && q.pfc[6] && !q.pfc[3]);
	CHECK_INT(rd_parse_dcb_pfc("prio-pfc 0:off 1:on", &q), -RD_EPARSE);
	CHECK_INT(rd_parse_dcb_pfc("Error: Device does not support DCB\n", &q), -RD_EPARSE);

	char t[8];
	CHECK_INT(rd_parse_qos_trust("dscp", t), 0);
	CHECK_STR(t, "dscp");
	CHECK_INT(rd_parse_qos_trust("pcp\n", t), 0);
	CHECK_STR(t, "pcp");
	CHECK_INT(rd_parse_qos_trust("Priority trust state: dscp\n", t), 0);
	CHECK_STR(t, "dscp");
	CHECK_INT(rd_parse_qos_trust("dscpx", t), -RD_EPARSE);
	CHECK_INT(rd_parse_qos_trust("trust dscp", t), -RD_EPARSE);
	CHECK_INT(rd_parse_qos_trust("", t), -RD_EPARSE);

	int pfc[8];
	CHECK_INT(rd_parse_qos_pfc("0,0,0,1,0,0,0,0\n", pfc), 0);
	CHECK(pfc[3] && !pfc[2]);
	CHECK_INT(rd_parse_qos_pfc("PFC configuration:\n\tpriority 0 1 2 3 4 5 6 7\n\tenabled 0 0 0 0 1 0 0 0\n", pfc), 0);
	CHECK(pfc[4] && !pfc[3]);
	CHECK_INT(rd_parse_qos_pfc("0,0,0,1", pfc), -RD_EPARSE);
	CHECK_INT(rd_parse_qos_pfc("0,0,0,2,0,0,0,0", pfc), -RD_EPARSE);
	/* mlnx_qos -i of MLNX_OFED 4.2 (the default map, trust dscp, PFC on 0,2,6,7), as the Mellanox
	 * community's mlnx_qos page (DOC-2792) prints it */
	static const char mq[] = "DCBX mode: OS controlled\nPriority trust state: dscp\ndscp2prio mapping:\n"
				 "\tprio:0 dscp:07,06,05,04,03,02,01,00,\n\tprio:1 dscp:15,14,13,12,11,10,09,08,\n"
				 "\tprio:2 dscp:23,22,21,20,19,18,17,16,\n\tprio:3 dscp:31,30,29,28,27,26,25,24,\n"
				 "\tprio:4 dscp:39,38,37,36,35,34,33,32,\n\tprio:5 dscp:47,46,45,44,43,42,41,40,\n"
				 "\tprio:6 dscp:55,54,53,52,51,50,49,48,\n\tprio:7 dscp:63,62,61,60,59,58,57,56,\n"
				 "Cable len: 10\nPFC configuration:\n\tpriority 0 1 2 3 4 5 6 7\n\tenabled 1 0 1 0 0 0 1 1\n";
	signed char map[64];
	memset(map, 9, sizeof map);
	CHECK_INT(rd_parse_dscp2prio(mq, map), 0);
	CHECK(map[0] == 0 && map[7] == 0 && map[26] == 3 && map[40] == 5 && map[63] == 7);
	CHECK_INT(rd_parse_mlnx_qos(mq, &q), 0);
	CHECK(q.pfc[0] == 1 && q.pfc[3] == 0 && !strcmp(q.trust, "dscp"));
	/* a custom map: DSCP 26 moved to priority 5, whose list then wraps onto a second line */
	static const char moved[] = "prio:0 dscp:07,06,05,04,03,02,01,00,\nprio:1 dscp:15,14,13,12,11,10,09,08,\n"
				    "prio:2 dscp:23,22,21,20,19,18,17,16,\nprio:3 dscp:31,30,29,28,27,25,24,\n"
				    "prio:4 dscp:39,38,37,36,35,34,33,32,\nprio:5 dscp:47,46,45,44,43,42,41,40,\n"
				    "prio:5 dscp:26,\nprio:6 dscp:55,54,53,52,51,50,49,48,\nprio:7 dscp:63,62,61,60,59,58,57,56,\n";
	CHECK_INT(rd_parse_dscp2prio(moved, map), 0);
	CHECK(map[26] == 5 && map[27] == 3 && map[40] == 5);
	/* one DSCP twice, one missing, a DSCP past 63, a stray word: refused, the map untouched */
	char *twice = strdup(moved);
	twice[strlen(twice) - 4] = '2'; /* ...57,52, */
	twice[strlen(twice) - 3] = '6';
	CHECK_INT(rd_parse_dscp2prio(twice, map), -RD_EPARSE);
	CHECK(map[26] == 5);
	free(twice);
	CHECK_INT(rd_parse_dscp2prio("prio:0 dscp:00,01,\n", map), -RD_EPARSE);
	CHECK_INT(rd_parse_dscp2prio("prio:0 dscp:64,\n", map), -RD_EPARSE);
	CHECK_INT(rd_parse_dscp2prio("prio:0 dscp:0x,\n", map), -RD_EPARSE);
	CHECK_INT(rd_parse_dscp2prio("", map), -RD_EPARSE);
	CHECK(map[26] == 5);

	CHECK_INT(rd_parse_tclass("Global tclass=106\n"), 106);
	CHECK_INT(rd_parse_tclass("162\n"), 162);
	CHECK_INT(rd_parse_tclass("Global tclass=-1\n"), -1);
	CHECK_INT(rd_parse_tclass(""), -1);
	CHECK_INT(rd_parse_tclass("Global tclass=256\n"), -2);
	CHECK_INT(rd_parse_tclass("tclass=abc"), -2);
	CHECK_INT(rd_parse_tclass("106 extra"), -2);
	char list[16];
	rd_pfc_list(1u << 3, list);
	CHECK_STR(list, "0,0,0,1,0,0,0,0");
	rd_pfc_list(0x81, list);
	CHECK_STR(list, "1,0,0,0,0,0,0,1");
}

/* ethtool -S of mlx5_core: the layout of a real ConnectX capture posted to the bpf list
 * (lore.kernel.org/bpf/CAMENy5rwoP0o9Gn67a-27ZXtzM7dGhJOwA4i5znihiNThR27SQ@mail.gmail.com, kernel
 * 5.15: "NIC statistics:", five spaces, "name: value"; its lines below as posted), with the
 * per-priority pause lines of en_stats.c's pport_per_prio_pause names. */
RD_TEST(ethtool_stats)
{
	static const char real[] = "NIC statistics:\n"
				   "     rx_packets: 333854100\n"
				   "     rx_out_of_buffer: 990473555\n"
				   "     rx_steer_missed_packets: 1962570491\n"
				   "     tx_pause_ctrl_phy: 5745055\n"
				   "     rx_discards_phy: 58591428329\n"
				   "     tx_discards_phy: 0\n"
				   "     rx_prio0_discards: 58591314012\n"
				   "     tx_global_pause: 5745042\n"
				   "     tx_global_pause_duration: 771103810\n"
				   "     ch0_events: 55\n"
				   "     rx_prio3_pause: 41927\n"
				   "     rx_prio3_pause_duration: 8134\n"
				   "     tx_prio3_pause: 1290418\n"
				   "     tx_prio3_pause_duration: 2914772\n"
				   "     rx_prio3_pause_transition: 39218\n"
				   "     rx_prio3_buf_discard: 0\n";
	struct rd_ethtool_stats *s = calloc(1, sizeof *s);
	CHECK_INT(rd_parse_ethtool_stats(real, s), 0);
	const struct rd_ethtool_stat *v = rd_ethtool_find(s, "rx_discards_phy");
	CHECK(v && v->value == 58591428329ull);
	v = rd_ethtool_find(s, "rx_out_of_buffer");
	CHECK(v && v->value == 990473555);
	CHECK(rd_ethtool_find(s, "rx_prio3_pause") && rd_ethtool_find(s, "tx_prio3_pause_duration"));
	CHECK(rd_ethtool_find(s, "rx_prio0_discards") && rd_ethtool_find(s, "tx_global_pause"));
	CHECK(rd_ethtool_find(s, "rx_prio3_buf_discard") != NULL);
	/* traffic and ring counters are not kept, nor the transitions */
	CHECK(rd_ethtool_find(s, "rx_packets") == NULL);
	CHECK(rd_ethtool_find(s, "ch0_events") == NULL);
	CHECK(rd_ethtool_find(s, "rx_prio3_pause_transition") == NULL);
	CHECK(rd_ethtool_find(s, "tx_global_pause_duration") == NULL);
	CHECK_INT((int)s->n, 11);
	/* names of the set */
	CHECK(rd_ethtool_congestion_stat("rx_prio7_pause") && !rd_ethtool_congestion_stat("rx_prio8_pause"));
	CHECK(rd_ethtool_congestion_stat("tx_prio0_pause_duration") && !rd_ethtool_congestion_stat("tx_prio0_discards"));
	CHECK(!rd_ethtool_congestion_stat("rx_prio") && !rd_ethtool_congestion_stat(""));
	/* a value that is not a number, a duplicate, a negative, an overflow, tabs, no newline */
	CHECK_INT(rd_parse_ethtool_stats("NIC statistics:\n\trx_prio0_pause: n/a\n\trx_prio1_pause: 5\n"
					 "     rx_prio1_pause: 9\n     rx_prio2_pause: -1\n"
					 "     rx_prio4_pause: 18446744073709551616\n     tx_prio5_pause: 7",
					 s),
		  0);
	CHECK_INT((int)s->n, 2);
	CHECK(rd_ethtool_find(s, "rx_prio1_pause")->value == 5);
	CHECK(rd_ethtool_find(s, "tx_prio5_pause")->value == 7);
	/* another driver's "[0]: name: value" lines give nothing kept, but are statistics */
	CHECK_INT(rd_parse_ethtool_stats("NIC statistics:\n     [0]: rx_bytes: 209487403324\n", s), 0);
	CHECK_INT((int)s->n, 0);
	/* what ethtool prints when the driver has no statistics, or garbage */
	CHECK_INT(rd_parse_ethtool_stats("no stats available\n", s), -RD_EPARSE);
	CHECK_INT(rd_parse_ethtool_stats("", s), -RD_EPARSE);
	CHECK_INT((int)s->n, 0);
	/* more stats than kept: bounded */
	struct rd_buf b = {0};
	rd_buf_puts(&b, "NIC statistics:\n");
	for (int i = 0; i < 400; i++)
		rd_buf_printf(&b, "     rx_prio%d_pause: %d\n", i % 8, i);
	CHECK_INT(rd_parse_ethtool_stats(b.data, s), 0);
	CHECK_INT((int)s->n, 8);
	rd_buf_free(&b);
	free(s);
}

RD_TEST(policy_mlxconfig_and_roce_keys)
{
	struct rd_policy p;
	char err[256] = "";
	rd_policy_defaults(&p);
	CHECK_INT(rd_policy_parse("[mlxconfig]\nLINK_TYPE_P1 = IB(1)\nSOME_FUTURE_PARAM = 7\n"
				  "MT_0000000838/CNP_DSCP_P1 = 48\n[roce]\ntrust = dscp\npfc = 3\n",
				  "t.conf", &p, err, sizeof err),
		  0);
	CHECK_INT(p.nmlxconfig, 3);
	CHECK_STR(p.mlxconfig[1].name, "SOME_FUTURE_PARAM");
	CHECK_STR(p.mlxconfig[2].name, "MT_0000000838/CNP_DSCP_P1");
	CHECK_STR(p.roce_trust, "dscp");
	CHECK(p.roce_pfc_set && p.roce_pfc == 0x08);
	rd_policy_free(&p);
	rd_policy_defaults(&p);
	CHECK_INT(rd_policy_parse("[roce]\npfc = none\n", "t.conf", &p, err, sizeof err), 0);
	CHECK(p.roce_pfc_set && p.roce_pfc == 0);
	rd_policy_free(&p);
	static const char *const bad[] = {"[roce]\ntrust = l2\n", "[roce]\npfc = 8\n", "[roce]\npfc = 3,x\n",
					  "[roce]\npfc =\n", "[mlxconfig]\nLINK_TYPE_P1 = IB(1);reboot\n",
					  "[mlxconfig]\nLINK`id` = 1\n", "[mlxconfig]\n/LINK = 1\n", "[mlxconfig]\nA/B/C = 1\n"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		rd_policy_defaults(&p);
		err[0] = '\0';
		CHECK_INT(rd_policy_parse(bad[i], "t.conf", &p, err, sizeof err), -1);
		CHECK(strncmp(err, "t.conf:", 7) == 0);
		rd_policy_free(&p);
	}
}

static char *tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *d = rd_xasprintf("%s/rd-test-mft.XXXXXX", t && *t ? t : "/tmp");
	CHECK(mkdtemp(d) != NULL);
	return d;
}

RD_TEST(device_commands_root)
{
	char *d = tmpdir();
	char *cmd = rd_xasprintf("mkdir -p %s/rdma-doctor/commands && printf 'State : \\033[32mActive\\033[0m\\n' > "
				 "%s/rdma-doctor/commands/mlxlink-mlx5_0-1 && echo ENOENT > %s/rdma-doctor/commands/flint-mlx5_0.error",
				 d, d, d);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	struct rd_source *src;
	char err[256];
	CHECK_INT(rd_source_open(d, &src, err, sizeof err), 0);
	struct rd_text t;
	const char *const argv[] = {"mlxlink", "-d", "0000:1b:00.0", "-p", "1", NULL};
	CHECK_INT(rd_run_device_command(src, "mlxlink-mlx5_0-1", argv, 1000, &t), 0);
	CHECK(strstr(t.data, "Active") != NULL);
	rd_text_free(&t);
	CHECK_INT(rd_run_device_command(src, "flint-mlx5_0", argv, 1000, &t), -ENOENT);
	CHECK_INT(rd_run_device_command(src, "mlxconfig-mlx5_0", argv, 1000, &t), -RD_ENOTCAPTURED);
	CHECK_INT(rd_run_device_command(src, "../etc/passwd", argv, 1000, &t), -EINVAL);
	CHECK_INT(rd_run_device_command(src, ".hidden", argv, 1000, &t), -EINVAL);
	CHECK_INT(rd_run_device_command(src, "a b", argv, 1000, &t), -EINVAL);
	rd_source_close(src);
	cmd = rd_xasprintf("rm -rf %s", d);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	free(d);
}

RD_TEST(device_commands_live_only_when_asked_and_installed)
{
	char *d = tmpdir();
	char *tool = rd_xasprintf("%s/fake-mlxlink", d);
	FILE *f = fopen(tool, "w");
	CHECK(f != NULL);
	fputs("#!/bin/sh\nprintf 'State : \\033[32mActive\\033[0m\\nargs: %s\\n' \"$*\"\n", f);
	fclose(f);
	CHECK_INT(chmod(tool, 0755), 0);
	char *slow = rd_xasprintf("%s/slow-tool", d);
	f = fopen(slow, "w");
	fputs("#!/bin/sh\nsleep 5\n", f);
	fclose(f);
	CHECK_INT(chmod(slow, 0755), 0);
	char *path = rd_xasprintf("%s:%s", d, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	struct rd_source *src;
	char err[256];
	CHECK_INT(rd_source_open(NULL, &src, err, sizeof err), 0);
	struct rd_text t;
	const char *const argv[] = {"fake-mlxlink", "-d", "0000:1b:00.0", "-p", "1", NULL};
	/* not asked for (check without --mft): nothing runs */
	CHECK_INT(rd_run_device_command(src, "mlxlink-mlx5_0-1", argv, 2000, &t), -RD_ENOTCAPTURED);
	rd_source_allow_device_commands(src, true);
	CHECK_INT(rd_run_device_command(src, "mlxlink-mlx5_0-1", argv, 2000, &t), 0);
	CHECK(strstr(t.data, "args: -d 0000:1b:00.0 -p 1") != NULL);
	CHECK_INT(t.status, 0);
	rd_text_free(&t);
	const char *const absent[] = {"rd-no-such-tool-anywhere", "query", NULL};
	CHECK_INT(rd_run_device_command(src, "flint-mlx5_0", absent, 2000, &t), -ENOENT);
	const char *const sleeper[] = {"slow-tool", NULL};
	CHECK_INT(rd_run_device_command(src, "mlxconfig-mlx5_0", sleeper, 200, &t), -ETIMEDOUT);
	rd_source_close(src);
	char *cmd = rd_xasprintf("rm -rf %s", d);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	free(path);
	free(tool);
	free(slow);
	free(d);
}
