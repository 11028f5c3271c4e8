/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `fabric` as text or JSON, and the reference file (render/fabric.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/fabric.h"
#include "render/out.h"

static const char *status_order_names[] = {"FAIL", "WARN", "UNKNOWN", "OK", "SKIP"};
static const enum rd_status status_order[] = {RD_FAIL, RD_WARN, RD_UNKNOWN, RD_OK, RD_SKIP};

struct counts {
	size_t sw, ca, hosts, cabled, uncabled, active;
};

static void count(const struct rd_fabric *f, struct counts *c)
{
	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < f->nnodes; i++) {
		if (f->nodes[i].kind == RD_FAB_SW)
			c->sw++;
		else if (f->nodes[i].kind == RD_FAB_CA)
			c->ca++;
		if (f->nodes[i].host) {
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++)
				seen = f->nodes[j].host && strcmp(f->nodes[j].host, f->nodes[i].host) == 0;
			c->hosts += !seen;
		}
	}
	for (size_t i = 0; i < f->nlinks; i++) {
		if (f->links[i].has_peer) {
			c->cabled++;
			c->active += strcmp(f->links[i].state, "Active") == 0;
		} else {
			c->uncabled++;
		}
	}
}

static const char *input_state(const struct rd_fab_input *in, char *buf, size_t cap)
{
	if (in->text.err == RD_ENOTCAPTURED)
		return "not read";
	if (in->text.err)
		snprintf(buf, cap, "error: %s", rd_strerror(in->text.err));
	else if (in->text.status == 1 && strcmp(in->name, "ibqueryerrors") == 0)
		snprintf(buf, cap, "read"); /* its exit status when a counter is above its threshold */
	else if (in->text.status > 0)
		snprintf(buf, cap, "exit status %d", in->text.status);
	else
		snprintf(buf, cap, "read");
	return buf;
}

static void end_json(struct rd_out *o, const char *key, const struct rd_fab_end *e)
{
	char g[24];
	rd_out_obj_begin(o, key);
	snprintf(g, sizeof g, "0x%016llx", (unsigned long long)e->guid);
	rd_out_str(o, "guid", NULL, g);
	rd_out_uint(o, "port", NULL, e->port);
	rd_out_uint(o, "lid", NULL, e->lid);
	rd_out_str(o, "kind", NULL, rd_fab_kind_name(e->kind));
	rd_out_str(o, "desc", NULL, e->desc ? e->desc : "");
	rd_out_obj_end(o);
}

void rd_render_fabric_findings_json(struct rd_out *o, const struct rd_report *r)
{
	rd_out_arr_begin(o, "findings");
	for (size_t i = 0; i < r->n; i++) {
		const struct rd_finding *fd = &r->findings[i];
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "check", NULL, fd->check);
		rd_out_str(o, "status", NULL, rd_status_name(fd->status));
		rd_out_str(o, "subject", NULL, fd->subject);
		rd_out_str(o, "message", NULL, fd->message);
		rd_out_arr_begin(o, "evidence");
		for (size_t e = 0; e < fd->nevidence; e++) {
			rd_out_obj_begin(o, NULL);
			rd_out_str(o, "path", NULL, fd->evidence[e].path);
			rd_out_str(o, "value", NULL, fd->evidence[e].value);
			rd_out_obj_end(o);
		}
		rd_out_arr_end(o);
		rd_out_arr_begin(o, "fix");
		for (size_t x = 0; x < fd->fix.n; x++)
			rd_out_item_str(o, NULL, fd->fix.v[x]);
		rd_out_arr_end(o);
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
}

void rd_render_fabric_findings_text(FILE *out, bool a, const struct rd_report *r)
{
	for (size_t s = 0; s < 5; s++)
		for (size_t i = 0; i < r->n; i++) {
			const struct rd_finding *fd = &r->findings[i];
			if (fd->status != status_order[s])
				continue;
			rd_text_printf(out, a, "%-7s %s  %s\n", rd_status_name(fd->status), fd->check, fd->subject);
			rd_text_printf(out, a, "        %s\n", fd->message);
			for (size_t e = 0; e < fd->nevidence; e++)
				rd_text_printf(out, a, "        evidence: %s: %s\n", fd->evidence[e].path, fd->evidence[e].value);
			for (size_t x = 0; x < fd->fix.n; x++)
				rd_text_printf(out, a, "        fix: %s\n", fd->fix.v[x]);
		}
	size_t n[5] = {0};
	for (size_t i = 0; i < r->n; i++)
		for (size_t s = 0; s < 5; s++)
			n[s] += r->findings[i].status == status_order[s];
	enum rd_status worst = rd_report_status(r);
	if (r->n)
		rd_text_printf(out, a, "\n");
	rd_text_printf(out, a, "Status: %s (%zu FAIL, %zu WARN, %zu UNKNOWN, %zu OK)\n", rd_status_name(worst), n[0],
		       n[1], n[2], n[3]);
}

static void json(FILE *out, const struct rd_fabric *f, const struct rd_report *r, const struct rd_fabric_meta *m)
{
	struct rd_out o;
	struct counts c;
	char buf[64];
	count(f, &c);
	rd_out_init(&o, out, true);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/fabric/v1");
	rd_out_str(&o, "time", NULL, m->time);
	rd_out_str(&o, "source", NULL, m->source);
	rd_out_str(&o, "against", NULL, m->against);
	rd_out_obj_begin(&o, "summary");
	enum rd_status worst = rd_report_status(r);
	rd_out_str(&o, "status", NULL, rd_status_name(worst));
	for (size_t s = 0; s < 5; s++) {
		size_t n = 0;
		for (size_t i = 0; i < r->n; i++)
			n += r->findings[i].status == status_order[s];
		rd_out_uint(&o, status_order_names[s], NULL, n);
	}
	rd_out_uint(&o, "switches", NULL, c.sw);
	rd_out_uint(&o, "cas", NULL, c.ca);
	rd_out_uint(&o, "hosts", NULL, c.hosts);
	rd_out_uint(&o, "links", NULL, c.cabled);
	rd_out_uint(&o, "ports_without_peer", NULL, c.uncabled);
	rd_out_uint(&o, "lines_not_understood", NULL, f->skipped);
	rd_out_obj_end(&o);
	rd_out_arr_begin(&o, "inputs");
	for (int i = 0; m->inputs && i < RD_FAB_NIN; i++) {
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "name", NULL, m->inputs[i].name);
		rd_out_str(&o, "command", NULL, m->inputs[i].command);
		rd_out_str(&o, "state", NULL, input_state(&m->inputs[i], buf, sizeof buf));
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	if (f->sm.read) {
		rd_out_obj_begin(&o, "sm");
		rd_out_uint(&o, "lid", NULL, f->sm.lid);
		snprintf(buf, sizeof buf, "0x%016llx", (unsigned long long)f->sm.guid);
		rd_out_str(&o, "guid", NULL, buf);
		rd_out_uint(&o, "priority", NULL, f->sm.priority);
		rd_out_uint(&o, "state", NULL, f->sm.state);
		rd_out_str(&o, "state_name", NULL, f->sm.state_name);
		rd_out_uint(&o, "activity", NULL, f->sm.activity);
		rd_out_obj_end(&o);
	} else {
		rd_out_null(&o, "sm");
	}
	rd_out_arr_begin(&o, "nodes");
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct rd_fab_node *n = &f->nodes[i];
		rd_out_obj_begin(&o, NULL);
		snprintf(buf, sizeof buf, "0x%016llx", (unsigned long long)n->guid);
		rd_out_str(&o, "guid", NULL, buf);
		rd_out_str(&o, "kind", NULL, rd_fab_kind_name(n->kind));
		rd_out_str(&o, "desc", NULL, n->desc);
		rd_out_str(&o, "host", NULL, n->host);
		rd_out_str(&o, "device", NULL, n->device);
		rd_out_uint(&o, "lid", NULL, n->lid);
		rd_out_int(&o, "level", NULL, n->level);
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	rd_out_arr_begin(&o, "links");
	for (size_t i = 0; i < f->nlinks; i++) {
		const struct rd_fab_link *l = &f->links[i];
		rd_out_obj_begin(&o, NULL);
		end_json(&o, "a", &l->a);
		if (l->has_peer)
			end_json(&o, "b", &l->b);
		else
			rd_out_null(&o, "b");
		rd_out_uint(&o, "width", NULL, l->width);
		rd_out_double(&o, "speed_gbps", NULL, l->speed);
		rd_out_double(&o, "rate_gbps", NULL, rd_fab_rate(l));
		rd_out_str(&o, "speed_name", NULL, l->speed_name[0] ? l->speed_name : NULL);
		rd_out_str(&o, "state", NULL, l->state);
		rd_out_str(&o, "phys_state", NULL, l->phys);
		if (l->could_width)
			rd_out_uint(&o, "could_width", NULL, l->could_width);
		else
			rd_out_null(&o, "could_width");
		if (l->could_speed > 0)
			rd_out_double(&o, "could_speed_gbps", NULL, l->could_speed);
		else
			rd_out_null(&o, "could_speed_gbps");
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	/* ibqueryerrors' per-port counters (null: it was not read) */
	if (f->counters_read) {
		rd_out_arr_begin(&o, "counters");
		for (size_t i = 0; i < f->ncounters; i++) {
			const struct rd_fab_counter *pc = &f->counters[i];
			const struct rd_fab_counter_rule *ru = rd_fab_counter_rule(pc->name);
			rd_out_obj_begin(&o, NULL);
			snprintf(buf, sizeof buf, "0x%016llx", (unsigned long long)pc->guid);
			rd_out_str(&o, "guid", NULL, buf);
			rd_out_uint(&o, "port", NULL, pc->port);
			rd_out_str(&o, "desc", NULL, pc->desc);
			rd_out_str(&o, "name", NULL, pc->name);
			rd_out_uint(&o, "value", NULL, pc->value);
			if (ru) {
				rd_out_uint(&o, "threshold", NULL, ru->threshold);
				rd_out_bool(&o, "saturated", NULL, ru->bits < 64 && pc->value >= (((uint64_t)1 << ru->bits) - 1));
			} else {
				rd_out_null(&o, "threshold");
				rd_out_null(&o, "saturated");
			}
			rd_out_obj_end(&o);
		}
		rd_out_arr_end(&o);
	} else {
		rd_out_null(&o, "counters");
	}
	rd_render_fabric_findings_json(&o, r);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
}

static void text(FILE *out, const struct rd_fabric *f, const struct rd_report *r, const struct rd_fabric_meta *m)
{
	struct counts c;
	char buf[64];
	bool a = m->ascii;
	count(f, &c);
	rd_text_printf(out, a, "Fabric (%s): %zu switches, %zu CA ports on %zu hosts, %zu links (%zu Active), %zu ports "
			       "without a peer\n",
		       m->source, c.sw, c.ca, c.hosts, c.cabled, c.active, c.uncabled);
	for (int i = 0; m->inputs && i < RD_FAB_NIN; i++)
		rd_text_printf(out, a, "  %-30s %s\n", m->inputs[i].command, input_state(&m->inputs[i], buf, sizeof buf));
	if (f->sm.read)
		rd_text_printf(out, a, "Subnet manager: LID %u, GUID 0x%016llx, %s, priority %u\n", f->sm.lid,
			       (unsigned long long)f->sm.guid, f->sm.state_name, f->sm.priority);
	if (f->skipped)
		rd_text_printf(out, a, "%u lines not understood (the first: line %u)\n", f->skipped, f->first_skipped);
	if (m->against)
		rd_text_printf(out, a, "Compared with the reference %s\n", m->against);
	rd_text_printf(out, a, "\n");
	rd_render_fabric_findings_text(out, a, r);
}

void rd_render_fabric(FILE *out, bool as_json, const struct rd_fabric *f, const struct rd_report *r,
		      const struct rd_fabric_meta *m)
{
	if (as_json)
		json(out, f, r, m);
	else
		text(out, f, r, m);
}

void rd_render_fabric_ref(FILE *out, const struct rd_fab_ref *ref)
{
	struct rd_out o;
	char g[24];
	rd_out_init(&o, out, true);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/fabric-ref/v1");
	rd_out_arr_begin(&o, "links");
	for (size_t i = 0; i < ref->n; i++) {
		const struct rd_fab_ref_link *k = &ref->links[i];
		rd_out_obj_begin(&o, NULL);
		for (int e = 0; e < 2; e++) {
			const struct rd_fab_ref_end *x = e ? &k->b : &k->a;
			rd_out_obj_begin(&o, e ? "b" : "a");
			snprintf(g, sizeof g, "0x%016llx", (unsigned long long)x->guid);
			rd_out_str(&o, "guid", NULL, g);
			rd_out_uint(&o, "port", NULL, x->port);
			rd_out_str(&o, "desc", NULL, x->desc ? x->desc : "");
			rd_out_obj_end(&o);
		}
		rd_out_uint(&o, "width", NULL, k->width);
		rd_out_double(&o, "speed", NULL, k->speed);
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
}
