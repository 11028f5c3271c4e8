/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the probe child's report as the parent parses it (probe/wire.h), line by line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_probe_wire w;
	memset(&w, 0, sizeof w);
	char err[256];
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (rd_probe_wire_line(&w, p, len, err, sizeof err) < 0)
			break;
		p += len + 1;
	}
	rd_probe_wire_free(&w);
	return 0;
}
