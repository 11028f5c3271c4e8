/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `watch`'s report over time: the findings of the checks an event re-ran put in place of their
 * old ones (in catalogue order), the problems found in new kernel log lines added to kernel.log's,
 * and the changes of status between two reports, per check and subject (the worse status when
 * several findings share them, as in Prometheus' rdma_doctor_check_status).
 *
 * Ownership: rd_watch_replace and rd_watch_merge take the findings of next (next is left empty)
 * and free the ones they drop; a key set owns its subjects (rd_watch_keys_free); the check ids are
 * the catalogue's (static). */
#ifndef RD_WATCHREPORT_H
#define RD_WATCHREPORT_H
#include <stdbool.h>
#include <stddef.h>

#include "checks/check.h"

/* The findings of the checks ran selects (a list as --only's; NULL: every check) are next's; the
 * others stay cur's. */
void rd_watch_replace(struct rd_report *cur, const char *ran, struct rd_report *next);
/* The WARN and FAIL findings of check in next (judged on new lines alone) go into cur: each in place
 * of cur's finding of the same check and subject, or after cur's findings of that check; when one
 * is added, cur's OK findings of the check go (they said "no known error").  Returns how many were
 * taken. */
size_t rd_watch_merge(struct rd_report *cur, const char *check, struct rd_report *next);

#define RD_WATCH_NONE (-1) /* a status for "no such finding" */
struct rd_watch_key {
	const char *check;
	char *subject;
	int status; /* enum rd_status */
};
struct rd_watch_keys {
	struct rd_watch_key *v;
	size_t n;
};
/* The report's (check, subject) pairs with the worse status of their findings. */
void rd_watch_keys_take(struct rd_watch_keys *k, const struct rd_report *r);
void rd_watch_keys_free(struct rd_watch_keys *k);
/* Calls fn for each pair whose status differs between old and cur (RD_WATCH_NONE where one has no
 * such pair): cur's pairs in their order, then those only old has.  Returns how many. */
typedef void rd_watch_change_fn(const char *check, const char *subject, int old_status, int new_status, void *arg);
size_t rd_watch_diff(const struct rd_watch_keys *old, const struct rd_watch_keys *cur, rd_watch_change_fn *fn,
		     void *arg);

#endif
