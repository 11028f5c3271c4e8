/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: /proc/modules lines, /proc/<pid>/limits and /proc/<pid>/status. */
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
	for (char *line = s; line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		struct rd_proc_module m;
		rd_parse_proc_modules_line(line, &m);
		if (nl)
			*nl = '\n';
		line = nl ? nl + 1 : NULL;
	}
	uint64_t a, b;
	rd_parse_limits_memlock(s, &a, &b);
	rd_parse_capeff(s, &a);
	free(s);
	return 0;
}
