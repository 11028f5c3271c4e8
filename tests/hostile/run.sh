#!/usr/bin/env bash
# Hostile roots: attribute files that are empty, 100 MB, binary, unreadable (mode 000),
# directories where files belong, symbolic-link loops, links out of the root, a FIFO as a port's
# state, thousands of devices, a device whose directory is gone between listing and reading.
# Every command must still print its whole report (no crash, no hang: each run is guarded by a
# 120 s timeout that only catches hangs), and what could not be read must be UNKNOWN, naming the
# path and the error.  (ibstat exiting 255 is rdma-core's own ibpanic on a broken CA, as the real one.)
#     Usage: tests/hostile/run.sh [BUILD_DIR]     Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
bin=$build/rdma-doctor
work=$(mktemp -d /tmp/rd-hostile.XXXXXX)
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
export NO_COLOR=1
P=sys/devices/pci0000:00/0000:00:01.0/0000:9a:00.0/infiniband/mlx5_1
D0=sys/devices/pci0000:00/0000:00:01.0/0000:1b:00.0/infiniband/mlx5_0

make_root() { # NAME -> $work/NAME: the healthy inbox host with one thing made hostile
	local r=$work/$1
	"$top/tests/scenarios/make.sh" "$work/.b" healthy-inbox > /dev/null && rm -rf "$r" && mv "$work/.b/healthy-inbox" "$r"
	case "$1" in
	empty-attrs) for f in state phys_state rate lid sm_lid link_layer; do : > "$r/$P/ports/1/$f"; done; : > "$r/$P/fw_ver" ;;
	huge-attr) truncate -s 100M "$r/$P/ports/1/rate" ;;
	binary-attrs) head -c 4096 /dev/urandom > "$r/$P/ports/1/state"; head -c 300 /dev/urandom > "$r/$P/node_guid"
		head -c 5000 /dev/urandom > "$r/proc/modules" ;;
	unreadable) chmod 000 "$r/$P/ports/1/state" "$r/$P/ports/1/rate" ;;
	dir-for-file) rm "$r/$P/ports/1/state"; mkdir "$r/$P/ports/1/state"; rm "$r/$D0/fw_ver"; mkdir "$r/$D0/fw_ver" ;;
	link-loop) rm -rf "$r/$P/ports/1"; ln -s 1 "$r/$P/ports/1"; ln -s loop2 "$r/sys/class/infiniband/loop1"; ln -s loop1 "$r/sys/class/infiniband/loop2" ;;
	link-outside) rm "$r/$P/fw_ver"; ln -s ../../../../../../../../../../../etc/hostname "$r/$P/fw_ver"
		rm "$r/$P/board_id"; ln -s /etc/shadow "$r/$P/board_id"; echo "root-local" > "$r/etc/shadow" ;;
	fifo-state) rm "$r/$P/ports/1/state"; mkfifo "$r/$P/ports/1/state" ;;
	device-gone) rm -rf "$r/$P" ;; # the class link stays: listed, then nothing to read
	many-devices)
		for i in $(seq 3 2002); do
			d=sys/devices/virtual/infiniband/mlx5_$i
			mkdir -p "$r/$d" && cp -r "$r/$D0/ports" "$r/$D0/node_type" "$r/$D0/fw_ver" "$r/$D0/board_id" "$r/$D0/hca_type" "$r/$D0/node_guid" "$r/$D0/sys_image_guid" "$r/$d/"
			ln -s "../../devices/virtual/infiniband/mlx5_$i" "$r/sys/class/infiniband/mlx5_$i"
		done ;;
	esac
}
run() { # NAME ARGS... : the command must finish and print its report
	local name=$1; shift
	timeout 120 "$bin" --root "$work/$name" "$@" > "$work/out" 2> "$work/err"
	echo $?
}
for c in empty-attrs huge-attr binary-attrs unreadable dir-for-file link-loop link-outside fifo-state device-gone many-devices; do
	make_root "$c"
	rc=$(run "$c" check --format json)
	if [ "$rc" = 124 ]; then bad "$c: check hung"; continue; fi
	jq -en 'input | .schema == "rdma-doctor/report/v1" and (.findings | length) >= 19' "$work/out" > /dev/null &&
		[ "$rc" -le 3 ] && ok || bad "$c: check gave no full report (exit $rc): $(head -c 300 "$work/err")"
	cp "$work/out" "$work/$c.json"
	rc=$(run "$c" check); [ "$rc" -le 3 ] && grep -qE '^(OK|WARN|FAIL|UNKNOWN): ' "$work/out" && ok || bad "$c: text report (exit $rc)"
	for cmd in stack ibstat ibstatus "snapshot -o $work/$c.snap.tar.gz"; do
		# shellcheck disable=SC2086
		rc=$(run "$c" $cmd); [ "$rc" != 124 ] && { [ "$rc" -lt 128 ] || [ "$rc" = 255 ]; } && ok || bad "$c: $cmd crashed or hung (exit $rc)"
	done
done
unk() { # NAME JQ-CONDITION DESCRIPTION: some UNKNOWN finding's evidence satisfies the condition
	jq -en "input | any(.findings[]; .status == \"UNKNOWN\" and ($2))" "$work/$1.json" > /dev/null && ok || bad "$1: no UNKNOWN $3"
}
unk empty-attrs 'any(.evidence[]; (.path | endswith("mlx5_1/ports/1/state")) and (.value | test("unexpected format")))' "for the empty state"
unk huge-attr 'any(.evidence[]; (.path | endswith("ports/1/rate")) and (.value | test("larger than")))' "naming the 100 MB rate"
unk binary-attrs 'any(.evidence[]; (.path | endswith("ports/1/state")))' "for the binary state"
unk dir-for-file 'any(.evidence[]; (.path | endswith("ports/1/state")) and (.value | test("not a regular file")))' "for the directory"
unk fifo-state 'any(.evidence[]; (.path | endswith("mlx5_1/ports/1/state")) and (.value | test("not a regular file")))' "for the FIFO"
# the FIFO root still reports the other ports fully
jq -en 'input | any(.findings[]; .check == "ports.rate" and .status == "OK")' "$work/fifo-state.json" > /dev/null && ok || bad "fifo-state: the rest of the report is missing"
# nothing outside the root was read
jq -en 'input | [.devices[] | select(.name == "mlx5_1") | .board_id] == ["root-local"] and ([.devices[] | select(.name == "mlx5_1") | .fw_ver] == ["gpu-a01"])' \
	"$work/link-outside.json" > /dev/null && ok || bad "link-outside: read outside the root: $(jq -c '[.devices[] | select(.name == "mlx5_1") | {fw_ver, board_id}]' "$work/link-outside.json")"
jq -en 'input | (.devices | length) == 2003' "$work/many-devices.json" > /dev/null && ok || bad "many-devices: not every device reported"

# A read that blocks (a wedged HCA; simulated with the RD_TEST_SLOW_READ hook, which delays the
# matching reads in the reader thread): the port is UNKNOWN "timed out", the rest of the report
# is whole.  And a whole-run deadline: everything after it is UNKNOWN, and the report still comes.
make_root slow-read
RD_TEST_SLOW_READ="mlx5_1/ports/1/state:60000" timeout 120 "$bin" --root "$work/slow-read" check --format json > "$work/slow.json"; rc=$?
jq -en 'input | any(.findings[]; .check == "ports.state" and .status == "UNKNOWN" and any(.evidence[]; .value == "<timed out>"))
	and any(.findings[]; .check == "modules.loaded" and .status == "OK") and (.findings | length) >= 19' "$work/slow.json" > /dev/null &&
	[ $rc = 3 ] && ok || bad "slow read: exit $rc $(jq -c '[.findings[] | select(.status != "OK" and .status != "SKIP") | {check, status}]' "$work/slow.json")"
RD_TEST_SLOW_READ="ports/:60000" timeout 120 "$bin" --root "$work/slow-read" --timeout 3 check --format json > "$work/slow2.json"; rc=$?
jq -en 'input | (.findings | length) >= 19 and all(.findings[]; .status != "FAIL" and .status != "WARN")
	and any(.findings[]; any(.evidence[]; .value == "<timed out>"))' "$work/slow2.json" > /dev/null &&
	[ $rc = 3 ] && ok || bad "run deadline: exit $rc $(jq -c '[.findings[] | select(.status == "FAIL" or .status == "WARN") | {check, message}]' "$work/slow2.json")"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
