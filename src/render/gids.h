/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor gids` (the table MLNX_OFED's show_gids prints) and the GID NCCL would use on each
 * RoCE port (for `stack` and the JSON report), through the one text/JSON printing path.
 * Ownership: these functions borrow the model and the writer and keep nothing. */
#ifndef RD_RENDER_GIDS_H
#define RD_RENDER_GIDS_H
#include <stddef.h>

#include "model/gid.h"
#include "model/host.h"
#include "render/out.h"

/* The GID table of the devices named in devs (all when ndevs is 0), as show_gids prints it: a
 * header, one row per GID that is not all-zero and not fe80::0 (DEV PORT INDEX GID IPv4 VER DEV),
 * then n_gids_found=N; JSON: {"gids": [...], "n_gids_found": N}.  Returns the row count. */
size_t rd_render_gid_table(struct rd_out *o, const struct rd_host *h, const char *const *devs, size_t ndevs);
/* "nccl_gids": the index NCCL would use on each Active RoCE port; text "NCCL GID: ..." lines. */
void rd_render_nccl_gids(struct rd_out *o, const struct rd_host *h, const struct rd_nccl_sel *sel);
#endif
