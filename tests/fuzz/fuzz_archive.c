/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: snapshot archives (.tar.gz and .tar) read into an in-memory tree through libarchive
 * (loaded with dlopen as the program does; only our code is instrumented), then every node walked:
 * listed, looked up with and without following links, stat'ed, read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source/memtree.h"
#include "util/util.h"

static volatile unsigned char sink;
static size_t budget; /* lookups left for this input: a tree of many links must not time out */

static void visit(const struct rd_memtree *t, const char *path, int depth)
{
	const struct rd_memnode *n = NULL, *f = NULL;
	char *canon = NULL, *canon2 = NULL;
	if (budget == 0)
		return;
	budget--;
	int rc = rd_memtree_lookup(t, path, false, &n, &canon);
	int rf = rd_memtree_lookup(t, path, true, &f, &canon2);
	if (rc == 0 && !n)
		abort();
	if (rf == 0 && (!f || !canon2))
		abort();
	if (rf == 0) { /* the canonical path names the same node */
		const struct rd_memnode *g = NULL;
		if (rd_memtree_lookup(t, canon2, false, &g, NULL) != 0 || g != f)
			abort();
	}
	free(canon);
	free(canon2);
	if (rc != 0)
		return;
	struct stat st;
	rd_memnode_stat(n, &st);
	const char *data;
	size_t len;
	if (rd_memnode_data(n, &data, &len) == 0) {
		if (len) /* touch both ends: ASan sees any short buffer */
			sink ^= (unsigned char)data[0] ^ (unsigned char)data[len - 1];
		if ((off_t)len != st.st_size)
			abort();
	}
	if (rd_memnode_link(n, &data) == 0) {
		if (!S_ISLNK(st.st_mode) || (off_t)strlen(data) != st.st_size)
			abort();
		return;
	}
	struct rd_strv names = {0};
	if (rd_memnode_list(n, &names) != 0 || depth > 80) {
		rd_strv_free(&names);
		return;
	}
	for (size_t i = 1; i < names.n; i++)
		if (strcmp(names.v[i - 1], names.v[i]) >= 0)
			abort();
	for (size_t i = 0; i < names.n; i++) {
		char *p = *path ? rd_xasprintf("%s/%s", path, names.v[i]) : rd_xstrdup(names.v[i]);
		visit(t, p, depth + 1);
		free(p);
	}
	rd_strv_free(&names);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the default limits, smaller where a fuzzer's memory and time need it */
	struct rd_memtree_limits lim = rd_memtree_default_limits;
	lim.max_entries = 20000;
	lim.max_bytes = 64u << 20;
	lim.max_file = 16u << 20;
	struct rd_memtree *t = NULL;
	char err[256];
	int rc = rd_memtree_read_mem(data, size, &lim, &t, err, sizeof err);
	if (rc < 0) {
		if (t || !err[0] || strchr(err, '\n'))
			abort(); /* the contract: no tree, a one-line reason */
		return 0;
	}
	if (!t || err[0])
		abort();
	budget = 50000;
	visit(t, "", 0);
	static const char *const probes[] = {"..", "/", "sys/class/infiniband", "../../etc/passwd", "a/../../b", "./"};
	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
		visit(t, probes[i], 80);
	rd_memtree_free(t);
	return 0;
}
