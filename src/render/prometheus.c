/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* check --format prometheus: see prometheus.h. */
#include <string.h>

#include "render/prometheus.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes there are not one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000;
	else
		return 0;
	unsigned cp = c & (0x3fu >> (n - 1));
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void rd_prom_label_escape(struct rd_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		size_t n = utf8_len(p);
		if (*p == '\\')
			rd_buf_puts(b, "\\\\");
		else if (*p == '"')
			rd_buf_puts(b, "\\\"");
		else if (*p == '\n')
			rd_buf_puts(b, "\\n");
		else if (n == 0 || *p < 0x20 || *p == 0x7f)
			rd_buf_puts(b, "\xef\xbf\xbd"); /* U+FFFD: a control byte or a byte that is not UTF-8 */
		else
			rd_buf_add(b, (const char *)p, n);
		p += n ? n : 1;
	}
}

void rd_prom_label_value(FILE *f, const char *s)
{
	struct rd_buf b = {0};
	rd_prom_label_escape(&b, s);
	if (b.len)
		fwrite(b.data, 1, b.len, f);
	rd_buf_free(&b);
}

void rd_prom_head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void rd_prom_series(FILE *f, const char *name, const char *const *kv)
{
	fputs(name, f);
	for (size_t i = 0; kv && kv[i]; i += 2) {
		fprintf(f, "%s%s=\"", i ? "," : "{", kv[i]);
		rd_prom_label_value(f, kv[i + 1]);
		fputc('"', f);
		if (!kv[i + 2])
			fputc('}', f);
	}
	fputc(' ', f);
}

void rd_prom_findings(FILE *f, const char *name, const char *help, const struct rd_report *r)
{
	static const enum rd_status all[] = {RD_OK, RD_WARN, RD_FAIL, RD_UNKNOWN, RD_SKIP};
	rd_prom_head(f, name, "gauge", help);
	for (size_t k = 0; k < 5; k++) {
		size_t c = 0;
		for (size_t i = 0; i < r->n; i++)
			c += r->findings[i].status == all[k];
		const char *kv[] = {"status", rd_status_name(all[k]), NULL};
		rd_prom_series(f, name, kv);
		fprintf(f, "%zu\n", c);
	}
}

static void check_status(FILE *f, const struct rd_report *r)
{
	rd_prom_head(f, "rdma_doctor_check_status", "gauge",
	     "Result of one rdma-doctor check for one subject: 0 OK, 1 WARN, 2 FAIL, 3 UNKNOWN (SKIP is not exported).");
	for (size_t i = 0; i < r->n; i++) {
		const struct rd_finding *x = &r->findings[i];
		if (x->status == RD_SKIP)
			continue;
		bool dup = false; /* one series per (check, subject): the first one carries the worst */
		enum rd_status worst = x->status;
		for (size_t k = 0; k < r->n && !dup; k++) {
			const struct rd_finding *y = &r->findings[k];
			if (k == i || y->status == RD_SKIP || strcmp(y->check, x->check) != 0 ||
			    strcmp(y->subject ? y->subject : "", x->subject ? x->subject : "") != 0)
				continue;
			if (k < i)
				dup = true;
			else if (rd_status_worse(y->status, worst))
				worst = y->status;
		}
		if (dup)
			continue;
		const char *kv[] = {"check", x->check, "subject", x->subject, NULL};
		rd_prom_series(f, "rdma_doctor_check_status", kv);
		fprintf(f, "%d\n", rd_status_exit_code(worst));
	}
}

static void counters(FILE *f, const struct rd_host *h, bool hw)
{
	const char *name = hw ? "rdma_doctor_port_hw_counters_total" : "rdma_doctor_port_counters_total";
	bool any = false;
	for (size_t d = 0; d < h->ndevices; d++) {
		const struct rd_device *dev = &h->devices[d];
		for (size_t p = 0; p < dev->nports; p++) {
			const struct rd_port *pt = &dev->ports[p];
			const struct rd_counter *c = hw ? pt->hw_counters : pt->counters;
			size_t n = hw ? pt->nhw_counters : pt->ncounters;
			char port[16];
			snprintf(port, sizeof port, "%u", pt->num);
			for (size_t i = 0; i < n; i++) {
				if (c[i].attr.err != 0)
					continue;
				if (!any)
					rd_prom_head(f, name, "counter",
					     hw ? "A port's hw_counters/<counter> as the driver reports it (raw value)."
						: "A port's counters/<counter> as the kernel reports it (raw value; port_xmit_data and "
						  "port_rcv_data count 4-byte words).");
				any = true;
				const char *kv[] = {"device", dev->name, "port", port, "counter", c[i].name, NULL};
				rd_prom_series(f, name, kv);
				fprintf(f, "%llu\n", (unsigned long long)c[i].value);
			}
		}
	}
}

/* roce.congestion's ethtool -S counters of each RoCE port's netdev (read with check --mft, or
 * from a root's captures). */
static void ethtool_counters(FILE *f, const struct rd_system *s)
{
	const char *name = "rdma_doctor_port_ethtool_total";
	bool any = false;
	for (size_t i = 0; !s->mft.unloaded && i < s->mft.nqos; i++) {
		const struct rd_qos_port *q = &s->mft.qos[i];
		char port[16];
		snprintf(port, sizeof port, "%u", q->port);
		for (size_t k = 0; q->eth && k < q->eth->n; k++) {
			if (!any)
				rd_prom_head(f, name, "counter",
				     "A RoCE port's netdev congestion counter of ethtool -S (raw value; pause durations in "
				     "microseconds).");
			any = true;
			const char *kv[] = {"device", q->dev, "port", port, "netdev", q->ifname, "counter", q->eth->v[k].name, NULL};
			rd_prom_series(f, name, kv);
			fprintf(f, "%llu\n", (unsigned long long)q->eth->v[k].value);
		}
	}
}

static void ports(FILE *f, const struct rd_host *h)
{
	static const char *const names[] = {"rdma_doctor_port_state_id", "rdma_doctor_port_physical_state_id",
					    "rdma_doctor_port_rate_bytes_per_second"};
	static const char *const helps[] = {
		"A port's logical state from ports/N/state: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER.",
		"A port's physical state from ports/N/phys_state: 2 Polling, 3 Disabled, 5 LinkUp, 7 PhyTest ...",
		"A port's signalling rate from ports/N/rate, in bytes per second."};
	for (int m = 0; m < 3; m++) {
		bool any = false;
		for (size_t d = 0; d < h->ndevices; d++) {
			const struct rd_device *dev = &h->devices[d];
			for (size_t p = 0; p < dev->nports; p++) {
				const struct rd_port *pt = &dev->ports[p];
				if ((m == 0 && pt->state_v < 0) || (m == 1 && pt->phys_v < 0) || (m == 2 && !pt->rate_ok))
					continue;
				if (!any)
					rd_prom_head(f, names[m], "gauge", helps[m]);
				any = true;
				char port[16];
				snprintf(port, sizeof port, "%u", pt->num);
				const char *kv[] = {"device", dev->name, "port", port, NULL};
				rd_prom_series(f, names[m], kv);
				if (m == 0)
					fprintf(f, "%d\n", pt->state_v);
				else if (m == 1)
					fprintf(f, "%d\n", pt->phys_v);
				else
					fprintf(f, "%.0f\n", pt->rate_v.gbps * 125000000.0);
			}
		}
	}
}

static void device_info(FILE *f, const struct rd_host *h)
{
	if (h->ndevices == 0)
		return;
	rd_prom_head(f, "rdma_doctor_device_info", "gauge",
	     "An RDMA device as rdma-doctor read it (firmware_version and hca_type from sysfs; empty when unreadable).");
	for (size_t d = 0; d < h->ndevices; d++) {
		const struct rd_device *dev = &h->devices[d];
		const char *kv[] = {"device", dev->name,
				    "firmware_version", rd_attr_ok(&dev->fw_ver) ? dev->fw_ver.value : "",
				    "hca_type", rd_attr_ok(&dev->hca_type) ? dev->hca_type.value : "",
				    "board_id", rd_attr_ok(&dev->board_id) ? dev->board_id.value : "",
				    NULL};
		rd_prom_series(f, "rdma_doctor_device_info", kv);
		fputs("1\n", f);
	}
}

void rd_report_prometheus(FILE *f, const struct rd_report *r, const struct rd_host *h, const struct rd_system *s,
			  const struct rd_report_meta *meta, long long now)
{
	rd_prom_head(f, "rdma_doctor_info", "gauge", "rdma-doctor's version and the RDMA stack it found (installed flavour, its version).");
	const char *kv[] = {"version", RD_VERSION, "stack", rd_stack_kind_name(s->stack.installed), "stack_version",
			    s->stack.version, NULL};
	rd_prom_series(f, "rdma_doctor_info", kv);
	fputs("1\n", f);

	rd_prom_head(f, "rdma_doctor_last_run_timestamp_seconds", "gauge", "When rdma-doctor last checked this host, in seconds since the epoch.");
	fprintf(f, "rdma_doctor_last_run_timestamp_seconds %lld\n", now);

	enum rd_status worst = meta->no_hardware ? RD_UNKNOWN : rd_report_status(r);
	rd_prom_head(f, "rdma_doctor_status", "gauge",
	     "The host's verdict, the exit status of check: 0 OK, 1 WARN, 2 FAIL, 3 UNKNOWN (also: no RDMA hardware).");
	fprintf(f, "rdma_doctor_status %d\n", rd_status_exit_code(worst));

	rd_prom_head(f, "rdma_doctor_rdma_hardware", "gauge", "1 when the host has an RDMA device or a Mellanox/NVIDIA networking PCI function.");
	fprintf(f, "rdma_doctor_rdma_hardware %d\n", meta->no_hardware ? 0 : 1);

	rd_prom_findings(f, "rdma_doctor_findings", "Number of findings of the last run by status.", r);

	check_status(f, r);
	device_info(f, h);
	ports(f, h);
	counters(f, h, false);
	counters(f, h, true);
	ethtool_counters(f, s);
}
