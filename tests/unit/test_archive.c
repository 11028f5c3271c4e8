/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Unit tests for src/source/memtree.c: snapshot archives (tar.gz and plain tar, made here with GNU
 * tar or with libarchive's writer through the loader) read into memory, never onto disk; links
 * resolved inside the tree; every limit, the deadline and each kind of hostile entry refused with
 * a one-line reason naming the entry. */
#include "harness.h"
#include "source/larchive.h"
#include "source/memtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------ helpers */

static char dir[192]; /* this test's scratch directory (each test is its own process) */

static void cleanup(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "    cannot remove %s\n", dir);
}

__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	if (!dir[0]) {
		const char *t = getenv("TMPDIR");
		/* TMPDIR may be deep (a runner's scratch below run-all's): a cut template is no template */
		int n = snprintf(dir, sizeof dir, "%s/rd_memtree_test.XXXXXX", t && *t ? t : "/tmp");
		CHECK(n > 0 && (size_t)n < sizeof dir);
		CHECK(mkdtemp(dir) != NULL);
		atexit(cleanup);
	}
	CHECK(setenv("D", dir, 1) == 0);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	struct stat st;
	CHECK(fstat(fd, &st) == 0);
	char *b = malloc((size_t)st.st_size + 1);
	CHECK(b);
	CHECK(read(fd, b, (size_t)st.st_size) == st.st_size);
	close(fd);
	*n = (size_t)st.st_size;
	return b;
}

/* Reads the archive at $D/name; checks the one-line error contract both ways. */
static int read_file_as(const char *name, const struct rd_memtree_limits *lim, struct rd_memtree **t, char *err,
			size_t errlen)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	size_t n;
	char *b = slurp(path, &n);
	int rc = rd_memtree_read_mem(b, n, lim, t, err, errlen);
	free(b);
	CHECK(rc <= 0);
	CHECK(rc == 0 ? *t != NULL && err[0] == 0 : *t == NULL && err[0] != 0 && !strchr(err, '\n'));
	if (rc < 0)
		fprintf(stderr, "    (%s: %s)\n", name, err);
	return rc;
}

/* A file's contents through the tree, NUL-terminated copy (NULL when the lookup fails). */
static char *cat(const struct rd_memtree *t, const char *path)
{
	const struct rd_memnode *n;
	if (rd_memtree_lookup(t, path, true, &n, NULL) != 0)
		return NULL;
	const char *d;
	size_t len;
	if (rd_memnode_data(n, &d, &len) != 0)
		return NULL;
	char *s = malloc(len + 1);
	CHECK(s);
	memcpy(s, d, len);
	s[len] = 0;
	return s;
}

static void check_cat(const struct rd_memtree *t, const char *path, const char *want)
{
	char *s = cat(t, path);
	CHECK_STR(s, want);
	free(s);
}

static void check_canonical(const struct rd_memtree *t, const char *path, int want_rc, const char *want)
{
	char *c = NULL;
	CHECK_INT(rd_memtree_lookup(t, path, true, NULL, &c), want_rc);
	if (want)
		CHECK_STR(c, want);
	else
		CHECK(c == NULL);
	free(c);
}

/* An archive written with libarchive's writer through the loader, for entries GNU tar will not make. */
struct writer {
	const struct rd_larchive *la;
	struct archive *a;
	int fd;
};

static void w_open(struct writer *w, bool gzip)
{
	char err[256];
	w->la = rd_larchive(err, sizeof err);
	CHECK(w->la);
	w->fd = memfd_create("archive", 0);
	CHECK(w->fd >= 0);
	w->a = w->la->write_new();
	CHECK(w->a);
	CHECK_INT(gzip ? w->la->write_add_filter_gzip(w->a) : w->la->write_add_filter_none(w->a), ARCHIVE_OK);
	CHECK_INT(w->la->write_set_format_pax_restricted(w->a), ARCHIVE_OK);
	CHECK_INT(w->la->write_open_fd(w->a, w->fd), ARCHIVE_OK);
}

static void w_add(struct writer *w, const char *path, unsigned type, const void *data, size_t len, const char *link)
{
	struct archive_entry *e = w->la->entry_new();
	w->la->entry_set_pathname(e, path);
	w->la->entry_set_filetype(e, type);
	w->la->entry_set_perm(e, type == AE_IFDIR ? 0755 : 0644);
	w->la->entry_set_size(e, (la_int64_t)len);
	if (link)
		w->la->entry_set_symlink(e, link);
	CHECK_INT(w->la->write_header(w->a, e), ARCHIVE_OK);
	for (size_t at = 0; at < len;) {
		la_ssize_t n = w->la->write_data(w->a, (const char *)data + at, len - at);
		CHECK(n > 0);
		at += (size_t)n;
	}
	w->la->entry_free(e);
}

static void w_file(struct writer *w, const char *path, const char *data)
{
	w_add(w, path, AE_IFREG, data, strlen(data), NULL);
}

/* Closes the archive and returns its bytes (malloc'd). */
static char *w_close(struct writer *w, size_t *n)
{
	CHECK_INT(w->la->write_close(w->a), ARCHIVE_OK);
	CHECK_INT(w->la->write_free(w->a), ARCHIVE_OK);
	struct stat st;
	CHECK(fstat(w->fd, &st) == 0);
	char *b = malloc((size_t)st.st_size + 1);
	CHECK(b);
	CHECK(pread(w->fd, b, (size_t)st.st_size, 0) == st.st_size);
	close(w->fd);
	*n = (size_t)st.st_size;
	return b;
}

/* rd_memtree_read_mem of what w wrote: returns rc, the tree in *t, the reason in err. */
static int w_read(struct writer *w, const struct rd_memtree_limits *lim, struct rd_memtree **t, char *err,
		  size_t errlen)
{
	size_t n;
	char *b = w_close(w, &n);
	int rc = rd_memtree_read_mem(b, n, lim, t, err, errlen);
	free(b);
	CHECK(rc <= 0);
	CHECK(rc == 0 ? *t != NULL && err[0] == 0 : *t == NULL && err[0] != 0 && !strchr(err, '\n'));
	if (rc < 0)
		fprintf(stderr, "    (%s)\n", err);
	return rc;
}

/* A host-like tree in $D/root, as a snapshot has it. */
static void make_root(void)
{
	CHECK_INT(sh("set -e; r=$D/root; mkdir -p $r/sys/devices/pci0000:00/0000:17:00.0/infiniband/mlx5_0/ports/1"
		     " $r/sys/class/infiniband $r/proc $r/etc/modprobe.d $r/rdma-doctor/empty-dir;"
		     " printf 'ACTIVE\\n' > $r/sys/devices/pci0000:00/0000:17:00.0/infiniband/mlx5_0/ports/1/state;"
		     " ln -s ../../devices/pci0000:00/0000:17:00.0/infiniband/mlx5_0 $r/sys/class/infiniband/mlx5_0;"
		     " printf 'mlx5_core 1 0 - Live 0x0\\n' > $r/proc/modules; : > $r/etc/empty;"
		     " printf 'secret' > $r/etc/private; chmod 600 $r/etc/private;"
		     " ln -s /sys/class/infiniband $r/etc/abs-link; ln -s ../../../../../../etc/private $r/etc/climb"),
		  0);
}

/* ------------------------------------------------------------------------------ reading */

static void check_root_tree(const struct rd_memtree *t)
{
	check_cat(t, "sys/class/infiniband/mlx5_0/ports/1/state", "ACTIVE\n");
	check_cat(t, "/proc/modules", "mlx5_core 1 0 - Live 0x0\n");
	check_cat(t, "etc/empty", "");
	check_cat(t, "etc/private", "secret");
	check_canonical(t, "sys/class/infiniband/mlx5_0/ports/1/state", 0,
			"sys/devices/pci0000:00/0000:17:00.0/infiniband/mlx5_0/ports/1/state");
	check_canonical(t, "", 0, "");
	check_canonical(t, "sys/class/../class/./infiniband//", 0, "sys/class/infiniband");

	const struct rd_memnode *n;
	struct stat st;
	CHECK_INT(rd_memtree_lookup(t, "sys/class/infiniband/mlx5_0", false, &n, NULL), 0);
	rd_memnode_stat(n, &st);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_INT(st.st_size, strlen("../../devices/pci0000:00/0000:17:00.0/infiniband/mlx5_0"));
	const char *target;
	CHECK_INT(rd_memnode_link(n, &target), 0);
	CHECK_STR(target, "../../devices/pci0000:00/0000:17:00.0/infiniband/mlx5_0");
	CHECK_INT(rd_memtree_lookup(t, "sys/class/infiniband/mlx5_0", true, &n, NULL), 0);
	rd_memnode_stat(n, &st);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_INT(rd_memtree_lookup(t, "etc/private", true, &n, NULL), 0);
	rd_memnode_stat(n, &st);
	CHECK(S_ISREG(st.st_mode));
	CHECK_INT(st.st_mode & 07777, 0600);
	CHECK_INT(st.st_size, 6);

	struct rd_strv names = {0};
	CHECK_INT(rd_memtree_lookup(t, "", true, &n, NULL), 0);
	CHECK_INT(rd_memnode_list(n, &names), 0);
	CHECK_INT(names.n, 4);
	CHECK_STR(names.v[0], "etc");
	CHECK_STR(names.v[1], "proc");
	CHECK_STR(names.v[2], "rdma-doctor");
	CHECK_STR(names.v[3], "sys");
	rd_strv_free(&names);
	CHECK_INT(rd_memtree_lookup(t, "rdma-doctor/empty-dir", true, &n, NULL), 0);
	CHECK_INT(rd_memnode_list(n, &names), 0);
	CHECK_INT(names.n, 0);
}

RD_TEST(gnu_tar_gz_read_into_memory)
{
	make_root();
	CHECK_INT(sh("tar -czf $D/r.tar.gz -C $D/root ."), 0);
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(read_file_as("r.tar.gz", NULL, &t, err, sizeof err), 0);
	check_root_tree(t);
	rd_memtree_free(t);
}

RD_TEST(gnu_plain_tar_read_from_fd_and_one_top_directory_is_the_root)
{
	make_root();
	CHECK_INT(sh("mv $D/root $D/node17 && tar -cf $D/r.tar -C $D node17"), 0);
	char path[256], err[256] = "x";
	snprintf(path, sizeof path, "%s/r.tar", dir);
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	struct rd_memtree *t = NULL;
	CHECK_INT(rd_memtree_read_fd(fd, NULL, &t, err, sizeof err), 0);
	close(fd);
	CHECK_STR(err, "");
	check_root_tree(t);
	/* ".." never climbs above the chosen root, to the archive's top */
	check_canonical(t, "../../node17", 0 - ENOENT, "node17");
	check_canonical(t, "..", 0, "");
	rd_memtree_free(t);
}

RD_TEST(gnu_tar_formats_and_long_names_read)
{
	/* a 118-byte path (ustar splits it into prefix and name; gnu uses ././@LongLink, posix pax)
	 * and, except for ustar, a 129-byte link target */
	CHECK_INT(sh("set -e; l=$D/t/sys/devices/pci0000:00/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0/"
		     "infiniband/mlx5_0/ports/1/gid_attrs/ndevs; mkdir -p $l; printf 'ens1f0np0' > $l/0; mkdir -p $D/t/etc;"
		     " tar --format=ustar -cf $D/ustar.tar -C $D/t sys;"
		     " ln -s ../sys/devices/pci0000:00/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0/"
		     "./././././././././././././././././infiniband/mlx5_0"
		     " $D/t/etc/hca; tar --format=gnu -czf $D/gnu.tar.gz -C $D/t sys etc;"
		     " tar --format=posix -czf $D/posix.tar.gz -C $D/t sys etc"),
		  0);
	static const char *const names[] = {"ustar.tar", "gnu.tar.gz", "posix.tar.gz"};
	for (size_t i = 0; i < 3; i++) {
		struct rd_memtree *t = NULL;
		char err[256] = "x";
		CHECK_INT(read_file_as(names[i], NULL, &t, err, sizeof err), 0);
		check_cat(t, "sys/devices/pci0000:00/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0/"
			     "infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "ens1f0np0");
		if (i > 0)
			check_cat(t, "etc/hca/ports/1/gid_attrs/ndevs/0", "ens1f0np0");
		rd_memtree_free(t);
	}
}

RD_TEST(links_resolve_inside_the_tree)
{
	make_root();
	CHECK_INT(sh("tar -czf $D/r.tar.gz -C $D/root ."), 0);
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(read_file_as("r.tar.gz", NULL, &t, err, sizeof err), 0);
	/* an absolute target starts again at the tree's root */
	check_canonical(t, "etc/abs-link/mlx5_0/ports/1/state", 0,
			"sys/devices/pci0000:00/0000:17:00.0/infiniband/mlx5_0/ports/1/state");
	/* ".." in a target stops at the root */
	check_cat(t, "etc/climb", "secret");
	check_canonical(t, "etc/climb", 0, "etc/private");
	/* a missing last component still has a canonical path; a missing middle one has none */
	check_canonical(t, "etc/abs-link/mlx5_9", -ENOENT, "sys/class/infiniband/mlx5_9");
	check_canonical(t, "etc/nothing/x", -ENOENT, NULL);
	check_canonical(t, "etc/private/x", -ENOTDIR, NULL);
	const struct rd_memnode *n;
	const char *d;
	size_t len;
	CHECK_INT(rd_memtree_lookup(t, "sys", true, &n, NULL), 0);
	CHECK_INT(rd_memnode_data(n, &d, &len), -EISDIR);
	CHECK_INT(rd_memnode_link(n, &d), -EINVAL);
	CHECK_INT(rd_memtree_lookup(t, "etc/abs-link", false, &n, NULL), 0);
	CHECK_INT(rd_memnode_data(n, &d, &len), -EINVAL);
	CHECK_INT(rd_memtree_lookup(t, "etc/private", false, &n, NULL), 0);
	struct rd_strv names = {0};
	CHECK_INT(rd_memnode_list(n, &names), -ENOTDIR);
	rd_memtree_free(t);
}

RD_TEST(link_loops_end_with_eloop)
{
	struct writer w;
	w_open(&w, true);
	w_add(&w, "sys/a", AE_IFLNK, NULL, 0, "b");
	w_add(&w, "sys/b", AE_IFLNK, NULL, 0, "/sys/a");
	w_add(&w, "sys/self", AE_IFLNK, NULL, 0, "self/x");
	w_file(&w, "sys/l0", "end");
	for (int i = 1; i <= 41; i++) { /* l<i> -> l<i-1>: 40 links resolve, 41 do not */
		char name[32], target[32];
		snprintf(name, sizeof name, "sys/l%d", i);
		snprintf(target, sizeof target, "l%d", i - 1);
		w_add(&w, name, AE_IFLNK, NULL, 0, target);
	}
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(w_read(&w, NULL, &t, err, sizeof err), 0);
	const struct rd_memnode *n;
	CHECK_INT(rd_memtree_lookup(t, "sys/a", true, &n, NULL), -ELOOP);
	CHECK_INT(rd_memtree_lookup(t, "sys/a/x", false, &n, NULL), -ELOOP);
	CHECK_INT(rd_memtree_lookup(t, "sys/self", true, &n, NULL), -ELOOP);
	CHECK_INT(rd_memtree_lookup(t, "sys/a", false, &n, NULL), 0); /* the link itself */
	check_cat(t, "sys/l40", "end");
	CHECK_INT(rd_memtree_lookup(t, "sys/l41", true, &n, NULL), -ELOOP);
	rd_memtree_free(t);
}

RD_TEST(later_entries_replace_earlier_ones_and_kinds_cannot_change)
{
	struct writer w;
	w_open(&w, false);
	w_file(&w, "proc/modules", "old");
	w_file(&w, "proc/modules", "new");
	w_add(&w, "proc", AE_IFDIR, NULL, 0, NULL);
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(w_read(&w, NULL, &t, err, sizeof err), 0);
	check_cat(t, "proc/modules", "new");
	rd_memtree_free(t);

	w_open(&w, false);
	w_add(&w, "sys/x", AE_IFDIR, NULL, 0, NULL);
	w_file(&w, "sys/x", "file now");
	CHECK_INT(w_read(&w, NULL, &t, err, sizeof err), -EEXIST);
	CHECK_STR(err, "entry sys/x: appears again as a non-directory, earlier as a directory");
}

RD_TEST(two_thousand_devices_list_sorted_and_found)
{
	struct writer w;
	w_open(&w, true);
	for (int i = 1999; i >= 0; i--) {
		char p[64];
		snprintf(p, sizeof p, "sys/class/infiniband/mlx5_%d/node_guid", i);
		w_file(&w, p, p);
	}
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(w_read(&w, NULL, &t, err, sizeof err), 0);
	const struct rd_memnode *n;
	CHECK_INT(rd_memtree_lookup(t, "sys/class/infiniband", true, &n, NULL), 0);
	struct rd_strv names = {0};
	CHECK_INT(rd_memnode_list(n, &names), 0);
	CHECK_INT(names.n, 2000);
	for (size_t i = 1; i < names.n; i++)
		CHECK(strcmp(names.v[i - 1], names.v[i]) < 0);
	for (size_t i = 0; i < names.n; i++) {
		char p[64];
		snprintf(p, sizeof p, "sys/class/infiniband/%s/node_guid", names.v[i]);
		check_cat(t, p, p);
	}
	rd_strv_free(&names);
	rd_memtree_free(t);
}

/* ------------------------------------------------------------------------------ hostile entries */

static void refused(const char *path, unsigned type, const char *link, int want_rc, const char *want_err)
{
	struct writer w;
	w_open(&w, true);
	w_file(&w, "sys/ok", "fine");
	w_add(&w, path, type, type == AE_IFREG ? "payload" : NULL, type == AE_IFREG ? 7 : 0, link);
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(w_read(&w, NULL, &t, err, sizeof err), want_rc);
	CHECK_STR(err, want_err);
}

RD_TEST(dotdot_and_absolute_entries_refused)
{
	refused("sys/../../etc/cron.d/x", AE_IFREG, NULL, -EPERM,
		"entry sys/../../etc/cron.d/x: \"..\" in the path refused");
	refused("..", AE_IFDIR, NULL, -EPERM, "entry ../: \"..\" in the path refused"); /* the writer adds '/' */
	refused("/etc/cron.d/x", AE_IFREG, NULL, -EPERM, "entry /etc/cron.d/x: absolute path refused");
	refused("sys/.", AE_IFREG, NULL, -EINVAL, "entry sys/.: ends in \".\" (a directory) but is not one");
}

RD_TEST(errors_stay_on_one_line_whatever_the_name)
{
	refused("sys/a\nFAIL: forged line/../x", AE_IFREG, NULL, -EPERM,
		"entry sys/a?FAIL: forged line/../x: \"..\" in the path refused");
}

RD_TEST(entries_are_never_written_through_a_link)
{
	struct writer w;
	w_open(&w, true);
	w_add(&w, "etc/modprobe.d", AE_IFLNK, NULL, 0, "/rdma-doctor");
	w_file(&w, "etc/modprobe.d/evil.conf", "install mlx5_core /bin/sh -c 'id > /tmp/pwned'");
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(w_read(&w, NULL, &t, err, sizeof err), -ENOTDIR);
	CHECK_STR(err, "entry etc/modprobe.d/evil.conf: etc/modprobe.d is a symbolic link in the archive, not a directory");
	w_open(&w, true);
	w_file(&w, "proc/modules", "x");
	w_file(&w, "proc/modules/inner", "y");
	CHECK_INT(w_read(&w, NULL, &t, err, sizeof err), -ENOTDIR);
	CHECK_STR(err, "entry proc/modules/inner: proc/modules is a file in the archive, not a directory");
}

RD_TEST(hard_links_and_fifos_refused)
{
	CHECK_INT(sh("set -e; mkdir -p $D/h/sys $D/f/sys; echo x > $D/h/sys/a; ln $D/h/sys/a $D/h/sys/b;"
		     " tar -czf $D/h.tar.gz -C $D/h sys; mkfifo $D/f/sys/fifo; tar -cf $D/f.tar -C $D/f sys"),
		  0);
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(read_file_as("h.tar.gz", NULL, &t, err, sizeof err), -EPERM);
	/* whichever of the two names GNU tar met second is the link */
	CHECK(strcmp(err, "entry sys/b: hard link not supported") == 0 ||
	      strcmp(err, "entry sys/a: hard link not supported") == 0);
	CHECK_INT(read_file_as("f.tar", NULL, &t, err, sizeof err), -EPERM);
	CHECK_STR(err, "entry sys/fifo: FIFO not supported");
	refused("dev/watchdog", AE_IFCHR, NULL, -EPERM, "entry dev/watchdog: character device not supported");
	refused("dev/sda", AE_IFBLK, NULL, -EPERM, "entry dev/sda: block device not supported");
}

static size_t files_in(const char *d)
{
	DIR *dd = opendir(d);
	size_t n = 0;
	CHECK(dd);
	while (readdir(dd))
		n++;
	closedir(dd);
	return n;
}

RD_TEST(three_hundred_thousand_deep_path_refused_in_memory)
{
	/* 300,000 components in one pax path: about 10 KB compressed */
	size_t depth = 300000;
	char *p = malloc(depth * 2 + 8);
	CHECK(p);
	for (size_t i = 0; i < depth; i++)
		memcpy(p + 2 * i, "a/", 2);
	strcpy(p + 2 * depth, "f");
	struct writer w;
	w_open(&w, true);
	w_file(&w, p, "deep");
	size_t n;
	char *b = w_close(&w, &n);
	CHECK(n < 16 * 1024);
	const char *tmp = getenv("TMPDIR");
	tmp = tmp && *tmp ? tmp : "/tmp";
	size_t before = files_in(tmp);
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(rd_memtree_read_mem(b, n, NULL, &t, err, sizeof err), -ENAMETOOLONG);
	char want[256];
	snprintf(want, sizeof want, "entry %.120s...: path of %zu bytes (at most 4096)", p, depth * 2 + 1);
	CHECK_STR(err, want);
	CHECK_INT(files_in(tmp), before); /* nothing on disk */
	free(b);

	/* a short path that is too deep for the depth limit */
	w_open(&w, false);
	w_file(&w, "a/a/a/a/a/a/a/a/a/f", "x");
	struct rd_memtree_limits lim = rd_memtree_default_limits;
	lim.max_depth = 9;
	CHECK_INT(w_read(&w, &lim, &t, err, sizeof err), -ELOOP);
	CHECK_STR(err, "entry a/a/a/a/a/a/a/a/a/f: more than 9 components deep");
	free(p);
}

RD_TEST(entry_limit_counts_implied_directories)
{
	struct rd_memtree_limits lim = rd_memtree_default_limits;
	lim.max_entries = 3;
	struct writer w;
	w_open(&w, true);
	w_file(&w, "sys/a/b/c", "x"); /* sys, a, b implied: 4 entries */
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(w_read(&w, &lim, &t, err, sizeof err), -EFBIG);
	CHECK_STR(err, "entry sys/a/b/c: more than 3 entries (directories included)");
	lim.max_entries = 4;
	w_open(&w, true);
	w_file(&w, "sys/a/b/c", "x");
	CHECK_INT(w_read(&w, &lim, &t, err, sizeof err), 0);
	rd_memtree_free(t);

	lim.max_entries = 100;
	w_open(&w, false);
	for (int i = 0; i < 101; i++) {
		char p[32];
		snprintf(p, sizeof p, "f%d", i);
		w_file(&w, p, "");
	}
	CHECK_INT(w_read(&w, &lim, &t, err, sizeof err), -EFBIG);
	CHECK_STR(err, "entry f100: more than 100 entries (directories included)");
}

RD_TEST(byte_limits_count_entries_and_files)
{
	struct rd_memtree_limits lim = rd_memtree_default_limits;
	lim.max_file = 10;
	struct writer w;
	w_open(&w, true);
	w_file(&w, "sys/ten", "0123456789");
	w_file(&w, "sys/eleven", "0123456789A");
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(w_read(&w, &lim, &t, err, sizeof err), -EFBIG);
	CHECK_STR(err, "entry sys/eleven: file larger than 10 bytes");

	/* empty directories alone exhaust max_bytes: each costs its overhead */
	lim = rd_memtree_default_limits;
	lim.max_bytes = 4096;
	w_open(&w, false);
	for (int i = 0; i < 100; i++) {
		char p[32];
		snprintf(p, sizeof p, "d%d", i);
		w_add(&w, p, AE_IFDIR, NULL, 0, NULL);
	}
	CHECK(w_read(&w, &lim, &t, err, sizeof err) == -EFBIG);
	CHECK(strstr(err, "the archive holds more than 4 KiB (contents plus 128 bytes per entry)") != NULL);
}

/* ------------------------------------------------------------------------------ not tar, broken */

static void not_tar(const void *data, size_t len, const char *want)
{
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(rd_memtree_read_mem(data, len, NULL, &t, err, sizeof err), -EINVAL);
	CHECK(t == NULL);
	CHECK_STR(err, want);
}

RD_TEST(what_is_not_a_tar_archive_is_named)
{
	not_tar("hello, world\n", 13, "not a tar archive: ASCII text");
	not_tar("", 0, "not a tar archive: empty");
	static const char zip[] = "PK\x03\x04\x14\x00\x00\x00\x08\x00 this is not really deflate data at all....";
	not_tar(zip, sizeof zip - 1, "not a tar archive: Zip archive data");
	static const char bin[] = "\x01\x02\x03\x00\xff\xfe binary junk";
	not_tar(bin, sizeof bin - 1, "not a tar archive: data");
	static const char zeros[10240];
	not_tar(zeros, sizeof zeros, "empty archive (no entries)");
	CHECK_INT(sh("printf 'just some text in a gzip\\n' | gzip > $D/t.gz; printf 'xz' | xz > $D/t.xz"), 0);
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(read_file_as("t.gz", NULL, &t, err, sizeof err), -EINVAL);
	CHECK_STR(err, "not a tar archive: gzip compressed data, but not a tar archive inside");
	CHECK_INT(read_file_as("t.xz", NULL, &t, err, sizeof err), -EINVAL);
	CHECK_STR(err, "not a tar archive: XZ compressed data (only gzip-compressed or plain tar is read)");
}

RD_TEST(a_pipe_is_read_too)
{
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], "not tar\n", 8) == 8);
	close(p[1]);
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(rd_memtree_read_fd(p[0], NULL, &t, err, sizeof err), -EINVAL);
	CHECK_STR(err, "not a tar archive: data of an unknown kind");
	close(p[0]);
	make_root();
	CHECK_INT(sh("tar -czf $D/r.tar.gz -C $D/root ."), 0);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "cat '%s/r.tar.gz'", dir);
	FILE *f = popen(cmd, "r");
	CHECK(f);
	err[0] = 'x';
	CHECK_INT(rd_memtree_read_fd(fileno(f), NULL, &t, err, sizeof err), 0);
	pclose(f);
	check_root_tree(t);
	rd_memtree_free(t);
}

RD_TEST(truncated_gzip_refused)
{
	make_root();
	CHECK_INT(sh("set -e; head -c 300000 /dev/urandom > $D/root/proc/big; tar -czf $D/r.tar.gz -C $D/root .;"
		     " s=$(stat -c %%s $D/r.tar.gz); head -c $((s - 9)) $D/r.tar.gz > $D/cut-end.tar.gz;"
		     " head -c $((s / 2)) $D/r.tar.gz > $D/cut-half.tar.gz"),
		  0);
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(read_file_as("r.tar.gz", NULL, &t, err, sizeof err), 0);
	rd_memtree_free(t);
	t = NULL;
	CHECK(read_file_as("cut-half.tar.gz", NULL, &t, err, sizeof err) < 0);
	CHECK(strstr(err, "truncated") || strstr(err, "Truncated"));
	CHECK(read_file_as("cut-end.tar.gz", NULL, &t, err, sizeof err) < 0);
	CHECK(strstr(err, ": truncated or corrupt data: truncated gzip input") != NULL);
	/* (libarchive 3.6 does not check the gzip trailer's CRC and length: a damaged trailer alone passes) */
}

/* ------------------------------------------------------------------------------ deadline */

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

RD_TEST(deadline_stops_many_entries)
{
	struct writer w;
	w_open(&w, false);
	for (int i = 0; i < 150000; i++) {
		char p[32];
		snprintf(p, sizeof p, "proc/%d", i);
		w_add(&w, p, AE_IFDIR, NULL, 0, NULL);
	}
	size_t n;
	char *b = w_close(&w, &n);
	struct rd_memtree_limits lim = rd_memtree_default_limits;
	lim.deadline_ms = now_ms() + 20;
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(rd_memtree_read_mem(b, n, &lim, &t, err, sizeof err), -ETIMEDOUT);
	size_t got = 0;
	CHECK(sscanf(err, "deadline passed after %zu entries", &got) == 1);
	CHECK(got > 0 && got < 150000);
	/* without one, the same archive reads whole */
	lim.deadline_ms = 0;
	CHECK_INT(rd_memtree_read_mem(b, n, &lim, &t, err, sizeof err), 0);
	rd_memtree_free(t);
	free(b);
}

RD_TEST(deadline_stops_a_big_data_read)
{
	size_t len = 64u << 20;
	char *zeros = calloc(1, len);
	CHECK(zeros);
	struct writer w;
	w_open(&w, true);
	w_add(&w, "proc/kcore", AE_IFREG, zeros, len, NULL);
	free(zeros);
	size_t n;
	char *b = w_close(&w, &n);
	struct rd_memtree_limits lim = rd_memtree_default_limits;
	lim.deadline_ms = now_ms() + 5;
	struct rd_memtree *t = NULL;
	char err[256] = "x";
	CHECK_INT(rd_memtree_read_mem(b, n, &lim, &t, err, sizeof err), -ETIMEDOUT);
	CHECK_STR(err, "entry proc/kcore: deadline passed while reading its data (0 entries read)");
	free(b);
}
