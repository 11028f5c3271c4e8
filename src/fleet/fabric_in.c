/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fleet's fabric reader (see fabric_in.h): yajl's callbacks keep the fields of the parts of
 * the document it knows (where: the top, summary, a link, a link's end, a finding) and skip the
 * rest; the links are then given their findings' statuses. */
#include "fleet/fabric_in.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/map.h"
#include "util/util.h"
#include "util/yajl.h"

enum where { W_NONE, W_TOP, W_SUMMARY, W_LINKS, W_LINK, W_END, W_FINDS, W_FINDING, W_NODES, W_NODE };

struct reader {
	struct rd_fleet_fabric *fab;
	enum where at;
	int skip;             /* depth of a value being skipped (an unknown key's object or array) */
	bool end_b;           /* W_END: the link's "b" */
	char key[4][24];      /* the last key at the top, in summary or a link or a finding, in an end */
	bool seen_links, seen_finds, seen_summary, seen_nodes;
	struct rd_map node_desc;   /* nodes[]: GUID -> description (the one findings name a port by) */
	char *node_guid, *node_d;  /* the node being read */
	char *schema, *summary_status;
	char err[300];
};

static int fail(struct reader *r, const char *fmt, const char *what)
{
	if (!r->err[0])
		snprintf(r->err, sizeof r->err, fmt, what);
	return 0; /* yajl stops */
}

static char *cur_key(struct reader *r)
{
	switch (r->at) {
	case W_TOP: return r->key[0];
	case W_SUMMARY: case W_LINK: case W_FINDING: case W_NODE: return r->key[1];
	case W_END: return r->key[2];
	default: return r->key[3];
	}
}

static int cb_key(void *ctx, const unsigned char *s, size_t n)
{
	struct reader *r = ctx;
	if (r->skip)
		return 1;
	char *k = cur_key(r);
	if (n < sizeof r->key[0] && !memchr(s, '\0', n)) {
		memcpy(k, s, n);
		k[n] = '\0';
	} else
		strcpy(k, "\x01"); /* matches no field */
	return 1;
}

static struct rd_fleet_fab_link *cur_link(struct reader *r)
{
	return &r->fab->links[r->fab->nlinks - 1];
}

/* a whole number from 0 to max, or -1 */
static long long whole(const char *num, size_t nlen, long long max)
{
	char b[24];
	if (!num || nlen >= sizeof b)
		return -1;
	memcpy(b, num, nlen);
	b[nlen] = '\0';
	char *end;
	errno = 0;
	long long v = strtoll(b, &end, 10);
	return *end || errno || v < 0 || v > max ? -1 : v;
}

static int scalar(struct reader *r, const unsigned char *str, size_t slen, const char *num, size_t nlen)
{
	if (r->skip)
		return 1;
	const char *k = cur_key(r);
	struct rd_fleet_fabric *fab = r->fab;
	switch (r->at) {
	case W_TOP:
		if (!strcmp(k, "schema") && str) {
			rd_json_keep_str(&r->schema, str, slen, 64);
			if (strcmp(r->schema, RD_FLEET_FABRIC_SCHEMA) != 0) {
				char m[200];
				rd_schema_mismatch(m, sizeof m, r->schema, RD_FLEET_FABRIC_SCHEMA, "a fabric document");
				return fail(r, "%s", m);
			}
		} else if (!strcmp(k, "time") && str)
			rd_json_keep_str(&fab->time, str, slen, RD_FLEET_MAX_STR);
		else if (!strcmp(k, "source") && str)
			rd_json_keep_str(&fab->source, str, slen, RD_FLEET_MAX_STR);
		break;
	case W_SUMMARY:
		if (!strcmp(k, "status") && str)
			rd_json_keep_str(&r->summary_status, str, slen, 16);
		else if (num) {
			unsigned long long *dst = !strcmp(k, "switches") ? &fab->switches : !strcmp(k, "cas") ? &fab->cas
						: !strcmp(k, "hosts") ? &fab->hosts : !strcmp(k, "links") ? &fab->cables : NULL;
			long long v = whole(num, nlen, 1LL << 40);
			if (dst && v < 0)
				return fail(r, "summary.%s is not a count", k);
			if (dst)
				*dst = (unsigned long long)v;
		}
		break;
	case W_LINK: {
		if (fab->links_cut)
			break;
		struct rd_fleet_fab_link *l = cur_link(r);
		if (str && !strcmp(k, "state"))
			rd_json_keep_str(&l->state, str, slen, 24);
		else if (str && !strcmp(k, "phys_state"))
			rd_json_keep_str(&l->phys, str, slen, 32);
		else if (str && !strcmp(k, "speed_name"))
			rd_json_keep_str(&l->speed_name, str, slen, 16);
		else if (num && (!strcmp(k, "width") || !strcmp(k, "could_width"))) {
			long long v = whole(num, nlen, 64);
			if (v < 0)
				return fail(r, "a link's \"%s\" is not a lane count", k);
			*(k[0] == 'w' ? &l->width : &l->could_width) = (unsigned)v;
		} else if (num && (!strcmp(k, "speed_gbps") || !strcmp(k, "could_speed_gbps"))) {
			double v = rd_json_number(num, nlen, 1e6);
			if (v < 0)
				return fail(r, "a link's \"%s\" is not a rate", k);
			*(k[0] == 's' ? &l->speed : &l->could_speed) = v;
		}
		break;
	}
	case W_END: {
		if (fab->links_cut)
			break;
		struct rd_fleet_fab_link *l = cur_link(r);
		struct rd_fleet_fab_end *e = r->end_b ? &l->b : &l->a;
		if (str && !strcmp(k, "guid"))
			rd_json_keep_str(&e->guid, str, slen, 24);
		else if (str && !strcmp(k, "kind"))
			rd_json_keep_str(&e->kind, str, slen, 4);
		else if (str && !strcmp(k, "desc"))
			rd_json_keep_str(&e->desc, str, slen, RD_FLEET_MAX_STR);
		else if (num && !strcmp(k, "port")) {
			long long v = whole(num, nlen, 255);
			if (v < 0)
				return fail(r, "a link's \"port\" is not a port number%s", "");
			e->port = (unsigned)v;
		}
		break;
	}
	case W_FINDING: {
		if (fab->finds_cut)
			break;
		struct rd_fleet_fab_finding *fd = &fab->finds[fab->nfinds - 1];
		if (str && !strcmp(k, "check"))
			rd_json_keep_str(&fd->check, str, slen, RD_FLEET_MAX_STR);
		else if (str && !strcmp(k, "subject"))
			rd_json_keep_str(&fd->subject, str, slen, RD_FLEET_MAX_STR);
		else if (str && !strcmp(k, "message"))
			rd_json_keep_str(&fd->message, str, slen, RD_FLEET_FABRIC_MAX_MSG);
		else if (str && !strcmp(k, "status")) {
			char *s = NULL;
			rd_json_keep_str(&s, str, slen, 16);
			fd->status = rd_fleet_status_parse(s);
			free(s);
		}
		break;
	}
	case W_NODE:
		if (str && !strcmp(k, "guid"))
			rd_json_keep_str(&r->node_guid, str, slen, 24);
		else if (str && !strcmp(k, "desc"))
			rd_json_keep_str(&r->node_d, str, slen, RD_FLEET_MAX_STR);
		break;
	case W_LINKS:
	case W_FINDS:
	case W_NODES:
		return fail(r, "\"%s\" holds something that is not an object",
			    r->at == W_LINKS ? "links" : r->at == W_NODES ? "nodes" : "findings");
	default:
		return fail(r, "not a JSON object%s", "");
	}
	return 1;
}

static int cb_null(void *ctx)
{
	struct reader *r = ctx;
	if (!r->skip && r->at == W_LINK && !strcmp(cur_key(r), "b"))
		return 1; /* a port without a peer */
	return scalar(ctx, NULL, 0, NULL, 0);
}
static int cb_bool(void *ctx, int b)
{
	(void)b;
	return scalar(ctx, NULL, 0, NULL, 0);
}
static int cb_number(void *ctx, const char *s, size_t n)
{
	return scalar(ctx, NULL, 0, s, n);
}
static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	return scalar(ctx, s, n, NULL, 0);
}

static void end_init(struct rd_fleet_fab_end *e)
{
	e->guid = rd_xstrdup("");
	e->kind = rd_xstrdup("?");
	e->desc = rd_xstrdup("");
}

static int cb_start_map(void *ctx)
{
	struct reader *r = ctx;
	struct rd_fleet_fabric *fab = r->fab;
	if (r->skip) {
		r->skip++;
		return 1;
	}
	switch (r->at) {
	case W_NONE:
		r->at = W_TOP;
		r->key[0][0] = '\0';
		return 1;
	case W_TOP:
		if (!strcmp(r->key[0], "summary") && !r->seen_summary) {
			r->seen_summary = true;
			r->at = W_SUMMARY;
			r->key[1][0] = '\0';
			return 1;
		}
		break;
	case W_LINKS:
		r->at = W_LINK;
		r->key[1][0] = '\0';
		if (fab->nlinks == RD_FLEET_FABRIC_MAX_LINKS || fab->links_cut) {
			fab->links_cut++;
			return 1;
		}
		fab->links = rd_grow(fab->links, fab->nlinks, sizeof *fab->links);
		memset(&fab->links[fab->nlinks], 0, sizeof *fab->links);
		end_init(&fab->links[fab->nlinks].a);
		end_init(&fab->links[fab->nlinks].b);
		fab->nlinks++;
		return 1;
	case W_LINK:
		if (!strcmp(r->key[1], "a") || !strcmp(r->key[1], "b")) {
			r->end_b = r->key[1][0] == 'b';
			if (r->end_b && !fab->links_cut)
				cur_link(r)->has_peer = true;
			r->at = W_END;
			r->key[2][0] = '\0';
			return 1;
		}
		break;
	case W_NODES:
		r->at = W_NODE;
		r->key[1][0] = '\0';
		return 1;
	case W_FINDS:
		r->at = W_FINDING;
		r->key[1][0] = '\0';
		if (fab->nfinds == RD_FLEET_FABRIC_MAX_FINDINGS || fab->finds_cut) {
			fab->finds_cut++;
			return 1;
		}
		fab->finds = rd_grow(fab->finds, fab->nfinds, sizeof *fab->finds);
		memset(&fab->finds[fab->nfinds], 0, sizeof *fab->finds);
		fab->nfinds++;
		return 1;
	default:
		break;
	}
	r->skip = 1; /* an unknown key's object */
	return 1;
}

static int cb_end_map(void *ctx)
{
	struct reader *r = ctx;
	if (r->skip) {
		r->skip--;
		return 1;
	}
	switch (r->at) {
	case W_TOP:
		r->at = W_NONE;
		break;
	case W_SUMMARY:
		r->at = W_TOP;
		break;
	case W_END:
		r->at = W_LINK;
		break;
	case W_LINK:
		r->at = W_LINKS;
		break;
	case W_NODE:
		r->at = W_NODES;
		if (r->node_guid && *r->node_guid && r->node_d && *r->node_d && r->node_desc.n < RD_FLEET_FABRIC_MAX_LINKS) {
			struct rd_map_slot *s = rd_map_put(&r->node_desc, r->node_guid, strlen(r->node_guid), NULL);
			free(s->val.p);
			s->val.p = r->node_d;
			r->node_d = NULL;
		}
		free(r->node_guid);
		free(r->node_d);
		r->node_guid = r->node_d = NULL;
		break;
	case W_FINDING: {
		r->at = W_FINDS;
		struct rd_fleet_fabric *fab = r->fab;
		/* counted whether kept or not: the verdict is the whole document's */
		enum rd_fleet_status s = fab->finds_cut ? RD_FS_NONE : fab->finds[fab->nfinds - 1].status;
		if (!fab->finds_cut) {
			struct rd_fleet_fab_finding *fd = &fab->finds[fab->nfinds - 1];
			if (!fd->check || !*fd->check)
				return fail(r, "a finding without \"check\"%s", "");
			if (s == RD_FS_NONE)
				s = fd->status = RD_FS_UNKNOWN; /* a status this reader does not know */
			if (!fd->subject)
				fd->subject = rd_xstrdup("");
		}
		fab->nfail += s == RD_FS_FAIL;
		fab->nwarn += s == RD_FS_WARN;
		fab->nunknown += s == RD_FS_UNKNOWN;
		break;
	}
	default:
		break;
	}
	return 1;
}

static int cb_start_array(void *ctx)
{
	struct reader *r = ctx;
	if (r->skip) {
		r->skip++;
		return 1;
	}
	if (r->at == W_NONE)
		return fail(r, "an array, not a " RD_FLEET_FABRIC_SCHEMA " document%s", "");
	if (r->at == W_TOP && !strcmp(r->key[0], "links") && !r->seen_links) {
		r->seen_links = true;
		r->at = W_LINKS;
		return 1;
	}
	if (r->at == W_TOP && !strcmp(r->key[0], "nodes") && !r->seen_nodes) {
		r->seen_nodes = true;
		r->at = W_NODES;
		return 1;
	}
	if (r->at == W_TOP && !strcmp(r->key[0], "findings") && !r->seen_finds) {
		r->seen_finds = true;
		r->at = W_FINDS;
		return 1;
	}
	r->skip = 1;
	return 1;
}

static int cb_end_array(void *ctx)
{
	struct reader *r = ctx;
	if (r->skip) {
		r->skip--;
		return 1;
	}
	if (r->at == W_LINKS || r->at == W_FINDS || r->at == W_NODES)
		r->at = W_TOP;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_key,
	.yajl_end_map = cb_end_map,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end_array,
};

char *rd_fleet_fab_end_name(const struct rd_fleet_fab_end *e)
{
	return rd_xasprintf("%s[%u]", e->desc && *e->desc ? e->desc : e->guid ? e->guid : "", e->port);
}

static enum rd_fleet_status worse(enum rd_fleet_status a, enum rd_fleet_status b)
{
	return a > b ? a : b;
}

/* Each end by its node's description when the document's nodes[] has one (as fabric names a port
 * in its findings), else the one its line printed. */
static void node_descs(struct rd_fleet_fabric *fab, const struct rd_map *nd)
{
	for (size_t i = 0; nd->n && i < fab->nlinks; i++)
		for (int k = 0; k < 2; k++) {
			struct rd_fleet_fab_end *e = k ? &fab->links[i].b : &fab->links[i].a;
			const struct rd_map_slot *s = rd_map_get(nd, e->guid, strlen(e->guid));
			if (s && strcmp(e->desc, s->val.p) != 0) {
				free(e->desc);
				e->desc = rd_xstrdup(s->val.p);
			}
		}
}

/* Each cabled link: the worst status of the findings whose subject names it (either way round). */
static void link_statuses(struct rd_fleet_fabric *fab)
{
	struct rd_map subj = {0};
	for (size_t i = 0; i < fab->nfinds; i++) {
		const struct rd_fleet_fab_finding *fd = &fab->finds[i];
		if (fd->status != RD_FS_WARN && fd->status != RD_FS_FAIL && fd->status != RD_FS_UNKNOWN)
			continue;
		struct rd_map_slot *s = rd_map_put(&subj, fd->subject, strlen(fd->subject), NULL);
		s->val.ix = worse((enum rd_fleet_status)s->val.ix, fd->status);
	}
	for (size_t i = 0; subj.n && i < fab->nlinks; i++) {
		struct rd_fleet_fab_link *l = &fab->links[i];
		char *a = rd_fleet_fab_end_name(&l->a);
		char *names[3] = {NULL, NULL, NULL};
		if (l->has_peer) {
			char *b = rd_fleet_fab_end_name(&l->b);
			names[0] = rd_xasprintf("%s - %s", a, b);
			names[1] = rd_xasprintf("%s - %s", b, a);
			free(b);
			free(a);
		} else
			names[0] = a;
		for (int k = 0; k < 3 && names[k]; k++) {
			const struct rd_map_slot *s = rd_map_get(&subj, names[k], strlen(names[k]));
			if (s)
				l->status = worse(l->status, (enum rd_fleet_status)s->val.ix);
			free(names[k]);
		}
		fab->bad_links += l->status != RD_FS_NONE;
	}
	rd_map_free(&subj, NULL);
}

int rd_fleet_fabric_parse(struct rd_fleet_fabric *fab, const char *data, size_t len, char *err, size_t errlen)
{
	memset(fab, 0, sizeof *fab);
	const struct rd_yajl *y = rd_yajl_get(err, errlen);
	if (!y)
		return -ENOSYS;
	struct reader *r = rd_xcalloc(1, sizeof *r);
	r->fab = fab;
	yajl_handle h = y->alloc(&callbacks, NULL, r);
	if (!h)
		abort();
	yajl_status st = y->parse(h, (const unsigned char *)data, len);
	bool cut = false;
	if (st == yajl_status_ok) {
		st = y->complete_parse(h);
		cut = st != yajl_status_ok && r->at != W_NONE; /* it ends inside the document */
	}
	int ret = 0;
	if (r->err[0]) {
		rd_set_err(err, errlen, "%s", r->err);
		ret = -EINVAL;
	} else if (cut) {
		rd_set_err(err, errlen, "cut short: the document ends inside it");
		ret = -EINVAL;
	} else if (st != yajl_status_ok) {
		rd_yajl_reason(y, h, "not JSON", err, errlen);
		ret = -EINVAL;
	} else if (r->at != W_NONE) {
		rd_set_err(err, errlen, "cut short");
		ret = -EINVAL;
	} else if (!r->schema) {
		rd_set_err(err, errlen, "no \"schema\": not a " RD_FLEET_FABRIC_SCHEMA " document");
		ret = -EINVAL;
	} else {
		enum rd_fleet_status s = rd_fleet_status_parse(r->summary_status);
		if (s == RD_FS_NONE) {
			rd_set_err(err, errlen, "no summary.status (FAIL, WARN, UNKNOWN, OK, SKIP)");
			ret = -EINVAL;
		} else {
			/* as a node's: the worst of its summary.status and its findings */
			fab->status = worse(s, fab->nfail ? RD_FS_FAIL : fab->nwarn ? RD_FS_WARN
					       : fab->nunknown ? RD_FS_UNKNOWN : RD_FS_NONE);
			node_descs(fab, &r->node_desc);
			link_statuses(fab);
		}
	}
	y->free(h);
	free(r->schema);
	free(r->summary_status);
	free(r->node_guid);
	free(r->node_d);
	rd_map_free(&r->node_desc, free);
	free(r);
	if (ret < 0)
		rd_fleet_fabric_free(fab);
	return ret;
}

static void end_free(struct rd_fleet_fab_end *e)
{
	free(e->guid);
	free(e->kind);
	free(e->desc);
}

void rd_fleet_fabric_free(struct rd_fleet_fabric *fab)
{
	for (size_t i = 0; i < fab->nlinks; i++) {
		struct rd_fleet_fab_link *l = &fab->links[i];
		end_free(&l->a);
		end_free(&l->b);
		free(l->speed_name);
		free(l->state);
		free(l->phys);
	}
	free(fab->links);
	for (size_t i = 0; i < fab->nfinds; i++) {
		free(fab->finds[i].check);
		free(fab->finds[i].subject);
		free(fab->finds[i].message);
	}
	free(fab->finds);
	free(fab->origin);
	free(fab->time);
	free(fab->source);
	memset(fab, 0, sizeof *fab);
}
