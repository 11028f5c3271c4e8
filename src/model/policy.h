/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The policy: what "healthy" means on this fleet, from an INI file (parsed with inih):
 *
 *   [modules]   required = mlx5_core mlx5_ib ib_core ...      (the 9 of the guide by default)
 *   [ports]     expect_active = 9   min_rate_ib = 400   min_rate_ethernet = 200   (Gb/s)
 *               ignore = mlx5_4 mlx5_5/1                      (spare or Ethernet-mode ports)
 *   [roce]      netdev_mtu = 9000   min_active_mtu = 4096
 *   [firmware]  MT_0000000838 = 28.41.1000                    (board_id = pinned fw_ver)
 *   [memlock]   min = unlimited     services = slurmd
 *   [nccl]      gid_index = 3   roce_version = 2   addr_family = AF_INET   (what jobs set; roce.gid)
 *               version = 2.19.3                           (the NCCL jobs run, over the libnccl found)
 *   [mlxconfig] LINK_TYPE_P1 = IB(1)                        (NAME = value at next boot: as mlxconfig
 *               prints it, the name alone or the number alone; any NAME is accepted;
 *               SCOPE/NAME applies to the RDMA device or board_id SCOPE only: MT_0000000838/LINK_TYPE_P1)
 *   [roce]      trust = dscp        pfc = 3                   (QoS of RoCE ports; pfc: priorities, or none)
 *
 * A section may be scoped (docs/usage.md "Policy file"): [ports @gpu[001-128]] applies on the hosts
 * of a Slurm hostlist only (the root's host name, or its short form), [firmware board=MT_0000000838]
 * (fw_ver = ...) and [mlxconfig board=MT_0000000838] (NAME = ...) to that board_id's devices only
 * (the per-board forms BOARD = FW and BOARD/NAME).  The most specific setting wins: board, then
 * the host pattern naming the fewest hosts, then unscoped; two as specific with different values
 * on one host are an error naming both lines.  Every section is checked, on any host.
 *
 * Ownership: an rd_policy owns its lists and settings; rd_policy_free releases them. */
#ifndef RD_POLICY_H
#define RD_POLICY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/source.h"
#include "util/util.h"

/* The policy: what "healthy" means on this fleet.  rd_policy_defaults fills the defaults. */
#define RD_POLICY_MAX 32
#define RD_POLICY_HEADER_MAX 256 /* a section header's text, a host name */
/* One value the file set and the section that set it, the winner of its key (check --policy-explain). */
struct rd_policy_setting {
	char *section; /* "ports" */
	char *key;     /* as written: "min_rate_ib", "fw_ver" */
	char *pkey;    /* its unscoped form: a board section's "MT_0000000838" or "MT_0000000838/NAME" */
	char *value;   /* without its comment */
	char *header;  /* the section's header as written, without the brackets: "ports @gpu[001-128]" */
	int line;      /* the setting's line */
	int scope;     /* 0 unscoped, 1 host pattern, 2 board */
	unsigned long long nhosts; /* a host pattern's hosts */
	int header_index;
	/* while parsing: a section as specific that gives this host another value (the message, at
	 * conflict_line); cleared when a more specific section wins, an error at the end if not */
	char *conflict;
	int conflict_line;
};
struct rd_fw_pin {
	char board_id[64];
	char fw_ver[32];
};
struct rd_policy {
	struct rd_strv modules;           /* modules that must be loaded and persistent */
	bool modules_set;                 /* [modules] required = gave them (else: the nine, plus the
					   * RDMA drivers of the host's devices: rd_policy_add_driver_modules) */
	struct rd_strv services;          /* services whose memlock limit matters */
	double min_rate_ib, min_rate_eth; /* Gb/s; 0 = only compare ports of the same model */
	unsigned roce_min_active_mtu;     /* 4096 by default */
	unsigned roce_netdev_mtu;         /* expected netdev MTU, 0 = not set */
	uint64_t memlock_min;             /* bytes; UINT64_MAX = unlimited required */
	struct rd_fw_pin pins[RD_POLICY_MAX];
	size_t npins;
	struct rd_strv ignore;            /* "mlx5_2" or "mlx5_2/1" */
	int expect_active_ports;          /* -1 = every port; counts only ports not ignored */
	int ignore_line;                  /* line of "ignore =" in the file, 0 when none */
	char origin[256];                 /* the file the policy came from, "" for the defaults */
	char host[RD_POLICY_HEADER_MAX];  /* the host name its host patterns were matched against, "" none */
	struct rd_policy_setting *settings; /* what the file set, in the order first set */
	size_t nsettings;
	/* [nccl]: what the fleet's jobs give NCCL (roce.gid); -1 / 0 = not set */
	int nccl_gid_index;               /* NCCL_IB_GID_INDEX the jobs set, -1 none */
	int nccl_roce_version;            /* NCCL_IB_ROCE_VERSION_NUM, 0 = NCCL's default (2) */
	int nccl_family;                  /* NCCL_IB_ADDR_FAMILY: 4 or 6 (model/gid.h), 0 = AF_INET */
	unsigned nccl_version;            /* the NCCL the jobs run (rd_nccl_version_parse), 0 = not set */
	/* [mlxconfig] NAME = VALUE and [roce] trust / pfc (model/mft.h, checks mlxconfig.policy and roce.qos) */
	struct rd_mlxconfig_pin {
		char name[64];
		char value[64];
	} mlxconfig[RD_POLICY_MAX];
	size_t nmlxconfig;
	char roce_trust[8];               /* "dscp" or "pcp"; "" = not set */
	bool roce_pfc_set;
	uint8_t roce_pfc;                 /* priorities with PFC on (bit N = priority N) */
	/* link health (link.counters, link.flaps, pcie.link, non-compute ports):
	 *   [counters] exclude = mlx5_4 ...    devices whose counters are never read
	 *              symbol_error_per_hour = N, port_rcv_errors_per_hour = N,
	 *              port_xmit_discards_per_hour = N, link_error_recovery_per_hour = N: FAIL past it
	 *              window = 1h        a rise is reported for this long after it (model/state.h)
	 *   [pcie]     min_width = 16   min_speed = 32    (lanes, GT/s): FAIL below
	 *              max_read_request = 4096            (bytes, pcie.mrrs): WARN below
	 *   [ports]    data_ports = mlx5_0:3,6,9,12 ...   the ports judged on a multi-plane device
	 *              management = compute              the default route's NIC is a compute port */
	struct rd_strv counters_exclude;
	double counters_fail_per_hour[4]; /* RD_RATE_COUNTERS order; 0 = no FAIL limit */
	long long counters_window_s;      /* [counters] window, seconds (default 3600) */
	unsigned pcie_min_width;          /* 0 = none */
	double pcie_min_speed;            /* GT/s, 0 = none */
	unsigned pcie_max_read_request;   /* bytes (128 ... 4096), 0 = none */
	struct rd_strv data_ports;        /* "mlx5_0:3,6,9,12" */
	bool management_is_compute;
	/* [watch] when a port that is not ACTIVE drains the node (watch --slurm, run/damp.h):
	 *   drain_down_after = 10s    a port down this long drains
	 *   drain_flaps = 2 in 5m     a port that went down this many times within the window drains at once
	 *   resume_stable = 5m        every port that went down is back this long before a resume */
	long long watch_down_s;           /* 0 .. 1 day */
	unsigned watch_flaps;             /* 1 .. RD_POLICY_FLAPS_MAX */
	long long watch_window_s;         /* 1 s .. 1 day */
	long long watch_stable_s;         /* 0 .. 1 day */
};
#define RD_POLICY_FLAPS_MAX 64
/* The counters whose rate link.counters judges, in rd_policy.counters_fail_per_hour's order. */
extern const char *const rd_rate_counters[4];
/* True when the policy lists port of dev in data_ports; *listed tells whether dev is named at all. */
bool rd_policy_data_port(const struct rd_policy *p, const char *dev, unsigned port, bool *listed);
void rd_policy_defaults(struct rd_policy *p);
/* Defaults, then the file at path (a path on this machine) if given, else /etc/rdma-doctor.conf
 * read through src (in the root) when it exists.  Returns 0, or -1 with "FILE:LINE: reason" in
 * err (the policy then holds the defaults). */
int rd_policy_load(const char *path, struct rd_source *src, struct rd_policy *p, char *err, size_t errlen);
/* Unless the policy names its modules, adds to the nine the RDMA driver module of each device of h
 * that is not mlx5 (mlx4_ib for an mlx4_0, irdma, bnxt_re, efa, mana_ib ...: model/lookup.c), after
 * them, once each; not rdma_rxe or siw (their devices come from `rdma link add`, which loads them). */
struct rd_host;
void rd_policy_add_driver_modules(struct rd_policy *p, const struct rd_host *h);
/* True when module registers one of h's devices: it is loaded or built in, whatever /proc/modules
 * says (a capture that missed its line is no reason to modprobe it). */
bool rd_host_device_driver(const struct rd_host *h, const char *module);
/* Parses policy text; name is used in messages.  Returns 0 or -1 with "NAME:LINE: reason".
 * rd_policy_parse_host takes the sections of host (NULL or "": only the unscoped and board ones);
 * rd_policy_parse is it with no host. */
int rd_policy_parse(const char *text, const char *name, struct rd_policy *p, char *err, size_t errlen);
int rd_policy_parse_host(const char *text, const char *name, const char *host, struct rd_policy *p, char *err,
			 size_t errlen);
void rd_policy_free(struct rd_policy *p);
bool rd_policy_ignores(const struct rd_policy *p, const char *dev, unsigned port);
/* The ignore entries that name no device or port of host, space-separated in buf; returns how
 * many (0: every entry matches). */
struct rd_host;
int rd_policy_unmatched_ignores(const struct rd_policy *p, const struct rd_host *h, char *buf, size_t len);

#endif
