/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* NCCL's parameters where NCCL finds them, and its device and interface lists, by its own rules
 * (NVIDIA/nccl src/misc/param.cc, src/misc/utils.cc, src/transport/net_ib/init.cc):
 *
 * * A parameter comes from the environment; else from the first of NCCL_CONF_FILE (when set
 *   and not empty) or $HOME/.nccl.conf that sets it; else from /etc/nccl.conf.  NCCL setenv()s
 *   each file's lines without overwriting, so the first line naming a variable wins.  A line is
 *   NAME=VALUE: a trailing "\n" and then "\r" are dropped, a line starting with '#' is skipped,
 *   a line without '=' is skipped, NAME is every byte before the first '=' (spaces included)
 *   and VALUE every byte after it (1023 bytes of each at most).
 * * NCCL_IB_HCA and NCCL_SOCKET_IFNAME are lists: a leading '^' excludes what they name, then a
 *   leading '=' makes the names exact; entries are split on ',' into "name:port" (the port, by
 *   atoi, absent or empty: any port).  Without '=', an entry is a prefix ("mlx5_1" also selects
 *   mlx5_10).  At most 32 entries (MAX_IB_DEVS); an empty list selects everything.
 *
 * * NCCL_SOCKET_IFNAME of more than one byte names the interfaces of NCCL's bootstrap (shorter, NCCL
 *   picks them itself); NCCL takes only those that are running (IFF_RUNNING) and have an address
 *   (src/misc/socket.cc ncclFindInterfaces, src/os/linux.cc).
 *
 * Ownership: struct rd_nccl_conf, rd_nccl_ifs and rd_nccl_pkeys own their strings (their _free);
 * the list is plain values. */
#ifndef RD_NCCLCONF_H
#define RD_NCCLCONF_H
#include <stdbool.h>
#include <stddef.h>

#include "model/host.h"

struct rd_source;

struct rd_nccl_confvar {
	char *name, *value;
	const char *file; /* the file that set it (one of rd_nccl_conf.files) */
};

struct rd_nccl_conf {
	struct rd_nccl_confvar *vars; /* in NCCL's order: the first of a name is the one NCCL keeps */
	size_t n;
	char *files[2];               /* the files read, in order, as absolute paths ("/etc/nccl.conf") */
	int errs[2];                  /* each file's read error: 0, ENOENT (absent), ... */
	size_t nfiles;
};

/* Adds the variables of one file's bytes, as NCCL's setEnvFile reads them, to c (file: its name,
 * kept by c).  Bytes after a NUL on a line are not seen, as with fgets. */
void rd_nccl_conf_parse(struct rd_nccl_conf *c, const char *file, const char *data, size_t len);
/* Reads NCCL's files through src (relative to its root): conf_file is NCCL_CONF_FILE and home is
 * HOME of the environment NCCL runs in, either NULL. */
void rd_nccl_conf_load(struct rd_source *src, const char *conf_file, const char *home, struct rd_nccl_conf *c);
/* The value a file gives name, or NULL; *file (optional) is the file. */
const char *rd_nccl_conf_get(const struct rd_nccl_conf *c, const char *name, const char **file);
void rd_nccl_conf_free(struct rd_nccl_conf *c);

/* The environment NCCL runs in.  pid 0: this process's own (getenv).  pid > 0: the environment
 * that process was started with, /proc/PID/environ read through the source (so --root and a
 * snapshot carry it), of which only NCCL's variables (NCCL_*) and HOME are kept; while recording,
 * the snapshot gets those entries alone, never the rest (a job's tokens and passwords). */
struct rd_nccl_environ {
	int pid;
	int err;                  /* pid > 0: reading its environ, 0 or an errno */
	char path[40];            /* "/proc/PID/environ" */
	char label[48];           /* "the environment of process PID" (the variables' file) */
	struct rd_nccl_conf vars; /* pid > 0: its NCCL_* and HOME, first of a name first */
};
/* Adds the NCCL_* and HOME entries of an environ block (NUL-separated NAME=VALUE; a last entry
 * without its NUL counts) to c, each under label (borrowed: it must outlive c); the first entry of
 * a name wins, as getenv(3) finds it, and an entry without '=' or with an empty name is skipped.
 * kept (len + 1 bytes at least) receives the kept entries in the same form, each ended by its NUL;
 * returns their length. */
size_t rd_nccl_environ_parse(struct rd_nccl_conf *c, const char *label, const char *data, size_t len, char *kept);
void rd_nccl_environ_load(struct rd_source *src, int pid, struct rd_nccl_environ *e);
/* name's value in the environment (NULL: unset, or pid's environ unreadable); *from (optional):
 * "the environment" or e->label. */
const char *rd_nccl_environ_get(const struct rd_nccl_environ *e, const char *name, const char **from);
void rd_nccl_environ_free(struct rd_nccl_environ *e);

enum { RD_NCCL_LIST_MAX = 32, RD_NCCL_PREFIX_MAX = 64 };
struct rd_nccl_list {
	bool set;     /* the variable is set and not empty */
	bool exclude; /* '^' */
	bool exact;   /* '=' */
	int n;
	struct {
		char prefix[RD_NCCL_PREFIX_MAX];
		int port; /* -1: any */
	} e[RD_NCCL_LIST_MAX];
};
void rd_nccl_list_parse(const char *value, struct rd_nccl_list *l);
/* NCCL takes port (-1 for an interface) of name. */
bool rd_nccl_list_selects(const struct rd_nccl_list *l, const char *name, int port);
/* Entry i names name:port (without the '^' applied). */
bool rd_nccl_list_entry_matches(const struct rd_nccl_list *l, int i, const char *name, int port);

/* The network interfaces NCCL_SOCKET_IFNAME selects, with their flags (sys/class/net/IF/flags). */
struct rd_nccl_if {
	char *name;
	struct rd_attr flags, operstate;
	unsigned long flags_v;
	bool flags_ok;
};
struct rd_nccl_ifs {
	bool loaded;          /* NCCL_SOCKET_IFNAME was set (more than one byte) */
	int err;              /* listing sys/class/net failed */
	struct rd_strv all;   /* every interface of the host */
	struct rd_nccl_if *v; /* those selected */
	size_t n;
};
enum { RD_IFF_UP = 0x1, RD_IFF_RUNNING = 0x40 };
/* NCCL_IB_PKEY is a P_Key *index* (connect.cc: the QP's pkey_index, a uint16_t, is set to it).
 * Per InfiniBand or RoCE port of a CA: the entry at that index, and when it is missing or 0x0000,
 * the index whose P_Key equals the value itself (membership bit aside), as an operator who wrote
 * the P_Key meant. */
struct rd_nccl_pkey_port {
	size_t dev, port;      /* indexes into the host's devices[] and that device's ports[] */
	struct rd_attr entry;  /* ports/N/pkeys/INDEX */
	bool valid;            /* readable and not 0x0000 (an empty entry) */
	int found;             /* the index holding the value as a P_Key, -1 */
};
struct rd_nccl_pkeys {
	bool loaded;           /* NCCL_IB_PKEY was set (not empty) */
	unsigned index;        /* as NCCL uses it: strtoll, then cast to 16 bits */
	struct rd_nccl_pkey_port *v;
	size_t n;
};
void rd_nccl_pkeys_load(struct rd_source *src, const struct rd_host *h, const char *value, struct rd_nccl_pkeys *pk);
void rd_nccl_pkeys_free(struct rd_nccl_pkeys *pk);

/* NCCL_TOPO_FILE: NCCL fopen()s it and, when that fails, says so only at NCCL_DEBUG=INFO and goes
 * on with the topology it detects (src/graph/xml.cc ncclTopoGetXmlFromFile).  0 when it can be
 * read (its first bytes are read through src), else the errno; -1 when unset. */
int rd_nccl_topo_file_err(struct rd_source *src, const char *value);

/* Reads what NCCL's bootstrap would look at for the value of NCCL_SOCKET_IFNAME (NULL: unset). */
void rd_nccl_ifs_load(struct rd_source *src, const char *value, struct rd_nccl_ifs *ifs);
void rd_nccl_ifs_free(struct rd_nccl_ifs *ifs);

#endif
