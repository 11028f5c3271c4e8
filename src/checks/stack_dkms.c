/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* stack.dkms: OFED's DKMS modules must be built for the running kernel (a kernel upgrade leaves
 * them behind); on RPM hosts also OFED's kmod packages, which are not DKMS at all. */
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"

static bool ofed_tree(const char *tree)
{
	return rd_str_has_prefix(tree, "mlnx-ofed-kernel/") || rd_str_has_prefix(tree, "mlnx-ofa_kernel/");
}

/* The running kernel's mlx5_core in modules.dep when it is not the in-tree one (extra/ of a kmod
 * package, weak-updates/ links to it, updates/): OFED's modules serve this kernel.  NULL if not. */
static const char *ofed_mlx5_for_running(const struct rd_system *s)
{
	for (size_t i = 0; i < s->kmod_paths.n; i++)
		if (rd_str_has_suffix(s->kmod_names.v[i], "mlx5_core") && !rd_str_has_prefix(s->kmod_paths.v[i], "kernel/"))
			return s->kmod_paths.v[i];
	return NULL;
}

/* RPM hosts: OFED's kernel modules in kmod packages (kmod-mlnx-ofa_kernel, mlnx-ofa_kernel-modules)
 * are not DKMS: each is built for one kernel (the -modules release names it; MLNX_OFED's
 * /etc/infiniband/info says which one it was installed for), and a kernel upgrade leaves them
 * behind unless weak-updates links serve the new kernel.  Returns the number of findings. */
static size_t rpm_kmods(struct rd_check_ctx *ctx)
{
	const struct rd_system *s = ctx->sys;
	const struct rd_host *h = ctx->host;
	const struct rd_rpmdb *r = &s->rpm;
	if (!r->consulted)
		return 0;
	if (r->err) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "host",
						      "cannot tell whether OFED's kernel packages match the running kernel: %s",
						      r->reason);
		rd_evidence_add(f, r->path, "<%s>", rd_strerror(r->err));
		return 1;
	}
	if (rd_rpmdb_find(r, "mlnx-ofa_kernel-dkms"))
		return 0; /* DKMS: judged by its trees under /var/lib/dkms */
	const struct rd_rpm_pkg *kmod = NULL;
	bool built_for_running = false;
	struct rd_buf kvers = {0};
	for (size_t i = 0; i < r->npkgs; i++) {
		const struct rd_rpm_pkg *p = &r->pkgs[i];
		if (strcmp(p->name, "mlnx-ofa_kernel-modules") && strcmp(p->name, "kmod-mlnx-ofa_kernel"))
			continue;
		if (!kmod || strcmp(p->name, "mlnx-ofa_kernel-modules") == 0)
			kmod = p;
		char kv[128];
		if (strcmp(p->name, "mlnx-ofa_kernel-modules") == 0 && rd_rpm_release_kernel(p->release, kv, sizeof kv) == 0) {
			rd_buf_printf(&kvers, "%s%s", kvers.len ? " " : "", kv);
			if (rd_attr_ok(&h->osrelease) && strcmp(kv, h->osrelease.value) == 0)
				built_for_running = true;
		}
	}
	if (!kmod) {
		rd_buf_free(&kvers);
		return 0;
	}
	if (!rd_attr_ok(&h->osrelease)) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, kmod->name, "cannot read the running kernel's release");
		rd_evidence_attr(f, &h->osrelease);
		rd_buf_free(&kvers);
		return 1;
	}
	const char *running = h->osrelease.value;
	const char *mlx5 = ofed_mlx5_for_running(s);
	bool info_running = r->ib_info_kernel[0] && strcmp(r->ib_info_kernel, running) == 0;
	if (built_for_running || mlx5 || (info_running && !kvers.len)) {
		if (rd_check_quiet(ctx))
			rd_finding_add(ctx, RD_OK, kmod->name, "OFED's kmod packages serve the running kernel %s", running);
		rd_buf_free(&kvers);
		return 1;
	}
	if (!rd_attr_ok(&s->modules_dep) && !kvers.len && !r->ib_info_kernel[0]) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, kmod->name,
						      "cannot tell whether OFED's kmod packages serve the running kernel %s", running);
		rd_evidence_attr(f, &s->modules_dep);
		rd_buf_free(&kvers);
		return 1;
	}
	const char *built = kvers.len ? kvers.data : r->ib_info_kernel[0] ? r->ib_info_kernel : NULL;
	struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, kmod->name,
					      "OFED's kernel modules come from kmod packages (not DKMS) built for %s, and the "
					      "running kernel is %s: after the kernel upgrade the OFED modules are missing "
					      "(the inbox ones load instead, or none)",
					      built ? built : "another kernel", running);
	rd_evidence_attr(f, &h->osrelease);
	for (size_t i = 0; i < r->npkgs; i++)
		if (strcmp(r->pkgs[i].name, "mlnx-ofa_kernel-modules") == 0 || strcmp(r->pkgs[i].name, "kmod-mlnx-ofa_kernel") == 0)
			rd_evidence_add(f, r->path, "%s %s", r->pkgs[i].name, r->pkgs[i].evr);
	if (r->ib_info_kernel[0])
		rd_evidence_add(f, r->ib_info.path, "Kernel=%s", r->ib_info_kernel);
	if (rd_attr_ok(&s->modules_dep))
		rd_evidence_add(f, s->modules_dep.path, "no OFED mlx5_core for %s (extra/ or weak-updates/)", running);
	rd_fix_add(f, "/usr/sbin/mlnxofedinstall --kernel $(uname -r) --kernel-only --add-kernel-support    # MLNX_OFED: "
		      "rebuild its kernel packages for this kernel");
	if (strcmp(kmod->name, "mlnx-ofa_kernel-modules") == 0)
		rd_fix_add(f, "or: dnf install \"mlnx-ofa_kernel-modules-*.kver.$(uname -r | sed 's/-/_/')*\"    # the "
			      "package built for this kernel, from the DOCA/MLNX_OFED repository");
	else
		rd_fix_add(f, "or: dnf upgrade kmod-mlnx-ofa_kernel    # the kmod of this kernel's EL release, from the "
			      "DOCA/MLNX_OFED repository");
	rd_fix_add(f, "then reboot (or /etc/init.d/openibd restart)");
	rd_buf_free(&kvers);
	return 1;
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
	size_t kmods = rpm_kmods(ctx);
	if (!trees && !kmods)
		rd_finding_add(ctx, RD_SKIP, "host", "no OFED DKMS modules under /var/lib/dkms");
	else if (trees && rd_check_quiet(ctx))
		rd_finding_add(ctx, RD_OK, "host", "OFED DKMS modules are built for %s", h->osrelease.value);
}
