#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Hostile roots: attribute files that are empty, 100 MB, binary, unreadable (mode 000),
# directories where files belong, symbolic-link loops, links out of the root, a FIFO as a port's
# state, thousands of devices, a device whose directory is gone between listing and reading.
# Every command must still print its whole report (no crash, no hang: each run is guarded by a
# 120 s timeout that only catches hangs), and what could not be read must be UNKNOWN, naming the
# path and the error.  Roots that change while read (a directory swapped for a link out), device
# nodes in a root, and a --root leading back to / are checked with strace.  (ibstat exiting 255 is rdma-core's own ibpanic on a broken CA, as the real one.)
#     Usage: tests/hostile/run.sh [BUILD_DIR]     Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$(cd "${1:-$top/build}" && pwd)
bin=$build/rdma-doctor
ts_scratch hostile
ts_init
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
	fifo-state | fifo-writer) rm "$r/$P/ports/1/state"; mkfifo "$r/$P/ports/1/state" ;;
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
# a FIFO that a writer holds open with bytes in it: opened without blocking, never read (its bytes
# stay in it), still "not a regular file"
make_root fifo-writer
exec {w}<> "$work/fifo-writer/$P/ports/1/state"
printf '4: ACTIVE\n' >&$w
rc=$(run fifo-writer check --format json)
left=$(timeout 5 head -c 10 <&$w)
exec {w}>&-
jq -en 'input | any(.findings[]; .status == "UNKNOWN" and any(.evidence[]; (.path | endswith("mlx5_1/ports/1/state")) and (.value | test("not a regular file"))))' \
	"$work/out" > /dev/null && [ "$rc" -le 3 ] && [ "$left" = "4: ACTIVE" ] && ok ||
	bad "fifo-writer: exit $rc, the FIFO's bytes read (left in it: '$left'): $(jq -c '[.findings[] | select(.check == "ports.state") | .evidence[]]' "$work/out" | head -c 300)"
# nothing outside the root was read
jq -en 'input | [.devices[] | select(.name == "mlx5_1") | .board_id] == ["root-local"] and ([.devices[] | select(.name == "mlx5_1") | .fw_ver] == ["gpu-a01"])' \
	"$work/link-outside.json" > /dev/null && ok || bad "link-outside: read outside the root: $(jq -c '[.devices[] | select(.name == "mlx5_1") | {fw_ver, board_id}]' "$work/link-outside.json")"
jq -en 'input | (.devices | length) == 2003' "$work/many-devices.json" > /dev/null && ok || bad "many-devices: not every device reported"

# Faults are injected from outside the product: tests/shim/faults.c, preloaded (RD_FAULT_SLOW
# delays the reads of matching files, RD_FAULT_NO_OPENAT2 takes openat2 away).  An ASan build
# wants its runtime first among the preloads: the order check is turned off for the shim.
shim=$work/libfaults.so
cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -shared -fPIC -o "$shim" "$top/tests/shim/faults.c" ||
	{ echo "FAIL cannot build the fault shim"; exit 1; }
export ASAN_OPTIONS=verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}

# A read that blocks (a wedged HCA): the port is UNKNOWN "timed out", the rest of the report is
# whole.  And a whole-run deadline: everything after it is UNKNOWN, and the report still comes.
make_root slow-read
LD_PRELOAD=$shim RD_FAULT_SLOW="mlx5_1/ports/1/state:60000" timeout 120 "$bin" --root "$work/slow-read" check --format json > "$work/slow.json"; rc=$?
jq -en 'input | any(.findings[]; .check == "ports.state" and .status == "UNKNOWN" and any(.evidence[]; .value == "<timed out>"))
	and any(.findings[]; .check == "modules.loaded" and .status == "OK") and (.findings | length) >= 19' "$work/slow.json" > /dev/null &&
	[ $rc = 3 ] && ok || bad "slow read: exit $rc $(jq -c '[.findings[] | select(.status != "OK" and .status != "SKIP") | {check, status}]' "$work/slow.json")"
LD_PRELOAD=$shim RD_FAULT_SLOW="ports/:60000" timeout 120 "$bin" --root "$work/slow-read" --timeout 3 check --format json > "$work/slow2.json"; rc=$?
jq -en 'input | (.findings | length) >= 19 and all(.findings[]; .status != "FAIL" and .status != "WARN")
	and any(.findings[]; any(.evidence[]; .value == "<timed out>"))' "$work/slow2.json" > /dev/null &&
	[ $rc = 3 ] && ok || bad "run deadline: exit $rc $(jq -c '[.findings[] | select(.status == "FAIL" or .status == "WARN") | {check, message}]' "$work/slow2.json")"

# ---- a root that changes while it is read: directories swapped for links out of it ----------
# A helper exchanges proc/sys/kernel and etc with links to the host's (renameat2 RENAME_EXCHANGE
# in a tight loop) while check runs again and again: the real host's name and kernel must never
# appear, with openat2 and with the O_PATH walk that replaces it on kernels without it.
cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -o "$work/swap" "$top/tests/hostile/swap.c" || { echo "FAIL cannot build swap"; exit 1; }
make_root race
ln -s /proc/sys/kernel "$work/race/proc/sys/kernel.out"
ln -s /etc "$work/race/etc.out"
real_host=$(cat /proc/sys/kernel/hostname) real_kernel=$(uname -r)
[ "$real_host" != gpu-a01 ] || real_host=never-matches
"$work/swap" "$work/race/proc/sys/kernel" "$work/race/proc/sys/kernel.out" "$work/race/etc" "$work/race/etc.out" &
swapper=$!
# (the sanitizer pass runs 5 of the 25: a memory error shows in any run, a leak of the host's
# name is the plain pass's to count)
races=25
ts_subset && { races=5; ts_skip "20 of the 25 runs per mode against the swapped root" "the plain pass ran them"; }
for mode in openat2 walk; do
	leaks=0 runs=0
	for i in $(seq $races); do
		if [ $mode = walk ]; then
			LD_PRELOAD=$shim RD_FAULT_NO_OPENAT2=1 timeout 120 "$bin" --root "$work/race" check --format json > "$work/race.json" 2> /dev/null
		else
			timeout 120 "$bin" --root "$work/race" check --format json > "$work/race.json" 2> /dev/null
		fi
		runs=$((runs + 1))
		jq -e --arg h "$real_host" '.host != $h' "$work/race.json" > /dev/null || leaks=$((leaks + 1))
		! grep -qF -- "$real_kernel" "$work/race.json" || leaks=$((leaks + 1))
	done
	[ $leaks = 0 ] && ok || bad "race ($mode): the real host leaked into $leaks of $runs reports"
done
kill $swapper; wait $swapper 2> /dev/null

if ts_subset; then
	ts_skip "strace: how the root is opened, device nodes never opened, no program run for a --root of /" "the plain pass checked these system calls"
	make_root devnodes
	while IFS= read -r f; do rm "$f" && mknod "$f" c 1 5; done < <(find "$work/devnodes/sys" -type f)
	rc=$(run devnodes check --format json)
	jq -en 'input | (.findings | length) >= 19' "$work/out" > /dev/null && [ "$rc" -le 3 ] && ok || bad "devnodes: no full report (exit $rc)"
else
	# strace: how the root is opened.  openat2 when the kernel has it; without it (the shim) one
	# component per openat, each relative to a directory descriptor; never a multi-component openat
	# below the root, in either mode.
	make_root traced
	for mode in openat2 walk; do
		pre=(); [ $mode = walk ] && pre=(env LD_PRELOAD="$shim" RD_FAULT_NO_OPENAT2=1)
		"${pre[@]}" strace -f -qq -e trace=open,openat,openat2 -o "$work/trace.$mode" "$bin" --root "$work/traced" check > /dev/null 2>&1
		multi=$(grep -E '(^|[^2])openat\(([0-9]+|AT_FDCWD), "' "$work/trace.$mode" | grep -v '"/proc/self/fd/[0-9]*"' |
			grep -E "openat\([0-9]+, \"[^\"]*/|openat\(AT_FDCWD, \"$work/traced/" | head -3)
		if [ $mode = openat2 ]; then
			grep -q 'openat2(.*RESOLVE_IN_ROOT' "$work/trace.$mode" && ok || bad "strace: no openat2 RESOLVE_IN_ROOT"
		else
			! grep -q 'openat2(' "$work/trace.$mode" && grep -qE 'openat\([0-9]+, "[^"/]+", [^)]*O_PATH' "$work/trace.$mode" &&
				ok || bad "strace ($mode): no per-component O_PATH opens"
		fi
		[ -z "$multi" ] && ok || bad "strace ($mode): multi-component openat below the root: $multi"
		grep -q "openat.*$work/traced/.*\(\.\.\|sys/class\)" "$work/trace.$mode" && bad "strace ($mode): a path below the root opened from /" || ok
	done

	# ---- device nodes in a root are never opened ----------------------------------------------
	# As root the root is read through a nodev clone of its mounts: the kernel refuses (EACCES) every
	# open of a device node, which is then fstat'ed through O_PATH; without the mount API (the shim:
	# a container, an old kernel) every file is fstat'ed through O_PATH before it is opened.  In both,
	# no open that is not O_PATH gives a descriptor of a device node.  (strace -y shows a path in the
	# clone relative to the root.)
	make_root devnodes
	n=0
	while IFS= read -r f; do rm "$f" && mknod "$f" c 1 5 && n=$((n + 1)); done < <(find "$work/devnodes/sys" -type f)
	devroot=$(cd "$work/devnodes" && pwd -P)
	for mode in nodev opath; do
		pre=(); [ $mode = opath ] && pre=(env LD_PRELOAD="$shim" RD_FAULT_NO_MOUNT_API=1)
		"${pre[@]}" strace -f -qq -y -e trace=open,openat,openat2 -o "$work/trace.dev" "$bin" --root "$work/devnodes" check > /dev/null 2>&1
		# the path each open gave, below the root
		paths() { sed -nE 's/.*\) = [0-9]+<([^>]*)>$/\1/p' | sed "s|^$devroot/|/|"; }
		opened=$(grep -v O_PATH "$work/trace.dev" | paths | while read -r p; do [ -c "$devroot$p" ] && echo "$p"; done | wc -l)
		looked=$(grep O_PATH "$work/trace.dev" | paths | while read -r p; do [ -c "$devroot$p" ] && echo "$p"; done | wc -l)
		refused=$(grep -v O_PATH "$work/trace.dev" | grep -c '= -1 EACCES' || true)
		want_refused=$([ $mode = nodev ] && echo 50 || echo -1)
		[ "$n" -gt 100 ] && [ "$looked" -gt 50 ] && [ "$opened" = 0 ] && [ "$refused" -gt "$want_refused" ] &&
			{ [ $mode = nodev ] || [ "$refused" = 0 ]; } && ok ||
			bad "devnodes ($mode): $opened of $n device nodes opened without O_PATH ($looked looked at, $refused opens refused)"
		rc=$("${pre[@]}" timeout 120 "$bin" --root "$work/devnodes" check --format json 2> /dev/null > "$work/out"; echo $?)
		jq -en 'input | (.findings | length) >= 19' "$work/out" > /dev/null && [ "$rc" -le 3 ] && ok || bad "devnodes ($mode): no full report (exit $rc)"
		jq -c '[.findings[] | {check, status, message}]' "$work/out" > "$work/devnodes.$mode"
	done
	cmp -s "$work/devnodes.nodev" "$work/devnodes.opath" && ok || bad "devnodes: the nodev clone and O_PATH give other findings"

	# ---- a root that leads back to / is a root: no program runs, no modprobe planned -------------
	ln -s / "$work/slash-link"
	for r in /. // /tmp/.. "$work/slash-link" /proc/self/root; do
		strace -f -qq -e trace=execve -o "$work/exec.txt" "$bin" --root "$r" check > /dev/null 2>&1
		execs=$(grep -c 'execve(' "$work/exec.txt")
		[ "$execs" = 1 ] && ok || bad "--root $r: $execs programs run: $(grep -o 'execve("[^"]*"' "$work/exec.txt" | sed -n 2,4p | tr '\n' ' ')"
		strace -f -qq -e trace=execve -o "$work/exec.txt" "$bin" --root "$r" fix modules > "$work/fix.out" 2>&1
		execs=$(grep -c 'execve(' "$work/exec.txt")
		[ "$execs" = 1 ] && ! grep -qE '^ +modprobe ' "$work/fix.out" && ok || bad "--root $r fix modules: $execs programs, $(grep -cE '^ +modprobe ' "$work/fix.out") modprobes planned"
	done
	RDMA_DOCTOR_ROOT=/. strace -f -qq -e trace=execve -o "$work/exec.txt" "$bin" check > /dev/null 2>&1
	[ "$(grep -c 'execve(' "$work/exec.txt")" = 1 ] && ok || bad "RDMA_DOCTOR_ROOT=/.: programs run"
fi

# ---- openat2 EAGAIN: the kernel cannot tell that a ".." stayed inside the root when a mount or a
# rename anywhere on the host races with the lookup (other runs making their nodev clones, a node
# starting containers), and retries can keep failing: the path is then walked, the report the same
make_root eagain
# (one time for both reports: two runs a second apart would differ in "time" alone)
export SOURCE_DATE_EPOCH=1700000000
"$bin" --root "$work/eagain" check --format json > "$work/eagain.plain" 2> /dev/null
env LD_PRELOAD="$shim" RD_FAULT_OPENAT2_EAGAIN=1 "$bin" --root "$work/eagain" check --format json > "$work/eagain.json" 2> /dev/null
jq -en 'input | (.findings | length) >= 19' "$work/eagain.json" > /dev/null && cmp -s "$work/eagain.plain" "$work/eagain.json" && ok ||
	bad "openat2 EAGAIN: the report differs: $(diff "$work/eagain.plain" "$work/eagain.json" | grep -m3 '^>')"
unset SOURCE_DATE_EPOCH

# ---- an archive root is read in memory: nothing written to disk, fix --apply refused ---------
make_root archived
"$bin" --root "$work/archived" snapshot -o "$work/archived.tar.gz" > /dev/null 2>&1 || bad "archived: snapshot"
mkdir "$work/tmp-empty"
TMPDIR=$work/tmp-empty strace -f -qq -e trace=mkdir,mkdirat,open,openat,openat2,unlink,unlinkat,rename,renameat,renameat2 \
	-o "$work/trace.ar" "$bin" --root "$work/archived.tar.gz" check --format json > "$work/ar.json" 2> /dev/null
jq -en 'input | (.findings | length) >= 19' "$work/ar.json" > /dev/null && ok || bad "archived: no full report"
[ -z "$(ls -A "$work/tmp-empty")" ] && ! grep -qE 'O_CREAT|mkdir|unlink|rename' "$work/trace.ar" && ok ||
	bad "archived: check wrote to disk: $(grep -E 'O_CREAT|mkdir|unlink|rename' "$work/trace.ar" | head -2)"
# reading an archive counts toward --timeout: 60,000 entries and a 50 ms deadline stop early
mkdir -p "$work/many-entries/sys/x" && (cd "$work/many-entries/sys/x" && seq 1 60000 | sed 's/^/f/' | xargs touch) &&
	tar czf "$work/many-entries.tar.gz" -C "$work/many-entries" .
timeout 120 "$bin" --root "$work/many-entries.tar.gz" --timeout 0.05 check > /dev/null 2> "$work/err"; rc=$?
[ $rc = 3 ] && grep -q "cannot read snapshot .*many-entries.tar.gz: deadline passed" "$work/err" && ok ||
	bad "many-entries archive: exit $rc: $(head -c 300 "$work/err")"
"$bin" --root "$work/archived.tar.gz" fix modules --apply > /dev/null 2> "$work/err"; rc=$?
[ $rc = 3 ] && grep -q "is a snapshot archive: nothing to apply it to" "$work/err" && ok || bad "archived: fix --apply (exit $rc): $(cat "$work/err")"

ts_finalize
