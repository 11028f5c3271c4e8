/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reading a file descriptor, and the run's watchdog.
 *
 * Reads happen on the calling thread (no worker, no hand-over).  What protects a run from a read
 * that never returns (a wedged HCA's sysfs attribute, often in uninterruptible sleep) is one
 * watchdog thread per process, armed with the run's deadline: it looks at an atomic "in a read"
 * word, and when a read has taken longer than the per-read timeout, or is still running at the
 * run's deadline, it freezes that reader (it will never touch anything again, even when its read
 * returns) and starts a new thread that runs the takeover registered by the command.  The command
 * then runs again from the start in that thread: every read already done is answered from this
 * run's log (the same bytes or errno), the wedged one is ETIMEDOUT ("timed out"), and what follows
 * is read as usual under the same watchdog and the same absolute deadline (after it every read fails
 * at once).  So the report that comes out is the partial one: what was known, the rest UNKNOWN
 * "timed out".  The library never prints or exits: the takeover is the command's.
 *
 * Without a registered takeover (library users, the probe's child process) nothing is armed and
 * a read blocks as long as the kernel makes it.
 *
 * Ownership: rd_read_fd and rd_reader_read take the descriptor; the caller owns *out. */
#ifndef RD_READER_H
#define RD_READER_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "source/source.h"

/* One read of a whole file (or of its first cap bytes). */
struct rd_read_req {
	size_t cap;      /* at most this many bytes: EFBIG past it, unless prefix_ok */
	bool prefix_ok;  /* keep the first cap bytes of a longer file */
	bool single;     /* one read() of at most cap bytes (what libibumad does) */
	bool one_page;   /* a sysfs attribute: its first read of less than a page is all of it */
	bool positional; /* read with pread: a FIFO or socket gives ESPIPE, and none of its bytes */
	struct stat st;  /* in: the file's fstat when the caller has it (st_mode 0: unknown);
			  * out: filled when the read needed it (0 bytes or an error) */
};

/* The plain read: read until the end (see rd_read_req), and only when a read gives nothing or
 * fails, fstat to tell a regular file from the rest (RD_ENOTREG: a directory, FIFO, device...).
 * positional: a regular file that cannot be read at an offset (ESPIPE) is read with read().
 * Closes fd. */
int rd_read_fd(int fd, struct rd_read_req *req, struct rd_text *out);

/* rd_read_fd of the file known as key (its path in the root) under the watchdog: answered from
 * the log when this thread is a takeover and the file was read before; otherwise read, marked
 * "in a read" for the watchdog, and logged.  Returns 0 or -errno. */
int rd_reader_read(const char *key, int fd, struct rd_read_req *req, struct rd_text *out);

/* A command's output, through the same log (live commands run once per process, whatever the
 * takeovers).  rd_reader_command_logged copies a logged result into *out and returns true. */
bool rd_reader_command_logged(const char *name, struct rd_text *out);
void rd_reader_command_log(const char *name, const struct rd_text *out);

/* The takeover: fn(arg, path) runs in a new thread when a read of path wedged; it should run the
 * command again and end the process (it must not return into the library).  One per process:
 * registered by the process that calls it (a child after fork has none). */
typedef void (*rd_takeover_fn)(void *arg, const char *path);
void rd_watchdog_takeover(rd_takeover_fn fn, void *arg);

/* Arms the watchdog for the run (*run_deadline_ms: absolute CLOCK_MONOTONIC ms, and the longest
 * one read may take): only when a takeover is registered in this process.  Once armed, later calls
 * (a takeover's own source) keep the first deadline, which is then put in *run_deadline_ms.
 * Returns true when armed (now or before). */
bool rd_watchdog_arm(long long *run_deadline_ms, int read_timeout_ms);
/* Stops the watchdog thread (joined) and forgets the log; a no-op when not armed. */
void rd_watchdog_disarm(void);
/* Takeovers started in this process so far (0: the run went as planned). */
unsigned rd_watchdog_takeovers(void);

#endif
