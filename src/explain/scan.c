/* The explain scanner: one Aho-Corasick DFA over every signature pattern, case folded as it goes
 * (see explain.h).  The table is small (a few hundred states of a few dozen byte classes). */
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"

#define NEAR_LINES 5 /* a signature's "near" text may be this many lines before */

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
	unsigned nl = ncls++;
	s->cls['\n'] = (unsigned char)nl;
	s->width = ncls;

	/* the trie: state 0 is the root, state 1 the end of a line (it moves like the root) */
	size_t maxst = chars + 2;
	int *go = rd_xmalloc(maxst * ncls * sizeof *go);
	for (size_t i = 0; i < maxst * ncls; i++)
		go[i] = -1;
	unsigned *own = rd_xcalloc(maxst, sizeof *own); /* pattern id + 1 ending exactly here */
	size_t nst = 2;
	for (size_t p = 0; p < s->npat; p++) {
		size_t st = 0;
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
		if (c == nl)
			g = 1;
		else if (g < 0)
			g = 0;
		else {
			fail[g] = 0;
			queue[qt++] = (unsigned)g;
		}
		go[c] = g;
	}
	memcpy(&go[1 * ncls], &go[0], ncls * sizeof *go);
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
			if (*g >= 0 && c != nl) {
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
			s->delta[st * ncls + c] = to * ncls | (to == 1 || s->out_n[to] ? RD_SCAN_FLAG : 0);
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

/* The end of a line whose bytes in this feed are [b, b + blen) (after s->head). */
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
	s->open = false;
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

void rd_explain_scan_feed(struct rd_explain_scan *s, const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf, *end = p + len, *start = p;
	const unsigned *delta = s->delta;
	const unsigned char *cls = s->cls;
	unsigned st = s->st;
	s->bytes += len;
	while (p < end) {
		unsigned next = delta[st + cls[*p++]];
		st = next & ~RD_SCAN_FLAG;
		if (!(next & RD_SCAN_FLAG))
			continue;
		if (st == s->width) { /* the end-of-line state */
			end_line(s, (const char *)start, (size_t)(p - 1 - start));
			start = p;
			st = 0;
		} else {
			patterns_at(s, st);
		}
	}
	s->st = st;
	if (start < end)
		s->open = true;
	/* keep the start of an unfinished line for its sample */
	if (start < end && s->headlen < RD_EXPLAIN_SAMPLE) {
		size_t n = (size_t)(end - start), room = RD_EXPLAIN_SAMPLE - s->headlen;
		memcpy(s->head + s->headlen, start, n < room ? n : room);
		s->headlen += n < room ? n : room;
	}
}

void rd_explain_scan_end(struct rd_explain_scan *s)
{
	if (s->open)
		end_line(s, "", 0);
	s->st = 0;
}
