#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `rdma-doctor pairs`, round after round, on a stand-in network (there are no hosts to measure
# here): stand_in_measure writes the rdma-doctor/pair/v1 document each measured pair would give
# (two rails at line rate 400, one node whose mlx5_1 delivers 118 Gb/s, one pair whose path
# delivers 151 on both rails), and the loop runs what pairs plans until it plans nothing: the bad
# node and the bad link must be named, nothing else, within four rounds.  Then the JSON, the plan
# shapes, and bad input (each named, the rest still judged).
# Usage: tests/pairs/run.sh [BUILD_DIR]        Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=${1:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
bin=$build/rdma-doctor
ts_init -v
ts_scratch pairs
cd "$work" || ts_die "cd $work"

# stand_in_measure ROUND A B: one pair's document, as `pair` would print it
stand_in_measure() {
	local round=$1 a=$2 b=$3 rails="" r g
	for r in mlx5_0 mlx5_1; do
		g=$((372 + ($(printf '%s%s%s' "$a" "$b" "$r" | cksum | cut -d' ' -f1) % 9)))
		if [ "$r" = mlx5_1 ] && { [ "$a" = n4 ] || [ "$b" = n4 ]; }; then g=118; fi
		if { [ "$a" = n5 ] && [ "$b" = n6 ]; } || { [ "$a" = n6 ] && [ "$b" = n5 ]; }; then g=151; fi
		rails+="${rails:+,}{\"server_device\":\"$r\",\"client_device\":\"$r\",\"gbps\":$g,\"line_gbps\":400,\"lat_us\":2.4}"
	done
	printf '{"schema":"rdma-doctor/pair/v1","round":%s,"server":"%s","client":"%s","rails":[%s]}\n' "$round" "$a" "$b" "$rails"
}
# measure_round ROUND PLAN.json >> results: every pair of the plan's first round
measure_round() {
	jq -r '.rounds[0][] | "\(.[0]) \(.[1])"' "$2" | while read -r a b; do stand_in_measure "$1" "$a" "$b"; done
}

"$bin" pairs --nodes 'n[1-8]' --plan --format json > plan1.json
[ "$(jq -c '.rounds[0]' plan1.json)" = '[["n1","n2"],["n3","n4"],["n5","n6"],["n7","n8"]]' ] &&
	ok "round 1 pairs neighbours" || bad "round 1: $(cat plan1.json)"
measure_round 1 plan1.json > results.json
round=1
while [ $round -lt 8 ]; do
	"$bin" pairs --nodes 'n[1-8]' --results results.json --plan --format json > next.json
	[ "$(jq '.rounds | length' next.json)" = 0 ] && break
	round=$((round + 1))
	measure_round $round next.json >> results.json
done
"$bin" pairs --nodes 'n[1-8]' --results results.json --format json > verdict.json
rc=$?
[ $rc = 2 ] && ok "exit 2: a node is bad" || bad "exit $rc, expected 2"
[ $round -le 4 ] && ok "settled in $round rounds" || bad "$round rounds (at most 4)"
[ "$(jq -r '[.findings[] | "\(.status) \(.id) \(.host) \(.rail)"] | sort | join(";")' verdict.json)" = \
	"FAIL pairs.bandwidth n4 mlx5_1;WARN pairs.link n5 mlx5_0;WARN pairs.link n5 mlx5_1" ] &&
	ok "the bad node and the bad link, nothing else" || bad "findings: $(jq -c '.findings' verdict.json)"
[ "$(jq -r '.hosts.bad' verdict.json)" = n4 ] && ok "hosts.bad" || bad "hosts: $(jq -c .hosts verdict.json)"
[ "$(jq -r '.findings[] | select(.id == "pairs.bandwidth") | .message' verdict.json)" = \
	"pairs.bandwidth n4 rail mlx5_1: 118 Gb/s, peers median 374" ] && ok "the drain reason" ||
	bad "message: $(jq -r '.findings[0].message' verdict.json)"
[ "$(jq -r '.schema' verdict.json)" = rdma-doctor/pairs/v1 ] && ok "schema" || bad "schema"
# one round alone convicts nobody
head -4 results.json > round1.json
"$bin" pairs --nodes 'n[1-8]' --results round1.json --format json > r1.json
rc=$?
[ $rc = 1 ] && [ "$(jq '.findings | length' r1.json)" = 0 ] && [ "$(jq -r .hosts.suspect r1.json)" = 'n[3-6]' ] &&
	ok "round 1 alone: suspects, no finding" || bad "round 1 alone: exit $rc $(jq -c '{findings, hosts}' r1.json)"

# text and JSON say the same
"$bin" pairs --nodes 'n[1-8]' --results results.json > verdict.txt
grep -q '^FAIL pairs.bandwidth n4 rail mlx5_1: 118 Gb/s, peers median 374$' verdict.txt && ok "text" ||
	bad "text: $(cat verdict.txt)"

# plans: every node once a round, no pair twice over n-1 rounds, odd counts, racks
"$bin" pairs --nodes 'h[01-10]' --plan --rounds 20 --format json > all.json
[ "$(jq '.rounds | length' all.json)" = 9 ] && [ "$(jq '[.rounds[][] | sort | join(" ")] | unique | length' all.json)" = 45 ] &&
	ok "9 rounds of 10 nodes: all 45 pairs once" || bad "rounds: $(jq -c '.rounds | length' all.json)"
"$bin" pairs --nodes 'h[1-5]' --plan --format json > odd.json
[ "$(jq -c '.rounds[0]' odd.json)" = '[["h1","h2"],["h3","h4"]]' ] && ok "odd: one node left over" || bad "odd: $(cat odd.json)"
printf 'SwitchName=leaf1 Nodes=h[1-4]\nSwitchName=leaf2 Nodes=h[5-8]\nSwitchName=spine Switches=leaf[1-2]\n' > topology.conf
"$bin" pairs --nodes 'h[1-8]' --plan --topology topology.conf --format json > rack.json
[ "$(jq -c '.rounds[0]' rack.json)" = '[["h1","h5"],["h2","h6"],["h3","h7"],["h4","h8"]]' ] &&
	ok "rack order crosses leaves" || bad "rack: $(cat rack.json)"

# bad input: each file named, the others still judged
printf 'not json' > bad.json
printf '{"schema":"rdma-doctor/pair/v1","server":"n1","client":"zz9","rails":[{"server_device":"mlx5_0","client_device":"mlx5_0","gbps":300}]}' > stranger.json
"$bin" pairs --nodes 'n[1-8]' --results bad.json --results stranger.json --results missing.json \
	--results /dev/null --results results.json > mixed.txt 2> mixed.err
rc=$?
[ $rc = 2 ] && ok "a bad node still drains beside bad files (exit 2)" || bad "mixed: exit $rc"
for want in "--results bad.json: document 1: not JSON" "--results stranger.json: document 1: host zz9 is not among the nodes" \
	"--results missing.json: No such file or directory" "--results /dev/null: "; do
	grep -qF -- "$want" mixed.err && ok "named: $want" || bad "not said: $want ($(cat mixed.err))"
done
grep -q 'FAIL pairs.bandwidth n4' mixed.txt && ok "the readable results judged" || bad "mixed: $(cat mixed.txt)"
"$bin" pairs --results bad.json > /dev/null 2>&1
[ $? = 3 ] && ok "only bad results: exit 3" || bad "only bad results"
ts_finalize
