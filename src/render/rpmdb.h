/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The rpm database of an RPM host (model/rpmdb.h), for `stack` (text and JSON) and the JSON
 * report: the object "rpm" {database, backend, error, headers, os_id, os_version_id,
 * ib_info_kernel, packages[] {name, version, arch}}.  Ownership: borrows everything, keeps nothing. */
#ifndef RD_RENDER_RPMDB_H
#define RD_RENDER_RPMDB_H
#include "model/rpmdb.h"
#include "render/out.h"

void rd_render_rpmdb(struct rd_out *o, const struct rd_rpmdb *r);

#endif
