/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* pcie.mrrs: each HCA physical function's PCIe Max Read Request Size (Device Control bits 14:12,
 * model/pcidevctl.h), the largest read the HCA asks of host memory in one request: the DMA reads
 * of every RDMA send and write.  NVIDIA's tuning guides and its NIC configuration operator set
 * 4096 bytes with setpci; the register is reset by a reboot (to what the BIOS and kernel set,
 * often 512) and nothing sets it again unless a udev rule or a unit does.
 *   * [pcie] max_read_request = N: a function below N is a WARN, with the setpci line for now
 *     and the udev rule that sets it at every boot;
 *   * without it: a function below the others of the same model on this host is a WARN (a value
 *     set by hand and lost on one function, at a reset or a hot-plug);
 *   * an OK that met the policy says whether a udev rule sets it at boot.
 * VFs are skipped (their Device Control sizes are their PF's), and so are RoCE LAG devices
 * (mlx5_bond_N: their PF is the first port's own device). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/link.h"

struct fn {
	const struct rd_device *d;
	const struct rd_link_dev *ld;
};

static void evidence(struct rd_finding *f, const struct rd_link_dev *ld)
{
	const struct rd_devctl *c = &ld->devctl;
	if (c->from && strcmp(c->from, "lspci -vvv") == 0)
		rd_evidence_add(f, "rdma-doctor/commands/lspci-vvv", "DevCtl: MaxPayload %u bytes, MaxReadReq %u bytes", c->mps,
				c->mrrs);
	else
		rd_evidence_add(f, ld->devctl_path, "Device Control 0x%04x (PCI Express capability at 0x%x): MaxPayload %u "
				"bytes, MaxReadReq %u bytes", c->ctl, c->pos, c->mps, c->mrrs);
}

/* The first setpci line of the boot rules that writes a Device Control register: CAP_EXP+8, or
 * the absolute offset of ld's. */
static const char *boot_rule(const struct rd_link *lk, const struct rd_link_dev *ld)
{
	char abs[16];
	snprintf(abs, sizeof abs, " %x.w", ld->devctl.pos + 8);
	for (size_t i = 0; i < lk->setpci_rules.n; i++) {
		const char *l = lk->setpci_rules.v[i];
		if (strstr(l, "CAP_EXP+8.") || strstr(l, "CAP_EXP+0x8.") || strstr(l, "CAP_EXP+08.") ||
		    (ld->devctl.pos && strcasestr(l, abs)))
			return l;
	}
	return NULL;
}

static void fix(struct rd_finding *f, const struct rd_link *lk, const char *addr, unsigned want)
{
	int code = rd_devctl_code(want);
	rd_fix_add(f, "setpci -s %s CAP_EXP+8.w=%04x:7000   # as root: MaxReadReq %u bytes until the next boot or reset",
		   addr, (unsigned)code << 12, want);
	rd_fix_add(f, "echo 'ACTION==\"add\", SUBSYSTEM==\"pci\", KERNEL==\"%s\", RUN+=\"%s -s $kernel CAP_EXP+8.w=%04x:7000\"' "
		      ">> /etc/udev/rules.d/90-pcie-max-read-request.rules   # at every boot%s",
		   addr, lk->setpci ? lk->setpci : "/usr/bin/setpci", (unsigned)code << 12,
		   lk->setpci ? "" : " (setpci is not installed: pciutils)");
}

void rd_check_pcie_mrrs(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	const struct rd_link *lk = &ctx->sys->link;
	rd_need(lk->unloaded, RD_LOAD_PCICFG, "the HCA functions' config space");
	unsigned want = ctx->policy->pcie_max_read_request;
	struct fn *v = rd_xcalloc(h->ndevices + 1, sizeof *v);
	size_t n = 0, vfs = 0, absent = 0;
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		const struct rd_link_dev *ld = rd_link_dev(lk, d->name);
		if (!ld || !d->pci_addr || ld->bond)
			continue; /* soft devices (rxe, siw) have no PCIe function */
		if (ld->vf) {
			vfs++;
			continue;
		}
		const struct rd_devctl *c = &ld->devctl;
		if (c->state == RD_DEVCTL_ABSENT || c->state == RD_DEVCTL_UNREAD) {
			absent++;
		} else if (c->state == RD_DEVCTL_UNKNOWN) {
			struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, d->name,
							      "%s (%s): cannot read its PCIe Max Read Request: %s", d->name,
							      d->pci_addr, c->why);
			rd_evidence_add(f, c->from && strcmp(c->from, "lspci -vvv") == 0 ? "rdma-doctor/commands/lspci-vvv"
											  : ld->devctl_path,
					"<%s>", c->why);
		} else {
			v[n++] = (struct fn){d, ld};
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct rd_devctl *c = &v[i].ld->devctl;
		const char *name = v[i].d->name, *addr = v[i].d->pci_addr;
		if (want && c->mrrs < want) {
			struct rd_finding *f = rd_finding_add(
				ctx, RD_WARN, name,
				"%s (%s): PCIe Max Read Request is %u bytes, below the policy's %u ([pcie] max_read_request): "
				"a %u-byte DMA read of host memory takes %u requests where one would do",
				name, addr, c->mrrs, want, want, want / c->mrrs);
			evidence(f, v[i].ld);
			fix(f, lk, addr, want);
			continue;
		}
		if (want)
			continue;
		/* no policy: the other functions of the same model on this host */
		unsigned top = 0, same = 0;
		for (size_t k = 0; k < n; k++)
			if (k != i && v[k].d->device_id == v[i].d->device_id) {
				same++;
				if (v[k].ld->devctl.mrrs > top)
					top = v[k].ld->devctl.mrrs;
			}
		if (same && c->mrrs < top) {
			struct rd_finding *f = rd_finding_add(
				ctx, RD_WARN, name,
				"%s (%s): PCIe Max Read Request is %u bytes where the other functions of its model on this "
				"host run %u: a value set by hand and lost here (a reset, a hot-plug, a reboot); [pcie] "
				"max_read_request sets what is wanted",
				name, addr, c->mrrs, top);
			evidence(f, v[i].ld);
			fix(f, lk, addr, top);
		}
	}
	if (rd_check_quiet(ctx)) {
		char extra[64] = "";
		if (vfs)
			snprintf(extra, sizeof extra, " (%zu SR-IOV VF%s skipped)", vfs, vfs == 1 ? "" : "s");
		if (n) {
			/* the sizes, each with its functions: "4096 bytes: mlx5_0, mlx5_1" */
			struct rd_buf b = {0};
			for (size_t i = 0; i < n; i++) {
				bool first = true;
				for (size_t k = 0; k < i; k++)
					first &= v[k].ld->devctl.mrrs != v[i].ld->devctl.mrrs;
				if (!first)
					continue;
				rd_buf_printf(&b, "%s%u bytes on ", b.len ? "; " : "", v[i].ld->devctl.mrrs);
				for (size_t k = i, m = 0; k < n; k++)
					if (v[k].ld->devctl.mrrs == v[i].ld->devctl.mrrs)
						rd_buf_printf(&b, "%s%s", m++ ? ", " : "", v[k].d->name);
			}
			const char *rule = NULL;
			for (size_t i = 0; want && i < n && !rule; i++)
				rule = boot_rule(lk, v[i].ld);
			struct rd_buf m = {0};
			rd_buf_printf(&m, "%zu HCA function%s: PCIe Max Read Request %s", n, n == 1 ? "" : "s", b.data);
			if (want)
				rd_buf_printf(&m, " (the policy asks at least %u)", want);
			rd_buf_printf(&m, "%s", extra);
			if (want)
				rd_buf_printf(&m, "; %s", rule ? "a udev rule sets it at boot"
							      : "nothing in /etc/udev/rules.d sets it at boot: set by hand, the next "
								"reboot undoes it");
			struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host", "%s", m.data);
			rd_buf_free(&m);
			if (rule)
				rd_evidence_add(f, "/etc/udev/rules.d", "%s", rule);
			for (size_t i = 0; i < n; i++)
				evidence(f, v[i].ld);
			rd_buf_free(&b);
		} else if (absent) {
			rd_finding_add(ctx, RD_SKIP, "host", "the HCA functions' config space is not in this root%s", extra);
		} else {
			rd_finding_add(ctx, RD_SKIP, "host", "no PCIe RDMA function%s", extra);
		}
	}
	free(v);
}
