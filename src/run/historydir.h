/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The history directory (check --history-dir, watch --history-dir): the reports `fleet --history`
 * reads, kept by the runs themselves.
 *
 *  * One report is DIR/HOST/EPOCH.json: HOST is the report's host made safe as one file name
 *    (rd_state_safe_name: no '/', no "..", no hidden name), EPOCH its time in seconds.
 *  * DIR is reached by rd_dir_open_safe (no link another user placed is followed on the way) and
 *    made when missing (its parent must exist); DIR/HOST is made with mode 0755 when missing and
 *    opened O_NOFOLLOW|O_DIRECTORY below DIR's descriptor (a link there is refused), and refused
 *    by the state directory's ownership rule (rd_statefile_unsafe: owned by another user than root
 *    and this one, or writable by group or others).  Every write and removal goes through that
 *    descriptor.
 *  * The report is written by rd_file_replace: a temporary file in DIR/HOST, fsync, a rename; a
 *    reader sees the whole report or none.  Each report has a name of its own, so runs need no
 *    lock: two runs of one host in the same second leave the later one (fleet --history counts a
 *    host's time once anyway).
 *  * Before the write, the host's reports dated before the report's time less `days` days are
 *    removed: only regular files whose names are the writer's own (EPOCH.json, and the temporary
 *    ".EPOCH.json.tmp-PID-N" of a run that was killed), by the time in the name; anything else in
 *    the directory is left alone.  At most RD_HISTDIR_SCAN_MAX entries are looked at a run.
 *
 * Library code: returns 0 or -errno with a one-line reason naming the path in err; prints nothing.
 * Ownership: borrows everything; fill writes the document into the file it is given. */
#ifndef RD_HISTORYDIR_H
#define RD_HISTORYDIR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define RD_HISTDIR_DAYS 8        /* kept: more than fleet --history's default window of 7 days */
#define RD_HISTDIR_DAYS_MAX 3650
#define RD_HISTDIR_SCAN_MAX 100000

/* Writes the report of host at time t (what fill writes) as DIR/HOST/T.json after removing the
 * host's reports older than t - days * 86400.  *pruned: how many files were removed.  A removal
 * that fails does not stop the write; either failure is the return value and err (the write's
 * first). */
int rd_histdir_write(const char *dir, const char *host, long long t, long long days, void (*fill)(FILE *f, void *arg),
		     void *arg, size_t *pruned, char *err, size_t errlen);
/* True when name is one the writer makes: "T.json" (T in decimal, no leading zero) or its
 * temporary ".T.json.tmp-PID-N"; *t: T. */
bool rd_histdir_name(const char *name, long long *t);

#endif
