/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Renders the check catalogue (checks/check.h's rd_checks: id, title, what each detects, where it
 * looks) as text for people or as JSON (schema rdma-doctor/checks/v1), both through render/out.h.
 * Ownership: borrows the static catalogue; keeps nothing. */
#ifndef RD_RENDER_CATALOGUE_H
#define RD_RENDER_CATALOGUE_H
#include <stdbool.h>
#include <stdio.h>

void rd_catalogue_render(FILE *f, bool json);

#endif
