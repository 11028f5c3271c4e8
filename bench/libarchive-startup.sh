#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): what linking libarchive would cost every run.  Times
# `rdma-doctor --root examples/h100-ofed check` (a directory root: libarchive never needed) as
# built (libarchive loaded with dlopen only for archive roots and snapshots) against the same
# objects linked with -larchive (its dependency chain: nettle, acl, lzma, zstd, lz4, bz2, z, xml2,
# icu, libstdc++ ...), RUNS times each with perf stat, and prints the mean CPU time, page faults
# (the load-independent number on a busy machine) and wall time of each.
# Usage: bench/libarchive-startup.sh [RUNS]      Needs perf (Debian linux-perf) and libarchive-dev.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-200}
bin=$top/build/rdma-doctor
make -C "$top" -s all
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/rdma-doctor-linked" "$top/build/obj/src/main.o" "$top/build/librdmadoctor.a" -linih \
	-Wl,--no-as-needed -larchive
echo "libraries mapped: dlopen build $(ldd "$bin" | wc -l), linked build $(ldd "$tmp/rdma-doctor-linked" | wc -l)"
cd "$top"
for b in "$bin" "$tmp/rdma-doctor-linked"; do
	perf stat -r "$runs" -x, -e task-clock,page-faults "$b" --root examples/h100-ofed check > /dev/null 2> "$tmp/stat" || true
	ms=$(awk -F, '/task-clock/ {printf "%.3f", $1; exit}' "$tmp/stat")
	pf=$(awk -F, '/page-faults/ {printf "%d", $1; exit}' "$tmp/stat")
	wall=$(perf stat -r "$runs" "$b" --root examples/h100-ofed check 2>&1 > /dev/null |
		awk '/seconds time elapsed/ {printf "%.3f ms +- %.3f ms", $1 * 1000, $2 == "+-" ? $3 * 1000 : 0}')
	printf '%-22s task-clock %s ms/run, %s page faults/run, elapsed %s\n' "$(basename "$b"):" "$ms" "$pf" "$wall"
done
