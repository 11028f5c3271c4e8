/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Unit tests for src/source/larchive.c: libarchive is not mapped until first use, the table it
 * loads writes a tar.gz that GNU tar reads and reads back what it wrote, and a missing or
 * incomplete library gives a one-line reason. */
#include "harness.h"
#include "source/larchive.h"
#include "source/source.h"
#include "util/dl.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

RD_TEST(larchive_not_mapped_until_first_use)
{
	char err[256] = "unset";
	CHECK(!rd_test_mapped("libarchive.so"));
	const struct rd_larchive *la = rd_larchive(err, sizeof err);
	CHECK(la != NULL);
	CHECK(rd_test_mapped("libarchive.so"));
	CHECK(rd_larchive(err, sizeof err) == la); /* loaded once */
	CHECK(la->read_new && la->entry_set_mtime && la->write_free && la->entry_clear);
}

static void add(const struct rd_larchive *la, struct archive *a, const char *path, unsigned type, const char *data,
		const char *link)
{
	struct archive_entry *e = la->entry_new();
	CHECK(e);
	la->entry_set_pathname(e, path);
	la->entry_set_filetype(e, type);
	la->entry_set_perm(e, type == AE_IFDIR ? 0755 : 0644);
	la->entry_set_mtime(e, 0, 0);
	la->entry_set_size(e, data ? (la_int64_t)strlen(data) : 0);
	if (link)
		la->entry_set_symlink(e, link);
	CHECK_INT(la->write_header(a, e), ARCHIVE_OK);
	if (data)
		CHECK_INT(la->write_data(a, data, strlen(data)), (long long)strlen(data));
	la->entry_free(e);
}

RD_TEST(larchive_write_then_read_and_gnu_tar_agrees)
{
	char err[256];
	const struct rd_larchive *la = rd_larchive(err, sizeof err);
	CHECK(la);
	int fd = memfd_create("t.tar.gz", 0);
	CHECK(fd >= 0);
	struct archive *w = la->write_new();
	CHECK(w);
	CHECK_INT(la->write_add_filter_gzip(w), ARCHIVE_OK);
	CHECK_INT(la->write_set_format_pax_restricted(w), ARCHIVE_OK);
	CHECK_INT(la->write_open_fd(w, fd), ARCHIVE_OK);
	add(la, w, "sys", AE_IFDIR, NULL, NULL);
	add(la, w, "sys/hello", AE_IFREG, "world\n", NULL);
	add(la, w, "sys/link", AE_IFLNK, NULL, "hello");
	CHECK_INT(la->write_close(w), ARCHIVE_OK);
	CHECK_INT(la->write_free(w), ARCHIVE_OK);

	/* GNU tar reads it */
	char cmd[256];
	snprintf(cmd, sizeof cmd, "tar -tvzf /proc/%d/fd/%d | grep -q 'sys/link -> hello'", (int)getpid(), fd);
	CHECK_INT(system(cmd), 0);

	/* and so does the read half */
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && st.st_size > 0);
	char *buf = malloc((size_t)st.st_size);
	CHECK(buf && pread(fd, buf, (size_t)st.st_size, 0) == st.st_size);
	struct archive *r = la->read_new();
	CHECK(r);
	CHECK_INT(la->read_support_filter_gzip(r), ARCHIVE_OK);
	CHECK_INT(la->read_support_format_tar(r), ARCHIVE_OK);
	CHECK_INT(la->read_open_memory(r, buf, (size_t)st.st_size), ARCHIVE_OK);
	struct archive_entry *e;
	CHECK_INT(la->read_next_header(r, &e), ARCHIVE_OK);
	CHECK_STR(la->entry_pathname(e), "sys/"); /* the writer marks directories */
	CHECK_INT(la->entry_filetype(e), AE_IFDIR);
	CHECK_INT(la->read_next_header(r, &e), ARCHIVE_OK);
	CHECK_STR(la->entry_pathname(e), "sys/hello");
	CHECK_INT(la->entry_size(e), 6);
	char data[16] = "";
	CHECK_INT(la->read_data(r, data, sizeof data), 6);
	CHECK_STR(data, "world\n");
	CHECK_INT(la->read_next_header(r, &e), ARCHIVE_OK);
	CHECK_STR(la->entry_symlink(e), "hello");
	CHECK_INT(la->read_next_header(r, &e), ARCHIVE_EOF);
	CHECK_INT(la->filter_code(r, 0), ARCHIVE_FILTER_GZIP);
	CHECK_INT(la->read_free(r), ARCHIVE_OK);
	free(buf);
	close(fd);
}

RD_TEST(larchive_missing_library_says_what_to_install)
{
	char err[256] = "";
	CHECK(rd_larchive_load("libarchive-rd-test-absent.so.13", err, sizeof err) == NULL);
	CHECK(strstr(err, "libarchive-rd-test-absent.so.13: cannot open shared object file") != NULL);
	CHECK(strstr(err, "(apt-get install libarchive13)") != NULL);
	CHECK(strchr(err, '\n') == NULL);
	char again[256] = "";
	CHECK(rd_larchive(again, sizeof again) == NULL); /* the failure is kept, not retried */
	CHECK_STR(again, err);
}

RD_TEST(larchive_incomplete_library_names_the_missing_function)
{
	char dir[96], cmd[512], so[128], err[256] = "";
	rd_test_mkdtemp(dir, sizeof dir, "rd_larchive_test");
	snprintf(so, sizeof so, "%s/libarchive.so.13", dir);
	snprintf(cmd, sizeof cmd,
		 "printf 'const char *archive_error_string(void *a);\\n"
		 "const char *archive_error_string(void *a) { (void)a; return 0; }\\n' |"
		 " cc -shared -fPIC -x c -o %s -", so);
	CHECK_INT(system(cmd), 0);
	CHECK(rd_larchive_load(so, err, sizeof err) == NULL);
	char want[256];
	snprintf(want, sizeof want, "%s has no function archive_format (libarchive 3.x needed)", so);
	CHECK_STR(err, want);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
}

/* The loader the dlopen'ed libraries share (util/dl.h): its two reasons, one line each. */
RD_TEST(dl_load_says_what_is_missing)
{
	char err[256] = "";
	const char *const names[] = {"strlen", "rd_test_no_such_function"};
	void *syms[2] = {NULL, NULL};
	CHECK_INT(rd_dl_load("librd-test-absent.so.7", "librd-test7", "x", names, syms, 2, err, sizeof err), -1);
	CHECK(strstr(err, "librd-test-absent.so.7: cannot open shared object file") != NULL);
	CHECK(strstr(err, "(apt-get install librd-test7)") != NULL);
	CHECK_INT(rd_dl_load("libc.so.6", "libc6", "a libc with it needed", names, syms, 2, err, sizeof err), -1);
	CHECK_STR(err, "libc.so.6 has no function rd_test_no_such_function (a libc with it needed)");
	CHECK_INT(rd_dl_load("libc.so.6", "libc6", "", names, syms, 1, err, sizeof err), 0);
	size_t (*fn)(const char *);
	memcpy(&fn, &syms[0], sizeof syms[0]);
	CHECK_INT(fn("abc"), 3);
}

/* rd_gunzip: a gzip stream (gzip -n of one kernel config line), its output cap, and input that is
 * not gzip or is cut short. */
RD_TEST(gunzip_decompresses_within_its_cap)
{
	static const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0x73, 0xf6, 0xf7, 0x73,
					   0xf3, 0x74, 0x8f, 0x77, 0xf1, 0x75, 0x8c, 0x0f, 0xf6, 0x70, 0x0c, 0x72, 0x75, 0x89,
					   0x77, 0x0a, 0x75, 0x73, 0x73, 0x0d, 0xb2, 0xad, 0xe4, 0x02, 0x00, 0xd8, 0x70, 0xa3,
					   0x35, 0x1b, 0x00, 0x00, 0x00};
	struct rd_text t;
	char err[200] = "";
	CHECK_INT(rd_gunzip((const char *)gz, sizeof gz, 1 << 20, &t, err, sizeof err), 0);
	CHECK_INT((int)t.len, 27);
	CHECK_STR(t.data, "CONFIG_DMA_SHARED_BUFFER=y\n");
	rd_text_free(&t);
	CHECK_INT(rd_gunzip((const char *)gz, sizeof gz, 10, &t, err, sizeof err), -EFBIG);
	CHECK(strstr(err, "more than 10 bytes") != NULL);
	CHECK(t.data == NULL);
	CHECK_INT(rd_gunzip("CONFIG_X=y\n", 11, 1 << 20, &t, err, sizeof err), -RD_EPARSE);
	CHECK(strstr(err, "not a gzip stream") != NULL);
	CHECK_INT(rd_gunzip((const char *)gz, 20, 1 << 20, &t, err, sizeof err), -RD_EPARSE);
	CHECK(t.data == NULL);
	CHECK_INT(rd_gunzip("", 0, 1 << 20, &t, err, sizeof err), -RD_EPARSE);
}
