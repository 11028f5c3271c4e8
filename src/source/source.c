/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The source: opening a host, its deadlines, and the reads (source.h).  The rooms of the source
 * layer share their internals through source-internal.h. */
#include "source/source-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/memtree.h"

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
	if (S_ISREG(st.st_mode) && src_is_archive_name(src->root)) {
		int r = src_read_archive(src, deadline_ms, err, errlen);
		if (r < 0) {
			rd_source_close(src);
			return r;
		}
		src_load_read_errors(src);
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
	src_probe_openat2(src->fd);
	src_nodev_root(src);
	if (!src->live)
		src_load_read_errors(src);
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
	smap_free(&src->known_dirs, false);
	smap_free(&src->errors, false);
	smap_free(&src->einval, false);
	smap_free(&src->error_bases, false);
	smap_free(&src->error_files, false);
	smap_free(&src->cmds, false);
	rd_source_memo(src, false);
	src_pdir_clear(src);
	src_dcache_clear(src);
	free(src->root);
	free(src);
}

void rd_source_set_deadlines(struct rd_source *src, int read_timeout_ms, int run_timeout_ms)
{
	src->read_timeout_ms = read_timeout_ms > 0 ? read_timeout_ms : 0;
	long long deadline = run_timeout_ms > 0 ? rd_mono_ms() + run_timeout_ms : 0;
	/* the watch of a guarded load (watchdog.h): its first deadline kept (a replaying loader's source) */
	if (src->read_timeout_ms)
		rd_watchdog_arm(&deadline, src->read_timeout_ms);
	src->run_deadline_ms = deadline;
}

long long rd_source_time_left_ms(const struct rd_source *src)
{
	if (!src->run_deadline_ms)
		return 0;
	long long left = src->run_deadline_ms - rd_mono_ms();
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

/* ---- reading ------------------------------------------------------------------------------ */

/* Canonical paths are needed when a read error may be replayed or remembered, and to record. */
bool src_need_canon(const struct rd_source *src)
{
	return src->errors.n || src->einval.n || src->rec;
}

/* ---- the load's memo (rd_source_memo) ---------------------------------------------------- */

struct src_memo {
	size_t cap;
	bool prefix_ok, single;
	int err;    /* 0, ENOENT or ENOTDIR */
	char *data; /* the bytes and a NUL (NULL when the read gave none) */
	size_t len;
};

static void memo_free(void *p)
{
	struct src_memo *m = p;
	free(m->data);
	free(m);
}

void rd_source_memo(struct rd_source *src, bool on)
{
	if (!on)
		rd_map_free(&src->memo, memo_free);
	src->memo_on = on;
}

static bool memo_wanted(const struct rd_source *src, const char *path)
{
	return src->memo_on && !src->rec && !src_is_counter_path(path);
}

/* The first read's answer of path asked the same way, copied into *out: true; else false. */
static bool memo_answer(const struct rd_source *src, const char *path, const struct rd_read_req *req, struct rd_text *out,
			int *r)
{
	void **v = memo_wanted(src, path) ? smap_get(&src->memo, rel(path)) : NULL;
	const struct src_memo *m = v ? *v : NULL;
	if (!m || m->cap != req->cap || m->prefix_ok != req->prefix_ok || m->single != req->single)
		return false;
	if (m->data) {
		out->data = rd_xmalloc(m->len + 1);
		memcpy(out->data, m->data, m->len + 1);
	}
	out->len = m->len;
	out->err = m->err;
	*r = -m->err;
	return true;
}

static void memo_keep(struct rd_source *src, const char *path, const struct rd_read_req *req, const struct rd_text *out,
		      int r)
{
	if (!memo_wanted(src, path) || !(r == 0 || r == -ENOENT || r == -ENOTDIR) || out->len > RD_CAP_ATTR)
		return;
	void **v = smap_put(&src->memo, rel(path), NULL);
	if (*v)
		memo_free(*v);
	struct src_memo *m = rd_xcalloc(1, sizeof *m);
	*m = (struct src_memo){.cap = req->cap, .prefix_ok = req->prefix_ok, .single = req->single, .err = -r, .len = out->len};
	if (r == 0 && out->data) {
		m->data = rd_xmalloc(out->len + 1);
		memcpy(m->data, out->data, out->len);
		m->data[out->len] = '\0';
	}
	*v = m;
}

/* single: one read() of at most cap bytes (what libibumad does); otherwise read to EOF, with
 * EFBIG past cap unless prefix_ok.  The read is the caller's, watched in a guarded load (watchdog.h). */
static int read_common(struct rd_source *src, const char *path, size_t cap, bool prefix_ok, bool single,
		       struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	if (src->run_deadline_ms && src->run_deadline_ms <= rd_mono_ms()) {
		out->err = ETIMEDOUT;
		return -ETIMEDOUT;
	}
	char *canon = NULL;
	/* sys/: the live host's sysfs, or in a root a snapshot's copies of its attributes (regular
	 * files, whose read comes back short only at their end): a first read of less than a page is
	 * all of the file, no read more to see its end */
	struct rd_read_req req = {.cap = cap, .prefix_ok = prefix_ok, .single = single,
				  .one_page = rd_str_has_prefix(rel(path), "sys/"), .positional = src->nodev};
	int r;
	if (memo_answer(src, path, &req, out, &r))
		return r;
	/* the canonical path first only to record, or for a counter that may have been refused */
	bool canon_first = src->rec || (src->einval.n && src_is_counter_path(path));
	int fd = src->tree ? -1 : src_open_for_read(src, path, canon_first, &canon, &req.st);
	if (src->tree) {
		r = src_tree_read(src, path, &req, out, &canon);
	} else if (fd < 0) {
		out->err = -fd;
		r = fd;
	} else {
		r = rd_reader_read(rel(path), fd, &req, out);
	}
	/* a read error a snapshot recorded: its file is an empty placeholder, or absent, so only a
	 * read that gave nothing is looked up (by its canonical path: a link may lead to it) */
	if (!src->tree && !canon_first && src->errors.n && r != -ETIMEDOUT && (r < 0 || out->len == 0) &&
	    (r == 0 || src_has_error_base(src, path))) {
		/* a file that read nothing is known by its identity (its fstat, made by the read):
		 * no walk of its path; one that failed, by its canonical path (as is any file when the
		 * list is too long to open each of its files once) */
		bool by_file = r == 0 && req.st.st_mode && !src->einval.n && src->errors.n <= ERROR_FILES_MAX;
		int rec = by_file ? src_recorded_error_of(src, &req.st)
			: canon || src_resolve(src, path, true, &canon) == 0 ? src_recorded_error(src, canon) : 0;
		if (rec) {
			rd_text_free(out);
			out->err = rec;
			r = -rec;
		}
	}
	if (r == -EINVAL && fd >= 0 && src_is_counter_path(canon ? canon : path)) {
		if (canon || src_resolve(src, path, true, &canon) == 0) {
			src_record_error(&src->einval, canon, EINVAL);
			src->einval_remembered++;
		}
	}
	if (r == 0)
		src_record(src, canon, RD_REC_FILE, out->data, out->len, 0, &req.st);
	else if (r == -RD_ENOTREG && req.st.st_mode)
		src_record_stat(src, canon, &req.st, NULL);
	else if (r != -ENOENT && r != -ENOTDIR)
		src_record(src, canon, RD_REC_ERROR, NULL, 0, -r, &req.st);
	memo_keep(src, path, &req, out, r);
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
		return src_tree_list(src, path, keep, names);
	char *canon = NULL;
	int fd;
	if (src->rec) {
		int r = src_resolve(src, path, true, &canon);
		fd = r < 0 ? r : src_open_canon(src, canon, O_RDONLY | O_DIRECTORY);
	} else {
		/* O_DIRECTORY: the kernel refuses anything else before opening it */
		fd = src_open_path(src, path, O_RDONLY | O_DIRECTORY, NULL);
	}
	if (fd < 0) {
		free(canon);
		return fd;
	}
	struct stat st;
	if (canon && fstat(fd, &st) == 0)
		src_record(src, canon, RD_REC_DIR, NULL, 0, 0, &st);
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
					src_record_stat(src, child, &st, tn >= 0 ? target : NULL);
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
		return src_tree_read_link(src, path, target);
	char *canon = NULL;
	int fd;
	if (!src->rec) {
		char buf[4096];
		int n = src_readlink_in_dir(src, path, buf, sizeof buf - 1);
		if (n >= 0) {
			*target = rd_xstrndup(buf, (size_t)n);
			return 0;
		}
		if (n != -EAGAIN)
			return n;
	}
	if (src->rec) {
		int r = src_resolve(src, path, false, &canon);
		fd = r < 0 ? r : src_open_canon(src, canon, O_PATH);
	} else {
		fd = src_open_path(src, path, O_PATH | O_NOFOLLOW, NULL);
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
		src_record(src, canon, RD_REC_LINK, *target, (size_t)n, 0, &st);
	}
	free(canon);
	return r;
}

int rd_stat(struct rd_source *src, const char *path, bool follow, struct stat *st)
{
	if (src->tree)
		return src_tree_stat(src, path, follow, st);
	char *canon = NULL;
	int fd;
	memset(st, 0, sizeof *st);
	if (!src->rec) {
		int r = src_stat_in_dir(src, path, follow, st);
		if (r <= 0)
			return r;
	}
	if (src->rec) {
		int r = src_resolve(src, path, follow, &canon);
		fd = r < 0 ? r : src_open_canon(src, canon, O_PATH);
	} else {
		fd = src_open_path(src, path, O_PATH | (follow ? 0 : O_NOFOLLOW), st);
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
			src_record_stat(src, canon, st, n >= 0 ? target : NULL);
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
