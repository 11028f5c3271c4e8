/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "source/watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/map.h"
#include "util/util.h"

/* ---- the run's log: what each read gave, for a takeover to answer the same ------------------- */

/* The log's entries and the bytes they keep are carved from chunks that go together at the end of
 * the watch: logging a read is a copy, no allocation of its own.  An entry replaced stays there.
 * A chunk is mapped, not malloc'd: its free is an unmap, never a trim of the loader thread's malloc
 * arena (which reads /proc/sys/vm/overcommit_memory, a file outside the root). */
struct chunk {
	struct chunk *next;
	size_t used, cap, size; /* size: the mapping's (0: malloc'd); data 16-byte aligned */
	char data[];
};
static struct chunk *chunks;

static void *log_alloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!chunks || chunks->cap - chunks->used < n) {
		size_t size = sizeof(struct chunk) + n < 65536 ? 65536 : (sizeof(struct chunk) + n + 4095) & ~(size_t)4095;
		struct chunk *c = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		bool mapped = c != MAP_FAILED;
		if (!mapped)
			c = rd_xmalloc(size); /* (out of memory: as rd_xmalloc says it) */
		c->size = mapped ? size : 0;
		c->cap = size - sizeof *c;
		c->next = chunks;
		c->used = 0;
		chunks = c;
	}
	void *p = chunks->data + chunks->used;
	chunks->used += n;
	return p;
}

/* The entry of a path in the root, or of "\1" + a command's name. */
struct lent {
	int ret;            /* 0 or -errno */
	struct rd_text t;   /* data (when ret == 0, in the log's chunks), err, status */
	struct stat st;
	size_t cap;
	bool prefix_ok, single;
};

static struct rd_map log_map;

static struct lent *log_find(const char *key)
{
	struct rd_map_slot *s = rd_map_get(&log_map, key, strlen(key));
	return s ? s->val.p : NULL;
}

/* The entry of key, made (empty) when new; an existing one is replaced. */
static struct lent *log_put(const char *key)
{
	struct rd_map_slot *s = rd_map_put(&log_map, key, strlen(key), NULL);
	struct lent *e = s->val.p = log_alloc(sizeof *e);
	memset(e, 0, sizeof *e);
	return e;
}

static void log_free(void)
{
	rd_map_free(&log_map, NULL);
	while (chunks) {
		struct chunk *c = chunks;
		chunks = c->next;
		if (c->size)
			munmap(c, c->size);
		else
			free(c);
	}
}

/* src's bytes into dst: in the log's chunks (logging), or malloc'd for a reader (answering). */
static void text_copy(struct rd_text *dst, const struct rd_text *src, bool logging)
{
	*dst = *src;
	dst->data = NULL;
	if (src->data) {
		dst->data = logging ? log_alloc(src->len + 1) : rd_xmalloc(src->len + 1);
		memcpy(dst->data, src->data, src->len);
		dst->data[src->len] = '\0';
	}
}

/* ---- the watch ------------------------------------------------------------------------------------ */

/* The reader's word: bit 0 "in a read", bits 1-31 the generation of the loader that reads (each
 * loader of the process has its own), bits 32-63 a count of reads (so that one read is never taken
 * for the next).  A loader sets it before each read and clears bit 0 with a compare-and-swap after:
 * when the watcher changed it meanwhile (it froze this loader), the loader stops for good.  The
 * word is never reset, so that a frozen loader's compare-and-swap can never succeed later. */
static _Atomic unsigned long long word;
static _Atomic long long read_started_ms;
static const char *_Atomic inflight;
static _Atomic unsigned next_gen = 1; /* the generation the next loader takes */
static _Thread_local unsigned tls_gen;  /* 0: not a loader */
static _Thread_local bool tls_replay;

static struct {
	_Atomic bool on;
	unsigned forks; /* the process's forks count when the watch began */
	_Atomic unsigned gen; /* the current loader's */
	_Atomic long long deadline_ms;
	_Atomic int read_timeout_ms; /* 0: not armed */
} watch;

/* A child after fork is no loader: counted by an atfork handler (no getpid call per read). */
static unsigned forks;
static void forked(void)
{
	forks++;
}

/* The calling thread is the current loader of this process's watch. */
static bool loading(void)
{
	return tls_gen && atomic_load(&watch.on) && tls_gen == atomic_load(&watch.gen) && watch.forks == forks;
}

void rd_watch_begin(void)
{
	static bool atfork;
	if (!atfork)
		atfork = pthread_atfork(NULL, NULL, forked) == 0;
	/* without the handler, no watch: every read is a plain one */
	watch.forks = atfork ? forks : forks + 1;
	atomic_store(&watch.deadline_ms, 0);
	atomic_store(&watch.read_timeout_ms, 0);
	atomic_store(&watch.gen, 0);
	atomic_store(&watch.on, true);
}

void rd_watch_loader(bool replay)
{
	tls_gen = atomic_fetch_add(&next_gen, 1) & 0x7fffffffu;
	tls_replay = replay;
	atomic_store(&watch.gen, tls_gen);
}

void rd_watch_end(void)
{
	atomic_store(&watch.on, false);
	atomic_store(&watch.gen, 0);
	log_free();
}

bool rd_watchdog_arm(long long *run_deadline_ms, int read_timeout_ms)
{
	if (!loading() || read_timeout_ms <= 0)
		return false;
	if (atomic_load(&watch.read_timeout_ms)) {
		*run_deadline_ms = atomic_load(&watch.deadline_ms);
		return true;
	}
	atomic_store(&watch.deadline_ms, *run_deadline_ms);
	atomic_store(&watch.read_timeout_ms, read_timeout_ms);
	return true;
}

long long rd_watchdog_deadline(void)
{
	return atomic_load(&watch.on) && atomic_load(&watch.read_timeout_ms) ? atomic_load(&watch.deadline_ms) : 0;
}

bool rd_watch_poll(long long now, long long *next_ms, char *path, size_t pathlen)
{
	*next_ms = now + 250;
	int timeout = atomic_load(&watch.read_timeout_ms);
	unsigned long long w = atomic_load(&word);
	unsigned gen = (unsigned)((w >> 1) & 0x7fffffffu);
	if (!timeout || !(w & 1) || gen != atomic_load(&watch.gen))
		return false;
	long long fire_at = atomic_load(&read_started_ms) + timeout, deadline = atomic_load(&watch.deadline_ms);
	if (deadline && deadline < fire_at)
		fire_at = deadline;
	if (now < fire_at) {
		if (fire_at < *next_ms)
			*next_ms = fire_at;
		return false;
	}
	/* frozen: the loader's own compare-and-swap fails from now on (its generation is gone) */
	unsigned long long frozen = w & ~0xffffffffull;
	if (!atomic_compare_exchange_strong(&word, &w, frozen))
		return false; /* the read returned meanwhile */
	atomic_store(&watch.gen, 0);
	const char *key = atomic_load(&inflight);
	snprintf(path, pathlen, "%s", key ? key : "");
	struct lent *e = log_put(key ? key : "");
	e->ret = -ETIMEDOUT;
	e->t.err = ETIMEDOUT;
	e->t.status = -1;
	return true;
}

/* ---- reading under the watch --------------------------------------------------------------------- */

static void freeze(void)
{
	for (;;)
		pause(); /* the watch gave this read up: another loader goes on */
}

int rd_reader_read(const char *key, int fd, struct rd_read_req *req, struct rd_text *out)
{
	if (!loading())
		return rd_read_fd(fd, req, out);
	if (tls_replay) {
		struct lent *e = log_find(key);
		if (e && (e->ret == -ETIMEDOUT || (e->cap == req->cap && e->prefix_ok == req->prefix_ok &&
						   e->single == req->single))) {
			close(fd);
			text_copy(out, &e->t, false);
			if (e->st.st_mode)
				req->st = e->st;
			return e->ret;
		}
	}
	unsigned long long mine = (atomic_load(&word) & ~0xffffffffull) + (1ull << 32);
	mine |= (unsigned long long)tls_gen << 1;
	atomic_store(&read_started_ms, rd_mono_ms());
	atomic_store(&inflight, key);
	atomic_store(&word, mine | 1);
	int r = rd_read_fd(fd, req, out);
	unsigned long long expect = mine | 1;
	if (!atomic_compare_exchange_strong(&word, &expect, mine))
		freeze();
	if (out->len <= RD_CAP_ATTR) { /* a bigger file (a log, dpkg's status) is read again if need be */
		struct lent *e = log_put(key);
		e->ret = r;
		text_copy(&e->t, out, true);
		e->st = req->st;
		e->cap = req->cap;
		e->prefix_ok = req->prefix_ok;
		e->single = req->single;
	}
	return r;
}

bool rd_reader_command_logged(const char *name, struct rd_text *out)
{
	if (!loading() || !tls_replay)
		return false;
	char *key = rd_xasprintf("\1%s", name);
	struct lent *e = log_find(key);
	free(key);
	if (!e)
		return false;
	text_copy(out, &e->t, false);
	return true;
}

void rd_reader_command_log(const char *name, const struct rd_text *out)
{
	if (!loading())
		return;
	char *key = rd_xasprintf("\1%s", name);
	struct lent *e = log_put(key);
	free(key);
	e->ret = out->err ? -out->err : 0;
	text_copy(&e->t, out, true);
}
