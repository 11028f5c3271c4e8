/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "source/nodev.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

int rd_nodev_clone(int rootfd)
{
#if defined(SYS_open_tree) && defined(SYS_mount_setattr)
	/* through syscall(), given six arguments (a wrapper may take them all): the fault shim can take
	 * the mount API away (RD_FAULT_NO_MOUNT_API) */
	long t = syscall(SYS_open_tree, rootfd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE,
			 0L, 0L, 0L);
	if (t < 0)
		return -errno;
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_NODEV};
	if (syscall(SYS_mount_setattr, (int)t, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr, 0L) < 0) {
		int e = errno;
		close((int)t); /* the detached tree goes with it */
		return -e;
	}
	return (int)t;
#else
	(void)rootfd;
	return -ENOSYS;
#endif
}

bool rd_nodev_refused(int err)
{
	return err == EACCES || err == ENXIO || err == EPERM;
}
