/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The state directory: the one module that reads and writes the link state file (its format and
 * history rules are model/state.h's).  It knows nothing of commands or checks, so that it can move
 * under a run layer as it is.
 *
 *  * The directory is resolved once (links in the path the user gave are followed, as
 *    /var/run -> /run) and every read, lock and write goes through that one descriptor.
 *  * Like ssh's StrictModes, a directory, state file or lock file owned by a user other than root
 *    and this one, or writable by group or others, is refused with the reason, and so is a
 *    directory named by a link (its last component) of such a user; a state file is
 *    opened O_NOFOLLOW (a link in its place is neither followed nor replaced) and must be a
 *    regular file of at most RD_STATE_MAX_BYTES.
 *  * Runs are serialised by flock(2) on "<host>.link-state.lock" in the directory: a reader takes
 *    it shared, a run that updates the file exclusive for the whole read-modify-write, so two
 *    runs never write over each other's sample.  The wait is bounded (wait_s); a lock that
 *    cannot be had is reported, and the file is still read (a write is a rename: a reader sees
 *    the old file or the new one).
 *  * A write is a temporary file in the directory, fsync, rename over the state file, fsync of
 *    the directory.
 *
 * Every function returns 0 (or 1 where it says) or -errno with a one-line reason naming the file
 * in err; none prints.
 *
 * Ownership: an rd_statefile owns its descriptors and strings until rd_statefile_close; the
 * rd_state filled by rd_statefile_read is the caller's (rd_state_free). */
#ifndef RD_STATEFILE_H
#define RD_STATEFILE_H
#include <stdbool.h>
#include <stddef.h>

#include "model/state.h"

struct stat;

#define RD_STATEFILE_WAIT_S 10.0 /* the longest wait for another run's lock */

struct rd_statefile {
	int dfd;       /* the state directory, resolved once */
	int lockfd;    /* "<name>.lock", or -1 */
	bool update;   /* opened to write: the lock is exclusive */
	bool locked;
	char *dir;     /* as given (messages name it so) */
	char *name;    /* "<host>.link-state" */
	char *path;    /* dir/name, for messages */
};

/* Opens the state directory dir for the state of host.  update: the directory is made when it
 * does not exist (mode 0755; its parent must exist).  Returns 0, -ENOENT (reading: no directory,
 * so no state), or -errno with the reason (a directory refused by the ownership rule: -EPERM). */
int rd_statefile_open(struct rd_statefile *sf, const char *dir, const char *host, bool update, char *err,
		      size_t errlen);
/* True when this process can create files in the directory. */
bool rd_statefile_writable(const struct rd_statefile *sf);
/* Takes the lock (shared, or exclusive when opened to update), waiting at most wait_s seconds.
 * A reader makes no lock file: without one (no run has written yet) it reads without the lock
 * and gets 0.  -EWOULDBLOCK: another run held the lock all that time. */
int rd_statefile_lock(struct rd_statefile *sf, double wait_s, char *err, size_t errlen);
/* 1: st holds the file's state; 0: there is no state file; -errno: the reason. */
int rd_statefile_read(struct rd_statefile *sf, struct rd_state *st, char *err, size_t errlen);
/* Replaces the state file with st.  Only under the exclusive lock (else -ENOLCK). */
int rd_statefile_write(struct rd_statefile *sf, const struct rd_state *st, char *err, size_t errlen);
/* The ownership rule above, for another directory or file kept the same way (run/historydir.h):
 * NULL when sb passes it, else why not (in buf). */
const char *rd_statefile_unsafe(const struct stat *sb, char *buf, size_t len);
/* Unlocks and closes; sf may be zeroed or already closed. */
void rd_statefile_close(struct rd_statefile *sf);

#endif
