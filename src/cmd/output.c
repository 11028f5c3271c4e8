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
	/* ".NAME.tmp-PID-N" does not end in .prom: node_exporter's collector never reads a half-written file */
	bool made;
	int r = rd_file_replace(dfd, base, fill, arg, &made);
	if (r < 0 && !made)
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s: --output %s: cannot create a file in its directory: %s\n",
			       ctx->prog, cmd, path, strerror(-r));
	else if (r < 0)
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s: --output %s: %s\n", ctx->prog, cmd, path, strerror(-r));
	close(dfd);
	return r < 0 ? -1 : 0;
}
