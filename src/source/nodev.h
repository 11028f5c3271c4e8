/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The cheap confined read of a directory root: a private clone of the root's mount tree in which
 * the kernel refuses to open any device node (nodev), so that a file is opened for reading at once
 * (one open, its reads, one close) instead of through an O_PATH descriptor, its fstat and a reopen
 * through /proc/self/fd.
 *
 * The clone is made with open_tree(OPEN_TREE_CLONE | AT_RECURSIVE) of the root's descriptor and
 * mount_setattr(MOUNT_ATTR_NODEV, AT_RECURSIVE): a detached tree of mounts that only its
 * descriptor reaches (no mount namespace is entered, nothing is mounted anywhere, the process, its
 * threads and its children see the filesystem as before; it goes away with its last descriptor).
 * Links are still resolved inside the root by the caller (openat2 RESOLVE_IN_ROOT).  In the clone
 * a device node's open fails with EACCES; a FIFO opened O_NONBLOCK does not block, and read with
 * pread it gives ESPIPE, never its bytes; a socket's open fails with ENXIO.  Writes are not
 * stopped (a fix writes through the clone into the same files).
 *
 * Needs CAP_SYS_ADMIN (in the user namespace that owns the mount namespace) and Linux 5.12; where
 * either is missing the caller keeps its descriptor and the O_PATH route.
 *
 * Ownership: rd_nodev_clone returns a descriptor that the caller owns (and closes). */
#ifndef RD_SOURCE_NODEV_H
#define RD_SOURCE_NODEV_H
#include <stdbool.h>

/* A descriptor (O_PATH, close-on-exec) of the root of a nodev clone of the mounts at directory
 * descriptor rootfd (its submounts included), or -errno (ENOSYS, EPERM: not available here). */
int rd_nodev_clone(int rootfd);

/* True when a file opened for reading in a clone failed with err for what it is, not for being
 * absent: a device node (EACCES), a socket (ENXIO), a denial (EPERM).  Such a file is looked at
 * again through O_PATH and fstat, so that it is told apart as before ("not a regular file"). */
bool rd_nodev_refused(int err);

#endif
