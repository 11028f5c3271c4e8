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
