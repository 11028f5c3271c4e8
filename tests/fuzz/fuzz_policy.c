/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the policy file (inih + our handler). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	struct rd_policy p;
	char err[256];
	rd_policy_defaults(&p);
	rd_policy_parse(s, "fuzz.conf", &p, err, sizeof err);
	(void)rd_policy_ignores(&p, "mlx5_0", 1);
	rd_policy_free(&p);
	free(s);
	return 0;
}
