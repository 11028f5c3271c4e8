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

const struct rd_topo_node *rd_pcitopo_bridge(const struct rd_pcitopo *t, const char *addr)
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
	if (r < 0) {
		free(dev);
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
		free(dev);
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
		/* a bridge an earlier function's path has read already (GPUs and NICs below one
		 * switch share their bridges) */
		const struct rd_topo_node *seen = i + 1 < n ? rd_pcitopo_bridge(t, comp[i]) : NULL;
		u->addr = rd_xstrdup(comp[i]);
		if (seen) {
			u->vendor = seen->vendor;
			u->device = seen->device;
			u->sub_vendor = seen->sub_vendor;
			u->sub_device = seen->sub_device;
		} else {
			/* the function's own ids by the path the PCI inventory (model/system.c) read
			 * them at: the load's memo answers them without a second read */
			const char *at = i == n - 1 ? dev : dir.data;
			u->vendor = hex_at(src, at, "vendor");
			u->device = hex_at(src, at, "device");
			u->sub_vendor = hex_at(src, at, "subsystem_vendor");
			u->sub_device = hex_at(src, at, "subsystem_device");
		}
		/* NCCL's topmost PCI node: the even position nearest the root (xml.cc), on
     * the CPU of its numa_node */
		if (n - 1 - i == ((f->nup - 1) & ~(size_t)1))
			f->top_numa = i == n - 1 ? f->numa : numa_at(src, dir.data);
	}
	rd_buf_free(&dir);
	free(copy);
	free(canon);
	free(dev);
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

/* The ACS of bridge u: its config space, else t's lspci -vvv. */
static void read_acs(struct rd_source *src, struct rd_pcitopo *t, struct rd_topo_node *u)
{
	struct rd_text c = {0};
	char *path = rd_xasprintf("sys/bus/pci/devices/%s/config", u->addr);
	int r = rd_read_prefix(src, path, 4096, &c);
	bool got = r == 0 && c.data;
	char cwhy[200];
	if (got) {
		rd_acs_from_config((const unsigned char *)c.data, c.len, &u->acs);
		snprintf(cwhy, sizeof cwhy, "%.190s", u->acs.why);
	} else {
		snprintf(cwhy, sizeof cwhy, "its config space cannot be read: %s", rd_strerror(r < 0 ? -r : EIO));
	}
	rd_text_free(&c);
	free(path);
	if (got && u->acs.state != RD_ACS_UNKNOWN)
		return;
	if (t->lspci.data) {
		struct rd_acs l;
		rd_acs_from_lspci(t->lspci.data, t->lspci.len, u->addr, &l);
		if (l.state != RD_ACS_UNKNOWN) {
			u->acs = l;
			return;
		}
		u->acs.state = RD_ACS_UNKNOWN;
		u->acs.from = "config space";
		snprintf(u->acs.why, sizeof u->acs.why, "%.150s; lspci -vvv: %.150s", cwhy, l.why);
		return;
	}
	u->acs.state = RD_ACS_UNKNOWN;
	u->acs.from = "config space";
	if (t->lspci.err == RD_ENOTCAPTURED)
		snprintf(u->acs.why, sizeof u->acs.why, "%.150s, and no lspci -vvv was captured", cwhy);
	else
		snprintf(u->acs.why, sizeof u->acs.why, "%.150s; lspci -vvv: %.100s", cwhy, rd_strerror(t->lspci.err));
}

/* The IOMMU group of x and its domain type. */
static void load_iommu_group(struct rd_source *src, struct rd_topo_fn *x)
{
	char *link = rd_xasprintf("sys/bus/pci/devices/%s/iommu_group", x->addr), *target = NULL;
	int r = rd_read_link(src, link, &target);
	free(link);
	if (r < 0) {
		x->iommu_group_err = -r;
		return;
	}
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	char *end;
	unsigned long n = strtoul(base, &end, 10);
	if (!*base || *end || n > 1000000) {
		x->iommu_group_err = RD_EPARSE;
		free(target);
		return;
	}
	x->iommu_group = rd_xasprintf("%lu", n);
	free(target);
	char *type = rd_xasprintf("sys/kernel/iommu_groups/%s/type", x->iommu_group);
	rd_attr_read(src, type, &x->iommu_type);
	free(type);
}

const char *const rd_nccl_peermem_files[3] = {"sys/kernel/mm/memory_peers/nv_mem/version",
					       "sys/kernel/mm/memory_peers/nv_mem_nc/version",
					       "sys/module/nvidia_peermem/version"};

void rd_kconfig_value(const char *text, size_t len, const char *name, char out[4])
{
	out[0] = '\0';
	size_t nl = strlen(name);
	for (const char *p = text, *end = text + len; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((e ? e : end) - p);
		if (n > nl + 1 && memcmp(p, name, nl) == 0 && p[nl] == '=') {
			size_t v = n - nl - 1;
			snprintf(out, 4, "%.*s", (int)(v < 3 ? v : 3), p + nl + 1);
			return;
		}
		if (n == nl + 13 && memcmp(p, "# ", 2) == 0 && memcmp(p + 2, name, nl) == 0 &&
		    memcmp(p + 2 + nl, " is not set", 11) == 0) {
			snprintf(out, 4, "n");
			return;
		}
		p = e ? e + 1 : end;
	}
}

/* What NCCL's choice between DMA-BUF, nvidia_peermem and neither depends on. */
static void load_mode(struct rd_source *src, const struct rd_host *h, const char *(*getenv_fn)(const char *),
		      struct rd_pcitopo *t)
{
	struct rd_text v = {0};
	t->nv_version.path = rd_xstrdup("/proc/driver/nvidia/version");
	int r = rd_read_prefix(src, "proc/driver/nvidia/version", 4096, &v);
	if (r == 0 && v.data) {
		size_t n = strcspn(v.data, "\n");
		t->nv_version.value = rd_xasprintf("%.*s", (int)n, v.data);
		t->nv_open = strstr(t->nv_version.value, "NVIDIA UNIX Open Kernel Module") != NULL;
		/* the version: the first word of digits and dots after "Kernel Module" */
		const char *k = strstr(t->nv_version.value, "Kernel Module");
		for (const char *w = k; w && *w; w++)
			if (*w >= '0' && *w <= '9' && w[-1] == ' ' && strchr(w, '.') &&
			    (size_t)(strchr(w, '.') - w) == strspn(w, "0123456789")) {
				t->nv_major = (unsigned)strtoul(w, NULL, 10);
				break;
			}
	} else {
		t->nv_version.err = r < 0 ? -r : EIO;
	}
	rd_text_free(&v);
	if (rd_attr_ok(&h->osrelease) && !strchr(h->osrelease.value, '/')) {
		t->kconfig_path = rd_xasprintf("/boot/config-%s", h->osrelease.value);
		struct rd_text c = {0};
		r = rd_read_file(src, t->kconfig_path, RD_CAP_FILE, &c);
		if (r == -ENOENT) { /* no /boot/config: the running kernel's own, CONFIG_IKCONFIG_PROC */
			struct rd_text z = {0};
			int zr = rd_read_file(src, "proc/config.gz", 4 << 20, &z);
			if (zr == 0) {
				free(t->kconfig_path);
				t->kconfig_path = rd_xstrdup("/proc/config.gz");
				r = rd_gunzip(z.data, z.len, RD_CAP_FILE, &c, t->kconfig_why, sizeof t->kconfig_why);
			}
			rd_text_free(&z);
		}
		if (r == 0 && c.data) {
			rd_kconfig_value(c.data, c.len, "CONFIG_DMA_SHARED_BUFFER", t->kc_dmabuf);
			rd_kconfig_value(c.data, c.len, "CONFIG_PCI_P2PDMA", t->kc_p2pdma);
		} else {
			t->kconfig_err = r < 0 ? -r : EIO;
		}
		rd_text_free(&c);
	} else {
		t->kconfig_err = rd_attr_ok(&h->osrelease) ? RD_EPARSE : h->osrelease.err;
	}
	t->proc_captured = rd_exists(src, "proc/sys/kernel");
	for (size_t i = 0; i < 3; i++)
		t->peermem_file[i] = rd_exists(src, rd_nccl_peermem_files[i]);
	/* NCCL_PARAM(DmaBufEnable, "DMABUF_ENABLE", 1): an integer (strtoll, base 0); else the default */
	t->dmabuf_enable = 1;
	const char *env = getenv_fn ? getenv_fn("NCCL_DMABUF_ENABLE") : NULL;
	if (env) {
		snprintf(t->dmabuf_env, sizeof t->dmabuf_env, "%s", env[0] ? env : " ");
		char *end;
		errno = 0;
		long long x = strtoll(env, &end, 0);
		if (!errno && end != env)
			t->dmabuf_enable = x != 0;
	}
}

/* The ACS of every bridge on a GPU's or NIC's path, each read once; whether this is a VM; the
 * IOMMU groups of the GPUs and NICs. */
static void load_acs(struct rd_source *src, struct rd_pcitopo *t)
{
	t->acs_loaded = true;
	/* lspci -vvv: read from a root's capture; on the live host run only where device commands
	 * are allowed (snapshot, which so captures it for a later root, and check --mft), never
	 * otherwise (RD_ENOTCAPTURED) */
	static const char *const argv[] = {"lspci", "-D", "-vvv", NULL};
	rd_run_device_command(src, "lspci-vvv", argv, 10000, &t->lspci);
	if (!t->lspci.data && !t->lspci.err)
		t->lspci.err = RD_EPARSE;
	rd_guest_load(src, &t->guest);
	rd_attr_read(src, "proc/cmdline", &t->cmdline);
	struct rd_strv groups = {0};
	int r = rd_list_dir(src, "sys/kernel/iommu_groups", &groups);
	t->iommu_groups_err = r < 0 ? -r : 0;
	t->niommu_groups = groups.n;
	rd_strv_free(&groups);
	t->iommu_absence_real = (r == 0 && !t->niommu_groups) || (r == -ENOENT && rd_exists(src, "proc/sys/kernel"));
	for (size_t i = 0; i < t->ngpus + t->nnics; i++)
		load_iommu_group(src, i < t->ngpus ? &t->gpus[i] : &t->nics[i - t->ngpus]);
	for (size_t i = 0; i < t->ngpus + t->nnics; i++) {
		struct rd_topo_fn *x = i < t->ngpus ? &t->gpus[i] : &t->nics[i - t->ngpus];
		for (size_t k = 1; k < x->nup; k++) {
			struct rd_topo_node *u = &x->up[k];
			const struct rd_topo_node *seen = rd_pcitopo_bridge(t, u->addr);
			if (seen && seen != u && seen->acs.state != RD_ACS_UNREAD)
				u->acs = seen->acs;
			else
				read_acs(src, t, u);
		}
	}
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
	if (t->ngpus && t->nnics && !t->flat_bridge[0]) {
		load_acs(src, t); /* what the gdr.* checks judge: nothing without a GPU-NIC path */
		load_mode(src, h, getenv_fn, t);
	}
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
	free(f->iommu_group);
	rd_attr_free(&f->iommu_type);
}

void rd_pcitopo_free(struct rd_pcitopo *t)
{
	for (size_t i = 0; i < t->ngpus; i++)
		fn_free(&t->gpus[i]);
	for (size_t i = 0; i < t->nnics; i++)
		fn_free(&t->nics[i]);
	free(t->gpus);
	free(t->nics);
	rd_text_free(&t->lspci);
	rd_guest_free(&t->guest);
	rd_attr_free(&t->cmdline);
	rd_attr_free(&t->nv_version);
	free(t->kconfig_path);
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

const struct rd_topo_fn *rd_pcitopo_nearest(const struct rd_pcitopo *t, const struct rd_topo_fn *g,
					    struct rd_topo_route *br, size_t *unreadable)
{
	const struct rd_topo_fn *best = NULL;
	struct rd_topo_route r;
	*unreadable = 0;
	memset(br, 0, sizeof *br);
	for (size_t i = 0; i < t->nnics; i++) {
		rd_topo_route(g, &t->nics[i], &r);
		if (r.nccl < 0) {
			(*unreadable)++;
			continue;
		}
		if (!best || r.nccl < br->nccl || (r.nccl == br->nccl && r.type < br->type)) {
			best = &t->nics[i];
			*br = r;
		}
	}
	return best;
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


int rd_pcitopo_dmabuf(const struct rd_host *h, const struct rd_pcitopo *t, struct rd_buf *why, struct rd_buf *yes)
{
	unsigned major = 0, minor = 0;
	bool kver = rd_attr_ok(&h->osrelease) && sscanf(h->osrelease.value, "%u.%u", &major, &minor) == 2;
	if (!t->dmabuf_enable) {
		rd_buf_printf(why, "NCCL_DMABUF_ENABLE=%s turns it off", t->dmabuf_env);
		return RD_DMABUF_NO;
	}
	if (!rd_attr_ok(&t->nv_version)) {
		if (t->nv_version.err == ENOENT && t->proc_captured) {
			rd_buf_puts(why, "the NVIDIA kernel driver is not loaded (no /proc/driver/nvidia/version)");
			return RD_DMABUF_NO;
		}
		rd_buf_printf(why, "the NVIDIA driver cannot be told (/proc/driver/nvidia/version: %s)",
			      rd_strerror(t->nv_version.err));
		return RD_DMABUF_UNSURE;
	}
	if (!t->nv_open) {
		rd_buf_puts(why, "the NVIDIA driver is the proprietary kernel module, and DMA-BUF of GPU memory needs the "
				 "open one (NVIDIA UNIX Open Kernel Module)");
		return RD_DMABUF_NO;
	}
	if (t->nv_major && t->nv_major < 515) {
		rd_buf_printf(why, "the NVIDIA driver %u is older than R515 (CUDA 11.7), which NCCL needs for it", t->nv_major);
		return RD_DMABUF_NO;
	}
	if (kver && (major < 5 || (major == 5 && minor < 12))) {
		rd_buf_printf(why, "the kernel %s is older than 5.12, the first that imports DMA-BUF into RDMA",
			      h->osrelease.value);
		return RD_DMABUF_NO;
	}
	if (!kver) {
		rd_buf_puts(why, "the kernel version cannot be told");
		return RD_DMABUF_UNSURE;
	}
	if (t->kconfig_err) {
		rd_buf_printf(why, "its CONFIG_DMA_SHARED_BUFFER cannot be read (%s: %s%s)",
			      t->kconfig_path ? t->kconfig_path : "/boot/config-<release>",
			      t->kconfig_why[0] ? t->kconfig_why : rd_strerror(t->kconfig_err),
			      t->kconfig_err == ENOENT ? ", and there is no /proc/config.gz" : "");
		return RD_DMABUF_UNSURE;
	}
	if (strcmp(t->kc_dmabuf, "y") != 0 && strcmp(t->kc_dmabuf, "m") != 0) {
		rd_buf_printf(why, "the kernel %s is built without CONFIG_DMA_SHARED_BUFFER (%s)", h->osrelease.value,
			      t->kconfig_path);
		return RD_DMABUF_NO;
	}
	char drv[32] = " (version unknown)";
	if (t->nv_major)
		snprintf(drv, sizeof drv, " (R%u)", t->nv_major);
	rd_buf_printf(yes, "the kernel %s (5.12+) has CONFIG_DMA_SHARED_BUFFER=%s%s, the NVIDIA driver is the open kernel "
			   "module%s, NCCL_DMABUF_ENABLE is %s",
		      h->osrelease.value, t->kc_dmabuf,
		      strcmp(t->kc_p2pdma, "y") == 0 ? " and CONFIG_PCI_P2PDMA=y" : " (CONFIG_PCI_P2PDMA is not set)", drv,
		      t->dmabuf_env[0] ? t->dmabuf_env : "unset (1)");
	return RD_DMABUF_YES;
}
