/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the policy file (inih + our handler), without a host, on a host its patterns may
 * name, and on a host named by the input's last line (the scoped sections' matcher). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	char host[80];
	const char *last = strrchr(s, '\n');
	last = last ? last + 1 : s;
	last += strspn(last, ";# "); /* a comment line naming the host keeps the file valid */
	snprintf(host, sizeof host, "%s", last);
	const char *const hosts[] = {NULL, "gpu001.cluster", host};
	for (size_t i = 0; i < 3; i++) {
		struct rd_policy p;
		char err[256];
		rd_policy_defaults(&p);
		rd_policy_parse_host(s, "fuzz.conf", hosts[i], &p, err, sizeof err);
		(void)rd_policy_ignores(&p, "mlx5_0", 1);
		for (size_t k = 0; k < p.nsettings; k++)
			if (!p.settings[k].line || !p.settings[k].value)
				abort();
		rd_policy_free(&p);
	}
	free(s);
	return 0;
}
