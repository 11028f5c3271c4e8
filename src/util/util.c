#include "util/util.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rd_strerror(int err)
{
	switch (err) {
	case 0:
		return "no error";
	case RD_ENOTREG:
		return "not a regular file";
	case RD_ENOTCAPTURED:
		return "not captured in this root";
	case RD_EPARSE:
		return "unexpected format";
	case EFBIG:
		return "file larger than the read limit";
	case ETIMEDOUT:
		return "timed out";
	default:
		return strerror(err);
	}
}

static void oom(void)
{
	static const char msg[] = "rdma-doctor: out of memory\n";
	fwrite(msg, 1, sizeof msg - 1, stderr);
	abort();
}

void *rd_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *rd_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *rd_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom();
	return q;
}

char *rd_xstrdup(const char *s)
{
	return rd_xstrndup(s, strlen(s));
}

char *rd_xstrndup(const char *s, size_t n)
{
	char *p = rd_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *rd_xvasprintf(const char *fmt, va_list ap)
{
	struct rd_buf b = {0};
	rd_buf_vprintf(&b, fmt, ap);
	return rd_buf_steal(&b);
}

char *rd_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = rd_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

static void buf_reserve(struct rd_buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	b->data = rd_xrealloc(b->data, cap);
	b->cap = cap;
}

void rd_buf_add(struct rd_buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void rd_buf_puts(struct rd_buf *b, const char *s)
{
	rd_buf_add(b, s, strlen(s));
}

void rd_buf_putc(struct rd_buf *b, char c)
{
	rd_buf_add(b, &c, 1);
}

void rd_buf_vprintf(struct rd_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	buf_reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void rd_buf_printf(struct rd_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rd_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *rd_buf_steal(struct rd_buf *b)
{
	char *p = b->data ? b->data : rd_xstrdup("");
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void rd_buf_free(struct rd_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void rd_strv_push_owned(struct rd_strv *sv, char *s)
{
	if (sv->n + 1 >= sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = rd_xrealloc(sv->v, sv->cap * sizeof *sv->v);
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void rd_strv_push(struct rd_strv *sv, const char *s)
{
	rd_strv_push_owned(sv, rd_xstrdup(s));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void rd_strv_sort(struct rd_strv *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof *sv->v, cmp_str);
}

bool rd_strv_contains(const struct rd_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

void rd_strv_free(struct rd_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

char *rd_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	while (la > 0 && a[la - 1] == '/')
		la--;
	while (*b == '/')
		b++;
	if (la == 0)
		return rd_xstrdup(b);
	if (!*b)
		return rd_xstrndup(a, la);
	return rd_xasprintf("%.*s/%s", (int)la, a, b);
}

bool rd_str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool rd_str_has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

int rd_natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;
			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			if (ea - a != eb - b)
				return (ea - a) < (eb - b) ? -1 : 1;
			int c = strncmp(a, b, (size_t)(ea - a));
			if (c)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static const struct {
	int code;
	const char *name;
} errno_names[] = {
	{EPERM, "EPERM"},     {ENOENT, "ENOENT"},       {EIO, "EIO"},
	{ENXIO, "ENXIO"},     {EAGAIN, "EAGAIN"},       {EACCES, "EACCES"},
	{EFAULT, "EFAULT"},   {EBUSY, "EBUSY"},         {ENODEV, "ENODEV"},
	{EINVAL, "EINVAL"},   {EFBIG, "EFBIG"},         {ENOSYS, "ENOSYS"},
	{ENODATA, "ENODATA"}, {EOPNOTSUPP, "EOPNOTSUPP"}, {ETIMEDOUT, "ETIMEDOUT"},
	{ENOMEM, "ENOMEM"},   {ELOOP, "ELOOP"},         {EISDIR, "EISDIR"},
	{RD_ENOTREG, "ENOTREG"},
};

const char *rd_errno_name(int err)
{
	for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++)
		if (errno_names[i].code == err)
			return errno_names[i].name;
	return NULL;
}

int rd_errno_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++)
		if (strcmp(errno_names[i].name, name) == 0)
			return errno_names[i].code;
	return 0;
}

const char *rd_size_words(uint64_t v, char *buf, size_t len)
{
	if (v == UINT64_MAX)
		snprintf(buf, len, "unlimited");
	else if (v >= (1ULL << 30) && v % (1ULL << 30) == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(v >> 30));
	else if (v >= (1ULL << 20) && v % (1ULL << 20) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(v >> 20));
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)v);
	return buf;
}

int rd_remove_tree(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return unlinkat(parent, name, 0) < 0 ? -errno : 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return -e;
	}
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			int x = rd_remove_tree(dirfd(d), de->d_name);
			if (x < 0)
				r = x;
		}
	closedir(d);
	return unlinkat(parent, name, AT_REMOVEDIR) < 0 ? -errno : r;
}
