/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Path resolution inside the root, in user space: canonical paths, each link met recorded
 * (source-internal.h). */
#include "source/source-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/memtree.h"

/* An O_PATH descriptor of canonical directory dir, kept for the next steps in it (borrowed). */
static int pdir_fd(struct rd_source *src, const char *dir)
{
	if (!*dir)
		return src->fd;
	for (unsigned i = 0; i < PDIR_CACHE; i++)
		if (src->pdir[i].path && strcmp(src->pdir[i].path, dir) == 0)
			return src->pdir[i].fd;
	int fd = src_open_canon(src, dir, O_PATH | O_DIRECTORY);
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

void src_pdir_clear(struct rd_source *src)
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
int src_resolve_from(struct rd_source *src, const char *base, const char *rest, bool follow_last,
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
		/* a directory a step met before is one still: no link to follow, nothing to look at */
		if (smap_get(&src->known_dirs, cur.data))
			continue;
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
			if (S_ISDIR(st.st_mode))
				smap_put(&src->known_dirs, cur.data, NULL);
			continue;
		}
		src_record(src, cur.data, RD_REC_LINK, target, strlen(target), 0, &st);
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
		r = src_resolve_from(src, cparent, slash ? slash + 1 : dir, true, out);
	free(cparent);
	if (r < 0)
		return r;
	*smap_put(&src->dirs, dir, NULL) = rd_xstrdup(*out);
	return 0;
}

/* Splits path into its directory's canonical form and the last component. */
int src_resolve_parent(struct rd_source *src, const char *path, char **cdir, const char **base)
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

int src_resolve(struct rd_source *src, const char *path, bool follow_last, char **out)
{
	char *cdir = NULL;
	const char *base;
	int r = src_resolve_parent(src, path, &cdir, &base);
	if (r < 0)
		return r;
	r = src_resolve_from(src, cdir, base, follow_last, out);
	free(cdir);
	return r;
}

int rd_resolve(struct rd_source *src, const char *path, char **canonical)
{
	return src_resolve(src, path, true, canonical);
}
