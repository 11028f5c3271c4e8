/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The guarded load: the unit that a wedged read cannot stop.
 *
 * A load is a function that reads the host and builds data, and never prints or changes anything
 * outside what it builds.  rd_guard_load runs it on a loader thread while the calling thread
 * watches its reads (source/watchdog.h): when a read wedges (longer than the per-read timeout, or
 * past the run's deadline), that loader is abandoned (frozen: it never touches anything again) and
 * a new loader runs the load again from the start, every read already made answered from the
 * watch's log, the wedged one ETIMEDOUT, on to the same absolute deadline.  The load that returns
 * is the one whose result the caller gets; the command then renders it, once.
 *
 * Ownership: the load fills out (size bytes, zeroed first) in place, and out is the caller's when
 * rd_guard_load returns; after a wedge, what the abandoned loader had built there is set aside,
 * never freed (the frozen loader may point into it), and out is zeroed for the next loader. */
#ifndef RD_GUARD_H
#define RD_GUARD_H
#include <stddef.h>

/* A load: fills out (zeroed) from arg, which it only reads; returns what rd_guard_load returns.
 * It runs once, or again from the start after a wedged read (out may point into itself). */
typedef int (*rd_guard_fn)(void *out, const void *arg);

/* Runs load under the watch and returns its result, with out filled.  Without a thread to run it
 * on, load runs on this thread, unwatched. */
int rd_guard_load(rd_guard_fn load, const void *arg, void *out, size_t size);

#endif
