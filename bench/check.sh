#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): `rdma-doctor --root TREE check` and `rdma-doctor --root TREE ibstat`
# against one run of rdma-core's ibstat on the same 9-device tree (examples/h100-ofed, bind-mounted
# on /sys in a private mount namespace for the real tool), timed side by side by hyperfine without
# a shell (-N, alternating is hyperfine's order per command; medians).  Process start (/bin/true)
# is subtracted from both sides of each ratio.  `rdma-doctor ibstat` is timed twice: on --root TREE
# (the root path: O_PATH, fstat, reopen per file, so that no device node is opened) and on the
# live /sys where the tree is mounted (one open, one read, one close, as rdma-core).  Also the peak RSS of check (/usr/bin/time -v).
# Several BINs (e.g. a build of main and this one) are timed in the same run.
# Needs root; installs hyperfine and infiniband-diags from Debian when missing.
# Usage: bench/check.sh [RUNS [BIN...]]
# Targets (issue 13): check <= 1.0 x ibstat, rdma-doctor ibstat <= 0.8 x ibstat, RSS <= 4 MiB.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-300}
shift || true
bins=("$@"); [ ${#bins[@]} -gt 0 ] || bins=("$top/build/rdma-doctor")
tree=$top/examples/h100-ofed
for p in hyperfine:hyperfine ibstat:infiniband-diags; do
	command -v "${p%%:*}" > /dev/null || apt-get install -y -qq "${p#*:}" > /dev/null
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cmds=(ibstat /bin/true)
for b in "${bins[@]}"; do cmds+=("$b --root $tree check" "$b --root $tree ibstat" "$b ibstat"); done
unshare -m bash -c 'out=$1 runs=$2 tree=$3; shift 3
	mount --make-rprivate / 2>/dev/null; mount --bind "$tree/sys" /sys
	hyperfine -N -i -w 30 -r "$runs" --export-json "$out" "$@" > /dev/null 2>&1' _ "$out" "$runs" "$tree" "${cmds[@]}"
med() { jq -r --arg c "$1" '.results[] | select(.command == $c) | .median * 1e6 | floor' "$out"; }
cpu() { jq -r --arg c "$1" '.results[] | select(.command == $c) | (.user + .system) * 1e6 | floor' "$out"; }
real=$(med ibstat) base=$(med /bin/true)
echo "rdma-core ibstat: median ${real} us; /bin/true (process start): median ${base} us"
echo "(CPU time, user + system, mean: less disturbed by a busy machine than wall time)"
for b in "${bins[@]}"; do
	c=$(med "$b --root $tree check") i=$(med "$b --root $tree ibstat") l=$(med "$b ibstat")
	for k in "ibstat" "$b --root $tree check" "$b --root $tree ibstat" "$b ibstat"; do
		awk -v n="$k" -v v="$(cpu "$k")" -v r="$(cpu ibstat)" -v t="$(cpu /bin/true)" 'BEGIN {
			printf "  cpu %-60s %6d us, %.2f x ibstat, %.2f x above process start\n", n, v, v / r, (v - t) / (r - t) }'
	done
	rss=$(/usr/bin/time -v "$b" --root "$tree" check 2>&1 > /dev/null | awk '/Maximum resident/ { print $NF }')
	echo "== $b"
	awk -v c="$c" -v i="$i" -v l="$l" -v r="$real" -v t="$base" -v rss="$rss" 'BEGIN {
		printf "  check:  median %d us, %.2f x ibstat, %.2f x above process start (target <= 1.00)\n", c, c / r, (c - t) / (r - t)
		printf "  ibstat: median %d us, %.2f x ibstat, %.2f x above process start (target <= 0.80)\n", i, i / r, (i - t) / (r - t)
		printf "  ibstat of the live /sys (the tree mounted there, as rdma-core reads it): median %d us, %.2f x, %.2f x above process start\n", l, l / r, (l - t) / (r - t)
		printf "  check peak RSS: %d KiB (target <= 4096)\n", rss }'
done
