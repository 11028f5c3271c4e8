/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The GID table and NCCL's choice (render/gids.h). */
#include "render/gids.h"

#include <stdio.h>
#include <string.h>

/* show_gids: VER is `grep -o "[Vv].*"` of the type ("IB/RoCE v1" -> "v1"); IPv4 is printed when
 * the GID's first group is 0000, from its last four bytes. */
static const char *ver_of(const char *type)
{
	if (!type)
		return "";
	for (const char *c = type; *c; c++)
		if (*c == 'v' || *c == 'V')
			return c;
	return "";
}

static bool wanted(const char *name, const char *const *devs, size_t ndevs)
{
	if (!ndevs)
		return true;
	for (size_t i = 0; i < ndevs; i++)
		if (strcmp(devs[i], name) == 0)
			return true;
	return false;
}

size_t rd_render_gid_table(struct rd_out *o, const struct rd_host *h, const char *const *devs, size_t ndevs)
{
	static const uint8_t fe80[16] = {0xfe, 0x80};
	rd_out_text(o, "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n");
	rd_out_text(o, "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n");
	size_t n = 0;
	rd_out_arr_begin(o, "gids");
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		if (!wanted(d->name, devs, ndevs))
			continue;
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			for (size_t g = 0; g < p->ngids; g++) {
				const struct rd_gid *x = &p->gids[g];
				if (rd_gid_is_zero(x->gid) || memcmp(x->gid, fe80, 16) == 0)
					continue;
				char v4[20] = "";
				if (x->gid[0] == 0 && x->gid[1] == 0)
					snprintf(v4, sizeof v4, "%u.%u.%u.%u", x->gid[12], x->gid[13], x->gid[14], x->gid[15]);
				rd_out_obj_begin(o, NULL);
				rd_out_str(o, "device", "%s\t", d->name);
				rd_out_uint(o, "port", "%llu\t", p->num);
				rd_out_uint(o, "index", "%llu\t", x->index);
				rd_out_str(o, "gid", "%s\t", x->text);
				rd_out_str(o, "ipv4", v4[0] ? "%s  \t" : NULL, v4[0] ? v4 : NULL);
				if (!v4[0])
					rd_out_text(o, "\t\t");
				const char *ver = ver_of(x->type), *nd = x->ndev && *x->ndev ? x->ndev : NULL;
				rd_out_str(o, "version", NULL, *ver ? ver : NULL);
				rd_out_str(o, "type", NULL, x->type);
				rd_out_str(o, "netdev", NULL, nd);
				rd_out_text(o, "%s\t%s\n", ver, nd ? nd : "");
				rd_out_obj_end(o);
				n++;
			}
		}
	}
	rd_out_arr_end(o);
	rd_out_uint(o, "n_gids_found", "n_gids_found=%llu\n", n);
	return n;
}

void rd_render_nccl_gids(struct rd_out *o, const struct rd_host *h, const struct rd_nccl_sel *sel)
{
	rd_out_arr_begin(o, "nccl_gids");
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		if (d->node_type_v == 4) /* iWARP: no GID addressing (as roce.gid) */
			continue;
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			if (p->is_ib || p->state_v != RD_PORT_ACTIVE || !p->ngids)
				continue;
			int idx = sel->gid_index >= 0 ? sel->gid_index : rd_nccl_auto_gid(p, sel);
			const struct rd_gid *g = rd_port_gid(p, (unsigned)idx);
			char v4[20] = "", why[96];
			if (g)
				rd_gid_ipv4(g->gid, v4, sizeof v4);
			bool ok = rd_nccl_gid_usable(p, (unsigned)idx, sel, why, sizeof why);
			rd_out_obj_begin(o, NULL);
			rd_out_str(o, "device", "NCCL GID: %s", d->name);
			rd_out_uint(o, "port", " port %llu", p->num);
			rd_out_int(o, "index", " index %lld", idx);
			rd_out_str(o, "gid", NULL, g ? g->text : NULL);
			rd_out_str(o, "ipv4", v4[0] ? " %s" : NULL, v4[0] ? v4 : NULL);
			rd_out_str(o, "type", g && g->type ? " (%s)" : NULL, g ? g->type : NULL);
			rd_out_str(o, "netdev", g && g->ndev ? " on %s" : NULL, g ? g->ndev : NULL);
			rd_out_str(o, "chosen_by", sel->gid_index >= 0 ? ", set by %s" : NULL,
				   sel->gid_index >= 0 ? sel->gid_index_from : "NCCL");
			rd_out_bool(o, "usable", NULL, ok);
			rd_out_str(o, "unusable_because", ok ? NULL : ": unusable, %s", ok ? NULL : why);
			rd_out_text(o, "\n");
			rd_out_obj_end(o);
		}
	}
	rd_out_arr_end(o);
}
