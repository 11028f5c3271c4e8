/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: every sysfs attribute parser (rate, state/phys_state/node_type, numbers, GUIDs,
 * GIDs, counters, hca_type, PCI addresses alone and in a kernel line) on the same bytes. */
#include <stdint.h>
#include <stdio.h>
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
	(void)rd_is_pci_addr(s);
	/* a kernel name is never shown as another's: no byte that any output turns into U+FFFD */
	if (rd_is_kernel_name(s, 255)) {
		for (const unsigned char *q = (const unsigned char *)s; *q; q++)
			if (*q < 0x20 || *q == 0x7f || *q == '/')
				abort();
		if (strlen(s) > 255)
			abort();
	}
	unsigned long num;
	if (rd_is_canonical_uint(s, 0xffffffffUL, &num)) {
		char back[16];
		snprintf(back, sizeof back, "%lu", num);
		if (strcmp(back, s) != 0) /* canonical: the number printed back is the name */
			abort();
	}
	(void)rd_text_names_pci(s, "0000:1b:00.0", ": ");
	(void)rd_text_names_pci(s, "10000:e1:00.0", "");
	if (size > 2) /* the address itself from the input: the text's tail as the needle */
		(void)rd_text_names_pci(s, s + size / 2, s + size - 1);
	free(s);
	return 0;
}
