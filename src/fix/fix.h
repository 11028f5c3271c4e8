/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fixes: pure planners from the host model (+ policy) to file changes and commands.  Nothing
 * here writes or runs anything; cmd/fix.c shows a plan or applies it through source/atomic.h.
 *
 * Ownership: a plan owns all its strings; rd_fix_plan_free releases them. */
#ifndef RD_FIX_H
#define RD_FIX_H
#include <stdbool.h>
#include <sys/types.h>

#include "model/host.h"
#include "model/policy.h"
#include "model/system.h"
#include "util/util.h"

struct rd_file_change {
	char *dir;     /* relative to the root: "etc/modules-load.d" */
	char *name;    /* "rdma.conf" */
	char *old;     /* current content, NULL for a new file */
	char *new;     /* content to write */
	char *why;     /* one line: what the change does */
};

struct rd_fix_plan {
	struct rd_file_change *files;
	size_t nfiles;
	struct rd_strv load;    /* modules to load now, in order (on a root: for the host it came from) */
	bool live;              /* the plan is for the running host: `--apply` runs the modprobes */
	struct rd_strv notes;   /* lines shown to the operator */
	struct rd_strv errors;  /* what could not be planned (a file it cannot parse...) */
};
void rd_fix_plan_free(struct rd_fix_plan *p);

/* `fix modules`: complete /etc/modules-load.d/rdma.conf with the policy's modules that no
 * effective modules-load.d file lists (copying a /run or /usr/lib rdma.conf first: an /etc file
 * masks it), split "module  # comment" lines that systemd would take whole as one module name,
 * move nvidia_peermem to a file sorting after ib_core's, and load what rd_modules_to_load
 * (model/system.h) says.
 * Nothing is planned on a host without RDMA hardware (modules.persistent and modules.loaded SKIP
 * there).  A file with NUL bytes or lines that are not module names is left untouched, named in
 * errors with the line. */
void rd_fix_modules_plan(const struct rd_host *h, const struct rd_system *s, const struct rd_policy *p, bool live,
			 struct rd_fix_plan *plan);

/* The plan's file changes as shell lines an operator can type (mkdir -p, then cat > FILE with a
 * quoted here-document of the whole new content), pushed onto lines. */
void rd_fix_plan_shell(const struct rd_fix_plan *plan, struct rd_strv *lines);

/* A unified diff (3 lines of context) from old to new, with ---/+++ headers naming path. */
char *rd_unified_diff(const char *path, const char *old, const char *new);

#endif
