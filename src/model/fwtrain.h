/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The firmware each MLNX_OFED / DOCA-OFED release ships ("train"), per adapter, from NVIDIA's
 * release notes (every row names its document), and the firmware major of each adapter.
 *
 * Ownership: everything here is static; nothing to free. */
#ifndef RD_FWTRAIN_H
#define RD_FWTRAIN_H
#include <stdbool.h>
#include <stddef.h>

#include "model/stack.h"

/* The adapters whose firmware the table can pair with a release. */
enum rd_adapter {
	RD_AD_NONE = -1,
	RD_AD_CX4, RD_AD_CX4LX, RD_AD_CX5, RD_AD_CX6, RD_AD_CX6DX, RD_AD_CX6LX, RD_AD_BF2, RD_AD_CX7, RD_AD_BF3,
	RD_AD_CX8,
	RD_AD_N
};

struct rd_fw_release {
	enum rd_stack_kind flavor;   /* RD_STACK_MLNX_OFED or RD_STACK_DOCA_OFED */
	const char *version;         /* as NVIDIA names it: "24.10-1.1.4.0", DOCA "2.9.1" */
	const char *source;          /* the release notes page the row comes from */
	const char *fw[RD_AD_N];     /* "28.43.2026", "28.41.10xx" (x: any digit), alternatives
				      * "28.43.4100|28.43.4076"; NULL: the release does not pair
				      * that adapter with one train (ConnectX-4/-5) or does not
				      * support it (MLNX_OFED and BlueField-3, ConnectX-8) */
};

/* The adapter of a PCI device id (from hca_type), RD_AD_NONE when not a ConnectX-4+/BlueField-2+
 * physical function (VFs, ConnectX-3, BlueField-1 and unknown ids). */
enum rd_adapter rd_adapter_of(unsigned device_id);
/* "ConnectX-7" ...; "" for RD_AD_NONE. */
const char *rd_adapter_name(enum rd_adapter a);
/* Firmware major of the adapter (ConnectX-7: 28), 0 for RD_AD_NONE. */
unsigned rd_adapter_fw_major(enum rd_adapter a);

/* The table row for an installed stack: MLNX_OFED by its version ("24.10-1.1.4.0" from
 * ofed_info, or a package version "24.10.OFED.24.10.1.1.4.1"), DOCA-OFED by the version of its
 * doca-ofed / doca-host package ("2.9.1-0.2.0", doca_version).  NULL when the table has none. */
const struct rd_fw_release *rd_fwtrain_find(enum rd_stack_kind kind, const char *version, const char *doca_version);
/* The train the release ships for an adapter, or NULL (not judged). */
const char *rd_fwtrain_expected(const struct rd_fw_release *r, enum rd_adapter a);
/* True when fw ("28.43.2026") is one of the pattern's alternatives: three dot-separated decimal
 * numbers, each digit equal or 'x' in the pattern, the same number of digits. */
bool rd_fwtrain_match(const char *pattern, const char *fw);
/* The table, ended by a row with version NULL (for tests and docs). */
extern const struct rd_fw_release rd_fw_releases[];
#endif
