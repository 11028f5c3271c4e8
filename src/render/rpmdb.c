/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The "rpm" object of `stack` and the JSON report (render/rpmdb.h). */
#include "render/rpmdb.h"

#include <stdio.h>

void rd_render_rpmdb(struct rd_out *o, const struct rd_rpmdb *r)
{
	rd_out_obj_begin(o, "rpm");
	rd_out_str(o, "database", "RPM db:  %s", r->path);
	rd_out_str(o, "backend", r->backend ? " (%s" : NULL, r->backend ? rd_rpm_backend_name(r->backend) : NULL);
	if (r->err) {
		rd_out_str(o, "error", r->backend ? "): %s\n" : ": %s\n", r->reason);
		rd_out_null(o, "headers");
	} else {
		rd_out_null(o, "error");
		rd_out_uint(o, "headers", ", %llu packages)\n", r->headers);
	}
	rd_out_str(o, "os_id", NULL, r->os.id[0] ? r->os.id : NULL);
	rd_out_str(o, "os_version_id", NULL, r->os.version_id[0] ? r->os.version_id : NULL);
	rd_out_str(o, "ib_info_kernel", r->ib_info_kernel[0] ? "         /etc/infiniband/info Kernel=%s\n" : NULL,
		   r->ib_info_kernel[0] ? r->ib_info_kernel : NULL);
	rd_out_arr_begin(o, "packages");
	for (size_t i = 0; i < r->npkgs; i++) {
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "name", "         rpm %s", r->pkgs[i].name);
		rd_out_str(o, "version", " %s", r->pkgs[i].evr);
		rd_out_str(o, "arch", ".%s\n", r->pkgs[i].arch);
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
	rd_out_obj_end(o);
}
