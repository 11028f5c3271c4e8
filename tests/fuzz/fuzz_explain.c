/* Fuzz target: the explain scanner over any input, and the kernel.log check over the same text
 * as a captured dmesg. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "explain/explain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_explain_scan scan;
	rd_explain_scan_init(&scan);
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		rd_explain_scan_line(&scan, p, n);
		p += n + (nl ? 1 : 0);
	}
	rd_explain_scan_free(&scan);

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
	rd_report_free(&r);
	free(sys.dmesg.data);
	rd_policy_free(&pol);
	return 0;
}
