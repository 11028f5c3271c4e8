/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `fabric --route` and `fabric --pairs` as text or JSON (render/fabric.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/route.h"
#include "render/fabric.h"
#include "render/out.h"

static void guid_str(uint64_t g, char *buf, size_t cap)
{
	snprintf(buf, cap, "0x%016llx", (unsigned long long)g);
}

/* The cable a hop leaves by (its out port), or NULL. */
static const struct rd_fab_link *out_link(const struct rd_fab_router *rt, const struct rd_fab_hop *h)
{
	return h->out_port ? rd_fab_router_link(rt, h->guid, h->out_port, NULL) : NULL;
}

static void port_json(struct rd_out *o, const char *key, const struct rd_fabric *f, uint64_t guid)
{
	const struct rd_fab_node *n = rd_fabric_node(f, guid);
	char g[24];
	rd_out_obj_begin(o, key);
	rd_out_str(o, "host", NULL, n ? n->host : NULL);
	rd_out_str(o, "device", NULL, n ? n->device : NULL);
	guid_str(guid, g, sizeof g);
	rd_out_str(o, "guid", NULL, g);
	rd_out_uint(o, "lid", NULL, n ? n->lid : 0);
	rd_out_obj_end(o);
}

static void hops_json(struct rd_out *o, const struct rd_fab_router *rt, const struct rd_fab_route *r)
{
	char g[24];
	if (r->error) {
		rd_out_null(o, "hops");
		return;
	}
	rd_out_arr_begin(o, "hops");
	for (size_t i = 0; i < r->nhops; i++) {
		const struct rd_fab_hop *h = &r->hops[i];
		const struct rd_fab_link *l = out_link(rt, h);
		rd_out_obj_begin(o, NULL);
		guid_str(h->guid, g, sizeof g);
		rd_out_str(o, "guid", NULL, g);
		rd_out_str(o, "kind", NULL, rd_fab_kind_name(h->kind));
		rd_out_str(o, "desc", NULL, h->desc ? h->desc : "");
		rd_out_uint(o, "lid", NULL, h->lid);
		if (h->in_port)
			rd_out_uint(o, "in_port", NULL, h->in_port);
		else
			rd_out_null(o, "in_port");
		if (h->out_port)
			rd_out_uint(o, "out_port", NULL, h->out_port);
		else
			rd_out_null(o, "out_port");
		if (l) {
			rd_out_uint(o, "width", NULL, l->width);
			rd_out_double(o, "speed_gbps", NULL, l->speed);
			rd_out_str(o, "state", NULL, l->state);
		} else {
			rd_out_null(o, "width");
			rd_out_null(o, "speed_gbps");
			rd_out_null(o, "state");
		}
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
}

static void rate_text(const struct rd_fab_link *l, char *buf, size_t cap)
{
	if (!l)
		snprintf(buf, cap, "(no cable in the fabric's outputs)");
	else if (!l->width)
		snprintf(buf, cap, "down");
	else
		snprintf(buf, cap, "%uX %g Gbps%s%s", l->width, l->speed, strcmp(l->state, "Active") && *l->state ? " " : "",
			 strcmp(l->state, "Active") ? l->state : "");
}

static void route_text(FILE *out, bool a, const struct rd_fab_router *rt, const struct rd_fab_route *r, const char *via)
{
	const struct rd_fab_node *from = rd_fabric_node(rt->f, r->from), *to = rd_fabric_node(rt->f, r->to);
	rd_text_printf(out, a, "Route %s (LID %u) -> %s (LID %u), by %s:\n", from ? from->desc : "?", from ? from->lid : 0,
		       to ? to->desc : "?", to ? to->lid : 0, via);
	if (r->error) {
		rd_text_printf(out, a, "  no route: %s\n", r->error);
		return;
	}
	size_t w = 4;
	for (size_t i = 0; i < r->nhops; i++) {
		size_t n = r->hops[i].desc ? strlen(r->hops[i].desc) : 0;
		if (n > w)
			w = n < 40 ? n : 40;
	}
	for (size_t i = 0; i < r->nhops; i++) {
		const struct rd_fab_hop *h = &r->hops[i];
		char in[16] = "", outp[16] = "", rate[96] = "";
		if (h->in_port)
			snprintf(in, sizeof in, "in %u", h->in_port);
		if (h->out_port) {
			snprintf(outp, sizeof outp, "out %u", h->out_port);
			rate_text(out_link(rt, h), rate, sizeof rate);
		}
		char line[400];
		snprintf(line, sizeof line, "  %-*.*s  0x%016llx  %-6s  %-7s  %s", (int)w, (int)w, h->desc ? h->desc : "",
			 (unsigned long long)h->guid, in, outp, rate);
		size_t n = strlen(line);
		while (n && line[n - 1] == ' ')
			line[--n] = '\0';
		rd_text_printf(out, a, "%s\n", line);
	}
}

void rd_render_fabric_routes(FILE *out, bool json, const struct rd_fab_router *rt, const struct rd_fab_route *routes,
			     size_t n, const struct rd_fabric_route_meta *m)
{
	if (!json) {
		for (size_t i = 0; i < n; i++) {
			if (i)
				rd_text_printf(out, m->ascii, "\n");
			route_text(out, m->ascii, rt, &routes[i], m->via);
		}
		if (m->rails_a != m->rails_b)
			rd_text_printf(out, m->ascii, "\n%s has %zu CA ports, %s %zu: rail i to rail i, %zu routes\n", m->host_a,
				       m->rails_a, m->host_b, m->rails_b, n);
		return;
	}
	struct rd_out o;
	rd_out_init(&o, out, true);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/fabric-route/v1");
	rd_out_str(&o, "time", NULL, m->time);
	rd_out_str(&o, "source", NULL, m->source);
	rd_out_str(&o, "via", NULL, m->via);
	rd_out_str(&o, "from", NULL, m->host_a);
	rd_out_str(&o, "to", NULL, m->host_b);
	rd_out_arr_begin(&o, "routes");
	for (size_t i = 0; i < n; i++) {
		rd_out_obj_begin(&o, NULL);
		port_json(&o, "from", rt->f, routes[i].from);
		port_json(&o, "to", rt->f, routes[i].to);
		rd_out_str(&o, "error", NULL, routes[i].error);
		hops_json(&o, rt, &routes[i]);
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
}

static const char *verdict(const struct rd_fab_jpair *x)
{
	return x->is_slow ? "slow" : x->is_fast ? "healthy" : "mixed";
}

static void end_json(struct rd_out *o, const char *key, const struct rd_fabric *f, const struct rd_fab_end *e)
{
	const struct rd_fab_node *n = rd_fabric_node(f, e->guid);
	char g[24];
	rd_out_obj_begin(o, key);
	guid_str(e->guid, g, sizeof g);
	rd_out_str(o, "guid", NULL, g);
	rd_out_uint(o, "port", NULL, e->port);
	rd_out_str(o, "desc", NULL, n && n->desc ? n->desc : e->desc ? e->desc : "");
	rd_out_obj_end(o);
}

static void end_text(const struct rd_fabric *f, const struct rd_fab_end *e, char *buf, size_t cap)
{
	const struct rd_fab_node *n = rd_fabric_node(f, e->guid);
	const char *d = n && n->desc && *n->desc ? n->desc : e->desc && *e->desc ? e->desc : NULL;
	if (d)
		snprintf(buf, cap, "%s[%u]", d, e->port);
	else
		snprintf(buf, cap, "0x%016llx[%u]", (unsigned long long)e->guid, e->port);
}

struct linkrow {
	size_t link, slow, healthy;
};

static int linkrow_cmp(const void *a, const void *b)
{
	const struct linkrow *x = a, *y = b;
	if (x->slow != y->slow)
		return x->slow > y->slow ? -1 : 1;
	if (x->healthy != y->healthy)
		return x->healthy < y->healthy ? -1 : 1;
	return (x->link > y->link) - (x->link < y->link);
}

/* The cables some pair crosses, those of the most slow pairs first. */
static size_t link_rows(const struct rd_fab_join *j, const struct rd_fabric *f, struct linkrow **rows)
{
	size_t *slow, *healthy, n = 0;
	rd_fab_join_counts(j, f, &slow, &healthy);
	*rows = rd_xcalloc(f->nlinks + 1, sizeof **rows);
	for (size_t l = 0; l < f->nlinks; l++)
		if (slow[l] || healthy[l])
			(*rows)[n++] = (struct linkrow){l, slow[l], healthy[l]};
	if (n > 1)
		qsort(*rows, n, sizeof **rows, linkrow_cmp);
	free(slow);
	free(healthy);
	return n;
}

void rd_render_fabric_join(FILE *out, bool json, const struct rd_fab_router *rt, const struct rd_fab_join *j,
			   const struct rd_report *r, const struct rd_fabric_route_meta *m)
{
	const struct rd_fabric *f = rt->f;
	size_t slow = 0, fast = 0, mixed = 0, routed = 0;
	for (size_t i = 0; i < j->n; i++) {
		slow += j->v[i].is_slow;
		fast += j->v[i].is_fast;
		mixed += !j->v[i].is_slow && !j->v[i].is_fast;
		routed += !j->v[i].route.error && j->v[i].nlinks;
	}
	struct linkrow *rows;
	size_t nrows = link_rows(j, f, &rows);
	if (!json) {
		bool a = m->ascii;
		rd_text_printf(out, a, "Pairs on the fabric (%s): %zu pairs, %zu slow, %zu healthy, %zu mixed, %zu without a "
				       "result; %zu routed by %s\n",
			       m->source, j->n + j->failed, slow, fast, mixed, j->failed, routed, m->via);
		size_t shown = 0;
		for (size_t k = 0; k < nrows && rows[k].slow; k++) {
			char x[200], y[200];
			const struct rd_fab_link *l = &f->links[rows[k].link];
			if (!shown++)
				rd_text_printf(out, a, "\nCables the slow pairs cross (slow pairs, healthy pairs):\n");
			if (shown > 20) {
				rd_text_printf(out, a, "  ...\n");
				break;
			}
			end_text(f, &l->a, x, sizeof x);
			end_text(f, &l->b, y, sizeof y);
			rd_text_printf(out, a, "  %4zu %4zu  %s - %s  %uX %g Gbps\n", rows[k].slow, rows[k].healthy, x, y, l->width,
				       l->speed);
		}
		for (size_t i = 0; i < j->n; i++)
			if (j->v[i].route.error)
				rd_text_printf(out, a, "%s %s -> %s %s: no route: %s\n", j->v[i].client, j->v[i].client_dev,
					       j->v[i].server, j->v[i].server_dev, j->v[i].route.error);
		rd_text_printf(out, a, "\n");
		rd_render_fabric_findings_text(out, a, r);
		free(rows);
		return;
	}
	struct rd_out o;
	rd_out_init(&o, out, true);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/fabric-pairs/v1");
	rd_out_str(&o, "time", NULL, m->time);
	rd_out_str(&o, "source", NULL, m->source);
	rd_out_str(&o, "via", NULL, m->via);
	rd_out_obj_begin(&o, "summary");
	rd_out_str(&o, "status", NULL, rd_status_name(rd_report_status(r)));
	rd_out_uint(&o, "pairs", NULL, j->n + j->failed);
	rd_out_uint(&o, "slow", NULL, slow);
	rd_out_uint(&o, "healthy", NULL, fast);
	rd_out_uint(&o, "mixed", NULL, mixed);
	rd_out_uint(&o, "without_result", NULL, j->failed);
	rd_out_uint(&o, "routed", NULL, routed);
	rd_out_obj_end(&o);
	rd_out_arr_begin(&o, "pairs");
	for (size_t i = 0; i < j->n; i++) {
		const struct rd_fab_jpair *x = &j->v[i];
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "client", NULL, x->client);
		rd_out_str(&o, "client_device", NULL, x->client_dev);
		rd_out_str(&o, "server", NULL, x->server);
		rd_out_str(&o, "server_device", NULL, x->server_dev);
		rd_out_str(&o, "verdict", NULL, verdict(x));
		rd_out_double(&o, "gbps", NULL, x->gbps);
		rd_out_uint(&o, "slow_samples", NULL, x->slow);
		rd_out_uint(&o, "fast_samples", NULL, x->fast);
		rd_out_str(&o, "error", NULL, x->route.error);
		hops_json(&o, rt, &x->route);
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	rd_out_arr_begin(&o, "links");
	for (size_t k = 0; k < nrows; k++) {
		const struct rd_fab_link *l = &f->links[rows[k].link];
		rd_out_obj_begin(&o, NULL);
		end_json(&o, "a", f, &l->a);
		end_json(&o, "b", f, &l->b);
		rd_out_uint(&o, "width", NULL, l->width);
		rd_out_double(&o, "speed_gbps", NULL, l->speed);
		rd_out_uint(&o, "slow_pairs", NULL, rows[k].slow);
		rd_out_uint(&o, "healthy_pairs", NULL, rows[k].healthy);
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	rd_render_fabric_findings_json(&o, r);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
	free(rows);
}
