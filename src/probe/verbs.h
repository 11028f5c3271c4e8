/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* libibverbs loaded at run time: dlopen("libibverbs.so.1") and one dlsym per function by its
 * exported name, so the program never links it and still runs where it is missing or broken.
 * <infiniband/verbs.h> is for its types only: several ibv_* names there are macros or static
 * inline wrappers that would put a link-time reference into the binary, so callers call the
 * table's pointers, except ibv_post_send and ibv_poll_cq, static inlines going through the
 * context's ops table (no symbol).  Used by the loopback probe and by `pair`.
 * Ownership: an rd_verbs owns its handle until rd_verbs_unload. */
#ifndef RD_PROBE_VERBS_H
#define RD_PROBE_VERBS_H
#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>

/* The functions used, by exported name ("ibv_" + name), with the exported symbol's prototype. */
#define RD_VERBS_SYMS(X)                                                                              \
	X(get_device_list, struct ibv_device **, (int *))                                             \
	X(free_device_list, void, (struct ibv_device **))                                             \
	X(get_device_name, const char *, (struct ibv_device *))                                       \
	X(open_device, struct ibv_context *, (struct ibv_device *))                                   \
	X(close_device, int, (struct ibv_context *))                                                  \
	X(query_device, int, (struct ibv_context *, struct ibv_device_attr *))                        \
	X(query_port, int, (struct ibv_context *, uint8_t, struct _compat_ibv_port_attr *))           \
	X(query_gid, int, (struct ibv_context *, uint8_t, int, union ibv_gid *))                      \
	X(alloc_pd, struct ibv_pd *, (struct ibv_context *))                                          \
	X(dealloc_pd, int, (struct ibv_pd *))                                                         \
	X(reg_mr, struct ibv_mr *, (struct ibv_pd *, void *, size_t, int))                            \
	X(dereg_mr, int, (struct ibv_mr *))                                                           \
	X(create_cq, struct ibv_cq *, (struct ibv_context *, int, void *, struct ibv_comp_channel *, int)) \
	X(destroy_cq, int, (struct ibv_cq *))                                                         \
	X(create_qp, struct ibv_qp *, (struct ibv_pd *, struct ibv_qp_init_attr *))                   \
	X(modify_qp, int, (struct ibv_qp *, struct ibv_qp_attr *, int))                               \
	X(destroy_qp, int, (struct ibv_qp *))                                                         \
	X(wc_status_str, const char *, (enum ibv_wc_status))

struct rd_verbs {
	void *handle;
#define RD_VERBS_MEMBER(name, ret, args) ret(*name) args;
	RD_VERBS_SYMS(RD_VERBS_MEMBER)
#undef RD_VERBS_MEMBER
	size_t nsyms;
	char library[256]; /* the file dlopen found ("" unknown) */
};

/* Loads the library and every function.  Returns 0, or -1 with err: "cannot be loaded: <dlerror>"
 * (*missing false) or "lacks ibv_x" (*missing true: found, but a function is absent). */
int rd_verbs_load(struct rd_verbs *v, char *err, size_t len, bool *missing);
void rd_verbs_unload(struct rd_verbs *v);

/* ibv_query_port through the exported (compat-typed) symbol, into the full struct. */
int rd_verbs_query_port(const struct rd_verbs *v, struct ibv_context *ctx, unsigned port, struct ibv_port_attr *pa);

/* An errno for a failed verbs call: the returned code when positive (verbs return errno values),
 * else errno, else EIO. */
int rd_verbs_err(int ret);

#endif
