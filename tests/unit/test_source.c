/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The source layer against hostile roots made on the fly in a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "model/host.h"
#include "model/system.h"
#include "source/source.h"

static char root[256];

static void mk(const char *rel, const char *content)
{
	char path[1024], cmd[4096];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
	CHECK(system(cmd) == 0);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(content, f);
	fclose(f);
}

static void ln(const char *rel, const char *target)
{
	char path[1024], cmd[4096];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\" && ln -sfn '%s' '%s'", path, target, path);
	CHECK(system(cmd) == 0);
}

static struct rd_source *open_root(void)
{
	struct rd_source *src = NULL;
	char err[256];
	CHECK_INT(rd_source_open(root, &src, err, sizeof err), 0);
	CHECK(!rd_source_is_live(src));
	return src;
}

static void cleanup(void)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
}

static void setup(void)
{
	rd_test_mkdtemp(root, sizeof root, "rd-src-test");
	atexit(cleanup);
}

RD_TEST(reads_attr_and_strips_one_newline)
{
	setup();
	mk("sys/a", "4: ACTIVE\n");
	mk("sys/b", "x\n\n");
	mk("sys/c", "no newline");
	mk("sys/empty", "");
	struct rd_source *src = open_root();
	struct rd_text t;
	CHECK_INT(rd_read_attr(src, "sys/a", &t), 0);
	CHECK_STR(t.data, "4: ACTIVE");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "/sys/b", &t), 0); /* leading slash means the same */
	CHECK_STR(t.data, "x\n");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/c", &t), 0);
	CHECK_STR(t.data, "no newline");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/empty", &t), 0);
	CHECK_STR(t.data, "");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/missing", &t), -ENOENT);
	CHECK(t.data == NULL && t.err == ENOENT);
	CHECK_INT(rd_read_attr(src, "nodir/missing/x", &t), -ENOENT);
	rd_source_close(src);
}

static void check_links_resolve_inside_the_root(void)
{
	setup();
	mk("sys/devices/pci/0000:0c:00.0/infiniband/mlx5_0/fw_ver", "28.41.1000\n");
	ln("sys/class/infiniband/mlx5_0", "../../devices/pci/0000:0c:00.0/infiniband/mlx5_0");
	ln("sys/class/infiniband/abs", "/sys/devices/pci/0000:0c:00.0/infiniband/mlx5_0"); /* absolute: root-relative */
	ln("sys/class/infiniband/escape", "../../../../../../../../etc"); /* ".." stops at the root */
	mk("etc/passwd", "root-local\n");
	struct rd_source *src = open_root();
	struct rd_text t;
	CHECK_INT(rd_read_attr(src, "sys/class/infiniband/mlx5_0/fw_ver", &t), 0);
	CHECK_STR(t.data, "28.41.1000");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/class/infiniband/abs/fw_ver", &t), 0);
	CHECK_STR(t.data, "28.41.1000");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/class/infiniband/escape/passwd", &t), 0);
	CHECK_STR(t.data, "root-local"); /* the root's etc, never the host's */
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "../../../../etc/passwd", &t), 0);
	CHECK_STR(t.data, "root-local");
	rd_text_free(&t);
	char *canon = NULL;
	CHECK_INT(rd_resolve(src, "sys/class/infiniband/mlx5_0", &canon), 0);
	CHECK_STR(canon, "sys/devices/pci/0000:0c:00.0/infiniband/mlx5_0");
	free(canon);
	char *target = NULL;
	CHECK_INT(rd_read_link(src, "sys/class/infiniband/mlx5_0", &target), 0);
	CHECK_STR(target, "../../devices/pci/0000:0c:00.0/infiniband/mlx5_0");
	free(target);
	struct rd_strv names = {0};
	CHECK_INT(rd_list_dir(src, "sys/class/infiniband", &names), 0);
	CHECK_INT(names.n, 3);
	CHECK_STR(names.v[0], "abs"); /* sorted */
	rd_strv_free(&names);
	rd_source_close(src);
}

RD_TEST(links_resolve_inside_the_root)
{
	check_links_resolve_inside_the_root();
}

/* A kernel without openat2 (the shim says ENOSYS): the same answers from the O_PATH walk. */
RD_TEST(links_resolve_inside_the_root_without_openat2)
{
	setenv("RD_FAULT_NO_OPENAT2", "1", 1);
	check_links_resolve_inside_the_root();
	unsetenv("RD_FAULT_NO_OPENAT2");
}

/* Files are opened by their last component in a kept descriptor of their directory: a link met
 * there (a final one, or a directory that is a link) is still resolved inside the root, "." and
 * ".." are never taken in a kept directory, and directories pushed out of the cache give the same
 * answers when met again. */
RD_TEST(kept_directories_answer_as_the_whole_path)
{
	setup();
	mk("etc/passwd", "root-local\n");
	mk("sys/d/x", "x\n");
	mk("sys/d/sub/y", "y\n");
	ln("sys/d/lnk", "/etc/passwd");         /* a final link, absolute: root-relative */
	ln("sys/d/up", "../../../../../..");    /* a directory link climbing past the root */
	ln("sys/d/sublink", "sub");
	for (int i = 0; i < 80; i++) {          /* more directories than the cache holds */
		char rel[64], val[16];
		snprintf(rel, sizeof rel, "many/%d/v", i);
		snprintf(val, sizeof val, "%d\n", i);
		mk(rel, val);
	}
	struct rd_source *src = open_root();
	struct rd_text t;
	CHECK_INT(rd_read_attr(src, "sys/d/x", &t), 0); /* keeps sys/d */
	CHECK_STR(t.data, "x");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/d/lnk", &t), 0);
	CHECK_STR(t.data, "root-local");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/d/up/etc/passwd", &t), 0);
	CHECK_STR(t.data, "root-local");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/d/sublink/y", &t), 0);
	CHECK_STR(t.data, "y");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/d/sub/../x", &t), 0);
	CHECK_STR(t.data, "x");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/d/..", &t), -RD_ENOTREG);
	CHECK_INT(rd_read_attr(src, "sys/d/x/z", &t), -ENOTDIR);
	CHECK_INT(rd_read_attr(src, "sys/nodir/z", &t), -ENOENT);
	struct rd_strv names = {0};
	CHECK_INT(rd_list_dir(src, "sys/d/up", &names), 0); /* the root's own top */
	CHECK(rd_strv_contains(&names, "etc") && rd_strv_contains(&names, "many"));
	rd_strv_free(&names);
	CHECK_INT(rd_list_dir(src, "sys/d/sublink", &names), 0);
	CHECK(names.n == 1 && strcmp(names.v[0], "y") == 0);
	rd_strv_free(&names);
	struct stat st;
	CHECK_INT(rd_stat(src, "sys/d/lnk", true, &st), 0);
	CHECK(S_ISREG(st.st_mode) && st.st_size == 11);
	CHECK_INT(rd_stat(src, "sys/d/lnk", false, &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_INT(rd_stat(src, "sys/d/up", true, &st), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_INT(rd_stat(src, "sys/d/up", false, &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_INT(rd_stat(src, "sys/d/sub", false, &st), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_INT(rd_stat(src, "sys/d/none", true, &st), -ENOENT);
	CHECK_INT(rd_stat(src, "sys/d/x/z", true, &st), -ENOTDIR);
	char *target = NULL;
	CHECK_INT(rd_read_link(src, "sys/d/lnk", &target), 0);
	CHECK_STR(target, "/etc/passwd");
	free(target);
	CHECK_INT(rd_read_link(src, "sys/d/up", &target), 0);
	CHECK_STR(target, "../../../../../..");
	free(target);
	CHECK_INT(rd_read_link(src, "sys/d/x", &target), -EINVAL);
	CHECK_INT(rd_read_link(src, "sys/d/none", &target), -ENOENT);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < 80; i++) {
			char rel[64], val[16];
			snprintf(rel, sizeof rel, "many/%d/v", i);
			snprintf(val, sizeof val, "%d", i);
			CHECK_INT(rd_read_attr(src, rel, &t), 0);
			CHECK_STR(t.data, val);
			rd_text_free(&t);
		}
	rd_source_close(src);
}

static void rewrite(const char *rel, const char *content)
{
	char path[1024], tmp[1100];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	snprintf(tmp, sizeof tmp, "%s.new", path);
	FILE *f = fopen(tmp, "w");
	CHECK(f != NULL);
	fputs(content, f);
	fclose(f);
	CHECK(rename(tmp, path) == 0);
}

/* A load's memo: a file read again in the load is its first answer (also a file that was not
 * there), whichever part asks; a counter is read each time; another cap or mode is read again;
 * after the load, and while recording, every read reads. */
RD_TEST(a_load_reads_each_file_once)
{
	setup();
	mk("sys/d/vendor", "0x15b3\n");
	mk("sys/d/ports/1/counters/port_rcv_data", "10\n");
	mk("proc/modules", "mlx5_core 1 0 - Live 0x0\n");
	struct rd_source *src = open_root();
	struct rd_text t;
	rd_source_memo(src, true);
	CHECK_INT(rd_read_attr(src, "sys/d/vendor", &t), 0);
	CHECK_STR(t.data, "0x15b3");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/d/absent", &t), -ENOENT);
	CHECK_INT(rd_read_attr(src, "sys/d/ports/1/counters/port_rcv_data", &t), 0);
	rd_text_free(&t);
	CHECK_INT(rd_read_file(src, "proc/modules", RD_CAP_FILE, &t), 0);
	rd_text_free(&t);
	rewrite("sys/d/vendor", "0x10de\n");
	mk("sys/d/absent", "here\n");
	rewrite("sys/d/ports/1/counters/port_rcv_data", "20\n");
	rewrite("proc/modules", "ib_core 1 0 - Live 0x0\n");
	CHECK_INT(rd_read_attr(src, "sys/d/vendor", &t), 0);
	CHECK_STR(t.data, "0x15b3"); /* one view of the host in a load */
	CHECK_INT(t.err, 0);
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "/sys/d/vendor", &t), 0); /* a leading '/' names the same file */
	CHECK_STR(t.data, "0x15b3");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/d/absent", &t), -ENOENT);
	CHECK_INT(t.err, ENOENT);
	CHECK(t.data == NULL);
	CHECK_INT(rd_read_attr(src, "sys/d/ports/1/counters/port_rcv_data", &t), 0);
	CHECK_STR(t.data, "20"); /* a rate is two reads */
	rd_text_free(&t);
	CHECK_INT(rd_read_file(src, "proc/modules", RD_CAP_FILE, &t), 0);
	CHECK(t.len == 25 && memcmp(t.data, "mlx5_core", 9) == 0);
	rd_text_free(&t);
	CHECK_INT(rd_read_prefix(src, "proc/modules", 7, &t), 0); /* another cap and mode: read */
	CHECK(t.len == 7 && memcmp(t.data, "ib_core", 7) == 0);
	rd_text_free(&t);
	rd_source_memo(src, false);
	CHECK_INT(rd_read_attr(src, "sys/d/vendor", &t), 0);
	CHECK_STR(t.data, "0x10de");
	rd_text_free(&t);
	CHECK_INT(rd_read_attr(src, "sys/d/absent", &t), 0);
	CHECK_STR(t.data, "here");
	rd_text_free(&t);
	/* recording: each read is recorded as it was met (a forgotten file read again is kept) */
	struct rd_recording rec = {0};
	rd_source_memo(src, true);
	rd_source_record(src, &rec);
	CHECK_INT(rd_read_attr(src, "sys/d/vendor", &t), 0);
	rd_text_free(&t);
	rewrite("sys/d/vendor", "0x8086\n");
	CHECK_INT(rd_read_attr(src, "sys/d/vendor", &t), 0);
	CHECK_STR(t.data, "0x8086");
	rd_text_free(&t);
	rd_source_record(src, NULL);
	rd_recording_free(&rec);
	rd_source_close(src); /* the memo still on: freed with the source */
}

static void check_link_loops_and_dangling_links(void)
{
	setup();
	ln("sys/loop1", "loop2");
	ln("sys/loop2", "loop1");
	ln("sys/self", "self");
	ln("sys/dangling", "nowhere/at/all");
	struct rd_source *src = open_root();
	struct rd_text t;
	CHECK_INT(rd_read_attr(src, "sys/loop1/x", &t), -ELOOP);
	CHECK_INT(rd_read_attr(src, "sys/self", &t), -ELOOP);
	CHECK_INT(rd_read_attr(src, "sys/dangling", &t), -ENOENT);
	struct rd_strv names = {0};
	CHECK_INT(rd_list_dir(src, "sys/loop1", &names), -ELOOP);
	rd_source_close(src);
}

RD_TEST(link_loops_and_dangling_links)
{
	check_link_loops_and_dangling_links();
}

RD_TEST(link_loops_and_dangling_links_without_openat2)
{
	setenv("RD_FAULT_NO_OPENAT2", "1", 1);
	check_link_loops_and_dangling_links();
	unsetenv("RD_FAULT_NO_OPENAT2");
}

RD_TEST(fifo_directory_and_huge_file_are_errors_not_hangs)
{
	setup();
	mk("sys/port/x", "");
	char path[512];
	snprintf(path, sizeof path, "%s/sys/port/state", root);
	CHECK(mkfifo(path, 0644) == 0);
	snprintf(path, sizeof path, "%s/sys/big", root);
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && ftruncate(fd, 100 << 20) == 0);
	close(fd);
	struct rd_source *src = open_root();
	struct rd_text t;
	time_t start = time(NULL);
	CHECK_INT(rd_read_attr(src, "sys/port/state", &t), -RD_ENOTREG);
	CHECK(time(NULL) - start < 2);
	CHECK_INT(rd_read_attr(src, "sys/port", &t), -RD_ENOTREG);
	CHECK_INT(rd_read_attr(src, "sys/big", &t), -EFBIG);
	CHECK_INT(rd_read_prefix(src, "sys/big", 10, &t), 0);
	CHECK_INT(t.len, 10);
	rd_text_free(&t);
	rd_source_close(src);
}

RD_TEST(unreadable_file_is_an_error_value)
{
	setup();
	mk("sys/secret", "x\n");
	char path[512];
	snprintf(path, sizeof path, "%s/sys/secret", root);
	chmod(path, 0);
	struct rd_source *src = open_root();
	struct rd_text t;
	int r = rd_read_attr(src, "sys/secret", &t);
	/* root may read anything; an ordinary user gets EACCES */
	CHECK(r == 0 || r == -EACCES);
	rd_text_free(&t);
	rd_source_close(src);
}

RD_TEST(snapshot_read_errors_are_replayed)
{
	setup();
	mk("sys/devices/virtual/infiniband/rxe0/ports/1/gid_attrs/ndevs/3", "");
	ln("sys/class/infiniband/rxe0", "../../devices/virtual/infiniband/rxe0");
	mk("rdma-doctor/read-errors", "EINVAL\t/sys/devices/virtual/infiniband/rxe0/ports/1/gid_attrs/ndevs/3\n"
				      "garbage line\nEIO\n\tno-errno\n");
	struct rd_source *src = open_root();
	struct rd_text t;
	/* read through the class link: the canonical path matches the recorded one */
	CHECK_INT(rd_read_attr(src, "sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/3", &t), -EINVAL);
	CHECK_INT(t.err, EINVAL);
	rd_source_close(src);
}

/* A recorded path is a canonical one: one through a link, or with "..", names no file read (each
 * read nothing and is no error), whichever name the file is read by. */
RD_TEST(snapshot_read_errors_match_canonical_paths_only)
{
	setup();
	mk("sys/devices/virtual/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "");
	mk("sys/devices/virtual/infiniband/rxe0/ports/1/gid_attrs/ndevs/1", "");
	mk("sys/devices/virtual/infiniband/rxe0/ports/1/gid_attrs/ndevs/2", "");
	ln("sys/class/infiniband/rxe0", "../../devices/virtual/infiniband/rxe0");
	mk("rdma-doctor/read-errors", "EINVAL	/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0\n"
				      "EIO	/sys/devices/virtual/infiniband/rxe0/ports/1/gid_attrs/../gid_attrs/ndevs/1\n"
				      "ENODATA	/sys/devices/virtual/infiniband/rxe0/ports/1/gid_attrs/ndevs/2\n");
	struct rd_source *src = open_root();
	struct rd_text t;
	for (int pass = 0; pass < 2; pass++) {
		const char *dir = pass ? "sys/devices/virtual/infiniband/rxe0" : "sys/class/infiniband/rxe0";
		char *p0 = rd_xasprintf("%s/ports/1/gid_attrs/ndevs/0", dir);
		char *p1 = rd_xasprintf("%s/ports/1/gid_attrs/ndevs/1", dir);
		char *p2 = rd_xasprintf("%s/ports/1/gid_attrs/ndevs/2", dir);
		CHECK_INT(rd_read_attr(src, p0, &t), 0);
		CHECK_INT((int)t.len, 0);
		rd_text_free(&t);
		CHECK_INT(rd_read_attr(src, p1, &t), 0);
		rd_text_free(&t);
		CHECK_INT(rd_read_attr(src, p2, &t), -ENODATA);
		free(p0);
		free(p1);
		free(p2);
	}
	rd_source_close(src);
}

/* The fault shim linked into this test (tests/shim/faults.c, RD_FAULT_EINVAL) fakes the firmware
 * refusing a counter (no HCA here): the refusal is remembered, so the file is not read again in
 * the run, under either of its names. */
RD_TEST(refused_counter_is_read_once_fake_einval)
{
	setup();
	mk("sys/devices/pci0000:00/0000:00:01.0/infiniband/mlx5_0/ports/1/counters/symbol_error", "0\n");
	mk("sys/devices/pci0000:00/0000:00:01.0/infiniband/mlx5_0/ports/1/counters/port_rcv_data", "12\n");
	mk("sys/devices/pci0000:00/0000:00:01.0/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)\n");
	ln("sys/class/infiniband/mlx5_0", "../../devices/pci0000:00/0000:00:01.0/infiniband/mlx5_0");
	setenv("RD_FAULT_EINVAL", "symbol_error", 1);
	struct rd_source *src = open_root();
	struct rd_text t;
	const char *cls = "sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error";
	CHECK_INT(rd_read_attr(src, cls, &t), -EINVAL);
	CHECK_INT(rd_source_einval_remembered(src), 1);
	/* again, by the class path and by the device path: EINVAL at once, nothing new remembered */
	CHECK_INT(rd_read_attr(src, cls, &t), -EINVAL);
	CHECK_INT(rd_read_attr(src, "sys/devices/pci0000:00/0000:00:01.0/infiniband/mlx5_0/ports/1/counters/symbol_error", &t),
		  -EINVAL);
	CHECK_INT(t.err, EINVAL);
	CHECK_INT(rd_source_einval_remembered(src), 1);
	/* the file itself reads fine: the shim alone refused it */
	unsetenv("RD_FAULT_EINVAL");
	CHECK_INT(rd_read_attr(src, cls, &t), -EINVAL);
	/* other counters and attributes are read as usual */
	CHECK_INT(rd_read_attr(src, "sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", &t), 0);
	CHECK_STR(t.data, "12");
	rd_text_free(&t);
	rd_source_close(src);
}

RD_TEST(commands_in_a_root_are_captured_outputs)
{
	setup();
	mk("rdma-doctor/commands/ofed_info-s", "MLNX_OFED_LINUX-24.10-1.1.4.0:\n");
	mk("rdma-doctor/commands/dkms-status.error", "ENOENT\n");
	struct rd_source *src = open_root();
	struct rd_text t;
	CHECK_INT(rd_run_command(src, "ofed_info-s", &t), 0);
	CHECK_STR(t.data, "MLNX_OFED_LINUX-24.10-1.1.4.0:\n");
	CHECK_INT(t.status, 0);
	rd_text_free(&t);
	CHECK_INT(rd_run_command(src, "dmesg", &t), -RD_ENOTCAPTURED);
	/* a command that was absent when the snapshot was taken reads back as absent */
	CHECK_INT(rd_run_command(src, "dkms-status", &t), -ENOENT);
	CHECK_INT(t.err, ENOENT);
	CHECK_INT(rd_run_command(src, "no-such-command", &t), -EINVAL);
	rd_source_close(src);
}

RD_TEST(live_commands_run_with_timeout)
{
	struct rd_source *src = NULL;
	char err[256];
	CHECK_INT(rd_source_open(NULL, &src, err, sizeof err), 0);
	CHECK(rd_source_is_live(src));
	struct rd_text t;
	/* dmesg may be refused, but it runs and reports an exit status */
	int r = rd_run_command(src, "dmesg", &t);
	CHECK(r == 0 || r == -ENOENT);
	if (r == 0)
		CHECK(t.status >= 0);
	rd_text_free(&t);
	rd_source_close(src);
}

RD_TEST(bad_roots)
{
	struct rd_source *src = NULL;
	char err[256] = "";
	CHECK_INT(rd_source_open("/nonexistent/root", &src, err, sizeof err), -ENOENT);
	CHECK(src == NULL);
	CHECK(strstr(err, "/nonexistent/root") != NULL);
	CHECK_INT(rd_source_open("/etc/hostname", &src, err, sizeof err), -ENOTDIR);
	CHECK(strstr(err, "neither a directory nor a snapshot") != NULL);
	setup();
	mk("bad.tar.gz", "this is not gzip");
	char path[512];
	snprintf(path, sizeof path, "%s/bad.tar.gz", root);
	CHECK(rd_source_open(path, &src, err, sizeof err) < 0);
	CHECK(strstr(err, "bad.tar.gz") != NULL);
}

/* ---- the recorder: a load recorded, laid out as a root, loaded again: the same answers ------- */

static void mkparents(const char *base, const char *rel)
{
	char *p = rd_xasprintf("%s/%s", base, rel);
	for (char *s = p + strlen(base) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	free(p);
}

/* Writes what rec holds as a root directory under dir (what a snapshot does, in a few lines). */
static void lay_out(const struct rd_recording *rec, const char *dir)
{
	struct rd_buf errs = {0};
	for (size_t i = 0; i < rec->n; i++) {
		const struct rd_rec_entry *e = &rec->entries[i];
		if (!*e->path)
			continue;
		char *p = rd_xasprintf("%s/%s", dir, e->path);
		mkparents(dir, e->path);
		if (e->kind == RD_REC_FILE || (e->kind == RD_REC_NODE && S_ISREG(e->mode))) {
			int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, e->mode & 07777);
			CHECK(fd >= 0);
			CHECK(e->len == 0 || write(fd, e->data, e->len) == (ssize_t)e->len);
			fchmod(fd, e->mode & 07777);
			close(fd);
		} else if (e->kind == RD_REC_DIR || (e->kind == RD_REC_NODE && S_ISDIR(e->mode))) {
			mkdir(p, 0755);
		} else if (e->kind == RD_REC_LINK) {
			CHECK(symlink(e->data, p) == 0);
		} else if (e->kind == RD_REC_NODE) {
			/* a device node or FIFO: as it was when the test may make one, else left out */
			if (mknod(p, e->mode, 0) < 0 && !S_ISFIFO(e->mode))
				fprintf(stderr, "note: %s not laid out (%s)\n", e->path, strerror(errno));
		} else if (e->kind == RD_REC_ERROR) {
			rd_buf_printf(&errs, "%s\t/%s\n", rd_errno_name(e->err), e->path);
		}
		free(p);
	}
	mkparents(dir, "rdma-doctor/commands/x");
	for (size_t i = 0; i < rec->ncommands; i++) {
		const struct rd_rec_command *c = &rec->commands[i];
		char *p = rd_xasprintf("%s/rdma-doctor/commands/%s%s", dir, c->name, c->out.err ? ".error" : "");
		FILE *f = fopen(p, "w");
		CHECK(f != NULL);
		if (c->out.err)
			fprintf(f, "%s\n", rd_errno_name(c->out.err));
		else
			fwrite(c->out.data, 1, c->out.len, f);
		fclose(f);
		free(p);
		if (c->out.err)
			continue;
		p = rd_xasprintf("%s/rdma-doctor/commands/%s.status", dir, c->name);
		f = fopen(p, "w");
		CHECK(f != NULL);
		fprintf(f, "%d\n", c->out.status);
		fclose(f);
		free(p);
	}
	char *p = rd_xasprintf("%s/rdma-doctor/read-errors", dir);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (errs.len)
		fwrite(errs.data, 1, errs.len, f);
	fclose(f);
	free(p);
	rd_buf_free(&errs);
}

static void load_recorded(const char *dir, struct rd_recording *rec, struct rd_host *h, struct rd_system *sys)
{
	struct rd_source *src = NULL;
	char err[256];
	CHECK_INT(rd_source_open(dir, &src, err, sizeof err), 0);
	rd_source_record(src, rec);
	rd_host_load(src, 0, h);
	const char *const services[] = {"slurmd", NULL};
	rd_system_load(src, h, services, sys);
	rd_source_record(src, NULL);
	rd_source_close(src);
}

static int by_path(const void *a, const void *b)
{
	const struct rd_rec_entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (int)x->kind - (int)y->kind;
}

RD_TEST(a_recorded_load_laid_out_loads_the_same)
{
	setup();
	char fix[512];
	snprintf(fix, sizeof fix, "%s/../examples/h100-ofed", rd_test_dir());
	struct rd_recording r1 = {0}, r2 = {0};
	struct rd_host h1, h2;
	struct rd_system s1, s2;
	load_recorded(fix, &r1, &h1, &s1);
	CHECK(r1.n > 100);
	CHECK(r1.ncommands >= 2); /* those captured in the fixture; the others were not run */
	size_t kinds[RD_REC_FORGOTTEN + 1] = {0};
	for (size_t i = 0; i < r1.n; i++)
		kinds[r1.entries[i].kind]++;
	CHECK(kinds[RD_REC_FILE] > 50 && kinds[RD_REC_LINK] > 5 && kinds[RD_REC_DIR] > 5 && kinds[RD_REC_ERROR] > 0);
	lay_out(&r1, root);
	load_recorded(root, &r2, &h2, &s2);
	/* the same model ... */
	CHECK_INT(h2.ndevices, h1.ndevices);
	CHECK(h1.ndevices == 9);
	CHECK_STR(h2.hostname.value, h1.hostname.value);
	CHECK_STR(h2.osrelease.value, h1.osrelease.value);
	for (size_t i = 0; i < h1.ndevices; i++) {
		CHECK_STR(h2.devices[i].name, h1.devices[i].name);
		CHECK_INT(h2.devices[i].nports, h1.devices[i].nports);
		CHECK_INT(h2.devices[i].ports[0].state_v, h1.devices[i].ports[0].state_v);
	}
	/* ... because every call got the same answer: the second recording is the first (in path
	 * order: directories list their names in an order of their file system's, and the laid-out
	 * copy may be on another one, a tmpfs listing the newest first) */
	CHECK_INT(r2.n, r1.n);
	CHECK_INT(r2.ncommands, r1.ncommands);
	qsort(r1.entries, r1.n, sizeof *r1.entries, by_path);
	qsort(r2.entries, r2.n, sizeof *r2.entries, by_path);
	for (size_t i = 0; i < r1.n && i < r2.n; i++) {
		const struct rd_rec_entry *a = &r1.entries[i], *b = &r2.entries[i];
		CHECK_STR(b->path, a->path);
		CHECK_INT(b->kind, a->kind);
		CHECK_INT(b->err, a->err);
		CHECK(b->len == a->len && (!a->len || memcmp(a->data, b->data, a->len) == 0));
	}
	for (size_t i = 0; i < r1.ncommands; i++) {
		CHECK_STR(r2.commands[i].name, r1.commands[i].name);
		CHECK_INT(r2.commands[i].out.err, r1.commands[i].out.err);
		CHECK_INT(r2.commands[i].out.status, r1.commands[i].out.status);
		CHECK(r2.commands[i].out.len == r1.commands[i].out.len);
	}
	/* the same root as an archive (the tree backend) records the same entries (listed names
	 * come in another order) */
	char cmd[2048], ar[512];
	snprintf(ar, sizeof ar, "%s/fixture.tar.gz", root);
	snprintf(cmd, sizeof cmd, "tar czf '%s' -C '%s' .", ar, fix);
	CHECK(system(cmd) == 0);
	struct rd_recording r3 = {0};
	struct rd_host h3;
	struct rd_system s3;
	load_recorded(ar, &r3, &h3, &s3);
	CHECK_INT(r3.n, r1.n);
	CHECK_INT(r3.ncommands, r1.ncommands);
	for (size_t i = 0; i < r1.n; i++) {
		const struct rd_rec_entry *a = &r1.entries[i], *b = NULL;
		for (size_t j = 0; j < r3.n && !b; j++)
			if (strcmp(r3.entries[j].path, a->path) == 0)
				b = &r3.entries[j];
		CHECK(b != NULL);
		CHECK_INT(b->kind, a->kind);
		CHECK(b->len == a->len && (!a->len || memcmp(a->data, b->data, a->len) == 0));
	}
	rd_host_free(&h1);
	rd_host_free(&h2);
	rd_host_free(&h3);
	rd_system_free(&s1);
	rd_system_free(&s2);
	rd_system_free(&s3);
	rd_recording_free(&r1);
	rd_recording_free(&r2);
	rd_recording_free(&r3);
}

RD_TEST(recording_the_live_host)
{
	struct rd_source *src = NULL;
	char err[256];
	CHECK_INT(rd_source_open(NULL, &src, err, sizeof err), 0);
	struct rd_recording rec = {0};
	rd_source_record(src, &rec);
	struct rd_text t;
	CHECK_INT(rd_read_file(src, "proc/self/status", RD_CAP_FILE, &t), 0);
	rd_text_free(&t);
	struct stat st;
	CHECK_INT(rd_stat(src, "dev/null", true, &st), 0);
	CHECK_INT(rd_read_file(src, "dev/null", RD_CAP_FILE, &t), -RD_ENOTREG);
	rd_source_record(src, NULL);
	CHECK_INT(rd_read_file(src, "proc/self/stat", RD_CAP_FILE, &t), 0); /* not recorded */
	rd_text_free(&t);
	/* proc/self is a link, recorded with its raw target; the file under its canonical path */
	bool link = false, file = false, node = false;
	for (size_t i = 0; i < rec.n; i++) {
		const struct rd_rec_entry *e = &rec.entries[i];
		link |= e->kind == RD_REC_LINK && strcmp(e->path, "proc/self") == 0 && e->data && atoi(e->data) > 0;
		file |= e->kind == RD_REC_FILE && rd_str_has_suffix(e->path, "/status") && e->len > 0;
		node |= e->kind == RD_REC_NODE && strcmp(e->path, "dev/null") == 0 && S_ISCHR(e->mode);
		CHECK(!rd_str_has_suffix(e->path, "/stat"));
	}
	CHECK(link && file && node);
	rd_recording_free(&rec);
	rd_source_close(src);
}

static bool all_digits(const char *name)
{
	return *name && strspn(name, "0123456789") == strlen(name);
}

static const struct rd_rec_entry *rec_find(const struct rd_recording *rec, const char *path)
{
	for (size_t i = 0; i < rec->n; i++)
		if (strcmp(rec->entries[i].path, path) == 0)
			return &rec->entries[i];
	return NULL;
}

/* A recording keeps what was read and no more: a listing's names (only those the caller asked
 * for), a stat's metadata (bytes only through rd_stat_sized), and a forgotten read not at all;
 * the same on a directory root and on an archive */
static void check_recording_keeps_what_is_read(const char *at)
{
	struct rd_source *src = NULL;
	char err[256];
	CHECK_INT(rd_source_open(at, &src, err, sizeof err), 0);
	struct rd_recording rec = {0};
	rd_source_record(src, &rec);
	struct rd_strv names = {0};
	CHECK_INT(rd_list_dir_only(src, "proc", all_digits, &names), 0);
	CHECK_INT(names.n, 2);
	CHECK_STR(names.v[0], "1");
	CHECK_STR(names.v[1], "2");
	rd_strv_free(&names);
	CHECK_INT(rd_list_dir(src, "etc/x", &names), 0);
	CHECK_INT(names.n, 1);
	rd_strv_free(&names);
	struct rd_text t;
	CHECK_INT(rd_read_attr(src, "proc/2/comm", &t), 0);
	rd_text_free(&t);
	rd_source_forget(src, "proc/2/comm");
	CHECK_INT(rd_read_attr(src, "proc/1/comm", &t), 0);
	rd_text_free(&t);
	struct stat st;
	CHECK_INT(rd_stat_sized(src, "etc/udev/rules.d/a.rules", &st), 0);
	CHECK_INT(rd_stat(src, "etc/udev/rules.d/b.rules", true, &st), 0);
	rd_source_record(src, NULL);
	CHECK(rec_find(&rec, "proc/kallsyms") == NULL);
	CHECK(rec_find(&rec, "proc/1") && rec_find(&rec, "proc/1")->kind == RD_REC_DIR);
	const struct rd_rec_entry *e = rec_find(&rec, "etc/x/listed");
	CHECK(e && e->kind == RD_REC_NODE && !e->data && S_ISREG(e->mode));
	e = rec_find(&rec, "proc/2/comm");
	CHECK(e && e->kind == RD_REC_FORGOTTEN && !e->data);
	e = rec_find(&rec, "proc/1/comm");
	CHECK(e && e->kind == RD_REC_FILE && e->len == 7 && memcmp(e->data, "slurmd\n", 7) == 0);
	e = rec_find(&rec, "etc/udev/rules.d/a.rules");
	CHECK(e && e->kind == RD_REC_FILE && e->len == 5 && memcmp(e->data, "RULE\n", 5) == 0);
	e = rec_find(&rec, "etc/udev/rules.d/b.rules");
	CHECK(e && e->kind == RD_REC_NODE && !e->data);
	/* a forgotten read read again is kept */
	rd_source_record(src, &rec);
	CHECK_INT(rd_read_attr(src, "proc/2/comm", &t), 0);
	rd_text_free(&t);
	rd_source_record(src, NULL);
	e = rec_find(&rec, "proc/2/comm");
	CHECK(e && e->kind == RD_REC_FILE && e->len == 6);
	rd_recording_free(&rec);
	rd_source_close(src);
}

RD_TEST(recording_keeps_what_is_read)
{
	setup();
	mk("proc/kallsyms", "ffffffff81000000 T _text\n");
	mk("proc/1/comm", "slurmd\n");
	mk("proc/2/comm", "other\n");
	mk("etc/x/listed", "SECRET\n");
	mk("etc/udev/rules.d/a.rules", "RULE\n");
	mk("etc/udev/rules.d/b.rules", "OTHER\n");
	check_recording_keeps_what_is_read(root);
	char cmd[4096], ar[512];
	snprintf(ar, sizeof ar, "%s.tar.gz", root);
	snprintf(cmd, sizeof cmd, "tar czf '%s' -C '%s' . && mv '%s' '%s/r.tar.gz'", ar, root, ar, root);
	CHECK(system(cmd) == 0);
	snprintf(ar, sizeof ar, "%s/r.tar.gz", root);
	check_recording_keeps_what_is_read(ar);
}

/* the comm of a process that exited between its read and the forget is forgotten all the same (a
 * short-lived process on a live host: its /proc/PID is gone when the loader drops the bytes) */
RD_TEST(recording_forgets_a_file_gone_since)
{
	setup();
	mk("proc/3/comm", "python3\n");
	struct rd_source *src = NULL;
	char err[256];
	CHECK_INT(rd_source_open(root, &src, err, sizeof err), 0);
	struct rd_recording rec = {0};
	rd_source_record(src, &rec);
	struct rd_text t;
	CHECK_INT(rd_read_attr(src, "proc/3/comm", &t), 0);
	rd_text_free(&t);
	char path[4096];
	snprintf(path, sizeof path, "%s/proc/3/comm", root);
	CHECK_INT(unlink(path), 0);
	snprintf(path, sizeof path, "%s/proc/3", root);
	CHECK_INT(rmdir(path), 0);
	rd_source_forget(src, "proc/3/comm");
	rd_source_record(src, NULL);
	const struct rd_rec_entry *e = rec_find(&rec, "proc/3/comm");
	CHECK(e && e->kind == RD_REC_FORGOTTEN && !e->data);
	rd_recording_free(&rec);
	rd_source_close(src);
}
