/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fabric's port error counters (fabric.h): `ibqueryerrors` output parsed, and the rules it is
 * judged by.  The format is infiniband-diags' ibqueryerrors.c (rdma-core 44): print_port_hdr's
 * "Errors for 0x%lx \"%s\"" (a switch) or "Errors for \"%s\"" (a CA), then one line per port
 * "   GUID 0x%lx port %d:" or "port ALL:" followed by " [%s == %lu]" for each counter above its
 * threshold, "       Link info: ..." with -r, and the "## Summary: ..." lines at the end.
 *
 * Ownership: the parser borrows its text; what it keeps is owned by the rd_fabric. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/scan.h"

/* Thresholds: infiniband-diags ships etc/error_thresholds with these values (commented out:
 * ibqueryerrors' own default is 0, every non-zero counter); widths: IBTA PortCounters.
 * PortRcvSwitchRelayErrors is not judged: ibqueryerrors -c ("suppress common") hides it, it
 * counts packets a switch could not route (a LID being brought up), not a cable's errors;
 * VL15Dropped (SMPs), PortXmitWait (congestion) and the constraint errors (partitions) neither. */
static const struct rd_fab_counter_rule rules[] = {
	{"SymbolErrorCounter", 10, 16, "symbol errors on the wire: a marginal cable or transceiver"},
	{"LinkErrorRecoveryCounter", 10, 8, "link error recoveries: the link retrained"},
	{"LinkDownedCounter", 10, 8, "times the link went down"},
	{"PortRcvErrors", 10, 16, "packets received with errors"},
	{"PortRcvRemotePhysicalErrors", 100, 16, "packets received marked bad upstream"},
	{"PortXmitDiscards", 100, 16, "packets discarded at transmit: the port down or congested"},
	{"LocalLinkIntegrityErrors", 10, 4, "local link integrity errors"},
	{"ExcessiveBufferOverrunErrors", 10, 4, "receive buffer overruns: flow control"},
};

const struct rd_fab_counter_rule *rd_fab_counter_rule(const char *name)
{
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if (strcmp(rules[i].name, name) == 0)
			return &rules[i];
	return NULL;
}

static bool scan_u64(const char **pp, const char *e, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;
	int n = 0;
	for (; p < e && isdigit((unsigned char)*p); p++, n++) {
		unsigned d = (unsigned)(*p - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	if (!n)
		return false;
	*v = x;
	*pp = p;
	return true;
}

struct qe_state {
	char *desc; /* the current "Errors for" node's description */
};

/* "[Name == V]" counters after "port N:" (or "port ALL:"), into f when keep. */
static size_t counters_of(struct rd_fabric *f, const char *p, const char *e, uint64_t guid, unsigned port, bool keep,
			  const char *desc, unsigned line)
{
	size_t n = 0;
	while ((p = rd_fab_find(p, e, "[")) != NULL) {
		p++;
		const char *nb = p;
		while (p < e && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		const char *ne = p;
		uint64_t v;
		if (ne == nb || ne - nb >= 40 || !rd_fab_lit(&p, e, " == ") || !scan_u64(&p, e, &v) || !rd_fab_lit(&p, e, "]"))
			continue; /* not a counter: look for the next one */
		n++;
		if (!keep || f->ncounters >= RD_FAB_MAX_COUNTERS)
			continue;
		f->counters = rd_grow(f->counters, f->ncounters, sizeof *f->counters);
		struct rd_fab_counter *c = &f->counters[f->ncounters++];
		memset(c, 0, sizeof *c);
		c->guid = guid;
		c->port = port;
		memcpy(c->name, nb, (size_t)(ne - nb));
		c->value = v;
		c->line = line;
		c->desc = desc ? rd_xstrdup(desc) : NULL;
	}
	return n;
}

static bool qe_line(struct rd_fabric *f, struct qe_state *st, const char *b, const char *e, unsigned n)
{
	const char *p = b;
	if (rd_fab_lit(&p, e, "Errors for ")) {
		uint64_t g;
		if (rd_fab_scan_hex(&p, e, &g))
			p = rd_fab_skip_sp(p, e);
		if (p >= e || *p != '"' || e - p < 2 || e[-1] != '"')
			return false;
		free(st->desc);
		st->desc = rd_fab_trimdup(p + 1, e - 1);
		return true;
	}
	if (rd_fab_lit(&p, e, "GUID ")) {
		uint64_t g;
		unsigned port = 0;
		bool all = false;
		if (!rd_fab_scan_hex(&p, e, &g) || !rd_fab_lit(&p, e, " port "))
			return false;
		if (rd_fab_lit(&p, e, "ALL"))
			all = true;
		else if (!rd_fab_scan_uint(&p, e, 255, &port))
			return false;
		if (!rd_fab_lit(&p, e, ":"))
			return false;
		return counters_of(f, p, e, g, port, !all, st->desc, n) > 0;
	}
	if (rd_fab_lit(&p, e, "Link info:"))
		return true;
	if (rd_fab_lit(&p, e, "##")) {
		const char *q = rd_fab_find(p, e, " ports checked");
		if (q) {
			const char *s = q;
			while (s > p && isdigit((unsigned char)s[-1]))
				s--;
			unsigned v;
			if (rd_fab_scan_uint(&s, q, 0xffffffu, &v))
				f->ports_checked = v;
		}
		if (rd_fab_lit(&p, e, " Summary:"))
			f->counters_read = true;
		return true;
	}
	return false;
}

size_t rd_fab_parse_ibqueryerrors(struct rd_fabric *f, const char *text, size_t len)
{
	struct qe_state st = {0};
	size_t ok = 0;
	unsigned n = 0;
	if (!text)
		return 0;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		n++;
		const char *s = rd_fab_skip_sp(p, e);
		const char *t = e;
		while (t > s && (t[-1] == '\r' || t[-1] == ' ' || t[-1] == '\t'))
			t--;
		if (s < t) {
			if (qe_line(f, &st, s, t, n)) {
				ok++;
			} else {
				f->skipped++; /* counted, not the "first line not understood" of iblinkinfo's */
			}
		}
		p = nl ? nl + 1 : end;
	}
	free(st.desc);
	return ok;
}

/* ---- the counters kept between runs (--state-dir) ---- */

