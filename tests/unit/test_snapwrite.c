/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Unit tests for src/source/snapwrite.c, from a hand-filled recording: the archive holds each
 * entry once, parents first, links as link entries; nothing is written below a link or under the
 * snapshot's own rdma-doctor/; read errors and commands in the formats source.c replays; a
 * directory output never follows a link; the target is refused or replaced as documented, and a
 * failed or aborted write leaves nothing behind. */
#include "harness.h"
#include "source/larchive.h"
#include "source/snapwrite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------------------- */

static char *tmpdir(void)
{
	static char pool[16][256];
	static int used;
	CHECK(used < 16);
	return rd_test_mkdtemp(pool[used++], sizeof pool[0], "rd_snapwrite_test");
}

static void rm_rf(const char *dir)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	CHECK(d);
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void ent(struct rd_recording *r, const char *path, enum rd_rec_kind kind, const char *data, int err,
		mode_t mode)
{
	r->entries = rd_xrealloc(r->entries, (r->n + 1) * sizeof *r->entries);
	struct rd_rec_entry *e = &r->entries[r->n++];
	memset(e, 0, sizeof *e);
	e->path = rd_xstrdup(path);
	e->kind = kind;
	e->data = data ? rd_xstrdup(data) : NULL;
	e->len = data ? strlen(data) : 0;
	e->err = err;
	e->mode = mode;
}

static void cmd(struct rd_recording *r, const char *name, const char *out, int status, int err)
{
	r->commands = rd_xrealloc(r->commands, (r->ncommands + 1) * sizeof *r->commands);
	struct rd_rec_command *c = &r->commands[r->ncommands++];
	memset(c, 0, sizeof *c);
	c->name = rd_xstrdup(name);
	c->out.data = out ? rd_xstrdup(out) : NULL;
	c->out.len = out ? strlen(out) : 0;
	c->out.status = status;
	c->out.err = err;
}

static void rec_free(struct rd_recording *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->entries[i].path);
		free(r->entries[i].data);
	}
	for (size_t i = 0; i < r->ncommands; i++) {
		free(r->commands[i].name);
		free(r->commands[i].out.data);
	}
	free(r->entries);
	free(r->commands);
}

#define D "sys/devices/pci0000:00/0000:00:01.0/0000:1b:00.0/infiniband/mlx5_0"

/* A host as a recording source would see it, with a hostile root's tricks mixed in. */
static void sample(struct rd_recording *r)
{
	memset(r, 0, sizeof *r);
	ent(r, "sys/class/infiniband", RD_REC_DIR, NULL, 0, S_IFDIR | 0755);
	ent(r, "sys/class/infiniband/mlx5_0", RD_REC_LINK, "../../devices/pci0000:00/0000:00:01.0/0000:1b:00.0/infiniband/mlx5_0", 0, S_IFLNK | 0777);
	ent(r, D "/fw_ver", RD_REC_FILE, "28.41.1000\n", 0, S_IFREG | 0444);
	ent(r, D "/ports/1/gid_attrs/ndevs/0", RD_REC_ERROR, NULL, EINVAL, 0);
	ent(r, D "/ports/1/absent", RD_REC_ERROR, NULL, ENOENT, 0);
	ent(r, D "/ports/1/state", RD_REC_FILE, "4: ACTIVE\n", 0, S_IFREG | 0444);
	ent(r, D "/ports", RD_REC_DIR, NULL, 0, S_IFDIR | 0755);
	ent(r, "dev/infiniband/uverbs0", RD_REC_NODE, NULL, 0, S_IFCHR | 0666);
	ent(r, "dev/infiniband/fifo", RD_REC_ERROR, NULL, RD_ENOTREG, 0);
	ent(r, "dev/infiniband/fifo", RD_REC_NODE, NULL, 0, S_IFIFO | 0600);
	ent(r, "sys/module/mlx5_ib", RD_REC_ERROR, NULL, RD_ENOTREG, 0); /* a directory read as a file */
	ent(r, "sys/module/mlx5_ib/refcnt", RD_REC_FILE, "0\n", 0, S_IFREG | 0444);
	ent(r, "proc/self", RD_REC_LINK, "4242", 0, S_IFLNK | 0777);
	ent(r, "proc/4242/limits", RD_REC_FILE, "Max locked memory 8388608 8388608 bytes\n", 0, S_IFREG | 0444);
	ent(r, "proc/4242/limits", RD_REC_FILE, "a second copy: the first is kept\n", 0, S_IFREG | 0444);
	/* hostile: links aimed at the snapshot's own files and outside, and entries through them */
	ent(r, "etc/modprobe.d", RD_REC_LINK, "/rdma-doctor", 0, S_IFLNK | 0777);
	ent(r, "etc/modprobe.d/evil.conf", RD_REC_FILE, "install mlx5_core /bin/sh\n", 0, S_IFREG | 0644);
	ent(r, "rdma-doctor/commands", RD_REC_LINK, "/etc/cron.d", 0, S_IFLNK | 0777);
	ent(r, "rdma-doctor/read-errors", RD_REC_FILE, "EIO\t/etc/hostname\n", 0, S_IFREG | 0644);
	ent(r, "../escape", RD_REC_FILE, "x", 0, S_IFREG | 0644);
	ent(r, "/absolute", RD_REC_FILE, "x", 0, S_IFREG | 0644);
	ent(r, "a//b", RD_REC_FILE, "x", 0, S_IFREG | 0644);
	ent(r, "a/./b", RD_REC_FILE, "x", 0, S_IFREG | 0644);
	/* '/' sorts first: a/b's subtree is contiguous although "a/b-c" sorts between in strcmp */
	ent(r, "z/b/c", RD_REC_FILE, "1", 0, S_IFREG | 0644);
	ent(r, "z/b-c", RD_REC_FILE, "2", 0, S_IFREG | 0644);
	ent(r, "z/b/d", RD_REC_FILE, "3", 0, S_IFREG | 0644);
	cmd(r, "ofed_info-s", "MLNX_OFED_LINUX-24.10-1.1.4.0:\n", 0, 0);
	cmd(r, "systemctl-is-active-openibd", "inactive\n", 3, 0);
	cmd(r, "dkms-status", NULL, -1, ENOENT);
	cmd(r, "dmesg", NULL, -1, RD_ENOTCAPTURED);
	cmd(r, "../../etc/passwd", "x", 0, 0);
}

/* Reads an archive back: "TYPE PATH[ -> TARGET]" per entry, in order, and the contents of one. */
static char *listing(const char *file, const char *want, char **want_data)
{
	char err[256];
	const struct rd_larchive *la = rd_larchive(err, sizeof err);
	CHECK(la);
	struct archive *a = la->read_new();
	CHECK(a);
	la->read_support_filter_all(a);
	la->read_support_format_all(a);
	int fd = open(file, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_INT(la->read_open_fd(a, fd, 10240), ARCHIVE_OK);
	struct rd_buf b = {0};
	struct archive_entry *e;
	while (la->read_next_header(a, &e) == ARCHIVE_OK) {
		unsigned t = la->entry_filetype(e);
		const char *path = la->entry_pathname(e);
		rd_buf_printf(&b, "%c %s", t == AE_IFDIR ? 'd' : t == AE_IFLNK ? 'l' : t == AE_IFREG ? 'f' : '?', path);
		if (t == AE_IFLNK)
			rd_buf_printf(&b, " -> %s", la->entry_symlink(e));
		rd_buf_putc(&b, '\n');
		if (want && strcmp(path, want) == 0) {
			struct rd_buf d = {0};
			char chunk[4096];
			la_ssize_t n;
			while ((n = la->read_data(a, chunk, sizeof chunk)) > 0)
				rd_buf_add(&d, chunk, (size_t)n);
			*want_data = rd_buf_steal(&d);
		}
	}
	la->read_free(a);
	close(fd);
	return rd_buf_steal(&b);
}

static void write_plan(const char *path, enum rd_snap_format fmt, struct rd_snap_plan *p, bool force)
{
	char err[512] = "";
	struct rd_snap_out *o;
	int r = rd_snap_out_open(path, fmt, force, &o, err, sizeof err);
	if (r < 0)
		rd_test_fail(__FILE__, __LINE__, "open %s: %s", path, err);
	if (rd_snap_out_write(o, p, 1764460800, err, sizeof err) < 0)
		rd_test_fail(__FILE__, __LINE__, "write %s: %s", path, err);
	if (rd_snap_out_commit(o, err, sizeof err) < 0)
		rd_test_fail(__FILE__, __LINE__, "commit %s: %s", path, err);
}

/* ---- tests --------------------------------------------------------------------------------- */

RD_TEST(snapwrite_format_of_names)
{
	CHECK_INT(rd_snap_format_of("x.tar.gz"), RD_SNAP_TGZ);
	CHECK_INT(rd_snap_format_of("x.tgz"), RD_SNAP_TGZ);
	CHECK_INT(rd_snap_format_of("x.tar"), RD_SNAP_TAR);
	CHECK_INT(rd_snap_format_of("out/node17"), RD_SNAP_DIR);
	CHECK_INT(rd_snap_format_of("x.tar.xz"), -1);
	CHECK_INT(rd_snap_format_of("x.zip"), -1);
}

RD_TEST(snapwrite_plan_keeps_what_was_read_and_nothing_through_links)
{
	struct rd_recording r;
	sample(&r);
	struct rd_snap_plan *p = rd_snap_plan_new(&r);
	struct rd_snap_stats st;
	rd_snap_plan_stats(p, &st);
	CHECK(rd_snap_plan_has(p, D "/fw_ver"));
	CHECK(rd_snap_plan_has(p, "etc/modprobe.d"));
	CHECK(!rd_snap_plan_has(p, "etc/modprobe.d/evil.conf")); /* below a link */
	CHECK(!rd_snap_plan_has(p, "../escape"));
	CHECK(!rd_snap_plan_has(p, "a/b"));
	CHECK(rd_snap_plan_has(p, "rdma-doctor/read-errors"));   /* the snapshot's own */
	CHECK(!rd_snap_plan_has(p, "rdma-doctor/commands/../../etc/passwd"));
	/* files: fw_ver state uverbs0 fifo refcnt limits z/b/c z/b-c z/b/d, and ndevs/0 (an empty placeholder
	 * where the EINVAL is replayed); links: mlx5_0 proc/self modprobe.d */
	CHECK(rd_snap_plan_has(p, D "/ports/1/gid_attrs/ndevs/0"));
	CHECK(!rd_snap_plan_has(p, D "/ports/1/absent"));
	CHECK_INT(st.files, 10);
	CHECK_INT(st.links, 3);
	CHECK_INT(st.read_errors, 2); /* EINVAL ndevs, ENOTREG fifo; not ENOENT, not the directory */
	CHECK_INT(st.commands, 3);
	/* skipped: evil.conf, the 2nd limits, rdma-doctor's 2, 4 unclean paths */
	CHECK_INT(st.skipped, 8);
	rd_snap_plan_free(p);
	rec_free(&r);
}

RD_TEST(snapwrite_tgz_holds_each_entry_once_parents_first_links_as_links)
{
	struct rd_recording r;
	sample(&r);
	struct rd_snap_plan *p = rd_snap_plan_new(&r);
	rd_snap_plan_add(p, "rdma-doctor/meta.json", "{}\n", 3);
	char *dir = tmpdir();
	char file[128];
	snprintf(file, sizeof file, "%s/out.tar.gz", dir);
	write_plan(file, RD_SNAP_TGZ, p, false);
	char *errors = NULL;
	char *l = listing(file, "rdma-doctor/read-errors", &errors);
	CHECK(strstr(l, "l sys/class/infiniband/mlx5_0 -> ../../devices/pci0000:00/0000:00:01.0/0000:1b:00.0/infiniband/mlx5_0\n"));
	CHECK(strstr(l, "l etc/modprobe.d -> /rdma-doctor\n"));
	CHECK(strstr(l, "l proc/self -> 4242\n"));
	CHECK(strstr(l, "f dev/infiniband/uverbs0\n"));
	CHECK(strstr(l, "f rdma-doctor/commands/ofed_info-s\n"));
	CHECK(strstr(l, "f rdma-doctor/commands/ofed_info-s.status\n"));
	CHECK(strstr(l, "f rdma-doctor/commands/dkms-status.error\n"));
	CHECK(strstr(l, "f rdma-doctor/commands/systemctl-is-active-openibd.status\n"));
	CHECK(!strstr(l, "dmesg"));         /* not captured: nothing recorded */
	CHECK(!strstr(l, "evil.conf"));
	CHECK(!strstr(l, "passwd"));
	CHECK(!strstr(l, "escape"));
	CHECK(!strstr(l, "l rdma-doctor/commands"));
	CHECK(strstr(l, "f rdma-doctor/meta.json\n"));
	CHECK_STR(errors, "EINVAL\t/" D "/ports/1/gid_attrs/ndevs/0\nENOTREG\t/dev/infiniband/fifo\n");
	/* each path once, every parent directory before what it holds */
	struct rd_strv seen = {0};
	for (char *line = l; *line;) {
		char *nl = strchr(line, '\n');
		*nl = '\0';
		char *path = line + 2, *arrow = strstr(path, " -> ");
		if (arrow)
			*arrow = '\0';
		size_t pl = strlen(path);
		if (pl > 1 && path[pl - 1] == '/')
			path[pl - 1] = '\0'; /* libarchive writes directories as "dev/" */
		CHECK(!rd_strv_contains(&seen, path));
		char *slash = strrchr(path, '/');
		if (slash) {
			char *parent = rd_xstrndup(path, (size_t)(slash - path));
			if (!rd_strv_contains(&seen, parent))
				rd_test_fail(__FILE__, __LINE__, "%s before its directory", path);
			free(parent);
		}
		rd_strv_push(&seen, path);
		line = nl + 1;
	}
	rd_strv_free(&seen);
	/* GNU tar reads it, and sees the link as a link */
	char sh[512];
	snprintf(sh, sizeof sh, "tar -tvzf '%s' | grep -q '^l.* etc/modprobe.d -> /rdma-doctor$'", file);
	CHECK_INT(system(sh), 0);
	/* the file is the only thing in the directory, readable by its owner only */
	CHECK_INT(count_entries(dir), 1);
	struct stat fst;
	CHECK(stat(file, &fst) == 0 && (fst.st_mode & 0777) == 0600);
	free(errors);
	free(l);
	rd_snap_plan_free(p);
	rec_free(&r);
	rm_rf(dir);
}

RD_TEST(snapwrite_plain_tar)
{
	struct rd_recording r;
	sample(&r);
	struct rd_snap_plan *p = rd_snap_plan_new(&r);
	char *dir = tmpdir();
	char file[128], sh[512];
	snprintf(file, sizeof file, "%s/out.tar", dir);
	write_plan(file, RD_SNAP_TAR, p, false);
	snprintf(sh, sizeof sh, "file -b '%s' | grep -qi 'tar archive' && tar -tvf '%s' | grep -q ' proc/self -> 4242$'", file, file);
	CHECK_INT(system(sh), 0);
	rd_snap_plan_free(p);
	rec_free(&r);
	rm_rf(dir);
}

RD_TEST(snapwrite_directory_never_follows_a_link)
{
	struct rd_recording r;
	sample(&r);
	/* a recording where a later entry goes through a link aimed at a real directory */
	char *outside = tmpdir();
	char target[160];
	snprintf(target, sizeof target, "%s", outside);
	ent(&r, "etc/cron", RD_REC_LINK, target, 0, S_IFLNK | 0777);
	ent(&r, "etc/cron/payload", RD_REC_FILE, "* * * * * root /bin/sh\n", 0, S_IFREG | 0644);
	struct rd_snap_plan *p = rd_snap_plan_new(&r);
	char *dir = tmpdir();
	char out[128], path[256];
	snprintf(out, sizeof out, "%s/snap", dir);
	write_plan(out, RD_SNAP_DIR, p, false);
	CHECK_INT(count_entries(outside), 0);
	struct stat st;
	snprintf(path, sizeof path, "%s/etc/modprobe.d", out);
	CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
	snprintf(path, sizeof path, "%s/etc/cron", out);
	CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
	snprintf(path, sizeof path, "%s/dev/infiniband/uverbs0", out);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
	snprintf(path, sizeof path, "%s/" D "/fw_ver", out);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 11);
	snprintf(path, sizeof path, "%s/rdma-doctor/commands", out);
	CHECK(lstat(path, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_INT(count_entries(dir), 1); /* no temporary directory left */
	rd_snap_plan_free(p);
	rec_free(&r);
	rm_rf(dir);
	rm_rf(outside);
}

RD_TEST(snapwrite_target_refused_or_replaced)
{
	struct rd_recording r;
	sample(&r);
	struct rd_snap_plan *p = rd_snap_plan_new(&r);
	char *dir = tmpdir();
	char file[128], sub[128], err[512];
	snprintf(file, sizeof file, "%s/x.tar.gz", dir);
	FILE *f = fopen(file, "w");
	CHECK(f && fputs("keep", f) >= 0 && fclose(f) == 0);
	CHECK_INT(rd_snap_out_check(file, RD_SNAP_TGZ, false, err, sizeof err), -EEXIST);
	CHECK(strstr(err, "--force"));
	struct rd_snap_out *o;
	CHECK_INT(rd_snap_out_open(file, RD_SNAP_TGZ, false, &o, err, sizeof err), -EEXIST);
	CHECK_INT(rd_snap_out_check(file, RD_SNAP_TGZ, true, err, sizeof err), 0);
	write_plan(file, RD_SNAP_TGZ, p, true);
	struct stat st;
	CHECK(stat(file, &st) == 0 && st.st_size > 100);
	/* a directory given as an archive, a file given as a directory, a non-empty directory */
	snprintf(sub, sizeof sub, "%s/d.tar", dir);
	CHECK(mkdir(sub, 0755) == 0);
	CHECK_INT(rd_snap_out_check(sub, RD_SNAP_TAR, true, err, sizeof err), -EISDIR);
	CHECK_INT(rd_snap_out_check(file, RD_SNAP_DIR, true, err, sizeof err), -EEXIST);
	CHECK_INT(rd_snap_out_check(dir, RD_SNAP_DIR, true, err, sizeof err), -ENOTEMPTY);
	/* an empty directory is replaced by the snapshot */
	write_plan(sub, RD_SNAP_DIR, p, false);
	char probe[192];
	snprintf(probe, sizeof probe, "%s/rdma-doctor/read-errors", sub);
	CHECK(access(probe, F_OK) == 0);
	/* a missing parent directory */
	snprintf(sub, sizeof sub, "%s/no/such/x.tar.gz", dir);
	CHECK_INT(rd_snap_out_check(sub, RD_SNAP_TGZ, false, err, sizeof err), -ENOENT);
	CHECK_INT(count_entries(dir), 2);
	rd_snap_plan_free(p);
	rec_free(&r);
	rm_rf(dir);
}

RD_TEST(snapwrite_abort_leaves_nothing)
{
	struct rd_recording r;
	sample(&r);
	struct rd_snap_plan *p = rd_snap_plan_new(&r);
	char *dir = tmpdir();
	char err[512], path[128];
	const enum rd_snap_format fmts[] = {RD_SNAP_TGZ, RD_SNAP_DIR};
	const char *names[] = {"a.tar.gz", "a"};
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		struct rd_snap_out *o;
		CHECK_INT(rd_snap_out_open(path, fmts[i], false, &o, err, sizeof err), 0);
		CHECK_INT(rd_snap_out_write(o, p, 0, err, sizeof err), 0);
		rd_snap_out_abort(o);
		CHECK_INT(count_entries(dir), 0);
	}
	rd_snap_plan_free(p);
	rec_free(&r);
	rm_rf(dir);
}

RD_TEST(snapwrite_full_disk_is_an_error_naming_the_output)
{
	/* a tmpfs of 64 KiB in a private mount namespace (root only; tests/snapshot.sh runs the same
	 * case through the command), and a plain tar of a 300 KB file: ENOSPC, named, nothing left */
	if (geteuid() != 0 || system("unshare -m true 2>/dev/null") != 0)
		rd_test_fail(__FILE__, __LINE__, "needs root and unshare -m");
	struct rd_recording r;
	sample(&r);
	char big[300000];
	for (size_t i = 0; i < sizeof big - 1; i++)
		big[i] = (char)('a' + (i * 7919 % 26));
	big[sizeof big - 1] = '\0';
	ent(&r, "var/lib/dpkg/status", RD_REC_FILE, big, 0, S_IFREG | 0644);
	struct rd_snap_plan *p = rd_snap_plan_new(&r);
	char *dir = tmpdir();
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) < 0 || system("mount --make-rprivate / 2>/dev/null") != 0)
			_exit(10);
		char sh[256];
		snprintf(sh, sizeof sh, "mount -t tmpfs -o size=64k tmpfs '%s'", dir);
		if (system(sh) != 0)
			_exit(11);
		char path[128], err[512] = "";
		snprintf(path, sizeof path, "%s/x.tar", dir);
		struct rd_snap_out *o;
		if (rd_snap_out_open(path, RD_SNAP_TAR, false, &o, err, sizeof err) < 0)
			_exit(12);
		int w = rd_snap_out_write(o, p, 0, err, sizeof err);
		int c = w == 0 ? rd_snap_out_commit(o, err, sizeof err) : (rd_snap_out_abort(o), w);
		if (c != -ENOSPC || !strstr(err, path) || !strstr(err, "No space left on device")) {
			fprintf(stderr, "    got %d: %s\n", c, err);
			_exit(13);
		}
		_exit(count_entries(dir) == 0 ? 0 : 14);
	}
	int status;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	rd_snap_plan_free(p);
	rec_free(&r);
	rm_rf(dir);
}
