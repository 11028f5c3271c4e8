/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the fabric's inputs (fabric/fabric.h): the input as iblinkinfo, ibnetdiscover and
 * sminfo output, merged, judged and made a reference; and the input as a reference file, compared
 * with that one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	struct rd_fabric f = {0}, net = {0};
	rd_fab_parse_iblinkinfo(&f, s, size);
	rd_fab_parse_ibnetdiscover(&net, s, size);
	rd_fab_parse_sminfo(&f, s, size);
	rd_fabric_merge(&f, &net);
	struct rd_strv expect = {0};
	rd_strv_push(&expect, "node01");
	struct rd_text smt = {.data = s, .len = size};
	struct rd_fab_judge_opts o = {.expect = &expect, .sminfo = &smt};
	struct rd_report r = {0};
	rd_fab_judge(&f, &o, &r);
	struct rd_fab_ref cur, ref;
	rd_fab_ref_from(&f, &cur);
	char err[256];
	if (rd_fab_ref_parse(s, size, &ref, err, sizeof err) == 0) {
		rd_fab_ref_compare(&ref, &cur, &r);
		rd_fab_ref_free(&ref);
	}
	rd_report_free(&r);
	rd_fab_ref_free(&cur);
	rd_strv_free(&expect);
	rd_fabric_free(&f);
	free(s);
	return 0;
}
