/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reading a file descriptor: the one read() loop of the source layer, with its caps.
 * Ownership: rd_read_fd takes the descriptor (closes it); the caller owns *out. */
#ifndef RD_SOURCE_READFD_H
#define RD_SOURCE_READFD_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "source/text.h"

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

#endif
