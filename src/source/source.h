/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The source layer: how the model reads a host (the live one, a root directory or a snapshot
 * archive) and runs the few programs whose output the checks use.  Everything the model and the
 * checks know of a host is read here.  Outside src/source/, code touches the file system only
 * for the operator's own files and for the live host's devices: the file given to --policy
 * (model/policy.c; the default /etc/rdma-doctor.conf is read here), explain's log files and
 * standard input (cmd/explain.c), --output files (cmd/emit.c), the probe's stat of
 * /dev/infiniband and its child process (probe/), and rd_remove_tree (util/, called by
 * snapwrite.c).  fix's writes (atomic.c) and snapshot's output (snapwrite.c) are here, and every
 * other child process is run by spawn.h (scontrol for cmd/slurm.c, librpm's for model/rpmdb.c).
 *
 * Ownership: an rd_source owns its root directory fd (or the tree of a snapshot archive read into
 * memory); every rd_text, string and rd_strv it fills is owned by the caller.
 *
 * Every path given here is relative to the root ("sys/class/infiniband", a leading '/' is
 * ignored) and is resolved inside the root: symbolic links are followed with the root as "/",
 * and ".." never climbs above it, so in root mode nothing outside the root is read.  The kernel
 * does the confinement (openat2 RESOLVE_IN_ROOT, Linux 5.6+; a file in a directory asked before
 * is one O_NOFOLLOW lookup of its name in a kept descriptor of that directory (a stat or a
 * readlink there is one call), and a link met there goes back to openat2); without it every path
 * is walked one component at a time with O_PATH|O_NOFOLLOW descriptors, never by a
 * multi-component openat.  In a root only regular files are opened for reading (a device node or FIFO is fstat'ed through an
 * O_PATH descriptor and refused, never opened).  Failures are returned as values (a negative
 * errno, also kept in rd_text.err); nothing here prints. */
#ifndef RD_SOURCE_H
#define RD_SOURCE_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "source/text.h"
#include "util/util.h"

struct rd_source;

/* Opens the host seen through root: NULL is the live host (programs are run); any root given is
 * read as a root, also one that leads back to "/" ("/.", "//", a link to /): no program is run.
 * A directory is a root laid out like a host (or an unpacked snapshot); a .tar.gz/.tgz/.tar file
 * is a snapshot archive, read into memory (memtree.h: nothing is written to disk) with the
 * default limits, and by deadline_ms (CLOCK_MONOTONIC ms, 0: none) for rd_source_open_until.
 * Returns 0 or -errno with a one-line reason in err. */
int rd_source_open(const char *root, struct rd_source **out, char *err, size_t errlen);
int rd_source_open_until(const char *root, long long deadline_ms, struct rd_source **out, char *err, size_t errlen);
void rd_source_close(struct rd_source *src);

/* Deadlines (0: none): each file read may take read_timeout_ms, and after run_timeout_ms from now
 * every read fails at once with ETIMEDOUT ("timed out").  Reads are the caller's own; a read that
 * does not return in time is the watch's (source/watchdog.h): in a guarded load (run/guard.h) the
 * load starts again on a new loader, that read ETIMEDOUT and every read before it answered as it
 * was.  The first deadline of the watch is kept for its later sources. */
void rd_source_set_deadlines(struct rd_source *src, int read_timeout_ms, int run_timeout_ms);
/* Milliseconds left before the run's deadline: 0 when there is none, negative once passed (for
 * work done outside the source layer, e.g. librpm in model/rpmdb.c). */
long long rd_source_time_left_ms(const struct rd_source *src);

/* Port counter files (ports/N/counters, hw_counters) that failed with EINVAL so far: each is
 * remembered and fails at once when asked again, without a new read (a refused counter read is a
 * firmware command and a kernel log line each time on some HCAs). */
unsigned rd_source_einval_remembered(const struct rd_source *src);

/* Between rd_source_memo(src, true) and rd_source_memo(src, false) (a load), a file read again
 * is answered with the bytes or the error (ENOENT, ENOTDIR) of its first read by the same path,
 * with the same cap and mode, without touching the file: one view of the host per load, and no
 * second open of what two parts of the model both read.  Never for port counters (read twice on
 * purpose, a rate between the two), nor while recording (a read forgotten and read again is
 * recorded again), nor for more than RD_CAP_ATTR bytes.  Off: the answers are freed. */
void rd_source_memo(struct rd_source *src, bool on);

/* True when reading the running host (commands may be run): rd_source_open was given no root. */
bool rd_source_is_live(const struct rd_source *src);
/* True when the root is a snapshot archive (nothing on disk to apply a fix to). */
bool rd_source_is_archive(const struct rd_source *src);
/* The root as the user gave it ("/" for the live host). */
const char *rd_source_root(const struct rd_source *src);
/* The directory read ("/" for the live host); NULL for an archive. */
const char *rd_source_dir(const struct rd_source *src);
/* Descriptor of the root directory (fix's atomic writes); -1 for an archive. */
int rd_source_fd(const struct rd_source *src);

/* Reads a whole regular file of at most cap bytes.  Errors: ENOENT..., RD_ENOTREG for a
 * directory/FIFO/device, EFBIG past cap, and in a snapshot the errno recorded when it was taken. */
int rd_read_file(struct rd_source *src, const char *path, size_t cap, struct rd_text *out);
/* The first max bytes of a regular file (what one read() of max bytes returns on sysfs). */
int rd_read_prefix(struct rd_source *src, const char *path, size_t max, struct rd_text *out);
/* rd_read_file with RD_CAP_ATTR, then strips exactly one trailing newline (sysfs style). */
int rd_read_attr(struct rd_source *src, const char *path, struct rd_text *out);

/* The bytes of a gzip stream (in, len: a file read here, such as proc/config.gz) decompressed into
 * out (NUL-terminated) through libarchive, loaded at run time; at most cap bytes of output.
 * Returns 0, or -errno with a one-line reason in err: ENOSYS (libarchive cannot be loaded),
 * RD_EPARSE (not gzip, or damaged), EFBIG (more than cap). */
int rd_gunzip(const char *in, size_t len, size_t cap, struct rd_text *out, char *err, size_t errlen);

/* Names in a directory (no "." or ".."), sorted with strcmp.  Returns 0 or -errno. */
int rd_list_dir(struct rd_source *src, const char *path, struct rd_strv *names);
/* rd_list_dir of only the names keep accepts: the others are neither returned nor recorded (the
 * numeric names of /proc, without its kallsyms, keys, kmsg ... beside them). */
int rd_list_dir_only(struct rd_source *src, const char *path, bool (*keep)(const char *name), struct rd_strv *names);
/* The path with every symbolic link resolved inside the root, relative to it ("" for the root).
 * The last component need not exist.  Returns 0 or -errno (ELOOP for link loops). */
int rd_resolve(struct rd_source *src, const char *path, char **canonical);
/* Raw target of a symbolic link (not resolved).  Returns 0 or -errno. */
int rd_read_link(struct rd_source *src, const char *path, char **target);
/* stat of the resolved path (follow=true) or of the link itself.  Returns 0 or -errno. */
int rd_stat(struct rd_source *src, const char *path, bool follow, struct stat *st);
/* True if the path exists (links followed). */
bool rd_exists(struct rd_source *src, const char *path);
/* rd_stat (links followed) of a path whose answer depends on a regular file's size, not only on
 * its kind and mode (an empty udev rules file masks the package's).  A stat records a file's
 * metadata only, and a snapshot lays it out as an empty file; while recording, this one also
 * records a regular file's bytes (read as rd_read_file with RD_CAP_FILE), so that a replay sees
 * the same size.  The model calls it exactly where a verdict depends on the size. */
int rd_stat_sized(struct rd_source *src, const char *path, struct stat *st);

/* Output of one of the commands in rd_commands[] by name.  Live host: runs it (no shell) with
 * a timeout, stdout captured; err = ENOENT if the program is absent, ETIMEDOUT if killed.
 * Root: reads rdma-doctor/commands/<name> (and <name>.status); the errno named in <name>.error when
 * the command could not run when the snapshot was taken; RD_ENOTCAPTURED if neither exists. */
int rd_run_command(struct rd_source *src, const char *name, struct rd_text *out);

/* Runs a program on the live host (stdout and stderr captured together), for fixes that act
 * (modprobe).  In root mode nothing is run: -EPERM. */
int rd_run_program(struct rd_source *src, const char *const argv[], int timeout_ms, struct rd_text *out);

/* Per-device commands (MFT tools, mlnx_qos, dcb): argv built by the caller, output kept under
 * a per-device name, rdma-doctor/commands/<name> (mlxlink-<rdma dev>-<port>, mlxconfig-<rdma dev>,
 * flint-<rdma dev>, mlnx_qos-<netdev>, dcb-pfc-<netdev>).  Root: read like rd_run_command.  Live:
 * run (stdout, timeout_ms, capped by the run's deadline) only after
 * rd_source_allow_device_commands(src, true) (check --mft, snapshot), and only when argv[0] is
 * installed (else ENOENT without a fork); otherwise RD_ENOTCAPTURED and nothing runs.  A name
 * that is not one plain path component is EINVAL. */
int rd_run_device_command(struct rd_source *src, const char *name, const char *const argv[], int timeout_ms,
			  struct rd_text *out);
void rd_source_allow_device_commands(struct rd_source *src, bool allow);
/* A fabric tool with arguments built by the caller (ibtracert SLID DLID), output kept under name
 * (rdma-doctor/commands/<name>, one plain path component).  Live: run (stdout, timeout_ms, capped
 * by the run's deadline) with the umad simulator's variables passed on as for iblinkinfo; ENOENT
 * when argv[0] is not installed.  Root: read like rd_run_command. */
int rd_run_fabric_command(struct rd_source *src, const char *name, const char *const argv[], int timeout_ms,
			  struct rd_text *out);

struct rd_command {
	const char *name;       /* file name under rdma-doctor/commands/ */
	const char *const *argv; /* argv[0] is looked up in PATH (and /sbin, /usr/sbin) */
	int timeout_ms;
	const char *const *keep_env; /* names of variables passed on from our environment, or NULL */
};
/* The commands the checks use, ended by an entry with name == NULL. */
extern const struct rd_command rd_commands[];
const struct rd_command *rd_command_find(const char *name);

/* ---- recording: what a run read, so that a snapshot holds exactly that -------------------------
 *
 * rd_source_record(src, rec) makes every later call on src append what it met to rec (owned by
 * the caller, zero-initialised, freed with rd_recording_free): each file read (its bytes and
 * mode), each directory listed, each symbolic link met while resolving a path (its raw target),
 * each path stat'ed (its kind and mode: a device node is recorded as such, never opened), each
 * read that failed (its errno), and each command run (its output, status and errno).  Entries are
 * unique by canonical path (the first one met is kept; a later read of a listed or stat'ed path
 * upgrades it to a file).  Replaying: a root laid out from a recording gives the same answers to
 * the same calls, except for the reads forgotten (rd_source_forget).  A stat or a listing records
 * no bytes: a path only stat'ed, or only met in a directory listing, is laid out as an empty file
 * with its mode (rd_stat_sized is the exception, for the size a verdict depends on).  The recording
 * does not own src; stop it with rd_source_record(src, NULL). */
enum rd_rec_kind { RD_REC_FILE, RD_REC_DIR, RD_REC_LINK, RD_REC_NODE, RD_REC_ERROR, RD_REC_FORGOTTEN };
struct rd_rec_entry {
	char *path;            /* canonical, relative to the root, no leading '/' */
	enum rd_rec_kind kind; /* NODE: stat'ed only (device, FIFO, socket, or a file not read);
				* FORGOTTEN: read, then dropped (rd_source_forget): not written */
	char *data;            /* FILE: the bytes read; LINK: the raw target; else NULL */
	size_t len;
	int err;               /* ERROR: the errno the read failed with */
	mode_t mode;           /* type and permission bits, when known (0 otherwise) */
	uid_t uid;
	gid_t gid;
};
struct rd_rec_command {
	char *name;            /* rd_commands[] name */
	struct rd_text out;    /* output, err (ENOENT: absent, ETIMEDOUT ...) and status */
};
struct rd_recording {
	struct rd_rec_entry *entries; /* in the order met */
	size_t n;
	struct rd_rec_command *commands;
	size_t ncommands;
	void *index;                  /* private: path -> entry */
};
void rd_source_record(struct rd_source *src, struct rd_recording *rec);
void rd_recording_free(struct rd_recording *rec);
/* While recording: the bytes of a file read only to choose what to look at (the comm of a process
 * that is not one of the policy's services) are dropped, and a snapshot does not hold the file; a
 * replay then finds it absent, which leads the caller to the same answer.  A later read of the
 * path records it again.  No effect when not recording or when the path was not read. */
void rd_source_forget(struct rd_source *src, const char *path);
/* While recording: the bytes recorded for a file read are replaced by data (len bytes, copied),
 * the part of it the checks use (the NCCL variables of a process's environ, not its secrets).  A
 * replay then reads exactly those bytes.  No effect when not recording or when the path was not
 * read. */
void rd_source_redact(struct rd_source *src, const char *path, const char *data, size_t len);

#endif
