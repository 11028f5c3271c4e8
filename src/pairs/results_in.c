/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The pair results reader (see results_in.h): yajl's callbacks keep the fields of the document
 * being read, and each finished document becomes its samples. */
#include "pairs/results_in.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/yajl.h"

struct rail {
	char *server_dev, *client_dev, *error;
	double gbps, line, lat;
	bool has_gbps;
};

struct reader {
	struct rd_pairs *p;
	bool add_nodes;
	int depth;          /* 1: the document, 2: inside "rails", 3: a rail */
	int skip;           /* depth of a value being skipped (an unknown key's object or array) */
	char key[24];       /* the last key at depth 1 */
	char rkey[24];      /* the last key at depth 3 */
	bool in_rails;
	/* the document */
	char *schema, *server, *client, *error;
	long round;
	struct rail rails[RD_PAIRS_MAX_RAILS];
	size_t nrails;
	bool too_many_rails;
	size_t docs;
	char err[320];
};

static void doc_clear(struct reader *r)
{
	free(r->schema);
	free(r->server);
	free(r->client);
	free(r->error);
	r->schema = r->server = r->client = r->error = NULL;
	for (size_t i = 0; i < r->nrails; i++) {
		free(r->rails[i].server_dev);
		free(r->rails[i].client_dev);
		free(r->rails[i].error);
	}
	r->nrails = 0;
	r->round = 0;
	r->too_many_rails = false;
}

static int fail(struct reader *r, const char *fmt, const char *what)
{
	if (!r->err[0]) {
		char m[200];
		snprintf(m, sizeof m, fmt, what);
		snprintf(r->err, sizeof r->err, "document %zu: %s", r->docs + 1, m);
	}
	return 0; /* yajl stops */
}

static void set_str(char **dst, const unsigned char *s, size_t n)
{
	free(*dst);
	*dst = memchr(s, '\0', n) ? rd_xstrdup("") : rd_xstrndup((const char *)s, n);
}

static int cb_key(void *ctx, const unsigned char *s, size_t n)
{
	struct reader *r = ctx;
	char *k = r->depth == 3 ? r->rkey : r->key;
	if (n < sizeof r->key && !memchr(s, '\0', n)) {
		memcpy(k, s, n);
		k[n] = '\0';
	} else
		strcpy(k, "\x01"); /* matches no field */
	return 1;
}

static int scalar(struct reader *r, const unsigned char *str, size_t slen, const char *num, size_t nlen, bool null)
{
	if (r->skip)
		return 1;
	if (r->depth == 1) {
		if (strcmp(r->key, "schema") == 0 && str)
			set_str(&r->schema, str, slen);
		else if (strcmp(r->key, "server") == 0 && str)
			set_str(&r->server, str, slen);
		else if (strcmp(r->key, "client") == 0 && str)
			set_str(&r->client, str, slen);
		else if (strcmp(r->key, "error") == 0 && str)
			set_str(&r->error, str, slen);
		else if (strcmp(r->key, "round") == 0 && num) {
			char b[24];
			if (nlen >= sizeof b)
				return fail(r, "\"round\" is not a small whole number%s", "");
			memcpy(b, num, nlen);
			b[nlen] = '\0';
			char *end;
			errno = 0;
			long v = strtol(b, &end, 10);
			if (*end || errno || v < 1 || v > 1000000)
				return fail(r, "\"round\" %s is not a whole number from 1", b);
			r->round = v;
		} else if ((strcmp(r->key, "schema") == 0 || strcmp(r->key, "server") == 0 ||
			    strcmp(r->key, "client") == 0 || strcmp(r->key, "round") == 0) && !null)
			return fail(r, "\"%s\" has the wrong type", r->key);
		return 1;
	}
	if (r->depth == 2)
		return fail(r, "\"rails\" holds something that is not an object%s", "");
	if (r->depth != 3 || r->too_many_rails)
		return 1;
	struct rail *rl = &r->rails[r->nrails - 1];
	if (strcmp(r->rkey, "server_device") == 0 && str)
		set_str(&rl->server_dev, str, slen);
	else if (strcmp(r->rkey, "client_device") == 0 && str)
		set_str(&rl->client_dev, str, slen);
	else if (strcmp(r->rkey, "error") == 0 && str)
		set_str(&rl->error, str, slen);
	else if (num && (strcmp(r->rkey, "gbps") == 0 || strcmp(r->rkey, "line_gbps") == 0 ||
			 strcmp(r->rkey, "lat_us") == 0)) {
		char b[64];
		if (nlen >= sizeof b)
			return fail(r, "rail \"%s\" is not a number", r->rkey);
		memcpy(b, num, nlen);
		b[nlen] = '\0';
		char *end;
		double v = strtod(b, &end);
		if (*end || !isfinite(v) || v < 0 || v > 1e7)
			return fail(r, "rail value %s is not a rate from 0", b);
		if (r->rkey[0] == 'g') {
			rl->gbps = v;
			rl->has_gbps = true;
		} else if (r->rkey[0] == 'l' && r->rkey[1] == 'i')
			rl->line = v;
		else
			rl->lat = v;
	}
	return 1;
}

static int cb_null(void *ctx)
{
	return scalar(ctx, NULL, 0, NULL, 0, true);
}
static int cb_bool(void *ctx, int b)
{
	(void)b;
	return scalar(ctx, NULL, 0, NULL, 0, false);
}
static int cb_number(void *ctx, const char *s, size_t n)
{
	return scalar(ctx, NULL, 0, s, n, false);
}
static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	return scalar(ctx, s, n, NULL, 0, false);
}

static int cb_start_map(void *ctx)
{
	struct reader *r = ctx;
	if (r->skip) {
		r->skip++;
		return 1;
	}
	if (r->depth == 0) {
		r->depth = 1;
		r->key[0] = '\0';
		return 1;
	}
	if (r->depth == 2) {
		r->depth = 3;
		r->rkey[0] = '\0';
		if (r->nrails == RD_PAIRS_MAX_RAILS) {
			r->too_many_rails = true;
			return fail(r, "more than %s rails", "64");
		}
		r->rails[r->nrails++] = (struct rail){0};
		return 1;
	}
	r->skip = 1; /* an unknown key's object */
	return 1;
}

static void emit(struct reader *r)
{
	struct rd_pairs *p = r->p;
	long a = rd_pairs_node(p, r->server), b = rd_pairs_node(p, r->client);
	if (r->add_nodes) {
		a = (long)rd_pairs_add_node(p, r->server);
		b = (long)rd_pairs_add_node(p, r->client);
	}
	int round = r->round ? (int)r->round : 1;
	if (!r->nrails) {
		struct rd_pairs_sample s = {.a = (size_t)a, .b = (size_t)b, .rail_a = "-", .rail_b = "-", .gbps = -1,
					    .round = round, .error = r->error};
		rd_pairs_add(p, &s);
	}
	for (size_t i = 0; i < r->nrails; i++) {
		struct rail *rl = &r->rails[i];
		const char *why = rl->error ? rl->error : rl->has_gbps ? NULL : r->error ? r->error : "no result";
		char *e = why ? rd_xstrdup(why) : NULL;
		struct rd_pairs_sample s = {.a = (size_t)a, .b = (size_t)b, .rail_a = rl->server_dev,
					    .rail_b = rl->client_dev, .gbps = why ? -1 : rl->gbps, .line_gbps = rl->line,
					    .lat_us = rl->lat, .round = round, .error = e};
		rd_pairs_add(p, &s);
		free(e);
	}
}

static int cb_end_map(void *ctx)
{
	struct reader *r = ctx;
	if (r->skip) {
		r->skip--;
		return 1;
	}
	if (r->depth == 3) {
		r->depth = 2;
		struct rail *rl = &r->rails[r->nrails - 1];
		if (!rl->server_dev || !rl->client_dev || !rl->server_dev[0] || !rl->client_dev[0])
			return fail(r, "a rail without \"server_device\" and \"client_device\"%s", "");
		return 1;
	}
	/* the end of a document */
	r->depth = 0;
	if (!r->schema || strcmp(r->schema, RD_PAIRS_SCHEMA_PAIR) != 0)
		return fail(r, "not a %s document (\"schema\")", RD_PAIRS_SCHEMA_PAIR);
	if (!r->server || !r->server[0])
		return fail(r, "no \"server\"%s", "");
	if (!r->client || !r->client[0])
		return fail(r, "no \"client\"%s", "");
	if (strcmp(r->server, r->client) == 0)
		return fail(r, "\"server\" and \"client\" are the same host %s", r->server);
	if (!r->nrails && !r->error)
		return fail(r, "no \"rails\" and no \"error\"%s", "");
	if (!r->add_nodes) {
		if (rd_pairs_node(r->p, r->server) < 0)
			return fail(r, "host %s is not among the nodes", r->server);
		if (rd_pairs_node(r->p, r->client) < 0)
			return fail(r, "host %s is not among the nodes", r->client);
	}
	emit(r);
	r->docs++;
	doc_clear(r);
	return 1;
}

static int cb_start_array(void *ctx)
{
	struct reader *r = ctx;
	if (r->skip) {
		r->skip++;
		return 1;
	}
	if (r->depth == 1 && strcmp(r->key, "rails") == 0 && !r->nrails) {
		r->depth = 2;
		return 1;
	}
	if (r->depth == 0)
		return fail(r, "an array where a %s document was expected", RD_PAIRS_SCHEMA_PAIR);
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
	if (r->depth == 2)
		r->depth = 1;
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

int rd_pairs_read_results(struct rd_pairs *p, const char *data, size_t len, bool add_nodes, char *err,
			  size_t errlen)
{
	const struct rd_yajl *y = rd_yajl_get(err, errlen);
	if (!y)
		return -ENOSYS;
	struct reader *r = rd_xcalloc(1, sizeof *r);
	r->p = p;
	r->add_nodes = add_nodes;
	yajl_handle h = y->alloc(&callbacks, NULL, r);
	if (!h)
		abort();
	y->config(h, yajl_allow_multiple_values, 1);
	yajl_status st = y->parse(h, (const unsigned char *)data, len);
	if (st == yajl_status_ok)
		st = y->complete_parse(h);
	int ret = (int)r->docs;
	if (r->err[0]) {
		rd_set_err(err, errlen, "%s", r->err);
		ret = -EINVAL;
	} else if (st != yajl_status_ok) {
		char what[64];
		snprintf(what, sizeof what, "document %zu: not JSON", r->docs + 1);
		rd_yajl_reason(y, h, what, err, errlen);
		ret = -EINVAL;
	} else if (r->depth) {
		rd_set_err(err, errlen, "document %zu: cut short", r->docs + 1);
		ret = -EINVAL;
	}
	y->free(h);
	doc_clear(r);
	free(r);
	return ret;
}
