/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `fabric --format prometheus`: the subnet's judgement and each cable's width, speed and state,
 * and ibqueryerrors' counters, as series for node_exporter's textfile collector (render/fabric.h).
 * A series must be unique in its file (node_exporter refuses the whole file otherwise), and a
 * capture may repeat a line: every family is sorted by its labels and a repeat is left out. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/fabric.h"
#include "render/prometheus.h"
#include "util/util.h"

static const char *s0(const char *s)
{
	return s ? s : "";
}

/* --- one series per (check, subject), the worst of its findings --- */

/* A subject as its label value is written: two subjects that differ only in bytes the escaping
 * replaces (a control byte, a byte that is not UTF-8) are one series. */
struct status_row {
	const char *check;
	char *subject; /* escaped */
	enum rd_status status;
};

static int by_check_subject(const void *pa, const void *pb)
{
	const struct status_row *a = pa, *b = pb;
	int c = strcmp(a->check, b->check);
	return c ? c : strcmp(a->subject, b->subject);
}

static char *escaped(const char *s)
{
	struct rd_buf b = {0};
	rd_prom_label_escape(&b, s);
	return b.data ? rd_buf_steal(&b) : rd_xstrdup("");
}

static void check_status(FILE *f, const struct rd_report *r)
{
	struct status_row *v = rd_xcalloc(r->n + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->findings[i].status != RD_SKIP)
			v[n++] = (struct status_row){r->findings[i].check, escaped(s0(r->findings[i].subject)),
						     r->findings[i].status};
	qsort(v, n, sizeof *v, by_check_subject);
	rd_prom_head(f, "rdma_doctor_fabric_check_status", "gauge",
		     "Result of one fabric judgement for one subject: 0 OK, 1 WARN, 2 FAIL, 3 UNKNOWN (SKIP is not exported).");
	for (size_t i = 0; i < n;) {
		size_t j = i;
		enum rd_status worst = v[i].status;
		while (++j < n && by_check_subject(&v[i], &v[j]) == 0)
			if (rd_status_worse(v[j].status, worst))
				worst = v[j].status;
		fputs("rdma_doctor_fabric_check_status{check=\"", f);
		rd_prom_label_value(f, v[i].check);
		fprintf(f, "\",subject=\"%s\"} %d\n", v[i].subject, rd_status_exit_code(worst));
		i = j;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].subject);
	free(v);
}

/* --- the cables --- */

struct cable {
	const struct rd_fab_link *l;
	char a_guid[20], b_guid[20], a_port[8], b_port[8];
	const char *a_desc, *b_desc;
	enum rd_status status; /* the worst finding naming this cable; RD_OK when none does */
};

static int by_ends(const void *pa, const void *pb)
{
	const struct cable *a = pa, *b = pb;
	if (a->l->a.guid != b->l->a.guid)
		return a->l->a.guid < b->l->a.guid ? -1 : 1;
	if (a->l->a.port != b->l->a.port)
		return a->l->a.port < b->l->a.port ? -1 : 1;
	if (a->l->b.guid != b->l->b.guid)
		return a->l->b.guid < b->l->b.guid ? -1 : 1;
	return a->l->b.port < b->l->b.port ? -1 : a->l->b.port > b->l->b.port;
}

/* subject → worst status of the port findings (fabric.link.*, fabric.ref.*, fabric.duplicate ...) */
struct subj_status {
	const char *subject;
	enum rd_status status;
};

static int by_subject(const void *pa, const void *pb)
{
	return strcmp(((const struct subj_status *)pa)->subject, ((const struct subj_status *)pb)->subject);
}

static struct cable *cables(const struct rd_fabric *f, const struct rd_report *r, size_t *n)
{
	struct subj_status *ss = rd_xcalloc(r->n + 1, sizeof *ss);
	size_t ns = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->findings[i].kind == RD_SUBJ_PORT && r->findings[i].status != RD_SKIP && r->findings[i].subject)
			ss[ns++] = (struct subj_status){r->findings[i].subject, r->findings[i].status};
	qsort(ss, ns, sizeof *ss, by_subject);
	size_t w = 0; /* one entry per subject, the worst status */
	for (size_t i = 0; i < ns; i++) {
		if (w && strcmp(ss[w - 1].subject, ss[i].subject) == 0) {
			if (rd_status_worse(ss[i].status, ss[w - 1].status))
				ss[w - 1].status = ss[i].status;
		} else {
			ss[w++] = ss[i];
		}
	}
	struct cable *c = rd_xcalloc(f->nlinks + 1, sizeof *c);
	size_t k = 0;
	char subj[400];
	for (size_t i = 0; i < f->nlinks; i++) {
		const struct rd_fab_link *l = &f->links[i];
		if (!l->has_peer)
			continue;
		struct cable *x = &c[k++];
		x->l = l;
		snprintf(x->a_guid, sizeof x->a_guid, "0x%016llx", (unsigned long long)l->a.guid);
		snprintf(x->b_guid, sizeof x->b_guid, "0x%016llx", (unsigned long long)l->b.guid);
		snprintf(x->a_port, sizeof x->a_port, "%u", l->a.port);
		snprintf(x->b_port, sizeof x->b_port, "%u", l->b.port);
		x->a_desc = s0(rd_fab_end_desc(f, &l->a));
		x->b_desc = s0(rd_fab_end_desc(f, &l->b));
		rd_fab_link_subject(f, l, subj, sizeof subj);
		struct subj_status key = {subj, RD_OK};
		const struct subj_status *hit = w ? bsearch(&key, ss, w, sizeof *ss, by_subject) : NULL;
		x->status = hit ? hit->status : RD_OK;
	}
	free(ss);
	qsort(c, k, sizeof *c, by_ends);
	size_t u = 0; /* a cable a capture repeats is one series */
	for (size_t i = 0; i < k; i++)
		if (!u || by_ends(&c[u - 1], &c[i]) != 0)
			c[u++] = c[i];
	*n = u;
	return c;
}

enum cable_metric { CM_ACTIVE, CM_WIDTH, CM_SPEED, CM_RATE, CM_COULD_WIDTH, CM_COULD_SPEED, CM_STATUS, CM_N };

static const struct {
	const char *name, *help;
} cable_metrics[CM_N] = {
	[CM_ACTIVE] = {"rdma_doctor_fabric_link_active", "1 when the cable's port state is Active (iblinkinfo), else 0."},
	[CM_WIDTH] = {"rdma_doctor_fabric_link_width_lanes", "The cable's active width in lanes (1, 2, 4, 8, 12); 0 when down."},
	[CM_SPEED] = {"rdma_doctor_fabric_link_lane_speed_bytes_per_second",
		      "The cable's signalling rate per lane as iblinkinfo prints it, in bytes per second (EDR's 25.78125 Gbps: "
		      "3222656250); 0 when down."},
	[CM_RATE] = {"rdma_doctor_fabric_link_rate_bytes_per_second",
		     "The cable's signalling rate, width times lane speed, in bytes per second; 0 when down."},
	[CM_COULD_WIDTH] = {"rdma_doctor_fabric_link_could_width_lanes",
			    "The widest width both ends enable, where iblinkinfo says \"Could be\" (no series otherwise)."},
	[CM_COULD_SPEED] = {"rdma_doctor_fabric_link_could_lane_speed_bytes_per_second",
			    "The fastest lane speed both ends enable, in bytes per second, where iblinkinfo says \"Could be\" (no "
			    "series otherwise)."},
	[CM_STATUS] = {"rdma_doctor_fabric_link_status",
		       "The worst fabric finding naming the cable: 0 OK (also: none names it), 1 WARN, 2 FAIL, 3 UNKNOWN."},
};

static void cable_series(FILE *f, const struct cable *c, size_t n)
{
	for (int m = 0; m < CM_N; m++) {
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			const struct rd_fab_link *l = c[i].l;
			if ((m == CM_COULD_WIDTH && !l->could_width) || (m == CM_COULD_SPEED && !(l->could_speed > 0)))
				continue;
			if (!any)
				rd_prom_head(f, cable_metrics[m].name, "gauge", cable_metrics[m].help);
			any = true;
			const char *kv[] = {"a_guid", c[i].a_guid, "a_port", c[i].a_port, "a_desc", c[i].a_desc,
					    "b_guid", c[i].b_guid, "b_port", c[i].b_port, "b_desc", c[i].b_desc, NULL};
			rd_prom_series(f, cable_metrics[m].name, kv);
			switch (m) {
			case CM_ACTIVE:
				fprintf(f, "%d\n", strcmp(l->state, "Active") == 0);
				break;
			case CM_WIDTH:
				fprintf(f, "%u\n", l->width);
				break;
			case CM_SPEED:
				fprintf(f, "%.0f\n", l->width ? l->speed * 125e6 : 0.0);
				break;
			case CM_RATE:
				fprintf(f, "%.0f\n", rd_fab_rate(l) * 125e6);
				break;
			case CM_COULD_WIDTH:
				fprintf(f, "%u\n", l->could_width);
				break;
			case CM_COULD_SPEED:
				fprintf(f, "%.0f\n", l->could_speed * 125e6);
				break;
			default:
				fprintf(f, "%d\n", rd_status_exit_code(c[i].status));
			}
		}
	}
}

/* --- ibqueryerrors' counters --- */

static int by_counter(const void *pa, const void *pb)
{
	const struct rd_fab_counter *a = *(const struct rd_fab_counter *const *)pa,
				    *b = *(const struct rd_fab_counter *const *)pb;
	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The IBTA counters' names are letters and digits; a name with anything else is not one
 * ibqueryerrors prints, and is left out (it could not be told apart once escaped). */
static bool counter_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static void counter_series(FILE *f, const struct rd_fabric *fab)
{
	if (!fab->counters_read)
		return;
	const char *name = "rdma_doctor_fabric_port_errors_total";
	rd_prom_head(f, name, "counter",
		     "A port error counter that ibqueryerrors printed (the ones above its threshold; a port or counter "
		     "without a series was at or below it), raw value.");
	const struct rd_fab_counter **v = rd_xcalloc(fab->ncounters + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < fab->ncounters; i++)
		if (counter_name_ok(fab->counters[i].name))
			v[n++] = &fab->counters[i];
	qsort(v, n, sizeof *v, by_counter);
	for (size_t i = 0; i < n; i++) {
		if (i && by_counter(&v[i - 1], &v[i]) == 0)
			continue;
		char guid[20], port[8];
		snprintf(guid, sizeof guid, "0x%016llx", (unsigned long long)v[i]->guid);
		snprintf(port, sizeof port, "%u", v[i]->port);
		const struct rd_fab_node *nd = rd_fabric_node(fab, v[i]->guid);
		const char *desc = nd && nd->desc && *nd->desc ? nd->desc : s0(v[i]->desc);
		const char *kv[] = {"guid", guid, "port", port, "desc", desc, "counter", v[i]->name, NULL};
		rd_prom_series(f, name, kv);
		fprintf(f, "%llu\n", (unsigned long long)v[i]->value);
	}
	free(v);
}

void rd_render_fabric_prometheus(FILE *out, const struct rd_fabric *f, const struct rd_report *r,
				 const struct rd_fabric_meta *m, long long now)
{
	rd_prom_head(out, "rdma_doctor_fabric_last_run_timestamp_seconds", "gauge",
		     "When rdma-doctor last judged the fabric, in seconds since the epoch.");
	fprintf(out, "rdma_doctor_fabric_last_run_timestamp_seconds %lld\n", now);
	rd_prom_head(out, "rdma_doctor_fabric_status", "gauge",
		     "The fabric's verdict, the exit status of fabric: 0 OK, 1 WARN, 2 FAIL, 3 UNKNOWN.");
	fprintf(out, "rdma_doctor_fabric_status %d\n", rd_status_exit_code(rd_report_status(r)));
	rd_prom_findings(out, "rdma_doctor_fabric_findings", "Number of fabric findings of the last run by status.", r);
	/* each input asked for: 1 read, 0 not (an error, or an exit status the tool does not give
	 * for a successful run; ibqueryerrors exits 1 when it printed counters above threshold) */
	rd_prom_head(out, "rdma_doctor_fabric_input_read", "gauge",
		     "1 when the input (a tool's output, run or captured) was read, 0 when it was asked for and could not be.");
	for (int i = 0; m->inputs && i < RD_FAB_NIN; i++) {
		const struct rd_fab_input *in = &m->inputs[i];
		if (in->text.err == RD_ENOTCAPTURED)
			continue;
		bool ok = !in->text.err &&
			  (in->text.status == 0 || (in->text.status == 1 && strcmp(in->name, "ibqueryerrors") == 0));
		const char *kv[] = {"input", in->name, NULL};
		rd_prom_series(out, "rdma_doctor_fabric_input_read", kv);
		fprintf(out, "%d\n", ok);
	}
	size_t sw = 0, ca = 0, rt = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		sw += f->nodes[i].kind == RD_FAB_SW;
		ca += f->nodes[i].kind == RD_FAB_CA;
		rt += f->nodes[i].kind == RD_FAB_RT;
	}
	rd_prom_head(out, "rdma_doctor_fabric_nodes", "gauge", "Nodes seen in the fabric by kind (SW switch, CA channel adapter, RT router).");
	const size_t counts[] = {sw, ca, rt};
	const char *kinds[] = {"SW", "CA", "RT"};
	for (int k = 0; k < 3; k++) {
		const char *kv[] = {"kind", kinds[k], NULL};
		rd_prom_series(out, "rdma_doctor_fabric_nodes", kv);
		fprintf(out, "%zu\n", counts[k]);
	}
	size_t ncab;
	struct cable *c = cables(f, r, &ncab);
	size_t uncabled = 0;
	for (size_t i = 0; i < f->nlinks; i++)
		uncabled += !f->links[i].has_peer;
	rd_prom_head(out, "rdma_doctor_fabric_links", "gauge", "Cables seen in the fabric (a switch-to-switch cable once).");
	fprintf(out, "rdma_doctor_fabric_links %zu\n", ncab);
	rd_prom_head(out, "rdma_doctor_fabric_ports_without_peer", "gauge", "Switch ports that iblinkinfo shows with no peer.");
	fprintf(out, "rdma_doctor_fabric_ports_without_peer %zu\n", uncabled);
	rd_prom_head(out, "rdma_doctor_fabric_lines_not_understood", "gauge",
		     "Lines of the tools' outputs that were not understood (0 for outputs of the tools it knows).");
	fprintf(out, "rdma_doctor_fabric_lines_not_understood %u\n", f->skipped);
	if (f->sm.read) {
		char guid[20], lid[12], prio[12];
		snprintf(guid, sizeof guid, "0x%016llx", (unsigned long long)f->sm.guid);
		snprintf(lid, sizeof lid, "%u", f->sm.lid);
		snprintf(prio, sizeof prio, "%u", f->sm.priority);
		rd_prom_head(out, "rdma_doctor_fabric_sm_state", "gauge",
			     "The subnet manager sminfo answered with: its state (3 master, 2 standby, 1 discovering, 0 not active).");
		const char *kv[] = {"lid", lid, "guid", guid, "priority", prio, NULL};
		rd_prom_series(out, "rdma_doctor_fabric_sm_state", kv);
		fprintf(out, "%u\n", f->sm.state);
	}
	check_status(out, r);
	cable_series(out, c, ncab);
	free(c);
	counter_series(out, f);
}
