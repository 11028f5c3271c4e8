/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Link health facts: see link.h. */
#include "model/link.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/policy.h"

double rd_parse_pcie_speed(const char *s)
{
	if (!s)
		return 0;
	char *end;
	double v = strtod(s, &end);
	if (end == s || v <= 0 || v > 1000)
		return 0;
	while (*end == ' ')
		end++;
	return strncmp(end, "GT/s", 4) == 0 ? v : 0;
}

static unsigned parse_width(const struct rd_attr *a)
{
	uint64_t v;
	if (!rd_attr_ok(a) || rd_parse_u64(a->value, 10, 64, &v) < 0)
		return 0;
	return (unsigned)v;
}

static void read_at(struct rd_source *src, const char *dir, const char *name, struct rd_attr *a)
{
	char *path = rd_path_join(dir, name);
	rd_attr_read(src, path, a);
	free(path);
}

static void attr_dup(struct rd_attr *to, const struct rd_attr *from)
{
	to->path = from->path ? rd_xstrdup(from->path) : NULL;
	to->value = from->value ? rd_xstrdup(from->value) : NULL;
	to->err = from->err;
}

/* The hop of a bridge that an earlier device's path already read (HCAs behind one switch or root
 * port share their upstream links), or NULL. */
static const struct rd_pcie_hop *hop_read(const struct rd_link_dev *done, size_t ndone, const char *addr)
{
	for (size_t i = 0; i < ndone; i++)
		for (size_t k = 0; k < done[i].npath; k++)
			if (strcmp(done[i].path[k].addr, addr) == 0)
				return &done[i].path[k];
	return NULL;
}

/* The Device Control register of ld's function: its config space (the first 4096 bytes, as gdr.acs
 * reads a bridge's), else a captured lspci -vvv (*lspci: read once, on the first device that needs
 * it; on the live host run only where device commands are allowed, as model/pcitopo.c does). */
static void load_devctl(struct rd_source *src, const char *addr, struct rd_link_dev *ld, struct rd_text *lspci)
{
	ld->devctl_path = rd_xasprintf("/sys/bus/pci/devices/%s/config", addr);
	struct rd_text c = {0};
	int r = rd_read_prefix(src, ld->devctl_path + 1, 4096, &c);
	if (r == 0)
		rd_devctl_from_config((const unsigned char *)c.data, c.len, &ld->devctl);
	rd_text_free(&c);
	if (r == 0 && ld->devctl.state == RD_DEVCTL_READ)
		return;
	struct rd_devctl cfg = ld->devctl; /* zero when the read failed */
	if (!lspci->data && !lspci->err) {
		static const char *const argv[] = {"lspci", "-D", "-vvv", NULL};
		rd_run_device_command(src, "lspci-vvv", argv, 10000, lspci);
		if (!lspci->data && !lspci->err)
			lspci->err = RD_EPARSE;
	}
	if (lspci->data && !lspci->err && lspci->status == 0) {
		struct rd_devctl l;
		rd_devctl_from_lspci(lspci->data, lspci->len, addr, &l);
		if (l.state == RD_DEVCTL_READ || r != 0) {
			ld->devctl = l;
			return;
		}
	}
	if (r == 0) { /* the config space's reason (a short unprivileged read) */
		ld->devctl = cfg;
		return;
	}
	memset(&ld->devctl, 0, sizeof ld->devctl);
	ld->devctl.from = "config space";
	if (-r == ENOENT && !rd_source_is_live(src)) {
		ld->devctl.state = RD_DEVCTL_ABSENT; /* a root or snapshot taken without it */
		return;
	}
	ld->devctl.state = RD_DEVCTL_UNKNOWN;
	snprintf(ld->devctl.why, sizeof ld->devctl.why, "its config space cannot be read: %s", rd_strerror(-r));
}

static bool is_rules(const char *name)
{
	size_t n = strlen(name);
	return n > 6 && strcmp(name + n - 6, ".rules") == 0;
}

/* The setpci lines of the operator's udev rules (etc/udev/rules.d: a package's rules live in
 * lib/udev/rules.d and set no tuning). */
static void load_setpci_rules(struct rd_source *src, struct rd_link *lk)
{
	struct rd_strv names = {0};
	if (rd_list_dir_only(src, "etc/udev/rules.d", is_rules, &names) < 0)
		return;
	for (size_t i = 0; i < names.n && lk->setpci_rules.n < 16; i++) {
		char *path = rd_xasprintf("/etc/udev/rules.d/%s", names.v[i]);
		struct rd_text t = {0};
		if (rd_read_file(src, path + 1, RD_CAP_ATTR, &t) == 0) {
			unsigned lineno = 0;
			for (const char *l = t.data; l && *l && lk->setpci_rules.n < 16;) {
				const char *nl = strchr(l, '\n');
				size_t len = nl ? (size_t)(nl - l) : strlen(l);
				lineno++;
				const char *b = l;
				while (b < l + len && (*b == ' ' || *b == '\t'))
					b++;
				if (b < l + len && *b != '#' && memmem(b, len - (size_t)(b - l), "setpci", 6))
					rd_strv_push_owned(&lk->setpci_rules, rd_xasprintf("%s:%u: %.*s", path, lineno,
										     (int)(len < 300 ? len : 300), l));
				l = nl ? nl + 1 : NULL;
			}
		}
		rd_text_free(&t);
		free(path);
	}
	rd_strv_free(&names);
}

/* done: the devices loaded before ld (their hops are not read again). */
static void load_pcie_path(struct rd_source *src, const char *addr, struct rd_link_dev *ld,
			   const struct rd_link_dev *done, size_t ndone)
{
	char *link = rd_xasprintf("sys/bus/pci/devices/%s", addr), *canon = NULL;
	int r = rd_resolve(src, link, &canon);
	free(link);
	if (r < 0) {
		ld->path_err = -r;
		return;
	}
	/* components that are PCI addresses, from the function up to the root port */
	char *comp[64];
	size_t n = 0;
	char *copy = rd_xstrdup(canon);
	for (char *t = strtok(copy, "/"); t && n < 64; t = strtok(NULL, "/"))
		comp[n++] = t;
	ld->path = rd_xcalloc(n ? n : 1, sizeof *ld->path);
	for (size_t i = n; i-- > 0;) {
		if (!rd_is_pci_addr(comp[i]))
			break; /* "pci0000:00", or the "pci10000:e0" of a VMD domain: the path's top */
		struct rd_buf dir = {0};
		for (size_t j = 0; j <= i; j++)
			rd_buf_printf(&dir, "%s%s", j ? "/" : "", comp[j]);
		struct rd_pcie_hop *hop = &ld->path[ld->npath++];
		const struct rd_pcie_hop *seen = hop_read(done, ndone, comp[i]);
		if (seen) {
			*hop = *seen;
			hop->addr = rd_xstrdup(seen->addr);
			attr_dup(&hop->cur_speed, &seen->cur_speed);
			attr_dup(&hop->cur_width, &seen->cur_width);
			attr_dup(&hop->max_speed, &seen->max_speed);
			attr_dup(&hop->max_width, &seen->max_width);
			rd_buf_free(&dir);
			continue;
		}
		hop->addr = rd_xstrdup(comp[i]);
		read_at(src, dir.data, "current_link_speed", &hop->cur_speed);
		read_at(src, dir.data, "current_link_width", &hop->cur_width);
		read_at(src, dir.data, "max_link_speed", &hop->max_speed);
		read_at(src, dir.data, "max_link_width", &hop->max_width);
		hop->cur_gts = rd_attr_ok(&hop->cur_speed) ? rd_parse_pcie_speed(hop->cur_speed.value) : 0;
		hop->max_gts = rd_attr_ok(&hop->max_speed) ? rd_parse_pcie_speed(hop->max_speed.value) : 0;
		hop->cur_w = parse_width(&hop->cur_width);
		hop->max_w = parse_width(&hop->max_width);
		rd_buf_free(&dir);
	}
	free(copy);
	free(canon);
}

static void add_netdev(struct rd_source *src, struct rd_link *lk, const char *dev, unsigned port, const char *name)
{
	for (size_t i = 0; i < lk->nnetdevs; i++)
		if (lk->netdevs[i].port == port && strcmp(lk->netdevs[i].dev, dev) == 0 &&
		    strcmp(lk->netdevs[i].name, name) == 0)
			return;
	lk->netdevs = rd_xrealloc(lk->netdevs, (lk->nnetdevs + 1) * sizeof *lk->netdevs);
	struct rd_link_netdev *nd = &lk->netdevs[lk->nnetdevs++];
	memset(nd, 0, sizeof *nd);
	nd->dev = rd_xstrdup(dev);
	nd->port = port;
	nd->name = rd_xstrdup(name);
	char *path = rd_xasprintf("sys/class/net/%s/carrier_changes", name);
	rd_attr_read(src, path, &nd->carrier_changes);
	free(path);
	if (rd_attr_ok(&nd->carrier_changes) && rd_parse_u64(nd->carrier_changes.value, 10, UINT64_MAX, &nd->changes) < 0)
		nd->carrier_changes.err = RD_EPARSE;
}

/* The port's netdevs: those its GIDs name (RoCE), and on InfiniBand the IPoIB netdevs of the PCI
 * function whose dev_port is the port's (ipoib sets dev_port = port - 1). */
static void load_netdevs(struct rd_source *src, const struct rd_device *d, struct rd_link *lk)
{
	for (size_t k = 0; k < d->nports; k++)
		for (size_t i = 0; i < d->ports[k].nnetdevs; i++)
			add_netdev(src, lk, d->name, d->ports[k].num, d->ports[k].netdevs[i].name);
	if (!d->pci_addr)
		return;
	/* the PCI function's net/ through the device's own link (not a walk of sys/bus/pci) */
	char *dir = rd_path_join(d->dir + (d->dir[0] == '/'), "device/net");
	struct rd_strv names = {0};
	if (rd_list_dir(src, dir, &names) == 0) {
		for (size_t i = 0; i < names.n; i++) {
			struct rd_attr dp = {0};
			char *sub = rd_path_join(dir, names.v[i]);
			read_at(src, sub, "dev_port", &dp);
			uint64_t v = 0;
			bool have = rd_attr_ok(&dp) && rd_parse_u64(dp.value, 0, 4096, &v) == 0;
			for (size_t k = 0; k < d->nports; k++) {
				const struct rd_port *p = &d->ports[k];
				if (p->is_ib && ((have && v + 1 == p->num) || (!have && d->nports == 1)))
					add_netdev(src, lk, d->name, p->num, names.v[i]);
			}
			rd_attr_free(&dp);
			free(sub);
		}
	}
	rd_strv_free(&names);
	free(dir);
}

/* The interface of the default route (destination and mask 0) in /proc/net/route, or NULL. */
static char *default_route(const char *text)
{
	char iface[64];
	unsigned long dst, gw, mask;
	unsigned flags;
	const char *line = text;
	for (int n = 0; line && *line; n++) {
		const char *nl = strchr(line, '\n');
		if (n > 0 && sscanf(line, "%63s %lx %lx %x %*s %*s %*s %lx", iface, &dst, &gw, &flags, &mask) == 5 &&
		    dst == 0 && mask == 0 && (flags & 1))
			return rd_xstrdup(iface);
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

void rd_link_load(struct rd_source *src, const struct rd_host *h, unsigned flags, struct rd_link *lk)
{
	memset(lk, 0, sizeof *lk);
	lk->unloaded = rd_load_unread(flags);
	lk->uptime_s = -1;
	rd_attr_read(src, "proc/sys/kernel/random/boot_id", &lk->boot_id);
	rd_attr_read(src, "proc/uptime", &lk->uptime);
	if (rd_attr_ok(&lk->uptime)) {
		char *end;
		double v = strtod(lk->uptime.value, &end);
		if (end != lk->uptime.value && v >= 0)
			lk->uptime_s = v;
	}
	rd_attr_read(src, "proc/net/route", &lk->route);
	if (rd_attr_ok(&lk->route))
		lk->mgmt_netdev = default_route(lk->route.value);
	lk->devs = rd_xcalloc(h->ndevices ? h->ndevices : 1, sizeof *lk->devs);
	lk->ndevs = h->ndevices;
	struct rd_text lspci = {0}; /* pcie.mrrs' fallback, read at most once */
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		struct rd_link_dev *ld = &lk->devs[i];
		ld->name = rd_xstrdup(d->name);
		char *pf = rd_path_join(d->dir + (d->dir[0] == '/'), "device/physfn");
		ld->vf = rd_exists(src, pf);
		free(pf);
		ld->bond = rd_str_has_prefix(d->name, "mlx5_bond_");
		ld->multiplane = d->device_id == 0x1023 && d->nports > 2;
		if (d->pci_addr && !ld->vf && rd_load_wants(flags, RD_LOAD_PCI)) /* pcie.link's */
			load_pcie_path(src, d->pci_addr, ld, lk->devs, i);
		if (d->pci_addr && !ld->vf && !ld->bond && rd_load_wants(flags, RD_LOAD_PCICFG)) /* pcie.mrrs' */
			load_devctl(src, d->pci_addr, ld, &lspci);
		load_netdevs(src, d, lk);
	}
	rd_text_free(&lspci);
	bool judged = false; /* a Device Control was read: what sets it at boot matters */
	for (size_t i = 0; i < lk->ndevs; i++)
		judged |= lk->devs[i].devctl.state == RD_DEVCTL_READ;
	if (judged) {
		load_setpci_rules(src, lk);
		static const char *const setpci[] = {"/usr/bin/setpci", "/usr/sbin/setpci", "/sbin/setpci", "/bin/setpci"};
		for (size_t i = 0; i < 4 && !lk->setpci; i++)
			if (rd_exists(src, setpci[i] + 1))
				lk->setpci = setpci[i];
	}
}

static bool excluded(const struct rd_policy *p, const char *dev)
{
	return p && rd_strv_contains(&p->counters_exclude, dev);
}

/* Reads one counters directory; false when a read failed (the device's reads stop there). */
static bool read_counters(struct rd_source *src, const char *dir, struct rd_counter **out, size_t *n,
			  struct rd_counter_refusal *why)
{
	struct rd_strv names = {0};
	bool ok = true;
	if (rd_list_dir(src, dir, &names) < 0)
		return true;
	*out = rd_xcalloc(names.n ? names.n : 1, sizeof **out);
	for (size_t i = 0; i < names.n && ok; i++) {
		if (strcmp(names.v[i], "lifespan") == 0 || !rd_is_kernel_name(names.v[i], RD_NAME_MAX))
			continue; /* a name the kernel never gives a counter would show as another's */
		struct rd_counter *c = &(*out)[(*n)++];
		c->name = rd_xstrdup(names.v[i]);
		read_at(src, dir, names.v[i], &c->attr);
		if (rd_attr_ok(&c->attr)) {
			int r = rd_parse_counter(c->attr.value, &c->value);
			if (r < 0)
				c->attr.err = -r; /* ENODATA: "N/A (no PMA)", not available */
		} else if (c->attr.err != ENOENT && c->attr.err != ENODATA) {
			why->path = rd_xstrdup(c->attr.path);
			why->err = c->attr.err;
			ok = false;
		}
	}
	rd_strv_free(&names);
	return ok;
}

void rd_link_counters_load(struct rd_source *src, struct rd_host *h, const struct rd_policy *p, struct rd_link *lk)
{
	lk->counters_read = true;
	for (size_t i = 0; i < h->ndevices; i++) {
		struct rd_device *d = &h->devices[i];
		if (excluded(p, d->name)) {
			rd_strv_push(&lk->excluded, d->name);
			continue;
		}
		bool ok = true;
		struct rd_counter_refusal why = {0};
		for (size_t k = 0; k < d->nports && ok; k++) {
			struct rd_port *pt = &d->ports[k];
			const char *pdir = pt->dir + (pt->dir[0] == '/');
			char *cdir = rd_path_join(pdir, "counters"), *hdir = rd_path_join(pdir, "hw_counters");
			ok = read_counters(src, cdir, &pt->counters, &pt->ncounters, &why) &&
			     read_counters(src, hdir, &pt->hw_counters, &pt->nhw_counters, &why);
			free(cdir);
			free(hdir);
		}
		if (!ok) {
			lk->refused = rd_xrealloc(lk->refused, (lk->nrefused + 1) * sizeof *lk->refused);
			why.dev = rd_xstrdup(d->name);
			lk->refused[lk->nrefused++] = why;
		}
	}
}

const struct rd_link_dev *rd_link_dev(const struct rd_link *lk, const char *name)
{
	for (size_t i = 0; i < lk->ndevs; i++)
		if (strcmp(lk->devs[i].name, name) == 0)
			return &lk->devs[i];
	return NULL;
}

const struct rd_counter_refusal *rd_link_refusal(const struct rd_link *lk, const char *dev)
{
	for (size_t i = 0; i < lk->nrefused; i++)
		if (strcmp(lk->refused[i].dev, dev) == 0)
			return &lk->refused[i];
	return NULL;
}

static bool port_has_netdev(const struct rd_link *lk, const struct rd_device *d, const struct rd_port *port,
			    const char *name)
{
	for (size_t i = 0; i < port->nnetdevs; i++)
		if (strcmp(port->netdevs[i].name, name) == 0)
			return true;
	for (size_t i = 0; i < lk->nnetdevs; i++)
		if (lk->netdevs[i].port == port->num && strcmp(lk->netdevs[i].dev, d->name) == 0 &&
		    strcmp(lk->netdevs[i].name, name) == 0)
			return true;
	return false;
}

enum rd_port_role rd_port_role(const struct rd_link *lk, const struct rd_policy *p, const struct rd_device *d,
			       const struct rd_port *port)
{
	if (lk)
		rd_need(lk->unloaded, RD_LOAD_ROLE, "the ports' roles");
	const struct rd_link_dev *ld = lk ? rd_link_dev(lk, d->name) : NULL;
	if (ld && ld->vf)
		return RD_ROLE_VF;
	bool listed = false;
	if (p && !rd_policy_data_port(p, d->name, port->num, &listed) && listed)
		return RD_ROLE_NOT_DATA;
	if (ld && ld->multiplane && !listed && port->state_v != RD_PORT_ACTIVE)
		return RD_ROLE_PLANE;
	if (lk && lk->mgmt_netdev && !(p && p->management_is_compute) && port_has_netdev(lk, d, port, lk->mgmt_netdev))
		return RD_ROLE_MGMT;
	return RD_ROLE_COMPUTE;
}

bool rd_port_judged(const struct rd_link *lk, const struct rd_policy *p, const struct rd_device *d,
		    const struct rd_port *port)
{
	return !rd_policy_ignores(p, d->name, port->num) && rd_port_role(lk, p, d, port) == RD_ROLE_COMPUTE;
}

const char *rd_port_role_words(enum rd_port_role r)
{
	switch (r) {
	case RD_ROLE_VF:
		return "an SR-IOV virtual function (listed, not judged)";
	case RD_ROLE_MGMT:
		return "the management NIC: it carries the default route (not a compute port; [ports] management = compute to judge it)";
	case RD_ROLE_NOT_DATA:
		return "not a data port of this multi-plane device ([ports] data_ports)";
	case RD_ROLE_PLANE:
		return "a port of a multi-plane device, not Active; [ports] data_ports says which planes carry data";
	case RD_ROLE_COMPUTE:
		break;
	}
	return "a compute port";
}

void rd_link_free(struct rd_link *lk)
{
	rd_attr_free(&lk->boot_id);
	rd_attr_free(&lk->uptime);
	rd_attr_free(&lk->route);
	free(lk->mgmt_netdev);
	for (size_t i = 0; i < lk->ndevs; i++) {
		struct rd_link_dev *ld = &lk->devs[i];
		free(ld->name);
		for (size_t j = 0; j < ld->npath; j++) {
			struct rd_pcie_hop *hop = &ld->path[j];
			free(hop->addr);
			rd_attr_free(&hop->cur_speed);
			rd_attr_free(&hop->cur_width);
			rd_attr_free(&hop->max_speed);
			rd_attr_free(&hop->max_width);
		}
		free(ld->path);
		free(ld->devctl_path);
	}
	free(lk->devs);
	for (size_t i = 0; i < lk->nnetdevs; i++) {
		free(lk->netdevs[i].dev);
		free(lk->netdevs[i].name);
		rd_attr_free(&lk->netdevs[i].carrier_changes);
	}
	free(lk->netdevs);
	rd_strv_free(&lk->excluded);
	rd_strv_free(&lk->setpci_rules);
	for (size_t i = 0; i < lk->nrefused; i++) {
		free(lk->refused[i].dev);
		free(lk->refused[i].path);
	}
	free(lk->refused);
	struct rd_link_sample *s = &lk->sample;
	free(s->dir);
	free(s->file);
	rd_state_free(&s->hist);
	free(s->prev_problem);
	free(s->write_problem);
	memset(lk, 0, sizeof *lk);
}
