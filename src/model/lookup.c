/* Lookups in the host and system model that the checks and the renderers share (model/host.h,
 * model/system.h). */
#include <string.h>

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
	for (size_t i = 0; i < sys->nmodload; i++)
		if (!sys->modload[i].overridden && rd_strv_contains(&sys->modload[i].modules, module))
			return &sys->modload[i];
	return NULL;
}
