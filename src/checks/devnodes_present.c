/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* devnodes.present: /dev/infiniband has uverbsN per device, umadN and issmN per InfiniBand or RoCE
 * port (ib_umad makes both for every port with a MAD interface: a real Soft-RoCE rxe0 has issm0
 * too), and rdma_cm — the nodes user space opens. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"

static bool has_node(const struct rd_host *h, const char *name)
{
	return rd_strv_contains(&h->devnodes, name);
}

static bool class_has(const struct rd_class_dev *c, size_t n, const char *dev, long port)
{
	for (size_t i = 0; i < n; i++)
		if (rd_attr_ok(&c[i].ibdev) && strcmp(c[i].ibdev.value, dev) == 0 && (port < 0 || c[i].port_v == port))
			return true;
	return false;
}

/* Device node i is a uverbs node (want_uverbs) or rdma_cm, of known mode, that users other than
 * its owner (and group) cannot open read-write. */
static bool closed_to_others(const struct rd_host *h, size_t i, bool want_uverbs)
{
	const char *n = h->devnodes.v[i];
	unsigned mode = h->devnode_perms[i].mode;
	bool kind = want_uverbs ? strncmp(n, "uverbs", 6) == 0 : strcmp(n, "rdma_cm") == 0;
	return mode != RD_MODE_UNKNOWN && kind && (mode & 0006) != 0006;
}

void rd_check_devnodes_present(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	if (!h->ndevices) {
		rd_finding_add(ctx, RD_SKIP, "/dev/infiniband", "no RDMA device, so no device nodes are expected");
		return;
	}
	if (h->devnodes_err && !ctx->sys->dev_present) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "/dev/infiniband",
						      "this root has no /dev at all (a partial capture): cannot check the device nodes");
		rd_evidence_add(f, "/dev", "<%s>", rd_strerror(ENOENT));
		return;
	}
	if (h->devnodes_err) {
		struct rd_finding *f = rd_finding_add(
			ctx, h->devnodes_err == ENOENT ? RD_FAIL : RD_UNKNOWN, "/dev/infiniband",
			h->devnodes_err == ENOENT
				? "/dev/infiniband does not exist (\"ls: cannot access '/dev/infiniband/'\"): ib_uverbs did "
				  "not load, so no job can open an RDMA device"
				: "cannot list /dev/infiniband");
		rd_evidence_add(f, "/dev/infiniband", "<%s>", rd_strerror(h->devnodes_err));
		rd_fix_add(f, "modprobe -a ib_uverbs ib_umad rdma_ucm");
		rd_fix_add(f, "lsmod | grep -E '^(mlx5_core|ib_uverbs|ib_umad)'; dmesg | grep -iE 'mlx5|ib_core' | tail -20");
		return;
	}
	bool uverbs_loaded = rd_module_loaded(h, "ib_uverbs"), umad_loaded = rd_module_loaded(h, "ib_umad");
	bool modules_known = h->proc_modules.err == 0 || h->proc_modules.err == RD_EPARSE;
	size_t problems = 0;
	/* a class entry whose ibdev cannot be read: which device it serves is unknown */
	const struct {
		const struct rd_class_dev *c;
		size_t n;
		const char *cls;
	} classes[] = {{h->uverbs, h->nuverbs, "infiniband_verbs"}, {h->umad, h->numad, "infiniband_mad"},
		       {h->issm, h->nissm, "infiniband_mad"}};
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < classes[k].n; i++)
			if (!rd_attr_ok(&classes[k].c[i].ibdev)) {
				struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, classes[k].c[i].name,
								      "cannot tell which device %s serves", classes[k].c[i].name);
				rd_evidence_attr(f, &classes[k].c[i].ibdev);
				return;
			}
	/* what the kernel should have created: uverbs per device (not switches), umad per IB or RoCE
	 * port (not iWARP), and issm beside it only where the port has an SMI: ib_umad_init_port
	 * (drivers/infiniband/core/user_mad.c) adds issm under rdma_cap_ib_smi() since "RDMA/core:
	 * Create "issm*" device nodes only when SMI is supported" (linux-rdma, 2024-06-16, Linux 6.11),
	 * so a RoCE port or an SMI-less IB port (a GB300's planes) has umad alone by design, and NCCL
	 * never opens issm.  umad and issm are made together or not at all, so umad without issm is that
	 * design, never a fault: it is evidence, not a finding.  A port without umad is one finding. */
	struct rd_buf no_uverbs = {0}, no_umad = {0}, no_issm = {0};
	bool umad_issm_split = false; /* a port without umad but with issm */
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		if (d->node_type_v != 2 && !class_has(h->uverbs, h->nuverbs, d->name, -1))
			rd_buf_printf(&no_uverbs, "%s%s", no_uverbs.len ? " " : "", d->name);
		if (d->node_type_v == 4 || d->node_type_v == 5 || d->node_type_v == 6)
			continue; /* iWARP and usNIC have no MAD interface */
		for (size_t p = 0; p < d->nports; p++) {
			const struct rd_port *port = &d->ports[p];
			if (!class_has(h->umad, h->numad, d->name, port->num)) {
				rd_buf_printf(&no_umad, "%s%s/%u", no_umad.len ? " " : "", d->name, port->num);
				if (class_has(h->issm, h->nissm, d->name, port->num))
					umad_issm_split = true;
			} else if (!class_has(h->issm, h->nissm, d->name, port->num)) {
				rd_buf_printf(&no_issm, "%s%s/%u", no_issm.len ? " " : "", d->name, port->num);
			}
		}
	}
	if (no_uverbs.len) {
		struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, "uverbs",
						      "no uverbs device for %s: jobs fail with \"could not open RDMA device\"%s",
						      no_uverbs.data, uverbs_loaded || !modules_known ? "" : " (ib_uverbs is not loaded)");
		rd_evidence_add(f, "/sys/class/infiniband_verbs", "%zu uverbs entr%s", h->nuverbs, h->nuverbs == 1 ? "y" : "ies");
		if (!uverbs_loaded) {
			rd_fix_add(f, "modprobe ib_uverbs");
		} else {
			/* ib_uverbs makes a uverbs device for each RDMA device registered while it is
			 * loaded; it cannot be unloaded while the drivers that use it (its holders:
			 * mlx5_ib, mlx4_ib...) are, so they go first and come back after */
			const struct rd_module *um = rd_host_module(h, "ib_uverbs");
			struct rd_buf holders = {0};
			for (size_t i = 0; um && i < um->holders.n; i++)
				rd_buf_printf(&holders, " %s", um->holders.v[i]);
			if (holders.len)
				rd_fix_add(f, "modprobe -r%s ib_uverbs && modprobe -a ib_uverbs%s    # its holders first; the "
					      "RDMA devices go away meanwhile: drain the node first",
					   holders.data, holders.data);
			else
				rd_fix_add(f, "modprobe -r ib_uverbs && modprobe ib_uverbs");
			rd_buf_free(&holders);
		}
		problems++;
	}
	if (no_umad.len) {
		struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, "umad",
						      "no %s device for %s: MAD tools (ibnetdiscover, perfquery, sminfo, "
						      "opensm) fail with \"can't open UMAD port\"%s",
						      umad_issm_split ? "umad" : "umad or issm", no_umad.data,
						      umad_loaded || !modules_known ? "" : " (ib_umad is not loaded)");
		rd_evidence_add(f, "/sys/class/infiniband_mad", "%zu umad, %zu issm entries", h->numad, h->nissm);
		rd_fix_add(f, "modprobe ib_umad");
		problems++;
	}
	rd_buf_free(&no_uverbs);
	rd_buf_free(&no_umad);
	/* every class entry needs its node */
	const struct {
		const struct rd_class_dev *c;
		size_t n;
		const char *module;
	} kinds[] = {{h->uverbs, h->nuverbs, "ib_uverbs"}, {h->umad, h->numad, "ib_umad"}, {h->issm, h->nissm, "ib_umad"}};
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < kinds[k].n; i++) {
			const char *name = kinds[k].c[i].name;
			if (has_node(h, name))
				continue;
			struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, name,
							      "/dev/infiniband/%s is missing although the kernel created it "
							      "(udev did not make the node)",
							      name);
			char *p = rd_xasprintf("/dev/infiniband/%s", name);
			rd_evidence_add(f, p, "<absent>");
			free(p);
			rd_fix_add(f, "udevadm trigger --action=add --subsystem-match=%s && udevadm settle",
				   k == 0 ? "infiniband_verbs" : "infiniband_mad");
			problems++;
		}
	if (!has_node(h, "rdma_cm")) {
		bool loaded = rd_module_loaded(h, "rdma_ucm");
		struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, "rdma_cm",
						      "/dev/infiniband/rdma_cm is missing: NCCL cannot use IB%s",
						      loaded ? " (rdma_ucm is loaded: udev did not make the node)"
							     : " (rdma_ucm is not loaded)");
		rd_evidence_add(f, "/dev/infiniband/rdma_cm", "<absent>");
		rd_fix_add(f, loaded ? "udevadm trigger --action=add --subsystem-match=misc && udevadm settle"
				     : "modprobe rdma_ucm");
		problems++;
	}
	/* every job opens uverbsN and rdma_cm: the kernel makes them 0666 (uverbs0 crw-rw-rw- on a real
	 * 6.1 kernel, tests/vm/fixtures); a tighter mode from a udev rule or a container runtime keeps
	 * other users' jobs out.  umadN and issmN are 0600 by design (MAD access is for root).  One
	 * finding for the uverbs nodes (one udev rule fixes them all), one for rdma_cm. */
	for (int want_uverbs = 1; want_uverbs >= 0 && h->devnode_perms; want_uverbs--) {
		struct rd_buf names = {0}, paths = {0};
		size_t count = 0;
		bool group_too = true;
		unsigned first_mode = RD_MODE_UNKNOWN;
		bool same_mode = true;
		for (size_t i = 0; i < h->devnodes.n; i++) {
			const char *n = h->devnodes.v[i];
			unsigned mode = h->devnode_perms[i].mode;
			if (!closed_to_others(h, i, want_uverbs))
				continue;
			rd_buf_printf(&names, "%s%s", count ? ", " : "", n);
			rd_buf_printf(&paths, " /dev/infiniband/%s", n);
			group_too &= (mode & 0060) == 0060;
			if (!count)
				first_mode = mode;
			same_mode &= mode == first_mode;
			count++;
		}
		if (!count)
			continue;
		struct rd_finding *f;
		if (same_mode)
			f = rd_finding_add(ctx, RD_WARN, want_uverbs ? "uverbs" : "rdma_cm",
					   "/dev/infiniband/%s %s mode %04o: jobs of users other than %s owner%s cannot open %s "
					   "(\"could not open RDMA device\", Permission denied)",
					   names.data, count == 1 ? "is" : "are", first_mode, count == 1 ? "its" : "their",
					   group_too ? " and group" : "", count == 1 ? "it" : "them");
		else
			f = rd_finding_add(ctx, RD_WARN, "uverbs",
					   "/dev/infiniband/%s are not mode 0666: jobs of users other than their owner cannot "
					   "open them (\"could not open RDMA device\", Permission denied)",
					   names.data);
		for (size_t i = 0; i < h->devnodes.n; i++) {
			const char *n = h->devnodes.v[i];
			unsigned mode = h->devnode_perms[i].mode;
			if (!closed_to_others(h, i, want_uverbs))
				continue;
			char *p = rd_xasprintf("/dev/infiniband/%s", n);
			rd_evidence_add(f, p, "mode %04o", mode);
			free(p);
		}
		rd_fix_add(f, "chmod 0666%s    # now; the udev rule keeps it at the next boot", paths.data);
		rd_fix_add(f, "echo 'KERNEL==\"%s\", MODE=\"0666\"' > /etc/udev/rules.d/90-rdma-%s-mode.rules",
			   want_uverbs ? "uverbs*" : "rdma_cm", want_uverbs ? "uverbs" : "rdma_cm");
		rd_fix_add(f, "udevadm control --reload && udevadm trigger --subsystem-match=%s",
			   want_uverbs ? "infiniband_verbs" : "misc");
		rd_buf_free(&names);
		rd_buf_free(&paths);
		problems++;
	}
	if (!problems) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "/dev/infiniband",
						      "%zu uverbs, %zu umad, %zu issm nodes and rdma_cm present", h->nuverbs,
						      h->numad, h->nissm);
		rd_evidence_add(f, "/dev/infiniband", "%zu entr%s", h->devnodes.n, h->devnodes.n == 1 ? "y" : "ies");
		if (no_issm.len)
			rd_evidence_add(f, "/sys/class/infiniband_mad",
					"umad but no issm for %s: ports without an SMI (RoCE, or IB without one), for which "
					"ib_umad makes no issm",
					no_issm.data);
	}
	rd_buf_free(&no_issm);
}
