/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The RDMA devices' verbs async events (verbsev.h).  verbs.h is included for its types only: every
 * function comes from dlsym by its exported name. */
#include "source/verbsev.h"

#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "util/dl.h"
#include "util/util.h"

static const char *const sym_names[] = {
	"ibv_get_device_list", "ibv_free_device_list", "ibv_get_device_name", "ibv_open_device",
	"ibv_close_device",    "ibv_get_async_event",  "ibv_ack_async_event",
};
enum { S_LIST, S_FREE, S_NAME, S_OPEN, S_CLOSE, S_GET, S_ACK, S_N };
_Static_assert(S_N <= sizeof ((struct rd_verbsev *)0)->sym / sizeof(void *), "sym[] holds every function");

typedef struct ibv_device **list_fn(int *);
typedef void free_fn(struct ibv_device **);
typedef const char *name_fn(struct ibv_device *);
typedef struct ibv_context *open_fn(struct ibv_device *);
typedef int close_fn(struct ibv_context *);
typedef int get_fn(struct ibv_context *, struct ibv_async_event *);
typedef void ack_fn(struct ibv_async_event *);
#define RD_VERBSEV_BURST 1024
#define FN(v, T, i) ((T *)(v)->sym[i])

const char *rd_verbsev_event_name(int type)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR: return "CQ_ERR";
	case IBV_EVENT_QP_FATAL: return "QP_FATAL";
	case IBV_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
	case IBV_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
	case IBV_EVENT_COMM_EST: return "COMM_EST";
	case IBV_EVENT_SQ_DRAINED: return "SQ_DRAINED";
	case IBV_EVENT_PATH_MIG: return "PATH_MIG";
	case IBV_EVENT_PATH_MIG_ERR: return "PATH_MIG_ERR";
	case IBV_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
	case IBV_EVENT_PORT_ACTIVE: return "PORT_ACTIVE";
	case IBV_EVENT_PORT_ERR: return "PORT_ERR";
	case IBV_EVENT_LID_CHANGE: return "LID_CHANGE";
	case IBV_EVENT_PKEY_CHANGE: return "PKEY_CHANGE";
	case IBV_EVENT_SM_CHANGE: return "SM_CHANGE";
	case IBV_EVENT_SRQ_ERR: return "SRQ_ERR";
	case IBV_EVENT_SRQ_LIMIT_REACHED: return "SRQ_LIMIT_REACHED";
	case IBV_EVENT_QP_LAST_WQE_REACHED: return "QP_LAST_WQE_REACHED";
	case IBV_EVENT_CLIENT_REREGISTER: return "CLIENT_REREGISTER";
	case IBV_EVENT_GID_CHANGE: return "GID_CHANGE";
	case IBV_EVENT_WQ_FATAL: return "WQ_FATAL";
	}
	return "UNKNOWN";
}

enum rd_verbsev_scope rd_verbsev_event_scope(int type)
{
	switch (type) {
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		return RD_VERBSEV_PORT;
	case IBV_EVENT_DEVICE_FATAL:
		return RD_VERBSEV_DEVICE;
	}
	return RD_VERBSEV_NONE;
}

/* The PCI drivers whose RDMA driver has had disassociate_ucontext since long before the oldest
 * kernel supported (mlx4_ib and mlx5_ib: Linux 4.x).  Others that gained it later (bnxt_re, hns,
 * erdma, ionic; rxe only in patches not in a released kernel) are left out: opening one on a kernel
 * that lacks it would hold its removal. */
static const char *const releasing[] = {"mlx4_core", "mlx5_core"};

bool rd_verbsev_driver_releases(const char *driver, const char **why)
{
	const char *w = "no PCI function: a soft device, whose driver waits at removal for every open context";
	if (driver && *driver) {
		for (size_t i = 0; i < sizeof releasing / sizeof releasing[0]; i++)
			if (strcmp(driver, releasing[i]) == 0)
				return true;
		w = "its driver is not known to release an open context at removal";
	}
	if (why)
		*why = w;
	return false;
}

void rd_verbsev_plan(const char *const open_names[], size_t nopen, const char *const want[], size_t nwant,
		     bool close_[], bool open_[])
{
	size_t kept = 0;
	for (size_t i = 0; i < nopen; i++) {
		close_[i] = true;
		for (size_t j = 0; j < nwant && close_[i]; j++)
			if (want[j] && strcmp(open_names[i], want[j]) == 0)
				close_[i] = false;
		kept += !close_[i];
	}
	size_t room = kept < RD_VERBSEV_MAX ? RD_VERBSEV_MAX - kept : 0;
	for (size_t j = 0; j < nwant; j++) {
		open_[j] = want[j] && *want[j] && strlen(want[j]) < sizeof ((struct rd_verbsev_dev *)0)->name;
		for (size_t i = 0; i < nopen && open_[j]; i++)
			if (strcmp(open_names[i], want[j]) == 0)
				open_[j] = false;
		for (size_t k = 0; k < j && open_[j]; k++)
			if (want[k] && strcmp(want[k], want[j]) == 0)
				open_[j] = false;
		if (open_[j]) {
			if (room == 0)
				open_[j] = false;
			else
				room--;
		}
	}
}

void rd_verbsev_init(struct rd_verbsev *v)
{
	memset(v, 0, sizeof *v);
	v->ep = -1;
}

int rd_verbsev_fd(const struct rd_verbsev *v)
{
	return v->ep;
}

static void close_dev(struct rd_verbsev *v, size_t i)
{
	struct rd_verbsev_dev *d = &v->dev[i];
	if (v->ep >= 0)
		(void)epoll_ctl(v->ep, EPOLL_CTL_DEL, d->fd, NULL);
	(void)FN(v, close_fn, S_CLOSE)((struct ibv_context *)d->ctx);
	v->dev[i] = v->dev[--v->n];
}

static bool load(struct rd_verbsev *v)
{
	if (!v->tried) {
		v->tried = true;
		v->loaded = rd_dl_load("libibverbs.so.1", "libibverbs1 ibverbs-providers", "verbs async events", sym_names,
				       v->sym, S_N, v->load_err, sizeof v->load_err) == 0;
	}
	return v->loaded;
}

static int open_dev(struct rd_verbsev *v, struct ibv_device *dev, const char *name)
{
	if (v->n >= RD_VERBSEV_MAX)
		return -EMFILE;
	errno = 0;
	struct ibv_context *c = FN(v, open_fn, S_OPEN)(dev);
	if (!c)
		return errno ? -errno : -ENODEV;
	int fl = fcntl(c->async_fd, F_GETFL);
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = c->async_fd};
	if (fl < 0 || fcntl(c->async_fd, F_SETFL, fl | O_NONBLOCK) < 0 || epoll_ctl(v->ep, EPOLL_CTL_ADD, c->async_fd, &ev) < 0) {
		int e = errno;
		(void)FN(v, close_fn, S_CLOSE)(c);
		return -e;
	}
	struct rd_verbsev_dev *d = &v->dev[v->n++];
	snprintf(d->name, sizeof d->name, "%s", name);
	d->ctx = c;
	d->fd = c->async_fd;
	return 0;
}

int rd_verbsev_sync(struct rd_verbsev *v, const char *const want[], size_t nwant, int res[])
{
	const char *open_names[RD_VERBSEV_MAX] = {0};
	bool close_[RD_VERBSEV_MAX], *open_ = rd_xcalloc(nwant + 1, sizeof *open_);
	int *r = res ? res : rd_xcalloc(nwant + 1, sizeof *r);
	for (size_t i = 0; i < v->n; i++)
		open_names[i] = v->dev[i].name;
	rd_verbsev_plan(open_names, v->n, want, nwant, close_, open_);
	for (size_t i = v->n; i-- > 0;) /* from the end: close_dev moves the last entry into i */
		if (close_[i])
			close_dev(v, i);
	bool any = false;
	for (size_t j = 0; j < nwant; j++)
		any |= open_[j];
	int ret = 0;
	if (any && v->ep < 0 && (v->ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
		ret = -errno;
	struct ibv_device **list = NULL;
	int nlist = 0;
	if (any && ret == 0 && load(v))
		list = FN(v, list_fn, S_LIST)(&nlist);
	for (size_t j = 0; j < nwant; j++) {
		r[j] = -EMFILE; /* left out by the plan, unless it is open (kept, or a duplicate's) */
		if (!open_[j]) {
			for (size_t i = 0; i < v->n; i++)
				if (want[j] && strcmp(v->dev[i].name, want[j]) == 0)
					r[j] = 0;
			continue;
		}
		r[j] = ret < 0 ? ret : !v->loaded ? -ENOSYS : -ENOENT;
		for (int k = 0; list && k < nlist && list[k]; k++) {
			const char *n = FN(v, name_fn, S_NAME)(list[k]);
			if (n && strcmp(n, want[j]) == 0) {
				r[j] = open_dev(v, list[k], want[j]);
				break;
			}
		}
	}
	if (list)
		FN(v, free_fn, S_FREE)(list);
	free(open_);
	if (r != res)
		free(r);
	return ret < 0 ? ret : (int)v->n;
}

int rd_verbsev_read(struct rd_verbsev *v, rd_verbsev_fn *fn, void *arg)
{
	int told = 0;
	/* at most RD_VERBSEV_BURST a call: a device that never stops telling cannot hold the loop */
	for (size_t i = 0; i < v->n && told < RD_VERBSEV_BURST;) {
		struct rd_verbsev_dev *d = &v->dev[i];
		struct ibv_async_event ev;
		if (FN(v, get_fn, S_GET)((struct ibv_context *)d->ctx, &ev) < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				i++;
				continue;
			}
			/* the context is unusable (the device went): closed, or its fd would poll forever */
			char name[sizeof d->name];
			snprintf(name, sizeof name, "%s", d->name);
			close_dev(v, i);
			struct rd_verbsev_event out = {.device = name, .type = -1, .name = "async events unreadable",
						       .scope = RD_VERBSEV_DEVICE, .closed = true};
			fn(&out, arg);
			told++;
			continue;
		}
		int type = (int)ev.event_type;
		int port = rd_verbsev_event_scope(type) == RD_VERBSEV_PORT ? ev.element.port_num : 0;
		FN(v, ack_fn, S_ACK)(&ev);
		struct rd_verbsev_event out = {.device = d->name, .type = type, .name = rd_verbsev_event_name(type),
					       .scope = rd_verbsev_event_scope(type), .port = port};
		if (type == IBV_EVENT_DEVICE_FATAL) {
			char name[sizeof d->name];
			snprintf(name, sizeof name, "%s", d->name);
			close_dev(v, i);
			out.device = name;
			out.closed = true;
			fn(&out, arg);
			told++;
			continue;
		}
		fn(&out, arg);
		told++;
	}
	return told;
}

void rd_verbsev_close(struct rd_verbsev *v)
{
	while (v->n)
		close_dev(v, v->n - 1);
	if (v->ep >= 0)
		close(v->ep);
	v->ep = -1;
}
