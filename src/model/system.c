/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "model/system.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const rd_modload_dirs[] = {"etc/modules-load.d", "run/modules-load.d",
				       "usr/local/lib/modules-load.d", "usr/lib/modules-load.d",
				       "lib/modules-load.d", NULL};

static const char *const package_names[] = {
	"mlnx-ofed-kernel-dkms", "mlnx-ofed-kernel-utils", "mlnx-ofed-kernel-modules", "doca-ofed",
	"doca-host", "ofed-scripts", "mlnx-tools", "rdma-core", "ibverbs-providers", "infiniband-diags",
	"libibverbs1", "mft", "kernel-mft-dkms", NULL,
};

static void read_file_attr(struct rd_source *src, const char *path, struct rd_attr *a)
{
	struct rd_text t;
	a->path = rd_xasprintf("/%s", path);
	rd_read_file(src, path, RD_CAP_FILE, &t);
	a->value = t.data;
	a->err = t.err;
}

static int cmp_modload(const void *a, const void *b)
{
	const struct rd_modload_file *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->rank - y->rank;
}

static void load_modload(struct rd_source *src, struct rd_system *s)
{
	for (int rank = 0; rd_modload_dirs[rank]; rank++) {
		struct rd_strv names = {0};
		if (rd_list_dir(src, rd_modload_dirs[rank], &names) < 0)
			continue;
		for (size_t i = 0; i < names.n; i++) {
			if (!rd_str_has_suffix(names.v[i], ".conf"))
				continue;
			s->modload = rd_xrealloc(s->modload, (s->nmodload + 1) * sizeof *s->modload);
			struct rd_modload_file *f = &s->modload[s->nmodload++];
			memset(f, 0, sizeof *f);
			f->name = rd_xstrdup(names.v[i]);
			f->rank = rank;
			char *rel = rd_xasprintf("%s/%s", rd_modload_dirs[rank], names.v[i]);
			f->path = rd_xasprintf("/%s", rel);
			struct rd_text t;
			rd_read_file(src, rel, RD_CAP_FILE, &t);
			f->text.path = rd_xasprintf("/%s", rel);
			f->text.value = t.data;
			f->text.err = t.err;
			if (rd_attr_ok(&f->text)) {
				f->len = t.len;
				f->has_nul = memchr(t.data, '\0', t.len) != NULL;
				rd_parse_modules_load(t.data, t.len, &f->modules, &f->bad, &f->nbad);
			}
			free(rel);
		}
		rd_strv_free(&names);
	}
	if (s->nmodload > 1)
		qsort(s->modload, s->nmodload, sizeof *s->modload, cmp_modload);
	for (size_t i = 1; i < s->nmodload; i++)
		if (strcmp(s->modload[i].name, s->modload[i - 1].name) == 0)
			s->modload[i].overridden = true;
}

/* The effective file of name in dirs (the first directory that has it wins), NULL when absent
 * or masked (a link to /dev/null, or an empty file). */
static char *effective_file(struct rd_source *src, const char *const *dirs, const char *name)
{
	for (size_t i = 0; dirs[i]; i++) {
		char *rel = rd_xasprintf("%s/%s", dirs[i], name), *target = NULL;
		bool masked = false, found = false;
		if (rd_read_link(src, rel, &target) == 0) {
			found = true;
			masked = strcmp(target, "/dev/null") == 0;
		}
		free(target);
		if (!found) {
			struct stat st;
			if (rd_stat_sized(src, rel, &st) == 0) { /* the size is the answer: empty masks */
				found = true;
				masked = S_ISREG(st.st_mode) && st.st_size == 0;
			}
		}
		if (found) {
			char *path = masked ? NULL : rd_xasprintf("/%s", rel);
			free(rel);
			return path;
		}
		free(rel);
	}
	return NULL;
}

static bool driver_in(const char *driver, const char *const *list)
{
	for (size_t i = 0; driver && list[i]; i++)
		if (strcmp(driver, list[i]) == 0)
			return true;
	return false;
}

/* rdma-core's kernel-boot files: which of its module lists this host's hardware triggers. */
static void load_rdma_boot(struct rd_source *src, const struct rd_host *h, struct rd_system *s)
{
	static const char *const rules_dirs[] = {"etc/udev/rules.d", "run/udev/rules.d", "usr/lib/udev/rules.d",
						 "lib/udev/rules.d", NULL};
	static const char *const unit_dirs[] = {"etc/systemd/system", "run/systemd/system", "usr/local/lib/systemd/system",
						"usr/lib/systemd/system", "lib/systemd/system", NULL};
	/* 75-rdma-description.rules: ID_RDMA_<kind> from the driver of the device's PCI function */
	static const char *const ib_drivers[] = {"ib_mthca", "mlx4_core", "mlx5_core", "ib_qib", NULL};
	static const char *const roce_drivers[] = {"be2net", "bnxt_en", "hns", "mlx4_core", "mlx5_core", "qede", "vmw_pvrdma", NULL};
	static const char *const iwarp_drivers[] = {"cxgb4", "i40e", NULL};
	static const char *const opa_drivers[] = {"hfi1", NULL};
	struct rd_rdma_boot *b = &s->rdma_boot;
	b->ulp_rules = effective_file(src, rules_dirs, "90-rdma-ulp-modules.rules");
	b->hw_rules = effective_file(src, rules_dirs, "90-rdma-hw-modules.rules");
	b->unit = effective_file(src, unit_dirs, "rdma-load-modules@.service");
	/* the hardware: RDMA devices by the driver of their function, and Mellanox network functions
	 * (mlx4: 0x1003, 0x1004, 0x1007; the others mlx5) that will make one once their driver loads */
	bool any = h->ndevices > 0, ib = false, roce = false, iwarp = false, opa = false, mlx5 = false, mlx4 = false;
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		ib |= driver_in(d->driver, ib_drivers);
		roce |= driver_in(d->driver, roce_drivers) || (d->parent && rd_str_has_prefix(d->name, "rxe"));
		iwarp |= driver_in(d->driver, iwarp_drivers);
		opa |= driver_in(d->driver, opa_drivers);
		mlx5 |= d->driver && strcmp(d->driver, "mlx5_core") == 0;
		mlx4 |= d->driver && strcmp(d->driver, "mlx4_core") == 0;
	}
	for (size_t i = 0; i < s->npci; i++) {
		const struct rd_pci_fn *f = &s->pci[i];
		if (f->vendor != 0x15b3 || (f->class_code >> 16) != 0x02)
			continue;
		bool is4 = f->device == 0x1003 || f->device == 0x1004 || f->device == 0x1007;
		any = ib = roce = true;
		mlx5 |= !is4;
		mlx4 |= is4;
	}
	b->mlx5_ib = b->hw_rules && mlx5;
	b->mlx4_ib = b->hw_rules && mlx4;
	if (!b->ulp_rules || !b->unit)
		return;
	const struct {
		const char *kind;
		bool applies;
	} kinds[] = {{"rdma", any}, {"infiniband", ib}, {"roce", roce}, {"iwarp", iwarp}, {"opa", opa}};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		struct rd_rdma_modconf *c = &b->conf[b->nconf++];
		c->kind = kinds[i].kind;
		c->applies = kinds[i].applies;
		char *rel = rd_xasprintf("etc/rdma/modules/%s.conf", c->kind);
		struct rd_text t;
		rd_read_file(src, rel, RD_CAP_FILE, &t);
		c->path = rd_xasprintf("/%s", rel);
		c->text.path = rd_xstrdup(c->path);
		c->text.value = t.data;
		c->text.err = t.err;
		if (rd_attr_ok(&c->text))
			rd_parse_modules_load(t.data, t.len, &c->modules, NULL, NULL);
		free(rel);
	}
}

static const char *rdma_boot_when(const char *kind)
{
	return strcmp(kind, "rdma") == 0	   ? "when any RDMA device appears (rdma-core: rdma-load-modules@rdma.service)"
	       : strcmp(kind, "infiniband") == 0 ? "when an InfiniBand-capable RDMA device appears (rdma-core: rdma-load-modules@infiniband.service)"
	       : strcmp(kind, "roce") == 0	   ? "when a RoCE-capable RDMA device appears (rdma-core: rdma-load-modules@roce.service)"
	       : strcmp(kind, "iwarp") == 0	   ? "when an iWARP RDMA device appears (rdma-core: rdma-load-modules@iwarp.service)"
						   : "when an Omni-Path device appears (rdma-core: rdma-load-modules@opa.service)";
}

const char *rd_boot_loader(const struct rd_system *sys, const char *module, const char **when)
{
	rd_need(sys->unloaded, RD_LOAD_BOOT, "what loads the modules at boot");
	*when = NULL;
	for (size_t i = 0; i < sys->nmodload; i++)
		if (!sys->modload[i].overridden && rd_strv_contains(&sys->modload[i].modules, module))
			return sys->modload[i].path;
	const struct rd_rdma_boot *b = &sys->rdma_boot;
	for (size_t i = 0; i < b->nconf; i++)
		if (b->conf[i].applies && rd_strv_contains(&b->conf[i].modules, module)) {
			*when = rdma_boot_when(b->conf[i].kind);
			return b->conf[i].path;
		}
	if ((b->mlx5_ib && strcmp(module, "mlx5_ib") == 0) || (b->mlx4_ib && strcmp(module, "mlx4_ib") == 0)) {
		*when = module[3] == '5' ? "when a mlx5_core PCI function or netdev appears (rdma-core's udev rule)"
					 : "when a mlx4_core PCI function or netdev appears (rdma-core's udev rule)";
		return b->hw_rules;
	}
	return NULL;
}

static unsigned hex_attr(struct rd_source *src, const char *dir, const char *name)
{
	struct rd_text t;
	char *p = rd_xasprintf("%s/%s", dir, name);
	uint64_t v = 0;
	if (rd_read_attr(src, p, &t) == 0)
		rd_parse_u64(t.data, 0, 0xffffffffu, &v);
	rd_text_free(&t);
	free(p);
	return (unsigned)v;
}

void rd_system_load_pci(struct rd_source *src, struct rd_system *s)
{
	struct rd_strv names = {0};
	s->pci_err = -rd_list_dir(src, "sys/bus/pci/devices", &names);
	for (size_t i = 0; i < names.n; i++) {
		char *dir = rd_xasprintf("sys/bus/pci/devices/%s", names.v[i]);
		unsigned vendor = hex_attr(src, dir, "vendor");
		/* only what the checks care about: Mellanox/NVIDIA networking and NVIDIA GPUs */
		if (vendor == 0x15b3 || vendor == 0x10de) {
			s->pci = rd_xrealloc(s->pci, (s->npci + 1) * sizeof *s->pci);
			struct rd_pci_fn *f = &s->pci[s->npci++];
			memset(f, 0, sizeof *f);
			f->addr = rd_xstrdup(names.v[i]);
			f->vendor = vendor;
			f->device = hex_attr(src, dir, "device");
			f->class_code = hex_attr(src, dir, "class");
			char *dl = rd_xasprintf("%s/driver", dir), *target = NULL;
			if (rd_read_link(src, dl, &target) == 0) {
				const char *b = strrchr(target, '/');
				f->driver = rd_xstrdup(b ? b + 1 : target);
				free(target);
			}
			free(dl);
		}
		free(dir);
	}
	rd_strv_free(&names);
}

static void load_limits(struct rd_source *src, const char *pid, struct rd_proc_limits *l)
{
	char *p = rd_xasprintf("proc/%s/limits", pid);
	read_file_attr(src, p, &l->limits);
	free(p);
	l->ok = rd_attr_ok(&l->limits) &&
		rd_parse_limits_memlock(l->limits.value, &l->soft, &l->hard) == 0;
	if (rd_attr_ok(&l->limits) && !l->ok)
		l->limits.err = RD_EPARSE;
}

static bool is_pid_name(const char *name)
{
	if (name[0] < '1' || name[0] > '9')
		return false;
	return strspn(name, "0123456789") == strlen(name);
}

static void load_services(struct rd_source *src, const char *const *services, struct rd_system *s)
{
	if (!services || !*services)
		return;
	struct rd_strv pids = {0};
	rd_list_dir_only(src, "proc", is_pid_name, &pids); /* not kallsyms, keys, kmsg ... beside them */
	for (size_t i = 0; i < pids.n; i++) {
		char *cp = rd_xasprintf("proc/%s/comm", pids.v[i]);
		struct rd_text t;
		if (rd_read_attr(src, cp, &t) == 0) {
			bool service = false;
			for (const char *const *sv = services; *sv; sv++) {
				if (strcmp(t.data, *sv) != 0)
					continue;
				service = true;
				s->procs = rd_xrealloc(s->procs, (s->nprocs + 1) * sizeof *s->procs);
				struct rd_proc_limits *l = &s->procs[s->nprocs++];
				memset(l, 0, sizeof *l);
				l->pid = atoi(pids.v[i]);
				l->comm = rd_xstrdup(t.data);
				load_limits(src, pids.v[i], l);
			}
			if (!service) /* another process's name: only read to pick the services' */
				rd_source_forget(src, cp);
			rd_text_free(&t);
		}
		free(cp);
	}
	rd_strv_free(&pids);

	static const char *const unit_dirs[] = {"etc/systemd/system", "run/systemd/system", "usr/lib/systemd/system",
						"lib/systemd/system", NULL};
	for (const char *const *sv = services; *sv; sv++) {
		s->units = rd_xrealloc(s->units, (s->nunits + 1) * sizeof *s->units);
		struct rd_unit_limit *u = &s->units[s->nunits++];
		memset(u, 0, sizeof *u);
		u->service = rd_xstrdup(*sv);
		char buf[128];
		for (const char *const *d = unit_dirs; *d && !u->unit_path; d++) {
			char *p = rd_xasprintf("%s/%s.service", *d, *sv);
			struct rd_text t;
			if (rd_read_file(src, p, RD_CAP_ATTR, &t) == 0) {
				u->unit_path = rd_xasprintf("/%s", p);
				if (rd_systemd_value(t.data, "LimitMEMLOCK", buf, sizeof buf)) {
					u->value = rd_xstrdup(buf);
					u->set_in = rd_xstrdup(u->unit_path);
				}
				rd_text_free(&t);
			}
			free(p);
		}
		/* drop-ins: every directory, files in name order; later ones override */
		struct rd_strv dropins = {0};
		for (const char *const *d = unit_dirs; *d; d++) {
			char *dd = rd_xasprintf("%s/%s.service.d", *d, *sv);
			struct rd_strv names = {0};
			if (rd_list_dir(src, dd, &names) == 0)
				for (size_t i = 0; i < names.n; i++)
					if (rd_str_has_suffix(names.v[i], ".conf"))
						rd_strv_push_owned(&dropins, rd_xasprintf("%s\t%s", names.v[i], dd));
			rd_strv_free(&names);
			free(dd);
		}
		rd_strv_sort(&dropins);
		for (size_t i = 0; i < dropins.n; i++) {
			char *tab = strchr(dropins.v[i], '\t');
			*tab = '\0';
			char *p = rd_xasprintf("%s/%s", tab + 1, dropins.v[i]);
			struct rd_text t;
			if (rd_read_file(src, p, RD_CAP_ATTR, &t) == 0) {
				if (rd_systemd_value(t.data, "LimitMEMLOCK", buf, sizeof buf)) {
					free(u->value);
					free(u->set_in);
					u->value = rd_xstrdup(buf);
					u->set_in = rd_xasprintf("/%s", p);
				}
				rd_text_free(&t);
			}
			free(p);
		}
		rd_strv_free(&dropins);
		u->value_ok = u->value && rd_parse_systemd_size(u->value, &u->bytes) == 0;
	}
}

static void load_systemd_defaults(struct rd_source *src, struct rd_system *s)
{
	char buf[128];
	read_file_attr(src, "etc/systemd/system.conf", &s->system_conf);
	if (rd_attr_ok(&s->system_conf) && rd_systemd_value(s->system_conf.value, "DefaultLimitMEMLOCK", buf, sizeof buf)) {
		s->default_memlock = rd_xstrdup(buf);
		s->default_memlock_in = rd_xstrdup("/etc/systemd/system.conf");
	}
	struct rd_strv names = {0};
	if (rd_list_dir(src, "etc/systemd/system.conf.d", &names) == 0)
		for (size_t i = 0; i < names.n; i++) {
			char *p = rd_xasprintf("etc/systemd/system.conf.d/%s", names.v[i]);
			struct rd_text t;
			if (rd_str_has_suffix(names.v[i], ".conf") && rd_read_file(src, p, RD_CAP_ATTR, &t) == 0) {
				if (rd_systemd_value(t.data, "DefaultLimitMEMLOCK", buf, sizeof buf)) {
					free(s->default_memlock);
					free(s->default_memlock_in);
					s->default_memlock = rd_xstrdup(buf);
					s->default_memlock_in = rd_xasprintf("/%s", p);
				}
				rd_text_free(&t);
			}
			free(p);
		}
	rd_strv_free(&names);
	read_file_attr(src, "etc/security/limits.conf", &s->limits_conf);
}

static void load_openibd(struct rd_source *src, struct rd_system *s)
{
	static const char *const units[] = {"etc/systemd/system/openibd.service", "usr/lib/systemd/system/openibd.service",
					    "lib/systemd/system/openibd.service", NULL};
	static const char *const unit_dirs[] = {"etc/systemd/system", "usr/lib/systemd/system", "lib/systemd/system", NULL};
	for (const char *const *u = units; *u && !s->openibd_unit; u++)
		if (rd_exists(src, *u))
			s->openibd_unit = rd_xasprintf("/%s", *u);
	for (const char *const *d = unit_dirs; *d && !s->unit_dirs_present; d++)
		s->unit_dirs_present = rd_exists(src, *d);
	struct rd_strv names = {0};
	if (rd_list_dir(src, "etc/systemd/system", &names) == 0)
		for (size_t i = 0; i < names.n && !s->openibd_wants; i++) {
			if (!rd_str_has_suffix(names.v[i], ".wants"))
				continue;
			char *p = rd_xasprintf("etc/systemd/system/%s/openibd.service", names.v[i]);
			struct stat st;
			if (rd_stat(src, p, false, &st) == 0)
				s->openibd_wants = rd_xasprintf("/%s", p);
			free(p);
		}
	rd_strv_free(&names);
	/* systemctl is asked only when it can know an openibd: on the live host, when a unit or an
	 * init script (systemd-sysv-generator makes a unit of it) is in one of systemd's directories;
	 * else it would say "not-found", which is what no answer means here (absent) */
	static const char *const more[] = {"run/systemd/system/openibd.service", "run/systemd/generator/openibd.service",
					   "run/systemd/generator.late/openibd.service",
					   "usr/local/lib/systemd/system/openibd.service", "etc/init.d/openibd", NULL};
	bool unit = !rd_source_is_live(src) || s->openibd_unit || s->openibd_wants;
	for (const char *const *u = more; *u && !unit; u++)
		unit = rd_exists(src, *u);
	if (unit) {
		rd_run_command(src, "systemctl-is-active-openibd", &s->openibd_active);
		rd_run_command(src, "systemctl-is-enabled-openibd", &s->openibd_enabled);
	} else {
		s->openibd_active = (struct rd_text){.err = ENOENT, .status = -1};
		s->openibd_enabled = (struct rd_text){.err = ENOENT, .status = -1};
	}
	read_file_attr(src, "etc/infiniband/openib.conf", &s->openib_conf);
	if (rd_attr_ok(&s->openib_conf))
		rd_parse_openib_conf(s->openib_conf.value, &s->openib_modules);
}

/* "kernel/drivers/infiniband/core/ib_core.ko.xz:" -> "ib_core" */
static char *module_from_path(const char *p, size_t n)
{
	const char *slash = memrchr(p, '/', n);
	const char *b = slash ? slash + 1 : p;
	size_t bl = n - (size_t)(b - p);
	const char *dot = memchr(b, '.', bl);
	size_t ml = dot ? (size_t)(dot - b) : bl;
	char *m = rd_xstrndup(b, ml);
	for (char *c = m; *c; c++)
		if (*c == '-')
			*c = '_';
	return m;
}

static void load_kmods(struct rd_source *src, const struct rd_host *h, struct rd_system *s)
{
	if (!rd_attr_ok(&h->osrelease) || strchr(h->osrelease.value, '/')) {
		s->modules_dep.err = s->modules_builtin.err = ENOENT;
		return;
	}
	char *dep = rd_xasprintf("lib/modules/%s/modules.dep", h->osrelease.value);
	char *bi = rd_xasprintf("lib/modules/%s/modules.builtin", h->osrelease.value);
	read_file_attr(src, dep, &s->modules_dep);
	read_file_attr(src, bi, &s->modules_builtin);
	free(dep);
	free(bi);
	if (rd_attr_ok(&s->modules_dep))
		for (const char *line = s->modules_dep.value; *line;) {
			const char *nl = strchr(line, '\n');
			const char *colon = strchr(line, ':');
			if (colon && (!nl || colon < nl)) {
				rd_strv_push_owned(&s->kmod_names, module_from_path(line, (size_t)(colon - line)));
				rd_strv_push_owned(&s->kmod_paths, rd_xstrndup(line, (size_t)(colon - line)));
			}
			if (!nl)
				break;
			line = nl + 1;
		}
	if (rd_attr_ok(&s->modules_builtin))
		for (const char *line = s->modules_builtin.value; *line;) {
			const char *nl = strchr(line, '\n');
			size_t n = nl ? (size_t)(nl - line) : strlen(line);
			if (n)
				rd_strv_push_owned(&s->kmod_names, module_from_path(line, n));
			if (!nl)
				break;
			line = nl + 1;
		}
	/* the big texts are not needed once parsed: their value says what they held */
	size_t ndep = s->kmod_paths.n, nbuiltin = s->kmod_names.n - s->kmod_paths.n;
	if (rd_attr_ok(&s->modules_dep)) {
		free(s->modules_dep.value);
		s->modules_dep.value = rd_xasprintf("%zu module%s", ndep, ndep == 1 ? "" : "s");
	}
	if (rd_attr_ok(&s->modules_builtin)) {
		free(s->modules_builtin.value);
		s->modules_builtin.value = rd_xasprintf("%zu built-in module%s", nbuiltin, nbuiltin == 1 ? "" : "s");
	}
}

static void load_dkms(struct rd_source *src, struct rd_system *s)
{
	struct rd_strv mods = {0};
	if (rd_list_dir(src, "var/lib/dkms", &mods) == 0)
		for (size_t i = 0; i < mods.n; i++) {
			struct rd_strv vers = {0};
			char *md = rd_xasprintf("var/lib/dkms/%s", mods.v[i]);
			if (rd_list_dir(src, md, &vers) == 0)
				for (size_t j = 0; j < vers.n; j++) {
					if (strcmp(vers.v[j], "source") == 0)
						continue;
					char *vd = rd_xasprintf("%s/%s", md, vers.v[j]);
					struct stat st;
					if (rd_stat(src, vd, true, &st) == 0 && S_ISDIR(st.st_mode)) {
						rd_strv_push_owned(&s->dkms_trees, rd_xasprintf("%s/%s", mods.v[i], vers.v[j]));
						struct rd_strv kvers = {0};
						if (rd_list_dir(src, vd, &kvers) == 0)
							for (size_t k = 0; k < kvers.n; k++)
								if (strcmp(kvers.v[k], "source") && strcmp(kvers.v[k], "build"))
									rd_strv_push_owned(&s->dkms_built,
											   rd_xasprintf("%s/%s/%s", mods.v[i],
													vers.v[j], kvers.v[k]));
						rd_strv_free(&kvers);
					}
					free(vd);
				}
			rd_strv_free(&vers);
			free(md);
		}
	rd_strv_free(&mods);
	rd_run_command(src, "dkms-status", &s->dkms_status);
}

static void load_packages(struct rd_source *src, struct rd_system *s)
{
	read_file_attr(src, "var/lib/dpkg/status", &s->dpkg_status);
	size_t n = 0;
	while (package_names[n])
		n++;
	s->packages = rd_xcalloc(n, sizeof *s->packages);
	s->npackages = n;
	/* one pass over the status file (768 KB on a desktop-sized install) for every package */
	int found[sizeof package_names / sizeof package_names[0]];
	char versions[sizeof package_names / sizeof package_names[0]][sizeof s->packages[0].version];
	rd_dpkg_packages(rd_attr_ok(&s->dpkg_status) ? s->dpkg_status.value : NULL, package_names, n, found,
			 versions[0], sizeof versions[0]);
	for (size_t i = 0; i < n; i++) {
		s->packages[i].name = package_names[i];
		s->packages[i].installed = found[i] == 1;
		memcpy(s->packages[i].version, versions[i], sizeof versions[i]);
	}
	if (rd_attr_ok(&s->dpkg_status)) { /* 768 KB on a desktop-sized install: what it said is kept */
		size_t ninst = 0;
		for (size_t i = 0; i < n; i++)
			ninst += s->packages[i].installed;
		free(s->dpkg_status.value);
		s->dpkg_status.value = rd_xasprintf("%zu of the %zu RDMA packages looked for installed", ninst, n);
	}
	rd_run_command(src, "ofed_info-s", &s->ofed_info);
	s->ofed_ok = s->ofed_info.err == 0 && s->ofed_info.status == 0 &&
		     rd_parse_ofed_info(s->ofed_info.data, &s->ofed) == 0;
}

#define CAP_SYSLOG 34

/* dmesg exits 1 with nothing on stdout when kernel.dmesg_restrict=1 and the caller lacks
 * CAP_SYSLOG (its "Operation not permitted" goes to stderr): record that as EPERM, so the kernel
 * log is "not readable by this user", not "cannot read".  A snapshot records EPERM itself. */
static void load_dmesg(struct rd_source *src, struct rd_system *s)
{
	rd_run_command(src, "dmesg", &s->dmesg);
	rd_attr_read(src, "proc/sys/kernel/dmesg_restrict", &s->dmesg_restrict);
	bool restricted = rd_attr_ok(&s->dmesg_restrict) && strcmp(s->dmesg_restrict.value, "1") == 0;
	bool privileged = !s->capeff_ok || ((s->capeff >> CAP_SYSLOG) & 1);
	if (s->dmesg.err == 0 && s->dmesg.status != 0 && s->dmesg.len == 0 && restricted && !privileged) {
		rd_text_free(&s->dmesg);
		s->dmesg.err = EPERM;
	}
}

/* The system model of the load running on this thread, for nccl_getenv (the model's NCCL readers
 * take a getenv-like function). */
static _Thread_local const struct rd_system *nccl_sys;

/* NCCL's order: the environment (this process's, or --env-from's), else the conf files (c NULL:
 * none). */
static const char *nccl_lookup(const struct rd_system *s, const struct rd_nccl_conf *c, const char *name,
			       const char **from)
{
	const char *v = rd_nccl_environ_get(&s->nccl_environ, name, from);
	return v || !c ? v : rd_nccl_conf_get(c, name, from);
}

static const char *nccl_getenv(const char *name)
{
	return nccl_lookup(nccl_sys, &nccl_sys->nccl_conf, name, NULL);
}

const char *rd_nccl_param(const struct rd_system *sys, const char *name, const char **from)
{
	rd_need(sys->unloaded, RD_LOAD_NCCL, "NCCL's conf files");
	return nccl_lookup(sys, &sys->nccl_conf, name, from);
}

static bool is_nccl_lib(const char *name)
{
	return rd_nccl_libname_version(name) != 0;
}

static bool is_conf_name(const char *name)
{
	size_t n = strlen(name);
	return n >= 6 && strcmp(name + n - 5, ".conf") == 0;
}

/* One library directory: the libnccl.so.2.X.Y files in it (the versioned name NCCL's packages,
 * tarballs and containers install; libnccl.so.2 alone carries no version).  Only those names are
 * listed, so a snapshot does not carry the names of every library the host has. */
static void nccl_lib_dir(struct rd_source *src, const char *dir, struct rd_nccl_env *e)
{
	struct rd_strv names = {0};
	if (rd_list_dir_only(src, dir, is_nccl_lib, &names) == 0)
		for (size_t i = 0; i < names.n; i++) {
			unsigned v = rd_nccl_libname_version(names.v[i]);
			if (!v)
				continue;
			if (!e->lib_oldest || v < e->lib_oldest) {
				e->lib_oldest = v;
				snprintf(e->lib_oldest_where, sizeof e->lib_oldest_where, "%s in /%s", names.v[i], dir);
			}
			if (v > e->lib_newest)
				e->lib_newest = v;
		}
	rd_strv_free(&names);
}

/* NCCL's version where the root shows it: the usual library directories, CUDA's and those of
 * etc/ld.so.conf.d (absolute paths only; "include" lines and globs are not followed). */
static void load_nccl_libs(struct rd_source *src, struct rd_nccl_env *e)
{
	static const char *const dirs[] = {"usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "usr/lib64", "usr/lib",
					   "usr/local/lib", "usr/local/lib64", "usr/local/cuda/lib64",
					   "usr/local/cuda/targets/x86_64-linux/lib", "usr/local/cuda/targets/sbsa-linux/lib",
					   "opt/nccl/lib", NULL};
	struct rd_strv seen = {0};
	for (const char *const *d = dirs; *d; d++)
		rd_strv_push(&seen, *d);
	struct rd_strv confs = {0};
	if (rd_list_dir_only(src, "etc/ld.so.conf.d", is_conf_name, &confs) == 0)
		for (size_t i = 0; i < confs.n && seen.n < 64; i++) {
			char *path = rd_xasprintf("etc/ld.so.conf.d/%s", confs.v[i]);
			struct rd_text t = {0};
			if (rd_read_file(src, path, RD_CAP_ATTR, &t) == 0 && t.data)
				for (char *line = t.data, *next; line && seen.n < 64; line = next) {
					next = strchr(line, '\n');
					if (next)
						*next++ = '\0';
					size_t len = strcspn(line, " \t\r#");
					line[len] = '\0';
					if (line[0] != '/' || !line[1] || strpbrk(line, "*?[") || strstr(line, ".."))
						continue;
					while (len > 1 && line[len - 1] == '/')
						line[--len] = '\0';
					bool dup = false;
					for (size_t k = 0; k < seen.n && !dup; k++)
						dup = strcmp(seen.v[k], line + 1) == 0;
					if (!dup)
						rd_strv_push(&seen, line + 1);
				}
			rd_text_free(&t);
			free(path);
		}
	rd_strv_free(&confs);
	for (size_t i = 0; i < seen.n; i++)
		nccl_lib_dir(src, seen.v[i], e);
	rd_strv_free(&seen);
}

int rd_system_load(struct rd_source *src, const struct rd_host *h, const char *const *services,
		   struct rd_system *s)
{
	return rd_system_load_parts(src, h, services, 0, 0, s);
}

int rd_system_load_parts(struct rd_source *src, const struct rd_host *h, const char *const *services,
			 unsigned flags, int env_pid, struct rd_system *s)
{
	memset(s, 0, sizeof *s);
	s->unloaded = rd_load_unread(flags);
	s->etc_present = rd_exists(src, "etc");
	s->dev_present = rd_exists(src, "dev");
	if (rd_load_wants(flags, RD_LOAD_MODLOAD))
		load_modload(src, s);
	/* the PCI functions also say whether a host without RDMA devices has RDMA hardware */
	if (rd_load_wants(flags, RD_LOAD_PCI | RD_LOAD_MODLOAD | RD_LOAD_TOPO) || !h->ndevices) {
		rd_system_load_pci(src, s);
		s->unloaded &= ~(unsigned)RD_LOAD_PCI;
	}
	if (rd_load_wants(flags, RD_LOAD_MODLOAD))
		load_rdma_boot(src, h, s);
	if (rd_load_wants(flags, RD_LOAD_PEERMEM)) {
		s->memory_peers_dir = rd_exists(src, "sys/kernel/mm/memory_peers");
		/* a snapshot holds sys/kernel/mm only when memory_peers exists; a root with /proc's kernel
		 * state is a capture of the whole host, where its absence is real */
		s->kernel_mm_dir = s->memory_peers_dir || rd_exists(src, "sys/kernel/mm") ||
				   rd_exists(src, "proc/sys/kernel");
		rd_attr_read(src, "sys/kernel/mm/memory_peers/nv_mem/version", &s->memory_peers_nv_mem);
		rd_attr_read(src, "sys/kernel/mm/memory_peers/nv_mem_nc/version", &s->memory_peers_nv_mem_nc);
	}
	if (rd_load_wants(flags, RD_LOAD_LIMITS))
		load_limits(src, "self", &s->self);
	if (rd_load_wants(flags, RD_LOAD_LIMITS | RD_LOAD_DMESG)) {
		read_file_attr(src, "proc/self/status", &s->self_status);
		s->capeff_ok = rd_attr_ok(&s->self_status) && rd_parse_capeff(s->self_status.value, &s->capeff) == 0;
	}
	if (rd_load_wants(flags, RD_LOAD_LIMITS)) {
		load_services(src, services, s);
		load_systemd_defaults(src, s);
	}
	if (rd_load_wants(flags, RD_LOAD_OPENIBD))
		load_openibd(src, s);
	if (rd_load_wants(flags, RD_LOAD_KMODS))
		load_kmods(src, h, s);
	if (rd_load_wants(flags, RD_LOAD_DKMS))
		load_dkms(src, s);
	if (rd_load_wants(flags, RD_LOAD_PACKAGES)) {
		load_packages(src, s);
		rd_rpmdb_load(src, s->dpkg_status.err == 0, &s->rpm); /* RPM hosts: model/rpmdb.h */
	}
	if (rd_load_wants(flags, RD_LOAD_DMESG))
		load_dmesg(src, s);
	if (rd_load_wants(flags, RD_LOAD_MFT))
		rd_mft_load(src, h, &s->mft);
	else
		s->mft.unloaded = true;
	if (!(s->unloaded & RD_LOAD_STACK))
		rd_stack_derive(h, s, &s->stack);
	nccl_sys = s;
	s->nccl_topo_err = -1;
	rd_nccl_environ_load(src, env_pid, &s->nccl_environ);
	if (rd_load_wants(flags, RD_LOAD_NCCL)) { /* NCCL's files, then what its parameters name */
		rd_nccl_conf_load(src, rd_nccl_environ_get(&s->nccl_environ, "NCCL_CONF_FILE", NULL),
				  rd_nccl_environ_get(&s->nccl_environ, "HOME", NULL), &s->nccl_conf);
		rd_nccl_ifs_load(src, nccl_getenv("NCCL_SOCKET_IFNAME"), &s->nccl_ifs);
		rd_nccl_pkeys_load(src, h, nccl_getenv("NCCL_IB_PKEY"), &s->nccl_pkeys);
		s->nccl_topo_err = rd_nccl_topo_file_err(src, nccl_getenv("NCCL_TOPO_FILE"));
	}
	rd_nccl_env_read(&s->nccl_env, nccl_getenv); /* roce.gid: what NCCL would see (model/gid.h) */
	if (rd_load_wants(flags, RD_LOAD_GIDS))
		load_nccl_libs(src, &s->nccl_env);
	rd_link_load(src, h, flags, &s->link); /* link health facts (model/link.c) */
	if (rd_load_wants(flags, RD_LOAD_TOPO))
		rd_pcitopo_load(src, h, s->pci, s->npci, s->pci_err, nccl_getenv, &s->topo);
	nccl_sys = NULL;
	return 0;
}

static void free_limits(struct rd_proc_limits *l)
{
	free(l->comm);
	rd_attr_free(&l->limits);
}

void rd_system_free(struct rd_system *s)
{
	rd_nccl_conf_free(&s->nccl_conf);
	rd_nccl_environ_free(&s->nccl_environ);
	rd_nccl_ifs_free(&s->nccl_ifs);
	rd_nccl_pkeys_free(&s->nccl_pkeys);
	rd_link_free(&s->link);
	rd_pcitopo_free(&s->topo);
	for (size_t i = 0; i < s->nmodload; i++) {
		free(s->modload[i].name);
		free(s->modload[i].path);
		rd_attr_free(&s->modload[i].text);
		rd_strv_free(&s->modload[i].modules);
		rd_modload_bad_free(s->modload[i].bad, s->modload[i].nbad);
	}
	free(s->modload);
	free(s->rdma_boot.ulp_rules);
	free(s->rdma_boot.hw_rules);
	free(s->rdma_boot.unit);
	for (size_t i = 0; i < s->rdma_boot.nconf; i++) {
		free(s->rdma_boot.conf[i].path);
		rd_attr_free(&s->rdma_boot.conf[i].text);
		rd_strv_free(&s->rdma_boot.conf[i].modules);
	}
	for (size_t i = 0; i < s->npci; i++) {
		free(s->pci[i].addr);
		free(s->pci[i].driver);
	}
	free(s->pci);
	rd_attr_free(&s->memory_peers_nv_mem);
	rd_attr_free(&s->memory_peers_nv_mem_nc);
	free_limits(&s->self);
	rd_attr_free(&s->self_status);
	for (size_t i = 0; i < s->nprocs; i++)
		free_limits(&s->procs[i]);
	free(s->procs);
	for (size_t i = 0; i < s->nunits; i++) {
		free(s->units[i].service);
		free(s->units[i].unit_path);
		free(s->units[i].set_in);
		free(s->units[i].value);
	}
	free(s->units);
	rd_attr_free(&s->system_conf);
	free(s->default_memlock);
	free(s->default_memlock_in);
	rd_attr_free(&s->limits_conf);
	free(s->openibd_unit);
	free(s->openibd_wants);
	rd_text_free(&s->openibd_active);
	rd_text_free(&s->openibd_enabled);
	rd_attr_free(&s->openib_conf);
	rd_strv_free(&s->openib_modules);
	rd_attr_free(&s->modules_dep);
	rd_attr_free(&s->modules_builtin);
	rd_strv_free(&s->kmod_names);
	rd_strv_free(&s->kmod_paths);
	rd_strv_free(&s->dkms_trees);
	rd_strv_free(&s->dkms_built);
	rd_text_free(&s->dkms_status);
	rd_attr_free(&s->dpkg_status);
	rd_rpmdb_free(&s->rpm);
	free(s->packages);
	rd_text_free(&s->ofed_info);
	rd_text_free(&s->dmesg);
	rd_attr_free(&s->dmesg_restrict);
	rd_stack_free(&s->stack);
	rd_mft_free(&s->mft);
	memset(s, 0, sizeof *s);
}

const struct rd_stack *rd_system_stack(const struct rd_system *s)
{
	rd_need(s->unloaded, RD_LOAD_STACK, "the stack facts");
	return &s->stack;
}
