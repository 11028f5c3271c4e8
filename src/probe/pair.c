/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The measurement between two hosts (see pair.h); libibverbs through probe/verbs.h. */
#include "probe/pair.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "probe/verbs.h"
#include "util/util.h"

#define WINDOW 32      /* RDMA WRITEs in flight in the bandwidth run, at most ... */
#define WINDOW_BYTES (8u << 20) /* ... and at most this many bytes of them (one write at least): a
				 * slow link drains what is in flight after the time is up */
#define LAT_SIGNAL 16  /* the ping-pong signals one write in this many */
#define SLOT 64        /* the ping-pong's bytes at the end of the buffer: the peer's slot, our source */
#define RD_PAIR_HELLO_MS 30000 /* a server's wait for the client's hello */

/* ---- the control connection ------------------------------------------------------------------ */

struct conn {
	int fd;
	long long deadline;
	char in[2 * RD_PAIR_LINE_MAX];
	size_t n;
	char why[256]; /* the first failure */
};

static int left_ms(const struct conn *c)
{
	long long l = c->deadline - rd_mono_ms();
	return l <= 0 ? 0 : l > 1000000 ? 1000000 : (int)l;
}

static bool conn_fail(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool conn_fail(struct conn *c, const char *fmt, ...)
{
	if (!c->why[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->why, sizeof c->why, fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool send_line(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool send_line(struct conn *c, const char *fmt, ...)
{
	char line[RD_PAIR_LINE_MAX + 2];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= RD_PAIR_LINE_MAX)
		return conn_fail(c, "a control line too long to send");
	line[n++] = '\n';
	for (int off = 0; off < n;) {
		struct pollfd p = {.fd = c->fd, .events = POLLOUT};
		int r = poll(&p, 1, left_ms(c));
		if (r == 0)
			return conn_fail(c, "the peer took no data before the deadline");
		if (r < 0 && errno == EINTR)
			continue;
		ssize_t w = r < 0 ? -1 : send(c->fd, line + off, (size_t)(n - off), MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return conn_fail(c, "the control connection: %s", strerror(errno));
		off += (int)w;
	}
	return true;
}

/* The next line (without its newline) into line; false at the deadline, EOF or an overlong line. */
static bool read_line(struct conn *c, char *line, size_t len)
{
	for (;;) {
		char *nl = memchr(c->in, '\n', c->n);
		if (nl) {
			size_t k = (size_t)(nl - c->in);
			if (k >= len)
				return conn_fail(c, "a control line longer than %zu bytes from the peer", len - 1);
			memcpy(line, c->in, k);
			line[k] = '\0';
			memmove(c->in, nl + 1, c->n - k - 1);
			c->n -= k + 1;
			return true;
		}
		if (c->n >= RD_PAIR_LINE_MAX)
			return conn_fail(c, "a control line longer than %d bytes from the peer", RD_PAIR_LINE_MAX);
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		int r = poll(&p, 1, left_ms(c));
		if (r == 0)
			return conn_fail(c, "no word from the peer before the deadline");
		if (r < 0 && errno == EINTR)
			continue;
		ssize_t got = r < 0 ? -1 : recv(c->fd, c->in + c->n, sizeof c->in - c->n, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return conn_fail(c, "the control connection: %s", strerror(errno));
		if (got == 0)
			return conn_fail(c, "the peer closed the connection");
		c->n += (size_t)got;
	}
}

/* ---- the peer's lines ---------------------------------------------------------------------- */

/* A name as it may travel: [A-Za-z0-9._:-], 1..63 bytes. */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && n < 64 &&
	       s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-")] == '\0';
}

static bool num(const char *s, unsigned long long max, int base, unsigned long long *out)
{
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (*end || errno || v > max)
		return false;
	*out = v;
	return true;
}

int rd_pair_parse_hello(const char *line, struct rd_pair_hello *h)
{
	char host[128], extra;
	unsigned long long n, ms;
	char count[32], budget[32];
	memset(h, 0, sizeof *h);
	if (sscanf(line, "RDPAIR/1 %127s %31s %31s %c", host, count, budget, &extra) != 3 || !name_ok(host) ||
	    !num(count, RD_PAIR_RAILS_MAX, 10, &n) || !num(budget, RD_PAIR_BUDGET_MAX_MS, 10, &ms) || ms == 0)
		return -1;
	memcpy(h->host, host, strlen(host) + 1); /* name_ok: under 64 bytes */
	h->nrails = (unsigned)n;
	h->budget_ms = (unsigned)ms;
	return 0;
}

int rd_pair_parse_qp(const char *line, struct rd_pair_qp_line *q)
{
	char dev[128], w[10][48], extra;
	memset(q, 0, sizeof *q);
	if (sscanf(line, "QP %127s %47s %47s %47s %47s %47s %47s %47s %47s %47s %47s %c", dev, w[0], w[1], w[2], w[3],
		   w[4], w[5], w[6], w[7], w[8], w[9], &extra) != 11 ||
	    !name_ok(dev))
		return -1;
	unsigned long long v[9];
	if (!num(w[0], 255, 10, &v[0]) || v[0] == 0 || !num(w[1], 0xffff, 10, &v[1]) || !num(w[2], 0xffffff, 10, &v[2]) ||
	    !num(w[3], 0xffffff, 10, &v[3]) || !num(w[4], 5, 10, &v[4]) || v[4] == 0)
		return -1;
	if (strcmp(w[5], "-") == 0) {
		q->has_gid = false;
	} else {
		if (strlen(w[5]) != 32 || w[5][strspn(w[5], "0123456789abcdef")])
			return -1;
		for (int i = 0; i < 16; i++) {
			char b[3] = {w[5][2 * i], w[5][2 * i + 1], 0};
			q->gid[i] = (uint8_t)strtoul(b, NULL, 16);
		}
		q->has_gid = true;
	}
	long long gidx;
	char *end;
	errno = 0;
	gidx = strtoll(w[6], &end, 10);
	if (*end || errno || gidx < -1 || gidx > 255 || (q->has_gid && gidx < 0))
		return -1;
	if (!num(w[7], UINT64_MAX, 16, &v[5]) || !num(w[8], 0xffffffffu, 16, &v[6]))
		return -1;
	double line_gbps = strtod(w[9], &end);
	if (*end || !(line_gbps >= 0 && line_gbps <= 1e6))
		return -1;
	memcpy(q->device, dev, strlen(dev) + 1); /* name_ok: under 64 bytes */
	q->port = (unsigned)v[0];
	q->lid = (unsigned)v[1];
	q->qpn = (unsigned)v[2];
	q->psn = (unsigned)v[3];
	q->mtu = (unsigned)v[4];
	q->gid_index = (int)gidx;
	q->addr = v[5];
	q->rkey = (uint32_t)v[6];
	q->line_gbps = line_gbps;
	return 0;
}

/* ---- one rail ------------------------------------------------------------------------------ */

struct rail {
	const struct rd_verbs *v;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf;
	size_t len;        /* bytes mapped: RD_PAIR_DATA plus SLOT */
	size_t data;       /* the bandwidth area: [0, data) */
	struct ibv_port_attr pa;
	union ibv_gid gid;
	bool has_gid;
	int gid_index;
	uint32_t psn;
	unsigned max_inline;
};

static void rail_close(struct rail *r)
{
	if (r->qp)
		r->v->destroy_qp(r->qp);
	if (r->mr)
		r->v->dereg_mr(r->mr);
	if (r->cq)
		r->v->destroy_cq(r->cq);
	if (r->pd)
		r->v->dealloc_pd(r->pd);
	if (r->ctx)
		r->v->close_device(r->ctx);
	if (r->buf)
		munmap(r->buf, r->len);
	const struct rd_verbs *v = r->v;
	memset(r, 0, sizeof *r);
	r->v = v;
}

/* The buffer on the HCA's NUMA node: mbind(MPOL_PREFERRED) before its pages are touched. */
static unsigned char *numa_buffer(size_t len, int node)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (node >= 0 && node < 64) {
		unsigned long mask = 1ul << node;
		(void)syscall(SYS_mbind, p, len, 1 /* MPOL_PREFERRED */, &mask, 64ul, 0u);
	}
	memset(p, 0, len);
	return p;
}

/* Opens the rail's device and makes a QP in INIT; false with why. */
static bool rail_open(struct rail *r, const struct rd_pair_rail_spec *s, char *why, size_t wlen)
{
	int n = 0;
	struct ibv_device **list = r->v->get_device_list(&n);
	struct ibv_device *dev = NULL;
	for (int i = 0; list && i < n && !dev; i++)
		if (strcmp(r->v->get_device_name(list[i]), s->device) == 0)
			dev = list[i];
	if (dev)
		r->ctx = r->v->open_device(dev);
	int e = rd_verbs_err(-1);
	if (list)
		r->v->free_device_list(list);
	if (!dev)
		return snprintf(why, wlen, "%s: no such device for libibverbs", s->device), false;
	if (!r->ctx)
		return snprintf(why, wlen, "ibv_open_device(%s): %s", s->device, strerror(e)), false;
	int q = rd_verbs_query_port(r->v, r->ctx, s->port, &r->pa);
	if (q)
		return snprintf(why, wlen, "ibv_query_port(%s, %u): %s", s->device, s->port, strerror(rd_verbs_err(q))), false;
	if (r->pa.state != IBV_PORT_ACTIVE)
		return snprintf(why, wlen, "%s port %u is not ACTIVE", s->device, s->port), false;
	if (s->gid_index >= 0) {
		if (r->v->query_gid(r->ctx, (uint8_t)s->port, s->gid_index, &r->gid))
			return snprintf(why, wlen, "ibv_query_gid(%s, %u, %d) failed", s->device, s->port, s->gid_index), false;
		r->has_gid = true;
		r->gid_index = s->gid_index;
	} else if (r->pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		return snprintf(why, wlen, "%s port %u is Ethernet and has no usable GID for NCCL", s->device, s->port), false;
	}
	r->data = RD_PAIR_DATA; /* both ends: the peer's layout is ours */
	r->len = r->data + SLOT;
	if (!(r->buf = numa_buffer(r->len, s->numa_node)))
		return snprintf(why, wlen, "cannot map %zu bytes", r->len), false;
	if (!(r->pd = r->v->alloc_pd(r->ctx)))
		return snprintf(why, wlen, "ibv_alloc_pd(%s): %s", s->device, strerror(rd_verbs_err(-1))), false;
	errno = 0;
	r->mr = r->v->reg_mr(r->pd, r->buf, r->len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!r->mr) {
		e = rd_verbs_err(-1);
		return snprintf(why, wlen, "ibv_reg_mr of %zu bytes: %s%s", r->len, strerror(e),
				e == ENOMEM || e == EPERM || e == EAGAIN ? " (the memlock limit: rdma-doctor check --only memlock.limit)"
									 : ""),
		       false;
	}
	if (!(r->cq = r->v->create_cq(r->ctx, 2 * WINDOW + LAT_SIGNAL, NULL, NULL, 0)))
		return snprintf(why, wlen, "ibv_create_cq(%s): %s", s->device, strerror(rd_verbs_err(-1))), false;
	struct ibv_qp_init_attr ia = {.send_cq = r->cq, .recv_cq = r->cq, .qp_type = IBV_QPT_RC,
				      .cap = {.max_send_wr = 2 * WINDOW, .max_recv_wr = 1, .max_send_sge = 1,
					      .max_recv_sge = 1, .max_inline_data = SLOT / 2}};
	r->qp = r->v->create_qp(r->pd, &ia);
	if (!r->qp) { /* a provider without inline data */
		ia.cap.max_inline_data = 0;
		r->qp = r->v->create_qp(r->pd, &ia);
	}
	if (!r->qp)
		return snprintf(why, wlen, "ibv_create_qp(%s): %s", s->device, strerror(rd_verbs_err(-1))), false;
	r->max_inline = ia.cap.max_inline_data;
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = (uint8_t)s->port,
				.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE};
	q = r->v->modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (q)
		return snprintf(why, wlen, "ibv_modify_qp to INIT: %s", strerror(rd_verbs_err(q))), false;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r->psn = ((uint32_t)ts.tv_nsec ^ (uint32_t)getpid()) & 0xffffff;
	return true;
}

/* RTR with the peer's attributes, then RTS; false with why. */
static bool rail_connect(struct rail *r, unsigned port, const struct rd_pair_qp_line *peer, char *why, size_t wlen)
{
	unsigned mtu = peer->mtu < (unsigned)r->pa.active_mtu ? peer->mtu : (unsigned)r->pa.active_mtu;
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR, .path_mtu = (enum ibv_mtu)mtu, .dest_qp_num = peer->qpn,
				.rq_psn = peer->psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 12};
	a.ah_attr.dlid = (uint16_t)peer->lid;
	a.ah_attr.port_num = (uint8_t)port;
	if (r->has_gid) {
		if (!peer->has_gid)
			return snprintf(why, wlen, "this end is RoCE and the peer's rail has no GID (an InfiniBand port?)"), false;
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)r->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	} else if (peer->has_gid) {
		return snprintf(why, wlen, "this end is InfiniBand and the peer's rail is RoCE"), false;
	}
	int q = r->v->modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (q)
		return snprintf(why, wlen, "ibv_modify_qp to RTR: %s", strerror(rd_verbs_err(q))), false;
	struct ibv_qp_attr b = {.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .sq_psn = r->psn,
				.max_rd_atomic = 1};
	q = r->v->modify_qp(r->qp, &b, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					   IBV_QP_MAX_QP_RD_ATOMIC);
	if (q)
		return snprintf(why, wlen, "ibv_modify_qp to RTS: %s", strerror(rd_verbs_err(q))), false;
	return true;
}

/* Polls up to n completions until one arrives or the deadline; returns how many, -1 with why on a
 * failed completion or at the deadline. */
static int reap(struct rail *r, struct ibv_wc *wc, int n, long long deadline, char *why, size_t wlen)
{
	for (unsigned spins = 0;; spins++) {
		int got = ibv_poll_cq(r->cq, n, wc);
		if (got < 0)
			return snprintf(why, wlen, "ibv_poll_cq failed (%d)", got), -1;
		for (int i = 0; i < got; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				const char *w = r->v->wc_status_str(wc[i].status);
				return snprintf(why, wlen, "a completion with status %s (%d, vendor_err 0x%x)", w ? w : "?",
						(int)wc[i].status, wc[i].vendor_err),
				       -1;
			}
		if (got > 0)
			return got;
		if ((spins & 1023) == 0 && rd_mono_ms() > deadline)
			return snprintf(why, wlen, "no completion before the deadline"), -1;
	}
}

static int post_write(struct rail *r, void *src, uint32_t len, uint64_t raddr, uint32_t rkey, bool signaled)
{
	struct ibv_sge sge = {.addr = (uint64_t)(uintptr_t)src, .length = len, .lkey = r->mr->lkey};
	struct ibv_send_wr wr, *bad = NULL;
	memset(&wr, 0, sizeof wr);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) | (len <= r->max_inline ? IBV_SEND_INLINE : 0);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(r->qp, &wr, &bad);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The client's bandwidth run at one size: WINDOW writes in flight for duration_ms. */
static bool bandwidth(struct rail *r, const struct rd_pair_qp_line *peer, uint64_t size, unsigned duration_ms,
		      long long deadline, struct rd_pair_size *out, char *why, size_t wlen)
{
	struct ibv_wc wc[WINDOW];
	uint64_t t0 = now_ns(), stop = t0 + (uint64_t)duration_ms * 1000000u, done = 0, posted = 0;
	unsigned inflight = 0, window = size >= WINDOW_BYTES ? 1 : (unsigned)(WINDOW_BYTES / size);
	if (window > WINDOW)
		window = WINDOW;
	for (;;) {
		while (inflight < window && now_ns() < stop) {
			int e = post_write(r, r->buf, (uint32_t)size, peer->addr, peer->rkey, true);
			if (e)
				return snprintf(why, wlen, "ibv_post_send: %s", strerror(rd_verbs_err(e))), false;
			inflight++;
			posted++;
		}
		if (!inflight)
			break;
		int got = reap(r, wc, WINDOW, deadline, why, wlen);
		if (got < 0)
			return false;
		inflight -= (unsigned)got;
		done += (uint64_t)got;
	}
	uint64_t ns = now_ns() - t0;
	out->bytes = size;
	out->writes = done;
	out->gbps = ns ? (double)done * (double)size * 8.0 / (double)ns : 0;
	(void)posted;
	return true;
}

/* The client's word that ends the ping-pong before its N round trips (its time is up). */
#define LAT_STOP UINT64_MAX

/* The ping-pong: the client writes i into the peer's slot and waits for i in its own; the server
 * waits for i, then writes it back.  The client stops after iters round trips or duration_ms,
 * whichever comes first (then it writes LAT_STOP); *done gets the round trips made, rtt_ns the
 * client's times. */
static bool pingpong(struct rail *r, const struct rd_pair_qp_line *peer, bool client, unsigned iters,
		     unsigned duration_ms, long long deadline, uint64_t *rtt_ns, unsigned *done, char *why, size_t wlen)
{
	volatile uint64_t *mine = (volatile uint64_t *)(void *)(r->buf + r->data);
	uint64_t *src = (uint64_t *)(void *)(r->buf + r->data + SLOT / 2);
	uint64_t raddr = peer->addr + r->data; /* the peer's buffer has the same layout */
	uint64_t stop = now_ns() + (uint64_t)duration_ms * 1000000u;
	struct ibv_wc wc[4];
	unsigned unsignaled = 0;
	*done = 0;
	for (unsigned i = 1; i <= iters; i++) {
		uint64_t t0 = now_ns();
		if (client && i > 10 && t0 > stop)
			i = 0; /* time is up (after 10 at least): the last write is the stop word */
		if (!client) {
			uint64_t v;
			for (unsigned spins = 0; (v = *mine) != i && v != LAT_STOP; spins++)
				if ((spins & 4095) == 0 && rd_mono_ms() > deadline)
					return snprintf(why, wlen, "round trip %u of %u never arrived", i, iters), false;
			if (v == LAT_STOP)
				break;
		}
		*src = i ? i : LAT_STOP;
		bool sig = ++unsignaled == LAT_SIGNAL || !i;
		int e = post_write(r, src, sizeof *src, raddr, peer->rkey, sig);
		if (e)
			return snprintf(why, wlen, "ibv_post_send: %s", strerror(rd_verbs_err(e))), false;
		if (sig) {
			unsignaled = 0;
			if (reap(r, wc, 4, deadline, why, wlen) < 0)
				return false;
		}
		if (!i)
			break;
		if (client) {
			for (unsigned spins = 0; *mine != i; spins++)
				if ((spins & 4095) == 0 && rd_mono_ms() > deadline)
					return snprintf(why, wlen, "round trip %u of %u never came back", i, iters), false;
			rtt_ns[i - 1] = now_ns() - t0;
		}
		*done = i;
	}
	if (unsignaled) { /* the last writes: a signaled one so that they are known to be done */
		int e = post_write(r, src, sizeof *src, raddr + SLOT / 4, peer->rkey, true);
		if (e)
			return snprintf(why, wlen, "ibv_post_send: %s", strerror(rd_verbs_err(e))), false;
		if (reap(r, wc, 4, deadline, why, wlen) < 0)
			return false;
	}
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static char *gid_text(const union ibv_gid *g)
{
	char buf[INET6_ADDRSTRLEN];
	if (!inet_ntop(AF_INET6, g->raw, buf, sizeof buf))
		snprintf(buf, sizeof buf, "?");
	return rd_xstrdup(buf);
}

/* ---- a run ----------------------------------------------------------------------------------- */

static bool expect(struct conn *c, const char *want, char *line, size_t len)
{
	if (!read_line(c, line, len))
		return false;
	if (strcmp(line, want) == 0)
		return true;
	if (strncmp(line, "ERR ", 4) == 0)
		return conn_fail(c, "the peer: %s", line + 4);
	return conn_fail(c, "the peer sent '%.60s' where '%s' was due", line, want);
}

/* One rail; false when the run itself must end (the connection or the peer's protocol failed). */
static bool run_rail(struct conn *c, struct rail *r, const struct rd_pair_rail_spec *s, bool server,
		     const struct rd_pair_opts *o, struct rd_pair_rail *out)
{
	char why[300] = "", line[RD_PAIR_LINE_MAX + 1];
	out->device = rd_xstrdup(s->device);
	out->port = s->port;
	out->gid_index = s->gid_index;
	out->gbps = out->lat_us = out->lat_p99_us = -1;
	bool ok = rail_open(r, s, why, sizeof why);
	char gid[33] = "-";
	if (ok && r->has_gid) {
		for (int i = 0; i < 16; i++)
			snprintf(gid + 2 * i, 3, "%02x", r->gid.raw[i]);
		out->gid = gid_text(&r->gid);
	}
	bool sent = ok ? send_line(c, "QP %s %u %u %u %u %d %s %d %" PRIx64 " %x %.1f", s->device, s->port, r->pa.lid,
				   r->qp->qp_num, r->psn, (int)r->pa.active_mtu, gid, r->has_gid ? s->gid_index : -1,
				   (uint64_t)(uintptr_t)r->buf, r->mr->rkey, s->line_gbps)
		       : send_line(c, "ERR %s", why);
	if (!sent || !read_line(c, line, sizeof line))
		return false;
	struct rd_pair_qp_line peer;
	if (strncmp(line, "ERR ", 4) == 0) {
		out->error = ok ? rd_xasprintf("the peer: %.300s", line + 4) : rd_xstrdup(why);
		return true;
	}
	if (rd_pair_parse_qp(line, &peer) < 0)
		return conn_fail(c, "the peer's rail line is not 'QP ...': '%.80s'", line);
	out->peer_device = rd_xstrdup(peer.device);
	out->peer_port = peer.port;
	out->line_gbps = s->line_gbps > 0 && (peer.line_gbps <= 0 || s->line_gbps < peer.line_gbps) ? s->line_gbps
													: peer.line_gbps;
	if (!ok) {
		out->error = rd_xstrdup(why);
		return true;
	}
	if (peer.addr > UINT64_MAX - r->len)
		return conn_fail(c, "the peer's buffer address is out of range");
	ok = rail_connect(r, s->port, &peer, why, sizeof why);
	if (!(ok ? send_line(c, "RTS") : send_line(c, "ERR %s", why)) || !read_line(c, line, sizeof line))
		return false;
	if (strcmp(line, "RTS") != 0) {
		if (strncmp(line, "ERR ", 4) != 0)
			return conn_fail(c, "the peer sent '%.60s' where 'RTS' was due", line);
		out->error = ok ? rd_xasprintf("the peer: %.300s", line + 4) : rd_xstrdup(why);
		return true;
	}
	if (!ok) {
		out->error = rd_xstrdup(why);
		return true;
	}
	/* the bandwidth: the client writes; the server waits for LAT (its memory is written meanwhile) */
	if (!server) {
		for (size_t k = 0; k < o->nsizes && ok; k++) {
			uint64_t size = o->sizes[k] <= r->data ? o->sizes[k] : r->data;
			ok = bandwidth(r, &peer, size, o->duration_ms, c->deadline, &out->sizes[out->nsizes], why, sizeof why);
			if (ok && out->sizes[out->nsizes].gbps > out->gbps)
				out->gbps = out->sizes[out->nsizes].gbps;
			out->nsizes += ok;
		}
		if (!ok) {
			out->error = rd_xasprintf("bandwidth: %s", why);
			(void)send_line(c, "ERR %s", out->error);
			return false; /* the QP is in error: the peer learns it here, the run ends */
		}
		if (!send_line(c, "LAT %u", o->lat_iters))
			return false;
	}
	unsigned iters = o->lat_iters;
	if (server) {
		if (!read_line(c, line, sizeof line))
			return false;
		unsigned long long n;
		if (strncmp(line, "ERR ", 4) == 0) {
			out->error = rd_xasprintf("the peer: %.300s", line + 4);
			return false;
		}
		if (strncmp(line, "LAT ", 4) != 0 || !num(line + 4, 1000000, 10, &n) || n == 0)
			return conn_fail(c, "the peer sent '%.60s' where 'LAT N' was due", line);
		iters = (unsigned)n;
	}
	uint64_t *rtt = server ? NULL : rd_xcalloc(iters, sizeof *rtt);
	unsigned n = 0;
	ok = pingpong(r, &peer, !server, iters, o->duration_ms, c->deadline, rtt, &n, why, sizeof why);
	out->lat_iters = n;
	if (ok && rtt && n) {
		qsort(rtt, n, sizeof *rtt, cmp_u64);
		size_t p99 = (size_t)((double)n * 0.99);
		out->lat_us = (double)rtt[n / 2] / 2000.0;
		out->lat_p99_us = (double)rtt[p99 < n ? p99 : n - 1] / 2000.0;
	}
	free(rtt);
	if (!ok) {
		out->error = rd_xasprintf("latency: %s", why);
		(void)send_line(c, "ERR %s", out->error);
		return false;
	}
	return send_line(c, "END") && expect(c, "END", line, sizeof line);
}

int rd_pair_run(int fd, bool server, const struct rd_pair_opts *o, struct rd_pair_result *res)
{
	memset(res, 0, sizeof *res);
	struct conn c = {.fd = fd, .deadline = o->deadline_ms};
	char line[RD_PAIR_LINE_MAX + 1];
	struct rd_pair_hello h;
	long long left = o->deadline_ms - rd_mono_ms();
	if (left < 1)
		left = 1;
	/* a server waits for the hello RD_PAIR_HELLO_MS at most, whatever its own deadline: a client
	 * that connects and says nothing does not hold it */
	if (server && c.deadline > rd_mono_ms() + RD_PAIR_HELLO_MS)
		c.deadline = rd_mono_ms() + RD_PAIR_HELLO_MS;
	if (!send_line(&c, "RDPAIR/1 %s %zu %lld", o->host, o->nrails,
		       left < RD_PAIR_BUDGET_MAX_MS ? left : (long long)RD_PAIR_BUDGET_MAX_MS) ||
	    !read_line(&c, line, sizeof line))
		goto fail;
	c.deadline = o->deadline_ms;
	if (rd_pair_parse_hello(line, &h) < 0) {
		conn_fail(&c, "the peer is not rdma-doctor pair (its first line: '%.60s')", line);
		goto fail;
	}
	res->peer = rd_xstrdup(h.host);
	if (server && rd_mono_ms() + h.budget_ms < c.deadline)
		c.deadline = rd_mono_ms() + h.budget_ms; /* the client stops waiting then: so does this end */
	size_t n = o->nrails < h.nrails ? o->nrails : h.nrails;
	if (n == 0) {
		conn_fail(&c, "%s", o->nrails ? "the peer has no ACTIVE RDMA port" : "this host has no ACTIVE RDMA port");
		goto fail;
	}
	struct rd_verbs v;
	char why[512];
	bool missing;
	bool loaded = rd_verbs_load(&v, why, sizeof why, &missing) == 0;
	res->rails = rd_xcalloc(n, sizeof *res->rails);
	for (size_t i = 0; i < n; i++) {
		struct rail r = {.v = &v};
		struct rd_pair_rail *out = &res->rails[res->nrails++];
		bool go;
		if (!loaded) {
			out->device = rd_xstrdup(o->rails[i].device);
			out->port = o->rails[i].port;
			out->gbps = out->lat_us = out->lat_p99_us = -1;
			out->error = rd_xasprintf("libibverbs cannot be loaded: %s", why);
			go = send_line(&c, "ERR %s", out->error) && read_line(&c, line, sizeof line);
		} else {
			go = run_rail(&c, &r, &o->rails[i], server, o, out);
			rail_close(&r);
			if (!go && !out->error) /* cut off by the run's own failure */
				out->error = rd_xstrdup(c.why[0] ? c.why : "the control connection failed");
		}
		if (!go)
			break;
	}
	if (loaded)
		rd_verbs_unload(&v);
	if (c.why[0]) {
		res->error = rd_xstrdup(c.why);
		return -1;
	}
	return 0;
fail:
	res->error = rd_xstrdup(c.why[0] ? c.why : "the control connection failed");
	return -1;
}

void rd_pair_result_free(struct rd_pair_result *r)
{
	for (size_t i = 0; i < r->nrails; i++) {
		free(r->rails[i].device);
		free(r->rails[i].peer_device);
		free(r->rails[i].gid);
		free(r->rails[i].error);
	}
	free(r->rails);
	free(r->peer);
	free(r->error);
	memset(r, 0, sizeof *r);
}
