/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The netdevs' link changes from rtnetlink (NETLINK_ROUTE, group RTMGRP_LINK), for `watch`:
 * RTM_NEWLINK and RTM_DELLINK of any netdev of this network namespace, each told as a change when
 * the netdev is new to the reader or its IFF_UP, IFF_RUNNING or IFLA_OPERSTATE differ from the last
 * message about it (a fixed table: memory does not grow with the messages).  Only the kernel's
 * messages are taken.
 *
 * Ownership: a reader owns its socket until rd_rtnl_close; an event is the callback's for the
 * call. */
#ifndef RD_SOURCE_RTNL_H
#define RD_SOURCE_RTNL_H
#include <stdbool.h>
#include <stddef.h>

#define RD_RTNL_SEEN 256

struct rd_rtnl_event {
	bool removed;      /* RTM_DELLINK */
	int ifindex;
	char name[16];     /* IFLA_IFNAME, or "" */
	unsigned flags;    /* IFF_* of the message */
	int operstate;     /* IFLA_OPERSTATE (RFC 2863: 2 down, 6 up ...), -1 when the message has none */
	bool changed;      /* new to the reader, removed, or up/running/operstate differ from the last seen */
};
typedef void rd_rtnl_fn(const struct rd_rtnl_event *e, void *arg);

struct rd_rtnl {
	int fd;
	struct {
		int ifindex; /* 0: free */
		unsigned flags;
		int operstate;
	} seen[RD_RTNL_SEEN];
	unsigned char buf[1 << 16] __attribute__((aligned(8))); /* a datagram read */
};

/* The operstate's name ("up", "down", "lowerlayerdown" ...; "unknown" for any other value). */
const char *rd_rtnl_operstate_name(int operstate);

/* Opens the socket, non-blocking.  Returns 0 or -errno. */
int rd_rtnl_open(struct rd_rtnl *r);
/* Parses one datagram (its netlink messages) and calls fn for each link message.  Returns the
 * number of link messages, or -EINVAL for a malformed datagram (those before it were told). */
int rd_rtnl_parse(struct rd_rtnl *r, void *buf, size_t len, rd_rtnl_fn *fn, void *arg);
/* Reads and parses every datagram waiting.  Returns the number of link messages, or -errno:
 * -ENOBUFS when the kernel dropped messages (the socket overran: judge as if every netdev changed). */
int rd_rtnl_read(struct rd_rtnl *r, rd_rtnl_fn *fn, void *arg);
void rd_rtnl_close(struct rd_rtnl *r);

#endif
