/* Unit tests for src/source/archive.c: round trips, GNU tar interoperability both ways, and
 * hostile inputs (truncation, corruption, path escapes, symlink tricks, size caps). */
#include "harness.h"
#include "source/archive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------ helpers */

/* A fresh directory under /tmp (names live in a static pool: each test is its own process). */
static char *tmpdir(void)
{
	static char pool[64][32];
	static int used;
	CHECK(used < 64);
	char *t = strcpy(pool[used++], "/tmp/rd_archive_test.XXXXXX");
	CHECK(mkdtemp(t) != NULL);
	return t;
}

__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void put_file(const char *path, const void *data, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	CHECK(fd >= 0);
	CHECK(write(fd, data, n) == (ssize_t)n);
	CHECK(fchmod(fd, mode) == 0);
	close(fd);
}

static uint32_t rnd(uint64_t *s) /* xorshift64*, deterministic */
{
	*s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
	return (uint32_t)((*s * 2685821657736338717ull) >> 32);
}

/* An unlinked temporary file holding data, positioned at its start. */
static int mem_fd(const void *data, size_t n)
{
	FILE *f = tmpfile();
	CHECK(f);
	CHECK(fwrite(data, 1, n, f) == n);
	CHECK(fflush(f) == 0);
	int fd = dup(fileno(f));
	fclose(f);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	return fd;
}

static uint8_t *read_all(int fd, size_t *n)
{
	size_t cap = 1 << 16;
	uint8_t *b = malloc(cap);
	ssize_t r;
	CHECK(b);
	*n = 0;
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	while ((r = read(fd, b + *n, cap - *n)) > 0)
		if ((*n += (size_t)r) == cap)
			CHECK((b = realloc(b, cap *= 2)) != NULL);
	CHECK(r == 0);
	return b;
}

static uint8_t *read_path(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	uint8_t *b = read_all(fd, n);
	close(fd);
	return b;
}

/* rd_archive_create of dir, returned in memory. */
static uint8_t *create_mem(const char *dir, size_t *n)
{
	char err[512] = "";
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), fd = mem_fd("", 0);
	CHECK(dfd >= 0);
	int rc = rd_archive_create(dfd, fd, err, sizeof err);
	if (rc)
		fprintf(stderr, "    create: %d %s\n", rc, err);
	CHECK_INT(rc, 0);
	CHECK_STR(err, "");
	uint8_t *b = read_all(fd, n);
	close(fd), close(dfd);
	return b;
}

static int extract_mem(const void *data, size_t n, const char *dest, char *err, size_t errlen)
{
	int dfd = open(dest, O_RDONLY | O_DIRECTORY), fd = mem_fd(data, n);
	CHECK(dfd >= 0);
	int rc = rd_archive_extract(fd, dfd, err, errlen);
	close(fd), close(dfd);
	CHECK(rc <= 0);
	CHECK(rc == 0 ? err[0] == 0 : err[0] != 0 && !strchr(err, '\n'));
	return rc;
}

static int extract_path(const char *archive, const char *dest, char *err, size_t errlen)
{
	size_t n;
	uint8_t *b = read_path(archive, &n);
	int rc = extract_mem(b, n, dest, err, errlen);
	free(b);
	return rc;
}

/* A tree exercising the interesting cases: nested dirs, an empty file, 300 KiB compressible and
 * random files, a symlink, a 150-character path and an executable. */
static void make_tree(const char *root)
{
	char p[1024], *buf = malloc(300 * 1024);
	uint64_t seed = 42;
	size_t n = 0;

	CHECK(buf);
	snprintf(p, sizeof p, "%s/a", root); CHECK(mkdir(p, 0755) == 0);
	snprintf(p, sizeof p, "%s/a/b", root); CHECK(mkdir(p, 0750) == 0);
	snprintf(p, sizeof p, "%s/a/b/c", root); CHECK(mkdir(p, 0755) == 0);
	snprintf(p, sizeof p, "%s/a/empty", root), put_file(p, "", 0, 0644);
	for (int line = 0; n < 300 * 1024 - 100; line++)
		n += (size_t)snprintf(buf + n, 100, "line %d: port %d state ACTIVE mtu %d\n", line,
				      line % 7, 1024 << (line % 4));
	memset(buf + n, '\n', 300 * 1024 - n);
	snprintf(p, sizeof p, "%s/a/b/text.txt", root), put_file(p, buf, 300 * 1024, 0644);
	for (size_t i = 0; i < 300 * 1024; i++)
		buf[i] = (char)rnd(&seed);
	snprintf(p, sizeof p, "%s/a/b/c/random.bin", root), put_file(p, buf, 300 * 1024, 0600);
	snprintf(p, sizeof p, "%s/a/run.sh", root), put_file(p, "#!/bin/sh\n", 10, 0755);
	snprintf(p, sizeof p, "%s/a/link", root); CHECK(symlink("b/text.txt", p) == 0);
	snprintf(p, sizeof p, "%s/a/dangling", root); CHECK(symlink("/nonexistent/target", p) == 0);
	/* "long_...(60)/file_...(89)" = 150 characters */
	int l = snprintf(p, sizeof p, "%s/", root);
	memset(p + l, 'd', 60), p[l + 60] = 0; CHECK(mkdir(p, 0755) == 0);
	p[l + 60] = '/', memset(p + l + 61, 'f', 89), p[l + 150] = 0;
	put_file(p, "long path\n", 10, 0644);
	free(buf);
}

static void check_same(const char *a, const char *b)
{
	CHECK_INT(sh("diff -r --no-dereference '%s' '%s'", a, b), 0);
}

/* ------------------------------------------------------------------ tar building helpers */

struct tb {
	uint8_t *d;
	size_t n;
};

static uint8_t *tb_grow(struct tb *t, size_t k)
{
	CHECK((t->d = realloc(t->d, t->n + k)) != NULL);
	memset(t->d + t->n, 0, k);
	t->n += k;
	return t->d + t->n - k;
}

static void cksum(uint8_t *h)
{
	unsigned s = 0;
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		s += h[i];
	snprintf((char *)h + 148, 8, "%06o", s);
}

/* Appends a POSIX ustar entry (header, data, padding); returns the header for tweaking. */
static uint8_t *tb_add(struct tb *t, const char *name, char type, const void *data,
		       unsigned long long size, const char *link)
{
	size_t off = t->n;
	uint8_t *h = tb_grow(t, 512);
	memcpy(h, name, strnlen(name, 100));
	snprintf((char *)h + 100, 8, "%07o", 0644);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011llo", size & 077777777777ull);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = (uint8_t)type;
	if (link)
		memcpy(h + 157, link, strnlen(link, 100));
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	cksum(h);
	if (data && size) {
		memcpy(tb_grow(t, (size + 511) / 512 * 512), data, size);
	}
	return t->d + off;
}

static void tb_end(struct tb *t)
{
	tb_grow(t, 1024);
}

static void bitwise_crc(uint32_t *crc, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		*crc ^= p[i];
		for (int k = 0; k < 8; k++)
			*crc = *crc & 1 ? (*crc >> 1) ^ 0xedb88320u : *crc >> 1;
	}
}

static int exists(const char *dir, const char *name)
{
	char p[1024];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return lstat(p, &st) == 0;
}

/* ------------------------------------------------------------------------------- round trips */

RD_TEST(roundtrip_tree)
{
	char *src = tmpdir(), *dst = tmpdir(), err[512], p[1024], target[64];
	size_t n, n2;
	struct stat st;

	make_tree(src);
	uint8_t *gz = create_mem(src, &n), *gz2 = create_mem(src, &n2);
	CHECK(n == n2 && memcmp(gz, gz2, n) == 0); /* reproducible */
	CHECK(n < 300 * 1024 + 100 * 1024);         /* text compressed, random stored */
	CHECK_INT(extract_mem(gz, n, dst, err, sizeof err), 0);
	check_same(src, dst);
	snprintf(p, sizeof p, "%s/a/link", dst);
	ssize_t l = readlink(p, target, sizeof target - 1);
	CHECK(l > 0);
	target[l] = 0;
	CHECK_STR(target, "b/text.txt");
	snprintf(p, sizeof p, "%s/a/run.sh", dst);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0755);
	snprintf(p, sizeof p, "%s/a/b", dst);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0750);
	snprintf(p, sizeof p, "%s/a/b/c/random.bin", dst);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_size == 300 * 1024);
	/* extracting again over the same tree replaces the files */
	CHECK_INT(extract_mem(gz, n, dst, err, sizeof err), 0);
	check_same(src, dst);
	sh("rm -rf '%s' '%s'", src, dst);
	free(gz), free(gz2);
}

RD_TEST(roundtrip_empty_dir)
{
	char *src = tmpdir(), *dst = tmpdir(), err[512];
	size_t n;
	uint8_t *gz = create_mem(src, &n);
	CHECK(n < 100);
	CHECK_INT(extract_mem(gz, n, dst, err, sizeof err), 0);
	check_same(src, dst);
	sh("rm -rf '%s' '%s'", src, dst);
	free(gz);
}

RD_TEST(create_sorted_gnu_listing)
{
	char *src = tmpdir(), *dir = tmpdir(), p[1024], *list;
	size_t n;

	make_tree(src);
	uint8_t *gz = create_mem(src, &n);
	snprintf(p, sizeof p, "%s/x.tgz", dir);
	put_file(p, gz, n, 0644);
	CHECK_INT(sh("gzip -t '%s'", p), 0);
	CHECK_INT(sh("tar -tzf '%s' > '%s/list' 2>&1", p, dir), 0);
	snprintf(p, sizeof p, "%s/list", dir);
	list = (char *)read_path(p, &n);
	list = realloc(list, n + 1);
	list[n] = 0;
	const char *want = "a/\na/b/\na/b/c/\na/b/c/random.bin\na/b/text.txt\na/dangling\na/empty\n"
			   "a/link\na/run.sh\n";
	CHECK(strncmp(list, want, strlen(want)) == 0);
	CHECK(strstr(list, "ddddd/\nddd") != NULL);
	CHECK(strstr(list, "./") == NULL);
	sh("rm -rf '%s' '%s'", src, dir);
	free(gz), free(list);
}

/* ---------------------------------------------------------------------------- interop */

static void gnu_to_us(const char *format)
{
	char *src = tmpdir(), *dst = tmpdir(), *dir = tmpdir(), p[1024], err[512];

	make_tree(src);
	snprintf(p, sizeof p, "%s/t.tgz", dir);
	CHECK_INT(sh("/usr/bin/tar --format=%s -czf '%s' -C '%s' .", format, p, src), 0);
	CHECK_INT(extract_path(p, dst, err, sizeof err), 0);
	check_same(src, dst);
	sh("rm -rf '%s' '%s' '%s'", src, dst, dir);
}

RD_TEST(interop_gnu_tar_gnu_format) { gnu_to_us("gnu"); }
RD_TEST(interop_gnu_tar_pax_format) { gnu_to_us("pax"); }
RD_TEST(interop_gnu_tar_ustar_format) { gnu_to_us("ustar"); }

RD_TEST(interop_gnu_tar_very_long_names)
{
	char *src = tmpdir(), *dst = tmpdir(), *dir = tmpdir(), p[2048], err[512];
	int l = snprintf(p, sizeof p, "%s/", src);

	for (int i = 0; i < 5; i++) { /* 5 * 200 characters of nested directories */
		memset(p + l, 'a' + i, 199), p[l + 199] = 0; CHECK(mkdir(p, 0755) == 0);
		p[l + 199] = '/', l += 200;
	}
	memcpy(p + l, "leaf", 5), put_file(p, "x", 1, 0644);
	char target[300];
	memset(target, 't', 299), target[299] = 0;
	memcpy(p + l, "lnk", 4); CHECK(symlink(target, p) == 0);
	for (int f = 0; f < 2; f++) {
		snprintf(p, sizeof p, "%s/t.tgz", dir);
		CHECK_INT(sh("/usr/bin/tar --format=%s -czf '%s' -C '%s' .", f ? "pax" : "gnu", p, src), 0);
		CHECK_INT(extract_path(p, dst, err, sizeof err), 0);
		check_same(src, dst);
		sh("rm -rf '%s'/*", dst);
	}
	/* ... and GNU tar reads our 'L' / 'K' entries back */
	size_t n;
	uint8_t *gz = create_mem(src, &n);
	snprintf(p, sizeof p, "%s/ours.tgz", dir);
	put_file(p, gz, n, 0644);
	CHECK_INT(sh("tar -xzf '%s' -C '%s'", p, dst), 0);
	check_same(src, dst);
	sh("rm -rf '%s' '%s' '%s'", src, dst, dir);
	free(gz);
}

RD_TEST(interop_ours_to_gnu_tar)
{
	char *src = tmpdir(), *dst = tmpdir(), *dir = tmpdir(), p[1024];
	size_t n;

	make_tree(src);
	uint8_t *gz = create_mem(src, &n);
	snprintf(p, sizeof p, "%s/ours.tgz", dir);
	put_file(p, gz, n, 0644);
	CHECK_INT(sh("tar -xzf '%s' -C '%s'", p, dst), 0);
	check_same(src, dst);
	CHECK_INT(sh("cd '%s' && tar -tvzf ours.tgz | grep -q 'root/root'", dir), 0);
	sh("rm -rf '%s' '%s' '%s'", src, dst, dir);
	free(gz);
}

RD_TEST(gzip_levels_and_plain_tar)
{
	char *src = tmpdir(), *dir = tmpdir(), p[1024], err[512];
	const char *how[] = {"gzip -1", "gzip -9", "gzip -6 -n", "cat"};

	make_tree(src);
	for (int i = 0; i < 4; i++) {
		char *dst = tmpdir();
		snprintf(p, sizeof p, "%s/t%d", dir, i);
		CHECK_INT(sh("tar -cf - -C '%s' . | %s > '%s'", src, how[i], p), 0);
		CHECK_INT(extract_path(p, dst, err, sizeof err), 0);
		check_same(src, dst);
		sh("rm -rf '%s'", dst);
	}
	sh("rm -rf '%s' '%s'", src, dir);
}

RD_TEST(gzip_multi_member)
{
	char *src = tmpdir(), *dst = tmpdir(), *dir = tmpdir(), p[1024], err[512];

	make_tree(src);
	snprintf(p, sizeof p, "%s/m.gz", dir);
	CHECK_INT(sh("cd '%s' && tar -cf t.tar -C '%s' . && head -c 100000 t.tar | gzip > '%s' && "
		     "tail -c +100001 t.tar | gzip >> '%s'", dir, src, p, p), 0);
	CHECK_INT(extract_path(p, dst, err, sizeof err), 0);
	check_same(src, dst);
	sh("rm -rf '%s' '%s' '%s'", src, dst, dir);
}

RD_TEST(gzip_header_flags)
{
	char *src = tmpdir(), *dst = tmpdir(), p[256], err[512];
	size_t n;

	snprintf(p, sizeof p, "%s/f", src), put_file(p, "hello\n", 6, 0644);
	uint8_t *gz = create_mem(src, &n), *x = malloc(n + 64);
	/* FTEXT | FHCRC | FEXTRA | FNAME | FCOMMENT */
	static const uint8_t extra[] = {6, 0, 'A', 'B', 2, 0, 'x', 'y'};
	memcpy(x, gz, 10);
	x[3] = 0x1f;
	size_t k = 10;
	memcpy(x + k, extra, sizeof extra), k += sizeof extra;
	memcpy(x + k, "name.tar", 9), k += 9;
	memcpy(x + k, "a comment", 10), k += 10;
	uint32_t crc = 0xffffffffu;
	bitwise_crc(&crc, x, k);
	crc = ~crc;
	x[k++] = (uint8_t)crc, x[k++] = (uint8_t)(crc >> 8);
	memcpy(x + k, gz + 10, n - 10);
	CHECK_INT(extract_mem(x, k + n - 10, dst, err, sizeof err), 0);
	CHECK(exists(dst, "f"));
	x[k - 1] ^= 1; /* wrong header CRC */
	CHECK(extract_mem(x, k + n - 10, dst, err, sizeof err) < 0);
	CHECK(strstr(err, "header CRC") != NULL);
	x[k - 1] ^= 1, x[2] = 7; /* not deflate */
	CHECK(extract_mem(x, k + n - 10, dst, err, sizeof err) < 0);
	sh("rm -rf '%s' '%s'", src, dst);
	free(gz), free(x);
}

/* ------------------------------------------------------------------------ tar features */

RD_TEST(tar_extended_headers)
{
	char *dst = tmpdir(), err[512], p[1024];
	struct tb t = {0};
	char longname[300], pax[600];

	memset(longname, 'n', 250), memcpy(longname + 250, "/file", 6);
	tb_add(&t, "pax_global_header", 'g', "19 comment=ignored\n", 19, NULL);
	tb_add(&t, "././@LongLink", 'L', longname, strlen(longname) + 1, NULL);
	tb_add(&t, "truncated-name", '0', "gnu long", 8, NULL);
	int k = snprintf(pax, sizeof pax, "%d path=pax/dir/name.txt\n", 25);
	k += snprintf(pax + k, sizeof pax - k, "%d size=3\n", 10);
	k += snprintf(pax + k, sizeof pax - k, "%d mtime=1.5\n", 13);
	tb_add(&t, "PaxHeaders/x", 'x', pax, (size_t)k, NULL);
	uint8_t *h = tb_add(&t, "ignored", '0', "abc", 3, NULL);
	h[124 + 10] = '0', cksum(h); /* header says 0 bytes: pax size=3 wins */
	tb_add(&t, "sym", '2', NULL, 0, "target");
	h = tb_add(&t, "name.txt", '0', "prefixed", 8, NULL);
	memcpy(h + 345, "some/prefix", 11), cksum(h);
	tb_add(&t, "./dot/./slash//file", '0', "dots", 4, NULL);
	tb_add(&t, "./", '5', NULL, 0, NULL);
	tb_add(&t, ".", '5', NULL, 0, NULL);
	tb_add(&t, "hard", '1', NULL, 0, "sym");
	tb_add(&t, "fifo", '6', NULL, 0, NULL);
	tb_add(&t, "chr", '3', NULL, 0, NULL);
	tb_add(&t, "unknown", 'Z', "zzzz", 4, NULL);
	tb_add(&t, "old-dir/", '0', NULL, 0, NULL);
	tb_add(&t, "dup", '0', "first", 5, NULL);
	tb_add(&t, "dup", '0', "second", 6, NULL);
	tb_add(&t, "sym", '0', "now a file", 10, NULL);
	h = tb_add(&t, "signed", '0', "\xff\xfe", 2, NULL);
	memcpy(h + 265, "\xe9\xe8\xe7", 3); /* non-ASCII uname: signed and unsigned sums differ */
	int s = 0;
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		s += (signed char)h[i];
	snprintf((char *)h + 148, 8, "%06o", s);
	tb_end(&t);
	CHECK_INT(extract_mem(t.d, t.n, dst, err, sizeof err), 0);

	size_t n;
	snprintf(p, sizeof p, "%s/%s", dst, longname);
	uint8_t *b = read_path(p, &n);
	CHECK(n == 8 && memcmp(b, "gnu long", 8) == 0); free(b);
	snprintf(p, sizeof p, "%s/pax/dir/name.txt", dst);
	b = read_path(p, &n);
	CHECK(n == 3 && memcmp(b, "abc", 3) == 0); free(b);
	snprintf(p, sizeof p, "%s/some/prefix/name.txt", dst);
	b = read_path(p, &n);
	CHECK(n == 8 && memcmp(b, "prefixed", 8) == 0); free(b);
	snprintf(p, sizeof p, "%s/dot/slash/file", dst);
	b = read_path(p, &n);
	CHECK(n == 4); free(b);
	snprintf(p, sizeof p, "%s/dup", dst);
	b = read_path(p, &n);
	CHECK(n == 6 && memcmp(b, "second", 6) == 0); free(b);
	snprintf(p, sizeof p, "%s/sym", dst);
	b = read_path(p, &n);
	CHECK(n == 10); free(b);
	CHECK(exists(dst, "signed"));
	struct stat st;
	snprintf(p, sizeof p, "%s/old-dir", dst);
	CHECK(lstat(p, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(!exists(dst, "hard") && !exists(dst, "fifo") && !exists(dst, "chr"));
	CHECK(!exists(dst, "unknown") && !exists(dst, "ignored") && !exists(dst, "truncated-name"));
	CHECK(!exists(dst, "pax_global_header") && !exists(dst, "PaxHeaders"));
	sh("rm -rf '%s'", dst);
	free(t.d);
}

RD_TEST(tar_symlink_with_long_target)
{
	char *dst = tmpdir(), err[512], p[1024], target[256];
	struct tb t = {0};

	tb_add(&t, "././@LongLink", 'K', "a/long/target", 14, NULL);
	tb_add(&t, "sym", '2', NULL, 0, "short");
	tb_end(&t);
	CHECK_INT(extract_mem(t.d, t.n, dst, err, sizeof err), 0);
	snprintf(p, sizeof p, "%s/sym", dst);
	ssize_t l = readlink(p, target, sizeof target - 1);
	CHECK(l == 13 && memcmp(target, "a/long/target", 13) == 0);
	sh("rm -rf '%s'", dst);
	free(t.d);
}

RD_TEST(tar_end_variants)
{
	char *dst = tmpdir(), err[512];
	struct tb t = {0};

	tb_add(&t, "f", '0', "x", 1, NULL);
	tb_grow(&t, 512); /* EOF after a single zero block is accepted */
	CHECK_INT(extract_mem(t.d, t.n, dst, err, sizeof err), 0);
	t.n -= 512; /* no end marker at all */
	CHECK(extract_mem(t.d, t.n, dst, err, sizeof err) < 0);
	CHECK(strstr(err, "end of archive") != NULL);
	CHECK(extract_mem(t.d, 0, dst, err, sizeof err) < 0);
	sh("rm -rf '%s'", dst);
	free(t.d);
}

/* ------------------------------------------------------------------------ hostile inputs */

/* A small archive covering stored, dynamic and fixed blocks. */
static uint8_t *small_gz(size_t *n)
{
	char *src = tmpdir(), p[512], buf[6000];
	uint64_t seed = 7;
	snprintf(p, sizeof p, "%s/d", src); CHECK(mkdir(p, 0755) == 0);
	for (int i = 0; i < 6000; i++)
		buf[i] = i < 3000 ? "abcdefgh\n"[i % 9] : (char)rnd(&seed);
	snprintf(p, sizeof p, "%s/d/mixed", src), put_file(p, buf, sizeof buf, 0644);
	snprintf(p, sizeof p, "%s/d/s", src); CHECK(symlink("mixed", p) == 0);
	snprintf(p, sizeof p, "%s/e", src), put_file(p, "", 0, 0644);
	uint8_t *gz = create_mem(src, n);
	sh("rm -rf '%s'", src);
	return gz;
}

RD_TEST(hostile_truncated_gzip)
{
	char *dst = tmpdir(), err[512], sub[512];
	size_t n;
	uint8_t *gz = small_gz(&n);

	CHECK(n > 3000 && n < 8000);
	for (size_t cut = 0; cut < n; cut++) {
		snprintf(sub, sizeof sub, "%s/%zu", dst, cut);
		CHECK(mkdir(sub, 0755) == 0);
		int rc = extract_mem(gz, cut, sub, err, sizeof err);
		if (rc >= 0)
			fprintf(stderr, "    cut %zu accepted\n", cut);
		CHECK(rc < 0);
	}
	sh("rm -rf '%s'", dst);
	free(gz);
}

RD_TEST(hostile_truncated_plain_tar)
{
	char *dst = tmpdir(), err[512], sub[512];
	struct tb t = {0};
	char data[3000];

	memset(data, 'q', sizeof data);
	tb_add(&t, "dir/", '5', NULL, 0, NULL);
	tb_add(&t, "dir/file", '0', data, sizeof data, NULL);
	tb_add(&t, "././@LongLink", 'L', "dir/long", 9, NULL);
	tb_add(&t, "x", '0', "y", 1, NULL);
	size_t end = t.n;
	tb_end(&t);
	for (size_t cut = 0; cut <= end; cut++) {
		snprintf(sub, sizeof sub, "%s/%zu", dst, cut);
		CHECK(mkdir(sub, 0755) == 0);
		CHECK(extract_mem(t.d, cut, sub, err, sizeof err) < 0);
	}
	sh("rm -rf '%s'", dst);
	free(t.d);
}

RD_TEST(hostile_flipped_bytes)
{
	char *dst = tmpdir(), err[512], sub[512];
	size_t n;
	uint8_t *gz = small_gz(&n), *x = malloc(n);
	uint64_t seed = 1234;
	int failures = 0;

	for (int it = 0; it < 3000; it++) {
		memcpy(x, gz, n);
		int flips = 1 + (int)(rnd(&seed) % 3);
		for (int f = 0; f < flips; f++) {
			/* half of the flips hit the first 600 bytes (headers, code tables) */
			size_t at = rnd(&seed) % (it % 2 ? n : (n < 600 ? n : 600));
			x[at] ^= (uint8_t)(1 + rnd(&seed) % 255);
		}
		snprintf(sub, sizeof sub, "%s/%d", dst, it);
		CHECK(mkdir(sub, 0755) == 0);
		failures += extract_mem(x, n, sub, err, sizeof err) < 0;
	}
	CHECK(failures > 2500);
	sh("rm -rf '%s'", dst);
	free(gz), free(x);
}

RD_TEST(hostile_flipped_plain_tar)
{
	char *dst = tmpdir(), err[512], sub[512];
	struct tb t = {0};
	uint64_t seed = 99;

	tb_add(&t, "a/", '5', NULL, 0, NULL);
	tb_add(&t, "a/f", '0', "contents", 8, NULL);
	tb_add(&t, "PaxHeaders/x", 'x', "18 path=a/pax.txt\n", 18, NULL);
	tb_add(&t, "p", '0', "1", 1, NULL);
	tb_add(&t, "a/l", '2', NULL, 0, "f");
	tb_end(&t);
	uint8_t *x = malloc(t.n);
	for (int it = 0; it < 2000; it++) {
		memcpy(x, t.d, t.n);
		size_t at = rnd(&seed) % (t.n - 1024);
		x[at] ^= (uint8_t)(1 + rnd(&seed) % 255);
		if (it % 2) /* keep the checksum valid so the parser sees the damage */
			cksum(x + at / 512 * 512);
		snprintf(sub, sizeof sub, "%s/%d", dst, it);
		CHECK(mkdir(sub, 0755) == 0);
		extract_mem(x, t.n, sub, err, sizeof err);
	}
	/* nothing escaped the per-iteration directories */
	CHECK_INT(sh("test $(ls -A '%s' | wc -l) -eq 2000", dst), 0);
	sh("rm -rf '%s'", dst);
	free(t.d), free(x);
}

RD_TEST(hostile_bad_crc_and_length)
{
	char *dst = tmpdir(), err[512];
	size_t n;
	uint8_t *gz = small_gz(&n);

	gz[n - 8] ^= 0x40;
	CHECK(extract_mem(gz, n, dst, err, sizeof err) < 0);
	CHECK(strstr(err, "CRC") != NULL);
	gz[n - 8] ^= 0x40, gz[n - 1] ^= 1;
	CHECK(extract_mem(gz, n, dst, err, sizeof err) < 0);
	CHECK(strstr(err, "length") != NULL);
	gz[n - 1] ^= 1;
	CHECK_INT(extract_mem(gz, n, dst, err, sizeof err), 0);
	sh("rm -rf '%s'", dst);
	free(gz);
}

static void expect_refused(struct tb *t, const char *dst, const char *what)
{
	char err[512];
	tb_end(t);
	int rc = extract_mem(t->d, t->n, dst, err, sizeof err);
	CHECK(rc < 0);
	if (!strstr(err, what))
		fprintf(stderr, "    message: %s\n", err);
	CHECK(strstr(err, what) != NULL);
}

RD_TEST(hostile_dotdot)
{
	char *top = tmpdir(), dst[512];
	const char *names[] = {"../evil", "a/../../evil", "a/b/..", "..", "./../evil"};

	for (int i = 0; i < 5; i++) {
		struct tb t = {0};
		snprintf(dst, sizeof dst, "%s/d%d", top, i);
		CHECK(mkdir(dst, 0755) == 0);
		tb_add(&t, names[i], '0', "evil", 4, NULL);
		expect_refused(&t, dst, "'..'");
		CHECK(!exists(top, "evil"));
		free(t.d);
	}
	/* the same through a pax path and a GNU long name */
	struct tb t = {0};
	snprintf(dst, sizeof dst, "%s/pax", top); CHECK(mkdir(dst, 0755) == 0);
	tb_add(&t, "PaxHeaders/x", 'x', "20 path=../evil.txt\n", 20, NULL);
	tb_add(&t, "innocent", '0', "evil", 4, NULL);
	expect_refused(&t, dst, "../evil.txt");
	free(t.d), memset(&t, 0, sizeof t);
	snprintf(dst, sizeof dst, "%s/gnu", top); CHECK(mkdir(dst, 0755) == 0);
	tb_add(&t, "././@LongLink", 'L', "../evil2", 9, NULL);
	tb_add(&t, "innocent", '0', "evil", 4, NULL);
	expect_refused(&t, dst, "../evil2");
	CHECK(!exists(top, "evil.txt") && !exists(top, "evil2"));
	sh("rm -rf '%s'", top);
	free(t.d);
}

RD_TEST(hostile_absolute_name)
{
	char *dst = tmpdir(), name[256];
	struct tb t = {0};

	snprintf(name, sizeof name, "/tmp/rd_archive_abs_%d", (int)getpid());
	tb_add(&t, name, '0', "evil", 4, NULL);
	expect_refused(&t, dst, "absolute");
	CHECK(access(name, F_OK) < 0);
	sh("rm -rf '%s'", dst);
	free(t.d);
}

RD_TEST(hostile_write_through_symlink)
{
	char *dst = tmpdir(), *outside = tmpdir();
	struct tb t = {0};

	tb_add(&t, "link", '2', NULL, 0, outside);
	tb_add(&t, "link/file", '0', "evil", 4, NULL);
	expect_refused(&t, dst, "symlink");
	CHECK(!exists(outside, "file"));
	free(t.d), memset(&t, 0, sizeof t);

	/* deeper: a symlinked directory in the middle of the path, and a dir entry through it */
	tb_add(&t, "d/", '5', NULL, 0, NULL);
	tb_add(&t, "d/up", '2', NULL, 0, outside);
	tb_add(&t, "d/up/sub/", '5', NULL, 0, NULL);
	expect_refused(&t, dst, "symlink");
	CHECK(!exists(outside, "sub"));
	free(t.d), memset(&t, 0, sizeof t);

	/* a symlink at the final component is replaced, not followed */
	char target[600];
	snprintf(target, sizeof target, "%s/victim", outside);
	put_file(target, "safe", 4, 0644);
	tb_add(&t, "v", '2', NULL, 0, target);
	tb_add(&t, "v", '0', "evil", 4, NULL);
	tb_end(&t);
	char err[512];
	CHECK_INT(extract_mem(t.d, t.n, dst, err, sizeof err), 0);
	size_t n;
	uint8_t *b = read_path(target, &n);
	CHECK(n == 4 && memcmp(b, "safe", 4) == 0);
	sh("rm -rf '%s' '%s'", dst, outside);
	free(t.d), free(b);
}

RD_TEST(hostile_huge_size)
{
	char *dst = tmpdir();
	struct tb t = {0};

	uint8_t *h = tb_add(&t, "huge", '0', NULL, 077777777777ull, NULL);
	(void)h;
	expect_refused(&t, dst, "1 GiB");
	CHECK(!exists(dst, "huge"));
	free(t.d), memset(&t, 0, sizeof t);

	/* GNU base-256 size of 2^40 */
	h = tb_add(&t, "huge256", '0', NULL, 0, NULL);
	memset(h + 124, 0, 12);
	h[124] = 0x80, h[124 + 6] = 1;
	cksum(h);
	expect_refused(&t, dst, "1 GiB");
	free(t.d), memset(&t, 0, sizeof t);

	/* just over the cap */
	tb_add(&t, "big", '0', NULL, (1ull << 30) + 1, NULL);
	expect_refused(&t, dst, "limit");
	free(t.d), memset(&t, 0, sizeof t);

	/* an oversized long-name record */
	tb_add(&t, "././@LongLink", 'L', NULL, 1ull << 30, NULL);
	expect_refused(&t, dst, "too large");
	sh("rm -rf '%s'", dst);
	free(t.d);
}

RD_TEST(hostile_bad_headers)
{
	char *dst = tmpdir();
	struct tb t = {0};

	uint8_t *h = tb_add(&t, "f", '0', "x", 1, NULL);
	h[0] = 'g'; /* checksum no longer matches */
	expect_refused(&t, dst, "checksum");
	free(t.d), memset(&t, 0, sizeof t);

	h = tb_add(&t, "f", '0', "x", 1, NULL);
	memcpy(h + 124, "00000000x01", 11), cksum(h);
	expect_refused(&t, dst, "numeric");
	free(t.d), memset(&t, 0, sizeof t);

	tb_add(&t, "PaxHeaders/x", 'x', "99 path=x\n", 10, NULL);
	tb_add(&t, "f", '0', "x", 1, NULL);
	expect_refused(&t, dst, "pax");
	free(t.d), memset(&t, 0, sizeof t);

	tb_add(&t, "", '0', "x", 1, NULL);
	expect_refused(&t, dst, "empty");
	sh("rm -rf '%s'", dst);
	free(t.d);
}

/* Writes 1,000,001 skipped (hard link) headers through a pipe. */
RD_TEST(hostile_too_many_entries)
{
	char *dst = tmpdir(), err[512];
	int pfd[2];
	struct tb t = {0};

	tb_add(&t, "h", '1', NULL, 0, "target");
	CHECK(pipe(pfd) == 0);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		uint8_t block[512 * 64];
		close(pfd[0]);
		for (int i = 0; i < 64; i++)
			memcpy(block + 512 * i, t.d, 512);
		for (int i = 0; i < 1000001 / 64 + 1; i++)
			if (write(pfd[1], block, sizeof block) != (ssize_t)sizeof block)
				_exit(0);
		_exit(0);
	}
	close(pfd[1]);
	int dfd = open(dst, O_RDONLY | O_DIRECTORY);
	int rc = rd_archive_extract(pfd[0], dfd, err, sizeof err);
	close(pfd[0]), close(dfd);
	waitpid(pid, NULL, 0);
	CHECK_INT(rc, -EFBIG);
	CHECK(strstr(err, "entries") != NULL);
	sh("rm -rf '%s'", dst);
	free(t.d);
}

/* Hand-made DEFLATE streams: invalid constructs must be rejected cleanly. */
static int inflate_raw(const uint8_t *deflate, size_t n, char *err, size_t errlen)
{
	uint8_t *x = malloc(n + 18);
	static const uint8_t hdr[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
	char *dst = tmpdir();
	memcpy(x, hdr, 10), memcpy(x + 10, deflate, n), memset(x + 10 + n, 0, 8);
	int rc = extract_mem(x, n + 18, dst, err, errlen);
	sh("rm -rf '%s'", dst);
	free(x);
	return rc;
}

RD_TEST(hostile_deflate_streams)
{
	char err[512];
	/* block type 3 */
	CHECK(inflate_raw((const uint8_t *)"\x07\x00", 2, err, sizeof err) < 0);
	CHECK(strstr(err, "block type") != NULL);
	/* stored block with a bad NLEN */
	CHECK(inflate_raw((const uint8_t *)"\x01\x05\x00\x00\x00", 5, err, sizeof err) < 0);
	CHECK(strstr(err, "stored") != NULL);
	/* fixed block: distance 1 before any output (code 257 = 0000001, dist code 0 = 00000) */
	CHECK(inflate_raw((const uint8_t *)"\x03\x02\x00\x00", 4, err, sizeof err) < 0);
	CHECK(strstr(err, "too far") != NULL);
	/* dynamic block whose code-length code is incomplete (all 19 lengths = 7) */
	CHECK(inflate_raw((const uint8_t *)"\x05\xe0\xff\xff\xff\xff\xff\xff\xff\x03", 10, err, sizeof err) < 0);
	CHECK(strstr(err, "code-length") != NULL);
	/* dynamic block with HLIT = 287 */
	CHECK(inflate_raw((const uint8_t *)"\xf5\x03\x00\x00", 4, err, sizeof err) < 0);
	CHECK(strstr(err, "too many") != NULL);
}

RD_TEST(create_write_error_names_problem)
{
	char *src = tmpdir(), err[512], p[512];
	snprintf(p, sizeof p, "%s/f", src), put_file(p, "data", 4, 0644);
	int dfd = open(src, O_RDONLY | O_DIRECTORY), fd = open("/dev/null", O_RDONLY);
	CHECK(rd_archive_create(dfd, fd, err, sizeof err) < 0);
	CHECK(strstr(err, "write error") != NULL);
	close(fd);
	if (geteuid() != 0) { /* root can read anything */
		CHECK(chmod(p, 0) == 0);
		fd = open("/dev/null", O_WRONLY);
		CHECK(rd_archive_create(dfd, fd, err, sizeof err) < 0);
		CHECK(strstr(err, "f: cannot open") != NULL);
		close(fd);
	}
	close(dfd);
	sh("rm -rf '%s'", src);
}
