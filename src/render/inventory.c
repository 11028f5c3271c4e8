/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "render/inventory.h"

#include <string.h>

#include "model/parse.h"

static const char *phys_word(int phys)
{
	return phys >= 0 ? rd_phys_state_name((unsigned)phys) : "unknown";
}

const char *rd_rate_words(const struct rd_port *p, char *buf, size_t len)
{
	if (p->rate_ok)
		snprintf(buf, len, "%g Gb/s %uX%s%s", p->rate_v.gbps, p->rate_v.width,
			 p->rate_v.speed[0] ? " " : "", p->rate_v.speed);
	else
		snprintf(buf, len, "rate unknown (%s)", rd_strerror(p->rate.err));
	return buf;
}

/* "qos" of a RoCE port (JSON only): what roce.qos reads (model/mft.h), null when none of it was
 * readable */
static void prio_array(struct rd_out *o, const char *key, const int v[8])
{
	rd_out_arr_begin(o, key);
	for (unsigned i = 0; i < 8; i++)
		if (v[i] > 0)
			rd_out_item_uint(o, NULL, i);
	rd_out_arr_end(o);
}

static void render_qos(struct rd_out *o, const struct rd_qos_port *q)
{
	bool tos = rd_attr_ok(&q->tos);
	uint64_t tos_v = 0;
	if (tos && rd_parse_u64(q->tos.value, 10, 255, &tos_v) < 0)
		tos = false;
	if (!q->trust_from && !q->qos.pfc_ok && !q->ecn_ok && !tos) {
		rd_out_null(o, "qos");
		return;
	}
	rd_out_obj_begin(o, "qos");
	rd_out_str(o, "trust", NULL, q->trust_from ? q->qos.trust : NULL);
	if (q->qos.pfc_ok)
		prio_array(o, "pfc", q->qos.pfc);
	else
		rd_out_null(o, "pfc");
	if (q->ecn_ok) {
		rd_out_obj_begin(o, "ecn");
		prio_array(o, "np", q->ecn_np);
		prio_array(o, "rp", q->ecn_rp);
		rd_out_obj_end(o);
	} else {
		rd_out_null(o, "ecn");
	}
	if (tos)
		rd_out_uint(o, "default_roce_tos", NULL, tos_v);
	else
		rd_out_null(o, "default_roce_tos");
	rd_out_str(o, "source", NULL, q->trust_from ? q->trust_from : q->pfc_from);
	rd_out_str(o, "pfc_source", NULL, q->pfc_from);
	rd_out_obj_end(o);
}

static void render_port(struct rd_out *o, const struct rd_port *p, const struct rd_mft *m, const char *dev)
{
	char rate[64];
	rd_out_obj_begin(o, NULL);
	rd_out_uint(o, "port", "    port %llu  ", p->num);
	const char *ll = rd_attr_value(&p->link_layer);
	rd_out_text(o, "%s/%s  %s  %s", rd_port_state_word(p->state_v), phys_word(p->phys_v),
		    rd_rate_words(p, rate, sizeof rate), ll ? ll : "link layer unknown");
	rd_out_str(o, "state", NULL, p->state_v >= 0 ? rd_port_state_name((unsigned)p->state_v) : NULL);
	rd_out_str(o, "phys_state", NULL, p->phys_v >= 0 ? rd_phys_state_name((unsigned)p->phys_v) : NULL);
	if (p->rate_ok) {
		rd_out_double(o, "rate_gbps", NULL, p->rate_v.gbps);
		rd_out_uint(o, "width", NULL, p->rate_v.width);
		rd_out_str(o, "speed", NULL, p->rate_v.speed);
	} else {
		rd_out_null(o, "rate_gbps");
		rd_out_null(o, "width");
		rd_out_null(o, "speed");
	}
	rd_out_str(o, "link_layer", NULL, rd_attr_value(&p->link_layer));
	if (p->lid_v >= 0)
		rd_out_int(o, "lid", p->is_ib ? "  lid %lld" : NULL, p->lid_v);
	else
		rd_out_null(o, "lid");
	if (p->sm_lid_v >= 0)
		rd_out_int(o, "sm_lid", p->is_ib ? " sm_lid %lld" : NULL, p->sm_lid_v);
	else
		rd_out_null(o, "sm_lid");
	if (p->cap_mask_v >= 0)
		rd_out_uint(o, "cap_mask", NULL, (unsigned long long)p->cap_mask_v);
	else
		rd_out_null(o, "cap_mask");
	rd_out_str(o, "gid0", NULL, p->ngids && p->gids[0].index == 0 ? p->gids[0].text : NULL);
	rd_out_str(o, "netdev", NULL, p->nnetdevs ? p->netdevs[0].name : NULL);
	if (p->nnetdevs) {
		rd_out_text(o, "  netdev");
		for (size_t i = 0; i < p->nnetdevs; i++) {
			rd_out_text(o, " %s", p->netdevs[i].name);
			if (p->netdevs[i].mtu_v)
				rd_out_text(o, " (mtu %llu)", (unsigned long long)p->netdevs[i].mtu_v);
		}
	}
	rd_out_arr_begin(o, "netdevs");
	for (size_t i = 0; i < p->nnetdevs; i++) {
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "name", NULL, p->netdevs[i].name);
		if (p->netdevs[i].mtu_v)
			rd_out_uint(o, "mtu", NULL, p->netdevs[i].mtu_v);
		else
			rd_out_null(o, "mtu");
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
	if (m && o->json)
		for (size_t i = 0; i < m->nqos; i++)
			if (m->qos[i].port == p->num && !strcmp(m->qos[i].dev, dev)) {
				render_qos(o, &m->qos[i]);
				break;
			}
	rd_out_text(o, "\n");
	rd_out_obj_end(o);
}

static void render_devices(struct rd_out *o, const struct rd_host *h, const struct rd_mft *fwm, const struct rd_mft *m);

void rd_render_devices(struct rd_out *o, const struct rd_host *h, const struct rd_mft *fw_from)
{
	render_devices(o, h, fw_from, NULL);
}

void rd_render_devices_qos(struct rd_out *o, const struct rd_host *h, const struct rd_mft *m)
{
	render_devices(o, h, m, m);
}

/* sysfs fw_ver / board_id, or flint's FW Version(Running) / PSID where sysfs has none (as the
 * firmware checks read them); from_flint tells which */
static const char *fw_value(const struct rd_mft *fwm, const struct rd_attr *sys, const struct rd_attr *flint,
			    bool *from_flint)
{
	*from_flint = false;
	const char *v = rd_attr_value(sys);
	if (v && *v)
		return v;
	if (fwm && flint && rd_attr_ok(flint) && *flint->value) {
		*from_flint = true;
		return flint->value;
	}
	return v;
}

static void render_devices(struct rd_out *o, const struct rd_host *h, const struct rd_mft *fwm, const struct rd_mft *m)
{
	rd_out_arr_begin(o, "devices");
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "name", "  %s", d->name);
		const char *model = d->model;
		if (!model && d->parent)
			model = rd_str_has_prefix(d->name, "rxe") ? "Soft-RoCE (rxe)"
				: rd_str_has_prefix(d->name, "siw") ? "Soft-iWARP (siw)" : "software RDMA device";
		rd_out_str(o, "model", model ? "  %s" : NULL, model);
		rd_out_str(o, "hca_type", rd_attr_value(&d->hca_type) ? " (%s)" : NULL, rd_attr_value(&d->hca_type));
		const struct rd_mft_dev *md = fwm ? rd_mft_dev(fwm, d->name) : NULL;
		bool fw_flint, board_flint;
		const char *fw = fw_value(fwm, &d->fw_ver, md ? &md->flint_fw : NULL, &fw_flint);
		const char *board = fw_value(fwm, &d->board_id, md ? &md->flint_psid : NULL, &board_flint);
		rd_out_str(o, "fw_ver", fw && *fw ? (fw_flint ? "  fw %s (flint)" : "  fw %s") : NULL, fw);
		rd_out_str(o, "board_id", board && *board ? (board_flint ? "  board %s (flint PSID)" : "  board %s") : NULL,
			   board);
		rd_out_str(o, "hw_rev", NULL, rd_attr_value(&d->hw_rev));
		rd_out_str(o, "node_type", NULL, rd_attr_value(&d->node_type));
		rd_out_str(o, "node_guid", NULL, rd_attr_value(&d->node_guid));
		rd_out_str(o, "sys_image_guid", NULL, rd_attr_value(&d->sys_image_guid));
		rd_out_str(o, "node_desc", NULL, rd_attr_value(&d->node_desc));
		rd_out_str(o, "pci", d->pci_addr ? "  PCI %s" : NULL, d->pci_addr);
		if (d->numa_node >= 0)
			rd_out_int(o, "numa_node", "  NUMA %lld", d->numa_node);
		else
			rd_out_null(o, "numa_node");
		rd_out_str(o, "driver", NULL, d->driver);
		rd_out_str(o, "parent", d->parent ? "  on %s" : NULL, d->parent);
		rd_out_text(o, "\n");
		if (d->ports_err)
			rd_out_text(o, "    ports unreadable: %s/ports: %s\n", d->dir, rd_strerror(d->ports_err));
		rd_out_arr_begin(o, "ports");
		for (size_t p = 0; p < d->nports; p++)
			render_port(o, &d->ports[p], m, d->name);
		rd_out_arr_end(o);
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
}

void rd_render_modules(struct rd_out *o, const struct rd_host *h)
{
	rd_out_arr_begin(o, "modules");
	for (const char *const *name = rd_rdma_modules; *name; name++) {
		const struct rd_module *m = rd_host_module(h, *name);
		if (!m || !m->loaded)
			continue;
		int oot = rd_module_out_of_tree(m);
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "name", "  %-15s", m->name);
		rd_out_bool(o, "loaded", NULL, true);
		rd_out_bool(o, "builtin", NULL, m->builtin);
		bool more = rd_attr_ok(&m->version) || (m->taint && *m->taint) || m->holders.n; /* no trailing blanks */
		rd_out_str(o, "origin", more ? "%-12s" : "%s", m->builtin ? "built-in" : oot > 0 ? "out-of-tree" : oot == 0 ? "in-tree" : "unknown");
		if (oot >= 0)
			rd_out_bool(o, "out_of_tree", NULL, oot > 0);
		else
			rd_out_null(o, "out_of_tree");
		rd_out_str(o, "version", rd_attr_ok(&m->version) ? "  version %s" : NULL, rd_attr_value(&m->version));
		rd_out_str(o, "srcversion", NULL, rd_attr_value(&m->srcversion));
		rd_out_str(o, "taint", m->taint && *m->taint ? "  taint %s" : NULL, m->taint);
		rd_out_int(o, "refcnt", NULL, m->refcnt);
		if (m->holders.n)
			rd_out_text(o, "  used by ");
		rd_out_arr_begin(o, "holders");
		for (size_t i = 0; i < m->holders.n; i++)
			rd_out_item_str(o, i ? ",%s" : "%s", m->holders.v[i]);
		rd_out_arr_end(o);
		rd_out_text(o, "\n");
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
}
