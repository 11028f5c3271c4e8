/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Writing a snapshot from a recording (snapwrite.h): a plan of entries sorted so that every
 * directory comes right before what is inside it, then one pass that emits implied parent
 * directories and each entry, into a libarchive stream or into a new directory. */
#include "source/snapwrite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/atomic.h"
#include "source/larchive.h"

#define COMMANDS "rdma-doctor/commands/"
#define OWN_DIR "rdma-doctor"
/* What the reader of an archive root takes (memtree.h's default limits): longer or deeper
 * paths are left out here rather than making a snapshot that cannot be read back. */
#define MAX_PATH 4095
#define MAX_DEPTH 64

int rd_snap_format_of(const char *path)
{
	if (rd_str_has_suffix(path, ".tar.gz") || rd_str_has_suffix(path, ".tgz"))
		return RD_SNAP_TGZ;
	if (rd_str_has_suffix(path, ".tar"))
		return RD_SNAP_TAR;
	static const char *const other[] = {".gz", ".xz", ".bz2", ".zst", ".lz4", ".lzma", ".zip", ".7z",
					    ".tbz2", ".txz", ".tzst", ".cpio", NULL};
	for (const char *const *s = other; *s; s++)
		if (rd_str_has_suffix(path, *s))
			return -1;
	return RD_SNAP_DIR;
}

/* ---- the plan ------------------------------------------------------------------------------ */

enum itype { IT_FILE, IT_DIR, IT_LINK };

struct item {
	char *path;
	enum itype type;
	const char *data; /* FILE: contents; LINK: target (NUL-terminated) */
	size_t len;
	char *owned;      /* data, when the plan owns it */
	unsigned perm;
	unsigned uid, gid;
	size_t seq;       /* order added: of equal paths the first is kept ... */
	bool extra;       /* ... except that an added file replaces */
	bool from_rec;    /* counted in the stats */
	bool node;        /* a device node, FIFO or unread file: an empty regular file */
	bool dead;        /* left out (a duplicate, or below a non-directory) */
};

struct rd_snap_plan {
	const struct rd_recording *rec;
	struct item *v;
	size_t n, cap, seq;
	bool final;
	unsigned unclean; /* entries refused on the way in */
	struct rd_snap_stats st;
};

/* A relative path of clean components: no leading or trailing '/', no empty, "." or ".."
 * component, within the reader's length and depth limits. */
static bool clean_path(const char *p)
{
	size_t len = strlen(p), depth = 1;
	if (!len || len > MAX_PATH)
		return false;
	for (const char *c = p;;) {
		const char *slash = strchr(c, '/');
		size_t n = slash ? (size_t)(slash - c) : strlen(c);
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!slash)
			return true;
		if (++depth > MAX_DEPTH)
			return false;
		c = slash + 1;
	}
}

static bool own_path(const char *p)
{
	return strcmp(p, OWN_DIR) == 0 || rd_str_has_prefix(p, OWN_DIR "/");
}

/* '/' sorts before every other byte, so that a directory's subtree follows it contiguously
 * ("a/b", "a/b/c", "a/b-c", not "a/b", "a/b-c", "a/b/c"). */
static int path_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned ca = (unsigned char)*a, cb = (unsigned char)*b;
		if (ca == cb) {
			if (!ca)
				return 0;
			continue;
		}
		if (!ca || !cb)
			return !ca ? -1 : 1;
		if (ca == '/' || cb == '/')
			return ca == '/' ? -1 : 1;
		return ca < cb ? -1 : 1;
	}
}

static int item_cmp(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	int c = path_cmp(a->path, b->path);
	if (c)
		return c;
	if (a->extra != b->extra)
		return a->extra ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static struct item *push(struct rd_snap_plan *p, const char *path, enum itype type)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 256;
		p->v = rd_xrealloc(p->v, p->cap * sizeof *p->v);
	}
	struct item *it = &p->v[p->n++];
	memset(it, 0, sizeof *it);
	it->path = rd_xstrdup(path);
	it->type = type;
	it->seq = p->seq++;
	p->final = false;
	return it;
}

static void add_owned(struct rd_snap_plan *p, const char *path, char *data, size_t len)
{
	struct item *it = push(p, path, IT_FILE);
	it->owned = data;
	it->data = data;
	it->len = len;
	it->perm = 0644;
	it->extra = true;
}

/* Is path a directory in the (final) plan: an entry of that kind, or the parent of one? */
static bool plan_has_dir(const struct rd_snap_plan *p, const char *path)
{
	size_t lo = 0, hi = p->n, plen = strlen(path);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (path_cmp(p->v[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < p->n; i++) {
		const struct item *it = &p->v[i];
		if (it->dead)
			continue;
		if (strcmp(it->path, path) == 0) {
			if (it->type == IT_DIR)
				return true;
			continue;
		}
		return strncmp(it->path, path, plen) == 0 && it->path[plen] == '/';
	}
	return false;
}

/* Sorts, keeps the first of equal paths and drops what lies below a file or a link (a root that
 * changed while it was read; writing it would mean going through the link). */
static void finish(struct rd_snap_plan *p)
{
	if (p->final)
		return;
	qsort(p->v, p->n, sizeof *p->v, item_cmp);
	size_t *stack = rd_xmalloc((p->n + 1) * sizeof *stack), depth = 0;
	const char *prev = NULL;
	for (size_t i = 0; i < p->n; i++) {
		struct item *it = &p->v[i];
		if (it->dead)
			continue;
		if (prev && strcmp(prev, it->path) == 0) {
			it->dead = true;
			continue;
		}
		prev = it->path;
		while (depth) {
			const char *top = p->v[stack[depth - 1]].path;
			size_t tl = strlen(top);
			if (strncmp(it->path, top, tl) == 0 && it->path[tl] == '/')
				break;
			depth--;
		}
		if (depth && p->v[stack[depth - 1]].type != IT_DIR) {
			it->dead = true;
			continue;
		}
		stack[depth++] = i;
	}
	free(stack);
	struct rd_snap_stats st = {.skipped = p->unclean};
	for (size_t i = 0; i < p->n; i++) {
		const struct item *it = &p->v[i];
		if (!it->from_rec)
			continue;
		if (it->dead)
			st.skipped++;
		else if (it->type == IT_FILE)
			st.files++;
		else if (it->type == IT_LINK)
			st.links++;
		else
			st.dirs++;
	}
	st.read_errors = p->st.read_errors;
	st.commands = p->st.commands;
	p->st = st;
	p->final = true;
}

/* Errors the replayed layout gives by itself are not recorded: an absent file is absent, a path
 * through a file or a link loop is stored as such, and a directory read as a file is a directory. */
static bool error_to_replay(const struct rd_snap_plan *p, const char *path, int err)
{
	if (err == ENOENT || err == ENOTDIR || err == ELOOP || err == 0)
		return false;
	if ((err == RD_ENOTREG || err == EISDIR) && plan_has_dir(p, path))
		return false;
	return true;
}

static bool plain_name(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
	       strlen(name) < 200;
}

static const char *errno_name(int err)
{
	const char *n = rd_errno_name(err);
	return n ? n : "EIO";
}

/* A recorded entry as an item (its data borrowed from the recording). */
static void add_rec(struct rd_snap_plan *p, const struct rd_rec_entry *e)
{
	if (!e->path || !clean_path(e->path) || own_path(e->path) ||
	    (e->kind == RD_REC_LINK && (!e->data || !*e->data || strlen(e->data) != e->len || e->len > MAX_PATH)) ||
	    (e->kind == RD_REC_NODE && S_ISLNK(e->mode))) {
		p->unclean++;
		return;
	}
	enum itype t = e->kind == RD_REC_LINK ? IT_LINK
		       : e->kind == RD_REC_DIR || (e->kind == RD_REC_NODE && S_ISDIR(e->mode)) ? IT_DIR
											: IT_FILE;
	struct item *it = push(p, e->path, t);
	it->from_rec = true;
	it->uid = (unsigned)e->uid;
	it->gid = (unsigned)e->gid;
	const char *data = NULL;
	size_t len = 0;
	if (t == IT_LINK) {
		data = e->data;
		len = e->len;
		it->perm = 0777;
	} else if (t == IT_DIR) {
		it->perm = e->mode ? ((unsigned)e->mode & 07777) | 0700 : 0755;
	} else {
		it->node = e->kind != RD_REC_FILE;
		data = e->kind == RD_REC_FILE ? e->data : NULL;
		len = e->kind == RD_REC_FILE && e->data ? e->len : 0;
		it->perm = e->mode ? ((unsigned)e->mode & 0777) | 0600 : 0644;
	}
	it->data = data;
	it->len = len;
}

struct rd_snap_plan *rd_snap_plan_new(const struct rd_recording *rec)
{
	struct rd_snap_plan *p = rd_xcalloc(1, sizeof *p);
	p->rec = rec;
	for (size_t i = 0; i < rec->n; i++) {
		const struct rd_rec_entry *e = &rec->entries[i];
		/* a file whose read failed (EACCES, EINVAL, EIO ...) is kept as an empty placeholder, with its
		 * directories, so that the replayed error is met at the same path (as a root's read-errors
		 * are written: tests/scenarios/make.sh readerr); errors the layout gives by itself are not */
		bool placeholder = e->kind == RD_REC_ERROR && e->err && e->err != ENOENT && e->err != ENOTDIR &&
				   e->err != ELOOP && e->err != RD_ENOTREG && e->err != EISDIR;
		if (e->kind != RD_REC_FORGOTTEN && (e->kind != RD_REC_ERROR || placeholder))
			add_rec(p, e);
	}
	finish(p);

	/* rdma-doctor/read-errors: always present, so that an empty one says "none met" */
	struct rd_buf b = {0};
	unsigned nerr = 0;
	for (size_t i = 0; i < rec->n; i++) {
		const struct rd_rec_entry *e = &rec->entries[i];
		if (e->kind != RD_REC_ERROR || !e->path || !clean_path(e->path) || own_path(e->path) ||
		    strpbrk(e->path, "\t\n") || !error_to_replay(p, e->path, e->err))
			continue;
		rd_buf_printf(&b, "%s\t/%s\n", errno_name(e->err), e->path);
		nerr++;
	}
	size_t blen = b.len;
	add_owned(p, OWN_DIR "/read-errors", blen ? rd_buf_steal(&b) : rd_xstrdup(""), blen);
	rd_buf_free(&b);

	unsigned ncmd = 0;
	for (size_t i = 0; i < rec->ncommands; i++) {
		const struct rd_rec_command *c = &rec->commands[i];
		if (!plain_name(c->name))
			continue;
		char *path = rd_xasprintf(COMMANDS "%s", c->name);
		if (c->out.err == 0) {
			char *data = rd_xmalloc(c->out.len + 1);
			if (c->out.len)
				memcpy(data, c->out.data, c->out.len);
			data[c->out.len] = '\0';
			add_owned(p, path, data, c->out.len);
			char *sp = rd_xasprintf("%s.status", path);
			char *st = rd_xasprintf("%d\n", c->out.status);
			add_owned(p, sp, st, strlen(st));
			free(sp);
			ncmd++;
		} else if (c->out.err != RD_ENOTCAPTURED) {
			char *ep = rd_xasprintf("%s.error", path);
			char *line = rd_xasprintf("%s\n", errno_name(c->out.err));
			add_owned(p, ep, line, strlen(line));
			free(ep);
			ncmd++;
		}
		free(path);
	}
	/* added files replace one another only when the caller means it: commands met twice keep
	 * their first answer, like every other entry */
	for (size_t i = 0; i < p->n; i++)
		p->v[i].extra = false;
	finish(p);
	p->st.read_errors = nerr;
	p->st.commands = ncmd;
	return p;
}

void rd_snap_plan_add(struct rd_snap_plan *p, const char *path, const char *data, size_t len)
{
	if (!clean_path(path)) {
		p->unclean++;
		return;
	}
	char *copy = rd_xmalloc(len + 1);
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	add_owned(p, path, copy, len);
}

bool rd_snap_plan_has(struct rd_snap_plan *p, const char *path)
{
	finish(p);
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = path_cmp(p->v[mid].path, path);
		if (c == 0 && !p->v[mid].dead)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < p->n && strcmp(p->v[i].path, path) == 0; i++)
		if (!p->v[i].dead)
			return true;
	return false;
}

void rd_snap_plan_stats(struct rd_snap_plan *p, struct rd_snap_stats *st)
{
	finish(p);
	*st = p->st;
}

void rd_snap_plan_free(struct rd_snap_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].path);
		free(p->v[i].owned);
	}
	free(p->v);
	free(p);
}

/* ---- the output ---------------------------------------------------------------------------- */

struct rd_snap_out {
	enum rd_snap_format fmt;
	char *path;       /* as given, for messages */
	int dirfd;        /* the target's parent directory */
	char *base;       /* the target's name in it */
	int fd;           /* the temporary file, or the temporary directory */
	char *tmpname;    /* its name in dirfd; NULL for an O_TMPFILE file */
	bool force;
	bool over_empty_dir; /* the target is an empty directory, replaced by the new one */
};

static char *random_name(const char *base)
{
	unsigned char r[6];
	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		unsigned long long x = (unsigned long long)getpid() * 2654435761u ^ (unsigned long long)time(NULL);
		memcpy(r, &x, sizeof r);
	}
	return rd_xasprintf(".%s.%02x%02x%02x%02x%02x%02x.tmp", base, r[0], r[1], r[2], r[3], r[4], r[5]);
}

static bool dir_is_empty(int fd)
{
	int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return false;
	}
	bool empty = true;
	struct dirent *de;
	while (empty && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			empty = false;
	closedir(d);
	return empty;
}

static void out_free(struct rd_snap_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->tmpname);
	free(o->base);
	free(o->path);
	free(o);
}

/* The target's directory and name: "a/b/c" -> "a/b", "c"; "c" -> ".", "c". */
static int split_target(const char *path, enum rd_snap_format fmt, char **dir, char **base, char *err, size_t errlen)
{
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	char *p = rd_xstrndup(path, len);
	char *slash = strrchr(p, '/');
	const char *b = slash ? slash + 1 : p;
	if (!*b || strcmp(b, ".") == 0 || strcmp(b, "..") == 0) {
		rd_set_err(err, errlen, "%s: give the name of a new %s", path, fmt == RD_SNAP_DIR ? "directory" : "file");
		free(p);
		return -EINVAL;
	}
	*base = rd_xstrdup(b);
	*dir = slash ? (slash == p ? rd_xstrdup("/") : rd_xstrndup(p, (size_t)(slash - p))) : rd_xstrdup(".");
	free(p);
	return 0;
}

/* May the target be written?  Sets *empty_dir when it is an existing empty directory. */
static int check_target(int dirfd, const char *base, const char *path, enum rd_snap_format fmt, bool force,
			bool *empty_dir, char *err, size_t errlen)
{
	struct stat st;
	*empty_dir = false;
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		rd_set_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	if (fmt == RD_SNAP_DIR) {
		if (!S_ISDIR(st.st_mode)) {
			rd_set_err(err, errlen, "%s exists and is not a directory; give a new directory", path);
			return -EEXIST;
		}
		int fd = openat(dirfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		bool empty = fd >= 0 && dir_is_empty(fd);
		if (fd >= 0)
			close(fd);
		if (!empty) {
			rd_set_err(err, errlen, "%s is not empty; give a new directory", path);
			return -ENOTEMPTY;
		}
		*empty_dir = true;
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		rd_set_err(err, errlen, "%s is a directory; give the name of an archive file", path);
		return -EISDIR;
	}
	if (!force) {
		rd_set_err(err, errlen, "%s exists; give --force to replace it", path);
		return -EEXIST;
	}
	return 0;
}

int rd_snap_out_check(const char *path, enum rd_snap_format fmt, bool force, char *err, size_t errlen)
{
	char *dir = NULL, *base = NULL;
	int r = split_target(path, fmt, &dir, &base, err, errlen);
	if (r < 0)
		return r;
	char why[512] = "";
	int dirfd = rd_dir_open_safe(dir, why, sizeof why);
	bool empty;
	if (dirfd < 0) {
		r = dirfd;
		rd_set_err(err, errlen, "cannot write %s: %s", path, why);
	} else {
		r = check_target(dirfd, base, path, fmt, force, &empty, err, errlen);
		close(dirfd);
	}
	free(dir);
	free(base);
	return r;
}

int rd_snap_out_open(const char *path, enum rd_snap_format fmt, bool force, struct rd_snap_out **out, char *err,
		     size_t errlen)
{
	*out = NULL;
	char *dir = NULL, *base = NULL;
	int r = split_target(path, fmt, &dir, &base, err, errlen);
	if (r < 0)
		return r;
	struct rd_snap_out *o = rd_xcalloc(1, sizeof *o);
	o->fmt = fmt;
	o->path = rd_xstrdup(path);
	o->base = base;
	o->fd = -1;
	o->force = force;
	char why[512] = "";
	o->dirfd = rd_dir_open_safe(dir, why, sizeof why);
	if (o->dirfd < 0) {
		r = o->dirfd;
		rd_set_err(err, errlen, "cannot write %s: %s", path, why);
		goto fail;
	}
	if ((r = check_target(o->dirfd, o->base, path, fmt, force, &o->over_empty_dir, err, errlen)) < 0)
		goto fail;

	if (fmt == RD_SNAP_DIR) {
		for (int attempt = 0; attempt < 100; attempt++) {
			free(o->tmpname);
			o->tmpname = random_name(o->base);
			if (mkdirat(o->dirfd, o->tmpname, 0700) == 0 || errno != EEXIST)
				break;
		}
		o->fd = openat(o->dirfd, o->tmpname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (o->fd < 0) {
			r = -errno;
			rd_set_err(err, errlen, "cannot create a directory beside %s: %s", path, strerror(errno));
			unlinkat(o->dirfd, o->tmpname, AT_REMOVEDIR);
			goto fail;
		}
	} else {
		/* the snapshot holds the kernel log and the host's configuration: its owner only */
		o->fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (o->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOENT)) {
			for (int attempt = 0; attempt < 100; attempt++) {
				free(o->tmpname);
				o->tmpname = random_name(o->base);
				o->fd = openat(o->dirfd, o->tmpname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
				if (o->fd >= 0 || errno != EEXIST)
					break;
			}
		}
		if (o->fd < 0) {
			r = -errno;
			rd_set_err(err, errlen, "cannot create %s: %s", path, strerror(errno));
			goto fail;
		}
	}
	free(dir);
	*out = o;
	return 0;
fail:
	free(o->tmpname);
	o->tmpname = NULL;
	out_free(o);
	free(dir);
	return r;
}

void rd_snap_out_abort(struct rd_snap_out *o)
{
	if (!o)
		return;
	if (o->tmpname) {
		if (o->fmt == RD_SNAP_DIR)
			rd_remove_tree(o->dirfd, o->tmpname);
		else
			unlinkat(o->dirfd, o->tmpname, 0);
	}
	out_free(o);
}

/* renameat2(RENAME_NOREPLACE), or on a file system without it (9p, some FUSE: EINVAL) a hard link
 * to the new name (which fails if the name exists) and the old name removed; a directory, which
 * cannot be linked, is renamed only when the name is still free. */
static int rename_noreplace(int dirfd, const char *from, const char *to, bool dir)
{
	if (renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (!dir) {
		if (linkat(dirfd, from, dirfd, to, 0) < 0)
			return -errno;
		unlinkat(dirfd, from, 0);
		return 0;
	}
	struct stat st;
	if (fstatat(dirfd, to, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	return renameat(dirfd, from, dirfd, to) < 0 ? -errno : 0;
}

int rd_snap_out_commit(struct rd_snap_out *o, char *err, size_t errlen)
{
	int r = 0;
	if (o->fmt == RD_SNAP_DIR) {
		/* the files were written through descriptors now closed: sync the file system */
		if (syncfs(o->fd) < 0) {
			r = -errno;
		} else if (o->over_empty_dir) {
			/* rename(2) replaces an empty directory, and fails if it was filled meanwhile */
			if (renameat(o->dirfd, o->tmpname, o->dirfd, o->base) < 0)
				r = -errno;
		} else {
			r = rename_noreplace(o->dirfd, o->tmpname, o->base, true);
		}
	} else if (fsync(o->fd) < 0) {
		r = -errno;
	} else if (o->tmpname) {
		if (o->force)
			r = renameat(o->dirfd, o->tmpname, o->dirfd, o->base) < 0 ? -errno : 0;
		else
			r = rename_noreplace(o->dirfd, o->tmpname, o->base, false);
	} else {
		/* give the unnamed file its name: linkat fails if the name exists, so without --force
		 * it links there directly, with --force to a temporary name renamed over the target */
		char *name = o->force ? random_name(o->base) : rd_xstrdup(o->base);
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
		if (linkat(o->fd, "", o->dirfd, name, AT_EMPTY_PATH) < 0 &&
		    linkat(AT_FDCWD, proc, o->dirfd, name, AT_SYMLINK_FOLLOW) < 0) {
			r = -errno;
		} else if (o->force && renameat(o->dirfd, name, o->dirfd, o->base) < 0) {
			r = -errno;
			unlinkat(o->dirfd, name, 0);
		}
		free(name);
	}
	if (r == 0) {
		free(o->tmpname);
		o->tmpname = NULL; /* in place: nothing to remove any more */
		if (fsync(o->dirfd) < 0 && errno != EINVAL)
			r = -errno;
	}
	if (r < 0) {
		if (r == -EEXIST || r == -ENOTEMPTY)
			rd_set_err(err, errlen, "cannot write %s: it appeared while the snapshot was written", o->path);
		else
			rd_set_err(err, errlen, "cannot write %s: %s", o->path, strerror(-r));
		rd_snap_out_abort(o);
		return r;
	}
	out_free(o);
	return 0;
}

/* ---- writing the plan ---------------------------------------------------------------------- */

struct writer {
	struct rd_snap_out *o;
	time_t mtime;
	char *err;
	size_t errlen;
	/* archive */
	const struct rd_larchive *la;
	struct archive *a;
	struct archive_entry *e;
	/* directories open on the way to the current entry: paths, and for RD_SNAP_DIR their fds
	 * (fds[0] the output directory, not owned) */
	char **dirs;
	int *fds;
	size_t depth;
};

static int archive_fail(struct writer *w, const char *what, int saved_errno)
{
	const char *msg = w->la->error_string(w->a);
	int e = saved_errno > 0 ? saved_errno : EIO;
	if (saved_errno > 0)
		rd_set_err(w->err, w->errlen, "cannot write %s (%s): %s: %s", w->o->path, what, msg ? msg : "libarchive",
			strerror(saved_errno));
	else
		rd_set_err(w->err, w->errlen, "cannot write %s (%s): %s", w->o->path, what, msg ? msg : "libarchive error");
	return -e;
}

static int archive_entry_out(struct writer *w, const char *path, enum itype type, const struct item *it)
{
	const struct rd_larchive *la = w->la;
	la->entry_clear(w->e);
	la->entry_set_pathname(w->e, path);
	la->entry_set_mtime(w->e, w->mtime, 0);
	la->entry_set_uid(w->e, it ? it->uid : 0);
	la->entry_set_gid(w->e, it ? it->gid : 0);
	size_t len = 0;
	if (type == IT_DIR) {
		la->entry_set_filetype(w->e, AE_IFDIR);
		la->entry_set_perm(w->e, it ? it->perm : 0755);
	} else if (type == IT_LINK) {
		la->entry_set_filetype(w->e, AE_IFLNK);
		la->entry_set_perm(w->e, 0777);
		la->entry_set_symlink(w->e, it->data);
	} else {
		la->entry_set_filetype(w->e, AE_IFREG);
		la->entry_set_perm(w->e, it->perm);
		len = it->data ? it->len : 0;
	}
	la->entry_set_size(w->e, (la_int64_t)len);
	errno = 0;
	int r = la->write_header(w->a, w->e);
	if (r < ARCHIVE_WARN)
		return archive_fail(w, path, errno);
	for (size_t off = 0; off < len;) {
		errno = 0;
		la_ssize_t n = la->write_data(w->a, it->data + off, len - off);
		if (n <= 0)
			return archive_fail(w, path, errno);
		off += (size_t)n;
	}
	return 0;
}

static int dir_fail(struct writer *w, const char *path, int e)
{
	rd_set_err(w->err, w->errlen, "cannot write %s/%s: %s", w->o->path, path, strerror(e));
	return -e;
}

/* Creates one entry in the directory open at the top of the stack, never through a link. */
static int dir_entry_out(struct writer *w, const char *path, const char *name, enum itype type, const struct item *it)
{
	int parent = w->fds[w->depth];
	if (type == IT_DIR) {
		if (mkdirat(parent, name, 0700) < 0)
			return dir_fail(w, path, errno);
		int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return dir_fail(w, path, errno);
		if (it && (it->perm & 07777) != 0700 && fchmod(fd, it->perm & 07777) < 0) {
			int e = errno;
			close(fd);
			return dir_fail(w, path, e);
		}
		w->fds[w->depth + 1] = fd;
		return 0;
	}
	if (type == IT_LINK)
		return symlinkat(it->data, parent, name) < 0 ? dir_fail(w, path, errno) : 0;
	int fd = openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, it->perm & 0777);
	if (fd < 0)
		return dir_fail(w, path, errno);
	size_t len = it->data ? it->len : 0;
	int r = rd_write_all(fd, it->data, len);
	if (r < 0) {
		close(fd);
		return dir_fail(w, path, -r);
	}
	return close(fd) < 0 ? dir_fail(w, path, errno) : 0;
}

static void pop_dir(struct writer *w)
{
	free(w->dirs[w->depth - 1]);
	if (w->o->fmt == RD_SNAP_DIR)
		close(w->fds[w->depth]);
	w->depth--;
}

/* Emits one entry at path (its parents already emitted); a directory is pushed. */
static int emit(struct writer *w, const char *path, enum itype type, const struct item *it)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	int r = w->o->fmt == RD_SNAP_DIR ? dir_entry_out(w, path, name, type, it) : archive_entry_out(w, path, type, it);
	if (r == 0 && type == IT_DIR)
		w->dirs[w->depth++] = rd_xstrdup(path);
	return r;
}

static int write_item(struct writer *w, const struct item *it)
{
	const char *p = it->path;
	while (w->depth) {
		const char *top = w->dirs[w->depth - 1];
		size_t tl = strlen(top);
		if (strncmp(p, top, tl) == 0 && p[tl] == '/')
			break;
		pop_dir(w);
	}
	/* the parents not in the plan */
	size_t start = w->depth ? strlen(w->dirs[w->depth - 1]) + 1 : 0;
	for (const char *s = strchr(p + start, '/'); s; s = strchr(s + 1, '/')) {
		char *parent = rd_xstrndup(p, (size_t)(s - p));
		int r = emit(w, parent, IT_DIR, NULL);
		free(parent);
		if (r < 0)
			return r;
	}
	return emit(w, p, it->type, it);
}

int rd_snap_out_write(struct rd_snap_out *o, struct rd_snap_plan *p, time_t mtime, char *err, size_t errlen)
{
	finish(p);
	struct writer w = {.o = o, .mtime = mtime, .err = err, .errlen = errlen};
	w.dirs = rd_xcalloc(MAX_DEPTH + 2, sizeof *w.dirs);
	w.fds = rd_xcalloc(MAX_DEPTH + 2, sizeof *w.fds);
	w.fds[0] = o->fd;
	int r = 0;
	if (o->fmt != RD_SNAP_DIR) {
		char why[512] = "";
		w.la = rd_larchive(why, sizeof why);
		if (!w.la) {
			rd_set_err(err, errlen, "cannot write %s: %s", o->path, why);
			r = -ENOSYS;
			goto out;
		}
		w.a = w.la->write_new();
		w.e = w.la->entry_new();
		if (!w.a || !w.e) {
			rd_set_err(err, errlen, "cannot write %s: %s", o->path, strerror(ENOMEM));
			r = -ENOMEM;
			goto out;
		}
		if (w.la->write_set_format_pax_restricted(w.a) != ARCHIVE_OK ||
		    (o->fmt == RD_SNAP_TGZ ? w.la->write_add_filter_gzip(w.a) : w.la->write_add_filter_none(w.a)) != ARCHIVE_OK ||
		    (o->fmt == RD_SNAP_TGZ && w.la->write_set_bytes_in_last_block(w.a, 1) != ARCHIVE_OK) ||
		    w.la->write_open_fd(w.a, o->fd) != ARCHIVE_OK) {
			r = archive_fail(&w, "setting up the archive", errno);
			goto out;
		}
	}
	for (size_t i = 0; i < p->n && r == 0; i++)
		if (!p->v[i].dead)
			r = write_item(&w, &p->v[i]);
	if (r == 0 && w.a) {
		errno = 0;
		if (w.la->write_close(w.a) != ARCHIVE_OK)
			r = archive_fail(&w, "closing the archive", errno);
	}
out:
	while (w.depth)
		pop_dir(&w);
	if (w.e)
		w.la->entry_free(w.e);
	if (w.a)
		w.la->write_free(w.a);
	free(w.dirs);
	free(w.fds);
	return r;
}
