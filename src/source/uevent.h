/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The kernel's device events (NETLINK_KOBJECT_UEVENT, group 1: the kernel's, not udevd's), for
 * `watch`: an RDMA device (subsystems infiniband, infiniband_verbs) or a netdev (net) added,
 * removed or renamed ("move"), a kernel module (module) loaded or unloaded.  Only the kernel's
 * datagrams are taken.
 *
 * Ownership: the caller owns the descriptor (close it); an event is a plain value. */
#ifndef RD_SOURCE_UEVENT_H
#define RD_SOURCE_UEVENT_H
#include <stddef.h>

struct rd_uevent {
	char action[16];    /* "add", "remove", "move", "change" ... */
	char subsystem[32]; /* "infiniband", "infiniband_verbs", "net", "module" */
	char name[64];      /* the device: INTERFACE= for a netdev, else the last part of DEVPATH */
};

/* Opens the socket, non-blocking.  Returns the descriptor or -errno. */
int rd_uevent_open(void);
/* Parses one datagram ("ACTION@DEVPATH\0KEY=VALUE\0..."): 1 when it is an add, remove or move of
 * a watched subsystem (e filled), 0 when it is another event (or udevd's "libudev" format), -EINVAL
 * when it is malformed. */
int rd_uevent_parse(const char *buf, size_t len, struct rd_uevent *e);
/* The next watched event waiting on fd: 1 (e filled), 0 when none is waiting, or -errno (-ENOBUFS:
 * events were dropped, judge as if every device changed). */
int rd_uevent_next(int fd, struct rd_uevent *e);

#endif
