/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* firmware.pinned: fw_ver equals the policy's pin for the board_id; without a pin, the firmware
 * train the installed MLNX_OFED / DOCA-OFED release ships for the adapter (model/fwtrain.h).
 * A pin is the fleet's own decision and overrides the table: its mismatch is a FAIL.  A mismatch
 * with the release's train is a WARN (NVIDIA tests each release with its train; other firmware
 * may work).  Adapters the table does not pair with one train (ConnectX-4/-5), releases it does
 * not know and inbox stacks are not judged, and the OK/SKIP line says so. */
#include <stdio.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/fwtrain.h"
#include "model/mft.h"

/* sysfs fw_ver and board_id, or flint's FW Version and PSID where sysfs has none */
#define FW(d) rd_mft_fw_ver(&ctx->sys->mft, (d))
#define BOARD(d) rd_mft_board_id(&ctx->sys->mft, (d))

static const struct rd_fw_pin *pin_for(const struct rd_check_ctx *ctx, const struct rd_policy *pol, const struct rd_device *d)
{
	if (!rd_attr_ok(BOARD(d)))
		return NULL;
	for (size_t k = 0; k < pol->npins; k++)
		if (strcmp(pol->pins[k].board_id, BOARD(d)->value) == 0)
			return &pol->pins[k];
	return NULL;
}

void rd_check_firmware_pinned(struct rd_check_ctx *ctx)
{
	const struct rd_policy *pol = ctx->policy;
	const struct rd_stack *st = rd_system_stack(ctx->sys);
	const struct rd_fw_release *rel = st->fw_release;
	char relname[128] = "";
	if (rel)
		snprintf(relname, sizeof relname, "%s %s", st->installed == RD_STACK_DOCA_OFED ? "DOCA" : "MLNX_OFED",
			 rel->version);
	size_t pinned = 0, trained = 0;
	char unjudged[512] = "";
	size_t nun = 0;
	for (size_t i = 0; i < ctx->host->ndevices; i++) {
		const struct rd_device *d = &ctx->host->devices[i];
		const struct rd_fw_pin *pin = pin_for(ctx, pol, d);
		enum rd_adapter ad = rd_adapter_of(d->device_id);
		const char *want = pin ? pin->fw_ver : rd_fwtrain_expected(rel, ad);
		if (!want) {
			if (ad != RD_AD_NONE && rel) {
				size_t n = strlen(unjudged);
				snprintf(unjudged + n, sizeof unjudged - n, "%s%s (%s)", nun ? ", " : "", d->name, rd_adapter_name(ad));
				nun++;
			}
			continue;
		}
		const char *dev = d->pci_addr ? d->pci_addr : d->name;
		if (!rd_attr_ok(FW(d))) {
			struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, d->name, "cannot read the firmware of %s", d->name);
			rd_evidence_attr(f, FW(d));
			continue;
		}
		if (pin) {
			pinned++;
			if (strcmp(FW(d)->value, pin->fw_ver) == 0)
				continue;
			struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, d->name, "%s runs firmware %s, the policy pins %s for %s",
							      d->name, FW(d)->value, pin->fw_ver, BOARD(d)->value);
			rd_evidence_attr(f, FW(d));
			rd_evidence_attr(f, BOARD(d));
			rd_fix_add(f, "flint -d %s -i <firmware %s for %s>.bin burn", dev, pin->fw_ver, BOARD(d)->value);
			rd_fix_add(f, "mlxfwreset -d %s -l 3 reset    # or reboot", dev);
			continue;
		}
		trained++;
		if (rd_fwtrain_match(want, FW(d)->value))
			continue;
		char shown[64];
		snprintf(shown, sizeof shown, "%.*s", (int)strcspn(want, "|"), want);
		struct rd_finding *f = rd_finding_add(
			ctx, RD_WARN, d->name, "%s (%s) runs firmware %s; %s ships %s for it: the driver and firmware are "
					       "tested as a pair",
			d->name, rd_adapter_name(ad), FW(d)->value, relname, shown);
		rd_evidence_attr(f, FW(d));
		rd_evidence_attr(f, &d->hca_type);
		rd_evidence_add(f, st->installed_by ? st->installed_by : "stack", "%s", relname);
		rd_evidence_add(f, "firmware train", "%s", rel->source);
		const char *board = rd_attr_ok(BOARD(d)) ? BOARD(d)->value : "this board";
		rd_fix_add(f, "# one node first: burn, reset, run a job, then roll out to the rest");
		rd_fix_add(f, "flint -d %s -i <firmware %s for %s>.bin burn", dev, shown, board);
		rd_fix_add(f, "mlxfwreset -d %s -l 3 reset    # or reboot", dev);
		rd_fix_add(f, "# or keep this firmware on purpose: pin it in the policy, [firmware] %s = %s", board, FW(d)->value);
	}
	if (!rd_check_quiet(ctx))
		return;
	char why[256];
	if (!rel)
		rd_fwtrain_why_none(st, why, sizeof why);
	if (!pinned && !trained) {
		if (!pol->npins && !rel)
			rd_finding_add(ctx, RD_SKIP, "host", "no firmware pins in the policy ([firmware] board_id = version), and %s",
				       why);
		else if (rel && nun)
			rd_finding_add(ctx, RD_SKIP, "host", "%s pairs no single train with %s: not judged", relname, unjudged);
		else
			rd_finding_add(ctx, RD_SKIP, "host", "no HCA matches a pinned board_id%s%s", rel ? "" : ", and ",
				       rel ? "" : why);
		return;
	}
	char msg[1024];
	if (trained && pinned)
		snprintf(msg, sizeof msg, "%zu pinned HCA%s on %s pin, %zu on the firmware %s ships", pinned,
			 pinned == 1 ? "" : "s", pinned == 1 ? "its" : "their", trained, relname);
	else if (trained)
		snprintf(msg, sizeof msg, "%zu HCA%s on the firmware %s ships", trained, trained == 1 ? "" : "s", relname);
	else
		snprintf(msg, sizeof msg, "every pinned HCA runs its pinned firmware%s%s", rel ? "" : "; no train for the others: ",
			 rel ? "" : why);
	if (nun)
		rd_finding_add(ctx, RD_OK, "host", "%s; not judged: %s (no single train in %s)", msg, unjudged, relname);
	else
		rd_finding_add(ctx, RD_OK, "host", "%s", msg);
}
