/* Reading a file descriptor with a deadline: the read happens in a worker thread, and a read that
 * does not finish in time (a wedged HCA's sysfs attribute) is abandoned to that thread, which
 * closes the descriptor whenever the kernel lets it go; later reads get a new worker.
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
	struct stat st;  /* in: the file's fstat when the caller has it (st_mode 0: unknown);
			  * out: filled when the read needed it (0 bytes or an error) */
};

struct rd_reader;

/* Reads fd as rd_read_fd would, within timeout_ms.  *r is the worker (made when NULL, set to
 * NULL when the read timed out and the worker was abandoned).  Returns 0 or -errno (-ETIMEDOUT). */
int rd_reader_read(struct rd_reader **r, int fd, struct rd_read_req *req, int timeout_ms, struct rd_text *out);
void rd_reader_stop(struct rd_reader *r);

/* The plain read used by both paths: read until the end (see rd_read_req), and only when a read
 * gives nothing or fails, fstat to tell a regular file from the rest (RD_ENOTREG: a directory,
 * FIFO, device...).  Closes fd. */
int rd_read_fd(int fd, struct rd_read_req *req, struct rd_text *out);

#endif
