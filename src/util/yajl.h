/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* yajl (Debian libyajl2), loaded on the first JSON document read (util/dl.h), so that a command
 * that reads no JSON never maps it: fleet's reports (fleet/report_in.c) and pairs' results
 * (pairs/results_in.c); and two helpers of the readers.  Each member has exactly the type <yajl/yajl_parse.h> declares.
 *
 * Ownership: the table is static and stays valid until exit; err and the handles are the caller's. */
#ifndef RD_UTIL_YAJL_H
#define RD_UTIL_YAJL_H
#include <stddef.h>
#include <yajl/yajl_parse.h>

#define RD_YAJL_MEMBERS(X) X(alloc) X(config) X(parse) X(complete_parse) X(get_error) X(free_error) X(free)
struct rd_yajl {
#define RD_YAJL_MEMBER(name) __typeof__(&yajl_##name) name;
	RD_YAJL_MEMBERS(RD_YAJL_MEMBER)
#undef RD_YAJL_MEMBER
};

/* The loaded functions, or NULL with the one-line reason in err (the same reason every time). */
const struct rd_yajl *rd_yajl_get(char *err, size_t errlen);

/* "WHAT (yajl's message)" into err: its first line, without the trailing blanks. */
void rd_yajl_reason(const struct rd_yajl *y, yajl_handle h, const char *what, char *err, size_t errlen);

/* A JSON string's bytes as a reader keeps them (a copy, the caller's): a NUL byte ends it, and past
 * cap bytes it is cut, never inside a UTF-8 sequence.  *dst is freed and replaced. */
void rd_json_keep_str(char **dst, const unsigned char *s, size_t n, size_t cap);
/* A JSON number's text (nlen bytes, as yajl gives it) as a finite number from 0 to max, or -1 for
 * anything else (NULL, too long, negative, not finite, above max). */
double rd_json_number(const char *num, size_t nlen, double max);

#endif
