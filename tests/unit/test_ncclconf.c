/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* model/ncclconf.c: NCCL_IB_HCA / NCCL_SOCKET_IFNAME selection and the conf-file lines, case by
 * case from NCCL's own code (src/misc/utils.cc parseStringList, matchIf, matchPort, matchIfList;
 * src/transport/net_ib/init.cc for '^' and '='; src/misc/param.cc setEnvFile). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "model/ncclconf.h"
#include "source/source.h"
#include "util/util.h"

static const struct {
	const char *value, *name;
	int port;
	bool selected;
} cases[] = {
	{NULL, "mlx5_0", 1, true},               /* unset: every port */
	{"", "mlx5_0", 1, true},                 /* empty: the same */
	{"mlx5_0", "mlx5_0", 1, true},
	{"mlx5_0", "mlx5_0", 2, true},           /* no port: any port */
	{"mlx5_1", "mlx5_10", 1, true},          /* a prefix (NVIDIA/nccl #236) */
	{"mlx5_1", "mlx5_1", 1, true},
	{"=mlx5_1", "mlx5_10", 1, false},        /* '=': exact */
	{"=mlx5_1", "mlx5_1", 1, true},
	{"mlx5", "mlx5_3", 1, true},
	{"mlx5", "mlx4_0", 1, false},
	{"mlx5_0:1", "mlx5_0", 1, true},
	{"mlx5_0:1", "mlx5_0", 2, false},
	{"mlx5_0:", "mlx5_0", 2, true},          /* an empty port: any */
	{"mlx5_0:1,mlx5_1:2", "mlx5_1", 2, true},
	{"mlx5_0:1,mlx5_1:2", "mlx5_1", 1, false},
	{"^mlx5_0", "mlx5_0", 1, false},         /* '^': excluded */
	{"^mlx5_0", "mlx5_1", 1, true},
	{"^mlx5_1", "mlx5_10", 1, false},        /* excluded by prefix too */
	{"^=mlx5_1", "mlx5_10", 1, true},        /* '^' then '=' */
	{"^=mlx5_1", "mlx5_1", 1, false},
	{"=^mlx5_1", "mlx5_1", 1, false},        /* '=' first: "^mlx5_1" is a name */
	{"^", "mlx5_0", 1, false},               /* '^' of nothing: nothing is left */
	{"^mlx5_0:2", "mlx5_0", 1, true},
	{"^mlx5_0:2", "mlx5_0", 2, false},
	{",,mlx5_2,,", "mlx5_2", 1, true},       /* empty entries vanish (strtok) */
	{":1", "mlx5_0", 1, true},               /* an entry without a name is dropped: none left, every port */
	{"mlx5_0:x", "mlx5_0", 1, false},        /* atoi("x") is port 0 */
	{"mlx5_0:x", "mlx5_0", 0, true},
	{"mlx5_0:1:3", "mlx5_0", 1, true},       /* rail 3: not a port */
	{"eth", "eth0", -1, true},               /* an interface has no port */
	{"^docker,lo", "docker0", -1, false},
	{"^docker,lo", "lo", -1, false},
	{"^docker,lo", "ens1f0", -1, true},
	{"=eth0", "eth0", -1, true},
	{"=eth0", "eth01", -1, false},
};

RD_TEST(nccl_lists_select_as_nccl_does)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rd_nccl_list l;
		rd_nccl_list_parse(cases[i].value, &l);
		if (rd_nccl_list_selects(&l, cases[i].name, cases[i].port) != cases[i].selected)
			rd_test_fail(__FILE__, __LINE__, "NCCL_IB_HCA=%s %s:%d: expected %s", cases[i].value ? cases[i].value : "(unset)",
				     cases[i].name, cases[i].port, cases[i].selected ? "selected" : "not selected");
	}
}

RD_TEST(nccl_list_limits)
{
	struct rd_nccl_list l;
	char big[2000] = "";
	for (int i = 0; i < 40; i++)
		snprintf(big + strlen(big), sizeof big - strlen(big), "%sdev%d", i ? "," : "", i);
	rd_nccl_list_parse(big, &l);
	CHECK_INT(l.n, RD_NCCL_LIST_MAX); /* MAX_IB_DEVS entries at most: dev32.. are not read */
	CHECK_STR(l.e[31].prefix, "dev31");
	CHECK(rd_nccl_list_selects(&l, "dev31", 1) && !rd_nccl_list_selects(&l, "mlx5_0", 1));
	char longname[100];
	memset(longname, 'a', 99);
	longname[99] = '\0';
	rd_nccl_list_parse(longname, &l);
	CHECK_INT((int)strlen(l.e[0].prefix), RD_NCCL_PREFIX_MAX - 1); /* truncated as NCCL's prefix[64] */
	CHECK(rd_nccl_list_selects(&l, longname, 1));
	rd_nccl_list_parse("=mlx5_0:1", &l);
	CHECK(l.set && l.exact && !l.exclude && l.n == 1 && l.e[0].port == 1);
	CHECK_STR(l.e[0].prefix, "mlx5_0");
}

RD_TEST(nccl_conf_lines)
{
	struct rd_nccl_conf c = {0};
	static const char text[] = "# a comment\n"
				   "NCCL_IB_HCA==mlx5_0,mlx5_1\r\n"
				   "NCCL_IB_HCA=mlx5_9\n"      /* the first one stays (no overwrite) */
				   "no equals sign\n"
				   "=empty name\n"
				   " NCCL_IB_DISABLE=1\n"     /* the name is " NCCL_IB_DISABLE" */
				   "NCCL_DEBUG = INFO\n"      /* the name "NCCL_DEBUG " */
				   "NCCL_SOCKET_IFNAME=\n"    /* set, empty */
				   "NCCL_A=x=y\n"
				   "NCCL_LAST=no newline";
	rd_nccl_conf_parse(&c, "/etc/nccl.conf", text, sizeof text - 1);
	const char *file = NULL;
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_IB_HCA", &file), "=mlx5_0,mlx5_1");
	CHECK_STR(file, "/etc/nccl.conf");
	CHECK(rd_nccl_conf_get(&c, "NCCL_IB_DISABLE", NULL) == NULL);
	CHECK_STR(rd_nccl_conf_get(&c, " NCCL_IB_DISABLE", NULL), "1");
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_DEBUG ", NULL), " INFO");
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_SOCKET_IFNAME", NULL), "");
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_A", NULL), "x=y");
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_LAST", NULL), "no newline");
	CHECK(rd_nccl_conf_get(&c, "", NULL) == NULL);
	CHECK_INT(c.n, 6);
	/* a second file does not overwrite either */
	rd_nccl_conf_parse(&c, "/home/u/.nccl.conf", "NCCL_IB_HCA=mlx5_2\nNCCL_NEW=1\n", 30);
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_IB_HCA", NULL), "=mlx5_0,mlx5_1");
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_NEW", &file), "1");
	CHECK_STR(file, "/home/u/.nccl.conf");
	/* a NUL ends what fgets' line holds for strlen */
	static const char nul[] = "NCCL_X=ab\0cd\nNCCL_Y=2\n";
	rd_nccl_conf_parse(&c, "f", nul, sizeof nul - 1);
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_X", NULL), "ab");
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_Y", NULL), "2");
	c.nfiles = 0; /* the names given to parse are the caller's here */
	rd_nccl_conf_free(&c);
	CHECK_INT(c.n, 0);
}

RD_TEST(nccl_conf_long_values_are_cut_as_nccl_cuts_them)
{
	size_t len = 1500;
	char *text = malloc(len + 16);
	memcpy(text, "NCCL_V=", 7);
	memset(text + 7, 'v', len);
	text[7 + len] = '\n';
	struct rd_nccl_conf c = {0};
	rd_nccl_conf_parse(&c, "f", text, len + 8);
	CHECK_INT((int)strlen(rd_nccl_conf_get(&c, "NCCL_V", NULL)), 1023);
	free(text);
	rd_nccl_conf_free(&c);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char *path = rd_xasprintf("%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
	free(path);
}

static void gone(const char *dir, const char *rel)
{
	char *path = rd_xasprintf("%s/%s", dir, rel);
	CHECK(unlink(path) == 0 || rmdir(path) == 0);
	free(path);
}

/* The files through a source: NCCL_CONF_FILE over $HOME/.nccl.conf, then /etc/nccl.conf; a
 * relative NCCL_CONF_FILE is not guessed at. */
RD_TEST(nccl_conf_files_through_the_root)
{
	char dir[512];
	rd_test_mkdtemp(dir, sizeof dir, "rd-ncclconf");
	static const char *const dirs[] = {"etc", "home", "home/u"};
	for (size_t i = 0; i < 3; i++) {
		char *p = rd_xasprintf("%s/%s", dir, dirs[i]);
		CHECK(mkdir(p, 0755) == 0);
		free(p);
	}
	put(dir, "etc/nccl.conf", "NCCL_IB_HCA=mlx5_0\nNCCL_IB_DISABLE=1\n");
	put(dir, "home/u/.nccl.conf", "NCCL_IB_HCA=mlx5_3\n");
	put(dir, "job.conf", "NCCL_IB_DISABLE=0\n");
	struct rd_source *src;
	char err[200];
	CHECK_INT(rd_source_open(dir, &src, err, sizeof err), 0);
	struct rd_nccl_conf c;
	rd_nccl_conf_load(src, NULL, "/home/u", &c);
	CHECK_INT((int)c.nfiles, 2);
	CHECK_STR(c.files[0], "/home/u/.nccl.conf");
	CHECK_INT(c.errs[0], 0);
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_IB_HCA", NULL), "mlx5_3");
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_IB_DISABLE", NULL), "1");
	rd_nccl_conf_free(&c);
	rd_nccl_conf_load(src, "/job.conf", "/home/u", &c); /* NCCL_CONF_FILE: ~/.nccl.conf is not read */
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_IB_HCA", NULL), "mlx5_0");
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_IB_DISABLE", NULL), "0");
	rd_nccl_conf_free(&c);
	rd_nccl_conf_load(src, "job.conf", NULL, &c);
	CHECK_INT(c.errs[0], EINVAL);
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_IB_DISABLE", NULL), "1");
	rd_nccl_conf_free(&c);
	rd_nccl_conf_load(src, NULL, "/nowhere", &c);
	CHECK_INT(c.errs[0], ENOENT);
	rd_nccl_conf_free(&c);
	rd_source_close(src);
	static const char *const files[] = {"etc/nccl.conf", "home/u/.nccl.conf", "job.conf", "home/u", "home", "etc", ""};
	for (size_t i = 0; i < 7; i++)
		gone(dir, files[i]);
}

/* A process's environ block: only NCCL_* and HOME are kept, the first of a name wins (getenv), and
 * the kept bytes are those entries alone. */
RD_TEST(nccl_environ_keeps_only_nccl_and_home)
{
	static const char block[] = "AWS_SECRET_ACCESS_KEY=hunter2\0NCCL_IB_HCA==mlx5_0\0HOME=/home/u\0"
				    "NCCL_IB_HCA=mlx5_9\0NCCL_\0=x\0NCCL_NOEQ\0HOMEDIR=/x\0NCCL_A=x=y\0"
				    "NCCL_LAST=no nul";
	struct rd_nccl_conf c = {0};
	char kept[sizeof block];
	size_t n = rd_nccl_environ_parse(&c, "the environment of process 7", block, sizeof block - 1, kept);
	const char *from = NULL;
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_IB_HCA", &from), "=mlx5_0");
	CHECK_STR(from, "the environment of process 7");
	CHECK_STR(rd_nccl_conf_get(&c, "HOME", NULL), "/home/u");
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_A", NULL), "x=y");
	CHECK_STR(rd_nccl_conf_get(&c, "NCCL_LAST", NULL), "no nul");
	CHECK(rd_nccl_conf_get(&c, "AWS_SECRET_ACCESS_KEY", NULL) == NULL);
	CHECK(rd_nccl_conf_get(&c, "HOMEDIR", NULL) == NULL);
	CHECK(rd_nccl_conf_get(&c, "NCCL_", NULL) == NULL);
	CHECK_INT((int)c.n, 4);
	static const char want[] = "NCCL_IB_HCA==mlx5_0\0HOME=/home/u\0NCCL_A=x=y\0NCCL_LAST=no nul\0";
	CHECK_INT((int)n, (int)sizeof want - 1);
	CHECK(memcmp(kept, want, n) == 0);
	CHECK(memmem(kept, n, "hunter2", 7) == NULL);
	rd_nccl_conf_free(&c);
	CHECK_INT((int)rd_nccl_environ_parse(&c, "x", "", 0, kept), 0);
	CHECK_INT((int)c.n, 0);
}

/* --env-from through a source: read in the root, recorded with the NCCL entries only; a process
 * that is not there is an error, and pid 0 is this process's own environment (getenv). */
RD_TEST(nccl_environ_through_the_root_and_recorded_redacted)
{
	char dir[512];
	rd_test_mkdtemp(dir, sizeof dir, "rd-ncclenv");
	char *p = rd_xasprintf("%s/proc", dir), *q = rd_xasprintf("%s/proc/42", dir), *f = rd_xasprintf("%s/proc/42/environ", dir);
	CHECK(mkdir(p, 0755) == 0 && mkdir(q, 0755) == 0);
	static const char block[] = "TOKEN=s3cret\0NCCL_IB_HCA=mlx5\0HOME=/root\0";
	FILE *fp = fopen(f, "w");
	CHECK(fp != NULL);
	fwrite(block, 1, sizeof block - 1, fp);
	fclose(fp);
	struct rd_source *src;
	char err[200];
	CHECK_INT(rd_source_open(dir, &src, err, sizeof err), 0);
	struct rd_recording rec = {0};
	rd_source_record(src, &rec);
	struct rd_nccl_environ e;
	rd_nccl_environ_load(src, 42, &e);
	rd_source_record(src, NULL);
	CHECK_INT(e.err, 0);
	CHECK_STR(e.path, "/proc/42/environ");
	const char *from = NULL;
	CHECK_STR(rd_nccl_environ_get(&e, "NCCL_IB_HCA", &from), "mlx5");
	CHECK_STR(from, "the environment of process 42");
	CHECK(rd_nccl_environ_get(&e, "TOKEN", NULL) == NULL);
	bool found = false;
	for (size_t i = 0; i < rec.n; i++)
		if (strcmp(rec.entries[i].path, "proc/42/environ") == 0) {
			found = true;
			CHECK(rec.entries[i].kind == RD_REC_FILE);
			CHECK(memmem(rec.entries[i].data, rec.entries[i].len, "s3cret", 6) == NULL);
			CHECK_INT((int)rec.entries[i].len, (int)strlen("NCCL_IB_HCA=mlx5") + 1 + (int)strlen("HOME=/root") + 1);
		}
	CHECK(found);
	rd_recording_free(&rec);
	rd_nccl_environ_free(&e);
	rd_nccl_environ_load(src, 43, &e);
	CHECK_INT(e.err, ENOENT);
	CHECK(rd_nccl_environ_get(&e, "NCCL_IB_HCA", NULL) == NULL);
	rd_nccl_environ_free(&e);
	rd_nccl_environ_load(src, 0, &e);
	setenv("NCCL_RD_UNIT_TEST", "1", 1);
	CHECK_STR(rd_nccl_environ_get(&e, "NCCL_RD_UNIT_TEST", &from), "1");
	CHECK_STR(from, "the environment");
	unsetenv("NCCL_RD_UNIT_TEST");
	rd_nccl_environ_free(&e);
	rd_source_close(src);
	CHECK(unlink(f) == 0 && rmdir(q) == 0 && rmdir(p) == 0 && rmdir(dir) == 0);
	free(p);
	free(q);
	free(f);
}
