/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fleet's pairs reader (see pairs_in.h): yajl's callbacks keep the fields of the top, of
 * "hosts" and of each finding, and skip the rest. */
#include "fleet/pairs_in.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "util/yajl.h"

enum where { W_NONE, W_TOP, W_HOSTS, W_FINDS, W_FINDING };

struct reader {
	struct rd_fleet_pairs *p;
	enum where at;
	int skip;
	char key[2][24]; /* the last key at the top, in hosts or a finding */
	bool seen_finds, seen_hosts;
	char *schema;
	char err[300];
};

static int fail(struct reader *r, const char *fmt, const char *what)
{
	if (!r->err[0])
		snprintf(r->err, sizeof r->err, fmt, what);
	return 0;
}

static char *cur_key(struct reader *r)
{
	return r->at == W_TOP ? r->key[0] : r->key[1];
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
		strcpy(k, "\x01");
	return 1;
}

static int scalar(struct reader *r, const unsigned char *str, size_t slen, const char *num, size_t nlen)
{
	if (r->skip)
		return 1;
	const char *k = cur_key(r);
	struct rd_fleet_pairs *p = r->p;
	switch (r->at) {
	case W_TOP:
		if (!strcmp(k, "schema") && str) {
			rd_json_keep_str(&r->schema, str, slen, 64);
			if (strcmp(r->schema, RD_FLEET_PAIRS_SCHEMA) != 0) {
				char m[200];
				rd_schema_mismatch(m, sizeof m, r->schema, RD_FLEET_PAIRS_SCHEMA, "a pairs document");
				return fail(r, "%s", m);
			}
		} else if (num) {
			unsigned long long *dst = !strcmp(k, "nodes") ? &p->nodes : !strcmp(k, "rounds") ? &p->rounds
						: !strcmp(k, "samples") ? &p->samples : NULL;
			double v = rd_json_number(num, nlen, 1e12);
			if ((dst || !strcmp(k, "median_gbps")) && v < 0)
				return fail(r, "\"%s\" is not a count or a rate", k);
			if (dst)
				*dst = (unsigned long long)v;
			else if (!strcmp(k, "median_gbps"))
				p->median = v;
		}
		break;
	case W_HOSTS:
		if (str) {
			char **dst = !strcmp(k, "bad") ? &p->bad : !strcmp(k, "suspect") ? &p->suspect
				   : !strcmp(k, "untested") ? &p->untested : !strcmp(k, "cleared") ? &p->cleared : NULL;
			if (dst)
				rd_json_keep_str(dst, str, slen, 4096);
		}
		break;
	case W_FINDING: {
		if (p->finds_cut)
			break;
		struct rd_fleet_pairs_finding *fd = &p->finds[p->nfinds - 1];
		char **dst = !str ? NULL : !strcmp(k, "id") ? &fd->id : !strcmp(k, "host") ? &fd->host
			   : !strcmp(k, "peer") ? &fd->peer : !strcmp(k, "rail") ? &fd->rail
			   : !strcmp(k, "message") ? &fd->message : NULL;
		if (dst)
			rd_json_keep_str(dst, str, slen, !strcmp(k, "message") ? 1024 : RD_FLEET_MAX_STR);
		else if (str && !strcmp(k, "status")) {
			char *s = NULL;
			rd_json_keep_str(&s, str, slen, 16);
			fd->status = rd_fleet_status_parse(s);
			free(s);
		} else if (num && !strcmp(k, "gbps")) {
			double v = rd_json_number(num, nlen, 1e7);
			if (v < 0)
				return fail(r, "a finding's \"gbps\" is not a rate%s", "");
			fd->gbps = v;
		}
		break;
	}
	case W_FINDS:
		return fail(r, "\"findings\" holds something that is not an object%s", "");
	default:
		return fail(r, "not a JSON object%s", "");
	}
	return 1;
}

static int cb_null(void *ctx)
{
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

static int cb_start_map(void *ctx)
{
	struct reader *r = ctx;
	struct rd_fleet_pairs *p = r->p;
	if (r->skip) {
		r->skip++;
		return 1;
	}
	if (r->at == W_NONE) {
		r->at = W_TOP;
		r->key[0][0] = '\0';
		return 1;
	}
	if (r->at == W_TOP && !strcmp(r->key[0], "hosts") && !r->seen_hosts) {
		r->seen_hosts = true;
		r->at = W_HOSTS;
		r->key[1][0] = '\0';
		return 1;
	}
	if (r->at == W_FINDS) {
		r->at = W_FINDING;
		r->key[1][0] = '\0';
		if (p->nfinds == RD_FLEET_PAIRS_MAX_FINDINGS || p->finds_cut) {
			p->finds_cut++;
			return 1;
		}
		p->finds = rd_grow(p->finds, p->nfinds, sizeof *p->finds);
		memset(&p->finds[p->nfinds], 0, sizeof *p->finds);
		p->finds[p->nfinds].gbps = -1;
		p->nfinds++;
		return 1;
	}
	r->skip = 1;
	return 1;
}

static int cb_end_map(void *ctx)
{
	struct reader *r = ctx;
	struct rd_fleet_pairs *p = r->p;
	if (r->skip) {
		r->skip--;
		return 1;
	}
	if (r->at == W_TOP)
		r->at = W_NONE;
	else if (r->at == W_HOSTS)
		r->at = W_TOP;
	else if (r->at == W_FINDING) {
		r->at = W_FINDS;
		enum rd_fleet_status s = RD_FS_NONE;
		if (!p->finds_cut) {
			struct rd_fleet_pairs_finding *fd = &p->finds[p->nfinds - 1];
			if (!fd->id || !*fd->id)
				return fail(r, "a finding without \"id\"%s", "");
			if (!fd->host || !rd_fleet_hostname_ok(fd->host))
				return fail(r, "a finding without a \"host\" that is a host name%s", "");
			if (fd->peer && !rd_fleet_hostname_ok(fd->peer))
				return fail(r, "a finding's \"peer\" is not a host name%s", "");
			if (fd->status == RD_FS_NONE)
				fd->status = RD_FS_UNKNOWN;
			s = fd->status;
		}
		p->nfail += s == RD_FS_FAIL;
		p->nwarn += s == RD_FS_WARN;
		p->nunknown += s == RD_FS_UNKNOWN;
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
		return fail(r, "an array, not a " RD_FLEET_PAIRS_SCHEMA " document%s", "");
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
	if (r->at == W_FINDS)
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

int rd_fleet_pairs_parse(struct rd_fleet_pairs *p, const char *data, size_t len, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	p->median = -1;
	const struct rd_yajl *y = rd_yajl_get(err, errlen);
	if (!y)
		return -ENOSYS;
	struct reader *r = rd_xcalloc(1, sizeof *r);
	r->p = p;
	yajl_handle h = y->alloc(&callbacks, NULL, r);
	if (!h)
		abort();
	yajl_status st = y->parse(h, (const unsigned char *)data, len);
	bool cut = false;
	if (st == yajl_status_ok) {
		st = y->complete_parse(h);
		cut = st != yajl_status_ok && r->at != W_NONE;
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
	} else if (!r->schema) {
		rd_set_err(err, errlen, "no \"schema\": not a " RD_FLEET_PAIRS_SCHEMA " document");
		ret = -EINVAL;
	} else {
		char **hl[] = {&p->bad, &p->suspect, &p->untested, &p->cleared};
		for (size_t i = 0; i < 4; i++)
			if (!*hl[i])
				*hl[i] = rd_xstrdup("");
		p->status = p->nfail || *p->bad ? RD_FS_FAIL : p->nwarn ? RD_FS_WARN : p->nunknown ? RD_FS_UNKNOWN : RD_FS_OK;
	}
	y->free(h);
	free(r->schema);
	free(r);
	if (ret < 0)
		rd_fleet_pairs_free(p);
	return ret;
}

void rd_fleet_pairs_free(struct rd_fleet_pairs *p)
{
	for (size_t i = 0; i < p->nfinds; i++) {
		struct rd_fleet_pairs_finding *fd = &p->finds[i];
		free(fd->id);
		free(fd->host);
		free(fd->peer);
		free(fd->rail);
		free(fd->message);
	}
	free(p->finds);
	free(p->origin);
	free(p->bad);
	free(p->suspect);
	free(p->untested);
	free(p->cleared);
	memset(p, 0, sizeof *p);
}
