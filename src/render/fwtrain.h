/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The firmware train of the installed release, per device (for `stack` and the JSON report's
 * "stack" object), through the one text/JSON printing path.
 * Ownership: borrows the model and the writer, keeps nothing. */
#ifndef RD_RENDER_FWTRAIN_H
#define RD_RENDER_FWTRAIN_H
#include "model/host.h"
#include "model/mft.h"
#include "model/stack.h"
#include "render/out.h"

/* "firmware_train": null when the table has no row ("reason" says why, text "Firmware: ..."), else
 * {"release", "source", "devices": [{"name", "adapter", "fw_ver", "expected", "matches"}]}. */
/* m (may be NULL): flint's firmware where sysfs has no fw_ver */
void rd_render_fw_train(struct rd_out *o, const struct rd_host *h, const struct rd_stack *st, const struct rd_mft *m);
#endif
