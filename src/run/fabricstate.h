/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fabric's port counters kept between runs of `fabric --state-dir` (run/fabricstate.c),
 * beside the hosts' link samples and through the same state-file module.
 *
 * Ownership: the fabric is borrowed; the caller frees base with rd_state_sample_free. */
#ifndef RD_RUN_FABRICSTATE_H
#define RD_RUN_FABRICSTATE_H
#include <stddef.h>

#include "fabric/fabric.h"

/* --state-dir: the judged counters of f kept in dir (its "_fabric.link-state", through
 * run/statefile.c: locked, never a raw open) as a sample at now; base gets a copy of the sample
 * to compare with (model/state.h's baseline rule over the default window; base->time 0: none,
 * the caller frees it with rd_state_sample_free).  0; 1 when the file held no history of this
 * (unreadable, too large, another's: err says which; a new one is written); or -errno with the
 * reason in err. */
struct rd_state_sample;
int rd_fab_counters_keep(const struct rd_fabric *f, const char *dir, long long now, struct rd_state_sample *base,
			 char *err, size_t errlen);
#endif
