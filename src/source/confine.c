/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Opening inside the root: openat2 RESOLVE_IN_ROOT, a cache of directory descriptors, the
 * walk one component at a time without it, and the open for a read (source-internal.h). */
#include "source/nodev.h"
#include "source/source-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* openat2 (Linux 5.6): 0 not tried yet, 1 the kernel has it, -1 it does not (then every path
 * is walked one component at a time with O_PATH|O_NOFOLLOW descriptors). */
static int openat2_ok;

/* One open resolved by the kernel inside the root: links are followed with dirfd as "/", ".."
 * stops there, /proc magic links are refused.  flags get O_CLOEXEC.  EAGAIN: the kernel could not
 * tell that a ".." stayed inside, because a mount or a rename anywhere on the host raced with the
 * lookup (other runs making their nodev clones, containers starting): retried, and when it keeps
 * coming back, the caller walks the path itself. */
static int sys_openat2_how(int dirfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC),
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | resolve};
	for (int i = 0; i < 16; i++) { /* EAGAIN: a rename raced with ".."; the kernel asks to retry */
		long r = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
		if (r >= 0)
			return (int)r;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
	return -EAGAIN;
}

static int sys_openat2(int dirfd, const char *path, int flags)
{
	return sys_openat2_how(dirfd, path, flags, 0);
}

void src_probe_openat2(int dirfd)
{
	if (openat2_ok)
		return;
	int fd = sys_openat2(dirfd, ".", O_PATH);
	if (fd >= 0)
		close(fd);
	/* absent (ENOSYS), a kernel that does not know a flag (EINVAL), a seccomp filter (EPERM) */
	openat2_ok = fd == -ENOSYS || fd == -EINVAL || fd == -EPERM || fd == -E2BIG ? -1 : 1;
}

/* Opens a canonical path: no link in it but perhaps its last component, which is not followed
 * (O_PATH gives the link itself, other flags ELOOP).  Returns the fd or -errno. */
int src_open_canon(struct rd_source *src, const char *canon, int flags)
{
	const char *p = rel(canon);
	if (openat2_ok > 0) {
		int fd = sys_openat2(src->fd, p, flags | O_NOFOLLOW);
		if (fd != -EAGAIN)
			return fd;
	}
	/* one component at a time, each directory pinned by a descriptor, no link followed */
	int cur = src->fd;
	for (const char *slash; (slash = strchr(p, '/')) != NULL;) {
		char *name = rd_xstrndup(p, (size_t)(slash - p));
		int nfd = openat(cur, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		int e = errno;
		free(name);
		if (cur != src->fd)
			close(cur);
		if (nfd < 0)
			return -e;
		cur = nfd;
		for (p = slash + 1; *p == '/'; p++)
			;
	}
	int fd = openat(cur, *p ? p : ".", flags | O_NOFOLLOW | O_CLOEXEC);
	int e = errno;
	if (cur != src->fd)
		close(cur);
	return fd >= 0 ? fd : -e;
}

/* A component that a lookup in a directory descriptor may take alone: not "", "." or "..". */
static bool plain_component(const char *name, size_t n)
{
	return n > 0 && !(name[0] == '.' && (n == 1 || (n == 2 && name[1] == '.')));
}

bool src_plain_path(const char *path)
{
	for (const char *p = path, *e;; p = e + 1) {
		e = strchrnul(p, '/');
		if (!plain_component(p, (size_t)(e - p)))
			return false;
		if (!*e)
			return true;
	}
}

int src_open_no_links(struct rd_source *src, const char *path, int flags)
{
	if (!src_plain_path(path))
		return -EINVAL;
	if (openat2_ok > 0) {
		int fd = sys_openat2_how(src->fd, path, flags | O_NOFOLLOW, RESOLVE_NO_SYMLINKS);
		if (fd != -EAGAIN)
			return fd;
	}
	return src_open_canon(src, path, flags); /* one component at a time, none followed */
}

/* Not handled by open_in_dir: the caller opens the whole path with openat2. */
#define NOT_IN_DIR (-1000000)

/* The cache is DIR_WAYS-way associative: a directory may be in any slot of its set. */
#define DIR_WAYS 4
static unsigned dcache_set(const char *dir, size_t n)
{
	return (unsigned)(rd_map_hash(dir, n) & (DIR_CACHE - 1)) & ~(unsigned)(DIR_WAYS - 1);
}

/* The cache slot of directory dir[0..n), when it holds that directory. */
static int dcache_find(const struct rd_source *src, const char *dir, size_t n)
{
	unsigned set = dcache_set(dir, n);
	for (unsigned i = set; i < set + DIR_WAYS; i++) {
		const char *p = src->dcache[i].path;
		if (p && strncmp(p, dir, n) == 0 && !p[n])
			return (int)i;
	}
	return -1;
}

/* An O_PATH descriptor of directory dir[0..n) (as asked, relative to the root), kept in the cache
 * (borrowed, valid until the source is closed).  A directory whose parent is kept is one lookup in
 * it, when that is a plain directory (not a link: O_NOFOLLOW); any other is opened with openat2
 * inside the root only when a second file is asked in it (the first time it is only noted, and
 * NOT_IN_DIR returned: a directory read once costs no more than before).  Returns the fd,
 * NOT_IN_DIR, or -errno. */
static int dir_fd(struct rd_source *src, const char *dir, size_t n)
{
	int hit = dcache_find(src, dir, n);
	if (hit >= 0 && (src->dcache[hit].fd >= 0 || src->dcache[hit].err))
		return src->dcache[hit].fd >= 0 ? src->dcache[hit].fd : -src->dcache[hit].err;
	int fd = NOT_IN_DIR;
	const char *slash = memrchr(dir, '/', n);
	char name[256];
	size_t nn = slash ? n - (size_t)(slash + 1 - dir) : 0;
	int parent = slash && nn < sizeof name && plain_component(slash + 1, nn) ? dcache_find(src, dir, (size_t)(slash - dir)) : -1;
	if (parent >= 0 && src->dcache[parent].fd >= 0) {
		memcpy(name, slash + 1, nn);
		name[nn] = '\0';
		fd = openat(src->dcache[parent].fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		fd = fd >= 0 ? fd : NOT_IN_DIR; /* a link (ENOTDIR, ELOOP) is followed inside the root */
	}
	char *key = rd_xstrndup(dir, n);
	if (fd == NOT_IN_DIR && hit >= 0) /* asked before: now worth a descriptor */
		fd = sys_openat2(src->fd, key, O_PATH | O_DIRECTORY);
	/* a directory that is not there (or not one) is remembered so: asked again, no open */
	if (fd < 0 && fd != NOT_IN_DIR && fd != -ENOENT && fd != -ENOTDIR) {
		free(key);
		return fd;
	}
	/* its own slot when noted before, else a free one of its set, else the set's next in turn */
	unsigned set = dcache_set(dir, n), i = hit >= 0 ? (unsigned)hit : set + src->dcache_next++ % DIR_WAYS;
	for (unsigned j = set; hit < 0 && j < set + DIR_WAYS; j++)
		if (!src->dcache[j].path) {
			i = j;
			break;
		}
	if (src->dcache[i].path) {
		free(src->dcache[i].path);
		if (src->dcache[i].fd >= 0)
			close(src->dcache[i].fd);
	}
	src->dcache[i].path = key;
	src->dcache[i].fd = fd >= 0 ? fd : -1;
	src->dcache[i].err = fd >= 0 || fd == NOT_IN_DIR ? 0 : -fd;
	return fd;
}

void src_dcache_clear(struct rd_source *src)
{
	for (unsigned i = 0; i < DIR_CACHE; i++)
		if (src->dcache[i].path) {
			free(src->dcache[i].path);
			if (src->dcache[i].fd >= 0)
				close(src->dcache[i].fd);
			src->dcache[i].path = NULL;
		}
}

/* openat2 kernels: a file is opened by its last component alone, in a cached descriptor of its
 * directory (dir_fd), never following a link there (O_NOFOLLOW: the lookup cannot leave that
 * directory).  A final link to follow (ELOOP; with O_PATH, a link fstat'ed, then *st is filled)
 * and a path whose last component is not plain are NOT_IN_DIR.  A directory that does not exist
 * or is not one gives what openat2 of the whole path gives (ENOENT, ENOTDIR); any other error of
 * the directory is NOT_IN_DIR too, so that the path's own errno is returned. */
static int open_in_dir(struct rd_source *src, const char *path, int flags, struct stat *st)
{
	const char *p = rel(path);
	const char *slash = strrchr(p, '/');
	if (!slash || !plain_component(slash + 1, strlen(slash + 1)))
		return NOT_IN_DIR;
	int dfd = dir_fd(src, p, (size_t)(slash - p));
	if (dfd < 0)
		return dfd == -ENOENT || dfd == -ENOTDIR ? dfd : NOT_IN_DIR;
	int fd = openat(dfd, slash + 1, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* a link where one is followed: ELOOP, or ENOTDIR with O_DIRECTORY (checked first) */
		int e = errno;
		if (!(flags & O_NOFOLLOW) && (e == ELOOP || (e == ENOTDIR && (flags & O_DIRECTORY))))
			return NOT_IN_DIR;
		return -e;
	}
	if ((flags & O_PATH) && !(flags & O_NOFOLLOW)) {
		struct stat lst;
		struct stat *s = st ? st : &lst;
		if (fstat(fd, s) < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (S_ISLNK(s->st_mode)) {
			memset(s, 0, sizeof *s);
			close(fd);
			return NOT_IN_DIR;
		}
	}
	return fd;
}

/* The kept descriptor of path's directory and path's last component (openat2 kernels, a plain last
 * component): a stat or readlink there is one call, never following a link.  NOT_IN_DIR when
 * there is none (yet: dir_fd notes a directory the first time), or -ENOENT/-ENOTDIR. */
static int dir_of(struct rd_source *src, const char *path, const char **base)
{
	const char *p = rel(path);
	const char *slash = strrchr(p, '/');
	if (openat2_ok <= 0 || !slash || !plain_component(slash + 1, strlen(slash + 1)))
		return NOT_IN_DIR;
	*base = slash + 1;
	int dfd = dir_fd(src, p, (size_t)(slash - p));
	if (dfd < 0)
		return dfd == -ENOENT || dfd == -ENOTDIR ? dfd : NOT_IN_DIR;
	return dfd;
}

int src_stat_in_dir(struct rd_source *src, const char *path, bool follow, struct stat *st)
{
	const char *base;
	int dfd = dir_of(src, path, &base);
	if (dfd < 0)
		return dfd == NOT_IN_DIR ? 1 : dfd;
	if (fstatat(dfd, base, st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (follow && S_ISLNK(st->st_mode)) {
		memset(st, 0, sizeof *st);
		return 1; /* a link to follow: inside the root, by openat2 */
	}
	return 0;
}

int src_readlink_in_dir(struct rd_source *src, const char *path, char *buf, size_t len)
{
	const char *base;
	int dfd = dir_of(src, path, &base);
	if (dfd < 0)
		return dfd == NOT_IN_DIR ? -EAGAIN : dfd;
	ssize_t n = readlinkat(dfd, base, buf, len);
	if (n < 0)
		return errno == EAGAIN ? -EIO : -errno;
	return (int)n;
}

/* Opens any path inside the root, a final link followed unless flags has O_NOFOLLOW.  With O_PATH
 * and st, *st may come back filled with the file's fstat (st_mode 0: not done). */
int src_open_path(struct rd_source *src, const char *path, int flags, struct stat *st)
{
	if (openat2_ok > 0) {
		int fd = open_in_dir(src, path, flags, st);
		if (fd == NOT_IN_DIR)
			fd = sys_openat2(src->fd, rel(path), flags);
		if (fd != -EAGAIN)
			return fd;
	}
	char *canon = NULL;
	int r = src_resolve(src, path, !(flags & O_NOFOLLOW), &canon);
	if (r == 0)
		r = src_open_canon(src, canon, flags);
	free(canon);
	return r;
}

/* The process's /proc/self/fd, held open after the first reopen (a child after fork drops its
 * copy: it names the parent's descriptors). */
static int proc_fds = -1;
static bool proc_fds_tried;

static void proc_fds_forget(void)
{
	if (proc_fds >= 0)
		close(proc_fds);
	proc_fds = -1;
	proc_fds_tried = false;
}

/* Opens again, with flags, the file that descriptor fd (O_PATH) is: its /proc/self/fd entry, the
 * same inode without a new walk of its path.  Returns the fd, or -1 with errno. */
static int reopen_fd(int fd, int flags)
{
	static bool atfork;
	if (!proc_fds_tried) {
		proc_fds_tried = true;
		proc_fds = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (proc_fds >= 0 && !atfork)
			atfork = pthread_atfork(NULL, NULL, proc_fds_forget) == 0;
		if (!atfork)
			proc_fds_forget(); /* not held without a way to drop it in a child */
		proc_fds_tried = true;
	}
	char name[32] = "/proc/self/fd/";
	char *digits = name + strlen(name), *e = name + sizeof name - 1;
	*e = '\0';
	for (unsigned v = (unsigned)fd; e == name + sizeof name - 1 || v; v /= 10)
		*--e = (char)('0' + v % 10);
	memmove(digits, e, strlen(e) + 1);
	return proc_fds >= 0 ? openat(proc_fds, digits, flags) : open(name, flags);
}

/* Opens path for reading.  direct (the live host, a root read through its nodev clone): one open
 * of the file (in a clone, fstat'ed only when recording).  Else: an O_PATH open, its fstat in *st,
 * and only a regular file is opened for reading (through /proc/self/fd, the same inode, not
 * resolved again), so that no device node or FIFO in a root is ever opened.  With canon_first,
 * *canon gets the canonical path first (also on failure after it was known), and a read error
 * recorded for it is returned without opening anything.  Returns the fd or -errno. */
static int open_for_read_as(struct rd_source *src, const char *path, bool canon_first, bool direct, char **canon,
			    struct stat *st)
{
	int flags = direct ? O_RDONLY | O_NONBLOCK | O_NOCTTY : O_PATH;
	int fd;
	memset(st, 0, sizeof *st);
	*canon = NULL;
	if (canon_first) {
		char *cdir = NULL;
		const char *base;
		int r = src_resolve_parent(src, path, &cdir, &base);
		if (r < 0)
			return r;
		bool simple = *base && strcmp(base, ".") != 0 && strcmp(base, "..") != 0;
		if (simple)
			*canon = join(cdir, base);
		else if ((r = src_resolve_from(src, cdir, base, true, canon)) < 0) {
			free(cdir);
			return r;
		}
		for (int attempt = 0;; attempt++) {
			int rec = src_recorded_error(src, *canon);
			if (rec) {
				free(cdir);
				return -rec;
			}
			fd = src_open_canon(src, *canon, flags);
			bool link = direct ? fd == -ELOOP : fd >= 0 && fstat(fd, st) == 0 && S_ISLNK(st->st_mode);
			if (!link || attempt == 1)
				break;
			/* the last component is a link: resolve it, and open its target */
			if (fd >= 0)
				close(fd);
			char *full = NULL;
			if ((r = src_resolve_from(src, cdir, base, true, &full)) < 0) {
				free(cdir);
				return r;
			}
			free(*canon);
			*canon = full;
		}
		free(cdir);
	} else {
		fd = src_open_path(src, path, flags, st);
	}
	if (fd >= 0 && direct && !src->live && src->rec && fstat(fd, st) < 0)
		memset(st, 0, sizeof *st);
	if (fd < 0 || direct)
		return fd;
	if (!st->st_mode && fstat(fd, st) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return -RD_ENOTREG;
	}
	int rfd = reopen_fd(fd, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (rfd < 0 && errno == ENOENT) {
		/* no /proc: open the path again, and read it only if it is still the same file */
		const int f = O_RDONLY | O_NONBLOCK | O_NOCTTY;
		rfd = *canon ? src_open_canon(src, *canon, f) : src_open_path(src, path, f, NULL);
		struct stat again;
		if (rfd >= 0 && (fstat(rfd, &again) < 0 || again.st_ino != st->st_ino || again.st_dev != st->st_dev)) {
			close(rfd);
			rfd = -EAGAIN;
		}
		if (rfd < 0)
			errno = -rfd;
	}
	int e = errno;
	close(fd);
	return rfd >= 0 ? rfd : -e;
}

/* A root read through its nodev clone opens a file at once; one the clone refuses for what it is
 * (a device node, a socket) is looked at again through O_PATH, and told apart as before. */
int src_open_for_read(struct rd_source *src, const char *path, bool canon_first, char **canon, struct stat *st)
{
	int fd = open_for_read_as(src, path, canon_first, src->live || src->nodev, canon, st);
	if (fd >= 0 || !src->nodev || !rd_nodev_refused(-fd))
		return fd;
	free(*canon);
	return open_for_read_as(src, path, canon_first, false, canon, st);
}

void src_nodev_root(struct rd_source *src)
{
	int clone = !src->live && openat2_ok > 0 ? rd_nodev_clone(src->fd) : -ENOSYS;
	if (clone >= 0) {
		close(src->fd);
		src->fd = clone;
		src->nodev = true;
	}
}
