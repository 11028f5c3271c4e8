/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the text roce.gid and firmware.pinned take from a host or an environment —
 * OFED/DOCA version strings (the train lookup), firmware versions against every train pattern,
 * and NCCL_IB_* values (index, version, family, address range).  Input: lines. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/fwtrain.h"
#include "model/gid.h"

static const char *lines[6];

static const char *fake_env(const char *name)
{
	static const char *const names[] = {"NCCL_IB_GID_INDEX", "NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_ADDR_FAMILY",
					    "NCCL_IB_ADDR_RANGE"};
	for (int i = 0; i < 4; i++)
		if (strcmp(name, names[i]) == 0)
			return lines[2 + i];
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	memset(lines, 0, sizeof lines);
	char *p = s;
	for (int i = 0; i < 6 && p; i++) {
		lines[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
	(void)rd_fwtrain_find(RD_STACK_MLNX_OFED, lines[0], NULL);
	(void)rd_fwtrain_find(RD_STACK_DOCA_OFED, lines[0], lines[0]);
	for (const struct rd_fw_release *r = rd_fw_releases; r->version; r++)
		for (int a = 0; a < RD_AD_N; a++)
			(void)rd_fwtrain_match(r->fw[a], lines[1]);
	(void)rd_fwtrain_match(lines[0], lines[1]);
	struct rd_nccl_env e;
	struct rd_nccl_sel sel;
	rd_nccl_env_read(&e, fake_env);
	rd_nccl_sel_make(&sel, &e, -1, 0, 0, 0);
	struct rd_port port;
	memset(&port, 0, sizeof port);
	struct rd_gid g[2];
	memset(g, 0, sizeof g);
	g[1].index = 1;
	memcpy(g[1].gid, s, size < 16 ? size : 16);
	g[1].type = (char *)(uintptr_t)lines[1];
	port.gids = g;
	port.ngids = 2;
	(void)rd_nccl_auto_gid(&port, &sel);
	char why[96];
	(void)rd_nccl_gid_usable(&port, 1, &sel, why, sizeof why);
	free(s);
	return 0;
}
