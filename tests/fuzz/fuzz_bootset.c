/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the operator's boot-time hooks (model/bootset.h): the input's first line is an
 * interface name, the rest a hook file's text; its lines naming mlnx_qos or dcb are kept (within
 * the bounds), an ExecStart= path taken, and each kept line asked whether it sets the interface. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/bootset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const tools[] = {"mlnx_qos", "dcb", NULL};
	const char *nl = memchr(data, '\n', size);
	size_t il = nl ? (size_t)(nl - (const char *)data) : size;
	char ifname[32];
	snprintf(ifname, sizeof ifname, "%.*s", (int)(il < 31 ? il : 31), (const char *)data);
	const char *text = nl ? nl + 1 : (const char *)data + size;
	size_t tl = size - (size_t)(text - (const char *)data);
	struct rd_bootset b = {0};
	char *exec = NULL;
	rd_bootset_scan_text(&b, "/etc/rc.local", text, tl, tools, &exec);
	if (b.n > RD_BOOTSET_MAX_LINES || (exec && exec[0] != '/'))
		abort();
	for (size_t i = 0; i < b.n; i++) {
		if (strlen(b.v[i].text) > 300)
			abort();
		(void)rd_bootset_covers(&b.v[i], ifname);
	}
	free(exec);
	rd_bootset_free(&b);
	return 0;
}
