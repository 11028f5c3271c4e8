/* --output FILE for check and fleet: a new file beside FILE, renamed over it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "render/out.h"
#include "util/util.h"

int rd_output_atomic(struct rd_ctx *ctx, const char *cmd, const char *path, void (*fill)(FILE *f, void *arg),
		     void *arg)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	if (!*base) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s: --output %s: not a file name\n", ctx->prog, cmd, path);
		return -1;
	}
	int dlen = slash ? (int)(slash - path) + 1 : 0;
	char *tmp = NULL;
	int fd = -1;
	/* ".NAME.tmp-PID-N" does not end in .prom: node_exporter's collector never reads a half-written file */
	for (unsigned n = 0; n < 100 && fd < 0; n++) {
		free(tmp);
		tmp = rd_xasprintf("%.*s.%s.tmp-%ld-%u", dlen, path, base, (long)getpid(), n);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s: --output %s: cannot create a file in its directory: %s\n",
			       ctx->prog, cmd, path, strerror(errno));
		free(tmp);
		return -1;
	}
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		(void)fchmod(fd, st.st_mode & 07777); /* keep the mode of the file it replaces */
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
	if (!err && rename(tmp, path) != 0)
		err = errno;
	if (err) {
		unlink(tmp);
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s: --output %s: %s\n", ctx->prog, cmd, path, strerror(err));
	}
	free(tmp);
	return err ? -1 : 0;
}
