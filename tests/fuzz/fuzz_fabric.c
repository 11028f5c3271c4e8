/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the fabric's inputs (fabric/fabric.h): the input as iblinkinfo, ibnetdiscover,
 * sminfo and ibqueryerrors output, merged, judged (port counters, duplicates) and made a
 * reference; the input as a reference file, compared with that one; the input as ibtracert's
 * output, and as dump_fts's forwarding tables that the routes between the fabric's first CA
 * ports are walked through (fabric/route.h); the judged fabric rendered for Prometheus, each
 * series once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/route.h"
#include "render/fabric.h"

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The Prometheus rendering of the judged fabric: every series (name and labels) once, as
 * node_exporter refuses a file that repeats one. */
static void prometheus_unique(const struct rd_fabric *f, const struct rd_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return;
	struct rd_fabric_meta meta = {.source = "fuzz", .time = "1970-01-01T00:00:00Z"};
	rd_render_fabric_prometheus(m, f, r, &meta, 0);
	fclose(m);
	size_t n = 0, cap = 64;
	char **lines = malloc(cap * sizeof *lines);
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '#')
			continue;
		char *sp = strrchr(l, ' ');
		if (!sp)
			abort(); /* a series without a value */
		*sp = '\0';
		if (n == cap)
			lines = realloc(lines, (cap *= 2) * sizeof *lines);
		lines[n++] = l;
	}
	qsort(lines, n, sizeof *lines, by_str);
	for (size_t i = 1; i < n; i++)
		if (strcmp(lines[i - 1], lines[i]) == 0)
			abort();
	free(lines);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	struct rd_fabric f = {0}, net = {0};
	rd_fab_parse_iblinkinfo(&f, s, size);
	rd_fab_parse_ibnetdiscover(&net, s, size);
	rd_fab_parse_sminfo(&f, s, size);
	rd_fabric_merge(&f, &net);
	rd_fab_parse_ibqueryerrors(&f, s, size);
	if (f.ncounters > RD_FAB_MAX_COUNTERS)
		abort();
	struct rd_strv expect = {0};
	rd_strv_push(&expect, "node01");
	struct rd_text smt = {.data = s, .len = size};
	struct rd_fab_judge_opts o = {.expect = &expect, .sminfo = &smt, .queryerrors = &smt};
	struct rd_report r = {0};
	rd_fab_judge(&f, &o, &r);
	prometheus_unique(&f, &r);
	struct rd_fab_ref cur, ref;
	rd_fab_ref_from(&f, &cur);
	char err[256];
	if (rd_fab_ref_parse(s, size, &ref, err, sizeof err) == 0) {
		rd_fab_ref_compare(&ref, &cur, &r);
		rd_fab_ref_free(&ref);
	}
	struct rd_fab_route tr = {0};
	if (rd_fab_parse_ibtracert(s, size, &tr, err, sizeof err) == 0 && (!tr.nhops || tr.nhops > RD_FAB_MAX_HOPS + 1))
		abort();
	rd_fab_route_free(&tr);
	struct rd_fab_lfts t = {0};
	rd_fab_parse_lfts(&t, s, size);
	struct rd_fab_router rt;
	rd_fab_router_init(&rt, &f, &t);
	const struct rd_fab_node *cas[4];
	size_t nca = 0;
	for (size_t i = 0; i < f.nnodes && nca < 4; i++)
		if (f.nodes[i].kind == RD_FAB_CA)
			cas[nca++] = &f.nodes[i];
	for (size_t a = 0; a < nca; a++)
		for (size_t b = 0; b < nca; b++) {
			struct rd_fab_route x = {0};
			if (a != b && rd_fab_route_lft(&rt, cas[a], cas[b], &x) == 0 && x.nhops > RD_FAB_MAX_HOPS + 2)
				abort();
			rd_fab_route_free(&x);
		}
	rd_fab_router_free(&rt);
	rd_fab_lfts_free(&t);
	rd_report_free(&r);
	rd_fab_ref_free(&cur);
	rd_strv_free(&expect);
	rd_fabric_free(&f);
	free(s);
	return 0;
}
