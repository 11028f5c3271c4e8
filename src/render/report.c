/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "render/report.h"

#include <string.h>

#include "render/fwtrain.h"
#include "render/gids.h"
#include "render/inventory.h"
#include "render/out.h"
#include "render/rpmdb.h"
#include "render/topo.h"

static const char *mark(enum rd_status s, bool ascii)
{
	switch (s) {
	case RD_OK: return rd_out_mark(ascii, "\u2714", "+");
	case RD_FAIL: return rd_out_mark(ascii, "\u2716", "x");
	case RD_WARN: return "!";
	case RD_UNKNOWN: return "?";
	case RD_SKIP: return "-";
	}
	return "?";
}

static const char *color(enum rd_status s)
{
	switch (s) {
	case RD_OK: return "\033[32m";
	case RD_FAIL: return "\033[1;31m";
	case RD_WARN: return "\033[33m";
	case RD_UNKNOWN: return "\033[35m";
	case RD_SKIP: return "\033[2m";
	}
	return "";
}

static void text_finding(FILE *f, const struct rd_finding *x, bool details, bool col, bool ascii)
{
	/* "mlx5_0 port 1: Initializing: ..." unless the message already starts with its subject */
	bool say_subject = strcmp(x->subject, "host") != 0 && strncmp(x->message, x->subject, strlen(x->subject)) != 0 &&
			   !strstr(x->message, x->subject);
	/* colour and mark are the program's own; everything else is printed safe (rd_text_printf) */
	fprintf(f, "%s%s %-7s%s ", col ? color(x->status) : "", mark(x->status, ascii), rd_status_name(x->status),
		col ? "\033[0m" : "");
	rd_text_printf(f, ascii, "%-21s %s%s%s\n", x->check, say_subject ? x->subject : "", say_subject ? ": " : "",
		       x->message);
	if (!details)
		return;
	for (size_t e = 0; e < x->nevidence; e++)
		rd_text_printf(f, ascii, "            %s = %s\n", x->evidence[e].path, x->evidence[e].value);
	for (size_t i = 0; i < x->fix.n; i++)
		rd_text_printf(f, ascii, "            %s %s\n", i ? "    " : "fix:", x->fix.v[i]);
}

enum rd_status rd_report_summary_status(const struct rd_report *r, const struct rd_report_meta *m)
{
	enum rd_status worst = rd_report_status(r);
	/* no RDMA hardware: nothing was checked, so at least UNKNOWN; a finding that is worse stays */
	if (m->no_hardware && rd_status_worse(RD_UNKNOWN, worst))
		worst = RD_UNKNOWN;
	return worst;
}

void rd_report_text(FILE *f, const struct rd_report *r, const struct rd_host *h, const struct rd_system *s,
		    const struct rd_policy *p, const struct rd_report_meta *m)
{
	(void)s;
	(void)p;
	rd_text_printf(f, m->ascii, "rdma-doctor check: %s, kernel %s",
		       rd_attr_value(&h->hostname) ? rd_attr_value(&h->hostname) : "(unknown host)",
		       rd_attr_value(&h->osrelease) ? rd_attr_value(&h->osrelease) : "(unknown)");
	if (m->root)
		rd_text_printf(f, m->ascii, " (root %s)", m->root);
	fputs("\n", f);
	if (m->no_hardware)
		fprintf(f, "No RDMA hardware on this host: /sys/class/infiniband %s and no Mellanox/NVIDIA network PCI "
			   "function is present, so there is nothing to check.\n",
			h->devices_err == 0 ? "is empty" : "does not exist");
	fputc('\n', f);
	static const enum rd_status order[] = {RD_FAIL, RD_WARN, RD_UNKNOWN, RD_OK, RD_SKIP};
	size_t counts[5] = {0};
	for (size_t o = 0; o < 5; o++)
		for (size_t i = 0; i < r->n; i++)
			if (r->findings[i].status == order[o]) {
				counts[o]++;
				text_finding(f, &r->findings[i], o < 3, m->color, m->ascii);
			}
	enum rd_status worst = rd_report_summary_status(r, m);
	/* the label is the worst count; when it is UNKNOWN only because there is no RDMA hardware, say so */
	bool hw_label = m->no_hardware && worst == RD_UNKNOWN && counts[2] == 0;
	fprintf(f, "\n%s%s%s%s: %zu failed, %zu warning%s, %zu unknown, %zu ok, %zu skipped\n",
		m->color ? color(worst) : "", rd_status_name(worst), m->color ? "\033[0m" : "",
		hw_label ? " (no RDMA hardware)" : "", counts[0], counts[1], counts[1] == 1 ? "" : "s", counts[2], counts[3],
		counts[4]);
}

static void json_modules(struct rd_out *o, const struct rd_host *h, const struct rd_system *s,
			 const struct rd_policy *p)
{
	struct rd_strv names = {0};
	for (size_t i = 0; i < p->modules.n; i++)
		rd_strv_push(&names, p->modules.v[i]);
	for (const char *const *m = rd_rdma_modules; *m; m++)
		if (rd_module_loaded(h, *m) && !rd_strv_contains(&names, *m))
			rd_strv_push(&names, *m);
	rd_out_arr_begin(o, "modules");
	for (size_t i = 0; i < names.n; i++) {
		const struct rd_module *m = rd_host_module(h, names.v[i]);
		const struct rd_modload_file *lf = rd_modload_find(s, names.v[i]);
		const char *when, *boot = rd_boot_loader(s, names.v[i], &when); /* modules-load.d, else rdma-core */
		(void)when;
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "name", NULL, names.v[i]);
		rd_out_bool(o, "loaded", NULL, m && m->loaded);
		rd_out_bool(o, "builtin", NULL, m && m->builtin);
		rd_out_bool(o, "persistent", NULL, lf != NULL);
		rd_out_str(o, "persistent_in", NULL, boot);
		rd_out_str(o, "version", NULL, m && rd_attr_ok(&m->version) ? m->version.value : NULL);
		rd_out_str(o, "srcversion", NULL, m && rd_attr_ok(&m->srcversion) ? m->srcversion.value : NULL);
		int oot = m && m->loaded ? rd_module_out_of_tree(m) : -1;
		if (oot >= 0)
			rd_out_bool(o, "out_of_tree", NULL, oot == 1);
		else
			rd_out_null(o, "out_of_tree");
		rd_out_str(o, "taint", NULL, m && m->taint ? m->taint : NULL);
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
	rd_strv_free(&names);
}

void rd_report_json(FILE *f, const struct rd_report *r, const struct rd_host *h, const struct rd_system *s,
		    const struct rd_policy *p, const struct rd_report_meta *m)
{
	struct rd_out o;
	rd_out_init(&o, f, true);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/report/v1");
	rd_out_str(&o, "host", NULL, rd_attr_value(&h->hostname));
	rd_out_str(&o, "time", NULL, m->time);
	rd_out_str(&o, "version", NULL, RD_VERSION);
	rd_out_str(&o, "root", NULL, m->root);
	rd_out_str(&o, "kernel", NULL, rd_attr_value(&h->osrelease));
	rd_out_str(&o, "boot_id", NULL, rd_attr_value(&s->link.boot_id));

	enum rd_status worst = rd_report_summary_status(r, m);
	rd_out_obj_begin(&o, "summary");
	rd_out_str(&o, "status", NULL, rd_status_name(worst));
	rd_out_int(&o, "exit_code", NULL, rd_status_exit_code(worst));
	rd_out_bool(&o, "rdma_hardware", NULL, !m->no_hardware);
	rd_out_obj_begin(&o, "counts");
	static const enum rd_status all[] = {RD_OK, RD_WARN, RD_FAIL, RD_SKIP, RD_UNKNOWN};
	for (size_t k = 0; k < 5; k++) {
		size_t c = 0;
		for (size_t i = 0; i < r->n; i++)
			c += r->findings[i].status == all[k];
		char key[16];
		snprintf(key, sizeof key, "%s", rd_status_name(all[k]));
		for (char *q = key; *q; q++)
			*q = (char)(*q - 'A' + 'a');
		rd_out_uint(&o, key, NULL, c);
	}
	rd_out_obj_end(&o);
	rd_out_obj_end(&o);

	const struct rd_stack *st = &s->stack;
	rd_out_obj_begin(&o, "stack");
	rd_out_str(&o, "installed", NULL, rd_stack_kind_name(st->installed));
	rd_out_str(&o, "version", NULL, st->version[0] ? st->version : NULL);
	rd_out_str(&o, "running", NULL, rd_stack_run_name(st->running));
	rd_out_str(&o, "openibd", NULL, rd_openibd_name(st->openibd));
	rd_out_str(&o, "advice", NULL, st->advice);
	if (s->rpm.consulted) /* an RPM host (model/rpmdb.h) */
		rd_render_rpmdb(&o, &s->rpm);
	rd_render_fw_train(&o, h, st, &s->mft); /* roce: the firmware train and the GID NCCL would use */
	struct rd_nccl_sel sel;
	rd_nccl_sel_make(&sel, &s->nccl_env, p->nccl_gid_index, p->nccl_roce_version, p->nccl_family, p->nccl_version);
	rd_render_nccl_gids(&o, h, &sel);
	rd_out_obj_end(&o);

	rd_render_devices_qos(&o, h, &s->mft);
	if (!(s->unloaded & RD_LOAD_TOPO))
		rd_render_topo_report(&o, &s->topo);
	json_modules(&o, h, s, p);

	rd_out_arr_begin(&o, "findings");
	for (size_t i = 0; i < r->n; i++) {
		const struct rd_finding *x = &r->findings[i];
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "check", NULL, x->check);
		rd_out_str(&o, "status", NULL, rd_status_name(x->status));
		rd_out_str(&o, "subject", NULL, x->subject);
		rd_out_str(&o, "message", NULL, x->message);
		rd_out_arr_begin(&o, "evidence");
		for (size_t e = 0; e < x->nevidence; e++) {
			rd_out_obj_begin(&o, NULL);
			rd_out_str(&o, "path", NULL, x->evidence[e].path);
			rd_out_str(&o, "value", NULL, x->evidence[e].value);
			rd_out_obj_end(&o);
		}
		rd_out_arr_end(&o);
		rd_out_arr_begin(&o, "fix");
		for (size_t k = 0; k < x->fix.n; k++)
			rd_out_item_str(&o, NULL, x->fix.v[k]);
		rd_out_arr_end(&o);
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
}
