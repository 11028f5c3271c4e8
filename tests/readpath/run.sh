#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The read path: what a run reads, and how.
#   * `check --only ID` (which reads only what ID needs, the needs column of checks/catalogue.h) gives the same findings
#     and evidence as the JSON report (which reads everything), on scenario roots, for every check;
#   * `check --only ports.state` opens no module, package, unit or log file, and fewer files than a
#     full check;
#   * reads are made on one loader thread, watched by the main one: a whole check starts one thread
#     (the loader), and the futex calls are a handful, not one per read; a root carrying a snapshot's read-errors list is
#     not walked component by component for every file;
#   * ports.rate costs the same per device at 1024 devices as at 64 (instructions, callgrind);
#   * a read that never returns (the fault shim's RD_FAULT_SLOW) ends in the partial report: the
#     read is UNKNOWN "timed out", what followed it is read, the exit status is the report's,
#     nothing is left in TMPDIR, and a line the command writes to standard error is written once
#     (the load is what runs again, never the command).
# Counts, never times (timings are bench/'s).
#     Usage: tests/readpath/run.sh [BUILD_DIR]     Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$(cd "${1:-$top/build}" && pwd)
bin=$build/rdma-doctor
ts_scratch readpath
ts_init
export NO_COLOR=1 SOURCE_DATE_EPOCH=1764460800
for c in jq strace; do command -v $c > /dev/null || ts_die "$c is required"; done

"$top/tests/scenarios/make.sh" "$work/roots" > /dev/null || ts_die "make.sh"
cp -a "$top/examples/h100-ofed" "$work/roots/h100-ofed"
mapfile -t ids < <("$bin" checks --format json | jq -r '.checks[].id')
[ ${#ids[@]} -ge 19 ] && ok || bad "checks: ${#ids[@]} ids"

# text findings as "STATUS<TAB>check<TAB>message" (the text shows a newline or tab in a value as \x0a, \x09), and the evidence of the problems (the text shows
# no evidence for OK and SKIP) as "  path = value"; the JSON report of a whole check, filtered to ID
from_text() { sed -nE '/^            (fix:| )/d; s/^.{1,3} (OK|WARN|FAIL|UNKNOWN|SKIP) +([a-z_]+\.[a-z_]+) +(.*)$/\1\t\2\t\3/p; s/^            (.* = .*)$/  \1/p' "$1"; }
# (one jq per report: DIR/ID gets the lines of check ID; a line the JSON's own newline continues
# goes on in the same file)
from_json() { rm -rf "$2"; mkdir -p "$2"; jq -r '.findings[] | . as $f | (
	"\(.status)\t\(.check)\t\(if $f.subject != "host" and ($f.message | contains($f.subject) | not) then "\($f.subject): " else "" end)\(.message)",
	(select(.status == "FAIL" or .status == "WARN" or .status == "UNKNOWN") | .evidence[] | "  \(.path) = \(.value | gsub("\n"; "\\x0a") | gsub("\t"; "\\x09"))")
	) | "\($f.check)\u001f\(.)"' "$1" | awk -F '\037' -v d="$2" 'NF > 1 { f = d "/" $1; sub(/^[^\037]*\037/, "") } f { print > f }'; }
n=0 every=3
ts_subset && { every=9; ts_skip "--only against the whole report on two of every three of the scenarios read" "the plain pass compared them"; }
for root in "$work"/roots/*/; do
	r=${root%/}; s=${r##*/}
	# every third scenario (the failures are spread over them), the healthy ones and the H100 tree
	# (the sanitizer pass: every ninth, as its memory errors are in the checks given a partial model)
	n=$((n + 1)); case "$s" in healthy-*|h100-ofed) ;; *) [ $((n % every)) = 0 ] || continue ;; esac
	"$bin" --root "$r" check --format json > "$work/all.json" 2> /dev/null
	from_json "$work/all.json" "$work/all"
	diffs=0
	for id in "${ids[@]}"; do
		"$bin" --root "$r" check --only "$id" > "$work/t.txt" 2> /dev/null
		# the text groups a check's findings by status: compare as sets of lines
		if ! cmp -s <(from_text "$work/t.txt" | sort) <(sort "$work/all/$id" 2> /dev/null); then
			diffs=$((diffs + 1))
			[ $diffs = 1 ] && { echo "  $s --only $id:"; diff <(cat "$work/all/$id" 2> /dev/null) <(from_text "$work/t.txt") | head -6; }
		fi
	done
	[ $diffs = 0 ] && ok || bad "$s: $diffs checks read alone differ from the whole report"
done

h100=$work/roots/h100-ofed
if ts_subset; then
	ts_skip "what --only ports.state and a text check open (strace)" "the plain pass counted these system calls"
else
	# --only ports.state reads the devices and ports, nothing of the system
	# (strace -y: what each open gave, as a path; a file may be opened by its name alone in its directory;
	# read as root through the nodev clone of the root's mounts, a path is shown below the root: R? below)
	strace -f -qq -y -e trace=openat,openat2 -o "$work/only.tr" "$bin" --root "$work/roots/h100-ofed" check --only ports.state > /dev/null 2>&1
	strace -f -qq -y -e trace=openat,openat2 -o "$work/full.tr" "$bin" --root "$work/roots/h100-ofed" check > /dev/null 2>&1
	r=$(cd "$work/roots/h100-ofed" && pwd -P)
	other=$(grep -E "= [0-9]+<($r)?/(sys/module|proc/modules|var/lib/dpkg|etc/modules-load.d|lib/modules|etc/systemd|usr/lib/systemd|proc/self|rdma-doctor/commands/dmesg|sys/bus/pci)" "$work/only.tr" | head -3)
	[ -z "$other" ] && ok || bad "--only ports.state opened: $other"
	grep -qE "= [0-9]+<($r)?/sys/devices/[^>]*/infiniband/mlx5_0/ports/1/state>" "$work/only.tr" && ok || bad "--only ports.state: no port state read"
	n_only=$(grep -c 'open' "$work/only.tr") n_full=$(grep -c 'open' "$work/full.tr")
	[ "$n_only" -lt $((n_full * 2 / 3)) ] && ok || bad "--only ports.state: $n_only opens, a full check $n_full"

	# a text check reads nothing it does not use: no port counters under --root without --state-dir
	# (no sample to compare them with), no srcversion/refcnt/initstate of a module /proc/modules
	# lists, a PCIe bridge that several HCAs share once, no MFT capture the root does not hold; the
	# JSON report (the inventory) and the Prometheus counters still read theirs
	# (strace -y: a file may be opened by its name alone in a kept directory: match the name asked
	# or the path the open gave)
	strace -f -qq -y -e trace=openat,openat2 -o "$work/lean.tr" "$bin" --root "$h100" check > /dev/null 2>&1
	grep -qE "= [0-9]+<($r)?/sys/devices/[^>]*/ports/1/state>" "$work/lean.tr" && ok || bad "check --root: strace -y shows no port state read"
	! grep -qE '[/"](hw_)?counters[/">]' "$work/lean.tr" && ok || bad "check --root: counters read with nothing to compare"
	! grep -qE '[/"](srcversion|refcnt|initstate)[">]' "$work/lean.tr" && ok || bad "check: module inventory attributes read"
	# (the opens of the file, not its reopen through /proc/self/fd after an O_PATH open)
	n=$(grep -vE '</proc/[0-9a-z]+/fd>, "' "$work/lean.tr" | grep -cE "= [0-9]*<($r)?/sys/devices/pci0000:00/0000:00:01.0/max_link_width>")
	[ "$n" = 1 ] && ok || bad "check: the shared root port's max_link_width opened $n times"
	! grep -qE '[/"](mlxlink|mlxconfig|flint)-mlx5' "$work/lean.tr" && ok || bad "check: absent MFT captures opened"
	strace -f -qq -y -e trace=openat,openat2 -o "$work/inv.tr" "$bin" --root "$h100" check --format json > /dev/null 2>&1
	grep -qE "<($r)?/sys/module/mlx5_core/srcversion>" "$work/inv.tr" && ok || bad "check --format json: no module srcversion read"
	"$bin" --root "$h100" check --format prometheus > "$work/prom.txt" 2> /dev/null
	grep -q "^rdma_doctor_port_counters_total" "$work/prom.txt" && ok ||
		bad "check --format prometheus: no counters"
fi
# a run that judges neither link.counters nor link.flaps keeps no sample; a run of one of them
# adds a sample of its own kind only (counters: c and h lines; carrier: n lines), and leaves the
# other kind's samples as they were
st=$work/state
"$bin" --root "$h100" check --only ports.state --state-dir "$st" > /dev/null 2>&1
[ -z "$(ls -A "$st" 2> /dev/null)" ] && ok || bad "check --only ports.state wrote a sample: $(ls "$st")"
"$bin" --root "$h100" check --only link.counters --state-dir "$st" --format json 2> /dev/null |
	jq -e '.findings[] | select(.check == "link.counters") | .message | test("baseline recorded \\(first sample\\)")' > /dev/null &&
	grep -q '^c ' "$st"/*.link-state && ! grep -q '^n ' "$st"/*.link-state && ok ||
	bad "check --only link.counters, no sample: $(cat "$st"/*.link-state 2> /dev/null | head -5)"
"$bin" --root "$h100" check --state-dir "$st" > /dev/null 2>&1
nlines=$(grep '^n ' "$st"/*.link-state)
[ -n "$nlines" ] && grep -qx 'sample carrier 1764460800 -' "$st"/*.link-state && ok || bad "a full check kept no netdev lines"
SOURCE_DATE_EPOCH=1764464400 "$bin" --root "$h100" check --only link.counters --state-dir "$st" --format json 2> /dev/null |
	jq -e '.findings[] | select(.check == "link.counters") | .message | test("no error counter rose in 1h 0m")' > /dev/null &&
	grep -qx 'sample counters 1764464400 -' "$st"/*.link-state &&
	[ "$(grep '^sample carrier' "$st"/*.link-state)" = "sample carrier 1764460800 -" ] &&
	[ "$(grep '^n ' "$st"/*.link-state)" = "$nlines" ] && ok ||
	bad "check --only link.counters: compared wrongly, or moved link.flaps' samples: $(grep '^sample' "$st"/*.link-state)"
SOURCE_DATE_EPOCH=1764468000 "$bin" --root "$h100" check --only link.flaps --state-dir "$st" > /dev/null 2>&1
[ "$(grep '^sample counters' "$st"/*.link-state | tail -1)" = "sample counters 1764464400 -" ] &&
	grep -qx 'sample carrier 1764468000 -' "$st"/*.link-state && ok ||
	bad "check --only link.flaps: the counters' samples moved: $(grep '^sample' "$st"/*.link-state)"

if ts_subset; then
	ts_skip "threads, futex calls and directory steps (strace), ports.rate's instructions (callgrind)" "the plain pass counted them; callgrind runs the plain build's test anyway"
else
	# one thread besides the main one (the loader; the main thread watches it), a handful of futex calls, no walk per file
	t0=$(date +%s%N)
	strace -f -c -o "$work/count.txt" "$bin" --root "$work/roots/h100-ofed" check > /dev/null 2>&1
	ms=$((($(date +%s%N) - t0) / 1000000))
	calls() { awk -v s="$1" 'BEGIN { n = 0 } $NF == s { n = $4 } END { print n }' "$work/count.txt"; }
	futex=$(calls futex) clones=$(($(calls clone3) + $(calls clone)))
	reads=$(($(calls read) + $(calls pread64)))
	max_clones=1 # the loader; an ASan build's leak check adds its own thread at exit
	max_futex=8   # a read handed to a thread costs two or more each: thousands per check
	grep -q __asan_init "$bin" && max_clones=2 max_futex=16 # and its exit-time leak check some more
	# the watcher's timed wait wakes every 250 ms: one futex call each, so a run slowed by strace on a
	# loaded machine makes a few more (16 were seen in a CI run); reads handed to a thread make hundreds
	max_futex=$((max_futex + 2 * ms / 250))
	[ "${futex:-0}" -le $max_futex ] && [ "$clones" -le $max_clones ] && ok || bad "check --root: ${futex:-0} futex (at most $max_futex in $ms ms), $clones clone (reads handed to a thread?)"
	strace -f -qq -e trace=openat2 -o "$work/walk.tr" "$bin" --root "$work/roots/h100-ofed" check > /dev/null 2>&1
	# the resolver's steps are O_NOFOLLOW; the directories kept to open files in (source.c) follow links
	walks=$(grep 'O_PATH' "$work/walk.tr" | grep 'O_DIRECTORY' | grep -c 'O_NOFOLLOW')
	# (a directory that is not there is asked in place of the file's whole path: not counted)
	kept=$(grep 'O_PATH' "$work/walk.tr" | grep 'O_DIRECTORY' | grep -v 'O_NOFOLLOW' | grep -vc ENOENT)
	# (a directory stepped in once is not looked at again: what is left is each device's links, at
	# most 5 steps a device of the 9, and the directory of each file the read-errors list names, once:
	# a file that read nothing is matched by its identity)
	errdirs=$(sed -E 's#/[^/]*$##' "$h100/rdma-doctor/read-errors" | sort -u | wc -l)
	[ "$walks" -lt $((reads / 4)) ] && [ "$walks" -le $((45 + errdirs)) ] && ok ||
		bad "check --root (read-errors list): $walks O_PATH directory steps for $reads reads (at most $((45 + errdirs)))"
	[ "$kept" -lt $((reads / 3)) ] && ok || bad "check --root: $kept directories opened to read $reads files in"

	# a file read in a root costs one open, its reads and one close: as root through the nodev clone of
	# the root's mounts (no O_PATH open, fstat and reopen through /proc/self/fd per file); F is the files
	# read (distinct paths of the descriptors read), the bounds are what a check costs (opens: a file's,
	# the directories kept to open files in, the resolver's steps, the stats; a fstat: a file that read
	# nothing, a stat)
	strace -f -qq -y -e trace=openat,openat2,read,pread64,close,newfstatat,fstat -o "$work/file.tr" "$bin" --root "$h100" check > /dev/null 2>&1
	F=$(sed -nE 's/^[0-9]+ +p?read(64)?\([0-9]+<([^>]*)>.*/\2/p' "$work/file.tr" | grep -v '\.so' | sort -u | wc -l)
	count() { grep -cE "^[0-9]+ +($1)\(" "$work/file.tr"; }
	opens=$(count 'openat|openat2') closes=$(count close) fstats=$(grep -cE '^[0-9]+ +(newfstatat\([0-9]+<[^>]*>, ""|fstat\()' "$work/file.tr")
	reopens=$(grep -cE '/proc/[0-9a-z]+/fd' "$work/file.tr")
	# (an ASan build's runtime opens and closes files of its own: /proc/self/maps and more)
	slack=0
	grep -q __asan_init "$bin" && slack=20
	[ "$F" -gt 300 ] && [ "$reopens" = 0 ] && [ $(((opens - slack) * 10)) -le $((F * 24)) ] && [ $(((closes - slack) * 10)) -le $((F * 19)) ] &&
		[ $((fstats * 4)) -le "$F" ] && ok ||
		bad "check --root: $F files read cost $opens opens (at most 2.4 a file), $closes closes (1.9), $fstats fstat (0.25), $reopens reopens through /proc/self/fd"
	# a file of sys/ is one read: its first read of less than a page is all of it (a sysfs attribute,
	# or the end of a snapshot's copy of one), no read more to see its end (a second read of one
	# descriptor before its close)
	again=$(awk '/^[0-9]+ +p?read(64)?\([0-9]+<(\/sys\/|[^>]*\/h100-ofed\/sys\/)/ {
			fd = $2; sub(/<.*/, "", fd); sub(/.*\(/, "", fd); if (open[fd]) n++; open[fd] = 1 }
		/^[0-9]+ +close\(/ { fd = $2; sub(/<.*/, "", fd); sub(/.*\(/, "", fd); open[fd] = 0 }
		END { print n + 0 }' "$work/file.tr")
	sreads=$(grep -cE '^[0-9]+ +p?read(64)?\([0-9]+<(/sys/|[^>]*/h100-ofed/sys/)' "$work/file.tr")
	[ "$sreads" -gt 300 ] && [ "$again" = 0 ] && ok || bad "check --root: $again of $sreads reads of sys/ files were a second read of one open"

	# ports.rate at 64 and 1024 devices (a model built in memory, tests/unit/test_scale.c): the
	# instructions callgrind counts in the check, per device, grow by less than half
	# (valgrind runs no ASan binary: with an ASan build, the plain build's test is counted)
	scale=$build/tests/test_scale
	grep -q __asan_init "$scale" 2> /dev/null && scale=$top/build/tests/test_scale
	if command -v valgrind > /dev/null && [ -x "$scale" ]; then
		ir() { RD_SCALE_DEVICES=$1 valgrind --tool=callgrind --toggle-collect=rd_check_ports_rate --callgrind-out-file=/dev/null \
			--trace-children=yes "$scale" 2>&1 | sed -n 's/.*Collected : \([0-9]*\)/\1/p' | sort -n | tail -1; }
		i64=$(ir 64) i1k=$(ir 1024)
		[ "${i64:-0}" -gt 0 ] && [ $((i1k / 1024 * 2)) -le $((i64 / 64 * 3)) ] && ok ||
			bad "ports.rate: ${i1k:-?} instructions at 1024 devices, ${i64:-?} at 64 (not linear)"
	else
		bad "valgrind and $scale are required (ports.rate's instruction count)"
	fi
fi

# a wedged read: the partial report, then the exit
shim=$build/tests/libfaults.so
[ -f "$shim" ] || cc -std=c11 -D_GNU_SOURCE -O1 -shared -fPIC -o "$shim" "$top/tests/shim/faults.c"
export ASAN_OPTIONS=verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
mkdir "$work/tmp"
TMPDIR=$work/tmp LD_PRELOAD=$shim RD_FAULT_SLOW="mlx5_1/ports/1/state:60000" timeout 60 "$bin" --root "$work/roots/healthy-inbox" check > "$work/w.txt" 2> "$work/w.err"; rc=$?
grep -qE '^. UNKNOWN ports.state +cannot read the state of mlx5_1 port 1' "$work/w.txt" &&
	grep -q 'mlx5_1/ports/1/state = <timed out>' "$work/w.txt" && grep -qE '^. OK +modules.loaded' "$work/w.txt" &&
	grep -q '^UNKNOWN: 0 failed, 0 warnings, 1 unknown' "$work/w.txt" && [ $rc = 3 ] && [ ! -s "$work/w.err" ] && ok ||
	bad "wedged read: exit $rc: $(head -c 300 "$work/w.err") $(grep -E 'UNKNOWN|^[A-Z]+:' "$work/w.txt" | head -3)"
[ -z "$(ls -A "$work/tmp")" ] && ok || bad "wedged read: left in TMPDIR: $(ls -A "$work/tmp")"
# wedged twice, then the run's deadline: everything after it timed out, the report still whole
TMPDIR=$work/tmp LD_PRELOAD=$shim RD_FAULT_SLOW="ports/:60000" timeout 60 "$bin" --root "$work/roots/healthy-inbox" --timeout 3 check --format json > "$work/w2.json" 2> "$work/w2.err"; rc=$?
jq -en 'input | (.findings | length) >= 19 and all(.findings[]; .status != "FAIL" and .status != "WARN")
	and any(.findings[]; .check == "ports.state" and any(.evidence[]; .value == "<timed out>"))' "$work/w2.json" > /dev/null &&
	[ $rc = 3 ] && ok || bad "wedged reads to the deadline: exit $rc $(head -c 300 "$work/w2.err")"
# a wedged read in `explain -`, whose standard input is read once, before the load: the input is
# not read again, the causes that need the wedged port state (and what the deadline cut) cannot be
# told, the explanation is printed once, exit 3, nothing on standard error (the line is one whose
# causes are judged from the ports, so the wedged port state is read)
echo "NCCL WARN NET/IB : UNABLE TO OPEN DEVICE mlx5_0" |
	TMPDIR=$work/tmp LD_PRELOAD=$shim RD_FAULT_SLOW="ports/1/state:60000" timeout 60 "$bin" --root "$work/roots/healthy-inbox" --timeout 4 explain - > "$work/w3.txt" 2> "$work/w3.err"; rc=$?
[ $rc = 3 ] && [ ! -s "$work/w3.err" ] && [ "$(grep -c '^nccl.open_device: ' "$work/w3.txt")" = 1 ] &&
	grep -q '^    line 1: NCCL WARN NET/IB : UNABLE TO OPEN DEVICE mlx5_0' "$work/w3.txt" &&
	grep -q '^    ? cannot tell ' "$work/w3.txt" && grep -q ' = <timed out>' "$work/w3.txt" &&
	ok || bad "explain wedged: exit $rc, stderr: $(head -c 300 "$work/w3.err"), out: $(head -c 300 "$work/w3.txt")"
[ -z "$(ls -A "$work/tmp")" ] && ok || bad "wedged reads: left in TMPDIR: $(ls -A "$work/tmp")"
# a line for standard error found before the wedged read (a policy ignore that names no device,
# found once the devices are read) is written once: the replaying loader finds it again, the
# command prints it once
cp -a "$work/roots/healthy-inbox" "$work/roots/ignore-unmatched"
printf '[ports]\nignore = mlx5_99\n' > "$work/roots/ignore-unmatched/etc/rdma-doctor.conf"
TMPDIR=$work/tmp LD_PRELOAD=$shim RD_FAULT_SLOW="modules-load.d/rdma.conf:60000" timeout 60 "$bin" --root "$work/roots/ignore-unmatched" check > "$work/w4.txt" 2> "$work/w4.err"; rc=$?
grep -q '/etc/modules-load.d/rdma.conf = <timed out>' "$work/w4.txt" && [ $rc != 124 ] &&
	[ "$(grep -c 'ignore: mlx5_99 names no RDMA device' "$work/w4.err")" = 1 ] && [ "$(wc -l < "$work/w4.err")" = 1 ] && ok ||
	bad "wedged read after a stderr line: exit $rc, stderr: $(head -c 400 "$work/w4.err")"

ts_finalize
