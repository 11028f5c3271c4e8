/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The guarded load (guard.h): one loader thread at a time, this thread its watcher. */
#include "run/guard.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "source/watchdog.h"
#include "util/util.h"

struct loader {
	rd_guard_fn fn;
	const void *arg;
	void *out;
	bool replay;
	bool done; /* under mu */
	int ret;
	pthread_t thread;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv; /* on CLOCK_MONOTONIC, made once */
static pthread_once_t cv_once = PTHREAD_ONCE_INIT;

/* The abandoned loaders and what each had built in out, set aside: never freed (a frozen loader
 * still points at its own and into what it built), and so still reachable. */
static void **abandoned;
static unsigned nabandoned;

static void cv_init(void)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the watch's times are monotonic */
	pthread_cond_init(&cv, &ca);
	pthread_condattr_destroy(&ca);
}

static void *loader_main(void *arg)
{
	struct loader *l = arg;
	rd_watch_loader(l->replay);
	int r = l->fn(l->out, l->arg);
	pthread_mutex_lock(&mu);
	l->ret = r;
	l->done = true;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static struct loader *loader_new(rd_guard_fn fn, const void *arg, void *out, bool replay)
{
	struct loader *l = rd_xcalloc(1, sizeof *l);
	l->fn = fn;
	l->arg = arg;
	l->out = out;
	l->replay = replay;
	return l;
}

int rd_guard_load(rd_guard_fn load, const void *arg, void *out, size_t size)
{
	pthread_once(&cv_once, cv_init);
	memset(out, 0, size);
	rd_watch_begin();
	struct loader *l = loader_new(load, arg, out, false);
	bool threaded = pthread_create(&l->thread, NULL, loader_main, l) == 0;
	if (!threaded) /* no thread: the load on this one, its reads plain */
		l->ret = load(out, arg);
	pthread_mutex_lock(&mu);
	while (threaded && !l->done) {
		long long next;
		char path[4096];
		if (rd_watch_poll(rd_mono_ms(), &next, path, sizeof path)) {
			/* the loader is frozen (it never writes to out again): what it built is set
			 * aside, and a new one builds out afresh, replaying the log */
			pthread_detach(l->thread);
			void *kept = rd_xmalloc(size ? size : 1);
			memcpy(kept, out, size);
			memset(out, 0, size);
			abandoned = rd_xrealloc(abandoned, (nabandoned + 2) * sizeof *abandoned);
			abandoned[nabandoned++] = kept;
			abandoned[nabandoned++] = l;
			l = loader_new(load, arg, out, true);
			if (pthread_create(&l->thread, NULL, loader_main, l) != 0) {
				pthread_mutex_unlock(&mu);
				rd_watch_loader(true); /* no thread: the replay on this one, unwatched */
				l->ret = load(out, arg);
				pthread_mutex_lock(&mu);
				threaded = false;
			}
			continue;
		}
		struct timespec until = {(time_t)(next / 1000), (long)(next % 1000) * 1000000L};
		pthread_cond_timedwait(&cv, &mu, &until);
	}
	pthread_mutex_unlock(&mu);
	if (threaded)
		pthread_join(l->thread, NULL);
	rd_watch_end();
	int r = l->ret;
	free(l);
	return r;
}
