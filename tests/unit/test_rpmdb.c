/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Unit tests for src/model/rpmdb.c: the parsers (os-release, /etc/infiniband/info, the kernel in a
 * kmod release, the child's answer), and the child itself on a stand-in librpm
 * (tests/shim/rpmhang.c, build/tests/librpmshim.so) that hangs, crashes, fails or answers: killed
 * at the run's deadline, reported as UNKNOWN naming the file, the private copy removed, librpm
 * never mapped into this process.  The real librpm on real databases: tests/rpm/run.sh. */
#include "harness.h"
#include "model/rpmdb.h"
#include "model/stack.h"
#include "source/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

RD_TEST(os_release_fields)
{
	struct rd_os_release os;
	rd_parse_os_release("NAME=\"Rocky Linux\"\nID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\nVERSION_ID=\"9.4\"\n", &os);
	CHECK_STR(os.id, "rocky");
	CHECK_STR(os.id_like, "rhel centos fedora");
	CHECK_STR(os.version_id, "9.4");
	CHECK_INT(rd_os_release_rpmdb(&os), RD_RPMDB_SQLITE);
	rd_parse_os_release("ID=rhel\nVERSION_ID=8.10", &os);
	CHECK_STR(os.id, "rhel");
	CHECK_INT(rd_os_release_rpmdb(&os), RD_RPMDB_BDB);
	rd_parse_os_release("  ID='sles'\r\nID_LIKE=\"suse\"\nVERSION_ID=\"15.5\"\n", &os);
	CHECK_STR(os.id, "sles");
	CHECK_INT(rd_os_release_rpmdb(&os), RD_RPMDB_NDB);
	rd_parse_os_release("ID=debian\nVERSION_ID=\"12\"\n", &os);
	CHECK_INT(rd_os_release_rpmdb(&os), RD_RPMDB_NONE);
	rd_parse_os_release("ID=fedora\nVERSION_ID=40\n", &os);
	CHECK_INT(rd_os_release_rpmdb(&os), RD_RPMDB_SQLITE);
	rd_parse_os_release("ID=almalinux\nID_LIKE=\"rhel centos fedora\"\nVERSION_ID=\"8.9\"\n", &os);
	CHECK_INT(rd_os_release_rpmdb(&os), RD_RPMDB_BDB);
	rd_parse_os_release("ID=amzn\nID_LIKE=\"centos rhel fedora\"\nVERSION_ID=\"2\"\n", &os);
	CHECK_INT(rd_os_release_rpmdb(&os), RD_RPMDB_BDB);
	rd_parse_os_release("ID=rocky\n", &os); /* no version: cannot tell */
	CHECK_INT(rd_os_release_rpmdb(&os), RD_RPMDB_NONE);
	/* "IDX=" is not ID=, control characters do not pass, long values are cut */
	rd_parse_os_release("IDX=rhel\nID=\"a\x01" "b\"\nVERSION_ID=123456789012345678901234567890123456789\n", &os);
	CHECK_STR(os.id, "a?b");
	CHECK_INT(strlen(os.version_id), sizeof os.version_id - 1);
}

RD_TEST(ib_info_kernel)
{
	char k[128];
	CHECK_INT(rd_parse_ib_info("#!/bin/bash\n\necho prefix=/usr\necho Kernel=5.14.0-427.13.1.el9_4.x86_64\necho\n", k, sizeof k), 0);
	CHECK_STR(k, "5.14.0-427.13.1.el9_4.x86_64");
	CHECK_INT(rd_parse_ib_info("prefix=/usr\nKernel=4.18.0-553.el8_10.x86_64\n", k, sizeof k), 0);
	CHECK_STR(k, "4.18.0-553.el8_10.x86_64");
	CHECK_INT(rd_parse_ib_info("echo \"Kernel=6.1.0-31-amd64\"\n", k, sizeof k), 0);
	CHECK_STR(k, "6.1.0-31-amd64");
	CHECK_INT(rd_parse_ib_info("echo Kernel=\nKernelX=1\n", k, sizeof k), -RD_EPARSE);
	CHECK_STR(k, "");
	char small[4];
	CHECK_INT(rd_parse_ib_info("Kernel=5.14.0\n", small, sizeof small), -RD_EPARSE);
}

RD_TEST(kmod_release_kernel)
{
	char k[128];
	CHECK_INT(rd_rpm_release_kernel("OFED.24.10.1.1.4.1.kver.5.14.0_427.13.1.el9_4.x86_64", k, sizeof k), 0);
	CHECK_STR(k, "5.14.0-427.13.1.el9_4.x86_64");
	CHECK_INT(rd_rpm_release_kernel("OFED.24.10.1.1.4.1.kver.4.18.0_553.el8_10.x86_64", k, sizeof k), 0);
	CHECK_STR(k, "4.18.0-553.el8_10.x86_64");
	CHECK_INT(rd_rpm_release_kernel("OFED.24.10.1.1.4.1.rhel9u4", k, sizeof k), -RD_EPARSE);
	CHECK_INT(rd_rpm_release_kernel("OFED.1.kver.", k, sizeof k), -RD_EPARSE);
	CHECK_INT(rd_rpm_release_kernel("OFED.1.kver.5.14.0", k, sizeof k), -RD_EPARSE);     /* no '_' */
	CHECK_INT(rd_rpm_release_kernel("OFED.1.kver._5", k, sizeof k), -RD_EPARSE);
	CHECK_INT(rd_rpm_release_kernel("OFED.1.kver.5_1/../x", k, sizeof k), -RD_EPARSE);    /* not a kernel name */
	CHECK_INT(rd_rpm_release_kernel("OFED.1.xkver.5_1", k, sizeof k), -RD_EPARSE);        /* not at a '.' */
	char small[8];
	CHECK_INT(rd_rpm_release_kernel("OFED.1.kver.5.14.0_427", small, sizeof small), -RD_EPARSE);
	CHECK(rd_rpm_version_is_ofed("2410mlnx54"));
	CHECK(!rd_rpm_version_is_ofed("48.0"));
}

RD_TEST(child_answer)
{
	struct rd_rpmdb r;
	memset(&r, 0, sizeof r);
	const char *a = "P\trdma-core\t0\t2410mlnx54\t1.2410068\tx86_64\n"
			"P\tbash\t0\t5.1\t1\tx86_64\n"                  /* not looked for */
			"P\tmft\t2\t4.30.0\t139\tx86_64\n"               /* an epoch */
			"P\tlibibverbs\t0\t1\t1\n"                       /* a field short */
			"P\tlibibverbs\t0\t1\t1\tx\textra\n"             /* a field too many */
			"P\tlibibverbs\t-1\t1\t1\tx\n"                   /* a bad epoch */
			"T\t812\n";
	CHECK_INT(rd_rpm_parse_answer(a, strlen(a), &r), 0);
	CHECK_INT(r.npkgs, 2);
	CHECK_INT(r.headers, 812);
	CHECK_STR(r.pkgs[0].evr, "2410mlnx54-1.2410068");
	CHECK_STR(r.pkgs[1].evr, "2:4.30.0-139");
	CHECK(rd_rpmdb_find(&r, "mft") == &r.pkgs[1]);
	CHECK(rd_rpmdb_find(&r, "bash") == NULL);
	rd_rpmdb_free(&r);
	/* a child that died mid-answer: no T line, and a cut line is not taken */
	const char *cut = "P\trdma-core\t0\t48.0\t1.el9\tx86_64\nP\tmft\t0\t4";
	CHECK_INT(rd_rpm_parse_answer(cut, strlen(cut), &r), -RD_EPARSE);
	CHECK_INT(r.npkgs, 1);
	rd_rpmdb_free(&r);
	r.path = strdup("/var/lib/rpm/Packages");
	const char *e = "E\tcannot open Packages index\x01\n";
	CHECK_INT(rd_rpm_parse_answer(e, strlen(e), &r), 0);
	CHECK_INT(r.err, RD_EPARSE);
	CHECK_STR(r.reason, "/var/lib/rpm/Packages cannot be read: librpm: cannot open Packages index");
	rd_rpmdb_free(&r);
}

RD_TEST(stack_from_packages)
{
	struct rd_rpmdb r;
	memset(&r, 0, sizeof r);
	struct rd_stack st;
	memset(&st, 0, sizeof st);
	CHECK(!rd_rpmdb_stack(&r, &st)); /* not an rpm host */
	r.consulted = true;
	r.path = strdup("/var/lib/rpm/rpmdb.sqlite");
	const char *inbox = "P\trdma-core\t0\t48.0\t1.el9\tx86_64\nT\t500\n";
	rd_rpm_parse_answer(inbox, strlen(inbox), &r);
	CHECK(rd_rpmdb_stack(&r, &st));
	CHECK_INT(st.installed, RD_STACK_INBOX);
	CHECK_STR(st.version, "rdma-core 48.0-1.el9");
	CHECK_STR(st.installed_by, "/var/lib/rpm/rpmdb.sqlite");
	free(r.pkgs), r.pkgs = NULL, r.npkgs = 0;
	const char *user = "P\tlibibverbs\t0\t2410mlnx54\t1\tx86_64\nT\t500\n";
	rd_rpm_parse_answer(user, strlen(user), &r);
	memset(&st, 0, sizeof st);
	rd_rpmdb_stack(&r, &st);
	CHECK_INT(st.installed, RD_STACK_OFED);
	free(r.pkgs), r.pkgs = NULL, r.npkgs = 0;
	const char *doca = "P\tmlnx-ofa_kernel\t0\t24.10\tOFED.24.10.1.1.4.1\tx86_64\nP\tdoca-ofed-userspace\t0\t2.9.1\t1\tx86_64\nT\t9\n";
	rd_rpm_parse_answer(doca, strlen(doca), &r);
	memset(&st, 0, sizeof st);
	rd_rpmdb_stack(&r, &st);
	CHECK_INT(st.installed, RD_STACK_DOCA_OFED);
	CHECK_STR(st.version, "2.9.1-1");
	r.err = EIO;
	snprintf(r.reason, sizeof r.reason, "/var/lib/rpm/rpmdb.sqlite cannot be read: x");
	memset(&st, 0, sizeof st);
	rd_rpmdb_stack(&r, &st);
	CHECK_INT(st.installed, RD_STACK_UNKNOWN);
	CHECK_STR(st.unknown_why, "/var/lib/rpm/rpmdb.sqlite cannot be read: x");
	rd_rpmdb_free(&r);
}

/* ---- the child on the stand-in library ------------------------------------------------------ */

static char shim[4096];
static char root[200], tmp[256];

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	CHECK(f);
	fputs(text, f);
	fclose(f);
}

/* the root and its TMPDIR go when the test's process ends (the harness exits through atexit) */
static void teardown(void)
{
	if (root[0])
		rd_remove_tree(AT_FDCWD, root);
	if (tmp[0])
		rd_remove_tree(AT_FDCWD, tmp);
}

static void setup(void)
{
	static bool registered;
	if (!registered)
		registered = atexit(teardown) == 0;
	CHECK(readlink("/proc/self/exe", shim, sizeof shim - 32) > 0);
	snprintf(strrchr(shim, '/'), 32, "/librpmshim.so");
	CHECK(access(shim, R_OK) == 0);
	rd_test_mkdtemp(root, sizeof root, "rd-test-rpmdb");
	snprintf(tmp, sizeof tmp, "%s.tmp", root);
	CHECK(mkdir(tmp, 0700) == 0);
	setenv("TMPDIR", tmp, 1);
	char p[512];
	snprintf(p, sizeof p, "%s/etc", root);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/var", root);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/var/lib", root);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/var/lib/rpm", root);
	mkdir(p, 0755);
	put("etc/os-release", "ID=rocky\nVERSION_ID=9.4\n");
	put("var/lib/rpm/rpmdb.sqlite", "not read by the shim");
}

static bool tmp_empty(void)
{
	DIR *d = opendir(tmp);
	CHECK(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n == 0;
}

static void load(const char *mode, int run_timeout_ms, struct rd_rpmdb *r, long long *ms)
{
	setenv("RD_RPMSHIM", mode, 1);
	struct rd_source *src;
	char err[256];
	CHECK_INT(rd_source_open(root, &src, err, sizeof err), 0);
	if (run_timeout_ms)
		rd_source_set_deadlines(src, 0, run_timeout_ms);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	rd_rpmdb_load_with(src, false, shim, r);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*ms = (b.tv_sec - a.tv_sec) * 1000LL + (b.tv_nsec - a.tv_nsec) / 1000000;
	rd_source_close(src);
}

RD_TEST(child_hang_is_killed_at_the_deadline)
{
	setup();
	struct rd_rpmdb r;
	long long ms;
	load("hang", 400, &r, &ms);
	CHECK(r.consulted);
	CHECK_INT(r.err, ETIMEDOUT);
	CHECK(strstr(r.reason, "/var/lib/rpm/rpmdb.sqlite cannot be read: librpm did not finish within") == r.reason);
	CHECK(ms < 5000); /* not RD_RPMDB_TIMEOUT_MS: the run's deadline */
	CHECK(tmp_empty());
	CHECK(!rd_test_mapped("librpmshim"));
	rd_rpmdb_free(&r);
}

RD_TEST(child_crash_error_and_answer)
{
	setup();
	struct rd_rpmdb r;
	long long ms;
	load("crash", 0, &r, &ms);
	CHECK_INT(r.err, EIO);
	/* a signal; under ASan its SEGV handler reports and exits 1 instead */
	CHECK(strstr(r.reason, "librpm died of signal 11") || strstr(r.reason, "librpm exited with status 1"));
	CHECK(tmp_empty());
	rd_rpmdb_free(&r);
	load("error", 0, &r, &ms);
	CHECK_INT(r.err, RD_EPARSE);
	CHECK_STR(r.reason, "/var/lib/rpm/rpmdb.sqlite cannot be read: librpm: cannot open Packages database in /x");
	rd_rpmdb_free(&r);
	load("two", 0, &r, &ms);
	CHECK_INT(r.err, 0);
	CHECK_INT(r.headers, 2);
	CHECK_INT(r.npkgs, 1);
	CHECK_STR(r.pkgs[0].evr, "48.0?x-1.el9");
	CHECK_INT(r.backend, RD_RPMDB_SQLITE);
	CHECK_STR(r.path, "/var/lib/rpm/rpmdb.sqlite");
	CHECK(tmp_empty());
	CHECK(!rd_test_mapped("librpmshim") && !rd_test_mapped("librpm.so"));
	rd_rpmdb_free(&r);
	/* a missing library: UNKNOWN with the reason */
	struct rd_source *src;
	char err[256];
	CHECK_INT(rd_source_open(root, &src, err, sizeof err), 0);
	rd_rpmdb_load_with(src, false, "librpm-does-not-exist.so.9", &r);
	CHECK_INT(r.err, RD_EPARSE);
	CHECK(strstr(r.reason, "(apt-get install librpm9)"));
	rd_rpmdb_free(&r);
	/* a dpkg host whose os-release is not an rpm distribution: the database is not looked at */
	put("etc/os-release", "ID=debian\nVERSION_ID=12\n");
	rd_rpmdb_load_with(src, true, shim, &r);
	CHECK(!r.consulted);
	CHECK(r.path == NULL);
	rd_rpmdb_free(&r);
	rd_source_close(src);
}

/* SIGTERM while librpm runs: the child is killed, the private copy removed, and the signal still
 * ends the process (raised again after the clean-up) */
RD_TEST(signal_while_librpm_runs_removes_the_copy)
{
	setup();
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct rd_rpmdb r;
		long long ms;
		load("hang", 0, &r, &ms); /* RD_RPMDB_TIMEOUT_MS: only the signal ends it */
		_exit(0);
	}
	/* the private directory exists once the copy is being made (the signals held by then) */
	bool made = false;
	for (int i = 0; i < 4000 && !made; i++) {
		made = !tmp_empty();
		struct timespec ts = {0, 5 * 1000000L};
		if (!made)
			nanosleep(&ts, NULL);
	}
	CHECK(made);
	CHECK(kill(pid, SIGTERM) == 0);
	int status = 0;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	CHECK(tmp_empty());
}

static void sized(const char *rel, off_t len, bool allocate)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(allocate ? posix_fallocate(fd, 0, len) == 0 : ftruncate(fd, len) == 0);
	close(fd);
}

/* what is copied for librpm is bounded before anything is read: a sparse file (its length, not
 * its blocks, is what a copy costs) and files too big together are refused, saying so; no copy
 * is made and librpm does not run (the shim would answer) */
RD_TEST(sparse_or_too_big_database_is_not_copied)
{
	setup();
	struct rd_rpmdb r;
	long long ms;
	sized("var/lib/rpm/rpmdb.sqlite-wal", 200 << 20, false);
	load("two", 0, &r, &ms);
	CHECK_INT(r.err, EFBIG);
	CHECK(strstr(r.reason, "/var/lib/rpm/rpmdb.sqlite cannot be read: rpmdb.sqlite-wal is sparse (200 MiB of it is "
			       "not on disk") == r.reason);
	CHECK(tmp_empty());
	rd_rpmdb_free(&r);
	sized("var/lib/rpm/rpmdb.sqlite-wal", 0, false);
	sized("var/lib/rpm/rpmdb.sqlite", 300 << 20, true);
	load("two", 0, &r, &ms);
	CHECK_INT(r.err, EFBIG);
	CHECK(strstr(r.reason, "/var/lib/rpm/rpmdb.sqlite cannot be read: too big to copy for librpm (300 MiB long") ==
	      r.reason);
	CHECK(tmp_empty());
	rd_rpmdb_free(&r);
	/* within the bounds, the same files are read */
	sized("var/lib/rpm/rpmdb.sqlite", 1 << 20, true);
	load("two", 0, &r, &ms);
	CHECK_INT(r.err, 0);
	CHECK_INT(r.npkgs, 1);
	CHECK(tmp_empty());
	rd_rpmdb_free(&r);
}
