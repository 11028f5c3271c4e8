/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The history directory (run/historydir.c): DIR/HOST/EPOCH.json written by a rename, the modes,
 * the host made safe as a file name, links refused, the ownership rule, the pruning of the
 * writer's own old files only, and a failure that leaves nothing behind. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "run/historydir.h"
#include "util/util.h"

static void fill(FILE *f, void *arg)
{
	fputs(arg ? (const char *)arg : "{}\n", f);
}

static bool exists(const char *dir, const char *name)
{
	char *p = rd_path_join(dir, name);
	struct stat sb;
	bool r = lstat(p, &sb) == 0;
	free(p);
	return r;
}

static void touch(const char *dir, const char *name)
{
	char *p = rd_path_join(dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	free(p);
}

static size_t entries(const char *dir)
{
	char *cmd = rd_xasprintf("ls -A '%s' | wc -l", dir);
	FILE *p = popen(cmd, "r");
	free(cmd);
	size_t n = 0;
	if (p) {
		if (fscanf(p, "%zu", &n) != 1)
			n = (size_t)-1;
		pclose(p);
	}
	return n;
}

static char *scratch(void)
{
	const char *t = getenv("TMPDIR");
	char *tmpl = rd_xasprintf("%s/rd-test-hist.XXXXXX", t && *t ? t : "/tmp");
	CHECK(mkdtemp(tmpl) != NULL);
	CHECK_INT(chmod(tmpl, 0755), 0);
	return tmpl;
}

static void remove_tree(char *top)
{
	char *cmd = rd_xasprintf("rm -rf '%s'", top);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	free(top);
}

RD_TEST(histdir_names)
{
	long long t = 0;
	CHECK(rd_histdir_name("1764460800.json", &t) && t == 1764460800);
	CHECK(rd_histdir_name("0.json", &t) && t == 0);
	CHECK(rd_histdir_name(".1764460800.json.tmp-123-0", &t) && t == 1764460800);
	static const char *const not[] = {"", ".json", "01.json", "12.json~", "12.jsonx", "12.JSON", "x12.json",
					  "12.json.tmp-1-0", ".12.json", ".12.json.tmp-", ".12.json.tmp-1",
					  ".12.json.tmp-1-", ".12.json.tmp-1-0x", "1234567890123456789.json",
					  "-12.json", "+12.json", " 12.json", "12 .json", "node.err"};
	for (size_t i = 0; i < sizeof not / sizeof not[0]; i++)
		if (rd_histdir_name(not[i], &t))
			rd_test_fail(__FILE__, __LINE__, "'%s' taken for a report's name", not[i]);
}

RD_TEST(histdir_write_modes_and_safe_host)
{
	char *top = scratch();
	char *dir = rd_path_join(top, "hist");
	char err[1024] = "";
	size_t pruned = 9;
	mode_t old = umask(022);
	/* DIR is made (its parent exists), DIR/HOST with 0755, the file 0644, written whole */
	CHECK_INT(rd_histdir_write(dir, "gpu-a01", 1764460800, 8, fill, "{\"a\": 1}\n", &pruned, err, sizeof err), 0);
	CHECK_INT((int)pruned, 0);
	char *hdir = rd_path_join(dir, "gpu-a01"), *file = rd_path_join(hdir, "1764460800.json");
	struct stat sb;
	CHECK_INT(lstat(hdir, &sb), 0);
	CHECK(S_ISDIR(sb.st_mode));
	CHECK_INT((int)(sb.st_mode & 07777), 0755);
	CHECK_INT(lstat(file, &sb), 0);
	CHECK(S_ISREG(sb.st_mode));
	CHECK_INT((int)(sb.st_mode & 07777), 0644);
	size_t len = 0;
	char *text = NULL;
	FILE *f = fopen(file, "r");
	CHECK(f != NULL);
	if (f) {
		text = rd_xcalloc(1, 64);
		len = fread(text, 1, 63, f);
		fclose(f);
	}
	CHECK_STR(text, "{\"a\": 1}\n");
	CHECK_INT((int)len, 9);
	free(text);
	CHECK_INT((int)entries(hdir), 1); /* no temporary file left */
	/* the same second again: the later report replaces the first */
	CHECK_INT(rd_histdir_write(dir, "gpu-a01", 1764460800, 8, fill, "{\"a\": 2}\n", &pruned, err, sizeof err), 0);
	CHECK_INT((int)entries(hdir), 1);
	/* a host name that is a path, or a hidden or parent name, is one safe name below DIR */
	CHECK_INT(rd_histdir_write(dir, "../../etc", 5, 8, fill, NULL, &pruned, err, sizeof err), 0);
	CHECK(exists(dir, "_._.._etc/5.json"));
	CHECK(!exists(top, "etc"));
	CHECK_INT(rd_histdir_write(dir, "..", 5, 8, fill, NULL, &pruned, err, sizeof err), 0);
	CHECK(exists(dir, "_./5.json"));
	CHECK_INT(rd_histdir_write(dir, "a/b", 5, 8, fill, NULL, &pruned, err, sizeof err), 0);
	CHECK(exists(dir, "a_b/5.json"));
	CHECK_INT(rd_histdir_write(dir, NULL, 5, 8, fill, NULL, &pruned, err, sizeof err), 0);
	CHECK(exists(dir, "localhost/5.json"));
	CHECK_INT((int)entries(dir), 5);
	umask(old);
	free(file);
	free(hdir);
	free(dir);
	remove_tree(top);
}

RD_TEST(histdir_links_and_owners_refused)
{
	char *top = scratch();
	char *dir = rd_path_join(top, "hist"), *elsewhere = rd_path_join(top, "elsewhere");
	CHECK_INT(mkdir(dir, 0755), 0);
	CHECK_INT(mkdir(elsewhere, 0755), 0);
	char *hlink = rd_path_join(dir, "gpu-a01");
	CHECK_INT(symlink(elsewhere, hlink), 0);
	char err[1024] = "";
	size_t pruned;
	/* a link in place of DIR/HOST: refused, nothing written where it points */
	int r = rd_histdir_write(dir, "gpu-a01", 100, 8, fill, NULL, &pruned, err, sizeof err);
	CHECK(r == -ELOOP || r == -ENOTDIR); /* O_NOFOLLOW|O_DIRECTORY on a link: ENOTDIR on Linux */
	CHECK(strstr(err, "gpu-a01: a symbolic link or not a directory") != NULL);
	CHECK_INT((int)entries(elsewhere), 0);
	/* a file there: the same */
	CHECK_INT(unlink(hlink), 0);
	touch(dir, "gpu-a01");
	CHECK(rd_histdir_write(dir, "gpu-a01", 100, 8, fill, NULL, &pruned, err, sizeof err) < 0);
	CHECK(strstr(err, "not a directory") != NULL);
	CHECK_INT(unlink(hlink), 0);
	/* DIR/HOST writable by others: refused by the state directory's rule */
	CHECK_INT(mkdir(hlink, 0755), 0);
	CHECK_INT(chmod(hlink, 0777), 0);
	CHECK_INT(rd_histdir_write(dir, "gpu-a01", 100, 8, fill, NULL, &pruned, err, sizeof err), -EPERM);
	CHECK(strstr(err, "refused: writable by others (mode 0777)") != NULL);
	CHECK_INT((int)entries(hlink), 0);
	CHECK_INT(chmod(hlink, 0755), 0);
	if (geteuid() == 0 && chown(hlink, 65534, 65534) == 0) {
		CHECK_INT(rd_histdir_write(dir, "gpu-a01", 100, 8, fill, NULL, &pruned, err, sizeof err), -EPERM);
		CHECK(strstr(err, "owned by uid 65534") != NULL);
		CHECK_INT(chown(hlink, 0, 0), 0);
	}
	/* a link in place of the report is replaced, never followed */
	char *target = rd_path_join(elsewhere, "victim");
	touch(elsewhere, "victim");
	char *rlink = rd_path_join(hlink, "100.json");
	CHECK_INT(symlink(target, rlink), 0);
	CHECK_INT(rd_histdir_write(dir, "gpu-a01", 100, 8, fill, "{\"b\": 1}\n", &pruned, err, sizeof err), 0);
	struct stat sb;
	CHECK_INT(lstat(rlink, &sb), 0);
	CHECK(S_ISREG(sb.st_mode));
	CHECK_INT(stat(target, &sb), 0);
	CHECK_INT((int)sb.st_size, 0);
	/* DIR itself named by a link this user made: followed, as --output's directory is */
	char *dlink = rd_path_join(top, "link");
	CHECK_INT(symlink("hist", dlink), 0);
	CHECK_INT(rd_histdir_write(dlink, "gpu-a01", 101, 8, fill, NULL, &pruned, err, sizeof err), 0);
	CHECK(exists(hlink, "101.json"));
	/* a directory that cannot be written: the reason names the path, nothing else changes */
	if (geteuid() != 0) {
		CHECK_INT(chmod(hlink, 0555), 0);
		CHECK_INT(rd_histdir_write(dir, "gpu-a01", 102, 8, fill, NULL, &pruned, err, sizeof err), -EACCES);
		CHECK(strstr(err, "102.json: cannot create a file in its directory") != NULL);
		CHECK_INT(chmod(hlink, 0755), 0);
	}
	/* DIR's parent missing: an error naming DIR */
	char *deep = rd_path_join(top, "no/such/dir");
	CHECK(rd_histdir_write(deep, "gpu-a01", 100, 8, fill, NULL, &pruned, err, sizeof err) < 0);
	CHECK(strstr(err, "no/such/dir") != NULL);
	free(deep);
	free(dlink);
	free(rlink);
	free(target);
	free(hlink);
	free(elsewhere);
	free(dir);
	remove_tree(top);
}

RD_TEST(histdir_prune_keeps_newer_and_foreign_files)
{
	char *top = scratch();
	char *dir = rd_path_join(top, "hist"), *hdir = rd_path_join(dir, "n1"), *other = rd_path_join(dir, "n2");
	CHECK_INT(mkdir(dir, 0755), 0);
	CHECK_INT(mkdir(hdir, 0755), 0);
	CHECK_INT(mkdir(other, 0755), 0);
	long long now = 1764460800, day = 86400;
	char name[64];
	/* the writer's reports: 9 and 8 days + 1 s old (removed), 8 days old exactly and newer (kept) */
	long long ages[] = {9 * day, 8 * day + 1, 8 * day, 7 * day, 1, 0};
	for (size_t i = 0; i < sizeof ages / sizeof ages[0]; i++) {
		snprintf(name, sizeof name, "%lld.json", now - ages[i]);
		touch(hdir, name);
	}
	snprintf(name, sizeof name, ".%lld.json.tmp-4242-0", now - 10 * day); /* a killed run's temporary file */
	touch(hdir, name);
	snprintf(name, sizeof name, ".%lld.json.tmp-4242-0", now - 60); /* a running one's */
	touch(hdir, name);
	/* not the writer's: kept, however old */
	touch(hdir, "1.json.bak");
	touch(hdir, "01.json");
	touch(hdir, "notes.txt");
	touch(hdir, "1.prom");
	char *sub = rd_path_join(hdir, "5.json");
	CHECK_INT(mkdir(sub, 0755), 0); /* a directory with a report's name */
	char *target = rd_path_join(top, "keep-me"), *lnk = rd_path_join(hdir, "6.json");
	touch(top, "keep-me");
	CHECK_INT(symlink(target, lnk), 0); /* a link with a report's name */
	/* another host's old reports are not this host's to remove */
	snprintf(name, sizeof name, "%lld.json", now - 30 * day);
	touch(other, name);
	char err[1024] = "";
	size_t pruned = 0;
	CHECK_INT(rd_histdir_write(dir, "n1", now, 8, fill, NULL, &pruned, err, sizeof err), 0);
	CHECK_INT((int)pruned, 3);
	snprintf(name, sizeof name, "%lld.json", now - 9 * day);
	CHECK(!exists(hdir, name));
	snprintf(name, sizeof name, "%lld.json", now - 8 * day - 1);
	CHECK(!exists(hdir, name));
	snprintf(name, sizeof name, ".%lld.json.tmp-4242-0", now - 10 * day);
	CHECK(!exists(hdir, name));
	for (size_t i = 2; i < sizeof ages / sizeof ages[0]; i++) {
		snprintf(name, sizeof name, "%lld.json", now - ages[i]);
		CHECK(exists(hdir, name));
	}
	snprintf(name, sizeof name, ".%lld.json.tmp-4242-0", now - 60);
	CHECK(exists(hdir, name));
	CHECK(exists(hdir, "1.json.bak") && exists(hdir, "01.json") && exists(hdir, "notes.txt") && exists(hdir, "1.prom"));
	CHECK(exists(hdir, "5.json") && exists(hdir, "6.json") && exists(top, "keep-me"));
	snprintf(name, sizeof name, "%lld.json", now - 30 * day);
	CHECK(exists(other, name));
	/* --history-days 1: the 7-day-old report goes too; the newest is kept */
	CHECK_INT(rd_histdir_write(dir, "n1", now, 1, fill, NULL, &pruned, err, sizeof err), 0);
	CHECK_INT((int)pruned, 2);
	snprintf(name, sizeof name, "%lld.json", now - 1);
	CHECK(exists(hdir, name));
	free(lnk);
	free(target);
	free(sub);
	free(other);
	free(hdir);
	free(dir);
	remove_tree(top);
}
