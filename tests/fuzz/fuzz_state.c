/* Fuzz target: the link state file (model/state.c), parsed and written back. */
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
		/* what is written parses again, to the same entries */
		if (rd_state_parse(text, strlen(text), &back, err, sizeof err) != 0 || back.n != st.n)
			abort();
		rd_state_free(&back);
		free(text);
		rd_state_free(&st);
	}
	return 0;
}
