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
	for (size_t i = 0; i < f->nlinks; i++) {
		struct rd_fab_link *l = &f->links[i];
		if (!l->has_peer || l->b.kind != RD_FAB_UNKNOWN)
			continue;
		l->b.kind = RD_FAB_CA;
		for (size_t j = 0; j < f->nlinks; j++)
			if (f->links[j].a.guid == l->b.guid && f->links[j].a.kind == RD_FAB_SW) {
				l->b.kind = RD_FAB_SW;
				break;
			}
	}
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
	w = 0;
	for (size_t i = 0; i < f->nlinks; i++) {
		struct rd_fab_link *l = &f->links[i];
		bool cabled = false;
		for (size_t j = 0; !l->has_peer && j < f->nlinks && f->links[j].has_peer; j++)
			if (end_cmp(&f->links[j].a, &l->a) == 0 || end_cmp(&f->links[j].b, &l->a) == 0)
				cabled = true;
		if (cabled) {
			free_link(l);
			continue;
		}
		f->links[w++] = *l;
	}
	f->nlinks = w;

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

void rd_fabric_merge(struct rd_fabric *f, struct rd_fabric *net)
{
	bool take_all = f->nlinks == 0;
	for (size_t i = 0; i < net->nlinks; i++) {
		struct rd_fab_link *l = &net->links[i];
		bool take = take_all || (l->has_peer && l->a.kind == RD_FAB_CA && l->b.kind == RD_FAB_CA);
		if (!take) {
			for (size_t j = 0; j < f->nlinks; j++) {
				struct rd_fab_end *ends[2] = {&f->links[j].a, &f->links[j].b};
				for (int k = 0; k < 2; k++)
					for (int m = 0; m < 2; m++) {
						const struct rd_fab_end *src = m ? &l->b : &l->a;
						if (ends[k]->guid == src->guid && src->kind != RD_FAB_UNKNOWN)
							ends[k]->kind = src->kind;
					}
			}
			free_link(l);
			continue;
		}
		f->links = rd_grow(f->links, f->nlinks, sizeof *f->links);
		f->links[f->nlinks++] = *l;
	}
	free(net->links);
	net->links = NULL;
	net->nlinks = 0;
	f->skipped += net->skipped;
	if (!f->first_skipped)
		f->first_skipped = net->first_skipped;
	rd_fabric_free(net);
	rd_fabric_finish(f);
}
