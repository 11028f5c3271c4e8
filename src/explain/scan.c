#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"

#define MAX_MATCH_LINE 4096 /* bytes of a line looked at: longer lines are cut, keeping it linear */

void rd_explain_scan_init(struct rd_explain_scan *s)
{
	memset(s, 0, sizeof *s);
	while (rd_signatures[s->nsig].id)
		s->nsig++;
	s->m = rd_xcalloc(s->nsig, sizeof *s->m);
	s->near_seen = rd_xcalloc(s->nsig, sizeof *s->near_seen);
	s->lowcap = MAX_MATCH_LINE + 1;
	s->low = rd_xmalloc(s->lowcap);
}

void rd_explain_scan_free(struct rd_explain_scan *s)
{
	free(s->m);
	free(s->near_seen);
	free(s->low);
	memset(s, 0, sizeof *s);
}

void rd_explain_scan_line(struct rd_explain_scan *s, const char *line, size_t len)
{
	s->line++;
	if (len > MAX_MATCH_LINE)
		len = MAX_MATCH_LINE;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		s->low[i] = c == 0 ? ' ' : (c >= 'A' && c <= 'Z') ? (char)(c + 32) : (char)c;
	}
	s->low[len] = '\0';
	for (size_t k = 0; k < s->nsig; k++) {
		const struct rd_signature *sig = &rd_signatures[k];
		if (sig->near && strstr(s->low, sig->near))
			s->near_seen[k] = s->line;
		bool hit = true;
		for (int a = 0; a < 3 && sig->all[a] && hit; a++)
			hit = strstr(s->low, sig->all[a]) != NULL;
		if (!hit || (sig->near && (!s->near_seen[k] || s->line - s->near_seen[k] > 5)))
			continue;
		struct rd_sig_match *m = &s->m[k];
		if (m->count < RD_EXPLAIN_MAX_LINES)
			m->lines[m->count] = s->line;
		if (m->count == 0) {
			/* a printable sample of the first line */
			size_t n = 0;
			for (size_t i = 0; i < len && n < RD_EXPLAIN_SAMPLE; i++) {
				unsigned char c = (unsigned char)line[i];
				m->sample[n++] = (c == '\t') ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : (char)c;
			}
			while (n && m->sample[n - 1] == ' ')
				n--;
			m->sample[n] = '\0';
		}
		m->count++;
	}
}

const char *rd_cause_verdict_name(enum rd_cause_verdict v)
{
	switch (v) {
	case RD_CAUSE_CONFIRMED: return "confirmed";
	case RD_CAUSE_RULED_OUT: return "ruled out";
	default: return "cannot tell";
	}
}

static bool is_check_of(const struct rd_sig_cause *c, const struct rd_finding *f)
{
	for (int i = 0; i < 3 && c->checks[i]; i++)
		if (strcmp(c->checks[i], f->check) == 0)
			return true;
	return false;
}

static bool passes_filter(const struct rd_sig_cause *c, const struct rd_finding *f)
{
	return !c->filter || strstr(f->subject, c->filter) || strstr(f->message, c->filter);
}

enum rd_cause_verdict rd_explain_judge(const struct rd_sig_cause *c, const struct rd_report *r,
				       const struct rd_finding **decisive)
{
	*decisive = NULL;
	if (!c->checks[0])
		return RD_CAUSE_CANNOT_TELL;
	const struct rd_finding *unknown = NULL, *clear = NULL;
	bool ran = false;
	for (size_t i = 0; i < r->n; i++) {
		const struct rd_finding *f = &r->findings[i];
		if (!is_check_of(c, f))
			continue;
		ran = true;
		if ((f->status == RD_FAIL || f->status == RD_WARN || (c->ok_confirms && f->status == RD_OK)) &&
		    passes_filter(c, f)) {
			*decisive = f;
			return RD_CAUSE_CONFIRMED;
		}
		if (f->status == RD_UNKNOWN && !unknown)
			unknown = f;
		if ((f->status == RD_OK || f->status == RD_SKIP) && !clear)
			clear = f;
	}
	if (unknown || !ran) {
		*decisive = unknown;
		return RD_CAUSE_CANNOT_TELL;
	}
	*decisive = clear;
	return RD_CAUSE_RULED_OUT;
}
