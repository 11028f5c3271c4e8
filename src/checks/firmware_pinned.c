/* firmware.pinned: fw_ver equals the policy's pin for the board_id. */
#include <string.h>

#include "checks/catalogue.h"
#include "model/mft.h"

/* sysfs fw_ver and board_id, or flint's FW Version and PSID where sysfs has none */
#define FW(d) rd_mft_fw_ver(&ctx->sys->mft, (d))
#define BOARD(d) rd_mft_board_id(&ctx->sys->mft, (d))

void rd_check_firmware_pinned(struct rd_check_ctx *ctx)
{
	const struct rd_policy *pol = ctx->policy;
	if (!pol->npins) {
		rd_finding_add(ctx, RD_SKIP, "host", "no firmware pins in the policy ([firmware] board_id = version)");
		return;
	}
	size_t matched = 0;
	for (size_t i = 0; i < ctx->host->ndevices; i++) {
		const struct rd_device *d = &ctx->host->devices[i];
		if (!rd_attr_ok(BOARD(d)))
			continue;
		for (size_t k = 0; k < pol->npins; k++) {
			if (strcmp(pol->pins[k].board_id, BOARD(d)->value) != 0)
				continue;
			matched++;
			if (!rd_attr_ok(FW(d))) {
				struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, d->name, "cannot read the firmware of %s", d->name);
				rd_evidence_attr(f, FW(d));
			} else if (strcmp(FW(d)->value, pol->pins[k].fw_ver) != 0) {
				struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, d->name,
								      "%s runs firmware %s, the policy pins %s for %s", d->name,
								      FW(d)->value, pol->pins[k].fw_ver, BOARD(d)->value);
				rd_evidence_attr(f, FW(d));
				rd_evidence_attr(f, BOARD(d));
				const char *dev = d->pci_addr ? d->pci_addr : d->name;
				rd_fix_add(f, "flint -d %s -i <firmware %s for %s>.bin burn", dev, pol->pins[k].fw_ver,
					   BOARD(d)->value);
				rd_fix_add(f, "mlxfwreset -d %s -l 3 reset    # or reboot", dev);
			}
		}
	}
	if (rd_check_quiet(ctx))
		rd_finding_add(ctx, matched ? RD_OK : RD_SKIP, "host",
			       matched ? "every pinned HCA runs its pinned firmware" : "no HCA matches a pinned board_id");
}
