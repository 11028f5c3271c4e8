/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An in-memory tree of the entries of a snapshot archive: what the source layer reads for an
 * archive root, so that nothing is ever extracted to disk.
 *
 * Ownership: a tree owns every node, name and byte in it; rd_memtree_free releases all.  Lookups
 * return borrowed pointers valid until the tree is freed.  Nothing here prints.
 *
 * Paths are relative to the tree's root ("sys/class/infiniband", a leading '/' is ignored).
 * Symbolic links are resolved inside the tree (an absolute target starts again at the tree's
 * root, ".." never climbs above it), at most RD_MEMTREE_MAX_LINKS per lookup, else -ELOOP. */
#ifndef RD_SOURCE_MEMTREE_H
#define RD_SOURCE_MEMTREE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/util.h"

#define RD_MEMTREE_MAX_LINKS 40

/* Limits applied while a tree is read from an archive; every one is checked as entries come in,
 * directories (also those implied by a file's path) count as entries and toward bytes. */
struct rd_memtree_limits {
	size_t max_entries;     /* files, links and directories together */
	size_t max_depth;       /* components in one path */
	size_t max_name;        /* bytes of one path */
	uint64_t max_bytes;     /* file contents plus a per-entry overhead */
	uint64_t max_file;      /* one file's contents */
	long long deadline_ms;  /* CLOCK_MONOTONIC ms after which reading stops with ETIMEDOUT; 0: none */
};
/* 200,000 entries, depth 64, 4096-byte paths, 1 GiB in all, 256 MiB per file. */
extern const struct rd_memtree_limits rd_memtree_default_limits;

struct rd_memtree;
struct rd_memnode; /* a file, directory or symbolic link in a tree */

/* Reads a tar archive (gzip-compressed or plain: anything libarchive's tar reader takes) from fd
 * into a new tree.  An archive holding one top directory that holds the root (sys, proc, etc,
 * rdma-doctor) is rooted there.  Returns 0 or -errno with a one-line reason in err naming the
 * entry and what was wrong (too deep, too many entries, an absolute or ".." path, a hard link or
 * device entry, truncated or corrupt data, not a tar archive: "is gzip but not tar", ...). */
int rd_memtree_read_fd(int fd, const struct rd_memtree_limits *lim, struct rd_memtree **out, char *err,
		       size_t errlen);
/* The same from a buffer (tests, fuzzing). */
int rd_memtree_read_mem(const void *buf, size_t len, const struct rd_memtree_limits *lim, struct rd_memtree **out,
			char *err, size_t errlen);
void rd_memtree_free(struct rd_memtree *t);

/* Finds path; follow_last: resolve a final symbolic link too.  *canonical (when not NULL) gets the
 * resolved path, malloc'd, also when only the last component is missing (then -ENOENT).
 * Returns 0 or -ENOENT, -ENOTDIR, -ELOOP. */
int rd_memtree_lookup(const struct rd_memtree *t, const char *path, bool follow_last, const struct rd_memnode **node,
		      char **canonical);

/* What a node is: S_IFREG, S_IFDIR or S_IFLNK in mode, with its permission bits, owner and size
 * (for a link: the target's length). */
void rd_memnode_stat(const struct rd_memnode *n, struct stat *st);
/* A file's contents (not NUL-terminated; len may be 0).  -EISDIR / -EINVAL for other kinds. */
int rd_memnode_data(const struct rd_memnode *n, const char **data, size_t *len);
/* A link's raw target.  -EINVAL when not a link. */
int rd_memnode_link(const struct rd_memnode *n, const char **target);
/* Names in a directory, sorted with strcmp, appended to names.  -ENOTDIR when not a directory. */
int rd_memnode_list(const struct rd_memnode *n, struct rd_strv *names);

#endif
