/* The parts of the model each check reads (checks/needs.h).  The stack facts (model/stack.h) come
 * from the packages, ofed_info, the modules, the ports' has_smi, modules.dep and openibd. */
#include "checks/needs.h"

#include <string.h>

#include "model/host.h"

#define STACK (RD_LOAD_PACKAGES | RD_LOAD_MODULES | RD_LOAD_SUBNET | RD_LOAD_KMODS | RD_LOAD_OPENIBD)
/* which ports the port rules judge (rd_port_role): a VF (the PCI function), the management NIC
 * (the port's netdevs, named by its GIDs) */
#define ROLE (RD_LOAD_PORTS | RD_LOAD_GIDS | RD_LOAD_DEVLINK)
/* rdma-core's boot loading is decided by the devices' drivers and the PCI functions */
#define BOOT (RD_LOAD_MODLOAD | RD_LOAD_DEVLINK | RD_LOAD_PCI)

static const struct {
	const char *id;
	unsigned parts;
} needs[] = {
	{"stack.flavor", STACK},
	{"stack.mixed", STACK},
	{"stack.dkms", RD_LOAD_DKMS | RD_LOAD_PACKAGES}, /* RPM hosts: OFED's kmod packages are not DKMS */
	{"kernel.log", RD_LOAD_DMESG | STACK}, /* a module that failed to load is judged by its build (kmod_build.h) */
	{"modules.loaded", RD_LOAD_PORTS | RD_LOAD_MODULES},
	{"modules.persistent", RD_LOAD_MODULES | BOOT},
	{"modules.peermem_order", RD_LOAD_MODULES | BOOT},
	{"devnodes.present", RD_LOAD_PORTS | RD_LOAD_CLASSES | RD_LOAD_MODULES},
	{"ports.state", ROLE | RD_LOAD_SUBNET}, /* an INIT port: is there an SM */
	{"ports.rate", RD_LOAD_DEVINFO | ROLE},
	{"ports.sm", ROLE | RD_LOAD_SUBNET},
	{"firmware.uniform", RD_LOAD_DEVINFO | RD_LOAD_DEVLINK | RD_LOAD_MFT}, /* flint where sysfs has none */
	{"firmware.pinned", STACK | RD_LOAD_DEVINFO | RD_LOAD_DEVLINK | RD_LOAD_MFT}, /* the release's train */
	{"memlock.limit", RD_LOAD_LIMITS},
	{"peermem.loaded", STACK | RD_LOAD_PCI},
	{"peermem.registered", STACK | RD_LOAD_PEERMEM},
	{"openibd.state", STACK},
	{"openibd.conf", STACK},
	{"roce.mtu", ROLE},
	{"roce.gid", ROLE},
	{"roce.qos", ROLE | RD_LOAD_MFT},
	{"link.phy", ROLE | RD_LOAD_PCI | RD_LOAD_MFT},
	{"mlxconfig.policy", RD_LOAD_DEVINFO | RD_LOAD_DEVLINK | RD_LOAD_MFT},
	{"link.counters", ROLE},
	{"link.flaps", ROLE | RD_LOAD_DMESG},
	{"pcie.link", RD_LOAD_DEVINFO | RD_LOAD_DEVLINK | RD_LOAD_PCI | RD_LOAD_DMESG},
};

unsigned rd_check_needs(const char *id)
{
	for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
		if (strcmp(needs[i].id, id) == 0)
			return needs[i].parts;
	return RD_LOAD_ALL;
}
