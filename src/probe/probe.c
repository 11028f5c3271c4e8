/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The verbs loopback probe (see probe.h); libibverbs through probe/verbs.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/parse.h"
#include "model/system.h"
#include "probe/probe.h"
#include "probe/verbs.h"

/* ---- small helpers ------------------------------------------------------------------------- */

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static const char *errno_name(int err)
{
	const char *n = err > 0 ? strerrorname_np(err) : NULL;
	return n ? n : "?";
}

static struct rd_probe_step *step_add(struct rd_probe_step **steps, size_t *n, const char *name)
{
	*steps = rd_xrealloc(*steps, (*n + 1) * sizeof **steps);
	struct rd_probe_step *s = &(*steps)[(*n)++];
	memset(s, 0, sizeof *s);
	s->name = name;
	s->ok = true;
	return s;
}

static struct rd_probe_step *port_step(struct rd_probe_port *p, const char *name)
{
	return step_add(&p->steps, &p->nsteps, name);
}

static void step_set_detail(struct rd_probe_step *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step_set_detail(struct rd_probe_step *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *d = rd_xvasprintf(fmt, ap);
	va_end(ap);
	free(s->detail);
	s->detail = d;
}

/* Marks s failed with err (0: no errno) and the one-line reason. */
static void step_fail(struct rd_probe_step *s, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void step_fail(struct rd_probe_step *s, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *e = rd_xvasprintf(fmt, ap);
	va_end(ap);
	s->ok = false;
	s->err = err;
	free(s->error);
	s->error = e;
}

/* step_fail with ": <strerror> (<ENAME>)" after the message. */
static void step_fail_errno(struct rd_probe_step *s, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void step_fail_errno(struct rd_probe_step *s, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *what = rd_xvasprintf(fmt, ap);
	va_end(ap);
	step_fail(s, err, "%s: %s (%s)", what, strerror(err), errno_name(err));
	free(what);
}

static void step_fix(struct rd_probe_step *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step_fix(struct rd_probe_step *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rd_strv_push_owned(&s->fix, rd_xvasprintf(fmt, ap));
	va_end(ap);
}

static void step_time(struct rd_probe_step *s, uint64_t t0)
{
	s->usec = now_us() - t0;
}


const struct rd_probe_step *rd_probe_failed_step(const struct rd_probe_step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!steps[i].ok)
			return &steps[i];
	return NULL;
}

const char *rd_probe_step_name(const char *name)
{
	static const char *const names[] = {"load", "devices", "open", "query_port", "gid", "alloc_pd", "reg_mr",
					    "create_cq", "create_qp", "init", "rtr", "rts", "write", "verify",
					    "teardown", "unload"};
	for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i], name) == 0)
			return names[i];
	return NULL;
}

/* Tells opts->progress where the run is (see probe.h). */
static void at(const struct rd_probe_opts *o, const struct rd_probe_result *r, const char *dev, unsigned port,
	       const char *step, const char *call)
{
	if (o->progress)
		o->progress(o->progress_arg, r, dev, port, step, call);
}

/* ---- loading libibverbs -------------------------------------------------------------------- */

static const char *load_fix_provider =
	"a provider for the NIC is needed too: libmlx5 (ConnectX), librxe (Soft-RoCE) ... are in "
	"ibverbs-providers (MLNX_OFED and DOCA-OFED bring their own)";

static bool verbs_load(struct rd_verbs *v, const struct rd_probe_opts *o, struct rd_probe_result *r)
{
	at(o, r, NULL, 0, "load", "dlopen(\"libibverbs.so.1\")");
	uint64_t t0 = now_us();
	struct rd_probe_step *s = step_add(&r->steps, &r->nsteps, "load");
	char why[512];
	bool missing;
	if (rd_verbs_load(v, why, sizeof why, &missing) < 0) {
		step_fail(s, 0, "libibverbs is not installed or cannot be loaded: %s", why);
		step_set_detail(s, missing ? "libibverbs.so.1 was found but lacks a function the probe needs"
					   : "dlopen(\"libibverbs.so.1\") failed");
		step_fix(s, "apt-get install -y libibverbs1 ibverbs-providers");
		step_fix(s, "%s", load_fix_provider);
		step_time(s, t0);
		return false;
	}
	if (v->library[0])
		r->library = rd_xstrdup(v->library);
	size_t nsyms = v->nsyms;
	step_set_detail(s, "%s (%zu functions)", r->library ? r->library : "libibverbs.so.1", nsyms);
	step_time(s, t0);
	return true;
}

/* ---- devices ------------------------------------------------------------------------------- */

static char *join(const struct rd_strv *sv)
{
	struct rd_buf b = {0};
	for (size_t i = 0; i < sv->n; i++) {
		if (i)
			rd_buf_puts(&b, ", ");
		rd_buf_puts(&b, sv->v[i]);
	}
	return rd_buf_steal(&b);
}

/* Why a device did not open: libibverbs reports a uverbs node this user may not open as ENOENT
 * (seen on a real 6.1 kernel with uverbs0 at 0600), so the node itself is looked at. */
static void explain_open_failure(struct rd_source *src, const char *dev, struct rd_probe_step *s)
{
	struct rd_strv uv = {0};
	rd_list_dir(src, "sys/class/infiniband_verbs", &uv);
	const char *node = NULL;
	for (size_t i = 0; i < uv.n && !node; i++) {
		struct rd_text t = {0};
		char *p = rd_xasprintf("sys/class/infiniband_verbs/%s/ibdev", uv.v[i]);
		if (rd_read_attr(src, p, &t) == 0 && strcmp(t.data, dev) == 0)
			node = uv.v[i];
		rd_text_free(&t);
		free(p);
	}
	if (!node) {
		step_set_detail(s, "no uverbs device serves %s in /sys/class/infiniband_verbs (is ib_uverbs loaded?)", dev);
		step_fix(s, "modprobe ib_uverbs");
	} else {
		char *path = rd_xasprintf("/dev/infiniband/%s", node);
		struct stat st;
		if (stat(path, &st) < 0) {
			step_set_detail(s, "%s: %s", path, strerror(errno));
			step_fix(s, "udevadm trigger --action=add --subsystem-match=infiniband_verbs && udevadm settle");
		} else if (access(path, R_OK | W_OK) < 0) {
			step_set_detail(s, "%s is mode %04o, owner %u:%u: this user (uid %u) cannot open it read-write", path,
					(unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)st.st_gid,
					(unsigned)getuid());
			step_fix(s, "chmod 0666 %s    # and a udev rule: KERNEL==\"uverbs*\", MODE=\"0666\"", path);
		}
		free(path);
	}
	rd_strv_free(&uv);
}

/* The first Mellanox/NVIDIA network controller: its address, or NULL.  The rule of
 * rd_host_has_rdma_hardware, on the system model's PCI walk. */
static char *mellanox_nic(struct rd_source *src)
{
	struct rd_system sys = {0};
	rd_system_load_pci(src, &sys);
	char *found = NULL;
	for (size_t i = 0; i < sys.npci && !found; i++)
		if (rd_pci_is_mellanox_nic(&sys.pci[i]))
			found = rd_xstrdup(sys.pci[i].addr);
	rd_system_free(&sys);
	return found;
}

/* Why libibverbs sees no device, from sysfs. */
static void explain_no_devices(struct rd_source *src, struct rd_probe_step *s)
{
	struct rd_strv ib = {0}, uverbs = {0};
	int r = rd_list_dir(src, "sys/class/infiniband", &ib);
	const char *why = r == -ENOENT ? "does not exist" : r < 0 ? strerror(-r) : "is empty";
	char *nic = NULL;
	if ((r < 0 || ib.n == 0) && !(nic = mellanox_nic(src))) {
		/* what check calls "No RDMA hardware on this host" (rd_host_has_rdma_hardware) */
		step_set_detail(s, "/sys/class/infiniband %s and no PCI function in /sys/bus/pci/devices is a Mellanox/NVIDIA "
				   "network controller (vendor 0x15b3): this host has no RDMA NIC",
				why);
		step_fix(s, "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0    # Soft-RoCE, for tests");
	} else if (r < 0 || ib.n == 0) {
		step_set_detail(s, "/sys/class/infiniband %s but %s is a Mellanox/NVIDIA network controller: no RDMA driver "
				   "module is loaded for it",
				why, nic);
		step_fix(s, "modprobe mlx5_ib    # ConnectX");
		step_fix(s, "dmesg | grep -iE 'mlx5|ib_core' | tail -20    # if modprobe fails");
	} else {
		char *names = join(&ib);
		int ru = rd_list_dir(src, "sys/class/infiniband_verbs", &uverbs);
		if (ru < 0 || uverbs.n == 0) {
			step_set_detail(s, "/sys/class/infiniband has %s but /sys/class/infiniband_verbs %s: ib_uverbs is not loaded",
					names, ru == -ENOENT ? "does not exist" : "is empty");
			step_fix(s, "modprobe ib_uverbs");
		} else {
			step_set_detail(s, "/sys/class/infiniband has %s and ib_uverbs is loaded, but libibverbs has no provider "
					   "library for them",
					names);
			step_fix(s, "apt-get install -y ibverbs-providers    # libmlx5, librxe, ...");
			step_fix(s, "ls /etc/libibverbs.d/    # the provider drivers libibverbs knows");
		}
		free(names);
	}
	free(nic);
	rd_strv_free(&ib);
	rd_strv_free(&uverbs);
}

/* ---- one port ------------------------------------------------------------------------------ */

static const char *port_state_name(int st)
{
	switch (st) {
	case IBV_PORT_NOP: return "NOP";
	case IBV_PORT_DOWN: return "DOWN";
	case IBV_PORT_INIT: return "INIT";
	case IBV_PORT_ARMED: return "ARMED";
	case IBV_PORT_ACTIVE: return "ACTIVE";
	case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
	}
	return "UNKNOWN";
}

static unsigned mtu_bytes(int mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

static bool gid_zero(const union ibv_gid *g)
{
	for (size_t i = 0; i < sizeof g->raw; i++)
		if (g->raw[i])
			return false;
	return true;
}

static bool gid_v4mapped(const union ibv_gid *g)
{
	for (size_t i = 0; i < 10; i++)
		if (g->raw[i])
			return false;
	return g->raw[10] == 0xff && g->raw[11] == 0xff;
}

static char *gid_text(const union ibv_gid *g)
{
	char buf[INET6_ADDRSTRLEN];
	if (!inet_ntop(AF_INET6, g->raw, buf, sizeof buf))
		snprintf(buf, sizeof buf, "?");
	return rd_xstrdup(buf);
}

struct port_run {
	const struct rd_verbs *v;
	const struct rd_probe_opts *o;
	const struct rd_probe_result *r;
	struct rd_source *src;
	struct ibv_context *ctx;
	uint64_t size;
	struct rd_probe_port *p;
	struct ibv_port_attr pa;
	union ibv_gid gid;
};

/* Step "gid": on InfiniBand the LID is the address; on Ethernet a RoCE v2 GID (IPv4-mapped first). */
static bool choose_gid(struct port_run *pr)
{
	struct rd_probe_port *p = pr->p;
	const struct rd_verbs *v = pr->v;
	at(pr->o, pr->r, p->device, p->port, "gid", "ibv_query_gid");
	uint64_t t0 = now_us();
	struct rd_probe_step *s = port_step(p, "gid");
	if (pr->pa.link_layer != IBV_LINK_LAYER_ETHERNET) {
		step_set_detail(s, "InfiniBand: the QP addresses itself by LID %u (no GRH)", p->lid);
		step_time(s, t0);
		return true;
	}
	int n = pr->pa.gid_tbl_len > 0 ? pr->pa.gid_tbl_len : 0;
	if (n > 256) /* ah_attr.grh.sgid_index is 8 bits */
		n = 256;
	int v2 = -1, mapped = -1, any = -1, types_read = 0, query_err = 0;
	union ibv_gid g, g_v2, g_mapped, g_any;
	memset(&g_v2, 0, sizeof g_v2);
	memset(&g_mapped, 0, sizeof g_mapped);
	memset(&g_any, 0, sizeof g_any);
	for (int i = 0; i < n && mapped < 0; i++) {
		char *path = rd_xasprintf("sys/class/infiniband/%s/ports/%u/gid_attrs/types/%d", p->device, p->port, i);
		struct rd_text t = {0};
		int rr = rd_read_attr(pr->src, path, &t);
		free(path);
		bool is_v2 = rr == 0 && t.data && strcmp(t.data, "RoCE v2") == 0;
		types_read += rr == 0;
		rd_text_free(&t);
		if (!is_v2)
			continue;
		memset(&g, 0, sizeof g);
		errno = 0;
		int qr = v->query_gid(pr->ctx, (uint8_t)p->port, i, &g);
		if (qr) {
			query_err = rd_verbs_err(qr);
			continue;
		}
		if (gid_zero(&g))
			continue;
		if (v2 < 0) {
			v2 = i;
			g_v2 = g;
		}
		if (gid_v4mapped(&g)) {
			mapped = i;
			g_mapped = g;
		}
	}
	int idx = -1;
	const char *why = "";
	if (mapped >= 0) {
		idx = mapped;
		pr->gid = g_mapped;
		p->gid_type = rd_xstrdup("RoCE v2");
		why = "the first RoCE v2 GID with an IPv4 address";
	} else if (v2 >= 0) {
		idx = v2;
		pr->gid = g_v2;
		p->gid_type = rd_xstrdup("RoCE v2");
		why = "the first RoCE v2 GID (no IPv4-mapped one)";
	} else {
		for (int i = 0; i < n; i++) {
			memset(&g, 0, sizeof g);
			errno = 0;
			int qr = v->query_gid(pr->ctx, (uint8_t)p->port, i, &g);
			if (qr) {
				query_err = rd_verbs_err(qr);
				continue;
			}
			if (!gid_zero(&g)) {
				any = i;
				g_any = g;
				break;
			}
		}
		if (any >= 0) {
			idx = any;
			pr->gid = g_any;
			p->gid_type = rd_xstrdup("RoCE v1");
			why = types_read ? "no RoCE v2 GID in gid_attrs/types: the first non-zero GID, RoCE v1"
					 : "gid_attrs/types unreadable: the first non-zero GID, taken as RoCE v1";
		}
	}
	if (idx < 0) {
		step_fail(s, query_err, "no usable GID on %s port %u (%d entries, all empty%s%s)", p->device, p->port, n,
			  query_err ? "; ibv_query_gid: " : "", query_err ? strerror(query_err) : "");
		step_set_detail(s, "RoCE needs a GID: the netdev under the port must be up with an address");
		step_fix(s, "rdma link show    # which netdev the device sits on");
		step_fix(s, "ip link set <netdev> up; ip addr add <address>/<prefix> dev <netdev>");
		step_time(s, t0);
		return false;
	}
	p->gid_index = idx;
	p->gid = gid_text(&pr->gid);
	step_set_detail(s, "gid[%d] %s (%s): %s", idx, p->gid, p->gid_type, why);
	step_time(s, t0);
	return true;
}

/* The memlock diagnosis of a failed registration (ENOMEM, EPERM, EAGAIN). */
static void memlock_detail(struct port_run *pr, struct rd_probe_step *s)
{
	struct rlimit rl;
	char soft[32] = "unknown", hard[32] = "unknown", want[32];
	uint64_t sv = 0;
	bool have_rl = getrlimit(RLIMIT_MEMLOCK, &rl) == 0;
	if (have_rl) {
		sv = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
		rd_size_words(sv, soft, sizeof soft);
		rd_size_words(rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_max, hard, sizeof hard);
	}
	rd_size_words(pr->size, want, sizeof want);
	struct rd_text st = {0};
	uint64_t capeff = 0;
	int cap = -1; /* unknown */
	if (rd_read_file(pr->src, "proc/self/status", RD_CAP_ATTR, &st) == 0 && rd_parse_capeff(st.data, &capeff) == 0)
		cap = rd_capeff_ipc_lock(capeff);
	rd_text_free(&st);
	const char *capw = cap == 1 ? "CAP_IPC_LOCK is in effect (it lifts the limit)"
			   : cap == 0 ? "CAP_IPC_LOCK is not in effect"
				      : "CAP_IPC_LOCK unknown (/proc/self/status unreadable)";
	bool limited = have_rl && sv != UINT64_MAX && sv < pr->size && cap != 1;
	if (limited || !have_rl) {
		step_set_detail(s, "RLIMIT_MEMLOCK is the likely cause: registering %s needs that much locked memory; "
				   "memlock limit soft %s, hard %s; %s",
				want, soft, hard, capw);
		step_fix(s, "ulimit -l unlimited    # in the shell that starts RDMA programs (the hard limit must allow it)");
		step_fix(s, "LimitMEMLOCK=infinity    # in the [Service] section of the service that starts jobs "
			    "(slurmd): systemctl edit slurmd, then systemctl restart slurmd");
		step_fix(s, "* - memlock unlimited    # in /etc/security/limits.conf, for logins (pam_limits)");
	} else {
		step_set_detail(s, "memlock limit soft %s, hard %s; %s: RLIMIT_MEMLOCK is not the cause here (out of "
				   "memory, or the device's limit on registered memory)",
				soft, hard, capw);
	}
}

/* Steps "write" and "verify". */
static bool write_and_verify(struct port_run *pr, struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mr *mr,
			     unsigned char *buf)
{
	struct rd_probe_port *p = pr->p;
	const struct rd_verbs *v = pr->v;
	uint64_t half = pr->size / 2, n = half < RD_PROBE_MAX_WRITE ? half : RD_PROBE_MAX_WRITE;
	at(pr->o, pr->r, p->device, p->port, "write", "ibv_post_send and ibv_poll_cq");
	struct rd_probe_step *s = port_step(p, "write");
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint32_t seed = (uint32_t)ts.tv_nsec ^ ((uint32_t)getpid() << 16) ^ (uint32_t)ts.tv_sec;
	seed |= 1; /* never a pattern of zeros */
	for (uint64_t i = 0; i < n; i++)
		buf[i] = (unsigned char)((i * 2654435761u >> 11) ^ (i >> 16) ^ (seed >> ((i & 3) * 8)));
	memset(buf + half, 0, n);

	struct ibv_sge sge = {.addr = (uint64_t)(uintptr_t)buf, .length = (uint32_t)n, .lkey = mr->lkey};
	struct ibv_send_wr wr, *bad = NULL;
	memset(&wr, 0, sizeof wr);
	wr.wr_id = 0x72646d61; /* "rdma" */
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(buf + half);
	wr.wr.rdma.rkey = mr->rkey;

	uint64_t t0 = now_us();
	int r = ibv_post_send(qp, &wr, &bad);
	if (r) {
		int e = rd_verbs_err(r);
		step_fail_errno(s, e, "ibv_post_send of the RDMA WRITE failed");
		step_time(s, t0);
		return false;
	}
	struct ibv_wc wc;
	memset(&wc, 0, sizeof wc);
	int got = 0;
	uint64_t deadline = t0 + (uint64_t)RD_PROBE_TIMEOUT_MS * 1000u;
	for (unsigned spins = 0;; spins++) {
		got = ibv_poll_cq(cq, 1, &wc);
		if (got != 0 || now_us() > deadline)
			break;
		if (spins > 1000) {
			struct timespec nap = {0, 20 * 1000};
			nanosleep(&nap, NULL);
		}
	}
	step_time(s, t0);
	if (got < 0) {
		step_fail(s, 0, "ibv_poll_cq failed (%d)", got);
		return false;
	}
	if (got == 0) {
		step_fail(s, ETIMEDOUT, "no completion after %d s", RD_PROBE_TIMEOUT_MS / 1000);
		step_set_detail(s, "RDMA WRITE of %llu bytes posted on qp %u to itself; nothing came back",
				(unsigned long long)n, qp->qp_num);
		if (pr->pa.link_layer == IBV_LINK_LAYER_ETHERNET)
			step_fix(s, "ip link show <netdev>    # the netdev under the port must be up (rdma link show)");
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		const char *sw = v->wc_status_str(wc.status);
		step_fail(s, 0, "completion with status %s (%d, vendor_err 0x%x)", sw ? sw : "?", (int)wc.status,
			  wc.vendor_err);
		step_set_detail(s, "RDMA WRITE of %llu bytes on qp %u to itself, completion after %llu us",
				(unsigned long long)n, qp->qp_num, (unsigned long long)s->usec);
		if (wc.status == IBV_WC_RETRY_EXC_ERR && pr->pa.link_layer == IBV_LINK_LAYER_ETHERNET)
			step_fix(s, "the packets did not come back: check the netdev is up and keeps the GID's address (rdma link show; ip addr)");
		return false;
	}
	p->bytes = n;
	step_set_detail(s, "RDMA WRITE of %llu bytes from offset 0 to offset %llu (rkey 0x%x), completion after %llu us",
			(unsigned long long)n, (unsigned long long)half, mr->rkey, (unsigned long long)s->usec);

	at(pr->o, pr->r, p->device, p->port, "verify", "the comparison of the written bytes");
	uint64_t t1 = now_us();
	s = port_step(p, "verify");
	if (memcmp(buf, buf + half, n) != 0) {
		uint64_t first = 0, bad_bytes = 0;
		for (uint64_t i = n; i-- > 0;)
			if (buf[i] != buf[half + i]) {
				first = i;
				bad_bytes++;
			}
		step_fail(s, 0, "the destination differs from the source: %llu of %llu bytes wrong, the first at offset %llu",
			  (unsigned long long)bad_bytes, (unsigned long long)n, (unsigned long long)first);
		step_time(s, t1);
		return false;
	}
	p->verified = true;
	step_set_detail(s, "%llu bytes at offset %llu equal the source", (unsigned long long)n, (unsigned long long)half);
	step_time(s, t1);
	return true;
}

static int modify(struct port_run *pr, struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, const char *name,
		  const char *to)
{
	static const char *const calls[] = {"ibv_modify_qp to INIT", "ibv_modify_qp to RTR", "ibv_modify_qp to RTS"};
	at(pr->o, pr->r, pr->p->device, pr->p->port, name,
	   calls[strcmp(to, "INIT") == 0 ? 0 : strcmp(to, "RTR") == 0 ? 1 : 2]);
	uint64_t t0 = now_us();
	struct rd_probe_step *s = port_step(pr->p, name);
	errno = 0;
	int r = pr->v->modify_qp(qp, a, mask);
	if (r) {
		int e = rd_verbs_err(r);
		step_fail_errno(s, e, "ibv_modify_qp to %s failed", to);
	}
	step_time(s, t0);
	return r ? -1 : 0;
}

/* The steps after "open" for one port of an open device; tears down what it created. */
static void probe_port(struct port_run *pr)
{
	struct rd_probe_port *p = pr->p;
	const struct rd_verbs *v = pr->v;
	struct ibv_pd *pd = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	void *buf = NULL;
	char words[32];
	struct rd_probe_step *s;

	/* query_port: the full struct, through the exported (compat-typed) symbol */
	at(pr->o, pr->r, p->device, p->port, "query_port", "ibv_query_port");
	uint64_t t0 = now_us();
	s = port_step(p, "query_port");
	int r = rd_verbs_query_port(v, pr->ctx, p->port, &pr->pa);
	if (r) {
		int e = rd_verbs_err(r);
		step_fail_errno(s, e, "ibv_query_port(%s, %u) failed", p->device, p->port);
		step_time(s, t0);
		return;
	}
	p->state = rd_xstrdup(port_state_name(pr->pa.state));
	p->link_layer = rd_xstrdup(pr->pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand");
	p->active_mtu = mtu_bytes(pr->pa.active_mtu);
	p->lid = pr->pa.lid;
	step_set_detail(s, "%s, %s, active_mtu %u (max %u), lid %u, %d GIDs", p->state, p->link_layer, p->active_mtu,
			mtu_bytes(pr->pa.max_mtu), p->lid, pr->pa.gid_tbl_len);
	step_time(s, t0);
	if (pr->pa.state != IBV_PORT_ACTIVE) {
		step_fail(s, 0, "port %u is %s (state from ibv_query_port): the probe needs an Active port", p->port,
			  p->state);
		step_fix(s, "rdma-doctor check --only ports.state    # why the port is not Active");
		return;
	}
	p->active = true;

	if (!choose_gid(pr))
		return;

	at(pr->o, pr->r, p->device, p->port, "alloc_pd", "ibv_alloc_pd");
	t0 = now_us();
	s = port_step(p, "alloc_pd");
	errno = 0;
	pd = v->alloc_pd(pr->ctx);
	if (!pd) {
		int e = rd_verbs_err(-1);
		step_fail_errno(s, e, "ibv_alloc_pd failed");
		step_time(s, t0);
		goto out;
	}
	step_set_detail(s, "protection domain 0x%x", pd->handle);
	step_time(s, t0);

	at(pr->o, pr->r, p->device, p->port, "reg_mr", "ibv_reg_mr");
	t0 = now_us();
	s = port_step(p, "reg_mr");
	rd_size_words(pr->size, words, sizeof words);
	long page = sysconf(_SC_PAGESIZE);
	int ar = posix_memalign(&buf, page > 0 ? (size_t)page : 4096u, (size_t)pr->size);
	if (ar) {
		buf = NULL;
		step_fail_errno(s, ar, "cannot allocate %s for the memory region", words);
		step_time(s, t0);
		goto out;
	}
	errno = 0;
	mr = v->reg_mr(pd, buf, (size_t)pr->size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr) {
		int e = rd_verbs_err(-1);
		step_fail_errno(s, e, "ibv_reg_mr of %s failed", words);
		if (e == ENOMEM || e == EPERM || e == EAGAIN)
			memlock_detail(pr, s);
		step_time(s, t0);
		goto out;
	}
	step_set_detail(s, "%s (%llu bytes), LOCAL_WRITE|REMOTE_WRITE, lkey 0x%x rkey 0x%x", words,
			(unsigned long long)pr->size, mr->lkey, mr->rkey);
	step_time(s, t0);

	at(pr->o, pr->r, p->device, p->port, "create_cq", "ibv_create_cq");
	t0 = now_us();
	s = port_step(p, "create_cq");
	errno = 0;
	cq = v->create_cq(pr->ctx, 16, NULL, NULL, 0);
	if (!cq) {
		int e = rd_verbs_err(-1);
		step_fail_errno(s, e, "ibv_create_cq(16) failed");
		step_time(s, t0);
		goto out;
	}
	step_set_detail(s, "%d entries", cq->cqe);
	step_time(s, t0);

	at(pr->o, pr->r, p->device, p->port, "create_qp", "ibv_create_qp");
	t0 = now_us();
	s = port_step(p, "create_qp");
	struct ibv_qp_init_attr ia;
	memset(&ia, 0, sizeof ia);
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 0;
	errno = 0;
	qp = v->create_qp(pd, &ia);
	if (!qp) {
		int e = rd_verbs_err(-1);
		step_fail_errno(s, e, "ibv_create_qp (RC) failed");
		step_time(s, t0);
		goto out;
	}
	step_set_detail(s, "RC qp %u", qp->qp_num);
	step_time(s, t0);

	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = (uint8_t)p->port;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	if (modify(pr, qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "init", "INIT") < 0)
		goto out;
	step_set_detail(&p->steps[p->nsteps - 1], "pkey_index 0, port %u, REMOTE_WRITE|LOCAL_WRITE", p->port);

	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = pr->pa.active_mtu;
	a.dest_qp_num = qp->qp_num;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = (uint8_t)p->port;
	a.ah_attr.sl = 0;
	a.ah_attr.src_path_bits = 0;
	if (pr->pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = pr->gid;
		a.ah_attr.grh.sgid_index = (uint8_t)p->gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.grh.traffic_class = 0;
		a.ah_attr.grh.flow_label = 0;
	} else {
		a.ah_attr.is_global = 0;
		a.ah_attr.dlid = (uint16_t)p->lid;
	}
	if (modify(pr, qp, &a,
		   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		   "rtr", "RTR") < 0) {
		if (pr->pa.link_layer == IBV_LINK_LAYER_ETHERNET)
			step_set_detail(&p->steps[p->nsteps - 1], "path_mtu %u, dest qp %u, GRH to gid[%d] %s", p->active_mtu,
					qp->qp_num, p->gid_index, p->gid);
		goto out;
	}
	if (pr->pa.link_layer == IBV_LINK_LAYER_ETHERNET)
		step_set_detail(&p->steps[p->nsteps - 1], "path_mtu %u, dest qp %u (itself), GRH to gid[%d] %s",
				p->active_mtu, qp->qp_num, p->gid_index, p->gid);
	else
		step_set_detail(&p->steps[p->nsteps - 1], "path_mtu %u, dest qp %u (itself), dlid %u", p->active_mtu,
				qp->qp_num, p->lid);

	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	if (modify(pr, qp, &a,
		   IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			   IBV_QP_MAX_QP_RD_ATOMIC,
		   "rts", "RTS") < 0)
		goto out;
	step_set_detail(&p->steps[p->nsteps - 1], "timeout 14, retry_cnt 7, rnr_retry 7");

	p->pass = write_and_verify(pr, qp, cq, mr, buf);

out:
	/* reverse order, whatever happened; a failed destroy is a failure of the port */
	at(pr->o, pr->r, p->device, p->port, "teardown", "ibv_destroy_qp, ibv_destroy_cq, ibv_dereg_mr, ibv_dealloc_pd");
	t0 = now_us();
	struct rd_buf failed = {0};
	int first_err = 0;
	if (qp && (r = v->destroy_qp(qp)) != 0) {
		first_err = first_err ? first_err : rd_verbs_err(r);
		rd_buf_printf(&failed, "%sibv_destroy_qp: %s", failed.len ? "; " : "", strerror(rd_verbs_err(r)));
	}
	if (cq && (r = v->destroy_cq(cq)) != 0) {
		first_err = first_err ? first_err : rd_verbs_err(r);
		rd_buf_printf(&failed, "%sibv_destroy_cq: %s", failed.len ? "; " : "", strerror(rd_verbs_err(r)));
	}
	if (mr && (r = v->dereg_mr(mr)) != 0) {
		first_err = first_err ? first_err : rd_verbs_err(r);
		rd_buf_printf(&failed, "%sibv_dereg_mr: %s", failed.len ? "; " : "", strerror(rd_verbs_err(r)));
	}
	if (pd && (r = v->dealloc_pd(pd)) != 0) {
		first_err = first_err ? first_err : rd_verbs_err(r);
		rd_buf_printf(&failed, "%sibv_dealloc_pd: %s", failed.len ? "; " : "", strerror(rd_verbs_err(r)));
	}
	free(buf);
	if (failed.len) {
		s = port_step(p, "teardown");
		step_fail(s, first_err, "%s", failed.data);
		step_time(s, t0);
		p->pass = false;
	}
	rd_buf_free(&failed);
}

/* ---- the run ------------------------------------------------------------------------------- */

static struct rd_probe_port *port_add(struct rd_probe_result *r, const char *dev, unsigned port)
{
	r->ports = rd_xrealloc(r->ports, (r->nports + 1) * sizeof *r->ports);
	struct rd_probe_port *p = &r->ports[r->nports++];
	memset(p, 0, sizeof *p);
	p->device = rd_xstrdup(dev);
	p->port = port;
	p->gid_index = -1;
	return p;
}

/* Copies the device-level "open" step into a port's steps. */
static void copy_step(struct rd_probe_port *p, const struct rd_probe_step *from)
{
	struct rd_probe_step *s = port_step(p, from->name);
	s->ok = from->ok;
	s->err = from->err;
	s->error = from->error ? rd_xstrdup(from->error) : NULL;
	s->detail = from->detail ? rd_xstrdup(from->detail) : NULL;
	s->usec = from->usec;
	for (size_t i = 0; i < from->fix.n; i++)
		rd_strv_push(&s->fix, from->fix.v[i]);
}

static void free_steps(struct rd_probe_step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(steps[i].error);
		free(steps[i].detail);
		rd_strv_free(&steps[i].fix);
	}
	free(steps);
}

/* One device: open it, then every selected port. */
static void probe_device(const struct rd_verbs *v, struct rd_source *src, struct ibv_device *dev, const char *name,
			 const struct rd_probe_opts *o, uint64_t size, struct rd_probe_result *r)
{
	struct rd_probe_step open = {.name = "open", .ok = true};
	at(o, r, name, 0, "open", "ibv_open_device and ibv_query_device");
	uint64_t t0 = now_us();
	errno = 0;
	struct ibv_context *ctx = v->open_device(dev);
	struct ibv_device_attr da;
	memset(&da, 0, sizeof da);
	if (!ctx) {
		int e = rd_verbs_err(-1);
		step_fail_errno(&open, e, "ibv_open_device(%s) failed", name);
		explain_open_failure(src, name, &open);
	} else {
		errno = 0;
		int q = v->query_device(ctx, &da);
		if (q) {
			int e = rd_verbs_err(q);
			step_fail_errno(&open, e, "ibv_query_device(%s) failed", name);
		} else {
			da.fw_ver[sizeof da.fw_ver - 1] = 0;
			step_set_detail(&open, "%s: %u port%s%s%s", name, da.phys_port_cnt, da.phys_port_cnt == 1 ? "" : "s",
					da.fw_ver[0] ? ", fw " : "", da.fw_ver);
		}
	}
	open.usec = now_us() - t0;

	if (!open.ok) {
		struct rd_probe_port *p = port_add(r, name, o->port);
		copy_step(p, &open);
	} else if (o->port && o->port > da.phys_port_cnt) {
		if (o->device) { /* named: say it; otherwise devices without that port are not selected */
			struct rd_probe_port *p = port_add(r, name, o->port);
			copy_step(p, &open);
			struct rd_probe_step *s = port_step(p, "query_port");
			step_fail(s, EINVAL, "%s has no port %u (it has %u)", name, o->port, da.phys_port_cnt);
		}
	} else {
		for (unsigned port = 1; port <= da.phys_port_cnt; port++) {
			if (o->port && port != o->port)
				continue;
			struct rd_probe_port *p = port_add(r, name, port);
			copy_step(p, &open);
			struct port_run pr = {.v = v, .o = o, .r = r, .src = src, .ctx = ctx, .size = size, .p = p};
			probe_port(&pr);
		}
	}
	if (ctx) {
		at(o, r, name, 0, "unload", "ibv_close_device");
		v->close_device(ctx);
	}
	free(open.error);
	free(open.detail);
	rd_strv_free(&open.fix);
}

/* The result's verdict and its first failure. */
static void conclude(const struct rd_probe_opts *o, struct rd_probe_result *r)
{
	const struct rd_probe_step *hs = rd_probe_failed_step(r->steps, r->nsteps);
	if (hs) {
		r->error = rd_xstrdup(hs->error);
		return;
	}
	size_t counted = 0;
	struct rd_buf down = {0};
	for (size_t i = 0; i < r->nports; i++) {
		struct rd_probe_port *p = &r->ports[i];
		const struct rd_probe_step *f = rd_probe_failed_step(p->steps, p->nsteps);
		bool not_active = p->state && !p->active;
		if (not_active) {
			rd_buf_printf(&down, "%s%s: %s", down.len ? "; " : "", p->device, f ? f->error : "not Active");
			continue;
		}
		counted++;
		if (!p->pass && !r->error && p->port)
			r->error = rd_xasprintf("%s port %u: %s", p->device, p->port, f ? f->error : "not verified");
		else if (!p->pass && !r->error)
			r->error = rd_xasprintf("%s: %s", p->device, f ? f->error : "not verified");
	}
	if (!counted && !r->error) {
		if (down.len)
			r->error = rd_buf_steal(&down);
		else if (o->port)
			r->error = rd_xasprintf("no RDMA device has a port %u", o->port);
		else
			r->error = rd_xstrdup("no RDMA port to probe");
	}
	rd_buf_free(&down);
	r->pass = r->error == NULL;
}

int rd_probe_run(struct rd_source *src, const struct rd_probe_opts *opts, struct rd_probe_result *r)
{
	memset(r, 0, sizeof *r);
	uint64_t size = opts->size ? opts->size : RD_PROBE_DEFAULT_SIZE;
	r->size = size;
	if (size < RD_PROBE_MIN_SIZE || size > RD_PROBE_MAX_SIZE || (uint64_t)(size_t)size != size) {
		char a[32], b[32];
		r->error = rd_xasprintf("the memory region must be %s to %s", rd_size_words(RD_PROBE_MIN_SIZE, a, sizeof a),
					rd_size_words(RD_PROBE_MAX_SIZE, b, sizeof b));
		return -EINVAL;
	}
	struct rd_verbs v;
	if (!verbs_load(&v, opts, r)) {
		conclude(opts, r);
		return -EIO;
	}

	at(opts, r, NULL, 0, "devices", "ibv_get_device_list");
	uint64_t t0 = now_us();
	struct rd_probe_step *s = step_add(&r->steps, &r->nsteps, "devices");
	int num = 0;
	errno = 0;
	struct ibv_device **list = v.get_device_list(&num);
	int list_err = list ? 0 : rd_verbs_err(-1);
	struct rd_strv names = {0};
	for (int i = 0; list && i < num && list[i]; i++) {
		const char *n = v.get_device_name(list[i]);
		rd_strv_push(&names, n ? n : "?");
	}
	if (names.n == 0) {
		step_fail(s, list_err, "no RDMA devices found by libibverbs");
		explain_no_devices(src, s);
		if (list_err) { /* ENOSYS: no uverbs ABI in sysfs */
			char *d = s->detail;
			s->detail = rd_xasprintf("ibv_get_device_list: %s (%s); %s", strerror(list_err), errno_name(list_err),
						 d ? d : "");
			free(d);
		}
	} else if (opts->device && !rd_strv_contains(&names, opts->device)) {
		char *all = join(&names);
		step_fail(s, ENODEV, "no RDMA device '%s' (libibverbs has %s)", opts->device, all);
		free(all);
	} else {
		char *all = join(&names);
		step_set_detail(s, "%zu device%s: %s", names.n, names.n == 1 ? "" : "s", all);
		free(all);
	}
	step_time(s, t0);

	if (r->steps[r->nsteps - 1].ok) {
		for (size_t i = 0; i < names.n; i++)
			if (!opts->device || strcmp(opts->device, names.v[i]) == 0)
				rd_strv_push(&r->devices, names.v[i]);
		for (size_t i = 0; i < names.n; i++)
			if (!opts->device || strcmp(opts->device, names.v[i]) == 0)
				probe_device(&v, src, list[i], names.v[i], opts, size, r);
	}

	at(opts, r, NULL, 0, "unload", "ibv_free_device_list and dlclose (the library's destructors)");
	if (list)
		v.free_device_list(list);
	rd_strv_free(&names);
	rd_verbs_unload(&v);
	conclude(opts, r);
	return r->pass ? 0 : -EIO;
}

void rd_probe_result_free(struct rd_probe_result *r)
{
	free(r->error);
	free(r->library);
	free_steps(r->steps, r->nsteps);
	for (size_t i = 0; i < r->nports; i++) {
		struct rd_probe_port *p = &r->ports[i];
		free(p->device);
		free(p->state);
		free(p->link_layer);
		free(p->gid);
		free(p->gid_type);
		free_steps(p->steps, p->nsteps);
	}
	free(r->ports);
	rd_strv_free(&r->devices);
	memset(r, 0, sizeof *r);
}
