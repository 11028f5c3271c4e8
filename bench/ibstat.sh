#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): `rdma-doctor --root TREE ibstat` against rdma-core's ibstat on the same
# 9-device tree (examples/h100-ofed, bind-mounted on /sys in a private mount namespace for the
# real tool), timed by hyperfine without a shell (-N).  Prints the median wall time of each, of
# /bin/true (the cost of starting any process here), and the ratios.  Needs root; installs
# hyperfine and infiniband-diags from Debian when missing.
# Usage: bench/ibstat.sh [RUNS]      Target: rdma-doctor <= 0.5 x ibstat.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-1000}
tree=$top/examples/h100-ofed
bin=$top/build/rdma-doctor
[ -x "$bin" ] || make -C "$top" -s
for p in hyperfine:hyperfine ibstat:infiniband-diags; do
	command -v "${p%%:*}" > /dev/null || apt-get install -y -qq "${p#*:}" > /dev/null
done
out=$(mktemp)
unshare -m bash -c '
	mount --make-rprivate / 2>/dev/null; mount --bind "$1/sys" /sys
	hyperfine -N -w 50 -r "$2" --export-json "$4" ibstat "$3 --root $1 ibstat" /bin/true > /dev/null' \
	_ "$tree" "$runs" "$bin" "$out"
read -r real mine base < <(jq -r '[.results[].median * 1e6 | floor] | @tsv' "$out")
rm -f "$out"
echo "ibstat (rdma-core 44.0):        median ${real} us"
echo "rdma-doctor --root TREE ibstat: median ${mine} us"
echo "/bin/true (process start):      median ${base} us"
awk -v a="$mine" -v b="$real" -v c="$base" 'BEGIN {
	printf "ratio rdma-doctor / ibstat: %.2f (target <= 0.50)\n", a / b
	printf "ratio above process start:  %.2f ((rdma-doctor - true) / (ibstat - true))\n", (a - c) / (b - c) }'
