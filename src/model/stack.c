/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The derived stack facts (model/stack.h): one answer for every check, renderer and command. */
#include "model/stack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fwtrain.h"
#include "model/host.h"
#include "model/system.h"

const char *const rd_ofed_stack_modules[] = {"mlx5_core", "mlx5_ib", "ib_core", "ib_uverbs", "ib_cm", "rdma_cm",
					     "rdma_ucm", "ib_umad", "ib_ipoib", "iw_cm", NULL};

const char *rd_stack_kind_name(enum rd_stack_kind k)
{
	switch (k) {
	case RD_STACK_UNKNOWN: return "unknown";
	case RD_STACK_INBOX: return "inbox";
	case RD_STACK_OFED: return "OFED";
	case RD_STACK_MLNX_OFED: return "MLNX_OFED";
	case RD_STACK_DOCA_OFED: return "DOCA-OFED";
	}
	return "unknown";
}

const char *rd_stack_run_name(enum rd_stack_run r)
{
	switch (r) {
	case RD_RUN_UNKNOWN: return "unknown";
	case RD_RUN_NONE: return "none";
	case RD_RUN_INBOX: return "inbox";
	case RD_RUN_OFED: return "OFED";
	case RD_RUN_MIXED: return "mixed";
	}
	return "unknown";
}

const char *rd_openibd_name(enum rd_openibd o)
{
	switch (o) {
	case RD_OPENIBD_UNKNOWN: return "unknown";
	case RD_OPENIBD_ABSENT: return "absent";
	case RD_OPENIBD_DISABLED: return "disabled";
	case RD_OPENIBD_ENABLED: return "enabled";
	}
	return "unknown";
}

bool rd_stack_is_ofed(enum rd_stack_kind k)
{
	return k == RD_STACK_OFED || k == RD_STACK_MLNX_OFED || k == RD_STACK_DOCA_OFED;
}

static bool pkg(const struct rd_system *s, const char *name)
{
	const struct rd_package *p = rd_system_package(s, name);
	return p && p->installed;
}

static void installed(const struct rd_system *s, struct rd_stack *st)
{
	bool doca = pkg(s, "doca-ofed") || pkg(s, "doca-host");
	bool rpm_doca = rd_rpmdb_find(&s->rpm, "doca-ofed") || rd_rpmdb_find(&s->rpm, "doca-ofed-userspace");
	if (s->ofed_ok && strcmp(s->ofed.flavor, "MLNX_OFED") == 0) {
		st->installed = RD_STACK_MLNX_OFED;
		st->installed_by = "ofed_info -s";
		snprintf(st->version, sizeof st->version, "%s", s->ofed.version);
	} else if (s->ofed_ok) {
		/* ofed_info's OFED-internal-<ver> is DOCA-OFED's, and the BlueField bundle's MLNX_OFED too
		 * (a BlueField-3 host: OFED-internal-23.07-0.5.0): only a doca-ofed package tells DOCA */
		st->installed = doca || rpm_doca ? RD_STACK_DOCA_OFED : RD_STACK_OFED;
		st->installed_by = "ofed_info -s";
		snprintf(st->version, sizeof st->version, "%s", s->ofed.version);
	} else if (doca) {
		const struct rd_package *p = pkg(s, "doca-ofed") ? rd_system_package(s, "doca-ofed")
								 : rd_system_package(s, "doca-host");
		st->installed = RD_STACK_DOCA_OFED;
		st->installed_by = "/var/lib/dpkg/status";
		snprintf(st->version, sizeof st->version, "%s", p->version);
	} else if (pkg(s, "mlnx-ofed-kernel-dkms") || pkg(s, "mlnx-ofed-kernel-modules") ||
		   pkg(s, "mlnx-ofed-kernel-utils")) {
		const char *name = pkg(s, "mlnx-ofed-kernel-dkms")	  ? "mlnx-ofed-kernel-dkms"
				   : pkg(s, "mlnx-ofed-kernel-modules") ? "mlnx-ofed-kernel-modules"
									  : "mlnx-ofed-kernel-utils";
		st->installed = RD_STACK_OFED;
		st->installed_by = "/var/lib/dpkg/status";
		snprintf(st->version, sizeof st->version, "%s", rd_system_package(s, name)->version);
	} else if (rd_rpmdb_stack(&s->rpm, st)) {
		/* an RPM host: what its rpm database says (model/rpmdb.c) */
	} else if (!rd_attr_ok(&s->dpkg_status) && s->ofed_info.err != ENOENT) {
		/* neither the package database nor ofed_info could be seen */
		st->installed = RD_STACK_UNKNOWN;
	} else {
		st->installed = RD_STACK_INBOX;
		st->installed_by = rd_attr_ok(&s->dpkg_status) ? "/var/lib/dpkg/status" : "ofed_info -s";
		const struct rd_package *rc = rd_system_package(s, "rdma-core");
		if (rc && rc->installed)
			snprintf(st->version, sizeof st->version, "rdma-core %.80s", rc->version);
	}
}

static void running(const struct rd_host *h, struct rd_stack *st)
{
	for (const char *const *m = rd_ofed_stack_modules; *m; m++) {
		const struct rd_module *mod = rd_host_module(h, *m);
		if (!mod || !mod->loaded)
			continue;
		int o = rd_module_out_of_tree(mod);
		rd_strv_push(o == 1 ? &st->oot : o == 0 ? &st->intree : &st->unsure, *m);
	}
	const struct rd_module *compat = rd_host_module(h, "mlx_compat");
	st->mlx_compat = compat && compat->loaded;
	size_t oot = st->oot.n + st->mlx_compat;
	st->ib_core_ofed = st->mlx_compat || rd_strv_contains(&st->oot, "ib_core");
	for (size_t i = 0; i < h->ndevices && !st->ib_core_ofed; i++)
		for (size_t p = 0; p < h->devices[i].nports; p++)
			if (rd_attr_ok(&h->devices[i].ports[p].has_smi))
				st->ib_core_ofed = true;
	if (oot && st->intree.n)
		st->running = RD_RUN_MIXED;
	else if (oot)
		st->running = RD_RUN_OFED;
	else if (st->intree.n)
		st->running = RD_RUN_INBOX;
	else if (st->unsure.n || !h->modules_listed)
		/* modules loaded whose origin cannot be told, or no module list at all */
		st->running = RD_RUN_UNKNOWN;
	else
		st->running = RD_RUN_NONE;
}

static void first_line(const struct rd_text *t, char *buf, size_t len)
{
	buf[0] = '\0';
	if (t->err || !t->data)
		return;
	size_t n = strcspn(t->data, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, t->data, n);
	buf[n] = '\0';
}

static void openibd(const struct rd_system *s, struct rd_stack *st)
{
	first_line(&s->openibd_active, st->openibd_active, sizeof st->openibd_active);
	first_line(&s->openibd_enabled, st->openibd_enabled, sizeof st->openibd_enabled);
	st->openibd_unit = s->openibd_unit;
	st->openibd_wants = s->openibd_wants;
	const char *en = st->openibd_enabled;
	/* systemctl is-enabled: enabled, enabled-runtime, static, alias, indirect, generated,
	 * disabled, masked...; "not-found" (or an error message) when there is no unit */
	bool sd_enabled = strcmp(en, "enabled") == 0 || strcmp(en, "enabled-runtime") == 0;
	bool sd_present = sd_enabled || strcmp(en, "disabled") == 0 || strcmp(en, "static") == 0 ||
			  strcmp(en, "masked") == 0 || strcmp(en, "indirect") == 0 || strcmp(en, "generated") == 0;
	if (s->openibd_wants || sd_enabled)
		st->openibd = RD_OPENIBD_ENABLED;
	else if (s->openibd_unit || sd_present)
		st->openibd = RD_OPENIBD_DISABLED;
	else if (s->unit_dirs_present || s->openibd_enabled.err == 0)
		st->openibd = RD_OPENIBD_ABSENT;
	else
		st->openibd = RD_OPENIBD_UNKNOWN;
}

static void advice(const struct rd_host *h, struct rd_stack *st)
{
	unsigned major = 0;
	if (rd_attr_ok(&h->osrelease))
		major = (unsigned)strtoul(h->osrelease.value, NULL, 10);
	if (st->installed == RD_STACK_MLNX_OFED)
		st->advice = "existing MLNX_OFED: stay on it until there is a reason to migrate; DOCA-OFED is its "
			     "successor and the choice for new deployments";
	else if (st->installed == RD_STACK_UNKNOWN && st->unknown_why)
		st->advice = st->unknown_why;
	else if (st->installed == RD_STACK_UNKNOWN)
		st->advice = "cannot tell which stack is installed: neither ofed_info nor the package database is readable";
	else if (st->installed != RD_STACK_INBOX)
		st->advice = "DOCA-OFED/OFED: NVIDIA's current stack; keep HCA firmware at the version paired with "
			     "this release";
	else if (major >= 6 || !rd_attr_ok(&h->osrelease))
		st->advice = "inbox rdma-core is fine on a 6.x kernel unless you need GPUDirect through nvidia_peermem's "
			     "peer-memory API, the MFT firmware tools or SHARP; for those, evaluate DOCA-OFED first";
	else
		st->advice = "inbox stack on a pre-6.x kernel lags ConnectX-7/BlueField support: evaluate DOCA-OFED";
}

void rd_stack_derive(const struct rd_host *h, const struct rd_system *s, struct rd_stack *st)
{
	memset(st, 0, sizeof *st);
	installed(s, st);
	running(h, st);
	openibd(s, st);
	advice(h, st);
	const struct rd_package *doca = rd_system_package(s, "doca-ofed");
	if (!doca || !doca->installed)
		doca = rd_system_package(s, "doca-host");
	st->doca_version = doca && doca->installed ? doca->version : NULL;
	if (!st->doca_version && s->rpm.consulted && !s->rpm.err) { /* an RPM host: doca-ofed's version is the release */
		const struct rd_rpm_pkg *p = rd_rpmdb_find(&s->rpm, "doca-ofed");
		st->doca_version = p ? p->version : NULL;
	}
	st->fw_release = rd_fwtrain_find(st->installed, st->version, st->doca_version);
}

void rd_stack_free(struct rd_stack *st)
{
	rd_strv_free(&st->oot);
	rd_strv_free(&st->intree);
	rd_strv_free(&st->unsure);
	memset(st, 0, sizeof *st);
}

void rd_fwtrain_why_none(const struct rd_stack *st, char *buf, size_t len)
{
	if (st->installed == RD_STACK_INBOX)
		snprintf(buf, len, "an inbox stack has no firmware train");
	else if (st->installed == RD_STACK_UNKNOWN)
		snprintf(buf, len, "the installed stack is not known");
	else if (st->installed == RD_STACK_DOCA_OFED && !st->doca_version)
		snprintf(buf, len, "DOCA-OFED %s: no doca-ofed package names the DOCA release",
			 st->version[0] ? st->version : "(no version)");
	else if (st->installed == RD_STACK_DOCA_OFED)
		snprintf(buf, len, "DOCA %.*s (doca-ofed %s) is not in the firmware-train table",
			 (int)strcspn(st->doca_version, "-"), st->doca_version, st->doca_version);
	else if (st->installed == RD_STACK_OFED)
		snprintf(buf, len, "OFED %s: MLNX_OFED or DOCA-OFED cannot be told, so no train applies", st->version);
	else
		snprintf(buf, len, "%s %s is not in the firmware-train table", rd_stack_kind_name(st->installed),
			 st->version[0] ? st->version : "(no version)");
}
