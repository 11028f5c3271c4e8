/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The watch over a guarded load's reads (a read itself is readfd.h's).
 *
 * A guarded load (run/guard.h) runs on a loader thread while the thread that started it watches:
 * each read a loader makes is marked in an atomic "in a read" word, and when one has taken longer
 * than the per-read timeout, or is still running at the run's deadline, rd_watch_poll freezes that
 * loader (it never touches anything again, even when its read returns) and the guard starts
 * another.  What every loader of the watch read is kept in the watch's log (the same bytes or
 * errno, and the output of the commands it ran), so that the next loader's reads are answered
 * from it, the wedged read is ETIMEDOUT ("timed out"), and what follows is read as usual until the
 * same absolute deadline (after it every read fails at once).  The load's result is then the
 * partial one: what was known, the rest UNKNOWN "timed out".  The library never prints or exits.
 *
 * A read made on any other thread (no watch, a command's own reads after its load, a child after
 * fork) is a plain read: not logged, not watched, blocking as long as the kernel makes it.
 *
 * Ownership: rd_reader_read takes the descriptor; the caller owns *out; the log is the watch's,
 * from rd_watch_begin to rd_watch_end. */
#ifndef RD_SOURCE_WATCHDOG_H
#define RD_SOURCE_WATCHDOG_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "source/readfd.h"
#include "source/text.h"

/* rd_read_fd of the file known as key (its path in the root): on a loader thread of the watch,
 * answered from the log when the loader replays it and the file was read before; otherwise read,
 * marked "in a read" for the watch, and logged.  Returns 0 or -errno. */
int rd_reader_read(const char *key, int fd, struct rd_read_req *req, struct rd_text *out);

/* A command's output, through the same log (a live command runs once per watch, whatever the
 * loaders).  rd_reader_command_logged copies a logged result into *out and returns true. */
bool rd_reader_command_logged(const char *name, struct rd_text *out);
void rd_reader_command_log(const char *name, const struct rd_text *out);

/* The source's deadlines for the watch (*run_deadline_ms: absolute CLOCK_MONOTONIC ms, and the
 * longest one read may take), from a loader thread: the first call of a watch sets them, later
 * ones (a replaying loader's own source) get the first deadline back in *run_deadline_ms.
 * Returns true when the calling thread is a loader of a watch (its reads are watched). */
bool rd_watchdog_arm(long long *run_deadline_ms, int read_timeout_ms);
/* The watch's deadline (0: none yet, or no watch): a replaying loader opens its source by it. */
long long rd_watchdog_deadline(void);

/* ---- the watch, for run/guard.c ---- */
/* Starts a watch (the log empty, no deadline yet) in this process; one at a time. */
void rd_watch_begin(void);
/* Makes the calling thread the watch's current loader; replay: answer reads from the log. */
void rd_watch_loader(bool replay);
/* The watcher's look at the loader's read in flight at now_ms (CLOCK_MONOTONIC): when it is past
 * its time, freezes the loader, logs the read as timed out, copies its path into path and returns
 * true; otherwise false, with *next_ms (absolute) the latest time to look again. */
bool rd_watch_poll(long long now_ms, long long *next_ms, char *path, size_t pathlen);
/* Ends the watch: the log is freed; later reads are plain ones.  The frozen loaders stay frozen. */
void rd_watch_end(void);

#endif
