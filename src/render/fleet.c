/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fleet summary as text, JSON (rdma-doctor/fleet/v1) and HTML (see fleet.h). */
#include "render/fleet.h"

#include <stdlib.h>
#include <string.h>

#include "util/hostlist.h"
#include "util/map.h"
#include "render/out.h"
#include "util/util.h"

const char *rd_fleet_verdict(const struct rd_fleet *f)
{
	switch (f->exit_code) {
	case 2:
		return "FAIL";
	case 1:
		return "WARN";
	case 0:
		return "OK";
	default:
		return "UNKNOWN";
	}
}

/* a value that differs from the group's majority (modules: every entry is a problem; status:
 * every status but OK, whatever the majority) */
static bool flagged(const struct rd_fleet *f, const struct rd_fleet_group *g, size_t idx)
{
	if (g->kind == RD_FK_MODULES)
		return true;
	if (g->kind == RD_FK_STATUS)
		return strcmp(f->entries[g->entries[idx]].value, "OK") != 0;
	if (g->kind == RD_FK_FINDING || g->kind == RD_FK_NODES)
		return false;
	return idx > 0;
}

static bool is_missing(const struct rd_fleet_node *n)
{
	return !n->reported;
}

static bool is_stale(const struct rd_fleet_node *n)
{
	return n->stale;
}

static bool is_expected(const struct rd_fleet_node *n)
{
	return n->expected;
}

static bool is_unexpected(const struct rd_fleet_node *n)
{
	return n->reported && !n->expected;
}

static bool st_fail(const struct rd_fleet_node *n)
{
	return n->reported && !n->stale && n->status == RD_FS_FAIL;
}

static bool st_warn(const struct rd_fleet_node *n)
{
	return n->reported && !n->stale && n->status == RD_FS_WARN;
}

static bool st_unknown(const struct rd_fleet_node *n)
{
	return n->reported && !n->stale && n->status == RD_FS_UNKNOWN;
}

static bool (*const by_status[6])(const struct rd_fleet_node *) = {
	[RD_FS_FAIL] = st_fail, [RD_FS_WARN] = st_warn, [RD_FS_UNKNOWN] = st_unknown};

/* The model of a board (its most common one), or "" */
static const char *board_model(const struct rd_fleet *f, const char *scope)
{
	for (size_t i = 0; i < f->norder; i++) {
		const struct rd_fleet_group *g = &f->groups[f->order[i]];
		if (g->kind == RD_FK_NODES && !strcmp(g->scope, scope) && g->n)
			return f->entries[g->entries[0]].value;
	}
	return "";
}

static const char *heading(const struct rd_fleet_group *g)
{
	return g->kind == RD_FK_PORT || g->kind == RD_FK_FINDING ? g->name : rd_fleet_kind_title(g->kind);
}

static void status_reason(const struct rd_fleet *f, struct rd_strv *out, enum rd_fleet_status s)
{
	if (!f->nstatus[s])
		return;
	char *hl = rd_fleet_nodes_hostlist(f, by_status[s]);
	rd_strv_push_owned(out, rd_xasprintf("%zu node%s %s: %s", f->nstatus[s], f->nstatus[s] == 1 ? "" : "s",
					     rd_fleet_status_name(s), hl));
	free(hl);
}

/* The reasons behind the verdict, one line each, into out, in the order of the exit status's
 * ranks: FAIL; missing, stale, unreadable, untrusted, UNKNOWN; WARN, drift */
static void fabric_reason(const struct rd_fleet *f, struct rd_strv *out, enum rd_fleet_status s)
{
	const struct rd_fleet_fabric *fab = f->fabric;
	if (!fab || fab->status != s)
		return;
	rd_strv_push_owned(out, rd_xasprintf("fabric %s (%s): %zu FAIL, %zu WARN, %zu UNKNOWN finding%s, %zu bad link%s",
					     rd_fleet_status_name(s), fab->origin, fab->nfail, fab->nwarn, fab->nunknown,
					     fab->nfail + fab->nwarn + fab->nunknown == 1 ? "" : "s", fab->bad_links,
					     fab->bad_links == 1 ? "" : "s"));
}

static void pairs_reason(const struct rd_fleet *f, struct rd_strv *out, enum rd_fleet_status s)
{
	const struct rd_fleet_pairs *p = f->pairs;
	if (!p || p->status != s)
		return;
	rd_strv_push_owned(out, rd_xasprintf("pairs %s (%s): %zu FAIL, %zu WARN, %zu UNKNOWN finding%s%s%s",
					     rd_fleet_status_name(s), p->origin, p->nfail, p->nwarn, p->nunknown,
					     p->nfail + p->nwarn + p->nunknown == 1 ? "" : "s", *p->bad ? "; bad: " : "", p->bad));
}

static void reasons(const struct rd_fleet *f, struct rd_strv *out)
{
	status_reason(f, out, RD_FS_FAIL);
	fabric_reason(f, out, RD_FS_FAIL);
	pairs_reason(f, out, RD_FS_FAIL);
	if (f->nmissing) {
		char *hl = rd_fleet_nodes_hostlist(f, is_missing);
		rd_strv_push_owned(out, rd_xasprintf("%zu node%s missing (no report): %s", f->nmissing,
						     f->nmissing == 1 ? "" : "s", hl));
		free(hl);
	}
	if (f->nstale) {
		char *hl = rd_fleet_nodes_hostlist(f, is_stale);
		rd_strv_push_owned(out, rd_xasprintf("%zu node%s with a stale report: %s", f->nstale, f->nstale == 1 ? "" : "s", hl));
		free(hl);
	}
	if (f->problems.total)
		rd_strv_push_owned(out, rd_xasprintf("%zu unreadable input%s or report%s", f->problems.total,
						     f->problems.total == 1 ? "" : "s", f->problems.total == 1 ? "" : "s"));
	if (f->untrusted.total)
		rd_strv_push_owned(out, rd_xasprintf("%zu report%s not trusted (another host's, dated in the future, or "
						     "several for one host)", f->untrusted.total, f->untrusted.total == 1 ? "" : "s"));
	status_reason(f, out, RD_FS_UNKNOWN);
	fabric_reason(f, out, RD_FS_UNKNOWN);
	pairs_reason(f, out, RD_FS_UNKNOWN);
	status_reason(f, out, RD_FS_WARN);
	fabric_reason(f, out, RD_FS_WARN);
	pairs_reason(f, out, RD_FS_WARN);
	for (size_t i = 0; i < f->norder; i++) {
		const struct rd_fleet_group *g = &f->groups[f->order[i]];
		if (!g->drift)
			continue;
		if (*g->scope)
			rd_strv_push_owned(out, rd_xasprintf("drift: %s differs within board %s (%zu values)",
							     rd_fleet_kind_title(g->kind), g->scope, g->n));
		else
			rd_strv_push_owned(out, rd_xasprintf("drift: %s differs across the fleet (%zu values)",
							     rd_fleet_kind_title(g->kind), g->n));
	}
	if (!f->nreported && !f->nmissing && !f->nstale && !f->problems.total && !f->untrusted.total)
		rd_strv_push(out, "no report read");
}

/* ---- text --------------------------------------------------------------------------------- */

static void text_notes(FILE *out, bool ascii, const char *title, const struct rd_fleet_notes *ns)
{
	if (!ns->total)
		return;
	rd_text_printf(out, ascii, "\n%s (%zu):\n", title, ns->total);
	for (size_t i = 0; i < ns->n && i < RD_FLEET_TEXT_MAX_PROBLEMS; i++) {
		const struct rd_fleet_note *n = &ns->v[i];
		if (n->label)
			rd_text_printf(out, ascii, "  %s: host %s: %s\n", n->origin, n->label, n->msg);
		else
			rd_text_printf(out, ascii, "  %s: %s\n", n->origin, n->msg);
	}
	if (ns->total > RD_FLEET_TEXT_MAX_PROBLEMS)
		rd_text_printf(out, ascii, "  ... and %zu more (--format json lists up to %d)\n",
			       ns->total - RD_FLEET_TEXT_MAX_PROBLEMS, RD_FLEET_MAX_NOTES);
}

/* The fabric's findings above OK, worst first (FAIL, UNKNOWN, WARN: the exit status's ranks), in
 * the document's order within a status; *n their number. */
static size_t *fabric_findings(const struct rd_fleet_fabric *fab, size_t *n)
{
	static const enum rd_fleet_status order[] = {RD_FS_FAIL, RD_FS_UNKNOWN, RD_FS_WARN};
	size_t *ix = rd_xmalloc((fab->nfinds ? fab->nfinds : 1) * sizeof *ix);
	*n = 0;
	for (size_t o = 0; o < 3; o++)
		for (size_t i = 0; i < fab->nfinds; i++)
			if (fab->finds[i].status == order[o])
				ix[(*n)++] = i;
	return ix;
}

/* The pairs' findings above OK grouped: a node's (no peer) by check and status, their hosts as one
 * hostlist; a pair's by check, status and the pair, its rails counted.  Worst first (FAIL,
 * UNKNOWN, WARN), then in the document's order. */
struct pairs_group {
	const struct rd_fleet_pairs_finding *first;
	char *subject; /* a hostlist, or "HOST - PEER" */
	size_t count;  /* findings (rails) in it */
	struct rd_strv hosts;
};

static size_t pairs_groups(const struct rd_fleet_pairs *p, struct pairs_group **out)
{
	static const enum rd_fleet_status order[] = {RD_FS_FAIL, RD_FS_UNKNOWN, RD_FS_WARN};
	struct pairs_group *g = NULL;
	size_t n = 0;
	struct rd_map ix = {0};
	for (size_t o = 0; o < 3; o++)
		for (size_t i = 0; i < p->nfinds; i++) {
			const struct rd_fleet_pairs_finding *fd = &p->finds[i];
			if (fd->status != order[o])
				continue;
			char *key = rd_xasprintf("%s\t%d\t%s\t%s", fd->id, (int)fd->status, fd->peer ? fd->host : "",
						 fd->peer ? fd->peer : "");
			bool isnew;
			struct rd_map_slot *s = rd_map_put(&ix, key, strlen(key), &isnew);
			free(key);
			if (isnew) {
				s->val.ix = n;
				g = rd_grow(g, n, sizeof *g);
				g[n] = (struct pairs_group){.first = fd};
				if (fd->peer)
					g[n].subject = rd_xasprintf("%s - %s", fd->host, fd->peer);
				n++;
			}
			struct pairs_group *x = &g[s->val.ix];
			x->count++;
			if (!fd->peer)
				rd_strv_push(&x->hosts, fd->host);
		}
	for (size_t i = 0; i < n; i++)
		if (!g[i].subject)
			g[i].subject = rd_hostlist_compress((const char *const *)g[i].hosts.v, g[i].hosts.n);
	rd_map_free(&ix, NULL);
	*out = g;
	return n;
}

static void pairs_groups_free(struct pairs_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i].subject);
		rd_strv_free(&g[i].hosts);
	}
	free(g);
}

static void text_pairs(FILE *out, const struct rd_fleet *f, bool ascii)
{
	const struct rd_fleet_pairs *p = f->pairs;
	if (!p)
		return;
	rd_text_printf(out, ascii, "\nPairs %s (%s): %llu nodes, %llu rounds, %llu samples", rd_fleet_status_name(p->status),
		       p->origin, p->nodes, p->rounds, p->samples);
	if (p->median >= 0)
		rd_text_printf(out, ascii, ", median %.1f Gb/s", p->median);
	rd_text_printf(out, ascii, "\n  bad: %s; suspect: %s; untested: %s; cleared: %s\n", *p->bad ? p->bad : "none",
		       *p->suspect ? p->suspect : "none", *p->untested ? p->untested : "none", *p->cleared ? p->cleared : "none");
	struct pairs_group *g;
	size_t n = pairs_groups(p, &g);
	for (size_t i = 0; i < n && i < RD_FLEET_TEXT_MAX_FABRIC; i++) {
		rd_text_printf(out, ascii, "  %-7s %-24s %5zu  %s\n", rd_fleet_status_name(g[i].first->status), g[i].first->id,
			       g[i].count, g[i].subject);
		if (g[i].first->message)
			rd_text_printf(out, ascii, "          %s\n", g[i].first->message);
	}
	if (n > RD_FLEET_TEXT_MAX_FABRIC || p->finds_cut)
		rd_text_printf(out, ascii, "  ... and more (--format json lists them)\n");
	pairs_groups_free(g, n);
}

static void text_fabric(FILE *out, const struct rd_fleet *f, bool ascii)
{
	const struct rd_fleet_fabric *fab = f->fabric;
	if (!fab)
		return;
	rd_text_printf(out, ascii, "\nFabric %s (%s%s%s): %llu switches, %llu CA ports on %llu hosts, %llu links, %zu bad\n",
		       rd_fleet_status_name(fab->status), fab->origin, fab->time ? ", " : "", fab->time ? fab->time : "",
		       fab->switches, fab->cas, fab->hosts, fab->cables, fab->bad_links);
	size_t n, *ix = fabric_findings(fab, &n);
	for (size_t i = 0; i < n && i < RD_FLEET_TEXT_MAX_FABRIC; i++) {
		const struct rd_fleet_fab_finding *fd = &fab->finds[ix[i]];
		rd_text_printf(out, ascii, "  %-7s %-24s %s\n", rd_fleet_status_name(fd->status), fd->check, fd->subject);
		if (fd->message)
			rd_text_printf(out, ascii, "          %s\n", fd->message);
	}
	size_t more = n > RD_FLEET_TEXT_MAX_FABRIC ? n - RD_FLEET_TEXT_MAX_FABRIC : 0;
	more += fab->finds_cut;
	if (more)
		rd_text_printf(out, ascii, "  ... and %zu more (--format json lists up to %d)\n", more,
			       RD_FLEET_FABRIC_MAX_FINDINGS);
	if (!n && !fab->finds_cut)
		rd_text_printf(out, ascii, "  no finding above OK\n");
	free(ix);
}

void rd_fleet_text(FILE *out, const struct rd_fleet *f, bool ascii)
{
	if (f->have_expect) {
		char *hl = rd_fleet_nodes_hostlist(f, is_expected);
		rd_text_printf(out, ascii, "Fleet: %zu of %zu expected nodes reported (%s)\n", f->nexpected_reported,
			       f->nexpected, hl);
		free(hl);
		if (f->nunexpected) {
			hl = rd_fleet_nodes_hostlist(f, is_unexpected);
			rd_text_printf(out, ascii, "Not expected but reported: %s (%zu)\n", hl, f->nunexpected);
			free(hl);
		}
	} else
		rd_text_printf(out, ascii, "Fleet: %zu node%s reported\n", f->nreported, f->nreported == 1 ? "" : "s");
	const char *cur = NULL;
	bool findings = false;
	for (size_t i = 0; i < f->norder; i++) {
		const struct rd_fleet_group *g = &f->groups[f->order[i]];
		if (g->kind == RD_FK_NODES)
			continue;
		if (g->kind == RD_FK_FINDING) {
			if (!findings)
				rd_text_printf(out, ascii, "\nFindings that are not OK (check, subject, nodes):\n");
			findings = true;
		} else if (!cur || strcmp(cur, g->scope) != 0) {
			cur = g->scope;
			if (!*cur)
				rd_text_printf(out, ascii, "\nWhole fleet (%zu nodes):\n", f->nreported);
			else
				rd_text_printf(out, ascii, "\nBoard %s %s (%zu nodes):\n", cur, board_model(f, cur),
					       rd_fleet_scope_nodes(f, cur));
		}
		rd_text_printf(out, ascii, "  %s%s\n", heading(g), g->drift ? "  DRIFT" : "");
		for (size_t j = 0; j < g->n; j++) {
			const struct rd_fleet_entry *e = &f->entries[g->entries[j]];
			char *hl = rd_fleet_entry_hostlist(f, e);
			if (g->kind == RD_FK_FINDING) {
				rd_text_printf(out, ascii, "    %-7s %-24s %5zu  %s\n", rd_fleet_status_name(e->status), e->value, e->n, hl);
				if (e->message)
					rd_text_printf(out, ascii, "            %s\n", e->message);
			} else
				rd_text_printf(out, ascii, "  %s %-30s %5zu  %s\n", flagged(f, g, j) ? "!" : " ", e->value, e->n, hl);
			free(hl);
		}
	}
	text_fabric(out, f, ascii);
	text_pairs(out, f, ascii);
	text_notes(out, ascii, "Unreadable", &f->problems);
	text_notes(out, ascii, "Not trusted", &f->untrusted);
	text_notes(out, ascii, "Notes", &f->notes);
	struct rd_strv why = {0};
	reasons(f, &why);
	rd_text_printf(out, ascii, "\nVerdict: %s (exit %d)%s\n", rd_fleet_verdict(f), f->exit_code,
		       why.n ? "" : ": uniform and healthy");
	for (size_t i = 0; i < why.n; i++)
		rd_text_printf(out, ascii, "  %s\n", why.v[i]);
	rd_strv_free(&why);
}

/* ---- JSON --------------------------------------------------------------------------------- */

static void json_notes(struct rd_out *o, const char *key, const struct rd_fleet_notes *ns, const char *what)
{
	rd_out_arr_begin(o, key);
	for (size_t i = 0; i < ns->n; i++) {
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "input", NULL, ns->v[i].origin);
		rd_out_str(o, "host", NULL, ns->v[i].label);
		rd_out_str(o, what, NULL, ns->v[i].msg);
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
}

static void json_group(struct rd_out *o, const struct rd_fleet *f, const struct rd_fleet_group *g)
{
	rd_out_obj_begin(o, NULL);
	if (g->kind == RD_FK_FINDING)
		rd_out_str(o, "check", NULL, g->name);
	else
		rd_out_str(o, "kind", NULL, rd_fleet_kind_key(g->kind));
	if (g->kind == RD_FK_PORT) {
		const char *ll = strchr(g->name, '(');
		char buf[300];
		snprintf(buf, sizeof buf, "%s", ll ? ll + 1 : g->name);
		buf[strcspn(buf, ")")] = '\0';
		rd_out_str(o, "link_layer", NULL, buf);
	}
	if (g->kind != RD_FK_FINDING)
		rd_out_bool(o, "drift", NULL, g->drift);
	rd_out_arr_begin(o, "values");
	for (size_t j = 0; j < g->n; j++) {
		const struct rd_fleet_entry *e = &f->entries[g->entries[j]];
		char *hl = rd_fleet_entry_hostlist(f, e);
		rd_out_obj_begin(o, NULL);
		if (g->kind == RD_FK_FINDING) {
			rd_out_str(o, "subject", NULL, e->value);
			rd_out_str(o, "status", NULL, rd_fleet_status_name(e->status));
		} else
			rd_out_str(o, "value", NULL, e->value);
		rd_out_uint(o, "count", NULL, e->n);
		rd_out_str(o, "hosts", NULL, hl);
		if (g->kind == RD_FK_FINDING)
			rd_out_str(o, "message", NULL, e->message);
		else
			rd_out_bool(o, "minority", NULL, flagged(f, g, j));
		rd_out_obj_end(o);
		free(hl);
	}
	rd_out_arr_end(o);
	rd_out_obj_end(o);
}

static void json_fab_end(struct rd_out *o, const char *key, const struct rd_fleet_fab_end *e)
{
	rd_out_obj_begin(o, key);
	rd_out_str(o, "guid", NULL, e->guid);
	rd_out_uint(o, "port", NULL, e->port);
	rd_out_str(o, "kind", NULL, e->kind);
	rd_out_str(o, "desc", NULL, e->desc);
	rd_out_obj_end(o);
}

static void json_fabric(struct rd_out *o, const struct rd_fleet_fabric *fab)
{
	if (!fab) {
		rd_out_null(o, "fabric");
		return;
	}
	rd_out_obj_begin(o, "fabric");
	rd_out_str(o, "input", NULL, fab->origin);
	rd_out_str(o, "time", NULL, fab->time);
	rd_out_str(o, "source", NULL, fab->source);
	rd_out_str(o, "status", NULL, rd_fleet_status_name(fab->status));
	rd_out_obj_begin(o, "counts");
	rd_out_uint(o, "switches", NULL, fab->switches);
	rd_out_uint(o, "cas", NULL, fab->cas);
	rd_out_uint(o, "hosts", NULL, fab->hosts);
	rd_out_uint(o, "links", NULL, fab->cables);
	rd_out_uint(o, "bad_links", NULL, fab->bad_links);
	rd_out_uint(o, "fail", NULL, fab->nfail);
	rd_out_uint(o, "warn", NULL, fab->nwarn);
	rd_out_uint(o, "unknown", NULL, fab->nunknown);
	rd_out_obj_end(o);
	size_t n, *ix = fabric_findings(fab, &n);
	rd_out_arr_begin(o, "findings");
	for (size_t i = 0; i < n; i++) {
		const struct rd_fleet_fab_finding *fd = &fab->finds[ix[i]];
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "check", NULL, fd->check);
		rd_out_str(o, "status", NULL, rd_fleet_status_name(fd->status));
		rd_out_str(o, "subject", NULL, fd->subject);
		rd_out_str(o, "message", NULL, fd->message);
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
	free(ix);
	rd_out_uint(o, "findings_not_listed", NULL, fab->finds_cut);
	rd_out_arr_begin(o, "bad_links");
	for (size_t i = 0; i < fab->nlinks; i++) {
		const struct rd_fleet_fab_link *l = &fab->links[i];
		if (l->status == RD_FS_NONE)
			continue;
		rd_out_obj_begin(o, NULL);
		json_fab_end(o, "a", &l->a);
		if (l->has_peer)
			json_fab_end(o, "b", &l->b);
		else
			rd_out_null(o, "b");
		rd_out_uint(o, "width", NULL, l->width);
		rd_out_double(o, "speed_gbps", NULL, l->speed);
		if (l->could_width)
			rd_out_uint(o, "could_width", NULL, l->could_width);
		else
			rd_out_null(o, "could_width");
		if (l->could_speed > 0)
			rd_out_double(o, "could_speed_gbps", NULL, l->could_speed);
		else
			rd_out_null(o, "could_speed_gbps");
		rd_out_str(o, "state", NULL, l->state);
		rd_out_str(o, "phys_state", NULL, l->phys);
		rd_out_str(o, "status", NULL, rd_fleet_status_name(l->status));
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
	rd_out_uint(o, "links_not_read", NULL, fab->links_cut);
	rd_out_obj_end(o);
}

static void json_pairs(struct rd_out *o, const struct rd_fleet_pairs *p)
{
	if (!p) {
		rd_out_null(o, "pairs");
		return;
	}
	rd_out_obj_begin(o, "pairs");
	rd_out_str(o, "input", NULL, p->origin);
	rd_out_str(o, "status", NULL, rd_fleet_status_name(p->status));
	rd_out_obj_begin(o, "counts");
	rd_out_uint(o, "nodes", NULL, p->nodes);
	rd_out_uint(o, "rounds", NULL, p->rounds);
	rd_out_uint(o, "samples", NULL, p->samples);
	rd_out_uint(o, "fail", NULL, p->nfail);
	rd_out_uint(o, "warn", NULL, p->nwarn);
	rd_out_uint(o, "unknown", NULL, p->nunknown);
	rd_out_obj_end(o);
	if (p->median >= 0)
		rd_out_double(o, "median_gbps", NULL, p->median);
	else
		rd_out_null(o, "median_gbps");
	rd_out_obj_begin(o, "hosts");
	rd_out_str(o, "bad", NULL, p->bad);
	rd_out_str(o, "suspect", NULL, p->suspect);
	rd_out_str(o, "untested", NULL, p->untested);
	rd_out_str(o, "cleared", NULL, p->cleared);
	rd_out_obj_end(o);
	struct pairs_group *g;
	size_t n = pairs_groups(p, &g);
	rd_out_arr_begin(o, "findings");
	for (size_t i = 0; i < n; i++) {
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "check", NULL, g[i].first->id);
		rd_out_str(o, "status", NULL, rd_fleet_status_name(g[i].first->status));
		rd_out_str(o, g[i].first->peer ? "pair" : "hosts", NULL, g[i].subject);
		rd_out_uint(o, "count", NULL, g[i].count);
		rd_out_str(o, "message", NULL, g[i].first->message);
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
	pairs_groups_free(g, n);
	rd_out_uint(o, "findings_not_listed", NULL, p->finds_cut);
	rd_out_obj_end(o);
}

static const struct rd_fleet *sort_f;

/* Per node: a bit (1 << kind) for each drift group where it has a minority value. */
static unsigned *drift_marks(const struct rd_fleet *f)
{
	unsigned *m = rd_xcalloc(f->nnodes ? f->nnodes : 1, sizeof *m);
	for (size_t i = 0; i < f->norder; i++) {
		const struct rd_fleet_group *g = &f->groups[f->order[i]];
		for (size_t j = 1; g->drift && j < g->n; j++) {
			const struct rd_fleet_entry *e = &f->entries[g->entries[j]];
			for (size_t k = 0; k < e->n; k++)
				m[e->hosts[k]] |= 1u << g->kind;
		}
	}
	return m;
}

static int cmp_node_names(const void *a, const void *b)
{
	return rd_hostname_cmp(sort_f->nodes[*(const size_t *)a].name, sort_f->nodes[*(const size_t *)b].name);
}

static size_t *sorted_nodes(const struct rd_fleet *f)
{
	size_t *ix = rd_xmalloc((f->nnodes ? f->nnodes : 1) * sizeof *ix);
	for (size_t i = 0; i < f->nnodes; i++)
		ix[i] = i;
	sort_f = f;
	qsort(ix, f->nnodes, sizeof *ix, cmp_node_names);
	return ix;
}

void rd_fleet_json(FILE *out, const struct rd_fleet *f)
{
	struct rd_out o;
	rd_out_init(&o, out, true);
	char tbuf[32];
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/fleet/v1");
	rd_out_str(&o, "version", NULL, RD_VERSION);
	rd_out_str(&o, "time", NULL, rd_utc_iso8601(f->now, tbuf, sizeof tbuf));
	if (f->max_age > 0)
		rd_out_int(&o, "max_age_seconds", NULL, f->max_age);
	else
		rd_out_null(&o, "max_age_seconds");
	rd_out_str(&o, "status", NULL, rd_fleet_verdict(f));
	rd_out_int(&o, "exit_code", NULL, f->exit_code);
	rd_out_bool(&o, "drift", NULL, f->drift);
	struct rd_strv why = {0};
	reasons(f, &why);
	rd_out_arr_begin(&o, "reasons");
	for (size_t i = 0; i < why.n; i++)
		rd_out_item_str(&o, NULL, why.v[i]);
	rd_out_arr_end(&o);
	rd_strv_free(&why);
	rd_out_obj_begin(&o, "counts");
	rd_out_uint(&o, "reported", NULL, f->nreported);
	if (f->have_expect) {
		rd_out_uint(&o, "expected", NULL, f->nexpected);
		rd_out_uint(&o, "expected_reported", NULL, f->nexpected_reported);
	} else {
		rd_out_null(&o, "expected");
		rd_out_null(&o, "expected_reported");
	}
	rd_out_uint(&o, "missing", NULL, f->nmissing);
	rd_out_uint(&o, "stale", NULL, f->nstale);
	rd_out_uint(&o, "unexpected", NULL, f->nunexpected);
	rd_out_uint(&o, "unreadable", NULL, f->problems.total);
	rd_out_uint(&o, "untrusted", NULL, f->untrusted.total);
	rd_out_uint(&o, "ok", NULL, f->nstatus[RD_FS_OK]);
	rd_out_uint(&o, "warn", NULL, f->nstatus[RD_FS_WARN]);
	rd_out_uint(&o, "fail", NULL, f->nstatus[RD_FS_FAIL]);
	rd_out_uint(&o, "unknown", NULL, f->nstatus[RD_FS_UNKNOWN]);
	rd_out_obj_end(&o);
	char *hl = rd_fleet_nodes_hostlist(f, is_missing);
	rd_out_str(&o, "missing", NULL, hl);
	free(hl);
	json_notes(&o, "unreadable", &f->problems, "error");
	rd_out_uint(&o, "unreadable_not_listed", NULL, f->problems.total - f->problems.n);
	json_notes(&o, "untrusted", &f->untrusted, "reason");
	rd_out_uint(&o, "untrusted_not_listed", NULL, f->untrusted.total - f->untrusted.n);
	hl = rd_fleet_nodes_hostlist(f, is_unexpected);
	rd_out_str(&o, "unexpected", NULL, f->have_expect ? hl : "");
	free(hl);
	json_notes(&o, "notes", &f->notes, "note");
	json_fabric(&o, f->fabric);
	json_pairs(&o, f->pairs);
	rd_out_arr_begin(&o, "fleet");
	for (size_t i = 0; i < f->norder; i++) {
		const struct rd_fleet_group *g = &f->groups[f->order[i]];
		if (!*g->scope && g->kind != RD_FK_FINDING)
			json_group(&o, f, g);
	}
	rd_out_arr_end(&o);
	rd_out_arr_begin(&o, "boards");
	const char *cur = NULL;
	for (size_t i = 0; i < f->norder; i++) {
		const struct rd_fleet_group *g = &f->groups[f->order[i]];
		if (!*g->scope || g->kind == RD_FK_NODES)
			continue;
		if (!cur || strcmp(cur, g->scope) != 0) {
			if (cur) {
				rd_out_arr_end(&o);
				rd_out_obj_end(&o);
			}
			cur = g->scope;
			rd_out_obj_begin(&o, NULL);
			rd_out_str(&o, "board_id", NULL, cur);
			rd_out_str(&o, "model", NULL, board_model(f, cur));
			rd_out_uint(&o, "nodes", NULL, rd_fleet_scope_nodes(f, cur));
			rd_out_arr_begin(&o, "groups");
		}
		json_group(&o, f, g);
	}
	if (cur) {
		rd_out_arr_end(&o);
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	rd_out_arr_begin(&o, "findings");
	for (size_t i = 0; i < f->norder; i++) {
		const struct rd_fleet_group *g = &f->groups[f->order[i]];
		if (g->kind == RD_FK_FINDING)
			json_group(&o, f, g);
	}
	rd_out_arr_end(&o);
	rd_out_arr_begin(&o, "nodes");
	size_t *ix = sorted_nodes(f);
	unsigned *marks = drift_marks(f);
	for (size_t k = 0; k < f->nnodes; k++) {
		const struct rd_fleet_node *n = &f->nodes[ix[k]];
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "host", NULL, n->name);
		rd_out_str(&o, "state", NULL, !n->reported ? "missing" : n->stale ? "stale" : "reported");
		if (n->reported) {
			rd_out_str(&o, "status", NULL, rd_fleet_status_name(n->status));
			rd_out_str(&o, "time", NULL, n->time);
			rd_out_str(&o, "input", NULL, n->origin);
		} else {
			rd_out_null(&o, "status");
			rd_out_null(&o, "time");
			rd_out_null(&o, "input");
		}
		rd_out_bool(&o, "expected", NULL, n->expected);
		rd_out_arr_begin(&o, "drift");
		for (int b = 0; b <= RD_FK_FINDING; b++)
			if (marks[ix[k]] & (1u << b))
				rd_out_item_str(&o, NULL, rd_fleet_kind_key((enum rd_fleet_kind)b));
		rd_out_arr_end(&o);
		rd_out_obj_begin(&o, "checks");
		for (size_t c = 0; c < n->nchecks; c++)
			if (n->checks[c] && n->checks[c] != RD_FS_OK && n->checks[c] != RD_FS_SKIP)
				rd_out_str(&o, f->checks.v[c], NULL, rd_fleet_status_name(n->checks[c]));
		rd_out_obj_end(&o);
		rd_out_obj_end(&o);
	}
	free(ix);
	free(marks);
	rd_out_arr_end(&o);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
}

/* ---- HTML --------------------------------------------------------------------------------- */

/* text as HTML: first made visible as the text output makes it (rd_buf_put_visible: C0, DEL, C1,
 * invalid UTF-8 and the bidirectional overrides as \x1b, \u202e ...: one rule for both), then
 * & < > " ' escaped */
static void h(FILE *out, const char *s)
{
	struct rd_buf vis = {0};
	rd_buf_puts(&vis, "");
	rd_buf_put_visible(&vis, s ? s : "", s ? strlen(s) : 0, false);
	const unsigned char *p = (const unsigned char *)vis.data;
	for (size_t i = 0; i < vis.len; i++) {
		unsigned char c = p[i];
		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			fputc(c, out);
		}
	}
	rd_buf_free(&vis);
}

void rd_fleet_html_text(FILE *out, const char *s)
{
	h(out, s);
}

static const char *css_status(enum rd_fleet_status s)
{
	switch (s) {
	case RD_FS_OK: return "ok";
	case RD_FS_WARN: return "warn";
	case RD_FS_FAIL: return "fail";
	case RD_FS_UNKNOWN: return "unknown";
	case RD_FS_SKIP: return "skip";
	default: return "none";
	}
}

static void html_group(FILE *out, const struct rd_fleet *f, const struct rd_fleet_group *g)
{
	fputs("<tr class=\"head\"><th colspan=\"3\">", out);
	h(out, heading(g));
	if (g->drift)
		fputs(" <span class=\"drift\">DRIFT</span>", out);
	fputs("</th></tr>\n", out);
	for (size_t j = 0; j < g->n; j++) {
		const struct rd_fleet_entry *e = &f->entries[g->entries[j]];
		char *hl = rd_fleet_entry_hostlist(f, e);
		fprintf(out, "<tr%s><td>", flagged(f, g, j) ? " class=\"minority\"" : "");
		if (g->kind == RD_FK_FINDING)
			fprintf(out, "<span class=\"st %s\">%s</span> ", css_status(e->status), rd_fleet_status_name(e->status));
		h(out, e->value);
		if (g->kind == RD_FK_FINDING && e->message) {
			fputs("<div class=\"msg\">", out);
			h(out, e->message);
			fputs("</div>", out);
		}
		fprintf(out, "</td><td class=\"n\">%zu</td><td class=\"hosts\">", e->n);
		h(out, hl);
		fputs("</td></tr>\n", out);
		free(hl);
	}
}

static void html_notes(FILE *out, const char *title, const char *id, const struct rd_fleet_notes *ns)
{
	if (!ns->total)
		return;
	fprintf(out, "<h2>%s (%zu)</h2>\n<ul id=\"%s\">\n", title, ns->total, id);
	for (size_t i = 0; i < ns->n; i++) {
		fputs("<li>", out);
		h(out, ns->v[i].origin);
		if (ns->v[i].label) {
			fputs(": host ", out);
			h(out, ns->v[i].label);
		}
		fputs(": ", out);
		h(out, ns->v[i].msg);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

/* One row of a switch's table: a cable seen from one of its switch ends. */
struct fab_row {
	const struct rd_fleet_fab_link *l;
	const struct rd_fleet_fab_end *sw, *peer;
};

static int cmp_fab_rows(const void *a, const void *b)
{
	const struct fab_row *x = a, *y = b;
	int c = rd_natural_cmp(x->sw->desc, y->sw->desc);
	if (!c)
		c = strcmp(x->sw->guid, y->sw->guid);
	return c ? c : (x->sw->port > y->sw->port) - (x->sw->port < y->sw->port);
}

static void html_rate(FILE *out, unsigned width, double speed, const char *name)
{
	if (width)
		fprintf(out, "%uX ", width);
	if (name && *name)
		h(out, name);
	else if (speed > 0)
		fprintf(out, "%g Gbps", speed);
}

static void html_fab_switch_head(FILE *out, const struct fab_row *rows, size_t n)
{
	size_t bad = 0;
	enum rd_fleet_status worst = RD_FS_NONE;
	for (size_t i = 0; i < n; i++) {
		bad += rows[i].l->status != RD_FS_NONE;
		if (rows[i].l->status > worst)
			worst = rows[i].l->status;
	}
	fprintf(out, "<details class=\"switch\"%s><summary>", bad ? " open" : "");
	h(out, *rows[0].sw->desc ? rows[0].sw->desc : rows[0].sw->guid);
	fputs(" <span class=\"msg\">", out);
	h(out, rows[0].sw->guid);
	fprintf(out, "</span>: %zu link%s", n, n == 1 ? "" : "s");
	if (bad)
		fprintf(out, ", <span class=\"st %s\">%zu bad</span>", css_status(worst), bad);
	fputs("</summary>\n<table class=\"fabric-links\">\n<tr><th>port</th><th>peer</th><th>width, speed</th>"
	      "<th>could be</th><th>state</th><th>status</th></tr>\n", out);
}

static void html_fabric(FILE *out, const struct rd_fleet_fabric *fab)
{
	if (!fab)
		return;
	fprintf(out, "<h2 id=\"fabric\">Fabric: <span class=\"st %s\">%s</span></h2>\n<p id=\"fabric-summary\">",
		css_status(fab->status), rd_fleet_status_name(fab->status));
	h(out, fab->origin);
	if (fab->time) {
		fputs(", ", out);
		h(out, fab->time);
	}
	fprintf(out, ": %llu switches, %llu CA ports on %llu hosts, %llu links, %zu bad</p>\n", fab->switches, fab->cas,
		fab->hosts, fab->cables, fab->bad_links);
	size_t n, *ix = fabric_findings(fab, &n);
	fputs("<ul id=\"fabric-findings\">\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct rd_fleet_fab_finding *fd = &fab->finds[ix[i]];
		fprintf(out, "<li><span class=\"st %s\">%s</span> ", css_status(fd->status), rd_fleet_status_name(fd->status));
		h(out, fd->check);
		fputs(" <b>", out);
		h(out, fd->subject);
		fputs("</b>", out);
		if (fd->message) {
			fputs("<div class=\"msg\">", out);
			h(out, fd->message);
			fputs("</div>", out);
		}
		fputs("</li>\n", out);
	}
	if (!n)
		fputs("<li>no finding above OK</li>\n", out);
	fputs("</ul>\n", out);
	free(ix);
	/* switch by switch: each cable under each of its switch ends */
	struct fab_row *rows = NULL;
	size_t nrows = 0;
	for (size_t i = 0; i < fab->nlinks; i++) {
		const struct rd_fleet_fab_link *l = &fab->links[i];
		if (!l->has_peer)
			continue;
		for (int side = 0; side < 2; side++) {
			const struct rd_fleet_fab_end *sw = side ? &l->b : &l->a, *peer = side ? &l->a : &l->b;
			if (strcmp(sw->kind, "SW") != 0)
				continue;
			rows = rd_grow(rows, nrows, sizeof *rows);
			rows[nrows++] = (struct fab_row){l, sw, peer};
		}
	}
	if (nrows > 1)
		qsort(rows, nrows, sizeof *rows, cmp_fab_rows);
	size_t shown = nrows < RD_FLEET_HTML_MAX_LINK_ROWS ? nrows : RD_FLEET_HTML_MAX_LINK_ROWS;
	fprintf(out, "<h3>Switches</h3>\n<div id=\"fabric-switches\">\n");
	for (size_t i = 0; i < shown;) {
		size_t j = i;
		while (j < shown && strcmp(rows[j].sw->guid, rows[i].sw->guid) == 0 &&
		       strcmp(rows[j].sw->desc, rows[i].sw->desc) == 0)
			j++;
		html_fab_switch_head(out, rows + i, j - i);
		for (; i < j; i++) {
			const struct rd_fleet_fab_link *l = rows[i].l;
			if (l->status != RD_FS_NONE)
				fprintf(out, "<tr class=\"bad %s\">", css_status(l->status));
			else
				fputs("<tr>", out);
			fprintf(out, "<td class=\"n\">%u</td><td>", rows[i].sw->port);
			char *peer = rd_fleet_fab_end_name(rows[i].peer);
			h(out, peer);
			free(peer);
			fputs("</td><td>", out);
			html_rate(out, l->width, l->speed, l->speed_name);
			fputs("</td><td>", out);
			html_rate(out, l->could_width, l->could_speed, NULL);
			fputs("</td><td>", out);
			h(out, l->state ? l->state : "");
			if (l->phys) {
				fputs("/", out);
				h(out, l->phys);
			}
			fprintf(out, "</td><td class=\"%s\">%s</td></tr>\n", css_status(l->status),
				l->status == RD_FS_NONE ? "" : rd_fleet_status_name(l->status));
		}
		fputs("</table></details>\n", out);
	}
	fputs("</div>\n", out);
	if (shown < nrows)
		fprintf(out, "<p>%zu more switch ports not shown (--format json lists the bad links)</p>\n", nrows - shown);
	free(rows);
}

static void html_pairs(FILE *out, const struct rd_fleet_pairs *p)
{
	if (!p)
		return;
	fprintf(out, "<h2 id=\"pairs\">Pairs: <span class=\"st %s\">%s</span></h2>\n<p id=\"pairs-summary\">",
		css_status(p->status), rd_fleet_status_name(p->status));
	h(out, p->origin);
	fprintf(out, ": %llu nodes, %llu rounds, %llu samples", p->nodes, p->rounds, p->samples);
	if (p->median >= 0)
		fprintf(out, ", median %.1f Gb/s", p->median);
	fputs("; bad: ", out);
	h(out, *p->bad ? p->bad : "none");
	fputs("; suspect: ", out);
	h(out, *p->suspect ? p->suspect : "none");
	fputs("</p>\n<table class=\"drift-table\" id=\"pairs-findings\">\n<tr><th>finding</th><th>count</th>"
	      "<th>hosts or pair</th></tr>\n", out);
	struct pairs_group *g;
	size_t n = pairs_groups(p, &g);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "<tr><td><span class=\"st %s\">%s</span> ", css_status(g[i].first->status),
			rd_fleet_status_name(g[i].first->status));
		h(out, g[i].first->id);
		if (g[i].first->message) {
			fputs("<div class=\"msg\">", out);
			h(out, g[i].first->message);
			fputs("</div>", out);
		}
		fprintf(out, "</td><td class=\"n\">%zu</td><td class=\"hosts\">", g[i].count);
		h(out, g[i].subject);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	pairs_groups_free(g, n);
}

static int cmp_grid(const void *a, const void *b)
{
	const struct rd_fleet_node *x = &sort_f->nodes[*(const size_t *)a], *y = &sort_f->nodes[*(const size_t *)b];
	int wx = x->reported && !x->stale ? (int)x->status : 99, wy = y->reported && !y->stale ? (int)y->status : 99;
	if (wx != wy)
		return wy - wx; /* missing first, then FAIL, WARN ... */
	return rd_hostname_cmp(x->name, y->name);
}

void rd_fleet_html(FILE *out, const struct rd_fleet *f)
{
	char tbuf[32];
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>rdma-doctor fleet</title>\n"
	      "<style>\n"
	      "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
	      "table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
	      "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\n"
	      "tr.head th{background:#eee}\n"
	      "tr.minority td{background:#fff3cd}\n"
	      "td.n{text-align:right}\n"
	      "td.hosts{font-family:monospace}\n"
	      ".drift{color:#fff;background:#b35900;padding:0 .3em}\n"
	      ".msg{font-size:.85em;color:#555}\n"
	      ".st{font-weight:bold}\n"
	      ".ok{background:#d4edda}.warn{background:#fff3cd}.fail{background:#f8d7da}\n"
	      ".unknown{background:#e2e3e5}.skip{background:#f8f9fa}.none{background:#fff}\n"
	      ".missing{background:#343a40;color:#fff}\n"
	      "table.grid td{font-size:.8em;text-align:center}\n"
	      "table.grid th.v{writing-mode:vertical-rl;font-size:.8em}\n"
	      "tr.bad td{background:#f8d7da;font-weight:bold}\n"
	      "tr.bad.warn td{background:#fff3cd}\n"
	      "details.switch{margin:.3em 0}\n"
	      "</style></head><body>\n",
	      out);
	fprintf(out, "<h1>rdma-doctor fleet: <span class=\"st %s\">%s</span></h1>\n",
		f->exit_code == 2 ? "fail" : f->exit_code == 1 ? "warn" : f->exit_code == 0 ? "ok" : "unknown",
		rd_fleet_verdict(f));
	fprintf(out, "<p id=\"summary\">%zu nodes reported", f->nreported);
	if (f->have_expect)
		fprintf(out, " (%zu of %zu expected)", f->nexpected_reported, f->nexpected);
	fprintf(out, ", %zu missing, %zu stale, %zu unreadable inputs or reports%s; exit status %d; made %s</p>\n",
		f->nmissing, f->nstale, f->problems.total, f->untrusted.total ? ", some not trusted" : "", f->exit_code,
		rd_utc_iso8601(f->now, tbuf, sizeof tbuf));
	struct rd_strv why = {0};
	reasons(f, &why);
	fputs("<ul id=\"reasons\">\n", out);
	for (size_t i = 0; i < why.n; i++) {
		fputs("<li>", out);
		h(out, why.v[i]);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
	rd_strv_free(&why);
	const char *cur = NULL;
	bool in_table = false, findings = false;
	for (size_t i = 0; i < f->norder; i++) {
		const struct rd_fleet_group *g = &f->groups[f->order[i]];
		if (g->kind == RD_FK_NODES)
			continue;
		bool new_section = false;
		if (g->kind == RD_FK_FINDING) {
			if (!findings)
				new_section = true;
			findings = true;
		} else if (!cur || strcmp(cur, g->scope) != 0)
			new_section = true;
		if (new_section) {
			if (in_table)
				fputs("</table>\n", out);
			if (g->kind == RD_FK_FINDING)
				fputs("<h2>Findings that are not OK</h2>\n", out);
			else if (!*g->scope)
				fprintf(out, "<h2>Whole fleet (%zu nodes)</h2>\n", f->nreported);
			else {
				fputs("<h2>Board ", out);
				h(out, g->scope);
				fputs(" ", out);
				h(out, board_model(f, g->scope));
				fprintf(out, " (%zu nodes)</h2>\n", rd_fleet_scope_nodes(f, g->scope));
			}
			fputs("<table class=\"drift-table\">\n<tr><th>value</th><th>nodes</th><th>hosts</th></tr>\n", out);
			in_table = true;
			cur = g->scope;
		}
		html_group(out, f, g);
	}
	if (in_table)
		fputs("</table>\n", out);
	html_fabric(out, f->fabric);
	html_pairs(out, f->pairs);
	html_notes(out, "Unreadable", "unreadable", &f->problems);
	html_notes(out, "Not trusted", "untrusted", &f->untrusted);
	/* nodes by checks */
	size_t *ix = rd_xmalloc((f->nnodes ? f->nnodes : 1) * sizeof *ix);
	for (size_t i = 0; i < f->nnodes; i++)
		ix[i] = i;
	sort_f = f;
	qsort(ix, f->nnodes, sizeof *ix, cmp_grid);
	size_t rows = f->nnodes < RD_FLEET_HTML_MAX_ROWS ? f->nnodes : RD_FLEET_HTML_MAX_ROWS;
	fprintf(out, "<h2>Nodes by checks</h2>\n<p>%zu node%s", f->nnodes, f->nnodes == 1 ? "" : "s");
	if (rows < f->nnodes)
		fprintf(out, " (the first %zu shown: missing, then FAIL, WARN, UNKNOWN, OK)", rows);
	fputs("</p>\n<table class=\"grid\" id=\"grid\">\n<tr><th>node</th><th>status</th><th>drift</th>", out);
	unsigned *marks = drift_marks(f);
	for (size_t c = 0; c < f->checks.n; c++) {
		fputs("<th class=\"v\">", out);
		h(out, f->checks.v[c]);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (size_t k = 0; k < rows; k++) {
		const struct rd_fleet_node *n = &f->nodes[ix[k]];
		fputs("<tr><th>", out);
		h(out, n->name);
		fputs("</th>", out);
		if (!n->reported || n->stale) {
			fprintf(out, "<td class=\"missing\" colspan=\"%zu\">%s</td></tr>\n", f->checks.n + 2,
				n->stale ? "stale report" : "no report");
			continue;
		}
		fprintf(out, "<td class=\"%s\">%s</td><td class=\"%s\">", css_status(n->status), rd_fleet_status_name(n->status),
			marks[ix[k]] ? "warn" : "none");
		for (int b = 0, first = 1; b <= RD_FK_FINDING; b++)
			if (marks[ix[k]] & (1u << b)) {
				fprintf(out, "%s%s", first ? "" : " ", rd_fleet_kind_key((enum rd_fleet_kind)b));
				first = 0;
			}
		fputs("</td>", out);
		for (size_t c = 0; c < f->checks.n; c++) {
			enum rd_fleet_status s = c < n->nchecks ? (enum rd_fleet_status)n->checks[c] : RD_FS_NONE;
			fprintf(out, "<td class=\"%s\" title=\"%s\">%s</td>", css_status(s), rd_fleet_status_name(s),
				s == RD_FS_NONE ? "" : s == RD_FS_OK ? "&#10003;" : rd_fleet_status_name(s));
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n</body></html>\n", out);
	free(marks);
	free(ix);
}
