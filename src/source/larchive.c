/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* libarchive loaded on first use (util/dl.h): dlopen of libarchive.so.13, then one dlsym per member
 * of the table.  The program is compiled against <archive.h> only and never links
 * libarchive, whose dependency chain (xml2, icu, lzma, zstd, ...) would otherwise be loaded by
 * every run; see bench/ for the measured start-up cost.  Not thread-safe (nothing here needs it). */
#include "source/larchive.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "source/source.h"
#include "util/dl.h"
#include "util/util.h"

#define RD_LARCHIVE_SONAME "libarchive.so.13"

/* Every member, by the name it has in the table; its symbol is archive_<name>. */
#define RD_LARCHIVE_MEMBERS(X)                                                                          \
	X(error_string) X(format) X(filter_code)                                                        \
	X(read_new) X(read_support_filter_all) X(read_support_format_all) X(read_support_format_tar)   \
	X(read_support_filter_gzip) X(read_support_filter_none) X(read_open_fd) X(read_open_memory)    \
	X(read_support_format_raw)                                                                      \
	X(read_next_header) X(read_data) X(read_data_skip) X(read_free)                                \
	X(write_new) X(write_add_filter_gzip) X(write_add_filter_none) X(write_set_format_pax_restricted) \
	X(write_set_bytes_in_last_block) X(write_open_fd) X(write_header) X(write_data) X(write_close) \
	X(write_free)                                                                                   \
	X(entry_new) X(entry_free) X(entry_clear) X(entry_pathname) X(entry_symlink) X(entry_hardlink) \
	X(entry_filetype) X(entry_perm) X(entry_size) X(entry_size_is_set) X(entry_uid) X(entry_gid)   \
	X(entry_set_pathname) X(entry_set_symlink) X(entry_set_filetype) X(entry_set_perm)             \
	X(entry_set_size) X(entry_set_uid) X(entry_set_gid) X(entry_set_mtime)

/* Each member has exactly the type of the function <archive.h> declares (checked here, at
 * compile time, without referring to the symbol: typeof does not evaluate its operand). */
#define RD_LARCHIVE_TYPECHECK(name)                                                                     \
	_Static_assert(__builtin_types_compatible_p(__typeof__(((struct rd_larchive *)0)->name),        \
						    __typeof__(&archive_##name)),                       \
		       "struct rd_larchive member " #name " differs from archive_" #name);
RD_LARCHIVE_MEMBERS(RD_LARCHIVE_TYPECHECK)

static struct rd_larchive table;
static int state; /* 0: not tried, 1: loaded, -1: failed (reason kept) */
static char reason[512];

static void put_reason(char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", reason);
}

const struct rd_larchive *rd_larchive_load(const char *soname, char *err, size_t errlen)
{
	if (state == 0) {
		static const char *const names[] = {
#define RD_LARCHIVE_NAME(name) "archive_" #name,
			RD_LARCHIVE_MEMBERS(RD_LARCHIVE_NAME)
#undef RD_LARCHIVE_NAME
		};
		void *syms[sizeof names / sizeof names[0]];
		if (rd_dl_load(soname, "libarchive13", "libarchive 3.x needed", names, syms, sizeof names / sizeof names[0],
			       reason, sizeof reason) < 0) {
			state = -1;
			put_reason(err, errlen);
			return NULL;
		}
		size_t i = 0;
		/* POSIX: object and function pointers convert */
#define RD_LARCHIVE_SET(name) memcpy(&table.name, &syms[i++], sizeof syms[0]);
		RD_LARCHIVE_MEMBERS(RD_LARCHIVE_SET)
#undef RD_LARCHIVE_SET
		state = 1; /* the library stays loaded until exit, like the table */
	}
	if (state < 0) {
		put_reason(err, errlen);
		return NULL;
	}
	return &table;
}

const struct rd_larchive *rd_larchive(char *err, size_t errlen)
{
	return rd_larchive_load(RD_LARCHIVE_SONAME, err, errlen);
}

int rd_gunzip(const char *in, size_t len, size_t cap, struct rd_text *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	const struct rd_larchive *la = rd_larchive(err, errlen);
	if (!la)
		return -ENOSYS;
	struct archive *a = la->read_new();
	if (!a) {
		snprintf(err, errlen, "libarchive: out of memory");
		return -ENOMEM;
	}
	int r = 0;
	struct archive_entry *e;
	if (la->read_support_filter_gzip(a) != ARCHIVE_OK || la->read_support_format_raw(a) != ARCHIVE_OK ||
	    la->read_open_memory(a, in, len) != ARCHIVE_OK || la->read_next_header(a, &e) != ARCHIVE_OK ||
	    la->filter_code(a, 0) != ARCHIVE_FILTER_GZIP) {
		snprintf(err, errlen, "not a gzip stream%s%s", la->error_string(a) ? ": " : "",
			 la->error_string(a) ? la->error_string(a) : "");
		r = -RD_EPARSE;
	}
	struct rd_buf b = {0};
	char chunk[65536];
	while (r == 0) {
		la_ssize_t n = la->read_data(a, chunk, sizeof chunk);
		if (n == 0)
			break;
		if (n < 0) {
			snprintf(err, errlen, "a damaged gzip stream: %s", la->error_string(a) ? la->error_string(a) : "");
			r = -RD_EPARSE;
		} else if (b.len + (size_t)n > cap) {
			snprintf(err, errlen, "more than %zu bytes once decompressed", cap);
			r = -EFBIG;
		} else {
			rd_buf_add(&b, chunk, (size_t)n);
		}
	}
	la->read_free(a);
	if (r < 0) {
		rd_buf_free(&b);
		out->err = -r;
		return r;
	}
	out->data = b.data ? b.data : rd_xstrdup("");
	out->len = b.len;
	return 0;
}
