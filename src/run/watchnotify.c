/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* systemd's notification protocol (watchnotify.h). */
#include "run/watchnotify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int rd_sd_notify(const char *socket_name, const char *state)
{
	if (!socket_name || !*socket_name)
		return 0;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = strlen(socket_name);
	if ((socket_name[0] != '/' && socket_name[0] != '@') || n >= sizeof sa.sun_path || n < 2)
		return -EINVAL;
	memcpy(sa.sun_path, socket_name, n);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0'; /* an abstract name: its length is the address's, no NUL after it */
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (socket_name[0] == '/'));
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ssize_t w = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len);
	int e = errno;
	close(fd);
	return w < 0 ? -e : 1;
}

/* A whole decimal number, or -1. */
static long long whole(const char *s)
{
	if (!s || *s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	return *end || errno ? -1 : v;
}

long long rd_sd_watchdog_ms(const char *usec, const char *pid, long self)
{
	long long u = whole(usec), p = pid ? whole(pid) : self;
	if (u <= 0 || p != self)
		return 0;
	long long ms = u / 2000;
	return ms > 0 ? ms : 1;
}
