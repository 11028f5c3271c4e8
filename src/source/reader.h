/* Reading a file descriptor with a deadline: the read happens in a worker thread, and a read that
 * does not finish in time (a wedged HCA's sysfs attribute) is abandoned to that thread, which
 * closes the descriptor whenever the kernel lets it go; later reads get a new worker.
 * Ownership: rd_reader_read takes the descriptor; the caller owns *out. */
#ifndef RD_READER_H
#define RD_READER_H
#include <stdbool.h>
#include <stddef.h>

#include "source/source.h"

struct rd_reader;

/* Reads fd (regular files only) as read_fd() would, within timeout_ms.  *r is the worker (made
 * when NULL, set to NULL when the read timed out and the worker was abandoned).  slow_ms > 0
 * delays the worker first (tests only).  Returns 0 or -errno (-ETIMEDOUT). */
int rd_reader_read(struct rd_reader **r, int fd, size_t cap, bool prefix_ok, bool single, int timeout_ms,
		   int slow_ms, struct rd_text *out);
void rd_reader_stop(struct rd_reader *r);

/* The plain read used by both paths: fstat (regular files only), then read to EOF (or one
 * read() when single), at most cap bytes (EFBIG past it unless prefix_ok).  Closes fd. */
int rd_read_fd(int fd, size_t cap, bool prefix_ok, bool single, struct rd_text *out);

#endif
