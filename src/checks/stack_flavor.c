/* stack.flavor: inbox rdma-core, MLNX_OFED or DOCA-OFED, its version, and the guide's advice. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"

const char *const rd_ofed_stack_modules[] = {"mlx5_core", "mlx5_ib", "ib_core", "ib_uverbs", "ib_cm", "rdma_cm",
					     "rdma_ucm", "ib_umad", "ib_ipoib", "iw_cm", NULL};

void rd_stack_flavor(const struct rd_host *h, const struct rd_system *s, struct rd_flavor *f)
{
	memset(f, 0, sizeof *f);
	const struct rd_package *doca = rd_system_package(s, "doca-ofed");
	const struct rd_package *doca_host = rd_system_package(s, "doca-host");
	const struct rd_package *dkms = rd_system_package(s, "mlnx-ofed-kernel-dkms");
	const struct rd_package *mods = rd_system_package(s, "mlnx-ofed-kernel-modules");
	const struct rd_package *utils = rd_system_package(s, "mlnx-ofed-kernel-utils");
	if (s->ofed_ok && strcmp(s->ofed.flavor, "MLNX_OFED") == 0) {
		strcpy(f->installed, "MLNX_OFED");
		snprintf(f->version, sizeof f->version, "%s", s->ofed.version);
	} else if ((doca && doca->installed) || (doca_host && doca_host->installed) || s->ofed_ok) {
		/* DOCA-OFED installs leave ofed_info saying OFED-internal-<ver> */
		strcpy(f->installed, (doca && doca->installed) || (doca_host && doca_host->installed) ||
					     strncmp(s->ofed.version, "2", 1) == 0
				     ? "DOCA-OFED"
				     : "OFED");
		snprintf(f->version, sizeof f->version, "%s", s->ofed_ok ? s->ofed.version : doca->version);
	} else if ((dkms && dkms->installed) || (mods && mods->installed) || (utils && utils->installed)) {
		strcpy(f->installed, "OFED");
		const struct rd_package *p = dkms && dkms->installed ? dkms : mods && mods->installed ? mods : utils;
		snprintf(f->version, sizeof f->version, "%s", p->version);
	} else if (!rd_attr_ok(&s->dpkg_status) && s->ofed_info.err != ENOENT) {
		/* neither the package database nor ofed_info could be seen */
		strcpy(f->installed, "unknown");
	} else {
		strcpy(f->installed, "inbox");
		const struct rd_package *rc = rd_system_package(s, "rdma-core");
		if (rc && rc->installed)
			snprintf(f->version, sizeof f->version, "rdma-core %.80s", rc->version);
	}
	size_t oot = 0, intree = 0;
	for (const char *const *m = rd_ofed_stack_modules; *m; m++) {
		const struct rd_module *mod = rd_host_module(h, *m);
		if (!mod || !mod->loaded)
			continue;
		int o = rd_module_out_of_tree(mod);
		oot += o == 1;
		intree += o == 0;
	}
	if (rd_module_loaded(h, "mlx_compat"))
		oot++;
	snprintf(f->running, sizeof f->running, "%s",
		 oot && intree ? "mixed" : oot ? "OFED" : intree ? "inbox" : h->proc_modules.err ? "unknown" : "none");
	unsigned major = 0;
	if (rd_attr_ok(&h->osrelease))
		major = (unsigned)strtoul(h->osrelease.value, NULL, 10);
	if (strcmp(f->installed, "MLNX_OFED") == 0)
		f->advice = "existing MLNX_OFED: stay on it until there is a reason to migrate; DOCA-OFED is its "
			    "successor and the choice for new deployments";
	else if (strcmp(f->installed, "unknown") == 0)
		f->advice = "cannot tell which stack is installed: neither ofed_info nor the package database is readable";
	else if (strcmp(f->installed, "inbox") != 0)
		f->advice = "DOCA-OFED/OFED: NVIDIA's current stack; keep HCA firmware at the version paired with "
			    "this release";
	else if (major >= 6 || !rd_attr_ok(&h->osrelease))
		f->advice = "inbox rdma-core is fine on a 6.x kernel unless you need GPUDirect through nvidia_peermem's "
			    "peer-memory API, the MFT firmware tools or SHARP; for those, evaluate DOCA-OFED first";
	else
		f->advice = "inbox stack on a pre-6.x kernel lags ConnectX-7/BlueField support: evaluate DOCA-OFED";
}

void rd_check_stack_flavor(struct rd_check_ctx *ctx)
{
	const struct rd_system *s = ctx->sys;
	if (!rd_host_has_rdma_hardware(ctx->host, s) && !rd_module_loaded(ctx->host, "ib_core") &&
	    !rd_module_loaded(ctx->host, "mlx5_core")) {
		rd_finding_add(ctx, RD_SKIP, "host", "no RDMA hardware and no RDMA stack loaded");
		return;
	}
	struct rd_flavor fl;
	rd_stack_flavor(ctx->host, s, &fl);
	bool known = strcmp(fl.installed, "unknown") != 0;
	struct rd_finding *f = rd_finding_add(ctx, known ? RD_OK : RD_UNKNOWN, "host", "%s%s%s installed, %s modules loaded: %s", fl.installed,
					      fl.version[0] ? " " : "", fl.version, fl.running, fl.advice);
	if (s->ofed_info.err == 0)
		rd_evidence_add(f, "ofed_info -s", "%.*s", (int)strcspn(s->ofed_info.data, "\n"), s->ofed_info.data);
	else
		rd_evidence_add(f, "ofed_info -s", "<%s>", rd_strerror(s->ofed_info.err));
	for (size_t i = 0; i < s->npackages; i++)
		if (s->packages[i].installed)
			rd_evidence_add(f, "/var/lib/dpkg/status", "%s %s", s->packages[i].name, s->packages[i].version);
	const struct rd_module *m = rd_host_module(ctx->host, "mlx5_core");
	if (m) {
		rd_evidence_attr(f, &m->version);
		rd_evidence_add(f, "/sys/module/mlx5_core/taint", "%s", m->taint ? m->taint : "");
	}
	if (rd_module_loaded(ctx->host, "mlx_compat"))
		rd_evidence_add(f, "/sys/module/mlx_compat", "present (OFED compat layer)");
	for (size_t i = 0; i < s->kmod_paths.n; i++)
		if (rd_str_has_suffix(s->kmod_names.v[i], "mlx5_core"))
			rd_evidence_add(f, s->modules_dep.path, "%s", s->kmod_paths.v[i]);
}
