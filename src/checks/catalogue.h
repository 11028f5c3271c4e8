/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The check catalogue: one line per check (id, title, what it detects, where it looks), in the
 * order they run and print.  Ids are stable: add, never rename.  Each check lives in its own
 * file, src/checks/<id with '_'>.c, defining rd_check_<name>(); adding a check is that file plus
 * one line here.  The column after the id is the kind of its findings' subjects (checks/check.h);
 * the next, the parts of the model it reads (model/host.h RD_LOAD_*): a text report, npd's line and
 * slurm load only what their selected checks need, and tests/scenarios/only.sh compares each
 * check alone with the JSON report, which reads everything.  What was not loaded is marked so in
 * the model, and its accessors abort (model/host.h rd_need): a need left out crashes the run
 * rather than judging an empty part.
 *
 * Ownership: nothing here is allocated: the table (checks/registry.c) and its strings are static. */
#ifndef RD_CATALOGUE_H
#define RD_CATALOGUE_H
#include "checks/check.h"
#include "model/host.h"

/* The stack facts (model/stack.h: RD_LOAD_STACK), and the module paths of modules.dep the stack
 * checks judge with them. */
#define RD_NEEDS_STACK (RD_LOAD_STACK | RD_LOAD_KMODS)
/* Which ports the port rules judge (rd_port_role: RD_LOAD_ROLE). */
#define RD_NEEDS_ROLE RD_LOAD_ROLE
/* What loads a module at boot (rd_boot_loader: RD_LOAD_BOOT). */
#define RD_NEEDS_BOOT RD_LOAD_BOOT

#define RD_CHECKS(X)                                                                                  \
	X(stack_flavor, "stack.flavor", RD_SUBJ_HOST, RD_NEEDS_STACK, "RDMA stack flavor",          \
	  "inbox rdma-core vs MLNX_OFED vs DOCA-OFED, its version, and which stack this host should run", \
	  "ofed_info -s, dpkg status or the rpm database, /sys/module/mlx_compat, /sys/module/mlx5_core/{version,taint}, " \
	  "ports/*/has_smi, module paths in modules.dep")                                             \
	X(stack_mixed, "stack.mixed", RD_SUBJ_HOST, RD_NEEDS_STACK, "no mix of in-tree and OFED modules",           \
	  "OFED installed but in-tree RDMA modules loaded, or in-tree and OFED modules loaded together", \
	  "module taint and version files, ofed_info -s, dpkg status")                                \
	X(stack_dkms, "stack.dkms", RD_SUBJ_PACKAGE, RD_LOAD_DKMS | RD_LOAD_PACKAGES, "OFED DKMS modules built for the running kernel", \
	  "OFED DKMS modules not built for the running kernel (after a kernel upgrade); on RPM hosts, OFED kmod packages built for another kernel", \
	  "/proc/sys/kernel/osrelease, /var/lib/dkms/*/*/<kver>, dkms status, rpm database (kmod-mlnx-ofa_kernel, mlnx-ofa_kernel-modules), /etc/infiniband/info, modules.dep") \
	X(kernel_log, "kernel.log", RD_SUBJ_LOG, RD_LOAD_DMESG | RD_NEEDS_STACK, "no RDMA errors in the kernel log", \
	  "symbol version mismatches and unknown symbols (judged by where the failed module was built), " \
	  "nvidia-peermem errors, mlx5 PCIe bandwidth limits and slot power, cable module errors and "  \
	  "temperature, firmware health and command errors (timeouts, ACCESS_REG, CREATE_MKEY)",          \
	  "dmesg (live) or the captured rdma-doctor/commands/dmesg; modules.dep and the loaded ib_core") \
	X(modules_loaded, "modules.loaded", RD_SUBJ_MODULE, RD_LOAD_PORTS | RD_LOAD_MODULES | RD_LOAD_DEVLINK | RD_LOAD_PCI, "RDMA kernel modules loaded", \
	  "each of the 9 modules (policy list) loaded when RDMA hardware is present",                 \
	  "/proc/modules, /sys/module/*")                                                             \
	X(modules_persistent, "modules.persistent", RD_SUBJ_MODULE, RD_LOAD_MODULES | RD_NEEDS_BOOT, "RDMA modules load at every boot", \
	  "modules of the policy list not named in any modules-load.d file",                          \
	  "/etc/modules-load.d, /run/modules-load.d, /usr/lib/modules-load.d (same name overrides)")  \
	X(modules_peermem_order, "modules.peermem_order", RD_SUBJ_MODULE, RD_LOAD_MODULES | RD_NEEDS_BOOT, "nvidia_peermem configured after ib_core", \
	  "nvidia_peermem listed in a modules-load.d file that loads before the one with ib_core",    \
	  "modules-load.d file names and contents")                                                   \
	X(devnodes_present, "devnodes.present", RD_SUBJ_DEVNODE, RD_LOAD_PORTS | RD_LOAD_CLASSES | RD_LOAD_MODULES, "/dev/infiniband complete", \
	  "/dev/infiniband missing, empty or partial: uverbsN per device, umadN (+ issmN with an SMI) per " \
	  "port, rdma_cm",                                                                            \
	  "/dev/infiniband/*, /sys/class/infiniband_verbs, /sys/class/infiniband_mad")                \
	X(ports_state, "ports.state", RD_SUBJ_PORT, RD_NEEDS_ROLE | RD_LOAD_SUBNET, "ports Active and LinkUp",                      \
	  "ports not Active/LinkUp: Initializing (no SM), Polling (no cable/link), Disabled, Down",   \
	  "ports/N/{state,phys_state,link_layer}, netdev operstate")                                  \
	X(ports_rate, "ports.rate", RD_SUBJ_PORT, RD_LOAD_DEVINFO | RD_NEEDS_ROLE, "ports at full rate",                             \
	  "a port below the policy rate or below the other ports of the same model (degraded link)",  \
	  "ports/N/rate")                                                                             \
	X(ports_sm, "ports.sm", RD_SUBJ_PORT, RD_NEEDS_ROLE | RD_LOAD_SUBNET, "InfiniBand ports have a subnet manager",             \
	  "an IB port with no SM: lid 0 or 0xffff, sm_lid 0", "ports/N/{lid,sm_lid}")                 \
	X(link_phy, "link.phy", RD_SUBJ_PORT, RD_NEEDS_ROLE | RD_LOAD_PCI | RD_LOAD_MFT, "physical layer clean (mlxlink)",                      \
	  "Effective Physical BER 1E-12 or worse, a firmware Status Opcode (with its Recommendation), " \
	  "mlxlink's State/Physical state differing from sysfs, a transceiver at or within 5 C of its " \
	  "high temperature alarm (70 C when it prints none), a lane's Rx or Tx power at or within 2 dB " \
	  "of its low alarm (WARN; passive copper never judged)",                                     \
	  "mlxlink -d <pci> -p <port> -m -c -e (check --mft, snapshot), ports/N/{state,phys_state}")  \
	X(firmware_uniform, "firmware.uniform", RD_SUBJ_DEVICE, RD_LOAD_DEVINFO | RD_LOAD_DEVLINK | RD_LOAD_MFT, "one firmware per HCA model",       \
	  "HCAs of one model (board_id) on different firmware versions", "fw_ver, board_id, hca_type") \
	X(firmware_pinned, "firmware.pinned", RD_SUBJ_DEVICE, RD_NEEDS_STACK | RD_LOAD_DEVINFO | RD_LOAD_DEVLINK | RD_LOAD_MFT, "firmware matches its pin or the OFED train",    \
	  "fw_ver differs from the policy's pin for that board_id (FAIL), or, unpinned, from the firmware " \
	  "train the installed MLNX_OFED/DOCA-OFED release ships (WARN)", "fw_ver, hca_type, board_id, policy file, " \
	  "ofed_info -s / the doca-ofed package")  \
	X(mlxconfig_policy, "mlxconfig.policy", RD_SUBJ_DEVICE, RD_LOAD_DEVINFO | RD_LOAD_DEVLINK | RD_LOAD_MFT, "mlxconfig settings as the policy sets", \
	  "a [mlxconfig] NAME = VALUE of the policy not set for the next boot, or set but not applied", \
	  "mlxconfig -d <pci> query (check --mft, snapshot), policy file")                            \
	X(memlock_limit, "memlock.limit", RD_SUBJ_SERVICE, RD_LOAD_LIMITS, "memory lock limit unlimited",           \
	  "RLIMIT_MEMLOCK below the policy for this process or the named services (slurmd), systemd " \
	  "defaults, limits.conf; CAP_IPC_LOCK missing",                                              \
	  "/proc/self/limits, /proc/<pid>/limits, /proc/self/status, /etc/systemd/system.conf, "      \
	  "unit LimitMEMLOCK=, /etc/security/limits.conf")                                            \
	X(peermem_loaded, "peermem.loaded", RD_SUBJ_MODULE, RD_NEEDS_STACK | RD_LOAD_PCI, "GPUDirect RDMA module loaded",         \
	  "NVIDIA GPU and RDMA present but nvidia_peermem not loaded",                                \
	  "PCI vendor 10de, /sys/module/nvidia_peermem, /sys/module/ib_core/holders")                 \
	X(peermem_registered, "peermem.registered", RD_SUBJ_MODULE, RD_NEEDS_STACK | RD_LOAD_PEERMEM, "nvidia_peermem registered with ib_core", \
	  "nvidia_peermem loaded but not registered with the OFED peer-memory API",                   \
	  "/sys/kernel/mm/memory_peers/nv_mem/version, /sys/module/nvidia_peermem/version")           \
	X(gdr_path, "gdr.path", RD_SUBJ_DEVICE, RD_LOAD_TOPO | RD_LOAD_NCCL | RD_LOAD_PCI | RD_LOAD_DEVLINK, "each GPU has an RDMA NIC within GPUDirect distance", \
	  "a GPU whose nearest RDMA NIC is farther than NCCL_NET_GDR_LEVEL (PXB by default: through the host " \
	  "bridge, PHB/NODE, or across the CPU interconnect, SYS): NCCL stages its traffic through host memory", \
	  "/sys/bus/pci/devices/*/{class,vendor,numa_node}, the bridges of /sys/devices/pci*, NCCL_NET_GDR_LEVEL") \
	X(gdr_acs, "gdr.acs", RD_SUBJ_DEVICE, RD_LOAD_TOPO | RD_LOAD_NCCL | RD_LOAD_PCI | RD_LOAD_DEVLINK, "no ACS redirect between each GPU and its NIC", \
	  "PCIe ACS P2P Request/Completion Redirect set on a bridge between a GPU and its nearest RDMA NIC on bare " \
	  "metal: GPUDirect RDMA traffic goes up to the root complex instead of across the switch", \
	  "the ACS control register of each bridge: /sys/bus/pci/devices/*/config (extended capabilities: root) " \
	  "or the captured lspci -vvv; /proc/cpuinfo, /sys/class/dmi/id/sys_vendor") \
	X(gdr_iommu, "gdr.iommu", RD_SUBJ_DEVICE, RD_LOAD_TOPO | RD_LOAD_NCCL | RD_LOAD_PCI | RD_LOAD_DEVLINK, "no IOMMU translation between each GPU and its NIC", \
	  "a GPU or its nearest RDMA NIC in a translating IOMMU domain (DMA, DMA-FQ): GPUDirect RDMA's peer DMA is " \
	  "translated at the root complex; the fix is iommu=pt (x86) or iommu.passthrough=1 (arm64)", \
	  "/sys/bus/pci/devices/*/iommu_group, /sys/kernel/iommu_groups/*/type, /proc/cmdline") \
	X(gdr_mode, "gdr.mode", RD_SUBJ_HOST, RD_LOAD_TOPO | RD_LOAD_NCCL | RD_LOAD_PCI | RD_LOAD_DEVLINK, "NCCL will use GPUDirect RDMA", \
	  "what NCCL will use, DMA-BUF (the NVIDIA open kernel module, Linux 5.12+ with CONFIG_DMA_SHARED_BUFFER), " \
	  "nvidia_peermem, or no GPUDirect RDMA, by NCCL_DMABUF_ENABLE and NCCL_NET_GDR_LEVEL", \
	  "/proc/driver/nvidia/version, /boot/config-<release> (else /proc/config.gz), the files NCCL probes for nvidia_peermem " \
	  "(/sys/kernel/mm/memory_peers/nv_mem*/version, /sys/module/nvidia_peermem/version), NCCL_DMABUF_ENABLE") \
	X(openibd_state, "openibd.state", RD_SUBJ_SERVICE, RD_NEEDS_STACK, "openibd running when enabled",          \
	  "openibd.service enabled but inactive (dead)",                                              \
	  "openibd unit file, *.wants links, systemctl is-active/is-enabled openibd")                 \
	X(openibd_conf, "openibd.conf", RD_SUBJ_MODULE, RD_NEEDS_STACK, "openib.conf names only existing modules",  \
	  "/etc/infiniband/openib.conf loading modules the running kernel does not have",             \
	  "/etc/infiniband/openib.conf, lib/modules/<kver>/modules.dep, modules.builtin")             \
	X(roce_mtu, "roce.mtu", RD_SUBJ_PORT, RD_NEEDS_ROLE, "RoCE MTU large and uniform",                         \
	  "RoCE netdev MTU giving a smaller active MTU than the policy (1500 -> 1024); MTUs differing " \
	  "across RoCE ports",                                                                        \
	  "/sys/class/net/<if>/mtu via ports/N/gid_attrs/ndevs")                                      \
	X(roce_gid, "roce.gid", RD_SUBJ_PORT, RD_NEEDS_ROLE | RD_LOAD_NCCL, "RoCE ports have the GID NCCL needs",                 \
	  "no RoCE v2 GID with an IPv4 address (only fe80:: link-local ones); NCCL_IB_GID_INDEX or the " \
	  "policy's [nccl] gid_index naming a GID that is not the expected RoCE version and family",  \
	  "ports/N/gids/*, gid_attrs/types/*, gid_attrs/ndevs/*, NCCL_IB_* of the environment, policy") \
	X(nccl_env, "nccl.env", RD_SUBJ_PORT, RD_LOAD_PORTS | RD_LOAD_GIDS | RD_LOAD_DEVLINK | RD_LOAD_NCCL | RD_LOAD_MFT, "NCCL's settings select usable RDMA ports", \
	  "NCCL_IB_DISABLE set; NCCL_IB_HCA selecting no port, a port that is not ACTIVE, or more devices " \
	  "than it names (prefix matching); ports of both link layers on one NIC, which NCCL fuses; "   \
	  "NCCL_SOCKET_IFNAME selecting no running interface; NCCL_IB_PKEY (an index) with no P_Key " \
	  "there; NCCL_TOPO_FILE unreadable; NCCL_IB_TC (or OFED's per-port traffic_class) whose DSCP "  \
	  "a trust-dscp RoCE port maps to a priority without PFC while PFC is on another; NCCL_IB_SL "  \
	  "whose priority a trust-pcp RoCE port has no PFC on while PFC is on another",                \
	  "NCCL_IB_HCA, NCCL_IB_DISABLE, NCCL_SOCKET_IFNAME, NCCL_IB_PKEY, NCCL_IB_TC, NCCL_IB_SL, "     \
	  "NCCL_TOPO_FILE of "                                                                             \
	  "the environment, NCCL_CONF_FILE or ~/.nccl.conf, /etc/nccl.conf, ports/N/{state,link_layer,"   \
	  "pkeys/*}, /sys/class/net/<if>/{flags,operstate,qos/dscp2prio}, tc/N/traffic_class, mlnx_qos") \
	X(roce_qos, "roce.qos", RD_SUBJ_PORT, RD_NEEDS_ROLE | RD_LOAD_MFT, "RoCE QoS as the policy sets",                       \
	  "a RoCE port's trust mode or PFC priorities differing from [roce] trust / pfc; without them, " \
	  "what is set (trust, PFC, ECN, rdma_cm default ToS)",                                       \
	  "/sys/class/net/<if>/qos/{trust,pfc}, ecn/roce_{np,rp}/enable, mlnx_qos -i <if>, "         \
	  "dcb pfc show dev <if>, /sys/kernel/config/rdma_cm/<dev>/ports/<p>/default_roce_tos, "     \
	  "the boot-time hooks that run mlnx_qos or dcb (/etc/udev/rules.d, /etc/systemd/system, "  \
	  "/etc/network/if-*up.d, /etc/NetworkManager/dispatcher.d, /etc/rc.local)")                \
	X(link_counters, "link.counters", RD_SUBJ_PORT, RD_NEEDS_ROLE, "port error counters not rising",          \
	  "link_downed, buffer overruns, integrity errors, rnr_nak_retry_err rising between runs; "   \
	  "symbol errors past the BER 1e-12 budget; receive errors, discards, link recoveries",      \
	  "ports/N/counters/*, ports/N/hw_counters/*, the previous sample in --state-dir, boot_id")    \
	X(roce_congestion, "roce.congestion", RD_SUBJ_PORT, RD_NEEDS_ROLE | RD_LOAD_MFT, "RoCE ports not dropping or pausing wrongly", \
	  "RoCE drops and losses rising between runs (out_of_buffer, discards, ACK timeouts, sequence " \
	  "errors, ignored CNPs), PFC pause frames rising on a priority without PFC; ECN marks, CNPs " \
	  "and pause time reported",                                                                  \
	  "ports/N/hw_counters/*, ethtool -S <if> (check --mft, snapshot), PFC of roce.qos, the "    \
	  "previous sample in --state-dir")                                                           \
	X(link_flaps, "link.flaps", RD_SUBJ_PORT, RD_NEEDS_ROLE | RD_LOAD_DMESG, "links not flapping",                            \
	  "a port netdev's carrier_changes rising between runs; 'lost carrier' and mlx5 'Port module " \
	  "event' kernel lines of a port",                                                            \
	  "/sys/class/net/<if>/carrier_changes, the previous sample, dmesg")                         \
	X(pcie_link, "pcie.link", RD_SUBJ_DEVICE, RD_LOAD_DEVINFO | RD_LOAD_DEVLINK | RD_LOAD_PCI | RD_LOAD_DMESG, "HCA PCIe links at full speed and width",        \
	  "an HCA function, or a link on its path to the root port, trained below what both ends "    \
	  "can do; below the policy's [pcie] min_width / min_speed",                                  \
	  "current_link_speed/width, max_link_speed/width up the PCI path, mlx5 'limited by' lines") \
	X(pcie_mrrs, "pcie.mrrs", RD_SUBJ_DEVICE, RD_LOAD_DEVINFO | RD_LOAD_DEVLINK | RD_LOAD_PCICFG,                \
	  "HCA PCIe Max Read Request as the policy sets",                                             \
	  "an HCA function's Max Read Request below the policy's [pcie] max_read_request, or without " \
	  "it below the other functions of its model; whether a udev rule sets it at every boot",     \
	  "/sys/bus/pci/devices/<bdf>/config (Device Control), lspci -vvv's DevCtl, "                 \
	  "/etc/udev/rules.d/*.rules")

#define RD_CHECK_DECLARE(fn, id, kind, needs, title, detects, evidence) void rd_check_##fn(struct rd_check_ctx *ctx);
RD_CHECKS(RD_CHECK_DECLARE)

#endif
