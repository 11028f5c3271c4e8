/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* firmware.uniform: HCAs of one model (board_id) should all run one firmware version, and each runs
 * the image on its flash: flint's "FW Version(Running)" other than its "FW Version" is a burned
 * image that waits for a firmware reset or a reboot (WARN). */
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/mft.h"

/* sysfs fw_ver and board_id, or flint's FW Version and PSID where sysfs has none */
#define FW(d) rd_mft_fw_ver(&ctx->sys->mft, (d))
#define BOARD(d) rd_mft_board_id(&ctx->sys->mft, (d))

static bool has_ethernet_port(const struct rd_device *d)
{
	for (size_t k = 0; k < d->nports; k++)
		if (!d->ports[k].is_ib)
			return true;
	return false;
}

/* A new image burned and not yet running: flint prints "FW Version(Running)" only then. */
static void pending_image(struct rd_check_ctx *ctx, const struct rd_device *d)
{
	const struct rd_mft_dev *md = rd_mft_dev(&ctx->sys->mft, d->name);
	if (!md || !rd_tool_ok(&md->flint_out) || !md->flint.fw_version)
		return;
	/* flint prints FW Version(Running) only when it differs (mstflint's query) */
	const char *running = md->flint.fw_running;
	if (!running || strcmp(running, md->flint.fw_version) == 0)
		return;
	const char *dev = d->pci_addr ? d->pci_addr : d->name;
	struct rd_finding *f = rd_finding_add(ctx, RD_WARN, d->name,
					      "%s runs firmware %s while %s is burned on its flash: a new image waits for "
					      "a reset (until then the HCA runs the old one)",
					      d->name, running, md->flint.fw_version);
	rd_evidence_add(f, md->flint_out.cmd, "FW Version: %s, FW Version(Running): %s", md->flint.fw_version, running);
	if (rd_attr_ok(&d->fw_ver))
		rd_evidence_attr(f, &d->fw_ver);
	rd_fix_add(f, "mlxfwreset -d %s -l 3 reset    # loads the burned image (stop the jobs on this node first); "
		      "or reboot", dev);
	rd_fix_add(f, "flint -d %s query    # then: FW Version(Running) is gone and fw_ver is %s", dev,
		   md->flint.fw_version);
}

void rd_check_firmware_uniform(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	size_t n = h->ndevices, groups = 0;
	for (size_t i = 0; i < n; i++)
		pending_image(ctx, &h->devices[i]);
	bool *done = rd_xcalloc(n ? n : 1, sizeof *done);
	for (size_t i = 0; i < n; i++) {
		const struct rd_device *d = &h->devices[i];
		if (done[i] || !rd_attr_ok(BOARD(d)) || !rd_attr_ok(FW(d)) || !*FW(d)->value)
			continue;
		groups++;
		/* the most common version in the group is the reference */
		const char *common = NULL;
		size_t common_n = 0, members = 0;
		for (size_t j = i; j < n; j++) {
			const struct rd_device *o = &h->devices[j];
			if (!rd_attr_ok(BOARD(o)) || strcmp(BOARD(o)->value, BOARD(d)->value) || !rd_attr_ok(FW(o)))
				continue;
			members++;
			size_t c = 0;
			for (size_t k = i; k < n; k++) {
				const struct rd_device *q = &h->devices[k];
				c += rd_attr_ok(BOARD(q)) && !strcmp(BOARD(q)->value, BOARD(d)->value) &&
				     rd_attr_ok(FW(q)) && !strcmp(FW(q)->value, FW(o)->value);
			}
			if (c > common_n) {
				common_n = c;
				common = FW(o)->value;
			}
		}
		for (size_t j = i; j < n; j++) {
			const struct rd_device *o = &h->devices[j];
			if (!rd_attr_ok(BOARD(o)) || strcmp(BOARD(o)->value, BOARD(d)->value) || !rd_attr_ok(FW(o)))
				continue;
			done[j] = true;
			if (strcmp(FW(o)->value, common) == 0)
				continue;
			/* PFC is RoCE's (Ethernet); on InfiniBand the firmware drives credits, adaptive routing
			 * and congestion control instead */
			struct rd_finding *f = rd_finding_add(
				ctx, RD_WARN, o->name,
				"%s runs firmware %s while %zu other %s (%s) %s %s: mixed firmware causes subtle %s "
				"and NCCL hangs only when this HCA is in the ring",
				o->name, FW(o)->value, common_n, o->model ? o->model : "HCA", BOARD(o)->value,
				common_n == 1 ? "runs" : "run", common,
				has_ethernet_port(o) ? "PFC mis-handling"
						     : "differences in congestion control and adaptive routing");
			rd_evidence_attr(f, FW(o));
			rd_evidence_attr(f, BOARD(o));
			rd_fix_add(f, "mst start; flint -d %s query    # confirm the running image",
				   o->pci_addr ? o->pci_addr : o->name);
			rd_fix_add(f, "flint -d %s -i <firmware %s for %s>.bin burn", o->pci_addr ? o->pci_addr : o->name,
				   common, BOARD(o)->value);
			rd_fix_add(f, "mlxfwreset -d %s -l 3 reset    # or reboot; test on one node first, then the fleet",
				   o->pci_addr ? o->pci_addr : o->name);
		}
		(void)members;
	}
	free(done);
	if (rd_check_quiet(ctx))
		rd_finding_add(ctx, groups ? RD_OK : RD_SKIP, "host",
			       groups ? "every HCA model runs one firmware version" : "no HCA with a board_id and fw_ver");
}
