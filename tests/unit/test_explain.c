/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The explain scanner against a reference written the obvious way (a folded copy of each line and
 * strstr for every pattern), on random text made of pieces of the patterns, fed whole and in
 * random pieces; then line counting, samples across feeds, and NUL and case folding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"
#include "harness.h"

struct ref_match {
	size_t count, lines[RD_EXPLAIN_MAX_LINES];
};

/* The reference: lines split at '\n' (a last line without one counts), folded, NUL read as blank. */
static size_t reference(const char *text, size_t len, struct ref_match *out, size_t nsig)
{
	size_t *near = calloc(nsig, sizeof *near), line = 0;
	memset(out, 0, nsig * sizeof *out);
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		char *low = malloc(n + 1);
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)text[at + i];
			low[i] = c == 0 ? ' ' : (c >= 'A' && c <= 'Z') ? (char)(c + 32) : (char)c;
		}
		low[n] = '\0';
		line++;
		for (size_t k = 0; k < nsig; k++) {
			const struct rd_signature *sig = &rd_signatures[k];
			if (sig->near && strstr(low, sig->near))
				near[k] = line;
			bool hit = true;
			for (int a = 0; a < 3 && sig->all[a] && hit; a++)
				hit = strstr(low, sig->all[a]) != NULL;
			if (hit && sig->near)
				hit = near[k] && line - near[k] <= 5;
			if (hit) {
				if (out[k].count < RD_EXPLAIN_MAX_LINES)
					out[k].lines[out[k].count] = line;
				out[k].count++;
			}
		}
		free(low);
		at += n + (nl ? 1 : 0);
	}
	free(near);
	return line;
}

static uint64_t rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Random text: pieces of patterns (some upper-cased, some cut), newlines, junk bytes, NULs. */
static char *random_text(size_t *len)
{
	const char *pats[256];
	size_t np = 0;
	for (const struct rd_signature *s = rd_signatures; s->id; s++) {
		for (int a = 0; a < 3 && s->all[a]; a++)
			pats[np++] = s->all[a];
		if (s->near)
			pats[np++] = s->near;
	}
	size_t cap = 2000 + rnd(200000), n = 0;
	char *t = malloc(cap + 64);
	while (n < cap) {
		unsigned what = rnd(10);
		if (what < 4) {
			const char *p = pats[rnd((unsigned)np)];
			size_t l = strlen(p), cut = rnd(4) == 0 ? rnd((unsigned)l + 1) : l, from = rnd(3) == 0 ? rnd((unsigned)l) : 0;
			bool up = rnd(2);
			for (size_t i = from; i < cut && n < cap + 60; i++)
				t[n++] = up && p[i] >= 'a' && p[i] <= 'z' ? (char)(p[i] - 32) : p[i];
		} else if (what < 6) {
			t[n++] = '\n';
		} else if (what < 7) {
			t[n++] = (char)rnd(256);
		} else if (what < 8) {
			t[n++] = rnd(2) ? '\0' : ' ';
		} else {
			for (unsigned i = rnd(40); i-- && n < cap;)
				t[n++] = (char)('a' + rnd(26));
		}
	}
	*len = n;
	return t;
}

RD_TEST(scanner_agrees_with_the_reference)
{
	size_t nsig = 0;
	while (rd_signatures[nsig].id)
		nsig++;
	struct ref_match *want = calloc(nsig, sizeof *want);
	for (int round = 0; round < 60; round++) {
		size_t len;
		char *text = random_text(&len);
		size_t lines = reference(text, len, want, nsig);
		for (int mode = 0; mode < 3; mode++) {
			struct rd_explain_scan s;
			rd_explain_scan_init(&s);
			for (size_t at = 0; at < len;) {
				size_t n = mode == 0 ? len - at : mode == 1 ? 1 + rnd(97) : 1 + rnd(3 * RD_SCAN_BLOCK);
				if (n > len - at)
					n = len - at;
				rd_explain_scan_feed(&s, text + at, n);
				at += n;
			}
			rd_explain_scan_end(&s);
			CHECK_INT(s.line, lines);
			CHECK_INT(s.bytes, len);
			for (size_t k = 0; k < nsig; k++) {
				if (s.m[k].count != want[k].count)
					rd_test_fail(__FILE__, __LINE__, "round %d mode %d: %s seen %zu times, the reference %zu",
						     round, mode, rd_signatures[k].id, s.m[k].count, want[k].count);
				for (size_t i = 0; i < want[k].count && i < RD_EXPLAIN_MAX_LINES; i++)
					CHECK_INT(s.m[k].lines[i], want[k].lines[i]);
			}
			rd_explain_scan_free(&s);
		}
		free(text);
	}
	free(want);
}

static const struct rd_sig_match *match_of(const struct rd_explain_scan *s, const char *id)
{
	for (size_t k = 0; k < s->nsig; k++)
		if (strcmp(rd_signatures[k].id, id) == 0)
			return &s->m[k];
	rd_test_fail(__FILE__, __LINE__, "no signature %s", id);
}

RD_TEST(lines_samples_and_folding)
{
	struct rd_explain_scan s;
	rd_explain_scan_init(&s);
	/* an empty input has no line; "\n" one; a last line without a newline counts */
	rd_explain_scan_end(&s);
	CHECK_INT(s.line, 0);
	rd_explain_scan_feed(&s, "\n\n\n", 3);
	rd_explain_scan_end(&s);
	CHECK_INT(s.line, 3);
	/* a message cut across feeds one byte at a time, upper case, a NUL for a blank, after a long line */
	static const char msg[] = "modprobe: ERROR: COULD NOT INSERT 'rdma_ucm':\0Invalid argument";
	char *longline = malloc(3 * RD_SCAN_BLOCK);
	memset(longline, 'x', 3 * RD_SCAN_BLOCK - 1);
	longline[3 * RD_SCAN_BLOCK - 1] = '\n';
	rd_explain_scan_feed(&s, longline, 3 * RD_SCAN_BLOCK);
	for (size_t i = 0; i < sizeof msg - 1; i++)
		rd_explain_scan_feed(&s, &msg[i], 1);
	rd_explain_scan_end(&s);
	const struct rd_sig_match *m = match_of(&s, "modprobe.invalid_argument");
	CHECK_INT(m->count, 1);
	CHECK_INT(m->lines[0], 5);
	CHECK_STR(m->sample, "modprobe: ERROR: COULD NOT INSERT 'rdma_ucm':?Invalid argument");
	CHECK_INT(s.line, 5);
	/* a pattern split by a newline is not on one line */
	rd_explain_scan_feed(&s, "could not insert\ninvalid argument\n", 34);
	CHECK_INT(match_of(&s, "modprobe.invalid_argument")->count, 1);
	/* the sample of a line longer than the sample, begun in an earlier block */
	memset(longline, 'y', 3 * RD_SCAN_BLOCK);
	rd_explain_scan_feed(&s, longline, RD_SCAN_BLOCK - 3);
	rd_explain_scan_feed(&s, " ibv_reg_mr failed\n", 19);
	m = match_of(&s, "ibv.reg_mr");
	CHECK_INT(m->count, 1);
	CHECK_INT(strlen(m->sample), RD_EXPLAIN_SAMPLE);
	CHECK(m->sample[0] == 'y' && m->sample[RD_EXPLAIN_SAMPLE - 1] == 'y');
	free(longline);
	rd_explain_scan_free(&s);
}

/* The join: typed subjects, SKIP and host-wide findings. */
RD_TEST(causes_join_findings_on_their_subject)
{
	const struct rd_sig_cause ucm = {"ucm", "the rdma_cm module is not loaded", {"modules.loaded"}, RD_SUBJ_MODULE, {"rdma_cm"}, 0, NULL, NULL, NULL, NULL};
	const struct rd_sig_cause node = {"node", "rdma_cm node missing", {"devnodes.present"}, RD_SUBJ_DEVNODE, {"rdma_cm"},
					  RD_ON(RD_FAIL), NULL, NULL, NULL, NULL};
	struct rd_explain_verdict v;
	struct rd_report r = {0};
	/* a device node named like a module is not that module; the node's FAIL confirms the node cause */
	rd_report_add(&r, "devnodes.present", RD_SUBJ_DEVNODE, RD_FAIL, "rdma_cm", "/dev/infiniband/rdma_cm is missing");
	rd_report_add(&r, "modules.loaded", RD_SUBJ_MODULE, RD_OK, "host", "all loaded");
	rd_explain_judge(&ucm, &r, NULL, NULL, NULL, &v);
	CHECK_INT(v.v, RD_CAUSE_RULED_OUT);
	CHECK(v.finding == &r.findings[1]);
	rd_explain_judge(&node, &r, NULL, NULL, NULL, &v);
	CHECK_INT(v.v, RD_CAUSE_CONFIRMED);
	CHECK(v.finding == &r.findings[0]);
	rd_report_free(&r);
	/* a WARN on the subject is not the FAIL the cause needs; findings on other subjects say nothing */
	memset(&r, 0, sizeof r);
	rd_report_add(&r, "devnodes.present", RD_SUBJ_DEVNODE, RD_WARN, "rdma_cm", "mode 0600");
	rd_report_add(&r, "devnodes.present", RD_SUBJ_DEVNODE, RD_FAIL, "uverbs", "no uverbs device");
	rd_explain_judge(&node, &r, NULL, NULL, NULL, &v);
	CHECK_INT(v.v, RD_CAUSE_RULED_OUT);
	CHECK(v.finding == NULL && strstr(v.why, "rdma_cm"));
	rd_report_free(&r);
	/* a SKIP is not "ruled out" */
	memset(&r, 0, sizeof r);
	rd_report_add(&r, "modules.loaded", RD_SUBJ_MODULE, RD_SKIP, "host", "no RDMA device");
	rd_explain_judge(&ucm, &r, NULL, NULL, NULL, &v);
	CHECK_INT(v.v, RD_CAUSE_CANNOT_TELL);
	CHECK(v.finding == &r.findings[0]);
	rd_report_free(&r);
	/* a host-wide problem that names no subject cannot tell (without a fact to ask), an UNKNOWN
	 * elsewhere in the check neither; no finding of the check at all neither */
	memset(&r, 0, sizeof r);
	rd_report_add(&r, "modules.loaded", RD_SUBJ_MODULE, RD_WARN, "host", "some modules are not loaded");
	rd_explain_judge(&ucm, &r, NULL, NULL, NULL, &v);
	CHECK_INT(v.v, RD_CAUSE_CANNOT_TELL);
	rd_report_free(&r);
	memset(&r, 0, sizeof r);
	rd_report_add(&r, "devnodes.present", RD_SUBJ_DEVNODE, RD_UNKNOWN, "umad0", "cannot tell which device umad0 serves");
	rd_explain_judge(&node, &r, NULL, NULL, NULL, &v);
	CHECK_INT(v.v, RD_CAUSE_CANNOT_TELL);
	rd_explain_judge(&ucm, &r, NULL, NULL, NULL, &v);
	CHECK_INT(v.v, RD_CAUSE_CANNOT_TELL);
	CHECK(v.finding == NULL);
	rd_report_free(&r);
}

/* Every cause that can be confirmed (by its checks or its fact) carries a fix of its own, printed
 * when neither its findings nor its fact give one: a confirmed cause is never left without one. */
RD_TEST(every_confirmable_cause_has_a_fix)
{
	size_t causes = 0;
	for (const struct rd_signature *sig = rd_signatures; sig->id; sig++)
		for (int c = 0; c < RD_SIG_MAX_CAUSES && sig->causes[c].text; c++) {
			const struct rd_sig_cause *cause = &sig->causes[c];
			if (!cause->checks[0] && !cause->fact)
				continue; /* cannot be told here: never confirmed, its note says what to do */
			causes++;
			if (!cause->fix || !*cause->fix)
				fprintf(stderr, "  %s: cause %s has no fix\n", sig->id, cause->id);
			CHECK(cause->fix && *cause->fix);
		}
	CHECK(causes > 40);
}
