/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* link.flaps: a port whose link goes down and up.
 *   carrier_changes of the port's netdevs rising by more than 2 between runs   WARN (NVSentinel)
 *   "<netdev>: lost carrier" kernel lines of the last 24 h: 5 or more FAIL (Azure's
 *   azure_ib_link_flapping), fewer WARN
 *   mlx5 "Port module event" lines of the port's PCI function: an error (high temperature, bad
 *   cable ...) WARN; "Cable unplugged" not followed by a plug event: said, not judged, when the
 *   port's state is known (Active: the cable is back; down: ports.state's finding), else WARN
 * The samples are kept as link.counters' are (model/link.h): carrier changes are compared with the
 * carrier sample the history gives for the policy's [counters] window. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/link.h"

#define LOST_CARRIER_FAIL 5
#define CARRIER_WARN 2
#define WINDOW_S 86400.0

/* The line's timestamp "[ 9021.771622] ..." in seconds since boot, or -1. */
static double stamp(const char *line)
{
	if (*line != '[')
		return -1;
	char *end;
	double v = strtod(line + 1, &end);
	return end != line + 1 && *end == ']' ? v : -1;
}

static bool in_window(const struct rd_link *lk, const char *line)
{
	double t = stamp(line);
	return lk->uptime_s < 0 || t < 0 || t >= lk->uptime_s - WINDOW_S;
}

/* The line names netdev as "<netdev>: lost carrier" (any case). */
static bool lost_carrier(const char *line, const char *netdev)
{
	size_t n = strlen(netdev);
	for (const char *p = line; (p = strstr(p, netdev)); p++) {
		if (p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.'))
			continue;
		if (strncasecmp(p + n, ": lost carrier", 14) == 0)
			return true;
	}
	return false;
}

struct lines {
	char *v[3];
	size_t n, total;
};

static void keep(struct lines *l, const char *line, size_t len)
{
	l->total++;
	if (l->n < 3)
		l->v[l->n++] = rd_xstrndup(line, len > 400 ? 400 : len);
	else { /* the latest three */
		free(l->v[0]);
		memmove(l->v, l->v + 1, 2 * sizeof l->v[0]);
		l->v[2] = rd_xstrndup(line, len > 400 ? 400 : len);
	}
}

static void lines_evidence(struct rd_finding *f, struct lines *l)
{
	for (size_t i = 0; i < l->n; i++) {
		rd_evidence_add(f, "dmesg", "%s", l->v[i]);
		free(l->v[i]);
	}
	l->n = 0;
}

static void scan(const struct rd_text *log, const struct rd_link *lk, const char *netdev, const char *pci,
		 struct lines *lost, struct lines *module_err, struct lines *unplug)
{
	if (log->err || !log->data)
		return;
	for (const char *line = log->data; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[1024];
		snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
		if (netdev && in_window(lk, buf) && lost_carrier(buf, netdev))
			keep(lost, buf, strlen(buf));
		if (pci && rd_text_names_pci(buf, pci, ": ") && strstr(buf, "Port module event")) {
			if (strstr(buf, "Port module event[error]"))
				keep(module_err, buf, strlen(buf));
			else if (strstr(buf, "Cable unplugged"))
				keep(unplug, buf, strlen(buf));
			else if (strstr(buf, "Cable plugged")) { /* plugged back: the unplug is over */
				for (size_t i = 0; i < unplug->n; i++)
					free(unplug->v[i]);
				unplug->n = unplug->total = 0;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
}

void rd_check_link_flaps(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	const struct rd_link *lk = &ctx->sys->link;
	const struct rd_link_sample *s = &lk->sample;
	const struct rd_state_sample *base = s->base[RD_SAMPLE_CARRIER].s;
	bool compare = s->kept && !s->prev_problem && s->base[RD_SAMPLE_CARRIER].why == RD_BASE_FOUND && base;
	char since[32] = "";
	if (compare)
		rd_utc_iso8601(base->time, since, sizeof since);
	size_t ports = 0, netdevs = 0;
	char subj[128];
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		bool module_done = false;
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			if (!rd_port_judged(lk, ctx->policy, d, p))
				continue;
			ports++;
			snprintf(subj, sizeof subj, "%s port %u", d->name, p->num);
			for (size_t n = 0; n < lk->nnetdevs; n++) {
				const struct rd_link_netdev *nd = &lk->netdevs[n];
				if (nd->port != p->num || strcmp(nd->dev, d->name) != 0)
					continue;
				netdevs++;
				const struct rd_state_entry *e =
					compare ? rd_state_find(base, RD_STATE_NETDEV, nd->name, 0, "carrier_changes") : NULL;
				if (e && rd_attr_ok(&nd->carrier_changes) && nd->changes > e->value &&
				    nd->changes - e->value > CARRIER_WARN) {
					struct rd_finding *f = rd_finding_add(
						ctx, RD_WARN, subj, "%s: %s changed carrier %llu times since %s (from %llu to %llu)", subj,
						nd->name, (unsigned long long)(nd->changes - e->value), since,
						(unsigned long long)e->value, (unsigned long long)nd->changes);
					rd_evidence_attr(f, &nd->carrier_changes);
					rd_evidence_add(f, s->file, "%s carrier_changes %llu", nd->name, (unsigned long long)e->value);
					rd_fix_add(f, "mlxlink -d %s -m -c -e    # the cable and the errors of the link",
						   d->pci_addr ? d->pci_addr : d->name);
				}
				struct lines lost = {0}, none1 = {0}, none2 = {0};
				scan(&ctx->sys->dmesg, lk, nd->name, NULL, &lost, &none1, &none2);
				if (lost.total) {
					bool bad = lost.total >= LOST_CARRIER_FAIL;
					struct rd_finding *f = rd_finding_add(
						ctx, bad ? RD_FAIL : RD_WARN, subj,
						"%s: %zu '%s: lost carrier' kernel line%s in the last 24 h%s", subj, lost.total, nd->name,
						lost.total == 1 ? "" : "s", bad ? " (5 or more: a flapping link)" : "");
					lines_evidence(f, &lost);
					rd_fix_add(f, "mlxlink -d %s -m -c -e    # the cable and the errors of the link",
						   d->pci_addr ? d->pci_addr : d->name);
					rd_fix_add(f, "reseat or replace the cable; check the switch port's log for the same link");
				}
			}
			if (module_done || !d->pci_addr)
				continue;
			module_done = true; /* the events name the PCI function: one port's worth per device */
			struct lines none = {0}, err = {0}, unplug = {0};
			scan(&ctx->sys->dmesg, lk, NULL, d->pci_addr, &none, &err, &unplug);
			if (err.total) {
				struct rd_finding *f = rd_finding_add(ctx, RD_WARN, subj, "%s: %zu mlx5 port module error event%s (%s)",
								      subj, err.total, err.total == 1 ? "" : "s",
								      strstr(err.v[err.n - 1], "High Temperature") ? "the module overheats" : "cable or module error");
				lines_evidence(f, &err);
				rd_fix_add(f, "mlxlink -d %s -m    # the module's type, temperature and status", d->pci_addr);
				rd_fix_add(f, "check the cooling of the module; replace the cable or transceiver");
			}
			if (unplug.total && p->state_v == RD_PORT_ACTIVE) {
				/* no plug event logged (the ring buffer lost it, or the module came back on its
				 * own), but the port is up now: it is plugged in */
				struct rd_finding *f = rd_finding_add(
					ctx, RD_OK, subj,
					"%s: the kernel saw the cable unplugged and logged no plug event, but the port is Active now: "
					"the cable is back",
					subj);
				lines_evidence(f, &unplug);
				rd_evidence_attr(f, &p->state);
			} else if (unplug.total && p->state_v >= 0) {
				/* the port is down: ports.state's finding (one problem, one finding); the unplug is
				 * why, told here */
				struct rd_finding *f = rd_finding_add(
					ctx, RD_SKIP, subj,
					"%s is not Active (ports.state): the kernel saw its cable unplugged and not plugged back", subj);
				lines_evidence(f, &unplug);
				rd_evidence_attr(f, &p->state);
			} else if (unplug.total) {
				struct rd_finding *f = rd_finding_add(ctx, RD_WARN, subj,
								      "%s: the kernel saw the cable unplugged and not plugged back", subj);
				lines_evidence(f, &unplug);
				rd_fix_add(f, "plug the cable in (or reseat it); mlxlink -d %s -m shows the module", d->pci_addr);
			}
		}
	}
	if (!rd_check_quiet(ctx))
		return;
	if (!ports) {
		rd_finding_add(ctx, RD_SKIP, "host", "no compute port");
		return;
	}
	if (compare)
		rd_finding_add(ctx, RD_OK, "host", "%zu port%s (%zu netdev%s): no carrier changes past %d since %s, no lost carrier "
			       "or module events in the kernel log", ports, ports == 1 ? "" : "s", netdevs, netdevs == 1 ? "" : "s",
			       CARRIER_WARN, since);
	else
		rd_finding_add(ctx, RD_OK, "host", "%zu port%s (%zu netdev%s): no lost carrier or module events in the kernel log%s",
			       ports, ports == 1 ? "" : "s", netdevs, netdevs == 1 ? "" : "s",
			       s->kept ? "; carrier changes from the next run on" : "");
}
