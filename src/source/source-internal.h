/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The source layer's internals, shared by its rooms (source.c: opening and reading; record.c;
 * errors.c: replayed and remembered read errors; confine.c: opening inside the root; resolve.c:
 * canonical paths; archive.c: the archive backend; command.c: commands).  Included by
 * the files of src/source/ only: the rest of the program includes source.h.
 *
 * Ownership: as in source.h; a canonical path (char **) a function here gives is the caller's. */
#ifndef RD_SOURCE_INTERNAL_H
#define RD_SOURCE_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source/watchdog.h"
#include "source/source.h"
#include "util/map.h"
#include "util/util.h"

#define MAX_LINKS 40
#define PDIR_CACHE 64
#define DIR_CACHE 64 /* a power of two */
#define READ_ERRORS_FILE "rdma-doctor/read-errors"
#define ERROR_FILES_MAX 1024 /* read errors replayed whose files are known by identity (src_recorded_error_of) */
#define COMMANDS_DIR "rdma-doctor/commands"

/* ---- the string map (util/map.h) with NUL-terminated keys and pointer values ---------------- */

static inline void **smap_get(const struct rd_map *m, const char *k)
{
	struct rd_map_slot *s = rd_map_get(m, k, strlen(k));
	return s ? &s->val.p : NULL;
}

/* The value slot of k, inserted (value NULL) when absent; *isnew says which. */
static inline void **smap_put(struct rd_map *m, const char *k, bool *isnew)
{
	return &rd_map_put(m, k, strlen(k), isnew)->val.p;
}

static inline void smap_free(struct rd_map *m, bool free_vals)
{
	rd_map_free(m, free_vals ? free : NULL);
}

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
	struct rd_map errors, einval;
	struct rd_map error_bases;    /* the last components of the replayed errors' paths */
	/* the files of the replayed errors that the root holds, by (st_dev, st_ino) -> errno: made at
	 * the first file that reads nothing */
	struct rd_map error_files;
	bool error_files_made;
	/* resolved directories: path as asked -> canonical (malloc'd) */
	struct rd_map dirs;
	struct rd_map known_dirs; /* canonical paths a resolver's step found to be directories */
	/* deadlines (0: none): each read, and the whole run (monotonic ms) */
	int read_timeout_ms;
	long long run_deadline_ms;
	unsigned einval_remembered; /* counter files that returned EINVAL, not read again */
	struct rd_recording *rec;   /* when recording */
	/* directories the resolver stepped in lately: canonical path and an O_PATH descriptor */
	struct {
		char *path;
		int fd;
	} pdir[PDIR_CACHE];
	unsigned pdir_next;
	/* directories files were opened in lately (openat2 kernels): the directory as asked,
	 * relative to the root, and an O_PATH descriptor of it (-1: asked once, not opened, or
	 * not there: then err is ENOENT or ENOTDIR) */
	struct {
		char *path;
		int fd, err;
	} dcache[DIR_CACHE];
	unsigned dcache_next;
	bool in_command;            /* reading a captured command's files: recorded as the command */
	bool device_commands;       /* live: per-device tool commands may run (check --mft, snapshot) */
	/* a directory root's rdma-doctor/commands, listed once: a capture it does not hold is known
	 * absent without an open (a check asks for three files per device for each MFT tool) */
	enum { CMDS_UNLISTED, CMDS_LISTED, CMDS_NONE, CMDS_UNKNOWN } cmds_state;
	struct rd_map cmds;
	/* the reads of one load, by path as asked (rd_source_memo): struct src_memo values */
	bool memo_on;
	struct rd_map memo;
};

/* A path relative to the root: no leading '/', "." for the root itself. */
static inline const char *rel(const char *p)
{
	while (*p == '/')
		p++;
	return *p ? p : ".";
}

static inline char *join(const char *dir, const char *base)
{
	return *dir ? rd_xasprintf("%s/%s", dir, base) : rd_xstrdup(base);
}

/* ---- record.c --------------------------------------------------------------------------- */

/* kind: what was met.  A FILE read replaces a NODE or DIR met before (a later read of a listed or
 * stat'ed path) and a FORGOTTEN one (read again: its bytes are used after all); a DIR listed
 * replaces a NODE; an ERROR replaces a NODE; else the first is kept. */
void src_record(struct rd_source *src, const char *canon, enum rd_rec_kind kind, const char *data, size_t len,
		int err, const struct stat *st);
void src_record_stat(struct rd_source *src, const char *canon, const struct stat *st, const char *link_target);
void src_record_command(struct rd_source *src, const char *name, const struct rd_text *t);

/* ---- errors.c --------------------------------------------------------------------------- */

/* From now on, opening canonical path fails with err (without touching the file). */
void src_record_error(struct rd_map *m, const char *canonical, int err);
int src_recorded_error(const struct rd_source *src, const char *canonical);
/* The replayed error of the file whose fstat is st (0: none): the file a recorded canonical path
 * names in the root, opened with no link followed (a placeholder a snapshot left there). */
int src_recorded_error_of(struct rd_source *src, const struct stat *st);
void src_load_read_errors(struct rd_source *src);
/* A failed read can be a replayed error only when some recorded path ends with the same name
 * (a missing "parent" or "has_smi" is not looked up by its canonical path). */
bool src_has_error_base(const struct rd_source *src, const char *path);
/* Port counters: reading one makes the firmware answer a MAD on some HCAs, and one it refuses
 * (EINVAL) floods the kernel log each time, so a refusal is remembered for the rest of the run. */
bool src_is_counter_path(const char *canon);

/* ---- confine.c -------------------------------------------------------------------------- */

void src_probe_openat2(int dirfd);
/* Opens a canonical path: no link in it but perhaps its last component, which is not followed
 * (O_PATH gives the link itself, other flags ELOOP).  Returns the fd or -errno. */
int src_open_canon(struct rd_source *src, const char *canon, int flags);
/* Opens path (flags: O_PATH ...) when no component of it is a link (the last one is not followed),
 * ".", ".." or empty: what a canonical path names.  Returns the fd or -errno. */
int src_open_no_links(struct rd_source *src, const char *path, int flags);
/* No component of path is "", "." or "..". */
bool src_plain_path(const char *path);
void src_dcache_clear(struct rd_source *src);
/* path's stat, one fstatat in the kept descriptor of its directory (openat2 kernels): 0, -errno,
 * or 1 when that cannot tell (no descriptor kept yet, a link to follow): then open it. */
int src_stat_in_dir(struct rd_source *src, const char *path, bool follow, struct stat *st);
/* path's link target into buf (len bytes, not terminated) the same way: its length, -errno
 * (EINVAL: not a link), or -EAGAIN when that cannot tell: then open it. */
int src_readlink_in_dir(struct rd_source *src, const char *path, char *buf, size_t len);
/* Opens any path inside the root, a final link followed unless flags has O_NOFOLLOW.  With O_PATH
 * and st, *st may come back filled with the file's fstat (st_mode 0: not done). */
int src_open_path(struct rd_source *src, const char *path, int flags, struct stat *st);
/* Opens path for reading.  The live host: one open of the attribute.  A root: an O_PATH open, its
 * fstat in *st, and only a regular file is opened for reading (through /proc/self/fd, the same
 * inode, not resolved again), so that no device node or FIFO in a root is ever opened.  With
 * canon_first, *canon gets the canonical path first (also on failure after it was known), and a
 * read error recorded for it is returned without opening anything.  Returns the fd or -errno. */
int src_open_for_read(struct rd_source *src, const char *path, bool canon_first, char **canon, struct stat *st);
/* A root's directory (src->fd) replaced by its nodev clone, where openat2 confines the reads. */
void src_nodev_root(struct rd_source *src);

/* ---- resolve.c -------------------------------------------------------------------------- */

void src_pdir_clear(struct rd_source *src);
/* Resolves rest[] against an already canonical base.  follow_last: resolve a final link too. */
int src_resolve_from(struct rd_source *src, const char *base, const char *rest, bool follow_last,
		     char **out);
/* Splits path into its directory's canonical form and the last component. */
int src_resolve_parent(struct rd_source *src, const char *path, char **cdir, const char **base);
int src_resolve(struct rd_source *src, const char *path, bool follow_last, char **out);

/* ---- archive.c -------------------------------------------------------------------------- */

bool src_is_archive_name(const char *p);
/* Reads an archive into memory, within the limits and by the deadline: nothing on disk. */
int src_read_archive(struct rd_source *src, long long deadline_ms, char *err, size_t errlen);
int src_tree_read(struct rd_source *src, const char *path, struct rd_read_req *req, struct rd_text *out,
		  char **canon);
int src_tree_list(struct rd_source *src, const char *path, bool (*keep)(const char *name), struct rd_strv *names);
int src_tree_read_link(struct rd_source *src, const char *path, char **target);
int src_tree_stat(struct rd_source *src, const char *path, bool follow, struct stat *st);

/* ---- source.c --------------------------------------------------------------------------- */

/* Canonical paths are needed when a read error may be replayed or remembered, and to record. */
bool src_need_canon(const struct rd_source *src);

#endif
