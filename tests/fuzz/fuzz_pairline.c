/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the control lines a `pair` peer sends (probe/pair.c), each line of the input through
 * the hello and the rail parsers.  What is taken has names of the travelling characters only,
 * a port, MTU and counts in range, and a GID only with an index. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/pair.h"

static void names_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 63 || s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-")])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[RD_PAIR_LINE_MAX + 1];
	size_t i = 0;
	while (i < size) {
		size_t n = 0;
		while (i < size && data[i] != '\n' && n < RD_PAIR_LINE_MAX)
			line[n++] = (char)data[i++];
		i++;
		line[n] = '\0';
		struct rd_pair_hello h;
		if (rd_pair_parse_hello(line, &h) == 0) {
			names_ok(h.host);
			if (h.nrails > RD_PAIR_RAILS_MAX || !h.budget_ms || h.budget_ms > RD_PAIR_BUDGET_MAX_MS)
				abort();
		}
		struct rd_pair_qp_line q;
		if (rd_pair_parse_qp(line, &q) == 0) {
			names_ok(q.device);
			if (!q.port || q.port > 255 || !q.mtu || q.mtu > 5 || q.qpn > 0xffffff || q.psn > 0xffffff ||
			    (q.has_gid && q.gid_index < 0) || q.gid_index > 255 || !(q.line_gbps >= 0))
				abort();
		}
	}
	return 0;
}
