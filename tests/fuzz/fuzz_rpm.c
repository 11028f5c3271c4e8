/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: what model/rpmdb.c parses itself — /etc/os-release, /etc/infiniband/info, the
 * kernel in a kmod package's release, and the librpm child's answer (the rpm headers as read). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/rpmdb.h"
#include "model/stack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	struct rd_os_release os;
	rd_parse_os_release(s, &os);
	rd_os_release_rpmdb(&os);
	char k[128], small[6];
	rd_parse_ib_info(s, k, sizeof k);
	rd_parse_ib_info(s, small, sizeof small);
	rd_rpm_release_kernel(s, k, sizeof k);
	rd_rpm_release_kernel(s, small, sizeof small);
	struct rd_rpmdb r;
	memset(&r, 0, sizeof r);
	r.consulted = true;
	r.path = strdup("/var/lib/rpm/rpmdb.sqlite");
	rd_rpm_parse_answer((const char *)data, size, &r);
	for (size_t i = 0; i < r.npkgs; i++)
		rd_rpm_release_kernel(r.pkgs[i].release, k, sizeof k);
	struct rd_stack st;
	memset(&st, 0, sizeof st);
	rd_rpmdb_stack(&r, &st);
	rd_rpmdb_free(&r);
	free(s);
	return 0;
}
