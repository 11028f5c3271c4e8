/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "render/pairs.h"

#include <stdlib.h>
#include <string.h>

#include "util/hostlist.h"

static void pair_out(struct rd_out *o, const struct rd_pairs *p, const struct rd_pairs_pair *pr)
{
	rd_out_arr_begin(o, NULL);
	rd_out_item_str(o, "  %s", p->nodes.v[pr->a]);
	rd_out_item_str(o, " - %s\n", p->nodes.v[pr->b]);
	rd_out_arr_end(o);
}

static void round_out(struct rd_out *o, const char *key, const struct rd_pairs *p, const struct rd_pairs_round *r,
		      const char *title)
{
	bool *in = rd_xcalloc(p->nodes.n, sizeof *in);
	for (size_t i = 0; i < r->n; i++)
		in[r->v[i].a] = in[r->v[i].b] = true;
	struct rd_strv idle = {0};
	for (size_t i = 0; i < p->nodes.n; i++)
		if (!in[i])
			rd_strv_push(&idle, p->nodes.v[i]);
	free(in);
	char *idles = rd_hostlist_compress((const char *const *)idle.v, idle.n);
	rd_out_text(o, "%s: %zu pair%s", title, r->n, r->n == 1 ? "" : "s");
	if (idle.n)
		rd_out_str(o, NULL, ", idle %s", idles);
	rd_out_text(o, "\n");
	free(idles);
	rd_strv_free(&idle);
	rd_out_arr_begin(o, key);
	for (size_t i = 0; i < r->n; i++)
		pair_out(o, p, &r->v[i]);
	rd_out_arr_end(o);
}

void rd_render_pairs_plan(struct rd_out *o, const struct rd_pairs *p, const struct rd_pairs_round *r, size_t n,
			  int first)
{
	rd_out_obj_begin(o, NULL);
	rd_out_arr_begin(o, "rounds");
	for (size_t k = 0; k < n; k++) {
		char title[32];
		snprintf(title, sizeof title, "round %zu", (size_t)first + k);
		round_out(o, NULL, p, &r[k], title);
	}
	rd_out_arr_end(o);
	rd_out_obj_end(o);
}

const char *rd_pairs_finding_id(const struct rd_pairs_finding *f)
{
	return f->kind == RD_PAIRS_NODE ? "pairs.bandwidth" : f->kind == RD_PAIRS_LINK ? "pairs.link" : "pairs.line_rate";
}

/* A rate as a finding says it: whole Gb/s from 10 up (the drain reasons of real rails: "121 Gb/s,
 * peers median 388"), one decimal from 1, two significant digits below (a link trained down to
 * 1x SDR, a test rig's emulated one: "0.0094", never "0"). */
static const char *rate(char *buf, size_t len, double v)
{
	snprintf(buf, len, v >= 10 || v <= 0 ? "%.0f" : v >= 1 ? "%.1f" : "%.2g", v);
	return buf;
}

char *rd_pairs_finding_text(const struct rd_pairs *p, const struct rd_pairs_finding *f)
{
	struct rd_buf b = {0};
	char r1[32], r2[32], r3[32];
	rd_buf_printf(&b, "%s ", rd_pairs_finding_id(f));
	if (f->kind == RD_PAIRS_NODE) {
		rd_buf_printf(&b, "%s rail %s: ", p->nodes.v[f->node], f->rail);
		if (f->gbps > 0)
			rd_buf_printf(&b, "%s Gb/s", rate(r1, sizeof r1, f->gbps));
		else
			rd_buf_printf(&b, "no result (%s)", f->error ? f->error : "every sample failed");
		rd_buf_printf(&b, ", peers median %s", rate(r2, sizeof r2, f->peers_gbps));
	} else if (f->kind == RD_PAIRS_LINK) {
		rd_buf_printf(&b, "%s - %s rail %s: ", p->nodes.v[f->node], p->nodes.v[f->peer], f->rail);
		if (f->gbps > 0)
			rd_buf_printf(&b, "%s Gb/s", rate(r1, sizeof r1, f->gbps));
		else
			rd_buf_printf(&b, "no result (%s)", f->error ? f->error : "every sample failed");
		rd_buf_printf(&b, " in %zu of %zu samples, peers median %s; both ends are fast with other partners",
			      f->slow, f->slow + f->fast, rate(r2, sizeof r2, f->peers_gbps));
	} else {
		rd_buf_printf(&b, "%s: the median %s Gb/s is %.0f%% of the %s Gb/s line rate on every pair", "run",
			      rate(r1, sizeof r1, f->gbps), 100 * f->gbps / f->line_gbps, rate(r3, sizeof r3, f->line_gbps));
	}
	return rd_buf_steal(&b);
}

static const char *state_name(enum rd_pairs_state s)
{
	static const char *const names[] = {"untested", "suspect", "cleared", "bad"};
	return names[s];
}

void rd_render_pairs(struct rd_out *o, const struct rd_pairs *p, const struct rd_pairs_round *next)
{
	rd_out_obj_begin(o, NULL);
	rd_out_str(o, "schema", NULL, RD_PAIRS_SCHEMA);
	rd_out_uint(o, "nodes", "pairs: %llu nodes", p->nodes.n);
	rd_out_uint(o, "rounds", ", %llu round", (unsigned long long)p->rounds);
	rd_out_text(o, "%s", p->rounds == 1 ? "" : "s");
	rd_out_uint(o, "samples", ", %llu samples", p->nsamples);
	rd_out_double(o, "median_gbps", "; median %.1f Gb/s", p->median);
	if (p->line_gbps > 0)
		rd_out_double(o, "line_gbps", " (line rate %.0f)", p->line_gbps);
	else
		rd_out_null(o, "line_gbps");
	rd_out_double(o, "mad_gbps", NULL, p->mad);
	rd_out_double(o, "threshold_gbps", ", slow below %.1f\n", p->threshold);
	rd_out_arr_begin(o, "findings");
	for (size_t i = 0; i < p->nfindings; i++) {
		const struct rd_pairs_finding *f = &p->findings[i];
		char *text = rd_pairs_finding_text(p, f);
		rd_out_obj_begin(o, NULL);
		rd_out_str(o, "id", NULL, rd_pairs_finding_id(f));
		rd_out_str(o, "status", "%s ", f->kind == RD_PAIRS_NODE ? "FAIL" : "WARN");
		rd_out_str(o, "message", "%s\n", text);
		if (f->kind != RD_PAIRS_FLEET)
			rd_out_str(o, "host", NULL, p->nodes.v[f->node]);
		if (f->kind == RD_PAIRS_LINK)
			rd_out_str(o, "peer", NULL, p->nodes.v[f->peer]);
		if (f->kind != RD_PAIRS_FLEET)
			rd_out_str(o, "rail", NULL, f->rail);
		rd_out_double(o, "gbps", NULL, f->gbps);
		if (f->line_gbps > 0)
			rd_out_double(o, "line_gbps", NULL, f->line_gbps);
		else
			rd_out_null(o, "line_gbps");
		rd_out_double(o, "peers_median_gbps", NULL, f->peers_gbps);
		rd_out_uint(o, "slow", NULL, f->slow);
		rd_out_uint(o, "fast", NULL, f->fast);
		if (f->kind == RD_PAIRS_NODE) {
			rd_out_arr_begin(o, "slow_against");
			rd_out_text(o, "       slow against");
			for (size_t k = 0; k < f->partners.n; k++)
				rd_out_item_str(o, k ? ", %s" : " %s", f->partners.v[k]);
			rd_out_text(o, "; fast against none\n");
			rd_out_arr_end(o);
		}
		rd_out_str(o, "error", NULL, f->error);
		rd_out_obj_end(o);
		free(text);
	}
	rd_out_arr_end(o);
	/* the nodes by state, as hostlists */
	static const enum rd_pairs_state shown[] = {RD_PAIRS_BAD, RD_PAIRS_SUSPECT, RD_PAIRS_UNTESTED, RD_PAIRS_CLEARED};
	rd_out_obj_begin(o, "hosts");
	for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++) {
		struct rd_strv v = {0};
		for (size_t i = 0; i < p->nodes.n; i++)
			if (p->state && p->state[i] == shown[k])
				rd_strv_push(&v, p->nodes.v[i]);
		char *list = rd_hostlist_compress((const char *const *)v.v, v.n);
		char fmt[48];
		snprintf(fmt, sizeof fmt, "%s: %%s\n", state_name(shown[k]));
		if (v.n || o->json)
			rd_out_str(o, state_name(shown[k]), fmt, list);
		free(list);
		rd_strv_free(&v);
	}
	rd_out_obj_end(o);
	if (next && next->n)
		{
		char title[48];
		snprintf(title, sizeof title, "next round (%d)", p->rounds + 1);
		round_out(o, "next_round", p, next, title);
	}
	else {
		rd_out_arr_begin(o, "next_round");
		rd_out_arr_end(o);
		rd_out_text(o, "next round: none (every node is judged)\n");
	}
	rd_out_obj_end(o);
}
