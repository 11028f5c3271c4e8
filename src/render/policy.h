/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `check --policy-explain`: the values the policy file set on this host, each with the line and
 * the section that set it (the winner of its key: model/policy.h), as text
 * ("key = value   # FILE:LINE [section]") or the rdma-doctor/policy/v1 JSON document.
 *
 * Ownership: the renderer borrows the policy and the FILE. */
#ifndef RD_RENDER_POLICY_H
#define RD_RENDER_POLICY_H
#include <stdbool.h>
#include <stdio.h>

#include "model/policy.h"

void rd_render_policy_explain(FILE *f, bool json, const struct rd_policy *p);

#endif
