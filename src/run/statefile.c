/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The state directory: see statefile.h. */
#include "run/statefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

const char *rd_statefile_unsafe(const struct stat *sb, char *buf, size_t len)
{
	if (sb->st_uid != 0 && sb->st_uid != geteuid()) {
		snprintf(buf, len, "owned by uid %u, neither root nor this user", (unsigned)sb->st_uid);
		return buf;
	}
	if (!S_ISLNK(sb->st_mode) && (sb->st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(buf, len, "writable by %s (mode %04o)", sb->st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(sb->st_mode & 07777));
		return buf;
	}
	return NULL;
}

static const char *unsafe(const struct stat *sb, char *buf, size_t len)
{
	return rd_statefile_unsafe(sb, buf, len);
}

static int fail(char *err, size_t errlen, int e, const char *fmt, const char *a, const char *b)
{
	rd_set_err(err, errlen, fmt, a, b);
	return -e;
}

int rd_statefile_open(struct rd_statefile *sf, const char *dir, const char *host, bool update, char *err,
		      size_t errlen)
{
	memset(sf, 0, sizeof *sf);
	sf->dfd = sf->lockfd = -1;
	sf->update = update;
	sf->dir = rd_xstrdup(dir);
	char name[RD_STATE_NAME_MAX * 4 + 16];
	sf->name = rd_xstrdup(rd_state_file_name(host, name, sizeof name));
	sf->path = rd_path_join(dir, sf->name);
	/* a link as the directory's last component is followed only when root or this user made it
	 * (a link another user planted, e.g. in /tmp, would point the writes elsewhere) */
	struct stat lsb;
	if (lstat(dir, &lsb) == 0 && S_ISLNK(lsb.st_mode) && lsb.st_uid != 0 && lsb.st_uid != geteuid()) {
		rd_set_err(err, errlen, "the state directory %s is refused: a symbolic link owned by uid %u, neither root nor this user",
			   dir, (unsigned)lsb.st_uid);
		return -EPERM;
	}
	sf->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sf->dfd < 0 && errno == ENOENT && update) {
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			return fail(err, errlen, e, "cannot make the state directory %s: %s", dir, rd_strerror(e));
		}
		sf->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (sf->dfd < 0) {
		int e = errno;
		if (e == ENOENT && !update)
			return -ENOENT;
		return fail(err, errlen, e, "cannot open the state directory %s: %s", dir, rd_strerror(e));
	}
	struct stat sb;
	char why[128];
	if (fstat(sf->dfd, &sb) < 0) {
		int e = errno;
		return fail(err, errlen, e, "the state directory %s: %s", dir, rd_strerror(e));
	}
	if (unsafe(&sb, why, sizeof why)) {
		rd_set_err(err, errlen,
			   "the state directory %s is refused: %s (another user could plant or change samples; "
			   "chown root %s and chmod go-w it)",
			   dir, why, dir);
		return -EPERM;
	}
	return 0;
}

bool rd_statefile_writable(const struct rd_statefile *sf)
{
	return sf->dfd >= 0 && faccessat(sf->dfd, ".", W_OK | X_OK, AT_EACCESS) == 0;
}

static double mono(void)
{
	return (double)rd_mono_ms() / 1e3;
}

int rd_statefile_lock(struct rd_statefile *sf, double wait_s, char *err, size_t errlen)
{
	char *lockname = rd_xasprintf("%s.lock", sf->name);
	int flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	int fd = sf->update ? openat(sf->dfd, lockname, O_RDWR | O_CREAT | flags, 0644)
			    : openat(sf->dfd, lockname, O_RDONLY | flags);
	int e = errno;
	char *shown = rd_path_join(sf->dir, lockname);
	free(lockname);
	int r = 0;
	struct stat sb;
	char why[128];
	if (fd < 0) {
		if (!sf->update && (e == EACCES || e == EPERM || e == EROFS || e == ENOENT))
			goto out; /* no lock file (a reader makes none: it writes nothing), or one it cannot
				   * open: renames keep its reads whole */
		if (e == EROFS || e == EACCES || e == EPERM)
			r = fail(err, errlen, e, "the state directory %s cannot be written: %s", sf->dir, rd_strerror(e));
		else
			r = fail(err, errlen, e, "%s: %s", shown,
				 e == ELOOP ? "a symbolic link in place of the lock file, not followed" : rd_strerror(e));
		goto out;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		r = fail(err, errlen, EINVAL, "%s: %s", shown, "not a regular file");
		goto out;
	}
	if (unsafe(&sb, why, sizeof why)) {
		r = fail(err, errlen, EPERM, "%s is refused: %s", shown, why);
		goto out;
	}
	double until = mono() + wait_s;
	for (;;) {
		if (flock(fd, (sf->update ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) {
			sf->locked = true;
			break;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			e = errno;
			r = fail(err, errlen, e, "%s: flock: %s", shown, rd_strerror(e));
			break;
		}
		if (mono() >= until) {
			char secs[32];
			snprintf(secs, sizeof secs, "%g", wait_s);
			r = fail(err, errlen, EWOULDBLOCK, "%s: another run held the lock for more than %s s", shown, secs);
			break;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
out:
	free(shown);
	if (r < 0 || !sf->locked) {
		if (fd >= 0)
			close(fd);
	} else {
		sf->lockfd = fd;
	}
	return r;
}

int rd_statefile_read(struct rd_statefile *sf, struct rd_state *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof *st);
	int fd = openat(sf->dfd, sf->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	int e = errno;
	if (fd < 0 && e == ENOENT)
		return 0;
	if (fd < 0)
		return fail(err, errlen, e, "%s: %s", sf->path,
			    e == ELOOP ? "a symbolic link, not followed (remove it)" : rd_strerror(e));
	struct stat sb;
	char why[128];
	int r = 0;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
		r = fail(err, errlen, EINVAL, "%s: %s", sf->path, "not a regular file");
	else if (unsafe(&sb, why, sizeof why))
		r = fail(err, errlen, EPERM, "%s is refused: %s", sf->path, why);
	if (r == 0 && sb.st_size > RD_STATE_MAX_BYTES) {
		rd_set_err(err, errlen, "%s: %lld bytes, larger than a state file can be (%d)", sf->path,
			   (long long)sb.st_size, RD_STATE_MAX_BYTES);
		r = -EFBIG;
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	char *buf = rd_xmalloc(RD_STATE_MAX_BYTES + 1);
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, RD_STATE_MAX_BYTES + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			close(fd);
			free(buf);
			return fail(err, errlen, e, "%s: %s", sf->path, rd_strerror(e));
		}
		if (n == 0 || (len += (size_t)n) > RD_STATE_MAX_BYTES)
			break;
	}
	close(fd);
	char perr[256];
	r = rd_state_parse(buf, len, st, perr, sizeof perr);
	free(buf);
	if (r < 0)
		return fail(err, errlen, EINVAL, "%s: %s", sf->path, perr);
	return 1;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int rd_statefile_write(struct rd_statefile *sf, const struct rd_state *st, char *err, size_t errlen)
{
	if (!sf->update || !sf->locked)
		return fail(err, errlen, ENOLCK, "%s: %s", sf->path, "not written without the exclusive lock");
	struct stat sb;
	if (fstatat(sf->dfd, sf->name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(sb.st_mode))
			return fail(err, errlen, ELOOP, "%s: %s", sf->path,
				    "a symbolic link in place of the state file, not followed and not replaced");
		if (!S_ISREG(sb.st_mode))
			return fail(err, errlen, EEXIST, "%s: %s", sf->path, "not a regular file, not replaced");
	}
	/* the lock is ours: a temporary name of our own cannot be taken by another run, and one
	 * left by a run that was killed is replaced */
	char *tmp = rd_xasprintf(".%s.%ld.tmp", sf->name, (long)getpid());
	unlinkat(sf->dfd, tmp, 0);
	int fd = openat(sf->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int r = 0;
	if (fd < 0) {
		r = -errno;
	} else {
		char *text = rd_state_format(st);
		r = write_all(fd, text, strlen(text));
		free(text);
		if (r == 0 && fsync(fd) < 0)
			r = -errno;
		if (close(fd) < 0 && r == 0)
			r = -errno;
		if (r == 0 && renameat(sf->dfd, tmp, sf->dfd, sf->name) < 0)
			r = -errno;
		if (r < 0)
			unlinkat(sf->dfd, tmp, 0);
		else
			fsync(sf->dfd);
	}
	free(tmp);
	if (r < 0)
		return fail(err, errlen, -r, "%s: %s", sf->path, rd_strerror(-r));
	return 0;
}

void rd_statefile_close(struct rd_statefile *sf)
{
	if (sf->lockfd >= 0)
		close(sf->lockfd); /* the lock goes with its descriptor */
	if (sf->dfd > 0 || (sf->dfd == 0 && sf->dir))
		close(sf->dfd);
	free(sf->dir);
	free(sf->name);
	free(sf->path);
	memset(sf, 0, sizeof *sf);
	sf->dfd = sf->lockfd = -1;
}
