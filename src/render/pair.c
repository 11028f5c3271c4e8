/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "render/pair.h"

#include <stdio.h>

#include "pairs/results_in.h"

static void size_words(uint64_t b, char *buf, size_t len)
{
	if (b >= (1u << 20) && b % (1u << 20) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
}

static void num_or_null(struct rd_out *o, const char *key, double v)
{
	if (v < 0)
		rd_out_null(o, key);
	else
		rd_out_double(o, key, NULL, v);
}

void rd_render_pair(struct rd_out *o, const struct rd_pair_result *r, const struct rd_pair_meta *m)
{
	rd_out_obj_begin(o, NULL);
	rd_out_str(o, "schema", NULL, RD_PAIRS_SCHEMA_PAIR);
	if (m->round > 0)
		rd_out_int(o, "round", NULL, m->round);
	rd_out_str(o, "client", "pair %s", m->client);
	rd_out_str(o, "server", " -> %s", m->server);
	if (m->round > 0)
		rd_out_text(o, " (round %d)", m->round);
	rd_out_text(o, "%s\n", m->server_side ? ": served" : "");
	rd_out_arr_begin(o, "rails");
	for (size_t i = 0; i < r->nrails; i++) {
		const struct rd_pair_rail *l = &r->rails[i];
		const char *mine = m->server_side ? "server" : "client", *theirs = m->server_side ? "client" : "server";
		char key[32];
		rd_out_obj_begin(o, NULL);
		snprintf(key, sizeof key, "%s_device", mine);
		rd_out_str(o, key, "  %s", l->device);
		snprintf(key, sizeof key, "%s_port", mine);
		rd_out_uint(o, key, " port %llu", l->port);
		snprintf(key, sizeof key, "%s_device", theirs);
		if (l->peer_device) {
			rd_out_str(o, key, m->server_side ? " <- %s" : " -> %s", l->peer_device);
			snprintf(key, sizeof key, "%s_port", theirs);
			rd_out_uint(o, key, " port %llu", l->peer_port);
		} else {
			rd_out_null(o, key);
		}
		rd_out_str(o, "gid", l->gid ? " (GID %s" : NULL, l->gid);
		if (l->gid)
			rd_out_int(o, "gid_index", ", index %lld)", l->gid_index);
		rd_out_text(o, ":");
		if (l->gbps >= 0)
			rd_out_double(o, "gbps", " %.1f Gb/s", l->gbps);
		else
			rd_out_null(o, "gbps");
		if (l->line_gbps > 0) {
			rd_out_double(o, "line_gbps", l->gbps >= 0 ? " of %.0f" : NULL, l->line_gbps);
			if (l->gbps >= 0)
				rd_out_text(o, " (%.0f %%)", 100.0 * l->gbps / l->line_gbps);
		} else {
			rd_out_null(o, "line_gbps");
		}
		if (l->lat_us >= 0) {
			rd_out_double(o, "lat_us", ", %.1f us", l->lat_us);
			rd_out_double(o, "lat_p99_us", " (p99 %.1f us", l->lat_p99_us);
			rd_out_uint(o, "lat_iters", ", %llu round trips)", l->lat_iters);
		} else {
			rd_out_null(o, "lat_us");
			num_or_null(o, "lat_p99_us", -1);
		}
		rd_out_arr_begin(o, "sizes");
		for (size_t k = 0; k < l->nsizes; k++) {
			char words[32];
			size_words(l->sizes[k].bytes, words, sizeof words);
			rd_out_obj_begin(o, NULL);
			rd_out_text(o, "%s %s", k ? "," : ";", words);
			rd_out_uint(o, "bytes", NULL, l->sizes[k].bytes);
			rd_out_double(o, "gbps", " %.1f Gb/s", l->sizes[k].gbps);
			rd_out_uint(o, "writes", NULL, l->sizes[k].writes);
			rd_out_obj_end(o);
		}
		rd_out_arr_end(o);
		rd_out_str(o, "error", l->error ? " error: %s" : NULL, l->error);
		if (m->server_side && !l->error && l->gbps < 0)
			rd_out_text(o, " written to");
		rd_out_text(o, "\n");
		rd_out_obj_end(o);
	}
	rd_out_arr_end(o);
	rd_out_str(o, "error", r->error ? "  error: %s\n" : NULL, r->error);
	rd_out_obj_end(o);
	rd_out_finish(o);
}
