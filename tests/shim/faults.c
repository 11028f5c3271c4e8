/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fault injection for the tests, from outside the product (as kmod's testsuite does): built as
 * an LD_PRELOAD library by the shell tests (cc -shared -fPIC tests/shim/faults.c) and linked into
 * the unit tests that need it.  Every switch is an environment variable read at each call, and
 * with none set every call goes straight to libc:
 *   RD_FAULT_EINVAL=SUBSTR       read() or pread() of a file whose path contains SUBSTR fails
 *                                with EINVAL (a firmware refusing a port counter);
 *   RD_FAULT_SLOW=SUBSTR:MS      read() or pread() of such a file first sleeps MS milliseconds
 *                                (a wedged HCA attribute);
 *   RD_FAULT_NO_OPENAT2=1        syscall(SYS_openat2, ...) fails with ENOSYS (a kernel before 5.6);
 *   RD_FAULT_OPENAT2_EAGAIN=1    syscall(SYS_openat2, ...) of any path but "." fails with EAGAIN, as
 *                                the kernel's RESOLVE_IN_ROOT does when a mount or rename anywhere on
 *                                the host raced with a ".." of the lookup (each retry too).
 *   RD_FAULT_NO_MOUNT_API=1      syscall(SYS_open_tree or SYS_mount_setattr, ...) fails with EPERM
 *                                (no CAP_SYS_ADMIN: a container, or a kernel before 5.12).
 *   RD_FAULT_HOSTS=N1,N2,...     getaddrinfo() of one of these names answers for 127.0.0.1: a
 *                                stand-in for a cluster's name service, when one machine plays
 *                                several Slurm nodes (tests/slurm/pairs.sh).
 * The path of a descriptor is what /proc/self/fd says, whatever opened it (open, openat, openat2
 * through syscall(), a reopen through /proc/self/fd). */
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

ssize_t read(int fd, void *buf, size_t n);
int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res);
ssize_t pread(int fd, void *buf, size_t n, off_t off);
ssize_t pread64(int fd, void *buf, size_t n, off_t off);
long syscall(long number, ...);

static bool fd_matches(int fd, const char *substr, size_t sublen)
{
	char proc[64], path[4096];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	ssize_t len = readlink(proc, path, sizeof path - 1);
	if (len < 0 || sublen == 0)
		return false;
	return memmem(path, (size_t)len, substr, sublen) != NULL;
}

/* RD_FAULT_EINVAL and RD_FAULT_SLOW for a read of fd: false (errno set) when it fails. */
static bool read_faults(int fd)
{
	const char *einval = getenv("RD_FAULT_EINVAL");
	if (einval && *einval && fd_matches(fd, einval, strlen(einval))) {
		errno = EINVAL;
		return false;
	}
	const char *slow = getenv("RD_FAULT_SLOW");
	const char *colon = slow ? strrchr(slow, ':') : NULL;
	if (colon && colon > slow && fd_matches(fd, slow, (size_t)(colon - slow))) {
		long ms = atol(colon + 1);
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	return true;
}

ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*real)(int, void *, size_t);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "read");
	return read_faults(fd) ? real(fd, buf, n) : -1;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pread");
	return read_faults(fd) ? real(fd, buf, n, off) : -1;
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pread64");
	return read_faults(fd) ? real(fd, buf, n, off) : -1;
}

long syscall(long number, ...)
{
	static long (*real)(long, ...);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "syscall");
	va_list ap;
	va_start(ap, number);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	const char *no2 = getenv("RD_FAULT_NO_OPENAT2");
	if (number == SYS_openat2 && no2 && *no2 && strcmp(no2, "0") != 0) {
		errno = ENOSYS;
		return -1;
	}
	const char *again = getenv("RD_FAULT_OPENAT2_EAGAIN");
	if (number == SYS_openat2 && again && *again && strcmp(again, "0") != 0 && strcmp((const char *)a[1], ".") != 0) {
		errno = EAGAIN;
		return -1;
	}
#if defined(SYS_open_tree) && defined(SYS_mount_setattr)
	const char *nomount = getenv("RD_FAULT_NO_MOUNT_API");
	if ((number == SYS_open_tree || number == SYS_mount_setattr) && nomount && *nomount && strcmp(nomount, "0") != 0) {
		errno = EPERM;
		return -1;
	}
#endif
	return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res)
{
	static int (*real)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "getaddrinfo");
	const char *hosts = getenv("RD_FAULT_HOSTS");
	size_t nl = node ? strlen(node) : 0;
	for (const char *h = hosts; h && *h && nl;) {
		size_t k = strcspn(h, ",");
		if (k == nl && strncmp(h, node, nl) == 0) {
			struct addrinfo v4 = hints ? *hints : (struct addrinfo){0};
			v4.ai_family = AF_INET;
			return real("127.0.0.1", service, &v4, res);
		}
		h += k + (h[k] == ',');
	}
	return real(node, service, hints, res);
}
