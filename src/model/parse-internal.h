/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The helpers the parsers of parse.h share: parse.c (numbers and names), parse-sysfs.c,
 * parse-proc.c, parse-conf.c and parse-pkg.c.  Included by those files only.
 * Ownership: nothing here allocates; *sp is advanced in the caller's string. */
#ifndef RD_PARSE_INTERNAL_H
#define RD_PARSE_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/parse.h"
#include "util/util.h"

static inline const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* True when only blanks and at most one newline remain. */
static inline bool at_end(const char *s)
{
	s = skip_blanks(s);
	if (*s == '\n')
		s++;
	return *s == '\0';
}

static inline int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Parses digits of base at *sp; advances it.  Returns number of digits, -1 on overflow. */
static inline int scan_digits(const char **sp, int base, uint64_t max, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;
	int n = 0;
	for (; digit_value(*s) < base; s++, n++) {
		unsigned d = (unsigned)digit_value(*s);
		if (v > (max - d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + d;
	}
	*sp = s;
	*out = v;
	return n;
}

/* Copies the next blank-separated token of at most cap-1 bytes; returns false if none/too long. */
static inline bool next_token(const char **sp, char *buf, size_t cap)
{
	const char *s = skip_blanks(*sp);
	size_t n = 0;
	while (s[n] && s[n] != ' ' && s[n] != '\t' && s[n] != '\n')
		n++;
	if (n == 0 || n >= cap)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*sp = s + n;
	return true;
}

#endif
