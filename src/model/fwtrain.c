/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The firmware train of each MLNX_OFED / DOCA-OFED release (model/fwtrain.h).
 *
 * MLNX_OFED publishes one train for every adapter it supports ("Firmware xx.43.2026" in each
 * release's "Legal Notices and 3rd Party Licenses" page, xx the adapter's major); ConnectX-4,
 * -4 Lx and -5 stay on their own trains (16.35.x) and are not judged.  MLNX_OFED does not support
 * BlueField-3 or ConnectX-8.  DOCA-OFED lists the bundled firmware per adapter ("General Support");
 * ConnectX-6 stays on 20.43.x from DOCA 2.10.  No machine-readable matrix is published: a new
 * release is a new row here, with its source. */
#include "model/fwtrain.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define DOCS "https://docs.nvidia.com/networking/display/"
#define DOCA "https://docs.nvidia.com/doca/archive/"
/* one MLNX_OFED train "xx.M.S" for ConnectX-6, -6 Dx, -6 Lx, BlueField-2 and ConnectX-7 */
#define MLNX(ms) {[RD_AD_CX6] = "20." ms, [RD_AD_CX6DX] = "22." ms, [RD_AD_CX6LX] = "26." ms, \
		  [RD_AD_BF2] = "24." ms, [RD_AD_CX7] = "28." ms}
#define ALT(a, ms1, ms2) a "." ms1 "|" a "." ms2

const struct rd_fw_release rd_fw_releases[] = {
	/* the 5.8 LTS line; 5.8-3.0.7.0 is the row of the 5.8-4.1.5.0 page (that page's table names
	 * 5.8-3.0.7.0, so 5.8-4.1.5.0's own train is not sourced and has no row); 5.8-1.x and 5.8-2.x:
	 * no page found */
	{RD_STACK_MLNX_OFED, "5.8-3.0.7.0", DOCS "MLNXOFEDv584150LTS/Legal+Notices+and+3rd+Party+Licenses", MLNX("35.3006")},
	{RD_STACK_MLNX_OFED, "5.8-5.1.1.2", DOCS "mlnxofedv585112lts/legal+notices+and+3rd+party+licenses", MLNX("35.4030")},
	{RD_STACK_MLNX_OFED, "5.8-6.0.4.2", DOCS "mlnxofedv586042LTS/Legal+Notices+and+3rd+Party+Licenses", MLNX("35.45xx")},
	/* the MFT 4.22.1-526 page for the same release says xx.35.4554 */
	{RD_STACK_MLNX_OFED, "5.8-7.0.6.1", DOCS "mlnxofedv587061lts/legal+notices+and+3rd+party+licenses", MLNX("35.45xx")},
	/* the MFT 4.24.0 page ("Firmware xx.37.1014, MLNX_OFED 23.04-0.5.3.3") */
	{RD_STACK_MLNX_OFED, "23.04-0.5.3.3", DOCS "mftv4240/legal+notices+and+3rd+party+licenses", MLNX("37.1014")},
	/* the MFT 4.25.1 page ("Firmware xx.38.1002, MLNX_OFED 23.07-0.5.0.0") */
	{RD_STACK_MLNX_OFED, "23.07-0.5.0.0", DOCS "MFTv4251/Legal+Notices+and+3rd+Party+Licenses", MLNX("38.1002")},
	{RD_STACK_MLNX_OFED, "23.07-0.5.1.2", DOCS "MLNXOFEDv23070512/Legal+Notices+and+3rd+Party+Licenses", MLNX("38.1002")},
	{RD_STACK_MLNX_OFED, "23.10-0.5.5.0", DOCS "MLNXOFEDv23100550/Legal+Notices+and+3rd+Party+Licenses", MLNX("39.1002")},
	{RD_STACK_MLNX_OFED, "23.10-1.1.9.0", DOCS "MLNXOFEDv23101190LTS/Legal+Notices+and+3rd+Party+Licenses", MLNX("39.2048")},
	{RD_STACK_MLNX_OFED, "23.10-2.1.3.1", DOCS "mlnxofedv23103211lts/Legal+Notices+and+3rd+Party+Licenses", MLNX("39.3004")},
	{RD_STACK_MLNX_OFED, "23.10-3.2.2.0", DOCS "MLNXOFEDv23103220lts/Legal+Notices+and+3rd+Party+Licenses", MLNX("39.3560")},
	{RD_STACK_MLNX_OFED, "23.10-4.0.9.1", DOCS "mlnxofedv23104091lts/Legal+Notices+and+3rd+Party+Licenses", MLNX("39.4xxx")},
	{RD_STACK_MLNX_OFED, "23.10-5.1.4.0", DOCS "mlnxofedv23105140lts/legal+notices+and+3rd+party+licenses", MLNX("39.50xx")},
	{RD_STACK_MLNX_OFED, "23.10-6.1.6.1", DOCS "mlnxofedv23106161lts/legal-notices-and-3rd-party-licenses", MLNX("39.51xx")},
	{RD_STACK_MLNX_OFED, "24.01-0.3.3.1", DOCS "mlnxofedv24010331/legal+notices+and+3rd+party+licenses", MLNX("40.1000")},
	/* the MFT 4.28 page for the same release says xx.41.1000 */
	{RD_STACK_MLNX_OFED, "24.04-0.6.6.0", DOCS "mlnxofedv24040660/legal+notices+and+3rd+party+licenses", MLNX("41.10xx")},
	/* the MFT 4.29.0 page ("Firmware xx.42.1000, MLNX_OFED 24.07-0.6.1.0") */
	{RD_STACK_MLNX_OFED, "24.07-0.6.1.0", DOCS "mftv4290/legal+notices+and+3rd+party+licenses", MLNX("42.1000")},
	/* the MLNX_EN page of the same release (and MFT 4.30.0's) */
	{RD_STACK_MLNX_OFED, "24.10-0.7.0.0", DOCS "mlnxenv24100700/Legal+Notices+and+3rd+Party+Licenses", MLNX("43.1000")},
	{RD_STACK_MLNX_OFED, "24.10-1.1.4.0", DOCS "mlnxofedv24101140lts/legal+notices+and+3rd+party+licenses", MLNX("43.2026")},
	/* 24.10-2.1.8.0: its "Changes and New Features" page says the bundled firmware was updated, but
	 * no page found names the version, so it has no row */
	{RD_STACK_MLNX_OFED, "24.10-3.2.5.0", DOCS "mlnxofedv24103250lts/legal+notices+and+3rd+party+licenses", MLNX("43.36xx")},
	/* the MLNX_OFED page says xx.43.4100, the MFT 4.30.1-1216 page for the same release xx.43.4076 */
	{RD_STACK_MLNX_OFED, "24.10-4.1.4.0", DOCS "mlnxofedv24104140lts/legal-notices-and-3rd-party-licenses",
	 {[RD_AD_CX6] = ALT("20", "43.4100", "43.4076"), [RD_AD_CX6DX] = ALT("22", "43.4100", "43.4076"),
	  [RD_AD_CX6LX] = ALT("26", "43.4100", "43.4076"), [RD_AD_BF2] = ALT("24", "43.4100", "43.4076"),
	  [RD_AD_CX7] = ALT("28", "43.4100", "43.4076")}},
	/* DOCA: "Bundled Firmware Version" per adapter */
	{RD_STACK_DOCA_OFED, "2.9.0", DOCA "2-9-0/General+Support",
	 {[RD_AD_CX6] = "20.43.1014", [RD_AD_CX6DX] = "22.43.1014", [RD_AD_CX6LX] = "26.43.1014",
	  [RD_AD_BF2] = "24.43.1014", [RD_AD_CX7] = "28.43.1014", [RD_AD_BF3] = "32.43.1014"}},
	{RD_STACK_DOCA_OFED, "2.9.1", DOCA "2-9-1/General+Support",
	 {[RD_AD_CX6] = "20.43.2026", [RD_AD_CX6DX] = "22.43.2026", [RD_AD_CX6LX] = "26.43.2026",
	  [RD_AD_BF2] = "24.43.2402", [RD_AD_CX7] = "28.43.2026", [RD_AD_BF3] = "32.43.2402"}},
	{RD_STACK_DOCA_OFED, "2.9.2", DOCA "2-9-2/General+Support",
	 {[RD_AD_CX6] = "20.43.2566", [RD_AD_CX6DX] = "22.43.2566", [RD_AD_CX6LX] = "26.43.2566",
	  [RD_AD_BF2] = "24.43.2566", [RD_AD_CX7] = "28.43.2566", [RD_AD_BF3] = "32.43.2566"}},
	{RD_STACK_DOCA_OFED, "2.9.3", DOCA "2-9-3/General+Support",
	 {[RD_AD_CX6] = "20.43.3608", [RD_AD_CX6DX] = "22.43.3608", [RD_AD_CX6LX] = "26.43.3608",
	  [RD_AD_BF2] = "24.43.3608", [RD_AD_CX7] = "28.43.3608", [RD_AD_BF3] = "32.43.3608"}},
	{RD_STACK_DOCA_OFED, "2.10.0", DOCA "2-10-0/General+Support",
	 {[RD_AD_CX6] = "20.43.2026", [RD_AD_CX6DX] = "22.44.1036", [RD_AD_CX6LX] = "26.44.1036",
	  [RD_AD_BF2] = "24.44.1036", [RD_AD_CX7] = "28.44.1036", [RD_AD_BF3] = "32.44.1036", [RD_AD_CX8] = "40.44.1036"}},
	{RD_STACK_DOCA_OFED, "3.0.0", DOCA "3-0-0/General+Support",
	 {[RD_AD_CX6] = "20.43.2566", [RD_AD_CX6DX] = "22.45.1020", [RD_AD_CX6LX] = "26.45.1020",
	  [RD_AD_BF2] = "24.45.1020", [RD_AD_CX7] = "28.45.1020", [RD_AD_BF3] = "32.45.1020", [RD_AD_CX8] = "40.45.1020"}},
	{RD_STACK_DOCA_OFED, "3.1.0", DOCA "3-1-0/General+Support",
	 {[RD_AD_CX6] = "20.43.3608", [RD_AD_CX6DX] = "22.46.1006", [RD_AD_CX6LX] = "26.46.1006",
	  [RD_AD_BF2] = "24.46.1006", [RD_AD_CX7] = "28.46.1006", [RD_AD_BF3] = "32.46.1006", [RD_AD_CX8] = "40.46.1006"}},
	{RD_STACK_UNKNOWN, NULL, NULL, {NULL}},
};

static const struct {
	unsigned id;
	enum rd_adapter a;
} ids[] = {
	{0x1013, RD_AD_CX4}, {0x1015, RD_AD_CX4LX}, {0x1017, RD_AD_CX5}, {0x1019, RD_AD_CX5},
	{0x101b, RD_AD_CX6}, {0x101d, RD_AD_CX6DX}, {0x101f, RD_AD_CX6LX}, {0xa2d6, RD_AD_BF2},
	{0x1021, RD_AD_CX7}, {0xa2dc, RD_AD_BF3},   {0x1023, RD_AD_CX8},
};
static const char *const names[RD_AD_N] = {"ConnectX-4", "ConnectX-4 Lx", "ConnectX-5", "ConnectX-6", "ConnectX-6 Dx",
					    "ConnectX-6 Lx", "BlueField-2", "ConnectX-7", "BlueField-3", "ConnectX-8"};
static const unsigned majors[RD_AD_N] = {12, 14, 16, 20, 22, 26, 24, 28, 32, 40};

enum rd_adapter rd_adapter_of(unsigned device_id)
{
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		if (ids[i].id == device_id)
			return ids[i].a;
	return RD_AD_NONE;
}

const char *rd_adapter_name(enum rd_adapter a)
{
	return a > RD_AD_NONE && a < RD_AD_N ? names[a] : "";
}

unsigned rd_adapter_fw_major(enum rd_adapter a)
{
	return a > RD_AD_NONE && a < RD_AD_N ? majors[a] : 0;
}

/* "24.10-1.1.4.0", "24.10-1.1.4", "24.10.OFED.24.10.1.1.4.1" -> "24.10-1.1.4"; 0 or -1. */
static int canon(const char *v, char *out, size_t len)
{
	const char *o = strstr(v, "OFED.");
	if (o)
		v = o + 5;
	unsigned long n[5];
	int k = 0;
	while (k < 5) {
		if (!isdigit((unsigned char)*v))
			return -1;
		unsigned long x = 0;
		int digits = 0;
		for (; isdigit((unsigned char)*v) && digits < 9; v++, digits++)
			x = x * 10 + (unsigned long)(*v - '0');
		if (isdigit((unsigned char)*v))
			return -1;
		n[k++] = x;
		if (k < 5 && *v != '.' && *v != '-')
			return -1;
		if (k < 5)
			v++;
	}
	snprintf(out, len, "%lu.%lu-%lu.%lu.%lu", n[0], n[1], n[2], n[3], n[4]);
	return 0;
}

const struct rd_fw_release *rd_fwtrain_find(enum rd_stack_kind kind, const char *version, const char *doca_version)
{
	char want[64], have[64];
	for (const struct rd_fw_release *r = rd_fw_releases; r->version; r++) {
		if (r->flavor != kind)
			continue;
		if (kind == RD_STACK_MLNX_OFED && version && canon(version, want, sizeof want) == 0 &&
		    canon(r->version, have, sizeof have) == 0 && strcmp(want, have) == 0)
			return r;
		if (kind == RD_STACK_DOCA_OFED && doca_version) {
			size_t n = strlen(r->version);
			if (strncmp(doca_version, r->version, n) == 0 && (doca_version[n] == '\0' || doca_version[n] == '-'))
				return r;
		}
	}
	return NULL;
}

const char *rd_fwtrain_expected(const struct rd_fw_release *r, enum rd_adapter a)
{
	return r && a > RD_AD_NONE && a < RD_AD_N ? r->fw[a] : NULL;
}

/* One alternative [p, end) against fw. */
static bool match_one(const char *p, const char *end, const char *fw)
{
	int dots = 0;
	for (; p < end; p++, fw++) {
		if (*p == '.') {
			if (*fw != '.')
				return false;
			dots++;
		} else if (!isdigit((unsigned char)*fw) || (*p != 'x' && *p != *fw)) {
			return false;
		}
	}
	return *fw == '\0' && dots == 2;
}

bool rd_fwtrain_match(const char *pattern, const char *fw)
{
	if (!pattern || !fw)
		return false;
	for (const char *p = pattern;;) {
		const char *bar = strchr(p, '|');
		const char *end = bar ? bar : p + strlen(p);
		if (match_one(p, end, fw))
			return true;
		if (!bar)
			return false;
		p = bar + 1;
	}
}
