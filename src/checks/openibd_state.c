/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* openibd.state: OFED's openibd.service, when enabled, must be running: it loads the modules and
 * brings the NICs up.  Whether openibd is there is one fact of the model (sys->stack.openibd),
 * read together with what is installed: an OFED install without openibd is said, not skipped. */
#include <stdio.h>
#include <string.h>

#include "checks/catalogue.h"

static const char *stack_name(const struct rd_stack *st, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", rd_stack_kind_name(st->installed), st->version[0] ? " " : "", st->version);
	return buf;
}

void rd_check_openibd_state(struct rd_check_ctx *ctx)
{
	const struct rd_stack *st = rd_system_stack(ctx->sys);
	const char *active = st->openibd_active[0] ? st->openibd_active : NULL;
	char name[160];
	bool ofed = rd_stack_is_ofed(st->installed);
	if (st->openibd == RD_OPENIBD_UNKNOWN || st->openibd == RD_OPENIBD_ABSENT) {
		bool known = st->openibd == RD_OPENIBD_ABSENT;
		if (!ofed) {
			if (known || st->installed == RD_STACK_INBOX)
				rd_finding_add(ctx, RD_SKIP, "openibd", "openibd is not installed (no OFED init service)");
			else
				rd_finding_add(ctx, RD_SKIP, "openibd",
					       "no openibd unit in this root and no OFED install seen (see stack.flavor)");
			return;
		}
		struct rd_finding *f;
		if (known)
			f = rd_finding_add(ctx, RD_OK, "openibd",
					   "%s is installed without its openibd init service: nothing runs openibd at "
					   "boot, so the OFED modules load only through modules-load.d and udev (see "
					   "modules.persistent)",
					   stack_name(st, name, sizeof name));
		else
			f = rd_finding_add(ctx, RD_UNKNOWN, "openibd",
					   "%s is installed, but this root has no systemd unit directory and no "
					   "systemctl answer: whether its openibd init service is installed and runs "
					   "is not known",
					   stack_name(st, name, sizeof name));
		const struct rd_text *oi = &ctx->sys->ofed_info;
		if (oi->err == 0 && oi->data)
			rd_evidence_add(f, "ofed_info -s", "%.*s", (int)strcspn(oi->data, "\n"), oi->data);
		else
			rd_evidence_add(f, st->installed_by ? st->installed_by : "/var/lib/dpkg/status", "%s installed",
					rd_stack_kind_name(st->installed));
		rd_evidence_add(f, "/usr/lib/systemd/system/openibd.service", "%s", known ? "absent" : "<not captured>");
		return;
	}
	if (st->openibd == RD_OPENIBD_DISABLED) {
		struct rd_finding *f = rd_finding_add(ctx, RD_SKIP, "openibd", "openibd is installed but not enabled");
		if (st->openibd_unit)
			rd_evidence_add(f, st->openibd_unit, "present");
		return;
	}
	if (!active) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "openibd", "openibd is enabled; cannot tell whether it runs");
		rd_evidence_add(f, "systemctl is-active openibd", "<%s>", rd_strerror(ctx->sys->openibd_active.err));
		return;
	}
	if (strcmp(active, "active") == 0) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "openibd", "openibd is enabled and active");
		rd_evidence_add(f, "systemctl is-active openibd", "%s", active);
		return;
	}
	struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, "openibd",
					      "openibd.service is enabled but %s: the OFED modules will not load reliably",
					      strcmp(active, "inactive") == 0 ? "inactive (dead)" : active);
	rd_evidence_add(f, "systemctl is-active openibd", "%s", active);
	if (st->openibd_wants)
		rd_evidence_add(f, st->openibd_wants, "enabled");
	else
		rd_evidence_add(f, "systemctl is-enabled openibd", "%s", st->openibd_enabled);
	rd_fix_add(f, "systemctl start openibd");
	rd_fix_add(f, "journalctl -u openibd -n 50    # why it stopped; often openib.conf names a module the kernel lacks");
}
