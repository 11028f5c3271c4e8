/* modules.persistent: every module of the policy list is named in a modules-load.d file. */
#include "checks/catalogue.h"

void rd_check_modules_persistent(struct rd_check_ctx *ctx)
{
	const struct rd_system *sys = ctx->sys;
	if (!rd_host_has_rdma_hardware(ctx->host, sys)) {
		rd_finding_add(ctx, RD_SKIP, "host", "no RDMA hardware: nothing needs to load at boot");
		return;
	}
	if (!sys->etc_present) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "host",
						      "this root has no /etc at all (a partial capture): cannot check modules-load.d");
		rd_evidence_add(f, "/etc", "<No such file or directory>");
		return;
	}
	/* an effective file that cannot be read may list the modules: cannot tell */
	for (size_t i = 0; i < sys->nmodload; i++)
		if (!sys->modload[i].overridden && !rd_attr_ok(&sys->modload[i].text)) {
			struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "host", "cannot read %s, so cannot tell what loads at boot",
							      sys->modload[i].path);
			rd_evidence_attr(f, &sys->modload[i].text);
			return;
		}
	struct rd_strv missing = {0};
	for (size_t i = 0; i < ctx->policy->modules.n; i++)
		if (!rd_modload_find(sys, ctx->policy->modules.v[i]))
			rd_strv_push(&missing, ctx->policy->modules.v[i]);
	if (!missing.n) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host", "all %zu required modules are listed in modules-load.d",
						      ctx->policy->modules.n);
		for (size_t i = 0; i < sys->nmodload; i++)
			if (!sys->modload[i].overridden && sys->modload[i].modules.n)
				rd_evidence_add(f, sys->modload[i].path, "%zu module%s", sys->modload[i].modules.n,
						sys->modload[i].modules.n == 1 ? "" : "s");
		rd_strv_free(&missing);
		return;
	}
	struct rd_buf list = {0};
	for (size_t i = 0; i < missing.n; i++)
		rd_buf_printf(&list, "%s%s", i ? " " : "", missing.v[i]);
	struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "host",
					      "%s not listed in any modules-load.d file: after a reboot they load only if "
					      "something else loads them, and jobs fail with \"could not open RDMA device\" "
					      "or NCCL falls back to TCP",
					      list.data);
	size_t shown = 0;
	for (size_t i = 0; i < sys->nmodload; i++) {
		const struct rd_modload_file *m = &sys->modload[i];
		if (m->overridden)
			rd_evidence_add(f, m->path, "overridden by a file of the same name with higher precedence");
		else if (rd_attr_ok(&m->text))
			rd_evidence_add(f, m->path, "%s", m->modules.n ? "" : "(no modules)");
		else
			rd_evidence_attr(f, &m->text);
		shown++;
	}
	if (!shown)
		rd_evidence_add(f, "/etc/modules-load.d", "no .conf file in /etc, /run or /usr/lib modules-load.d");
	/* the rdma.conf that would fix it: every missing module, one per line */
	rd_fix_add(f, "cat >> /etc/modules-load.d/rdma.conf <<'EOF'");
	for (size_t i = 0; i < missing.n; i++)
		rd_fix_add(f, "%s", missing.v[i]);
	rd_fix_add(f, "EOF");
	rd_fix_add(f, "systemctl restart systemd-modules-load    # listing an already-loaded module is harmless: "
		      "modprobe is idempotent");
	rd_buf_free(&list);
	rd_strv_free(&missing);
}
