/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "render/probe.h"

#include <string.h>

#include "render/out.h"

#define STEP_INDENT "                                "

static void render_steps(struct rd_out *o, const struct rd_probe_step *steps, size_t n)
{
	rd_out_arr_begin(o, "steps");
	for (size_t i = 0; i < n; i++) {
		const struct rd_probe_step *s = &steps[i];
		rd_out_obj_begin(o, NULL);
		rd_out_text(o, "  %-4s  ", s->ok ? "OK" : "FAIL");
		rd_out_str(o, "name", "%-11s", s->name);
		rd_out_uint(o, "usec", "%8llu us  ", (unsigned long long)s->usec);
		rd_out_bool(o, "ok", NULL, s->ok);
		const char *en = s->err > 0 ? strerrorname_np(s->err) : NULL;
		rd_out_str(o, "errno", NULL, en);
		rd_out_str(o, "error", s->error ? "%s\n" : NULL, s->error);
		if (s->detail)
			rd_out_str(o, "detail", s->error ? STEP_INDENT "%s\n" : "%s\n", s->detail);
		else
			rd_out_null(o, "detail");
		if (!s->error && !s->detail)
			rd_out_text(o, "\n");
		rd_out_arr_begin(o, "fix");
		for (size_t k = 0; k < s->fix.n; k++)
			rd_out_item_str(o, k ? STEP_INDENT "     %s\n" : STEP_INDENT "fix: %s\n", s->fix.v[k]);
		rd_out_arr_end(o);
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
}

static void render_port(struct rd_out *o, const struct rd_probe_port *p)
{
	bool eth = p->link_layer && strcmp(p->link_layer, "Ethernet") == 0;
	rd_out_obj_begin(o, NULL);
	rd_out_str(o, "device", "\n%s", p->device);
	if (p->port)
		rd_out_uint(o, "port", " port %llu", p->port);
	else
		rd_out_null(o, "port");
	rd_out_str(o, "link_layer", p->link_layer ? "  %s" : NULL, p->link_layer);
	rd_out_str(o, "state", p->state ? "  %s" : NULL, p->state);
	if (p->active_mtu)
		rd_out_uint(o, "active_mtu", "  active_mtu %llu", p->active_mtu);
	else
		rd_out_null(o, "active_mtu");
	if (p->state)
		rd_out_uint(o, "lid", eth ? NULL : "  lid %llu", p->lid);
	else
		rd_out_null(o, "lid");
	if (p->gid_index >= 0)
		rd_out_int(o, "gid_index", "  gid[%lld]", p->gid_index);
	else
		rd_out_null(o, "gid_index");
	rd_out_str(o, "gid", p->gid ? " %s" : NULL, p->gid);
	rd_out_str(o, "gid_type", p->gid_type ? " (%s)" : NULL, p->gid_type);
	rd_out_text(o, "\n");
	rd_out_bool(o, "probed", NULL, p->active);
	rd_out_bool(o, "pass", NULL, p->pass);
	rd_out_uint(o, "bytes", NULL, p->bytes);
	rd_out_bool(o, "verified", NULL, p->verified);
	render_steps(o, p->steps, p->nsteps);
	rd_out_obj_end(o);
}

void rd_probe_render(FILE *f, bool json, const struct rd_probe_result *r)
{
	struct rd_out o;
	char words[32];
	rd_out_init(&o, f, json);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/probe/v1");
	rd_out_str(&o, "result", NULL, r->pass ? "pass" : "fail");
	rd_out_str(&o, "error", NULL, r->error);
	rd_out_uint(&o, "size", NULL, r->size);
	rd_out_text(&o, "rdma-doctor probe: RDMA WRITE loopback through libibverbs, memory region of %s\n",
		    rd_size_words(r->size, words, sizeof words));
	rd_out_str(&o, "library", NULL, r->library);
	rd_out_text(&o, "\n");
	render_steps(&o, r->steps, r->nsteps);
	rd_out_arr_begin(&o, "ports");
	for (size_t i = 0; i < r->nports; i++)
		render_port(&o, &r->ports[i]);
	rd_out_arr_end(&o);
	rd_out_obj_end(&o);

	/* the verdict, text only (JSON has result and error above) */
	if (!r->pass) {
		rd_out_text(&o, "\nprobe: FAIL %s\n", r->error ? r->error : "unknown failure");
	} else {
		rd_out_text(&o, "\nprobe: PASS");
		uint64_t bytes = 0;
		size_t k = 0;
		for (size_t i = 0; i < r->nports; i++)
			if (r->ports[i].pass) {
				rd_out_text(&o, "%s %s/%u", k++ ? "," : "", r->ports[i].device, r->ports[i].port);
				bytes = r->ports[i].bytes;
			}
		rd_out_text(&o, " (RDMA WRITE of %llu bytes verified%s)", (unsigned long long)bytes, k > 1 ? " on each" : "");
		k = 0;
		for (size_t i = 0; i < r->nports; i++)
			if (!r->ports[i].active)
				rd_out_text(&o, "%s %s/%u (%s)", k++ ? "," : "; not probed:", r->ports[i].device,
					    r->ports[i].port, r->ports[i].state ? r->ports[i].state : "?");
		rd_out_text(&o, "\n");
	}
	rd_out_finish(&o);
}
