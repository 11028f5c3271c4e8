/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fabric model from the parsed lines (fabric.h): one link per cable, the nodes with their
 * hosts, and each switch's tier (hops from the nearest CA). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"

static int end_cmp(const struct rd_fab_end *x, const struct rd_fab_end *y)
{
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

static int end_qcmp(const void *a, const void *b)
{
	return end_cmp(a, b);
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

static bool guid_in(const uint64_t *v, size_t n, uint64_t guid)
{
	return n && bsearch(&guid, v, n, sizeof *v, u64_cmp);
}

static int node_guid_cmp(const void *a, const void *b)
{
	const struct rd_fab_node *x = a, *y = b;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static struct rd_fab_node *node_find(struct rd_fab_node *nodes, size_t n, uint64_t guid)
{
	struct rd_fab_node key = {.guid = guid};
	return n ? bsearch(&key, nodes, n, sizeof *nodes, node_guid_cmp) : NULL;
}

const struct rd_fab_node *rd_fabric_node(const struct rd_fabric *f, uint64_t guid)
{
	return node_find(f->nodes, f->nnodes, guid);
}

/* "hostname mlx5_0" (Linux's node_desc: the host name, a space, the RDMA device) → host and
 * device; one word is a host name itself; anything else (a vendor's default "MT4123 ConnectX6
 * Mellanox Technologies", a switch's name) names no host. */
static void split_desc(struct rd_fab_node *n)
{
	const char *d = n->desc ? n->desc : "";
	const char *sp = strchr(d, ' ');
	if (!*d)
		return;
	if (!sp) {
		n->host = rd_xstrdup(d);
		return;
	}
	const char *dev = sp + 1;
	bool devlike = *dev && !strchr(dev, ' '), digit = false;
	for (const char *c = dev; devlike && *c; c++) {
		if (isdigit((unsigned char)*c))
			digit = true;
		else if (!(islower((unsigned char)*c) || *c == '_' || *c == '-'))
			devlike = false;
	}
	if (devlike && digit && sp > d) {
		n->host = rd_xstrndup(d, (size_t)(sp - d));
		n->device = rd_xstrdup(dev);
	}
}

static void add_node(struct rd_fabric *f, const struct rd_fab_end *e)
{
	f->nodes = rd_grow(f->nodes, f->nnodes, sizeof *f->nodes);
	struct rd_fab_node *n = &f->nodes[f->nnodes++];
	memset(n, 0, sizeof *n);
	n->guid = e->guid;
	n->desc = rd_xstrdup(e->desc ? e->desc : "");
	n->kind = e->kind;
	n->lid = e->lid;
	n->level = -1;
}

static int link_key_cmp(const void *a, const void *b)
{
	const struct rd_fab_link *x = a, *y = b;
	if (x->has_peer != y->has_peer)
		return x->has_peer ? -1 : 1;
	int c = end_cmp(&x->a, &y->a);
	if (c || !x->has_peer)
		return c ? c : (x->line > y->line) - (x->line < y->line);
	c = end_cmp(&x->b, &y->b);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static void free_link(struct rd_fab_link *l)
{
	free(l->a.desc);
	free(l->b.desc);
}

void rd_fabric_finish(struct rd_fabric *f)
{
	/* the switches are the GUIDs iblinkinfo printed on the left; a peer that is not one is a CA */
	size_t nsw = 0;
	uint64_t *sw = NULL;
	for (size_t i = 0; i < f->nlinks; i++)
		if (f->links[i].a.kind == RD_FAB_SW) {
			sw = rd_grow(sw, nsw, sizeof *sw);
			sw[nsw++] = f->links[i].a.guid;
		}
	if (nsw > 1)
		qsort(sw, nsw, sizeof *sw, u64_cmp);
	for (size_t i = 0; i < f->nlinks; i++) {
		struct rd_fab_link *l = &f->links[i];
		if (!l->has_peer || l->b.kind != RD_FAB_UNKNOWN)
			continue;
		l->b.kind = guid_in(sw, nsw, l->b.guid) ? RD_FAB_SW : RD_FAB_CA;
	}
	free(sw);
	/* each cable once, duplicates (seen from both ends) dropped */
	for (size_t i = 0; i < f->nlinks; i++) {
		struct rd_fab_link *l = &f->links[i];
		/* a switch's end first (the side iblinkinfo prints on the left), then by GUID and port */
		int ra = l->a.kind != RD_FAB_SW, rb = l->b.kind != RD_FAB_SW;
		if (l->has_peer && (rb < ra || (rb == ra && end_cmp(&l->b, &l->a) < 0))) {
			struct rd_fab_end t = l->a;
			l->a = l->b;
			l->b = t;
		}
	}
	if (f->nlinks > 1)
		qsort(f->links, f->nlinks, sizeof *f->links, link_key_cmp);
	size_t w = 0;
	for (size_t i = 0; i < f->nlinks; i++) {
		struct rd_fab_link *l = &f->links[i];
		bool dup = w > 0 && end_cmp(&f->links[w - 1].a, &l->a) == 0 &&
			   (!l->has_peer || !f->links[w - 1].has_peer || end_cmp(&f->links[w - 1].b, &l->b) == 0) &&
			   f->links[w - 1].has_peer == l->has_peer;
		if (dup) {
			free_link(l);
			continue;
		}
		f->links[w++] = *l;
	}
	f->nlinks = w;
	/* a port seen down and also as the end of a cable (two captures) keeps the cable only */
	size_t ncab = 0;
	struct rd_fab_end *cab = NULL; /* both ends of every cable, by GUID and port (descs borrowed) */
	for (size_t i = 0; i < f->nlinks; i++)
		if (f->links[i].has_peer) {
			cab = rd_grow(cab, ncab, sizeof *cab);
			cab[ncab++] = f->links[i].a;
			cab = rd_grow(cab, ncab, sizeof *cab);
			cab[ncab++] = f->links[i].b;
		}
	if (ncab > 1)
		qsort(cab, ncab, sizeof *cab, end_qcmp);
	w = 0;
	for (size_t i = 0; i < f->nlinks; i++) {
		struct rd_fab_link *l = &f->links[i];
		if (!l->has_peer && ncab && bsearch(&l->a, cab, ncab, sizeof *cab, end_qcmp)) {
			free_link(l);
			continue;
		}
		f->links[w++] = *l;
	}
	f->nlinks = w;
	free(cab);

	/* the nodes: every end, one per GUID */
	for (size_t i = 0; i < f->nnodes; i++) {
		free(f->nodes[i].desc);
		free(f->nodes[i].host);
		free(f->nodes[i].device);
	}
	f->nnodes = 0;
	for (size_t i = 0; i < f->nlinks; i++) {
		add_node(f, &f->links[i].a);
		if (f->links[i].has_peer)
			add_node(f, &f->links[i].b);
	}
	if (f->nnodes > 1)
		qsort(f->nodes, f->nnodes, sizeof *f->nodes, node_guid_cmp);
	w = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		struct rd_fab_node *n = &f->nodes[i];
		if (w > 0 && f->nodes[w - 1].guid == n->guid) {
			struct rd_fab_node *k = &f->nodes[w - 1];
			if (!*k->desc && *n->desc) {
				free(k->desc);
				k->desc = n->desc;
				n->desc = NULL;
			}
			if (k->kind == RD_FAB_UNKNOWN)
				k->kind = n->kind;
			if (!k->lid)
				k->lid = n->lid;
			free(n->desc);
			continue;
		}
		f->nodes[w++] = *n;
	}
	f->nnodes = w;
	for (size_t i = 0; i < f->nnodes; i++) {
		struct rd_fab_node *n = &f->nodes[i];
		if (n->kind == RD_FAB_CA) {
			split_desc(n);
			n->level = 0;
		}
	}
	/* tiers: a switch is one hop above its nearest CA (leaf 1, spine 2 ...) */
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < f->nlinks; i++) {
			const struct rd_fab_link *l = &f->links[i];
			if (!l->has_peer)
				continue;
			struct rd_fab_node *x = node_find(f->nodes, f->nnodes, l->a.guid);
			struct rd_fab_node *y = node_find(f->nodes, f->nnodes, l->b.guid);
			if (!x || !y)
				continue;
			for (int k = 0; k < 2; k++) {
				struct rd_fab_node *from = k ? y : x, *to = k ? x : y;
				if (from->level >= 0 && to->kind != RD_FAB_CA && (to->level < 0 || to->level > from->level + 1)) {
					to->level = from->level + 1;
					changed = true;
				}
			}
		}
	}
}

/* One kind a node end of net tells: the GUID, the kind, and when it was told (2 × the link's index
 * in net + its end, 0 or 1), the later telling winning. */
struct kind_note {
	uint64_t guid;
	size_t seq;
	enum rd_fab_kind kind;
};

static int kind_note_cmp(const void *a, const void *b)
{
	const struct kind_note *x = a, *y = b;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The last note about guid (notes sorted by GUID, one per GUID), or NULL. */
static const struct kind_note *kind_note_find(const struct kind_note *notes, size_t n, uint64_t guid)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (notes[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && notes[lo].guid == guid ? &notes[lo] : NULL;
}

void rd_fabric_merge(struct rd_fabric *f, struct rd_fabric *net)
{
	bool take_all = f->nlinks == 0;
	size_t n0 = f->nlinks, nnotes = 0;
	struct kind_note *notes = NULL;
	size_t *born = NULL; /* the seq at which each link taken from net joined f */
	size_t ntaken = 0;
	for (size_t i = 0; i < net->nlinks; i++) {
		struct rd_fab_link *l = &net->links[i];
		bool take = take_all || (l->has_peer && l->a.kind == RD_FAB_CA && l->b.kind == RD_FAB_CA);
		if (!take) {
			/* the kinds this link's ends tell, applied below to every end of f of their
			 * GUIDs that was in f by then */
			for (int m = 0; m < 2; m++) {
				const struct rd_fab_end *src = m ? &l->b : &l->a;
				if (src->kind == RD_FAB_UNKNOWN)
					continue;
				notes = rd_grow(notes, nnotes, sizeof *notes);
				notes[nnotes++] = (struct kind_note){.guid = src->guid, .seq = 2 * i + (size_t)m, .kind = src->kind};
			}
			free_link(l);
			continue;
		}
		f->links = rd_grow(f->links, f->nlinks, sizeof *f->links);
		f->links[f->nlinks++] = *l;
		born = rd_grow(born, ntaken, sizeof *born);
		born[ntaken++] = 2 * i + 1;
	}
	if (nnotes) {
		/* one note per GUID: its last */
		qsort(notes, nnotes, sizeof *notes, kind_note_cmp);
		size_t w = 0;
		for (size_t i = 0; i < nnotes; i++) {
			if (w > 0 && notes[w - 1].guid == notes[i].guid)
				w--;
			notes[w++] = notes[i];
		}
		nnotes = w;
		for (size_t j = 0; j < f->nlinks; j++) {
			struct rd_fab_end *ends[2] = {&f->links[j].a, &f->links[j].b};
			for (int k = 0; k < 2; k++) {
				const struct kind_note *nt = kind_note_find(notes, nnotes, ends[k]->guid);
				if (nt && (j < n0 || nt->seq > born[j - n0]))
					ends[k]->kind = nt->kind;
			}
		}
	}
	free(notes);
	free(born);
	free(net->links);
	net->links = NULL;
	net->nlinks = 0;
	f->skipped += net->skipped;
	if (!f->first_skipped)
		f->first_skipped = net->first_skipped;
	rd_fabric_free(net);
	rd_fabric_finish(f);
}
