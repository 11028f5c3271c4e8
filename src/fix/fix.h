/* Fixes: pure planners from the host model (+ policy) to file changes and commands.  Nothing
 * here writes or runs anything; cmd/fix.c shows a plan or applies it through source/atomic.h.
 *
 * Ownership: a plan owns all its strings; rd_fix_plan_free releases them. */
#ifndef RD_FIX_H
#define RD_FIX_H
#include <stdbool.h>
#include <sys/types.h>

#include "checks/check.h"

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
	struct rd_strv load;    /* modules to load now (live host only), in order */
	struct rd_strv notes;   /* lines shown to the operator */
	struct rd_strv errors;  /* what could not be planned (a file it cannot parse...) */
};
void rd_fix_plan_free(struct rd_fix_plan *p);

/* `fix modules`: complete /etc/modules-load.d/rdma.conf with the policy's modules that no
 * effective modules-load.d file lists, move nvidia_peermem to a file sorting after ib_core's,
 * and (live) load the policy's modules that are not loaded. */
void rd_fix_modules_plan(const struct rd_host *h, const struct rd_system *s, const struct rd_policy *p, bool live,
			 struct rd_fix_plan *plan);

/* A unified diff (3 lines of context) from old to new, with ---/+++ headers naming path. */
char *rd_unified_diff(const char *path, const char *old, const char *new);

#endif
