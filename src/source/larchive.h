/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* libarchive, loaded on first use (dlopen of libarchive.so.13), so that commands on a directory
 * root or the live host never pay for linking it and its compression libraries.
 *
 * Ownership: the table is static and lives until exit; every struct archive and
 * struct archive_entry made through it is owned by the caller, who frees it through the table. */
#ifndef RD_SOURCE_LARCHIVE_H
#define RD_SOURCE_LARCHIVE_H
#include <archive.h>
#include <archive_entry.h>
#include <stddef.h>

struct rd_larchive {
	/* common */
	const char *(*error_string)(struct archive *);
	int (*format)(struct archive *);
	int (*filter_code)(struct archive *, int);
	/* reading */
	struct archive *(*read_new)(void);
	int (*read_support_filter_all)(struct archive *);
	int (*read_support_format_all)(struct archive *);
	int (*read_support_format_tar)(struct archive *);
	int (*read_support_filter_gzip)(struct archive *);
	int (*read_support_filter_none)(struct archive *);
	int (*read_support_format_raw)(struct archive *);
	int (*read_open_fd)(struct archive *, int fd, size_t block_size);
	int (*read_open_memory)(struct archive *, const void *buf, size_t size);
	int (*read_next_header)(struct archive *, struct archive_entry **);
	la_ssize_t (*read_data)(struct archive *, void *, size_t);
	int (*read_data_skip)(struct archive *);
	int (*read_free)(struct archive *);
	/* writing */
	struct archive *(*write_new)(void);
	int (*write_add_filter_gzip)(struct archive *);
	int (*write_add_filter_none)(struct archive *);
	int (*write_set_format_pax_restricted)(struct archive *);
	int (*write_set_bytes_in_last_block)(struct archive *, int);
	int (*write_open_fd)(struct archive *, int fd);
	int (*write_header)(struct archive *, struct archive_entry *);
	la_ssize_t (*write_data)(struct archive *, const void *, size_t);
	int (*write_close)(struct archive *);
	int (*write_free)(struct archive *);
	/* entries */
	struct archive_entry *(*entry_new)(void);
	void (*entry_free)(struct archive_entry *);
	struct archive_entry *(*entry_clear)(struct archive_entry *); /* returns its argument */
	const char *(*entry_pathname)(struct archive_entry *);
	const char *(*entry_symlink)(struct archive_entry *);
	const char *(*entry_hardlink)(struct archive_entry *);
	__LA_MODE_T (*entry_filetype)(struct archive_entry *);
	__LA_MODE_T (*entry_perm)(struct archive_entry *);
	la_int64_t (*entry_size)(struct archive_entry *);
	int (*entry_size_is_set)(struct archive_entry *);
	la_int64_t (*entry_uid)(struct archive_entry *);
	la_int64_t (*entry_gid)(struct archive_entry *);
	void (*entry_set_pathname)(struct archive_entry *, const char *);
	void (*entry_set_symlink)(struct archive_entry *, const char *);
	void (*entry_set_filetype)(struct archive_entry *, unsigned int);
	void (*entry_set_perm)(struct archive_entry *, __LA_MODE_T);
	void (*entry_set_size)(struct archive_entry *, la_int64_t);
	void (*entry_set_uid)(struct archive_entry *, la_int64_t);
	void (*entry_set_gid)(struct archive_entry *, la_int64_t);
	void (*entry_set_mtime)(struct archive_entry *, time_t, long);
};

/* The table, loading the library on the first call.  NULL when it cannot be loaded or lacks a
 * function, with a one-line reason in err ("libarchive.so.13: cannot open shared object file ...
 * (apt-get install libarchive13)"). */
const struct rd_larchive *rd_larchive(char *err, size_t errlen);
/* The same from a given file or soname (rd_larchive uses "libarchive.so.13"); for tests.  Only the
 * first call of either loads: later calls return that table or that failure, whatever the name. */
const struct rd_larchive *rd_larchive_load(const char *soname, char *err, size_t errlen);

#endif
