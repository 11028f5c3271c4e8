/* openibd.state: OFED's openibd.service, when enabled, must be running: it loads the modules and
 * brings the NICs up. */
#include <string.h>

#include "checks/catalogue.h"

static const char *first_line(const struct rd_text *t, char *buf, size_t len)
{
	if (t->err || !t->data)
		return NULL;
	size_t n = strcspn(t->data, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, t->data, n);
	buf[n] = '\0';
	return buf;
}

void rd_check_openibd_state(struct rd_check_ctx *ctx)
{
	const struct rd_system *s = ctx->sys;
	char en[64], ac[64];
	const char *enabled = first_line(&s->openibd_enabled, en, sizeof en);
	const char *active = first_line(&s->openibd_active, ac, sizeof ac);
	bool is_enabled = s->openibd_wants || (enabled && strcmp(enabled, "enabled") == 0);
	if (!s->openibd_unit && !(enabled && (strcmp(enabled, "enabled") == 0 || strcmp(enabled, "disabled") == 0))) {
		rd_finding_add(ctx, RD_SKIP, "openibd", "openibd is not installed (no OFED init service)");
		return;
	}
	if (!is_enabled) {
		struct rd_finding *f = rd_finding_add(ctx, RD_SKIP, "openibd", "openibd is installed but not enabled");
		if (s->openibd_unit)
			rd_evidence_add(f, s->openibd_unit, "present");
		return;
	}
	if (!active) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "openibd", "openibd is enabled; cannot tell whether it runs");
		rd_evidence_add(f, "systemctl is-active openibd", "<%s>", rd_strerror(s->openibd_active.err));
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
	if (s->openibd_wants)
		rd_evidence_add(f, s->openibd_wants, "enabled");
	else
		rd_evidence_add(f, "systemctl is-enabled openibd", "%s", enabled);
	rd_fix_add(f, "systemctl start openibd");
	rd_fix_add(f, "journalctl -u openibd -n 50    # why it stopped; often openib.conf names a module the kernel lacks");
}
