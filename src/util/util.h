/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Small shared helpers: growable buffers, string vectors, error strings.
 * Ownership: every pointer a function here returns is owned by the caller (free it, or the
 * matching *_free), and memory exhaustion aborts the process (the only way this code exits). */
#ifndef RD_UTIL_H
#define RD_UTIL_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Error codes beyond errno, used in rd_text.err and friends (always positive). */
enum {
	RD_ENOTREG = 1000,   /* not a regular file */
	RD_ENOTCAPTURED,     /* a command output not captured in this root */
	RD_EPARSE,           /* text present but not in the expected format */
	RD_ENOTLOADED,       /* a part of the model this run did not read (model/host.h rd_need) */
};
/* "No such file or directory", "not a regular file", ... for an errno or RD_E* code. */
const char *rd_strerror(int err);
/* A one-line reason, printf-style, into err (nothing when err is NULL or errlen 0). */
void rd_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Why a JSON document whose "schema" is got is not want (what: "a report", "a fabric document"):
 * another of rdma-doctor's schemas is named; anything else (another program's JSON, a credentials
 * file) is not echoed. */
void rd_schema_mismatch(char *err, size_t errlen, const char *got, const char *want, const char *what);

void *rd_xmalloc(size_t n);
void *rd_xcalloc(size_t n, size_t size);
void *rd_xrealloc(void *p, size_t n);
char *rd_xstrdup(const char *s);
char *rd_xstrndup(const char *s, size_t n);
char *rd_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *rd_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A span of seconds in words for a message: "under 1s", "42s", "5m 3s", "2h 10m", "3d 4h"; buf. */
const char *rd_span_words(long long s, char *buf, size_t len);

/* An array of n elements of sz bytes, grown (by doubling) to hold one more: the capacity follows
 * from n alone (4, 8, 16 ...), so appending stays linear in time (with ASan's realloc too). */
void *rd_grow(void *v, size_t n, size_t sz);

/* A NUL-terminated growable byte buffer; zero-initialise, free with rd_buf_free. */
struct rd_buf {
	char *data;
	size_t len, cap;
};
void rd_buf_add(struct rd_buf *b, const char *s, size_t n);
void rd_buf_puts(struct rd_buf *b, const char *s);
void rd_buf_putc(struct rd_buf *b, char c);
void rd_buf_printf(struct rd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rd_buf_vprintf(struct rd_buf *b, const char *fmt, va_list ap);
/* Hands the contents to the caller (never NULL) and empties the buffer. */
char *rd_buf_steal(struct rd_buf *b);
void rd_buf_free(struct rd_buf *b);

/* A vector of owned strings; zero-initialise, free with rd_strv_free. */
struct rd_strv {
	char **v;
	size_t n, cap;
};
void rd_strv_push(struct rd_strv *sv, const char *s);      /* copies s */
void rd_strv_push_owned(struct rd_strv *sv, char *s);      /* takes s */
void rd_strv_sort(struct rd_strv *sv);                     /* strcmp order */
bool rd_strv_contains(const struct rd_strv *sv, const char *s);
void rd_strv_free(struct rd_strv *sv);

/* Path join "a/b" without doubling slashes; result owned by the caller. */
char *rd_path_join(const char *a, const char *b);
bool rd_str_has_prefix(const char *s, const char *prefix);
bool rd_str_has_suffix(const char *s, const char *suffix);
/* Compare names the way people expect devices to sort: "mlx5_2" before "mlx5_10". */
int rd_natural_cmp(const char *a, const char *b);



/* Writes all len bytes of data to fd, again after EINTR and short writes.  Returns 0 or -errno
 * (-EIO when write gives 0). */
int rd_write_all(int fd, const void *data, size_t len);

/* Removes name (relative to dirfd) and everything below it, never following a link.
 * Returns 0 or -errno of the last failure. */
int rd_remove_tree(int dirfd, const char *name);

/* Symbolic errno names ("EINVAL") for the errors a sysfs read can give, so snapshots carry
 * them across architectures.  rd_errno_name returns NULL for an unknown code;
 * rd_errno_from_name returns 0 for an unknown name. */
const char *rd_errno_name(int err);
int rd_errno_from_name(const char *name);

/* A byte count as people write limits: "64 KiB", "8 MiB", "2 GiB", "1000 bytes", and
 * "unlimited" for UINT64_MAX.  Writes into buf and returns it. */
const char *rd_size_words(uint64_t v, char *buf, size_t len);

/* "1 module", "2 modules": n, a space and the singular or the plural; writes into buf, returns it. */
const char *rd_plural(unsigned long long n, const char *one, const char *many, char *buf, size_t len);

/* Appends s (n bytes) to b in a form that is safe to print on a terminal: the C0 controls
 * (newline and tab included), DEL, the C1 controls (as bytes 0x80-0x9f or as UTF-8 U+0080-U+009F),
 * the bidirectional overrides U+202A-U+202E and U+2066-U+2069, and bytes that are not valid UTF-8
 * are written as \xHH (each byte; \u202e for the overrides).  With ascii (a terminal that is not
 * UTF-8) every byte above 0x7e is written as \xHH.  A backslash is kept as it is, so printed
 * commands stay typeable. */
void rd_buf_put_visible(struct rd_buf *b, const char *s, size_t n, bool ascii);
/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when it is not valid. */
size_t rd_utf8_len(const unsigned char *s, size_t n);
/* The one ASCII character that stands for the character at s (a lead byte >= 0xc0, at most n bytes)
 * where only ASCII may go (a Slurm reason, an NPD line): an en or em dash is '-', anything else
 * '?'.  *len: the bytes it stands for (the lead byte and the continuation bytes after it, up to 4). */
char rd_utf8_ascii(const unsigned char *s, size_t n, size_t *len);

/* CLOCK_MONOTONIC in milliseconds: the clock every deadline and timeout of the program is on. */
long long rd_mono_ms(void);

/* The time of this run in seconds since the epoch: SOURCE_DATE_EPOCH when it is a whole
 * non-negative number (reproducible reports and snapshots, tests), else the current time. */
long long rd_run_time(void);

/* t as "2025-11-30T00:00:00Z", computed here (no time-zone database is read: gmtime reads
 * /etc/localtime, which is outside any --root). */
const char *rd_utc_iso8601(long long t, char *buf, size_t len);

/* True when the locale the environment names (LC_ALL, else LC_CTYPE, else LANG: the first that is
 * set and not empty) is UTF-8, or when none is set; false for C, POSIX and other charsets.  Read
 * from the environment only: setlocale would read the locale files outside any --root. */
bool rd_env_locale_utf8(void);
#endif
