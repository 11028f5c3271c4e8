#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): `rdma-doctor fabric DIR --pairs FILE` on a generated two-tier fabric:
# LEAVES leaf switches of HOSTS hosts each, SPINES spine switches, one cable from each leaf to each
# spine, written as iblinkinfo --switches-only -l and dump_fts print them (the leaves send a
# remote host's LID to spine LID % SPINES, the spines to its leaf).  The pair results: ROUNDS
# rounds of a round-robin over every host (each host in one pair a round), 390 Gb/s, and 96 Gb/s
# for the pairs whose route crosses the leaf1-spine1 cable.  Prints the fabric's size, the number
# of pairs, the suspect rdma-doctor names (it should be leaf1[P] - spine1[1]) and the wall time
# of the join (the median of RUNS runs; the parse of the captures included).
# Usage: bench/fabric-route.sh [LEAVES [HOSTS [SPINES [ROUNDS [RUNS [BIN]]]]]]
#        (default 32 16 16 8 5 build/rdma-doctor: 512 hosts, 2048 pairs)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
leaves=${1:-32} hosts=${2:-16} spines=${3:-16} rounds=${4:-8} runs=${5:-5}
bin=${6:-$top/build/rdma-doctor}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "$tmp"
mkdir "$tmp/cap"
awk -v L="$leaves" -v H="$hosts" -v S="$spines" -v R="$rounds" -v dir="$tmp" '
function lguid(l) { return sprintf("0x%016x", 2097152 + l) }
function sguid(s) { return sprintf("0x%016x", 3145728 + s) }
function hguid(h) { return sprintf("0x%016x", 1048576 + h) }
function line(g, d, lid, p, pg, plid, pp, pd) {
	printf "%s \"%30s\" %6d %4d[  ] ==( 4X     25.78125 Gbps Active/  LinkUp)==>  %s %6d %4d[  ] \"%s\" ( )\n",
		g, d, lid, p, pg, plid, pp, pd > (dir "/cap/iblinkinfo-switches-only-l")
}
BEGIN {
	N = L * H
	# LIDs: leaves 1..L, spines L+1..L+S, hosts after them
	for (l = 1; l <= L; l++) llid[l] = l
	for (s = 1; s <= S; s++) slid[s] = L + s
	for (h = 1; h <= N; h++) { hlid[h] = L + S + h; hleaf[h] = int((h - 1) / H) + 1; hport[h] = (h - 1) % H + 1 }
	top = L + S + N
	for (l = 1; l <= L; l++) {
		for (p = 1; p <= H; p++) { h = (l - 1) * H + p; line(lguid(l), "leaf" l, llid[l], p, hguid(h), hlid[h], 1, "node" h " mlx5_0") }
		for (s = 1; s <= S; s++) line(lguid(l), "leaf" l, llid[l], H + s, sguid(s), slid[s], l, "spine" s)
	}
	for (s = 1; s <= S; s++)
		for (l = 1; l <= L; l++) line(sguid(s), "spine" s, slid[s], l, lguid(l), llid[l], H + s, "leaf" l)
	f = dir "/cap/dump_fts"
	for (l = 1; l <= L; l++) {
		printf "Unicast lids [0x0-0x%x] of switch Lid %d guid %s (leaf%d):\n  Lid  Out   Destination\n       Port     Info \n", top, llid[l], lguid(l), l > f
		for (d = 1; d <= top; d++) {
			if (d == llid[l]) port = 0
			else if (d > L + S && hleaf[d - L - S] == l) port = hport[d - L - S]
			else port = H + d % S + 1
			printf "0x%04x %03d : (x)\n", d, port > f
		}
		printf "%d valid lids dumped \n", top > f
	}
	for (s = 1; s <= S; s++) {
		printf "Unicast lids [0x0-0x%x] of switch Lid %d guid %s (spine%d):\n  Lid  Out   Destination\n       Port     Info \n", top, slid[s], sguid(s), s > f
		for (d = 1; d <= top; d++) {
			if (d == slid[s]) port = 0
			else if (d <= L) port = d
			else if (d <= L + S) port = 1
			else port = hleaf[d - L - S]
			printf "0x%04x %03d : (x)\n", d, port > f
		}
		printf "%d valid lids dumped \n", top > f
	}
	# round-robin pairs: host 1 fixed, the others rotate; client to server
	r = dir "/results.json"
	for (k = 1; k <= R; k++) {
		for (i = 0; i < N / 2; i++) {
			a = i == 0 ? 1 : (i + k - 1) % (N - 1) + 2
			b = (N - 1 - i + k - 1) % (N - 1) + 2
			c = k % 2 ? a : b; sv = k % 2 ? b : a
			# the leaf1-spine1 cable: up from leaf1 toward spine1, or down from spine1 to leaf1
			slow = (hleaf[c] == 1 && hleaf[sv] != 1 && (hlid[sv] % S) + 1 == 1) ||
			       (hleaf[sv] == 1 && hleaf[c] != 1 && (hlid[sv] % S) + 1 == 1)
			printf "{\"schema\": \"rdma-doctor/pair/v1\", \"round\": %d, \"server\": \"node%d\", \"client\": \"node%d\", \"rails\": [{\"server_device\": \"mlx5_0\", \"client_device\": \"mlx5_0\", \"gbps\": %d, \"line_gbps\": 400}]}\n", k, sv, c, slow ? 96 : 390 > r
			nslow += slow
		}
	}
	printf "fabric: %d leaves, %d spines, %d hosts; %d pairs in %d rounds, %d slow\n", L, S, N, R * N / 2, R, nslow
}'
"$bin" fabric "$tmp/cap" --pairs "$tmp/results.json" --format json > "$tmp/out.json" || true
jq -r '"suspect: " + ([.findings[] | "\(.status) \(.subject)"] | join("; ")) + "  (" + (.summary | "\(.slow) slow, \(.healthy) healthy, \(.routed) routed") + ")"' "$tmp/out.json"
times=()
for _ in $(seq "$runs"); do
	t0=$(date +%s%N)
	"$bin" fabric "$tmp/cap" --pairs "$tmp/results.json" --format json > /dev/null || true
	times+=($((($(date +%s%N) - t0) / 1000000)))
done
printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "join: median %d ms of %d runs (min %d, max %d)\n", v[int((NR + 1) / 2)], NR, v[1], v[NR] }'
