/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: modules-load.d, openib.conf, dpkg status, ofed_info -s, systemd values and sizes,
 * limits.conf, a snapshot's device node list. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	struct rd_strv m = {0};
	struct rd_modload_bad *bad = NULL;
	size_t nbad = 0;
	rd_parse_modules_load((const char *)data, size, &m, &bad, &nbad);
	rd_modload_bad_free(bad, nbad);
	rd_strv_free(&m);
	rd_parse_openib_conf(s, &m);
	rd_strv_free(&m);
	char ver[96], buf[64];
	rd_dpkg_package(s, "rdma-core", ver, sizeof ver);
	rd_dpkg_package(s, "mlnx-ofed-kernel-dkms", ver, sizeof ver);
	{
		static const char *const names[] = {"rdma-core", "mlnx-ofed-kernel-dkms", "mft"};
		int found[3];
		char vers[3][96];
		rd_dpkg_packages(s, names, 3, found, vers[0], sizeof vers[0]);
		for (size_t i = 0; i < 3; i++)
			if (found[i] != rd_dpkg_package(s, names[i], ver, sizeof ver) || strcmp(vers[i], ver) != 0)
				abort(); /* the one pass must answer as one lookup per name */
	}
	struct rd_ofed_info o;
	rd_parse_ofed_info(s, &o);
	uint64_t v, soft = 0, hard = 0;
	rd_parse_systemd_size(s, &v);
	if (rd_systemd_value(s, "LimitMEMLOCK", buf, sizeof buf))
		rd_parse_systemd_size(buf, &v);
	rd_limits_conf_memlock(s, "slurm", &soft, &hard);
	char name[64];
	unsigned mode, uid, gid;
	if (rd_parse_devnode_line(s, name, sizeof name, &mode, &uid, &gid) == 0 && (mode > 07777 || strlen(name) >= sizeof name))
		abort();
	free(s);
	return 0;
}
