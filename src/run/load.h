/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The run layer's load: the source, the policy, the host and system models, as a command asks for
 * them (its needs), under the guard (run/guard.h).  Nothing here prints: a failure is -errno and a
 * one-line reason the command prints.
 *
 * Ownership: an rd_loaded owns its source and models until rd_loaded_free; the options are
 * borrowed for the call. */
#ifndef RD_LOAD_H
#define RD_LOAD_H
#include <stdbool.h>
#include <stddef.h>

#include "model/host.h"
#include "model/policy.h"
#include "model/system.h"
#include "source/source.h"

/* What a command asks of the load. */
struct rd_load_opts {
	const char *root;     /* --root / RDMA_DOCTOR_ROOT as typed, or NULL: the live host (rd_load_is_root) */
	double timeout_s;     /* the whole run's deadline for reads (0: none); one read may take 2 s */
	const char *policy;   /* the policy file, or NULL: the root's own (or the defaults) */
	bool with_services;   /* the system model looks at the policy's services */
	unsigned parts;       /* rd_host_load's flags: RD_LOAD_ONLY and the parts needed, or 0 for all */
	bool mft;             /* the per-device tool commands may run (source.h) */
	bool counters;        /* the ports' counters are read (model/link.h; a firmware command each on some HCAs) */
	int env_pid;          /* NCCL's environment is this process's (--env-from; 0: our own) */
};

struct rd_loaded {
	struct rd_source *src;
	struct rd_policy pol;
	struct rd_host h;
	struct rd_system sys;
	char error[1024];     /* after a failed load: its reason */
	bool policy_failed;   /* ... and it is the policy's (the source was read) */
	char notice[1024];    /* after a load: a line for standard error, or "" (an ignore that names no device) */
};

/* True when root names a root (anything but NULL, "" and "/" as typed), not the live host:
 * decided from the option as given, never from where it leads. */
bool rd_load_is_root(const char *root);

/* Opens o->root with o->timeout_s's deadlines (a replaying loader keeps the watch's deadline).
 * Returns 0 or -errno with the reason in err. */
int rd_load_open(const struct rd_load_opts *o, struct rd_source **src, char *err, size_t errlen);

/* Opens and loads everything o asks, under the guard.  Returns 0, or -errno with l->error set
 * (nothing to free). */
int rd_load(const struct rd_load_opts *o, struct rd_loaded *l);
void rd_loaded_free(struct rd_loaded *l);

#endif
