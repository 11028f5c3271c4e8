/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the explain scanner over any input, fed in pieces whose sizes the input's first
 * byte chooses (lines and automaton state across feeds), its result judged against an empty
 * report; the kernel.log check over the same text as a captured dmesg; the result judged again on
 * that empty host (the facts read the matched lines); and the module a line names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "checks/kmod_build.h"
#include "explain/explain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_explain_scan scan;
	rd_explain_scan_init(&scan);
	size_t piece = size ? 1 + (size_t)data[0] * 331 : 1; /* 1 byte to beyond a block */
	for (size_t at = 0; at < size;) {
		size_t n = size - at < piece ? size - at : piece;
		rd_explain_scan_feed(&scan, (const char *)data + at, n);
		at += n;
	}
	rd_explain_scan_end(&scan);
	if (scan.bytes != size)
		abort();
	struct rd_explain_result res = {0};
	rd_explain_result_build(&res, &scan, NULL, NULL, NULL);
	for (size_t k = 0; k < res.nmatch; k++)
		if (!res.matches[k].m->count || strlen(res.matches[k].m->sample) > RD_EXPLAIN_SAMPLE)
			abort();
	rd_explain_result_free(&res);

	struct rd_host h;
	struct rd_system sys;
	struct rd_policy pol;
	struct rd_report r = {0};
	memset(&h, 0, sizeof h);
	memset(&sys, 0, sizeof sys);
	rd_policy_defaults(&pol);
	sys.dmesg.data = malloc(size + 1);
	memcpy(sys.dmesg.data, data, size);
	sys.dmesg.data[size] = '\0';
	sys.dmesg.len = size;
	rd_checks_run(&h, &sys, &pol, false, "kernel.log", NULL, &r);
	rd_explain_result_build(&res, &scan, &r, &h, &sys);
	rd_explain_result_free(&res);
	rd_explain_scan_free(&scan);
	char m[64];
	if (rd_kmod_line_module(sys.dmesg.data, m, sizeof m)) {
		if (strlen(m) >= sizeof m || !*m)
			abort();
		struct rd_kmod_judgement j;
		rd_kmod_judge(&h, &sys, m, &j);
	}
	rd_report_free(&r);
	free(sys.dmesg.data);
	rd_policy_free(&pol);
	return 0;
}
