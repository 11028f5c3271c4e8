/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Inventory renderers shared by `stack` and the JSON report: devices with their ports and the
 * RDMA modules, through the one text/JSON printing path.
 * Ownership: these functions borrow the host model and the writer and keep nothing. */
#ifndef RD_INVENTORY_H
#define RD_INVENTORY_H
#include "model/host.h"
#include "model/mft.h"
#include "render/out.h"

/* fw_from (may be NULL): where sysfs has no fw_ver / board_id, flint's (as firmware.* read them) */
void rd_render_devices(struct rd_out *o, const struct rd_host *h, const struct rd_mft *fw_from);
/* The same, and in JSON each RoCE port that m has QoS facts for gets "qos" (docs/report-json.md):
 * the report's devices[] */
void rd_render_devices_qos(struct rd_out *o, const struct rd_host *h, const struct rd_mft *m);
void rd_render_modules(struct rd_out *o, const struct rd_host *h);
/* "400 Gb/s 4X NDR" into buf; "unknown (<error>)" when unreadable. */
const char *rd_rate_words(const struct rd_port *p, char *buf, size_t len);

#endif
