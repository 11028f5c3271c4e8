/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* explain: from error messages to their causes.  A table of signatures (explain/signatures.c),
 * a streaming scanner over any bytes (explain/scan.c: one pass, linear, binary-safe), and the
 * judgement of each signature's causes against the findings of the check catalogue
 * (explain/judge.c), into a finished result that render/explain.c prints.
 *
 * Ownership: a scan owns its tables and match records (rd_explain_scan_free); a result owns its
 * arrays and borrows the scan, the report and the host it was judged on (rd_explain_result_free).
 * Signatures are static. */
#ifndef RD_EXPLAIN_H
#define RD_EXPLAIN_H
#include <stdbool.h>
#include <stddef.h>

#include "checks/check.h"

#define RD_SIG_MAX_CAUSES 5

/* A fact of the host model about a cause's subjects (explain/judge.c): 1 true, 0 false, -1 cannot
 * tell; out->why gets what was seen either way, and out->fix the fix a confirmed fact found for
 * this host (none: the cause's own).  line is the first line the signature matched (a fact may
 * read the module or device it names).  A cause with no checks is decided by its fact; one with
 * checks asks its fact only when a host-wide finding does not say which subjects it is about. */
struct rd_sig_cause;
struct rd_explain_verdict;
typedef int rd_explain_fact(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s,
			    const char *line, struct rd_explain_verdict *out);
rd_explain_fact rd_fact_no_rdma_hardware, rd_fact_stack_mixed, rd_fact_inbox_ib_core,
	rd_fact_peermem_missing_on_inbox, rd_fact_port_polling, rd_fact_port_initializing, rd_fact_no_active_port,
	rd_fact_not_in_modules_load_d, rd_fact_module_other_ib_core, rd_fact_module_not_installed,
	rd_fact_modules_load_d_unknown, rd_fact_gdr_none;

/* Statuses of a finding that confirm a cause (bits of enum rd_status); 0 means FAIL or WARN. */
#define RD_ON(st) (1u << (st))

/* A cause is about subjects of one kind (a module, a device node, a port ...): a finding of one of
 * its checks takes part when it is about one of those subjects (or any, when none are named), or
 * about the whole host.  One on a named subject with a confirming status confirms the cause; a
 * SKIP or UNKNOWN on it, or a host-wide problem that does not say which subject, leaves it
 * untold; otherwise a check that ran and found nothing on the subject rules it out. */
struct rd_sig_cause {
	const char *id;         /* stable, short ("uverbs-not-loaded"); the same cause has one id in every signature */
	const char *text;       /* the cause, in the operator's words */
	const char *checks[3];  /* check ids that can confirm or rule it out; none: a fact, or cannot be told here */
	enum rd_subject_kind kind;
	const char *subjects[4]; /* fnmatch patterns ("ib_uverbs", "uverbs[0-9]*"); none: any subject */
	unsigned confirm;       /* RD_ON() bits; 0: FAIL or WARN */
	rd_explain_fact *fact;  /* decides it from the model instead of findings */
	const char *otherwise;  /* what to do when it cannot be told here (e.g. "run rdma-doctor check on the other node") */
	const char *presumes;   /* a module this cause presumes loaded (NULL: none); when it is not, its absence
				 * is the cause and this one is ruled out (one problem, one confirmed cause) */
	const char *fix;        /* what to do when it is confirmed and neither its findings nor its fact give a fix
				 * (lines separated by '\n'); every cause that can be confirmed has one */
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

/* The scanner: every pattern of every signature in one Aho-Corasick automaton over ASCII-folded
 * bytes (a DFA: one table load per byte, no per-line copy).  A block of input is cut into
 * RD_SCAN_WAYS segments scanned side by side (each restarted from the root the longest pattern's
 * length before its start, which gives the true state there), recording only the bytes where a
 * pattern ends; then the events are taken in order, lines counted between them, and a signature
 * judged at the end of a line only when one of its patterns was seen on it.  Linear in the input
 * whatever the line lengths. */
#define RD_SCAN_WAYS 8
#define RD_SCAN_BLOCK (1u << 15)
struct rd_explain_scan {
	size_t nsig;
	struct rd_sig_match *m;    /* one per signature */
	size_t line;               /* lines ended (a last line without a newline counts at the end) */
	unsigned long long bytes;  /* bytes fed */
	/* the automaton (built by init) */
	unsigned char cls[256];    /* byte -> class (folded; 0: in no pattern, '\n' too) */
	unsigned width;            /* classes per state */
	unsigned *delta;           /* [state * width + class] = next state * width | RD_SCAN_FLAG */
	unsigned *out_first, *out_n; /* patterns ending at each state: out[out_first[st] ...] */
	unsigned *out;
	size_t npat, maxlen;
	unsigned *sig_first, *sig_n, *sigs; /* signatures using each pattern */
	int (*sig_pat)[4];         /* each signature's all[] pattern ids (-1 ended) and its near (index 3) */
	/* the scan's state */
	unsigned st;               /* automaton state (pre-multiplied by width) */
	size_t *seen;              /* last line (1-based) on which each pattern was seen (0: never) */
	size_t *judged;            /* last line on which each signature was judged */
	unsigned *hits;            /* patterns first seen on the current line */
	size_t nhits;
	unsigned *ev_pos;          /* events of a block: offset and state, RD_SCAN_BLOCK per way */
	unsigned *ev_st;
	char head[RD_EXPLAIN_SAMPLE]; /* the start of the current line, when it began in an earlier block */
	size_t headlen;
	bool open;                 /* bytes of an unfinished line were fed */
};
#define RD_SCAN_FLAG 0x80000000u /* patterns end at the state */
void rd_explain_scan_init(struct rd_explain_scan *s);
/* Feeds any bytes (NUL included); lines end at '\n' and may span calls. */
void rd_explain_scan_feed(struct rd_explain_scan *s, const char *buf, size_t len);
/* Ends the input: a last line without a newline is scanned. */
void rd_explain_scan_end(struct rd_explain_scan *s);
void rd_explain_scan_free(struct rd_explain_scan *s);

#define RD_EXPLAIN_MORE 15 /* confirming findings kept beyond the first */
enum rd_cause_verdict { RD_CAUSE_CONFIRMED, RD_CAUSE_CANNOT_TELL, RD_CAUSE_RULED_OUT };
const char *rd_cause_verdict_name(enum rd_cause_verdict v); /* "confirmed", "cannot tell", "ruled out" */

/* The finished result: each matched signature with its causes judged, in print order
 * (confirmed first, then cannot tell, then ruled out; each in table order). */
struct rd_explain_verdict {
	const struct rd_sig_cause *cause;
	enum rd_cause_verdict v;
	const struct rd_finding *finding; /* the finding that decided it, or NULL */
	const struct rd_finding *more[RD_EXPLAIN_MORE]; /* the other findings that confirm it */
	size_t nmore;
	char why[240];                    /* what decided it when no one finding did: what the model showed (a
					   * fact), or that no finding was about its subjects; "" otherwise */
	char fix[2][300];                 /* the fix a fact found for this host (nfix lines) */
	int nfix;
};
/* Judges one cause against a report and the model it came from (h NULL: no model); line is the
 * first line its signature matched. */
void rd_explain_judge(const struct rd_sig_cause *c, const struct rd_report *r, const struct rd_host *h,
		      const struct rd_system *s, const char *line, struct rd_explain_verdict *out);

struct rd_explain_match {
	const struct rd_signature *sig;
	const struct rd_sig_match *m;
	struct rd_explain_verdict causes[RD_SIG_MAX_CAUSES];
	size_t ncauses;
};
struct rd_explain_input {                 /* how much of the input was read */
	unsigned long long bytes_read;
	unsigned long long bytes_total;   /* size of a regular file, 0 when unknown */
	bool finished;                    /* false: the deadline stopped the reading */
	double timeout_s;                 /* the deadline that stopped it */
};
struct rd_explain_result {
	const struct rd_explain_scan *scan;
	struct rd_explain_input input;
	bool judged;                      /* the causes were judged on a host */
	const char *host;                 /* its name, or NULL */
	const char *root;                 /* the root it was read from, NULL for the live host */
	struct rd_explain_match *matches;
	size_t nmatch;
	bool any_confirmed, any_unknown;
	int exit_code;                    /* 0 nothing matched or all ruled out; 1 a cause confirmed; 3 could not tell */
};
/* Judges every matched signature of scan against report and the model (NULL when nothing matched). */
void rd_explain_result_build(struct rd_explain_result *res, const struct rd_explain_scan *scan,
			     const struct rd_report *report, const struct rd_host *h, const struct rd_system *s);
void rd_explain_result_free(struct rd_explain_result *res);

#endif
