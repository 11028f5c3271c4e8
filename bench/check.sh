#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): `rdma-doctor --root TREE check` and `rdma-doctor --root TREE ibstat`
# against one run of rdma-core's ibstat on the same 9-device tree (examples/h100-ofed, bind-mounted
# on /sys in a private mount namespace for the real tool), timed side by side by hyperfine without
# a shell (-N, alternating is hyperfine's order per command; medians).  Process start (/bin/true)
# is subtracted from both sides of each ratio.  `rdma-doctor ibstat` is timed twice: on --root TREE
# (the root path: O_PATH, fstat, reopen per file, so that no device node is opened) and on the
# live /sys where the tree is mounted (one open, one read, one close, as rdma-core).  Also the peak RSS of check (/usr/bin/time -v).
# The floor, timed in the same run: bench/replay.c (static), which opens, reads and closes exactly
# the files, and lists exactly the directories, that `check` read (strace of the last BIN, its
# O_PATH route forced by the fault shim so that every path is shown below the tree), and nothing else.
# Several BINs (e.g. a build of main and this one) are timed in the same run.
# Needs root; installs hyperfine, infiniband-diags and strace from Debian when missing.
# Usage: bench/check.sh [RUNS [BIN...]]
# Targets: check <= 1.0 x ibstat and <= 1.2 x the replay, rdma-doctor ibstat <= 0.8 x ibstat, RSS <= 4 MiB.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-300}
shift || true
bins=("$@"); [ ${#bins[@]} -gt 0 ] || bins=("$top/build/rdma-doctor")
tree=$top/examples/h100-ofed
for p in hyperfine:hyperfine ibstat:infiniband-diags strace:strace; do
	command -v "${p%%:*}" > /dev/null || apt-get install -y -qq "${p#*:}" > /dev/null
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out.json
# the replay's list: what check read (read, pread) and listed (getdents), below the tree
cc -O2 -static -o "$tmp/replay" "$top/bench/replay.c"
shim=$top/build/tests/libfaults.so
[ -f "$shim" ] || make -C "$top" -s "$shim"
ptree=$(cd "$tree" && pwd -P)
env LD_PRELOAD="$shim" RD_FAULT_NO_MOUNT_API=1 strace -f -qq -y -e trace=read,pread64,getdents64 -o "$tmp/trace" \
	"${bins[-1]}" --root "$tree" check > /dev/null 2>&1 || true
sed -nE 's/^([0-9]+ +)?(read|pread64|getdents64)\([0-9]+<([^>]*)>.*/\2 \3/p' "$tmp/trace" |
	awk -v t="$ptree/" 'index($2, t) == 1 { print ($1 == "getdents64" ? "d " : "f ") substr($2, length(t) + 1) }' |
	awk '!seen[$0]++' > "$tmp/list"
echo "replay: $(grep -c '^f ' "$tmp/list") files read, $(grep -c '^d ' "$tmp/list") directories listed"
replay="$tmp/replay $tree $tmp/list"
cmds=(ibstat /bin/true "$replay")
for b in "${bins[@]}"; do cmds+=("$b --root $tree check" "$b --root $tree ibstat" "$b ibstat"); done
unshare -m bash -c 'out=$1 runs=$2 tree=$3; shift 3
	mount --make-rprivate / 2>/dev/null; mount --bind "$tree/sys" /sys
	hyperfine -N -i -w 30 -r "$runs" --export-json "$out" "$@" > /dev/null 2>&1' _ "$out" "$runs" "$tree" "${cmds[@]}"
med() { jq -r --arg c "$1" '.results[] | select(.command == $c) | .median * 1e6 | floor' "$out"; }
cpu() { jq -r --arg c "$1" '.results[] | select(.command == $c) | (.user + .system) * 1e6 | floor' "$out"; }
real=$(med ibstat) base=$(med /bin/true) floor=$(med "$replay")
echo "rdma-core ibstat: median ${real} us; /bin/true (process start): median ${base} us"
awk -v f="$floor" -v r="$real" -v t="$base" 'BEGIN {
	printf "replay (the floor): median %d us, %.2f x ibstat, %.2f x above process start\n", f, f / r, (f - t) / (r - t) }'
echo "(CPU time, user + system, mean: less disturbed by a busy machine than wall time)"
for b in "${bins[@]}"; do
	c=$(med "$b --root $tree check") i=$(med "$b --root $tree ibstat") l=$(med "$b ibstat")
	for k in "ibstat" "$replay" "$b --root $tree check" "$b --root $tree ibstat" "$b ibstat"; do
		awk -v n="$k" -v v="$(cpu "$k")" -v r="$(cpu ibstat)" -v t="$(cpu /bin/true)" 'BEGIN {
			printf "  cpu %-60s %6d us, %.2f x ibstat, %.2f x above process start\n", substr(n, 1, 60), v, v / r, (v - t) / (r - t) }'
	done
	rss=$(/usr/bin/time -v "$b" --root "$tree" check 2>&1 > /dev/null | awk '/Maximum resident/ { print $NF }')
	echo "== $b"
	awk -v c="$c" -v i="$i" -v l="$l" -v r="$real" -v t="$base" -v f="$floor" -v rss="$rss" 'BEGIN {
		printf "  check:  median %d us, %.2f x ibstat, %.2f x above process start (target <= 1.00)\n", c, c / r, (c - t) / (r - t)
		printf "          %.2f x the replay (target <= 1.20), %.2f x above process start\n", c / f, (c - t) / (f - t)
		printf "  ibstat: median %d us, %.2f x ibstat, %.2f x above process start (target <= 0.80)\n", i, i / r, (i - t) / (r - t)
		printf "  ibstat of the live /sys (the tree mounted there, as rdma-core reads it): median %d us, %.2f x, %.2f x above process start\n", l, l / r, (l - t) / (r - t)
		printf "  check peak RSS: %d KiB (target <= 4096)\n", rss }'
done
