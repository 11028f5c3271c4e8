/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The guarded load (run/guard.h): a read that never returns (a pipe nobody writes, standing for a
 * wedged sysfs attribute) abandons its loader; the next one replays the log (the read before it
 * answered as it was, the wedged one ETIMEDOUT) and its result is the caller's; the command's
 * thread neither reads nor runs the load itself. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "run/guard.h"
#include "source/watchdog.h"

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct fds {
	int before[2]; /* a pipe with "one" in it, closed: read to its end */
	int wedged[2]; /* a pipe never written nor closed: its read blocks */
	int after[2];  /* "three" */
};

struct result {
	int before, wedged, after;
	char first[8], last[8];
	bool on_main;
};

static atomic_int runs;
static pthread_t main_thread;

static int read_one(const char *key, int fd, char *into, size_t len)
{
	struct rd_read_req req = {.cap = 64};
	struct rd_text t;
	int r = rd_reader_read(key, fd, &req, &t);
	if (into)
		snprintf(into, len, "%s", r == 0 ? t.data : "");
	rd_text_free(&t);
	return r;
}

/* Each loader gets descriptors of its own (a replay's read of the logged files must not read). */
static int load(void *out, const void *arg)
{
	const struct fds *f = arg;
	struct result *r = out;
	int n = atomic_fetch_add(&runs, 1);
	r->on_main = pthread_equal(pthread_self(), main_thread);
	long long deadline = mono_ms() + 5000;
	rd_watchdog_arm(&deadline, 200);
	r->before = read_one("sys/before", n == 0 ? f->before[0] : dup(f->before[0]), r->first, sizeof r->first);
	r->wedged = read_one("sys/wedged", n == 0 ? f->wedged[0] : dup(f->wedged[0]), NULL, 0);
	r->after = read_one("sys/after", dup(f->after[0]), r->last, sizeof r->last);
	return r->wedged;
}

RD_TEST(wedged_read_abandons_the_loader)
{
	struct fds f;
	CHECK_INT(pipe(f.before), 0);
	CHECK_INT(pipe(f.wedged), 0);
	CHECK_INT(pipe(f.after), 0);
	CHECK_INT(write(f.before[1], "one", 3), 3);
	CHECK_INT(write(f.after[1], "three", 5), 5);
	close(f.before[1]);
	close(f.after[1]);
	main_thread = pthread_self();
	struct result r;
	long long t0 = mono_ms();
	int ret = rd_guard_load(load, &f, &r, sizeof r);
	long long took = mono_ms() - t0;
	CHECK_INT(ret, -ETIMEDOUT);
	CHECK_INT(atomic_load(&runs), 2); /* the load again, not the caller */
	CHECK(!r.on_main);
	CHECK_INT(r.before, 0);
	CHECK_STR(r.first, "one"); /* from the log: the pipe was read to its end by the first loader */
	CHECK_INT(r.wedged, -ETIMEDOUT);
	CHECK_INT(r.after, 0);
	CHECK_STR(r.last, "three");
	CHECK(took >= 200 && took < 3000);
	/* after the load the caller's reads are plain ones: not logged, not answered from the log */
	int p[2];
	CHECK_INT(pipe(p), 0);
	CHECK_INT(write(p[1], "four", 4), 4);
	close(p[1]);
	char got[8];
	CHECK_INT(read_one("sys/wedged", p[0], got, sizeof got), 0);
	CHECK_STR(got, "four");
}

static int quick(void *out, const void *arg)
{
	(void)arg;
	*(int *)out = 42;
	return 7;
}

RD_TEST(load_that_returns_runs_once)
{
	int out = 0;
	CHECK_INT(rd_guard_load(quick, NULL, &out, sizeof out), 7);
	CHECK_INT(out, 42);
}
