/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Renders `fabric`: the subnet's summary, its links by tier and the findings, as text or as one
 * JSON document (rdma-doctor/fabric/v1, docs/fabric.md); and the reference file that --save
 * writes (rdma-doctor/fabric-ref/v1).
 * Ownership: borrows everything; keeps nothing. */
#ifndef RD_RENDER_FABRIC_H
#define RD_RENDER_FABRIC_H
#include <stdbool.h>
#include <stdio.h>

#include "fabric/fabric.h"

struct rd_fabric_meta {
	const char *source;  /* "live", or the directory the captures were read from */
	const char *time;    /* ISO 8601 UTC */
	const char *against; /* the reference file compared with, or NULL */
	bool ascii;
	const struct rd_fab_input *inputs; /* RD_FAB_NIN of them */
};

void rd_render_fabric(FILE *out, bool json, const struct rd_fabric *f, const struct rd_report *r,
		      const struct rd_fabric_meta *m);
void rd_render_fabric_ref(FILE *out, const struct rd_fab_ref *ref);

#endif
