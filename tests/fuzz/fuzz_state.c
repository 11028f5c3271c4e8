/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the link state file (model/state.c) in both formats, parsed and written back;
 * the history rules (baseline, record) run over what was read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_state st;
	char err[256];
	if (rd_state_parse((const char *)data, size, &st, err, sizeof err) == 0) {
		char *text = rd_state_format(&st);
		struct rd_state back;
		/* what is written parses again, to the same samples and entries */
		if (rd_state_parse(text, strlen(text), &back, err, sizeof err) != 0 || back.ns != st.ns)
			abort();
		for (size_t i = 0; i < st.ns; i++)
			if (back.s[i].n != st.s[i].n || back.s[i].time != st.s[i].time || back.s[i].kind != st.s[i].kind)
				abort();
		rd_state_free(&back);
		free(text);
		/* the window rules on what was read: a baseline is one of its samples, and a sample
		 * recorded after them leaves a history that is written and read back */
		long long now = st.ns ? st.s[st.ns - 1].time + 60 : 1764460800;
		for (int k = 0; k < 2; k++) {
			struct rd_baseline b;
			rd_state_baseline(&st, k, st.ns ? st.s[0].boot_id : "", now, 3600, &b);
			if (b.why == RD_BASE_FOUND && (b.s < st.s || b.s >= st.s + st.ns || b.s->kind != k))
				abort();
			struct rd_state tmp = {0};
			struct rd_state_sample *cur = rd_state_add_sample(&tmp, k, now, st.ns ? st.s[0].boot_id : "");
			rd_state_add(cur, k == RD_SAMPLE_CARRIER ? RD_STATE_NETDEV : RD_STATE_COUNTER, "mlx5_0", k ? 0 : 1, "x", 1);
			rd_state_record(&st, cur, now, 3600);
			rd_state_free(&tmp);
		}
		text = rd_state_format(&st);
		if (strlen(text) <= RD_STATE_MAX_BYTES && rd_state_parse(text, strlen(text), &back, err, sizeof err) != 0)
			abort();
		rd_state_free(&back);
		free(text);
		rd_state_free(&st);
	}
	return 0;
}
