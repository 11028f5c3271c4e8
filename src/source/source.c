/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "source/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "source/memtree.h"
#include "source/nodev.h"
#include "source/reader.h"

#define MAX_LINKS 40
#define PDIR_CACHE 64
#define DIR_CACHE 64 /* a power of two */
#define READ_ERRORS_FILE "rdma-doctor/read-errors"
#define COMMANDS_DIR "rdma-doctor/commands"

/* ---- a string map (open addressing, grown when 3/4 full) ---------------------------------- */

struct smap {
	char **keys;
	void **vals;
	size_t cap, used; /* cap: 0 or a power of two */
};

static size_t str_hash(const char *k)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *k; k++)
		h = (h ^ (unsigned char)*k) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

static size_t strn_hash(const char *k, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

/* The slot holding k, or the empty slot where it would go (cap > 0). */
static size_t smap_slot(const struct smap *m, const char *k)
{
	size_t i = str_hash(k) & (m->cap - 1);
	while (m->keys[i] && strcmp(m->keys[i], k) != 0)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void **smap_get(const struct smap *m, const char *k)
{
	if (!m->used)
		return NULL;
	size_t i = smap_slot(m, k);
	return m->keys[i] ? &m->vals[i] : NULL;
}

/* The value slot of k, inserted (a copy of k, value NULL) when absent; *isnew says which. */
static void **smap_put(struct smap *m, const char *k, bool *isnew)
{
	if ((m->used + 1) * 4 > m->cap * 3) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		struct smap n = {rd_xcalloc(ncap, sizeof *n.keys), rd_xcalloc(ncap, sizeof *n.vals), ncap, m->used};
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i]) {
				size_t j = smap_slot(&n, m->keys[i]);
				n.keys[j] = m->keys[i];
				n.vals[j] = m->vals[i];
			}
		free(m->keys);
		free(m->vals);
		*m = n;
	}
	size_t i = smap_slot(m, k);
	if (isnew)
		*isnew = !m->keys[i];
	if (!m->keys[i]) {
		m->keys[i] = rd_xstrdup(k);
		m->vals[i] = NULL;
		m->used++;
	}
	return &m->vals[i];
}

static void smap_free(struct smap *m, bool free_vals)
{
	for (size_t i = 0; i < m->cap; i++) {
		free(m->keys[i]);
		if (free_vals)
			free(m->vals[i]);
	}
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

/* ---- the source ---------------------------------------------------------------------------- */

/* Two backends: a directory (the live host is the directory "/") read through fd, or the tree
 * of a snapshot archive read into memory. */
struct rd_source {
	bool live;               /* no root was given: the running host (programs may run) */
	int fd;                  /* the directory read ("/" for the live host); -1 for an archive */
	bool nodev;              /* fd is a nodev clone of the root's mounts (nodev.h): files opened at once */
	struct rd_memtree *tree; /* an archive's entries; NULL for a directory */
	char *root;              /* as given ("/" for the live host) */
	/* read errors replayed from a snapshot's list, and counters' EINVAL remembered in this run:
	 * canonical path -> errno */
	struct smap errors, einval;
	struct smap error_bases;    /* the last components of the replayed errors' paths */
	/* resolved directories: path as asked -> canonical (malloc'd) */
	struct smap dirs;
	/* deadlines (0: none): each read, and the whole run (monotonic ms) */
	int read_timeout_ms;
	long long run_deadline_ms;
	bool armed;                 /* this source armed the run's watchdog (reader.h) */
	unsigned einval_remembered; /* counter files that returned EINVAL, not read again */
	struct rd_recording *rec;   /* when recording */
	/* directories the resolver stepped in lately: canonical path and an O_PATH descriptor */
	struct {
		char *path;
		int fd;
	} pdir[PDIR_CACHE];
	unsigned pdir_next;
	/* directories files were opened in lately (openat2 kernels): the directory as asked,
	 * relative to the root, and an O_PATH descriptor of it (-1: asked once, not opened) */
	struct {
		char *path;
		int fd;
	} dcache[DIR_CACHE];
	unsigned dcache_next;
	bool in_command;            /* reading a captured command's files: recorded as the command */
	bool device_commands;       /* live: per-device tool commands may run (check --mft, snapshot) */
	/* a directory root's rdma-doctor/commands, listed once: a capture it does not hold is known
	 * absent without an open (a check asks for three files per device for each MFT tool) */
	enum { CMDS_UNLISTED, CMDS_LISTED, CMDS_NONE, CMDS_UNKNOWN } cmds_state;
	struct smap cmds;
};

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rd_text_free(struct rd_text *t)
{
	free(t->data);
	t->data = NULL;
	t->len = 0;
}

/* A path relative to the root: no leading '/', "." for the root itself. */
static const char *rel(const char *p)
{
	while (*p == '/')
		p++;
	return *p ? p : ".";
}

static char *join(const char *dir, const char *base)
{
	return *dir ? rd_xasprintf("%s/%s", dir, base) : rd_xstrdup(base);
}

/* ---- recording ------------------------------------------------------------------------------ */

static struct smap *rec_index(struct rd_recording *rec)
{
	if (!rec->index)
		rec->index = rd_xcalloc(1, sizeof(struct smap));
	return rec->index;
}

/* The entry of canonical path, made (of kind NODE, nothing known) when new. */
static struct rd_rec_entry *rec_entry(struct rd_recording *rec, const char *path, bool *isnew)
{
	path = rel(path);
	if (strcmp(path, ".") == 0)
		path = "";
	void **slot = smap_put(rec_index(rec), path, isnew);
	if (!*isnew)
		return &rec->entries[(uintptr_t)*slot - 1];
	rec->entries = rd_xrealloc(rec->entries, (rec->n + 1) * sizeof *rec->entries);
	struct rd_rec_entry *e = &rec->entries[rec->n++];
	memset(e, 0, sizeof *e);
	e->path = rd_xstrdup(path);
	e->kind = RD_REC_NODE;
	*slot = (void *)(uintptr_t)rec->n;
	return e;
}

static void rec_stat(struct rd_rec_entry *e, const struct stat *st)
{
	if (st && st->st_mode) {
		e->mode = st->st_mode;
		e->uid = st->st_uid;
		e->gid = st->st_gid;
	}
}

/* kind: what was met.  A FILE read replaces a NODE or DIR met before (a later read of a listed or
 * stat'ed path) and a FORGOTTEN one (read again: its bytes are used after all); a DIR listed
 * replaces a NODE; an ERROR replaces a NODE; else the first is kept. */
static void record(struct rd_source *src, const char *canon, enum rd_rec_kind kind, const char *data, size_t len,
		   int err, const struct stat *st)
{
	if (!src->rec || src->in_command || !canon)
		return;
	bool isnew;
	struct rd_rec_entry *e = rec_entry(src->rec, canon, &isnew);
	bool take = isnew || (e->kind == RD_REC_NODE && kind != RD_REC_NODE) ||
		    (kind == RD_REC_FILE && (e->kind == RD_REC_DIR || e->kind == RD_REC_FORGOTTEN));
	if (!take) {
		if (!e->mode)
			rec_stat(e, st);
		return;
	}
	free(e->data);
	e->data = NULL;
	e->len = 0;
	e->kind = kind;
	e->err = err;
	if (data) {
		e->data = rd_xmalloc(len + 1);
		memcpy(e->data, data, len);
		e->data[len] = '\0';
		e->len = len;
	}
	rec_stat(e, st);
}

static void record_stat(struct rd_source *src, const char *canon, const struct stat *st, const char *link_target)
{
	if (S_ISLNK(st->st_mode))
		record(src, canon, RD_REC_LINK, link_target, link_target ? strlen(link_target) : 0, 0, st);
	else
		record(src, canon, S_ISDIR(st->st_mode) ? RD_REC_DIR : RD_REC_NODE, NULL, 0, 0, st);
}

static void record_command(struct rd_source *src, const char *name, const struct rd_text *t)
{
	struct rd_recording *rec = src->rec;
	if (!rec)
		return;
	rec->commands = rd_xrealloc(rec->commands, (rec->ncommands + 1) * sizeof *rec->commands);
	struct rd_rec_command *c = &rec->commands[rec->ncommands++];
	c->name = rd_xstrdup(name);
	c->out = *t;
	c->out.data = NULL;
	if (t->data) {
		c->out.data = rd_xmalloc(t->len + 1);
		memcpy(c->out.data, t->data, t->len);
		c->out.data[t->len] = '\0';
	}
}

void rd_source_record(struct rd_source *src, struct rd_recording *rec)
{
	src->rec = rec;
	/* directories resolved before were walked unrecorded: walk them again for their links */
	smap_free(&src->dirs, true);
}

void rd_recording_free(struct rd_recording *rec)
{
	if (!rec)
		return;
	for (size_t i = 0; i < rec->n; i++) {
		free(rec->entries[i].path);
		free(rec->entries[i].data);
	}
	for (size_t i = 0; i < rec->ncommands; i++) {
		free(rec->commands[i].name);
		rd_text_free(&rec->commands[i].out);
	}
	free(rec->entries);
	free(rec->commands);
	if (rec->index) {
		smap_free(rec->index, false);
		free(rec->index);
	}
	memset(rec, 0, sizeof *rec);
}

/* ---- read errors: replayed from a snapshot, or remembered in this run ---------------------- */

/* From now on, opening canonical path fails with err (without touching the file). */
static void record_error(struct smap *m, const char *canonical, int err)
{
	*smap_put(m, rel(canonical), NULL) = (void *)(intptr_t)err;
}

static int recorded_error(const struct rd_source *src, const char *canonical)
{
	void **v = smap_get(&src->errors, rel(canonical));
	if (!v)
		v = smap_get(&src->einval, rel(canonical));
	return v ? (int)(intptr_t)*v : 0;
}

static void load_read_errors(struct rd_source *src)
{
	struct rd_text t = {0};
	if (rd_read_file(src, READ_ERRORS_FILE, RD_CAP_FILE, &t) < 0)
		return;
	for (char *line = t.data; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *tab = strchr(line, '\t');
		if (tab) {
			*tab = '\0';
			int code = rd_errno_from_name(line);
			const char *p = tab + 1;
			while (*p == '/')
				p++;
			if (code && *p) {
				record_error(&src->errors, p, code);
				const char *base = strrchr(p, '/');
				smap_put(&src->error_bases, base ? base + 1 : p, NULL);
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	rd_text_free(&t);
}

/* ---- opening inside the root ------------------------------------------------------------- */

/* openat2 (Linux 5.6): 0 not tried yet, 1 the kernel has it, -1 it does not (then every path
 * is walked one component at a time with O_PATH|O_NOFOLLOW descriptors). */
static int openat2_ok;

/* One open resolved by the kernel inside the root: links are followed with dirfd as "/", ".."
 * stops there, /proc magic links are refused.  flags get O_CLOEXEC. */
static int sys_openat2(int dirfd, const char *path, int flags)
{
	struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC),
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	for (int i = 0; i < 16; i++) { /* EAGAIN: a rename raced with ".."; the kernel asks to retry */
		long r = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
		if (r >= 0)
			return (int)r;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
	return -EAGAIN;
}

static void probe_openat2(int dirfd)
{
	if (openat2_ok)
		return;
	int fd = sys_openat2(dirfd, ".", O_PATH);
	if (fd >= 0)
		close(fd);
	/* absent (ENOSYS), a kernel that does not know a flag (EINVAL), a seccomp filter (EPERM) */
	openat2_ok = fd == -ENOSYS || fd == -EINVAL || fd == -EPERM || fd == -E2BIG ? -1 : 1;
}

/* Opens a canonical path: no link in it but perhaps its last component, which is not followed
 * (O_PATH gives the link itself, other flags ELOOP).  Returns the fd or -errno. */
static int open_canon(struct rd_source *src, const char *canon, int flags)
{
	const char *p = rel(canon);
	if (openat2_ok > 0)
		return sys_openat2(src->fd, p, flags | O_NOFOLLOW);
	/* one component at a time, each directory pinned by a descriptor, no link followed */
	int cur = src->fd;
	for (const char *slash; (slash = strchr(p, '/')) != NULL;) {
		char *name = rd_xstrndup(p, (size_t)(slash - p));
		int nfd = openat(cur, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		int e = errno;
		free(name);
		if (cur != src->fd)
			close(cur);
		if (nfd < 0)
			return -e;
		cur = nfd;
		for (p = slash + 1; *p == '/'; p++)
			;
	}
	int fd = openat(cur, *p ? p : ".", flags | O_NOFOLLOW | O_CLOEXEC);
	int e = errno;
	if (cur != src->fd)
		close(cur);
	return fd >= 0 ? fd : -e;
}

static int resolve(struct rd_source *src, const char *path, bool follow_last, char **out);

/* A component that a lookup in a directory descriptor may take alone: not "", "." or "..". */
static bool plain_component(const char *name, size_t n)
{
	return n > 0 && !(name[0] == '.' && (n == 1 || (n == 2 && name[1] == '.')));
}

/* Not handled by open_in_dir: the caller opens the whole path with openat2. */
#define NOT_IN_DIR (-1000000)

/* The cache is DIR_WAYS-way associative: a directory may be in any slot of its set. */
#define DIR_WAYS 4
static unsigned dcache_set(const char *dir, size_t n)
{
	return (unsigned)(strn_hash(dir, n) & (DIR_CACHE - 1)) & ~(unsigned)(DIR_WAYS - 1);
}

/* The cache slot of directory dir[0..n), when it holds that directory. */
static int dcache_find(const struct rd_source *src, const char *dir, size_t n)
{
	unsigned set = dcache_set(dir, n);
	for (unsigned i = set; i < set + DIR_WAYS; i++) {
		const char *p = src->dcache[i].path;
		if (p && strncmp(p, dir, n) == 0 && !p[n])
			return (int)i;
	}
	return -1;
}

/* An O_PATH descriptor of directory dir[0..n) (as asked, relative to the root), kept in the cache
 * (borrowed, valid until the source is closed).  A directory whose parent is kept is one lookup in
 * it, when that is a plain directory (not a link: O_NOFOLLOW); any other is opened with openat2
 * inside the root only when a second file is asked in it (the first time it is only noted, and
 * NOT_IN_DIR returned: a directory read once costs no more than before).  Returns the fd,
 * NOT_IN_DIR, or -errno. */
static int dir_fd(struct rd_source *src, const char *dir, size_t n)
{
	int hit = dcache_find(src, dir, n);
	if (hit >= 0 && src->dcache[hit].fd >= 0)
		return src->dcache[hit].fd;
	int fd = NOT_IN_DIR;
	const char *slash = memrchr(dir, '/', n);
	char name[256];
	size_t nn = slash ? n - (size_t)(slash + 1 - dir) : 0;
	int parent = slash && nn < sizeof name && plain_component(slash + 1, nn) ? dcache_find(src, dir, (size_t)(slash - dir)) : -1;
	if (parent >= 0 && src->dcache[parent].fd >= 0) {
		memcpy(name, slash + 1, nn);
		name[nn] = '\0';
		fd = openat(src->dcache[parent].fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		fd = fd >= 0 ? fd : NOT_IN_DIR; /* a link (ENOTDIR, ELOOP) is followed inside the root */
	}
	char *key = rd_xstrndup(dir, n);
	if (fd == NOT_IN_DIR && hit >= 0) /* asked before: now worth a descriptor */
		fd = sys_openat2(src->fd, key, O_PATH | O_DIRECTORY);
	if (fd < 0 && fd != NOT_IN_DIR) {
		free(key);
		return fd;
	}
	/* its own slot when noted before, else a free one of its set, else the set's next in turn */
	unsigned set = dcache_set(dir, n), i = hit >= 0 ? (unsigned)hit : set + src->dcache_next++ % DIR_WAYS;
	for (unsigned j = set; hit < 0 && j < set + DIR_WAYS; j++)
		if (!src->dcache[j].path) {
			i = j;
			break;
		}
	if (src->dcache[i].path) {
		free(src->dcache[i].path);
		if (src->dcache[i].fd >= 0)
			close(src->dcache[i].fd);
	}
	src->dcache[i].path = key;
	src->dcache[i].fd = fd >= 0 ? fd : -1;
	return fd;
}

static void dcache_clear(struct rd_source *src)
{
	for (unsigned i = 0; i < DIR_CACHE; i++)
		if (src->dcache[i].path) {
			free(src->dcache[i].path);
			if (src->dcache[i].fd >= 0)
				close(src->dcache[i].fd);
			src->dcache[i].path = NULL;
		}
}

/* openat2 kernels: a file is opened by its last component alone, in a cached descriptor of its
 * directory (dir_fd), never following a link there (O_NOFOLLOW: the lookup cannot leave that
 * directory).  A final link to follow (ELOOP; with O_PATH, a link fstat'ed, then *st is filled)
 * and a path whose last component is not plain are NOT_IN_DIR.  A directory that does not exist
 * or is not one gives what openat2 of the whole path gives (ENOENT, ENOTDIR); any other error of
 * the directory is NOT_IN_DIR too, so that the path's own errno is returned. */
static int open_in_dir(struct rd_source *src, const char *path, int flags, struct stat *st)
{
	const char *p = rel(path);
	const char *slash = strrchr(p, '/');
	if (!slash || !plain_component(slash + 1, strlen(slash + 1)))
		return NOT_IN_DIR;
	int dfd = dir_fd(src, p, (size_t)(slash - p));
	if (dfd < 0)
		return dfd == -ENOENT || dfd == -ENOTDIR ? dfd : NOT_IN_DIR;
	int fd = openat(dfd, slash + 1, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* a link where one is followed: ELOOP, or ENOTDIR with O_DIRECTORY (checked first) */
		int e = errno;
		if (!(flags & O_NOFOLLOW) && (e == ELOOP || (e == ENOTDIR && (flags & O_DIRECTORY))))
			return NOT_IN_DIR;
		return -e;
	}
	if ((flags & O_PATH) && !(flags & O_NOFOLLOW)) {
		struct stat lst;
		struct stat *s = st ? st : &lst;
		if (fstat(fd, s) < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (S_ISLNK(s->st_mode)) {
			memset(s, 0, sizeof *s);
			close(fd);
			return NOT_IN_DIR;
		}
	}
	return fd;
}

/* Opens any path inside the root, a final link followed unless flags has O_NOFOLLOW.  With O_PATH
 * and st, *st may come back filled with the file's fstat (st_mode 0: not done). */
static int open_path(struct rd_source *src, const char *path, int flags, struct stat *st)
{
	if (openat2_ok > 0) {
		int fd = open_in_dir(src, path, flags, st);
		return fd != NOT_IN_DIR ? fd : sys_openat2(src->fd, rel(path), flags);
	}
	char *canon = NULL;
	int r = resolve(src, path, !(flags & O_NOFOLLOW), &canon);
	if (r == 0)
		r = open_canon(src, canon, flags);
	free(canon);
	return r;
}

/* ---- path resolution inside the root (canonical paths, in user space) --------------------- */

/* An O_PATH descriptor of canonical directory dir, kept for the next steps in it (borrowed). */
static int pdir_fd(struct rd_source *src, const char *dir)
{
	if (!*dir)
		return src->fd;
	for (unsigned i = 0; i < PDIR_CACHE; i++)
		if (src->pdir[i].path && strcmp(src->pdir[i].path, dir) == 0)
			return src->pdir[i].fd;
	int fd = open_canon(src, dir, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return fd;
	unsigned i = src->pdir_next++ % PDIR_CACHE;
	if (src->pdir[i].path) {
		free(src->pdir[i].path);
		close(src->pdir[i].fd);
	}
	src->pdir[i].path = rd_xstrdup(dir);
	src->pdir[i].fd = fd;
	return fd;
}

static void pdir_clear(struct rd_source *src)
{
	for (unsigned i = 0; i < PDIR_CACHE; i++)
		if (src->pdir[i].path) {
			free(src->pdir[i].path);
			close(src->pdir[i].fd);
			src->pdir[i].path = NULL;
		}
}

/* One step of a walk: the kind of canonical path (not followed) and, for a link, its target.
 * The path's directory is pinned by a descriptor, and the last component is looked at relative
 * to it (one component: no link on the way can lead out). */
static int step(struct rd_source *src, const char *canon, struct stat *st, char *target, size_t tlen)
{
	if (src->tree) {
		const struct rd_memnode *n;
		const char *t;
		int r = rd_memtree_lookup(src->tree, canon, false, &n, NULL);
		if (r < 0)
			return r;
		rd_memnode_stat(n, st);
		if (rd_memnode_link(n, &t) == 0)
			snprintf(target, tlen, "%s", t);
		return 0;
	}
	const char *slash = strrchr(canon, '/');
	char *dir = slash ? rd_xstrndup(canon, (size_t)(slash - canon)) : rd_xstrdup("");
	const char *name = slash ? slash + 1 : canon;
	int dfd = pdir_fd(src, dir);
	free(dir);
	if (dfd < 0)
		return dfd;
	if (!*name || strcmp(name, ".") == 0)
		name = ".";
	int r = fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	if (r == 0 && S_ISLNK(st->st_mode)) {
		ssize_t n = readlinkat(dfd, name, target, tlen - 1);
		if (n < 0)
			r = -errno;
		else
			target[n] = '\0';
	}
	return r;
}

/* A resolved path being built: components joined by '/', no leading slash. */
static void pop_component(struct rd_buf *b)
{
	char *slash = b->len ? strrchr(b->data, '/') : NULL;
	b->len = slash ? (size_t)(slash - b->data) : 0;
	if (b->data)
		b->data[b->len] = '\0';
}

/* Resolves rest[] against an already canonical base.  follow_last: resolve a final link too. */
static int resolve_from(struct rd_source *src, const char *base, const char *rest, bool follow_last,
			char **out)
{
	struct rd_buf cur = {0};
	rd_buf_puts(&cur, base);
	/* pending = components still to walk, kept as one string consumed from the front */
	char *pending = rd_xstrdup(rest);
	char *p = pending;
	int links = 0, ret = 0;

	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		bool last = true;
		for (const char *q = p + n; *q; q++)
			if (*q != '/') {
				last = false;
				break;
			}
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			pop_component(&cur);
			p += n;
			continue;
		}
		size_t saved = cur.len;
		if (cur.len)
			rd_buf_putc(&cur, '/');
		rd_buf_add(&cur, p, n);
		p += n;
		if (last && !follow_last)
			break;
		struct stat st;
		char target[4096];
		int r = step(src, cur.data, &st, target, sizeof target);
		if (r < 0) {
			if (r == -ENOENT && last)
				break; /* a missing final component is the caller's ENOENT */
			ret = r;
			break;
		}
		if (!S_ISLNK(st.st_mode)) {
			if (!last && !S_ISDIR(st.st_mode)) {
				ret = -ENOTDIR;
				break;
			}
			continue;
		}
		record(src, cur.data, RD_REC_LINK, target, strlen(target), 0, &st);
		if (++links > MAX_LINKS) {
			ret = -ELOOP;
			break;
		}
		/* replace the link by its target, then continue with what followed it */
		cur.len = saved;
		cur.data[cur.len] = '\0';
		if (target[0] == '/') {
			cur.len = 0;
			cur.data[0] = '\0';
		}
		char *np = rd_xasprintf("%s/%s", target, p);
		free(pending);
		pending = p = np;
	}
	free(pending);
	if (ret < 0) {
		rd_buf_free(&cur);
		return ret;
	}
	*out = cur.data ? rd_buf_steal(&cur) : rd_xstrdup("");
	return 0;
}

/* Canonical form of a directory path, each new directory costing one step from its parent. */
static int resolve_dir(struct rd_source *src, const char *dir, char **out)
{
	while (*dir == '/')
		dir++;
	if (!*dir) {
		*out = rd_xstrdup("");
		return 0;
	}
	void **hit = smap_get(&src->dirs, dir);
	if (hit) {
		*out = rd_xstrdup(*hit);
		return 0;
	}
	const char *slash = strrchr(dir, '/');
	char *cparent = NULL;
	int r;
	if (slash) {
		char *parent = rd_xstrndup(dir, (size_t)(slash - dir));
		r = resolve_dir(src, parent, &cparent);
		free(parent);
	} else {
		cparent = rd_xstrdup("");
		r = 0;
	}
	if (r == 0)
		r = resolve_from(src, cparent, slash ? slash + 1 : dir, true, out);
	free(cparent);
	if (r < 0)
		return r;
	*smap_put(&src->dirs, dir, NULL) = rd_xstrdup(*out);
	return 0;
}

/* Splits path into its directory's canonical form and the last component. */
static int resolve_parent(struct rd_source *src, const char *path, char **cdir, const char **base)
{
	while (*path == '/')
		path++;
	const char *slash = strrchr(path, '/');
	*base = slash ? slash + 1 : path;
	if (!slash) {
		*cdir = rd_xstrdup("");
		return 0;
	}
	char *dir = rd_xstrndup(path, (size_t)(slash - path));
	int r = resolve_dir(src, dir, cdir);
	free(dir);
	return r;
}

static int resolve(struct rd_source *src, const char *path, bool follow_last, char **out)
{
	char *cdir = NULL;
	const char *base;
	int r = resolve_parent(src, path, &cdir, &base);
	if (r < 0)
		return r;
	r = resolve_from(src, cdir, base, follow_last, out);
	free(cdir);
	return r;
}

/* ---- open / close ------------------------------------------------------------------------ */

static bool is_archive_name(const char *p)
{
	return rd_str_has_suffix(p, ".tar.gz") || rd_str_has_suffix(p, ".tgz") ||
	       rd_str_has_suffix(p, ".tar");
}

/* Reads an archive into memory, within the limits and by the deadline: nothing on disk. */
static int read_archive(struct rd_source *src, long long deadline_ms, char *err, size_t errlen)
{
	int in = open(src->root, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (in < 0) {
		int e = errno;
		rd_set_err(err, errlen, "cannot open %s: %s", src->root, strerror(e));
		return -e;
	}
	struct rd_memtree_limits lim = rd_memtree_default_limits;
	lim.deadline_ms = deadline_ms;
	char why[512] = "";
	int r = rd_memtree_read_fd(in, &lim, &src->tree, why, sizeof why);
	close(in);
	if (r < 0)
		rd_set_err(err, errlen, "cannot read snapshot %s: %s", src->root, why[0] ? why : strerror(-r));
	return r;
}

int rd_source_open(const char *root, struct rd_source **out, char *err, size_t errlen)
{
	return rd_source_open_until(root, 0, out, err, errlen);
}

int rd_source_open_until(const char *root, long long deadline_ms, struct rd_source **out, char *err, size_t errlen)
{
	struct rd_source *src = rd_xcalloc(1, sizeof *src);
	src->fd = -1;
	*out = NULL;
	/* live or not is what the caller was given, never where the root leads: "/.", "//" or a
	 * link to / are roots like any other (nothing run, nothing outside them read) */
	src->live = root == NULL;
	src->root = rd_xstrdup(root ? root : "/");

	struct stat st;
	if (stat(src->root, &st) < 0) {
		int e = errno;
		rd_set_err(err, errlen, "cannot read root %s: %s", src->root, strerror(e));
		rd_source_close(src);
		return -e;
	}
	if (S_ISREG(st.st_mode) && is_archive_name(src->root)) {
		int r = read_archive(src, deadline_ms, err, errlen);
		if (r < 0) {
			rd_source_close(src);
			return r;
		}
		load_read_errors(src);
		*out = src;
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		rd_set_err(err, errlen, "root %s is neither a directory nor a snapshot archive (.tar.gz)", src->root);
		rd_source_close(src);
		return -ENOTDIR;
	}
	src->fd = open(src->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (src->fd < 0) {
		int e = errno;
		rd_set_err(err, errlen, "cannot open root %s: %s", src->root, strerror(e));
		rd_source_close(src);
		return -e;
	}
	probe_openat2(src->fd);
	int clone = !src->live && openat2_ok > 0 ? rd_nodev_clone(src->fd) : -ENOSYS;
	if (clone >= 0) {
		close(src->fd);
		src->fd = clone;
		src->nodev = true;
	}
	if (!src->live)
		load_read_errors(src);
	*out = src;
	return 0;
}

void rd_source_close(struct rd_source *src)
{
	if (!src)
		return;
	if (src->fd >= 0)
		close(src->fd);
	rd_memtree_free(src->tree);
	smap_free(&src->dirs, true);
	smap_free(&src->errors, false);
	smap_free(&src->einval, false);
	smap_free(&src->error_bases, false);
	smap_free(&src->cmds, false);
	pdir_clear(src);
	dcache_clear(src);
	if (src->armed)
		rd_watchdog_disarm();
	free(src->root);
	free(src);
}

void rd_source_set_deadlines(struct rd_source *src, int read_timeout_ms, int run_timeout_ms)
{
	src->read_timeout_ms = read_timeout_ms > 0 ? read_timeout_ms : 0;
	long long deadline = run_timeout_ms > 0 ? mono_ms() + run_timeout_ms : 0;
	/* the watchdog of the run: one per process, the first deadline kept (a takeover's source) */
	if (src->read_timeout_ms && rd_watchdog_arm(&deadline, src->read_timeout_ms))
		src->armed = true;
	src->run_deadline_ms = deadline;
}

long long rd_source_time_left_ms(const struct rd_source *src)
{
	if (!src->run_deadline_ms)
		return 0;
	long long left = src->run_deadline_ms - mono_ms();
	return left > 0 ? left : -1;
}

bool rd_source_is_live(const struct rd_source *src)
{
	return src->live;
}

bool rd_source_is_archive(const struct rd_source *src)
{
	return src->tree != NULL;
}

const char *rd_source_root(const struct rd_source *src)
{
	return src->root;
}

const char *rd_source_dir(const struct rd_source *src)
{
	return src->tree ? NULL : src->root;
}

int rd_source_fd(const struct rd_source *src)
{
	return src->fd;
}

int rd_resolve(struct rd_source *src, const char *path, char **canonical)
{
	return resolve(src, path, true, canonical);
}

/* Port counters: reading one makes the firmware answer a MAD on some HCAs, and one it refuses
 * (EINVAL) floods the kernel log each time, so a refusal is remembered for the rest of the run. */
static bool is_counter_path(const char *canon)
{
	return strstr(canon, "/counters/") || strstr(canon, "/hw_counters/");
}

unsigned rd_source_einval_remembered(const struct rd_source *src)
{
	return src->einval_remembered;
}

/* ---- reading ------------------------------------------------------------------------------ */

/* Canonical paths are needed when a read error may be replayed or remembered, and to record. */
static bool need_canon(const struct rd_source *src)
{
	return src->errors.used || src->einval.used || src->rec;
}

/* The process's /proc/self/fd, held open after the first reopen (a child after fork drops its
 * copy: it names the parent's descriptors). */
static int proc_fds = -1;
static bool proc_fds_tried;

static void proc_fds_forget(void)
{
	if (proc_fds >= 0)
		close(proc_fds);
	proc_fds = -1;
	proc_fds_tried = false;
}

/* Opens again, with flags, the file that descriptor fd (O_PATH) is: its /proc/self/fd entry, the
 * same inode without a new walk of its path.  Returns the fd, or -1 with errno. */
static int reopen_fd(int fd, int flags)
{
	static bool atfork;
	if (!proc_fds_tried) {
		proc_fds_tried = true;
		proc_fds = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (proc_fds >= 0 && !atfork)
			atfork = pthread_atfork(NULL, NULL, proc_fds_forget) == 0;
		if (!atfork)
			proc_fds_forget(); /* not held without a way to drop it in a child */
		proc_fds_tried = true;
	}
	char name[32] = "/proc/self/fd/";
	char *digits = name + strlen(name), *e = name + sizeof name - 1;
	*e = '\0';
	for (unsigned v = (unsigned)fd; e == name + sizeof name - 1 || v; v /= 10)
		*--e = (char)('0' + v % 10);
	memmove(digits, e, strlen(e) + 1);
	return proc_fds >= 0 ? openat(proc_fds, digits, flags) : open(name, flags);
}

/* Opens path for reading.  direct (the live host, a root read through its nodev clone): one open
 * of the file (in a clone, fstat'ed only when recording).  Else: an O_PATH open, its fstat in *st,
 * and only a regular file is opened for reading (through /proc/self/fd, the same inode, not
 * resolved again), so that no device node or FIFO in a root is ever opened.  With canon_first,
 * *canon gets the canonical path first (also on failure after it was known), and a read error
 * recorded for it is returned without opening anything.  Returns the fd or -errno. */
static int open_for_read_as(struct rd_source *src, const char *path, bool canon_first, bool direct, char **canon,
			    struct stat *st)
{
	int flags = direct ? O_RDONLY | O_NONBLOCK | O_NOCTTY : O_PATH;
	int fd;
	memset(st, 0, sizeof *st);
	*canon = NULL;
	if (canon_first) {
		char *cdir = NULL;
		const char *base;
		int r = resolve_parent(src, path, &cdir, &base);
		if (r < 0)
			return r;
		bool simple = *base && strcmp(base, ".") != 0 && strcmp(base, "..") != 0;
		if (simple)
			*canon = join(cdir, base);
		else if ((r = resolve_from(src, cdir, base, true, canon)) < 0) {
			free(cdir);
			return r;
		}
		for (int attempt = 0;; attempt++) {
			int rec = recorded_error(src, *canon);
			if (rec) {
				free(cdir);
				return -rec;
			}
			fd = open_canon(src, *canon, flags);
			bool link = direct ? fd == -ELOOP : fd >= 0 && fstat(fd, st) == 0 && S_ISLNK(st->st_mode);
			if (!link || attempt == 1)
				break;
			/* the last component is a link: resolve it, and open its target */
			if (fd >= 0)
				close(fd);
			char *full = NULL;
			if ((r = resolve_from(src, cdir, base, true, &full)) < 0) {
				free(cdir);
				return r;
			}
			free(*canon);
			*canon = full;
		}
		free(cdir);
	} else {
		fd = open_path(src, path, flags, st);
	}
	if (fd >= 0 && direct && !src->live && src->rec && fstat(fd, st) < 0)
		memset(st, 0, sizeof *st);
	if (fd < 0 || direct)
		return fd;
	if (!st->st_mode && fstat(fd, st) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return -RD_ENOTREG;
	}
	int rfd = reopen_fd(fd, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (rfd < 0 && errno == ENOENT) {
		/* no /proc: open the path again, and read it only if it is still the same file */
		const int f = O_RDONLY | O_NONBLOCK | O_NOCTTY;
		rfd = *canon ? open_canon(src, *canon, f) : open_path(src, path, f, NULL);
		struct stat again;
		if (rfd >= 0 && (fstat(rfd, &again) < 0 || again.st_ino != st->st_ino || again.st_dev != st->st_dev)) {
			close(rfd);
			rfd = -EAGAIN;
		}
		if (rfd < 0)
			errno = -rfd;
	}
	int e = errno;
	close(fd);
	return rfd >= 0 ? rfd : -e;
}

/* A root read through its nodev clone opens a file at once; one the clone refuses for what it is
 * (a device node, a socket) is looked at again through O_PATH, and told apart as before. */
static int open_for_read(struct rd_source *src, const char *path, bool canon_first, char **canon, struct stat *st)
{
	int fd = open_for_read_as(src, path, canon_first, src->live || src->nodev, canon, st);
	if (fd >= 0 || !src->nodev || !rd_nodev_refused(-fd))
		return fd;
	free(*canon);
	return open_for_read_as(src, path, canon_first, false, canon, st);
}

/* ---- the archive backend: the same calls on the tree in memory ------------------------------ */

/* The node of path and, when canonical paths are needed, its canonical path (also when only the
 * last component is missing).  While recording, the walk is the resolver's, which records each
 * link met. */
static int tree_find(struct rd_source *src, const char *path, bool follow, const struct rd_memnode **n, char **canon)
{
	*canon = NULL;
	if (src->rec) {
		int r = resolve(src, path, follow, canon);
		return r < 0 ? r : rd_memtree_lookup(src->tree, *canon, false, n, NULL);
	}
	return rd_memtree_lookup(src->tree, path, follow, n, need_canon(src) ? canon : NULL);
}

static int tree_read(struct rd_source *src, const char *path, struct rd_read_req *req, struct rd_text *out,
		     char **canon)
{
	const struct rd_memnode *n;
	int r = tree_find(src, path, true, &n, canon);
	int rec = *canon ? recorded_error(src, *canon) : 0; /* also for a file the snapshot lacks */
	if (rec)
		r = -rec;
	if (r == 0) {
		rd_memnode_stat(n, &req->st);
		const char *data;
		size_t len;
		if (rd_memnode_data(n, &data, &len) < 0)
			r = -RD_ENOTREG;
		else if (len > req->cap && !req->prefix_ok)
			r = -EFBIG;
		else {
			if (len > req->cap)
				len = req->cap;
			out->data = rd_xmalloc(len + 1);
			memcpy(out->data, data, len);
			out->data[len] = '\0';
			out->len = len;
		}
	}
	if (r < 0)
		out->err = -r;
	return r;
}

static void tree_record_node(struct rd_source *src, const char *canon, const struct rd_memnode *n)
{
	struct stat st;
	const char *target = NULL;
	rd_memnode_stat(n, &st);
	rd_memnode_link(n, &target);
	record_stat(src, canon, &st, target);
}

/* Drops the names from first on that keep refuses. */
static void keep_names(struct rd_strv *names, size_t first, bool (*keep)(const char *name))
{
	size_t k = first;
	for (size_t i = first; i < names->n; i++) {
		if (keep(names->v[i]))
			names->v[k++] = names->v[i];
		else
			free(names->v[i]);
	}
	names->n = k;
}

static int tree_list(struct rd_source *src, const char *path, bool (*keep)(const char *name), struct rd_strv *names)
{
	const struct rd_memnode *n;
	char *canon = NULL;
	size_t first = names->n;
	int r = tree_find(src, path, true, &n, &canon);
	if (r == 0)
		r = rd_memnode_list(n, names);
	if (r == 0 && keep)
		keep_names(names, first, keep);
	if (r == 0 && src->rec) {
		tree_record_node(src, canon, n);
		for (size_t i = first; i < names->n; i++) {
			char *child = join(canon, names->v[i]);
			const struct rd_memnode *c;
			if (rd_memtree_lookup(src->tree, child, false, &c, NULL) == 0)
				tree_record_node(src, child, c);
			free(child);
		}
	}
	free(canon);
	if (r == 0)
		rd_strv_sort(names);
	return r;
}

static int tree_read_link(struct rd_source *src, const char *path, char **target)
{
	const struct rd_memnode *n;
	char *canon = NULL;
	const char *t;
	int r = tree_find(src, path, false, &n, &canon);
	if (r == 0)
		r = rd_memnode_link(n, &t);
	if (r == 0) {
		*target = rd_xstrdup(t);
		tree_record_node(src, canon, n);
	}
	free(canon);
	return r;
}

static int tree_stat(struct rd_source *src, const char *path, bool follow, struct stat *st)
{
	const struct rd_memnode *n;
	char *canon = NULL;
	int r = tree_find(src, path, follow, &n, &canon);
	if (r == 0) {
		rd_memnode_stat(n, st);
		tree_record_node(src, canon, n);
	}
	free(canon);
	return r;
}

/* A failed read can be a replayed error only when some recorded path ends with the same name
 * (a missing "parent" or "has_smi" is not looked up by its canonical path). */
static bool has_error_base(const struct rd_source *src, const char *path)
{
	const char *base = strrchr(path, '/');
	return smap_get(&src->error_bases, base ? base + 1 : path) != NULL;
}

/* single: one read() of at most cap bytes (what libibumad does); otherwise read to EOF, with
 * EFBIG past cap unless prefix_ok.  The read is the caller's, under the run's watchdog (reader.h). */
static int read_common(struct rd_source *src, const char *path, size_t cap, bool prefix_ok, bool single,
		       struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	if (src->run_deadline_ms && src->run_deadline_ms <= mono_ms()) {
		out->err = ETIMEDOUT;
		return -ETIMEDOUT;
	}
	char *canon = NULL;
	struct rd_read_req req = {.cap = cap, .prefix_ok = prefix_ok, .single = single,
				  .one_page = src->live && rd_str_has_prefix(rel(path), "sys/"), .positional = src->nodev};
	/* the canonical path first only to record, or for a counter that may have been refused */
	bool canon_first = src->rec || (src->einval.used && is_counter_path(path));
	int fd = src->tree ? -1 : open_for_read(src, path, canon_first, &canon, &req.st);
	int r;
	if (src->tree) {
		r = tree_read(src, path, &req, out, &canon);
	} else if (fd < 0) {
		out->err = -fd;
		r = fd;
	} else {
		r = rd_reader_read(rel(path), fd, &req, out);
	}
	/* a read error a snapshot recorded: its file is an empty placeholder, or absent, so only a
	 * read that gave nothing is looked up (by its canonical path: a link may lead to it) */
	if (!src->tree && !canon_first && src->errors.used && r != -ETIMEDOUT && (r < 0 || out->len == 0) &&
	    (r == 0 || has_error_base(src, path))) {
		int rec = canon || resolve(src, path, true, &canon) == 0 ? recorded_error(src, canon) : 0;
		if (rec) {
			rd_text_free(out);
			out->err = rec;
			r = -rec;
		}
	}
	if (r == -EINVAL && fd >= 0 && is_counter_path(canon ? canon : path)) {
		if (canon || resolve(src, path, true, &canon) == 0) {
			record_error(&src->einval, canon, EINVAL);
			src->einval_remembered++;
		}
	}
	if (r == 0)
		record(src, canon, RD_REC_FILE, out->data, out->len, 0, &req.st);
	else if (r == -RD_ENOTREG && req.st.st_mode)
		record_stat(src, canon, &req.st, NULL);
	else if (r != -ENOENT && r != -ENOTDIR)
		record(src, canon, RD_REC_ERROR, NULL, 0, -r, &req.st);
	free(canon);
	return r;
}

int rd_read_file(struct rd_source *src, const char *path, size_t cap, struct rd_text *out)
{
	return read_common(src, path, cap, false, false, out);
}

int rd_read_prefix(struct rd_source *src, const char *path, size_t max, struct rd_text *out)
{
	return read_common(src, path, max, true, true, out);
}

int rd_read_attr(struct rd_source *src, const char *path, struct rd_text *out)
{
	int r = rd_read_file(src, path, RD_CAP_ATTR, out);
	if (r == 0 && out->len && out->data[out->len - 1] == '\n')
		out->data[--out->len] = '\0';
	return r;
}

static int list_dir(struct rd_source *src, const char *path, bool (*keep)(const char *name), struct rd_strv *names)
{
	if (src->tree)
		return tree_list(src, path, keep, names);
	char *canon = NULL;
	int fd;
	if (src->rec) {
		int r = resolve(src, path, true, &canon);
		fd = r < 0 ? r : open_canon(src, canon, O_RDONLY | O_DIRECTORY);
	} else {
		/* O_DIRECTORY: the kernel refuses anything else before opening it */
		fd = open_path(src, path, O_RDONLY | O_DIRECTORY, NULL);
	}
	if (fd < 0) {
		free(canon);
		return fd;
	}
	struct stat st;
	if (canon && fstat(fd, &st) == 0)
		record(src, canon, RD_REC_DIR, NULL, 0, 0, &st);
	/* getdents64 straight into a buffer: no fdopendir (its fcntl and fstat) for one listing */
	char buf[32768] __attribute__((aligned(8)));
	int ret = 0;
	for (;;) {
		ssize_t n = getdents64(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : 0;
			break;
		}
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(void *)(buf + off);
			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || (keep && !keep(de->d_name)))
				continue;
			rd_strv_push(names, de->d_name);
			if (!canon)
				continue;
			/* each name listed is recorded by its kind, so that a replay lists the same names */
			char *child = join(canon, de->d_name);
			if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
				char target[4096];
				ssize_t tn = S_ISLNK(st.st_mode) ? readlinkat(fd, de->d_name, target, sizeof target - 1) : -1;
				if (tn >= 0)
					target[tn] = '\0';
				if (!S_ISLNK(st.st_mode) || tn >= 0)
					record_stat(src, child, &st, tn >= 0 ? target : NULL);
			}
			free(child);
		}
	}
	close(fd);
	if (ret < 0) {
		free(canon);
		return ret;
	}
	free(canon);
	rd_strv_sort(names);
	return 0;
}

int rd_list_dir(struct rd_source *src, const char *path, struct rd_strv *names)
{
	return list_dir(src, path, NULL, names);
}

int rd_list_dir_only(struct rd_source *src, const char *path, bool (*keep)(const char *name), struct rd_strv *names)
{
	return list_dir(src, path, keep, names);
}

int rd_read_link(struct rd_source *src, const char *path, char **target)
{
	if (src->tree)
		return tree_read_link(src, path, target);
	char *canon = NULL;
	int fd;
	if (src->rec) {
		int r = resolve(src, path, false, &canon);
		fd = r < 0 ? r : open_canon(src, canon, O_PATH);
	} else {
		fd = open_path(src, path, O_PATH | O_NOFOLLOW, NULL);
	}
	if (fd < 0) {
		free(canon);
		return fd;
	}
	char buf[4096];
	struct stat st;
	int r = fstat(fd, &st) < 0 ? -errno : S_ISLNK(st.st_mode) ? 0 : -EINVAL;
	ssize_t n = r == 0 ? readlinkat(fd, "", buf, sizeof buf - 1) : -1;
	if (r == 0 && n < 0)
		r = -errno;
	close(fd);
	if (r == 0) {
		*target = rd_xstrndup(buf, (size_t)n);
		record(src, canon, RD_REC_LINK, *target, (size_t)n, 0, &st);
	}
	free(canon);
	return r;
}

int rd_stat(struct rd_source *src, const char *path, bool follow, struct stat *st)
{
	if (src->tree)
		return tree_stat(src, path, follow, st);
	char *canon = NULL;
	int fd;
	memset(st, 0, sizeof *st);
	if (src->rec) {
		int r = resolve(src, path, follow, &canon);
		fd = r < 0 ? r : open_canon(src, canon, O_PATH);
	} else {
		fd = open_path(src, path, O_PATH | (follow ? 0 : O_NOFOLLOW), st);
	}
	if (fd < 0) {
		free(canon);
		return fd;
	}
	int r = st->st_mode || fstat(fd, st) == 0 ? 0 : -errno;
	if (r == 0 && canon) {
		char target[4096];
		ssize_t n = S_ISLNK(st->st_mode) ? readlinkat(fd, "", target, sizeof target - 1) : -1;
		if (n >= 0)
			target[n] = '\0';
		if (!S_ISLNK(st->st_mode) || n >= 0)
			record_stat(src, canon, st, n >= 0 ? target : NULL);
	}
	close(fd);
	free(canon);
	return r;
}

bool rd_exists(struct rd_source *src, const char *path)
{
	struct stat st;
	return rd_stat(src, path, true, &st) == 0;
}

int rd_stat_sized(struct rd_source *src, const char *path, struct stat *st)
{
	int r = rd_stat(src, path, true, st);
	if (r == 0 && src->rec && S_ISREG(st->st_mode)) {
		struct rd_text t;
		rd_read_file(src, path, RD_CAP_FILE, &t); /* recorded: the entry becomes the file */
		rd_text_free(&t);
	}
	return r;
}

void rd_source_forget(struct rd_source *src, const char *path)
{
	char *canon = NULL;
	if (!src->rec || resolve(src, path, true, &canon) < 0) {
		free(canon);
		return;
	}
	const char *key = rel(canon);
	void **slot = smap_get(rec_index(src->rec), strcmp(key, ".") == 0 ? "" : key);
	if (slot) {
		struct rd_rec_entry *e = &src->rec->entries[(uintptr_t)*slot - 1];
		if (e->kind == RD_REC_FILE) {
			free(e->data);
			e->data = NULL;
			e->len = 0;
			e->kind = RD_REC_FORGOTTEN;
		}
	}
	free(canon);
}

/* ---- commands ----------------------------------------------------------------------------- */

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})
const struct rd_command rd_commands[] = {
	{"ofed_info-s", ARGV("ofed_info", "-s"), 5000},
	{"dkms-status", ARGV("dkms", "status"), 15000},
	{"systemctl-is-active-openibd", ARGV("systemctl", "is-active", "openibd"), 5000},
	{"systemctl-is-enabled-openibd", ARGV("systemctl", "is-enabled", "openibd"), 5000},
	{"dmesg", ARGV("dmesg"), 5000},
	{"ibv_devinfo-v", ARGV("ibv_devinfo", "-v"), 10000},
	{"rdma-link", ARGV("rdma", "link", "show"), 5000},
	{NULL, NULL, 0},
};

const struct rd_command *rd_command_find(const char *name)
{
	for (const struct rd_command *c = rd_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}


/* The PATH a program is looked up in: the caller's, then the system directories. */
static char *search_path(void)
{
	const char *path = getenv("PATH");
	return rd_xasprintf("%s%s/usr/local/sbin:/usr/sbin:/sbin:/usr/bin:/bin", path ? path : "", path && *path ? ":" : "");
}

/* Where program is, looked up once per process (NULL when it is in no directory of the path). */
static const char *program_path(const char *name)
{
	static struct {
		char *name, *path;
	} known[16];
	static size_t nknown;
	if (strchr(name, '/'))
		return name;
	for (size_t i = 0; i < nknown; i++)
		if (strcmp(known[i].name, name) == 0)
			return known[i].path;
	char *dirs = search_path(), *found = NULL, *save = NULL;
	for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *full = rd_xasprintf("%s/%s", *d ? d : ".", name);
		struct stat st;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			found = full;
		else
			free(full);
	}
	free(dirs);
	if (nknown < sizeof known / sizeof known[0]) {
		known[nknown].name = rd_xstrdup(name);
		known[nknown++].path = found;
	}
	return found; /* kept for the process (a full table: the path is looked up again next time) */
}

static void child_exec(const struct rd_command *c, const char *prog, int outfd, int errpipe, bool merge_stderr)
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 2);
	}
	dup2(outfd, 1);
	if (merge_stderr)
		dup2(outfd, 2);
	char *full = search_path(); /* for the programs it runs in turn */
	setenv("PATH", full, 1);
	free(full);
	setenv("LC_ALL", "C", 1);
	char *args[16];
	size_t n = 0;
	for (; c->argv[n] && n + 1 < sizeof args / sizeof args[0]; n++)
		args[n] = rd_xstrdup(c->argv[n]);
	args[n] = NULL;
	execv(prog, args);
	int e = errno;
	if (write(errpipe, &e, sizeof e) < 0) {
		/* nothing more to do */
	}
	for (size_t i = 0; i < n; i++)
		free(args[i]); /* the program is absent: leave nothing for valgrind to call lost */
	_exit(127);
}

static int run_live(const struct rd_command *c, bool merge_stderr, struct rd_text *out)
{
	const char *prog = program_path(c->argv[0]);
	if (!prog) { /* in no directory of the path: not found, as execvp would have said, without a fork */
		out->status = 127;
		out->err = ENOENT;
		return -ENOENT;
	}
	int pfd[2], epfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(epfd, O_CLOEXEC) < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		return -e;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]), close(pfd[1]), close(epfd[0]), close(epfd[1]);
		return -e;
	}
	if (pid == 0)
		child_exec(c, prog, pfd[1], epfd[1], merge_stderr);
	close(pfd[1]);
	close(epfd[1]);

	struct rd_buf b = {0};
	long long deadline = mono_ms() + c->timeout_ms;
	bool timed_out = false, too_big = false;
	for (;;) {
		long long left = deadline - mono_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		struct pollfd p = {.fd = pfd[0], .events = POLLIN};
		int pr = poll(&p, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0) {
			timed_out = pr == 0;
			break;
		}
		char chunk[8192];
		ssize_t n = read(pfd[0], chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (b.len + (size_t)n > RD_CAP_FILE) {
			too_big = true;
			break;
		}
		rd_buf_add(&b, chunk, (size_t)n);
	}
	close(pfd[0]);
	if (timed_out || too_big)
		kill(pid, SIGKILL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int exec_err = 0;
	if (read(epfd[0], &exec_err, sizeof exec_err) != (ssize_t)sizeof exec_err)
		exec_err = 0;
	close(epfd[0]);

	out->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (exec_err || timed_out || too_big) {
		out->err = exec_err ? exec_err : timed_out ? ETIMEDOUT : EFBIG;
		rd_buf_free(&b);
		return -out->err;
	}
	out->len = b.len;
	out->data = rd_buf_steal(&b);
	return 0;
}

/* True when the root is known not to hold rdma-doctor/commands/<file> (nor a read error replayed
 * for it): from one listing of the directory.  Only for a directory root read without recording;
 * an archive's lookups are in memory, and a recording must see each read. */
static bool capture_absent(struct rd_source *src, const char *file)
{
	if (src->live || src->tree || src->rec || src->cmds_state == CMDS_UNKNOWN)
		return false;
	if (src->cmds_state == CMDS_UNLISTED) {
		struct rd_strv names = {0};
		int r = rd_list_dir(src, COMMANDS_DIR, &names);
		src->cmds_state = r == 0 ? CMDS_LISTED : r == -ENOENT ? CMDS_NONE : CMDS_UNKNOWN;
		for (size_t i = 0; i < names.n; i++)
			smap_put(&src->cmds, names.v[i], NULL);
		rd_strv_free(&names);
		if (src->cmds_state == CMDS_UNKNOWN)
			return false;
	}
	if (src->cmds_state == CMDS_LISTED && smap_get(&src->cmds, file))
		return false;
	char *path = rd_xasprintf("%s/%s", COMMANDS_DIR, file);
	bool replayed = recorded_error(src, path) != 0;
	free(path);
	return !replayed;
}

static int command_from_root(struct rd_source *src, const char *name, struct rd_text *out)
{
	char *path = rd_xasprintf("%s/%s", COMMANDS_DIR, name);
	int r;
	if (capture_absent(src, name)) {
		out->err = ENOENT;
		r = -ENOENT;
	} else {
		r = rd_read_file(src, path, RD_CAP_FILE, out);
	}
	free(path);
	if (r == -ENOENT) {
		/* a snapshot records a command that could not run (absent: ENOENT) in <name>.error */
		struct rd_text e = {0};
		char *ep = rd_xasprintf("%s/%s.error", COMMANDS_DIR, name);
		int code = !capture_absent(src, ep + strlen(COMMANDS_DIR) + 1) && rd_read_attr(src, ep, &e) == 0
				   ? rd_errno_from_name(e.data)
				   : 0;
		rd_text_free(&e);
		free(ep);
		out->err = code > 0 ? code : RD_ENOTCAPTURED;
		return -out->err;
	}
	if (r == 0) {
		struct rd_text st = {0};
		char *sp = rd_xasprintf("%s/%s.status", COMMANDS_DIR, name);
		if (!capture_absent(src, sp + strlen(COMMANDS_DIR) + 1) && rd_read_attr(src, sp, &st) == 0)
			out->status = atoi(st.data);
		else
			out->status = 0;
		rd_text_free(&st);
		free(sp);
	}
	return r;
}

int rd_run_command(struct rd_source *src, const char *name, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	out->status = -1;
	const struct rd_command *c = rd_command_find(name);
	if (!c) {
		out->err = EINVAL;
		return -EINVAL;
	}
	int r;
	if (src->live && rd_reader_command_logged(name, out)) {
		r = out->err ? -out->err : 0; /* run before a takeover: not run again */
	} else if (src->live) {
		struct rd_command bounded = *c;
		long long left = src->run_deadline_ms ? src->run_deadline_ms - mono_ms() : 0;
		if (src->run_deadline_ms && left < bounded.timeout_ms)
			bounded.timeout_ms = left > 0 ? (int)left : 0;
		if (src->run_deadline_ms && left <= 0) {
			out->err = ETIMEDOUT; /* past the run's deadline: not started */
			r = -ETIMEDOUT;
		} else {
			r = run_live(&bounded, false, out);
		}
		rd_reader_command_log(name, out);
	} else {
		src->in_command = true; /* its files are recorded as the command, not as files */
		r = command_from_root(src, name, out);
		src->in_command = false;
	}
	if (r != -RD_ENOTCAPTURED)
		record_command(src, name, out);
	return r;
}

int rd_run_program(struct rd_source *src, const char *const argv[], int timeout_ms, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	out->status = -1;
	if (!src->live) {
		out->err = EPERM;
		return -EPERM; /* in root mode no program is ever run */
	}
	const struct rd_command c = {argv[0], argv, timeout_ms};
	return run_live(&c, true, out);
}

/* ---- per-device commands (mlxlink, mlxconfig, flint, mlnx_qos, dcb) ------------------------- */

void rd_source_allow_device_commands(struct rd_source *src, bool allow)
{
	src->device_commands = allow;
}

/* A capture name: one path component of visible ASCII, no '/' and not starting with '.'. */
static bool device_command_name_ok(const char *name)
{
	if (!name || !*name || *name == '.' || strlen(name) >= 200)
		return false;
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || *p == '/')
			return false;
	return true;
}

/* The program is installed: argv0 is found, executable, in PATH or the sbin directories
 * child_exec adds (so that an absent tool costs no fork). */
static bool program_installed(const char *argv0)
{
	if (strchr(argv0, '/'))
		return access(argv0, X_OK) == 0;
	const char *path = getenv("PATH");
	char *all = rd_xasprintf("%s%s/usr/local/sbin:/usr/sbin:/sbin:/usr/bin:/bin", path ? path : "",
				 path && *path ? ":" : "");
	bool found = false;
	char *save = NULL;
	for (char *d = strtok_r(all, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *full = rd_xasprintf("%s/%s", *d ? d : ".", argv0);
		found = access(full, X_OK) == 0;
		free(full);
	}
	free(all);
	return found;
}

int rd_run_device_command(struct rd_source *src, const char *name, const char *const argv[], int timeout_ms,
			  struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	out->status = -1;
	if (!device_command_name_ok(name) || !argv || !argv[0]) {
		out->err = EINVAL;
		return -EINVAL;
	}
	int r;
	if (src->live) {
		/* a tool that is not installed is said as such with or without --mft (a snapshot of this
		 * host says the same), and costs no fork */
		if (!src->device_commands && program_installed(argv[0])) {
			out->err = RD_ENOTCAPTURED; /* not asked for: nothing run, nothing recorded */
			return -RD_ENOTCAPTURED;
		}
		if (src->run_deadline_ms) {
			long long left = src->run_deadline_ms - mono_ms();
			if (left <= 0) {
				out->err = ETIMEDOUT;
				record_command(src, name, out);
				return -ETIMEDOUT;
			}
			if (left < timeout_ms)
				timeout_ms = (int)left;
		}
		if (!program_installed(argv[0])) {
			out->err = ENOENT;
			r = -ENOENT;
		} else {
			const struct rd_command c = {name, argv, timeout_ms};
			r = run_live(&c, false, out);
		}
	} else {
		src->in_command = true;
		r = command_from_root(src, name, out);
		src->in_command = false;
	}
	if (r != -RD_ENOTCAPTURED)
		record_command(src, name, out);
	return r;
}
