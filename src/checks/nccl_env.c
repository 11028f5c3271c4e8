/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* nccl.env: the RDMA ports NCCL's parameters leave it (model/ncclconf.h has NCCL's rules).  NCCL
 * opens every RDMA device, takes its ports that are ACTIVE and of InfiniBand or Ethernet link
 * layer, and keeps those NCCL_IB_HCA selects (src/transport/net_ib/init.cc); NCCL_IB_DISABLE, a
 * number read by strtoll (any non-zero value), turns InfiniBand and RoCE off and NCCL runs over
 * TCP sockets.  The ports of one NIC are fused into one device, which fails for ports of both link
 * layers ("Attempted to merge incompatible devices ... Try selecting NICs of only one link type
 * using NCCL_IB_HCA"). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/mft.h"
#include "model/ncclconf.h"
#include "model/parse.h"
#include "model/system.h"
#include "util/util.h"

static bool plain(const char *s, const char *extra)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	while (s[n] && strchr(extra, s[n]))
		n += 1 + strspn(s + n + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	return *s && !s[n];
}

static bool is_file(const char *from)
{
	return from && from[0] == '/';
}

static void evidence_param(const struct rd_check_ctx *ctx, struct rd_finding *f, const char *name, const char *value,
			   const char *from)
{
	const struct rd_nccl_environ *e = &ctx->sys->nccl_environ;
	rd_evidence_add(f, is_file(from) ? from : e->pid ? e->path : "environment", "%s=%s", name, value);
}

/* Sets name=value where it came from (a file: by sed; the environment: by export). */
static void fix_param(struct rd_finding *f, const char *name, const char *value, const char *from)
{
	if (is_file(from)) {
		if (plain(from, "/.-"))
			rd_fix_add(f, "sed -i 's/^%s=.*/%s=%s/' %s", name, name, value, from);
	} else {
		rd_fix_add(f, "export %s=%s    # in the job's environment (or its launcher's)", name, value);
	}
}

struct port_ref {
	const struct rd_device *d;
	const struct rd_port *p;
};

static bool usable_device(const struct rd_device *d)
{
	return d->node_type_v != 2 && d->node_type_v != 3; /* a switch's or router's own port is not NCCL's */
}

static bool link_ok(const struct rd_port *p)
{
	const char *ll = rd_attr_ok(&p->link_layer) ? p->link_layer.value : "InfiniBand";
	return strcmp(ll, "InfiniBand") == 0 || strcmp(ll, "Ethernet") == 0;
}

static const char *layer(const struct rd_port *p)
{
	return p->is_ib ? "InfiniBand" : "Ethernet";
}

/* "=dev,dev" of the devices of act's ports of their most common link layer (InfiniBand on a tie),
 * each name once; "" when none has a plain name. */
static void suggest(const struct port_ref *act, size_t nact, char *buf, size_t len)
{
	size_t ib = 0;
	for (size_t i = 0; i < nact; i++)
		ib += act[i].p->is_ib;
	bool want_ib = ib * 2 >= nact;
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < nact; i++) {
		if (act[i].p->is_ib != want_ib || !plain(act[i].d->name, ""))
			continue;
		bool seen = false;
		for (size_t k = 0; k < i; k++)
			seen |= act[k].d == act[i].d && act[k].p->is_ib == want_ib;
		if (seen)
			continue;
		int n = snprintf(buf + o, len - o, "%s%s", o ? "," : "=", act[i].d->name);
		if (n < 0 || (size_t)n >= len - o) {
			buf[o] = '\0';
			break;
		}
		o += (size_t)n;
	}
}

/* Appends ", " (unless buf is empty) and the formatted item to buf when the whole of it fits;
 * false when it does not (buf unchanged). */
static bool __attribute__((format(printf, 3, 4))) append(char *buf, size_t len, const char *fmt, ...)
{
	size_t o = strlen(buf);
	char item[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(item, sizeof item, fmt, ap);
	va_end(ap);
	int w = snprintf(buf + o, len - o, "%s%s", o ? ", " : "", item);
	if (w < 0 || (size_t)w >= len - o) {
		buf[o] = '\0';
		return false;
	}
	return true;
}

static void list_ports(char *buf, size_t len, const struct port_ref *r, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n && append(buf, len, "%s port %u", r[i].d->name, r[i].p->num); i++)
		;
}

static void judge_disable(struct rd_check_ctx *ctx)
{
	const char *from = NULL, *v = rd_nccl_param(ctx->sys, "NCCL_IB_DISABLE", &from);
	if (!v || !*v)
		return;
	errno = 0;
	long long n = strtoll(v, NULL, 0);
	if (errno || n == 0)
		return;
	struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "host",
					      "NCCL_IB_DISABLE=%s (%s): NCCL will not use InfiniBand or RoCE and runs "
					      "over TCP sockets", v, from);
	evidence_param(ctx, f, "NCCL_IB_DISABLE", v, from);
	if (is_file(from)) {
		if (plain(from, "/.-"))
			rd_fix_add(f, "sed -i '/^NCCL_IB_DISABLE=/d' %s", from);
	} else {
		rd_fix_add(f, "unset NCCL_IB_DISABLE    # in the job's environment (or its launcher's)");
	}
}

/* An entry without '=' that is a device's whole name and the prefix of others: NCCL takes them
 * all ("mlx5_1" selects mlx5_10 and mlx5_11 too). */
static void judge_prefixes(struct rd_check_ctx *ctx, const struct rd_nccl_list *l, const char *v, const char *from)
{
	const struct rd_host *h = ctx->host;
	if (l->exact || l->exclude)
		return;
	for (int i = 0; i < l->n; i++) {
		const char *ref = l->e[i].prefix;
		bool whole = false;
		char more[256] = "";
		size_t nmore = 0;
		for (size_t k = 0; k < h->ndevices; k++) {
			const char *name = h->devices[k].name;
			if (!usable_device(&h->devices[k]))
				continue;
			if (strcmp(name, ref) == 0)
				whole = true;
			else if (strncmp(name, ref, strlen(ref)) == 0) {
				append(more, sizeof more, "%s", name);
				nmore++;
			}
		}
		if (!whole || !nmore)
			continue;
		struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "host",
						      "NCCL_IB_HCA entry %s also selects %s: without a leading '=' NCCL "
						      "matches names by prefix", ref, more);
		evidence_param(ctx, f, "NCCL_IB_HCA", v, from);
		char want[512];
		snprintf(want, sizeof want, "=%s", v);
		if (plain(v, ",:"))
			fix_param(f, "NCCL_IB_HCA", want, from);
	}
}

/* One physical NIC: the same device, or PCI functions of one bus:device ("0000:17:00.0" and
 * "0000:17:00.1"). */
static bool same_nic(const struct rd_device *a, const struct rd_device *b)
{
	if (a == b)
		return true;
	if (!a->pci_addr || !b->pci_addr)
		return false;
	const char *da = strrchr(a->pci_addr, '.'), *db = strrchr(b->pci_addr, '.');
	return da && db && da - a->pci_addr == db - b->pci_addr &&
	       strncmp(a->pci_addr, b->pci_addr, (size_t)(da - a->pci_addr)) == 0;
}

/* NCCL fuses the ports of one NIC into one virtual device (NCCL_NET_MERGE_LEVEL, default PORT:
 * src/graph/topo.cc), and refuses ports of both link layers there. */
static void judge_fusion(struct rd_check_ctx *ctx, const struct port_ref *sel, size_t nsel, const char *v,
			 const char *from)
{
	const char *lfrom = NULL, *level = rd_nccl_param(ctx->sys, "NCCL_NET_MERGE_LEVEL", &lfrom);
	if (level && strcmp(level, "LOC") == 0)
		return;
	for (size_t i = 0; i < nsel; i++)
		for (size_t k = i + 1; k < nsel; k++) {
			if (sel[i].p->is_ib == sel[k].p->is_ib || !same_nic(sel[i].d, sel[k].d))
				continue;
			const struct port_ref *ib = sel[i].p->is_ib ? &sel[i] : &sel[k], *eth = ib == &sel[i] ? &sel[k] : &sel[i];
			struct rd_finding *f = rd_finding_add(
				ctx, RD_WARN, "host",
				"NCCL will fuse %s port %u (InfiniBand) and %s port %u (Ethernet), ports of one NIC, into "
				"one device and fail (\"Attempted to merge incompatible devices\"): select one link layer "
				"with NCCL_IB_HCA, or set NCCL_NET_MERGE_LEVEL=LOC",
				ib->d->name, ib->p->num, eth->d->name, eth->p->num);
			const struct port_ref *two[2] = {ib, eth};
			for (int t = 0; t < 2; t++) {
				char *path = rd_xasprintf("%s/link_layer", two[t]->p->dir);
				rd_evidence_add(f, path, "%s", layer(two[t]->p));
				free(path);
			}
			if (v)
				evidence_param(ctx, f, "NCCL_IB_HCA", v, from);
			if (plain(ib->d->name, "")) {
				char want[256];
				snprintf(want, sizeof want, "=%s:%u", ib->d->name, ib->p->num);
				if (v)
					fix_param(f, "NCCL_IB_HCA", want, from);
				else
					rd_fix_add(f, "echo 'NCCL_NET_MERGE_LEVEL=LOC' >> /etc/nccl.conf    # or name the ports NCCL "
						      "should use: NCCL_IB_HCA=%s,...", want);
			}
			return;
		}
}

/* NCCL_SOCKET_IFNAME: NCCL's bootstrap takes the selected interfaces that are running and have an
 * address, and cannot start without one. */
static void judge_socket(struct rd_check_ctx *ctx)
{
	const struct rd_nccl_ifs *ifs = &ctx->sys->nccl_ifs;
	const char *from = NULL, *v = rd_nccl_param(ctx->sys, "NCCL_SOCKET_IFNAME", &from);
	if (!ifs->loaded || !v)
		return;
	if (ifs->err) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "host",
						      "cannot list the network interfaces NCCL_SOCKET_IFNAME=%s chooses from", v);
		rd_evidence_add(f, "/sys/class/net", "<%s>", rd_strerror(ifs->err));
		return;
	}
	size_t running = 0, unknown = 0;
	for (size_t i = 0; i < ifs->n; i++) {
		const struct rd_nccl_if *nif = &ifs->v[i];
		const char *op = rd_attr_ok(&nif->operstate) ? nif->operstate.value : NULL;
		if (nif->flags_ok)
			running += (nif->flags_v & RD_IFF_RUNNING) != 0;
		else if (op) /* no flags (an older capture): "up", or "unknown" as virtual interfaces say */
			running += strcmp(op, "up") == 0 || strcmp(op, "unknown") == 0;
		else
			unknown++;
	}
	if (running)
		return;
	if (unknown) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "host",
						      "cannot tell whether the interfaces NCCL_SOCKET_IFNAME=%s selects are "
						      "running", v);
		for (size_t i = 0; i < ifs->n && i < 4; i++) {
			rd_evidence_attr(f, &ifs->v[i].flags);
			rd_evidence_attr(f, &ifs->v[i].operstate);
		}
		return;
	}
	/* what NCCL would take by itself: ib* first, then any but docker*, lo and virbr* (socket.cc) */
	const char *best = NULL;
	for (int pass = 0; pass < 2 && !best; pass++)
		for (size_t i = 0; i < ifs->all.n && !best; i++) {
			const char *n = ifs->all.v[i];
			bool ok = pass == 0 ? strncmp(n, "ib", 2) == 0 :
					      strncmp(n, "docker", 6) != 0 && strncmp(n, "lo", 2) != 0 && strncmp(n, "virbr", 5) != 0;
			if (ok && plain(n, "-."))
				best = n;
		}
	char names[512] = "";
	const struct rd_strv *list = &ifs->all;
	for (size_t i = 0; i < list->n && append(names, sizeof names, "%s", list->v[i]); i++)
		;
	struct rd_finding *f;
	if (!ifs->n)
		f = rd_finding_add(ctx, RD_WARN, "host",
				   "NCCL_SOCKET_IFNAME=%s (%s) selects no network interface of this host (%s%s): NCCL "
				   "cannot bootstrap its communicators", v, from,
				   list->n ? "its interfaces: " : "it has none", names);
	else
		f = rd_finding_add(ctx, RD_WARN, "host",
				   "NCCL_SOCKET_IFNAME=%s (%s) selects only interfaces that are not running (%s): NCCL "
				   "cannot bootstrap its communicators", v, from,
				   ifs->v[0].name);
	evidence_param(ctx, f, "NCCL_SOCKET_IFNAME", v, from);
	for (size_t i = 0; i < ifs->n && i < 4; i++) {
		rd_evidence_attr(f, &ifs->v[i].flags);
		rd_evidence_attr(f, &ifs->v[i].operstate);
	}
	if (ifs->n && plain(ifs->v[0].name, "-."))
		rd_fix_add(f, "ip link set dev %s up    # and check its cable or its switch port", ifs->v[0].name);
	else if (best) {
		char want[128];
		snprintf(want, sizeof want, "=%s", best);
		fix_param(f, "NCCL_SOCKET_IFNAME", want, from);
	}
}

/* NCCL_IB_PKEY: every port NCCL uses needs a P_Key at that index, or QP setup fails. */
static void judge_pkey(struct rd_check_ctx *ctx, const struct port_ref *sel, size_t nsel)
{
	const struct rd_nccl_pkeys *pk = &ctx->sys->nccl_pkeys;
	const char *from = NULL, *v = rd_nccl_param(ctx->sys, "NCCL_IB_PKEY", &from);
	if (!pk->loaded || !v)
		return;
	const struct rd_nccl_pkey_port *bad[8];
	size_t nbad = 0, all_bad = 0;
	int found = -2; /* the one index holding the value on every bad port, -1 none */
	for (size_t i = 0; i < nsel; i++)
		for (size_t k = 0; k < pk->n; k++) {
			const struct rd_nccl_pkey_port *pp = &pk->v[k];
			if (&ctx->host->devices[pp->dev] != sel[i].d || &sel[i].d->ports[pp->port] != sel[i].p || pp->valid)
				continue;
			if (nbad < 8)
				bad[nbad++] = pp;
			all_bad++;
			found = found == -2 || found == pp->found ? pp->found : -1;
		}
	if (!nbad)
		return;
	char ports[600] = "";
	for (size_t i = 0; i < nbad; i++) {
		const struct rd_device *d = &ctx->host->devices[bad[i]->dev];
		if (!append(ports, sizeof ports, "%s port %u", d->name, d->ports[bad[i]->port].num))
			break;
	}
	char where[96] = "";
	if (found >= 0)
		snprintf(where, sizeof where, "; P_Key %s is at index %d there", v, found);
	struct rd_finding *f = rd_finding_add(
		ctx, RD_WARN, "host",
		"NCCL_IB_PKEY=%s (%s) is a P_Key index (NCCL sets each QP's pkey_index to it), and %zu port%s NCCL "
		"uses ha%s no P_Key at index %u (%s%s): QP setup fails%s", v, from,
		all_bad, all_bad == 1 ? "" : "s", all_bad == 1 ? "s" : "ve", pk->index, ports, all_bad > nbad ? ", ..." : "",
		where);
	evidence_param(ctx, f, "NCCL_IB_PKEY", v, from);
	for (size_t i = 0; i < nbad && i < 4; i++)
		rd_evidence_attr(f, &bad[i]->entry);
	if (found >= 0) {
		char want[16];
		snprintf(want, sizeof want, "%d", found);
		fix_param(f, "NCCL_IB_PKEY", want, from);
	}
}

/* NCCL_TOPO_FILE that cannot be read: NCCL goes on with the topology it detects, which in a VM is
 * the hypervisor's made-up PCI tree, and says so only at NCCL_DEBUG=INFO. */
static void judge_topo_file(struct rd_check_ctx *ctx)
{
	int err = ctx->sys->nccl_topo_err;
	const char *from = NULL, *v = rd_nccl_param(ctx->sys, "NCCL_TOPO_FILE", &from);
	if (err <= 0 || err == EINVAL || !v) /* EINVAL: a relative path, read from the job's directory */
		return;
	struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "host",
					      "NCCL_TOPO_FILE=%s (%s) cannot be read (%s): NCCL ignores it, says so only "
					      "at NCCL_DEBUG=INFO, and uses the topology it detects",
					      v, from, rd_strerror(err));
	evidence_param(ctx, f, "NCCL_TOPO_FILE", v, from);
	rd_evidence_add(f, v, "<%s>", rd_strerror(err));
}

/* Where the trust or the PFC of a port was read, for the evidence. */
static const char *qos_source(const struct rd_qos_port *q, bool trust)
{
	const char *from = trust ? q->trust_from : q->pfc_from;
	return !from ? q->mlnx_qos_out.cmd : !strcmp(from, "sysfs") ? (trust ? q->sys_trust.path : q->sys_pfc.path)
	       : !strcmp(from, "dcb") ? q->dcb_out.cmd : q->mlnx_qos_out.cmd;
}

/* NCCL_IB_TC against the port's QoS: with trust dscp, the DSCP of NCCL's traffic class (or of the
 * OFED per-port class that overrides every QP's) picks a priority through the port's map; when PFC
 * is on for some priority but not that one, NCCL's traffic is the lossy class of a lossless
 * fabric.  Judged only where trust, PFC and the map are all known.  Under trust pcp the priority
 * is the SL's (judge_sl); a fabric with no PFC at all is roce.qos's. */
static void judge_tc(struct rd_check_ctx *ctx, const struct port_ref *sel, size_t nsel)
{
	const struct rd_mft *m = &ctx->sys->mft;
	rd_need(m->unloaded ? RD_LOAD_MFT : 0, RD_LOAD_MFT, "the ports' QoS (model/mft.h)");
	const char *from = NULL, *v = rd_nccl_param(ctx->sys, "NCCL_IB_TC", &from);
	unsigned env_tc = v ? (unsigned)(strtoll(v, NULL, 0) & 0xff) : 0; /* NCCL_PARAM(IbTc, "IB_TC", 0), a uint8_t */
	char ports[512] = "";
	const struct rd_qos_port *first = NULL;
	int first_tc = -1, first_prio = -1, over = -1;
	size_t bad = 0;
	for (size_t i = 0; i < nsel; i++) {
		if (sel[i].p->is_ib)
			continue;
		const struct rd_qos_port *q = NULL;
		for (size_t k = 0; k < m->nqos && !q; k++)
			if (!strcmp(m->qos[k].dev, sel[i].d->name) && m->qos[k].port == sel[i].p->num)
				q = &m->qos[k];
		if (!q || strcmp(q->qos.trust, "dscp") || !q->qos.pfc_ok || !q->map_from)
			continue;
		bool any = false;
		for (int k = 0; k < 8; k++)
			any |= q->qos.pfc[k] == 1;
		int o = rd_attr_ok(&q->tclass) ? rd_parse_tclass(q->tclass.value) : -1;
		if (!any || o == -2)
			continue;
		int tc = o >= 0 ? o : (int)env_tc, prio = q->dscp2prio[tc >> 2];
		if (prio >= 0 && q->qos.pfc[prio] == 1)
			continue;
		if (!bad++) {
			first = q, first_tc = tc, first_prio = prio, over = o;
		}
		append(ports, sizeof ports, "%s port %u", q->dev, q->port);
	}
	if (!bad)
		return;
	const struct rd_qos_port *q = first;
	int want = -1, dscp = -1;
	for (int k = 0; k < 8 && want < 0; k++)
		if (q->qos.pfc[k] == 1)
			want = k;
	if (q->dscp2prio[26] == want) /* the DSCP of NVIDIA's RoCE guides (traffic class 106) */
		dscp = 26;
	for (int d = 1; d < 64 && dscp < 0; d++) /* else the lowest of that priority */
		if (q->dscp2prio[d] == want)
			dscp = d;
	char pfc[32] = "";
	for (int k = 0, n = 0; k < 8; k++)
		if (q->qos.pfc[k] == 1)
			n += snprintf(pfc + n, sizeof pfc - (size_t)n, "%s%d", n ? "," : "", k);
	char src[160];
	if (over >= 0)
		snprintf(src, sizeof src, "the port's tc/%u/traffic_class, which overrides NCCL_IB_TC", q->port);
	else if (v)
		snprintf(src, sizeof src, "NCCL_IB_TC=%s, %s", v, from);
	else
		snprintf(src, sizeof src, "NCCL_IB_TC unset: NCCL's default 0");
	struct rd_finding *f = rd_finding_add(
		ctx, RD_WARN, "host",
		"NCCL's RDMA traffic on %s has traffic class %d (%s), DSCP %d, which the port (trust dscp) puts on "
		"priority %d, where PFC is off; PFC is on priority %s: under congestion that traffic is dropped, not "
		"paused (RoCE retransmits, NCCL slows down or times out)",
		ports, first_tc, src, first_tc >> 2, first_prio, pfc);
	if (over >= 0)
		rd_evidence_attr(f, &q->tclass);
	else if (v)
		evidence_param(ctx, f, "NCCL_IB_TC", v, from);
	else
		rd_evidence_add(f, "environment", "NCCL_IB_TC unset");
	if (!strcmp(q->map_from, "sysfs"))
		rd_evidence_attr(f, &q->sys_map);
	else
		rd_evidence_add(f, q->mlnx_qos_out.cmd, "dscp2prio: DSCP %d -> priority %d", first_tc >> 2, first_prio);
	rd_evidence_add(f, qos_source(q, false), "PFC enabled on priority %s", pfc);
	if (dscp < 0)
		return;
	char tcs[16];
	snprintf(tcs, sizeof tcs, "%d", dscp * 4 + 2); /* DSCP, and ECT(0) in the ECN bits: DCQCN marks it */
	if (over >= 0)
		rd_fix_add(f, "echo %s > /sys/class/infiniband/%s/tc/%u/traffic_class    # each such port: DSCP %d, priority %d "
			      "(and where it is set at boot)", tcs, q->dev, q->port, dscp, want);
	else
		fix_param(f, "NCCL_IB_TC", tcs, from);
}

/* NCCL_IB_SL on RoCE under trust pcp: NCCL sets every QP's service level to it (ah_attr.sl, a
 * uint8_t; NCCL_PARAM(IbSl, "IB_SL", 0), unset or -1 is 0), and on RoCE mlx5 sends on the
 * priority of its low 3 bits (mlx5_set_path: dci_cfi_prio_sl = (sl & 0x7) << 4), the PCP of the
 * VLAN tag; with trust pcp the switch and the peer classify by that PCP.  PFC on some priority but
 * not that one: NCCL's traffic is the lossy class.  InfiniBand's SL goes through the SM's SL2VL
 * tables, not judged on the host. */
static void judge_sl(struct rd_check_ctx *ctx, const struct port_ref *sel, size_t nsel)
{
	const struct rd_mft *m = &ctx->sys->mft;
	rd_need(m->unloaded ? RD_LOAD_MFT : 0, RD_LOAD_MFT, "the ports' QoS (model/mft.h)");
	const char *from = NULL, *v = rd_nccl_param(ctx->sys, "NCCL_IB_SL", &from);
	long long sl_v = v ? strtoll(v, NULL, 0) : 0; /* NCCL's strtoll: "abc" is 0 */
	unsigned sl = sl_v < 0 ? 0 : (unsigned)(sl_v & 0xff), prio = sl & 7;
	char ports[512] = "";
	const struct rd_qos_port *first = NULL;
	size_t bad = 0;
	for (size_t i = 0; i < nsel; i++) {
		if (sel[i].p->is_ib)
			continue;
		const struct rd_qos_port *q = NULL;
		for (size_t k = 0; k < m->nqos && !q; k++)
			if (!strcmp(m->qos[k].dev, sel[i].d->name) && m->qos[k].port == sel[i].p->num)
				q = &m->qos[k];
		if (!q || strcmp(q->qos.trust, "pcp") || !q->qos.pfc_ok || q->qos.pfc[prio] == 1)
			continue;
		bool any = false;
		for (int k = 0; k < 8; k++)
			any |= q->qos.pfc[k] == 1;
		if (!any)
			continue;
		if (!bad++)
			first = q;
		append(ports, sizeof ports, "%s port %u", q->dev, q->port);
	}
	if (!bad)
		return;
	const struct rd_qos_port *q = first;
	int want = -1;
	char pfc[32] = "";
	for (int k = 0, n = 0; k < 8; k++)
		if (q->qos.pfc[k] == 1) {
			if (want < 0)
				want = k;
			n += snprintf(pfc + n, sizeof pfc - (size_t)n, "%s%d", n ? "," : "", k);
		}
	char src[160];
	if (v)
		snprintf(src, sizeof src, "NCCL_IB_SL=%s, %s", v, from);
	else
		snprintf(src, sizeof src, "NCCL_IB_SL unset: NCCL's default 0");
	struct rd_finding *f = rd_finding_add(
		ctx, RD_WARN, "host",
		"NCCL's RDMA traffic on %s has service level %u (%s), which RoCE sends on priority %u (the VLAN tag's "
		"PCP); the port trusts the PCP (trust pcp) and PFC is off on priority %u, on for %s: under congestion "
		"that traffic is dropped, not paused (RoCE retransmits, NCCL slows down or times out)",
		ports, sl, src, prio, prio, pfc);
	if (v)
		evidence_param(ctx, f, "NCCL_IB_SL", v, from);
	else
		rd_evidence_add(f, "environment", "NCCL_IB_SL unset");
	rd_evidence_add(f, qos_source(q, true), "Priority trust state: pcp");
	rd_evidence_add(f, qos_source(q, false), "PFC enabled on priority %s", pfc);
	char sls[16];
	snprintf(sls, sizeof sls, "%d", want);
	fix_param(f, "NCCL_IB_SL", sls, from);
	rd_fix_add(f, "# the priority travels in the VLAN tag: NCCL's GID must be on a VLAN interface (untagged frames "
		      "carry none, and the switch and the peer see priority 0), or the ports trust dscp and NCCL_IB_TC "
		      "picks the priority");
}

void rd_check_nccl_env(struct rd_check_ctx *ctx)
{
	if (rd_nccl_environ_unread(ctx))
		return;
	const struct rd_host *h = ctx->host;
	judge_disable(ctx);
	judge_socket(ctx);
	judge_topo_file(ctx);
	const char *from = NULL, *v = rd_nccl_param(ctx->sys, "NCCL_IB_HCA", &from);
	struct rd_nccl_list l;
	rd_nccl_list_parse(v, &l);

	size_t nports = 0;
	for (size_t i = 0; i < h->ndevices; i++)
		nports += h->devices[i].nports;
	struct port_ref *act = rd_xcalloc(nports + 1, sizeof *act), *sel = rd_xcalloc(nports + 1, sizeof *sel);
	size_t nact = 0, nsel = 0, nnamed = 0, ndown = 0;
	struct port_ref down[8]; /* selected, not ACTIVE: ports.state reports each; NCCL leaves them out */
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		if (!usable_device(d))
			continue;
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			if (!link_ok(p))
				continue;
			bool active = p->state_v == RD_PORT_ACTIVE;
			if (active)
				act[nact++] = (struct port_ref){d, p};
			if (!l.set || !rd_nccl_list_selects(&l, d->name, (int)p->num))
				continue;
			nnamed++;
			if (active) {
				sel[nsel++] = (struct port_ref){d, p};
				continue;
			}
			if (ndown < 8)
				down[ndown] = (struct port_ref){d, p};
			ndown++;
		}
	}
	if (!l.set) {
		for (size_t i = 0; i < nact; i++)
			sel[i] = act[i];
		nsel = nact;
	}

	char ports[1024];
	if (l.set && nnamed == 0) {
		char devs[512] = "";
		for (size_t i = 0; i < h->ndevices && append(devs, sizeof devs, "%s", h->devices[i].name); i++)
			;
		struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "host",
						      "NCCL_IB_HCA=%s (%s) selects no RDMA port of this host (%s%s): NCCL "
						      "will find no InfiniBand or RoCE device and run over TCP sockets", v,
						      from, h->ndevices ? "its devices: " : "it has no RDMA device",
						      devs);
		evidence_param(ctx, f, "NCCL_IB_HCA", v, from);
		char want[512];
		suggest(act, nact, want, sizeof want);
		if (*want)
			fix_param(f, "NCCL_IB_HCA", want, from);
	} else if (l.set && nsel == 0) {
		list_ports(ports, sizeof ports, down, ndown < 8 ? ndown : 8);
		struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "host",
						      "NCCL_IB_HCA=%s (%s) selects only ports that are not ACTIVE (%s%s): NCCL "
						      "will find no InfiniBand or RoCE device and run over TCP sockets", v,
						      from, ports, ndown > 8 ? ", ..." : "");
		evidence_param(ctx, f, "NCCL_IB_HCA", v, from);
		for (size_t i = 0; i < ndown && i < 8; i++)
			rd_evidence_attr(f, &down[i].p->state);
		judge_prefixes(ctx, &l, v, from);
	} else if (l.set) {
		judge_prefixes(ctx, &l, v, from);
	}

	judge_fusion(ctx, sel, nsel, v, from);
	judge_pkey(ctx, sel, nsel);
	judge_tc(ctx, sel, nsel);
	judge_sl(ctx, sel, nsel);

	if (rd_check_quiet(ctx)) {
		if (!nsel && !l.set) {
			rd_finding_add(ctx, RD_SKIP, "host", "no ACTIVE RDMA port for NCCL to use (ports.state says why)");
		} else if (nsel) {
			list_ports(ports, sizeof ports, sel, nsel);
			char left[400] = "";
			if (ndown) {
				char dl[300];
				list_ports(dl, sizeof dl, down, ndown < 8 ? ndown : 8);
				snprintf(left, sizeof left, "; it also names %s, not ACTIVE (ports.state), which NCCL leaves out", dl);
			}
			struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host", "NCCL will use %zu RDMA port%s: %s%s%s%s%s",
							      nsel, nsel == 1 ? "" : "s", ports, l.set ? " (NCCL_IB_HCA=" : "",
							      l.set ? v : "", l.set ? ")" : "", left);
			if (l.set)
				evidence_param(ctx, f, "NCCL_IB_HCA", v, from);
		}
	}
	free(act);
	free(sel);
}
