/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The explain scanner: one Aho-Corasick DFA over every signature pattern, case folded as it goes
 * (see explain.h).  The table is small (a few hundred states of a few dozen byte classes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"

#define NEAR_LINES 5 /* a signature's "near" text may be this many lines before */
/* events one way can record in a block: one per byte of its segment (the last way also takes the
 * tail, fewer than RD_SCAN_WAYS bytes; a short block is all one way) */
#define EV_CAP (RD_SCAN_BLOCK / RD_SCAN_WAYS + RD_SCAN_WAYS)

static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static int pattern_id(const char **pats, size_t *npat, const char *p)
{
	for (size_t i = 0; i < *npat; i++)
		if (strcmp(pats[i], p) == 0)
			return (int)i;
	pats[*npat] = p;
	return (int)(*npat)++;
}

void rd_explain_scan_init(struct rd_explain_scan *s)
{
	memset(s, 0, sizeof *s);
	while (rd_signatures[s->nsig].id)
		s->nsig++;
	s->m = rd_xcalloc(s->nsig ? s->nsig : 1, sizeof *s->m);
	s->judged = rd_xcalloc(s->nsig ? s->nsig : 1, sizeof *s->judged);
	s->sig_pat = rd_xcalloc(s->nsig ? s->nsig : 1, sizeof *s->sig_pat);

	/* the distinct patterns, and each signature's */
	const char **pats = rd_xcalloc(s->nsig * 4 + 1, sizeof *pats);
	size_t chars = 0;
	for (size_t k = 0; k < s->nsig; k++) {
		const struct rd_signature *sig = &rd_signatures[k];
		for (int a = 0; a < 4; a++)
			s->sig_pat[k][a] = -1;
		for (int a = 0; a < 3 && sig->all[a]; a++)
			s->sig_pat[k][a] = pattern_id(pats, &s->npat, sig->all[a]);
		if (sig->near)
			s->sig_pat[k][3] = pattern_id(pats, &s->npat, sig->near);
	}
	for (size_t p = 0; p < s->npat; p++)
		chars += strlen(pats[p]);

	/* byte classes: one per folded byte that occurs in a pattern; NUL reads as a blank; '\n' ends a line */
	unsigned ncls = 1;
	for (size_t p = 0; p < s->npat; p++)
		for (const unsigned char *c = (const unsigned char *)pats[p]; *c; c++)
			if (!s->cls[fold(*c)])
				s->cls[fold(*c)] = (unsigned char)ncls++;
	for (int c = 'A'; c <= 'Z'; c++)
		s->cls[c] = s->cls[c + 32];
	s->cls[0] = s->cls[' '];
	s->cls['\n'] = 0; /* no pattern spans lines: a newline goes back to the root */
	s->width = ncls;

	/* the trie: state 0 is the root */
	size_t maxst = chars + 1;
	int *go = rd_xmalloc(maxst * ncls * sizeof *go);
	for (size_t i = 0; i < maxst * ncls; i++)
		go[i] = -1;
	unsigned *own = rd_xcalloc(maxst, sizeof *own); /* pattern id + 1 ending exactly here */
	size_t nst = 1;
	for (size_t p = 0; p < s->npat; p++) {
		size_t st = 0;
		if (strlen(pats[p]) > s->maxlen)
			s->maxlen = strlen(pats[p]);
		for (const unsigned char *c = (const unsigned char *)pats[p]; *c; c++) {
			int *g = &go[st * ncls + s->cls[fold(*c)]];
			if (*g < 0)
				*g = (int)nst++;
			st = (size_t)*g;
		}
		own[st] = (unsigned)p + 1; /* patterns are distinct: one per state */
	}
	/* breadth first: failure links, the complete DFA, and each state's outputs (its own, then its
	 * failure state's) */
	unsigned *fail = rd_xcalloc(nst, sizeof *fail), *queue = rd_xmalloc(nst * sizeof *queue);
	s->out_first = rd_xcalloc(nst, sizeof *s->out_first);
	s->out_n = rd_xcalloc(nst, sizeof *s->out_n);
	size_t nout = 0, outcap = nst + 16, qh = 0, qt = 0;
	s->out = rd_xmalloc(outcap * sizeof *s->out);
	s->delta = rd_xmalloc(nst * ncls * sizeof *s->delta);
	for (unsigned c = 0; c < ncls; c++) {
		int g = go[c];
		if (g < 0)
			g = 0;
		else {
			fail[g] = 0;
			queue[qt++] = (unsigned)g;
		}
		go[c] = g;
	}
	while (qh < qt) {
		unsigned st = queue[qh++];
		s->out_first[st] = (unsigned)nout;
		if (nout + 1 + s->out_n[fail[st]] > outcap) {
			outcap = 2 * outcap + 1 + s->out_n[fail[st]];
			s->out = rd_xrealloc(s->out, outcap * sizeof *s->out);
		}
		if (own[st])
			s->out[nout++] = own[st] - 1;
		for (unsigned i = 0; i < s->out_n[fail[st]]; i++)
			s->out[nout++] = s->out[s->out_first[fail[st]] + i];
		s->out_n[st] = (unsigned)(nout - s->out_first[st]);
		for (unsigned c = 0; c < ncls; c++) {
			int *g = &go[st * ncls + c];
			if (*g >= 0) {
				fail[*g] = (unsigned)go[fail[st] * ncls + c];
				queue[qt++] = (unsigned)*g;
			} else {
				*g = go[fail[st] * ncls + c];
			}
		}
	}
	for (size_t st = 0; st < nst; st++)
		for (unsigned c = 0; c < ncls; c++) {
			unsigned to = (unsigned)go[st * ncls + c];
			s->delta[st * ncls + c] = to * ncls | (s->out_n[to] ? RD_SCAN_FLAG : 0);
		}
	free(go);
	free(own);
	free(fail);
	free(queue);

	/* which signatures each pattern takes part in */
	s->sig_first = rd_xcalloc(s->npat + 1, sizeof *s->sig_first);
	s->sig_n = rd_xcalloc(s->npat + 1, sizeof *s->sig_n);
	s->sigs = rd_xmalloc((s->nsig * 4 + 1) * sizeof *s->sigs);
	size_t nsigs = 0;
	for (size_t p = 0; p < s->npat; p++) {
		s->sig_first[p] = (unsigned)nsigs;
		for (size_t k = 0; k < s->nsig; k++)
			for (int a = 0; a < 4; a++)
				if (s->sig_pat[k][a] == (int)p) {
					s->sigs[nsigs++] = (unsigned)k;
					break;
				}
		s->sig_n[p] = (unsigned)(nsigs - s->sig_first[p]);
	}
	free(pats);
	s->seen = rd_xcalloc(s->npat + 1, sizeof *s->seen);
	s->hits = rd_xcalloc(s->npat + 1, sizeof *s->hits);
	s->ev_pos = rd_xmalloc(RD_SCAN_WAYS * EV_CAP * sizeof *s->ev_pos);
	s->ev_st = rd_xmalloc(RD_SCAN_WAYS * EV_CAP * sizeof *s->ev_st);
}

void rd_explain_scan_free(struct rd_explain_scan *s)
{
	free(s->m);
	free(s->judged);
	free(s->sig_pat);
	free(s->delta);
	free(s->out_first);
	free(s->out_n);
	free(s->out);
	free(s->sig_first);
	free(s->sig_n);
	free(s->sigs);
	free(s->seen);
	free(s->hits);
	free(s->ev_pos);
	free(s->ev_st);
	memset(s, 0, sizeof *s);
}

static void record(struct rd_sig_match *m, size_t line, const char *a, size_t alen, const char *b, size_t blen)
{
	if (m->count < RD_EXPLAIN_MAX_LINES)
		m->lines[m->count] = line;
	if (m->count++)
		return;
	/* a printable sample of the first line: a (the part carried from earlier feeds), then b */
	size_t n = 0;
	for (int part = 0; part < 2; part++) {
		const char *p = part ? b : a;
		size_t len = part ? blen : alen;
		for (size_t i = 0; i < len && n < RD_EXPLAIN_SAMPLE; i++) {
			unsigned char c = (unsigned char)p[i];
			m->sample[n++] = (c == '\t') ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : (char)c;
		}
	}
	while (n && m->sample[n - 1] == ' ')
		n--;
	m->sample[n] = '\0';
}

/* The end of the current line, whose bytes in this block are [b, b + blen) (after s->head):
 * the signatures its patterns take part in are judged. */
static void end_line(struct rd_explain_scan *s, const char *b, size_t blen)
{
	size_t line = ++s->line;
	for (size_t h = 0; h < s->nhits; h++) {
		unsigned p = s->hits[h];
		for (unsigned j = 0; j < s->sig_n[p]; j++) {
			unsigned k = s->sigs[s->sig_first[p] + j];
			if (s->judged[k] == line)
				continue;
			s->judged[k] = line;
			const int *sp = s->sig_pat[k];
			bool hit = true;
			for (int a = 0; a < 3 && sp[a] >= 0 && hit; a++)
				hit = s->seen[sp[a]] == line;
			if (hit && sp[3] >= 0)
				hit = s->seen[sp[3]] && line - s->seen[sp[3]] <= NEAR_LINES;
			if (hit)
				record(&s->m[k], line, s->head, s->headlen, b, blen);
		}
	}
	s->nhits = 0;
	s->headlen = 0;
}

static void patterns_at(struct rd_explain_scan *s, unsigned st)
{
	size_t line = s->line + 1;
	unsigned n = s->out_n[st / s->width];
	const unsigned *o = &s->out[s->out_first[st / s->width]];
	for (unsigned i = 0; i < n; i++)
		if (s->seen[o[i]] != line) {
			s->seen[o[i]] = line;
			s->hits[s->nhits++] = o[i];
		}
}

/* Newlines in [p, end), eight bytes at a time. */
static size_t count_newlines(const unsigned char *p, const unsigned char *end)
{
	size_t n = 0;
	const uint64_t ones = 0x0101010101010101ull, nl = ones * '\n', low7 = ones * 0x7f;
	for (; end - p >= 8; p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		w ^= nl;                                   /* a newline byte is now 0 */
		uint64_t t = ((w & low7) + low7) | w;      /* high bit set in every non-zero byte */
		n += (size_t)__builtin_popcountll(~t & (ones << 7));
	}
	for (; p < end; p++)
		n += *p == '\n';
	return n;
}

/* The lines ending in [p, end): the current one (judged if patterns were seen on it), then any
 * others, which had none.  *line_start moves to the start of the line after the last newline. */
static void advance(struct rd_explain_scan *s, const unsigned char **line_start, const unsigned char *p,
		    const unsigned char *end)
{
	const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		return;
	if (s->nhits)
		end_line(s, (const char *)*line_start, (size_t)(nl - *line_start));
	else
		s->line++, s->headlen = 0;
	size_t more = count_newlines(nl + 1, end);
	s->line += more;
	*line_start = more ? (const unsigned char *)memrchr(nl + 1, '\n', (size_t)(end - nl - 1)) + 1 : nl + 1;
}

/* One block of at most RD_SCAN_BLOCK bytes. */
static void scan_block(struct rd_explain_scan *s, const unsigned char *b, size_t len)
{
	const unsigned *delta = s->delta;
	const unsigned char *cls = s->cls;
	unsigned *ev_pos = s->ev_pos, *ev_st = s->ev_st;
	size_t nev[RD_SCAN_WAYS] = {0};
	size_t ways = len >= RD_SCAN_WAYS * 4 * (s->maxlen + 1) ? RD_SCAN_WAYS : 1;
	size_t seg = len / ways, cap = EV_CAP;
	unsigned st[RD_SCAN_WAYS];
	st[0] = s->st;
	/* each later segment starts from the root the longest pattern before its start */
	for (size_t k = 1; k < ways; k++) {
		unsigned x = 0;
		for (const unsigned char *q = b + k * seg - s->maxlen; q < b + k * seg; q++)
			x = delta[x + cls[*q]] & ~RD_SCAN_FLAG;
		st[k] = x;
	}
	if (ways == RD_SCAN_WAYS) {
		for (size_t i = 0; i < seg; i++) {
			for (size_t k = 0; k < RD_SCAN_WAYS; k++) {
				unsigned x = delta[st[k] + cls[b[k * seg + i]]];
				if (x & RD_SCAN_FLAG) {
					x &= ~RD_SCAN_FLAG;
					ev_pos[k * cap + nev[k]] = (unsigned)(k * seg + i);
					ev_st[k * cap + nev[k]++] = x;
				}
				st[k] = x;
			}
		}
	}
	/* the tail (or a short block, in one way) */
	size_t k = ways - 1;
	for (size_t i = ways == RD_SCAN_WAYS ? ways * seg : 0; i < len; i++) {
		unsigned x = delta[st[k] + cls[b[i]]];
		if (x & RD_SCAN_FLAG) {
			x &= ~RD_SCAN_FLAG;
			ev_pos[k * cap + nev[k]] = (unsigned)i;
			ev_st[k * cap + nev[k]++] = x;
		}
		st[k] = x;
	}
	s->st = st[ways - 1];
	/* the events in order, with the lines between them */
	const unsigned char *line_start = b, *at = b;
	for (size_t w = 0; w < ways; w++)
		for (size_t e = 0; e < nev[w]; e++) {
			const unsigned char *q = b + ev_pos[w * cap + e];
			advance(s, &line_start, at, q);
			at = q;
			patterns_at(s, ev_st[w * cap + e]);
		}
	advance(s, &line_start, at, b + len);
	/* keep the start of an unfinished line for its sample */
	if (line_start < b + len) {
		s->open = true;
		if (s->headlen < RD_EXPLAIN_SAMPLE) {
			size_t n = (size_t)(b + len - line_start), room = RD_EXPLAIN_SAMPLE - s->headlen;
			memcpy(s->head + s->headlen, line_start, n < room ? n : room);
			s->headlen += n < room ? n : room;
		}
	} else {
		s->open = false;
	}
}

void rd_explain_scan_feed(struct rd_explain_scan *s, const char *buf, size_t len)
{
	s->bytes += len;
	while (len) {
		size_t n = len < RD_SCAN_BLOCK ? len : RD_SCAN_BLOCK;
		scan_block(s, (const unsigned char *)buf, n);
		buf += n;
		len -= n;
	}
}

void rd_explain_scan_end(struct rd_explain_scan *s)
{
	if (s->open) {
		if (s->nhits)
			end_line(s, "", 0);
		else
			s->line++;
	}
	s->open = false;
	s->headlen = 0;
	s->st = 0;
}
