/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* source/spawn.h: a program run without a shell, its descriptors closed, its output capped, its
 * deadline kept; a function run in a forked child. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "source/spawn.h"
#include "util/util.h"

static int run(const struct rd_spawn *s, struct rd_buf *b, int *st)
{
	memset(b, 0, sizeof *b);
	return rd_spawn_run(s, b, st);
}

RD_TEST(spawn_passes_words_without_a_shell)
{
	const char *argv[] = {"echo", "$HOME;", "`id`", "*", NULL};
	const struct rd_spawn s = {.argv = argv, .path = "/usr/bin:/bin", .timeout_ms = 5000, .cap = 1024};
	struct rd_buf b;
	int st;
	CHECK_INT(run(&s, &b, &st), 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_STR(b.data, "$HOME; `id` *\n");
	rd_buf_free(&b);
}

RD_TEST(spawn_sets_the_environment_asked_and_merges_stderr)
{
	const char *argv[] = {"env", NULL};
	const char *env[] = {"RD_SPAWN_TEST=yes", NULL};
	const struct rd_spawn s = {.argv = argv, .path = "/usr/bin:/bin", .env = env, .timeout_ms = 5000, .cap = 1 << 20};
	struct rd_buf b;
	int st;
	CHECK_INT(run(&s, &b, &st), 0);
	CHECK(strstr(b.data, "\nRD_SPAWN_TEST=yes\n") || strncmp(b.data, "RD_SPAWN_TEST=yes\n", 18) == 0);
	rd_buf_free(&b);
	CHECK(getenv("RD_SPAWN_TEST") == NULL); /* the child's only */
	const char *ls[] = {"ls", "/nonexistent-rd-spawn", NULL};
	const struct rd_spawn m = {.argv = ls, .path = "/usr/bin:/bin", .merge_stderr = true, .timeout_ms = 5000, .cap = 4096};
	CHECK_INT(run(&m, &b, &st), 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 0);
	CHECK(strstr(b.data, "nonexistent-rd-spawn") != NULL);
	rd_buf_free(&b);
}

RD_TEST(spawn_closes_the_descriptors_of_the_process)
{
	int fd = open("/dev/null", O_RDONLY); /* no O_CLOEXEC, as a library might open it */
	CHECK(fd > 2);
	char p[64];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	const char *argv[] = {"test", "-e", p, NULL};
	const struct rd_spawn s = {.argv = argv, .path = "/usr/bin:/bin", .timeout_ms = 5000, .cap = 64};
	struct rd_buf b;
	int st;
	CHECK_INT(run(&s, &b, &st), 0);
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), 1); /* not open in the child */
	rd_buf_free(&b);
	close(fd);
}

RD_TEST(spawn_kills_at_the_deadline)
{
	const char *argv[] = {"sleep", "20", NULL};
	const struct rd_spawn s = {.argv = argv, .path = "/usr/bin:/bin", .timeout_ms = 200, .cap = 64};
	struct rd_buf b;
	int st;
	long long t0 = rd_mono_ms();
	CHECK_INT(run(&s, &b, &st), -ETIMEDOUT);
	CHECK(rd_mono_ms() - t0 < 5000);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	rd_buf_free(&b);
}

/* Whether process pid still runs after a while (gone or a zombie: no). */
static bool alive_after(long pid)
{
	for (int i = 0; i < 250; i++) {
		char p[64], state = 0;
		snprintf(p, sizeof p, "/proc/%ld/stat", pid);
		FILE *f = fopen(p, "r");
		bool alive = f && fscanf(f, "%*d %*s %c", &state) == 1 && state != 'Z';
		if (f)
			fclose(f);
		if (!alive)
			return false;
		usleep(20000);
	}
	return true;
}

RD_TEST(spawn_reads_stderr_apart_and_kills_what_a_group_leaves)
{
	/* the child writes to both, leaves a grandchild holding the pipes, and ends: the run ends
	 * with it, standard error apart (capped), and the grandchild killed with the group */
	const char *argv[] = {"sh", "-c", "echo out; echo err >&2; echo more-err-past-the-cap >&2; sleep 30 & echo $! >&2", NULL};
	struct rd_buf err = {0};
	const struct rd_spawn s = {.argv = argv, .path = "/usr/bin:/bin", .timeout_ms = 20000, .cap = 64, .err = &err,
				   .err_cap = 4096, .own_group = true};
	struct rd_buf b;
	int st;
	long long t0 = rd_mono_ms();
	CHECK_INT(run(&s, &b, &st), 0);
	CHECK(rd_mono_ms() - t0 < 15000); /* not the grandchild's 30 s */
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_STR(b.data, "out\n");
	CHECK(strncmp(err.data, "err\nmore-err-past-the-cap\n", 26) == 0);
	long gc = strtol(err.data + 26, NULL, 10);
	CHECK(gc > 1);
	CHECK(!alive_after(gc));
	rd_buf_free(&b);
	rd_buf_free(&err);
	/* cut at err_cap */
	struct rd_spawn c = s;
	c.err_cap = 3;
	const char *argv2[] = {"sh", "-c", "echo abcdef >&2", NULL};
	c.argv = argv2;
	CHECK_INT(run(&c, &b, &st), 0);
	CHECK_STR(err.data, "abc");
	rd_buf_free(&b);
	rd_buf_free(&err);
}

RD_TEST(spawn_kills_the_whole_group_at_the_deadline)
{
	const char *argv[] = {"sh", "-c", "sleep 30 & echo $!; wait", NULL};
	const struct rd_spawn s = {.argv = argv, .path = "/usr/bin:/bin", .timeout_ms = 500, .cap = 64, .own_group = true};
	struct rd_buf b;
	int st;
	CHECK_INT(run(&s, &b, &st), -ETIMEDOUT);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	long gc = strtol(b.data, NULL, 10);
	CHECK(gc > 1);
	CHECK(!alive_after(gc));
	rd_buf_free(&b);
}

RD_TEST(spawn_ends_what_a_child_leaves_in_a_session_of_its_own)
{
	/* out of the group's reach (setsid), it comes to this process when its parent ends */
	CHECK_INT(rd_spawn_adopt_orphans(), 0);
	const char *argv[] = {"sh", "-c", "setsid sleep 30 > /dev/null 2>&1 & echo $!", NULL};
	const struct rd_spawn s = {.argv = argv, .path = "/usr/bin:/bin", .timeout_ms = 5000, .cap = 64, .own_group = true};
	struct rd_buf b;
	int st;
	CHECK_INT(run(&s, &b, &st), 0);
	long gc = strtol(b.data, NULL, 10);
	CHECK(gc > 1);
	CHECK(rd_spawn_end_orphans(5000) >= 1);
	CHECK(!alive_after(gc));
	CHECK_INT((int)rd_spawn_end_orphans(100), 0); /* nothing left */
	rd_buf_free(&b);
}

RD_TEST(spawn_caps_the_output)
{
	const char *argv[] = {"head", "-c", "100000", "/dev/zero", NULL};
	struct rd_spawn s = {.argv = argv, .path = "/usr/bin:/bin", .timeout_ms = 5000, .cap = 10000};
	struct rd_buf b;
	int st;
	CHECK_INT(run(&s, &b, &st), -EFBIG);
	CHECK(b.len <= 10000);
	rd_buf_free(&b);
	s.cap_keeps_reading = true;
	CHECK_INT(run(&s, &b, &st), 0);
	CHECK(b.len >= 10000 && b.len < 10000 + 4096);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	rd_buf_free(&b);
}

RD_TEST(spawn_finds_no_program_without_a_fork)
{
	const char *argv[] = {"rd-spawn-no-such-program", NULL};
	const struct rd_spawn s = {.argv = argv, .path = "/usr/bin:/bin", .timeout_ms = 5000, .cap = 64};
	struct rd_buf b;
	int st;
	CHECK_INT(run(&s, &b, &st), -ENOENT);
	CHECK(b.data == NULL);
	char dir[512];
	rd_test_mkdtemp(dir, sizeof dir, "rd-spawn");
	char *f = rd_xasprintf("%s/tool", dir);
	int fd = open(f, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	close(fd);
	int why = 0;
	CHECK(rd_spawn_find("tool", dir, &why) == NULL);
	CHECK_INT(why, EACCES);
	chmod(f, 0755);
	char *found = rd_spawn_find("tool", dir, &why);
	CHECK_STR(found, f);
	free(found);
	unlink(f);
	rmdir(dir);
	free(f);
}

static void answer(int fd, void *arg)
{
	const char *what = arg;
	if (strcmp(what, "hang") == 0)
		pause();
	if (write(fd, what, strlen(what)) < 0)
		_exit(3);
}

static volatile sig_atomic_t flag;

RD_TEST(spawn_runs_a_function_in_a_child)
{
	struct rd_spawn s = {.fn = answer, .arg = (void *)"the answer", .timeout_ms = 5000, .cap = 64, .stop = &flag};
	struct rd_buf b;
	int st;
	CHECK_INT(run(&s, &b, &st), 0);
	CHECK_STR(b.data, "the answer");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	rd_buf_free(&b);
	s.arg = (void *)"hang";
	flag = 1; /* a signal came: the child is killed */
	CHECK_INT(run(&s, &b, &st), -EINTR);
	CHECK(WIFSIGNALED(st));
	rd_buf_free(&b);
	flag = 0;
	s.timeout_ms = 300;
	CHECK_INT(run(&s, &b, &st), -ETIMEDOUT);
	rd_buf_free(&b);
}
