/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the unified diff of fix (old and new texts split at the first NUL byte). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fix/fix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0; /* the diff is quadratic by design: the files it serves are a few lines */
	char *s = malloc(size + 2);
	memcpy(s, data, size);
	s[size] = s[size + 1] = '\0';
	const char *old = s, *new = s + strlen(s) + 1;
	if (new > s + size)
		new = "";
	char *d = rd_unified_diff("/etc/modules-load.d/rdma.conf", old, new);
	free(d);
	free(s);
	return 0;
}
