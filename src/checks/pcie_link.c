/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* pcie.link: each HCA physical function's PCIe link, and each link on its path to the root port,
 * trained below what both of its ends can do (current_link_speed/width against the smaller of the
 * two ends' max_link_speed/width), as scitix/sichek does.  VFs are skipped (their links are their
 * PF's).  The kernel's own mlx5 "... limited by ... at <bdf>" line is evidence when present.
 * Degraded: WARN; below the policy's [pcie] min_width / min_speed: FAIL.  A function held below its
 * own capability by a link that runs at what its ends can do (an x8 slot or switch port, a Gen4 root
 * port) is not degraded: the OK says which link holds it (the kernel's "limited by" line is
 * kernel.log's).
 *
 * The path from the function up is [function, its port, (switch upstream port, switch downstream
 * port)..., root port]: a link is a child (the function, or a switch's upstream port) below a
 * downstream or root port, i.e. the pairs (0,1), (2,3), ...; the hops inside a switch are not
 * links.  A path of an odd length is not that shape: only the function's own link is judged.
 * A port that reports no link capability (max_link_speed "Unknown", max_link_width 0, as QEMU's
 * emulated switch downstream ports do) does not make the child's capability "both ends'": a link
 * below the child's own capability there is UNKNOWN, saying which port does not tell. */
#include <stdio.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/link.h"

static void hop_evidence(struct rd_finding *f, const struct rd_pcie_hop *h)
{
	rd_evidence_attr(f, &h->cur_speed);
	rd_evidence_attr(f, &h->cur_width);
	rd_evidence_attr(f, &h->max_speed);
	rd_evidence_attr(f, &h->max_width);
}

static void kernel_lines(struct rd_check_ctx *ctx, struct rd_finding *f, const char *addr)
{
	const struct rd_text *log = &ctx->sys->dmesg;
	if (log->err || !log->data)
		return;
	for (const char *line = log->data; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[512];
		snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
		if (strstr(buf, "limited by") && strstr(buf, "PCIe bandwidth") && rd_text_names_pci(buf, addr, ""))
			rd_evidence_add(f, "dmesg", "%s", buf);
		line = nl ? nl + 1 : NULL;
	}
}

/* The function ld (not degraded) runs below what it can do itself: the path's slowest link (the
 * first from the function) is as fast as that link's two ends allow, and slower or narrower than
 * the function; "mlx5_0 (0000:1b:00.0) at 32 GT/s x8 of 32 GT/s x16, by the link A to B" to out. */
static void held_back(struct rd_buf *out, const struct rd_link_dev *ld, size_t links)
{
	const struct rd_pcie_hop *fn = &ld->path[0], *by = NULL, *by_up = NULL;
	double speed = 0;
	unsigned width = 0;
	for (size_t k = 0; k < links; k++) {
		const struct rd_pcie_hop *c = &ld->path[2 * k];
		if (!c->cur_gts || !c->cur_w)
			continue;
		if (!by || c->cur_gts * c->cur_w < speed * width) {
			by = c;
			by_up = 2 * k + 1 < ld->npath ? &ld->path[2 * k + 1] : NULL;
			speed = c->cur_gts;
			width = c->cur_w;
		}
	}
	if (!by || !((fn->max_gts > 0 && speed + 1e-9 < fn->max_gts) || (fn->max_w && width < fn->max_w)))
		return;
	rd_buf_printf(out, "%s%s (%s) at %g GT/s x%u of its %g GT/s x%u, limited by the link %s to %s", out->len ? "; " : "", ld->name,
		      fn->addr, speed, width, fn->max_gts ? fn->max_gts : speed, fn->max_w ? fn->max_w : width, by->addr,
		      by_up ? by_up->addr : "the root complex");
}

void rd_check_pcie_link(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	const struct rd_link *lk = &ctx->sys->link;
	const struct rd_policy *pol = ctx->policy;
	size_t checked = 0, vfs = 0, blind = 0;
	struct rd_buf held = {0}; /* functions whose path is slower or narrower than they are */
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		const struct rd_link_dev *ld = rd_link_dev(lk, d->name);
		if (!ld || !d->pci_addr)
			continue; /* soft devices (rxe, siw) have no PCIe link */
		if (ld->vf) {
			vfs++;
			continue;
		}
		if (ld->path_err || !ld->npath) {
			struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, d->name, "%s: cannot find PCI function %s: %s",
							      d->name, d->pci_addr, rd_strerror(ld->path_err));
			rd_evidence_add(f, "/sys/bus/pci/devices", "<%s>", rd_strerror(ld->path_err));
			continue;
		}
		const struct rd_pcie_hop *fn = &ld->path[0];
		if (!fn->cur_gts && !fn->cur_w && !fn->max_gts && !fn->max_w) {
			blind++;
			continue;
		}
		checked++;
		size_t links = ld->npath == 1 ? 1 : ld->npath % 2 == 0 ? ld->npath / 2 : 1;
		for (size_t k = 0; k < links; k++) {
			const struct rd_pcie_hop *c = &ld->path[2 * k], *up = 2 * k + 1 < ld->npath ? &ld->path[2 * k + 1] : NULL;
			if (!c->cur_gts || !c->cur_w)
				continue;
			/* what both ends can do; a port that reports no capability of its own (sysfs
			 * "Unknown" speed, width 0: QEMU's xio3130 downstream ports) leaves it untold in
			 * that dimension, never the child's alone */
			double cap_s = c->max_gts;
			unsigned cap_w = c->max_w;
			if (up && up->max_gts > 0 && (!cap_s || up->max_gts < cap_s))
				cap_s = up->max_gts;
			if (up && up->max_w > 0 && (!cap_w || up->max_w < cap_w))
				cap_w = up->max_w;
			bool blind_s = up && !(up->max_gts > 0), blind_w = up && !up->max_w;
			if (blind_s)
				cap_s = 0;
			if (blind_w)
				cap_w = 0;
			bool pin = (pol->pcie_min_width && c->cur_w < pol->pcie_min_width) ||
				   (pol->pcie_min_speed > 0 && c->cur_gts + 1e-9 < pol->pcie_min_speed);
			bool slow = (cap_s > 0 && c->cur_gts + 1e-9 < cap_s) || (cap_w && c->cur_w < cap_w);
			/* below the child's own capability where the port's cannot be read */
			bool untold = (blind_s && c->max_gts > 0 && c->cur_gts + 1e-9 < c->max_gts) ||
				      (blind_w && c->max_w && c->cur_w < c->max_w);
			char where[128];
			if (k == 0)
				snprintf(where, sizeof where, "its own link (%s to %s)", c->addr, up ? up->addr : "the root complex");
			else
				snprintf(where, sizeof where, "the link %s to %s on its path to the root port", c->addr, up->addr);
			if (!pin && !slow && untold) {
				struct rd_finding *f = rd_finding_add(
					ctx, RD_UNKNOWN, d->name,
					"%s (%s): %s runs at %g GT/s x%u, below the %g GT/s x%u of %s, and the port %s "
					"reports no link %s of its own (max_link_speed %s, max_link_width %s): whether the "
					"link trained below what both ends can do cannot be told",
					d->name, d->pci_addr, where, c->cur_gts, c->cur_w, c->max_gts, c->max_w, c->addr, up->addr,
					blind_s && blind_w ? "speed or width" : blind_s ? "speed" : "width",
					rd_attr_ok(&up->max_speed) ? up->max_speed.value : "unreadable",
					rd_attr_ok(&up->max_width) ? up->max_width.value : "unreadable");
				hop_evidence(f, c);
				rd_evidence_attr(f, &up->max_speed);
				rd_evidence_attr(f, &up->max_width);
				rd_fix_add(f, "lspci -s %s -vv | grep -E 'LnkCap|LnkSta'   # the port's LnkCap", up->addr);
				continue;
			}
			if (!pin && !slow)
				continue;
			char need[96] = "";
			if (pin) {
				int n = snprintf(need, sizeof need, ", below the policy's minimum");
				if (pol->pcie_min_speed > 0)
					n += snprintf(need + n, sizeof need - (size_t)n, " %g GT/s", pol->pcie_min_speed);
				if (pol->pcie_min_width)
					snprintf(need + n, sizeof need - (size_t)n, " x%u", pol->pcie_min_width);
			}
			char can[96];
			if (cap_s > 0 && cap_w)
				snprintf(can, sizeof can, "%g GT/s x%u", cap_s, cap_w);
			else if (cap_s > 0)
				snprintf(can, sizeof can, "%g GT/s (the width cannot be told)", cap_s);
			else if (cap_w)
				snprintf(can, sizeof can, "x%u (the speed cannot be told)", cap_w);
			else
				snprintf(can, sizeof can, "what cannot be told");
			struct rd_finding *f = rd_finding_add(ctx, pin ? RD_FAIL : RD_WARN, d->name,
							      "%s (%s): %s runs at %g GT/s x%u while both ends can do %s%s",
							      d->name, d->pci_addr, where, c->cur_gts, c->cur_w, can, need);
			hop_evidence(f, c);
			if (up) {
				rd_evidence_attr(f, &up->max_speed);
				rd_evidence_attr(f, &up->max_width);
			}
			kernel_lines(ctx, f, d->pci_addr);
			rd_fix_add(f, "lspci -s %s -vv | grep -E 'LnkCap|LnkSta'", c->addr);
			if (k == 0)
				rd_fix_add(f, "reseat the card in a full-width slot; check the BIOS slot settings (forced generation, "
					      "bifurcation) and the riser");
			else if (k + 1 == links) /* a switch's uplink to the root port: the board's, not the card's slot */
				rd_fix_add(f, "not the card's slot: reseat the cables or riser between the switch port %s and the "
					      "root port %s, check the BIOS PCIe settings of %s (forced generation, bifurcation); a link "
					      "still narrow or slow after a power cycle is a board or switch fault",
					   c->addr, up->addr, up->addr);
			else /* between two switches */
				rd_fix_add(f, "not the card's slot: the link between two PCIe switches (%s to %s) is on the board or "
					      "its cables; reseat them and power-cycle; a link still narrow or slow after that is a board "
					      "or switch fault", c->addr, up->addr);
		}
		held_back(&held, ld, links);
	}
	if (!rd_check_quiet(ctx)) {
		rd_buf_free(&held);
		return;
	}
	char extra[64] = "";
	if (vfs)
		snprintf(extra, sizeof extra, " (%zu SR-IOV VF%s skipped)", vfs, vfs == 1 ? "" : "s");
	if (checked && held.len)
		rd_finding_add(ctx, RD_OK, "host",
			       "%zu HCA function%s: PCIe links as fast and wide as both ends of each can do, up to the root port%s; "
			       "below what the HCA can do, as a slot or switch port is slower or narrower (not a degraded link; "
			       "[pcie] min_speed / min_width to require more): %s",
			       checked, checked == 1 ? "" : "s", extra, held.data);
	else if (checked)
		rd_finding_add(ctx, RD_OK, "host", "%zu HCA function%s: PCIe links at full speed and width up to the root port%s",
			       checked, checked == 1 ? "" : "s", extra);
	else if (blind)
		rd_finding_add(ctx, RD_SKIP, "host", "no PCIe link attributes for the HCA functions in this root%s", extra);
	else
		rd_finding_add(ctx, RD_SKIP, "host", "no PCIe RDMA function%s", extra);
	rd_buf_free(&held);
}
