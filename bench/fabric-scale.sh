#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): `rdma-doctor fabric DIR` on the real infiniband-diags outputs of a
# simulated two-tier fat tree of 64 switches and 1,024 hosts.  The net file (ibsim's format,
# Debian ibsim-utils): 32 leaf switches of 64 ports (ports 1-32 a host each, "node0001 mlx5_0"
# ..., ports 33-64 one cable to each spine) and 32 spine switches of 64 ports (port L to leaf L),
# every port enabled at 4X QDR ("speed=7").  Faults injected:
#   * three leaf-spine cables trained at 1X (w=1) and one at SDR (s=1): fabric.link.degraded each;
#   * node0517's cable out (no port in its record nor its leaf's): fabric.expect with --expect;
#   * through ibsim's console (PerformanceSet): leaf5[40] SymbolErrorCounter 500 (WARN),
#     spine12[20] LinkDownedCounter 255 (saturated: FAIL), node0300's PortRcvErrors 12 (WARN),
#     and two counters below their thresholds (leaf25[3] PortRcvErrors 3, node0801's
#     PortXmitDiscards 7: no finding).
# ibsim and opensm (under ibsim-run, until no cabled port is Initialize: its time is printed)
# are started here with their own socket name and stopped by PID; the tools' outputs are captured
# once into a directory, as tests/fabric/run.sh's `capture` does.  Then the analysis alone is
# measured: `fabric DIR --expect 'node[0001-1024]' --format json`, its CPU time (user + sys, by
# /usr/bin/time: the machine is shared, wall time says little) and peak RSS, the median of RUNS
# runs; and its findings above OK are compared with exactly the injected faults'.
# Usage: bench/fabric-scale.sh [RUNS [BIN [CAPDIR]]]   (default 5, build/rdma-doctor)
#        CAPDIR: captures of an earlier run to measure again (no simulation); a CAPDIR that does
#        not exist is made and kept.  OSM_TIMEOUT (s, default 1800): how long opensm may take.
# Target: every injected fault found, no other finding above OK, analysis <= 10 s of CPU
# (the last line says PASS or FAIL; the exit status is 1 on FAIL).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
bin=${2:-$top/build/rdma-doctor}
capdir=${3:-}
osm_timeout=${OSM_TIMEOUT:-1800}
L=32 H=32 S=32
for c in jq /usr/bin/time; do command -v "$c" > /dev/null || { echo "fabric-scale: $c is not installed" >&2; exit 1; }; done
work=$(mktemp -d)
sim_pid='' sm_pid=''
stop() { # stop PID: SIGTERM, then wait for it
	[ -n "$1" ] || return 0
	kill "$1" 2> /dev/null || true
	for _ in $(seq 100); do kill -0 "$1" 2> /dev/null || break; sleep 0.1; done
	kill -9 "$1" 2> /dev/null || true
	wait "$1" 2> /dev/null || true
}
cleanup() { exec 3>&- 2> /dev/null || true; stop "$sm_pid"; stop "$sim_pid"; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# the fabric: leaf L port H+S to spine S port L; the faults by cable
mknet() {
	awk -v L=$L -v H=$H -v S=$S '
	function opt(l, s) { return (l == 3 && s == 7) || (l == 17 && s == 22) || (l == 30 && s == 2) ? " w=1" : (l == 9 && s == 14) ? " s=1" : "" }
	BEGIN {
		print "speed=7"
		for (l = 1; l <= L; l++) {
			printf "Switch 64 \"leaf%d\"\n", l
			for (p = 1; p <= H; p++) { h = (l - 1) * H + p; if (h != 517) printf "[%d] \"node%04d mlx5_0\"[1]\n", p, h }
			for (s = 1; s <= S; s++) printf "[%d] \"spine%d\"[%d]%s\n", H + s, s, l, opt(l, s)
			print ""
		}
		for (s = 1; s <= S; s++) {
			printf "Switch 64 \"spine%d\"\n", s
			for (l = 1; l <= L; l++) printf "[%d] \"leaf%d\"[%d]%s\n", l, l, H + s, opt(l, s)
			print ""
		}
		for (h = 1; h <= L * H; h++) {
			printf "Hca 1 \"node%04d mlx5_0\"\n", h
			if (h != 517) printf "[1] \"leaf%d\"[%d]\n", int((h - 1) / H) + 1, (h - 1) % H + 1
			print ""
		}
	}'
}
# what the analysis must find, above OK: "STATUS check subject", a link's ends in name order
expected='FAIL fabric.expect node0517
FAIL fabric.link.errors leaf20[44] - spine12[20]
WARN fabric.link.degraded leaf17[54] - spine22[17]
WARN fabric.link.degraded leaf30[34] - spine2[30]
WARN fabric.link.degraded leaf3[39] - spine7[3]
WARN fabric.link.degraded leaf9[46] - spine14[9]
WARN fabric.link.errors leaf10[12] - node0300 mlx5_0[1]
WARN fabric.link.errors leaf5[40] - spine8[5]'

now() { date +%s.%N; }
capture() { # DIR: the real tools' outputs, by the names `fabric DIR` reads
	mkdir -p "$1"
	local c
	for c in "iblinkinfo-switches-only-l iblinkinfo --switches-only -l" "ibnetdiscover-p ibnetdiscover -p" \
		"sminfo sminfo" "ibqueryerrors ibqueryerrors"; do
		set -- "$1" $c
		local t0; t0=$(now)
		timeout 900 ibsim-run "${@:3}" > "$1/$2" 2> "$work/$2.err" || [ "$2" = ibqueryerrors ] ||
			{ echo "fabric-scale: ${*:3}: $(tail -2 "$work/$2.err")" >&2; exit 1; }
		printf '  %-28s %9d bytes %6d lines  (%.1f s)\n' "$2" "$(wc -c < "$1/$2")" "$(wc -l < "$1/$2")" "$(echo "$(now) - $t0" | bc)"
	done
}

simulate() { # DIR: simulate the fabric, bring it up, set the counters, capture into DIR
	local c
	for c in ibsim ibsim-run iblinkinfo ibnetdiscover sminfo ibqueryerrors opensm bc; do
		command -v "$c" > /dev/null || { echo "fabric-scale: $c is not installed (ibsim-utils, infiniband-diags, opensm)" >&2; exit 1; }
	done
	export IBSIM_SOCKNAME="rd-fabscale-$$-$RANDOM"
	cd "$work"
	mknet > fabric.net
	echo "fabric: $L leaves x $H hosts, $S spines: $((L + S)) switches, $((L * H)) HCAs ($(grep -c '^Hca' fabric.net) records, node0517 uncabled), $(grep -c '^\[' fabric.net) port lines"
	mkfifo sim.con
	: > sim.log
	local t0; t0=$(now)
	ibsim -s fabric.net < sim.con > sim.log 2>&1 &
	sim_pid=$!
	exec 3> sim.con
	for _ in $(seq 600); do grep -q "simulator ready" sim.log && break; kill -0 $sim_pid 2> /dev/null || break; sleep 0.1; done
	grep -q "simulator ready" sim.log || { echo "fabric-scale: ibsim did not start: $(tail -3 sim.log)" >&2; exit 1; }
	printf 'ibsim ready in %.1f s\n' "$(echo "$(now) - $t0" | bc)"
	opensm -c osm.conf > /dev/null 2>&1
	sed -i "s#^log_file .*#log_file $work/osm.log#; s#^dump_files_dir .*#dump_files_dir $work/#" osm.conf
	mkdir -p osmcache
	t0=$(now)
	OSM_CACHE_DIR=$work/osmcache OSM_TMP_DIR=$work ibsim-run opensm -F osm.conf > osm.out 2>&1 &
	sm_pid=$!
	local master='' deadline=$(($(date +%s) + osm_timeout))
	while [ "$(date +%s)" -lt "$deadline" ]; do
		kill -0 $sm_pid 2> /dev/null || { echo "fabric-scale: opensm exited: $(tail -3 osm.out)" >&2; exit 1; }
		if [ -z "$master" ] && grep -q "Entering MASTER state" osm.out; then
			master=1; printf 'opensm: MASTER after %.1f s\n' "$(echo "$(now) - $t0" | bc)"
		fi
		if [ -n "$master" ] && timeout 600 ibsim-run iblinkinfo --switches-only -l > links.now 2> /dev/null &&
			grep -q Active links.now && ! grep -q Initialize links.now; then
			break
		fi
		sleep 1
	done
	grep -q Active links.now 2> /dev/null && ! grep -q Initialize links.now ||
		{ echo "fabric-scale: opensm did not bring the ports up in $osm_timeout s: $(tail -3 osm.out)" >&2; exit 1; }
	printf 'opensm: every cabled port Active after %.1f s (%d Active port lines)\n' "$(echo "$(now) - $t0" | bc)" "$(grep -c Active links.now)"
	sim_set leaf5 40 SymbolErrorCounter 500
	sim_set spine12 20 LinkDownedCounter 255
	sim_set "node0300 mlx5_0" 1 PortRcvErrors 12
	sim_set leaf25 3 PortRcvErrors 3
	sim_set "node0801 mlx5_0" 1 PortXmitDiscards 7
	echo "captures:"
	t0=$(now)
	capture "$1"
	printf '  (%.1f s in all)\n' "$(echo "$(now) - $t0" | bc)"
	exec 3>&-
	stop "$sm_pid"; sm_pid=
	stop "$sim_pid"; sim_pid=
	cd - > /dev/null
}
sim_set() { # NODE PORT COUNTER VALUE: ibsim's console sets a port's counter, done
	echo "PerformanceSet \"$1\"[$2] PortCounters.$3=$4" >&3
	for _ in $(seq 100); do grep -qF "$1[$2] PortCounters.$3 has been set to $4" sim.log && return 0; sleep 0.1; done
	echo "fabric-scale: ibsim: PerformanceSet $1[$2] $3 not done: $(tail -2 sim.log)" >&2
	exit 1
}

if [ -n "$capdir" ] && [ -e "$capdir/iblinkinfo-switches-only-l" ]; then
	cap=$(cd "$capdir" && pwd)
	echo "captures: $cap (not simulated again)"
	for f in "$cap"/*; do printf '  %-28s %9d bytes %6d lines\n' "${f##*/}" "$(wc -c < "$f")" "$(wc -l < "$f")"; done
else
	cap=$work/cap
	[ -z "$capdir" ] || { mkdir -p "$capdir"; cap=$(cd "$capdir" && pwd); }
	simulate "$cap"
fi

# the findings: one run, its findings above OK against the injected faults'
out=$work/out.json
rc=0
"$bin" fabric "$cap" --expect 'node[0001-1024]' --format json > "$out" 2> "$work/out.err" || rc=$?
got=$(jq -r 'def ends: if test(" - ") then (split(" - ") | sort | join(" - ")) else . end;
	.findings[] | select(.status != "OK") | "\(.status) \(.check) \(.subject | ends)"' "$out" | sort)
jq -r '"model: \(.summary.switches) switches, \(.summary.cas) CA ports on \(.summary.hosts) hosts, \(.summary.links) links; exit '"$rc"'"' "$out"
missed=$(comm -23 <(echo "$expected") <(echo "$got"))
extra=$(comm -13 <(echo "$expected") <(echo "$got"))
nexp=$(echo "$expected" | wc -l)
nfound=$((nexp - $(echo -n "$missed" | grep -c '^' || true)))
echo "findings above OK: $(echo -n "$got" | grep -c '^' || true); injected faults found: $nfound of $nexp"
[ -z "$missed" ] || echo "$missed" | sed 's/^/  MISSED: /'
[ -z "$extra" ] || echo "$extra" | sed 's/^/  FALSE:  /'
# the degraded cables' messages: the width or the speed each trained at
jq -r '.findings[] | select(.check == "fabric.link.degraded") | "  \(.subject): \(.message)"' "$out" | cut -c1-160

# CPU (user + sys) and peak RSS of the analysis, RUNS runs
for _ in $(seq "$runs"); do
	/usr/bin/time -f '%U %S %M %e' -o "$work/time" "$bin" fabric "$cap" --expect 'node[0001-1024]' --format json > /dev/null 2>&1 || true
	tail -1 "$work/time" >> "$work/times.raw"
done
# median (middle of the sorted values) and extremes of one column of "CPU RSS WALL" lines
stat() { awk '{ print $'"$1"' }' "$work/times" | sort -n | awk '{ v[NR] = $1 } END { printf "%s %s %s\n", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
awk '{ printf "%.2f %d %.2f\n", $1 + $2, $3, $4 }' "$work/times.raw" > "$work/times"
read -r cpu cpu_min cpu_max < <(stat 1)
read -r _ _ rss < <(stat 2)
read -r wall _ _ < <(stat 3)
echo "analysis: CPU (user+sys) median $cpu s of $runs runs (min $cpu_min, max $cpu_max); wall median $wall s; peak RSS $rss KiB"
verdict=PASS
[ -z "$missed" ] && [ -z "$extra" ] && awk -v c="$cpu" 'BEGIN { exit !(c <= 10) }' || verdict=FAIL
echo "bar: every injected fault found ($nfound/$nexp), no false finding ($(echo -n "$extra" | grep -c '^' || true)), analysis <= 10 s CPU ($cpu s): $verdict"
[ "$verdict" = PASS ]
