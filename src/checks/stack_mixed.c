/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* stack.mixed: OFED installed with in-tree RDMA modules loaded, or in-tree and OFED modules
 * loaded together — "disagrees about version of symbol" territory.  Only what is known can
 * fail: an installed stack that cannot be told, or modules of unknown origin, give UNKNOWN (or
 * OK when every module whose origin is known agrees). */
#include <string.h>

#include "checks/catalogue.h"

static void join(struct rd_buf *b, const struct rd_strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		rd_buf_printf(b, "%s%s", i ? " " : "", v->v[i]);
}

void rd_check_stack_mixed(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	const struct rd_stack *st = rd_system_stack(ctx->sys);
	const struct rd_strv *oot = &st->oot, *intree = &st->intree;
	if (!oot->n && !intree->n && !st->unsure.n) {
		if (st->running == RD_RUN_UNKNOWN) {
			struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "host", "cannot tell which RDMA modules are loaded");
			rd_evidence_attr(f, &h->proc_modules);
		} else {
			rd_finding_add(ctx, RD_SKIP, "host", "no RDMA stack module loaded");
		}
	} else if (!oot->n && !intree->n) {
		struct rd_buf b = {0};
		join(&b, &st->unsure);
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "host",
						      "cannot tell whether the loaded RDMA modules are in-tree or OFED (%s: no "
						      "taint or version recorded)",
						      b.data);
		rd_evidence_attr(f, &h->proc_modules);
		rd_buf_free(&b);
	} else if (oot->n && intree->n) {
		struct rd_buf a = {0}, b = {0};
		join(&a, oot);
		join(&b, intree);
		struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, "host",
						      "in-tree and OFED RDMA modules are loaded together (OFED: %s; in-tree: "
						      "%s): symbols disagree and modules fail to load",
						      a.data, b.data);
		for (size_t i = 0; i < intree->n && i < 3; i++) {
			const struct rd_module *mod = rd_host_module(h, intree->v[i]);
			rd_evidence_add(f, "/proc/modules", "%s in-tree (taint \"%s\")", mod->name, mod->taint ? mod->taint : "");
		}
		const struct rd_module *o1 = rd_host_module(h, oot->v[0]);
		rd_evidence_add(f, "/proc/modules", "%s out-of-tree (taint \"%s\"%s%s)", o1->name, o1->taint ? o1->taint : "",
				rd_attr_ok(&o1->version) ? ", version " : "", rd_attr_ok(&o1->version) ? o1->version.value : "");
		rd_fix_add(f, "reboot    # the reliable way");
		rd_fix_add(f, "or: /etc/init.d/openibd restart (OFED) — it unloads the stack in dependency order and loads the OFED modules");
		rd_buf_free(&a);
		rd_buf_free(&b);
	} else if (intree->n && rd_stack_is_ofed(st->installed)) {
		struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, "host",
						      "%s%s%s is installed but the in-tree (inbox) RDMA modules are loaded: the "
						      "OFED modules did not load (not built for this kernel, or loaded too late)",
						      rd_stack_kind_name(st->installed), st->version[0] ? " " : "", st->version);
		const struct rd_module *mod = rd_host_module(h, intree->v[0]);
		rd_evidence_add(f, "/proc/modules", "%s in-tree (no O taint)", mod->name);
		if (ctx->sys->ofed_info.err == 0)
			rd_evidence_add(f, "ofed_info -s", "%.*s", (int)strcspn(ctx->sys->ofed_info.data, "\n"),
					ctx->sys->ofed_info.data);
		else if (st->installed_by)
			rd_evidence_add(f, st->installed_by, "%s installed", rd_stack_kind_name(st->installed));
		const struct rd_rpmdb *r = &ctx->sys->rpm;
		if (r->consulted && !r->err && !rd_rpmdb_find(r, "mlnx-ofa_kernel-dkms") &&
		    (rd_rpmdb_find(r, "kmod-mlnx-ofa_kernel") || rd_rpmdb_find(r, "mlnx-ofa_kernel-modules")))
			/* kmod packages, not DKMS (see stack.dkms) */
			rd_fix_add(f, "/usr/sbin/mlnxofedinstall --kernel $(uname -r) --kernel-only --add-kernel-support    # "
				      "OFED's kmod packages are built for one kernel: rebuild them for this one");
		else
			rd_fix_add(f, "dkms status; dkms autoinstall    # build the OFED modules for $(uname -r)");
		rd_fix_add(f, "/etc/init.d/openibd restart    # or reboot");
	} else {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host", "all loaded RDMA stack modules are %s%s",
						      oot->n ? "OFED (out-of-tree)" : "in-tree",
						      st->installed == RD_STACK_UNKNOWN
							      ? " (which stack is installed is not known: see stack.flavor)"
							      : "");
		if (st->unsure.n) {
			struct rd_buf b = {0};
			join(&b, &st->unsure);
			rd_evidence_add(f, "/proc/modules", "origin not known: %s", b.data);
			rd_buf_free(&b);
		}
	}
}
