/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "source/reader.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
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
	bool positional = req->positional;
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
		ssize_t n = positional ? pread(fd, buf + len, want, (off_t)len) : read(fd, buf + len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ESPIPE && positional) {
				/* a FIFO or a socket, left unread; a regular file that has no offsets is read */
				if (!known)
					known = fstat(fd, st) == 0;
				if (known && S_ISREG(st->st_mode) && len == 0) {
					positional = false;
					continue;
				}
				out->err = RD_ENOTREG;
				break;
			}
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
	if (alloc - len > 256) /* a chunk read into (size unknown): keep what the file held */
		buf = rd_xrealloc(buf, len + 1);
	buf[len] = '\0';
	out->len = len;
	out->data = buf;
	return 0;
}

/* ---- the run's log: what each read gave, for a takeover to answer the same ------------------- */

struct lent {
	char *key;          /* the path in the root, or "\1" + a command's name */
	int ret;            /* 0 or -errno */
	struct rd_text t;   /* data (when ret == 0), err, status */
	struct stat st;
	size_t cap;
	bool prefix_ok, single;
};

static struct {
	struct lent *v;
	size_t cap, used;   /* cap: 0 or a power of two */
} log_map;

static size_t key_hash(const char *k)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *k; k++)
		h = (h ^ (unsigned char)*k) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

static struct lent *log_find(const char *key)
{
	if (!log_map.used)
		return NULL;
	for (size_t i = key_hash(key) & (log_map.cap - 1);; i = (i + 1) & (log_map.cap - 1)) {
		if (!log_map.v[i].key)
			return NULL;
		if (strcmp(log_map.v[i].key, key) == 0)
			return &log_map.v[i];
	}
}

/* The entry of key, made (empty) when new; an existing one is replaced. */
static struct lent *log_put(const char *key)
{
	if ((log_map.used + 1) * 4 > log_map.cap * 3) {
		size_t ncap = log_map.cap ? log_map.cap * 2 : 256;
		struct lent *nv = rd_xcalloc(ncap, sizeof *nv);
		for (size_t i = 0; i < log_map.cap; i++)
			if (log_map.v[i].key) {
				size_t j = key_hash(log_map.v[i].key) & (ncap - 1);
				while (nv[j].key)
					j = (j + 1) & (ncap - 1);
				nv[j] = log_map.v[i];
			}
		free(log_map.v);
		log_map.v = nv;
		log_map.cap = ncap;
	}
	size_t i = key_hash(key) & (log_map.cap - 1);
	while (log_map.v[i].key && strcmp(log_map.v[i].key, key) != 0)
		i = (i + 1) & (log_map.cap - 1);
	struct lent *e = &log_map.v[i];
	if (e->key) {
		rd_text_free(&e->t);
	} else {
		e->key = rd_xstrdup(key);
		log_map.used++;
	}
	char *k = e->key;
	memset(e, 0, sizeof *e);
	e->key = k;
	return e;
}

static void log_free(void)
{
	for (size_t i = 0; i < log_map.cap; i++) {
		free(log_map.v[i].key);
		rd_text_free(&log_map.v[i].t);
	}
	free(log_map.v);
	memset(&log_map, 0, sizeof log_map);
}

static void text_copy(struct rd_text *dst, const struct rd_text *src)
{
	*dst = *src;
	dst->data = NULL;
	if (src->data) {
		dst->data = rd_xmalloc(src->len + 1);
		memcpy(dst->data, src->data, src->len);
		dst->data[src->len] = '\0';
	}
}

/* ---- the watchdog -------------------------------------------------------------------------------- */

/* The reader's word: bit 0 "in a read", bits 1-31 the generation of the thread that reads (0 the
 * first, n the n-th takeover), bits 32-63 a count of reads (so that one read is never taken for
 * the next).  The reader sets it before each read and clears bit 0 with a compare-and-swap after:
 * when the watchdog changed it meanwhile (it froze this reader), the reader stops for good. */
static _Atomic unsigned long long word;
static _Atomic long long read_started_ms;
static const char *_Atomic inflight;
static _Thread_local unsigned tls_gen;

static bool logging;              /* armed in this process (or in the parent of this child) */
static unsigned takeovers;
static rd_takeover_fn takeover_fn;
static void *takeover_arg;
static pid_t takeover_pid;

static struct {
	bool running, stop;
	pid_t pid;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	long long deadline_ms;
	int read_timeout_ms;
} wd = {.mu = PTHREAD_MUTEX_INITIALIZER};

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct takeover_start {
	unsigned gen;
	char *path;
};

static void *takeover_main(void *arg)
{
	struct takeover_start *s = arg;
	tls_gen = s->gen;
	char *path = s->path;
	free(s);
	takeover_fn(takeover_arg, path); /* runs the command again; it ends the process */
	free(path);
	return NULL;
}

/* Called with the reader frozen: its read is logged as timed out, and a new thread takes over. */
static void fire(unsigned gen)
{
	const char *key = atomic_load(&inflight);
	struct lent *e = log_put(key ? key : "");
	e->ret = -ETIMEDOUT;
	e->t.err = ETIMEDOUT;
	e->t.status = -1;
	takeovers++;
	struct takeover_start *s = rd_xcalloc(1, sizeof *s);
	s->gen = gen;
	s->path = rd_xstrdup(key ? key : "");
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	if (pthread_create(&t, &a, takeover_main, s) != 0) {
		/* no thread to take over: the frozen reader is all there is (the process waits for it) */
		free(s->path);
		free(s);
	}
	pthread_attr_destroy(&a);
}

static void *watchdog_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&wd.mu);
	while (!wd.stop) {
		long long now = now_ms(), wake = now + 250;
		unsigned long long w = atomic_load(&word);
		if (w & 1) {
			long long fire_at = atomic_load(&read_started_ms) + wd.read_timeout_ms;
			if (wd.deadline_ms && wd.deadline_ms < fire_at)
				fire_at = wd.deadline_ms;
			if (now >= fire_at) {
				unsigned gen = (unsigned)((w >> 1) & 0x7fffffffu) + 1;
				unsigned long long frozen = (w & ~0xffffffffull) | ((unsigned long long)gen << 1);
				if (atomic_compare_exchange_strong(&word, &w, frozen))
					fire(gen);
				continue;
			}
			if (fire_at < wake)
				wake = fire_at;
		}
		struct timespec until = {(time_t)(wake / 1000), (long)(wake % 1000) * 1000000L};
		pthread_cond_timedwait(&wd.cv, &wd.mu, &until);
	}
	pthread_mutex_unlock(&wd.mu);
	return NULL;
}

void rd_watchdog_takeover(rd_takeover_fn fn, void *arg)
{
	takeover_fn = fn;
	takeover_arg = arg;
	takeover_pid = getpid();
}

bool rd_watchdog_arm(long long *run_deadline_ms, int read_timeout_ms)
{
	pid_t pid = getpid();
	if (wd.running && wd.pid == pid) {
		*run_deadline_ms = wd.deadline_ms;
		return true;
	}
	if (!takeover_fn || takeover_pid != pid || read_timeout_ms <= 0)
		return false;
	wd.running = wd.stop = false;
	wd.pid = pid;
	wd.deadline_ms = *run_deadline_ms;
	wd.read_timeout_ms = read_timeout_ms;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* deadlines are on the monotonic clock */
	pthread_cond_init(&wd.cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&wd.thread, NULL, watchdog_main, NULL) != 0) {
		pthread_cond_destroy(&wd.cv);
		return false;
	}
	wd.running = true;
	logging = true;
	return true;
}

void rd_watchdog_disarm(void)
{
	if (!wd.running || wd.pid != getpid())
		return;
	pthread_mutex_lock(&wd.mu);
	wd.stop = true;
	pthread_cond_signal(&wd.cv);
	pthread_mutex_unlock(&wd.mu);
	pthread_join(wd.thread, NULL);
	pthread_cond_destroy(&wd.cv);
	wd.running = false;
	logging = false;
	log_free();
}

unsigned rd_watchdog_takeovers(void)
{
	return takeovers;
}

/* ---- reading under the watchdog ------------------------------------------------------------------ */

static void freeze(void)
{
	for (;;)
		pause(); /* the watchdog gave this read up: another thread goes on, and ends the process */
}

int rd_reader_read(const char *key, int fd, struct rd_read_req *req, struct rd_text *out)
{
	if (!logging)
		return rd_read_fd(fd, req, out);
	if (tls_gen) {
		struct lent *e = log_find(key);
		if (e && (e->ret == -ETIMEDOUT || (e->cap == req->cap && e->prefix_ok == req->prefix_ok &&
						   e->single == req->single))) {
			close(fd);
			text_copy(out, &e->t);
			if (e->st.st_mode)
				req->st = e->st;
			return e->ret;
		}
	}
	unsigned long long mine = (atomic_load(&word) & ~0xffffffffull) + (1ull << 32);
	mine |= (unsigned long long)tls_gen << 1;
	atomic_store(&read_started_ms, now_ms());
	atomic_store(&inflight, key);
	atomic_store(&word, mine | 1);
	int r = rd_read_fd(fd, req, out);
	unsigned long long expect = mine | 1;
	if (!atomic_compare_exchange_strong(&word, &expect, mine))
		freeze();
	if (out->len <= RD_CAP_ATTR) { /* a bigger file (a log, dpkg's status) is read again if need be */
		struct lent *e = log_put(key);
		e->ret = r;
		text_copy(&e->t, out);
		e->st = req->st;
		e->cap = req->cap;
		e->prefix_ok = req->prefix_ok;
		e->single = req->single;
	}
	return r;
}

bool rd_reader_command_logged(const char *name, struct rd_text *out)
{
	if (!logging)
		return false;
	char *key = rd_xasprintf("\1%s", name);
	struct lent *e = log_find(key);
	free(key);
	if (!e)
		return false;
	text_copy(out, &e->t);
	return true;
}

void rd_reader_command_log(const char *name, const struct rd_text *out)
{
	if (!logging)
		return;
	char *key = rd_xasprintf("\1%s", name);
	struct lent *e = log_put(key);
	free(key);
	e->ret = out->err ? -out->err : 0;
	text_copy(&e->t, out);
}
