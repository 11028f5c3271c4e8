/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The host's derived stack facts, computed once from the host and system model and read by every
 * check, renderer and command: which RDMA stack is installed (and how we know), which one the
 * loaded modules come from, and whether OFED's openibd init service is there.
 *
 * Ownership: struct rd_stack lives in struct rd_system (sys->stack), filled by rd_system_load
 * and released by rd_system_free.  The strings in it are static or owned by it. */
#ifndef RD_STACK_H
#define RD_STACK_H
#include <stdbool.h>

#include "util/util.h"

struct rd_host;
struct rd_system;
struct rd_fw_release;

/* What is installed.  UNKNOWN: neither ofed_info nor the package database could be read. */
enum rd_stack_kind { RD_STACK_UNKNOWN, RD_STACK_INBOX, RD_STACK_OFED, RD_STACK_MLNX_OFED, RD_STACK_DOCA_OFED };
/* Where the loaded RDMA stack modules were built.  UNKNOWN: /proc/modules unreadable, or modules
 * are loaded but their origin (taint, version) cannot be told. */
enum rd_stack_run { RD_RUN_UNKNOWN, RD_RUN_NONE, RD_RUN_INBOX, RD_RUN_OFED, RD_RUN_MIXED };
/* OFED's openibd.service.  UNKNOWN: the root has no systemd unit directory and systemctl's
 * answer was not captured. */
enum rd_openibd { RD_OPENIBD_UNKNOWN, RD_OPENIBD_ABSENT, RD_OPENIBD_DISABLED, RD_OPENIBD_ENABLED };

struct rd_stack {
	enum rd_stack_kind installed;
	char version[96];          /* "24.10-2.1.8.0", "rdma-core 44.0-2", or "" */
	const char *installed_by;  /* the evidence: "ofed_info -s", "/var/lib/dpkg/status", the rpm
				    * database ("/var/lib/rpm/rpmdb.sqlite", borrowed), or NULL */
	const char *unknown_why;   /* borrowed: why installed is UNKNOWN when a file says so (an rpm
				    * database that cannot be read, named), or NULL */
	enum rd_stack_run running;
	struct rd_strv oot;        /* loaded RDMA stack modules built out of tree (OFED) */
	struct rd_strv intree;     /* ... built in tree (inbox) */
	struct rd_strv unsure;     /* ... loaded, origin not known */
	bool mlx_compat;           /* OFED's compat layer is loaded */
	bool ib_core_ofed;         /* the loaded ib_core is OFED's (compat layer, O taint, or ports with
				    * has_smi): it has the peer-memory API */
	enum rd_openibd openibd;
	const char *openibd_unit;  /* borrowed from the system model, or NULL */
	const char *openibd_wants; /* borrowed: the *.wants link that enables it, or NULL */
	char openibd_active[32];   /* first line of `systemctl is-active openibd`, or "" when not known */
	char openibd_enabled[32];  /* first line of `systemctl is-enabled openibd`, or "" */
	const char *advice;        /* which stack this host should run, and why (static) */
	/* the firmware train of the installed release (model/fwtrain.h), NULL when the table has no
	 * row for it; doca_version: the doca-ofed / doca-host package's version, or NULL (borrowed) */
	const struct rd_fw_release *fw_release;
	const char *doca_version;
};

/* The RDMA stack modules OFED replaces (for in-tree/out-of-tree comparisons), NULL-terminated. */
extern const char *const rd_ofed_stack_modules[];

/* "unknown", "inbox", "OFED", "MLNX_OFED", "DOCA-OFED" (the JSON values of stack.installed). */
const char *rd_stack_kind_name(enum rd_stack_kind k);
/* "unknown", "none", "inbox", "OFED", "mixed" (the JSON values of stack.running). */
const char *rd_stack_run_name(enum rd_stack_run r);
/* "unknown", "absent", "disabled", "enabled" (the JSON values of stack.openibd). */
const char *rd_openibd_name(enum rd_openibd o);
/* OFED, MLNX_OFED or DOCA-OFED: a stack that ships openibd and out-of-tree modules. */
bool rd_stack_is_ofed(enum rd_stack_kind k);

/* Derives the facts from a loaded host and system model (no I/O). */
void rd_stack_derive(const struct rd_host *h, const struct rd_system *s, struct rd_stack *out);
void rd_stack_free(struct rd_stack *st);
/* Why the installed stack has no firmware train (fw_release NULL: inbox, unknown, a release the
 * table of model/fwtrain.h lacks), in words. */
void rd_fwtrain_why_none(const struct rd_stack *st, char *buf, size_t len);
#endif
