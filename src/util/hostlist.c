/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Slurm hostlists (see hostlist.h).  The syntax and the sort follow SchedMD/slurm
 * src/common/hostlist.c as `scontrol show hostnames` / `show hostlistsorted` behave; the tests
 * compare both directions with the real scontrol. */
#include "util/hostlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIGITS 18 /* a longer trailing number is part of the name */

/* name = prefix + number: the trailing digits (at most MAX_DIGITS) of the name. */
struct hname {
	const char *s;
	size_t plen;         /* prefix length */
	size_t nlen;         /* digits; 0: no number */
	unsigned long long n;
};

static void split(const char *s, struct hname *h)
{
	size_t len = strlen(s), i = len;
	while (i > 0 && isdigit((unsigned char)s[i - 1]))
		i--;
	h->s = s;
	h->plen = i;
	h->nlen = len - i;
	h->n = 0;
	if (h->nlen == 0 || h->nlen > MAX_DIGITS) {
		h->plen = len;
		h->nlen = 0;
		return;
	}
	for (size_t k = i; k < len; k++)
		h->n = h->n * 10 + (unsigned long long)(s[k] - '0');
}

static int cmp_split(const struct hname *a, const struct hname *b)
{
	size_t m = a->plen < b->plen ? a->plen : b->plen;
	int c = memcmp(a->s, b->s, m);
	if (c)
		return c < 0 ? -1 : 1;
	if (a->plen != b->plen)
		return a->plen < b->plen ? -1 : 1;
	/* a name without a number first, then by width, then by number */
	if (a->nlen != b->nlen)
		return a->nlen < b->nlen ? -1 : 1;
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	return 0;
}

int rd_hostname_cmp(const char *a, const char *b)
{
	struct hname ha, hb;
	split(a, &ha);
	split(b, &hb);
	return cmp_split(&ha, &hb);
}

static int cmp_names(const void *pa, const void *pb)
{
	return rd_hostname_cmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* n printed at width w is exactly the name's digits */
static bool fits(const struct hname *h, size_t w)
{
	char buf[32];
	int k = snprintf(buf, sizeof buf, "%0*llu", (int)w, h->n);
	return k > 0 && (size_t)k == h->nlen && memcmp(buf, h->s + h->plen, h->nlen) == 0;
}

char *rd_hostlist_compress(const char *const *names, size_t n)
{
	struct rd_buf b = {0};
	rd_buf_puts(&b, "");
	if (n == 0)
		return rd_buf_steal(&b);
	const char **v = rd_xmalloc(n * sizeof *v);
	memcpy(v, names, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_names);
	size_t i = 0;
	while (i < n) {
		struct hname h;
		split(v[i], &h);
		if (b.len)
			rd_buf_putc(&b, ',');
		if (h.nlen == 0) {
			rd_buf_puts(&b, v[i]);
			while (++i < n && strcmp(v[i], v[i - 1]) == 0)
				;
			continue;
		}
		/* every name with this prefix and a number: one bracket, or the name alone */
		size_t j = i;
		struct hname e;
		for (; j < n; j++) {
			split(v[j], &e);
			if (e.nlen == 0 || e.plen != h.plen || memcmp(e.s, h.s, h.plen) != 0)
				break;
		}
		bool single = true;
		for (size_t k = i + 1; k < j; k++)
			if (strcmp(v[k], v[i]) != 0)
				single = false;
		if (single) {
			rd_buf_puts(&b, v[i]);
			i = j;
			continue;
		}
		rd_buf_add(&b, h.s, h.plen);
		rd_buf_putc(&b, '[');
		bool first = true;
		while (i < j) {
			struct hname lo;
			split(v[i], &lo);
			unsigned long long hi = lo.n;
			size_t w = lo.nlen;
			size_t k = i + 1;
			for (; k < j; k++) {
				split(v[k], &e);
				if (e.n == hi && e.nlen == lo.nlen)
					continue; /* a duplicate */
				if (e.n != hi + 1 || !fits(&e, w))
					break;
				hi = e.n;
			}
			if (!first)
				rd_buf_putc(&b, ',');
			first = false;
			if (hi == lo.n)
				rd_buf_printf(&b, "%0*llu", (int)w, lo.n);
			else
				rd_buf_printf(&b, "%0*llu-%0*llu", (int)w, lo.n, (int)w, hi);
			i = k;
		}
		rd_buf_putc(&b, ']');
	}
	free(v);
	return rd_buf_steal(&b);
}

/* ---- expansion ---------------------------------------------------------------------------- */

/* What a walk does with each item: append its names (out), count them (out NULL), or match one. */
struct walk {
	struct rd_strv *out;
	const char *name; /* match: the name looked for */
	bool matched;
};
static int hostlist_walk(const char *list, struct walk *w, unsigned long long *count, char *err, size_t errlen);

/* One part of an item: a literal, or a bracket's ranges. */
struct part {
	const char *lit;
	size_t litlen;
	struct range {
		unsigned long long lo, hi;
		int width;
	} *r;
	size_t nr;
	unsigned long long count;
};

static int parse_num(const char *s, size_t len, unsigned long long *v)
{
	if (len == 0 || len > MAX_DIGITS)
		return -1;
	*v = 0;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		*v = *v * 10 + (unsigned long long)(s[i] - '0');
	}
	return 0;
}

static int parse_bracket(const char *s, size_t len, struct part *p, char *err, size_t errlen)
{
	for (size_t at = 0; at <= len;) {
		size_t e = at;
		while (e < len && s[e] != ',')
			e++;
		const char *t = s + at;
		size_t tl = e - at;
		const char *dash = memchr(t, '-', tl);
		struct range r;
		size_t lol = dash ? (size_t)(dash - t) : tl;
		if (parse_num(t, lol, &r.lo) < 0 || (dash && parse_num(dash + 1, tl - lol - 1, &r.hi) < 0)) {
			rd_set_err(err, errlen, "invalid range '%.*s'", (int)(tl > 64 ? 64 : tl), t);
			return -EINVAL;
		}
		if (!dash)
			r.hi = r.lo;
		if (r.hi < r.lo) {
			rd_set_err(err, errlen, "invalid range '%.*s' (the end is below the start)", (int)(tl > 64 ? 64 : tl), t);
			return -EINVAL;
		}
		if (r.hi - r.lo >= RD_HOSTLIST_MAX) {
			rd_set_err(err, errlen, "too many hosts in range '%.*s'", (int)(tl > 64 ? 64 : tl), t);
			return -EINVAL;
		}
		r.width = (int)lol;
		p->r = rd_xrealloc(p->r, (p->nr + 1) * sizeof *p->r);
		p->r[p->nr++] = r;
		p->count += r.hi - r.lo + 1;
		at = e + 1;
	}
	return 0;
}

static void emit(const struct part *parts, size_t np, size_t k, struct rd_buf *name, struct rd_strv *out)
{
	if (k == np) {
		rd_strv_push(out, name->data ? name->data : "");
		return;
	}
	size_t keep = name->len;
	const struct part *p = &parts[k];
	if (!p->r) {
		rd_buf_add(name, p->lit, p->litlen);
		emit(parts, np, k + 1, name, out);
	} else {
		for (size_t i = 0; i < p->nr; i++)
			for (unsigned long long v = p->r[i].lo;; v++) {
				rd_buf_printf(name, "%0*llu", p->r[i].width, v);
				emit(parts, np, k + 1, name, out);
				name->len = keep;
				name->data[keep] = '\0';
				if (v == p->r[i].hi)
					break;
			}
	}
	name->len = keep;
	if (name->data)
		name->data[keep] = '\0';
}

/* Whether name[at..] is parts[k..]: a literal is its bytes, a bracket one of its numbers printed at
 * its width (as emit prints them).  failed[k * (nl + 1) + at] remembers a position that does not
 * match, so that many bracket groups cost parts x length x digits, not their product. */
static bool match_parts(const struct part *parts, size_t np, size_t k, const char *name, size_t nl, size_t at,
			unsigned char *failed)
{
	if (k == np)
		return at == nl;
	if (failed[k * (nl + 1) + at])
		return false;
	const struct part *p = &parts[k];
	bool ok = false;
	if (!p->r) {
		ok = nl - at >= p->litlen && memcmp(name + at, p->lit, p->litlen) == 0 &&
		     match_parts(parts, np, k + 1, name, nl, at + p->litlen, failed);
	} else {
		unsigned long long v = 0;
		for (size_t d = 1; !ok && at + d <= nl && d <= MAX_DIGITS && isdigit((unsigned char)name[at + d - 1]); d++) {
			v = v * 10 + (unsigned long long)(name[at + d - 1] - '0');
			for (size_t i = 0; !ok && i < p->nr; i++) {
				char buf[32];
				int w = snprintf(buf, sizeof buf, "%0*llu", p->r[i].width, v);
				ok = v >= p->r[i].lo && v <= p->r[i].hi && w == (int)d && memcmp(buf, name + at, d) == 0 &&
				     match_parts(parts, np, k + 1, name, nl, at + d, failed);
			}
		}
	}
	if (!ok)
		failed[k * (nl + 1) + at] = 1;
	return ok;
}

static int expand_item(const char *s, size_t len, struct walk *wk, size_t *total, char *err, size_t errlen)
{
	struct rd_strv *out = wk ? wk->out : NULL;
	struct part *parts = NULL;
	size_t np = 0;
	int r = 0;
	unsigned long long count = 1;
	for (size_t at = 0; at < len && r == 0;) {
		parts = rd_xrealloc(parts, (np + 1) * sizeof *parts);
		struct part *p = &parts[np++];
		memset(p, 0, sizeof *p);
		if (s[at] == '[') {
			const char *close = memchr(s + at, ']', len - at);
			if (!close) {
				rd_set_err(err, errlen, "'%.*s': '[' without ']'", (int)(len > 64 ? 64 : len), s);
				r = -EINVAL;
				break;
			}
			r = parse_bracket(s + at + 1, (size_t)(close - s - at - 1), p, err, errlen);
			count *= p->count;
			if (r == 0 && count > RD_HOSTLIST_MAX) {
				rd_set_err(err, errlen, "'%.*s': more than %d hosts", (int)(len > 64 ? 64 : len), s, RD_HOSTLIST_MAX);
				r = -EINVAL;
			}
			at = (size_t)(close - s) + 1;
		} else {
			size_t e = at;
			while (e < len && s[e] != '[' && s[e] != ']')
				e++;
			if (e < len && s[e] == ']') {
				rd_set_err(err, errlen, "'%.*s': ']' without '['", (int)(len > 64 ? 64 : len), s);
				r = -EINVAL;
				break;
			}
			p->lit = s + at;
			p->litlen = e - at;
			at = e;
		}
	}
	if (r == 0 && *total + count > RD_HOSTLIST_MAX) {
		rd_set_err(err, errlen, "more than %d hosts", RD_HOSTLIST_MAX);
		r = -EINVAL;
	}
	if (r == 0 && wk && wk->name) {
		*total += count;
		size_t nl = strlen(wk->name);
		unsigned char *failed = rd_xcalloc((np + 1) * (nl + 1), 1);
		wk->matched |= match_parts(parts, np, 0, wk->name, nl, 0, failed);
		free(failed);
	} else if (r == 0 && !out)
		*total += count;
	else if (r == 0) {
		*total += count;
		struct rd_buf name = {0};
		rd_buf_puts(&name, "");
		emit(parts, np, 0, &name, out);
		rd_buf_free(&name);
	}
	for (size_t i = 0; i < np; i++)
		free(parts[i].r);
	free(parts);
	return r;
}

int rd_hostlist_count(const char *list, unsigned long long *count, char *err, size_t errlen)
{
	return hostlist_walk(list, NULL, count, err, errlen);
}

int rd_hostlist_expand(const char *list, struct rd_strv *out, char *err, size_t errlen)
{
	unsigned long long n;
	struct walk w = {.out = out};
	return hostlist_walk(list, &w, &n, err, errlen);
}

int rd_hostlist_match(const char *list, const char *name, bool *matched, unsigned long long *count, char *err,
		      size_t errlen)
{
	struct walk w = {.name = name};
	unsigned long long n;
	int r = hostlist_walk(list, &w, count ? count : &n, err, errlen);
	*matched = r == 0 && w.matched;
	return r;
}

/* w NULL: only counted */
static int hostlist_walk(const char *list, struct walk *w, unsigned long long *count, char *err, size_t errlen)
{
	size_t total = 0;
	const char *s = list;
	while (*s) {
		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		/* an item ends at a comma or a space outside brackets */
		size_t e = 0;
		int depth = 0;
		for (; s[e]; e++) {
			if (s[e] == '[')
				depth++;
			else if (s[e] == ']')
				depth--;
			else if (depth == 0 && (s[e] == ',' || isspace((unsigned char)s[e])))
				break;
			if (depth > 1) {
				rd_set_err(err, errlen, "'%.*s': '[' inside '['", (int)(e + 1 > 64 ? 64 : e + 1), s);
				return -EINVAL;
			}
		}
		int r = expand_item(s, e, w, &total, err, errlen);
		if (r < 0)
			return r;
		s += e;
	}
	*count = total;
	return 0;
}
