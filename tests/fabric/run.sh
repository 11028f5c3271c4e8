#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `fabric` against the real infiniband-diags on a simulated fabric: ibsim (Debian ibsim-utils)
# simulates the subnet of a net file, and the real iblinkinfo, ibnetdiscover, sminfo and opensm
# talk to it through umad2sim (ibsim-run preloads it).  Two leaf and two spine switches, six hosts
# ("node01 mlx5_0" ...), two cables from each leaf to each spine; faults injected in the net file:
#   * healthy, opensm running: no finding above OK (the "both ends could do 12X 10 Gbps" that every
#     simulated port advertises is one OK note per tier, not a finding per link);
#   * healthy, no subnet manager: exactly fabric.sm (FAIL), the ports Initialize;
#   * one leaf-spine cable at w=1: exactly one fabric.link.degraded, on that cable; then ibsim's
#     console (PerformanceSet) sets error counters at both of its ends, one saturated, and on a
#     host's cable: the real ibqueryerrors' output gives fabric.link.errors on exactly those two
#     cables (FAIL for the saturated one), live and from the captures; with --state-dir the next
#     runs judge the counters' rise since the kept sample (none: old errors; then one port's);
#   * node03's cable unplugged: with --against the healthy reference exactly fabric.ref.missing on
#     it, with --expect node[01-06] exactly fabric.expect node03;
#   * node04's cable moved to another leaf port: with --against exactly one fabric.ref.moved;
#   * LMC 2 (opensm gives each port four LIDs from an aligned base): as healthy as LMC 0, the
#     reference still matches, --route follows the base LIDs;
#   * two hosts with one port GUID (ibsim -I): the port the real discovery drops is
#     fabric.duplicate (WARN) on its switch port;
#   * the same outputs captured into a directory (`fabric DIR`) give the same findings;
#   * --format json is rdma-doctor/fabric/v1; --format prometheus --output is node_exporter's
#     textfile (promtool accepts it; each cable's width and worst finding, the counters); exit
#     statuses; a bad reference file; no umad port; snapshot --fabric holds the tools' outputs
#     (and dump_fts), and `fabric SNAPSHOT` gives the live findings;
#   * routes, on three leaves and two spines (three hosts each) with the leaf1-spine1 cable at w=1:
#     --route between two hosts is what the real ibtracert prints, hop for hop, live (ibtracert)
#     and from the captured dump_fts; stand-in pair results (written here: no HCA), slow for the
#     pairs whose real route crosses the degraded cable, make fabric --pairs name exactly that
#     cable (fabric.route.suspect), live and from the captures; results with no slow pair, none;
#     --route and --pairs usage errors, a directory without dump_fts, a host not in the fabric.
# Every simulator and subnet manager is started here and stopped by its PID; the simulator's socket
# name is this run's own; the subnet manager's log, cache and dumps stay in the scratch directory.
# Usage: tests/fabric/run.sh [BUILD_DIR]     Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
[ $# -ge 1 ] && build=$(cd "$1" && pwd)
bin=$build/rdma-doctor
. "$top/tests/lib.sh"
ts_init
for c in ibsim ibsim-run iblinkinfo ibnetdiscover sminfo ibqueryerrors opensm jq timeout promtool; do
	command -v "$c" > /dev/null || { ts_skip fabric "$c is not installed (ibsim-utils, infiniband-diags, opensm)"; ts_finalize; }
done
ts_scratch fabric
cd "$work" || exit 1
export IBSIM_SOCKNAME="rd-fabric-$$-$RANDOM" NO_COLOR=1
# a sanitizer build preloaded with umad2sim (ibsim-run): the sanitizer runtime is not the first library
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
sim_pid= sm_pid=
stop() { # stop PID: SIGTERM, then wait for it (ibsim may take a moment)
	[ -n "$1" ] || return 0
	kill "$1" 2> /dev/null
	for _ in $(seq 50); do kill -0 "$1" 2> /dev/null || break; sleep 0.1; done
	kill -9 "$1" 2> /dev/null
	wait "$1" 2> /dev/null
}
cleanup() { stop "$sm_pid"; stop "$sim_pid"; ts_cleanup; }
trap cleanup EXIT

# mknet FAULT > FILE: the net file, healthy or with one fault (w1, unlink, moved).  The node
# records keep their order in every variant: ibsim numbers the GUIDs in that order.
mknet() {
	local f=$1 w=
	[ "$f" = w1 ] && w=" w=1"
	local n4port=1
	[ "$f" = moved ] && n4port=4
	echo 'Switch 8 "leaf1"'
	echo '[1] "node01 mlx5_0"[1]'
	echo '[2] "node02 mlx5_0"[1]'
	[ "$f" = unlink ] || echo '[3] "node03 mlx5_0"[1]'
	echo '[5] "spine1"[1]'
	echo "[6] \"spine1\"[2]$w"
	echo '[7] "spine2"[1]'
	echo '[8] "spine2"[2]'
	echo
	echo 'Switch 8 "leaf2"'
	echo "[$n4port] \"node04 mlx5_0\"[1]"
	echo '[2] "node05 mlx5_0"[1]'
	echo '[3] "node06 mlx5_0"[1]'
	echo '[5] "spine1"[3]'
	echo '[6] "spine1"[4]'
	echo '[7] "spine2"[3]'
	echo '[8] "spine2"[4]'
	echo
	echo 'Switch 8 "spine1"'
	echo '[1] "leaf1"[5]'
	echo "[2] \"leaf1\"[6]$w"
	echo '[3] "leaf2"[5]'
	echo '[4] "leaf2"[6]'
	echo
	echo 'Switch 8 "spine2"'
	echo '[1] "leaf1"[7]'
	echo '[2] "leaf1"[8]'
	echo '[3] "leaf2"[7]'
	echo '[4] "leaf2"[8]'
	for h in 01 02 03 04 05 06; do
		echo
		echo "Hca 1 \"node$h mlx5_0\""
		case $h in
		01) echo '[1] "leaf1"[1]' ;; 02) echo '[1] "leaf1"[2]' ;;
		03) [ "$f" = unlink ] || echo '[1] "leaf1"[3]' ;;
		04) echo "[1] \"leaf2\"[$n4port]" ;; 05) echo '[1] "leaf2"[2]' ;; 06) echo '[1] "leaf2"[3]' ;;
		esac
	done
}

# start_sim NETFILE [console|duplicates]: ibsim on it, ready (it says so in its log); with
# "console" its console reads the fifo NETFILE.con, written through fd 3 (sim_set); with
# "duplicates" a GUID given twice in the net file is simulated twice
start_sim() {
	: > "$1.sim.log"
	if [ "${2:-}" = console ]; then
		mkfifo "$1.con"
		ibsim -s "$1" < "$1.con" > "$1.sim.log" 2>&1 &
		sim_pid=$!
		exec 3> "$1.con"
	elif [ "${2:-}" = duplicates ]; then # -I: a net file with a GUID twice is taken as it is
		ibsim -I -n -s "$1" > "$1.sim.log" 2>&1 &
		sim_pid=$!
	else
		ibsim -n -s "$1" > "$1.sim.log" 2>&1 &
		sim_pid=$!
	fi
	sim_log=$1.sim.log
	for _ in $(seq 100); do grep -q "simulator ready" "$1.sim.log" && return 0; sleep 0.1; done
	ts_die "ibsim did not start on $1: $(tail -3 "$1.sim.log")"
}
stop_sim() { exec 3>&-; stop "$sim_pid"; sim_pid=; }
# sim_set NODE PORT COUNTER VALUE: ibsim's console sets a port's counter (PerformanceSet), done
sim_set() {
	echo "PerformanceSet \"$1\"[$2] PortCounters.$3=$4" >&3
	for _ in $(seq 50); do grep -qF "$1[$2] PortCounters.$3 has been set to $4" "$sim_log" && return 0; sleep 0.1; done
	ts_die "ibsim: PerformanceSet $1[$2] $3 not done: $(tail -2 "$sim_log")"
}

# start_sm [LMC]: opensm on the simulated fabric until every cabled port is Active; with LMC,
# each port gets 2^LMC LIDs from an aligned base
start_sm() {
	opensm -c osm.conf > /dev/null 2>&1 || ts_die "opensm -c"
	sed -i "s#^log_file .*#log_file $work/osm.log#; s#^dump_files_dir .*#dump_files_dir $work/#" osm.conf
	[ -n "${1:-}" ] && sed -i "s#^lmc .*#lmc $1#" osm.conf
	mkdir -p osmcache
	OSM_CACHE_DIR=$work/osmcache OSM_TMP_DIR=$work ibsim-run opensm -F osm.conf > osm.out 2>&1 &
	sm_pid=$!
	for _ in $(seq 100); do
		if timeout 5 ibsim-run iblinkinfo --switches-only -l 2> /dev/null > links.now &&
			grep -q Active links.now && ! grep -q Initialize links.now; then
			return 0
		fi
		sleep 0.2
	done
	ts_die "opensm did not bring the ports up: $(tail -3 osm.out)"
}
stop_sm() { stop "$sm_pid"; sm_pid=; }

# run NAME ARGS...: rdma-doctor fabric under ibsim-run (live), JSON to NAME.json, status in rc_NAME
run() {
	local name=$1
	shift
	timeout 60 ibsim-run "$bin" fabric --format json "$@" > "$name.json" 2> "$name.err"
	eval "rc_$name=\$?"
}
# findings NAME: "STATUS check subject" of every finding above OK, sorted
findings() { jq -r '.findings[] | select(.status != "OK") | "\(.status) \(.check) \(.subject)"' "$1.json" | sort; }
expect_findings() { # NAME EXPECTED-LINES
	local got
	got=$(findings "$1")
	if [ "$got" = "$2" ]; then ok "$1 findings"; else bad "$1: findings '$got', expected '$2'"; fi
}
expect_rc() { # NAME STATUS
	local v="rc_$1"
	if [ "${!v}" = "$2" ]; then ok "$1 exit"; else bad "$1: exit ${!v}, expected $2 ($(head -c 300 "$1.err"))"; fi
}

for f in base w1 unlink moved; do mknet $f > $f.net; done

# healthy, no subnet manager: the ports stay Initialize
start_sim base.net
run nosm
expect_findings nosm "FAIL fabric.sm subnet manager"
expect_rc nosm 2
# healthy, opensm: nothing above OK; the reference is saved
start_sm
run base --save base.ref --expect 'node[01-06]'
expect_findings base ""
expect_rc base 0
jq -e '.schema == "rdma-doctor/fabric/v1" and .summary.switches == 4 and .summary.cas == 6 and .summary.hosts == 6
	and .summary.links == 14 and .sm.state_name == "SMINFO_MASTER" and .sm.lid > 0
	and ([.nodes[] | select(.kind == "CA") | .host] | sort == ["node01","node02","node03","node04","node05","node06"])
	and ([.nodes[] | select(.kind == "CA") | .device] | unique == ["mlx5_0"])
	and ([.nodes[] | select(.kind == "SW") | .level] | sort == [1,1,2,2])
	and ([.links[] | select(.b != null) | .state] | unique == ["Active"])
	and ([.links[] | select(.b != null) | .a.lid, .b.lid] | all(. > 0))' base.json > /dev/null &&
	ok || bad "base: the JSON document's summary, SM, nodes, tiers and LIDs"
jq -e '.schema == "rdma-doctor/fabric-ref/v1" and (.links | length) == 14' base.ref > /dev/null && ok || bad "base.ref"
jq -e '[.findings[] | select(.check == "fabric.link.capability")] | length == 2' base.json > /dev/null &&
	ok || bad "base: one capability note per tier"
# capture DIR: the real tools' outputs into DIR, by the names `fabric DIR` reads
capture() {
	mkdir "$1"
	local c n
	for c in "iblinkinfo-switches-only-l iblinkinfo --switches-only -l" "ibnetdiscover-p ibnetdiscover -p" "sminfo sminfo" \
		"ibqueryerrors ibqueryerrors"; do
		set -- "$1" $c
		n=$2
		timeout 30 ibsim-run "${@:3}" > "$1/$n" 2> /dev/null
	done
}
# same_as_dir NAME DIR: `fabric DIR` gives NAME's findings and summary
same_as_dir() {
	"$bin" fabric "$2" --format json "${@:3}" > "$2.json" 2> /dev/null
	if diff <(jq -c '[.findings[] | [.check, .status, .subject]], .summary' "$1.json") \
		<(jq -c '[.findings[] | [.check, .status, .subject]], .summary' "$2.json") > /dev/null; then
		ok; else bad "fabric $2 differs from the live run $1"; fi
}
capture cap-base
"$bin" fabric cap-base --format json > capbase.json 2> capbase.err
rc_capbase=$?
expect_rc capbase 0
same_as_dir base cap-base --expect 'node[01-06]'
"$bin" fabric cap-base > capbase.txt 2>&1
grep -q "^Fabric (cap-base): 4 switches, 6 CA ports on 6 hosts, 14 links (14 Active)" capbase.txt &&
	grep -q "^Status: OK" capbase.txt && ok || bad "fabric DIR text: $(head -3 capbase.txt)"
stop_sm
stop_sim

# one leaf-spine cable trained at 1X
start_sim w1.net console
start_sm
run w1
expect_findings w1 "WARN fabric.link.degraded leaf1[6] - spine1[2]"
expect_rc w1 1
jq -e '.findings[] | select(.check == "fabric.link.degraded") | .message | test("1X 2.5 Gbps") and test("7 of its 7 sibling links")' \
	w1.json > /dev/null && ok || bad "w1: the degraded link's message: $(jq -r '.findings[0].message' w1.json)"
jq -e '.findings[] | select(.check == "fabric.link.errors") | .status == "OK" and (.message | test("38 ports checked"))' \
	w1.json > /dev/null && ok "w1: ibqueryerrors run, no counter above its threshold" || bad "w1: ibqueryerrors: $(jq -c '.inputs' w1.json)"
capture cap-w1
same_as_dir w1 cap-w1
# the same cable's ends erring (ibsim's console sets the counters the real ibqueryerrors reads):
# symbol errors at one end, LinkDownedCounter saturated (8 bits) at the other; a host's port above
# PortRcvErrors' threshold and its leaf's end below it; a host's discards below their threshold
sim_set leaf1 6 SymbolErrorCounter 500
sim_set spine1 2 LinkDownedCounter 255
sim_set "node05 mlx5_0" 1 PortRcvErrors 12
sim_set leaf2 2 PortRcvErrors 3
sim_set "node02 mlx5_0" 1 PortXmitDiscards 7
run w1err
expect_findings w1err "FAIL fabric.link.errors leaf1[6] - spine1[2]
WARN fabric.link.degraded leaf1[6] - spine1[2]
WARN fabric.link.errors leaf2[2] - node05 mlx5_0[1]"
expect_rc w1err 2
jq -e '[.findings[] | select(.check == "fabric.link.errors" and .status == "FAIL") | .message][0]
	| test("spine1\\[2\\] LinkDownedCounter 255, saturated") and test("leaf1\\[6\\] SymbolErrorCounter 500 \\(threshold 10")' \
	w1err.json > /dev/null && ok "w1err: both ends named, the saturated counter said" || bad "w1err: $(jq -r '.findings[0].message' w1err.json)"
jq -e '(.inputs[] | select(.name == "ibqueryerrors") | .state) == "read"' w1err.json > /dev/null &&
	ok "w1err: ibqueryerrors' exit status 1 (counters above threshold) is a read" || bad "w1err: $(jq -c '.inputs' w1err.json)"
capture cap-w1err
same_as_dir w1err cap-w1err
# --format prometheus --output: node_exporter's textfile, written by a rename (nothing else left in
# the directory), accepted by promtool; each cable's width and worst finding, the counters, the
# findings as in the JSON; a directory that cannot be written: exit 3 and its name
mkdir prom
timeout 60 ibsim-run "$bin" fabric --format prometheus --output prom/fabric.prom > prom.out 2> prom.err
rc=$?
[ $rc = 2 ] && [ ! -s prom.out ] && [ "$(ls -A prom)" = fabric.prom ] && ok "prometheus: --output writes the file alone, exit 2" ||
	bad "prometheus: exit $rc, stdout $(head -c 200 prom.out), dir $(ls -A prom), $(head -c 300 prom.err)"
out=$(promtool check metrics < prom/fabric.prom 2>&1) && ok "prometheus: promtool check metrics" || bad "promtool: $out"
cable='a_guid="0x0000000000200000",a_port="6",a_desc="leaf1",b_guid="0x0000000000200002",b_port="2",b_desc="spine1"'
for want in "rdma_doctor_fabric_link_width_lanes{$cable} 1" "rdma_doctor_fabric_link_could_width_lanes{$cable} 12" \
	"rdma_doctor_fabric_link_status{$cable} 2" "rdma_doctor_fabric_link_active{$cable} 1" \
	'rdma_doctor_fabric_port_errors_total{guid="0x0000000000200002",port="2",desc="spine1",counter="LinkDownedCounter"} 255' \
	'rdma_doctor_fabric_check_status{check="fabric.link.degraded",subject="leaf1[6] - spine1[2]"} 1' \
	'rdma_doctor_fabric_status 2' 'rdma_doctor_fabric_links 14' 'rdma_doctor_fabric_input_read{input="ibqueryerrors"} 1'; do
	grep -qxF "$want" prom/fabric.prom && ok "prometheus: $want" || bad "prometheus: no line '$want'"
done
[ "$(grep -c '^rdma_doctor_fabric_link_status{.*} 0$' prom/fabric.prom)" = 12 ] && ok "prometheus: the 12 other cables 0" ||
	bad "prometheus: link_status: $(grep '^rdma_doctor_fabric_link_status' prom/fabric.prom)"
[ "$(jq '[.findings[] | select(.status == "WARN")] | length' w1err.json)" = "$(sed -n 's/^rdma_doctor_fabric_findings{status="WARN"} //p' prom/fabric.prom)" ] &&
	ok "prometheus: the WARN count of the JSON" || bad "prometheus: WARN count differs from w1err.json"
# snapshot --fabric: the tools' outputs (and dump_fts) in the snapshot, judged elsewhere as here;
# ibqueryerrors' exit status 1 kept; a host without an umad port: nothing written, exit 3
timeout 300 ibsim-run "$bin" snapshot --fabric -o snapf.tar.gz > snapf.out 2> snapf.err
rc=$?
[ $rc = 0 ] && ok "snapshot --fabric: written" || bad "snapshot --fabric: exit $rc $(head -c 300 snapf.err)"
# (grep without -q: under pipefail, a grep that stops at the first match can kill tar by SIGPIPE)
tar -xzf snapf.tar.gz -O rdma-doctor/commands/ibqueryerrors.status 2> /dev/null | grep -x 1 > /dev/null &&
	tar -tzf snapf.tar.gz | grep -x 'rdma-doctor/commands/dump_fts' > /dev/null && ok "snapshot --fabric: the commands and their statuses" ||
	bad "snapshot --fabric: ibqueryerrors.status '$(tar -xzf snapf.tar.gz -O rdma-doctor/commands/ibqueryerrors.status 2>&1)', $(tar -tzf snapf.tar.gz | grep commands/ | tr '\n' ' ')"
"$bin" fabric snapf.tar.gz --format json > snapf.json 2> /dev/null
rc_snapf=$?
expect_findings snapf "$(findings w1err)"
expect_rc snapf 2
"$bin" --root snapf.tar.gz fabric --route node01 node05 --format json > snapr.json 2> snapr.err &&
	jq -e '.routes[0].hops | length >= 3' snapr.json > /dev/null && ok "snapshot --fabric: --route from its dump_fts" ||
	bad "snapshot --fabric --route: $(head -c 300 snapr.err)"
"$bin" snapshot --fabric -o nofab.tar.gz > /dev/null 2> nofab.err
rc=$?
[ $rc = 3 ] && [ ! -e nofab.tar.gz ] && grep -q 'no /dev/infiniband/umad' nofab.err && ok "snapshot --fabric without an umad port" ||
	bad "snapshot --fabric without umad: exit $rc $(cat nofab.err)"
"$bin" fabric cap-w1err --format prometheus --output no-such-dir/fabric.prom > /dev/null 2> prom2.err
rc=$?
[ $rc = 3 ] && grep -q 'no-such-dir' prom2.err && ok "prometheus: an output directory that is not there: exit 3, named" ||
	bad "prometheus: bad --output: exit $rc $(cat prom2.err)"
# --state-dir: the first run keeps the counters (judged as above), the next judges their rise: none
# (old errors: OK, the saturated one WARN: a rise cannot be seen), then node05's port erring again
mkdir -m 755 sd
run w1s1 --state-dir sd
expect_findings w1s1 "$(findings w1err)"
[ -f sd/_fabric.link-state ] && grep -q "^c 0x0000000000200000 6 SymbolErrorCounter 500$" sd/_fabric.link-state &&
	ok "state: the counters kept" || bad "state: $(ls sd; cat sd/_fabric.link-state)"
run w1s2 --state-dir sd
expect_findings w1s2 "WARN fabric.link.degraded leaf1[6] - spine1[2]
WARN fabric.link.errors leaf1[6] - spine1[2]"
jq -e '[.findings[] | select(.check == "fabric.link.errors" and .status == "OK") | .subject] == ["leaf2[2] - node05 mlx5_0[1]"]' \
	w1s2.json > /dev/null && ok "state: unchanged counters are old errors" || bad "state: $(jq -c '[.findings[] | [.status, .subject, .message]]' w1s2.json)"
sim_set "node05 mlx5_0" 1 PortRcvErrors 20
run w1s3 --state-dir sd
expect_findings w1s3 "WARN fabric.link.degraded leaf1[6] - spine1[2]
WARN fabric.link.errors leaf1[6] - spine1[2]
WARN fabric.link.errors leaf2[2] - node05 mlx5_0[1]"
jq -e '.findings[] | select(.subject == "leaf2[2] - node05 mlx5_0[1]") | .message | test("PortRcvErrors 20, up 8 in")' \
	w1s3.json > /dev/null && ok "state: the rise since the baseline" || bad "state: $(jq -c '[.findings[] | [.status, .subject, .message]]' w1s3.json)"
# a state file that is not one: said, a new history, the counters judged as without one
echo garbage > sd/_fabric.link-state
"$bin" fabric cap-w1err --state-dir sd --format json > badstate.json 2> badstate.err
rc=$?
[ $rc = 2 ] && grep -q "not a link state file.*a new history; the counters are judged without a baseline" badstate.err &&
	grep -q "^host _fabric$" sd/_fabric.link-state && ok "state: a state file that is not one" || bad "state: bad file: $rc $(cat badstate.err)"
stop_sm
stop_sim

# node03's cable unplugged
start_sim unlink.net
start_sm
run unlink --against base.ref --expect 'node[01-06]'
expect_findings unlink "FAIL fabric.expect node03
FAIL fabric.ref.missing leaf1[3] - node03 mlx5_0[1]"
expect_rc unlink 2
stop_sm
stop_sim

# node04 moved from leaf2[1] to leaf2[4]
start_sim moved.net
start_sm
run moved --against base.ref --expect 'node[01-06]'
expect_findings moved "WARN fabric.ref.moved leaf2[1] - node04 mlx5_0[1]"
expect_rc moved 1
jq -e '.findings[] | select(.check == "fabric.ref.moved") | .message | test("now goes to leaf2\\[4\\]")' moved.json > /dev/null &&
	ok || bad "moved: the message names the new port: $(jq -r '.findings[] | select(.status != "OK") | .message' moved.json)"
run same --against base.ref
expect_findings same "WARN fabric.ref.moved leaf2[1] - node04 mlx5_0[1]"
stop_sm
stop_sim

# two hosts with one port GUID (caguid given twice): the real discovery keeps the first, the
# switch port of the second is up but "Port not available"; no subnet manager is needed
printf '%s\n' 'Switch 8 "leaf1"' '[1] "node01 mlx5_0"[1]' '[2] "node02 mlx5_0"[1]' '' \
	'caguid=0x0000000000100011' 'Hca 1 "node01 mlx5_0"' '[1] "leaf1"[1]' '' \
	'caguid=0x0000000000100011' 'Hca 1 "node02 mlx5_0"' '[1] "leaf1"[2]' > dup.net
start_sim dup.net duplicates
run dup
# (the one cable left has no sibling to compare with: its capability note is a WARN)
expect_findings dup "FAIL fabric.sm subnet manager
WARN fabric.duplicate leaf1[1]
WARN fabric.link.capability leaf1[2] - node01 mlx5_0[1]"
jq -e '.findings[] | select(.check == "fabric.duplicate") | .message | test("a port GUID that another port already has")' \
	dup.json > /dev/null && ok "dup: the message says what it may be" || bad "dup: $(jq -c '.findings' dup.json | head -c 400)"
stop_sim

# LMC 2: every port owns four LIDs from a base aligned to four; the fabric is as healthy as with
# one LID a port (no duplicate-LID finding from the ranges), the reference still matches (LIDs are
# not part of it), and --route between two hosts follows their base LIDs
start_sim base.net
start_sm 2
grep -q '^lmc 2$' osm.conf || bad "lmc: osm.conf has no 'lmc 2'"
run lmc --against base.ref --expect 'node[01-06]'
expect_findings lmc ""
expect_rc lmc 0
if jq -e '[.links[] | select(.b != null) | .a, .b | select(.lid != null and .lid > 0) | .lid] as $l
	| ($l | length) > 0' lmc.json > /dev/null; then ok "lmc: the links carry their ends' LIDs"; else bad "lmc: no LIDs in the links"; fi
timeout 10 ibsim-run ibnetdiscover -p > lmc.disc 2> /dev/null
timeout 10 ibsim-run ibnetdiscover > lmc.topo 2> /dev/null
n=$(grep -cE '# lid [0-9]+ lmc 2 ' lmc.topo)
[ "$n" = 6 ] && ok "lmc: the real ibnetdiscover says lmc 2 for each of the six hosts' ports" ||
	bad "lmc: ibnetdiscover: $n ports with lmc 2: $(grep -m2 'lmc' lmc.topo)"
if awk '$1 == "CA" { if ($2 % 4) bad = 1; n++ } END { exit !(n == 6 && !bad) }' lmc.disc; then ok "lmc: every host's base LID is a multiple of 4"
else bad "lmc: base LIDs $(awk '$1 == "CA" { print $2 }' lmc.disc | tr '\n' ' ')"; fi
timeout 60 ibsim-run "$bin" fabric --route node01 node05 --format json > lmcr.json 2> lmcr.err
if jq -e '.routes[0].hops | length >= 3' lmcr.json > /dev/null; then ok "lmc: --route node01 node05 with four LIDs a port"
else bad "lmc --route: $(head -c 300 lmcr.err) $(head -c 300 lmcr.json)"; fi
stop_sm
stop_sim

# ---- routes: fabric --route and fabric --pairs (the slow pairs' routes joined) ----
# Three leaf and two spine switches, three hosts a leaf, one cable from each leaf to each spine;
# the leaf1-spine1 cable at w=1 (mkroute w1), or not.  LIDs and forwarding tables from opensm.
mkroute() {
	local w= l s h p
	[ "$1" = w1 ] && w=" w=1"
	for l in 1 2 3; do
		echo "Switch 8 \"leaf$l\""
		for p in 1 2 3; do echo "[$p] \"node$(( (l - 1) * 3 + p )) mlx5_0\"[1]"; done
		if [ "$l" = 1 ]; then echo "[5] \"spine1\"[1]$w"; else echo "[5] \"spine1\"[$l]"; fi
		echo "[6] \"spine2\"[$l]"
		echo
	done
	for s in 1 2; do
		echo "Switch 8 \"spine$s\""
		for l in 1 2 3; do
			if [ "$s$l" = 11 ]; then echo "[1] \"leaf1\"[5]$w"; else echo "[$l] \"leaf$l\"[$((4 + s))]"; fi
		done
		echo
	done
	for h in 1 2 3 4 5 6 7 8 9; do
		echo "Hca 1 \"node$h mlx5_0\""
		echo "[1] \"leaf$(( (h - 1) / 3 + 1 ))\"[$(( (h - 1) % 3 + 1 ))]"
		echo
	done
}
# lids FILE: "host LID" of every CA port, from ibnetdiscover -p
lids() { awk '$1 == "CA" { split($0, q, "\x27"); split(q[2], d, " "); print d[1], $2 }' "$1"; }
# trace SLID DLID: the real ibtracert's hops as "GUID IN OUT" lines (the source's GUID left out)
trace() {
	timeout 10 ibsim-run ibtracert "$1" "$2" 2> /dev/null | awk '
		/^\[/ { match($0, /^\[[0-9]+\]/); out = substr($0, 2, RLENGTH - 2); if (n) print g, in_, out; else first = out
			match($0, /\{0x[0-9a-f]+\}\[[0-9]+\]/); s = substr($0, RSTART, RLENGTH); g = substr(s, 2, 18)
			in_ = substr(s, 22, length(s) - 22); n++ }
		/^To / { print g, in_, "-" }'
}
# pairs: every pair of the nine hosts, the client the one of the pair whose turn it is, and the
# real route from client to server (ibtracert) in tr/CLIENT-SERVER
pairs() {
	local i j c s
	mkdir tr
	for i in 1 2 3 4 5 6 7 8; do
		for j in $(seq $((i + 1)) 9); do
			if [ $(((i + j) % 2)) = 0 ]; then c=$i s=$j; else c=$j s=$i; fi
			trace "${lid[$c]}" "${lid[$s]}" > "tr/$c-$s"
			[ -s "tr/$c-$s" ] || ts_die "ibtracert ${lid[$c]} ${lid[$s]}: no route"
		done
	done
}
# standins NAME CABLE-RE: stand-in pair results (no HCA here: the test writes the bandwidths) for
# the pairs of tr/: 96 Gb/s for those whose real route crosses the cable CABLE-RE matches in
# trace's "GUID IN OUT" lines, 390 Gb/s for the others; the slow pairs in NAME.slow
standins() {
	local t c s g
	: > "$1.res"
	: > "$1.slow"
	for t in tr/*; do
		c=${t#tr/} s=${c#*-} c=${c%-*}
		g=390
		if [ -n "$2" ] && grep -qE "$2" "$t"; then g=96; echo "node$c node$s" >> "$1.slow"; fi
		printf '{"schema": "rdma-doctor/pair/v1", "round": 1, "server": "node%s", "client": "node%s", "rails": [{"server_device": "mlx5_0", "client_device": "mlx5_0", "gbps": %s, "line_gbps": 400, "lat_us": 2.1, "error": null}], "error": null}\n' \
			"$s" "$c" "$g" >> "$1.res"
	done
}
mkroute w1 > route.net
start_sim route.net
start_sm
capture cap-route
timeout 30 ibsim-run dump_fts > cap-route/dump_fts 2> /dev/null || bad "dump_fts"
declare -A lid
while read -r h l; do lid[${h#node}]=$l; done < <(lids cap-route/ibnetdiscover-p)
[ "${#lid[@]}" = 9 ] || ts_die "route: the nine hosts' LIDs from ibnetdiscover: ${!lid[*]}"
l1=$(awk '$1 == "SW" && $3 == 5 && /leaf1.*spine1/ { print $4; exit }' cap-route/ibnetdiscover-p)
s1=$(awk '$1 == "SW" && $3 == 1 && /spine1.*leaf1/ { print $4; exit }' cap-route/ibnetdiscover-p)
pairs
# the degraded cable in trace's lines: leaving leaf1 by port 5, or spine1 by port 1
standins w1r "^$l1 [0-9]+ 5\$|^$s1 [0-9]+ 1\$"
nslow=$(wc -l < w1r.slow)
[ "$nslow" -ge 4 ] && [ "$(cut -d' ' -f1 w1r.slow | sort -u | wc -l)" -ge 2 ] &&
	[ "$(cut -d' ' -f2 w1r.slow | sort -u | wc -l)" -ge 2 ] && ok "route: the degraded cable carries pairs of several hosts" || bad "route: the degraded cable carries $nslow pairs: $(tr '\n' ',' < w1r.slow)"
# --route node1 node8 hop for hop as ibtracert prints it, live and from the forwarding tables
trace "${lid[1]}" "${lid[8]}" > tr18.txt
timeout 60 ibsim-run "$bin" fabric --route node1 node8 --format json > r18.json 2> r18.err
rc=$?
"$bin" fabric cap-route --route node1 node8 --format json > r18cap.json 2> r18cap.err
rc_cap=$?
hops() { jq -r '.routes[0].hops[1:][] | "\(.guid) \(.in_port) \(.out_port // "-")"' "$1"; }
[ $rc = 0 ] && [ $rc_cap = 0 ] && [ -s tr18.txt ] && diff tr18.txt <(hops r18.json) > /dev/null &&
	diff tr18.txt <(hops r18cap.json) > /dev/null && ok "route node1 node8: ibtracert's hops, live and by dump_fts" ||
	bad "route node1 node8: ibtracert '$(tr '\n' ',' < tr18.txt)', live '$(hops r18.json | tr '\n' ',')' ($rc), dump_fts '$(hops r18cap.json | tr '\n' ',')' ($rc_cap)"
jq -e '.schema == "rdma-doctor/fabric-route/v1" and .via == "ibtracert" and (.routes | length) == 1
	and .routes[0].from.host == "node1" and .routes[0].to.host == "node8" and .routes[0].hops[0].kind == "CA"
	and ([.routes[0].hops[1:-1][] | .kind] | unique == ["SW"]) and ([.routes[0].hops[:-1][] | .width] | all(. == 4 or . == 1))' \
	r18.json > /dev/null && ok "route node1 node8: the JSON document" || bad "route node1 node8: the JSON document: $(head -c 300 r18.json)"
"$bin" fabric cap-route --route node1 node8 > r18.txt 2>&1
grep -q "^Route node1 mlx5_0 (LID ${lid[1]}) -> node8 mlx5_0 (LID ${lid[8]}), by dump_fts:" r18.txt && ok "route text" || bad "route text: $(head -2 r18.txt)"
# the slow pairs' routes joined: exactly the degraded cable, live and from the captures
suspect() { jq -r '.findings[] | select(.check == "fabric.route.suspect") | "\(.status) \(.subject)"' "$1"; }
timeout 60 ibsim-run "$bin" fabric --pairs w1r.res --format json > j-w1.json 2> j-w1.err
rc_j=$?
[ "$(suspect j-w1.json)" = "WARN leaf1[5] - spine1[1]" ] && [ $rc_j = 1 ] && [ "$(jq -r .via j-w1.json)" = dump_fts ] && ok "pairs standin (no HCA), degraded: exactly that cable" ||
	bad "pairs standin, degraded: suspect '$(suspect j-w1.json)' exit $rc_j ($(head -c 200 j-w1.err))"
jq -e --argjson n "$nslow" '.summary.slow == $n and .summary.healthy == 36 - $n and .summary.routed == 36
	and ([.findings[] | select(.status != "OK")] | length) == 1
	and (.findings[0].evidence | map(select(.path == "cable")) | .[0].value | test("leaf1 \\(0x[0-9a-f]{16}\\) port 5 - spine1 \\(0x[0-9a-f]{16}\\) port 1, 1X"))
	and ([.links[] | select(.slow_pairs == $n)] | length) == 1' j-w1.json > /dev/null &&
	ok "pairs standin (no HCA), degraded: the document" || bad "pairs standin, degraded: the document: $(jq -c '.summary, .findings' j-w1.json | head -c 600)"
"$bin" fabric cap-route --pairs w1r.res --format json > jc-w1.json 2> jc-w1.err
[ "$(suspect jc-w1.json)" = "WARN leaf1[5] - spine1[1]" ] && [ "$(jq -r .via jc-w1.json)" = dump_fts ] && ok "pairs standin (no HCA), degraded, from the captures" ||
	bad "pairs standin, degraded, from the captures: '$(suspect jc-w1.json)' ($(head -c 200 jc-w1.err))"
# no slow pair: no suspect (OK), from the captures
standins fast ""
"$bin" fabric cap-route --pairs fast.res --format json > j-fast.json 2> j-fast.err
rc_j=$?
[ "$(suspect j-fast.json)" = "OK fabric" ] && [ $rc_j = 0 ] && ok "pairs standin (no HCA), none slow: no suspect" || bad "pairs standin, none slow: '$(suspect j-fast.json)' exit $rc_j"
# usage errors; a directory without forwarding tables; a host not in the fabric
"$bin" fabric cap-route --route node1 > /dev/null 2>&1
[ $? = 3 ] && ok || bad "--route with one host: not a usage error"
"$bin" fabric cap-route --route node1 node2 --pairs fast.res > /dev/null 2>&1
[ $? = 3 ] && ok || bad "--route with --pairs: not a usage error"
"$bin" fabric cap-base --route node01 node02 > /dev/null 2> nofts.err
[ $? = 3 ] && grep -q "no forwarding tables (no dump_fts)" nofts.err && ok || bad "no dump_fts: $(cat nofts.err)"
"$bin" fabric cap-route --route node1 gpu7 > /dev/null 2> nohost.err
[ $? = 3 ] && grep -q "no CA port of gpu7 in the fabric" nohost.err && ok || bad "a host not in the fabric: $(cat nohost.err)"
stop_sm
stop_sim

# a reference that is not one; no umad port and no simulator; two directories; a directory without captures
echo '{"schema": "rdma-doctor/fabric-ref/v1", "links": [{"a": {}}]}' > bad.ref
"$bin" fabric cap-base --against bad.ref > /dev/null 2> badref.err
[ $? = 3 ] && grep -q "^rdma-doctor: fabric: --against bad.ref: " badref.err && ok || bad "bad reference: $(cat badref.err)"
if ! ls /dev/infiniband/umad* > /dev/null 2>&1; then
	env -u LD_PRELOAD "$bin" fabric > /dev/null 2> noumad.err
	[ $? = 3 ] && grep -q "no /dev/infiniband/umad" noumad.err && ok || bad "no umad: $(cat noumad.err)"
fi
"$bin" fabric cap-base cap-base > /dev/null 2>&1
[ $? = 3 ] && ok || bad "two directories: not a usage error"
mkdir empty
"$bin" fabric empty --format json > empty.json 2> /dev/null
[ $? = 3 ] && jq -e '.findings[0].check == "fabric.input" and .findings[0].status == "UNKNOWN"' empty.json > /dev/null &&
	ok || bad "a directory without captures: $(head -c 300 empty.json)"
# nothing of the subnet manager outside the scratch directory
[ ! -e /var/cache/opensm/guid2lid ] || bad "opensm wrote /var/cache/opensm"
ts_finalize
