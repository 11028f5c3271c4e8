#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): how long `rdma-doctor watch` takes, on a real kernel, from a link change
# to the Prometheus textfile showing it.  Boots the real-kernel tier's guest (tests/vm: Debian's
# kernel under qemu, TCG, Soft-RoCE rxe0 on eth0) in its bench phase: watch --output on the 9p
# share, then 120 flips of eth0 (down, up ...), 0.3 s apart so that each is an event after a quiet
# spell, each timed from before `ip link set` to the textfile showing ports.state FAIL for rxe0
# port 1 (down) or no longer (up).  The clock is the guest's /proc/uptime (10 ms steps), the
# textfile polled every 20 ms, so a figure is up to ~30 ms above the real one.  Prints the median,
# p90, p99 and max in ms.  The bar: p99 at most 1 s in the guest.
# Usage: bench/watch-latency.sh [BUILD_DIR]    Needs what tests/vm/run.sh needs; about 3 minutes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
[ -x "$build/rdma-doctor" ] || make -C "$top" -s all
kver=$(ls /boot/vmlinuz-* 2> /dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
[ -n "$kver" ] || { echo "no Debian kernel in /boot (apt-get install linux-image-amd64)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rd-bench-watch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$top/tests/vm/mkinitramfs.sh" "$kver" "$build/rdma-doctor" "$tmp/initramfs.cpio.gz" > "$tmp/mk.log" 2>&1 ||
	{ cat "$tmp/mk.log" >&2; exit 1; }
t0=$(date +%s)
"$top/tests/vm/boot.sh" "$kver" "$tmp/initramfs.cpio.gz" "$tmp/out" bench || true
grep -q '^@@guest-done' "$tmp/out/console-bench.log" ||
	{ echo "the guest did not finish; console:" >&2; tail -20 "$tmp/out/console-bench.log" >&2; exit 1; }
f=$tmp/out/s/bench.out
n=$(grep -c . "$f" || true) missed=$(grep -c timeout "$f" || true)
echo "watch latency on $kver under qemu (TCG), $n link flips ($missed not shown within 10 s), guest ran $(($(date +%s) - t0)) s:"
grep -E '^[0-9]+$' "$f" | sort -n | awk '{ v[NR] = $1 } END {
	if (!NR) { print "  no measurement"; exit 1 }
	i50 = int(0.50 * NR + 0.5); i90 = int(0.90 * NR + 0.5); i99 = int(0.99 * NR + 0.5)
	if (i50 < 1) i50 = 1; if (i90 < 1) i90 = 1; if (i99 < 1) i99 = 1
	printf "  median %d ms, p90 %d ms, p99 %d ms, max %d ms\n", v[i50], v[i90], v[i99], v[NR] }'
echo "  exit status of watch at SIGTERM: $(cat "$tmp/out/s/bench-exit.rc" 2> /dev/null || echo '?')"
