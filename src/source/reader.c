#include "source/reader.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int rd_read_fd(int fd, struct rd_read_req *req, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	struct stat *st = &req->st;
	bool known = st->st_mode != 0;
	if (known && !S_ISREG(st->st_mode)) {
		out->err = RD_ENOTREG;
		close(fd);
		return -RD_ENOTREG;
	}
	size_t cap = req->cap;
	/* a size of 0 says nothing (procfs): such a file is read until a read gives 0 */
	bool sized = known && st->st_size > 0;
	/* the first read asks for what the file should hold: its size (+1 to see the end), one
	 * page for a sysfs attribute, else a chunk; it grows up to cap+1 to tell EFBIG.  A regular file
	 * of known size ends where a read comes back short. */
	size_t alloc = req->single ? cap
		     : sized && (uint64_t)st->st_size < cap ? (size_t)st->st_size + 1
		     : req->one_page ? 4096 : 8192;
	if (!req->single && alloc > cap + 1)
		alloc = cap + 1;
	if (alloc == 0)
		alloc = 1;
	char *buf = rd_xmalloc(alloc + 1);
	size_t len = 0;
	bool first = true;
	for (;;) {
		if (len == alloc) {
			if (len > cap)
				break;
			alloc = alloc * 2 > cap + 1 ? cap + 1 : alloc * 2;
			buf = rd_xrealloc(buf, alloc + 1);
		}
		size_t want = alloc - len;
		ssize_t n = read(fd, buf + len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			out->err = errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (req->single)
			break;
		if (len > cap)
			break;
		/* a sysfs attribute comes whole in its first read (at most a page); a regular file
		 * of known size ends where a read comes back short */
		if ((first && req->one_page && len < 4096) || (sized && (size_t)n < want))
			break;
		first = false;
	}
	if (len > cap) {
		if (req->prefix_ok)
			len = cap;
		else if (!out->err)
			out->err = EFBIG;
	}
	/* nothing or an error: only now is the kind worth a fstat (a directory, a FIFO...) */
	if (!known && (out->err || len == 0)) {
		if (fstat(fd, st) < 0)
			memset(st, 0, sizeof *st);
		if (!S_ISREG(st->st_mode))
			out->err = RD_ENOTREG;
	}
	close(fd);
	if (out->err) {
		free(buf);
		return -out->err;
	}
	buf[len] = '\0';
	out->len = len;
	out->data = buf;
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
	int fd;
	struct rd_read_req req;
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
		int fd = r->fd;
		struct rd_read_req req = r->req;
		pthread_mutex_unlock(&r->mu);
		struct rd_text out;
		int ret = rd_read_fd(fd, &req, &out);
		pthread_mutex_lock(&r->mu);
		r->has_job = false;
		if (r->abandoned) {
			rd_text_free(&out);
			break; /* nobody waits for it any more */
		}
		r->out = out;
		r->req = req;
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

int rd_reader_read(struct rd_reader **rp, int fd, struct rd_read_req *req, int timeout_ms, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	if (!*rp)
		*rp = start();
	struct rd_reader *r = *rp;
	if (!r) /* no thread: read here, without a deadline */
		return rd_read_fd(fd, req, out);
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
	r->req = *req;
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
	*req = r->req;
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
