#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `rdma-doctor pairs` across four real kernels: four qemu guests of the real-kernel tier, each with
# Soft-RoCE (rxe0) on a virtio-net, all on one qemu multicast socket netdev (a hub) in a network
# namespace of this test's own (its loopback, nothing else).  Every link is shaped to 5 Mbit/s and
# g4's to 500 kbit/s both ways (tests/vm/guest.sh's pairs phase).  The rounds are the real planner's and the
# real judgement's: round 1 is `pairs --nodes g[1-4] --plan`, each later round the `next_round`
# that `pairs --results` asks for given every document so far, written to each guest's share; every
# guest runs `pair --step SPEC --round R` as `pairs --run` would start it.  Then the judgement names
# g4 the bad node, slow against every partner, and no other node or link.
# Usage: tests/vm/pairs.sh [BUILD_DIR]        Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=${1:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
bin=$build/rdma-doctor
# the guests' hub is a multicast group on the loopback of a network namespace made here
if [ "${RD_PAIRS_NETNS:-}" != 1 ]; then
	exec env RD_PAIRS_NETNS=1 unshare -n -- "$0" "$build"
fi
ts_init -v
ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo ||
	{ bad "the namespace's loopback as a multicast hub"; ts_finalize; }
kver=$(ls /boot/vmlinuz-* 2> /dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
for need in qemu-system-x86_64 busybox cpio depmod jq tc; do
	command -v "$need" > /dev/null || { bad "missing $need (tests/run-all.sh installs it as root)"; ts_finalize; }
done
[ -n "$kver" ] && [ -d "/lib/modules/$kver/kernel/drivers/infiniband" ] || { bad "no Debian kernel with RDMA modules in /boot"; ts_finalize; }
[ -x "$bin" ] || { bad "no $bin (build first)"; ts_finalize; }
ts_scratch vmpairs
"$top/tests/vm/mkinitramfs.sh" "$kver" "$bin" "$work/initramfs.cpio.gz" > "$work/mk.log" 2>&1 ||
	{ cat "$work/mk.log"; bad "initramfs"; ts_finalize; }
nodes=(g1 g2 g3 g4) slow=g4
hosts=$(for i in 1 2 3 4; do printf '%sg%d/10.9.1.%d' "${hosts_sep:-}" $i $i; hosts_sep=,; done)
t0=$(date +%s)
pids=()
# a run that ends early stops its guests: boot.sh's child is timeout, which passes TERM to qemu
stop_guests() {
	local p
	for p in "${pids[@]}"; do pkill -TERM -P "$p" 2> /dev/null; kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	ts_cleanup
}
trap stop_guests EXIT
for i in 1 2 3 4; do
	mkdir -p "$work/g$i"
	RDVM_NETDEV="socket,id=n0,mcast=230.0.9.1:18519,localaddr=127.0.0.1" RDVM_MAC=52:54:00:00:09:1$i RDVM_TIMEOUT=600 \
		"$top/tests/vm/boot.sh" "$kver" "$work/initramfs.cpio.gz" "$work/g$i" pairs \
		"rdvm.node=g$i rdvm.ip=10.9.1.$i rdvm.hosts=$hosts rdvm.slow=$slow" &
	pids+=($!)
done
# each guest's share is its directory: it waits there for next-R, and says "ready" when its peers answer
ready() { local i; for i in 1 2 3 4; do [ -f "$work/g$i/s/ready" ] || return 1; done; }
for _ in $(seq 2400); do ready && break; sleep 0.25; done
ready && ok "four guests up, each answering the other three" || bad "guests not ready: $(ls "$work"/g*/s/ready 2> /dev/null | wc -l) of 4"
spec_of() { jq -r "$1"' | map(join("+")) | join(",")'; }
"$bin" pairs --nodes 'g[1-4]' --plan --format json > "$work/plan.json" 2> "$work/plan.err"
spec=$(spec_of '.rounds[0]' < "$work/plan.json")
[ "$spec" = "g1+g2,g3+g4" ] && ok "round 1 is the planner's: $spec" || bad "the plan's round 1: '$spec'"
r=1
: > "$work/all.json"
while [ -n "$spec" ] && [ $r -le 6 ]; do
	for i in 1 2 3 4; do printf '%s\n' "$spec" > "$work/g$i/next-$r.tmp" && mv "$work/g$i/next-$r.tmp" "$work/g$i/next-$r"; done
	done_all() { local i; for i in 1 2 3 4; do [ -f "$work/g$i/s/round-$r.rc" ] || return 1; done; }
	for _ in $(seq 1200); do done_all && break; sleep 0.25; done
	done_all || { bad "round $r ($spec): not every guest ended it"; break; }
	cat "$work"/g*/s/round-$r.json >> "$work/all.json" 2> /dev/null
	echo "# round $r: $spec: $(cat "$work"/g*/s/round-$r.json 2> /dev/null | jq -rs 'map("\(.server)+\(.client) \(.rails[0].gbps // .error // .rails[0].error)") | join(", ")')"
	"$bin" pairs --results "$work/all.json" --format json > "$work/judged.json" 2> "$work/judged.err"
	[ -s "$work/judged.json" ] || { bad "round $r: pairs --results printed nothing: $(head -3 "$work/judged.err")"; break; }
	spec=$(spec_of '.next_round' < "$work/judged.json")
	r=$((r + 1))
done
for i in 1 2 3 4; do printf 'done\n' > "$work/g$i/next-$r"; done
for p in "${pids[@]}"; do wait "$p"; done
echo "# four guests ran for $(($(date +%s) - t0)) s, $((r - 1)) rounds"
for i in 1 2 3 4; do
	grep -q '^@@vm-done' "$work/g$i/console-pairs.log" 2> /dev/null && ok "guest g$i ran its phase" ||
		{ bad "guest g$i did not finish:"; tail -20 "$work/g$i/console-pairs.log"; }
done
[ "$(cat "$work/g4/s/tc-slow.rc" 2> /dev/null)" = 0 ] && [ "$(cat "$work/g1/s/tc-slow.rc" 2> /dev/null)" = 0 ] &&
	ok "the links shaped, g4's slowed both ways (netem on g4, and on the others for g4's address)" || bad "tc-slow: $(cat "$work"/g*/s/tc-slow.err 2> /dev/null | head -3)"
# netem delays and drops nothing (a drop would be rxe's retransmission, not the rate)
drops=$(cat "$work"/g*/s/tc-stats.out 2> /dev/null | sed -n 's/.*dropped \([0-9]*\).*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
[ "$(cat "$work"/g*/s/tc-stats.out 2> /dev/null | grep -c netem)" -ge 7 ] && [ "$drops" = 0 ] && ok "netem on every guest, nothing dropped" ||
	bad "netem: $(cat "$work"/g*/s/tc-stats.out 2> /dev/null | grep -c netem) qdiscs, $drops dropped"
j=$work/judged.json
[ -s "$j" ] || { bad "no judgement"; ts_finalize; }
jq -e '[.[] | .rails[] | .gid | startswith("::ffff:10.9.1.")] | all' -s "$work/all.json" > /dev/null 2>&1 &&
	ok "every rail on the guests' own addresses (NCCL's GID: ::ffff:10.9.1.N)" || bad "GIDs: $(jq -c '.rails[]?.gid' "$work/all.json" 2> /dev/null | sort -u | tr '\n' ' ')"
jq -e '.hosts.bad == "g4"' "$j" > /dev/null 2>&1 && ok "the judgement names g4 the bad node" ||
	{ bad "bad nodes: $(jq -c .hosts "$j" 2> /dev/null)"; sed 's/^/    | /' "$j" | head -40; }
jq -e '.hosts.cleared == "g[1-3]" and .hosts.suspect == "" and .next_round == []' "$j" > /dev/null 2>&1 &&
	ok "g1-g3 cleared, nothing left to test" || bad "the rest: $(jq -c '{hosts, next_round}' "$j" 2> /dev/null)"
jq -e '[.findings[] | select(.id == "pairs.link")] | length == 0' "$j" > /dev/null 2>&1 &&
	ok "no link blamed: g4 is slow against every partner" || bad "links blamed: $(jq -c '[.findings[] | select(.id == "pairs.link") | .host]' "$j" 2> /dev/null)"
"$bin" pairs --results "$work/all.json" > "$work/judged.txt" 2>&1
rc=$?
# the rates below 1 Gb/s in two significant digits, not "0 Gb/s, peers median 0"
[ $rc = 2 ] && grep -qE '^FAIL pairs.bandwidth g4 rail rxe0: 0\.0[0-9]+ Gb/s, peers median 0\.[0-9]+$' "$work/judged.txt" &&
	ok "text: FAIL pairs.bandwidth g4, its rate and its peers' median (exit 2)" ||
	{ bad "text: exit $rc"; sed 's/^/    | /' "$work/judged.txt" | head -12; }
grep -E '^(FAIL|WARN|bad|cleared)' "$work/judged.txt" | sed 's/^/# /'

ts_finalize
