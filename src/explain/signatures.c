/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The known error messages: one entry per signature, its meaning, and its causes in order of
 * likelihood.  Patterns are lower-case substrings of the real messages (NCCL, rdma-core, the
 * kernel, kmod, systemd; tests/explain/cases.txt has the full lines).  A cause names what it is
 * about — a module, a device node, a port, a kind of kernel message — and the checks whose
 * findings on that subject confirm or rule it out, or a fact of the host model that decides it
 * (explain.h).  A meaning says what the message means, never which cause is behind it. */
#include "explain/explain.h"

/* The causes are positional initialisers; the last member (presumes) is left out where it is NULL. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define NOT_HERE "this host cannot tell: run rdma-doctor check on every node of the job"
#define M RD_SUBJ_MODULE
#define N RD_SUBJ_DEVNODE
#define L RD_SUBJ_LOG
#define ANY RD_SUBJ_HOST /* with no subjects: any finding of the checks */
#define FAIL_ONLY RD_ON(RD_FAIL)
#define WARN_ONLY RD_ON(RD_WARN)

/* the causes several messages share */
#define UVERBS_NOT_LOADED(text) {"uverbs-not-loaded", text, {"modules.loaded"}, M, {"ib_uverbs"}, 0, NULL, NULL, .fix = "modprobe ib_uverbs"}
#define UVERBS_NODES_MISSING                                                                              \
	{"uverbs-nodes-missing", "udev did not create the /dev/infiniband/uverbsN nodes (the kernel has the devices)", {"devnodes.present"}, \
	 N, {"uverbs[0-9]*"}, FAIL_ONLY, NULL, NULL, .fix = "udevadm trigger --subsystem-match=infiniband_verbs    # udev creates the nodes"}
#define UVERBS_NODES_MODE                                                                                 \
	{"uverbs-nodes-mode", "the uverbs nodes are not open to the job's user (their mode: a udev rule or the container runtime)", \
	 {"devnodes.present"}, N, {"uverbs[0-9]*", "uverbs"}, WARN_ONLY, NULL, NULL, \
	 .fix = "chmod 0666 /dev/infiniband/uverbs*    # now; for good, rdma-core's udev rule (90-rdma-umad.rules, 90-ib.rules) or the container's device list"}
#define MEMLOCK(text) {"memlock", text, {"memlock.limit"}, ANY, {NULL}, 0, NULL, NULL, .fix = "ulimit -l unlimited    # in the job's shell; for services: LimitMEMLOCK=infinity in their unit"}
#define STACK_MIXED(text) {"stack-mixed", text, {NULL}, ANY, {NULL}, 0, rd_fact_stack_mixed, NULL, \
	.fix = "rdma-doctor stack    # which modules are in-tree and which OFED's\n/etc/init.d/openibd restart    # OFED: unloads the in-tree modules and loads its own; or reboot"}
#define DKMS(text) {"dkms", text, {"stack.dkms"}, ANY, {NULL}, 0, NULL, NULL, .fix = "dkms autoinstall -k $(uname -r)    # then reboot"}
/* ib_uverbs loaded, yet no uverbsN: libibverbs lists no device (a driver without verbs, or udev) */
#define NO_UVERBS_DEVICE {"no-uverbs-device", "no uverbs device (/sys/class/infiniband_verbs, /dev/infiniband/uverbsN)", \
		{"devnodes.present"}, N, {"uverbs", "uverbs[0-9]*"}, 0, NULL, NULL, "ib_uverbs", \
		.fix = "modprobe mlx5_ib    # the RDMA driver of the HCA (mlx4_ib, irdma ...); then udevadm trigger"}
#define NO_ACTIVE_PORT {"no-active-port", "no port is Active", {NULL}, ANY, {NULL}, 0, rd_fact_no_active_port, NULL, \
	.fix = "rdma-doctor check --only ports.state    # why each port is down, with its fix"}
#define FIRMWARE_OLD                                                                                      \
	{"firmware-old", "firmware older than the others or than the pin", {"firmware.uniform", "firmware.pinned"}, ANY, {NULL}, 0, NULL, NULL, \
	 .fix = "rdma-doctor check --only firmware.uniform,firmware.pinned    # which HCA, with its update"}
#define UCM_NOT_LOADED {"ucm-not-loaded", "rdma_ucm is not loaded: no /dev/infiniband/rdma_cm", {"modules.loaded"}, M, {"rdma_ucm"}, 0, NULL, NULL, .fix = "modprobe rdma_ucm"}
#define UMAD_NOT_LOADED {"umad-not-loaded", "ib_umad is not loaded", {"modules.loaded"}, M, {"ib_umad"}, 0, NULL, NULL, .fix = "modprobe ib_umad"}
#define UMAD_NOT_AT_BOOT                                                                                  \
	{"umad-not-at-boot", "ib_umad is not listed in modules-load.d", {"modules.persistent"}, M, {"ib_umad"}, 0, \
	 rd_fact_not_in_modules_load_d, NULL, .fix = "rdma-doctor fix modules --apply"}
#define PORTS_FIX "rdma-doctor check --only ports.state    # which port, why, and its fix"
#define ROCE_MTU {"roce-mtu", "RoCE MTU differs or is small", {"roce.mtu"}, ANY, {NULL}, 0, NULL, NULL, \
	.fix = "rdma-doctor check --only roce.mtu    # which netdev, with its fix"}
#define PORT_NOT_ACTIVE(text) {"port-not-active", text, {"ports.state"}, ANY, {NULL}, 0, NULL, NULL, .fix = PORTS_FIX}
#define HCA_WEDGED {"hca-wedged", "the HCA is wedged (firmware health errors in the kernel log)", {"kernel.log"}, L,          \
	 {"health compromised", "Fatal error", "Will cause a leak of a command resource", "health *"}, 0, NULL, NULL,       \
	 .fix = "mlxfwreset -d <the HCA's PCI address> -l 3 reset    # or reboot"}
#define NO_GPUDIRECT {"no-gpudirect", "GPU memory without GPUDirect (nvidia_peermem)", {"peermem.loaded", "peermem.registered"}, M, \
	{"nvidia_peermem"}, 0, NULL, NULL, .fix = "modprobe nvidia_peermem    # after ib_core"}
#define OPENIB_CONF_MODULE {"openib-conf-module", "openib.conf names a module the running kernel lacks", {"openibd.conf"}, ANY, \
	{NULL}, 0, NULL, NULL, .fix = "rdma-doctor check --only openibd.conf    # which line, with its fix"}
#define NO_SM {"no-subnet-manager", "no subnet manager on the fabric", {NULL}, ANY, {NULL}, 0, rd_fact_port_initializing, NULL, \
	.fix = "make sure a subnet manager runs on the fabric (switch-managed SM, or OpenSM: systemctl start opensm on one node)\nsminfo    # which SM answers, if any"}
#define RESET_FIX "mlxfwreset -d <the HCA's PCI address> -l 3 reset    # or reboot"
#define KLOG(id, text, subject, fixtext) {id, text, {"kernel.log"}, L, {subject}, 0, NULL, NULL, .fix = fixtext}
#define PEERMEM_NOT_LOADED(text) {"peermem-not-loaded", text, {"peermem.loaded"}, M, {"nvidia_peermem"}, 0, NULL, NULL, \
	.fix = "modprobe nvidia_peermem"}
#define PEERMEM_NOT_REGISTERED(text) {"peermem-not-registered", text, {"peermem.registered"}, M, {"nvidia_peermem"}, 0, NULL, \
	NULL, .fix = "modprobe -r nvidia_peermem && modprobe nvidia_peermem    # after ib_core"}
#define PEERMEM_ORDER(text) {"peermem-order", text, {"modules.peermem_order"}, M, {"nvidia_peermem"}, 0, NULL, NULL, \
	.fix = "rdma-doctor fix modules --apply"}
#define MODULE_OTHER_IB_CORE {"module-other-ib-core", "the module was built against another ib_core than the loaded one", \
	{NULL}, ANY, {NULL}, 0, rd_fact_module_other_ib_core, NULL, \
	.fix = "modinfo -n <module>; modinfo -F vermagic <module>    # rebuild it for the loaded stack"}
/* never "every cause ruled out" for a module that failed to load */
#define MODULE_BUILD_OTHER {"module-build", "something else in how the module was built (another kernel, a stale build)", {NULL}, \
	ANY, {NULL}, 0, NULL, "modinfo -n <module>; modinfo -F vermagic <module>: where the module comes from and what it was built " \
	"for, against uname -r and the loaded stack (rdma-doctor stack)"}
/* a work request the peer never acknowledged (IBV_WC_RETRY_EXC_ERR, status 12) */
#define RETRY_EXCEEDED_CAUSES                                                                                      \
	{{"port-not-active", "a port of this host is not Active (link down, flapping, or no subnet manager)", {"ports.state"}, ANY, {NULL}, \
	  0, NULL, NULL, .fix = PORTS_FIX},                                                                           \
	 ROCE_MTU, HCA_WEDGED,                                                                                         \
	 {"peer-or-timeout", "the peer's port, cable or switch went down, or NCCL_IB_TIMEOUT is too short for the fabric", {NULL}, ANY,  \
	  {NULL}, 0, NULL,                                                                                            \
	  "run rdma-doctor check on the peer the message names; NCCL: try a larger NCCL_IB_TIMEOUT (default 20)"}}

/* flushed work requests: the aftermath of an earlier error on the queue pair */
#define FLUSH_CAUSES                                                                                               \
	{{"earlier-error", "an earlier error put the queue pair in the error state (this is its aftermath)", {NULL}, ANY,       \
	  {NULL}, 0, NULL, "look for the first completion error before these lines, here and in the peer's log (error 12: the " \
	  "peer never acknowledged)"},                                                                                  \
	 PORT_NOT_ACTIVE("a port of this host is not Active"), HCA_WEDGED}
#define REMOTE_CAUSES                                                                                              \
	{PORT_NOT_ACTIVE("a port of this host is not Active"), HCA_WEDGED,                                                 \
	 {"remote-exit", "a process of the job on another node exited, or the network between them failed", {NULL}, ANY,     \
	  {NULL}, 0, NULL, NOT_HERE}}

const struct rd_signature rd_signatures[] = {
	{"rdma.open_device", "a program could not open an RDMA device (its uverbs node)",
	 {"could not open rdma device"}, NULL,
	 {UVERBS_NOT_LOADED("ib_uverbs is not loaded"), UVERBS_NODES_MISSING, UVERBS_NODES_MODE,
	  {"uverbs-not-at-boot", "ib_uverbs is not loaded at boot (not in modules-load.d)", {"modules.persistent"}, M, {"ib_uverbs"}, 0,
	   rd_fact_not_in_modules_load_d, NULL, .fix = "rdma-doctor fix modules --apply"},
	  STACK_MIXED("a kernel symbol mismatch stopped the modules loading (in-tree and OFED modules mixed)")}},
	/* NCCL src/transport/net_ib/init.cc: WARN("NET/IB : Unable to open device %s", ...) */
	{"nccl.open_device", "NCCL could not open an RDMA device",
	 {"nccl", "unable to open device"}, NULL,
	 {UVERBS_NOT_LOADED("ib_uverbs is not loaded"), UVERBS_NODES_MISSING, UVERBS_NODES_MODE,
	  MEMLOCK("the memory lock limit is too low")}},
	{"ibv.open_device", "ibv_open_device failed (NCCL prints this before \"Unable to open device\")",
	 {"call to ibv_open_device failed"}, NULL,
	 {UVERBS_NOT_LOADED("ib_uverbs is not loaded"), UVERBS_NODES_MISSING, UVERBS_NODES_MODE}},
	/* NCCL src/transport/net_ib/init.cc: INFO(NCCL_INIT | NCCL_NET, "NET/IB : No device found.") when no
	 * device has an Active port NCCL may use */
	{"nccl.no_ib_device", "NCCL found no usable InfiniBand/RoCE device and will use sockets",
	 {"net/ib", "no device found"}, NULL,
	 {{"no-rdma-device", "there is no RDMA device here", {NULL}, ANY, {NULL}, 0, rd_fact_no_rdma_hardware, NULL,
	   .fix = "run the job on nodes with an RDMA NIC, or let NCCL use sockets here (NCCL_IB_DISABLE=1 says so)"},
	  UVERBS_NOT_LOADED("ib_uverbs is not loaded"), NO_UVERBS_DEVICE,
	  {"mlx5-not-loaded", "the mlx5 RDMA driver is not loaded", {"modules.loaded"}, M, {"mlx5_ib", "mlx5_core"}, 0, NULL, NULL,
	   .fix = "modprobe mlx5_ib"},
	  NO_ACTIVE_PORT}},
	{"nccl.socket_fallback", "NCCL is using TCP sockets instead of RDMA (NET/Socket)",
	 {"net/socket"}, NULL,
	 {UCM_NOT_LOADED, UVERBS_NOT_LOADED("ib_uverbs is not loaded"), NO_UVERBS_DEVICE, NO_ACTIVE_PORT,
	  {"nccl-env", "NCCL_IB_DISABLE or NCCL_NET=Socket set in the job", {NULL}, ANY, {NULL}, 0, NULL,
	   "check the job's environment for NCCL_IB_DISABLE=1 / NCCL_NET=Socket"}}},
	/* NCCL src/init.cc: INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name) */
	{"nccl.using_socket", "NCCL picked the Socket network (no RDMA)",
	 {"using network socket"}, NULL,
	 {UCM_NOT_LOADED, UVERBS_NOT_LOADED("ib_uverbs is not loaded"), NO_UVERBS_DEVICE, NO_ACTIVE_PORT}},
	{"devnodes.ls_missing", "/dev/infiniband does not exist",
	 {"cannot access '/dev/infiniband"}, NULL,
	 {{"modules-not-loaded", "ib_uverbs, ib_umad and rdma_ucm are not loaded: nothing creates /dev/infiniband", {"modules.loaded"}, M,
	   {"ib_uverbs", "ib_umad", "rdma_ucm"}, 0, NULL, NULL, .fix = "modprobe -a ib_uverbs ib_umad rdma_ucm"},
	  {"modules-not-at-boot", "the RDMA modules are not listed in modules-load.d", {"modules.persistent"}, M,
	   {"ib_uverbs", "ib_umad", "rdma_ucm"}, 0, rd_fact_not_in_modules_load_d, NULL, .fix = "rdma-doctor fix modules --apply"},
	  STACK_MIXED("a kernel symbol mismatch stopped the modules loading (in-tree and OFED modules mixed)"),
	  DKMS("OFED modules not built for the running kernel")}},
	{"modprobe.invalid_argument", "modprobe could not insert a module: the kernel refused it (Invalid argument)",
	 {"could not insert", "invalid argument"}, NULL,
	 {DKMS("OFED DKMS modules not built for the running kernel (after a kernel upgrade)"),
	  STACK_MIXED("in-tree and OFED modules mixed"), MODULE_OTHER_IB_CORE, MODULE_BUILD_OTHER}},
	/* kmod tools/modprobe.c: ERR("could not insert '%s': %s\n", kmod_module_get_name(mod), strerror(-err)): the
	 * module's name, with underscores */
	{"modprobe.peermem_invalid", "modprobe could not insert nvidia_peermem: the kernel refused it (Invalid argument)",
	 {"could not insert 'nvidia_peermem'", "invalid argument"}, NULL,
	 {{"peermem-on-inbox", "nvidia_peermem on an inbox ib_core (no peer-memory API)", {NULL}, ANY, {NULL}, 0,
	   rd_fact_peermem_missing_on_inbox, NULL,
	   .fix = "on the inbox stack GPUDirect RDMA uses DMA-BUF (NCCL 2.19+, CUDA 11.7+, the open GPU kernel modules, kernel "
		  "5.12+): do not load nvidia_peermem\nfor nvidia_peermem: install MLNX_OFED or DOCA-OFED, then reinstall the "
		  "NVIDIA driver so nvidia-peermem is built against its ib_core"}}},
	{"kernel.symbol_version", "a module was built against other symbols than the loaded ones",
	 {"disagrees about version of symbol"}, NULL,
	 {MODULE_OTHER_IB_CORE, STACK_MIXED("in-tree and OFED modules mixed"), DKMS("OFED DKMS modules not built for the running kernel"),
	  MODULE_BUILD_OTHER}},
	{"kernel.unknown_symbol", "a module needs a symbol no loaded module provides",
	 {"unknown symbol"}, NULL,
	 {MODULE_OTHER_IB_CORE, DKMS("OFED DKMS modules not built for the running kernel"), STACK_MIXED("in-tree and OFED modules mixed"),
	  MODULE_BUILD_OTHER}},
	{"umad.cant_open", "libibumad cannot open a UMAD port (no usable /dev/infiniband/umadN)",
	 {"can't open umad port"}, NULL,
	 {UMAD_NOT_LOADED,
	  {"umad-nodes-missing", "udev did not create the /dev/infiniband/umadN nodes (the kernel has them)", {"devnodes.present"}, N,
	   {"umad[0-9]*"}, FAIL_ONLY, NULL, NULL, .fix = "udevadm trigger --subsystem-match=infiniband_mad    # udev creates the nodes"},
	  UMAD_NOT_AT_BOOT}},
	{"umad.abi_version", "libibumad cannot read the umad ABI version (no /sys/class/infiniband_mad)",
	 {"can't read abi version", "infiniband_mad"}, NULL,
	 {UMAD_NOT_LOADED, UMAD_NOT_AT_BOOT}},
	{"nccl.qp_setup", "NCCL could not set up an RDMA queue pair",
	 {"failed to set up rdma"}, NULL,
	 {MEMLOCK("the memory lock limit is too low (\"Cannot allocate memory\")"),
	  ROCE_MTU,
	  UVERBS_NOT_LOADED("ib_uverbs is not loaded here"),
	  {"remote-node", "ib_uverbs missing or an MTU mismatch on another node of the job", {NULL}, ANY, {NULL}, 0, NULL, NOT_HERE}}},
	{"ibv.create_qp", "ibv_create_qp failed",
	 {"ibv_create_qp"}, NULL,
	 {MEMLOCK("the memory lock limit is too low"), UVERBS_NOT_LOADED("ib_uverbs is not loaded")}},
	{"ibv.modify_qp", "ibv_modify_qp failed (the queue pair could not connect)",
	 {"ibv_modify_qp"}, NULL,
	 {ROCE_MTU, PORT_NOT_ACTIVE("a port is not Active"),
	  {"remote-side", "the remote side (MTU, GID index, port down)", {NULL}, ANY, {NULL}, 0, NULL, NOT_HERE}}},
	{"ibv.reg_mr", "memory registration failed",
	 {"ibv_reg_mr"}, NULL,
	 {MEMLOCK("the memory lock limit is too low"),
	  NO_GPUDIRECT}},
	{"peermem.memory_peers_missing", "/sys/kernel/mm/memory_peers does not exist",
	 {"/sys/kernel/mm/memory_peers", "no such file"}, NULL,
	 {PEERMEM_NOT_REGISTERED("nvidia_peermem loaded before ib_core: registration silently failed"),
	  PEERMEM_NOT_LOADED("nvidia_peermem is not loaded"),
	  PEERMEM_ORDER("nvidia_peermem configured before ib_core in modules-load.d"),
	  {"inbox-ib-core", "inbox ib_core: the directory never exists there (NCCL checks /sys/module/nvidia_peermem/version)", {NULL},
	   ANY, {NULL}, 0, rd_fact_inbox_ib_core, NULL,
	   .fix = "nothing to fix for NCCL: check GPUDirect with ls /sys/module/nvidia_peermem/version (nvidia_peermem loaded) or "
		  "NCCL's DMA-BUF support (NCCL_DMABUF_ENABLE)"}}},
	{"nccl.gdr_disabled", "NCCL can register no GPU memory with this NIC (neither DMA-BUF nor nvidia_peermem): it "
	 "stages GPU traffic through host memory",
	 {"gpu direct rdma disabled for hca"}, NULL,
	 {PEERMEM_NOT_LOADED("nvidia_peermem is not loaded"), PEERMEM_NOT_REGISTERED("nvidia_peermem is not registered with ib_core"),
	  PEERMEM_ORDER("nvidia_peermem is configured to load before ib_core"),
	  {"gdr-none", "neither DMA-BUF (the open NVIDIA kernel module, a 5.12+ kernel) nor nvidia_peermem works on this host",
	   {NULL}, ANY, {NULL}, 0, rd_fact_gdr_none, NULL,
	   .fix = "rdma-doctor check --only gdr.mode    # what is missing: for DMA-BUF the open NVIDIA kernel module (R515+) "
		  "and a 5.12+ kernel with CONFIG_DMA_SHARED_BUFFER; else nvidia_peermem loaded after ib_core (MLNX_OFED "
		  "or DOCA-OFED)"}}},
	{"nccl.gdr_distance", "NCCL turns GPUDirect RDMA off for a GPU whose NIC is farther than NCCL_NET_GDR_LEVEL (the "
	 "path types of topo: PIX < PXB < PHB < SYS)",
	 {"gpu direct rdma disabled for gpu", "distance"}, NULL,
	 {{"gdr-too-far", "the GPU's nearest RDMA NIC is beyond NCCL's GPUDirect distance (the PCIe path crosses a host bridge "
	   "or the CPU interconnect)", {"gdr.path"}, ANY, {NULL}, 0, NULL, NULL,
	   .fix = "rdma-doctor topo    # each GPU's path to each NIC; put the NIC below the GPU's PCIe switch, or accept the "
		  "path: NCCL_NET_GDR_LEVEL=PHB (or SYS) in the job's environment"}}},
	{"openibd.dead", "openibd.service is inactive (dead)",
	 {"inactive (dead)"}, "openibd",
	 {{"openibd-not-running", "openibd is enabled but not running", {"openibd.state"}, ANY, {NULL}, 0, NULL, NULL,
	   .fix = "systemctl restart openibd; journalctl -b -u openibd    # why it stopped"},
	  OPENIB_CONF_MODULE,
	  DKMS("OFED modules not built for the running kernel")}},
	{"openibd.failed", "openibd.service failed to start",
	 {"failed to start", "openibd"}, NULL,
	 {OPENIB_CONF_MODULE,
	  DKMS("OFED modules not built for the running kernel"), STACK_MIXED("in-tree and OFED modules mixed")}},
	{"ports.initializing", "a port is Initializing: its link is up but no subnet manager has configured it",
	 {"initializing"}, "port",
	 {NO_SM}},
	{"ports.init_state", "a port is in INIT state: its link is up but no subnet manager has configured it",
	 {"2: init"}, NULL,
	 {NO_SM}},
	{"ports.polling", "a port is Polling: it has no physical link",
	 {"polling"}, "state",
	 {{"no-link", "cable unplugged or broken, or the switch port is down", {NULL}, ANY, {NULL}, 0, rd_fact_port_polling, NULL,
	   .fix = "reseat or replace the cable; check the switch port is enabled\nmlxlink -d <the HCA's PCI address> -m -c -e    # cable, eye and error counters"}}},
	{"kernel.peermem_invalid_context", "nvidia-peermem saw an invalid context while freeing GPU registrations",
	 {"nv_get_p2p_free_callback", "invalid"}, NULL,
	 {KLOG("peermem-errors", "nvidia-peermem errors in the kernel log", "invalid context",
	       "update the NVIDIA driver; check the GPU and nvidia_peermem versions match"),
	  PEERMEM_NOT_REGISTERED("nvidia_peermem not registered with ib_core")}},
	{"kernel.pcie_limited", "a device sits on a PCIe link slower or narrower than it needs",
	 {"available pcie bandwidth, limited by"}, NULL,
	 {KLOG("pcie-degraded", "a ConnectX in a degraded PCIe slot or link", "available PCIe bandwidth, limited by",
	       "move the card to a full-width slot or fix the link (lspci -vv | grep LnkSta)")}},
	{"kernel.mlx5_health", "the ConnectX firmware reported a fatal error",
	 {"mlx5", "health compromised"}, NULL,
	 {KLOG("firmware-health", "firmware health error", "health compromised", RESET_FIX), FIRMWARE_OLD}},
	{"kernel.mlx5_fatal", "the ConnectX firmware reported a fatal error",
	 {"mlx5", "fatal error"}, NULL,
	 {KLOG("firmware-fatal", "firmware fatal error", "Fatal error", RESET_FIX), FIRMWARE_OLD}},
	{"kernel.mlx5_cmd_timeout", "firmware commands of a ConnectX time out",
	 {"mlx5", "will cause a leak of a command resource"}, NULL,
	 {KLOG("firmware-timeouts", "firmware command timeouts: the HCA is wedged", "Will cause a leak of a command resource", RESET_FIX),
	  FIRMWARE_OLD}},
	{"kernel.rxe_crc32", "Soft-RoCE could not start: crc32 is missing",
	 {"rdma_rxe", "crc32"}, NULL,
	 {KLOG("rxe-crc32", "crc32_generic not loaded before rdma_rxe", "failed to init crc32 algorithm",
	       "modprobe crc32_generic; then rdma link add")}},
	/* rdma-core libibverbs/dynamic_driver.c, load_driver():
	 *   fprintf(stderr, PFX "Warning: couldn't load driver '%s': %s\n", so_name, dlerror());
	 *   fprintf(stderr, PFX "Warning: couldn't load driver '%s'.\n", name);   (PFX "libibverbs: ") */
	{"ibv.load_driver", "libibverbs could not load a provider library (libmlx5, librxe ...): its devices are invisible to verbs",
	 {"couldn't load driver"}, NULL,
	 {{"provider-missing", "the provider library is not installed, or is from another rdma-core than libibverbs", {NULL}, ANY, {NULL}, 0,
	   NULL,
	   "where the job runs: ls /usr/lib/*/libibverbs/; install ibverbs-providers (Debian, Ubuntu) or libibverbs "
	   "(RHEL) from the same rdma-core as libibverbs"}}},
	/* rdma-core libibverbs/dynamic_driver.c, read_config():
	 *   fprintf(stderr, PFX "Warning: couldn't open config directory '%s'.\n", IBV_CONFIG_DIR); */
	{"ibv.config_dir", "libibverbs has no provider configuration (/etc/libibverbs.d): it finds no RDMA device",
	 {"couldn't open config directory"}, NULL,
	 {{"providers-not-installed", "rdma-core's providers are not installed where the program runs (a container image without them)", {NULL},
	   ANY, {NULL}, 0, NULL,
	   "where the job runs: ls /etc/libibverbs.d; install ibverbs-providers (Debian, Ubuntu) or libibverbs (RHEL)"}}},
	/* NCCL before 2.20, src/transport/net_ib.cc:
	 *   WARN("NET/IB : Got completion from peer %s with error %d, opcode %d, len %d, vendor err %d (%s)%s%s%s%s", ...) */
	{"nccl.completion_error_12", "NCCL: a work request was never acknowledged by the peer (completion with error 12, retry counter exceeded)",
	 {"got completion from peer", "with error 12,"}, NULL, RETRY_EXCEEDED_CAUSES},
	/* NCCL 2.20 to 2.22, src/transport/net_ib.cc:
	 *   WARN("NET/IB : Got completion from peer %s with status=%d opcode=%d len=%d vendor err %d (%s)%s%s%s%s", ...) */
	{"nccl.completion_status_12", "NCCL: a work request was never acknowledged by the peer (status 12, retry counter exceeded)",
	 {"got completion from peer", "with status=12 "}, NULL, RETRY_EXCEEDED_CAUSES},
	/* NCCL 2.23 and later, src/transport/net_ib/p2p.cc: WARN("NET/IB: Got completion from peer %s with
	 * status=%s(%d) ...", ibvWcStatusStr(wc->status), ...), the name from src/misc/ibvwrap.cc */
	{"ibv.wc_retry_exc_err", "a work request was never acknowledged by the peer (IBV_WC_RETRY_EXC_ERR)",
	 {"ibv_wc_retry_exc_err"}, NULL, RETRY_EXCEEDED_CAUSES},
	/* rdma-core libibverbs/enum_strs.c, ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR); printed by verbs programs, e.g.
	 * libibverbs/examples/rc_pingpong.c: fprintf(stderr, "Failed status %s (%d) for wr_id %d\n", ...) */
	{"ibv.transport_retry", "a work request was never acknowledged by the peer (transport retry counter exceeded)",
	 {"transport retry counter exceeded"}, NULL, RETRY_EXCEEDED_CAUSES},
	/* drivers/net/ethernet/mellanox/mlx5/core/health.c print_health_info(): "Health issue observed, %s,
	 * severity(%d) %s:" with hsynd_str() ("firmware internal error", "unrecoverable hardware error" ...);
	 * before 5.16: "synd 0x%x: %s" */
	{"kernel.mlx5_health_issue", "the ConnectX firmware reported a health issue (its syndrome is on the line)",
	 {"mlx5", "health issue observed"}, NULL,
	 {KLOG("firmware-health-issue", "firmware health error", "health issue", RESET_FIX), FIRMWARE_OLD}},
	{"kernel.mlx5_health_syndrome", "the ConnectX firmware reported a health syndrome",
	 {"mlx5", "synd 0x"}, NULL,
	 {KLOG("firmware-health-syndrome", "firmware health error", "health syndrome", RESET_FIX), FIRMWARE_OLD}},
	/* events.c mlx5_pcie_event(): "Detected insufficient power on the PCIe slot (%uW)." (gpud kmsg_matcher.go
	 * pci_power_insufficient) */
	{"kernel.mlx5_slot_power", "a ConnectX reports that its PCIe slot gives less power than the card needs",
	 {"detected insufficient power on the pcie slot"}, NULL,
	 {KLOG("slot-power", "the slot's advertised power is below the card's need (BIOS slot power setting, riser or slot)",
	       "PCIe slot power", "lspci -vvv | grep -iE 'SltCap|PowerLimit'    # fix the BIOS slot power setting or move the card")}},
	/* events.c port_module(): "Port module event[error]: module %u, %s, %s" (mlx5_pme_error_to_string; gpud
	 * port_module_high_temperature matches "Port module event.*High Temperature") */
	{"kernel.mlx5_module_error", "a cable module (transceiver) of a ConnectX reported an error: its link goes or stays down",
	 {"port module event[error]"}, NULL,
	 {KLOG("module-hot", "the module is too hot (High Temperature): airflow, or a high-power module in a hot cage",
	       "module high temperature", "improve the airflow, or use a passive DAC or a lower-power module in this cage"),
	  KLOG("module-error", "the module or cable is faulty, unsupported or over its power budget (the kind is on the line)",
	       "module error", "reseat or replace the module or the cable")}},
	/* cmd.c mlx5_cmd_out_err() (mlx5_cmd_check() before 6.0): "%s(0x%x) op_mod(0x%x) failed, status %s(0x%x),
	 * syndrome (0x%x), err(%d)"; gpud access_reg_failed, node_exporter#3434 */
	{"kernel.mlx5_access_reg", "the ConnectX firmware refused a register access (ACCESS_REG)",
	 {"access_reg(0x805) op_mod", " failed"}, NULL,
	 {KLOG("restricted-registers", "a tool reads the counters of a function whose registers the firmware restricts",
	       "ACCESS_REG failed", "exclude the device from what reads its counters (gpud, node_exporter, rdma-doctor check --no-counters)")}},
	{"kernel.mlx5_create_mkey", "a ConnectX refused to create a memory key: a memory registration failed in the firmware",
	 {"create_mkey(0x200) op_mod", " failed"}, NULL,
	 {KLOG("mkey-failed", "the firmware refused the memory key (\"limits exceeded\": too much registered memory)",
	       "CREATE_MKEY failed", "register less memory, or in fewer, larger-page registrations"),
	  MEMLOCK("the memory lock limit is too low")}},
	/* drivers/infiniband/hw/mlx5/mr.c mlx5_ib_reg_user_mr(): "umem get failed (%ld)" (seen in NVIDIA/gdrcopy#1:
	 * "mlx5_ib_reg_user_mr:1418:(pid 23265): umem get failed (-14)") */
	{"kernel.umem_get", "the kernel could not pin the memory a program registered (ib_umem_get failed)",
	 {"umem get failed"}, NULL,
	 {MEMLOCK("the memory lock limit is too low (-12, Cannot allocate memory)"), NO_GPUDIRECT}},
	/* kmod tools/modprobe.c: "modprobe: FATAL: Module %s not found in directory %s" */
	{"modprobe.not_found", "modprobe found no such module for the running kernel",
	 {"modprobe: fatal: module", "not found in directory"}, NULL,
	 {{"module-not-installed", "the module is not built or installed for the running kernel", {NULL}, ANY, {NULL}, 0,
	   rd_fact_module_not_installed, NULL, .fix = "dkms autoinstall -k $(uname -r)"},
	  DKMS("DKMS modules not built for the running kernel (after a kernel upgrade)")}},
	/* systemd: systemd-modules-load.service, Description=Load Kernel Modules ("Failed to start Load Kernel
	 * Modules." before systemd 252, "Failed to start systemd-modules-load.service - Load Kernel Modules." since) */
	{"systemd.modules_load_failed", "systemd-modules-load could not load a module listed in modules-load.d",
	 {"failed to start", "load kernel modules"}, NULL,
	 {{"modules-load-unknown", "modules-load.d lists a module the running kernel does not have", {NULL}, ANY, {NULL}, 0,
	   rd_fact_modules_load_d_unknown, NULL, .fix = "journalctl -b -u systemd-modules-load    # which module failed"},
	  {"modules-load-failed", "a listed module exists but failed to load (a symbol mismatch, a missing firmware)", {NULL}, ANY,
	   {NULL}, 0, NULL, "journalctl -b -u systemd-modules-load; dmesg | grep -iE 'symbol|firmware'"}}},
	/* drivers/net/ethernet/mellanox/mlx5/core/en_main.c mlx5e_update_carrier(): netdev_info(..., "Link down") */
	{"netdev.mlx5_link_down", "the link of a ConnectX Ethernet (RoCE) port went down",
	 {"mlx5_core", "link down"}, NULL,
	 {PORT_NOT_ACTIVE("the port is still down (cable, module or switch port)"),
	  {"link-flapped", "the link went down and came back (a flap)", {"link.flaps"}, ANY, {NULL}, 0, NULL, NULL,
	   .fix = "rdma-doctor check --only link.flaps,link.counters    # how often, and the cable's error counters"},
	  {"link-remote", "the switch port or the cable went down", {NULL}, ANY, {NULL}, 0, NULL,
	   "check the switch port's log for the same time"}}},
	/* NCCL src/transport/net_ib.cc (before 2.20) "... with error %d, opcode ...", 2.20-2.22 "with status=%d",
	 * 2.23+ "with status=%s(%d)": 5 is IBV_WC_WR_FLUSH_ERR, work flushed after the QP failed */
	{"nccl.completion_error_5", "NCCL: work requests were flushed (completion with error 5): the queue pair had already failed",
	 {"got completion from peer", "with error 5,"}, NULL, FLUSH_CAUSES},
	{"nccl.completion_status_5", "NCCL: work requests were flushed (status 5): the queue pair had already failed",
	 {"got completion from peer", "with status=5 "}, NULL, FLUSH_CAUSES},
	{"ibv.wc_wr_flush_err", "work requests were flushed (IBV_WC_WR_FLUSH_ERR): the queue pair had already failed",
	 {"ibv_wc_wr_flush_err"}, NULL, FLUSH_CAUSES},
	/* NCCL src/init.cc ncclGetErrorString(ncclRemoteError): "remote process exited or there was a network error";
	 * PyTorch ProcessGroupNCCL prints "ncclRemoteError: A call failed possibly due to a network error or a remote
	 * process exiting prematurely." */
	{"nccl.remote_error", "NCCL: a remote process exited or there was a network error (ncclRemoteError)",
	 {"remote process exited or there was a network error"}, NULL, REMOTE_CAUSES},
	{"nccl.remote_error_name", "NCCL: a remote process exited or there was a network error (ncclRemoteError)",
	 {"ncclremoteerror"}, NULL, REMOTE_CAUSES},
	{NULL, NULL, {NULL}, NULL, {{NULL, NULL, {NULL}, ANY, {NULL}, 0, NULL, NULL}}},
};
