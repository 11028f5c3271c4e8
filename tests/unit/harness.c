/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "harness.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_TESTS 512

static struct {
	const char *name;
	rd_test_fn fn;
} tests[MAX_TESTS];
static int ntests;

void rd_test_register(const char *name, rd_test_fn fn)
{
	if (ntests >= MAX_TESTS) {
		fprintf(stderr, "harness: too many tests\n");
		exit(2);
	}
	tests[ntests].name = name;
	tests[ntests].fn = fn;
	ntests++;
}

void rd_test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void rd_test_skip(const char *reason)
{
	/* the parent prints the reason: a skipped case names why, like a failed one */
	fprintf(stderr, "    skipped: %s\n", reason);
	exit(RD_TEST_SKIP_STATUS);
}

const char *rd_test_real_dir_or_skip(void)
{
	const char *d = rd_test_real_dir();
	if (!d)
		rd_test_skip("../shared/fixtures/real is absent (set RD_REAL_FIXTURES to its path)");
	return d;
}

char *rd_test_mkdtemp(char *buf, size_t len, const char *name)
{
	const char *t = getenv("TMPDIR");
	int n = snprintf(buf, len, "%s/%s.XXXXXX", t && *t ? t : "/tmp", name);
	if (n < 0 || (size_t)n >= len)
		rd_test_fail(__FILE__, __LINE__, "TMPDIR too long for %s", name);
	if (!mkdtemp(buf))
		rd_test_fail(__FILE__, __LINE__, "mkdtemp %s: %s", buf, strerror(errno));
	return buf;
}

const char *rd_test_dir(void)
{
	const char *d = getenv("RD_TESTS_DIR");
	return d && *d ? d : "tests";
}

const char *rd_test_real_dir(void)
{
	static char buf[4096];
	const char *d = getenv("RD_REAL_FIXTURES");
	struct stat st;
	if (!d || !*d) {
		snprintf(buf, sizeof buf, "%s/../../shared/fixtures/real", rd_test_dir());
		d = buf;
	}
	return stat(d, &st) == 0 && S_ISDIR(st.st_mode) ? d : NULL;
}

bool rd_test_mapped(const char *what)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	bool found = false;
	CHECK(f);
	while (fgets(line, sizeof line, f))
		found |= strstr(line, what) != NULL;
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	for (int i = 0; i < ntests; i++) {
		if (argc > 1) {
			int want = 0;
			for (int a = 1; a < argc; a++)
				want |= strcmp(argv[a], tests[i].name) == 0;
			if (!want)
				continue;
		}
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			alarm(60);
			tests[i].fn();
			exit(0); /* runs the test's atexit clean-ups */
		}
		int st = 0;
		while (waitpid(pid, &st, 0) < 0)
			;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			passed++;
			printf("ok   %s\n", tests[i].name);
		} else if (WIFEXITED(st) && WEXITSTATUS(st) == RD_TEST_SKIP_STATUS) {
			skipped++;
			printf("skip %s\n", tests[i].name);
		} else {
			failed++;
			if (WIFSIGNALED(st))
				printf("FAIL %s (signal %d)\n", tests[i].name, WTERMSIG(st));
			else
				printf("FAIL %s\n", tests[i].name);
		}
	}
	if (skipped)
		printf("%d skipped (each names its reason above)\n", skipped);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
