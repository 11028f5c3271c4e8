/* kernel.log: kernel messages that name a cause.  Each known message is one finding, with up to
 * three of its lines as evidence. */
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"

static const struct {
	const char *pattern;  /* substring of a kernel log line */
	const char *also;     /* a second substring the line must contain, or NULL */
	enum rd_status status;
	const char *meaning;
	const char *fix;
} signs[] = {
	{"disagrees about version of symbol", NULL, RD_FAIL,
	 "modules built against another kernel or stack are being loaded (mixed in-tree + OFED modules)",
	 "rmmod the loaded RDMA modules in dependency order and modprobe the OFED ones, or reboot"},
	{"Unknown symbol", NULL, RD_FAIL,
	 "a module could not load because a symbol it needs is missing (OFED modules not built for this kernel?)",
	 "dkms autoinstall, then reboot"},
	{"invalid nv_mem_context", NULL, RD_WARN,
	 "nvidia-peermem saw an invalid context while freeing GPU memory registrations (older driver wording)",
	 "update the NVIDIA driver; check the GPU and nvidia_peermem versions match"},
	{"invalid context", "nvidia-peermem", RD_WARN,
	 "nvidia-peermem saw an invalid context while freeing GPU memory registrations",
	 "update the NVIDIA driver; check the GPU and nvidia_peermem versions match"},
	{"available PCIe bandwidth, limited by", "mlx5", RD_WARN,
	 "a ConnectX sits in a PCIe slot slower or narrower than it needs: RDMA bandwidth is capped",
	 "move the card to a full-width slot or fix the link (lspci -vv | grep LnkSta; mlxlink --port_type PCIE)"},
	{"health compromised", "mlx5", RD_FAIL, "the ConnectX firmware reported a fatal health error",
	 "collect mlxdump/fwtrace and reset the device (mlxfwreset) or reboot; replace the card if it recurs"},
	{"Fatal error", "mlx5", RD_FAIL, "the ConnectX firmware reported a fatal error",
	 "reset the device (mlxfwreset -l 3 reset) or reboot; check firmware version"},
	{"Will cause a leak of a command resource", "mlx5", RD_FAIL, "firmware commands time out: the HCA is wedged",
	 "reset the device or reboot; update the firmware"},
	{"failed to init crc32 algorithm", "rdma_rxe", RD_WARN, "Soft-RoCE could not start: crc32 is missing",
	 "modprobe crc32_generic; then rdma link add"},
};

void rd_check_kernel_log(struct rd_check_ctx *ctx)
{
	const struct rd_text *log = &ctx->sys->dmesg;
	if (log->err || !log->data || (log->status != 0 && log->len == 0)) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "kernel log",
						      log->err == RD_ENOTCAPTURED ? "the kernel log was not captured in this root"
										  : "cannot read the kernel log");
		rd_evidence_add(f, "dmesg", "<%s>", log->err ? rd_strerror(log->err) : "exit status non-zero, no output");
		if (ctx->live)
			rd_fix_add(f, "run as root, or sysctl kernel.dmesg_restrict=0");
		return;
	}
	/* one pass over the log: per sign, how many lines and the first three of them */
	enum { NSIGNS = sizeof signs / sizeof signs[0], SAMPLES = 3 };
	size_t count[NSIGNS] = {0}, lines = 0;
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
			if (strstr(l.data, signs[k].pattern) && (!signs[k].also || strstr(l.data, signs[k].also))) {
				if (count[k] < SAMPLES) {
					sample[k][count[k]].p = line;
					sample[k][count[k]].n = len;
				}
				count[k]++;
			}
		if (!nl)
			break;
		line = nl + 1;
	}
	rd_buf_free(&l);
	for (size_t k = 0; k < NSIGNS; k++) {
		if (!count[k])
			continue;
		struct rd_finding *f = rd_finding_add(ctx, signs[k].status, signs[k].pattern, "%s", signs[k].meaning);
		for (size_t i = 0; i < count[k] && i < SAMPLES; i++)
			rd_evidence_add(f, "dmesg", "%.*s", (int)sample[k][i].n, sample[k][i].p);
		if (count[k] > SAMPLES)
			rd_evidence_add(f, "dmesg", "... %zu lines in all", count[k]);
		rd_fix_add(f, "%s", signs[k].fix);
	}
	if (rd_check_quiet(ctx))
		rd_finding_add(ctx, RD_OK, "kernel log", "no known RDMA error in %zu kernel log line%s", lines,
			       lines == 1 ? "" : "s");
}
