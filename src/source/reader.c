#include "source/reader.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int rd_read_fd(int fd, size_t cap, bool prefix_ok, bool single, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		out->err = RD_ENOTREG;
		close(fd);
		return -RD_ENOTREG;
	}
	struct rd_buf b = {0};
	char chunk[8192];
	for (;;) {
		size_t want = single && cap < sizeof chunk ? cap : sizeof chunk;
		ssize_t n = read(fd, chunk, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			out->err = errno;
			break;
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > cap) {
			if (prefix_ok) {
				rd_buf_add(&b, chunk, cap - b.len);
				break;
			}
			out->err = EFBIG;
			break;
		}
		rd_buf_add(&b, chunk, (size_t)n);
		if (single)
			break;
	}
	close(fd);
	if (out->err) {
		rd_buf_free(&b);
		return -out->err;
	}
	out->len = b.len;
	out->data = rd_buf_steal(&b);
	return 0;
}

/* Shared by the caller and the worker thread; the last one to let go frees it. */
struct rd_reader {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int refs;
	bool abandoned, quit;
	/* the job */
	bool has_job, done;
	int fd, slow_ms;
	size_t cap;
	bool prefix_ok, single;
	struct rd_text out;
	int ret;
	pthread_t thread;
};

static void unref(struct rd_reader *r)
{
	pthread_mutex_lock(&r->mu);
	bool last = --r->refs == 0;
	pthread_mutex_unlock(&r->mu);
	if (last) {
		rd_text_free(&r->out);
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		free(r);
	}
}

static void *worker(void *arg)
{
	struct rd_reader *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->has_job && !r->quit && !r->abandoned)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->quit || (r->abandoned && !r->has_job))
			break;
		int fd = r->fd, slow = r->slow_ms;
		size_t cap = r->cap;
		bool prefix_ok = r->prefix_ok, single = r->single;
		pthread_mutex_unlock(&r->mu);
		if (slow > 0) {
			struct timespec ts = {slow / 1000, (long)(slow % 1000) * 1000000L};
			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
		}
		struct rd_text out;
		int ret = rd_read_fd(fd, cap, prefix_ok, single, &out);
		pthread_mutex_lock(&r->mu);
		r->has_job = false;
		if (r->abandoned) {
			rd_text_free(&out);
			break; /* nobody waits for it any more */
		}
		r->out = out;
		r->ret = ret;
		r->done = true;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	unref(r);
	return NULL;
}

static struct rd_reader *start(void)
{
	struct rd_reader *r = rd_xcalloc(1, sizeof *r);
	pthread_mutex_init(&r->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* deadlines are on the monotonic clock */
	pthread_cond_init(&r->cv, &ca);
	pthread_condattr_destroy(&ca);
	r->refs = 2;
	/* joinable: rd_reader_stop waits for it; an abandoned one is detached */
	int e = pthread_create(&r->thread, NULL, worker, r);
	if (e) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		free(r);
		return NULL;
	}
	return r;
}

int rd_reader_read(struct rd_reader **rp, int fd, size_t cap, bool prefix_ok, bool single, int timeout_ms,
		   int slow_ms, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	if (!*rp)
		*rp = start();
	struct rd_reader *r = *rp;
	if (!r) /* no thread: read here, without a deadline */
		return rd_read_fd(fd, cap, prefix_ok, single, out);
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&r->mu);
	r->fd = fd;
	r->cap = cap;
	r->prefix_ok = prefix_ok;
	r->single = single;
	r->slow_ms = slow_ms;
	r->done = false;
	r->has_job = true;
	pthread_cond_broadcast(&r->cv);
	int e = 0;
	while (!r->done && e != ETIMEDOUT)
		e = pthread_cond_timedwait(&r->cv, &r->mu, &until);
	if (!r->done) {
		r->abandoned = true; /* the worker finishes (or not) alone, and frees itself */
		pthread_detach(r->thread);
		pthread_mutex_unlock(&r->mu);
		unref(r);
		*rp = NULL;
		out->err = ETIMEDOUT;
		return -ETIMEDOUT;
	}
	*out = r->out;
	memset(&r->out, 0, sizeof r->out);
	int ret = r->ret;
	pthread_mutex_unlock(&r->mu);
	return ret;
}

void rd_reader_stop(struct rd_reader *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->quit = true;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_t t = r->thread;
	unref(r);
	pthread_join(t, NULL); /* it is idle (never stop with a read in flight) and exits at once */
}
