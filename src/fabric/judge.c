/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fabric's judgements (fabric.h): each a finding of an id fabric.*.
 *   fabric.link.degraded   a cable slower or narrower than most of its siblings of the same tier
 *                          (the same pair of levels: CA-leaf, leaf-spine ...)
 *   fabric.link.capability a cable below what both of its ends enable ("Could be ..."): WARN when
 *                          its tier has no sibling to compare with; when the whole tier runs so it
 *                          is one note (OK): a fabric-wide limit, not one bad cable
 *   fabric.link.state      a cabled port that is not Active while a subnet manager is there
 *   fabric.sm              no subnet manager answers, or the one that answers is not master
 *   fabric.expect          a host expected in the fabric that no node description names
 *   fabric.link.errors     a cable (both ends' counters) with an error counter above its threshold
 *                          (counters.c: the rules), FAIL when one is saturated; UNKNOWN when
 *                          ibqueryerrors was asked for and its output could not be had
 *   fabric.duplicate       one GUID on two nodes, one LID on two ports (FAIL); a port up with no
 *                          node found behind it, what a duplicate port GUID looks like (WARN)
 *   fabric.input           the captures held nothing this understands */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "model/state.h"

#define LINK_CMD "iblinkinfo --switches-only -l"

static bool same_speed(double a, double b)
{
	return fabs(a - b) < 0.001;
}

const char *rd_fab_end_desc(const struct rd_fabric *f, const struct rd_fab_end *e)
{
	const struct rd_fab_node *n = rd_fabric_node(f, e->guid);
	return n && n->desc && *n->desc ? n->desc : e->desc && *e->desc ? e->desc : NULL;
}

static void end_name(const struct rd_fabric *f, const struct rd_fab_end *e, char *buf, size_t cap)
{
	const char *d = rd_fab_end_desc(f, e);
	if (d)
		snprintf(buf, cap, "%s[%u]", d, e->port);
	else
		snprintf(buf, cap, "0x%016llx[%u]", (unsigned long long)e->guid, e->port);
}

static int level_of(const struct rd_fabric *f, const struct rd_fab_end *e)
{
	const struct rd_fab_node *n = rd_fabric_node(f, e->guid);
	return n ? n->level : -1;
}

static const char *level_name(int level, char *buf, size_t cap)
{
	static const char *names[] = {"CAs", "leaf switches", "spine switches", "core switches"};
	if (level >= 0 && level < 4)
		return names[level];
	if (level < 0)
		return "switches of no known tier";
	snprintf(buf, cap, "switches %d hops from a CA", level);
	return buf;
}

static void tier_name(int lo, int hi, char *buf, size_t cap)
{
	char b1[48], b2[48];
	if (lo == hi)
		snprintf(buf, cap, "%s", level_name(lo, b1, sizeof b1));
	else
		snprintf(buf, cap, "%s and %s", level_name(lo, b1, sizeof b1), level_name(hi, b2, sizeof b2));
}

static void rate_text(unsigned width, double speed, const char *name, char *buf, size_t cap)
{
	if (!width)
		snprintf(buf, cap, "down");
	else if (name && *name)
		snprintf(buf, cap, "%uX %g Gbps (%s)", width, speed, name);
	else
		snprintf(buf, cap, "%uX %g Gbps", width, speed);
}

static bool active(const struct rd_fab_link *l)
{
	return l->has_peer && l->width && l->speed > 0 && strcmp(l->state, "Down") != 0;
}

static bool below_capability(const struct rd_fab_link *l)
{
	return (l->could_width && l->could_width > l->width) || (l->could_speed > 0 && l->could_speed > l->speed + 0.001);
}

struct tier {
	int lo, hi;
	size_t n;           /* active links */
	unsigned width;     /* the mode */
	double speed;
	size_t at_mode;       /* links at the mode */
	size_t at_mode_could; /* links at the mode that could do more */
	unsigned could_width;
	double could_speed;
};

static void link_evidence(const struct rd_fabric *f, struct rd_finding *fd, const struct rd_fab_link *l)
{
	char a[160], b[160], r[64];
	end_name(f, &l->a, a, sizeof a);
	end_name(f, &l->b, b, sizeof b);
	rate_text(l->width, l->speed, l->speed_name, r, sizeof r);
	if (l->could_width || l->could_speed > 0)
		rd_evidence_add(fd, LINK_CMD, "line %u: %s - %s %s %s/%s (Could be %uX %g Gbps)", l->line, a, b, r, l->state,
				l->phys, l->could_width ? l->could_width : l->width, l->could_speed > 0 ? l->could_speed : l->speed);
	else
		rd_evidence_add(fd, LINK_CMD, "line %u: %s - %s %s %s/%s", l->line, a, b, r, l->state, l->phys);
}

void rd_fab_link_subject(const struct rd_fabric *f, const struct rd_fab_link *l, char *buf, size_t cap)
{
	char a[160], b[160];
	end_name(f, &l->a, a, sizeof a);
	end_name(f, &l->b, b, sizeof b);
	snprintf(buf, cap, "%s - %s", a, b);
}

static void judge_links(const struct rd_fabric *f, struct rd_report *r, bool sm_there)
{
	struct tier *tiers = NULL;
	size_t nt = 0;
	size_t *tier_of = rd_xcalloc(f->nlinks + 1, sizeof *tier_of);
	for (size_t i = 0; i < f->nlinks; i++) {
		const struct rd_fab_link *l = &f->links[i];
		tier_of[i] = (size_t)-1;
		if (!active(l))
			continue;
		int x = level_of(f, &l->a), y = level_of(f, &l->b);
		int lo = x < y ? x : y, hi = x < y ? y : x;
		size_t t = 0;
		while (t < nt && !(tiers[t].lo == lo && tiers[t].hi == hi))
			t++;
		if (t == nt) {
			tiers = rd_grow(tiers, nt, sizeof *tiers);
			memset(&tiers[nt], 0, sizeof *tiers);
			tiers[nt].lo = lo;
			tiers[nt].hi = hi;
			nt++;
		}
		tier_of[i] = t;
		tiers[t].n++;
	}
	/* each tier's mode: the (width, speed) most of its links run at; a tie goes to the faster */
	for (size_t t = 0; t < nt; t++) {
		size_t best = 0;
		for (size_t i = 0; i < f->nlinks; i++) {
			if (tier_of[i] != t)
				continue;
			const struct rd_fab_link *l = &f->links[i];
			size_t c = 0;
			for (size_t j = 0; j < f->nlinks; j++)
				if (tier_of[j] == t && f->links[j].width == l->width && same_speed(f->links[j].speed, l->speed))
					c++;
			if (c > best || (c == best && rd_fab_rate(l) > tiers[t].width * tiers[t].speed)) {
				best = c;
				tiers[t].at_mode = c;
				tiers[t].width = l->width;
				tiers[t].speed = l->speed;
			}
		}
	}
	for (size_t i = 0; i < f->nlinks; i++) {
		const struct rd_fab_link *l = &f->links[i];
		char subj[400], tn[128], rt[64], mt[64];
		if (l->has_peer && strcmp(l->state, "Active") != 0 && strcmp(l->state, "Linked") != 0 && sm_there) {
			rd_fab_link_subject(f, l, subj, sizeof subj);
			struct rd_finding *fd = rd_report_add(r, "fabric.link.state", RD_SUBJ_PORT, RD_WARN, subj,
							      "cabled but %s/%s, not Active: no traffic crosses it", l->state,
							      l->phys);
			link_evidence(f, fd, l);
			rd_fix_add(fd, "ibportstate -G 0x%016llx %u query", (unsigned long long)l->a.guid, l->a.port);
			rd_fix_add(fd, "check the subnet manager's log for this port (opensm: /var/log/opensm.log)");
		}
		if (tier_of[i] == (size_t)-1)
			continue;
		struct tier *t = &tiers[tier_of[i]];
		tier_name(t->lo, t->hi, tn, sizeof tn);
		rd_fab_link_subject(f, l, subj, sizeof subj);
		rate_text(l->width, l->speed, l->speed_name, rt, sizeof rt);
		rate_text(t->width, t->speed, NULL, mt, sizeof mt);
		bool narrower = l->width < t->width, slower = l->speed + 0.001 < t->speed;
		if (t->n > 1 && (narrower || slower)) {
			struct rd_finding *fd = rd_report_add(
				r, "fabric.link.degraded", RD_SUBJ_PORT, RD_WARN, subj,
				"runs at %s (%g Gb/s) while %zu of its %zu sibling links between %s run at %s (%g Gb/s): %s%s%s",
				rt, rd_fab_rate(l), t->at_mode, t->n - 1, tn, mt, t->width * t->speed,
				narrower ? "lanes failed to train" : "",
				narrower && slower ? " and " : "", slower ? "it trained at a lower speed" : "");
			link_evidence(f, fd, l);
			rd_fix_add(fd, "reseat the cable between both ports, then replace it if it trains the same");
			rd_fix_add(fd, "mlxlink -d <switch> -p %u (the port's eye and BER; on a managed switch)", l->a.port);
			continue;
		}
		if (!below_capability(l))
			continue;
		if (t->n > 1) {
			t->at_mode_could++;
			t->could_width = l->could_width ? l->could_width : l->width;
			t->could_speed = l->could_speed > 0 ? l->could_speed : l->speed;
			continue;
		}
		struct rd_finding *fd = rd_report_add(
			r, "fabric.link.capability", RD_SUBJ_PORT, RD_WARN, subj,
			"runs at %s while both ends enable %uX %g Gbps; no sibling link between %s to compare with", rt,
			l->could_width ? l->could_width : l->width, l->could_speed > 0 ? l->could_speed : l->speed, tn);
		link_evidence(f, fd, l);
		rd_fix_add(fd, "reseat or replace the cable; check the cable's rated speed (mlxcables) and both ports' "
			       "enabled widths and speeds (ibportstate)");
	}
	for (size_t t = 0; t < nt; t++) {
		if (!tiers[t].at_mode_could)
			continue;
		char tn[128], mt[64], subj[160];
		tier_name(tiers[t].lo, tiers[t].hi, tn, sizeof tn);
		rate_text(tiers[t].width, tiers[t].speed, NULL, mt, sizeof mt);
		snprintf(subj, sizeof subj, "links between %s", tn);
		rd_report_add(r, "fabric.link.capability", RD_SUBJ_PORT, RD_OK, subj,
			      "%zu of the %zu links run at %s while both ends enable %uX %g Gbps: the same on every such "
			      "link, a fabric-wide setting or the cables' class, not one bad cable",
			      tiers[t].at_mode_could, tiers[t].n, mt, tiers[t].could_width, tiers[t].could_speed);
	}
	free(tiers);
	free(tier_of);
}

/* The first line of a command's output, at most 200 bytes, without its newline. */
static size_t trimmed_len(const struct rd_text *t)
{
	size_t n = 0;
	while (t->data && n < t->len && n < 200 && t->data[n] != '\n')
		n++;
	return n;
}

static size_t count_state(const struct rd_fabric *f, const char *state)
{
	size_t n = 0;
	for (size_t i = 0; i < f->nlinks; i++)
		if (f->links[i].has_peer && strcmp(f->links[i].state, state) == 0)
			n++;
	return n;
}

/* Returns whether a subnet manager is known to be there. */
static bool judge_sm(const struct rd_fabric *f, const struct rd_fab_judge_opts *o, struct rd_report *r)
{
	size_t init = count_state(f, "Initialize"), act = count_state(f, "Active"), armed = count_state(f, "Armed");
	if (o->sminfo) {
		const struct rd_text *t = o->sminfo;
		if (f->sm.read && f->sm.lid && strcmp(f->sm.state_name, "SMINFO_MASTER") == 0)
			return true;
		struct rd_finding *fd;
		if (f->sm.read && f->sm.lid) {
			fd = rd_report_add(r, "fabric.sm", RD_SUBJ_HOST, RD_WARN, "subnet manager",
					   "the subnet manager at LID %u is %s, not master", f->sm.lid, f->sm.state_name);
			rd_evidence_add(fd, "sminfo", "%.*s", (int)trimmed_len(t), t->data ? t->data : "");
			return true;
		}
		if (act)
			fd = rd_report_add(r, "fabric.sm", RD_SUBJ_HOST, RD_FAIL, "subnet manager",
					   "no subnet manager answers: the %zu Active ports keep what an earlier one set, "
					   "but a port that comes up (or a change in the fabric) stays unconfigured "
					   "(%zu cabled ports Initialize)",
					   act, init);
		else
			fd = rd_report_add(r, "fabric.sm", RD_SUBJ_HOST, RD_FAIL, "subnet manager",
					   "no subnet manager answers: ports stay Initialize with LID 0 and no traffic "
					   "flows (%zu cabled ports Initialize)",
					   init);
		if (t->err)
			rd_evidence_add(fd, "sminfo", "<%s>", rd_strerror(t->err));
		else
			rd_evidence_add(fd, "sminfo", "exit status %d%s%.*s", t->status, t->len ? ": " : "",
					(int)trimmed_len(t), t->data ? t->data : "");
		rd_fix_add(fd, "start a subnet manager: systemctl enable --now opensm (or the switches' SM)");
		rd_fix_add(fd, "sminfo; ibstat (SM lid on each port)");
		return false;
	}
	if (init && !act && !armed) {
		struct rd_finding *fd = rd_report_add(r, "fabric.sm", RD_SUBJ_HOST, RD_FAIL, "subnet manager",
						      "every cabled port (%zu) is Initialize: no subnet manager has "
						      "configured the subnet",
						      init);
		for (size_t i = 0; i < f->nlinks; i++)
			if (f->links[i].has_peer) {
				link_evidence(f, fd, &f->links[i]);
				break;
			}
		rd_fix_add(fd, "start a subnet manager: systemctl enable --now opensm (or the switches' SM)");
		return false;
	}
	return act > 0;
}

static void judge_expect(const struct rd_fabric *f, const struct rd_strv *expect, struct rd_report *r)
{
	for (size_t i = 0; i < expect->n; i++) {
		bool found = false;
		for (size_t j = 0; !found && j < f->nnodes; j++)
			found = f->nodes[j].host && strcmp(f->nodes[j].host, expect->v[i]) == 0;
		if (found)
			continue;
		struct rd_finding *fd = rd_report_add(r, "fabric.expect", RD_SUBJ_HOST, RD_FAIL, expect->v[i],
						      "expected in the fabric, but no CA's node description names it");
		rd_evidence_add(fd, LINK_CMD, "%zu nodes, no \"%s <device>\" among them", f->nnodes, expect->v[i]);
		rd_fix_add(fd, "on %s: ibstat (port State, Physical state), then the cable to its leaf switch",
			   expect->v[i]);
		rd_fix_add(fd, "on %s: cat /sys/class/infiniband/*/node_desc (the name it gives the fabric)", expect->v[i]);
	}
}

/* ---- port error counters (ibqueryerrors) ---- */

#define QE_CMD "ibqueryerrors"

/* Every cable's two ends by (GUID, port), for a counter's cable in O(log n). */
struct end_key {
	uint64_t guid;
	unsigned port;
	long link;
};

static int end_key_cmp(const void *a, const void *b)
{
	const struct end_key *x = a, *y = b;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

static long link_of_end(const struct end_key *ends, size_t n, uint64_t guid, unsigned port)
{
	struct end_key k = {.guid = guid, .port = port};
	const struct end_key *e = n ? bsearch(&k, ends, n, sizeof *ends, end_key_cmp) : NULL;
	return e ? e->link : -1;
}

static bool saturated(const struct rd_fab_counter_rule *ru, uint64_t v)
{
	return ru->bits < 64 && v >= (((uint64_t)1 << ru->bits) - 1);
}

static void counter_port_name(const struct rd_fabric *f, const struct rd_fab_counter *c, char *buf, size_t cap)
{
	const struct rd_fab_node *n = rd_fabric_node(f, c->guid);
	const char *d = n && n->desc && *n->desc ? n->desc : c->desc && *c->desc ? c->desc : NULL;
	if (d)
		snprintf(buf, cap, "%s[%u]", d, c->port);
	else
		snprintf(buf, cap, "0x%016llx[%u]", (unsigned long long)c->guid, c->port);
}

static int state_entry_cmp(const void *a, const void *b)
{
	const struct rd_state_entry *x = a, *y = b;
	int c = strcmp(x->dev, y->dev);
	if (c)
		return c;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* With a baseline (its entries sorted): how much c rose since (a counter below its baseline was
 * cleared: all of it is new). */
static uint64_t rise_of(const struct rd_fab_counter *c, const struct rd_state_entry *sorted, size_t n)
{
	struct rd_state_entry k = {.kind = RD_STATE_COUNTER, .port = c->port};
	snprintf(k.dev, sizeof k.dev, "0x%016llx", (unsigned long long)c->guid);
	snprintf(k.name, sizeof k.name, "%s", c->name);
	const struct rd_state_entry *e = n ? bsearch(&k, sorted, n, sizeof *sorted, state_entry_cmp) : NULL;
	uint64_t was = e ? e->value : 0; /* not printed then: 0 (below ibqueryerrors' threshold) */
	return c->value >= was ? c->value - was : c->value;
}

struct judged {
	const struct rd_fab_counter *c;
	long link; /* the cable it is on, or -1 */
	size_t i;  /* its order in the output */
};

static int judged_cmp(const void *a, const void *b)
{
	const struct judged *x = a, *y = b;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	if (x->link < 0 && (x->c->guid != y->c->guid || x->c->port != y->c->port))
		return x->c->guid != y->c->guid ? (x->c->guid < y->c->guid ? -1 : 1) : (x->c->port < y->c->port ? -1 : 1);
	return (x->i > y->i) - (x->i < y->i);
}

struct group {
	size_t from, to; /* its counters in the sorted judged array */
	size_t i;        /* the output order of its first counter */
};

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	return (x->i > y->i) - (x->i < y->i);
}

static bool same_group(const struct judged *x, const struct judged *y)
{
	return x->link == y->link && (x->link >= 0 || (x->c->guid == y->c->guid && x->c->port == y->c->port));
}

static void judge_counters(const struct rd_fabric *f, const struct rd_text *t, const struct rd_state_sample *base,
			   struct rd_report *r)
{
	if (t->err || !f->counters_read) {
		struct rd_finding *fd = rd_report_add(r, "fabric.link.errors", RD_SUBJ_HOST, RD_UNKNOWN, "port counters",
						      "the ports' error counters could not be had: ibqueryerrors' output %s",
						      t->err ? "could not be read" : "has no \"## Summary\" line (not its format, or it failed)");
		if (t->err)
			rd_evidence_add(fd, QE_CMD, "<%s>", rd_strerror(t->err));
		else
			rd_evidence_add(fd, QE_CMD, "exit status %d%s%.*s", t->status, t->len ? ": " : "", (int)trimmed_len(t),
					t->data ? t->data : "");
		rd_fix_add(fd, "ibqueryerrors (infiniband-diags; it needs a subnet manager: the ports' LIDs)");
		return;
	}
	/* each counter above its threshold, grouped by the cable (or the uncabled port) it is on */
	size_t ne = 0, nj = 0, nbad = 0, nb = base ? base->n : 0;
	struct end_key *ends = rd_xcalloc(2 * f->nlinks + 1, sizeof *ends);
	for (size_t i = 0; i < f->nlinks; i++) {
		const struct rd_fab_link *l = &f->links[i];
		ends[ne++] = (struct end_key){l->a.guid, l->a.port, (long)i};
		if (l->has_peer)
			ends[ne++] = (struct end_key){l->b.guid, l->b.port, (long)i};
	}
	if (ne > 1)
		qsort(ends, ne, sizeof *ends, end_key_cmp);
	struct rd_state_entry *sorted = rd_xcalloc(nb + 1, sizeof *sorted);
	if (nb) {
		memcpy(sorted, base->e, nb * sizeof *sorted);
		qsort(sorted, nb, sizeof *sorted, state_entry_cmp);
	}
	struct judged *v = rd_xcalloc(f->ncounters + 1, sizeof *v);
	for (size_t i = 0; i < f->ncounters; i++) {
		const struct rd_fab_counter *c = &f->counters[i];
		const struct rd_fab_counter_rule *ru = rd_fab_counter_rule(c->name);
		if (ru && c->value > ru->threshold)
			v[nj++] = (struct judged){c, link_of_end(ends, ne, c->guid, c->port), i};
	}
	/* the groups in the order of their first counter in the output */
	if (nj > 1)
		qsort(v, nj, sizeof *v, judged_cmp);
	struct group *gs = rd_xcalloc(nj + 1, sizeof *gs);
	size_t ng = 0;
	for (size_t i = 0; i < nj; i++) {
		if (!i || !same_group(&v[i - 1], &v[i]))
			gs[ng++] = (struct group){i, i, v[i].i};
		gs[ng - 1].to = i + 1;
	}
	if (ng > 1)
		qsort(gs, ng, sizeof *gs, group_cmp);
	for (size_t g = 0; g < ng; g++) {
		size_t from = gs[g].from, to = gs[g].to;
		const struct rd_fab_counter *c0 = v[from].c;
		const struct rd_fab_link *l = v[from].link >= 0 ? &f->links[v[from].link] : NULL;
		char subj[400], msg[1200], pn[200];
		size_t ml = 0, nsat = 0;
		enum rd_status st = base ? RD_OK : RD_WARN;
		if (l)
			rd_fab_link_subject(f, l, subj, sizeof subj);
		else
			counter_port_name(f, c0, subj, sizeof subj);
		msg[0] = 0;
		for (size_t j = from; j < to; j++) {
			const struct rd_fab_counter *c = v[j].c;
			const struct rd_fab_counter_rule *ru = rd_fab_counter_rule(c->name);
			bool sat = saturated(ru, c->value);
			uint64_t rise = base ? rise_of(c, sorted, nb) : 0;
			counter_port_name(f, c, pn, sizeof pn);
			/* without a baseline a counter above its threshold is judged as errors now; with one,
			 * only a rise is: a saturated one that cannot show a rise is a WARN */
			enum rd_status cs = !base ? (sat ? RD_FAIL : RD_WARN)
					    : sat ? (rise ? RD_FAIL : RD_WARN)
						  : (rise ? RD_WARN : RD_OK);
			if (cs > st)
				st = cs;
			nsat += sat;
			char since[96] = "";
			if (base && rise)
				snprintf(since, sizeof since, ", up %llu in %llds", (unsigned long long)rise,
					 rd_run_time() - base->time);
			else if (base)
				snprintf(since, sizeof since, ", unchanged in %llds (old errors)", rd_run_time() - base->time);
			int k = snprintf(msg + ml, sizeof msg - ml, "%s%s %s %llu%s%s (threshold %llu; %s)", ml ? "; " : "", pn,
					 c->name, (unsigned long long)c->value, since,
					 sat ? ", saturated: at its maximum, the true count unknown" : "",
					 (unsigned long long)ru->threshold, ru->means);
			if (k > 0 && (size_t)k < sizeof msg - ml)
				ml += (size_t)k;
		}
		struct rd_finding *fd = rd_report_add(r, "fabric.link.errors", RD_SUBJ_PORT, st, subj, "%s%s", msg,
						      l ? "" : " (a port without a cable in iblinkinfo's output)");
		nbad++;
		for (size_t j = from; j < to && j < from + 16; j++) {
			const struct rd_fab_counter *c = v[j].c;
			rd_evidence_add(fd, QE_CMD, "line %u: GUID 0x%llx port %u: [%s == %llu]", c->line,
					(unsigned long long)c->guid, c->port, c->name, (unsigned long long)c->value);
		}
		if (l)
			link_evidence(f, fd, l);
		rd_fix_add(fd, "perfquery -G 0x%llx %u (the counters now), then perfquery -R -G 0x%llx %u to clear them and "
			       "see whether they rise again%s",
			   (unsigned long long)c0->guid, c0->port, (unsigned long long)c0->guid, c0->port,
			   nsat ? " (a saturated counter shows nothing new until it is cleared)" : "");
		rd_fix_add(fd, "reseat the cable between both ports, then replace it (or its transceivers) if the errors "
			       "return; mlxlink -d <switch> -p <port> shows the port's BER on a managed switch");
	}
	if (!nbad)
		rd_report_add(r, "fabric.link.errors", RD_SUBJ_PORT, RD_OK, "port counters",
			      "no port's error counter above its threshold (ibqueryerrors: %u ports checked)", f->ports_checked);
	free(gs);
	free(v);
	free(sorted);
	free(ends);
}

/* ---- duplicate GUIDs and LIDs ---- */

struct end_ref {
	const struct rd_fab_end *e;
	const struct rd_fab_end *peer; /* the cable's other end, or NULL */
	unsigned line;
};

static int end_ref_guid_cmp(const void *a, const void *b)
{
	const struct end_ref *x = a, *y = b;
	if (x->e->guid != y->e->guid)
		return x->e->guid < y->e->guid ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int end_ref_lid_cmp(const void *a, const void *b)
{
	const struct end_ref *x = a, *y = b;
	if (x->e->lid != y->e->lid)
		return x->e->lid < y->e->lid ? -1 : 1;
	if (x->e->guid != y->e->guid)
		return x->e->guid < y->e->guid ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* "node02 mlx5_0[1] (cabled to leaf1[2], line 5)" */
static void place(const struct end_ref *x, char *buf, size_t cap)
{
	const char *d = x->e->desc && *x->e->desc ? x->e->desc : "?";
	if (x->peer)
		snprintf(buf, cap, "\"%s\" port %u (cabled to %s[%u], line %u)", d, x->e->port,
			 x->peer->desc && *x->peer->desc ? x->peer->desc : "?", x->peer->port, x->line);
	else
		snprintf(buf, cap, "\"%s\" port %u (line %u)", d, x->e->port, x->line);
}

static bool same_desc(const struct rd_fab_end *a, const struct rd_fab_end *b)
{
	return !a->desc || !b->desc || !*a->desc || !*b->desc || strcmp(a->desc, b->desc) == 0;
}

static void dup_finding(struct rd_report *r, const char *subj, const char *what, const struct end_ref *x,
			const struct end_ref *y)
{
	char px[400], py[400];
	place(x, px, sizeof px);
	place(y, py, sizeof py);
	struct rd_finding *fd = rd_report_add(r, "fabric.duplicate", RD_SUBJ_PORT, RD_FAIL, subj, "%s: %s and %s", what,
					      px, py);
	rd_evidence_add(fd, LINK_CMD, "line %u: %s", x->line, px);
	rd_evidence_add(fd, LINK_CMD, "line %u: %s", y->line, py);
	rd_fix_add(fd, "ibstat on both hosts (Node GUID, Port GUID, Base lid); smpquery nodeinfo -G <guid>");
	rd_fix_add(fd, "a duplicate GUID is a cloned firmware image or a mis-set GUID (mlxconfig / flint); a "
		       "duplicate LID a second subnet manager or a static LID: check the SM's log");
}

static void judge_dups(const struct rd_fabric *f, struct rd_report *r)
{
	size_t n = 0;
	struct end_ref *v = rd_xcalloc(2 * f->nlinks + 1, sizeof *v);
	for (size_t i = 0; i < f->nlinks; i++) {
		const struct rd_fab_link *l = &f->links[i];
		v[n++] = (struct end_ref){&l->a, l->has_peer ? &l->b : NULL, l->line};
		if (l->has_peer)
			v[n++] = (struct end_ref){&l->b, &l->a, l->line};
	}
	/* a GUID under two node descriptions, or a CA port on two cables: two devices with one GUID */
	if (n > 1)
		qsort(v, n, sizeof *v, end_ref_guid_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j].e->guid == v[i].e->guid)
			j++;
		bool found = false;
		size_t lim = j - i > 512 ? i + 512 : j; /* a switch has at most 255 ports, each seen twice */
		for (size_t a = i; a < lim && !found; a++)
			for (size_t b = a + 1; b < lim && !found; b++) {
				const struct rd_fab_end *x = v[a].e, *y = v[b].e;
				bool two_cables = x->kind == RD_FAB_CA && y->kind == RD_FAB_CA && x->port == y->port && v[a].peer &&
						  v[b].peer && (v[a].peer->guid != v[b].peer->guid || v[a].peer->port != v[b].peer->port);
				if (!same_desc(x, y) || two_cables) {
					char subj[64];
					snprintf(subj, sizeof subj, "GUID 0x%016llx", (unsigned long long)x->guid);
					dup_finding(r, subj, "one GUID on two nodes", &v[a], &v[b]);
					found = true;
				}
			}
		i = j;
	}
	/* a LID on two GUIDs (LID 0, no subnet manager yet, is no LID) */
	if (n > 1)
		qsort(v, n, sizeof *v, end_ref_lid_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j].e->lid == v[i].e->lid)
			j++;
		if (v[i].e->lid && v[j - 1].e->guid != v[i].e->guid) {
			char subj[32];
			snprintf(subj, sizeof subj, "LID %u", v[i].e->lid);
			dup_finding(r, subj, "one LID on two ports", &v[i], &v[j - 1]);
		}
		i = j;
	}
	free(v);
	/* what the real tools make of a duplicate port GUID: libibnetdisc keeps the first port it
	 * finds (its "Duplicate Port" goes to standard error), and the switch port cabled to the
	 * second is up but "Port not available" (no node behind it) */
	for (size_t i = 0; i < f->nlinks; i++) {
		const struct rd_fab_link *l = &f->links[i];
		char name[200];
		if (l->has_peer || !l->width || strcmp(l->phys, "LinkUp") != 0)
			continue;
		end_name(f, &l->a, name, sizeof name);
		struct rd_finding *fd = rd_report_add(
			r, "fabric.duplicate", RD_SUBJ_PORT, RD_WARN, name,
			"the port is up (%uX, %s/%s) but the sweep found no node behind it: a port GUID that another "
			"port already has (discovery keeps the first and drops this one), or a peer that does not "
			"answer subnet management packets",
			l->width, l->state, l->phys);
		rd_evidence_add(fd, LINK_CMD, "line %u: %s \"Port not available\"", l->line, name);
		rd_fix_add(fd, "ibnetdiscover -p 2>&1 | grep -i duplicate (libibnetdisc names the GUID on standard error)");
		rd_fix_add(fd, "ibstat on the host cabled to this port (its Port GUID), compared with the other hosts'");
	}
}

void rd_fab_judge(const struct rd_fabric *f, const struct rd_fab_judge_opts *o, struct rd_report *r)
{
	if (!f->nlinks) {
		struct rd_finding *fd = rd_report_add(r, "fabric.input", RD_SUBJ_HOST, RD_UNKNOWN, "host",
						      "no port of the fabric was read (%u lines not understood)", f->skipped);
		if (f->first_skipped)
			rd_evidence_add(fd, LINK_CMD, "line %u: not in the format of iblinkinfo -l", f->first_skipped);
		return; /* an expected host is not "absent" from a fabric that was not read */
	}
	bool sm = judge_sm(f, o, r);
	judge_links(f, r, sm);
	judge_dups(f, r);
	/* without a subnet manager the ports have no LIDs to query: fabric.sm says it already */
	if (o->queryerrors && (sm || (!o->queryerrors->err && f->counters_read)))
		judge_counters(f, o->queryerrors, o->counters_base, r);
	if (o->expect)
		judge_expect(f, o->expect, r);
}
