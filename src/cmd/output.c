/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* --output FILE for check and fleet: a new file beside FILE, renamed over it.  The directory is
 * reached safely (rd_dir_open_safe: no symbolic link another user placed is followed) and used by
 * its descriptor from then on; the file is new, with the mode 0644 less the umask, whatever was
 * at FILE before (a link there is replaced, never followed). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "render/out.h"
#include "source/atomic.h"
#include "util/util.h"

int rd_output_atomic(struct rd_ctx *ctx, const char *cmd, const char *path, void (*fill)(FILE *f, void *arg),
		     void *arg)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s: --output %s: not a file name\n", ctx->prog, cmd, path);
		return -1;
	}
	char *dir = !slash ? rd_xstrdup(".") : slash == path ? rd_xstrdup("/") : rd_xstrndup(path, (size_t)(slash - path));
	char why[512] = "";
	int dfd = rd_dir_open_safe(dir, why, sizeof why);
	free(dir);
	if (dfd < 0) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s: --output %s: cannot create a file in its directory: %s\n",
			       ctx->prog, cmd, path, why);
		return -1;
	}
	char *tmp = NULL;
	int fd = -1;
	/* ".NAME.tmp-PID-N" does not end in .prom: node_exporter's collector never reads a half-written file */
	for (unsigned n = 0; n < 100 && fd < 0; n++) {
		free(tmp);
		tmp = rd_xasprintf(".%s.tmp-%ld-%u", base, (long)getpid(), n);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s: --output %s: cannot create a file in its directory: %s\n",
			       ctx->prog, cmd, path, strerror(errno));
		free(tmp);
		close(dfd);
		return -1;
	}
	FILE *f = fdopen(fd, "w");
	int err = 0;
	if (!f) {
		err = errno;
		close(fd);
	} else {
		fill(f, arg);
		if (fflush(f) != 0 || ferror(f))
			err = errno ? errno : EIO;
		else if (fsync(fileno(f)) != 0)
			err = errno;
		if (fclose(f) != 0 && !err)
			err = errno ? errno : EIO;
	}
	if (!err && renameat(dfd, tmp, dfd, base) != 0)
		err = errno;
	if (err) {
		unlinkat(dfd, tmp, 0);
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s: --output %s: %s\n", ctx->prog, cmd, path, strerror(err));
	} else {
		(void)fsync(dfd); /* the rename itself; a descriptor opened O_PATH cannot be synced */
	}
	free(tmp);
	close(dfd);
	return err ? -1 : 0;
}
