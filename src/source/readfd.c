/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reading a file descriptor (readfd.h). */
#include "source/readfd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

int rd_read_fd(int fd, struct rd_read_req *req, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	struct stat *st = &req->st;
	bool known = st->st_mode != 0;
	if (known && !S_ISREG(st->st_mode)) {
		out->err = RD_ENOTREG;
		close(fd);
		return -RD_ENOTREG;
	}
	size_t cap = req->cap;
	bool positional = req->positional;
	/* a size of 0 says nothing (procfs): such a file is read until a read gives 0 */
	bool sized = known && st->st_size > 0;
	/* the first read asks for what the file should hold: its size (+1 to see the end), one
	 * page for a sysfs attribute, else a chunk; it grows up to cap+1 to tell EFBIG.  A regular file
	 * of known size ends where a read comes back short. */
	size_t alloc = req->single ? cap
		     : sized && (uint64_t)st->st_size < cap ? (size_t)st->st_size + 1
		     : req->one_page ? 4096 : 8192;
	if (!req->single && alloc > cap + 1)
		alloc = cap + 1;
	if (alloc == 0)
		alloc = 1;
	char *buf = rd_xmalloc(alloc + 1);
	size_t len = 0;
	bool first = true;
	for (;;) {
		if (len == alloc) {
			if (len > cap)
				break;
			alloc = alloc * 2 > cap + 1 ? cap + 1 : alloc * 2;
			buf = rd_xrealloc(buf, alloc + 1);
		}
		size_t want = alloc - len;
		ssize_t n = positional ? pread(fd, buf + len, want, (off_t)len) : read(fd, buf + len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ESPIPE && positional) {
				/* a FIFO or a socket, left unread; a regular file that has no offsets is read */
				if (!known)
					known = fstat(fd, st) == 0;
				if (known && S_ISREG(st->st_mode) && len == 0) {
					positional = false;
					continue;
				}
				out->err = RD_ENOTREG;
				break;
			}
			out->err = errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (req->single)
			break;
		if (len > cap)
			break;
		/* a sysfs attribute comes whole in its first read (at most a page); a regular file
		 * of known size ends where a read comes back short */
		if ((first && req->one_page && len < 4096) || (sized && (size_t)n < want))
			break;
		first = false;
	}
	if (len > cap) {
		if (req->prefix_ok)
			len = cap;
		else if (!out->err)
			out->err = EFBIG;
	}
	/* nothing or an error: only now is the kind worth a fstat (a directory, a FIFO...) */
	if (!known && (out->err || len == 0)) {
		if (fstat(fd, st) < 0)
			memset(st, 0, sizeof *st);
		if (!S_ISREG(st->st_mode))
			out->err = RD_ENOTREG;
	}
	close(fd);
	if (out->err) {
		free(buf);
		return -out->err;
	}
	if (alloc - len > 256) /* a chunk read into (size unknown): keep what the file held */
		buf = rd_xrealloc(buf, len + 1);
	buf[len] = '\0';
	out->len = len;
	out->data = buf;
	return 0;
}
