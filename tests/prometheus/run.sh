#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# check --format prometheus against the real Prometheus tools (Debian packages prometheus and
# prometheus-node-exporter; tests/run-all.sh installs them):
#   * every scenario root's output passes `promtool check metrics` with no finding, has no
#     timestamps, and carries the documented series and values; the exit status is check's;
#   * host data cannot break the format: hostile firmware strings and counter names are escaped;
#     names the kernel never gives (devices "mx\x01"/"mx\x02", ports 01 and 1.0, such counters) are
#     not read as such, so no two series are one;
#   * --counters exports counters/ and hw_counters/ as rdma_doctor_port_*counter_total, and the
#     ethtool -S congestion counters of RoCE ports as rdma_doctor_port_ethtool_total;
#   * --output FILE replaces the file atomically and leaves nothing else in the directory, also
#     when the directory is unwritable, the file system is full or the target is a directory;
#   * contrib/prometheus/rdma-doctor.rules.yml passes `promtool check rules` and its alerts fire
#     as tests/prometheus/rules.test.yml says (`promtool test rules`);
#   * a real node_exporter started here (127.0.0.1, a free high port, textfile collector only)
#     serves our series from the textfile directory with node_textfile_scrape_error 0; stopped by
#     its PID on exit.
# Usage: tests/prometheus/run.sh [BUILD_DIR]     Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$(cd "${1:-$top/build}" && pwd)
bin=$build/rdma-doctor
ts_init
for c in promtool prometheus-node-exporter curl jq; do
	command -v "$c" > /dev/null || ts_die "$c is required (Debian: prometheus, prometheus-node-exporter, curl, jq)"
done
work=$(mktemp -d "${TMPDIR:-/tmp}/rd-prom.XXXXXX")
chmod 755 "$work"
exporter_pid=
cleanup() {
	[ -n "$exporter_pid" ] && kill "$exporter_pid" 2> /dev/null && wait "$exporter_pid" 2> /dev/null
	rm -rf "$work"
}
trap cleanup EXIT
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
"$top/tests/scenarios/make.sh" "$work/roots" > /dev/null || ts_die "make.sh"
roots=$work/roots

# the value of one series (exact label set) in a metrics file, or "absent"
value() { S=$2 awk 'BEGIN { s = ENVIRON["S"] } $0 !~ /^#/ { v = $NF; $NF = ""; sub(/ $/, ""); if ($0 == s) { print v; f = 1 } } END { if (!f) print "absent" }' "$1"; }
expect() { # file series want
	local got; got=$(value "$1" "$2")
	[ "$got" = "$3" ] && ok || bad "$(basename "$1"): $2 is $got, want $3"
}
lint() { # file: promtool finds nothing, every sample is "name{labels} value" (no timestamp)
	local out; out=$(promtool check metrics < "$1" 2>&1)
	[ $? = 0 ] && [ -z "$out" ] && ok || bad "$(basename "$1"): promtool check metrics: $out"
	local n; n=$(grep -v '^#' "$1" | grep -cvE '^[a-z_]+(\{([a-z_]+="([^"\\]|\\.)*",?)*\})? [0-9.e+-]+$')
	[ "$n" = 0 ] && ok || bad "$(basename "$1"): $n sample lines are not 'name{labels} value'"
	# HELP and TYPE for every metric, before its samples
	n=$(awk '/^# TYPE /{t[$3]=1; next} /^# HELP /{h[$3]=1; next} { m=$1; sub(/\{.*/, "", m); if (!t[m] || !h[m]) { print m; bad++ } } END { print bad+0 }' "$1" | tail -1)
	[ "$n" = 0 ] && ok || bad "$(basename "$1"): $n samples without HELP/TYPE"
	n=$(awk '/^# TYPE / && (($4 == "counter") != ($3 ~ /_total$/)) { print }' "$1" | wc -l)
	[ "$n" = 0 ] && ok || bad "$(basename "$1"): _total on a non-counter or a counter without it"
}

# 1. every scenario: lint, exit status, one series per finding that is not SKIP
for dir in "$roots"/*/; do
	s=$(basename "$dir")
	"$bin" --root "$dir" check --format prometheus > "$work/$s.prom" 2> "$work/$s.err"; rc=$?
	"$bin" --root "$dir" check --format json > "$work/$s.json" 2> /dev/null
	lint "$work/$s.prom"
	[ -s "$work/$s.err" ] && bad "$s: stderr: $(head -2 "$work/$s.err")"
	want=$(jq -r .summary.exit_code "$work/$s.json")
	[ "$rc" = "$want" ] && ok || bad "$s: exit $rc, check --format json says $want"
	expect "$work/$s.prom" rdma_doctor_status "$want"
	n_json=$(jq '[.findings[] | select(.status != "SKIP") | [.check, .subject]] | unique | length' "$work/$s.json")
	n_prom=$(grep -c '^rdma_doctor_check_status{' "$work/$s.prom")
	[ "$n_json" = "$n_prom" ] && ok || bad "$s: $n_prom check_status series for $n_json (check, subject) pairs"
	# every pair's value is the worst of its findings' monitoring-plugin values
	jq -r '.findings | map(select(.status != "SKIP")) | group_by([.check, .subject])[] |
		"rdma_doctor_check_status{check=\"\(.[0].check)\",subject=\"\(.[0].subject)\"} \(map({"OK":0,"WARN":1,"FAIL":2,"UNKNOWN":3}[.status]) |
		if any(. == 2) then 2 elif any(. == 1) then 1 elif any(. == 3) then 3 else 0 end)"' "$work/$s.json" |
		sort > "$work/$s.want"
	grep '^rdma_doctor_check_status{' "$work/$s.prom" | sort > "$work/$s.got"
	cmp -s "$work/$s.want" "$work/$s.got" && ok || { bad "$s: check_status values differ from the JSON report"; diff "$work/$s.want" "$work/$s.got" | head -5; }
done
p=$work/port-polling.prom
expect "$p" 'rdma_doctor_check_status{check="ports.state",subject="mlx5_1 port 1"}' 2
expect "$p" 'rdma_doctor_port_state_id{device="mlx5_1",port="1"}' 1
expect "$p" 'rdma_doctor_port_physical_state_id{device="mlx5_1",port="1"}' 2
expect "$p" 'rdma_doctor_port_state_id{device="mlx5_0",port="1"}' 4
expect "$p" 'rdma_doctor_port_rate_bytes_per_second{device="mlx5_0",port="1"}' 50000000000
expect "$p" 'rdma_doctor_last_run_timestamp_seconds' 1764460800
expect "$p" 'rdma_doctor_rdma_hardware' 1
grep -q '^rdma_doctor_info{version="[^"]*",stack="inbox",stack_version="[^"]*"} 1$' "$p" && ok || bad "port-polling: rdma_doctor_info"
expect "$work/firmware-one-hca-older.prom" 'rdma_doctor_check_status{check="firmware.uniform",subject="mlx5_1"}' 1
expect "$work/port-state-unreadable.prom" 'rdma_doctor_check_status{check="ports.state",subject="mlx5_1 port 1"}' 3
expect "$work/healthy-inbox.prom" 'rdma_doctor_findings{status="FAIL"}' 0
# the counters are read by default (link.counters); --no-counters leaves them out
grep -q '^rdma_doctor_port_counters_total{device="mlx5_0",port="1",counter="link_downed"} 0$' "$work/healthy-inbox.prom" &&
	ok || bad "healthy-inbox: the port counters are not exported"
"$bin" --root "$roots/healthy-inbox" check --format prometheus --no-counters > "$work/nocounters.prom" 2> /dev/null
lint "$work/nocounters.prom"
grep -q '^rdma_doctor_port_counters_total' "$work/nocounters.prom" && bad "counters exported with --no-counters" || ok
# link.counters' verdict on a counter that rose since the kept sample
mkdir -p "$work/state" && cp -a "$roots/.state/link-downed-rose/." "$work/state/"
"$bin" --root "$roots/link-downed-rose" check --format prometheus --state-dir "$work/state" > "$work/link.prom" 2> /dev/null
lint "$work/link.prom"
expect "$work/link.prom" 'rdma_doctor_check_status{check="link.counters",subject="mlx5_0 port 1"}' 2
expect "$work/link.prom" 'rdma_doctor_port_counters_total{device="mlx5_0",port="1",counter="link_downed"}' 3
# roce.congestion's verdict on RoCE drops since the kept sample, and the ethtool -S counters read
[ -d "$roots/roce-congestion-drops" ] || bad "roce-congestion-drops: no scenario root"
mkdir -p "$work/state-roce" && cp -a "$roots/.state/roce-congestion-drops/." "$work/state-roce/"
"$bin" --root "$roots/roce-congestion-drops" check --format prometheus --state-dir "$work/state-roce" > "$work/roce.prom" 2> /dev/null
lint "$work/roce.prom"
expect "$work/roce.prom" 'rdma_doctor_check_status{check="roce.congestion",subject="mlx5_2 port 1"}' 1
expect "$work/roce.prom" 'rdma_doctor_port_ethtool_total{device="mlx5_2",port="1",netdev="enp193s0f0np0",counter="rx_discards_phy"}' 37
expect "$work/roce.prom" 'rdma_doctor_port_ethtool_total{device="mlx5_2",port="1",netdev="enp193s0f0np0",counter="rx_prio3_pause_duration"}' 8134
expect "$work/roce.prom" 'rdma_doctor_port_ethtool_total{device="mlx5_2",port="1",netdev="enp193s0f0np0",counter="rx_packets"}' absent
grep -q 'node_infiniband_' "$work"/*.prom && bad "a series named node_infiniband_* (node_exporter's)" || ok
# SKIP findings are left out of rdma_doctor_check_status and counted in rdma_doctor_findings
skips=$(jq '[.findings[] | select(.status == "SKIP")] | length' "$work/healthy-inbox.json")
expect "$work/healthy-inbox.prom" 'rdma_doctor_findings{status="SKIP"}' "$skips"
[ "$skips" -gt 0 ] && ok || bad "healthy-inbox has no SKIP finding to test with"

# 2. hostile host data: firmware and board strings with quotes, backslashes, newlines, bytes that
# are not UTF-8; counter names with the same
h=$work/hostile
cp -a "$roots/port-polling" "$h"
dev=$(readlink -f "$h/sys/class/infiniband/mlx5_0")
printf '28.39"1002\\x\nnext\xff\x01' > "$dev/fw_ver"
printf 'MT_"}\\ 1 \n' > "$dev/board_id"
mkdir -p "$dev/ports/1/counters" "$dev/ports/1/hw_counters"
echo 7 > "$dev/ports/1/counters/symbol_error"
echo 3 > "$dev/ports/1/counters/link_downed"
echo 18446744073709551615 > "$dev/ports/1/counters/port_xmit_data"
echo 'N/A (no PMA)' > "$dev/ports/1/counters/VL15_dropped"
echo 5 > "$dev/ports/1/hw_counters/out_of_buffer"
printf '11\n' > "$dev/ports/1/hw_counters/$(printf 'evil"} 1\\name')"
"$bin" --root "$h" check --format prometheus --counters > "$work/hostile.prom" 2> "$work/hostile.err"
lint "$work/hostile.prom"
grep -qF "$(printf 'firmware_version="28.39\\"1002\\\\x\\nnext\xef\xbf\xbd\xef\xbf\xbd"')" "$work/hostile.prom" && ok ||
	bad "hostile: firmware_version not escaped: $(grep -a rdma_doctor_device_info "$work/hostile.prom" | head -1)"
expect "$work/hostile.prom" 'rdma_doctor_port_counters_total{device="mlx5_0",port="1",counter="symbol_error"}' 7
expect "$work/hostile.prom" 'rdma_doctor_port_counters_total{device="mlx5_0",port="1",counter="link_downed"}' 3
expect "$work/hostile.prom" 'rdma_doctor_port_counters_total{device="mlx5_0",port="1",counter="port_xmit_data"}' 18446744073709551615
expect "$work/hostile.prom" 'rdma_doctor_port_counters_total{device="mlx5_0",port="1",counter="VL15_dropped"}' absent
expect "$work/hostile.prom" 'rdma_doctor_port_hw_counters_total{device="mlx5_0",port="1",counter="out_of_buffer"}' 5
expect "$work/hostile.prom" 'rdma_doctor_port_hw_counters_total{device="mlx5_0",port="1",counter="evil\"} 1\\name"}' 11

# 2a. names the kernel never gives are not devices, ports or counters: "mx\x01" and "mx\x02" would
# both be "mx\ufffd", ports 01 and 1.0 both port 1 -- duplicate series, which node_exporter drops
dup=$work/dupnames
cp -a "$roots/healthy-inbox" "$dup"
ddev=$(readlink -f "$dup/sys/class/infiniband/mlx5_0")
for n in $'mx\x01' $'mx\x02' $'mx\xff'; do ln -s "$ddev" "$dup/sys/class/infiniband/$n"; done
cp -a "$ddev/ports/1" "$ddev/ports/01" && cp -a "$ddev/ports/1" "$ddev/ports/1.0"
mkdir -p "$ddev/ports/1/counters"
echo 4 > "$ddev/ports/1/counters/symbol_error"
echo 5 > "$ddev/ports/1/counters/"$'sym\x01' && echo 6 > "$ddev/ports/1/counters/"$'sym\x02'
"$bin" --root "$dup" check --format prometheus --counters > "$work/dupnames.prom" 2> "$work/dupnames.err"
lint "$work/dupnames.prom"
n=$(grep -v '^#' "$work/dupnames.prom" | sed 's/ [^ ]*$//' | sort | uniq -d | wc -l)
[ "$n" = 0 ] && ok || bad "dupnames: $n duplicate series: $(grep -v '^#' "$work/dupnames.prom" | sed 's/ [^ ]*$//' | sort | uniq -d | head -3)"
grep -qa 'ufffd\|\xef\xbf\xbd' "$work/dupnames.prom" && bad "dupnames: a name shown as U+FFFD" || ok
expect "$work/dupnames.prom" 'rdma_doctor_check_status{check="ports.state",subject="/sys/class/infiniband"}' 3
expect "$work/dupnames.prom" 'rdma_doctor_port_counters_total{device="mlx5_0",port="1",counter="symbol_error"}' 4
[ "$(grep -c '^rdma_doctor_port_state_id{device="mlx5_0",' "$work/dupnames.prom")" = 1 ] && ok ||
	bad "dupnames: mlx5_0 ports: $(grep '^rdma_doctor_port_state_id{device="mlx5_0",' "$work/dupnames.prom")"
"$bin" --root "$dup" check > "$work/dupnames.txt"
grep -qF "not a kernel device name (a control character, bytes that are not UTF-8, or longer than 63 bytes), so not read as a device: 'mx\x01', 'mx\x02', 'mx\xff'" "$work/dupnames.txt" && ok ||
	bad "dupnames: the text report does not name the refused entries: $(grep -a 'ports.state' "$work/dupnames.txt")"

# 2b. real sysfs trees from ../shared/fixtures/real (read in place through fixture2root.sh)
real=$ts_real
if [ -d "$real/gpud-h100-sys-class-infiniband" ] && [ -f "$real/prometheus-procfs__fixtures.ttar__sys-class-infiniband.tsv" ]; then
	"$top/tests/tools/fixture2root.sh" dir "$real/gpud-h100-sys-class-infiniband" "$work/real/gpud-h100"
	"$top/tests/tools/fixture2root.sh" ttar "$real/prometheus-procfs__fixtures.ttar__sys-class-infiniband.tsv" "$work/real/procfs"
	for r in gpud-h100 procfs; do
		"$bin" --root "$work/real/$r" check --format prometheus --counters > "$work/real-$r.prom" 2> /dev/null
		lint "$work/real-$r.prom"
		n=$(grep -c '^rdma_doctor_port_counters_total{' "$work/real-$r.prom")
		[ "$n" -gt 0 ] && ok || bad "real $r: no port counters exported with --counters"
	done
	f=$(readlink -f "$work/real/gpud-h100/sys/class/infiniband/mlx5_0")/ports/1/counters/port_rcv_data
	expect "$work/real-gpud-h100.prom" 'rdma_doctor_port_counters_total{device="mlx5_0",port="1",counter="port_rcv_data"}' "$(cat "$f")"
elif ts_have_real; then
	bad "real fixtures missing at $real (gpud-h100-sys-class-infiniband, prometheus-procfs)"
else
	ts_skip "real sysfs trees (gpud H100, prometheus/procfs)" "$ts_real_reason"
fi

# 3. --output: atomic replacement, nothing else left in the directory
tf=$work/textfile
mkdir -p "$tf"
"$bin" --root "$roots/port-polling" check --format prometheus --output "$tf/rdma-doctor.prom" > "$work/out.stdout" 2>&1; rc=$?
[ "$rc" = 2 ] && ok || bad "--output: exit $rc, want check's 2"
[ -s "$work/out.stdout" ] && bad "--output printed: $(head -2 "$work/out.stdout")" || ok
cmp -s "$tf/rdma-doctor.prom" "$work/port-polling.prom" && ok || bad "--output: the file differs from standard output"
[ "$(ls -A "$tf")" = rdma-doctor.prom ] && ok || bad "--output left: $(ls -A "$tf")"
[ "$(stat -c %a "$tf/rdma-doctor.prom")" = 644 ] && ok || bad "--output: mode $(stat -c %a "$tf/rdma-doctor.prom"), want 644 (node_exporter reads it as another user)"
ino=$(stat -c %i "$tf/rdma-doctor.prom")
"$bin" --root "$roots/healthy-inbox" check --format prometheus --output "$tf/rdma-doctor.prom" 2> /dev/null; rc=$?
[ "$rc" = 0 ] && cmp -s "$tf/rdma-doctor.prom" "$work/healthy-inbox.prom" && ok || bad "--output: second run (exit $rc) did not replace the file"
[ "$(stat -c %i "$tf/rdma-doctor.prom")" != "$ino" ] && ok || bad "--output: the file was rewritten in place, not renamed over"
"$bin" --root "$roots/healthy-inbox" check --format json --output "$tf/report.json" 2> /dev/null && jq -e .schema "$tf/report.json" > /dev/null && ok || bad "--output with --format json"
rm -f "$tf/report.json"
cp "$tf/rdma-doctor.prom" "$work/before.prom"
# a full file system (the write fails with EFBIG under ulimit -f; SIGXFSZ ignored)
(ulimit -f 1; trap '' XFSZ; exec "$bin" --root "$roots/port-polling" check --format prometheus --counters --output "$tf/rdma-doctor.prom") 2> "$work/full.err"; rc=$?
[ "$rc" = 3 ] && ok || bad "--output on a full file system: exit $rc, want 3"
grep -q "^rdma-doctor: check: --output $tf/rdma-doctor.prom: File too large$" "$work/full.err" && ok || bad "--output full: message: $(cat "$work/full.err")"
[ "$(ls -A "$tf")" = rdma-doctor.prom ] && cmp -s "$tf/rdma-doctor.prom" "$work/before.prom" && ok || bad "--output full: directory holds $(ls -A "$tf") / old file changed"
# an unwritable directory (as another user when root, since root writes anywhere)
ro=$work/ro
mkdir -p "$ro"
if [ "$(id -u)" = 0 ]; then
	chmod 755 "$ro"
	as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
	chmod 555 "$ro"
	as_other=()
fi
"${as_other[@]}" "$bin" --root "$roots/healthy-inbox" check --format prometheus --output "$ro/rdma-doctor.prom" 2> "$work/ro.err"; rc=$?
[ "$rc" = 3 ] && ok || bad "--output into an unwritable directory: exit $rc, want 3"
grep -q "^rdma-doctor: check: --output $ro/rdma-doctor.prom: cannot create a file in its directory: Permission denied$" "$work/ro.err" && ok || bad "--output unwritable: message: $(cat "$work/ro.err")"
[ -z "$(ls -A "$ro")" ] && ok || bad "--output unwritable left: $(ls -A "$ro")"
# the target is a directory: rename fails, the temporary file goes
mkdir -p "$tf/isdir.prom"
"$bin" --root "$roots/healthy-inbox" check --format prometheus --output "$tf/isdir.prom" 2> "$work/dir.err"; rc=$?
[ "$rc" = 3 ] && grep -q "^rdma-doctor: check: --output $tf/isdir.prom: Is a directory$" "$work/dir.err" && ok || bad "--output onto a directory: exit $rc: $(cat "$work/dir.err")"
rmdir "$tf/isdir.prom"
[ "$(ls -A "$tf")" = rdma-doctor.prom ] && ok || bad "--output onto a directory left: $(ls -A "$tf")"
"$bin" --root "$roots/healthy-inbox" check --format prometheus --output "$work/no/such/dir/x.prom" 2> "$work/nodir.err"; rc=$?
[ "$rc" = 3 ] && grep -q "cannot create a file in its directory: cannot open $work/no: No such file or directory" "$work/nodir.err" && ok || bad "--output into a missing directory: exit $rc: $(cat "$work/nodir.err")"
# option errors
"$bin" --root "$roots/healthy-inbox" check --format prometheus --output 2> "$work/e1"; rc=$?
[ "$rc" = 3 ] && grep -qE 'needs a (file name|value)' "$work/e1" && ok || bad "--output without a value: exit $rc: $(cat "$work/e1")"
"$bin" --root "$roots/healthy-inbox" check --format yaml > /dev/null 2> "$work/e2"; rc=$?
[ "$rc" = 3 ] && grep -q "unknown format 'yaml' (use text, json or prometheus)" "$work/e2" && ok || bad "--format yaml: exit $rc: $(cat "$work/e2")"
"$bin" --root "$roots/healthy-inbox" check --format=prometheus --format json > "$work/last.json" 2> /dev/null
jq -e .schema "$work/last.json" > /dev/null 2>&1 && ok || bad "the last --format does not win"

# 4. alert rules
out=$(promtool check rules "$top/contrib/prometheus/rdma-doctor.rules.yml" 2>&1)
[ $? = 0 ] && grep -q 'SUCCESS: 6 rules found' <<< "$out" && ok || bad "promtool check rules: $out"
mkdir -p "$work/rules"
cp "$top/contrib/prometheus/rdma-doctor.rules.yml" "$top/tests/prometheus/rules.test.yml" "$work/rules/"
out=$(promtool test rules "$work/rules/rules.test.yml" 2>&1)
[ $? = 0 ] && ok || bad "promtool test rules: $out"

# 5. a real node_exporter reading the textfile directory (one rdma-doctor file per directory: two
# files with the same series make the scrape fail)
"$bin" --root "$roots/port-polling" check --format prometheus --output "$tf/rdma-doctor.prom" 2> /dev/null
for try in 1 2 3 4 5; do
	port=$((20000 + RANDOM % 40000))
	prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$tf" > "$work/exporter.log" 2>&1 &
	exporter_pid=$!
	up=0
	for _ in $(seq 100); do
		curl -sf "http://127.0.0.1:$port/metrics" -o "$work/scrape1.txt" && { up=1; break; }
		kill -0 "$exporter_pid" 2> /dev/null || break
		sleep 0.1
	done
	[ $up = 1 ] && break
	kill "$exporter_pid" 2> /dev/null; wait "$exporter_pid" 2> /dev/null; exporter_pid=
done
scrape() { curl -sf "http://127.0.0.1:$port/metrics" -o "$1" && ok || bad "curl: scrape of 127.0.0.1:$port failed"; }
if [ "$up" = 1 ]; then
	ok
	s1=$work/scrape1.txt
	expect "$s1" node_textfile_scrape_error 0
	expect "$s1" 'rdma_doctor_check_status{check="ports.state",subject="mlx5_1 port 1"}' 2
	expect "$s1" 'rdma_doctor_port_state_id{device="mlx5_1",port="1"}' 1
	expect "$s1" 'rdma_doctor_status' 2
	expect "$s1" 'rdma_doctor_last_run_timestamp_seconds' 1.7644608e+09
	grep -qF "node_textfile_mtime_seconds{file=\"$tf/rdma-doctor.prom\"} " "$s1" && ok || bad "node_exporter did not read rdma-doctor.prom"
	n_ours=$(grep -c '^rdma_doctor_' "$work/port-polling.prom")
	n_got=$(grep -c '^rdma_doctor_' "$s1")
	[ "$n_ours" = "$n_got" ] && ok || bad "node_exporter served $n_got of our $n_ours series"
	grep '^rdma_doctor_check_status{check="ports.state",subject="mlx5_1 port 1"}' "$s1" > "$work/scraped-line.txt"
	# hostile labels survive node_exporter's parser
	"$bin" --root "$h" check --format prometheus --counters --output "$tf/rdma-doctor.prom" 2> /dev/null
	scrape "$work/scrape2.txt"
	expect "$work/scrape2.txt" node_textfile_scrape_error 0
	expect "$work/scrape2.txt" 'rdma_doctor_port_hw_counters_total{counter="evil\"} 1\\name",device="mlx5_0",port="1"}' 11
	# names that are not kernel names: no duplicate series, so node_exporter keeps the file
	"$bin" --root "$dup" check --format prometheus --counters --output "$tf/rdma-doctor.prom" 2> /dev/null
	scrape "$work/scrape-dup.txt"
	expect "$work/scrape-dup.txt" node_textfile_scrape_error 0
	expect "$work/scrape-dup.txt" 'rdma_doctor_port_counters_total{counter="symbol_error",device="mlx5_0",port="1"}' 4
	grep -q '^rdma_doctor_device_info{board_id="MT_\\"}\\\\ 1 ",device="mlx5_0"' "$work/scrape2.txt" && ok ||
		bad "node_exporter: hostile board_id: $(grep -a 'device_info{' "$work/scrape2.txt" | head -1)"
	# the control: a client timestamp makes node_exporter reject the file (the check can fail)
	printf '# HELP x_seconds x\n# TYPE x_seconds gauge\nx_seconds 1 1700000000000\n' > "$tf/stamped.prom"
	scrape "$work/scrape3.txt"
	expect "$work/scrape3.txt" node_textfile_scrape_error 1
	rm -f "$tf/stamped.prom"
	kill "$exporter_pid" 2> /dev/null; wait "$exporter_pid" 2> /dev/null; exporter_pid=
else
	bad "node_exporter did not start: $(tail -3 "$work/exporter.log")"
fi
[ -s "$work/scraped-line.txt" ] && echo "scraped: $(cat "$work/scraped-line.txt")"
ts_finalize
