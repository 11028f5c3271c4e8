/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The kernel log as it is written (/dev/kmsg), for `watch`: a reader that starts at the end (the
 * past is the load's dmesg) and returns one record per read, counting the records the kernel
 * overwrote before they were read (EPIPE); the record parser ("PRIO,SEQ,TS_USEC,FLAGS[,...];MESSAGE"
 * then continuation lines " KEY=VALUE"); the line as dmesg prints it; and the limit on how many
 * lines a second are judged (the rest are counted).
 *
 * Ownership: a reader owns its descriptor until rd_kmsg_close; a parsed record points into the
 * bytes it was parsed from; a limit is a plain value. */
#ifndef RD_SOURCE_KMSG_H
#define RD_SOURCE_KMSG_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/util.h"

#define RD_KMSG_RECORD_MAX 8192 /* a record read needs a buffer this large (CONSOLE_EXT_LOG_MAX) */

struct rd_kmsg_rec {
	unsigned prio;               /* facility << 3 | level */
	unsigned long long seq;
	unsigned long long ts_usec;  /* since boot */
	char flags;                  /* '-', 'c' (a continuation) ... */
	const char *msg;             /* the message up to its first newline, escaped as the kernel escapes it */
	size_t msglen;
};

/* Parses one record of len bytes: 0, or -EINVAL when it is not "PRIO,SEQ,TS_USEC,FLAGS...;". */
int rd_kmsg_parse(const char *buf, size_t len, struct rd_kmsg_rec *out);
/* Appends the record as dmesg prints it, "[SECONDS.MICROS] MESSAGE\n", to b (a NUL byte in the
 * message ends it). */
void rd_kmsg_format(const struct rd_kmsg_rec *r, struct rd_buf *b);

/* At most per_s lines judged in each second: the first per_s of a second are admitted, the rest
 * counted in over (the caller takes and zeroes it when it says so). */
struct rd_kmsg_limit {
	unsigned per_s;
	long long window_ms; /* start of the current second (CLOCK_MONOTONIC ms) */
	unsigned used;       /* lines admitted in it */
	unsigned long long over;
};
bool rd_kmsg_admit(struct rd_kmsg_limit *l, long long now_ms);

struct rd_kmsg {
	int fd;
	unsigned long long lost; /* reads that failed with EPIPE: records overwritten before being read */
};
/* Opens path (the live /dev/kmsg) read-only and non-blocking, at its end.  Returns 0 or -errno. */
int rd_kmsg_open(const char *path, struct rd_kmsg *k);
/* The next record into buf (size at least RD_KMSG_RECORD_MAX): its length, 0 when none is waiting,
 * or -errno.  An EPIPE is counted in k->lost and the next record read. */
ssize_t rd_kmsg_next(struct rd_kmsg *k, char *buf, size_t size);
void rd_kmsg_close(struct rd_kmsg *k);

#endif
