#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): the cost of `check` per device at N devices against at 64, on roots
# made from examples/h100-ofed by adding copies of mlx5_0 (its ports, GIDs and attributes) under
# sys/devices/virtual/infiniband, each with its snapshot read-errors entries (what an SR-IOV host
# captured with `snapshot` carries).  Timed by hyperfine without a shell; prints the medians, the
# cost per device above the 9-device root, the ratio, and whether any finding timed out.
# Usage: bench/scale.sh [N [RUNS [BIN...]]]   (several BINs: each timed on the same roots)     Target: per-device cost at N <= 1.5 x at 64, no "timed out".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1024} runs=${2:-20}
shift 2 2> /dev/null || shift $#
bins=("$@"); [ ${#bins[@]} -gt 0 ] || bins=("$top/build/rdma-doctor")
command -v hyperfine > /dev/null || apt-get install -y -qq hyperfine > /dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make_root() { # COUNT -> $work/rCOUNT
	local r=$work/r$1 src=sys/devices/pci0000:00/0000:00:01.0/0000:0c:00.0/infiniband/mlx5_0
	cp -a "$top/examples/h100-ofed" "$r"
	for i in $(seq 100 $((100 + $1 - 10))); do
		local d=sys/devices/virtual/infiniband/mlx5_$i
		mkdir -p "$r/$d" && cp -a "$r/$src/." "$r/$d/" && rm -f "$r/$d/device"
		ln -s "../../devices/virtual/infiniband/mlx5_$i" "$r/sys/class/infiniband/mlx5_$i"
		grep -F "/$src/" "$r/rdma-doctor/read-errors" | sed "s#/$src/#/$d/#" >> "$r/rdma-doctor/read-errors.new" || true
	done
	cat "$r/rdma-doctor/read-errors.new" >> "$r/rdma-doctor/read-errors" && rm "$r/rdma-doctor/read-errors.new"
}
make_root 64
make_root "$n"
for bin in "${bins[@]}"; do
echo "== $bin"
for r in 64 "$n"; do
	t=$({ "$bin" --root "$work/r$r" check --format json || true; } | jq '[.findings[] | select(any(.evidence[]; .value == "<timed out>"))] | length')
	echo "$r devices: $t findings timed out"
done
out=$work/hf.json
hyperfine -N -i -w 2 -r "$runs" --export-json "$out" "$bin --root $top/examples/h100-ofed check" \
	"$bin --root $work/r64 check" "$bin --root $work/r$n check" > /dev/null 2>&1
read -r base m64 mn < <(jq -r '[.results[].median * 1e6 | floor] | @tsv' "$out")
echo "check, 9 devices:    median ${base} us"
echo "check, 64 devices:   median ${m64} us"
echo "check, $n devices: median ${mn} us"
awk -v b="$base" -v a="$m64" -v c="$mn" -v n="$n" 'BEGIN {
	pa = (a - b) / (64 - 9); pc = (c - b) / (n - 9)
	printf "per added device: %.1f us at 64, %.1f us at %d; ratio %.2f (target <= 1.50)\n", pa, pc, n, pc / pa }'
done
