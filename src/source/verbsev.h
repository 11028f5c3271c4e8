/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The RDMA devices' verbs async events (ibv_get_async_event on each open context's async_fd), for
 * `watch`: libibverbs.so.1 loaded with dlopen on first use (never linked), the devices the caller
 * names opened (ibv_open_device) and the others closed, every event acknowledged as soon as it is
 * read, DEVICE_FATAL closing its device at once.  All open contexts are behind one epoll
 * descriptor, so that the caller polls one fd.
 *
 * An open user context keeps its device: in the kernel's drivers/infiniband/core/uverbs_main.c,
 * ib_uverbs_remove_one() waits for every open uverbs file to be closed unless the driver has the
 * disassociate_ucontext op (then the context gets DEVICE_FATAL and is released).  `rdma link
 * delete` and rmmod of such a driver block as long as the context stays open.  So only devices of
 * a driver known to disassociate may be opened: rd_verbsev_driver_releases says which.
 *
 * Ownership: a reader owns its contexts and its epoll descriptor until rd_verbsev_close; an event
 * is the callback's for the call.  Nothing is printed: errors are returned as -errno, with a
 * one-line reason where the caller gives a buffer. */
#ifndef RD_SOURCE_VERBSEV_H
#define RD_SOURCE_VERBSEV_H
#include <stdbool.h>
#include <stddef.h>

#define RD_VERBSEV_MAX 64 /* devices open at once; the rest are not followed */

/* What an event concerns: a port's state (the port checks), the whole device (every check), or
 * nothing watch judges (a QP, CQ, SRQ or WQ event: watch creates none). */
enum rd_verbsev_scope { RD_VERBSEV_NONE, RD_VERBSEV_PORT, RD_VERBSEV_DEVICE };

struct rd_verbsev_event {
	const char *device;          /* the device's name, valid for the call */
	int type;                    /* enum ibv_event_type */
	const char *name;            /* "PORT_ERR" ... (rd_verbsev_event_name) */
	enum rd_verbsev_scope scope;
	int port;                    /* the port of a port event, else 0 */
	bool closed;                 /* DEVICE_FATAL: the device was closed */
};
typedef void rd_verbsev_fn(const struct rd_verbsev_event *e, void *arg);

/* The event type's name without "IBV_EVENT_" ("PORT_ERR"), or "UNKNOWN" for a type not known. */
const char *rd_verbsev_event_name(int type);
enum rd_verbsev_scope rd_verbsev_event_scope(int type);

/* Whether a device whose PCI function is bound to driver (the sysfs name, as model/host.h's
 * driver: "mlx5_core") may be opened: its RDMA driver has disassociate_ucontext in every kernel
 * this program supports.  NULL (no PCI function: rxe, siw, a device of an auxiliary bus) is
 * false.  why (may be NULL) is set to a reason phrase for a false answer. */
bool rd_verbsev_driver_releases(const char *driver, const char **why);

/* One resync's plan: which of the open names to close (not wanted any more) and which of the
 * wanted names to open (not open yet; duplicates and names beyond RD_VERBSEV_MAX open at once
 * are left out).  close_[i] is set for open_names[i], open_[j] for want[j]. */
void rd_verbsev_plan(const char *const open_names[], size_t nopen, const char *const want[], size_t nwant,
		     bool close_[], bool open_[]);

struct rd_verbsev_dev {
	char name[64];
	void *ctx;   /* struct ibv_context * */
	int fd;      /* its async_fd */
};

struct rd_verbsev {
	int ep;                 /* the epoll descriptor over the async_fds; -1 until the first open */
	bool tried, loaded;     /* libibverbs: loading was tried; it is loaded */
	char load_err[256];     /* why it could not be loaded */
	struct rd_verbsev_dev dev[RD_VERBSEV_MAX];
	size_t n;
	void *sym[8];           /* the functions taken from libibverbs (verbsev.c's table) */
};

/* An empty reader (nothing loaded, nothing open). */
void rd_verbsev_init(struct rd_verbsev *v);
/* The descriptor to poll (readable when an event waits), or -1 when nothing is open yet. */
int rd_verbsev_fd(const struct rd_verbsev *v);
/* Makes the open set the wanted names: closes the others, opens those not open yet (libibverbs
 * loaded at the first name).  res[j] (nwant entries, may be NULL) is 0 for a name open after the
 * call, else -errno: -ENOENT not listed by libibverbs, -EMFILE over RD_VERBSEV_MAX, -ENOSYS
 * libibverbs not loadable (its reason in v->load_err), the open's errno otherwise.  Returns the
 * number open, or -errno when the epoll descriptor cannot be made. */
int rd_verbsev_sync(struct rd_verbsev *v, const char *const want[], size_t nwant, int res[]);
/* Reads every event waiting on every open context, acknowledges each at once and calls fn for it.
 * Returns the number of events read. */
int rd_verbsev_read(struct rd_verbsev *v, rd_verbsev_fn *fn, void *arg);
/* Closes every context and the epoll descriptor (the library stays loaded). */
void rd_verbsev_close(struct rd_verbsev *v);

#endif
