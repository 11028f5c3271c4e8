/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Parsers of infiniband-diags' output (fabric.h).  The formats, from rdma-core v44:
 *   iblinkinfo -l (print_port): "0x%016x \"%30s\" %6d %4d[%2s] ==LINK==>  REMOTE", LINK one of
 *     "(%3s %18s %6s/%8s)" (width, speed, state/physical state) or "(              %6s/%8s)" for a
 *     Down port, REMOTE one of "0x%016x %6d %4d[%2s] \"%s\" (%s %s)" (GUID, LID, port, node
 *     description, get_max_msg's "Could be 4X" / "Could be 25.78125 Gbps"), "[  ] \"\" ( )"
 *     (no peer, Down), "\"Port not available\"".
 *   ibnetdiscover -p (out_ports): "%2s %5d %2d 0x%016x %s %s" (type, LID, port, GUID, width "4x",
 *     speed "EDR") then " - %2s %5d %2d 0x%016x ( '%s' - '%s' )" (the peer, both descriptions) or
 *     "%36s'%s'" (no peer).
 *   sminfo: "sminfo: sm lid %d sm guid 0x%x, activity count %u priority %d state %d %s". */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/scan.h"

const char *rd_fab_kind_name(enum rd_fab_kind k)
{
	switch (k) {
	case RD_FAB_CA:
		return "CA";
	case RD_FAB_SW:
		return "SW";
	case RD_FAB_RT:
		return "RT";
	default:
		return "?";
	}
}

static void end_free(struct rd_fab_end *e)
{
	free(e->desc);
	e->desc = NULL;
}

void rd_fabric_free(struct rd_fabric *f)
{
	for (size_t i = 0; i < f->nlinks; i++) {
		end_free(&f->links[i].a);
		end_free(&f->links[i].b);
	}
	free(f->links);
	for (size_t i = 0; i < f->nnodes; i++) {
		free(f->nodes[i].desc);
		free(f->nodes[i].host);
		free(f->nodes[i].device);
	}
	free(f->nodes);
	for (size_t i = 0; i < f->ncounters; i++)
		free(f->counters[i].desc);
	free(f->counters);
	memset(f, 0, sizeof *f);
}

double rd_fab_rate(const struct rd_fab_link *l)
{
	return l->width && l->speed > 0 ? l->width * l->speed : 0;
}

/* ---- small scanners over one line [p, e) ---- */

const char *rd_fab_skip_sp(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

bool rd_fab_scan_hex(const char **pp, const char *e, uint64_t *v)
{
	const char *p = *pp;
	if (e - p < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return false;
	p += 2;
	uint64_t x = 0;
	int n = 0;
	for (; p < e && isxdigit((unsigned char)*p); p++, n++) {
		if (n >= 16)
			return false;
		x = x * 16 + (unsigned)(isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10));
	}
	if (!n)
		return false;
	*v = x;
	*pp = p;
	return true;
}

bool rd_fab_scan_uint(const char **pp, const char *e, unsigned max, unsigned *v)
{
	const char *p = *pp;
	unsigned long x = 0;
	int n = 0;
	for (; p < e && isdigit((unsigned char)*p); p++, n++) {
		x = x * 10 + (unsigned)(*p - '0');
		if (x > max)
			return false;
	}
	if (!n)
		return false;
	*v = (unsigned)x;
	*pp = p;
	return true;
}

/* A decimal number such as "2.5" or "25.78125" (no exponent, no sign). */
bool rd_fab_scan_num(const char **pp, const char *e, double *v)
{
	const char *p = *pp;
	double x = 0, scale = 1;
	int n = 0;
	for (; p < e && isdigit((unsigned char)*p) && n < 12; p++, n++)
		x = x * 10 + (*p - '0');
	if (!n)
		return false;
	if (p < e && *p == '.') {
		p++;
		for (int d = 0; p < e && isdigit((unsigned char)*p); p++, d++)
			if (d < 12) {
				scale /= 10;
				x += (*p - '0') * scale;
			}
	}
	*v = x;
	*pp = p;
	return true;
}

bool rd_fab_lit(const char **pp, const char *e, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(e - *pp) < n || memcmp(*pp, s, n) != 0)
		return false;
	*pp += n;
	return true;
}

const char *rd_fab_find(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);
	for (; p && (size_t)(e - p) >= n; p++)
		if (memcmp(p, s, n) == 0)
			return p;
	return NULL;
}

const char *rd_fab_rfind(const char *b, const char *e, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(e - b) < n)
		return NULL;
	for (const char *p = e - n;; p--) {
		if (memcmp(p, s, n) == 0)
			return p;
		if (p == b)
			return NULL;
	}
}

/* A copy of [b, e) without leading and trailing blanks and with control bytes as '?'. */
char *rd_fab_trimdup(const char *b, const char *e)
{
	if (e < b)
		e = b;
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	char *s = rd_xstrndup(b, (size_t)(e - b));
	for (char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return s;
}

static void copy_word(char *dst, size_t cap, const char *b, const char *e)
{
	char *t = rd_fab_trimdup(b, e);
	snprintf(dst, cap, "%s", t);
	free(t);
}

static struct rd_fab_link *new_link(struct rd_fabric *f)
{
	f->links = rd_grow(f->links, f->nlinks, sizeof *f->links);
	struct rd_fab_link *l = &f->links[f->nlinks++];
	memset(l, 0, sizeof *l);
	return l;
}

static void skipped(struct rd_fabric *f, unsigned line)
{
	f->skipped++;
	if (!f->first_skipped)
		f->first_skipped = line;
}

/* "%6d %4d[%2s]": the LID, the port and the external port in brackets (ignored). */
static bool scan_lid_port(const char **pp, const char *e, unsigned *lid, unsigned *port)
{
	const char *p = rd_fab_skip_sp(*pp, e);
	if (!rd_fab_scan_uint(&p, e, 0xffff, lid))
		return false;
	p = rd_fab_skip_sp(p, e);
	if (!rd_fab_scan_uint(&p, e, 255, port) || !rd_fab_lit(&p, e, "["))
		return false;
	const char *c = memchr(p, ']', (size_t)(e - p));
	if (!c)
		return false;
	*pp = c + 1;
	return true;
}

/* The LINK part of an iblinkinfo line, between "==(" and ")==>". */
static bool parse_link_state(struct rd_fab_link *l, const char *b, const char *e)
{
	const char *slash = rd_fab_rfind(b, e, "/");
	if (!slash)
		return false;
	copy_word(l->phys, sizeof l->phys, slash + 1, e);
	const char *w = slash;
	while (w > b && w[-1] == ' ')
		w--;
	const char *ws = w;
	while (ws > b && ws[-1] != ' ')
		ws--;
	copy_word(l->state, sizeof l->state, ws, w);
	if (!l->state[0] || !l->phys[0])
		return false;
	const char *p = rd_fab_skip_sp(b, ws);
	if (p == ws)
		return true; /* a Down port: no width or speed */
	unsigned width;
	if (!rd_fab_scan_uint(&p, ws, 64, &width) || !rd_fab_lit(&p, ws, "X"))
		return true; /* "undefined (N)": kept as unknown */
	l->width = width;
	p = rd_fab_skip_sp(p, ws);
	double sp;
	if (rd_fab_scan_num(&p, ws, &sp) && (p = rd_fab_skip_sp(p, ws), rd_fab_lit(&p, ws, "Gbps"))) {
		l->speed = sp;
		p = rd_fab_skip_sp(p, ws);
		if (rd_fab_lit(&p, ws, "(FDR10)"))
			snprintf(l->speed_name, sizeof l->speed_name, "FDR10");
	}
	return true;
}

/* get_max_msg's words: "Could be 4X", "Could be 25.78125 Gbps", "Could be FDR10 (...)". */
static void parse_could(struct rd_fab_link *l, const char *b, const char *e)
{
	for (const char *p = rd_fab_find(b, e, "Could be "); p; p = rd_fab_find(p, e, "Could be ")) {
		p += strlen("Could be ");
		const char *q = p;
		double v;
		if (!rd_fab_scan_num(&q, e, &v))
			continue;
		if (q < e && *q == 'X' && v >= 1 && v <= 64 && v == (unsigned)v)
			l->could_width = (unsigned)v;
		else if ((q = rd_fab_skip_sp(q, e), rd_fab_lit(&q, e, "Gbps")))
			l->could_speed = v;
		p = q;
	}
}

static size_t each_line(struct rd_fabric *f, const char *text, size_t len,
			bool (*line)(struct rd_fabric *f, const char *b, const char *e, unsigned n))
{
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
		while (t > s && (t[-1] == '\r' || t[-1] == ' '))
			t--;
		if (s < t) {
			if (line(f, s, t, n))
				ok++;
			else
				skipped(f, n);
		}
		p = nl ? nl + 1 : end;
	}
	return ok;
}

static bool linkinfo_line(struct rd_fabric *f, const char *b, const char *e, unsigned n)
{
	const char *p = b;
	uint64_t guid;
	if (!rd_fab_scan_hex(&p, e, &guid))
		return false;
	const char *open = rd_fab_find(p, e, "==("), *close = open ? rd_fab_find(open, e, ")==>") : NULL;
	if (!open || !close)
		return false;
	/* backwards from "==(": "[..]", the port, the LID, then the description's closing quote */
	const char *q1 = memchr(p, '"', (size_t)(open - p));
	const char *q2 = q1 ? rd_fab_rfind(q1 + 1, open, "\"") : NULL;
	if (!q1 || !q2)
		return false;
	struct rd_fab_link l = {.line = n};
	const char *lp = q2 + 1;
	if (!scan_lid_port(&lp, open, &l.a.lid, &l.a.port) || rd_fab_skip_sp(lp, open) != open)
		return false;
	l.a.guid = guid;
	l.a.kind = RD_FAB_SW; /* --switches-only; a CA line has the same layout and is corrected later */
	if (!parse_link_state(&l, open + 3, close))
		return false;
	const char *r = rd_fab_skip_sp(close + 4, e);
	if (r < e && *r == '0') {
		if (!rd_fab_scan_hex(&r, e, &l.b.guid) || !scan_lid_port(&r, e, &l.b.lid, &l.b.port))
			return false;
		r = rd_fab_skip_sp(r, e);
		const char *quote = rd_fab_rfind(r, e, "\" (");
		if (r >= e || *r != '"' || !quote || quote < r + 1)
			return false;
		const char *paren = quote + 1;
		l.b.desc = rd_fab_trimdup(r + 1, quote);
		parse_could(&l, paren, e);
		l.has_peer = true;
	} else if (!(r < e && (*r == '[' || rd_fab_lit(&r, e, "\"Port not available\"")))) {
		return false;
	}
	l.a.desc = rd_fab_trimdup(q1 + 1, q2);
	*new_link(f) = l;
	return true;
}

size_t rd_fab_parse_iblinkinfo(struct rd_fabric *f, const char *text, size_t len)
{
	return each_line(f, text, len, linkinfo_line);
}

static enum rd_fab_kind kind_of(const char *b, const char *e)
{
	size_t n = (size_t)(e - b);
	if (n == 2 && memcmp(b, "CA", 2) == 0)
		return RD_FAB_CA;
	if (n == 2 && memcmp(b, "SW", 2) == 0)
		return RD_FAB_SW;
	if (n == 2 && memcmp(b, "RT", 2) == 0)
		return RD_FAB_RT;
	return RD_FAB_UNKNOWN;
}

/* "TYPE LID PORT 0xGUID": one end of an ibnetdiscover -p line. */
static bool net_end(const char **pp, const char *e, struct rd_fab_end *end)
{
	const char *p = rd_fab_skip_sp(*pp, e), *w = p;
	while (p < e && *p != ' ')
		p++;
	end->kind = kind_of(w, p);
	if (end->kind == RD_FAB_UNKNOWN)
		return false;
	p = rd_fab_skip_sp(p, e);
	if (!rd_fab_scan_uint(&p, e, 0xffff, &end->lid))
		return false;
	p = rd_fab_skip_sp(p, e);
	if (!rd_fab_scan_uint(&p, e, 255, &end->port))
		return false;
	p = rd_fab_skip_sp(p, e);
	if (!rd_fab_scan_hex(&p, e, &end->guid))
		return false;
	*pp = p;
	return true;
}

/* ibnetdiscover's speed names (mad_dump_linkspeed's short form) in Gb/s per lane. */
static double net_speed(const char *b, const char *e, char *name, size_t cap)
{
	static const struct {
		const char *n;
		double gbps;
	} tab[] = {{"SDR", 2.5},	{"DDR", 5.0},	   {"QDR", 10.0},   {"FDR10", 10.3125}, {"FDR", 14.0625},
		   {"EDR", 25.78125}, {"HDR", 53.125}, {"NDR", 106.25}, {"XDR", 212.5}};
	size_t n = (size_t)(e - b);
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (strlen(tab[i].n) == n && memcmp(tab[i].n, b, n) == 0) {
			snprintf(name, cap, "%s", tab[i].n);
			return tab[i].gbps;
		}
	return 0;
}

static bool netdiscover_line(struct rd_fabric *f, const char *b, const char *e, unsigned n)
{
	const char *p = b;
	struct rd_fab_link l = {.line = n};
	if (!net_end(&p, e, &l.a))
		return false;
	p = rd_fab_skip_sp(p, e);
	unsigned w;
	if (!rd_fab_scan_uint(&p, e, 64, &w) || !(rd_fab_lit(&p, e, "x") || rd_fab_lit(&p, e, "X")))
		return false;
	l.width = w;
	p = rd_fab_skip_sp(p, e);
	const char *s = p;
	while (p < e && *p != ' ')
		p++;
	l.speed = net_speed(s, p, l.speed_name, sizeof l.speed_name);
	p = rd_fab_skip_sp(p, e);
	if (p < e && *p == '-') {
		p++;
		if (!net_end(&p, e, &l.b))
			return false;
		p = rd_fab_skip_sp(p, e);
		const char *sep = rd_fab_find(p, e, "' - '");
		if (!rd_fab_lit(&p, e, "( '") || !sep || e - p < 3 || memcmp(e - 3, "' )", 3) != 0 || sep < p || sep + 5 > e - 3)
			return false; /* the "' - '" must end before the closing "' )" */
		l.a.desc = rd_fab_trimdup(p, sep);
		l.b.desc = rd_fab_trimdup(sep + 5, e - 3);
		l.has_peer = true;
	} else {
		if (p >= e || *p != '\'' || e[-1] != '\'' || e - p < 2)
			return false;
		l.a.desc = rd_fab_trimdup(p + 1, e - 1);
		l.width = 0; /* an unconnected port's width and speed are not meaningful (C14-24.2.1) */
		l.speed = 0;
		l.speed_name[0] = 0;
		snprintf(l.state, sizeof l.state, "Down");
	}
	if (l.has_peer)
		snprintf(l.state, sizeof l.state, "Linked");
	*new_link(f) = l;
	return true;
}

size_t rd_fab_parse_ibnetdiscover(struct rd_fabric *f, const char *text, size_t len)
{
	return each_line(f, text, len, netdiscover_line);
}

static bool sminfo_line(struct rd_fabric *f, const char *b, const char *e, unsigned n)
{
	(void)n;
	const char *p = b;
	struct rd_fab_sm sm = {0};
	if (!rd_fab_lit(&p, e, "sminfo: sm lid ") || !rd_fab_scan_uint(&p, e, 0xffff, &sm.lid) || !rd_fab_lit(&p, e, " sm guid ") ||
	    !rd_fab_scan_hex(&p, e, &sm.guid) || !rd_fab_lit(&p, e, ", activity count ") || !rd_fab_scan_uint(&p, e, 0xffffffffu, &sm.activity) ||
	    !rd_fab_lit(&p, e, " priority ") || !rd_fab_scan_uint(&p, e, 15, &sm.priority) || !rd_fab_lit(&p, e, " state ") ||
	    !rd_fab_scan_uint(&p, e, 15, &sm.state))
		return false;
	copy_word(sm.state_name, sizeof sm.state_name, p, e);
	sm.read = true;
	f->sm = sm;
	return true;
}

size_t rd_fab_parse_sminfo(struct rd_fabric *f, const char *text, size_t len)
{
	/* its failures ("sminfo: iberror: failed: query") are not lines of the fabric: not counted */
	unsigned skipped = f->skipped, first = f->first_skipped;
	size_t n = each_line(f, text, len, sminfo_line) ? 1 : 0;
	f->skipped = skipped;
	f->first_skipped = first;
	return n;
}
