/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The topology matrix (render/topo.h). */
#include "render/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The i-th function of the matrix: the GPUs, then the NICs. */
static const struct rd_topo_fn *fn_at(const struct rd_pcitopo *t, size_t i)
{
	return i < t->ngpus ? &t->gpus[i] : &t->nics[i - t->ngpus];
}

static void fn_label(const struct rd_pcitopo *t, size_t i, char *buf, size_t len)
{
	if (i < t->ngpus)
		snprintf(buf, len, "GPU%zu", i);
	else
		snprintf(buf, len, "NIC%zu", i - t->ngpus);
}

static const char *cell(const struct rd_topo_route *r)
{
	return r->type == RD_TOPO_X ? " X " : r->type == RD_TOPO_UNKNOWN ? "N/A" : rd_topo_type_name(r->type);
}

/* The ACS of the bridges between a GPU and a NIC (r's via): those whose control sets P2P Request
 * or Completion Redirect, and those whose ACS cannot be told. */
static void acs_of(const struct rd_pcitopo *t, const struct rd_topo_route *r, struct rd_strv *redirect,
		   struct rd_strv *unknown)
{
	for (size_t k = 0; k < r->nvia; k++) {
		const struct rd_topo_node *b = rd_pcitopo_bridge(t, r->via[k]);
		if (!b)
			continue;
		if (b->acs.state == RD_ACS_READ && (b->acs.ctl & RD_ACS_REDIRECT))
			rd_strv_push(redirect, b->addr);
		else if (b->acs.state == RD_ACS_UNKNOWN)
			rd_strv_push(unknown, b->addr);
	}
}

/* IOMMU groups and the ACS redirect on each GPU's path to each NIC (gdr.iommu and gdr.acs judge
 * them; this shows them). */
static void text_isolation(struct rd_out *o, const struct rd_pcitopo *t)
{
	char label[32];
	rd_out_text(o, "\nIOMMU groups:\n\n");
	bool any = false;
	for (size_t i = 0; i < t->ngpus + t->nnics; i++)
		any |= fn_at(t, i)->iommu_group != NULL;
	if (!any)
		rd_out_text(o, "  %s\n", t->iommu_absence_real ? "none: no IOMMU translates the GPUs' and NICs' DMA"
							 : "not in this root (no iommu_group links)");
	for (size_t i = 0; any && i < t->ngpus + t->nnics; i++) {
		const struct rd_topo_fn *f = fn_at(t, i);
		fn_label(t, i, label, sizeof label);
		const char *type = rd_attr_value(&f->iommu_type);
		if (f->iommu_group)
			rd_out_text(o, "  %s: group %s, %s\n", label, f->iommu_group, type ? type : "type unreadable");
		else
			rd_out_text(o, "  %s: %s\n", label,
				    t->iommu_absence_real ? "none (no IOMMU translates its DMA)" : "not in this root");
	}
	rd_out_text(o, "\nACS on the GPU-NIC paths below a PCIe switch (PIX, PXB; a P2P redirect sends their traffic up "
		       "to the root complex):\n\n");
	size_t shown = 0;
	for (size_t i = 0; i < t->ngpus; i++)
		for (size_t j = 0; j < t->nnics; j++) {
			struct rd_topo_route r;
			rd_topo_route(&t->gpus[i], &t->nics[j], &r);
			if (r.type != RD_TOPO_PIX && r.type != RD_TOPO_PXB)
				continue;
			struct rd_strv red = {0}, unk = {0};
			acs_of(t, &r, &red, &unk);
			if (red.n || unk.n) {
				rd_out_text(o, "  GPU%zu-NIC%zu:", i, j);
				for (size_t k = 0; k < red.n; k++)
					rd_out_text(o, " %s redirects", red.v[k]);
				for (size_t k = 0; k < unk.n; k++)
					rd_out_text(o, " %s cannot be told", unk.v[k]);
				rd_out_text(o, "\n");
				shown++;
			}
			rd_strv_free(&red);
			rd_strv_free(&unk);
		}
	if (!shown)
		rd_out_text(o, "  no bridge between a GPU and a NIC below a switch redirects\n");
}

static void text_matrix(struct rd_out *o, const struct rd_pcitopo *t)
{
	size_t n = t->ngpus + t->nnics;
	char label[32];
	for (size_t j = 0; j < n; j++) {
		fn_label(t, j, label, sizeof label);
		rd_out_text(o, "\t%s", label);
	}
	rd_out_text(o, t->ngpus ? "\tCPU Affinity\tNUMA Affinity\n" : "\n");
	for (size_t i = 0; i < n; i++) {
		fn_label(t, i, label, sizeof label);
		rd_out_text(o, "%s", label);
		for (size_t j = 0; j < n; j++) {
			struct rd_topo_route r;
			rd_topo_route(fn_at(t, i), fn_at(t, j), &r);
			rd_out_text(o, "\t%s", cell(&r));
		}
		if (i < t->ngpus) {
			const struct rd_topo_fn *g = &t->gpus[i];
			const char *cpus = rd_attr_value(&g->local_cpulist);
			if (g->numa >= 0)
				rd_out_text(o, "\t%s\t%d", cpus ? cpus : "N/A", g->numa);
			else
				rd_out_text(o, "\t%s\tN/A", cpus ? cpus : "N/A");
		}
		rd_out_text(o, "\n");
	}
	rd_out_text(o, "\nLegend:\n\n");
	static const enum rd_topo_type order[] = {RD_TOPO_X,   RD_TOPO_SYS, RD_TOPO_NODE,
						  RD_TOPO_PHB, RD_TOPO_PXB, RD_TOPO_PIX};
	for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
		rd_out_text(o, "  %-4s = %s\n", rd_topo_type_name(order[k]), rd_topo_type_words(order[k]));
	rd_out_text(o, "  N/A  = The path could not be read\n");
	rd_out_text(o, "\nGPU pairs show their PCIe path: NVLink is not visible in "
		       "sysfs (nvidia-smi prints NV# there).\n");
	if (t->nnics) {
		rd_out_text(o, "\nNIC Legend:\n\n");
		for (size_t i = 0; i < t->nnics; i++)
			rd_out_text(o, "  NIC%zu: %s (%s)\n", i, t->nics[i].name, t->nics[i].addr);
	}
	if (t->ngpus) {
		rd_out_text(o, "\nGPU Legend:\n\n");
		for (size_t i = 0; i < t->ngpus; i++)
			rd_out_text(o, "  GPU%zu: %s (10de:%04x)\n", i, t->gpus[i].addr, t->gpus[i].device);
	}
	if (t->acs_loaded)
		text_isolation(o, t);
}

static void json_fn(struct rd_out *o, const struct rd_pcitopo *t, size_t i)
{
	const struct rd_topo_fn *f = fn_at(t, i);
	char label[32];
	fn_label(t, i, label, sizeof label);
	rd_out_obj_begin(o, NULL);
	rd_out_str(o, "name", NULL, label);
	if (i >= t->ngpus)
		rd_out_str(o, "device", NULL, f->name);
	rd_out_str(o, "pci", NULL, f->addr);
	char id[16];
	snprintf(id, sizeof id, "%04x:%04x", f->vendor, f->device);
	rd_out_str(o, "pci_id", NULL, f->vendor ? id : NULL);
	if (f->numa >= 0)
		rd_out_int(o, "numa_node", NULL, f->numa);
	else
		rd_out_null(o, "numa_node");
	rd_out_str(o, "cpu_affinity", NULL, rd_attr_value(&f->local_cpulist));
	rd_out_str(o, "root_bus", NULL, f->root);
	rd_out_str(o, "sysfs", NULL, f->sysfs);
	rd_out_str(o, "error", NULL, f->err ? rd_strerror(f->err) : NULL);
	if (t->acs_loaded) { /* with GPUs and RDMA NICs */
		rd_out_str(o, "iommu_group", NULL, f->iommu_group);
		rd_out_str(o, "iommu_type", NULL, f->iommu_group ? rd_attr_value(&f->iommu_type) : NULL);
	}
	rd_out_obj_end(o);
}

static void json_doc(struct rd_out *o, const struct rd_pcitopo *t)
{
	int level = rd_pcitopo_gdr_level(t);
	rd_out_str(o, "gdr_level", NULL, rd_nccl_path_name(level));
	rd_out_str(o, "gdr_level_from", NULL, t->gdr_level >= 0 ? "NCCL_NET_GDR_LEVEL" : "default");
	rd_out_str(o, "nccl_net_gdr_level", NULL, t->gdr_env[0] ? t->gdr_env : NULL);
	rd_out_bool(o, "pcie_hierarchy", NULL, !t->flat_bridge[0]);
	rd_out_arr_begin(o, "gpus");
	for (size_t i = 0; i < t->ngpus; i++)
		json_fn(o, t, i);
	rd_out_arr_end(o);
	rd_out_arr_begin(o, "nics");
	for (size_t i = t->ngpus; i < t->ngpus + t->nnics; i++)
		json_fn(o, t, i);
	rd_out_arr_end(o);
	rd_out_arr_begin(o, "paths");
	size_t n = t->ngpus + t->nnics;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			struct rd_topo_route r;
			const struct rd_topo_fn *a = fn_at(t, i), *b = fn_at(t, j);
			rd_topo_route(a, b, &r);
			char la[32], lb[32];
			fn_label(t, i, la, sizeof la);
			fn_label(t, j, lb, sizeof lb);
			rd_out_obj_begin(o, NULL);
			rd_out_str(o, "from", NULL, la);
			rd_out_str(o, "to", NULL, lb);
			rd_out_str(o, "type", NULL, r.type == RD_TOPO_UNKNOWN ? NULL : rd_topo_type_name(r.type));
			rd_out_str(o, "nccl_type", NULL, r.nccl < 0 ? NULL : rd_nccl_path_name(r.nccl));
			if (i < t->ngpus && j >= t->ngpus && r.nccl >= 0)
				rd_out_bool(o, "gdr", NULL, r.nccl <= level);
			rd_out_arr_begin(o, "via");
			for (size_t k = 0; k < r.nvia; k++)
				rd_out_item_str(o, NULL, r.via[k]);
			rd_out_arr_end(o);
			if (t->acs_loaded && i < t->ngpus && j >= t->ngpus) {
				struct rd_strv red = {0}, unk = {0};
				acs_of(t, &r, &red, &unk);
				rd_out_arr_begin(o, "acs_redirect");
				for (size_t k = 0; k < red.n; k++)
					rd_out_item_str(o, NULL, red.v[k]);
				rd_out_arr_end(o);
				rd_out_arr_begin(o, "acs_unknown");
				for (size_t k = 0; k < unk.n; k++)
					rd_out_item_str(o, NULL, unk.v[k]);
				rd_out_arr_end(o);
				rd_strv_free(&red);
				rd_strv_free(&unk);
			}
			rd_out_obj_end(o);
		}
	rd_out_arr_end(o);
}

void rd_render_topo(struct rd_out *o, const struct rd_pcitopo *t)
{
	if (o->json) {
		json_doc(o, t);
		return;
	}
	if (!t->ngpus && !t->nnics) {
		rd_out_text(o, "No NVIDIA GPU and no RDMA NIC PCI function on this host.\n");
		return;
	}
	text_matrix(o, t);
	int level = rd_pcitopo_gdr_level(t);
	if (t->gdr_level >= 0)
		rd_out_text(o, "\nNCCL uses GPUDirect RDMA up to %s (NCCL_NET_GDR_LEVEL=%s).\n",
			    rd_nccl_path_name(level), t->gdr_env);
	else
		rd_out_text(o, "\nNCCL uses GPUDirect RDMA up to %s (its default%s%s%s).\n", rd_nccl_path_name(level),
			    t->gdr_env[0] ? "; NCCL_NET_GDR_LEVEL=" : "", t->gdr_env,
			    t->gdr_env[0] ? " is no level it reads" : "");
	if (t->flat_bridge[0])
		rd_out_text(o,
			    "Note: the PCI tree in this root is not a PCIe hierarchy (%s "
			    "and %s, of two buses, directly below %s): "
			    "the types above are those of the tree as it reads, not of a "
			    "real host.\n",
			    t->flat_a, t->flat_b, t->flat_bridge);
}

void rd_render_topo_report(struct rd_out *o, const struct rd_pcitopo *t)
{
	if (!t->ngpus)
		return;
	rd_out_obj_begin(o, "gpudirect");
	/* the domain types of the GPUs' and NICs' IOMMU groups, each once, in the order met; a type
	 * that is empty or not a word (a hostile root) counts as unreadable */
	struct rd_strv types = {0};
	bool any = false, unread = false;
	for (size_t i = 0; t->acs_loaded && i < t->ngpus + t->nnics; i++) {
		const struct rd_topo_fn *f = fn_at(t, i);
		if (!f->iommu_group)
			continue;
		any = true;
		const char *v = rd_attr_value(&f->iommu_type);
		size_t vl = v ? strlen(v) : 0;
		if (!vl || vl > 32 || strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != vl) {
			unread = true;
			continue;
		}
		bool seen = false;
		for (size_t k = 0; k < types.n && !seen; k++)
			seen = !strcmp(types.v[k], v);
		if (!seen && types.n < 8)
			rd_strv_push(&types, v);
	}
	if (!t->acs_loaded || (any && (unread || !types.n)) || (!any && !t->iommu_absence_real))
		rd_out_null(o, "iommu");
	else if (!any)
		rd_out_str(o, "iommu", NULL, "none");
	else {
		struct rd_buf b = {0};
		for (size_t k = 0; k < types.n; k++)
			rd_buf_printf(&b, "%s%s", k ? "," : "", types.v[k]);
		rd_out_str(o, "iommu", NULL, b.data);
		rd_buf_free(&b);
	}
	rd_strv_free(&types);
	int level = rd_pcitopo_gdr_level(t);
	rd_out_str(o, "gdr_level", NULL, rd_nccl_path_name(level));
	rd_out_arr_begin(o, "gpus");
	for (size_t i = 0; i < t->ngpus; i++) {
		const struct rd_topo_fn *g = &t->gpus[i];
		struct rd_topo_route r;
		size_t unreadable = 0;
		const struct rd_topo_fn *nic = rd_pcitopo_nearest(t, g, &r, &unreadable);
		char label[32], id[16];
		fn_label(t, i, label, sizeof label);
		snprintf(id, sizeof id, "%04x:%04x", g->vendor, g->device);
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "name", NULL, label);
		rd_out_str(o, "pci", NULL, g->addr);
		rd_out_str(o, "pci_id", NULL, g->vendor ? id : NULL);
		rd_out_str(o, "nic", NULL, nic ? nic->name : NULL);
		rd_out_str(o, "type", NULL, nic && r.type != RD_TOPO_UNKNOWN ? rd_topo_type_name(r.type) : NULL);
		rd_out_str(o, "nccl_type", NULL, nic && r.nccl >= 0 ? rd_nccl_path_name(r.nccl) : NULL);
		if (nic && t->acs_loaded) {
			struct rd_strv red = {0}, unk = {0};
			acs_of(t, &r, &red, &unk);
			rd_out_arr_begin(o, "acs_redirect");
			for (size_t k = 0; k < red.n; k++)
				rd_out_item_str(o, NULL, red.v[k]);
			rd_out_arr_end(o);
			rd_out_uint(o, "acs_unknown", NULL, unk.n);
			rd_strv_free(&red);
			rd_strv_free(&unk);
		}
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
	rd_out_obj_end(o);
}
