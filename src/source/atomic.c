/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "source/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static int fail(char *err, size_t errlen, int e, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

/* What a message calls the root: "" for the live host, else the root as given, without its
 * trailing slashes (the messages name DIR/etc/..., the path an operator can look at). */
static void root_prefix(struct rd_source *src, struct rd_buf *b)
{
	const char *root = rd_source_is_live(src) ? NULL : rd_source_root(src);
	size_t n = root ? strlen(root) : 0;
	while (n > 0 && root[n - 1] == '/')
		n--;
	rd_buf_add(b, root ? root : "", n);
}

/* Pins the directory dir below the root: walks it one component at a time from the root's
 * descriptor with O_PATH|O_NOFOLLOW|O_DIRECTORY (creating what is missing), so a link anywhere
 * on the way is refused, never followed.  Returns the O_PATH descriptor or -errno. */
static int pin_dir(struct rd_source *src, const char *dir, char *err, size_t errlen)
{
	int fd = openat(rd_source_fd(src), ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, errno, "cannot open the root: %s", strerror(errno));
	int r = 0;
	char *copy = rd_xstrdup(dir), *save = NULL;
	struct rd_buf shown = {0};
	root_prefix(src, &shown);
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		rd_buf_printf(&shown, "/%s", c);
		if (strcmp(c, "..") == 0 || strcmp(c, ".") == 0) {
			r = fail(err, errlen, EINVAL, "%s: not a plain directory path", shown.data);
			break;
		}
		int next = openat(fd, c, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (next < 0 && errno == ENOENT) {
			if (mkdirat(fd, c, 0755) < 0 && errno != EEXIST) {
				int e = errno;
				r = fail(err, errlen, e, "cannot create directory %s: %s", shown.data, strerror(e));
				break;
			}
			next = openat(fd, c, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		}
		struct stat st;
		if (next >= 0 && (fstat(next, &st) < 0 || !S_ISDIR(st.st_mode))) {
			close(next);
			next = -1;
			errno = ENOTDIR;
		}
		if (next < 0) {
			int e = errno;
			r = (e == ELOOP || e == ENOTDIR)
				    ? fail(err, errlen, e, "%s is a symbolic link or not a directory: refusing to write through it",
					   shown.data)
				    : fail(err, errlen, e, "cannot open %s: %s", shown.data, strerror(e));
			break;
		}
		close(fd);
		fd = next;
	}
	free(copy);
	rd_buf_free(&shown);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* What is at name now: 0 and *st, or -errno (-ENOENT when nothing). */
static int look(int dfd, const char *name, struct stat *st)
{
	return fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
}

/* The entry at name may be replaced: a regular file (the same one as before, when there was one). */
static int still_ours(int dfd, const char *name, bool existed, const struct stat *before, const char *shown, char *err,
		      size_t errlen)
{
	struct stat st;
	int r = look(dfd, name, &st);
	if (!existed) {
		if (r == -ENOENT)
			return 0;
		return r == 0 ? fail(err, errlen, EEXIST, "%s appeared while it was being written: not touching it", shown)
			      : fail(err, errlen, -r, "cannot stat %s: %s", shown, strerror(-r));
	}
	if (r < 0)
		return fail(err, errlen, -r, "%s changed while it was being written (%s): not touching it", shown, strerror(-r));
	if (S_ISLNK(st.st_mode))
		return fail(err, errlen, ELOOP, "%s became a symbolic link while it was being written: not touching it", shown);
	if (!S_ISREG(st.st_mode) || st.st_dev != before->st_dev || st.st_ino != before->st_ino)
		return fail(err, errlen, EBUSY, "%s was replaced while it was being written: not touching it", shown);
	return 0;
}

/* Puts tmp in place of name.  A new file: renameat2(RENAME_NOREPLACE), so nothing that appeared
 * meanwhile is replaced.  An existing one: renameat2(RENAME_EXCHANGE), then the entry swapped out
 * must be the file checked before; if something else was swapped in meanwhile (a link), it is
 * swapped back and the write refused.  Where the file system lacks these (EINVAL), a plain
 * renameat after the last check. */
static int put_in_place(int dfd, const char *tmp, const char *name, bool existed, const struct stat *before,
			const struct stat *ours, const char *shown, char *err, size_t errlen, bool *tmp_gone)
{
	*tmp_gone = false;
	if (!existed) {
		if (renameat2(dfd, tmp, dfd, name, RENAME_NOREPLACE) == 0) {
			*tmp_gone = true;
			return 0;
		}
		if (errno == EEXIST)
			return fail(err, errlen, EEXIST, "%s appeared while it was being written: not touching it", shown);
		if (errno != EINVAL && errno != ENOSYS)
			return fail(err, errlen, errno, "cannot create %s: %s", shown, strerror(errno));
	} else {
		if (renameat2(dfd, tmp, dfd, name, RENAME_EXCHANGE) == 0) {
			struct stat st;
			if (look(dfd, tmp, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == before->st_dev &&
			    st.st_ino == before->st_ino) {
				/* tmp now holds the old file, which only this process touches: remove it */
				if (unlinkat(dfd, tmp, 0) == 0)
					*tmp_gone = true;
				return 0;
			}
			/* something was swapped in: put it back where it was; the caller removes our file
			 * only if it is what comes back */
			int e = renameat2(dfd, tmp, dfd, name, RENAME_EXCHANGE) < 0 ? errno : 0;
			if (e || look(dfd, tmp, &st) < 0 || st.st_dev != ours->st_dev || st.st_ino != ours->st_ino) {
				*tmp_gone = true; /* not ours to remove */
				return fail(err, errlen, EBUSY, "%s was replaced while it was being written and could not be put "
								"back as it was (%s): check that directory for %s",
					    shown, e ? strerror(e) : "it changed again", tmp);
			}
			return fail(err, errlen, EBUSY, "%s was replaced while it was being written: not touching it", shown);
		}
		if (errno != EINVAL && errno != ENOSYS)
			return fail(err, errlen, errno, "cannot replace %s: %s", shown, strerror(errno));
	}
	int r = still_ours(dfd, name, existed, before, shown, err, errlen);
	if (r < 0)
		return r;
	if (renameat(dfd, tmp, dfd, name) < 0)
		return fail(err, errlen, errno, "cannot replace %s: %s", shown, strerror(errno));
	*tmp_gone = true;
	return 0;
}

int rd_atomic_write(struct rd_source *src, const char *dir, const char *name, const char *data, size_t len,
		    mode_t mode, char *err, size_t errlen)
{
	struct rd_buf b = {0};
	root_prefix(src, &b);
	char *shown = rd_xasprintf("%s/%s/%s", b.data ? b.data : "", dir, name);
	rd_buf_free(&b);
	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		int r = fail(err, errlen, EINVAL, "%s: not a plain file name", shown);
		free(shown);
		return r;
	}
	int dfd = pin_dir(src, dir, err, errlen);
	if (dfd < 0) {
		free(shown);
		return dfd;
	}
	int r = 0, fd = -1;
	char tmp[300] = "";
	struct stat st;
	bool existed = false, tmp_gone = true;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	int l = look(dfd, name, &st);
	if (l == 0) {
		if (S_ISLNK(st.st_mode)) {
			r = fail(err, errlen, ELOOP, "%s is a symbolic link: refusing to write through it (edit its target, "
						     "or replace the link by a file)",
				 shown);
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			r = fail(err, errlen, EINVAL, "%s is not a regular file: not touching it", shown);
			goto out;
		}
		existed = true;
		mode = st.st_mode & 07777;
		uid = st.st_uid;
		gid = st.st_gid;
	} else if (l != -ENOENT) {
		r = fail(err, errlen, -l, "cannot stat %s: %s", shown, strerror(-l));
		goto out;
	}
	/* the temporary file, in the same directory so that the rename is atomic */
	unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL);
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		seed = seed * 1103515245u + 12345u;
		snprintf(tmp, sizeof tmp, ".%.200s.rdma-doctor.%06x", name, seed & 0xffffff);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST) {
			r = fail(err, errlen, errno, "cannot create a temporary file beside %s: %s", shown, strerror(errno));
			tmp[0] = '\0';
			goto out;
		}
	}
	if (fd < 0) {
		r = fail(err, errlen, EEXIST, "cannot create a temporary file beside %s", shown);
		tmp[0] = '\0';
		goto out;
	}
	tmp_gone = false;
	struct stat ours;
	if (fstat(fd, &ours) < 0) {
		r = fail(err, errlen, errno, "cannot stat the temporary file beside %s: %s", shown, strerror(errno));
		goto out;
	}
	int w = rd_write_all(fd, data, len);
	if (w < 0) {
		r = fail(err, errlen, -w, "cannot write %s: %s", shown, strerror(-w));
		goto out;
	}
	if (fchmod(fd, mode) < 0) {
		r = fail(err, errlen, errno, "cannot set the mode of %s: %s", shown, strerror(errno));
		goto out;
	}
	if (uid != (uid_t)-1 && (uid != geteuid() || gid != getegid()) && fchown(fd, uid, gid) < 0) {
		r = fail(err, errlen, errno, "cannot keep the owner of %s: %s", shown, strerror(errno));
		goto out;
	}
	if (fsync(fd) < 0) {
		r = fail(err, errlen, errno, "cannot sync %s: %s", shown, strerror(errno));
		goto out;
	}
	close(fd);
	fd = -1;
	/* what was checked before writing is checked again: the entry may have been swapped meanwhile */
	r = still_ours(dfd, name, existed, &st, shown, err, errlen);
	if (r < 0)
		goto out;
	r = put_in_place(dfd, tmp, name, existed, &st, &ours, shown, err, errlen, &tmp_gone);
	if (r < 0)
		goto out;
	int sync_fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sync_fd < 0 || fsync(sync_fd) < 0)
		r = fail(err, errlen, errno, "cannot sync the directory of %s: %s", shown, strerror(errno));
	if (sync_fd >= 0)
		close(sync_fd);
out:
	if (fd >= 0)
		close(fd);
	if (!tmp_gone && tmp[0])
		unlinkat(dfd, tmp, 0); /* our temporary file (only this process uses its name) */
	close(dfd);
	free(shown);
	return r;
}

enum { SAFE_MAX_LINKS = 40 };

int rd_dir_open_safe(const char *dir, char *err, size_t errlen)
{
	if (!*dir)
		return fail(err, errlen, ENOENT, "an empty directory name");
	int fd = open(dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return fail(err, errlen, e, "cannot open %s: %s", dir[0] == '/' ? "/" : "the working directory", strerror(e));
	}
	/* todo: what is left to walk; shown: the path walked so far, for messages */
	char *todo = rd_xstrdup(dir);
	struct rd_buf shown = {0};
	rd_buf_puts(&shown, dir[0] == '/' ? "" : ".");
	bool tainted = false; /* a link owned by link_uid (not root) was followed */
	uid_t link_uid = 0;
	int links = 0, r = 0;
	char *rest = todo;
	while (*rest) {
		rest += strspn(rest, "/");
		if (!*rest)
			break;
		size_t n = strcspn(rest, "/");
		char *c = rd_xstrndup(rest, n);
		rest += n;
		if (strcmp(c, ".") == 0) {
			free(c);
			continue;
		}
		size_t before = shown.len;
		rd_buf_printf(&shown, "/%s", c);
		int next = openat(fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		struct stat nst;
		if (next < 0 || fstat(next, &nst) < 0) {
			int e = errno;
			if (next >= 0)
				close(next);
			r = fail(err, errlen, e, "cannot open %s: %s", shown.data, strerror(e));
			free(c);
			break;
		}
		if (tainted && nst.st_uid != link_uid) {
			r = fail(err, errlen, EPERM,
				 "%s belongs to uid %u but is reached through a symbolic link owned by uid %u: refusing to "
				 "follow it (a link may lead only into what its owner owns)",
				 shown.data, (unsigned)nst.st_uid, (unsigned)link_uid);
			close(next);
			free(c);
			break;
		}
		if (S_ISLNK(nst.st_mode)) {
			char target[4096];
			ssize_t tl = ++links > SAFE_MAX_LINKS ? -1 : readlinkat(next, "", target, sizeof target - 1);
			int e = links > SAFE_MAX_LINKS ? ELOOP : errno;
			close(next);
			free(c);
			if (nst.st_uid != 0 && nst.st_uid != st.st_uid) {
				r = fail(err, errlen, EPERM,
					 "%s is a symbolic link owned by uid %u, neither root nor the owner of its directory "
					 "(uid %u): refusing to follow it",
					 shown.data, (unsigned)nst.st_uid, (unsigned)st.st_uid);
				break;
			}
			if (tl <= 0) {
				r = fail(err, errlen, tl == 0 ? ENOENT : e, "cannot read the symbolic link %s: %s", shown.data,
					 strerror(tl == 0 ? ENOENT : e));
				break;
			}
			target[tl] = '\0';
			if (nst.st_uid != 0) {
				tainted = true;
				link_uid = nst.st_uid;
			}
			char *more = rd_xasprintf("%s%s", target, rest);
			free(todo);
			todo = rest = more;
			if (target[0] == '/') {
				close(fd);
				fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (fd < 0 || fstat(fd, &st) < 0) {
					r = fail(err, errlen, errno, "cannot open /: %s", strerror(errno));
					break;
				}
				if (tainted && st.st_uid != link_uid) {
					r = fail(err, errlen, EPERM,
						 "%s is a symbolic link owned by uid %u to %s, which belongs to uid %u: refusing "
						 "to follow it (a link may lead only into what its owner owns)",
						 shown.data, (unsigned)link_uid, target, (unsigned)st.st_uid);
					break;
				}
				shown.len = 0;
				shown.data[0] = '\0';
			} else {
				shown.len = before;
				shown.data[before] = '\0';
			}
			continue;
		}
		free(c);
		if (!S_ISDIR(nst.st_mode)) {
			close(next);
			r = fail(err, errlen, ENOTDIR, "%s is not a directory", shown.data);
			break;
		}
		close(fd);
		fd = next;
		st = nst;
	}
	free(todo);
	rd_buf_free(&shown);
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	/* a readable descriptor of the very directory reached ("." follows nothing) */
	int rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return fd;
	close(fd);
	return rfd;
}

int rd_file_replace(int dfd, const char *name, void (*fill)(FILE *f, void *arg), void *arg, bool *made)
{
	char *tmp = NULL;
	int fd = -1;
	*made = false;
	for (unsigned n = 0; n < 100 && fd < 0; n++) {
		free(tmp);
		tmp = rd_xasprintf(".%s.tmp-%ld-%u", name, (long)getpid(), n);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;
		free(tmp);
		return -e;
	}
	*made = true;
	FILE *f = fdopen(fd, "w");
	int err = 0;
	if (!f) {
		err = errno;
		close(fd);
	} else {
		errno = 0;
		fill(f, arg);
		if (fflush(f) != 0 || ferror(f))
			err = errno ? errno : EIO;
		else if (fsync(fileno(f)) != 0)
			err = errno;
		if (fclose(f) != 0 && !err)
			err = errno ? errno : EIO;
	}
	if (!err && renameat(dfd, tmp, dfd, name) != 0)
		err = errno;
	if (err)
		unlinkat(dfd, tmp, 0);
	else
		(void)fsync(dfd); /* the rename itself; a descriptor opened O_PATH cannot be synced */
	free(tmp);
	return -err;
}
