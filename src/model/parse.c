/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Numbers and names, the parsers the others build on (parse.h). */
#include "model/parse-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rd_parse_u64(const char *s, int base, uint64_t max, uint64_t *out)
{
	*out = 0;
	if (!s)
		return -RD_EPARSE;
	s = skip_blanks(s);
	if (base == 0) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && digit_value(s[2]) < 16) {
			base = 16;
			s += 2;
		} else if (s[0] == '0' && s[1] >= '0' && s[1] <= '7') {
			base = 8;
			s += 1;
		} else {
			base = 10;
		}
	} else if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && digit_value(s[2]) < 16) {
		s += 2;
	}
	uint64_t v;
	int n = scan_digits(&s, base, max, &v);
	if (n <= 0 || !at_end(s))
		return -RD_EPARSE;
	*out = v;
	return 0;
}

bool rd_is_kernel_name(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n == 0 || n > max || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	while (p < end) {
		size_t l = rd_utf8_len(p, (size_t)(end - p));
		if (l == 0 || *p < 0x20 || *p == 0x7f || *p == '/' || (l == 2 && p[0] == 0xc2 && p[1] < 0xa0))
			return false; /* not UTF-8, a C0 control or DEL, a '/', a C1 control (U+0080-U+009F) */
		p += l;
	}
	return true;
}

bool rd_is_canonical_uint(const char *s, unsigned long max, unsigned long *out)
{
	size_t n = strspn(s, "0123456789");
	if (n == 0 || s[n] != '\0' || (s[0] == '0' && n > 1) || n > 10)
		return false;
	unsigned long long v = strtoull(s, NULL, 10);
	if (v > max)
		return false;
	if (out)
		*out = (unsigned long)v;
	return true;
}
