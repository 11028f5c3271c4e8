/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Writing a file the safe way: the only code that changes files on a host.
 *
 * rd_atomic_write replaces (or creates) DIR/NAME under the source's root with a temporary file in
 * the same directory, fsync, rename and fsync of the directory, so the file is always either the
 * old content or the new; it keeps the old file's mode and owner and creates missing directories.
 * Links are refused, never followed, and a link swapped in meanwhile is never replaced: the
 * directory is pinned by an O_PATH descriptor reached one component at a time from the root
 * (O_PATH|O_NOFOLLOW|O_DIRECTORY, never a multi-component path); the file is checked before
 * writing and again after; a new file goes in with renameat2(RENAME_NOREPLACE), an existing one
 * with renameat2(RENAME_EXCHANGE), the swapped-out entry verified to be the file checked (else
 * swapped back and refused).
 * Ownership: borrows everything; the caller owns the data.  data may hold any bytes (len of them). */
#ifndef RD_ATOMIC_H
#define RD_ATOMIC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "source/source.h"

/* dir: relative to the root ("etc/modules-load.d"); mode: for a new file.
 * Returns 0, or -errno with a one-line reason (naming the host path) in err. */
int rd_atomic_write(struct rd_source *src, const char *dir, const char *name, const char *data, size_t len,
		    mode_t mode, char *err, size_t errlen);

/* Opens the directory dir on the host (absolute, or relative to the working directory) to write a
 * file into, refusing an unsafe path: it is walked one component at a time (O_PATH|O_NOFOLLOW, each
 * step checked on the descriptor it opened), and a symbolic link on the way is followed only when it
 * is owned by root or by the owner of the directory holding it; once a link owned by another user
 * than root is followed, everything reached through it must belong to that user too (systemd's
 * rule against unsafe transitions: a link's owner can lead a write only into what it owns itself,
 * so the owner of /var/lib/prometheus cannot send root's write into /etc).  Nothing is created.
 * Returns a descriptor of the directory (O_RDONLY, or O_PATH when it is not readable), or -errno
 * with a one-line reason (naming the path) in err. */
int rd_dir_open_safe(const char *dir, char *err, size_t errlen);

/* Replaces (or creates) name in the directory dfd (reached safely: rd_dir_open_safe, or openat
 * with O_NOFOLLOW) with what fill writes: a new ".NAME.tmp-PID-N" (O_EXCL|O_NOFOLLOW, mode 0644
 * less the umask), flushed, fsync, renamed over name (a link there is replaced, never followed),
 * then the directory synced.  The temporary name ends neither in .prom nor in .json, so no reader
 * of the directory takes a half-written file.  Returns 0 or -errno; *made is false when no
 * temporary file could be made.  Nothing is left beside name on a failure. */
int rd_file_replace(int dfd, const char *name, void (*fill)(FILE *f, void *arg), void *arg, bool *made);

#endif
