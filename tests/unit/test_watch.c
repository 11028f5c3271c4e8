/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `watch`'s parts that need no event: the /dev/kmsg record parser on records as the kernel writes
 * them and its lines judged by kernel.log's signatures, the limit on lines a second, rtnetlink and
 * uevent datagrams, systemd's notification socket, and the report over time (replace, merge,
 * changes). */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include "checks/check.h"
#include "harness.h"
#include "run/watchnotify.h"
#include "run/watchreport.h"
#include "source/kmsg.h"
#include "source/rtnl.h"
#include "source/uevent.h"

/* Records as read from /dev/kmsg (a 6.1 kernel, CONFIG_PRINTK_CALLER; a 5.x one without). */
static const char rec_caller[] = "3,1873,9021771622,-,caller=T1203;mlx5_core 0000:9a:00.0: mlx5_health_try_recover:"
				 " Fatal error 1 detected\n SUBSYSTEM=pci\n DEVICE=+pci:0000:9a:00.0\n";
static const char rec_plain[] = "6,12,5000123,c;eth2: lost carrier";

RD_TEST(kmsg_parse_records)
{
	struct rd_kmsg_rec r;
	CHECK_INT(rd_kmsg_parse(rec_caller, sizeof rec_caller - 1, &r), 0);
	CHECK_INT(r.prio, 3);
	CHECK_INT(r.seq, 1873);
	CHECK_INT(r.ts_usec, 9021771622ULL);
	CHECK_INT(r.flags, '-');
	CHECK_INT(r.msglen, strlen("mlx5_core 0000:9a:00.0: mlx5_health_try_recover: Fatal error 1 detected"));
	CHECK(memcmp(r.msg, "mlx5_core 0000:9a:00.0:", 23) == 0);
	CHECK_INT(rd_kmsg_parse(rec_plain, sizeof rec_plain - 1, &r), 0);
	CHECK_INT(r.flags, 'c');
	CHECK_INT(r.msglen, strlen("eth2: lost carrier"));
	struct rd_buf b = {0};
	rd_kmsg_format(&r, &b);
	CHECK_STR(b.data, "[    5.000123] eth2: lost carrier\n");
	rd_buf_free(&b);
	static const char *const bad[] = {"", "no record", "6,12;x", "6,12,;x", "x,1,2,-;m", "6,1,2;m", "6,1,2,-", NULL};
	for (const char *const *p = bad; *p; p++)
		CHECK_INT(rd_kmsg_parse(*p, strlen(*p), &r), -EINVAL);
}

/* A record's line goes through kernel.log's own signatures, as the load's dmesg would. */
RD_TEST(kmsg_line_judged_by_kernel_log)
{
	struct rd_kmsg_rec r;
	CHECK_INT(rd_kmsg_parse(rec_caller, sizeof rec_caller - 1, &r), 0);
	struct rd_buf b = {0};
	rd_kmsg_format(&r, &b);
	struct rd_host h = {0};
	struct rd_system s = {0};
	struct rd_policy p = {0};
	s.dmesg.data = b.data;
	s.dmesg.len = b.len;
	struct rd_report rep = {0};
	rd_checks_run(&h, &s, &p, true, "kernel.log", NULL, &rep);
	bool fatal = false;
	for (size_t i = 0; i < rep.n; i++)
		fatal |= rep.findings[i].status == RD_FAIL && strcmp(rep.findings[i].subject, "Fatal error") == 0;
	CHECK(fatal);
	rd_report_free(&rep);
	rd_buf_free(&b);
}

RD_TEST(kmsg_limit_per_second)
{
	struct rd_kmsg_limit l = {.per_s = 3};
	for (int i = 0; i < 3; i++)
		CHECK(rd_kmsg_admit(&l, 1000 + i));
	CHECK(!rd_kmsg_admit(&l, 1500));
	CHECK(!rd_kmsg_admit(&l, 1999));
	CHECK_INT(l.over, 2);
	CHECK(rd_kmsg_admit(&l, 2000));
	/* a flood: 100,000 lines in one second, 3 judged */
	unsigned admitted = 0;
	for (int i = 0; i < 100000; i++)
		admitted += rd_kmsg_admit(&l, 5000 + i / 100000);
	CHECK_INT(admitted, 3);
}

/* The reader on the real /dev/kmsg: it starts at the end, so nothing it returns is older than the
 * last record a reader from the start saw (read-only: nothing is written to the kernel log). */
RD_TEST(kmsg_reader_starts_at_the_end)
{
	int all = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (all < 0)
		rd_test_skip("/dev/kmsg is not readable here (not root, or kernel.dmesg_restrict)");
	static char buf[RD_KMSG_RECORD_MAX + 1];
	unsigned long long last = 0;
	size_t seen = 0;
	for (ssize_t n; (n = read(all, buf, sizeof buf - 1)) != 0;) {
		if (n < 0 && errno == EPIPE)
			continue;
		if (n < 0)
			break;
		struct rd_kmsg_rec rec;
		CHECK_INT(rd_kmsg_parse(buf, (size_t)n, &rec), 0);
		last = rec.seq;
		seen++;
	}
	close(all);
	struct rd_kmsg k;
	CHECK_INT(rd_kmsg_open("/dev/kmsg", &k), 0);
	ssize_t n;
	while ((n = rd_kmsg_next(&k, buf, sizeof buf)) > 0) { /* only what was written since */
		struct rd_kmsg_rec rec;
		CHECK_INT(rd_kmsg_parse(buf, (size_t)n, &rec), 0);
		CHECK(seen == 0 || rec.seq > last);
	}
	CHECK_INT(n, 0);
	rd_kmsg_close(&k);
	CHECK_INT(k.fd, -1);
}

static size_t put_link(unsigned char *buf, int type, int ifindex, unsigned flags, const char *name, int oper)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	memset(nh, 0, NLMSG_SPACE(sizeof(struct ifinfomsg)) + 64);
	nh->nlmsg_type = (unsigned short)type;
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	size_t len = NLMSG_LENGTH(sizeof *ifi);
	struct rtattr *a = (struct rtattr *)(buf + NLMSG_ALIGN(len));
	a->rta_type = IFLA_IFNAME;
	a->rta_len = (unsigned short)RTA_LENGTH(strlen(name) + 1);
	memcpy(RTA_DATA(a), name, strlen(name) + 1);
	len = NLMSG_ALIGN(len) + RTA_ALIGN(a->rta_len);
	if (oper >= 0) {
		a = (struct rtattr *)(buf + len);
		a->rta_type = IFLA_OPERSTATE;
		a->rta_len = RTA_LENGTH(1);
		*(unsigned char *)RTA_DATA(a) = (unsigned char)oper;
		len += RTA_ALIGN(a->rta_len);
	}
	nh->nlmsg_len = (unsigned)len;
	return NLMSG_ALIGN(len);
}

struct seen {
	struct rd_rtnl_event e[4];
	int n;
};
static void collect(const struct rd_rtnl_event *e, void *arg)
{
	struct seen *s = arg;
	if (s->n < 4)
		s->e[s->n++] = *e;
}

RD_TEST(rtnl_link_changes)
{
	static struct rd_rtnl r; /* its datagram buffer is large */
	memset(&r, 0, sizeof r);
	unsigned char buf[1024] __attribute__((aligned(8)));
	struct seen s = {0};
	size_t n = put_link(buf, RTM_NEWLINK, 7, IFF_UP | IFF_RUNNING, "dummy0", 6);
	CHECK_INT(rd_rtnl_parse(&r, buf, n, collect, &s), 1);
	CHECK(s.e[0].changed && !s.e[0].removed);
	CHECK_STR(s.e[0].name, "dummy0");
	CHECK_INT(s.e[0].operstate, 6);
	CHECK_STR(rd_rtnl_operstate_name(s.e[0].operstate), "up");
	/* the same again (another attribute changed): no change; then down, two in one datagram */
	CHECK_INT(rd_rtnl_parse(&r, buf, n, collect, &s), 1);
	CHECK(!s.e[1].changed);
	size_t m = put_link(buf, RTM_NEWLINK, 7, IFF_UP, "dummy0", -1);
	m += put_link(buf + m, RTM_NEWLINK, 7, IFF_UP, "dummy0", 2);
	CHECK_INT(rd_rtnl_parse(&r, buf, m, collect, &s), 2);
	CHECK(s.e[2].changed);
	CHECK(s.e[3].changed); /* the operstate came after: down */
	s.n = 0;
	n = put_link(buf, RTM_DELLINK, 7, 0, "dummy0", -1);
	CHECK_INT(rd_rtnl_parse(&r, buf, n, collect, &s), 1);
	CHECK(s.e[0].removed && s.e[0].changed);
	/* a name longer than IFNAMSIZ is cut; a datagram cut short is refused */
	n = put_link(buf, RTM_NEWLINK, 9, 0, "a-name-much-longer-than-sixteen", -1);
	s.n = 0;
	CHECK_INT(rd_rtnl_parse(&r, buf, n, collect, &s), 1);
	CHECK_INT(strlen(s.e[0].name), 15);
	CHECK_INT(rd_rtnl_parse(&r, buf, 10, collect, &s), -EINVAL);
	((struct nlmsghdr *)buf)->nlmsg_len = 4000;
	CHECK_INT(rd_rtnl_parse(&r, buf, n, collect, &s), -EINVAL);
}

#define UEV(s) s, sizeof s - 1
RD_TEST(uevent_parse)
{
	struct rd_uevent e;
	CHECK_INT(rd_uevent_parse(UEV("add@/devices/virtual/net/dummy0\0ACTION=add\0DEVPATH=/devices/virtual/net/dummy0\0"
				      "SUBSYSTEM=net\0INTERFACE=dummy0\0IFINDEX=3\0SEQNUM=4113"), &e), 1);
	CHECK_STR(e.action, "add");
	CHECK_STR(e.subsystem, "net");
	CHECK_STR(e.name, "dummy0");
	CHECK_INT(rd_uevent_parse(UEV("remove@/devices/pci0000:00/0000:00:02.0/infiniband/mlx5_0\0ACTION=remove\0"
				      "DEVPATH=/devices/pci0000:00/0000:00:02.0/infiniband/mlx5_0\0SUBSYSTEM=infiniband\0"
				      "NAME=mlx5_0\0SEQNUM=9\0"), &e), 1);
	CHECK_STR(e.name, "mlx5_0");
	CHECK_STR(e.subsystem, "infiniband");
	/* a module loaded or unloaded (modules.loaded, devnodes.present depend on it) */
	CHECK_INT(rd_uevent_parse(UEV("remove@/module/ib_uverbs\0ACTION=remove\0DEVPATH=/module/ib_uverbs\0SUBSYSTEM=module\0"
				      "SEQNUM=2291\0"), &e), 1);
	CHECK_STR(e.subsystem, "module");
	CHECK_STR(e.name, "ib_uverbs");
	CHECK_STR(e.action, "remove");
	CHECK_INT(rd_uevent_parse(UEV("change@/module/ib_uverbs\0ACTION=change\0DEVPATH=/module/ib_uverbs\0SUBSYSTEM=module\0"), &e), 0);
	CHECK_INT(rd_uevent_parse(UEV("change@/devices/virtual/block/loop0\0ACTION=change\0DEVPATH=/devices/virtual/block/loop0\0"
				      "SUBSYSTEM=block\0"), &e), 0);
	CHECK_INT(rd_uevent_parse(UEV("change@/devices/virtual/net/dummy0\0ACTION=change\0SUBSYSTEM=net\0"), &e), 0);
	CHECK_INT(rd_uevent_parse(UEV("libudev\0\xfe\xed\xca\xfe"), &e), 0);
	CHECK_INT(rd_uevent_parse(UEV("no at sign\0ACTION=add\0SUBSYSTEM=net\0"), &e), -EINVAL);
	CHECK_INT(rd_uevent_parse(UEV("add@/x\0SUBSYSTEM=net"), &e), -EINVAL);
	CHECK_INT(rd_uevent_parse("add@/x", 6, &e), -EINVAL);
}

static int bound(struct sockaddr_un *sa, socklen_t len)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0);
	CHECK_INT(bind(fd, (struct sockaddr *)sa, len), 0);
	return fd;
}

static void received(int fd, const char *want)
{
	char buf[64] = {0};
	struct timeval tv = {2, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	CHECK_INT(recv(fd, buf, sizeof buf - 1, 0), (long long)strlen(want));
	CHECK_STR(buf, want);
}

RD_TEST(sd_notify_abstract_and_path)
{
	char name[64];
	snprintf(name, sizeof name, "@rd-test-notify-%d", (int)getpid());
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	memcpy(sa.sun_path + 1, name + 1, strlen(name) - 1);
	int fd = bound(&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name)));
	CHECK_INT(rd_sd_notify(name, "READY=1"), 1);
	received(fd, "READY=1");
	close(fd);

	char dir[] = "/tmp/rd-notify.XXXXXX";
	const char *tmp = getenv("TMPDIR");
	char dirbuf[256];
	snprintf(dirbuf, sizeof dirbuf, "%s/rd-notify.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	char *d = mkdtemp(strlen(dirbuf) < 80 ? dirbuf : dir);
	CHECK(d != NULL);
	char path[108];
	snprintf(path, sizeof path, "%s/notify", d);
	struct sockaddr_un sp = {.sun_family = AF_UNIX};
	memcpy(sp.sun_path, path, strlen(path) + 1);
	fd = bound(&sp, sizeof sp);
	CHECK_INT(rd_sd_notify(path, "WATCHDOG=1"), 1);
	received(fd, "WATCHDOG=1");
	close(fd);
	unlink(path);
	rmdir(d);

	CHECK_INT(rd_sd_notify(NULL, "READY=1"), 0);
	CHECK_INT(rd_sd_notify("", "READY=1"), 0);
	CHECK_INT(rd_sd_notify("relative/name", "READY=1"), -EINVAL);
	CHECK_INT(rd_sd_notify("@", "READY=1"), -EINVAL);
	char longname[200];
	memset(longname, 'x', sizeof longname - 1);
	longname[0] = '/';
	longname[sizeof longname - 1] = '\0';
	CHECK_INT(rd_sd_notify(longname, "READY=1"), -EINVAL);
	CHECK(rd_sd_notify("@rd-test-nobody-listens-here", "READY=1") < 0);
}

RD_TEST(sd_watchdog_interval)
{
	CHECK_INT(rd_sd_watchdog_ms("30000000", NULL, 5), 15000);
	CHECK_INT(rd_sd_watchdog_ms("30000000", "5", 5), 15000);
	CHECK_INT(rd_sd_watchdog_ms("30000000", "6", 5), 0);
	CHECK_INT(rd_sd_watchdog_ms(NULL, NULL, 5), 0);
	CHECK_INT(rd_sd_watchdog_ms("0", NULL, 5), 0);
	CHECK_INT(rd_sd_watchdog_ms("30s", NULL, 5), 0);
	CHECK_INT(rd_sd_watchdog_ms("-1", NULL, 5), 0);
	CHECK_INT(rd_sd_watchdog_ms("1000", NULL, 5), 1);
}

static void add(struct rd_report *r, const char *check, enum rd_status st, const char *subject)
{
	rd_report_add(r, rd_check_find(check)->id, RD_SUBJ_PORT, st, subject, "%s", subject);
}

static const char *order(const struct rd_report *r)
{
	static char buf[512];
	buf[0] = '\0';
	for (size_t i = 0; i < r->n; i++)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s:%s:%s", i ? " " : "", r->findings[i].check,
			 r->findings[i].subject, rd_status_name(r->findings[i].status));
	return buf;
}

RD_TEST(watch_report_replace)
{
	struct rd_report cur = {0}, next = {0};
	add(&cur, "kernel.log", RD_OK, "kernel log");
	add(&cur, "ports.state", RD_OK, "mlx5_0 port 1");
	add(&cur, "ports.rate", RD_OK, "mlx5_0 port 1");
	add(&cur, "roce.mtu", RD_WARN, "mlx5_0 port 1");
	add(&next, "roce.mtu", RD_OK, "mlx5_0 port 1");
	add(&next, "ports.state", RD_FAIL, "mlx5_0 port 1");
	add(&next, "ports.state", RD_FAIL, "mlx5_1 port 1");
	add(&next, "ports.rate", RD_FAIL, "not rerun"); /* not in ran: dropped */
	rd_watch_replace(&cur, "ports.state,roce", &next);
	CHECK_INT(next.n, 0);
	CHECK_STR(order(&cur), "kernel.log:kernel log:OK ports.state:mlx5_0 port 1:FAIL ports.state:mlx5_1 port 1:FAIL "
			       "ports.rate:mlx5_0 port 1:OK roce.mtu:mlx5_0 port 1:OK");
	add(&next, "stack.flavor", RD_OK, "host");
	rd_watch_replace(&cur, NULL, &next);
	CHECK_STR(order(&cur), "stack.flavor:host:OK");
	rd_report_free(&cur);
}

RD_TEST(watch_report_merge_kernel_lines)
{
	struct rd_report cur = {0}, next = {0};
	add(&cur, "stack.flavor", RD_OK, "host");
	add(&cur, "kernel.log", RD_OK, "kernel log");
	add(&cur, "ports.state", RD_OK, "mlx5_0 port 1");
	/* the new lines found nothing: cur is left as it is */
	add(&next, "kernel.log", RD_OK, "kernel log");
	CHECK_INT(rd_watch_merge(&cur, "kernel.log", &next), 0);
	CHECK_STR(order(&cur), "stack.flavor:host:OK kernel.log:kernel log:OK ports.state:mlx5_0 port 1:OK");
	/* they found a fatal error: it takes the OK finding's place */
	add(&next, "kernel.log", RD_FAIL, "Fatal error");
	CHECK_INT(rd_watch_merge(&cur, "kernel.log", &next), 1);
	CHECK_STR(order(&cur), "stack.flavor:host:OK kernel.log:Fatal error:FAIL ports.state:mlx5_0 port 1:OK");
	/* the same again replaces it; another is added after it */
	add(&next, "kernel.log", RD_FAIL, "Fatal error");
	add(&next, "kernel.log", RD_WARN, "ACCESS_REG failed");
	CHECK_INT(rd_watch_merge(&cur, "kernel.log", &next), 2);
	CHECK_STR(order(&cur), "stack.flavor:host:OK kernel.log:Fatal error:FAIL kernel.log:ACCESS_REG failed:WARN "
			       "ports.state:mlx5_0 port 1:OK");
	CHECK_INT(next.n, 0);
	rd_report_free(&cur);
	/* into a report with no kernel.log finding: in catalogue order */
	add(&cur, "stack.flavor", RD_OK, "host");
	add(&cur, "ports.state", RD_OK, "mlx5_0 port 1");
	add(&next, "kernel.log", RD_WARN, "ACCESS_REG failed");
	rd_watch_merge(&cur, "kernel.log", &next);
	CHECK_STR(order(&cur), "stack.flavor:host:OK kernel.log:ACCESS_REG failed:WARN ports.state:mlx5_0 port 1:OK");
	rd_report_free(&cur);
}

struct changes {
	char text[512];
	size_t n;
};
static void change(const char *check, const char *subject, int was, int now, void *arg)
{
	struct changes *c = arg;
	c->n++;
	snprintf(c->text + strlen(c->text), sizeof c->text - strlen(c->text), "[%s %s %d>%d]", check, subject, was, now);
}

RD_TEST(watch_report_changes)
{
	struct rd_report a = {0}, b = {0};
	add(&a, "ports.state", RD_OK, "mlx5_0 port 1");
	add(&a, "ports.state", RD_FAIL, "mlx5_1 port 1");
	add(&a, "roce.mtu", RD_OK, "mlx5_0 port 1");
	add(&b, "ports.state", RD_FAIL, "mlx5_0 port 1");
	add(&b, "ports.state", RD_OK, "mlx5_0 port 1"); /* the worse of the two counts */
	add(&b, "ports.state", RD_FAIL, "mlx5_1 port 1");
	add(&b, "link.flaps", RD_WARN, "mlx5_0 port 1");
	struct rd_watch_keys ka, kb;
	rd_watch_keys_take(&ka, &a);
	rd_watch_keys_take(&kb, &b);
	CHECK_INT(kb.n, 3);
	struct changes c = {{0}, 0};
	CHECK_INT(rd_watch_diff(&ka, &kb, change, &c), 3);
	char want[256];
	snprintf(want, sizeof want, "[ports.state mlx5_0 port 1 %d>%d][link.flaps mlx5_0 port 1 %d>%d][roce.mtu mlx5_0 port 1 %d>%d]",
		 RD_OK, RD_FAIL, RD_WATCH_NONE, RD_WARN, RD_OK, RD_WATCH_NONE);
	CHECK_STR(c.text, want);
	struct changes none = {{0}, 0};
	CHECK_INT(rd_watch_diff(&kb, &kb, change, &none), 0);
	rd_watch_keys_free(&ka);
	rd_watch_keys_free(&kb);
	rd_report_free(&a);
	rd_report_free(&b);
}
