/* explain: from error messages to their causes.  A table of signatures (explain/signatures.c),
 * a streaming scanner over any text (one pass, linear, binary-safe), and the judgement of each
 * signature's causes against the findings of the check catalogue.
 *
 * Ownership: a scan owns its match records; rd_explain_scan_free releases them.  Signatures are
 * static. */
#ifndef RD_EXPLAIN_H
#define RD_EXPLAIN_H
#include <stdbool.h>
#include <stddef.h>

#include "checks/check.h"

#define RD_SIG_MAX_CAUSES 5

struct rd_sig_cause {
	const char *text;       /* the cause, in the operator's words */
	const char *checks[3];  /* check ids that can confirm or rule it out; none: cannot be told here */
	const char *filter;     /* a finding counts only if its subject or message contains this; NULL: any */
	const char *otherwise;  /* what to do when it cannot be told here (e.g. "run rdma-doctor check on the other node") */
	bool ok_confirms;       /* an OK finding passing the filter confirms it (a fact, not a fault: "inbox stack") */
};

struct rd_signature {
	const char *id;
	const char *meaning;
	const char *all[3];      /* lower-case substrings that must all be on the line */
	const char *near;        /* lower-case substring on this line or one of the 5 before, or NULL */
	struct rd_sig_cause causes[RD_SIG_MAX_CAUSES];
};
extern const struct rd_signature rd_signatures[]; /* ended by id == NULL */

#define RD_EXPLAIN_MAX_LINES 20 /* line numbers kept per signature */
#define RD_EXPLAIN_SAMPLE 240   /* bytes kept of the first matching line */

struct rd_sig_match {
	size_t count;
	size_t lines[RD_EXPLAIN_MAX_LINES];
	char sample[RD_EXPLAIN_SAMPLE + 1];
};

struct rd_explain_scan {
	size_t nsig;
	struct rd_sig_match *m; /* one per signature */
	size_t *near_seen;      /* last line where each signature's "near" text was seen (0: never) */
	size_t line;            /* lines scanned */
	char *low;              /* working buffer */
	size_t lowcap;
};
void rd_explain_scan_init(struct rd_explain_scan *s);
/* Feeds one line (without its newline; may contain any bytes, NUL included). */
void rd_explain_scan_line(struct rd_explain_scan *s, const char *line, size_t len);
void rd_explain_scan_free(struct rd_explain_scan *s);

enum rd_cause_verdict { RD_CAUSE_CONFIRMED, RD_CAUSE_CANNOT_TELL, RD_CAUSE_RULED_OUT };
const char *rd_cause_verdict_name(enum rd_cause_verdict v); /* "confirmed", "cannot tell", "ruled out" */
/* Judges one cause against a report; *evidence points at the finding that decided it (or NULL). */
enum rd_cause_verdict rd_explain_judge(const struct rd_sig_cause *c, const struct rd_report *r,
				       const struct rd_finding **decisive);

#endif
