#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): reading snapshot archives into memory (src/source/memtree.c).  Writes
# tar.gz archives of N regular files (sys/class/infiniband/mlx5_<i/16>/port<i%16>_state) in
# memory with libarchive, then times rd_memtree_read_mem on each (the default limits: 200,000
# entries, so the 1,000,000-file archive is refused part way) and one lookup per file.
# Usage: bench/memtree.sh [N...]      (default: 2000 32000 150000 1000000)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
make -C "$top" -s all
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/bench.c" << 'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "source/larchive.h"
#include "source/memtree.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char err[256], p[128];
	const struct rd_larchive *la = rd_larchive(err, sizeof err);
	if (!la)
		return fprintf(stderr, "%s\n", err), 1;
	for (int a = 1; a < argc; a++) {
		int n = atoi(argv[a]), fd = memfd_create("bench", 0);
		struct archive *w = la->write_new();
		la->write_add_filter_gzip(w);
		la->write_set_format_pax_restricted(w);
		la->write_open_fd(w, fd);
		struct archive_entry *e = la->entry_new();
		for (int i = 0; i < n; i++) {
			snprintf(p, sizeof p, "sys/class/infiniband/mlx5_%d/port%d_state", i / 16, i % 16);
			la->entry_clear(e);
			la->entry_set_pathname(e, p);
			la->entry_set_filetype(e, AE_IFREG);
			la->entry_set_perm(e, 0644);
			la->entry_set_size(e, 7);
			la->write_header(w, e);
			la->write_data(w, "ACTIVE\n", 7);
		}
		la->entry_free(e);
		la->write_close(w);
		la->write_free(w);
		struct stat st;
		fstat(fd, &st);
		char *b = malloc((size_t)st.st_size);
		if (!b || pread(fd, b, (size_t)st.st_size, 0) != st.st_size)
			return 1;
		close(fd);
		struct rd_memtree *t;
		double t0 = now();
		int rc = rd_memtree_read_mem(b, (size_t)st.st_size, NULL, &t, err, sizeof err);
		double t1 = now();
		printf("%8d files, %9lld bytes: read %7.1f ms, rc %d%s%s\n", n, (long long)st.st_size, (t1 - t0) * 1e3,
		       rc, rc ? ": " : "", rc ? err : "");
		if (rc == 0) {
			const struct rd_memnode *node;
			t0 = now();
			for (int i = 0; i < n; i++) {
				snprintf(p, sizeof p, "sys/class/infiniband/mlx5_%d/port%d_state", i / 16, i % 16);
				if (rd_memtree_lookup(t, p, true, &node, NULL) != 0)
					return 1;
			}
			printf("%8s lookups: %.2f us each\n", "", (now() - t0) / n * 1e6);
			rd_memtree_free(t);
		}
		free(b);
	}
	return 0;
}
C
cc -O2 -D_GNU_SOURCE -I"$top/src" -o "$tmp/bench" "$tmp/bench.c" "$top/build/librdmadoctor.a" -linih
if [ $# -eq 0 ]; then set -- 2000 32000 150000 1000000; fi
"$tmp/bench" "$@"
