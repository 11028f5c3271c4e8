/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What rdma-core's libibumad (v44) makes of /sys/class/infiniband, with its exact reading and
 * parsing rules (one read() per file into a fixed buffer, strtoul base 0 truncated to 32 bits,
 * lenient GUID/GID splitting, required and optional files), so that the ibstat view can be
 * byte-identical to rdma-core's ibstat.  The main host model (host.h) is stricter; this one
 * exists only for compatibility.
 *
 * Ownership: rd_umad borrows its source and owns its warnings (rd_buf_free); rd_umad_ca is a plain
 * value with no pointers; the lists and texts it fills are the caller's. */
#ifndef RD_UMAD_H
#define RD_UMAD_H
#include <stdbool.h>
#include <stdint.h>

#include "source/source.h"
#include "util/util.h"

#define RD_UMAD_MAX_PORTS 10
#define RD_UMAD_CA_NAME 20

struct rd_umad_port {
	bool present;
	unsigned lmc, sm_lid, sm_sl, base_lid, state, phys_state, rate, capmask;
	char rate_text[32]; /* the text rate was read from (at most 31 bytes, no newline) */
	char link_layer[20];
	uint64_t port_guid;
};

struct rd_umad_ca {
	char name[RD_UMAD_CA_NAME]; /* truncated to 19 characters, as libibumad does */
	unsigned node_type;
	char fw_ver[20], hw_rev[20], ca_type[40];
	uint64_t node_guid, system_guid;
	int numports;
	struct rd_umad_port ports[RD_UMAD_MAX_PORTS];
};

struct rd_umad {
	struct rd_source *src;
	/* errno as libibumad would have left it: the last failed read, reset after listing; this is
	 * what ibstat's "%m" prints ("Success" when 0). */
	int last_err;
	/* warnings libibumad prints while reading ("get_port: no pkeys found for ..."), one per line */
	struct rd_buf warnings;
};

/* CA names: entries of sys/class/infiniband whose node_type is 1..3, strcmp order.
 * Returns 0 (an absent directory is an empty list) or -errno. */
int rd_umad_list(struct rd_umad *u, struct rd_strv *names);
/* Reads one CA like umad_get_ca().  Returns 0 or a negative error. */
int rd_umad_get_ca(struct rd_umad *u, const char *name, struct rd_umad_ca *ca);
/* ibstat's re-read of a port's rate text (31 bytes): true when it says FDR10.  The same answer
 * from the 31 bytes read with the port, without reading again: rd_umad_port_is_fdr10. */
bool rd_umad_rate_is_fdr10(struct rd_umad *u, const char *ca_name, int port);
bool rd_umad_port_is_fdr10(const struct rd_umad_port *p);

/* The view of rdma-core's ibstatus script, which reads the same directory with [ -d ], `*` and
 * cat rather than through libibumad: whole files, as text.  dev NULL names the class directory. */
/* True when sys/class/infiniband (dev NULL) or its dev/ports is a directory (links followed). */
bool rd_umad_status_dir(struct rd_umad *u, const char *dev);
/* `*` in sys/class/infiniband (dev NULL) or in its dev/ports: entries without a leading dot, byte
 * order; the pattern "*" itself when there are none. */
void rd_umad_status_glob(struct rd_umad *u, const char *dev, struct rd_strv *out);
/* The files ibstatus shows of a port, in its order. */
enum { RD_UMAD_STATUS_NFILES = 7 };
extern const char *const rd_umad_status_files[RD_UMAD_STATUS_NFILES]; /* "gids/0", "lid", ... */
/* `[ -r f ] && cat f` of file (relative to the port's directory): 1 with the whole content in t,
 * 0 when the file does not exist, or -errno as cat reports it (EISDIR for a directory). */
int rd_umad_status_read(struct rd_umad *u, const char *dev, const char *port, const char *file, struct rd_text *t);

#endif
