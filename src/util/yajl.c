/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "util/yajl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/dl.h"
#include "util/util.h"

static struct rd_yajl yajl;
static int yajl_state; /* 0: not tried, 1: loaded, -1: failed */
static char yajl_failed[512];

const struct rd_yajl *rd_yajl_get(char *err, size_t errlen)
{
	if (yajl_state == 0) {
		static const char *const names[] = {
#define RD_YAJL_NAME(name) "yajl_" #name,
			RD_YAJL_MEMBERS(RD_YAJL_NAME)
#undef RD_YAJL_NAME
		};
		void *syms[sizeof names / sizeof names[0]];
		yajl_state = rd_dl_load("libyajl.so.2", "libyajl2", "yajl 2 needed", names, syms, sizeof names / sizeof names[0],
					yajl_failed, sizeof yajl_failed) == 0 ? 1 : -1;
		size_t i = 0;
		/* POSIX: object and function pointers convert */
#define RD_YAJL_SET(name) memcpy(&yajl.name, &syms[i++], sizeof syms[0]);
		if (yajl_state > 0) {
			RD_YAJL_MEMBERS(RD_YAJL_SET)
		}
#undef RD_YAJL_SET
	}
	if (yajl_state > 0)
		return &yajl;
	rd_set_err(err, errlen, "%s", yajl_failed);
	return NULL;
}

void rd_yajl_reason(const struct rd_yajl *y, yajl_handle h, const char *what, char *err, size_t errlen)
{
	unsigned char *m = y->get_error(h, 0, NULL, 0);
	char *s = (char *)m;
	size_t n = s ? strcspn(s, "\n") : 0;
	while (n && s[n - 1] == ' ')
		n--;
	rd_set_err(err, errlen, "%s (%.*s)", what, (int)n, s ? s : "");
	y->free_error(h, m);
}

void rd_json_keep_str(char **dst, const unsigned char *s, size_t n, size_t cap)
{
	const void *nul = memchr(s, '\0', n);
	if (nul)
		n = (size_t)((const unsigned char *)nul - s);
	if (n > cap) {
		n = cap;
		while (n > 0 && (s[n] & 0xc0) == 0x80)
			n--;
	}
	free(*dst);
	*dst = rd_xstrndup((const char *)s, n);
}

double rd_json_number(const char *num, size_t nlen, double max)
{
	char b[64];
	if (!num || nlen >= sizeof b)
		return -1;
	memcpy(b, num, nlen);
	b[nlen] = '\0';
	char *end;
	double v = strtod(b, &end);
	return *end || !isfinite(v) || v < 0 || v > max ? -1 : v;
}
