/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Pure parsers from the text the kernel (and a few tools) write to typed values.  No I/O, and
 * nothing printed.  By subject: parse.c (numbers and names), parse-sysfs.c (device and port
 * attributes, RoCE), parse-proc.c (/proc files, a snapshot's device nodes), parse-conf.c
 * (configuration files), parse-pkg.c (ofed_info, dpkg); parse-internal.h is what they share.
 *
 * Ownership: parsers borrow their input and write into caller-provided structs and buffers; only
 * rd_parse_modules_load and rd_parse_openib_conf allocate, into the caller's rd_strv and *bad
 * (freed with rd_strv_free and rd_modload_bad_free).
 *
 * The parsers of one value (a sysfs attribute, a /proc line: rd_parse_u64 ... rd_parse_devnode_line)
 * accept it with or without one trailing newline, zero their output first, and return 0 or
 * -RD_EPARSE (garbage, empty, truncated, out of range; rd_parse_counter also -ENODATA); use the
 * output only on 0.  The parsers of whole files and tool outputs (below the "configuration files"
 * line) say at each what they return. */
#ifndef RD_PARSE_H
#define RD_PARSE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* Unsigned integer of the whole text in the given base (0 = C prefixes: 0x.. hex, 0.. octal),
 * at most max. Leading/trailing blanks are allowed; anything else is an error. */
int rd_parse_u64(const char *s, int base, uint64_t max, uint64_t *out);

/* "4: ACTIVE" / "5: LinkUp" / "1: CA": the number before the colon and the name after it. */
struct rd_enum_text {
	unsigned num;
	char name[40];
};
int rd_parse_enum_text(const char *s, struct rd_enum_text *out);

/* Port logical states (ports/N/state) and physical states (ports/N/phys_state). */
enum rd_port_state {
	RD_PORT_NOP = 0, RD_PORT_DOWN = 1, RD_PORT_INIT = 2, RD_PORT_ARMED = 3,
	RD_PORT_ACTIVE = 4, RD_PORT_ACTIVE_DEFER = 5,
};
enum rd_phys_state {
	RD_PHYS_SLEEP = 1, RD_PHYS_POLLING = 2, RD_PHYS_DISABLED = 3, RD_PHYS_TRAINING = 4,
	RD_PHYS_LINKUP = 5, RD_PHYS_ERROR_RECOVERY = 6, RD_PHYS_PHY_TEST = 7,
};
/* The kernel's names ("ACTIVE", "LinkUp") and the operator words ibstat uses ("Active"). */
const char *rd_port_state_name(unsigned state);
/* "Down", "Initializing", "Armed", "Active" (ibstat's words; also "NOP", "ActiveDefer"), or
 * "unknown" for a negative or larger state. */
const char *rd_port_state_word(int state);
const char *rd_phys_state_name(unsigned phys);

/* ports/N/rate: "400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)", old "10 Gb/sec (4X)". */
struct rd_rate {
	double gbps;     /* 400, 2.5 */
	unsigned width;  /* lanes: 1, 2, 4, 8, 12 */
	char speed[8];   /* "SDR".."XDR", "FDR10", or "" for the old form without a name */
	double lane_gbps; /* gbps / width */
};
int rd_parse_rate(const char *s, struct rd_rate *out);

/* node_guid / sys_image_guid: "a088:c203:00c8:de4a" (four 16-bit groups). */
int rd_parse_guid(const char *s, uint64_t *out);
/* gids/N: eight 16-bit groups "fe80:0000:...:142a". */
int rd_parse_gid(const char *s, uint8_t out[16]);
bool rd_gid_is_zero(const uint8_t gid[16]);

/* A name as the kernel gives a device, a port's counter or a netdev in sysfs: not empty, at most
 * max bytes, not "." or "..", no '/', valid UTF-8 with no control character (C0, DEL, C1).  A
 * directory entry that is not one is not such a thing: every output (text, JSON, Prometheus) can
 * then show two names as two (U+FFFD or \ufffd would make "mx\x01" and "mx\x02" one). */
bool rd_is_kernel_name(const char *s, size_t max);
/* A number as the kernel names a port, a GID index or uverbsN: "0" or a decimal without a leading
 * zero, at most max; so "01" and "1.0" are not port 1. */
bool rd_is_canonical_uint(const char *s, unsigned long max, unsigned long *out);

/* A PCI address as sysfs names a function, "dddd:bb:dd.f": the domain in 4 hex digits, or up
 * to 8 for the domains of 0x10000 and above that Intel VMD creates ("10000:e1:00.0"). */
bool rd_is_pci_addr(const char *s);
/* True when text names PCI address addr as a whole word, followed by after ("" for any non-hex
 * character or the end): "0000:e1:00.0" is not found in "10000:e1:00.0". */
bool rd_text_names_pci(const char *text, const char *addr, const char *after);

/* counters/<name> and hw_counters/<name>: decimal, or the old "N/A (no PMA)" (-> -ENODATA). */
int rd_parse_counter(const char *s, uint64_t *out);

/* hca_type "MT4129" -> PCI device id 0x1021; the ConnectX/BlueField generation name. */
int rd_parse_hca_type(const char *s, unsigned *device_id);
const char *rd_hca_model_name(unsigned device_id); /* NULL when unknown */

/* One /proc/modules line: "mlx5_core 1448990 1 mlx5_ib, Live 0xffffffffc0521000 (OE)", copied
 * into the fixed arrays below. */
#define RD_MAX_HOLDERS 64
struct rd_proc_module {
	char name[64];
	unsigned long long size;
	int refcnt;            /* -1 when the kernel prints "-" (no CONFIG_MODULE_UNLOAD) */
	size_t nholders;
	char holders[RD_MAX_HOLDERS][64];
	bool permanent;
	char state[16];        /* Live, Loading, Unloading */
	char taint[16];        /* "OE" without parentheses, "" when untainted */
};
int rd_parse_proc_modules_line(const char *line, struct rd_proc_module *out);

/* /proc/<pid>/limits "Max locked memory" soft and hard limits in bytes; UINT64_MAX = unlimited. */
int rd_parse_limits_memlock(const char *text, uint64_t *soft, uint64_t *hard);
/* One line of a snapshot's rdma-doctor/devnodes: "NAME MODE UID GID" (MODE in octal, as a
 * device node's permission bits).  name gets at most namelen-1 bytes.  Returns 0 or -RD_EPARSE. */
int rd_parse_devnode_line(const char *line, char *name, size_t namelen, unsigned *mode, unsigned *uid,
			  unsigned *gid);

/* ---- configuration files and tool outputs ----------------------------------------------- */

/* modules-load.d, read the way systemd-modules-load reads it: each line is stripped of blanks;
 * an empty line, or one whose first character is '#' or ';', is a comment; any other line is
 * taken whole as one module name (so "ib_ipoib  # storage" names no module and loads nothing).
 * Lines end at '\n', '\r', "\r\n" or a NUL byte (systemd's read_line); text holds len bytes.
 * Module names are pushed with '-' turned into '_' (how the kernel names them).  A line that is
 * not a module name is returned in *bad (when bad is not NULL; allocated, free with
 * rd_modload_bad_free) with its line number (counted in '\n') and its text, printable.
 * Returns the number of such lines, also stored in *nbad (when not NULL). */
struct rd_modload_bad {
	unsigned line;
	char *text;
};
size_t rd_parse_modules_load(const char *text, size_t len, struct rd_strv *modules, struct rd_modload_bad **bad,
			     size_t *nbad);
void rd_modload_bad_free(struct rd_modload_bad *bad, size_t n);

/* /etc/infiniband/openib.conf: "KEY=VALUE" lines ('#' comments).  For every "<X>_LOAD=yes" key
 * pushes the module names OFED's openibd loads for it (e.g. UMAD_LOAD -> ib_umad).  Unknown
 * *_LOAD keys are pushed lower-cased without the suffix.  Returns 0 (any text parses). */
int rd_parse_openib_conf(const char *text, struct rd_strv *modules);

/* `ofed_info -s`: "MLNX_OFED_LINUX-24.10-1.1.4.0:" or "OFED-internal-25.10-1.7.1:".
 * flavor: "MLNX_OFED" or "OFED-internal"; version without the prefix and colon.  Returns 0 or
 * -RD_EPARSE; *out is zeroed first. */
struct rd_ofed_info {
	char flavor[16];
	char version[64];
};
int rd_parse_ofed_info(const char *text, struct rd_ofed_info *out);

/* One package's "Status:" and "Version:" from a dpkg status file; returns 1 when it is
 * installed ("install ok installed"), 0 when absent or not installed, -RD_EPARSE on a broken file. */
int rd_dpkg_package(const char *status_file, const char *package, char *version, size_t vlen);
/* rd_dpkg_package for n packages in one pass over the file: found[i] is what it would return for
 * names[i] (1 installed, 0 not), its version in versions + i * vlen ("" when not installed).
 * Returns 0, or -RD_EPARSE without a file (every found[i] 0). */
int rd_dpkg_packages(const char *status_file, const char *const *names, size_t n, int *found, char *versions,
		     size_t vlen);

/* A size from systemd (LimitMEMLOCK=, DefaultLimitMEMLOCK=: "infinity", "64K", "8M", "1G",
 * bytes) or limits.conf (memlock: KiB, "unlimited"/"infinity"/-1).  UINT64_MAX = unlimited.
 * Returns 0 or -RD_EPARSE; *bytes is zeroed first. */
int rd_parse_systemd_size(const char *s, uint64_t *bytes);
/* The last "KEY=" assignment in a systemd unit/conf text (section-agnostic): true with its value,
 * blanks trimmed, copied into buf (cut to len-1 bytes); false when there is none. */
bool rd_systemd_value(const char *text, const char *key, char *buf, size_t len);
/* limits.conf lines "domain type memlock value": the value for domain "*" or the given user,
 * type soft/hard/-.  Returns 1 when found (the lines' soft/hard set, KiB converted to bytes;
 * UINT64_MAX = unlimited), 0 if not (soft and hard left as they were). */
int rd_limits_conf_memlock(const char *text, const char *user, uint64_t *soft, uint64_t *hard);

/* /proc/<pid>/status "CapEff:" as a 64-bit mask.  Returns 0 or -RD_EPARSE (no such line, or
 * not hex); *mask is zeroed first. */
int rd_parse_capeff(const char *status, uint64_t *mask);
/* True when a CapEff mask holds CAP_IPC_LOCK (capability 14), which lifts RLIMIT_MEMLOCK. */
static inline bool rd_capeff_ipc_lock(uint64_t mask)
{
	return (mask >> 14) & 1;
}

/* The active MTU a RoCE netdev MTU gives (the kernel's iboe_get_mtu(), include/rdma/ib_addr.h):
 * netdev MTU minus 96 bytes of headers, rounded down to 256..4096; 0 below that. */
unsigned rd_roce_active_mtu(uint64_t netdev_mtu);
/* Writes the priorities set in mask (bit N = priority N) as "3", "3,4", or "none" when none is. */
void rd_prio_words(uint8_t mask, char *buf, size_t len);

#endif
