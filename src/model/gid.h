/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* RoCE GIDs as NCCL sees them: family, validity, RoCE version, and the index NCCL's automatic
 * choice (NCCL_IB_GID_INDEX unset or -1) takes on a port, following NVIDIA/nccl's
 * src/transport/net_ib (ncclIbGetGidIndex / ncclUpdateGidIndex / ncclIbRoceGetVersionNum):
 *
 *   start at index 0; for each later index c in order (every index of the table, empty ones
 *   read as all-zero GIDs):
 *   * c's family differs from the current one's, is the wanted family (NCCL_IB_ADDR_FAMILY,
 *     default AF_INET) and c is in NCCL_IB_ADDR_RANGE (when set): take c;
 *   * else skip c unless it is of the wanted family, valid (not all-zero, not fe80::/64 link
 *     local) and in the range; take it when its RoCE version (gid_attrs/types: "IB/RoCE v1"
 *     or "RoCE v1" -> 1, "RoCE v2" -> 2, unreadable -> none) is the wanted one
 *     (NCCL_IB_ROCE_VERSION_NUM, default 2) and differs from the current one's, or the
 *     current one is not valid.
 *   A GID is AF_INET when IPv4-mapped (::ffff:a.b.c.d, or ff0e::ffff:a.b.c.d), else AF_INET6.
 *
 * That choice exists from NCCL 2.21.5 on.  Before it NCCL_IB_GID_INDEX defaulted to 0 (on RoCE the
 * fe80:: RoCE v1 GID) and NCCL_IB_ROCE_VERSION_NUM, NCCL_IB_ADDR_FAMILY and NCCL_IB_ADDR_RANGE did not
 * exist.  NCCL's version is known from a policy's [nccl] version, else from the libnccl.so.2.X.Y
 * files of the root's library directories (the oldest one when several are installed); unknown,
 * 2.21.5 or later is assumed, and the selection says which it judged by.
 *
 * What NCCL reads is its environment (and its nccl.conf files, not modelled here).
 * rd_nccl_env_read takes it from this process: a Slurm prolog or a job step runs rdma-doctor
 * with the job's environment, so that is what NCCL will see there, with --root too.
 *
 * Ownership: plain values; nothing to free. */
#ifndef RD_GID_H
#define RD_GID_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/host.h"

enum { RD_GID_INET = 4, RD_GID_INET6 = 6 };

/* What NCCL is told.  gid_index < 0: automatic.  The *_from fields name where a value came from
 * ("NCCL_IB_GID_INDEX", "policy [nccl] gid_index"), NULL for NCCL's default. */
struct rd_nccl_sel {
	int gid_index;
	int roce_version;     /* 1 or 2 (NCCL takes any number; only these match a GID) */
	int family;           /* RD_GID_INET or RD_GID_INET6 */
	bool range_set;       /* NCCL_IB_ADDR_RANGE given and valid for the family */
	uint8_t range[16];    /* AF_INET: the address in range[12..15] (as in an IPv4-mapped GID) */
	int prefixlen;
	char range_text[64];
	const char *gid_index_from, *roce_version_from, *family_from, *range_from;
	unsigned version;      /* NCCL's version (rd_nccl_version_parse), 0 unknown */
	bool legacy;           /* before 2.21.5: index 0 unless NCCL_IB_GID_INDEX is set */
	char version_text[224]; /* "NCCL 2.19.3 (libnccl.so.2.19.3 in /usr/lib64)", "" when unknown */
	char version_short[16]; /* "2.19.3" */
	char version_from[200]; /* "libnccl.so.2.19.3 in /usr/lib64", "the policy's [nccl] version" */
};

/* NCCL 2.21.5, the first release that chooses a GID itself. */
#define RD_NCCL_AUTO_GID_VERSION 2021005u
/* "2.19.3" -> 2019003 (major * 1000000 + minor * 1000 + patch); 0 when it is not three numbers. */
unsigned rd_nccl_version_parse(const char *s);
/* The version of a file name "libnccl.so.2.19.3"; 0 for any other name. */
unsigned rd_nccl_libname_version(const char *name);
void rd_nccl_version_text(unsigned v, char *buf, size_t len);

/* The NCCL variables of an environment, as NCCL parses them (a bad number or family falls back to
 * NCCL's default, as NCCL does).  getenv_fn is getenv for this process. */
struct rd_nccl_env {
	bool gid_index_set, roce_version_set, family_set, range_set;
	long long gid_index;
	long long roce_version;
	char family[16];
	char range[64];
	char raw_gid_index[32], raw_roce_version[32], raw_family[32]; /* as given, for messages */
	/* libnccl.so.2.X.Y files in the root's library directories (model/system.c); 0 none */
	unsigned lib_oldest, lib_newest;
	char lib_oldest_where[160]; /* "libnccl.so.2.19.3 in /usr/lib64" */
};
void rd_nccl_env_read(struct rd_nccl_env *e, const char *(*getenv_fn)(const char *));

/* The selection NCCL would make: the environment over the policy's [nccl] values over NCCL's
 * defaults (policy: gid_index < 0, roce_version 0, family 0, version 0 mean unset), by the rules of
 * NCCL's version (pol_version over the libraries found). */
void rd_nccl_sel_make(struct rd_nccl_sel *s, const struct rd_nccl_env *env, int pol_gid_index, int pol_roce_version,
		      int pol_family, unsigned pol_version);

/* Parses "AF_INET" / "AF_INET6" (NCCL's spellings): RD_GID_INET(6), or 0. */
int rd_gid_parse_family(const char *s);
int rd_gid_family(const uint8_t gid[16]);
bool rd_gid_link_local(const uint8_t gid[16]);
/* Not all-zero, not fe80:: with a zero interface id, not link local: NCCL's validGid. */
bool rd_gid_valid(const uint8_t gid[16]);
/* 1, 2, or -1 for a gid_attrs/types value (NULL: unreadable). */
int rd_gid_roce_version(const char *type);
/* The IPv4 address of an IPv4-mapped GID ("10.10.5.17"), or "" when it is none. */
void rd_gid_ipv4(const uint8_t gid[16], char *buf, size_t len);
/* The GID of index idx on the port, or NULL when the model has none (an all-zero entry).  This and
 * the two below abort when the GIDs were not loaded (rd_need, model/host.h). */
const struct rd_gid *rd_port_gid(const struct rd_port *p, unsigned idx);
/* The index NCCL's automatic choice takes on a RoCE port (sel->gid_index ignored): the indexes
 * known to the model up to the highest non-zero one, missing ones as all-zero.  -1 when the port
 * has no GID table at all. */
int rd_nccl_auto_gid(const struct rd_port *p, const struct rd_nccl_sel *sel);
/* True when the GID at idx is what NCCL should use: valid, of the wanted family and version, in the
 * range.  why (may be NULL) gets the first reason it is not ("RoCE v1", "link-local", "empty"). */
bool rd_nccl_gid_usable(const struct rd_port *p, unsigned idx, const struct rd_nccl_sel *sel, char *why, size_t len);
#endif
