/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "util/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

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
	case RD_ENOTLOADED:
		return "not loaded in this run";
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

/* A format of literal text and "%s" only (a path, a key), joined by hand: no vsnprintf. */
static bool strings_only(const char *fmt)
{
	for (const char *p = fmt; (p = strchr(p, '%')) != NULL; p += 2)
		if (p[1] != 's')
			return false;
	return true;
}

char *rd_xvasprintf(const char *fmt, va_list ap)
{
	if (strings_only(fmt)) {
		const char *arg[16];
		size_t alen[16], n = 0, len = 0;
		va_list ap2;
		va_copy(ap2, ap);
		for (const char *p = fmt; *p; p++)
			if (*p != '%')
				len++;
			else if (n < 16) {
				arg[n] = va_arg(ap2, const char *);
				if (!arg[n])
					arg[n] = "(null)"; /* what glibc's printf writes */
				alen[n] = strlen(arg[n]);
				len += alen[n++];
				p++;
			} else {
				n = 17;
				break;
			}
		va_end(ap2);
		if (n <= 16) {
			char *out = rd_xmalloc(len + 1), *o = out;
			size_t i = 0;
			for (const char *p = fmt; *p; p++)
				if (*p != '%') {
					*o++ = *p;
				} else {
					memcpy(o, arg[i], alen[i]);
					o += alen[i++];
					p++;
				}
			*o = '\0';
			return out;
		}
	}
	/* one pass when it fits a line: a second only for a longer one */
	char line[256];
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(line, sizeof line, fmt, ap2);
	va_end(ap2);
	if (n >= 0 && (size_t)n < sizeof line)
		return rd_xstrndup(line, (size_t)n);
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
	/* into the room the buffer has: one pass when it fits */
	size_t room = b->cap > b->len ? b->cap - b->len : 0;
	int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap2);
	va_end(ap2);
	if (n < 0) {
		if (b->data)
			b->data[b->len] = '\0';
		return;
	}
	if ((size_t)n < room) {
		b->len += (size_t)n;
		return;
	}
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
	size_t lb = strlen(b);
	char *p = rd_xmalloc(la + 1 + lb + 1);
	memcpy(p, a, la);
	p[la] = '/';
	memcpy(p + la + 1, b, lb + 1);
	return p;
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

const char *rd_plural(unsigned long long n, const char *one, const char *many, char *buf, size_t len)
{
	snprintf(buf, len, "%llu %s", n, n == 1 ? one : many);
	return buf;
}

char rd_utf8_ascii(const unsigned char *s, size_t n, size_t *len)
{
	size_t k = 1;
	while (k < 4 && k < n && (s[k] & 0xc0) == 0x80)
		k++;
	*len = k;
	return k == 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0x93 || s[2] == 0x94) ? '-' : '?';
}

size_t rd_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t k;
	uint32_t cp;
	if (n == 0)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		k = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		k = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		k = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return k;
}

static uint32_t utf8_cp(const unsigned char *s, size_t k)
{
	static const unsigned char first_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
	uint32_t cp = s[0] & first_mask[k];
	for (size_t i = 1; i < k; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

void rd_buf_put_visible(struct rd_buf *b, const char *str, size_t n, bool ascii)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		if (c >= 0x20 && c < 0x7f) {
			size_t j = i;
			while (j < n && s[j] >= 0x20 && s[j] < 0x7f)
				j++;
			rd_buf_add(b, str + i, j - i);
			i = j;
			continue;
		}
		size_t k = c >= 0x80 && !ascii ? rd_utf8_len(s + i, n - i) : 0;
		uint32_t cp = k ? utf8_cp(s + i, k) : 0;
		if (k && (cp < 0x80 || cp > 0x9f) && !(cp >= 0x202a && cp <= 0x202e) && !(cp >= 0x2066 && cp <= 0x2069)) {
			rd_buf_add(b, str + i, k);
			i += k;
		} else if (k > 1 && cp >= 0x2000) {
			rd_buf_printf(b, "\\u%04x", (unsigned)cp);
			i += k;
		} else {
			size_t m = k ? k : 1; /* a C1 control in UTF-8: both bytes */
			for (size_t x = 0; x < m; x++)
				rd_buf_printf(b, "\\x%02x", s[i + x]);
			i += m;
		}
	}
}

const char *rd_utc_iso8601(long long t, char *buf, size_t len)
{
	/* days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's civil_from_days) */
	long long days = t / 86400, secs = t % 86400;
	if (secs < 0) {
		secs += 86400;
		days--;
	}
	days += 719468;
	long long era = (days >= 0 ? days : days - 146096) / 146097;
	long long doe = days - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	snprintf(buf, len, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", y, m, d, secs / 3600, secs / 60 % 60, secs % 60);
	return buf;
}

bool rd_env_locale_utf8(void)
{
	static const char *const vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (!v || !*v)
			continue;
		const char *dot = strchr(v, '.');
		if (!dot)
			return false; /* C, POSIX, or a language with its legacy charset (en_US: ISO-8859-1) */
		dot++;
		size_t n = strcspn(dot, "@");
		return (n == 5 && strncasecmp(dot, "utf-8", 5) == 0) || (n == 4 && strncasecmp(dot, "utf8", 4) == 0);
	}
	return true;
}

void rd_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void rd_schema_mismatch(char *err, size_t errlen, const char *got, const char *want, const char *what)
{
	if (rd_str_has_prefix(got, "rdma-doctor/") && strlen(got) < 64 &&
	    strspn(got, "abcdefghijklmnopqrstuvwxyz0123456789/._-") == strlen(got))
		rd_set_err(err, errlen, "schema \"%s\", not %s", got, want);
	else
		rd_set_err(err, errlen, "not %s (its \"schema\" is not rdma-doctor's; want %s)", what, want);
}

int rd_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, p + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

long long rd_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long rd_run_time(void)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v = e && *e ? strtoll(e, &end, 10) : -1;
	return e && *e && !*end && v >= 0 ? v : (long long)time(NULL);
}

void *rd_grow(void *v, size_t n, size_t sz)
{
	if (n == 0)
		return rd_xrealloc(v, 4 * sz);
	if (n >= 4 && (n & (n - 1)) == 0)
		return rd_xrealloc(v, 2 * n * sz);
	return v;
}

const char *rd_span_words(long long s, char *buf, size_t len)
{
	if (s < 1)
		snprintf(buf, len, "under 1s");
	else if (s < 60)
		snprintf(buf, len, "%llds", s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm %llds", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%lldh %lldm", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%lldd %lldh", s / 86400, s % 86400 / 3600);
	return buf;
}
