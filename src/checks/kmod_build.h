/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Which ib_core a module that failed to load was built against.  A kernel line "X: disagrees
 * about version of symbol S" or "X: Unknown symbol S (err -22)", or modprobe's "could not insert
 * 'X'", names a module that is by definition not loaded, so the loaded modules cannot tell; where
 * its file lives can (modules.dep: kernel/ is the distro kernel's in-tree build; updates/, extra/,
 * weak-updates/ hold OFED's and DKMS builds), judged against the origin of the loaded ib_core.
 * Used by kernel.log (its fix) and by explain (a fact of a cause).
 *
 * Ownership: a judgement is a value (fixed buffers); the model is borrowed. */
#ifndef RD_KMOD_BUILD_H
#define RD_KMOD_BUILD_H
#include <stdbool.h>
#include <stddef.h>

#include "model/host.h"
#include "model/system.h"

#define RD_KMOD_FIXES 2
struct rd_kmod_judgement {
	int verdict;                 /* 1 built against another ib_core than the loaded one, 0 the same, -1 cannot tell */
	char module[64];
	char why[240];
	char fix[RD_KMOD_FIXES][300];
	int nfix;
};

/* The module a line names as failing (underscores as the kernel spells it); false when none. */
bool rd_kmod_line_module(const char *line, char *name, size_t n);
/* Judges module against the loaded ib_core of h and the modules.dep of s. */
void rd_kmod_judge(const struct rd_host *h, const struct rd_system *s, const char *module, struct rd_kmod_judgement *out);

#endif
