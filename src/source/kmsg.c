/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The kernel log as it is written (kmsg.h); the format is the kernel's
 * Documentation/ABI/testing/dev-kmsg. */
#include "source/kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A decimal number ending at one of ends; *p moves past the number and its end. */
static bool number(const char **p, const char *end, char stop, unsigned long long *v)
{
	const char *s = *p;
	unsigned long long x = 0;
	if (s >= end || *s < '0' || *s > '9')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (x > (~0ULL - 9) / 10)
			return false;
		x = x * 10 + (unsigned)(*s - '0');
	}
	if (s >= end || *s != stop)
		return false;
	*v = x;
	*p = s + 1;
	return true;
}

int rd_kmsg_parse(const char *buf, size_t len, struct rd_kmsg_rec *out)
{
	memset(out, 0, sizeof *out);
	const char *p = buf, *end = buf + len;
	const char *semi = memchr(buf, ';', len);
	unsigned long long prio;
	if (!semi || !number(&p, semi, ',', &prio) || prio > 0xffffff || !number(&p, semi, ',', &out->seq))
		return -EINVAL;
	/* TS_USEC, then the flags and any further fields up to ';' */
	const char *q = p;
	while (q < semi && *q >= '0' && *q <= '9')
		q++;
	if (q == p || q >= semi || *q != ',')
		return -EINVAL;
	if (!number(&p, q + 1, ',', &out->ts_usec))
		return -EINVAL;
	out->prio = (unsigned)prio;
	out->flags = p < semi ? *p : '-';
	out->msg = semi + 1;
	const char *nl = memchr(out->msg, '\n', (size_t)(end - out->msg));
	out->msglen = (size_t)((nl ? nl : end) - out->msg);
	return 0;
}

void rd_kmsg_format(const struct rd_kmsg_rec *r, struct rd_buf *b)
{
	size_t n = strnlen(r->msg, r->msglen);
	rd_buf_printf(b, "[%5llu.%06llu] ", r->ts_usec / 1000000, r->ts_usec % 1000000);
	rd_buf_add(b, r->msg, n);
	rd_buf_putc(b, '\n');
}

bool rd_kmsg_admit(struct rd_kmsg_limit *l, long long now_ms)
{
	if (now_ms - l->window_ms >= 1000 || now_ms < l->window_ms) {
		l->window_ms = now_ms;
		l->used = 0;
	}
	if (l->used < l->per_s) {
		l->used++;
		return true;
	}
	l->over++;
	return false;
}

int rd_kmsg_open(const char *path, struct rd_kmsg *k)
{
	memset(k, 0, sizeof *k);
	k->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (k->fd < 0)
		return -errno;
	if (lseek(k->fd, 0, SEEK_END) < 0) {
		int e = errno;
		close(k->fd);
		k->fd = -1;
		return -e;
	}
	return 0;
}

ssize_t rd_kmsg_next(struct rd_kmsg *k, char *buf, size_t size)
{
	for (;;) {
		ssize_t n = read(k->fd, buf, size - 1);
		if (n >= 0) {
			buf[n] = '\0';
			return n;
		}
		if (errno == EPIPE) {
			k->lost++;
			continue;
		}
		if (errno == EINTR)
			continue;
		return errno == EAGAIN ? 0 : -errno;
	}
}

void rd_kmsg_close(struct rd_kmsg *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}
