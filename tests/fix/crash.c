/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* LD_PRELOAD shim for tests/fix/run.sh: simulates a crash (_exit(99), no clean-up) just before the
 * RD_CRASH_AT-th step of a file write, as if the process were killed there.  The steps are the
 * calls that change the file system: mkdirat at any time, and from the first openat(O_CREAT) on
 * (the temporary file) every openat, write to a descriptor above 2, fchmod, fchown, fsync,
 * rename, renameat, renameat2 and unlinkat.  Built by the test (cc -shared -fPIC), never shipped. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static long at = -1, count;
static int armed;

static void step(void)
{
	if (at < 0) {
		const char *e = getenv("RD_CRASH_AT");
		at = e ? atol(e) : 0;
	}
	if (at > 0 && ++count == at)
		_exit(99);
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

int mkdirat(int dfd, const char *path, mode_t mode)
{
	step();
	return REAL(mkdirat)(dfd, path, mode);
}

static int open_common(const char *which, int dfd, const char *path, int flags, mode_t mode)
{
	if (flags & O_CREAT)
		armed = 1;
	if (armed)
		step();
	int (*real)(int, const char *, int, ...) = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, which);
	return real(dfd, path, flags, mode);
}

int openat(int dfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open_common("openat", dfd, path, flags, mode);
}

int openat64(int dfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open_common("openat64", dfd, path, flags, mode);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	if (armed && fd > 2)
		step();
	return REAL(write)(fd, buf, n);
}

int fchmod(int fd, mode_t mode)
{
	if (armed)
		step();
	return REAL(fchmod)(fd, mode);
}

int fchown(int fd, uid_t uid, gid_t gid)
{
	if (armed)
		step();
	return REAL(fchown)(fd, uid, gid);
}

int fsync(int fd)
{
	if (armed)
		step();
	return REAL(fsync)(fd);
}

int rename(const char *a, const char *b)
{
	if (armed)
		step();
	return REAL(rename)(a, b);
}

int renameat(int da, const char *a, int db, const char *b)
{
	if (armed)
		step();
	return REAL(renameat)(da, a, db, b);
}

int renameat2(int da, const char *a, int db, const char *b, unsigned flags)
{
	if (armed)
		step();
	return REAL(renameat2)(da, a, db, b, flags);
}

int unlinkat(int dfd, const char *path, int flags)
{
	if (armed)
		step();
	return REAL(unlinkat)(dfd, path, flags);
}
