/* stack.mixed: OFED installed with in-tree RDMA modules loaded, or in-tree and OFED modules
 * loaded together — "disagrees about version of symbol" territory. */
#include <string.h>

#include "checks/catalogue.h"

void rd_check_stack_mixed(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	struct rd_flavor fl;
	rd_stack_flavor(h, ctx->sys, &fl);
	struct rd_strv oot = {0}, intree = {0};
	for (const char *const *m = rd_ofed_stack_modules; *m; m++) {
		const struct rd_module *mod = rd_host_module(h, *m);
		if (!mod || !mod->loaded)
			continue;
		int o = rd_module_out_of_tree(mod);
		if (o == 1)
			rd_strv_push(&oot, *m);
		else if (o == 0)
			rd_strv_push(&intree, *m);
	}
	if (!oot.n && !intree.n) {
		rd_finding_add(ctx, RD_SKIP, "host", "no RDMA stack module loaded");
	} else if (oot.n && intree.n) {
		struct rd_buf a = {0}, b = {0};
		for (size_t i = 0; i < oot.n; i++)
			rd_buf_printf(&a, "%s%s", i ? " " : "", oot.v[i]);
		for (size_t i = 0; i < intree.n; i++)
			rd_buf_printf(&b, "%s%s", i ? " " : "", intree.v[i]);
		struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, "host",
						      "in-tree and OFED RDMA modules are loaded together (OFED: %s; in-tree: "
						      "%s): symbols disagree and modules fail to load",
						      a.data, b.data);
		for (size_t i = 0; i < intree.n && i < 3; i++) {
			const struct rd_module *mod = rd_host_module(h, intree.v[i]);
			rd_evidence_add(f, "/proc/modules", "%s in-tree (taint \"%s\")", mod->name, mod->taint ? mod->taint : "");
		}
		const struct rd_module *o1 = rd_host_module(h, oot.v[0]);
		rd_evidence_add(f, "/proc/modules", "%s out-of-tree (taint \"%s\"%s%s)", o1->name, o1->taint ? o1->taint : "",
				rd_attr_ok(&o1->version) ? ", version " : "", rd_attr_ok(&o1->version) ? o1->version.value : "");
		rd_fix_add(f, "reboot    # the reliable way");
		rd_fix_add(f, "or: /etc/init.d/openibd restart (OFED) — it unloads the stack in dependency order and loads the OFED modules");
		rd_buf_free(&a);
		rd_buf_free(&b);
	} else if (intree.n && strcmp(fl.installed, "inbox") != 0) {
		struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, "host",
						      "%s %s is installed but the in-tree (inbox) RDMA modules are loaded: the "
						      "OFED modules did not load (not built for this kernel, or loaded too late)",
						      fl.installed, fl.version);
		const struct rd_module *mod = rd_host_module(h, intree.v[0]);
		rd_evidence_add(f, "/proc/modules", "%s in-tree (no O taint)", mod->name);
		if (ctx->sys->ofed_info.err == 0)
			rd_evidence_add(f, "ofed_info -s", "%.*s", (int)strcspn(ctx->sys->ofed_info.data, "\n"),
					ctx->sys->ofed_info.data);
		rd_fix_add(f, "dkms status; dkms autoinstall    # build the OFED modules for $(uname -r)");
		rd_fix_add(f, "/etc/init.d/openibd restart    # or reboot");
	} else {
		rd_finding_add(ctx, RD_OK, "host", "all loaded RDMA stack modules are %s", oot.n ? "OFED (out-of-tree)" : "in-tree");
	}
	rd_strv_free(&oot);
	rd_strv_free(&intree);
}
