/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Writing a snapshot: what a recording source met (source.h, struct rd_recording) laid out as a
 * root that `--root` reads back with the same answers, as one tar stream through libarchive
 * (gzip-compressed or plain) or as a new directory.  Nothing is staged on disk and no link is
 * ever followed while writing: a link met in the root is stored as a link entry (or created with
 * symlinkat), and every directory is created one component at a time from a descriptor this code
 * made (mkdirat, then openat O_DIRECTORY|O_NOFOLLOW), every file with O_CREAT|O_EXCL|O_NOFOLLOW.
 *
 * The snapshot's own files live under rdma-doctor/ and are written here from the recording, in the
 * formats source.c replays: read-errors ("ENAME\t/path" per line), commands/<name> (the output),
 * <name>.status ("%d\n") and <name>.error ("ENAME\n" when the command could not run).  Whatever
 * the recording met under rdma-doctor/ (the files of a snapshot being snapshotted again, or a
 * hostile root's own rdma-doctor/ and links placed there) is left out: that directory belongs
 * to the snapshot.  The caller adds the files only it knows (devnodes, meta.json).
 *
 * Ownership: a plan borrows the recording (which must outlive it) and copies what is added to
 * it; an output owns its descriptors and temporary names until committed or aborted.  Nothing
 * here prints; failures are -errno with a one-line reason in err. */
#ifndef RD_SOURCE_SNAPWRITE_H
#define RD_SOURCE_SNAPWRITE_H
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "source/source.h"

enum rd_snap_format {
	RD_SNAP_TGZ, /* pax (restricted) tar, gzip: NAME.tar.gz, NAME.tgz */
	RD_SNAP_TAR, /* the same without compression: NAME.tar */
	RD_SNAP_DIR, /* a directory laid out like a root */
};
/* The format a -o name asks for; -1 for a name that looks like an archive of a kind not
 * written (.tar.xz, .zip, .gz ...), rather than making a directory of that name. */
int rd_snap_format_of(const char *path);

/* What a plan holds, counted once the plan is final (recording entries only; the rdma-doctor/
 * files are not counted). */
struct rd_snap_stats {
	unsigned files;       /* regular files, device nodes included (as empty files) */
	unsigned links;
	unsigned dirs;        /* directories met (implied parents not counted) */
	unsigned read_errors; /* lines of rdma-doctor/read-errors */
	unsigned commands;    /* commands with a captured output or a recorded error */
	unsigned skipped;     /* entries left out: unclean path, below a non-directory, under rdma-doctor/ */
};

struct rd_snap_plan;
/* A plan of everything rec met, plus rdma-doctor/read-errors and rdma-doctor/commands/. */
struct rd_snap_plan *rd_snap_plan_new(const struct rd_recording *rec);
/* Adds a regular file (data copied) at a clean relative path (else it is skipped); a path already
 * planned is replaced.  For the caller's rdma-doctor/ files. */
void rd_snap_plan_add(struct rd_snap_plan *p, const char *path, const char *data, size_t len);
/* True when path is planned (as anything). */
bool rd_snap_plan_has(struct rd_snap_plan *p, const char *path);
void rd_snap_plan_stats(struct rd_snap_plan *p, struct rd_snap_stats *st);
void rd_snap_plan_free(struct rd_snap_plan *p);

/* The output -o names.  rd_snap_out_open refuses an existing file unless force, an existing
 * non-empty directory always, and a directory where an archive is asked (or the reverse); it
 * makes an unnamed temporary file (O_TMPFILE, else a mkstemp name) in the target's directory, or
 * for a directory a new temporary directory beside it.  Nothing appears under the target's name
 * before rd_snap_out_commit (fsync, then linkat or rename into place, fsync of the directory);
 * rd_snap_out_abort (or a failed commit) removes everything that was made. */
struct rd_snap_out;
/* The refusals of rd_snap_out_open, without creating anything (to fail before the host is read). */
int rd_snap_out_check(const char *path, enum rd_snap_format fmt, bool force, char *err, size_t errlen);
int rd_snap_out_open(const char *path, enum rd_snap_format fmt, bool force, struct rd_snap_out **out, char *err,
		     size_t errlen);
/* Writes the plan into the output: parents before children, each entry's time mtime. */
int rd_snap_out_write(struct rd_snap_out *o, struct rd_snap_plan *p, time_t mtime, char *err, size_t errlen);
/* Puts the output in place and frees o (also on failure, after removing what was made). */
int rd_snap_out_commit(struct rd_snap_out *o, char *err, size_t errlen);
void rd_snap_out_abort(struct rd_snap_out *o);

#endif
