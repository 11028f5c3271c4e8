/* Fuzz target: every sysfs attribute parser (rate, state/phys_state/node_type, numbers, GUIDs,
 * GIDs, counters, hca_type) on the same bytes. */
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
	struct rd_rate r;
	struct rd_enum_text e;
	uint64_t v;
	uint8_t gid[16];
	unsigned id;
	rd_parse_rate(s, &r);
	rd_parse_enum_text(s, &e);
	rd_parse_u64(s, 0, UINT64_MAX, &v);
	rd_parse_u64(s, 16, 0xffff, &v);
	rd_parse_guid(s, &v);
	if (rd_parse_gid(s, gid) == 0)
		(void)rd_gid_is_zero(gid);
	rd_parse_counter(s, &v);
	if (rd_parse_hca_type(s, &id) == 0)
		(void)rd_hca_model_name(id);
	free(s);
	return 0;
}
