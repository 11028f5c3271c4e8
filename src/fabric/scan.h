/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Small scanners over one line [p, e) of a tool's output, shared by the fabric's parsers
 * (parse.c, route.c).  Each takes *pp forward past what it read only when it read it; none reads
 * past e or trusts a length from the input.
 *
 * Ownership: they borrow the line; rd_fab_trimdup returns a copy the caller frees. */
#ifndef RD_FABRIC_SCAN_H
#define RD_FABRIC_SCAN_H
#include <stdbool.h>
#include <stdint.h>

const char *rd_fab_skip_sp(const char *p, const char *e);
/* "0x" and 1..16 hex digits */
bool rd_fab_scan_hex(const char **pp, const char *e, uint64_t *v);
/* decimal digits, at most max */
bool rd_fab_scan_uint(const char **pp, const char *e, unsigned max, unsigned *v);
/* "2.5", "25.78125": no sign, no exponent */
bool rd_fab_scan_num(const char **pp, const char *e, double *v);
/* the literal s */
bool rd_fab_lit(const char **pp, const char *e, const char *s);
const char *rd_fab_find(const char *p, const char *e, const char *s);
const char *rd_fab_rfind(const char *b, const char *e, const char *s);
/* a copy of [b, e) without leading and trailing blanks, control bytes as '?' */
char *rd_fab_trimdup(const char *b, const char *e);

#endif
