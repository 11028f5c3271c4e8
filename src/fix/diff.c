/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A small line diff (longest common subsequence; the files fixed here are tiny). */
#include <stdlib.h>
#include <string.h>

#include "fix/fix.h"

static void split(const char *text, struct rd_strv *lines)
{
	for (const char *p = text ? text : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		rd_strv_push_owned(lines, rd_xstrndup(p, n));
		if (!nl)
			break;
		p = nl + 1;
	}
}

char *rd_unified_diff(const char *path, const char *old, const char *new)
{
	struct rd_strv a = {0}, b = {0};
	split(old, &a);
	split(new, &b);
	size_t n = a.n, m = b.n;
	/* lcs[i][j] = LCS length of a[i..] and b[j..] */
	size_t *lcs = rd_xcalloc((n + 1) * (m + 1), sizeof *lcs);
#define L(i, j) lcs[(i) * (m + 1) + (j)]
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;)
			L(i, j) = strcmp(a.v[i], b.v[j]) == 0 ? L(i + 1, j + 1) + 1
				  : L(i + 1, j) > L(i, j + 1) ? L(i + 1, j) : L(i, j + 1);
	/* the edit script: ' ', '-', '+' with line indexes */
	size_t cap = n + m + 1, k = 0;
	char *op = rd_xmalloc(cap);
	size_t *ai = rd_xmalloc(cap * sizeof *ai), *bi = rd_xmalloc(cap * sizeof *bi);
	for (size_t i = 0, j = 0; i < n || j < m;) {
		if (i < n && j < m && strcmp(a.v[i], b.v[j]) == 0) {
			op[k] = ' ', ai[k] = i++, bi[k] = j++;
		} else if (j < m && (i == n || L(i, j + 1) >= L(i + 1, j))) {
			op[k] = '+', ai[k] = i, bi[k] = j++;
		} else {
			op[k] = '-', ai[k] = i++, bi[k] = j;
		}
		k++;
	}
#undef L
	struct rd_buf out = {0};
	rd_buf_printf(&out, "--- %s%s\n+++ %s\n", old ? path : "/dev/null", "", path);
	for (size_t s = 0; s < k;) {
		if (op[s] == ' ') {
			s++;
			continue;
		}
		/* a hunk: from 3 lines before this change to 3 after the last change within 6 lines */
		size_t start = s >= 3 ? s - 3 : 0, end = s;
		for (size_t t = s; t < k; t++)
			if (op[t] != ' ') {
				size_t gap = 0;
				for (size_t u = end; u < t; u++)
					gap += op[u] == ' ';
				if (t > end && gap > 6)
					break;
				end = t + 1;
			}
		size_t stop = end + 3 < k ? end + 3 : k;
		size_t a0 = 0, b0 = 0, ac = 0, bc = 0;
		bool afirst = true, bfirst = true;
		for (size_t t = start; t < stop; t++) {
			if (op[t] != '+') {
				if (afirst)
					a0 = ai[t], afirst = false;
				ac++;
			}
			if (op[t] != '-') {
				if (bfirst)
					b0 = bi[t], bfirst = false;
				bc++;
			}
		}
		if (afirst)
			a0 = start < k ? ai[start] : n;
		if (bfirst)
			b0 = start < k ? bi[start] : m;
		rd_buf_printf(&out, "@@ -%zu,%zu +%zu,%zu @@\n", ac ? a0 + 1 : a0, ac, bc ? b0 + 1 : b0, bc);
		for (size_t t = start; t < stop; t++)
			rd_buf_printf(&out, "%c%s\n", op[t], op[t] == '+' ? b.v[bi[t]] : a.v[ai[t]]);
		s = stop;
	}
	free(op);
	free(ai);
	free(bi);
	free(lcs);
	rd_strv_free(&a);
	rd_strv_free(&b);
	return rd_buf_steal(&out);
}
