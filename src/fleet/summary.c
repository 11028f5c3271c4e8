/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fleet summary (see summary.h). */
#include "fleet/summary.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hostlist.h"
#include "model/parse.h"

static const struct {
	const char *key, *title;
} kinds[] = {
	[RD_FK_NODES] = {"nodes", "nodes"},
	[RD_FK_STATUS] = {"status", "status"},
	[RD_FK_KERNEL] = {"kernel", "kernel"},
	[RD_FK_STACK] = {"stack", "stack and version"},
	[RD_FK_FIRMWARE] = {"firmware", "firmware"},
	[RD_FK_PORT] = {"port", "port state and rate"},
	[RD_FK_MTU] = {"roce_mtu", "RoCE netdev MTU"},
	[RD_FK_ACTIVE_MTU] = {"roce_active_mtu", "RoCE active MTU"},
	[RD_FK_TRUST] = {"roce_trust", "RoCE trust mode"},
	[RD_FK_PFC] = {"roce_pfc", "RoCE PFC priorities"},
	[RD_FK_GDR_PATH] = {"gdr_path", "GPU-NIC paths (nearest NIC)"},
	[RD_FK_IOMMU] = {"iommu", "IOMMU on the GPU-NIC paths"},
	[RD_FK_ACS] = {"acs", "ACS redirect on the GPU-NIC paths"},
	[RD_FK_MEMLOCK] = {"memlock", "memlock limits"},
	[RD_FK_MODULES] = {"modules", "modules missing or not persistent"},
	[RD_FK_FINDING] = {"finding", "findings"},
};

const char *rd_fleet_kind_key(enum rd_fleet_kind k)
{
	return kinds[k].key;
}

const char *rd_fleet_kind_title(enum rd_fleet_kind k)
{
	return kinds[k].title;
}

void rd_fleet_init(struct rd_fleet *f, long long now, long long max_age)
{
	memset(f, 0, sizeof *f);
	f->now = now;
	f->max_age = max_age;
}

static void note_add(struct rd_fleet_notes *ns, const char *origin, const char *label, const char *msg)
{
	ns->total++;
	if (ns->n >= RD_FLEET_MAX_NOTES)
		return;
	ns->v = rd_grow(ns->v, ns->n, sizeof *ns->v);
	ns->v[ns->n].origin = rd_xstrdup(origin ? origin : "");
	ns->v[ns->n].label = label ? rd_xstrdup(label) : NULL;
	ns->v[ns->n].msg = rd_xstrdup(msg);
	ns->n++;
}

void rd_fleet_problem(struct rd_fleet *f, const char *origin, const char *label, const char *msg)
{
	note_add(&f->problems, origin, label, msg);
}

static size_t node_get(struct rd_fleet *f, const char *name)
{
	struct rd_map_slot *ix = rd_map_get(&f->nodemap, name, strlen(name));
	if (ix)
		return ix->val.ix;
	f->nodes = rd_grow(f->nodes, f->nnodes, sizeof *f->nodes);
	struct rd_fleet_node *n = &f->nodes[f->nnodes];
	memset(n, 0, sizeof *n);
	n->name = rd_xstrdup(name);
	rd_map_put(&f->nodemap, name, strlen(name), NULL)->val.ix = f->nnodes;
	return f->nnodes++;
}

void rd_fleet_expect(struct rd_fleet *f, const struct rd_strv *names)
{
	f->have_expect = true;
	for (size_t i = 0; i < names->n; i++) {
		size_t ix = node_get(f, names->v[i]); /* may move f->nodes */
		f->nodes[ix].expected = true;
	}
}

static size_t group_get(struct rd_fleet *f, const char *scope, enum rd_fleet_kind kind, const char *name)
{
	struct rd_buf k = {0};
	rd_buf_printf(&k, "%s\x1f%d\x1f%s", scope, (int)kind, name);
	struct rd_map_slot *ix = rd_map_get(&f->groupmap, k.data, k.len);
	size_t g;
	if (ix)
		g = ix->val.ix;
	else {
		f->groups = rd_grow(f->groups, f->ngroups, sizeof *f->groups);
		struct rd_fleet_group *gr = &f->groups[f->ngroups];
		memset(gr, 0, sizeof *gr);
		gr->scope = rd_xstrdup(scope);
		gr->kind = kind;
		gr->name = rd_xstrdup(name);
		rd_map_put(&f->groupmap, k.data, k.len, NULL)->val.ix = f->ngroups;
		g = f->ngroups++;
	}
	rd_buf_free(&k);
	return g;
}

/* node id gets value in group (once) */
static void contribute(struct rd_fleet *f, uint32_t node, size_t g, const char *value, enum rd_fleet_status st,
		       const char *message)
{
	struct rd_buf k = {0};
	rd_buf_printf(&k, "%zu\x1f%d\x1f%s", g, (int)st, value);
	struct rd_map_slot *ix = rd_map_get(&f->entrymap, k.data, k.len);
	size_t e;
	if (ix)
		e = ix->val.ix;
	else {
		f->entries = rd_grow(f->entries, f->nentries, sizeof *f->entries);
		struct rd_fleet_entry *en = &f->entries[f->nentries];
		memset(en, 0, sizeof *en);
		en->group = g;
		en->value = rd_xstrdup(value);
		en->status = st;
		en->message = message ? rd_xstrdup(message) : NULL;
		rd_map_put(&f->entrymap, k.data, k.len, NULL)->val.ix = f->nentries;
		e = f->nentries++;
	}
	rd_buf_free(&k);
	struct rd_fleet_entry *en = &f->entries[e];
	if (en->n && en->hosts[en->n - 1] == node)
		return; /* a report is added all at once: its node is the last one */
	if (en->n == en->cap) {
		en->cap = en->cap ? en->cap * 2 : 4;
		en->hosts = rd_xrealloc(en->hosts, en->cap * sizeof *en->hosts);
	}
	if (!en->n && message && !en->message)
		en->message = rd_xstrdup(message);
	en->hosts[en->n++] = node;
	struct rd_fleet_node *nd = &f->nodes[node];
	if (nd->n == nd->cap) {
		nd->cap = nd->cap ? nd->cap * 2 : 16;
		nd->entries = rd_xrealloc(nd->entries, nd->cap * sizeof *nd->entries);
	}
	nd->entries[nd->n++] = (uint32_t)e;
}

/* The GPUs' part of a report: one value per node for each of the path types, the IOMMU and the ACS
 * (a node whose GPU sits one switch farther from its NIC than its siblings' is drift) */
static const char *const path_types[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
static void gpudirect(struct rd_fleet *f, uint32_t id, const struct rd_fleet_report *r)
{
	if (!r->ngpus)
		return;
	/* "10de:2330 x8: 8 PIX"; "... 7 PIX, 1 PHB (GPU6)": the GPUs of a type that is not the node's
	 * most common are named */
	size_t count[6] = {0}, most = 0;
	for (size_t i = 0; i < r->ngpus; i++) {
		size_t k = 0;
		while (k < 5 && (!r->gpus[i].type || strcmp(r->gpus[i].type, path_types[k])))
			k++;
		count[k]++;
	}
	for (size_t k = 1; k < 6; k++)
		if (count[k] > count[most])
			most = k;
	struct rd_buf b = {0};
	rd_buf_printf(&b, "%s x%zu:", r->gpus[0].pci_id ? r->gpus[0].pci_id : "?", r->ngpus);
	bool first = true;
	for (size_t k = 0; k < 6; k++) {
		if (!count[k])
			continue;
		rd_buf_printf(&b, "%s %zu %s", first ? "" : ",", count[k], k < 5 ? path_types[k] : "no path");
		first = false;
		if (k == most)
			continue;
		rd_buf_printf(&b, " (");
		bool one = true;
		for (size_t i = 0; i < r->ngpus; i++) {
			size_t t = 0;
			while (t < 5 && (!r->gpus[i].type || strcmp(r->gpus[i].type, path_types[t])))
				t++;
			if (t == k) {
				rd_buf_printf(&b, "%s%s", one ? "" : " ", r->gpus[i].name ? r->gpus[i].name : "?");
				one = false;
			}
		}
		rd_buf_printf(&b, ")");
	}
	const char *gn = rd_fleet_kind_title(RD_FK_GDR_PATH);
	contribute(f, id, group_get(f, "", RD_FK_GDR_PATH, gn), b.data, 0, NULL);
	rd_buf_free(&b);
	if (r->gdr_iommu)
		contribute(f, id, group_get(f, "", RD_FK_IOMMU, rd_fleet_kind_title(RD_FK_IOMMU)), r->gdr_iommu, 0, NULL);
	long long acs = -1;
	unsigned long long unknown = 0;
	for (size_t i = 0; i < r->ngpus; i++) {
		if (r->gpus[i].nacs >= 0)
			acs = (acs < 0 ? 0 : acs) + r->gpus[i].nacs;
		unknown += r->gpus[i].acs_unknown;
	}
	if (acs >= 0) {
		char v[96];
		if (acs)
			snprintf(v, sizeof v, "%lld bridge%s redirect%s", acs, acs == 1 ? "" : "s", unknown ? ", some unknown" : "");
		else
			snprintf(v, sizeof v, "%s", unknown ? "none read, some unknown" : "none");
		contribute(f, id, group_get(f, "", RD_FK_ACS, rd_fleet_kind_title(RD_FK_ACS)), v, 0, NULL);
	}
}

/* takes a node's values out of every entry (a newer report replaces it, or it is stale) */
static void withdraw(struct rd_fleet *f, uint32_t node)
{
	struct rd_fleet_node *nd = &f->nodes[node];
	for (size_t i = 0; i < nd->n; i++) {
		struct rd_fleet_entry *en = &f->entries[nd->entries[i]];
		for (size_t j = en->n; j-- > 0;)
			if (en->hosts[j] == node) {
				memmove(&en->hosts[j], &en->hosts[j + 1], (en->n - j - 1) * sizeof *en->hosts);
				en->n--;
				break;
			}
	}
	nd->n = 0;
	if (nd->nchecks)
		memset(nd->checks, 0, nd->nchecks);
}

static size_t check_index(struct rd_fleet *f, const char *id)
{
	struct rd_map_slot *ix = rd_map_get(&f->checkmap, id, strlen(id));
	if (ix)
		return ix->val.ix;
	rd_strv_push(&f->checks, id);
	rd_map_put(&f->checkmap, id, strlen(id), NULL)->val.ix = f->checks.n - 1;
	return f->checks.n - 1;
}

/* "slurmd (pid 4242)" -> "slurmd": the pid differs from node to node */
static void subject_norm(const char *s, char *out, size_t len)
{
	snprintf(out, len, "%s", s ? s : "");
	char *p = strstr(out, " (pid ");
	if (p) {
		char *q = p + 6;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == ')' && q > p + 6)
			memmove(p, q + 1, strlen(q + 1) + 1);
	}
}

/* white space runs as one space, "Max locked memory" dropped */
static void limits_norm(const char *s, char *out, size_t len)
{
	struct rd_buf b = {0};
	rd_buf_puts(&b, "");
	bool sp = false;
	for (const char *p = s; *p; p++) {
		if (isspace((unsigned char)*p)) {
			sp = b.len > 0;
			continue;
		}
		if (sp)
			rd_buf_putc(&b, ' ');
		sp = false;
		rd_buf_putc(&b, *p);
	}
	const char *v = b.data;
	if (rd_str_has_prefix(v, "Max locked memory "))
		v += strlen("Max locked memory ");
	snprintf(out, len, "%s", v);
	rd_buf_free(&b);
}

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "(unknown)";
}

static void add_values(struct rd_fleet *f, uint32_t id, const struct rd_fleet_report *r)
{
	char v[2 * RD_FLEET_MAX_STR + 64];
	/* the status group is made by rd_fleet_finish, from the node's judged status */
	contribute(f, id, group_get(f, "", RD_FK_KERNEL, "kernel"), or_unknown(r->kernel), 0, NULL);
	snprintf(v, sizeof v, "%s%s%s", or_unknown(r->stack_installed), r->stack_version ? " " : "",
		 r->stack_version ? r->stack_version : "");
	contribute(f, id, group_get(f, "", RD_FK_STACK, "stack"), v, 0, NULL);
	char stack[sizeof v];
	snprintf(stack, sizeof stack, "%s", v);
	for (size_t i = 0; i < r->nmods; i++) {
		const struct rd_fleet_module *m = &r->mods[i];
		if (m->name && m->builtin != 1 && m->loaded == 0) {
			snprintf(v, sizeof v, "%s not loaded", m->name);
			contribute(f, id, group_get(f, "", RD_FK_MODULES, "modules"), v, 0, NULL);
		}
	}
	/* not persistent: the modules that modules.persistent names (modules[] does not tell the
	 * policy's modules from the others, and a dependency such as iw_cm is rightly not listed) */
	for (size_t i = 0; i < r->nfinds; i++) {
		const struct rd_fleet_finding *fd = &r->finds[i];
		if (!fd->check || strcmp(fd->check, "modules.persistent") != 0 || !fd->message ||
		    (fd->status != RD_FS_WARN && fd->status != RD_FS_FAIL))
			continue;
		const char *end = strstr(fd->message, " not listed in");
		for (const char *w = fd->message; end && w < end;) {
			size_t n = strcspn(w, " ");
			if (w + n > end)
				n = (size_t)(end - w);
			for (size_t k = 0; k < r->nmods; k++)
				if (r->mods[k].name && strlen(r->mods[k].name) == n && !strncmp(r->mods[k].name, w, n)) {
					snprintf(v, sizeof v, "%s not persistent", r->mods[k].name);
					contribute(f, id, group_get(f, "", RD_FK_MODULES, "modules"), v, 0, NULL);
					break;
				}
			w += n;
			w += strspn(w, " ");
		}
	}
	if (r->has_gdr)
		gpudirect(f, id, r);
	struct rd_fleet_node *nd = &f->nodes[id];
	for (size_t i = 0; i < r->nfinds; i++) {
		const struct rd_fleet_finding *fd = &r->finds[i];
		if (!fd->check || fd->status == RD_FS_NONE)
			continue;
		size_t c = check_index(f, fd->check);
		nd = &f->nodes[id];
		if (c >= nd->nchecks) {
			nd->checks = rd_xrealloc(nd->checks, f->checks.n);
			memset(nd->checks + nd->nchecks, 0, f->checks.n - nd->nchecks);
			nd->nchecks = f->checks.n;
		}
		if (fd->status > nd->checks[c])
			nd->checks[c] = (unsigned char)fd->status;
		char subj[RD_FLEET_MAX_STR + 1];
		subject_norm(fd->subject, subj, sizeof subj);
		if (!strcmp(fd->check, "memlock.limit") && fd->memlock) {
			char lim[RD_FLEET_MAX_STR + 1];
			limits_norm(fd->memlock, lim, sizeof lim);
			if (!strcmp(subj, "host"))
				snprintf(v, sizeof v, "%s", lim);
			else
				snprintf(v, sizeof v, "%s: %s", subj, lim);
			contribute(f, id, group_get(f, "", RD_FK_MEMLOCK, "memlock"), v, 0, NULL);
		}
		if (fd->status == RD_FS_OK || fd->status == RD_FS_SKIP)
			continue;
		size_t g = group_get(f, "", RD_FK_FINDING, fd->check);
		f->groups[g].order = c;
		contribute(f, id, g, subj, fd->status, fd->message);
	}
	for (size_t i = 0; i < r->ndevs; i++) {
		const struct rd_fleet_dev *d = &r->devs[i];
		const char *board = d->board_id && *d->board_id ? d->board_id : RD_FLEET_NO_BOARD;
		contribute(f, id, group_get(f, board, RD_FK_NODES, "nodes"), or_unknown(d->model), 0, NULL);
		contribute(f, id, group_get(f, board, RD_FK_FIRMWARE, "firmware"), or_unknown(d->fw_ver), 0, NULL);
		contribute(f, id, group_get(f, board, RD_FK_STACK, "stack"), stack, 0, NULL);
		for (size_t j = 0; j < d->nports; j++) {
			const struct rd_fleet_port *p = &d->ports[j];
			char gname[RD_FLEET_MAX_STR + 32];
			snprintf(gname, sizeof gname, "port state and rate (%s)", or_unknown(p->link_layer));
			if (p->has_rate)
				snprintf(v, sizeof v, "%s %g Gb/s", or_unknown(p->state), p->rate_gbps);
			else
				snprintf(v, sizeof v, "%s", or_unknown(p->state));
			contribute(f, id, group_get(f, "", RD_FK_PORT, gname), v, 0, NULL);
			contribute(f, id, group_get(f, board, RD_FK_PORT, gname), v, 0, NULL);
			if (!p->link_layer || strcmp(p->link_layer, "Ethernet") != 0)
				continue;
			for (size_t k = 0; k < p->nmtu; k++) {
				if (!p->mtu[k])
					continue;
				snprintf(v, sizeof v, "%llu", p->mtu[k]);
				contribute(f, id, group_get(f, "", RD_FK_MTU, "RoCE netdev MTU"), v, 0, NULL);
				contribute(f, id, group_get(f, board, RD_FK_MTU, "RoCE netdev MTU"), v, 0, NULL);
				snprintf(v, sizeof v, "%u", rd_roce_active_mtu(p->mtu[k]));
				contribute(f, id, group_get(f, "", RD_FK_ACTIVE_MTU, "RoCE active MTU"), v, 0, NULL);
				contribute(f, id, group_get(f, board, RD_FK_ACTIVE_MTU, "RoCE active MTU"), v, 0, NULL);
			}
			/* qos (roce.qos's model): what was not readable is no value, as a null MTU */
			if (p->trust && *p->trust) {
				contribute(f, id, group_get(f, "", RD_FK_TRUST, "RoCE trust mode"), p->trust, 0, NULL);
				contribute(f, id, group_get(f, board, RD_FK_TRUST, "RoCE trust mode"), p->trust, 0, NULL);
			}
			if (p->has_pfc) {
				rd_prio_words(p->pfc, v, sizeof v);
				contribute(f, id, group_get(f, "", RD_FK_PFC, "RoCE PFC priorities"), v, 0, NULL);
				contribute(f, id, group_get(f, board, RD_FK_PFC, "RoCE PFC priorities"), v, 0, NULL);
			}
		}
	}
}

char *rd_fleet_file_node(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	char *n = rd_xstrdup(b);
	static const char *const ext[] = {".json", ".out", ".txt", ".log"};
	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
		if (strlen(n) > strlen(ext[i]) && rd_str_has_suffix(n, ext[i])) {
			n[strlen(n) - strlen(ext[i])] = '\0';
			break;
		}
	return n;
}

/* label is the node origin's file name says (so naming it again says nothing) */
static bool names_file(const char *origin, const char *label)
{
	char *n = rd_fleet_file_node(origin);
	bool same = label && !strcmp(n, label);
	free(n);
	return same;
}

/* The length of a name's first label ("n1" of "n1.cluster.local"). */
static size_t short_len(const char *s)
{
	return strcspn(s, ".");
}

bool rd_fleet_same_host(const char *label, const char *host)
{
	size_t a = short_len(label), b = short_len(host);
	return !strcmp(label, host) || (a == b && !strncmp(label, host, a));
}

/* The verdict of a report is its findings': summary.status can only make it worse, never better. */
static enum rd_fleet_status judged(const struct rd_fleet_report *r)
{
	enum rd_fleet_status s = r->worst > r->status ? r->worst : r->status;
	return s == RD_FS_SKIP ? RD_FS_OK : s;
}

void rd_fleet_add(struct rd_fleet *f, const char *origin, const char *label, const struct rd_fleet_report *r)
{
	char why[640];
	if (!rd_fleet_report_valid(r, why, sizeof why)) {
		rd_fleet_problem(f, origin, names_file(origin, label) ? NULL : label, why);
		return;
	}
	/* a report speaks only for the host it came from: where it came from names the node */
	const char *name = label ? label : r->host;
	long long t = rd_fleet_parse_time(r->time);
	if (t > f->now + RD_FLEET_MAX_SKEW) { /* it would never be stale, and would win as the newest */
		char now[32];
		snprintf(why, sizeof why, "the report is dated %s, more than %d minutes after %s: not counted", r->time,
			 RD_FLEET_MAX_SKEW / 60, rd_utc_iso8601(f->now, now, sizeof now));
		note_add(&f->untrusted, origin, name, why);
		return;
	}
	if (label && !rd_fleet_same_host(label, r->host)) {
		snprintf(why, sizeof why, "the report names host %s, not %s where it came from: counted as %s", r->host, label,
			 label);
		note_add(&f->untrusted, origin, label, why);
	}
	enum rd_fleet_status st = judged(r);
	if (st != r->status) {
		snprintf(why, sizeof why, "summary.status is %s but a finding is %s: judged %s", rd_fleet_status_name(r->status),
			 rd_fleet_status_name(r->worst), rd_fleet_status_name(st));
		note_add(&f->notes, origin, name, why);
	}
	uint32_t id = (uint32_t)node_get(f, name);
	struct rd_fleet_node *nd = &f->nodes[id];
	if (nd->reported) {
		/* one of them is not the host's own: neither hides the other's status */
		bool newer = t >= nd->t; /* the same time: the later one read counts */
		snprintf(why, sizeof why, "several reports for one host (%s from %s, %s from %s): its worst status counts, "
					  "its values are the newest's", nd->time, nd->origin, r->time, origin);
		note_add(&f->untrusted, origin, name, why);
		if (st > nd->status)
			nd->status = st;
		if (!newer)
			return;
		withdraw(f, id);
		free(nd->origin);
		free(nd->time);
		st = nd->status;
	}
	nd->reported = true;
	nd->origin = rd_xstrdup(origin);
	nd->time = rd_xstrdup(r->time);
	nd->t = t;
	nd->status = st;
	if (r->too_many) {
		snprintf(why, sizeof why, "more %s than this reader keeps: the rest are ignored", r->too_many);
		note_add(&f->notes, origin, name, why);
	}
	add_values(f, id, r);
}

static const struct rd_fleet *sort_fleet; /* qsort has no context argument */

static int cmp_entries(const void *a, const void *b)
{
	const struct rd_fleet_entry *x = &sort_fleet->entries[*(const size_t *)a];
	const struct rd_fleet_entry *y = &sort_fleet->entries[*(const size_t *)b];
	if (x->status != y->status && sort_fleet->groups[x->group].kind == RD_FK_FINDING)
		return x->status > y->status ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return rd_natural_cmp(x->value, y->value);
}

static int cmp_groups(const void *a, const void *b)
{
	const struct rd_fleet_group *x = &sort_fleet->groups[*(const size_t *)a];
	const struct rd_fleet_group *y = &sort_fleet->groups[*(const size_t *)b];
	/* the fleet, then boards, then findings (by the check's place in the reports) */
	int xs = x->kind == RD_FK_FINDING ? 2 : *x->scope ? 1 : 0, ys = y->kind == RD_FK_FINDING ? 2 : *y->scope ? 1 : 0;
	if (xs != ys)
		return xs - ys;
	if (xs == 2)
		return x->order < y->order ? -1 : x->order > y->order;
	int c = strcmp(x->scope, y->scope);
	if (c)
		return c;
	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	return rd_natural_cmp(x->name, y->name);
}

void rd_fleet_finish(struct rd_fleet *f)
{
	if (f->finished)
		return;
	f->finished = true;
	for (size_t i = 0; i < f->nnodes; i++) {
		struct rd_fleet_node *nd = &f->nodes[i];
		if (!nd->reported) {
			f->nmissing++;
			continue;
		}
		if (f->max_age > 0 && nd->t < f->now - f->max_age) {
			nd->stale = true;
			f->nstale++;
			withdraw(f, (uint32_t)i);
			continue;
		}
		f->nreported++;
		f->nstatus[nd->status]++;
		contribute(f, (uint32_t)i, group_get(f, "", RD_FK_STATUS, "status"), rd_fleet_status_name(nd->status), 0, NULL);
		if (f->have_expect && !nd->expected)
			f->nunexpected++;
		if (nd->expected)
			f->nexpected_reported++;
	}
	for (size_t i = 0; i < f->nnodes; i++)
		f->nexpected += f->nodes[i].expected;
	/* the live entries of each group, majority first */
	sort_fleet = f;
	for (size_t e = 0; e < f->nentries; e++) {
		struct rd_fleet_entry *en = &f->entries[e];
		if (!en->n)
			continue;
		struct rd_fleet_group *g = &f->groups[en->group];
		g->entries = rd_grow(g->entries, g->n, sizeof *g->entries);
		g->entries[g->n++] = e;
	}
	for (size_t i = 0; i < f->ngroups; i++) {
		struct rd_fleet_group *g = &f->groups[i];
		if (g->n)
			qsort(g->entries, g->n, sizeof *g->entries, cmp_entries);
		bool boardless = !strcmp(g->scope, RD_FLEET_NO_BOARD); /* unrelated devices: nothing to compare */
		if (g->n > 1 && ((*g->scope && !boardless && (g->kind == RD_FK_FIRMWARE || g->kind == RD_FK_STACK)) ||
				 (!*g->scope && (g->kind == RD_FK_MTU || g->kind == RD_FK_ACTIVE_MTU || g->kind == RD_FK_TRUST ||
						  g->kind == RD_FK_PFC || g->kind == RD_FK_GDR_PATH || g->kind == RD_FK_IOMMU ||
						  g->kind == RD_FK_ACS)))) {
			g->drift = true;
			f->drift = true;
		}
		if (g->n) {
			f->order = rd_grow(f->order, f->norder, sizeof *f->order);
			f->order[f->norder++] = i;
		}
	}
	if (f->norder)
		qsort(f->order, f->norder, sizeof *f->order, cmp_groups);
	/* a node that did not report, or whose report cannot be trusted, outranks drift and WARN: an
	 * alert on exit 3 sees every dead node whatever the others say; only a FAIL outranks it */
	/* the fabric's and the pairs' verdicts rank as a node's */
	enum rd_fleet_status fab = f->fabric ? f->fabric->status : RD_FS_NONE;
	enum rd_fleet_status prs = f->pairs ? f->pairs->status : RD_FS_NONE;
#define EITHER(s) (fab == (s) || prs == (s))
	if (f->nstatus[RD_FS_FAIL] || EITHER(RD_FS_FAIL))
		f->exit_code = 2;
	else if (f->nmissing || f->nstale || f->problems.total || f->untrusted.total || f->nstatus[RD_FS_UNKNOWN] ||
		 !f->nreported || EITHER(RD_FS_UNKNOWN))
		f->exit_code = 3;
	else if (f->drift || f->nstatus[RD_FS_WARN] || EITHER(RD_FS_WARN))
		f->exit_code = 1;
	else
		f->exit_code = 0;
#undef EITHER
}

static char *hostlist_of(const struct rd_fleet *f, uint32_t *ids, size_t n)
{
	const char **names = rd_xmalloc((n ? n : 1) * sizeof *names);
	for (size_t i = 0; i < n; i++)
		names[i] = f->nodes[ids[i]].name;
	char *s = rd_hostlist_compress(names, n);
	free(names);
	return s;
}

char *rd_fleet_entry_hostlist(const struct rd_fleet *f, const struct rd_fleet_entry *e)
{
	return hostlist_of(f, e->hosts, e->n);
}

char *rd_fleet_nodes_hostlist(const struct rd_fleet *f, bool (*pick)(const struct rd_fleet_node *n))
{
	uint32_t *ids = rd_xmalloc((f->nnodes ? f->nnodes : 1) * sizeof *ids);
	size_t n = 0;
	for (size_t i = 0; i < f->nnodes; i++)
		if (pick(&f->nodes[i]))
			ids[n++] = (uint32_t)i;
	char *s = hostlist_of(f, ids, n);
	free(ids);
	return s;
}

size_t rd_fleet_scope_nodes(const struct rd_fleet *f, const char *scope)
{
	if (!*scope)
		return f->nreported;
	size_t total = 0;
	for (size_t i = 0; i < f->ngroups; i++) {
		const struct rd_fleet_group *g = &f->groups[i];
		if (g->kind == RD_FK_NODES && !strcmp(g->scope, scope))
			for (size_t j = 0; j < g->n; j++)
				total += f->entries[g->entries[j]].n;
	}
	return total;
}

static void notes_free(struct rd_fleet_notes *ns)
{
	for (size_t i = 0; i < ns->n; i++) {
		free(ns->v[i].origin);
		free(ns->v[i].label);
		free(ns->v[i].msg);
	}
	free(ns->v);
}

void rd_fleet_set_fabric(struct rd_fleet *f, struct rd_fleet_fabric *fab)
{
	if (f->fabric)
		rd_fleet_fabric_free(f->fabric);
	else
		f->fabric = rd_xmalloc(sizeof *f->fabric);
	*f->fabric = *fab;
	memset(fab, 0, sizeof *fab);
}

void rd_fleet_set_pairs(struct rd_fleet *f, struct rd_fleet_pairs *p)
{
	if (f->pairs)
		rd_fleet_pairs_free(f->pairs);
	else
		f->pairs = rd_xmalloc(sizeof *f->pairs);
	*f->pairs = *p;
	memset(p, 0, sizeof *p);
}

void rd_fleet_free(struct rd_fleet *f)
{
	if (f->pairs) {
		rd_fleet_pairs_free(f->pairs);
		free(f->pairs);
	}
	if (f->fabric) {
		rd_fleet_fabric_free(f->fabric);
		free(f->fabric);
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		free(f->nodes[i].name);
		free(f->nodes[i].origin);
		free(f->nodes[i].time);
		free(f->nodes[i].entries);
		free(f->nodes[i].checks);
	}
	free(f->nodes);
	for (size_t i = 0; i < f->ngroups; i++) {
		free(f->groups[i].scope);
		free(f->groups[i].name);
		free(f->groups[i].entries);
	}
	free(f->groups);
	for (size_t i = 0; i < f->nentries; i++) {
		free(f->entries[i].value);
		free(f->entries[i].hosts);
		free(f->entries[i].message);
	}
	free(f->entries);
	rd_map_free(&f->nodemap, NULL);
	rd_map_free(&f->groupmap, NULL);
	rd_map_free(&f->entrymap, NULL);
	rd_map_free(&f->checkmap, NULL);
	rd_strv_free(&f->checks);
	notes_free(&f->problems);
	notes_free(&f->untrusted);
	notes_free(&f->notes);
	free(f->order);
	memset(f, 0, sizeof *f);
}
