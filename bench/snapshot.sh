#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): `rdma-doctor --root TREE snapshot -o X.tar.gz` against `tar czf` of the
# same tree (examples/h100-ofed by default), RUNS alternating runs of each (the order swapped every
# run), each output removed between runs outside the timing.  Prints the median wall time of each
# and the ratio.  Target (issue 13): snapshot <= 3 x tar czf.
# Usage: bench/snapshot.sh [RUNS] [TREE] [BINARY]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-200}
tree=$(cd "${2:-$top/examples/h100-ofed}" && pwd)
bin=${3:-$top/build/rdma-doctor}
[ -x "$bin" ] || make -C "$top" -s all
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
parent=$(dirname "$tree") name=$(basename "$tree")
now() { echo "${EPOCHREALTIME/./}"; } # microseconds
snap() { "$bin" --root "$tree" snapshot -o "$tmp/s.tar.gz" 2> /dev/null || { echo "snapshot failed" >&2; exit 1; }; }
targz() { tar czf "$tmp/t.tar.gz" -C "$parent" "$name"; }
: > "$tmp/snap" && : > "$tmp/tar"
for i in $(seq "$runs"); do
	for which in $([ $((i % 2)) = 0 ] && echo "snap tar" || echo "tar snap"); do
		if [ "$which" = snap ]; then rm -f "$tmp/s.tar.gz"; else rm -f "$tmp/t.tar.gz"; fi
		t0=$(now)
		if [ "$which" = snap ]; then snap; else targz; fi
		t1=$(now)
		echo $((t1 - t0)) >> "$tmp/$which"
	done
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
s=$(median "$tmp/snap") t=$(median "$tmp/tar")
echo "tree: $tree ($(find "$tree" | wc -l) entries), $runs alternating runs each"
echo "rdma-doctor snapshot -o X.tar.gz: median ${s} us ($(stat -c %s "$tmp/s.tar.gz") bytes)"
echo "tar czf X.tar.gz:                 median ${t} us ($(stat -c %s "$tmp/t.tar.gz") bytes)"
awk -v a="$s" -v b="$t" 'BEGIN { printf "ratio snapshot / tar czf: %.2f (target <= 3.00)\n", a / b }'
