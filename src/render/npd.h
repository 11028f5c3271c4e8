/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The one line node-problem-detector's custom plugin protocol reads (`rdma-doctor npd`), and its
 * exit status: 0 OK (a WARN is OK, with its message), 1 a problem (a FAIL), 3 unknown (an UNKNOWN
 * verdict or no RDMA hardware; NPD reads anything but 0 and 1 as Unknown).  The line names the
 * worst finding's status, check and subject, is printable ASCII only and at most RD_NPD_LINE_MAX
 * characters (NPD's default max_output_length), cut with "..." when longer.
 * Ownership: borrows everything; keeps nothing. */
#ifndef RD_NPD_H
#define RD_NPD_H
#include <stddef.h>

#include "checks/check.h"
#include "render/report.h"

#define RD_NPD_LINE_MAX 80

/* Fills line (at least RD_NPD_LINE_MAX + 1 bytes; no newline) and returns the exit status. */
int rd_report_npd(const struct rd_report *r, const struct rd_report_meta *meta, char *line, size_t len);

/* Copies src into dst (len bytes with the NUL, at most RD_NPD_LINE_MAX characters): bytes that are
 * not printable ASCII become '?', runs of blanks one space, and a longer text ends in "...". */
void rd_npd_sanitise(char *dst, size_t len, const char *src);

#endif
