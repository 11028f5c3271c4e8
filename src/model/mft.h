/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* MFT tools (mlxlink, mlxconfig, flint) and RoCE QoS (sysfs qos/, mlnx_qos, dcb, rdma_cm's
 * configfs): the parsers of their output, and what rd_mft_load reads for each device and port.
 *
 * Every tool's output is captured as rdma-doctor/commands/<name> (source.h
 * rd_run_device_command): mlxlink-<rdma dev>-<port>, mlxconfig-<rdma dev>, flint-<rdma dev>,
 * mlnx_qos-<netdev>, dcb-pfc-<netdev>, ethtool-S-<netdev>.  mlxlink prints ANSI colour codes whatever its output is:
 * every captured text is passed through rd_strip_ansi before it is parsed, so that no ESC byte
 * reaches a report.
 *
 * Ownership: the parsers fill structs that own their strings (free with the matching *_free);
 * rd_mft_load fills an rd_mft that owns everything in it (rd_mft_free). */
#ifndef RD_MFT_H
#define RD_MFT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/bootset.h"
#include "model/host.h"

/* Removes ANSI escape sequences (CSI "ESC [ ... final", OSC "ESC ] ... BEL/ST", two-byte "ESC x")
 * and any other ESC byte from s[0..*len) in place; NUL-terminates and updates *len. */
void rd_strip_ansi(char *s, size_t *len);

/* ---- mlxlink -d <pci> -p <port> -m -c -e ------------------------------------------------------ */
/* One digital-diagnostics line of mlxlink's "Module Info" section, as mstflint's
 * MlxlinkCommander::prepareDDMSection prints it (the same from mstlink's first port through MFT
 * 4.35): "VALUE [LOW..HIGH]", VALUE one number or one per lane ("1.886,1.989,2.281,1.976"), and
 * LOW..HIGH the module's own alarm thresholds (PRM PDDR module info: "Alarm high temperature
 * threshold", "Alarm low RX Power threshold"); "N/A" when the module has no DDM. */
#define RD_DDM_LANES 16
struct rd_ddm {
	char *text;               /* as printed (NULL when absent); "N/A" is kept here, n = 0 */
	double v[RD_DDM_LANES];   /* the values, lane by lane */
	size_t n;                 /* 0: absent, N/A, or not understood */
	double lo, hi;            /* valid when th */
	bool th;                  /* thresholds printed and meaningful (not "[0..0]", lo < hi) */
};
/* The transceiver or cable ("Module Info", mlxlink -m): the strings as printed ("N/A" = NULL). */
struct rd_mlxlink_module {
	char *identifier, *cable_type, *cable_tech, *vendor, *part, *serial, *ddm_supported;
	struct rd_ddm temp, voltage, bias, rx, tx; /* [C], [mV], [mA] per lane, [dBm] per lane */
	bool present;             /* a Module Info field was found */
};
/* "54 [-5..75]", "8.380,8.380 [2..15]", "N/A": 0 with d filled (d->n lanes), -RD_EPARSE when the
 * text is not in that form (d->n = 0 then; d->text is not touched). */
int rd_parse_ddm(const char *text, struct rd_ddm *d);
/* True for a passive copper cable (Cable Type or Cable Technology says so): its diagnostics, when
 * it prints any ("0 [0..0]"), mean nothing. */
bool rd_module_passive_copper(const struct rd_mlxlink_module *m);
struct rd_mlxlink_info {
	char *state, *phys_state, *speed, *width, *fec;
	long status_opcode;      /* -1 when absent */
	char *group_opcode, *recommendation;
	char *fw_version;
	char *time_since_clear;
	char *eff_errors;        /* "Effective Physical Errors" */
	char *eff_ber, *raw_ber; /* as printed: "1E-255", "15E-13" */
	double eff_ber_v;        /* valid when eff_ber_ok */
	bool eff_ber_ok;
	char *raw_errors_lanes;  /* "Raw Physical Errors Per Lane": "0,0,0,0" */
	struct rd_mlxlink_module module; /* -m's Module Info (owned) */
};
/* Parses the text (ANSI codes already stripped).  Returns 0 when it has at least State or the
 * Status Opcode or a BER line, -RD_EPARSE otherwise (fields found are kept either way). */
int rd_parse_mlxlink(const char *text, struct rd_mlxlink_info *out);
void rd_mlxlink_info_free(struct rd_mlxlink_info *m);
/* mlxlink's BER notation "<coef>E-<exp>" (also "1.5E-12", "0E-0"); -RD_EPARSE otherwise. */
int rd_parse_ber(const char *s, double *out);
/* What a Status Opcode says: "ok", "PHY firmware", "management firmware", "cable unplugged",
 * "core/driver". */
const char *rd_mlxlink_opcode_class(long opcode);

/* ---- mlxconfig -d <pci> query ---------------------------------------------------------------- */
struct rd_mlxconfig_param {
	char *name;
	char *dflt, *current, *next; /* NULL for a column the output does not have */
};
struct rd_mlxconfig_info {
	char *device_type;
	bool has_default, has_current; /* columns present (Next Boot always) */
	struct rd_mlxconfig_param *params;
	size_t nparams;
};
/* Parses the "Configurations:" table (Default / Current / Next Boot columns, in that order, or
 * Next Boot alone as older mlxconfig prints it; a leading '*' marks a changed value).  Returns 0
 * with at least one parameter, else -RD_EPARSE. */
int rd_parse_mlxconfig(const char *text, struct rd_mlxconfig_info *out);
void rd_mlxconfig_info_free(struct rd_mlxconfig_info *m);
const struct rd_mlxconfig_param *rd_mlxconfig_find(const struct rd_mlxconfig_info *m, const char *name);
/* True when the value mlxconfig printed ("IB(1)", "255", "True(1)") is what want asks for:
 * "IB(1)", the name alone ("IB", any case) or the number alone ("1", "0x1"). */
bool rd_mlxconfig_value_matches(const char *have, const char *want);
/* The value to type after NAME= in `mlxconfig set`: the number of want when it has one
 * ("IB(1)" -> "1"), else want as written.  Returns buf. */
const char *rd_mlxconfig_set_value(const char *want, char *buf, size_t len);

/* ---- flint -d <pci> query -------------------------------------------------------------------- */
struct rd_flint_info {
	char *fw_version;   /* "FW Version" (the image on flash) */
	char *fw_running;   /* "FW Version(Running)": present when a new image awaits a reset */
	char *psid;
	char *product_version;
};
/* Returns 0 when FW Version or PSID was found, else -RD_EPARSE. */
int rd_parse_flint(const char *text, struct rd_flint_info *out);
void rd_flint_info_free(struct rd_flint_info *f);

/* ---- QoS: mlnx_qos -i <if>, dcb pfc show dev <if>, /sys/class/net/<if>/qos/{trust,pfc} -------- */
struct rd_qos_info {
	char trust[8];   /* "dscp", "pcp", "" when not known */
	int pfc[8];      /* 1 on, 0 off; valid when pfc_ok */
	bool pfc_ok;
};
/* mlnx_qos -i: "Priority trust state: dscp" and the "enabled" row under "PFC configuration:".
 * Returns 0 when either was found, else -RD_EPARSE. */
int rd_parse_mlnx_qos(const char *text, struct rd_qos_info *out);
/* dcb pfc show dev <if>: "prio-pfc 0:off 1:off 2:off 3:on ...".  0 or -RD_EPARSE. */
int rd_parse_dcb_pfc(const char *text, struct rd_qos_info *out);
/* qos/trust: "dscp" or "pcp" (also as "Priority trust state: dscp").  0 or -RD_EPARSE. */
int rd_parse_qos_trust(const char *text, char trust[8]);
/* qos/pfc: an "enabled" row as mlnx_qos prints it, or 8 values 0/1 (comma or blank separated).
 * 0 or -RD_EPARSE. */
int rd_parse_qos_pfc(const char *text, int pfc[8]);
/* The DSCP-to-priority map of trust dscp: the "prio:N dscp:D,D,...," lines that mlnx_qos -i prints
 * under "dscp2prio mapping:" (a priority's list may wrap onto a second prio:N line), and the OFED
 * driver's qos/dscp2prio.  0 when every DSCP 0..63 is given exactly one priority, else -RD_EPARSE
 * (map untouched then). */
int rd_parse_dscp2prio(const char *text, signed char map[64]);
/* OFED's tc/<port>/traffic_class: "Global tclass=106" or "106"; the class (0..255), or -1 when it
 * is not set ("Global tclass=-1", empty) or not understood (-2). */
int rd_parse_tclass(const char *text);
/* "0,0,0,1,0,0,0,0" (for mlnx_qos --pfc) from a mask of priorities. */
void rd_pfc_list(uint8_t mask, char buf[16]);

/* ---- ethtool -S <if>: the congestion counters of a RoCE port's netdev ---------------------------
 * mlx5's names (drivers/net/ethernet/mellanox/mlx5/core/en_stats.c): per priority
 * rx_prioN_pause, tx_prioN_pause, rx_prioN_pause_duration, tx_prioN_pause_duration (PFC pause
 * frames and the time paused, microseconds), rx_prioN_discards, rx_prioN_buf_discard,
 * rx_prioN_cong_discard; per port rx_discards_phy, tx_discards_phy, rx_out_of_buffer,
 * rx_pause_ctrl_phy, tx_pause_ctrl_phy, tx_global_pause, tx_pause_storm_warning_events,
 * tx_pause_storm_error_events.  Only these are kept (a ConnectX netdev prints hundreds). */
#define RD_ETHTOOL_MAX_STATS 128
#define RD_ETHTOOL_NAME_MAX 48
struct rd_ethtool_stat {
	char name[RD_ETHTOOL_NAME_MAX];
	uint64_t value;
};
struct rd_ethtool_stats {
	struct rd_ethtool_stat v[RD_ETHTOOL_MAX_STATS];
	size_t n;
};
/* True when name is one of the congestion counters above. */
bool rd_ethtool_congestion_stat(const char *name);
/* The "     name: value" lines of `ethtool -S` (after its "NIC statistics:" line), keeping the
 * congestion counters with a decimal value (the first of a name seen twice; at most
 * RD_ETHTOOL_MAX_STATS).  Returns 0 when the text has the header or one "name: number" line,
 * else -RD_EPARSE (out is then empty). */
int rd_parse_ethtool_stats(const char *text, struct rd_ethtool_stats *out);
/* The stat, or NULL. */
const struct rd_ethtool_stat *rd_ethtool_find(const struct rd_ethtool_stats *s, const char *name);

/* ---- what is read per device and per RoCE port ----------------------------------------------- */
struct rd_tool_out {
	char *cmd;       /* the command line, as shown in evidence: "mlxlink -d 0000:1b:00.0 -p 1 -m -c -e" */
	char *capture;   /* "/rdma-doctor/commands/mlxlink-mlx5_0-1" in a root, else NULL */
	int err;         /* 0, errno of the run (ENOENT: not installed), RD_ENOTCAPTURED (not run or not
			  * in the root), RD_EPARSE (no known field in the output) */
	int status;      /* exit status */
	char *first_line; /* of the output, for a failed run's evidence (ANSI stripped) */
};
/* True when o's output was read and understood (exit status 0, or fields found anyway). */
bool rd_tool_ok(const struct rd_tool_out *o);
/* Why o gives nothing, in words: "not run (add --mft)", "not installed", "not captured in this
 * root", "exited with status 1: -E- ...", "output not understood".  Returns buf. */
const char *rd_tool_why(const struct rd_tool_out *o, char *buf, size_t len);

struct rd_mft_port {
	unsigned num;
	struct rd_tool_out mlxlink_out;
	struct rd_mlxlink_info link;
};
struct rd_mft_dev {
	char *name;      /* RDMA device */
	char *pci;
	struct rd_tool_out mlxconfig_out, flint_out;
	struct rd_mlxconfig_info config;
	struct rd_flint_info flint;
	struct rd_attr flint_fw, flint_psid; /* as attrs (path = the flint command), err when unknown */
	struct rd_mft_port *ports;
	size_t nports;
};
struct rd_qos_port {
	char *dev;
	unsigned port;
	char *ifname;
	struct rd_attr sys_trust, sys_pfc;   /* /sys/class/net/<if>/qos/{trust,pfc} (OFED driver) */
	struct rd_tool_out mlnx_qos_out, dcb_out;
	struct rd_qos_info qos;              /* the first readable of sysfs, mlnx_qos, dcb */
	const char *trust_from, *pfc_from;   /* static: "sysfs", "mlnx_qos", "dcb"; NULL unknown */
	int ecn_np[8], ecn_rp[8];            /* ecn/roce_{np,rp}/enable/<prio>: 1, 0, -1 unknown */
	bool ecn_ok;
	struct rd_attr tos;                  /* configfs rdma_cm/<dev>/ports/<p>/default_roce_tos */
	/* trust dscp: the DSCP-to-priority map (qos/dscp2prio of the OFED driver, else mlnx_qos -i),
	 * valid when map_from is set; and OFED's per-port class that overrides every QP's
	 * (sys/class/infiniband/<dev>/tc/<port>/traffic_class) */
	signed char dscp2prio[64];
	const char *map_from;                /* static: "sysfs", "mlnx_qos"; NULL unknown */
	struct rd_attr sys_map, tclass;
	bool cm_configfs;                    /* /sys/kernel/config/rdma_cm exists (configfs mounted, rdma_cm loaded) */
	/* roce.congestion: ethtool -S <if>, its congestion counters (valid when ethtool_out.err is 0) */
	struct rd_tool_out ethtool_out;
	struct rd_ethtool_stats *eth;        /* NULL when not read */
};
struct rd_mft {
	struct rd_mft_dev *devs;
	size_t ndevs;
	struct rd_qos_port *qos;
	size_t nqos;
	/* rd_mft_load_boot: the boot-time hooks that run mlnx_qos or dcb (what sets trust and PFC
	 * again after a reboot or a driver restart; model/bootset.h) */
	struct rd_bootset qos_boot;
	bool qos_boot_read;
	bool unloaded; /* not read in this run (RD_LOAD_MFT): rd_mft_dev aborts (rd_need, model/host.h) */
};
/* Runs (or reads from the root) the tools for each Mellanox PCI device of host (VFs skipped) and
 * each RoCE port's netdev (mlnx_qos, dcb, ethtool -S).  Never fails; what could not be read is recorded. */
void rd_mft_load(struct rd_source *src, const struct rd_host *host, struct rd_mft *m);
/* After rd_mft_load, with a RoCE port, when the policy sets [roce] trust or pfc (roce.qos says
 * then whether they are set again at boot): reads the boot-time hooks into m->qos_boot. */
void rd_mft_load_boot(struct rd_source *src, struct rd_mft *m);
void rd_mft_free(struct rd_mft *m);
const struct rd_mft_dev *rd_mft_dev(const struct rd_mft *m, const char *name);
const struct rd_mft_port *rd_mft_port(const struct rd_mft *m, const char *dev, unsigned port);
/* The RoCE port's QoS facts, or NULL. */
const struct rd_qos_port *rd_mft_qos(const struct rd_mft *m, const char *dev, unsigned port);
/* firmware.*: the device's fw_ver and board_id, or flint's FW Version and PSID where sysfs has
 * none (unreadable or empty). */
const struct rd_attr *rd_mft_fw_ver(const struct rd_mft *m, const struct rd_device *d);
const struct rd_attr *rd_mft_board_id(const struct rd_mft *m, const struct rd_device *d);

#endif
