/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "render/stack.h"

#include <errno.h>

#include "render/fwtrain.h"
#include "render/gids.h"
#include "render/inventory.h"
#include "model/link.h"
#include "model/policy.h"
#include "render/out.h"
#include "render/rpmdb.h"

/* What each device is, and whether the port rules judge its ports (model/link.h). */
static void render_roles(struct rd_out *o, const struct rd_host *h, const struct rd_system *sys,
			 const struct rd_policy *pol)
{
	const struct rd_link *lk = &sys->link;
	rd_out_text(o, "\nDevice roles (what the port checks judge):\n");
	if (!h->ndevices)
		rd_out_text(o, "  none\n");
	rd_out_arr_begin(o, "roles");
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		const struct rd_link_dev *ld = rd_link_dev(lk, d->name);
		bool sw = d->node_type_v == 2; /* an InfiniBand switch (a managed switch's own device) */
		const char *kind = sw ? "InfiniBand switch"
				   : !d->pci_addr ? (d->parent ? "soft RDMA device" : "device without a PCI function")
				   : ld && ld->vf ? "SR-IOV virtual function"
				   : ld && ld->bond ? "RoCE LAG (one port over a bond)"
				   : ld && ld->multiplane ? "multi-plane ConnectX-8"
							  : "physical function";
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			enum rd_port_role r = rd_port_role(lk, pol, d, p);
			bool ignored = rd_policy_ignores(pol, d->name, p->num);
			static const char *const names[] = {"compute", "vf", "management", "not_data", "plane"};
			rd_out_obj_begin(o, NULL);
			rd_out_str(o, "device", "  %-14s", d->name);
			rd_out_int(o, "port", " port %-3lld", (long long)p->num);
			rd_out_str(o, "kind", " %-32s", kind);
			rd_out_str(o, "role", NULL, names[r]);
			rd_out_bool(o, "ignored", NULL, ignored);
			/* a switch's port 0 is its management port (its SMA), the others its external ports:
			 * neither is a host's compute port */
			const char *words = sw ? (p->num == 0 ? "the switch's management port (port 0), not a compute port"
							      : "a switch port, not a compute port")
					    : r == RD_ROLE_COMPUTE ? "a compute port" : rd_port_role_words(r);
			rd_out_text(o, " %s%s\n", words,
				    ignored ? "; ignored by the policy" : "");
			rd_out_obj_end(o);
		}
	}
	rd_out_arr_end(o);
}

void rd_stack_render(FILE *f, bool json, const struct rd_host *h, const struct rd_system *sys, const char *root,
		     const struct rd_policy *pol)
{
	const struct rd_stack *st = &sys->stack;
	struct rd_out o;
	rd_out_init(&o, f, json);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/stack/v1");
	rd_out_str(&o, "host", "Host:    %s\n", rd_attr_value(&h->hostname));
	rd_out_str(&o, "kernel", "Kernel:  %s\n", rd_attr_value(&h->osrelease));
	rd_out_str(&o, "root", root ? "Root:    %s\n" : NULL, root); /* null for the live host, as in every schema */

	rd_out_obj_begin(&o, "stack");
	rd_out_str(&o, "installed", "Stack:   %s", rd_stack_kind_name(st->installed));
	rd_out_str(&o, "version", st->version[0] ? " %s" : NULL, st->version[0] ? st->version : NULL);
	/* "inbox, no RDMA stack module loaded", not "none modules loaded" (JSON: the name) */
	rd_out_str(&o, "running",
		   st->running == RD_RUN_NONE      ? ", no RDMA stack module loaded\n"
		   : st->running == RD_RUN_UNKNOWN ? ", loaded modules not known\n"
						   : ", %s modules loaded\n",
		   rd_stack_run_name(st->running));
	rd_out_str(&o, "openibd", NULL, rd_openibd_name(st->openibd));
	rd_out_str(&o, "ofed_info", NULL, sys->ofed_ok ? sys->ofed_info.data : NULL);
	rd_out_arr_begin(&o, "packages");
	for (size_t i = 0; i < sys->npackages; i++)
		if (sys->packages[i].installed) {
			rd_out_obj_begin(&o, NULL);
			rd_out_str(&o, "name", "         package %s", sys->packages[i].name);
			rd_out_str(&o, "version", " %s\n", sys->packages[i].version);
			rd_out_obj_end(&o);
		}
	rd_out_arr_end(&o);
	if (sys->rpm.consulted) /* an RPM host (model/rpmdb.h) */
		rd_render_rpmdb(&o, &sys->rpm);
	rd_out_str(&o, "advice", "Advice:  %s\n", st->advice);
	rd_render_fw_train(&o, h, st, &sys->mft);
	struct rd_nccl_sel sel;
	rd_nccl_sel_make(&sel, &sys->nccl_env, -1, 0, 0, 0); /* stack reads no policy: NCCL's defaults and the environment */
	rd_render_nccl_gids(&o, h, &sel);
	rd_out_obj_end(&o);
	rd_out_text(&o, "\nRDMA modules loaded:\n");
	size_t shown = 0;
	for (const char *const *name = rd_rdma_modules; *name; name++) {
		const struct rd_module *m = rd_host_module(h, *name);
		shown += m && m->loaded;
	}
	rd_render_modules(&o, h);
	if (h->proc_modules.err)
		rd_out_text(&o, "  (%s: %s)\n", h->proc_modules.path, rd_strerror(h->proc_modules.err));
	else if (!shown)
		rd_out_text(&o, "  none\n");

	rd_out_text(&o, "\nRDMA devices:\n");
	if (h->devices_err == ENOENT || (h->devices_err == 0 && h->ndevices == 0))
		rd_out_text(&o, "  none (/sys/class/infiniband %s)\n", h->devices_err ? "does not exist" : "is empty");
	else if (h->devices_err)
		rd_out_text(&o, "  /sys/class/infiniband: %s\n", rd_strerror(h->devices_err));
	rd_render_devices(&o, h, &sys->mft);
	if (pol)
		render_roles(&o, h, sys, pol);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
}
