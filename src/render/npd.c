/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-doctor npd: see npd.h. */
#include <stdio.h>
#include <string.h>

#include "render/npd.h"

void rd_npd_sanitise(char *dst, size_t len, const char *src)
{
	size_t max = len - 1 < RD_NPD_LINE_MAX ? len - 1 : RD_NPD_LINE_MAX, n = 0;
	const unsigned char *s = (const unsigned char *)src;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	bool cut = false;
	for (; *s; s++) {
		unsigned char c = *s;
		bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
		if (blank && (n == 0 || dst[n - 1] == ' '))
			continue;
		if (n == max) {
			cut = true;
			break;
		}
		char out = blank ? ' ' : (c > 0x20 && c < 0x7f) ? (char)c : '?';
		if (c >= 0xc0) { /* one mark for a whole UTF-8 sequence; a dash stays a dash (as in a Slurm reason) */
			size_t k;
			out = rd_utf8_ascii(s, strlen((const char *)s), &k);
			s += k - 1;
		}
		dst[n++] = out;
	}
	if (cut && max >= 3)
		memcpy(dst + max - 3, "...", 3);
	while (!cut && n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
}

int rd_report_npd(const struct rd_report *r, const struct rd_report_meta *meta, char *line, size_t len)
{
	if (meta->no_hardware) {
		rd_npd_sanitise(line, len, "UNKNOWN: no RDMA hardware on this host");
		return 3;
	}
	const struct rd_finding *worst = NULL;
	size_t same = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct rd_finding *x = &r->findings[i];
		if (x->status == RD_OK || x->status == RD_SKIP)
			continue;
		if (!worst || rd_status_worse(x->status, worst->status)) {
			worst = x;
			same = 1;
		} else if (x->status == worst->status) {
			same++;
		}
	}
	char buf[1024];
	if (!worst) {
		rd_npd_sanitise(line, len, "OK: rdma-doctor found no problem");
		return 0;
	}
	char more[32] = "";
	if (same > 1)
		snprintf(more, sizeof more, " (+%zu more)", same - 1);
	/* the tail is kept: the message is cut, not the count of other findings */
	char tail[1024];
	snprintf(tail, sizeof tail, "%s %s %s: %s", rd_status_name(worst->status), worst->check,
		 worst->subject ? worst->subject : "host", worst->message ? worst->message : "");
	size_t keep = RD_NPD_LINE_MAX - strlen(more);
	char head[RD_NPD_LINE_MAX + 1];
	rd_npd_sanitise(head, keep + 1, tail);
	snprintf(buf, sizeof buf, "%s%s", head, more);
	rd_npd_sanitise(line, len, buf);
	return worst->status == RD_FAIL ? 1 : worst->status == RD_WARN ? 0 : 3;
}
