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
#define UVERBS_NOT_LOADED(text) {"uverbs-not-loaded", text, {"modules.loaded"}, M, {"ib_uverbs"}, 0, NULL, NULL}
#define UVERBS_NODES_MISSING                                                                              \
	{"uverbs-nodes-missing", "udev did not create the /dev/infiniband/uverbsN nodes (the kernel has the devices)", {"devnodes.present"}, \
	 N, {"uverbs[0-9]*"}, FAIL_ONLY, NULL, NULL}
#define UVERBS_NODES_MODE                                                                                 \
	{"uverbs-nodes-mode", "the uverbs nodes are not open to the job's user (their mode: a udev rule or the container runtime)", \
	 {"devnodes.present"}, N, {"uverbs[0-9]*", "uverbs"}, WARN_ONLY, NULL, NULL}
#define MEMLOCK(text) {"memlock", text, {"memlock.limit"}, ANY, {NULL}, 0, NULL, NULL}
#define STACK_MIXED(text) {"stack-mixed", text, {NULL}, ANY, {NULL}, 0, rd_fact_stack_mixed, NULL}
#define DKMS(text) {"dkms", text, {"stack.dkms"}, ANY, {NULL}, 0, NULL, NULL}
/* ib_uverbs loaded, yet no uverbsN: libibverbs lists no device (a driver without verbs, or udev) */
#define NO_UVERBS_DEVICE {"no-uverbs-device", "no uverbs device (/sys/class/infiniband_verbs, /dev/infiniband/uverbsN)", \
		{"devnodes.present"}, N, {"uverbs", "uverbs[0-9]*"}, 0, NULL, NULL, "ib_uverbs"}
#define NO_ACTIVE_PORT {"no-active-port", "no port is Active", {NULL}, ANY, {NULL}, 0, rd_fact_no_active_port, NULL}
#define FIRMWARE_OLD                                                                                      \
	{"firmware-old", "firmware older than the others or than the pin", {"firmware.uniform", "firmware.pinned"}, ANY, {NULL}, 0, NULL, NULL}
#define UCM_NOT_LOADED {"ucm-not-loaded", "rdma_ucm is not loaded: no /dev/infiniband/rdma_cm", {"modules.loaded"}, M, {"rdma_ucm"}, 0, NULL, NULL}
#define UMAD_NOT_LOADED {"umad-not-loaded", "ib_umad is not loaded", {"modules.loaded"}, M, {"ib_umad"}, 0, NULL, NULL}
#define UMAD_NOT_AT_BOOT                                                                                  \
	{"umad-not-at-boot", "ib_umad is not listed in modules-load.d", {"modules.persistent"}, M, {"ib_umad"}, 0, \
	 rd_fact_not_in_modules_load_d, NULL}
/* a work request the peer never acknowledged (IBV_WC_RETRY_EXC_ERR, status 12) */
#define RETRY_EXCEEDED_CAUSES                                                                                      \
	{{"port-not-active", "a port of this host is not Active (link down, flapping, or no subnet manager)", {"ports.state"}, ANY, {NULL}, \
	  0, NULL, NULL},                                                                                             \
	 {"roce-mtu", "RoCE MTU differs or is small", {"roce.mtu"}, ANY, {NULL}, 0, NULL, NULL},                                  \
	 {"hca-wedged", "the HCA is wedged (firmware health errors in the kernel log)", {"kernel.log"}, L,                          \
	  {"health compromised", "Fatal error", "Will cause a leak of a command resource"}, 0, NULL, NULL},           \
	 {"peer-or-timeout", "the peer's port, cable or switch went down, or NCCL_IB_TIMEOUT is too short for the fabric", {NULL}, ANY,  \
	  {NULL}, 0, NULL,                                                                                            \
	  "run rdma-doctor check on the peer the message names; NCCL: try a larger NCCL_IB_TIMEOUT (default 20)"}}

const struct rd_signature rd_signatures[] = {
	{"rdma.open_device", "a program could not open an RDMA device (its uverbs node)",
	 {"could not open rdma device"}, NULL,
	 {UVERBS_NOT_LOADED("ib_uverbs is not loaded"), UVERBS_NODES_MISSING, UVERBS_NODES_MODE,
	  {"uverbs-not-at-boot", "ib_uverbs is not loaded at boot (not in modules-load.d)", {"modules.persistent"}, M, {"ib_uverbs"}, 0,
	   rd_fact_not_in_modules_load_d, NULL},
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
	 {{"no-rdma-device", "there is no RDMA device here", {NULL}, ANY, {NULL}, 0, rd_fact_no_rdma_hardware, NULL},
	  UVERBS_NOT_LOADED("ib_uverbs is not loaded"), NO_UVERBS_DEVICE,
	  {"mlx5-not-loaded", "the mlx5 RDMA driver is not loaded", {"modules.loaded"}, M, {"mlx5_ib", "mlx5_core"}, 0, NULL, NULL},
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
	   {"ib_uverbs", "ib_umad", "rdma_ucm"}, 0, NULL, NULL},
	  {"modules-not-at-boot", "the RDMA modules are not listed in modules-load.d", {"modules.persistent"}, M,
	   {"ib_uverbs", "ib_umad", "rdma_ucm"}, 0, rd_fact_not_in_modules_load_d, NULL},
	  STACK_MIXED("a kernel symbol mismatch stopped the modules loading (in-tree and OFED modules mixed)"),
	  DKMS("OFED modules not built for the running kernel")}},
	{"modprobe.invalid_argument", "modprobe could not insert a module: the kernel refused it (Invalid argument)",
	 {"could not insert", "invalid argument"}, NULL,
	 {DKMS("OFED DKMS modules not built for the running kernel (after a kernel upgrade)"),
	  STACK_MIXED("in-tree and OFED modules mixed")}},
	/* kmod tools/modprobe.c: ERR("could not insert '%s': %s\n", kmod_module_get_name(mod), strerror(-err)): the
	 * module's name, with underscores */
	{"modprobe.peermem_invalid", "modprobe could not insert nvidia_peermem: the kernel refused it (Invalid argument)",
	 {"could not insert 'nvidia_peermem'", "invalid argument"}, NULL,
	 {{"peermem-on-inbox", "nvidia_peermem on an inbox ib_core (no peer-memory API)", {NULL}, ANY, {NULL}, 0,
	   rd_fact_peermem_missing_on_inbox, NULL}}},
	{"kernel.symbol_version", "a module was built against other symbols than the loaded ones",
	 {"disagrees about version of symbol"}, NULL,
	 {STACK_MIXED("in-tree and OFED modules mixed"), DKMS("OFED DKMS modules not built for the running kernel")}},
	{"kernel.unknown_symbol", "a module needs a symbol no loaded module provides",
	 {"unknown symbol"}, NULL,
	 {DKMS("OFED DKMS modules not built for the running kernel"), STACK_MIXED("in-tree and OFED modules mixed")}},
	{"umad.cant_open", "libibumad cannot open a UMAD port (no usable /dev/infiniband/umadN)",
	 {"can't open umad port"}, NULL,
	 {UMAD_NOT_LOADED,
	  {"umad-nodes-missing", "udev did not create the /dev/infiniband/umadN nodes (the kernel has them)", {"devnodes.present"}, N,
	   {"umad[0-9]*"}, FAIL_ONLY, NULL, NULL},
	  UMAD_NOT_AT_BOOT}},
	{"umad.abi_version", "libibumad cannot read the umad ABI version (no /sys/class/infiniband_mad)",
	 {"can't read abi version", "infiniband_mad"}, NULL,
	 {UMAD_NOT_LOADED, UMAD_NOT_AT_BOOT}},
	{"nccl.qp_setup", "NCCL could not set up an RDMA queue pair",
	 {"failed to set up rdma"}, NULL,
	 {MEMLOCK("the memory lock limit is too low (\"Cannot allocate memory\")"),
	  {"roce-mtu", "RoCE MTU differs or is small", {"roce.mtu"}, ANY, {NULL}, 0, NULL, NULL},
	  UVERBS_NOT_LOADED("ib_uverbs is not loaded here"),
	  {"remote-node", "ib_uverbs missing or an MTU mismatch on another node of the job", {NULL}, ANY, {NULL}, 0, NULL, NOT_HERE}}},
	{"ibv.create_qp", "ibv_create_qp failed",
	 {"ibv_create_qp"}, NULL,
	 {MEMLOCK("the memory lock limit is too low"), UVERBS_NOT_LOADED("ib_uverbs is not loaded")}},
	{"ibv.modify_qp", "ibv_modify_qp failed (the queue pair could not connect)",
	 {"ibv_modify_qp"}, NULL,
	 {{"roce-mtu", "RoCE MTU differs or is small", {"roce.mtu"}, ANY, {NULL}, 0, NULL, NULL},
	  {"port-not-active", "a port is not Active", {"ports.state"}, ANY, {NULL}, 0, NULL, NULL},
	  {"remote-side", "the remote side (MTU, GID index, port down)", {NULL}, ANY, {NULL}, 0, NULL, NOT_HERE}}},
	{"ibv.reg_mr", "memory registration failed",
	 {"ibv_reg_mr"}, NULL,
	 {MEMLOCK("the memory lock limit is too low"),
	  {"no-gpudirect", "GPU memory without GPUDirect (nvidia_peermem)", {"peermem.loaded", "peermem.registered"}, M,
	   {"nvidia_peermem"}, 0, NULL, NULL}}},
	{"peermem.memory_peers_missing", "/sys/kernel/mm/memory_peers does not exist",
	 {"/sys/kernel/mm/memory_peers", "no such file"}, NULL,
	 {{"peermem-not-registered", "nvidia_peermem loaded before ib_core: registration silently failed", {"peermem.registered"}, M,
	   {"nvidia_peermem"}, 0, NULL, NULL},
	  {"peermem-not-loaded", "nvidia_peermem is not loaded", {"peermem.loaded"}, M, {"nvidia_peermem"}, 0, NULL, NULL},
	  {"peermem-order", "nvidia_peermem configured before ib_core in modules-load.d", {"modules.peermem_order"}, M,
	   {"nvidia_peermem"}, 0, NULL, NULL},
	  {"inbox-ib-core", "inbox ib_core: the directory never exists there (NCCL checks /sys/module/nvidia_peermem/version)", {NULL},
	   ANY, {NULL}, 0, rd_fact_inbox_ib_core, NULL}}},
	{"nccl.gdr_disabled", "NCCL runs without GPUDirect RDMA",
	 {"gpu direct rdma disabled"}, NULL,
	 {{"peermem-not-loaded", "nvidia_peermem is not loaded", {"peermem.loaded"}, M, {"nvidia_peermem"}, 0, NULL, NULL},
	  {"peermem-not-registered", "nvidia_peermem is not registered with ib_core", {"peermem.registered"}, M, {"nvidia_peermem"}, 0, NULL, NULL},
	  {"peermem-order", "nvidia_peermem is configured to load before ib_core", {"modules.peermem_order"}, M, {"nvidia_peermem"}, 0,
	   NULL, NULL}}},
	{"openibd.dead", "openibd.service is inactive (dead)",
	 {"inactive (dead)"}, "openibd",
	 {{"openibd-not-running", "openibd is enabled but not running", {"openibd.state"}, ANY, {NULL}, 0, NULL, NULL},
	  {"openib-conf-module", "openib.conf names a module the running kernel lacks", {"openibd.conf"}, ANY, {NULL}, 0, NULL, NULL},
	  DKMS("OFED modules not built for the running kernel")}},
	{"openibd.failed", "openibd.service failed to start",
	 {"failed to start", "openibd"}, NULL,
	 {{"openib-conf-module", "openib.conf names a module the running kernel lacks", {"openibd.conf"}, ANY, {NULL}, 0, NULL, NULL},
	  DKMS("OFED modules not built for the running kernel"), STACK_MIXED("in-tree and OFED modules mixed")}},
	{"ports.initializing", "a port is Initializing: its link is up but no subnet manager has configured it",
	 {"initializing"}, "port",
	 {{"no-subnet-manager", "no subnet manager on the fabric", {"ports.sm"}, ANY, {NULL}, 0, NULL, NULL}}},
	{"ports.init_state", "a port is in INIT state: its link is up but no subnet manager has configured it",
	 {"2: init"}, NULL,
	 {{"no-subnet-manager", "no subnet manager on the fabric", {"ports.sm"}, ANY, {NULL}, 0, NULL, NULL}}},
	{"ports.polling", "a port is Polling: it has no physical link",
	 {"polling"}, "state",
	 {{"no-link", "cable unplugged or broken, or the switch port is down", {NULL}, ANY, {NULL}, 0, rd_fact_port_polling, NULL}}},
	{"kernel.peermem_invalid_context", "nvidia-peermem saw an invalid context while freeing GPU registrations",
	 {"nv_get_p2p_free_callback", "invalid"}, NULL,
	 {{"peermem-errors", "nvidia-peermem errors in the kernel log", {"kernel.log"}, L, {"invalid context"}, 0, NULL, NULL},
	  {"peermem-not-registered", "nvidia_peermem not registered with ib_core", {"peermem.registered"}, M, {"nvidia_peermem"}, 0, NULL, NULL}}},
	{"kernel.pcie_limited", "a device sits on a PCIe link slower or narrower than it needs",
	 {"available pcie bandwidth, limited by"}, NULL,
	 {{"pcie-degraded", "a ConnectX in a degraded PCIe slot or link", {"kernel.log"}, L, {"available PCIe bandwidth, limited by"}, 0,
	   NULL, NULL}}},
	{"kernel.mlx5_health", "the ConnectX firmware reported a fatal error",
	 {"mlx5", "health compromised"}, NULL,
	 {{"firmware-health", "firmware health error", {"kernel.log"}, L, {"health compromised"}, 0, NULL, NULL}, FIRMWARE_OLD}},
	{"kernel.mlx5_fatal", "the ConnectX firmware reported a fatal error",
	 {"mlx5", "fatal error"}, NULL,
	 {{"firmware-fatal", "firmware fatal error", {"kernel.log"}, L, {"Fatal error"}, 0, NULL, NULL}, FIRMWARE_OLD}},
	{"kernel.mlx5_cmd_timeout", "firmware commands of a ConnectX time out",
	 {"mlx5", "will cause a leak of a command resource"}, NULL,
	 {{"firmware-timeouts", "firmware command timeouts: the HCA is wedged", {"kernel.log"}, L, {"Will cause a leak of a command resource"},
	   0, NULL, NULL},
	  FIRMWARE_OLD}},
	{"kernel.rxe_crc32", "Soft-RoCE could not start: crc32 is missing",
	 {"rdma_rxe", "crc32"}, NULL,
	 {{"rxe-crc32", "crc32_generic not loaded before rdma_rxe", {"kernel.log"}, L, {"failed to init crc32 algorithm"}, 0, NULL,
	   NULL}}},
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
	{NULL, NULL, {NULL}, NULL, {{NULL, NULL, {NULL}, ANY, {NULL}, 0, NULL, NULL}}},
};
