/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "model/host.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rd_rdma_modules[] = {
	"mlx5_core", "mlx5_ib", "ib_core", "ib_uverbs", "ib_cm", "rdma_cm", "rdma_ucm", "ib_umad",
	"ib_ipoib", "iw_cm", "ib_iser", "ib_isert", "ib_srp", "ib_srpt", "rpcrdma", "mlx4_core",
	"mlx4_ib", "mlx4_en", "rdma_rxe", "siw", "mlx_compat", "mlxdevm", "memtrack", "mlxfw",
	"nvidia_peermem", "nv_peer_mem", NULL,
};

void rd_attr_read(struct rd_source *src, const char *path, struct rd_attr *a)
{
	struct rd_text t;
	while (*path == '/')
		path++;
	a->path = rd_xasprintf("/%s", path);
	rd_read_attr(src, path, &t);
	a->value = t.data;
	a->err = t.err;
}

void rd_attr_free(struct rd_attr *a)
{
	free(a->path);
	free(a->value);
	a->path = a->value = NULL;
}

static void attr_at(struct rd_source *src, const char *dir, const char *name, struct rd_attr *a)
{
	char *p = rd_path_join(dir, name);
	rd_attr_read(src, p, a);
	free(p);
}

/* The attributes of a part this run does not read, marked so (rd_attr_ok aborts on them):
 * names[i] in dir is attrs[i], up to a NULL name. */
static void attrs_not_loaded(const char *dir, const char *const *names, struct rd_attr *const *attrs)
{
	for (size_t i = 0; names[i]; i++) {
		memset(attrs[i], 0, sizeof *attrs[i]);
		attrs[i]->path = rd_xasprintf("/%s/%s", dir, names[i]);
		attrs[i]->err = RD_ENOTLOADED;
	}
}

/* Parses an attr as an unsigned number (base 0); marks it RD_EPARSE when malformed. */
static long attr_long(struct rd_attr *a, uint64_t max)
{
	uint64_t v;
	if (!rd_attr_ok(a))
		return -1;
	if (rd_parse_u64(a->value, 0, max, &v) < 0) {
		a->err = RD_EPARSE;
		return -1;
	}
	return (long)v;
}

static int attr_enum(struct rd_attr *a)
{
	struct rd_enum_text e;
	if (!rd_attr_ok(a))
		return -1;
	if (rd_parse_enum_text(a->value, &e) < 0) {
		a->err = RD_EPARSE;
		return -1;
	}
	return (int)e.num;
}

/* A port, GID index or class device number as the kernel writes it: "01" and "1.0" are not 1. */
static bool is_number(const char *s)
{
	return rd_is_canonical_uint(s, UINT_MAX, NULL);
}

static int cmp_num_str(const void *a, const void *b)
{
	unsigned long x = strtoul(*(char *const *)a, NULL, 10), y = strtoul(*(char *const *)b, NULL, 10);
	return x < y ? -1 : x > y;
}

static int cmp_natural(const void *a, const void *b)
{
	return rd_natural_cmp(*(char *const *)a, *(char *const *)b);
}

static void sort_names(struct rd_strv *sv, int (*cmp)(const void *, const void *))
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof *sv->v, cmp);
}

/* ---- ports ---------------------------------------------------------------------------------- */

static void add_netdev(struct rd_source *src, struct rd_port *p, const char *name)
{
	for (size_t i = 0; i < p->nnetdevs; i++)
		if (strcmp(p->netdevs[i].name, name) == 0)
			return;
	p->netdevs = rd_xrealloc(p->netdevs, (p->nnetdevs + 1) * sizeof *p->netdevs);
	struct rd_netdev *nd = &p->netdevs[p->nnetdevs++];
	memset(nd, 0, sizeof *nd);
	nd->name = rd_xstrdup(name);
	char *dir = rd_xasprintf("sys/class/net/%s", name);
	attr_at(src, dir, "mtu", &nd->mtu);
	attr_at(src, dir, "operstate", &nd->operstate);
	attr_at(src, dir, "carrier", &nd->carrier);
	long mtu = attr_long(&nd->mtu, 1 << 20);
	nd->mtu_v = mtu > 0 ? (uint64_t)mtu : 0;
	free(dir);
}

static void load_gids(struct rd_source *src, const char *pdir, struct rd_port *p)
{
	struct rd_strv names = {0};
	char *gdir = rd_path_join(pdir, "gids");
	p->gids_err = -rd_list_dir(src, gdir, &names);
	sort_names(&names, cmp_num_str);
	for (size_t i = 0; i < names.n; i++) {
		if (!is_number(names.v[i]))
			continue;
		struct rd_text t;
		char *path = rd_path_join(gdir, names.v[i]);
		rd_read_attr(src, path, &t);
		free(path);
		uint8_t gid[16];
		unsigned idx = (unsigned)strtoul(names.v[i], NULL, 10);
		if (t.err || rd_parse_gid(t.data, gid) < 0 || (rd_gid_is_zero(gid) && idx != 0)) {
			rd_text_free(&t);
			continue;
		}
		p->gids = rd_xrealloc(p->gids, (p->ngids + 1) * sizeof *p->gids);
		struct rd_gid *g = &p->gids[p->ngids++];
		memset(g, 0, sizeof *g);
		g->index = idx;
		memcpy(g->gid, gid, 16);
		g->text = t.data;
		if (rd_gid_is_zero(gid))
			continue;
		char *tp = rd_xasprintf("%s/gid_attrs/types/%u", pdir, idx);
		char *np = rd_xasprintf("%s/gid_attrs/ndevs/%u", pdir, idx);
		rd_read_attr(src, tp, &t);
		g->type = t.data;
		rd_read_attr(src, np, &t);
		g->ndev = t.data;
		if (g->ndev && *g->ndev)
			add_netdev(src, p, g->ndev);
		free(tp);
		free(np);
	}
	rd_strv_free(&names);
	free(gdir);
}

static void load_port_link(struct rd_source *src, const char *pdir, struct rd_port *p);
static void load_port_subnet(struct rd_source *src, const char *pdir, struct rd_port *p);
static void load_pkeys(struct rd_source *src, const char *pdir, struct rd_port *p);

static void load_port(struct rd_source *src, const char *pdir, unsigned num, unsigned flags,
		      struct rd_port *p)
{
	memset(p, 0, sizeof *p);
	p->num = num;
	p->dir = rd_xasprintf("/%s", pdir);
	p->state_v = p->phys_v = -1;
	p->lid_v = p->sm_lid_v = p->lmc_v = p->sm_sl_v = p->cap_mask_v = -1;
	p->is_ib = true;
	static const char *const link_names[] = {"state", "phys_state", "rate", "link_layer", NULL};
	static const char *const subnet_names[] = {"lid", "lid_mask_count", "sm_lid", "sm_sl", "cap_mask",
						   "has_smi", NULL};
	if (rd_load_wants(flags, RD_LOAD_PORTS))
		load_port_link(src, pdir, p);
	else
		attrs_not_loaded(pdir, link_names,
				 (struct rd_attr *[]){&p->state, &p->phys_state, &p->rate, &p->link_layer});
	if (rd_load_wants(flags, RD_LOAD_SUBNET))
		load_port_subnet(src, pdir, p);
	else
		attrs_not_loaded(pdir, subnet_names,
				 (struct rd_attr *[]){&p->lid, &p->lid_mask_count, &p->sm_lid, &p->sm_sl, &p->cap_mask,
						      &p->has_smi});
	if (rd_load_wants(flags, RD_LOAD_GIDS))
		load_gids(src, pdir, p);
	else
		p->gids_err = RD_ENOTLOADED; /* rd_port_gid and the NCCL lookups abort on it */
	if (rd_load_wants(flags, RD_LOAD_PKEYS))
		load_pkeys(src, pdir, p);
}

static void load_port_link(struct rd_source *src, const char *pdir, struct rd_port *p)
{
	attr_at(src, pdir, "state", &p->state);
	attr_at(src, pdir, "phys_state", &p->phys_state);
	attr_at(src, pdir, "rate", &p->rate);
	attr_at(src, pdir, "link_layer", &p->link_layer);
	p->state_v = attr_enum(&p->state);
	p->phys_v = attr_enum(&p->phys_state);
	if (rd_attr_ok(&p->rate)) {
		p->rate_ok = rd_parse_rate(p->rate.value, &p->rate_v) == 0;
		if (!p->rate_ok)
			p->rate.err = RD_EPARSE;
	}
	p->is_ib = !rd_attr_ok(&p->link_layer) || strcmp(p->link_layer.value, "InfiniBand") == 0;
}

static void load_port_subnet(struct rd_source *src, const char *pdir, struct rd_port *p)
{
	attr_at(src, pdir, "lid", &p->lid);
	attr_at(src, pdir, "lid_mask_count", &p->lid_mask_count);
	attr_at(src, pdir, "sm_lid", &p->sm_lid);
	attr_at(src, pdir, "sm_sl", &p->sm_sl);
	attr_at(src, pdir, "cap_mask", &p->cap_mask);
	attr_at(src, pdir, "has_smi", &p->has_smi);
	p->lid_v = attr_long(&p->lid, 0xffff);
	p->sm_lid_v = attr_long(&p->sm_lid, 0xffff);
	p->lmc_v = attr_long(&p->lid_mask_count, 255);
	p->sm_sl_v = attr_long(&p->sm_sl, 255);
	p->cap_mask_v = attr_long(&p->cap_mask, 0xffffffffu);
}

static void load_pkeys(struct rd_source *src, const char *pdir, struct rd_port *p)
{
	char *kdir = rd_path_join(pdir, "pkeys");
	struct rd_strv names = {0};
	p->pkeys_err = -rd_list_dir(src, kdir, &names);
	sort_names(&names, cmp_num_str);
	for (size_t i = 0; i < names.n; i++) {
		struct rd_text t;
		char *path = rd_path_join(kdir, names.v[i]);
		if (rd_read_attr(src, path, &t) == 0)
			rd_strv_push_owned(&p->pkeys, t.data);
		free(path);
	}
	rd_strv_free(&names);
	free(kdir);
}

/* ---- devices -------------------------------------------------------------------------------- */

static void load_device_info(struct rd_source *src, const char *dir, struct rd_device *d);
static void load_device_link(struct rd_source *src, const char *dir, struct rd_device *d);
static void load_ports(struct rd_source *src, const char *dir, unsigned flags, struct rd_device *d);

static void load_device(struct rd_source *src, const char *name, unsigned flags, struct rd_device *d)
{
	memset(d, 0, sizeof *d);
	char *dir = rd_xasprintf("sys/class/infiniband/%s", name);
	d->name = rd_xstrdup(name);
	d->dir = rd_xasprintf("/%s", dir);
	d->node_type_v = d->numa_node = -1;
	/* what the device is (a CA, a switch, an iWARP RNIC ...) decides which rules apply to it in
	 * every check that looks at devices or ports: read whatever parts are asked */
	attr_at(src, dir, "node_type", &d->node_type);
	d->node_type_v = attr_enum(&d->node_type);
	static const char *const info_names[] = {"node_guid", "sys_image_guid", "fw_ver", "hca_type", "hw_rev",
						 "board_id", "node_desc", NULL};
	if (rd_load_wants(flags, RD_LOAD_DEVINFO))
		load_device_info(src, dir, d);
	else
		attrs_not_loaded(dir, info_names,
				 (struct rd_attr *[]){&d->node_guid, &d->sys_image_guid, &d->fw_ver, &d->hca_type,
						      &d->hw_rev, &d->board_id, &d->node_desc});
	if (rd_load_wants(flags, RD_LOAD_DEVLINK))
		load_device_link(src, dir, d);
	load_ports(src, dir, flags, d);
	free(dir);
}

static void load_device_info(struct rd_source *src, const char *dir, struct rd_device *d)
{
	attr_at(src, dir, "node_guid", &d->node_guid);
	attr_at(src, dir, "sys_image_guid", &d->sys_image_guid);
	attr_at(src, dir, "fw_ver", &d->fw_ver);
	attr_at(src, dir, "hca_type", &d->hca_type);
	attr_at(src, dir, "hw_rev", &d->hw_rev);
	attr_at(src, dir, "board_id", &d->board_id);
	attr_at(src, dir, "node_desc", &d->node_desc);
	if (rd_attr_ok(&d->node_guid) && rd_parse_guid(d->node_guid.value, &d->node_guid_v) < 0)
		d->node_guid.err = RD_EPARSE;
	if (rd_attr_ok(&d->hca_type) && rd_parse_hca_type(d->hca_type.value, &d->device_id) == 0)
		d->model = rd_hca_model_name(d->device_id);
}

static void load_device_link(struct rd_source *src, const char *dir, struct rd_device *d)
{
	struct rd_text t;
	char *p = rd_path_join(dir, "parent");
	if (rd_read_attr(src, p, &t) == 0)
		d->parent = t.data;
	free(p);

	p = rd_path_join(dir, "device");
	char *canon = NULL;
	struct stat st;
	if (rd_stat(src, p, false, &st) == 0 && S_ISLNK(st.st_mode) && rd_resolve(src, p, &canon) == 0) {
		const char *base = strrchr(canon, '/');
		base = base ? base + 1 : canon;
		if (rd_is_pci_addr(base))
			d->pci_addr = rd_xstrdup(base);
		/* a PCI function's by the path the topology (model/pcitopo.c) reads it at: one read */
		char *np = d->pci_addr ? rd_xasprintf("sys/bus/pci/devices/%s/numa_node", d->pci_addr)
				       : rd_path_join(canon, "numa_node");
		if (rd_read_attr(src, np, &t) == 0) {
			char *end;
			long v = strtol(t.data, &end, 10);
			d->numa_node = (end != t.data && v >= 0 && v < 4096) ? (int)v : -1;
			rd_text_free(&t);
		}
		free(np);
		char *dp = rd_path_join(canon, "driver");
		char *target = NULL;
		if (rd_read_link(src, dp, &target) == 0) {
			const char *b = strrchr(target, '/');
			d->driver = rd_xstrdup(b ? b + 1 : target);
			free(target);
		}
		free(dp);
	}
	free(canon);
	free(p);
}

static void load_ports(struct rd_source *src, const char *dir, unsigned flags, struct rd_device *d)
{
	struct rd_strv ports = {0};
	char *pd = rd_path_join(dir, "ports");
	d->ports_err = -rd_list_dir(src, pd, &ports);
	sort_names(&ports, cmp_num_str);
	d->ports = rd_xcalloc(ports.n, sizeof *d->ports);
	for (size_t i = 0; i < ports.n; i++) {
		if (!is_number(ports.v[i]))
			continue;
		char *pdir = rd_path_join(pd, ports.v[i]);
		load_port(src, pdir, (unsigned)strtoul(ports.v[i], NULL, 10), flags, &d->ports[d->nports++]);
		free(pdir);
	}
	rd_strv_free(&ports);
	free(pd);
}

static void load_class(struct rd_source *src, const char *cls, const char *prefix, bool has_port,
		       struct rd_class_dev **out, size_t *n)
{
	struct rd_strv names = {0};
	char *dir = rd_xasprintf("sys/class/%s", cls);
	*out = NULL;
	*n = 0;
	if (rd_list_dir(src, dir, &names) == 0) {
		sort_names(&names, cmp_natural);
		*out = rd_xcalloc(names.n, sizeof **out);
		for (size_t i = 0; i < names.n; i++) {
			if (!rd_str_has_prefix(names.v[i], prefix) || !is_number(names.v[i] + strlen(prefix)))
				continue;
			struct rd_class_dev *c = &(*out)[(*n)++];
			char *cdir = rd_path_join(dir, names.v[i]);
			c->name = rd_xstrdup(names.v[i]);
			attr_at(src, cdir, "ibdev", &c->ibdev);
			c->port_v = -1;
			if (has_port) {
				attr_at(src, cdir, "port", &c->port);
				c->port_v = attr_long(&c->port, 255);
			}
			free(cdir);
		}
	}
	rd_strv_free(&names);
	free(dir);
}

/* ---- modules ------------------------------------------------------------------------------- */

static struct rd_module *add_module(struct rd_host *h, const char *name)
{
	h->modules = rd_xrealloc(h->modules, (h->nmodules + 1) * sizeof *h->modules);
	struct rd_module *m = &h->modules[h->nmodules++];
	memset(m, 0, sizeof *m);
	m->name = rd_xstrdup(name);
	m->refcnt = -1;
	return m;
}

static bool is_rdma_module(const char *name)
{
	for (const char *const *m = rd_rdma_modules; *m; m++)
		if (strcmp(*m, name) == 0)
			return true;
	return false;
}

/* all: every attribute; else (a text check of a module /proc/modules lists) only version, which
 * the checks' evidence and stack show: srcversion, taint, refcnt and initstate are the inventory's
 * (the JSON report, stack, a snapshot), and /proc/modules says the rest. */
static void load_module_sysfs(struct rd_source *src, struct rd_module *m, bool all)
{
	char *dir = rd_xasprintf("sys/module/%s", m->name);
	attr_at(src, dir, "version", &m->version);
	if (all) {
		attr_at(src, dir, "srcversion", &m->srcversion);
		attr_at(src, dir, "taint", &m->sys_taint);
		attr_at(src, dir, "refcnt", &m->sys_refcnt);
		attr_at(src, dir, "initstate", &m->initstate);
	}
	/* sys/module/<m>/holders/ has one link per module using it; /proc/modules says the same */
	if (all && !m->holders.n) {
		char *hd = rd_path_join(dir, "holders");
		rd_list_dir(src, hd, &m->holders);
		free(hd);
	}
	free(dir);
}

/* The modes and owners of the device nodes: from the node itself when it is one (the live host),
 * else from the list a snapshot keeps in rdma-doctor/devnodes (its nodes are empty files). */
static void load_devnode_perms(struct rd_source *src, struct rd_host *h)
{
	h->devnode_perms = rd_xcalloc(h->devnodes.n + 1, sizeof *h->devnode_perms);
	for (size_t i = 0; i < h->devnodes.n; i++) {
		struct rd_devnode_perm *pm = &h->devnode_perms[i];
		pm->mode = RD_MODE_UNKNOWN;
		struct stat st;
		char *p = rd_xasprintf("dev/infiniband/%s", h->devnodes.v[i]);
		if (rd_stat(src, p, true, &st) == 0 && S_ISCHR(st.st_mode))
			*pm = (struct rd_devnode_perm){st.st_mode & 07777, st.st_uid, st.st_gid};
		free(p);
	}
	struct rd_text rec = {0};
	if (rd_source_is_live(src) || rd_read_file(src, "rdma-doctor/devnodes", RD_CAP_ATTR, &rec) < 0)
		return;
	for (char *line = rec.data; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char name[256];
		struct rd_devnode_perm pm;
		if (rd_parse_devnode_line(line, name, sizeof name, &pm.mode, &pm.uid, &pm.gid) == 0)
			for (size_t i = 0; i < h->devnodes.n; i++)
				if (h->devnode_perms[i].mode == RD_MODE_UNKNOWN && strcmp(h->devnodes.v[i], name) == 0)
					h->devnode_perms[i] = pm;
		line = nl ? nl + 1 : NULL;
	}
	rd_text_free(&rec);
}

static void load_modules(struct rd_source *src, unsigned flags, struct rd_host *h)
{
	struct rd_text t;
	rd_read_file(src, "proc/modules", RD_CAP_FILE, &t);
	h->proc_modules.path = rd_xstrdup("/proc/modules");
	h->proc_modules.err = t.err;
	if (t.data) {
		for (char *line = t.data; *line;) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			struct rd_proc_module pm;
			if (*line && rd_parse_proc_modules_line(line, &pm) == 0) {
				struct rd_module *m = add_module(h, pm.name);
				m->loaded = true;
				m->size = pm.size;
				m->refcnt = pm.refcnt;
				for (size_t i = 0; i < pm.nholders; i++)
					rd_strv_push(&m->holders, pm.holders[i]);
				m->state = rd_xstrdup(pm.state);
				m->taint = rd_xstrdup(pm.taint);
				if (is_rdma_module(pm.name))
					load_module_sysfs(src, m, !(flags & RD_LOAD_ONLY));
			} else if (*line && h->proc_modules.err == 0) {
				h->proc_modules.err = RD_EPARSE; /* keep the good lines, flag the file */
			}
			if (!nl)
				break;
			line = nl + 1;
		}
		free(t.data);
	}
	h->modules_listed = h->proc_modules.err == 0 || rd_exists(src, "sys/module") ||
			    (h->proc_modules.err == ENOENT && rd_exists(src, "proc/sys/kernel"));
	/* RDMA modules not in /proc/modules: built in (no initstate) or /proc/modules unreadable. */
	for (const char *const *name = rd_rdma_modules; *name; name++) {
		if (rd_host_module(h, *name))
			continue;
		char *dir = rd_xasprintf("sys/module/%s", *name);
		bool present = rd_exists(src, dir);
		free(dir);
		if (!present)
			continue;
		struct rd_module *m = add_module(h, *name);
		load_module_sysfs(src, m, true);
		m->builtin = m->initstate.err == ENOENT;
		m->loaded = m->builtin || (h->proc_modules.err != 0 && rd_attr_ok(&m->initstate));
	}
}

/* ---- host ---------------------------------------------------------------------------------- */

void rd_need_failed(unsigned missing, const char *what)
{
	fprintf(stderr, "rdma-doctor: internal error: %s read but not loaded (RD_LOAD_* 0x%x): a need missing from "
			"the check catalogue\n", what ? what : "a part of the model", missing);
	abort();
}

void rd_host_read_name(struct rd_source *src, struct rd_attr *name)
{
	rd_attr_read(src, "proc/sys/kernel/hostname", name);
	if (!rd_attr_ok(name)) {
		rd_attr_free(name);
		rd_attr_read(src, "etc/hostname", name);
	}
}

int rd_host_load(struct rd_source *src, unsigned flags, struct rd_host *h)
{
	memset(h, 0, sizeof *h);
	h->unloaded = rd_load_unread(flags);
	rd_attr_read(src, "proc/sys/kernel/osrelease", &h->osrelease);
	rd_host_read_name(src, &h->hostname);

	struct rd_strv names = {0};
	h->devices_err = -rd_list_dir(src, "sys/class/infiniband", &names);
	sort_names(&names, cmp_natural);
	h->devices = rd_xcalloc(names.n, sizeof *h->devices);
	for (size_t i = 0; i < names.n; i++) {
		if (rd_is_kernel_name(names.v[i], RD_DEVICE_NAME_MAX))
			load_device(src, names.v[i], flags, &h->devices[h->ndevices++]);
		else
			rd_strv_push(&h->refused_devices, names.v[i]);
	}
	rd_strv_free(&names);

	if (rd_load_wants(flags, RD_LOAD_CLASSES)) {
		load_class(src, "infiniband_verbs", "uverbs", false, &h->uverbs, &h->nuverbs);
		load_class(src, "infiniband_mad", "umad", true, &h->umad, &h->numad);
		load_class(src, "infiniband_mad", "issm", true, &h->issm, &h->nissm);
		h->verbs_class_err = rd_exists(src, "sys/class/infiniband_verbs") ? 0 : ENOENT;
		h->mad_class_err = rd_exists(src, "sys/class/infiniband_mad") ? 0 : ENOENT;
		h->devnodes_err = -rd_list_dir(src, "dev/infiniband", &h->devnodes);
		load_devnode_perms(src, h);
	}
	if (rd_load_wants(flags, RD_LOAD_MODULES))
		load_modules(src, flags, h);
	return 0;
}

/* ---- free / lookup ------------------------------------------------------------------------- */

static void free_counters(struct rd_counter *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].name);
		rd_attr_free(&c[i].attr);
	}
	free(c);
}

static void free_port(struct rd_port *p)
{
	struct rd_attr *attrs[] = {&p->state, &p->phys_state, &p->rate, &p->link_layer, &p->lid,
				   &p->lid_mask_count, &p->sm_lid, &p->sm_sl, &p->cap_mask, &p->has_smi};
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
		rd_attr_free(attrs[i]);
	for (size_t i = 0; i < p->ngids; i++) {
		free(p->gids[i].text);
		free(p->gids[i].type);
		free(p->gids[i].ndev);
	}
	free(p->gids);
	for (size_t i = 0; i < p->nnetdevs; i++) {
		free(p->netdevs[i].name);
		rd_attr_free(&p->netdevs[i].mtu);
		rd_attr_free(&p->netdevs[i].operstate);
		rd_attr_free(&p->netdevs[i].carrier);
	}
	free(p->netdevs);
	rd_strv_free(&p->pkeys);
	free_counters(p->counters, p->ncounters);
	free_counters(p->hw_counters, p->nhw_counters);
	free(p->dir);
}

static void free_device(struct rd_device *d)
{
	struct rd_attr *attrs[] = {&d->node_type, &d->node_guid, &d->sys_image_guid, &d->fw_ver,
				   &d->hca_type, &d->hw_rev, &d->board_id, &d->node_desc};
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
		rd_attr_free(attrs[i]);
	for (size_t i = 0; i < d->nports; i++)
		free_port(&d->ports[i]);
	free(d->ports);
	free(d->name);
	free(d->dir);
	free(d->pci_addr);
	free(d->parent);
	free(d->driver);
}

static void free_class(struct rd_class_dev *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].name);
		rd_attr_free(&c[i].ibdev);
		rd_attr_free(&c[i].port);
	}
	free(c);
}

void rd_host_free(struct rd_host *h)
{
	rd_attr_free(&h->osrelease);
	rd_attr_free(&h->hostname);
	for (size_t i = 0; i < h->ndevices; i++)
		free_device(&h->devices[i]);
	free(h->devices);
	free_class(h->uverbs, h->nuverbs);
	free_class(h->umad, h->numad);
	free_class(h->issm, h->nissm);
	rd_strv_free(&h->devnodes);
	rd_strv_free(&h->refused_devices);
	free(h->devnode_perms);
	rd_attr_free(&h->proc_modules);
	for (size_t i = 0; i < h->nmodules; i++) {
		struct rd_module *m = &h->modules[i];
		free(m->name);
		rd_strv_free(&m->holders);
		free(m->state);
		free(m->taint);
		rd_attr_free(&m->version);
		rd_attr_free(&m->srcversion);
		rd_attr_free(&m->sys_taint);
		rd_attr_free(&m->sys_refcnt);
		rd_attr_free(&m->initstate);
	}
	free(h->modules);
	memset(h, 0, sizeof *h);
}

const struct rd_device *rd_host_device(const struct rd_host *h, const char *name)
{
	for (size_t i = 0; i < h->ndevices; i++)
		if (strcmp(h->devices[i].name, name) == 0)
			return &h->devices[i];
	return NULL;
}

const struct rd_module *rd_host_module(const struct rd_host *h, const char *name)
{
	rd_need(h->unloaded, RD_LOAD_MODULES, "the modules");
	for (size_t i = 0; i < h->nmodules; i++)
		if (strcmp(h->modules[i].name, name) == 0)
			return &h->modules[i];
	return NULL;
}

int rd_module_out_of_tree(const struct rd_module *m)
{
	const char *taint = rd_attr_ok(&m->sys_taint) ? m->sys_taint.value : m->taint;
	if (taint && strchr(taint, 'O'))
		return 1;
	/* MLNX_OFED/DOCA mlx5_core carries a version; the in-tree one has none since 5.x. */
	if (strcmp(m->name, "mlx5_core") == 0 && rd_attr_ok(&m->version))
		return 1;
	if (strcmp(m->name, "mlx_compat") == 0 || strcmp(m->name, "memtrack") == 0 ||
	    strcmp(m->name, "mlxdevm") == 0)
		return 1;
	if (!m->loaded)
		return -1;
	if (taint || m->builtin)
		return 0;
	return -1;
}
