/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The GPU <-> NIC PCIe topology, from sysfs alone: every NVIDIA GPU (vendor
 * 0x10de, class 0x0300xx or 0x0302xx) and every RDMA device's PCI function, the
 * chain of bridges above each up to its root bus (the pciDDDD:BB directory of
 * /sys/devices), and the path type between two of them as NCCL computes it and
 * as `nvidia-smi topo -m` prints it.
 *
 * NCCL's rules (NVIDIA/nccl at 5067397c), reproduced:
 * * src/graph/xml.cc ncclTopoGetXmlFromSys: from a device's sysfs path NCCL
 *   goes up two components at a time ("rewind two /"): the parent of the node at
 *   depth i is the PCI node at depth i-2, so a switch's downstream port and its
 *   upstream port make one node (the upstream port's address); when a component
 *   on the way is not a PCI address (pci0000:00, a root bus) the node hangs on
 *   the CPU of its numa_node (one CPU node per NUMA node, -1 included).
 * * src/graph/topo.cc ncclTopoFlattenBcmSwitches / getBcmGen: a Broadcom PEX
 *   switch that shows two levels (vendor:device:subsystem_vendor:subsystem_device
 *   1000:c010:1000:axxx for Gen4, any level; 1000:c030:1000:0xxx over
 *   1000:c030:1000:1xxx for Gen5) is one node: a level-1 node right below a
 *   level-0 node of the same generation is merged into it.
 * * src/graph/paths.cc ncclTopoSetPaths: a path's type is the worst of its
 *   links: a device to its PCI node PIX, PCI node to PCI node PXB, any link to a
 *   CPU PHB, CPU to CPU (the SMP interconnect, topo.cc ncclTopoConnectCpus) SYS.
 *   NCCL has no NODE: a path through the CPU within one NUMA node is PHB whether
 *   or not it stays on one host bridge.
 * * paths.cc ncclTopoCheckGdr: GPUDirect RDMA is used when the GPU-NIC path
 *   type is at most NCCL_NET_GDR_LEVEL, by default P2C (NCCL_NET_GDR_C2C=1) or
 *   PXB: on a PCIe-only host both allow PIX and PXB and nothing farther.
 *   ncclGetLevel reads the variable as a type name (LOC, NVL, NVB, C2C, PIX, PXB,
 *   P2C, PXN, PHB, SYS, exact) or, from a digit, the old numbers (0 LOC, 1 PIX, 2
 *   PXB, 3 PHB, 4 and above SYS); anything else leaves the default.
 *
 * nvidia-smi's notation refines NCCL's PHB: PHB when both hang on one host
 * bridge (root bus), NODE when they are on different host bridges of one NUMA
 * node; its PIX and PXB are NCCL's tree without the Broadcom flattening (a GPU
 * and a NIC on two lower levels of one PEX switch are PXB to nvidia-smi, PIX to
 * NCCL); SYS is NCCL's.
 *
 * Ownership: rd_pcitopo_load fills an rd_pcitopo that owns everything in it;
 * rd_pcitopo_free releases it.  Routes borrow the topology they were computed
 * from. */
#ifndef RD_PCITOPO_H
#define RD_PCITOPO_H
#include <stdbool.h>
#include <stddef.h>

#include "model/host.h"
#include "model/pciacs.h"
#include "source/source.h"

/* nvidia-smi's notation, nearest first.  RD_TOPO_UNKNOWN: a path could not be
 * read. */
enum rd_topo_type { RD_TOPO_X, RD_TOPO_PIX, RD_TOPO_PXB, RD_TOPO_PHB, RD_TOPO_NODE, RD_TOPO_SYS, RD_TOPO_UNKNOWN };
const char *rd_topo_type_name(enum rd_topo_type t); /* "PIX", ... "UNKNOWN" */
/* What the type means, as nvidia-smi's legend says it. */
const char *rd_topo_type_words(enum rd_topo_type t);

/* NCCL's path types (src/include/graph.h PATH_*) that a PCIe path can have. */
enum { RD_NCCL_LOC = 0, RD_NCCL_PIX = 4, RD_NCCL_PXB = 5, RD_NCCL_P2C = 6, RD_NCCL_PHB = 8, RD_NCCL_SYS = 9 };
const char *rd_nccl_path_name(int nccl); /* NCCL's topoPathTypeStr: "PIX", "P2C", ... */

/* A bridge (or the function itself) on a device's way up. */
struct rd_topo_node {
	char *addr; /* "0000:17:01.0" */
	unsigned vendor, device, sub_vendor, sub_device; /* 0 when unreadable */
	/* a bridge's ACS (model/pciacs.h), read only with GPUs and RDMA NICs: from its config space
	 * when that has the extended capabilities, else from the captured lspci -vvv; RD_ACS_UNREAD
	 * for the function itself */
	struct rd_acs acs;
};

struct rd_topo_fn {
	char *addr; /* the function, "0000:19:00.0" */
	char *name; /* NIC: the RDMA device ("mlx5_0"); GPU: NULL */
	unsigned vendor, device, class_code;
	struct rd_attr numa_node, local_cpulist;
	int numa; /* -1 when unknown */
	char *root; /* the root bus, "pci0000:15"; NULL when the path is unknown */
	char *sysfs; /* its resolved directory,
                  "/sys/devices/pci0000:15/.../0000:19:00.0" */
	struct rd_topo_node *up; /* [0] the function itself, then each bridge up to the root port */
	size_t nup;
	int top_numa; /* numa_node of NCCL's topmost PCI node: the CPU it hangs on */
	int err; /* its path could not be read (errno, RD_E*) */
	/* its IOMMU group (the number of sys/bus/pci/devices/X/iommu_group's target; NULL: no link,
	 * iommu_group_err why) and the group's domain type (sys/kernel/iommu_groups/N/type:
	 * identity, DMA, DMA-FQ ...), read with the ACS */
	char *iommu_group;
	int iommu_group_err;
	struct rd_attr iommu_type;
};

struct rd_pcitopo {
	struct rd_topo_fn *gpus; /* in PCI address order (nvidia-smi's GPU order) */
	size_t ngpus;
	struct rd_topo_fn *nics; /* host->devices order (natural name order) */
	size_t nnics;
	int pci_err; /* /sys/bus/pci/devices could not be listed */
	/* NCCL_NET_GDR_LEVEL as this process's environment gives it ("" when unset)
   */
	char gdr_env[32];
	int gdr_level; /* NCCL's path type it sets, or -1: unset or not understood */
	/* A bridge with functions of two different buses directly below it, which no
   * PCIe port has (a synthetic or flattened tree): the path types cannot be
   * told.  "" when none. */
	char flat_bridge[32], flat_a[32], flat_b[32];
	/* `lspci -vvv` (rdma-doctor/commands/lspci-vvv; run live only where device commands are
	 * allowed: snapshot, check --mft), read with GPUs and RDMA NICs; err RD_ENOTCAPTURED when
	 * not captured */
	struct rd_text lspci;
	bool acs_loaded; /* the bridges' ACS was read */
	struct rd_guest guest; /* a virtual machine?  Read with GPUs and RDMA NICs */
	/* IOMMU, read with the ACS: /proc/cmdline, and whether a missing iommu_group link means no
	 * IOMMU (sys/kernel/iommu_groups lists no group, or the root is a capture of the whole host's
	 * kernel state, proc/sys/kernel) rather than a root that does not say */
	struct rd_attr cmdline;
	int iommu_groups_err; /* listing sys/kernel/iommu_groups */
	size_t niommu_groups;
	bool iommu_absence_real;
	/* gdr.mode, read with the ACS: what NCCL's DMA-BUF and nvidia_peermem probes depend on.
	 * The NVIDIA driver: proc/driver/nvidia/version's first line, whether it is the open kernel
	 * module ("NVIDIA UNIX Open Kernel Module"), its major version (0: unknown) */
	struct rd_attr nv_version;
	bool nv_open;
	unsigned nv_major;
	bool proc_captured; /* proc/sys/kernel exists: a missing /proc file is missing on the host */
	/* boot/config-<osrelease>: CONFIG_DMA_SHARED_BUFFER and CONFIG_PCI_P2PDMA as "y", "m", "n"
	 * (not set) or "" (not in it); kconfig_err why it could not be read */
	char *kconfig_path;       /* /boot/config-RELEASE, or /proc/config.gz when that is absent */
	int kconfig_err;
	char kconfig_why[160];    /* /proc/config.gz that cannot be decompressed: why ("" otherwise) */
	char kc_dmabuf[4], kc_p2pdma[4];
	/* which of the files NCCL's ncclIbGdrSupport looks for exist (rd_nccl_peermem_files) */
	bool peermem_file[3];
	/* NCCL_DMABUF_ENABLE ("" unset) and its value as NCCL reads it (1 by default) */
	char dmabuf_env[32];
	int dmabuf_enable;
};
/* The files whose existence tells NCCL that nvidia_peermem (or the older nv_peer_mem) is loaded
 * (src/transport/net_ib/gdr.cc ncclIbGdrSupport), relative to the root. */
extern const char *const rd_nccl_peermem_files[3];
/* Whether NCCL can register GPU memory with the NIC through DMA-BUF on this host (gdr.mode, and
 * explain on NCCL's "GPU Direct RDMA Disabled" lines): RD_DMABUF_YES with its reasons in yes,
 * else NO or UNSURE with the first reason it is not (or cannot be told) in why. */
enum { RD_DMABUF_YES, RD_DMABUF_NO, RD_DMABUF_UNSURE };
struct rd_buf;
int rd_pcitopo_dmabuf(const struct rd_host *h, const struct rd_pcitopo *t, struct rd_buf *why, struct rd_buf *yes);
/* The value of CONFIG_NAME in a kernel config text into out (4 bytes): "y", "m", "n" for "# NAME is
 * not set", "" when absent. */
void rd_kconfig_value(const char *text, size_t len, const char *name, char out[4]);

/* Reads the GPUs among pci (the PCI functions the system model listed: addr,
 * vendor, class) and the PCI functions of h's RDMA devices.  getenv_fn gives
 * NCCL_NET_GDR_LEVEL (NULL: unset). */
struct rd_pci_fn;
void rd_pcitopo_load(struct rd_source *src, const struct rd_host *h, const struct rd_pci_fn *pci, size_t npci,
		     int pci_err, const char *(*getenv_fn)(const char *), struct rd_pcitopo *t);
void rd_pcitopo_free(struct rd_pcitopo *t);

/* NCCL_NET_GDR_LEVEL's value as ncclGetLevel reads it: a path type, or -1 (not
 * understood). */
int rd_nccl_gdr_level_parse(const char *s);
/* The level NCCL applies: the variable's when set and understood, else its
 * default (PXB on PCIe paths). */
int rd_pcitopo_gdr_level(const struct rd_pcitopo *t);

/* The path between two functions. */
#define RD_TOPO_MAX_VIA 128
struct rd_topo_route {
	enum rd_topo_type type; /* nvidia-smi's notation */
	int nccl; /* NCCL's path type (RD_NCCL_*), -1 when unknown */
	/* the sysfs path from a to b: each bridge's address, a root bus
   * ("pci0000:15"), or "CPU" for the hop between two NUMA nodes; borrowed from
   * the topology */
	const char *via[RD_TOPO_MAX_VIA];
	size_t nvia;
};
void rd_topo_route(const struct rd_topo_fn *a, const struct rd_topo_fn *b, struct rd_topo_route *r);
/* The RDMA NIC nearest to GPU g by NCCL's path type (then nvidia-smi's; the first of equals), its
 * route in *r; NULL when the path of no NIC can be read (*unreadable: how many could not). */
const struct rd_topo_fn *rd_pcitopo_nearest(const struct rd_pcitopo *t, const struct rd_topo_fn *g,
					    struct rd_topo_route *r, size_t *unreadable);
/* The node of the bridge addr on the path of any GPU or NIC, or NULL. */
const struct rd_topo_node *rd_pcitopo_bridge(const struct rd_pcitopo *t, const char *addr);
/* The route's hops as one line, "0000:19:00.0 > 0000:17:01.0 > 0000:16:00.0 <
 * ... < 0000:1a:00.0"; caller frees. */
char *rd_topo_route_text(const struct rd_topo_fn *a, const struct rd_topo_fn *b, const struct rd_topo_route *r);
#endif
