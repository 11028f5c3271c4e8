/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* modules.persistent: every module of the policy list is named in a modules-load.d file, and every
 * line of those files is read by systemd-modules-load as what the operator meant. */
#include <stdlib.h>

#include "checks/catalogue.h"
#include "fix/fix.h"

void rd_check_modules_persistent(struct rd_check_ctx *ctx)
{
	const struct rd_system *sys = ctx->sys;
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
	struct rd_strv missing = {0}, via_rdma = {0}, nothing = {0};
	for (size_t i = 0; i < ctx->policy->modules.n; i++) {
		const char *m = ctx->policy->modules.v[i], *when;
		if (rd_modload_find(sys, m))
			continue;
		rd_strv_push(&missing, m);
		rd_strv_push(rd_boot_loader(sys, m, &when) ? &via_rdma : &nothing, m);
	}
	size_t nbad = 0;
	for (size_t i = 0; i < sys->nmodload; i++)
		if (!sys->modload[i].overridden)
			nbad += sys->modload[i].nbad;
	if (!missing.n && !nbad) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host", "all %zu required modules are listed in modules-load.d",
						      ctx->policy->modules.n);
		for (size_t i = 0; i < sys->nmodload; i++)
			if (!sys->modload[i].overridden && sys->modload[i].modules.n)
				rd_evidence_add(f, sys->modload[i].path, "%zu module%s", sys->modload[i].modules.n,
						sys->modload[i].modules.n == 1 ? "" : "s");
		rd_strv_free(&missing);
		return;
	}
	struct rd_buf list = {0}, msg = {0};
	for (size_t i = 0; i < missing.n; i++)
		rd_buf_printf(&list, "%s%s", i ? " " : "", missing.v[i]);
	if (missing.n && !via_rdma.n) {
		rd_buf_printf(&msg, "%s not listed in any modules-load.d file: after a reboot they load only if something else "
				    "loads them, and jobs fail with \"could not open RDMA device\" or NCCL falls back to TCP",
			      list.data);
	} else if (missing.n) {
		rd_buf_printf(&msg, "%s not listed in any modules-load.d file: rdma-core's udev rules load ", list.data);
		for (size_t i = 0; i < via_rdma.n; i++)
			rd_buf_printf(&msg, "%s%s", i ? " " : "", via_rdma.v[i]);
		rd_buf_printf(&msg, " only when an RDMA device appears (so not when no driver makes one)");
		if (nothing.n) {
			rd_buf_printf(&msg, "; ");
			for (size_t i = 0; i < nothing.n; i++)
				rd_buf_printf(&msg, "%s%s", i ? " " : "", nothing.v[i]);
			rd_buf_printf(&msg, " load only if something else loads them");
		}
		rd_buf_printf(&msg, " (listed in modules-load.d, every one loads at boot whether or not a device appears)");
	}
	if (nbad) {
		rd_buf_printf(&msg, "%s", missing.n ? "; " : "");
		bool first = true;
		for (size_t i = 0; i < sys->nmodload; i++) {
			const struct rd_modload_file *m = &sys->modload[i];
			for (size_t k = 0; k < m->nbad && !m->overridden; k++) {
				rd_buf_printf(&msg, "%s%s:%u", first ? "" : ", ", m->path, m->bad[k].line);
				first = false;
			}
		}
		rd_buf_printf(&msg, " %s not a module name: systemd-modules-load takes the whole line as one module name "
				    "and loads nothing for it (only a line starting with '#' or ';' is a comment)",
			      nbad == 1 ? "is" : "are");
	}
	struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "host", "%s", msg.data);
	size_t shown = 0;
	for (size_t i = 0; i < sys->nmodload; i++) {
		const struct rd_modload_file *m = &sys->modload[i];
		if (m->overridden) {
			rd_evidence_add(f, m->path, "overridden by a file of the same name with higher precedence");
		} else if (rd_attr_ok(&m->text)) {
			struct rd_buf mods = {0};
			for (size_t k = 0; k < m->modules.n; k++)
				rd_buf_printf(&mods, "%s%s", k ? " " : "", m->modules.v[k]);
			rd_evidence_add(f, m->path, "%s", m->modules.n ? mods.data : "(no modules)");
			rd_buf_free(&mods);
			for (size_t k = 0; k < m->nbad; k++) {
				char *where = rd_xasprintf("%s:%u", m->path, m->bad[k].line);
				rd_evidence_add(f, where, "\"%s\": taken whole as one module name, which names none: loads nothing",
						m->bad[k].text);
				free(where);
			}
		} else {
			rd_evidence_attr(f, &m->text);
		}
		shown++;
	}
	if (!shown)
		rd_evidence_add(f, "/etc/modules-load.d", "no .conf file in /etc, /run or /usr/lib modules-load.d");
	/* rdma-core's files, one line each: what it loads, and when */
	for (size_t i = 0; i < via_rdma.n; i++) {
		const char *when, *path = rd_boot_loader(sys, via_rdma.v[i], &when), *w2;
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = rd_boot_loader(sys, via_rdma.v[k], &w2) == path;
		if (seen)
			continue;
		struct rd_buf mods = {0};
		for (size_t k = i; k < via_rdma.n; k++)
			if (rd_boot_loader(sys, via_rdma.v[k], &w2) == path)
				rd_buf_printf(&mods, "%s%s", mods.len ? " " : "", via_rdma.v[k]);
		rd_evidence_add(f, path, "loads %s %s", mods.data, when);
		rd_buf_free(&mods);
	}
	/* the fix: what `fix modules` plans, and the same change by hand */
	struct rd_fix_plan plan;
	rd_fix_modules_plan(ctx->host, sys, ctx->policy, ctx->live, &plan);
	if (rd_fix_plan_suggest(&plan, f)) {
		rd_fix_add(f, "systemctl restart systemd-modules-load    # listing an already-loaded module is harmless: "
			      "modprobe is idempotent");
	} else {
		for (size_t i = 0; i < plan.errors.n; i++)
			rd_fix_add(f, "# first, by hand: %s", plan.errors.v[i]);
		rd_fix_add(f, "rdma-doctor fix modules --apply    # then: lists the missing modules in /etc/modules-load.d/rdma.conf");
	}
	rd_fix_plan_free(&plan);
	rd_buf_free(&list);
	rd_buf_free(&msg);
	rd_strv_free(&missing);
	rd_strv_free(&via_rdma);
	rd_strv_free(&nothing);
}
