/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A stand-in libibverbs.so.1 for tests/probe/run.sh: the functions `rdma-doctor probe` takes by
 * dlsym, over simulated devices, with the checks a real provider would make (QP state machine,
 * attributes of each transition, keys and bounds of the RDMA WRITE), so the probe's real-device
 * path runs on a host without RDMA.  post_send and poll_cq are reached through the context's ops
 * table, as verbs.h's static inlines do.
 *
 * Environment:
 *   FAKE_VERBS_DEVICES  "rxe0:eth:1,mlx5_0:ib:2" (name:link layer:ports); unset or "" = none
 *   FAKE_VERBS_DOWN     "mlx5_0/2,rxe0/1": ports that are DOWN
 *   FAKE_VERBS_GIDS     GID table of Ethernet ports, comma-separated (default below; "" entries
 *                       are empty)
 *   FAKE_VERBS_FAIL     one failure: open:ERRNO query_port:ERRNO alloc_pd reg_mr:ERRNO create_cq
 *                       create_qp init rtr rts post timeout wc corrupt destroy_qp
 *   FAKE_VERBS_MTU      active MTU enum (default 3 = 1024)
 *   FAKE_VERBS_MODE     a library that misbehaves, for the probe's containment: segv_ctor (a
 *                       fault in the constructor, at dlopen), segv_devlist, segv_query_gid,
 *                       abort (in ibv_create_qp), exit0 (exit(0) in ibv_get_device_list),
 *                       hang_devlist, hang_modify_qp (to RTR), scribble (ibv_get_device_list
 *                       writes a forged report line to every descriptor from 3 to 63)
 * Every object still alive when the library is unloaded is reported on stderr ("fake_verbs: LEAK"),
 * and every wrong attribute given to it as "fake_verbs: BAD ...". */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXDEV 8
#define MAXGID 8

static struct ibv_device devices[MAXDEV];
static struct {
	bool eth;
	int nports;
} devinfo[MAXDEV];
static int ndevices, live_objects;
static uint32_t next_qpn = 17, next_key = 0x1000;

static void bad(const char *what)
{
	fprintf(stderr, "fake_verbs: BAD %s\n", what);
}

/* Misbehaves as FAKE_VERBS_MODE says when it is one of the modes named (a '|' list). */
static void misbehave(const char *modes)
{
	const char *m = getenv("FAKE_VERBS_MODE");
	if (!m || !*m)
		return;
	size_t n = strlen(m);
	const char *p = strstr(modes, m);
	if (!p || (p != modes && p[-1] != '|') || (p[n] && p[n] != '|'))
		return;
	if (strncmp(m, "segv", 4) == 0) {
		volatile int *volatile nowhere = NULL;
		*nowhere = 1;
	} else if (strcmp(m, "abort") == 0) {
		abort();
	} else if (strcmp(m, "exit0") == 0) {
		exit(0);
	} else if (strncmp(m, "hang", 4) == 0) {
		for (;;)
			pause();
	} else if (strcmp(m, "scribble") == 0) {
		static const char forged[] = "end 1 0 ~\n";
		for (int fd = 3; fd < 64; fd++)
			if (write(fd, forged, sizeof forged - 1) < 0) {
				/* not a descriptor it may write */
			}
	}
}

__attribute__((constructor)) static void fake_verbs_init(void)
{
	misbehave("segv_ctor");
}

/* "reg_mr:ENOMEM" -> the errno when FAKE_VERBS_FAIL names step, else 0. */
static int fail_of(const char *step)
{
	const char *f = getenv("FAKE_VERBS_FAIL");
	size_t n = strlen(step);
	if (!f || strncmp(f, step, n) != 0 || (f[n] && f[n] != ':'))
		return 0;
	if (!f[n])
		return EINVAL;
	static const struct { const char *name; int code; } names[] = {
		{"ENOMEM", ENOMEM}, {"EPERM", EPERM}, {"EACCES", EACCES}, {"EINVAL", EINVAL}, {"EIO", EIO},
		{"EBUSY", EBUSY}, {"EAGAIN", EAGAIN}, {"ETIMEDOUT", ETIMEDOUT},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(f + n + 1, names[i].name) == 0)
			return names[i].code;
	return EINVAL;
}

static bool port_down(const char *dev, int port)
{
	const char *d = getenv("FAKE_VERBS_DOWN");
	char want[96];
	snprintf(want, sizeof want, "%s/%d", dev, port);
	size_t n = strlen(want);
	for (const char *p = d; p && *p;) {
		if (strncmp(p, want, n) == 0 && (p[n] == ',' || !p[n]))
			return true;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return false;
}

static int gid_table(union ibv_gid *gids)
{
	const char *env = getenv("FAKE_VERBS_GIDS");
	char buf[1024];
	snprintf(buf, sizeof buf, "%s",
		 env ? env : "fe80::5054:ff:fe12:3456,fe80::5054:ff:fe12:3456,::ffff:10.0.2.15,::ffff:10.0.2.15,,");
	memset(gids, 0, MAXGID * sizeof *gids);
	int n = 0;
	for (char *p = buf; n < MAXGID; n++) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = 0;
		if (*p && inet_pton(AF_INET6, p, gids[n].raw) != 1)
			bad("FAKE_VERBS_GIDS entry");
		if (!comma) {
			n++;
			break;
		}
		p = comma + 1;
	}
	return n;
}

struct ibv_device **ibv_get_device_list(int *num)
{
	misbehave("segv_devlist|exit0|hang_devlist|scribble");
	const char *env = getenv("FAKE_VERBS_DEVICES");
	char buf[512];
	snprintf(buf, sizeof buf, "%s", env ? env : "");
	ndevices = 0;
	for (char *tok = strtok(buf, ","); tok && ndevices < MAXDEV; tok = strtok(NULL, ",")) {
		char name[64] = "", ll[8] = "";
		int np = 1;
		if (sscanf(tok, "%63[^:]:%7[^:]:%d", name, ll, &np) < 2)
			continue;
		memset(&devices[ndevices], 0, sizeof devices[ndevices]);
		snprintf(devices[ndevices].name, sizeof devices[ndevices].name, "%s", name);
		devinfo[ndevices].eth = strcmp(ll, "eth") == 0;
		devinfo[ndevices].nports = np;
		ndevices++;
	}
	struct ibv_device **list = calloc((size_t)ndevices + 1, sizeof *list);
	for (int i = 0; i < ndevices; i++)
		list[i] = &devices[i];
	live_objects++;
	if (num)
		*num = ndevices;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
	live_objects--;
}

const char *ibv_get_device_name(struct ibv_device *d)
{
	return d->name;
}

static int dev_index(struct ibv_context *c)
{
	return (int)(c->device - devices);
}

/* ---- data path ---------------------------------------------------------------------------- */

struct fake_cq {
	struct ibv_cq cq;
	int pending;
	struct ibv_wc wc;
};

struct fake_qp {
	struct ibv_qp qp;
	enum ibv_qp_state st;
	int port;
};

struct fake_mr {
	struct ibv_mr mr;
	int access;
};
static struct fake_mr *the_mr; /* the probe registers one region at a time */

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fake_cq *f = (struct fake_cq *)cq;
	if (n < 1 || !f->pending)
		return 0;
	*wc = f->wc;
	f->pending = 0;
	return 1;
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct fake_qp *q = (struct fake_qp *)qp;
	int e = fail_of("post");
	if (e || q->st != IBV_QPS_RTS || wr->opcode != IBV_WR_RDMA_WRITE || wr->num_sge != 1 || wr->next) {
		if (!e)
			bad("post_send: not RTS, not one RDMA WRITE with one SGE");
		*bad_wr = wr;
		return e ? e : EINVAL;
	}
	struct fake_mr *m = the_mr;
	uint64_t lo = (uintptr_t)m->mr.addr, hi = lo + m->mr.length;
	struct ibv_sge *s = wr->sg_list;
	enum ibv_wc_status st = IBV_WC_SUCCESS;
	if (s->lkey != m->mr.lkey || s->addr < lo || s->addr + s->length > hi) {
		bad("post_send: local key or bounds");
		st = IBV_WC_LOC_PROT_ERR;
	} else if (wr->wr.rdma.rkey != m->mr.rkey || wr->wr.rdma.remote_addr < lo ||
		   wr->wr.rdma.remote_addr + s->length > hi || !(m->access & IBV_ACCESS_REMOTE_WRITE)) {
		bad("post_send: remote key, bounds or access");
		st = IBV_WC_REM_ACCESS_ERR;
	} else if (fail_of("wc")) {
		st = IBV_WC_RETRY_EXC_ERR;
	} else {
		memmove((void *)(uintptr_t)wr->wr.rdma.remote_addr, (void *)(uintptr_t)s->addr, s->length);
		if (fail_of("corrupt"))
			((unsigned char *)(uintptr_t)wr->wr.rdma.remote_addr)[s->length / 3] ^= 0x5a;
	}
	if (!(wr->send_flags & IBV_SEND_SIGNALED) || fail_of("timeout"))
		return 0; /* no completion */
	struct fake_cq *cq = (struct fake_cq *)qp->send_cq;
	memset(&cq->wc, 0, sizeof cq->wc);
	cq->wc.wr_id = wr->wr_id;
	cq->wc.status = st;
	cq->wc.opcode = IBV_WC_RDMA_WRITE;
	cq->wc.qp_num = qp->qp_num;
	cq->wc.vendor_err = st ? 0x81 : 0;
	cq->pending = 1;
	return 0;
}

/* ---- control path ------------------------------------------------------------------------- */

struct ibv_context *ibv_open_device(struct ibv_device *d)
{
	int e = fail_of("open");
	if (e) {
		errno = e;
		return NULL;
	}
	struct ibv_context *c = calloc(1, sizeof *c);
	c->device = d;
	c->ops.poll_cq = fake_poll_cq;
	c->ops.post_send = fake_post_send;
	live_objects++;
	return c;
}

int ibv_close_device(struct ibv_context *c)
{
	free(c);
	live_objects--;
	return 0;
}

int ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	memset(a, 0, sizeof *a);
	snprintf(a->fw_ver, sizeof a->fw_ver, "%s", devinfo[dev_index(c)].eth ? "" : "28.41.1000");
	a->phys_port_cnt = (uint8_t)devinfo[dev_index(c)].nports;
	return 0;
}

/* The exported symbol's parameter is the compat struct; like rdma-core it fills the full one. */
int(ibv_query_port)(struct ibv_context *c, uint8_t port, struct _compat_ibv_port_attr *compat)
{
	struct ibv_port_attr *a = (struct ibv_port_attr *)(void *)compat;
	int e = fail_of("query_port");
	if (e)
		return e;
	int i = dev_index(c);
	if (port < 1 || port > devinfo[i].nports)
		return EINVAL;
	memset(a, 0, sizeof *a);
	a->state = port_down(c->device->name, port) ? IBV_PORT_DOWN : IBV_PORT_ACTIVE;
	a->max_mtu = IBV_MTU_4096;
	const char *mtu = getenv("FAKE_VERBS_MTU");
	a->active_mtu = mtu ? (enum ibv_mtu)atoi(mtu) : IBV_MTU_1024;
	a->link_layer = devinfo[i].eth ? IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
	a->lid = devinfo[i].eth ? 0 : (uint16_t)(12 + port);
	union ibv_gid g[MAXGID];
	a->gid_tbl_len = devinfo[i].eth ? gid_table(g) : 1;
	a->flags = 0x5a; /* beyond the compat struct: must land in the caller's full struct */
	a->port_cap_flags2 = 0x5a5a;
	return 0;
}

int ibv_query_gid(struct ibv_context *c, uint8_t port, int index, union ibv_gid *gid)
{
	(void)port;
	misbehave("segv_query_gid");
	union ibv_gid g[MAXGID];
	int n = 1;
	if (devinfo[dev_index(c)].eth) {
		n = gid_table(g);
	} else {
		memset(g, 0, sizeof g);
		g[0].raw[0] = 0xfe;
		g[0].raw[1] = 0x80;
		g[0].raw[15] = 1;
	}
	if (index < 0 || index >= n) {
		errno = EINVAL;
		return -1;
	}
	*gid = g[index];
	return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *c)
{
	if (fail_of("alloc_pd")) {
		errno = fail_of("alloc_pd");
		return NULL;
	}
	struct ibv_pd *pd = calloc(1, sizeof *pd);
	pd->context = c;
	pd->handle = 3;
	live_objects++;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	live_objects--;
	return 0;
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	int e = fail_of("reg_mr");
	if (e) {
		errno = e;
		return NULL;
	}
	if ((access & IBV_ACCESS_REMOTE_WRITE) && !(access & IBV_ACCESS_LOCAL_WRITE))
		bad("reg_mr: REMOTE_WRITE without LOCAL_WRITE");
	struct fake_mr *m = calloc(1, sizeof *m);
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = len;
	m->mr.lkey = next_key++;
	m->mr.rkey = next_key++;
	m->access = access;
	the_mr = m;
	live_objects++;
	return &m->mr;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	the_mr = NULL;
	free(mr);
	live_objects--;
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *c, int cqe, void *cq_context, struct ibv_comp_channel *ch, int vec)
{
	(void)cq_context, (void)ch, (void)vec;
	if (fail_of("create_cq")) {
		errno = ENOMEM;
		return NULL;
	}
	struct fake_cq *f = calloc(1, sizeof *f);
	f->cq.context = c;
	f->cq.cqe = cqe;
	live_objects++;
	return &f->cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	free(cq);
	live_objects--;
	return 0;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
	misbehave("abort");
	if (fail_of("create_qp")) {
		errno = ENOMEM;
		return NULL;
	}
	if (ia->qp_type != IBV_QPT_RC || !ia->send_cq || !ia->recv_cq || ia->cap.max_send_wr < 1 ||
	    ia->cap.max_send_sge < 1)
		bad("create_qp attributes");
	struct fake_qp *q = calloc(1, sizeof *q);
	q->qp.context = pd->context;
	q->qp.pd = pd;
	q->qp.send_cq = ia->send_cq;
	q->qp.recv_cq = ia->recv_cq;
	q->qp.qp_num = next_qpn++;
	q->qp.qp_type = IBV_QPT_RC;
	q->st = IBV_QPS_RESET;
	live_objects++;
	return &q->qp;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	struct fake_qp *q = (struct fake_qp *)qp;
	struct ibv_port_attr pa;
	if (!(mask & IBV_QP_STATE))
		return EINVAL;
	if (a->qp_state == IBV_QPS_INIT) {
		if (fail_of("init"))
			return fail_of("init");
		if (q->st != IBV_QPS_RESET ||
		    mask != (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) || a->port_num < 1 ||
		    !(a->qp_access_flags & IBV_ACCESS_REMOTE_WRITE)) {
			bad("INIT attributes");
			return EINVAL;
		}
		q->port = a->port_num;
	} else if (a->qp_state == IBV_QPS_RTR) {
		misbehave("hang_modify_qp");
		if (fail_of("rtr"))
			return fail_of("rtr");
		(ibv_query_port)(qp->context, (uint8_t)q->port, (struct _compat_ibv_port_attr *)(void *)&pa);
		int need = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		if (q->st != IBV_QPS_INIT || mask != need || a->path_mtu != pa.active_mtu ||
		    a->dest_qp_num != qp->qp_num || a->ah_attr.port_num != q->port || a->max_dest_rd_atomic < 1) {
			bad("RTR attributes");
			return EINVAL;
		}
		if (pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
			union ibv_gid g;
			if (!a->ah_attr.is_global || ibv_query_gid(qp->context, (uint8_t)q->port, a->ah_attr.grh.sgid_index, &g) ||
			    memcmp(&g, &a->ah_attr.grh.dgid, sizeof g) != 0 || a->ah_attr.grh.hop_limit < 1) {
				bad("RTR: RoCE needs a GRH to the port's own GID");
				return EINVAL;
			}
		} else if (a->ah_attr.is_global || a->ah_attr.dlid != pa.lid) {
			bad("RTR: InfiniBand loopback is by LID without GRH");
			return EINVAL;
		}
	} else if (a->qp_state == IBV_QPS_RTS) {
		if (fail_of("rts"))
			return fail_of("rts");
		int need = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			   IBV_QP_MAX_QP_RD_ATOMIC;
		if (q->st != IBV_QPS_RTR || mask != need) {
			bad("RTS attributes");
			return EINVAL;
		}
	} else {
		return EINVAL;
	}
	q->st = a->qp_state;
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	free(qp); /* freed even when it "fails", so the sanitizers see no leak */
	live_objects--;
	return fail_of("destroy_qp");
}

const char *ibv_wc_status_str(enum ibv_wc_status s)
{
	return s == IBV_WC_SUCCESS ? "success" : s == IBV_WC_RETRY_EXC_ERR ? "transport retry counter exceeded" : "other error";
}

__attribute__((destructor)) static void fake_verbs_fini(void)
{
	if (live_objects)
		fprintf(stderr, "fake_verbs: LEAK %d objects not destroyed\n", live_objects);
}
