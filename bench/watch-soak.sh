#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): `rdma-doctor watch` over a long run on a real kernel.  Boots the
# real-kernel tier's guest (tests/vm: Debian's kernel under qemu, TCG, Soft-RoCE rxe0 on eth0) in
# its soak phase (tests/vm/guest.sh soak_steps): watch --output --interval 60, then FLAPS flaps of
# eth0 in bursts of 100, a flood of 20,000 ACCESS_REG failure lines in /dev/kmsg (printk.devkmsg=on:
# no rate limit on the writer's side), then a flap every 30 s until SECONDS have passed.  Prints
# watch's RSS, CPU and open descriptors over the run, whether every netdev transition reached it,
# the descriptors open at the end and not at the start, and the kernel-line summary.  The bars:
# RSS flat (no growth from the end of the flaps to the end of the run), every transition seen,
# descriptors bounded (the source's directory cache holds at most 64), exit 0 at SIGTERM.
# Usage: bench/watch-soak.sh [SECONDS [FLAPS [BUILD_DIR]]]   (default 3600 1000: about 65 minutes)
# RD_SOAK_KEEP=DIR keeps the guest's results (soak.out, watch's lines, the textfile) in DIR.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-3600} flaps=${2:-1000} build=${3:-$top/build}
[ -x "$build/rdma-doctor" ] || make -C "$top" -s all
kver=$(ls /boot/vmlinuz-* 2> /dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
[ -n "$kver" ] || { echo "no Debian kernel in /boot (apt-get install linux-image-amd64)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rd-bench-soak.XXXXXX")
trap 'if [ -n "${RD_SOAK_KEEP:-}" ] && [ -d "$tmp/out/s" ]; then mkdir -p "$RD_SOAK_KEEP" && cp -r "$tmp/out/s/." "$RD_SOAK_KEEP/"; fi; rm -rf "$tmp"' EXIT
"$top/tests/vm/mkinitramfs.sh" "$kver" "$build/rdma-doctor" "$tmp/initramfs.cpio.gz" > "$tmp/mk.log" 2>&1 ||
	{ cat "$tmp/mk.log" >&2; exit 1; }
t0=$(date +%s)
RDVM_TIMEOUT=$((secs + 1800)) "$top/tests/vm/boot.sh" "$kver" "$tmp/initramfs.cpio.gz" "$tmp/out" soak \
	"rdvm.soak=$secs,$flaps printk.devkmsg=on loglevel=1" || true
grep -q '^@@guest-done' "$tmp/out/console-soak.log" ||
	{ echo "the guest did not finish; console:" >&2; tail -20 "$tmp/out/console-soak.log" >&2; exit 1; }
S=$tmp/out/s
f=$S/soak.out
echo "watch soak on $kver under qemu (TCG), $secs s asked, $flaps flaps in bursts of 100; guest ran $(($(date +%s) - t0)) s"
[ -s "$f" ] || { echo "  no samples" >&2; exit 1; }
awk '{ printf "  %6d s  %5d flaps  RSS %6d KiB  CPU %6.2f s  %3d fds  %s\n", $1, $2, $3, $4 / 100, $5, $6 }' "$f" |
	awk 'NR <= 14 || /flood/ || NR % 20 == 0 { print } END { print }' | uniq
awk '$6 == "start" { s = $3 } $6 == "flood" { fl = $3 } { last = $3; if ($3 > max) max = $3; if (!min || $5 < min) min = $5; if ($5 > mx) mx = $5 }
	$6 == "flaps" { af = $3 } END {
	printf "  RSS: %d KiB at start, %d after the flaps, %d after the flood, %d at the end, %d at most\n", s, af, fl, last, max
	printf "  growth from the end of the flaps to the end: %d KiB (bar: none beyond allocator noise, 256 KiB)\n", last - af
	printf "  open descriptors: %d to %d\n", min, mx }' "$f"
if [ -s "$S/soak-fds-start.out" ] && [ -s "$S/soak-fds-end.out" ]; then
	# the source keeps up to 64 directory descriptors between loads (source/confine.c's cache)
	echo "  descriptors open at the end, not at the start (what they point to):"
	comm -13 <(awk 'NF > 9 { print $NF }' "$S/soak-fds-start.out" | sort) <(awk 'NF > 9 { print $NF }' "$S/soak-fds-end.out" | sort) |
		sed 's/^/    /'
fi
made=$(awk 'END { print $2 * 2 }' "$f")
line=$(grep -E ' stopped: ' "$S/soak-watch.out" | tail -1 || true)
netdev=$(sed -nE 's/.* stopped: [0-9]+ judgements?; events: ([0-9]+) netdev, .*/\1/p' <<< "$line")
echo "  netdev transitions made: $made; counted by watch: ${netdev:-?} ($line)"
echo "  what watch said of the kernel lines (its lines naming kmsg or kernel.log, the first 6):"
grep -E 'kmsg|kernel\.log|kernel line' "$S/soak-watch.out" | grep -v ' stopped: ' | head -6 | sed 's/^/    /' || true
echo "  exit status of watch at SIGTERM: $(cat "$S/soak-exit.rc" 2> /dev/null || echo '?')"
[ -s "$S/soak-watch.err" ] && { echo "  watch's standard error:"; head -5 "$S/soak-watch.err"; } || true
