/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The netdevs' link changes from rtnetlink (rtnl.h). */
#include "source/rtnl.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

const char *rd_rtnl_operstate_name(int operstate)
{
	static const char *const names[] = {"unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up"};
	return operstate >= 0 && operstate < 7 ? names[operstate] : "unknown";
}

int rd_rtnl_open(struct rd_rtnl *r)
{
	memset(r, 0, sizeof *r);
	r->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (r->fd < 0)
		return -errno;
	int rcv = 1 << 20; /* a burst of flaps is read whole, or told as an overrun */
	(void)setsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK};
	if (bind(r->fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int e = errno;
		close(r->fd);
		r->fd = -1;
		return -e;
	}
	return 0;
}

#define WATCHED_FLAGS (IFF_UP | IFF_RUNNING)

/* Whether e differs from what the table last had about its netdev; the table updated. */
static bool changed(struct rd_rtnl *r, const struct rd_rtnl_event *e)
{
	unsigned slot = (unsigned)e->ifindex % RD_RTNL_SEEN;
	bool same = r->seen[slot].ifindex == e->ifindex && (r->seen[slot].flags & WATCHED_FLAGS) == (e->flags & WATCHED_FLAGS) &&
		    (e->operstate < 0 || r->seen[slot].operstate == e->operstate);
	if (e->removed) {
		if (r->seen[slot].ifindex == e->ifindex)
			r->seen[slot].ifindex = 0;
		return true;
	}
	r->seen[slot].ifindex = e->ifindex;
	r->seen[slot].flags = e->flags;
	if (e->operstate >= 0)
		r->seen[slot].operstate = e->operstate;
	else if (!same)
		r->seen[slot].operstate = -1;
	return !same;
}

int rd_rtnl_parse(struct rd_rtnl *r, void *buf, size_t len, rd_rtnl_fn *fn, void *arg)
{
	int told = 0;
	if (len > (1u << 30))
		return -EINVAL;
	int left = (int)len;
	for (struct nlmsghdr *nh = buf; left > 0; nh = NLMSG_NEXT(nh, left)) {
		if (left < (int)sizeof *nh || nh->nlmsg_len < sizeof *nh || nh->nlmsg_len > (unsigned)left)
			return -EINVAL;
		if (nh->nlmsg_type == NLMSG_DONE)
			break;
		if (nh->nlmsg_type != RTM_NEWLINK && nh->nlmsg_type != RTM_DELLINK)
			continue;
		if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
			return -EINVAL;
		struct ifinfomsg *ifi = NLMSG_DATA(nh);
		struct rd_rtnl_event e = {.removed = nh->nlmsg_type == RTM_DELLINK, .ifindex = ifi->ifi_index,
					  .flags = ifi->ifi_flags, .operstate = -1};
		int alen = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof *ifi));
		for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
			size_t plen = RTA_PAYLOAD(a);
			if (a->rta_type == IFLA_IFNAME) {
				size_t n = strnlen(RTA_DATA(a), plen);
				if (n >= sizeof e.name)
					n = sizeof e.name - 1;
				memcpy(e.name, RTA_DATA(a), n);
				e.name[n] = '\0';
			} else if (a->rta_type == IFLA_OPERSTATE && plen >= 1) {
				e.operstate = *(const unsigned char *)RTA_DATA(a);
			}
		}
		e.changed = changed(r, &e);
		fn(&e, arg);
		told++;
	}
	return told;
}

int rd_rtnl_read(struct rd_rtnl *r, rd_rtnl_fn *fn, void *arg)
{
	int told = 0;
	for (;;) {
		struct sockaddr_nl from;
		socklen_t fl = sizeof from;
		ssize_t n = recvfrom(r->fd, r->buf, sizeof r->buf, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return told;
			return -errno;
		}
		if (fl != sizeof from || from.nl_family != AF_NETLINK || from.nl_pid != 0)
			continue; /* not the kernel's */
		int k = rd_rtnl_parse(r, r->buf, (size_t)n, fn, arg);
		if (k > 0)
			told += k;
	}
}

void rd_rtnl_close(struct rd_rtnl *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
