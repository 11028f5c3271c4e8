/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: what `rdma-doctor slurm` reads from scontrol (`scontrol show node -o` output) and
 * the reason sanitiser, on any bytes: the parse either fails or gives a non-empty state and a
 * reason without line breaks; the cleaned reason is printable ASCII without '"', at most max bytes;
 * the decision is one of the actions; a cleaned reason set on a node is parsed back unchanged (a
 * " [user@time]" inside it is not Slurm's suffix). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/slurm.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = rd_xstrndup((const char *)data, size);
	struct rd_slurm_node n;
	if (rd_slurm_parse_node(text, &n) == 0) {
		if (!n.state || !*n.state || !n.name || strchr(n.state, ' ') || strchr(n.state, '\n'))
			abort();
		if (n.reason && (!*n.reason || strchr(n.reason, '\n')))
			abort();
		if (n.drained && !n.out_of_service)
			abort();
		for (int v = RD_SLURM_HEALTHY; v <= RD_SLURM_UNKNOWN; v++) {
			enum rd_slurm_action a = rd_slurm_decide((enum rd_slurm_verdict)v, &n, "rdma-doctor: x");
			if (a > RD_SLURM_KEEP_UNKNOWN)
				abort();
			/* never resume, replace or clear what is not ours while the node is out of service */
			if (n.reason && !rd_slurm_reason_ours(n.reason) && n.out_of_service &&
			    (a == RD_SLURM_RESUME || a == RD_SLURM_DRAIN))
				abort();
		}
		rd_slurm_node_free(&n);
	} else if (n.state || n.reason || n.name) {
		abort();
	}
	static const size_t maxes[] = {4, 17, RD_SLURM_REASON_MAX, 1000};
	for (size_t i = 0; i < sizeof maxes / sizeof maxes[0]; i++) {
		char *c = rd_slurm_reason_clean(text, maxes[i]);
		size_t len = strlen(c);
		if (len > maxes[i] || (len && (c[0] == ' ' || c[len - 1] == ' ')))
			abort();
		for (const char *p = c; *p; p++)
			if (*p < 0x20 || *p > 0x7e || *p == '"' || (p[0] == ' ' && p[1] == ' '))
				abort();
		/* a reason we set comes back exactly from the node's line, whatever it holds */
		if (*c && strcmp(c, "(null)") != 0) {
			char *line = rd_xasprintf("NodeName=x State=IDLE+DRAIN Reason=%s [root@2026-12-01T07:29:31]\n", c);
			if (rd_slurm_parse_node(line, &n) != 0 || !n.reason || strcmp(n.reason, c) != 0)
				abort();
			rd_slurm_node_free(&n);
			free(line);
		}
		free(c);
	}
	free(text);
	return 0;
}
