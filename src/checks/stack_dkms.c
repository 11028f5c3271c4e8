/* stack.dkms: OFED's DKMS modules must be built for the running kernel (a kernel upgrade leaves
 * them behind). */
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"

static bool ofed_tree(const char *tree)
{
	return rd_str_has_prefix(tree, "mlnx-ofed-kernel/") || rd_str_has_prefix(tree, "mlnx-ofa_kernel/");
}

void rd_check_stack_dkms(struct rd_check_ctx *ctx)
{
	const struct rd_system *s = ctx->sys;
	const struct rd_host *h = ctx->host;
	size_t trees = 0;
	for (size_t i = 0; i < s->dkms_trees.n; i++) {
		const char *t = s->dkms_trees.v[i];
		if (!ofed_tree(t))
			continue;
		trees++;
		if (!rd_attr_ok(&h->osrelease)) {
			struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, t, "cannot read the running kernel's release");
			rd_evidence_attr(f, &h->osrelease);
			continue;
		}
		char *want = rd_xasprintf("%s/%s", t, h->osrelease.value);
		bool built = rd_strv_contains(&s->dkms_built, want);
		free(want);
		if (built)
			continue;
		struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, t,
						      "OFED DKMS modules %s are not built for the running kernel %s: after the "
						      "kernel upgrade the OFED modules are missing (modprobe fails with "
						      "\"Invalid argument\" or the inbox ones load instead)",
						      t, h->osrelease.value);
		rd_evidence_attr(f, &h->osrelease);
		struct rd_buf kv = {0};
		for (size_t k = 0; k < s->dkms_built.n; k++)
			if (rd_str_has_prefix(s->dkms_built.v[k], t) && s->dkms_built.v[k][strlen(t)] == '/')
				rd_buf_printf(&kv, "%s%s", kv.len ? " " : "", s->dkms_built.v[k] + strlen(t) + 1);
		char *path = rd_xasprintf("/var/lib/dkms/%s", t);
		rd_evidence_add(f, path, "built for: %s", kv.len ? kv.data : "(none)");
		free(path);
		rd_buf_free(&kv);
		rd_fix_add(f, "dkms autoinstall");
		rd_fix_add(f, "or: /usr/sbin/mlnxofedinstall --kernel $(uname -r) --kernel-only --add-kernel-support");
		rd_fix_add(f, "then reboot (or /etc/init.d/openibd restart)");
	}
	if (!trees)
		rd_finding_add(ctx, RD_SKIP, "host", "no OFED DKMS modules under /var/lib/dkms");
	else if (rd_check_quiet(ctx))
		rd_finding_add(ctx, RD_OK, "host", "OFED DKMS modules are built for %s", h->osrelease.value);
}
