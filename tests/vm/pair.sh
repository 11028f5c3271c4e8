#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `rdma-doctor pair` between two real kernels: two qemu guests of the real-kernel tier, each with
# Soft-RoCE (rxe0) on a virtio-net joined to the other's by a qemu socket netdev on 127.0.0.1 (no
# other network).  The guests run tests/vm/guest.sh's pairserver and pairclient phases in step:
#   1. pair serve / pair --json: bandwidth and latency per rail, a rdma-doctor/pair/v1 document that
#      `pairs --results` reads; perftest's ib_write_bw and ib_write_lat on the same two guests,
#      their figures printed beside rdma-doctor's;
#   2. the text output;
#   3. a client killed in the middle of its run: the server's run ends with an error naming it,
#      and no rdma-doctor process is left in the server guest;
#   4. the client's link slowed by tc netem (10 Mbit/s, delayed, never dropped): the next run
#      measures it slower, under that rate;
#   5. a port nobody serves: one result with the error, exit 2, within the deadline;
#   and the measured path once more with the ASan+UBSan build at both ends.
# Usage: tests/vm/pair.sh [BUILD_DIR]        Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=${1:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
bin=$build/rdma-doctor
ts_init -v

kver=$(ls /boot/vmlinuz-* 2> /dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
for need in qemu-system-x86_64 busybox cpio depmod jq ib_write_bw ib_write_lat tc; do
	command -v "$need" > /dev/null || { bad "missing $need (tests/run-all.sh installs it as root)"; ts_finalize; }
done
[ -n "$kver" ] && [ -d "/lib/modules/$kver/kernel/drivers/infiniband" ] || { bad "no Debian kernel with RDMA modules in /boot"; ts_finalize; }
[ -x "$bin" ] || { bad "no $bin (build first)"; ts_finalize; }

ts_scratch vmpair
asan_bin=$top/build-asan/rdma-doctor # made by `make asan` (tests/run-all.sh builds it first)
[ -x "$asan_bin" ] || { bad "no $asan_bin (make asan): the RDMA path of pair runs under ASan+UBSan too"; ts_finalize; }
"$top/tests/vm/mkinitramfs.sh" "$kver" "$bin" "$work/initramfs.cpio.gz" "$asan_bin" > "$work/mk.log" 2>&1 ||
	{ cat "$work/mk.log"; bad "initramfs"; ts_finalize; }
# a free port on the loopback for the guests' link
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
t0=$(date +%s)
RDVM_NETDEV="socket,id=n0,listen=127.0.0.1:$port" RDVM_MAC=52:54:00:00:09:01 \
	"$top/tests/vm/boot.sh" "$kver" "$work/initramfs.cpio.gz" "$work/srv" pairserver &
srv=$!
for _ in $(seq 100); do ss -ltn 2> /dev/null | grep -q "127.0.0.1:$port " && break; sleep 0.1; done
RDVM_NETDEV="socket,id=n0,connect=127.0.0.1:$port" RDVM_MAC=52:54:00:00:09:02 \
	"$top/tests/vm/boot.sh" "$kver" "$work/initramfs.cpio.gz" "$work/cli" pairclient &
cli=$!
wait $cli
rc_c=$?
wait $srv
rc_s=$?
echo "# two guests ran for $(($(date +%s) - t0)) s (qemu exits: server $rc_s, client $rc_c)"
for g in srv cli; do
	grep -q '^@@vm-done' "$work/$g/console-pair"*.log 2> /dev/null && ok "the $g guest ran its phase" ||
		{ bad "the $g guest did not finish:"; tail -20 "$work/$g/"console*.log; }
done
S=$work/srv/s C=$work/cli/s
rc_of() { cat "$1.rc" 2> /dev/null || echo missing; }
show() { sed 's/^/    | /' "$1" 2> /dev/null | head -"${2:-8}"; }

# ---- 1. the JSON, and perftest beside it ------------------------------------------------------
j=$C/pair-json.out
if [ "$(rc_of "$C/pair-json")" = 0 ] && jq -e '.schema == "rdma-doctor/pair/v1" and .round == 3 and .error == null and
	(.rails | length) == 1 and .rails[0].client_device == "rxe0" and .rails[0].server_device == "rxe0" and
	.rails[0].gbps > 0 and .rails[0].lat_us > 0 and (.rails[0].sizes | length) == 2 and .rails[0].error == null' "$j" > /dev/null 2>&1; then
	ok "pair --json: rxe0 -> rxe0 measured (exit 0): $(jq -c '.rails[0] | {gbps, lat_us, lat_p99_us, gid, gid_index}' "$j")"
else bad "pair --json: exit $(rc_of "$C/pair-json")"; show "$j" 30; show "$C/pair-json.err"; fi
idx=$(cat "$C/gid-index.out" 2> /dev/null)
[ "$(jq -r '.rails[0].gid_index' "$j" 2> /dev/null)" = "$idx" ] && jq -e '.rails[0].gid | startswith("::ffff:10.9.0.2")' "$j" > /dev/null 2>&1 &&
	ok "the GID is NCCL's pick: the RoCE v2 IPv4 one, index $idx" || bad "GID: $(jq -c '.rails[0] | {gid, gid_index}' "$j" 2> /dev/null), expected index $idx"
jq -e '.server == "pairsrv" and .client == "paircli"' "$j" > /dev/null 2>&1 && ok "the document names both hosts" ||
	bad "names: $(jq -c '{server, client}' "$j" 2> /dev/null)"
"$bin" pairs --results "$j" --format json > "$work/pairs.json" 2> "$work/pairs.err"
rc=$?
[ "$rc" -le 1 ] && jq -e '.samples == 1 and .nodes == 2' "$work/pairs.json" > /dev/null 2>&1 &&
	ok "pairs --results reads pair's document (exit $rc)" || { bad "pairs --results: exit $rc"; show "$work/pairs.json" 20; show "$work/pairs.err"; }
grep -qE '^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' "$C/perf-bw.out" && [ "$(rc_of "$C/perf-bw")" = 0 ] &&
	ok "ib_write_bw ran between the guests" || { bad "ib_write_bw: exit $(rc_of "$C/perf-bw")"; show "$C/perf-bw.out" 30; show "$C/perf-bw.err"; }
grep -qE '^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' "$C/perf-lat.out" && [ "$(rc_of "$C/perf-lat")" = 0 ] &&
	ok "ib_write_lat ran between the guests" || { bad "ib_write_lat: exit $(rc_of "$C/perf-lat")"; show "$C/perf-lat.out" 30; }
# perftest's columns: bytes iterations BW-peak BW-average MsgRate (MB/s); lat: bytes iters min max typical avg ...
perf_gbps=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ { g = $4 * 8 / 1000 } END { if (g != "") printf "%.3f", g }' "$C/perf-bw.out" 2> /dev/null)
perf_lat=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ { l = $5 } END { if (l != "") print l }' "$C/perf-lat.out" 2> /dev/null)
echo "# two TCG guests over Soft-RoCE: rdma-doctor $(jq -r '.rails[0] | "\(.gbps) Gb/s (64 KiB \(.sizes[0].gbps), 1 MiB \(.sizes[1].gbps)), \(.lat_us) us"' "$j" 2> /dev/null); ib_write_bw ${perf_gbps:-?} Gb/s (65536 B), ib_write_lat typical ${perf_lat:-?} us"
[ "$(rc_of "$S/pair-serve")" = 0 ] && grep -q '^pair .* -> .*: served$' "$S/pair-serve.out" && ok "the server's own line" ||
	{ bad "pair serve: exit $(rc_of "$S/pair-serve")"; show "$S/pair-serve.out"; show "$S/pair-serve.err"; }

# ---- 2. text -----------------------------------------------------------------------------------
grep -qE '^  rxe0 port 1 -> rxe0 port 1 \(GID ::ffff:10\.9\.0\.2, index [0-9]+\): [0-9.]+ Gb/s.*, [0-9.]+ us \(p99 [0-9.]+ us, [0-9]+ round trips\); 64 KiB [0-9.]+ Gb/s$' "$C/pair-text.out" &&
	[ "$(rc_of "$C/pair-text")" = 0 ] && ok "pair's text names the rail, its GID, Gb/s and latency" ||
	{ bad "pair text: exit $(rc_of "$C/pair-text")"; show "$C/pair-text.out"; }

# ---- 3. the client dies in the middle ----------------------------------------------------------
[ "$(rc_of "$C/pair-killed")" = 137 ] && ok "the client was killed in its run (exit 137)" || bad "the killed client exited $(rc_of "$C/pair-killed")"
grep -qE 'error: .*(the peer closed the connection|no word from the peer)' "$S/pair-serve-peer-dies.out" && [ "$(rc_of "$S/pair-serve-peer-dies")" = 2 ] &&
	ok "the server's run ends with the peer's death named (exit 2): $(grep -o 'error: .*' "$S/pair-serve-peer-dies.out" | head -1)" ||
	{ bad "server after the client's death: exit $(rc_of "$S/pair-serve-peer-dies")"; show "$S/pair-serve-peer-dies.out"; }
[ ! -s "$S/pair-after-death.out" ] && ok "no rdma-doctor process left in the server guest" || { bad "left running:"; show "$S/pair-after-death.out"; }

# ---- 4. a slowed link ----------------------------------------------------------------------------
[ "$(rc_of "$C/tc-slow")" = 0 ] || { bad "tc netem on the client: exit $(rc_of "$C/tc-slow")"; show "$C/tc-slow.err"; }
[ "$(rc_of "$C/tc-fast")" = 0 ] || { bad "tc qdisc del on the client: exit $(rc_of "$C/tc-fast")"; show "$C/tc-fast.err"; }
fast=$(jq -r '.rails[0].gbps' "$j" 2> /dev/null) slow=$(jq -r '.rails[0].gbps' "$C/pair-slow.out" 2> /dev/null)
# The bound: netem's rate counts each frame's bytes from its Ethernet header on (Ethernet, IPv4,
# UDP, BTH, ICRC: 58 bytes around a 1024-byte payload at rxe's MTU on a 1500-byte link), and
# spaces the frames by it with no burst; the bandwidth run's clock starts with the queue empty
# and stops at its last completion, the ACK of data that went through the queue.  So the RDMA
# payload it measures is under the link's 10 Mbit/s whatever the path MTU (9.46 Mbit/s at 1024).
# (The retries rxe counted are printed, not judged: a retransmission is RC's own business.)
retried=$(awk 'FNR == 1 && /^[0-9]+$/ { v[n++] = $1 } END { print n == 2 ? v[1] - v[0] : "?" }' \
	"$C/rxe-retries-before.out" "$C/rxe-retries-after.out" 2> /dev/null)
if [ "$(rc_of "$C/pair-slow")" = 0 ] && awk -v f="$fast" -v s="$slow" 'BEGIN { exit !(s > 0 && s < 0.5 * f && s < 0.010) }'; then
	ok "through a 10 Mbit/s netem queue the run measures ${slow} Gb/s (was ${fast}; rxe retried ${retried:-?} times)"
else bad "slowed link: exit $(rc_of "$C/pair-slow"), ${slow} Gb/s against ${fast}"; show "$C/pair-slow.out" 20; fi
# the premise: netem delayed the frames and dropped none
drops=$(sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' "$C/tc-stats.out" 2> /dev/null | head -1)
[ "$(rc_of "$C/tc-stats")" = 0 ] && grep -q '^qdisc netem ' "$C/tc-stats.out" && [ "$drops" = 0 ] &&
	ok "netem dropped no frame: $(grep -o 'Sent [0-9]* bytes [0-9]* pkt' "$C/tc-stats.out" | head -1)" ||
	{ bad "netem's statistics: exit $(rc_of "$C/tc-stats"), dropped ${drops:-?}"; show "$C/tc-stats.out"; }

# ---- 4b. the same RDMA path under ASan+UBSan, both ends ------------------------------------------
for g in "$S/pair-asan-serve" "$C/pair-asan"; do
	if [ "$(rc_of "$g")" = 0 ] && ! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$g.err"; then ok "$(basename "$g"): the ASan+UBSan build measured, clean"
	else bad "$(basename "$g"): exit $(rc_of "$g")"; show "$g.err" 12; fi
done
jq -e '.rails[0].gbps > 0 and .rails[0].lat_us > 0' "$C/pair-asan.out" > /dev/null 2>&1 && ok "the ASan run measured bandwidth and latency" || { bad "the ASan run's result: $(jq -r '.error // .rails[0].error // "no error given"' "$C/pair-asan.out" 2> /dev/null)"; show "$C/pair-asan.err" 12; }

# ---- 5. nobody serving ---------------------------------------------------------------------------
[ "$(rc_of "$C/pair-refused")" = 2 ] && jq -e '.error | test("cannot connect|refused")' "$C/pair-refused.out" > /dev/null 2>&1 &&
	ok "a port nobody serves: the error in the JSON, exit 2" || { bad "refused: exit $(rc_of "$C/pair-refused")"; show "$C/pair-refused.out"; show "$C/pair-refused.err"; }
for f in "$S"/*.rc "$C"/*.rc; do
	r=$(cat "$f"); n=$(basename "$f" .rc)
	case "$n" in pair-killed) continue ;; esac
	[ "$r" -ge 124 ] && [ "$r" -lt 160 ] && bad "$n: exit $r (killed or timed out)"
done
ts_finalize
