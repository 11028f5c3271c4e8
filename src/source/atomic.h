/* Writing a file the safe way: the only code that changes files on a host.
 *
 * rd_atomic_write replaces (or creates) DIR/NAME under the source's root with a temporary file in
 * the same directory, fsync, rename and fsync of the directory, so the file is always either the
 * old content or the new; it keeps the old file's mode and owner, creates missing directories,
 * and refuses to write through a symbolic link or into anything but a directory.
 * Ownership: borrows everything; the caller owns the data and the fault counter. */
#ifndef RD_ATOMIC_H
#define RD_ATOMIC_H
#include <stddef.h>
#include <sys/types.h>

#include "source/source.h"

/* Crash injection for tests: when fail_at > 0 the process exits (status 99, no clean-up) just
 * before the fail_at-th system call of the write sequence, as if killed there. */
struct rd_write_fault {
	int fail_at;
	int step;
};

/* dir: relative to the root ("etc/modules-load.d"); mode: for a new file.
 * Returns 0, or -errno with a one-line reason (naming the host path) in err. */
int rd_atomic_write(struct rd_source *src, const char *dir, const char *name, const char *data, size_t len,
		    mode_t mode, struct rd_write_fault *fault, char *err, size_t errlen);

#endif
