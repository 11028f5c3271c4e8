/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Renders what `rdma-doctor stack` shows (host, kernel, the stack's flavour, version, packages
 * and advice, the RDMA modules loaded, the devices and ports) as text for people or as JSON
 * (schema rdma-doctor/stack/v1), both through render/out.h.
 * Ownership: borrows the models; keeps nothing. */
#ifndef RD_RENDER_STACK_H
#define RD_RENDER_STACK_H
#include <stdbool.h>
#include <stdio.h>

#include "model/host.h"
#include "model/policy.h"
#include "model/system.h"

/* root: the --root shown, or NULL for the live host; pol: the policy that says which ports are
 * compute ports (data_ports, management, ignore), or NULL to leave out the device roles. */
void rd_stack_render(FILE *f, bool json, const struct rd_host *h, const struct rd_system *sys, const char *root,
		     const struct rd_policy *pol);

#endif
