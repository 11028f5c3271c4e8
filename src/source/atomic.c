#include "source/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Counts a step of the write sequence; simulates a crash at the chosen one. */
static void step(struct rd_write_fault *f)
{
	if (f && f->fail_at > 0 && ++f->step == f->fail_at)
		_exit(99);
}

static int fail(char *err, size_t errlen, int e, const char *fmt, const char *a, const char *b)
{
	snprintf(err, errlen, fmt, a, b);
	return -e;
}

/* Opens (creating when missing) each directory of dir below the root, never through a link. */
static int open_dir(struct rd_source *src, const char *dir, struct rd_write_fault *fault, char *err, size_t errlen)
{
	int fd = dup(rd_source_fd(src));
	if (fd < 0)
		return fail(err, errlen, errno, "cannot open the root: %s%s", strerror(errno), "");
	char *copy = rd_xstrdup(dir), *save = NULL;
	struct rd_buf shown = {0};
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		rd_buf_printf(&shown, "/%s", c);
		if (strcmp(c, "..") == 0 || strcmp(c, ".") == 0) {
			close(fd);
			int r = fail(err, errlen, EINVAL, "%s: not a plain directory path%s", shown.data, "");
			free(copy);
			rd_buf_free(&shown);
			return r;
		}
		step(fault);
		int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT) {
			step(fault);
			if (mkdirat(fd, c, 0755) < 0 && errno != EEXIST) {
				int e = errno;
				close(fd);
				int r = fail(err, errlen, e, "cannot create directory %s: %s", shown.data, strerror(e));
				free(copy);
				rd_buf_free(&shown);
				return r;
			}
			step(fault);
			next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			int e = errno;
			close(fd);
			int r = (e == ELOOP || e == ENOTDIR)
					? fail(err, errlen, e, "%s is a symbolic link or not a directory: refusing to write through it%s", shown.data, "")
					: fail(err, errlen, e, "cannot open %s: %s", shown.data, strerror(e));
			free(copy);
			rd_buf_free(&shown);
			return r;
		}
		close(fd);
		fd = next;
	}
	free(copy);
	rd_buf_free(&shown);
	return fd;
}

int rd_atomic_write(struct rd_source *src, const char *dir, const char *name, const char *data, size_t len,
		    mode_t mode, struct rd_write_fault *fault, char *err, size_t errlen)
{
	char *shown = rd_xasprintf("/%s/%s", dir, name);
	int dfd = open_dir(src, dir, fault, err, errlen);
	if (dfd < 0) {
		free(shown);
		return dfd;
	}
	int r = 0, fd = -1;
	char tmp[300] = "";
	struct stat st;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	step(fault);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			r = fail(err, errlen, ELOOP, "%s is a symbolic link: refusing to write through it (edit its target, or replace the link by a file)%s", shown, "");
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			r = fail(err, errlen, EINVAL, "%s is not a regular file: not touching it%s", shown, "");
			goto out;
		}
		mode = st.st_mode & 07777;
		uid = st.st_uid;
		gid = st.st_gid;
	} else if (errno != ENOENT) {
		r = fail(err, errlen, errno, "cannot stat %s: %s", shown, strerror(errno));
		goto out;
	}
	/* the temporary file, in the same directory so that rename() is atomic */
	unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL);
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		seed = seed * 1103515245u + 12345u;
		snprintf(tmp, sizeof tmp, ".%.200s.rdma-doctor.%06x", name, seed & 0xffffff);
		step(fault);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST) {
			r = fail(err, errlen, errno, "cannot create a temporary file beside %s: %s", shown, strerror(errno));
			goto out;
		}
	}
	if (fd < 0) {
		r = fail(err, errlen, EEXIST, "cannot create a temporary file beside %s%s", shown, "");
		goto out;
	}
	for (size_t off = 0; off < len;) {
		step(fault);
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = fail(err, errlen, n < 0 ? errno : EIO, "cannot write %s: %s", shown, strerror(n < 0 ? errno : EIO));
			goto out;
		}
		off += (size_t)n;
	}
	step(fault);
	if (fchmod(fd, mode) < 0) {
		r = fail(err, errlen, errno, "cannot set the mode of %s: %s", shown, strerror(errno));
		goto out;
	}
	if (uid != (uid_t)-1 && (uid != geteuid() || gid != getegid())) {
		step(fault);
		if (fchown(fd, uid, gid) < 0) {
			r = fail(err, errlen, errno, "cannot keep the owner of %s: %s", shown, strerror(errno));
			goto out;
		}
	}
	step(fault);
	if (fsync(fd) < 0) {
		r = fail(err, errlen, errno, "cannot sync %s: %s", shown, strerror(errno));
		goto out;
	}
	step(fault);
	close(fd);
	fd = -1;
	step(fault);
	if (renameat(dfd, tmp, dfd, name) < 0) {
		r = fail(err, errlen, errno, "cannot replace %s: %s", shown, strerror(errno));
		goto out;
	}
	tmp[0] = '\0';
	step(fault);
	if (fsync(dfd) < 0)
		r = fail(err, errlen, errno, "cannot sync the directory of %s: %s", shown, strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (tmp[0])
		unlinkat(dfd, tmp, 0);
	close(dfd);
	free(shown);
	return r;
}
