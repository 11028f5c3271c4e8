/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Lookups in the host and system model that the checks, the renderers and the derived stack facts
 * (model/stack.c) share (model/host.h, model/system.h). */
#include <string.h>

#include "model/policy.h"
#include "model/system.h"

bool rd_module_loaded(const struct rd_host *h, const char *name)
{
	const struct rd_module *m = rd_host_module(h, name);
	return m && m->loaded;
}

bool rd_host_has_rdma_hardware(const struct rd_host *h, const struct rd_system *sys)
{
	if (h->ndevices)
		return true;
	for (size_t i = 0; i < sys->npci; i++)
		if (rd_pci_is_mellanox_nic(&sys->pci[i]))
			return true;
	return false;
}

const struct rd_modload_file *rd_modload_find(const struct rd_system *sys, const char *module)
{
	rd_need(sys->unloaded, RD_LOAD_MODLOAD, "modules-load.d");
	for (size_t i = 0; i < sys->nmodload; i++)
		if (!sys->modload[i].overridden && rd_strv_contains(&sys->modload[i].modules, module))
			return &sys->modload[i];
	return NULL;
}

/* The module that registers an RDMA device, from the driver of its PCI function, else from the name
 * the kernel driver gives it (ib_register_device's "mlx4_%d", "irdma%d", ...), else, for a soft
 * device on a netdev, from its node type (rdma_rxe: a CA; siw: an iWARP RNIC).  NULL: not known. */
static const char *driver_module(const struct rd_device *d)
{
	static const struct {
		const char *pci_driver, *name_prefix, *module;
	} drivers[] = {
		{"mlx5_core", "mlx5_", "mlx5_ib"},  {"mlx4_core", "mlx4_", "mlx4_ib"},  {"ice", "irdma", "irdma"},
		{"i40e", NULL, "irdma"},            {"bnxt_en", "bnxt_re", "bnxt_re"},  {"efa", "efa_", "efa"},
		{"mana", "mana_", "mana_ib"},       {"qede", "qedr", "qedr"},           {"erdma", "erdma_", "erdma"},
		{"vmw_pvrdma", "vmw_pvrdma", "vmw_pvrdma"}, {"hfi1", "hfi1_", "hfi1"}, {"ib_qib", "qib", "ib_qib"},
		{"cxgb4", "cxgb4_", "iw_cxgb4"},   {"enic", "usnic_", "usnic_verbs"}, {"be2net", "ocrdma", "ocrdma"},
	};
	for (size_t i = 0; d->driver && i < sizeof drivers / sizeof drivers[0]; i++)
		if (strcmp(d->driver, drivers[i].pci_driver) == 0)
			return drivers[i].module;
	for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
		if (drivers[i].name_prefix && strncmp(d->name, drivers[i].name_prefix, strlen(drivers[i].name_prefix)) == 0)
			return drivers[i].module;
	if (!d->pci_addr && d->parent)
		return d->node_type_v == 4 ? "siw" : d->node_type_v == 1 ? "rdma_rxe" : NULL;
	return NULL;
}

void rd_policy_add_driver_modules(struct rd_policy *p, const struct rd_host *h)
{
	if (p->modules_set)
		return;
	for (size_t i = 0; i < h->ndevices; i++) {
		/* a soft device (rxe, siw) is made by `rdma link add`, which loads its module; listed at
		 * boot, the module would bring no device back */
		const char *m = h->devices[i].pci_addr || !h->devices[i].parent ? driver_module(&h->devices[i]) : NULL;
		if (m && !rd_strv_contains(&p->modules, m))
			rd_strv_push(&p->modules, m);
	}
}

bool rd_host_device_driver(const struct rd_host *h, const char *module)
{
	rd_need(h->unloaded, RD_LOAD_DEVLINK, "the devices' drivers");
	for (size_t i = 0; i < h->ndevices; i++) {
		const char *m = driver_module(&h->devices[i]);
		if (m && strcmp(m, module) == 0)
			return true;
	}
	return false;
}

const struct rd_package *rd_system_package(const struct rd_system *s, const char *name)
{
	rd_need(s->unloaded, RD_LOAD_PACKAGES, "the packages");
	for (size_t i = 0; i < s->npackages; i++)
		if (strcmp(s->packages[i].name, name) == 0)
			return &s->packages[i];
	return NULL;
}

bool rd_host_has_mlx5(const struct rd_host *h, const struct rd_system *sys)
{
	rd_need(h->unloaded, RD_LOAD_DEVLINK, "the devices' drivers");
	for (size_t i = 0; i < h->ndevices; i++)
		if ((h->devices[i].driver && strcmp(h->devices[i].driver, "mlx5_core") == 0) ||
		    rd_str_has_prefix(h->devices[i].name, "mlx5_"))
			return true;
	rd_need(sys->unloaded, RD_LOAD_PCI, "the PCI functions");
	for (size_t i = 0; i < sys->npci; i++) {
		unsigned d = sys->pci[i].device;
		if (sys->pci[i].vendor == 0x15b3 && (sys->pci[i].class_code >> 16) == 0x02 && d != 0x1003 &&
		    d != 0x1004 && d != 0x1007)
			return true;
	}
	return false;
}

int rd_modules_to_load(const struct rd_host *h, const struct rd_system *s, const struct rd_policy *p,
		       struct rd_strv *need)
{
	if (!rd_host_has_rdma_hardware(h, s))
		return 0;
	rd_need(h->unloaded, RD_LOAD_MODULES, "the modules");
	if (h->proc_modules.err && h->proc_modules.err != RD_EPARSE)
		return -1;
	bool mlx5 = rd_host_has_mlx5(h, s);
	for (size_t i = 0; i < p->modules.n; i++) {
		const char *m = p->modules.v[i];
		if (rd_module_loaded(h, m) || (!mlx5 && rd_str_has_prefix(m, "mlx5_")) ||
		    rd_host_device_driver(h, m))
			continue; /* loaded, no mlx5 hardware for it to drive, or a device it registers is there */
		rd_strv_push(need, m);
	}
	return 0;
}
