/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Renders the result of explain (explain/explain.h) as text for people or as JSON (schema
 * rdma-doctor/explain/v1), both through the one printing path of render/out.h.
 * Ownership: borrows the result; keeps nothing. */
#ifndef RD_RENDER_EXPLAIN_H
#define RD_RENDER_EXPLAIN_H
#include <stdbool.h>
#include <stdio.h>

#include "explain/explain.h"

/* ascii: marks in ASCII (+, x) for a terminal whose locale is not UTF-8. */
void rd_explain_render(FILE *f, bool json, bool ascii, const struct rd_explain_result *r);

#endif
