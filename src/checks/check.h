/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Checks: pure functions from the host model (+ policy) to findings.  No I/O in a check.
 *
 * Ownership: a report owns its findings and every string in them; rd_report_free releases all.
 * Checks borrow the model and the policy through rd_check_ctx and keep nothing. */
#ifndef RD_CHECK_H
#define RD_CHECK_H
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/host.h"
#include "model/policy.h"
#include "model/system.h"
#include "util/util.h"

/* Ordered by how little it says: a report's status is its worst finding, FAIL > WARN > UNKNOWN > OK
 * (SKIP never counts).  Exit codes follow the monitoring-plugin convention. */
enum rd_status { RD_OK, RD_SKIP, RD_UNKNOWN, RD_WARN, RD_FAIL };
const char *rd_status_name(enum rd_status s);   /* "OK", "WARN", ... */
int rd_status_exit_code(enum rd_status s);      /* 0 OK/SKIP, 1 WARN, 2 FAIL, 3 UNKNOWN */
bool rd_status_worse(enum rd_status a, enum rd_status b); /* a is worse than b */

struct rd_evidence {
	char *path;  /* a host path ("/sys/...") or a command ("systemctl is-active openibd") */
	char *value; /* what was read, or "<why it could not be read>" */
};

/* What a finding is about: the kind is its check's (the catalogue's column), or the whole host
 * when the subject is "host". */
enum rd_subject_kind {
	RD_SUBJ_HOST, RD_SUBJ_MODULE, RD_SUBJ_DEVICE, RD_SUBJ_PORT, RD_SUBJ_DEVNODE, RD_SUBJ_SERVICE,
	RD_SUBJ_FILE, RD_SUBJ_PACKAGE, RD_SUBJ_LOG /* a kind of kernel log message */
};

struct rd_finding {
	const char *check;      /* check id, static */
	enum rd_status status;
	enum rd_subject_kind kind; /* of the subject */
	char *subject;          /* "mlx5_3 port 1", "ib_umad", "host" */
	char *message;
	struct rd_evidence *evidence;
	size_t nevidence;
	struct rd_strv fix;     /* commands or file contents, one per line */
	bool no_drain;          /* about rdma-doctor's own bookkeeping (a sample it cannot keep), not
				 * the host's health: shown, but never a reason to drain (slurm) */
};

struct rd_report {
	struct rd_finding *findings;
	size_t n;
};
void rd_report_free(struct rd_report *r);
enum rd_status rd_report_status(const struct rd_report *r);

struct rd_check_ctx {
	const struct rd_host *host;
	const struct rd_system *sys;
	const struct rd_policy *policy;
	bool live;               /* the model was read from the running host */
	struct rd_report *report;
	const char *check;       /* id of the running check */
	enum rd_subject_kind kind; /* its catalogue row's kind of subjects */
	size_t first;            /* index of the check's first finding */
};

struct rd_check {
	const char *id;
	enum rd_subject_kind subject_kind; /* of its findings (those about "host" are RD_SUBJ_HOST) */
	const char *title;
	const char *detects;
	const char *evidence;
	unsigned needs; /* the parts of the model it reads: RD_LOAD_* of model/host.h */
	void (*run)(struct rd_check_ctx *ctx);
};
/* The catalogue, ended by an entry with id == NULL. */
extern const struct rd_check rd_checks[];
const struct rd_check *rd_check_find(const char *id);
/* The parts of the model check id reads (its catalogue row's column); RD_LOAD_ALL for an id
 * that is not in the catalogue. */
unsigned rd_check_needs(const char *id);

/* Adds a finding for the running check; message is printf-style. */
struct rd_finding *rd_finding_add(struct rd_check_ctx *ctx, enum rd_status st, const char *subject,
				  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Adds a finding for check (a static id) from outside the catalogue, e.g. check --probe's
 * "probe.loopback", whose subjects are of kind (a subject "host" is RD_SUBJ_HOST whatever kind). */
struct rd_finding *rd_report_add(struct rd_report *r, const char *check, enum rd_subject_kind kind, enum rd_status st,
				 const char *subject, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void rd_evidence_add(struct rd_finding *f, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* path = value of an attr, or the reason it could not be read. */
void rd_evidence_attr(struct rd_finding *f, const struct rd_attr *a);
void rd_fix_add(struct rd_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The fix lines of a modules.* finding when the plan (fix/fix.h) changes files: "rdma-doctor fix
 * modules --apply", then the same change by hand (rd_fix_plan_shell).  Returns false (adding
 * nothing) when the plan changes no file. */
struct rd_fix_plan;
bool rd_fix_plan_suggest(const struct rd_fix_plan *plan, struct rd_finding *f);
/* True when the running check has produced no finding yet. */
bool rd_check_quiet(const struct rd_check_ctx *ctx);
/* True when o, a captured MFT tool output (model/mft.h), was read and understood.  Not run, not
 * installed or not captured: false, counted in *missing, the first one's reason (rd_tool_why) in
 * why for the check's SKIP.  Any other failure: false, and an UNKNOWN finding about subject,
 * "cannot read the WHAT of SUBJECT: why", with the capture (or the command) as its evidence. */
bool rd_tool_usable(struct rd_check_ctx *ctx, const struct rd_tool_out *o, const char *subject, const char *what,
		    size_t *missing, char *why, size_t whylen);

/* True when NCCL's environment was to be read from a process (check --env-from PID) and could not
 * be: then adds the check's one finding, UNKNOWN, naming the file and the error, and the check
 * judges nothing that depends on what NCCL is told. */
bool rd_nccl_environ_unread(struct rd_check_ctx *ctx);

/* True when list (a comma list of check ids, or NULL) selects id: an item is the id itself or a prefix
 * of it ending at a dot ("ports" selects "ports.rate"). */
bool rd_check_selected(const char *id, const char *list);
/* Runs the checks selected by only/skip (comma lists or NULL) into report. */
void rd_checks_run(const struct rd_host *h, const struct rd_system *sys, const struct rd_policy *p, bool live,
		   const char *only, const char *skip, struct rd_report *report);

/* The lookups shared by checks and renderers are the model's: rd_module_loaded (model/host.h),
 * rd_host_has_rdma_hardware and rd_modload_find (model/system.h).  The stack facts
 * (installed/running flavour, openibd) are derived once in the model: ctx->sys->stack
 * (model/stack.h). */
#endif
