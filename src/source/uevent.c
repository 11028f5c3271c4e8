/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The kernel's device events (uevent.h); the format is lib/kobject_uevent.c's. */
#include "source/uevent.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>

int rd_uevent_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	int rcv = 1 << 20;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = 1};
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

static void copy(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

int rd_uevent_parse(const char *buf, size_t len, struct rd_uevent *e)
{
	memset(e, 0, sizeof *e);
	if (len >= 8 && memcmp(buf, "libudev", 8) == 0)
		return 0; /* udevd's, not the kernel's */
	const char *end = buf + len, *first_end = memchr(buf, '\0', len);
	if (!first_end || !memchr(buf, '@', (size_t)(first_end - buf)))
		return -EINVAL;
	const char *devpath = NULL, *iface = NULL;
	size_t devpath_n = 0, iface_n = 0;
	bool have_action = false;
	for (const char *p = first_end + 1; p < end;) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		size_t n = (size_t)((z ? z : end) - p);
		if (n > 7 && memcmp(p, "ACTION=", 7) == 0) {
			copy(e->action, sizeof e->action, p + 7, n - 7);
			have_action = true;
		} else if (n > 10 && memcmp(p, "SUBSYSTEM=", 10) == 0) {
			copy(e->subsystem, sizeof e->subsystem, p + 10, n - 10);
		} else if (n > 8 && memcmp(p, "DEVPATH=", 8) == 0) {
			devpath = p + 8;
			devpath_n = n - 8;
		} else if (n > 10 && memcmp(p, "INTERFACE=", 10) == 0) {
			iface = p + 10;
			iface_n = n - 10;
		}
		if (!z)
			break;
		p = z + 1;
	}
	if (!have_action || !e->subsystem[0])
		return -EINVAL;
	if (strcmp(e->subsystem, "infiniband") != 0 && strcmp(e->subsystem, "infiniband_verbs") != 0 &&
	    strcmp(e->subsystem, "net") != 0 && strcmp(e->subsystem, "module") != 0)
		return 0;
	if (strcmp(e->action, "add") != 0 && strcmp(e->action, "remove") != 0 && strcmp(e->action, "move") != 0)
		return 0;
	if (iface) {
		copy(e->name, sizeof e->name, iface, iface_n);
	} else if (devpath) {
		const char *slash = devpath + devpath_n;
		while (slash > devpath && slash[-1] != '/')
			slash--;
		copy(e->name, sizeof e->name, slash, (size_t)(devpath + devpath_n - slash));
	}
	return 1;
}

int rd_uevent_next(int fd, struct rd_uevent *e)
{
	char buf[8192];
	for (;;) {
		struct sockaddr_nl from;
		socklen_t fl = sizeof from;
		ssize_t n = recvfrom(fd, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		if (fl != sizeof from || from.nl_family != AF_NETLINK || from.nl_pid != 0)
			continue; /* not the kernel's */
		if (rd_uevent_parse(buf, (size_t)n, e) == 1)
			return 1;
	}
}
