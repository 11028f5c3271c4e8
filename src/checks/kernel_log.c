/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* kernel.log: kernel messages that name a cause.  Each known message is one finding, with up to
 * three of its lines as evidence. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "checks/kmod_build.h"

/* Lines as the kernel prints them (drivers/net/ethernet/mellanox/mlx5/core: events.c, health.c,
 * cmd.c; kernel/module/main.c); gpud's components/accelerator/nvidia/infiniband/kmsg_matcher.go
 * matches the first three mlx5 ones the same way.  A fix with %s (devfix) is given once per PCI
 * function the lines name ("mlx5_core 0000:9a:00.0: ..."). */
static const struct {
	const char *pattern;  /* substring of a kernel log line */
	const char *also;     /* a second substring the line must contain, or NULL */
	const char *not;      /* a substring the line must not contain (another sign's), or NULL */
	const char *subject;  /* the finding's subject; NULL: the pattern */
	enum rd_status status;
	const char *meaning;
	const char *fix;      /* once, or NULL */
	const char *devfix;   /* per PCI function named, its address for %s, or NULL */
	bool kmod;            /* the fix is for the module the first line names (checks/kmod_build.h) */
} signs[] = {
	{"disagrees about version of symbol", NULL, NULL, NULL, RD_FAIL,
	 "a module was built against other symbols than the loaded ones (another ib_core or kernel): it did not load",
	 "modinfo -n MODULE; modinfo -F vermagic MODULE    # where the failing module comes from and what it was built "
	 "for; rebuild it for the loaded stack (dkms autoinstall) or load the stack it was built for", NULL, true},
	{"Unknown symbol", NULL, NULL, NULL, RD_FAIL,
	 "a module could not load because a symbol it needs is missing (built for another kernel or another ib_core)",
	 "dkms autoinstall, then reboot", NULL, true},
	{"invalid nv_mem_context", NULL, NULL, NULL, RD_WARN,
	 "nvidia-peermem saw an invalid context while freeing GPU memory registrations (older driver wording)",
	 "update the NVIDIA driver; check the GPU and nvidia_peermem versions match", NULL, false},
	{"invalid context", "nvidia-peermem", NULL, NULL, RD_WARN,
	 "nvidia-peermem saw an invalid context while freeing GPU memory registrations",
	 "update the NVIDIA driver; check the GPU and nvidia_peermem versions match", NULL, false},
	{"available PCIe bandwidth, limited by", "mlx5", NULL, NULL, RD_WARN,
	 "a ConnectX sits in a PCIe slot slower or narrower than it needs: RDMA bandwidth is capped",
	 NULL, "lspci -vv -s %s | grep -E 'LnkCap|LnkSta'; mlxlink -d %s --port_type PCIE    # move the card to a full-width "
	 "slot or fix the link", false},
	/* health.c poll_health(): "device's health compromised - reached miss count" */
	{"health compromised", "mlx5", NULL, NULL, RD_FAIL, "the ConnectX firmware stopped answering its health checks",
	 NULL, "mlxfwreset -d %s -l 3 reset    # or reboot; collect mlxdump/fwtrace first; replace the card if it recurs", false},
	{"Fatal error", "mlx5", NULL, NULL, RD_FAIL, "the ConnectX firmware reported a fatal error",
	 NULL, "mlxfwreset -d %s -l 3 reset    # or reboot; then check the firmware version", false},
	/* health.c print_health_info(): "Health issue observed, %s, severity(%d) %s:" (hsynd_str: "firmware
	 * internal error", "unrecoverable hardware error", "High temperature" ...); before 5.16 "synd 0x%x: %s" */
	{"Health issue observed", "mlx5", NULL, "health issue", RD_FAIL,
	 "the ConnectX firmware reported a health issue (its syndrome is on the line: firmware internal error, unrecoverable "
	 "hardware error ...)", NULL, "mlxfwreset -d %s -l 3 reset    # or reboot; collect mlxdump/fwtrace first; replace the "
	 "card if it recurs", false},
	{"synd 0x", "mlx5", "Health issue observed", "health syndrome", RD_FAIL,
	 "the ConnectX firmware reported a health syndrome (firmware internal error, unrecoverable hardware error ...)",
	 NULL, "mlxfwreset -d %s -l 3 reset    # or reboot; collect mlxdump/fwtrace first; replace the card if it recurs", false},
	/* cmd.c wait_func(): "%s(0x%x) timeout. Will cause a leak of a command resource" */
	{"Will cause a leak of a command resource", "mlx5", NULL, NULL, RD_FAIL, "firmware commands time out: the HCA is wedged",
	 NULL, "mlxfwreset -d %s -l 3 reset    # or reboot; then update the firmware", false},
	/* events.c mlx5_pcie_event(): "Detected insufficient power on the PCIe slot (%uW)." */
	{"Detected insufficient power on the PCIe slot", NULL, NULL, "PCIe slot power", RD_WARN,
	 "a ConnectX reports that its PCIe slot gives less power than the card needs: the firmware may limit it",
	 NULL, "lspci -vvv -s %s | grep -iE 'SltCap|PowerLimit'    # the slot power the server advertises: fix the BIOS slot "
	 "power setting or move the card to a slot that gives the power it needs", false},
	/* events.c port_module(): "Port module event[error]: module %u, %s, %s" (mlx5_pme_error_to_string) */
	{"Port module event[error]", "High Temperature", NULL, "module high temperature", RD_WARN,
	 "a cable module (transceiver) of a ConnectX is too hot: the firmware turns it off and its link goes down",
	 NULL, "mlxlink -d %s -m    # the module's temperature; improve the airflow, or use a passive DAC or a lower-power "
	 "module in this cage", false},
	{"Port module event[error]", NULL, "High Temperature", "module error", RD_WARN,
	 "a cable module of a ConnectX reported an error (its kind is on the line: power budget exceeded, bad or shorted "
	 "cable, unsupported cable ...): its link stays down",
	 NULL, "mlxlink -d %s -m    # the module and the cable; reseat or replace the module or the cable", false},
	/* cmd.c mlx5_cmd_out_err() (mlx5_cmd_check() before 6.0): "%s(0x%x) op_mod(0x%x) failed, status %s(0x%x), ..." */
	{"ACCESS_REG(0x805) op_mod", " failed", NULL, "ACCESS_REG failed", RD_WARN,
	 "the ConnectX firmware refuses register reads (ACCESS_REG): a monitoring tool reads the counters of a function "
	 "whose registers the firmware restricts (DGX/HGX systems), and each read logs a line",
	 NULL, "exclude %s from what reads its counters (gpud --infiniband-exclude-devices, node_exporter's infiniband "
	 "collector, rdma-doctor check --no-counters)", false},
	{"CREATE_MKEY(0x200) op_mod", " failed", NULL, "CREATE_MKEY failed", RD_WARN,
	 "a ConnectX refused to create a memory key: a memory registration failed in the firmware",
	 "the status on the line says why: \"limits exceeded\" is too much registered memory (fewer or larger-page "
	 "registrations); \"bad parameter\" is a driver bug: update the driver or firmware", NULL, false},
	{"failed to init crc32 algorithm", "rdma_rxe", NULL, NULL, RD_WARN, "Soft-RoCE could not start: crc32 is missing",
	 "modprobe crc32_generic; then rdma link add", NULL, false},
};

/* The first PCI address in a line ("mlx5_core 0000:9a:00.0: ..."), into out; false when none. */
static bool line_pci(const char *line, size_t len, char out[16])
{
	for (size_t i = 0; i < len; i++) {
		if (!isxdigit((unsigned char)line[i]) || (i && (isxdigit((unsigned char)line[i - 1]) || line[i - 1] == ':')))
			continue;
		size_t j = i;
		while (j < len && j - i < 15 && (isxdigit((unsigned char)line[j]) || line[j] == ':' || line[j] == '.'))
			j++;
		char w[16];
		memcpy(w, line + i, j - i);
		w[j - i] = '\0';
		/* a word may end in the ':' of "0000:9a:00.0:" */
		if (j - i > 0 && w[j - i - 1] == ':')
			w[j - i - 1] = '\0';
		if (rd_is_pci_addr(w)) {
			memcpy(out, w, strlen(w) + 1);
			return true;
		}
	}
	return false;
}

/* The devfix of a sign for a device: its name for %s where the fix is about what reads it. */
static void add_devfix(struct rd_finding *f, const struct rd_host *h, const char *fmt, const char *pci)
{
	const char *name = pci;
	if (strstr(fmt, "exclude %s"))
		for (size_t i = 0; i < h->ndevices; i++)
			if (h->devices[i].pci_addr && strcmp(h->devices[i].pci_addr, pci) == 0 &&
			    strspn(h->devices[i].name, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(h->devices[i].name))
				name = h->devices[i].name; /* a plain device name only: the root is hostile */
	/* two %s (pcie: lspci and mlxlink) take the same address */
	rd_fix_add(f, fmt, name, name);
}

void rd_check_kernel_log(struct rd_check_ctx *ctx)
{
	const struct rd_text *log = &ctx->sys->dmesg;
	if (log->err == EPERM || log->err == EACCES) {
		/* an unprivileged run: nothing was checked here, which is not a problem of the host */
		const struct rd_attr *dr = &ctx->sys->dmesg_restrict;
		bool restrict1 = rd_attr_ok(dr) && strcmp(dr->value, "1") == 0;
		struct rd_finding *f = rd_finding_add(ctx, RD_SKIP, "kernel log",
						      "the kernel log is not readable by %s%s: %s as root (or with CAP_SYSLOG) "
						      "to check it",
						      ctx->live ? "this user" : "the user who captured this root",
						      restrict1 || !rd_attr_ok(dr) ? " (kernel.dmesg_restrict=1)" : "",
						      ctx->live ? "run" : "capture it");
		rd_evidence_add(f, "dmesg", "<%s>", rd_strerror(log->err));
		if (rd_attr_ok(dr))
			rd_evidence_attr(f, dr);
		return;
	}
	if (log->err || !log->data || (log->status != 0 && log->len == 0)) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "kernel log",
						      log->err == RD_ENOTCAPTURED ? "the kernel log was not captured in this root"
										  : "cannot read the kernel log");
		rd_evidence_add(f, "dmesg", "<%s>", log->err ? rd_strerror(log->err) : "exit status non-zero, no output");
		if (ctx->live)
			rd_fix_add(f, "run as root, or sysctl kernel.dmesg_restrict=0");
		return;
	}
	/* one pass over the log: per sign, how many lines, the first three of them and the PCI
	 * functions they name */
	enum { NSIGNS = sizeof signs / sizeof signs[0], SAMPLES = 3, DEVS = 4 };
	size_t count[NSIGNS] = {0}, ndev[NSIGNS] = {0}, lines = 0;
	char dev[NSIGNS][DEVS][16];
	struct {
		const char *p;
		size_t n;
	} sample[NSIGNS][SAMPLES];
	struct rd_buf l = {0};
	for (const char *line = log->data; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		lines++;
		l.len = 0;
		rd_buf_add(&l, line, len); /* NUL-terminated copy for strstr */
		for (size_t k = 0; k < NSIGNS; k++)
			if (strstr(l.data, signs[k].pattern) && (!signs[k].also || strstr(l.data, signs[k].also)) &&
			    (!signs[k].not || !strstr(l.data, signs[k].not))) {
				if (count[k] < SAMPLES) {
					sample[k][count[k]].p = line;
					sample[k][count[k]].n = len;
				}
				count[k]++;
				char a[16];
				if (signs[k].devfix && ndev[k] < DEVS && line_pci(l.data, l.len, a)) {
					bool seen = false;
					for (size_t d = 0; d < ndev[k] && !seen; d++)
						seen = strcmp(dev[k][d], a) == 0;
					if (!seen)
						memcpy(dev[k][ndev[k]++], a, sizeof a);
				}
			}
		if (!nl)
			break;
		line = nl + 1;
	}
	for (size_t k = 0; k < NSIGNS; k++) {
		if (!count[k])
			continue;
		struct rd_finding *f = rd_finding_add(ctx, signs[k].status, signs[k].subject ? signs[k].subject : signs[k].pattern,
						      "%s", signs[k].meaning);
		for (size_t i = 0; i < count[k] && i < SAMPLES; i++)
			rd_evidence_add(f, "dmesg", "%.*s", (int)sample[k][i].n, sample[k][i].p);
		if (count[k] > SAMPLES)
			rd_evidence_add(f, "dmesg", "... %zu lines in all", count[k]);
		bool fixed = false;
		if (signs[k].kmod) {
			/* the module the first line names, judged by where it was built */
			char m[64];
			l.len = 0;
			rd_buf_add(&l, sample[k][0].p, sample[k][0].n);
			if (rd_kmod_line_module(l.data, m, sizeof m)) {
				struct rd_kmod_judgement j;
				rd_kmod_judge(ctx->host, ctx->sys, m, &j);
				for (int i = 0; j.verdict == 1 && i < j.nfix; i++, fixed = true)
					rd_fix_add(f, "%s", j.fix[i]);
				/* a mixed stack: the version mismatch gets the reload; an unknown symbol its own fix */
				bool mixed = rd_system_stack(ctx->sys)->running == RD_RUN_MIXED;
				if (!fixed && mixed && strstr(signs[k].fix, "MODULE")) {
					rd_fix_add(f, "rmmod the loaded RDMA modules in dependency order and modprobe the OFED ones, or "
						      "reboot    # in-tree and OFED modules are loaded together (rdma-doctor stack)");
					fixed = true;
				}
				if (!fixed && !mixed && strstr(signs[k].fix, "MODULE")) {
					rd_fix_add(f, "modinfo -n %s; modinfo -F vermagic %s    # where it comes from and what it was built "
						      "for; rebuild it for the loaded stack (dkms autoinstall) or load the stack it was "
						      "built for", m, m);
					fixed = true;
				}
			}
		}
		for (size_t d = 0; d < ndev[k]; d++, fixed = true)
			add_devfix(f, ctx->host, signs[k].devfix, dev[k][d]);
		if (!fixed && signs[k].fix)
			rd_fix_add(f, "%s", signs[k].fix);
		else if (!fixed && signs[k].devfix)
			rd_fix_add(f, signs[k].devfix, "<pci address>", "<pci address>");
	}
	rd_buf_free(&l);
	if (rd_check_quiet(ctx))
		rd_finding_add(ctx, RD_OK, "kernel log", "no known RDMA error in %zu kernel log line%s", lines,
			       lines == 1 ? "" : "s");
}
