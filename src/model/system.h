/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The host's system side, beyond devices and modules: module-loading configuration, PCI
 * functions, GPUDirect peer memory, memory-lock limits, services, OFED packaging, kernel log.
 *
 * Ownership: rd_system_load fills an rd_system that owns everything inside it; rd_system_free
 * releases it.  Every value keeps the host path (or command) it came from, for evidence. */
#ifndef RD_SYSTEM_H
#define RD_SYSTEM_H
#include <stdbool.h>
#include <stdint.h>

#include "model/gid.h"
#include "model/host.h"
#include "model/link.h"
#include "model/parse.h"
#include "model/pcitopo.h"
#include "model/rpmdb.h"
#include "model/stack.h"
#include "model/mft.h"
#include "model/ncclconf.h"

/* A modules-load.d file.  Directories in systemd's order of precedence (the first wins for a
 * given file name); files are applied in file-name order whatever their directory. */
struct rd_modload_file {
	char *name;        /* "rdma.conf" */
	char *path;        /* "/etc/modules-load.d/rdma.conf" */
	int rank;          /* 0 /etc, 1 /run, 2 /usr/local/lib, 3 /usr/lib, 4 /lib */
	bool overridden;   /* a file of the same name in a directory of higher precedence wins */
	struct rd_attr text;   /* value holds len bytes (NUL bytes included) */
	size_t len;
	bool has_nul;          /* systemd ends a line at a NUL byte; `fix` refuses to edit such a file */
	struct rd_strv modules;
	struct rd_modload_bad *bad; /* lines systemd-modules-load takes as a module name that is none */
	size_t nbad;
};
extern const char *const rd_modload_dirs[]; /* the 5 directories, by rank, NULL-terminated */

/* rdma-core's own module loading (kernel-boot/ in rdma-core): when an RDMA device appears, its
 * udev rules (90-rdma-ulp-modules.rules) start rdma-load-modules@<kind>.service, which runs
 * systemd-modules-load on /etc/rdma/modules/<kind>.conf: rdma.conf for any RDMA device (through
 * rdma-hw.target), infiniband.conf / roce.conf / iwarp.conf / opa.conf when
 * 75-rdma-description.rules marks the device as such (by its driver: mlx5_core and mlx4_core
 * devices are both InfiniBand and RoCE).  90-rdma-hw-modules.rules loads mlx5_ib (mlx4_ib) when a
 * mlx5_core (mlx4_core) PCI function or netdev appears. */
struct rd_rdma_modconf {
	const char *kind;      /* "rdma", "infiniband", "roce", "iwarp", "opa" (static) */
	char *path;            /* "/etc/rdma/modules/infiniband.conf" */
	bool applies;          /* this host has a device that triggers it */
	struct rd_attr text;
	struct rd_strv modules;
};
struct rd_rdma_boot {
	char *ulp_rules;       /* effective 90-rdma-ulp-modules.rules, NULL when absent or masked */
	char *hw_rules;        /* effective 90-rdma-hw-modules.rules, NULL when absent or masked */
	char *unit;            /* rdma-load-modules@.service, NULL when absent or masked */
	bool mlx5_ib, mlx4_ib;  /* hw_rules loads it on this host (a mlx5_core / mlx4_core function) */
	struct rd_rdma_modconf conf[5];
	size_t nconf;          /* conf[] is filled only when ulp_rules and unit are both there */
};

struct rd_pci_fn {
	char *addr;        /* 0000:0c:00.0 */
	unsigned vendor, device, class_code;
	char *driver;      /* NULL when no driver is bound */
};

struct rd_proc_limits {
	int pid;
	char *comm;
	struct rd_attr limits;
	uint64_t soft, hard; /* RLIMIT_MEMLOCK bytes, UINT64_MAX = unlimited; valid when ok */
	bool ok;
};

/* A systemd service's configured LimitMEMLOCK (unit file plus drop-ins, the last one wins). */
struct rd_unit_limit {
	char *service;     /* "slurmd" */
	char *unit_path;   /* where the unit was found, or NULL */
	char *set_in;      /* the file whose LimitMEMLOCK= applies, or NULL */
	char *value;       /* "infinity", "64K"... or NULL */
	uint64_t bytes;    /* parsed value; valid when value parses */
	bool value_ok;
};

struct rd_package {
	const char *name;  /* static */
	char version[96];
	bool installed;
};

struct rd_system {
	/* whether the root has these at all: a partial capture (only sysfs) has neither, and absence
	 * inside them then means "not captured", not "missing on the host" */
	bool etc_present, dev_present;
	struct rd_modload_file *modload; /* sorted by name, then rank */
	size_t nmodload;
	struct rd_rdma_boot rdma_boot;   /* rdma-core's udev-triggered loading */
	struct rd_pci_fn *pci;
	size_t npci;
	int pci_err;
	/* GPUDirect RDMA */
	struct rd_attr memory_peers_nv_mem;  /* /sys/kernel/mm/memory_peers/nv_mem/version */
	struct rd_attr memory_peers_nv_mem_nc;
	bool memory_peers_dir;               /* /sys/kernel/mm/memory_peers exists */
	bool kernel_mm_dir;                  /* /sys/kernel/mm exists, or the root is a whole capture */
	/* limits of this process and of the named services */
	struct rd_proc_limits self;
	struct rd_attr self_status;
	uint64_t capeff;
	bool capeff_ok;
	struct rd_proc_limits *procs; /* running processes of the named services */
	size_t nprocs;
	struct rd_unit_limit *units;  /* one per named service */
	size_t nunits;
	struct rd_attr system_conf;   /* etc/systemd/system.conf */
	char *default_memlock;        /* DefaultLimitMEMLOCK= from system.conf or its drop-ins */
	char *default_memlock_in;
	struct rd_attr limits_conf;   /* etc/security/limits.conf */
	/* OFED's openibd */
	char *openibd_unit;           /* path of the unit file, or NULL */
	char *openibd_wants;          /* path of the *.wants link that enables it, or NULL */
	bool unit_dirs_present;       /* the root has a systemd unit directory (etc, usr/lib or lib) */
	struct rd_text openibd_active;  /* systemctl is-active openibd */
	struct rd_text openibd_enabled; /* systemctl is-enabled openibd */
	struct rd_attr openib_conf;
	struct rd_strv openib_modules;  /* modules openib.conf asks for */
	/* modules available to the running kernel */
	struct rd_attr modules_dep, modules_builtin; /* once parsed, value is "N modules" / "N built-in modules" */
	struct rd_strv kmod_names;      /* from modules.dep and modules.builtin */
	struct rd_strv kmod_paths;      /* modules.dep paths, parallel to the first part of kmod_names */
	/* DKMS */
	struct rd_strv dkms_trees;      /* "mlnx-ofed-kernel/24.10.OFED.24.10.2.1.8.1" under var/lib/dkms */
	struct rd_strv dkms_built;      /* "mlnx-ofed-kernel/<ver>/<kver>" directories found */
	struct rd_text dkms_status;
	/* packages */
	struct rd_attr dpkg_status;     /* once parsed, value is "N of the M RDMA packages looked for installed" */
	struct rd_package *packages;
	size_t npackages;
	struct rd_text ofed_info;       /* ofed_info -s */
	struct rd_ofed_info ofed;
	bool ofed_ok;
	/* RPM hosts (model/rpmdb.h): the rpm database, os-release, /etc/infiniband/info */
	struct rd_rpmdb rpm;
	/* kernel log */
	struct rd_text dmesg;           /* err EPERM: not readable by this user (kernel.dmesg_restrict) */
	struct rd_attr dmesg_restrict;  /* /proc/sys/kernel/dmesg_restrict */
	/* MFT tools and RoCE QoS per device and port (model/mft.h; mlxlink, mlxconfig, flint,
	 * mlnx_qos, dcb run live only under check --mft and snapshot) */
	struct rd_mft mft;
	/* derived from all of the above and the host model, once (model/stack.h), when its parts
	 * (RD_LOAD_STACK) were read; read it through rd_system_stack */
	struct rd_stack stack;
	/* roce.gid: the NCCL_IB_* variables NCCL would see (model/gid.h): this process's environment,
	 * then NCCL's conf files */
	struct rd_nccl_env nccl_env;
	/* the environment NCCL runs in (model/ncclconf.h): this process's, or the one of the process
	 * given to rd_system_load_parts (check --env-from PID) */
	struct rd_nccl_environ nccl_environ;
	/* NCCL's conf files in the root (model/ncclconf.h; with RD_LOAD_NCCL): NCCL_CONF_FILE or
	 * $HOME/.nccl.conf of that environment, then /etc/nccl.conf */
	struct rd_nccl_conf nccl_conf;
	/* the interfaces NCCL_SOCKET_IFNAME selects (model/ncclconf.h; with RD_LOAD_NCCL) */
	struct rd_nccl_ifs nccl_ifs;
	/* the P_Key index NCCL_IB_PKEY names, per port (model/ncclconf.h; with RD_LOAD_NCCL) */
	struct rd_nccl_pkeys nccl_pkeys;
	int nccl_topo_err; /* NCCL_TOPO_FILE: rd_nccl_topo_file_err (-1 unset or not loaded) */
	/* link health: boot_id, default route, port netdevs, PCIe paths, counters, state (model/link.h) */
	struct rd_link link;
	/* gdr.path, topo: the GPUs' and RDMA NICs' PCIe paths (model/pcitopo.h; with RD_LOAD_TOPO) */
	struct rd_pcitopo topo;
	unsigned unloaded; /* the parts (RD_LOAD_*, the host's too) this load did not read, as in
			    * struct rd_host; 0 in a model built by hand */
};

/* services: names whose processes and units to inspect (NULL-terminated), e.g. {"slurmd", NULL}. */
int rd_system_load(struct rd_source *src, const struct rd_host *host, const char *const *services,
		   struct rd_system *sys);
/* The same, reading only the parts flags names when it has RD_LOAD_ONLY (host.h); NCCL's
 * environment is the one process env_pid was started with (0: this process's own). */
int rd_system_load_parts(struct rd_source *src, const struct rd_host *host, const char *const *services,
			 unsigned flags, int env_pid, struct rd_system *sys);
void rd_system_free(struct rd_system *sys);
/* Only the PCI part of rd_system_load (sys->pci, npci, pci_err), for the probe's account of a
 * host without devices; rd_system_free releases it. */
void rd_system_load_pci(struct rd_source *src, struct rd_system *sys);
/* Lookups shared by checks and renderers (model/lookup.c). */
/* True when the host has an RDMA device or a Mellanox/NVIDIA networking PCI function. */
bool rd_host_has_rdma_hardware(const struct rd_host *h, const struct rd_system *sys);
/* The modules-load.d file that loads module (not overridden), or NULL.  These lookups, like every
 * accessor of the model, abort when a part they read was not loaded (rd_need, model/host.h). */
const struct rd_modload_file *rd_modload_find(const struct rd_system *sys, const char *module);
/* The one answer to "which modules must be loaded now" that modules.loaded reports and `fix
 * modules` loads: the policy's modules that are not loaded, none without RDMA hardware, no mlx5_*
 * without mlx5 hardware.  Pushes them onto need in policy order.  Returns 0, or -1 when
 * /proc/modules cannot be read (need is left empty). */
struct rd_policy;
int rd_modules_to_load(const struct rd_host *h, const struct rd_system *s, const struct rd_policy *p,
		       struct rd_strv *need);
/* True when the host has mlx5 hardware (an mlx5 device, or a ConnectX-4+ / BlueField function). */
bool rd_host_has_mlx5(const struct rd_host *h, const struct rd_system *s);
/* A Mellanox/NVIDIA network controller (vendor 0x15b3, class 0x02): RDMA hardware. */
static inline bool rd_pci_is_mellanox_nic(const struct rd_pci_fn *f)
{
	return f->vendor == 0x15b3 && (f->class_code >> 16) == 0x02;
}
const struct rd_package *rd_system_package(const struct rd_system *sys, const char *name);
/* What loads module at boot from a file: the effective modules-load.d file (at every boot, *when
 * set to NULL), else rdma-core's conf (or udev rule) whose trigger this host has (*when set to
 * the trigger, in words).  NULL when no file does. */
const char *rd_boot_loader(const struct rd_system *sys, const char *module, const char **when);
/* The derived stack facts; aborts when their parts were not loaded (RD_LOAD_STACK, rd_need). */
const struct rd_stack *rd_system_stack(const struct rd_system *sys);
/* An NCCL parameter as NCCL would read it: this process's environment, else NCCL's conf files
 * (aborts when RD_LOAD_NCCL was not loaded).  *from (optional): "the environment" or the file. */
const char *rd_nccl_param(const struct rd_system *sys, const char *name, const char **from);

#endif
