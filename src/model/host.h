/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The host model: typed facts about one host's RDMA stack, read through an rd_source.
 *
 * Ownership: rd_host_load fills an rd_host that owns every string and array inside it;
 * rd_host_free releases all of it.  Nothing in the model points into the source.
 *
 * Every value read from a file is an rd_attr that keeps the host path it came from and either
 * the text (one trailing newline stripped) or the error, so a check can always show evidence
 * and say UNKNOWN with the reason instead of guessing. */
#ifndef RD_HOST_H
#define RD_HOST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/parse.h"
#include "source/source.h"

struct rd_attr {
	char *path;  /* the host's path, "/sys/class/infiniband/mlx5_0/fw_ver" */
	char *value; /* NULL when err != 0 */
	int err;     /* 0, an errno, or an RD_E* code (RD_EPARSE when present but malformed) */
};
/* A part read that was not loaded (rd_need, below): aborts after one line on stderr naming what. */
void rd_need_failed(unsigned missing, const char *what) __attribute__((noreturn));
/* True when a was read.  An attribute of a part this run did not load (err RD_ENOTLOADED) aborts
 * instead: a check that reads it lacks a need (checks/catalogue.h). */
static inline bool rd_attr_ok(const struct rd_attr *a)
{
	if (a->err == RD_ENOTLOADED)
		rd_need_failed(0, a->path);
	return a->err == 0 && a->value != NULL;
}
/* The value when the attribute was read (and parsed), else NULL: what a renderer shows. */
static inline const char *rd_attr_value(const struct rd_attr *a)
{
	return rd_attr_ok(a) ? a->value : NULL;
}

struct rd_gid {
	unsigned index;
	uint8_t gid[16];
	char *text;     /* as read */
	char *type;     /* gid_attrs/types/N: "RoCE v2", "IB/RoCE v1"; NULL if unreadable */
	char *ndev;     /* gid_attrs/ndevs/N; NULL if unreadable (EINVAL on IB and empty entries) */
};

struct rd_counter {
	char *name;
	struct rd_attr attr;
	uint64_t value; /* valid when attr.err == 0 */
};

struct rd_netdev {
	char *name;
	struct rd_attr mtu, operstate, carrier;
	uint64_t mtu_v; /* 0 when unknown */
};

struct rd_port {
	unsigned num;
	char *dir;       /* host path of the port directory */
	struct rd_attr state, phys_state, rate, link_layer, lid, lid_mask_count, sm_lid, sm_sl, cap_mask;
	struct rd_attr has_smi; /* MLNX_OFED ib_core only */
	/* parsed; -1 when the attr is missing or malformed */
	int state_v, phys_v;
	long lid_v, sm_lid_v, lmc_v, sm_sl_v;
	int64_t cap_mask_v;
	bool rate_ok;
	struct rd_rate rate_v;
	bool is_ib;      /* link_layer InfiniBand (or absent: the kernel default before it existed) */
	struct rd_gid *gids;     /* non-zero GIDs, plus index 0 always when readable */
	size_t ngids;
	int gids_err;
	struct rd_strv pkeys;    /* values as read, "0xffff" */
	int pkeys_err;
	struct rd_netdev *netdevs; /* distinct netdevs named by gid_attrs/ndevs */
	size_t nnetdevs;
	struct rd_counter *counters, *hw_counters; /* read by rd_link_counters_load (model/link.h) */
	size_t ncounters, nhw_counters;
};

struct rd_device {
	char *name;
	char *dir; /* host path, /sys/class/infiniband/<name> */
	struct rd_attr node_type, node_guid, sys_image_guid, fw_ver, hca_type, hw_rev, board_id,
		node_desc;
	int node_type_v;     /* 1 CA, 2 switch, 3 router, 4 RNIC ...; -1 unknown */
	uint64_t node_guid_v; /* 0 when unknown */
	unsigned device_id;   /* from hca_type (decimal PCI id); 0 when unknown */
	const char *model;    /* "ConnectX-7"; static string or NULL */
	char *pci_addr;       /* "0000:0c:00.0" from the device link, or NULL */
	int numa_node;        /* -1 when unknown */
	char *parent;         /* soft devices (rxe, siw): the netdev they sit on */
	char *driver;         /* driver of the parent PCI function ("mlx5_core"), or NULL */
	struct rd_port *ports;
	size_t nports;
	int ports_err;        /* reading ports/ failed */
};

/* An entry of /sys/class/infiniband_verbs or /sys/class/infiniband_mad. */
struct rd_class_dev {
	char *name;   /* uverbs0, umad3, issm3 */
	struct rd_attr ibdev, port; /* port only for umad/issm */
	long port_v;
};

struct rd_module {
	char *name;
	bool loaded;          /* listed in /proc/modules (or, without it, present in /sys/module) */
	bool builtin;         /* present in /sys/module without initstate: built into the kernel */
	unsigned long long size;
	int refcnt;
	struct rd_strv holders;
	char *state;          /* Live, Loading, Unloading */
	char *taint;          /* "OE", "" */
	struct rd_attr version, srcversion, sys_taint, sys_refcnt, initstate;
};

/* Permission bits and owner of a /dev/infiniband node; mode is RD_MODE_UNKNOWN when not known. */
#define RD_MODE_UNKNOWN 0xffffu
struct rd_devnode_perm {
	unsigned mode, uid, gid;
};

/* The longest device name the kernel gives (IB_DEVICE_NAME_MAX less its NUL), and of other
 * sysfs entries (a counter: NAME_MAX). */
#define RD_DEVICE_NAME_MAX 63
#define RD_NAME_MAX 255

struct rd_host {
	struct rd_attr osrelease, hostname;
	struct rd_device *devices; /* natural name order: mlx5_2 before mlx5_10 */
	size_t ndevices;
	int devices_err;           /* /sys/class/infiniband unreadable (ENOENT: no RDMA devices) */
	struct rd_strv refused_devices; /* its entries that are not kernel device names
					 * (rd_is_kernel_name): not devices, not read */
	struct rd_class_dev *uverbs, *umad, *issm;
	size_t nuverbs, numad, nissm;
	int verbs_class_err, mad_class_err;
	struct rd_strv devnodes;   /* names in /dev/infiniband */
	struct rd_devnode_perm *devnode_perms; /* parallel to devnodes: from the character device
						* (live) or a snapshot's rdma-doctor/devnodes */
	int devnodes_err;
	struct rd_attr proc_modules;
	bool modules_listed;       /* the root says which modules are loaded: /proc/modules, or
				    * /sys/module, or a /proc without modules (a kernel without
				    * loadable modules); false in a partial capture */
	struct rd_module *modules; /* every module of /proc/modules, then RDMA ones only in sysfs */
	size_t nmodules;
	unsigned unloaded;         /* the parts (RD_LOAD_*) this load did not read: they are empty,
				    * and their accessors abort (rd_need); 0 in a model built by hand */
};

enum {
	/* With RD_LOAD_ONLY, only the parts named here are read (what the selected checks need,
	 * the needs column of checks/catalogue.h); without it, all of them (snapshot, inventory views).  The devices' and
	 * ports' names, the hostname and the kernel are always read. */
	RD_LOAD_ONLY = 1 << 1,
	RD_LOAD_DEVINFO = 1 << 2,  /* device attributes (fw_ver, board_id, hca_type, node_guid...; node_type is always read) */
	RD_LOAD_PORTS = 1 << 3,    /* port state, phys_state, link_layer, rate */
	RD_LOAD_GIDS = 1 << 4,     /* GIDs, their types and netdevs, the netdevs' MTU and state */
	RD_LOAD_PKEYS = 1 << 5,    /* P_Keys (no check reads them: a snapshot keeps them) */
	RD_LOAD_CLASSES = 1 << 6,  /* infiniband_verbs, infiniband_mad, /dev/infiniband */
	RD_LOAD_MODULES = 1 << 7,  /* /proc/modules, /sys/module */
	/* the system model (system.h: rd_system_load_parts) */
	RD_LOAD_MODLOAD = 1 << 8,  /* modules-load.d, rdma-core's boot loading */
	RD_LOAD_PCI = 1 << 9,      /* PCI functions of Mellanox/NVIDIA */
	RD_LOAD_PEERMEM = 1 << 10, /* /sys/kernel/mm/memory_peers */
	RD_LOAD_LIMITS = 1 << 11,  /* memlock limits, capabilities, services' units, systemd defaults */
	RD_LOAD_OPENIBD = 1 << 12, /* openibd unit, systemctl, openib.conf */
	RD_LOAD_KMODS = 1 << 13,   /* modules.dep, modules.builtin */
	RD_LOAD_DKMS = 1 << 14,    /* /var/lib/dkms, dkms status */
	RD_LOAD_PACKAGES = 1 << 15, /* dpkg status, ofed_info */
	RD_LOAD_DMESG = 1 << 16,   /* the kernel log */
	RD_LOAD_SUBNET = 1 << 17,  /* port lid, lid_mask_count, sm_lid, sm_sl, cap_mask, has_smi */
	RD_LOAD_DEVLINK = 1 << 18, /* a device's PCI function (address, NUMA node, driver), its parent */
	RD_LOAD_MFT = 1 << 19,     /* captured MFT/QoS tool output (model/mft.h) */
	RD_LOAD_TOPO = 1 << 20,    /* the GPUs' and RDMA NICs' PCIe paths (model/pcitopo.h; reads the PCI functions) */
	RD_LOAD_NCCL = 1 << 21,    /* NCCL's conf files (model/ncclconf.h) */
	RD_LOAD_PCICFG = 1 << 22,  /* the HCA functions' PCIe Device Control (model/link.h, pcie.mrrs) */
	RD_LOAD_ALL = 0x7ffffc,    /* every part above */
};
/* Whether part is to be read under flags. */
static inline bool rd_load_wants(unsigned flags, unsigned part)
{
	return !(flags & RD_LOAD_ONLY) || (flags & part);
}
/* The parts flags leaves unread (none without RD_LOAD_ONLY). */
static inline unsigned rd_load_unread(unsigned flags)
{
	return flags & RD_LOAD_ONLY ? RD_LOAD_ALL & ~flags : 0;
}
/* What the model derives from several parts: which ports the port rules judge (rd_port_role,
 * model/link.h: a VF by its PCI function, a plane of a multiplane device by its model, the
 * management NIC by the port's netdevs), the stack facts (model/stack.h: the packages, ofed_info,
 * the modules, the ports' has_smi, openibd), and what loads a module at boot (rd_boot_loader,
 * model/system.h: modules-load.d, and rdma-core's rules by the devices' drivers and PCI functions). */
#define RD_LOAD_ROLE (RD_LOAD_PORTS | RD_LOAD_GIDS | RD_LOAD_DEVLINK | RD_LOAD_DEVINFO)
#define RD_LOAD_STACK (RD_LOAD_PACKAGES | RD_LOAD_MODULES | RD_LOAD_SUBNET | RD_LOAD_OPENIBD)
#define RD_LOAD_BOOT (RD_LOAD_MODLOAD | RD_LOAD_DEVLINK | RD_LOAD_PCI)
/* A part read that was not loaded is a need missing from the check catalogue (checks/catalogue.h),
 * which would give a verdict on an empty part: the accessors of the model call this, which aborts
 * (after one line on stderr naming what) when unloaded holds any of parts. */
static inline void rd_need(unsigned unloaded, unsigned parts, const char *what)
{
	if (unloaded & parts)
		rd_need_failed(unloaded & parts, what);
}

/* Reads the host. Never fails as a whole: everything unreadable is recorded in the model.
 * Returns 0 (the model is always filled and must be freed). */
int rd_host_load(struct rd_source *src, unsigned flags, struct rd_host *host);
/* The host's name as the report's "host" is: proc/sys/kernel/hostname, else etc/hostname, in the
 * root (the policy's host-scoped sections match it).  The caller frees *name (rd_attr_free). */
void rd_host_read_name(struct rd_source *src, struct rd_attr *name);
void rd_host_free(struct rd_host *host);

const struct rd_device *rd_host_device(const struct rd_host *host, const char *name);
/* The module named name, or NULL; aborts when the modules were not loaded (rd_need). */
const struct rd_module *rd_host_module(const struct rd_host *host, const char *name);
/* 1 when the module was built out of tree (taint O, OFED-only module, OFED version file),
 * 0 when in-tree, -1 when the evidence is missing. */
int rd_module_out_of_tree(const struct rd_module *m);
/* True when the module is in /proc/modules (model/lookup.c). */
bool rd_module_loaded(const struct rd_host *h, const char *name);

/* The RDMA-related modules the inventory and checks talk about, NULL-terminated. */
extern const char *const rd_rdma_modules[];

/* Reads one attribute into a (path recorded as "/" + path).  Used by the loader and commands. */
void rd_attr_read(struct rd_source *src, const char *path, struct rd_attr *a);
void rd_attr_free(struct rd_attr *a);

#endif
