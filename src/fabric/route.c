/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Routes between CA ports (route.h).  The formats, from rdma-core v44 infiniband-diags:
 *   ibtracert.c dump_endnode: "%s %s {0x%016x} portnum %d lid %u-%u \"%s\"" (From/To, the node
 *     type "ca", "switch", "router", the node GUID, the port, the LID range, the description);
 *   ibtracert.c dump_route: "[%d] -> %s port {0x%016x}[%d] lid %u-%u \"%s\"" (the previous
 *     node's out port, the type, the port GUID, the in port, the LID range, the description);
 *   dump_fts.c and ibroute.c dump_unicast_tables: "Unicast lids [0x%x-0x%x] of switch %s guid
 *     0x%016x (%s):", two heading lines, "0x%04x %03u %s" per LID, "%d %slids dumped ". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/route.h"
#include "fabric/scan.h"

#define DESC_MAX 128

void rd_fab_route_free(struct rd_fab_route *r)
{
	for (size_t i = 0; i < r->nhops; i++)
		free(r->hops[i].desc);
	free(r->hops);
	free(r->error);
	memset(r, 0, sizeof *r);
}

static struct rd_fab_hop *push_hop(struct rd_fab_route *r)
{
	r->hops = rd_grow(r->hops, r->nhops, sizeof *r->hops);
	struct rd_fab_hop *h = &r->hops[r->nhops++];
	memset(h, 0, sizeof *h);
	return h;
}

static char *desc_dup(const char *b, const char *e)
{
	if (e - b > DESC_MAX)
		e = b + DESC_MAX;
	return rd_fab_trimdup(b, e);
}

/* ---- ibtracert ---------------------------------------------------------------------------- */

static enum rd_fab_kind tr_kind(const char *b, const char *e)
{
	size_t n = (size_t)(e - b);
	if (n == 2 && memcmp(b, "ca", 2) == 0)
		return RD_FAB_CA;
	if (n == 6 && memcmp(b, "switch", 6) == 0)
		return RD_FAB_SW;
	if (n == 6 && memcmp(b, "router", 6) == 0)
		return RD_FAB_RT;
	return RD_FAB_UNKNOWN;
}

/* "lid L-H \"desc\"" to the end of the line */
static bool tr_lid_desc(const char *p, const char *e, unsigned *lid, char **desc)
{
	unsigned hi;
	if (!rd_fab_lit(&p, e, " lid ") || !rd_fab_scan_uint(&p, e, 0xffff, lid) || !rd_fab_lit(&p, e, "-") ||
	    !rd_fab_scan_uint(&p, e, 0xffff, &hi) || !rd_fab_lit(&p, e, " \"") || e - p < 1 || e[-1] != '"')
		return false;
	*desc = desc_dup(p, e - 1);
	return true;
}

/* "From TYPE {0xGUID} portnum N lid L-H \"desc\"" (or "To ...") */
static bool tr_end(const char *p, const char *e, const char *word, struct rd_fab_hop *h)
{
	if (!rd_fab_lit(&p, e, word))
		return false;
	const char *brace = rd_fab_find(p, e, " {");
	if (!brace)
		return false;
	h->kind = tr_kind(p, brace);
	p = brace + 2;
	unsigned port;
	if (!rd_fab_scan_hex(&p, e, &h->guid) || !rd_fab_lit(&p, e, "} portnum ") || !rd_fab_scan_uint(&p, e, 255, &port))
		return false;
	h->out_port = port;
	return tr_lid_desc(p, e, &h->lid, &h->desc);
}

/* "[OUT] -> TYPE port {0xGUID}[IN] lid L-H \"desc\"" */
static bool tr_hop(const char *p, const char *e, unsigned *out, struct rd_fab_hop *h)
{
	if (!rd_fab_lit(&p, e, "[") || !rd_fab_scan_uint(&p, e, 255, out) || !rd_fab_lit(&p, e, "] -> "))
		return false;
	const char *w = rd_fab_find(p, e, " port {");
	if (!w)
		return false;
	h->kind = tr_kind(p, w);
	p = w + strlen(" port {");
	if (!rd_fab_scan_hex(&p, e, &h->guid) || !rd_fab_lit(&p, e, "}[") || !rd_fab_scan_uint(&p, e, 255, &h->in_port) ||
	    !rd_fab_lit(&p, e, "]"))
		return false;
	return tr_lid_desc(p, e, &h->lid, &h->desc);
}

int rd_fab_parse_ibtracert(const char *text, size_t len, struct rd_fab_route *r, char *err, size_t errlen)
{
	enum { BEFORE, IN, DONE } state = BEFORE;
	unsigned n = 0;
	int rc = 0;
	for (const char *p = text ? text : "", *end = p + (text ? len : 0); p < end && state != DONE;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *s = rd_fab_skip_sp(p, e);
		while (e > s && (e[-1] == '\r' || e[-1] == ' '))
			e--;
		p = nl ? nl + 1 : end;
		n++;
		struct rd_fab_hop h = {0};
		unsigned out;
		if (state == BEFORE && tr_end(s, e, "From ", &h)) {
			if (h.kind == RD_FAB_SW)
				h.out_port = 0; /* a switch's portnum is printed 0; its out port comes next */
			*push_hop(r) = h;
			state = IN;
		} else if (state == IN && tr_hop(s, e, &out, &h)) {
			if (r->nhops > RD_FAB_MAX_HOPS) {
				free(h.desc);
				snprintf(err, errlen, "line %u: more than %d hops", n, RD_FAB_MAX_HOPS);
				rc = -EINVAL;
				break;
			}
			r->hops[r->nhops - 1].out_port = out;
			*push_hop(r) = h;
		} else if (state == IN && tr_end(s, e, "To ", &h)) {
			bool same = h.lid == r->hops[r->nhops - 1].lid;
			free(h.desc);
			if (!same) {
				snprintf(err, errlen, "line %u: \"To\" LID %u is not the last hop's (%u)", n, h.lid,
					 r->hops[r->nhops - 1].lid);
				rc = -EINVAL;
				break;
			}
			r->hops[r->nhops - 1].out_port = 0;
			state = DONE;
		} else {
			free(h.desc);
		}
	}
	if (rc == 0 && state != DONE) {
		snprintf(err, errlen, state == BEFORE ? "no \"From\" line" : "no \"To\" line");
		rc = -EINVAL;
	}
	if (rc == 0 && r->nhops < 2) {
		snprintf(err, errlen, "no hop between \"From\" and \"To\"");
		rc = -EINVAL;
	}
	if (rc < 0) {
		for (size_t i = 0; i < r->nhops; i++)
			free(r->hops[i].desc);
		free(r->hops);
		r->hops = NULL;
		r->nhops = 0;
	}
	return rc;
}

/* ---- forwarding tables -------------------------------------------------------------------- */

void rd_fab_lfts_free(struct rd_fab_lfts *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->sw[i].desc);
		free(t->sw[i].v);
	}
	free(t->sw);
	memset(t, 0, sizeof *t);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct rd_fab_lft_entry *x = a, *y = b;
	return (x->lid > y->lid) - (x->lid < y->lid);
}

/* "Unicast lids [0x0-0xa] of switch PORTID guid 0xGUID (desc):" */
static bool lft_header(const char *p, const char *e, uint64_t *guid, char **desc)
{
	if (!rd_fab_lit(&p, e, "Unicast lids ["))
		return false;
	const char *of = rd_fab_find(p, e, "] of switch ");
	const char *g = of ? rd_fab_find(of, e, " guid 0x") : NULL;
	if (!g)
		return false;
	p = g + strlen(" guid ");
	if (!rd_fab_scan_hex(&p, e, guid) || !rd_fab_lit(&p, e, " (") || e - p < 2 || memcmp(e - 2, "):", 2) != 0)
		return false;
	*desc = desc_dup(p, e - 2);
	return true;
}

static bool word_line(const char *s, const char *e, const char *w)
{
	return (size_t)(e - s) == strlen(w) && memcmp(s, w, (size_t)(e - s)) == 0;
}

/* "N valid lids dumped", "N lids dumped" (and the same of mlids) */
static bool count_line(const char *p, const char *e)
{
	unsigned n;
	if (!rd_fab_scan_uint(&p, e, 0xffffffu, &n) || !rd_fab_lit(&p, e, " "))
		return false;
	(void)rd_fab_lit(&p, e, "valid ");
	return word_line(p, e, "lids dumped") || word_line(p, e, "mlids dumped");
}

struct ordered {
	struct rd_fab_lft_entry e;
	size_t pos;
};

static int ordered_cmp(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;
	if (x->e.lid != y->e.lid)
		return (x->e.lid > y->e.lid) - (x->e.lid < y->e.lid);
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static void lft_sort(struct rd_fab_lft *x)
{
	if (x->n < 2)
		return;
	struct ordered *o = rd_xcalloc(x->n, sizeof *o);
	for (size_t k = 0; k < x->n; k++)
		o[k] = (struct ordered){x->v[k], k};
	qsort(o, x->n, sizeof *o, ordered_cmp);
	size_t w = 0;
	for (size_t k = 0; k < x->n; k++)
		if (!w || x->v[w - 1].lid != o[k].e.lid)
			x->v[w++] = o[k].e;
	x->n = w;
	free(o);
}

/* dump_fts -M's lines: "0xc000      x   x", "     Ports: 0 1 2", " MLid", "            0 1" */
static bool mcast_line(const char *s, const char *e)
{
	const char *q = s;
	if (rd_fab_lit(&q, e, "0x") || rd_fab_lit(&q, e, "Ports:") || rd_fab_lit(&q, e, "MLid"))
		return true;
	for (; q < e; q++)
		if (!(*q == ' ' || (*q >= '0' && *q <= '9')))
			return false;
	return true;
}

static struct rd_fab_lft *lft_find_mut(struct rd_fab_lfts *t, uint64_t guid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->sw[i].guid == guid)
			return &t->sw[i];
	return NULL;
}

size_t rd_fab_parse_lfts(struct rd_fab_lfts *t, const char *text, size_t len)
{
	size_t tables = 0;
	struct rd_fab_lft *cur = NULL;
	bool mcast = false;
	unsigned n = 0;
	for (const char *p = text ? text : "", *end = p + (text ? len : 0); p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *s = rd_fab_skip_sp(p, e);
		while (e > s && (e[-1] == '\r' || e[-1] == ' '))
			e--;
		p = nl ? nl + 1 : end;
		n++;
		if (s == e)
			continue;
		uint64_t guid;
		char *desc = NULL;
		const char *q = s;
		unsigned lid, port;
		if (lft_header(s, e, &guid, &desc)) {
			cur = lft_find_mut(t, guid);
			if (!cur) {
				t->sw = rd_grow(t->sw, t->n, sizeof *t->sw);
				cur = &t->sw[t->n++];
				memset(cur, 0, sizeof *cur);
				cur->guid = guid;
				cur->desc = desc;
				desc = NULL;
			}
			free(desc);
			mcast = false;
			tables++;
		} else if (rd_fab_lit(&q, e, "Multicast mlids [")) {
			cur = NULL;
			mcast = true;
		} else if (word_line(s, e, "Lid  Out   Destination") || word_line(s, e, "Port     Info") ||
			   count_line(s, e) || word_line(s, e, "*** WARNING ***: this command has been replaced by dump_fts")) {
			/* dump_fts's headings and counts; dump_lfts.sh's notice after it */
		} else if (mcast && mcast_line(s, e)) {
			/* a multicast table's lines: not routes */
		} else if (cur && s[0] == '0') {
			uint64_t v;
			q = s;
			if (rd_fab_scan_hex(&q, e, &v) && v <= 0xffff && q < e && *q == ' ' &&
			    (q = rd_fab_skip_sp(q, e), rd_fab_scan_uint(&q, e, 255, &port)) && (q == e || *q == ' ')) {
				lid = (unsigned)v;
				if (cur->n == cur->cap) {
					cur->cap = cur->cap ? 2 * cur->cap : 64;
					cur->v = realloc(cur->v, cur->cap * sizeof *cur->v);
					if (!cur->v)
						abort();
				}
				cur->v[cur->n].lid = (uint16_t)lid;
				cur->v[cur->n].port = (uint8_t)port;
				cur->n++;
			} else {
				t->skipped++;
				if (!t->first_skipped)
					t->first_skipped = n;
			}
		} else {
			t->skipped++;
			if (!t->first_skipped)
				t->first_skipped = n;
		}
	}
	/* each table by LID, the first entry of a LID kept (a table printed twice, another dump after) */
	for (size_t i = 0; i < t->n; i++)
		lft_sort(&t->sw[i]);
	return tables;
}

int rd_fab_lft_port(const struct rd_fab_lfts *t, uint64_t guid, unsigned lid)
{
	if (!t || lid > 0xffff)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		if (t->sw[i].guid != guid)
			continue;
		struct rd_fab_lft_entry key = {.lid = (uint16_t)lid};
		const struct rd_fab_lft_entry *x = t->sw[i].n ? bsearch(&key, t->sw[i].v, t->sw[i].n, sizeof key, entry_cmp) : NULL;
		return x ? x->port : -1;
	}
	return -1;
}

/* ---- the cables by their ends ------------------------------------------------------------- */

struct rd_fab_portref {
	uint64_t guid;
	unsigned port;
	size_t link;
	bool b; /* the port is the link's b end */
};

static int portref_cmp(const void *a, const void *b)
{
	const struct rd_fab_portref *x = a, *y = b;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

void rd_fab_router_init(struct rd_fab_router *rt, const struct rd_fabric *f, const struct rd_fab_lfts *lfts)
{
	memset(rt, 0, sizeof *rt);
	rt->f = f;
	rt->lfts = lfts;
	rt->ports = rd_xcalloc(2 * f->nlinks + 1, sizeof *rt->ports);
	for (size_t i = 0; i < f->nlinks; i++) {
		const struct rd_fab_link *l = &f->links[i];
		if (!l->has_peer)
			continue;
		rt->ports[rt->nports++] = (struct rd_fab_portref){l->a.guid, l->a.port, i, false};
		rt->ports[rt->nports++] = (struct rd_fab_portref){l->b.guid, l->b.port, i, true};
	}
	if (rt->nports > 1)
		qsort(rt->ports, rt->nports, sizeof *rt->ports, portref_cmp);
}

void rd_fab_router_free(struct rd_fab_router *rt)
{
	free(rt->ports);
	memset(rt, 0, sizeof *rt);
}

const struct rd_fab_link *rd_fab_router_link(const struct rd_fab_router *rt, uint64_t guid, unsigned port,
					     const struct rd_fab_end **peer)
{
	struct rd_fab_portref key = {.guid = guid, .port = port};
	const struct rd_fab_portref *x = rt->nports ? bsearch(&key, rt->ports, rt->nports, sizeof key, portref_cmp) : NULL;
	if (!x)
		return NULL;
	const struct rd_fab_link *l = &rt->f->links[x->link];
	if (peer)
		*peer = x->b ? &l->a : &l->b;
	return l;
}

/* The cable of a CA port (its one cabled port), or NULL; *self its end. */
static const struct rd_fab_link *ca_link(const struct rd_fab_router *rt, uint64_t guid, const struct rd_fab_end **self,
					 const struct rd_fab_end **peer)
{
	size_t lo = 0, hi = rt->nports;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rt->ports[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= rt->nports || rt->ports[lo].guid != guid)
		return NULL;
	const struct rd_fab_link *l = &rt->f->links[rt->ports[lo].link];
	*self = rt->ports[lo].b ? &l->b : &l->a;
	*peer = rt->ports[lo].b ? &l->a : &l->b;
	return l;
}

static int node_rail_cmp(const void *a, const void *b)
{
	const struct rd_fab_node *x = *(const struct rd_fab_node *const *)a, *y = *(const struct rd_fab_node *const *)b;
	int c = strverscmp(x->device ? x->device : "", y->device ? y->device : ""); /* mlx5_2 before mlx5_10 */
	if (c)
		return c;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

size_t rd_fab_host_ports(const struct rd_fabric *f, const char *host, const struct rd_fab_node ***out)
{
	size_t n = 0;
	*out = NULL;
	for (size_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].kind == RD_FAB_CA && f->nodes[i].host && strcmp(f->nodes[i].host, host) == 0) {
			*out = rd_grow(*out, n, sizeof **out);
			(*out)[n++] = &f->nodes[i];
		}
	if (n > 1)
		qsort(*out, n, sizeof **out, node_rail_cmp);
	return n;
}

const struct rd_fab_node *rd_fab_host_port(const struct rd_fabric *f, const char *host, const char *device)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct rd_fab_node *n = &f->nodes[i];
		if (n->kind == RD_FAB_CA && n->host && n->device && strcmp(n->host, host) == 0 &&
		    strcmp(n->device, device) == 0)
			return n;
	}
	return NULL;
}

static void node_label(const struct rd_fab_node *n, uint64_t guid, char *buf, size_t cap)
{
	if (n && n->desc && *n->desc)
		snprintf(buf, cap, "%s", n->desc);
	else
		snprintf(buf, cap, "0x%016llx", (unsigned long long)guid);
}

static int route_error(struct rd_fab_route *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int route_error(struct rd_fab_route *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char buf[400];
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	free(r->error);
	r->error = rd_xstrdup(buf);
	for (size_t i = 0; i < r->nhops; i++)
		free(r->hops[i].desc);
	free(r->hops);
	r->hops = NULL;
	r->nhops = 0;
	return -1;
}

int rd_fab_route_lft(const struct rd_fab_router *rt, const struct rd_fab_node *from, const struct rd_fab_node *to,
		     struct rd_fab_route *r)
{
	const struct rd_fabric *f = rt->f;
	char name[200];
	memset(r, 0, sizeof *r);
	r->from = from->guid;
	r->to = to->guid;
	if (!rt->lfts || !rt->lfts->n)
		return route_error(r, "no forwarding tables (dump_fts) were read");
	if (!to->lid)
		return route_error(r, "%s has no LID (no subnet manager configured it)", to->desc);
	const struct rd_fab_end *self, *cur;
	if (!ca_link(rt, from->guid, &self, &cur))
		return route_error(r, "%s has no cable", from->desc);
	struct rd_fab_hop *h = push_hop(r);
	h->guid = from->guid;
	h->desc = rd_xstrdup(from->desc);
	h->kind = RD_FAB_CA;
	h->lid = from->lid;
	h->out_port = self->port;
	for (int hops = 0; hops < RD_FAB_MAX_HOPS; hops++) {
		const struct rd_fab_node *n = rd_fabric_node(f, cur->guid);
		node_label(n, cur->guid, name, sizeof name);
		if (cur->guid == to->guid) {
			h = push_hop(r);
			h->guid = to->guid;
			h->desc = rd_xstrdup(to->desc);
			h->kind = RD_FAB_CA;
			h->lid = to->lid;
			h->in_port = cur->port;
			return 0;
		}
		if (!n || n->kind != RD_FAB_SW)
			return route_error(r, "the route toward LID %u reaches %s port %u, not a switch nor %s", to->lid, name,
					   cur->port, to->desc);
		int out = rd_fab_lft_port(rt->lfts, cur->guid, to->lid);
		if (out < 0)
			return route_error(r, "switch %s (0x%016llx) has no forwarding table entry for LID %u", name,
					   (unsigned long long)cur->guid, to->lid);
		if (out == 0)
			return route_error(r, "switch %s forwards LID %u to its own port 0", name, to->lid);
		h = push_hop(r);
		h->guid = cur->guid;
		h->desc = rd_xstrdup(name);
		h->kind = RD_FAB_SW;
		h->lid = n->lid;
		h->in_port = cur->port;
		h->out_port = (unsigned)out;
		const struct rd_fab_end *peer;
		if (!rd_fab_router_link(rt, cur->guid, (unsigned)out, &peer))
			return route_error(r, "switch %s forwards LID %u to port %d, which has no cable", name, to->lid, out);
		cur = peer;
	}
	return route_error(r, "no route to LID %u within %d hops (a loop in the forwarding tables)", to->lid,
			   RD_FAB_MAX_HOPS);
}

int rd_fab_route_live(struct rd_source *src, const struct rd_fab_node *from, const struct rd_fab_node *to,
		      struct rd_fab_route *r)
{
	memset(r, 0, sizeof *r);
	r->from = from->guid;
	r->to = to->guid;
	if (!from->lid || !to->lid)
		return route_error(r, "%s has no LID (no subnet manager configured it)", !from->lid ? from->desc : to->desc);
	char slid[16], dlid[16], name[48], err[200];
	snprintf(slid, sizeof slid, "%u", from->lid);
	snprintf(dlid, sizeof dlid, "%u", to->lid);
	snprintf(name, sizeof name, "ibtracert-%u-%u", from->lid, to->lid);
	const char *argv[] = {"ibtracert", slid, dlid, NULL};
	struct rd_text out = {0};
	int rc = rd_run_fabric_command(src, name, argv, 10000, &out);
	if (rc < 0 || out.err) {
		int e = out.err ? out.err : -rc;
		rd_text_free(&out);
		return route_error(r, "ibtracert %s %s: %s", slid, dlid,
				   e == RD_ENOTCAPTURED ? "not captured" : e == ENOENT ? "not installed (infiniband-diags)" : rd_strerror(e));
	}
	if (out.status != 0) {
		int st = out.status;
		rd_text_free(&out);
		return route_error(r, "ibtracert %s %s: exit status %d (no route between the two LIDs)", slid, dlid, st);
	}
	rc = rd_fab_parse_ibtracert(out.data, out.len, r, err, sizeof err);
	rd_text_free(&out);
	if (rc < 0)
		return route_error(r, "ibtracert %s %s: %s", slid, dlid, err);
	if (r->hops[0].lid != from->lid || r->hops[r->nhops - 1].guid != to->guid)
		return route_error(r, "ibtracert %s %s: a route from LID %u to 0x%016llx, not from %s to %s", slid, dlid,
				   r->hops[0].lid, (unsigned long long)r->hops[r->nhops - 1].guid, from->desc, to->desc);
	r->hops[0].guid = from->guid; /* From prints the node's GUID; the model knows the port's */
	return 0;
}
