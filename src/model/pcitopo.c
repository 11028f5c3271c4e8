/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The GPU <-> NIC PCIe topology and NCCL's path types: see pcitopo.h. */
#include "model/pcitopo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/parse.h"
#include "model/system.h"

static const char *const type_names[] = {"X", "PIX", "PXB", "PHB", "NODE", "SYS", "UNKNOWN"};

const char *rd_topo_type_name(enum rd_topo_type t)
{
	return t <= RD_TOPO_UNKNOWN ? type_names[t] : "UNKNOWN";
}

const char *rd_topo_type_words(enum rd_topo_type t)
{
	switch (t) {
	case RD_TOPO_X:
		return "Self";
	case RD_TOPO_PIX:
		return "Connection traversing at most a single PCIe bridge";
	case RD_TOPO_PXB:
		return "Connection traversing multiple PCIe bridges (without traversing "
		       "the PCIe Host Bridge)";
	case RD_TOPO_PHB:
		return "Connection traversing PCIe as well as a PCIe Host Bridge "
		       "(typically the CPU)";
	case RD_TOPO_NODE:
		return "Connection traversing PCIe as well as the interconnect between "
		       "PCIe Host Bridges within a NUMA node";
	case RD_TOPO_SYS:
		return "Connection traversing PCIe as well as the SMP interconnect between "
		       "NUMA nodes (e.g., QPI/UPI)";
	default:
		return "The path could not be read";
	}
}

/* NCCL's topoPathTypeStr (src/graph/topo.cc), indexed by PATH_*; ncclGetLevel
 * accepts 0..PATH_SYS. */
static const char *const nccl_names[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS"};

const char *rd_nccl_path_name(int nccl)
{
	return nccl >= 0 && nccl <= RD_NCCL_SYS ? nccl_names[nccl] : "UNKNOWN";
}

int rd_nccl_gdr_level_parse(const char *s)
{
	/* paths.cc levelsOldToNew: the numbers NCCL used before it named the levels
   */
	static const int old_to_new[] = {RD_NCCL_LOC, RD_NCCL_PIX, RD_NCCL_PXB, RD_NCCL_PHB, RD_NCCL_SYS, RD_NCCL_SYS};
	if (!s)
		return -1;
	for (int i = 0; i <= RD_NCCL_SYS; i++)
		if (strcmp(s, nccl_names[i]) == 0)
			return i;
	if (s[0] >= '0' && s[0] <= '9') {
		long old = strtol(s, NULL, 0);
		if (old < 0 || old > 5)
			old = 5;
		return old_to_new[old];
	}
	return -1;
}

int rd_pcitopo_gdr_level(const struct rd_pcitopo *t)
{
	/* NCCL's default is P2C with NCCL_NET_GDR_C2C=1, else PXB: no PCIe path has a
   * type between PXB and PHB, so on PCIe both are PXB */
	return t->gdr_level >= 0 ? t->gdr_level : RD_NCCL_PXB;
}

static unsigned hex_at(struct rd_source *src, const char *dir, const char *name)
{
	struct rd_text t;
	char *p = rd_path_join(dir, name);
	uint64_t v = 0;
	if (rd_read_attr(src, p, &t) == 0 && rd_parse_u64(t.data, 0, 0xffffffu, &v) < 0)
		v = 0;
	rd_text_free(&t);
	free(p);
	return (unsigned)v;
}

static int numa_of(const struct rd_attr *a)
{
	uint64_t v;
	if (!rd_attr_ok(a) || rd_parse_u64(a->value, 10, 4095, &v) < 0)
		return -1; /* "-1" too: no NUMA node */
	return (int)v;
}

static int numa_at(struct rd_source *src, const char *dir)
{
	struct rd_attr a = {0};
	char *p = rd_path_join(dir, "numa_node");
	rd_attr_read(src, p, &a);
	int n = numa_of(&a);
	rd_attr_free(&a);
	free(p);
	return n;
}

#define MAX_DEPTH 64

/* A bridge an earlier function's path has read already (GPUs and NICs below one switch share
 * their bridges), or NULL. */
static const struct rd_topo_node *node_read(const struct rd_pcitopo *t, const char *addr)
{
	for (size_t i = 0; i < t->ngpus + t->nnics; i++) {
		const struct rd_topo_fn *x = i < t->ngpus ? &t->gpus[i] : &t->nics[i - t->ngpus];
		for (size_t k = 1; k < x->nup; k++)
			if (strcmp(x->up[k].addr, addr) == 0)
				return &x->up[k];
	}
	return NULL;
}

/* The function's sysfs path: its root bus and the bridges above it, each bridge's ids read once
 * (t: the functions read before f). */
static void load_fn(struct rd_source *src, const struct rd_pcitopo *t, const char *addr, struct rd_topo_fn *f)
{
	f->addr = rd_xstrdup(addr);
	f->numa = f->top_numa = -1;
	char *dev = rd_xasprintf("sys/bus/pci/devices/%s", addr), *canon = NULL;
	char *p = rd_path_join(dev, "numa_node");
	rd_attr_read(src, p, &f->numa_node);
	free(p);
	p = rd_path_join(dev, "local_cpulist");
	rd_attr_read(src, p, &f->local_cpulist);
	free(p);
	f->numa = numa_of(&f->numa_node);
	int r = rd_resolve(src, dev, &canon);
	free(dev);
	if (r < 0) {
		f->err = -r;
		return;
	}
	char *comp[MAX_DEPTH + 1];
	size_t n = 0;
	char *copy = rd_xstrdup(canon);
	for (char *s = strtok(copy, "/"); s && n <= MAX_DEPTH; s = strtok(NULL, "/"))
		comp[n++] = s;
	size_t first = n; /* the first of the PCI addresses that end the path */
	while (first > 0 && rd_is_pci_addr(comp[first - 1]))
		first--;
	if (n > MAX_DEPTH || first == n || first == 0 || strncmp(comp[first - 1], "pci", 3) != 0 ||
	    strcmp(comp[n - 1], addr) != 0) {
		f->err = RD_EPARSE; /* not a function below a root bus of /sys/devices */
		free(copy);
		free(canon);
		return;
	}
	f->root = rd_xstrdup(comp[first - 1]);
	f->sysfs = rd_xasprintf("/%s", canon);
	f->nup = n - first;
	f->up = rd_xcalloc(f->nup, sizeof *f->up);
	struct rd_buf dir = {0};
	for (size_t i = n; i-- > first;) {
		struct rd_topo_node *u = &f->up[n - 1 - i];
		rd_buf_free(&dir);
		for (size_t j = 0; j <= i; j++)
			rd_buf_printf(&dir, "%s%s", j ? "/" : "", comp[j]);
		const struct rd_topo_node *seen = i + 1 < n ? node_read(t, comp[i]) : NULL;
		u->addr = rd_xstrdup(comp[i]);
		if (seen) {
			u->vendor = seen->vendor;
			u->device = seen->device;
			u->sub_vendor = seen->sub_vendor;
			u->sub_device = seen->sub_device;
		} else {
			u->vendor = hex_at(src, dir.data, "vendor");
			u->device = hex_at(src, dir.data, "device");
			u->sub_vendor = hex_at(src, dir.data, "subsystem_vendor");
			u->sub_device = hex_at(src, dir.data, "subsystem_device");
		}
		/* NCCL's topmost PCI node: the even position nearest the root (xml.cc), on
     * the CPU of its numa_node */
		if (n - 1 - i == ((f->nup - 1) & ~(size_t)1))
			f->top_numa = i == n - 1 ? f->numa : numa_at(src, dir.data);
	}
	rd_buf_free(&dir);
	free(copy);
	free(canon);
}

/* The bus of a PCI address ("0000:17" of "0000:17:01.0"), for the hierarchy
 * test. */
static size_t bus_len(const char *addr)
{
	const char *c = strrchr(addr, ':');
	return c ? (size_t)(c - addr) : strlen(addr);
}

/* Records the first bridge with functions of two buses directly below it. */
static void check_hierarchy(struct rd_pcitopo *t)
{
	struct edge {
		const char *parent, *child;
	} *e = NULL;
	size_t ne = 0;
	for (int pass = 0; pass < 2; pass++) {
		const struct rd_topo_fn *fns = pass ? t->nics : t->gpus;
		size_t nf = pass ? t->nnics : t->ngpus;
		for (size_t i = 0; i < nf; i++)
			for (size_t k = 0; k + 1 < fns[i].nup; k++) {
				e = rd_xrealloc(e, (ne + 1) * sizeof *e);
				e[ne].parent = fns[i].up[k + 1].addr;
				e[ne++].child = fns[i].up[k].addr;
			}
	}
	for (size_t i = 0; i < ne && !t->flat_bridge[0]; i++)
		for (size_t j = i + 1; j < ne; j++) {
			size_t li = bus_len(e[i].child), lj = bus_len(e[j].child);
			if (strcmp(e[i].parent, e[j].parent) == 0 &&
			    (li != lj || strncmp(e[i].child, e[j].child, li) != 0)) {
				snprintf(t->flat_bridge, sizeof t->flat_bridge, "%s", e[i].parent);
				snprintf(t->flat_a, sizeof t->flat_a, "%s", e[i].child);
				snprintf(t->flat_b, sizeof t->flat_b, "%s", e[j].child);
				break;
			}
		}
	free(e);
}

void rd_pcitopo_load(struct rd_source *src, const struct rd_host *h, const struct rd_pci_fn *pci, size_t npci,
		     int pci_err, const char *(*getenv_fn)(const char *), struct rd_pcitopo *t)
{
	memset(t, 0, sizeof *t);
	t->pci_err = pci_err;
	t->gdr_level = -1;
	const char *env = getenv_fn ? getenv_fn("NCCL_NET_GDR_LEVEL") : NULL;
	if (env) {
		snprintf(t->gdr_env, sizeof t->gdr_env, "%s", env[0] ? env : " ");
		t->gdr_level = rd_nccl_gdr_level_parse(env);
	}
	for (size_t i = 0; i < npci; i++) {
		unsigned cls = pci[i].class_code >> 8;
		if (pci[i].vendor != 0x10de || (cls != 0x0302 && cls != 0x0300))
			continue;
		t->gpus = rd_xrealloc(t->gpus, (t->ngpus + 1) * sizeof *t->gpus);
		struct rd_topo_fn *f = &t->gpus[t->ngpus];
		memset(f, 0, sizeof *f);
		load_fn(src, t, pci[i].addr, f);
		t->ngpus++;
		f->vendor = pci[i].vendor;
		f->device = pci[i].device;
		f->class_code = pci[i].class_code;
	}
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		if (!d->pci_addr || !rd_is_pci_addr(d->pci_addr))
			continue; /* soft devices (rxe, siw) have no PCIe path */
		t->nics = rd_xrealloc(t->nics, (t->nnics + 1) * sizeof *t->nics);
		struct rd_topo_fn *f = &t->nics[t->nnics];
		memset(f, 0, sizeof *f);
		load_fn(src, t, d->pci_addr, f);
		t->nnics++;
		f->name = rd_xstrdup(d->name);
		if (f->nup) {
			f->vendor = f->up[0].vendor;
			f->device = f->up[0].device;
		}
	}
	check_hierarchy(t);
}

static void fn_free(struct rd_topo_fn *f)
{
	free(f->addr);
	free(f->name);
	free(f->root);
	free(f->sysfs);
	rd_attr_free(&f->numa_node);
	rd_attr_free(&f->local_cpulist);
	for (size_t k = 0; k < f->nup; k++)
		free(f->up[k].addr);
	free(f->up);
}

void rd_pcitopo_free(struct rd_pcitopo *t)
{
	for (size_t i = 0; i < t->ngpus; i++)
		fn_free(&t->gpus[i]);
	for (size_t i = 0; i < t->nnics; i++)
		fn_free(&t->nics[i]);
	free(t->gpus);
	free(t->nics);
	memset(t, 0, sizeof *t);
}

/* getBcmGen (topo.cc): 4 or 5 for a Broadcom PEX switch node of that generation
 * at level (0 the top of its two levels, 1 the lower), 0 for anything else. */
static int bcm_gen(const struct rd_topo_node *u, unsigned level)
{
	if (u->vendor != 0x1000 || u->sub_vendor != 0x1000)
		return 0;
	if (u->device == 0xc010 && (u->sub_device & 0xf000) == 0xa000)
		return 4;
	if (u->device == 0xc030 && (u->sub_device & 0xf000) == level * 0x1000)
		return 5;
	return 0;
}

/* NCCL's PCI nodes above f: positions 2, 4, ... of f->up (xml.cc), without
 * those merged into the node above them (ncclTopoFlattenBcmSwitches).  Returns
 * their count. */
static size_t nccl_chain(const struct rd_topo_fn *f, size_t *pos, bool flatten)
{
	/* from the top down, as NCCL creates the nodes (parents first): a node is
   * merged into the one above unless that one was merged itself (NCCL marks a
   * switch it flattened, never merging it again, and a merged node's own
   * sub-switches stay) */
	bool merged[MAX_DEPTH + 1] = {false};
	for (size_t k = (f->nup - 1) & ~(size_t)1; k >= 2; k -= 2)
		merged[k] = flatten && k + 2 < f->nup && !merged[k + 2] && bcm_gen(&f->up[k + 2], 0) &&
			    bcm_gen(&f->up[k], 1) == bcm_gen(&f->up[k + 2], 0);
	size_t n = 0;
	for (size_t k = 2; k < f->nup; k += 2)
		if (!merged[k])
			pos[n++] = k;
	return n;
}

/* 0 when a and b hang directly below one PCI node of NCCL's tree, 1 when below
 * one node farther up, -1 when below none (the path goes through the CPU). */
static int lowest_common(const struct rd_topo_fn *a, const struct rd_topo_fn *b, bool flatten)
{
	size_t pa[MAX_DEPTH], pb[MAX_DEPTH];
	size_t na = nccl_chain(a, pa, flatten), nb = nccl_chain(b, pb, flatten);
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			if (strcmp(a->up[pa[i]].addr, b->up[pb[j]].addr) == 0)
				return i == 0 && j == 0 ? 0 : 1;
	return -1;
}

static void via_add(struct rd_topo_route *r, const char *s)
{
	if (r->nvia < RD_TOPO_MAX_VIA)
		r->via[r->nvia++] = s;
}

void rd_topo_route(const struct rd_topo_fn *a, const struct rd_topo_fn *b, struct rd_topo_route *r)
{
	memset(r, 0, sizeof *r);
	r->type = RD_TOPO_UNKNOWN;
	r->nccl = -1;
	if (a->err || b->err || !a->nup || !b->nup)
		return;
	if (strcmp(a->addr, b->addr) == 0) {
		r->type = RD_TOPO_X;
		r->nccl = RD_NCCL_LOC;
		return;
	}
	/* NCCL's tree: the lowest PCI node both hang below, with the Broadcom
   * switches flattened (NCCL's type) and without (nvidia-smi's PIX and PXB
   * count the switch levels as they are) */
	int common = lowest_common(a, b, true), seen = lowest_common(a, b, false);
	if (common >= 0) {
		r->nccl = common ? RD_NCCL_PXB : RD_NCCL_PIX;
		r->type = seen > 0 ? RD_TOPO_PXB : RD_TOPO_PIX;
	} else if (a->top_numa == b->top_numa) {
		r->type = strcmp(a->root, b->root) == 0 ? RD_TOPO_PHB : RD_TOPO_NODE;
		r->nccl = RD_NCCL_PHB;
	} else {
		r->type = RD_TOPO_SYS;
		r->nccl = RD_NCCL_SYS;
	}
	/* the sysfs path: up from a to the lowest bridge both are below, down to b */
	size_t ka = 0, kb = 0;
	bool meet = false;
	for (ka = 1; ka < a->nup && !meet; ka++)
		for (kb = 1; kb < b->nup; kb++)
			if (strcmp(a->up[ka].addr, b->up[kb].addr) == 0) {
				meet = true;
				break;
			}
	if (meet) {
		ka--;
		for (size_t k = 1; k <= ka; k++)
			via_add(r, a->up[k].addr);
		for (size_t k = kb; k-- > 1;)
			via_add(r, b->up[k].addr);
		return;
	}
	for (size_t k = 1; k < a->nup; k++)
		via_add(r, a->up[k].addr);
	via_add(r, a->root);
	if (a->top_numa != b->top_numa)
		via_add(r, "CPU");
	if (strcmp(a->root, b->root) != 0)
		via_add(r, b->root);
	for (size_t k = b->nup; k-- > 1;)
		via_add(r, b->up[k].addr);
}

char *rd_topo_route_text(const struct rd_topo_fn *a, const struct rd_topo_fn *b, const struct rd_topo_route *r)
{
	struct rd_buf t = {0};
	rd_buf_puts(&t, a->addr);
	bool past_cpu = false;
	for (size_t i = 0; i < r->nvia; i++) {
		const char *v = r->via[i];
		if (strcmp(v, "CPU") == 0) {
			rd_buf_puts(&t, " - the CPU interconnect");
			past_cpu = true;
		} else if (strncmp(v, "pci", 3) == 0) {
			int numa = past_cpu ? b->top_numa : a->top_numa;
			if (numa >= 0)
				rd_buf_printf(&t, " - %s (host bridge, NUMA node %d)", v, numa);
			else
				rd_buf_printf(&t, " - %s (host bridge)", v);
		} else {
			rd_buf_printf(&t, " - %s", v);
		}
	}
	rd_buf_printf(&t, " - %s", b->addr);
	return rd_buf_steal(&t);
}
