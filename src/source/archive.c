/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The archive backend: a snapshot read into memory (memtree.h), and the same calls as on a
 * directory answered from its tree (source-internal.h). */
#include "source/source-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/memtree.h"

bool src_is_archive_name(const char *p)
{
	return rd_str_has_suffix(p, ".tar.gz") || rd_str_has_suffix(p, ".tgz") ||
	       rd_str_has_suffix(p, ".tar");
}

/* Reads an archive into memory, within the limits and by the deadline: nothing on disk. */
int src_read_archive(struct rd_source *src, long long deadline_ms, char *err, size_t errlen)
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

/* The node of path and, when canonical paths are needed, its canonical path (also when only the
 * last component is missing).  While recording, the walk is the resolver's, which records each
 * link met. */
static int tree_find(struct rd_source *src, const char *path, bool follow, const struct rd_memnode **n, char **canon)
{
	*canon = NULL;
	if (src->rec) {
		int r = src_resolve(src, path, follow, canon);
		return r < 0 ? r : rd_memtree_lookup(src->tree, *canon, false, n, NULL);
	}
	return rd_memtree_lookup(src->tree, path, follow, n, src_need_canon(src) ? canon : NULL);
}

int src_tree_read(struct rd_source *src, const char *path, struct rd_read_req *req, struct rd_text *out,
		  char **canon)
{
	const struct rd_memnode *n;
	int r = tree_find(src, path, true, &n, canon);
	int rec = *canon ? src_recorded_error(src, *canon) : 0; /* also for a file the snapshot lacks */
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
	src_record_stat(src, canon, &st, target);
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

int src_tree_list(struct rd_source *src, const char *path, bool (*keep)(const char *name), struct rd_strv *names)
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

int src_tree_read_link(struct rd_source *src, const char *path, char **target)
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

int src_tree_stat(struct rd_source *src, const char *path, bool follow, struct stat *st)
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
