#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `rdma-doctor fleet --history` end to end: a week of real `check --format json` runs over the
# scenario roots (tests/scenarios/make.sh), dated by SOURCE_DATE_EPOCH, one directory per host:
#   hist01 healthy throughout;
#   hist02 ib_umad missing twice 100 s apart, OK since: a lemon by "2 in 5 min";
#   hist03 port Polling three times within the hour, OK at the end: a lemon by "3 in 1 h";
#   hist04 reboots (boot_id changes) into a port down that is gone by the next report (the first
#          report after a reboot is not counted), and FAILs 10 days ago (older than --days 7): no lemon;
#   hist05 ib_umad missing every other day, three times: a lemon by "3 in 7 days" (not with
#          --repeats 4, nor with --days 2);
# text, JSON, HTML and Prometheus equal the goldens expected/history.{txt,json,html,prom}
# (promtool accepts the series; headless Chromium renders the page); hostile files (garbage, another schema, truncated, a link, a sparse 65 MiB file,
# a report dated in the future, a directory past the depth bound) get one line each on stderr,
# the rest is scored the same; usage errors exit 3.
# check --history-dir keeps the reports itself: one DIR/HOST/EPOCH.json per run (text, json or
# prometheus -o), the document --format json prints, modes 0755/0644; fleet --history finds the
# lemon of two FAILs 100 s apart in it; the next run prunes by --history-days, leaving foreign
# files and other hosts alone; a history that cannot be written (a file, a link as DIR/HOST, a
# directory others can write) is one line on stderr, the verdict and the report unchanged.
# Usage: tests/fleet/history.sh [BUILD_DIR] [--update]      Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build update=0
for a in "$@"; do case "$a" in --update) update=1 ;; *) build=$(cd "$a" && pwd) ;; esac; done
bin=$build/rdma-doctor
exp=$top/tests/fleet/expected
. "$top/tests/lib.sh"
ts_init -v
command -v jq > /dev/null || bad "jq is missing (apt-get install jq)"
[ -x "$bin" ] || bad "$bin is not built"
[ $fail = 0 ] || ts_finalize
ts_scratch fleet-history
export NO_COLOR=1 LC_ALL=C.UTF-8
cd "$work" || exit 1
T=1764460800 # 2025-11-30T00:00:00Z: the newest report
rc_is() { # rc_is WANT NAME COMMAND...: stdout to NAME.out, stderr to NAME.err
	local want=$1 name=$2; shift 2
	"$@" > "$name.out" 2> "$name.err"
	local rc=$?
	if [ "$rc" = "$want" ]; then ok "$name: exit $rc"; else bad "$name: exit $rc, not $want"; head -5 "$name.err"; fi
}
golden() { # golden NAME FILE
	[ $update = 1 ] && cp "$2" "$exp/$1"
	if cmp -s "$2" "$exp/$1"; then ok "$1 equals the golden"; else bad "$1 differs from the golden"; diff "$exp/$1" "$2" | head -20; fi
}
has() { # NAME FILE PATTERN (grep -E)
	if grep -qE -- "$3" "$2"; then ok "$1"; else bad "$1: no /$3/ in $2"; head -20 "$2"; fi
}

"$top/tests/scenarios/make.sh" "$work/base" healthy-inbox ib-umad-missing port-polling > /dev/null || { bad "make.sh"; ts_finalize; }
# run HOST SCENARIO OFFSET BOOT_ID [DIR]: HOST's report at T+OFFSET (seconds) from the scenario root
mkroot() { # mkroot HOST SCENARIO: roots/HOST-SCENARIO, the scenario's root named HOST
	local host=$1 root=roots/$1-$2
	if [ ! -d "$root" ]; then
		mkdir -p roots && cp -a "base/$2" "$root"
		echo "$host" > "$root/proc/sys/kernel/hostname"
		echo "$host" > "$root/etc/hostname"
		mkdir -p "$root/proc/sys/kernel/random"
	fi
}
run() {
	local host=$1 scen=$2 t=$(($T + $3)) boot=$4 dir=${5:-reports/$1} root=roots/$1-$2
	mkroot "$host" "$scen"
	echo "$boot" > "$root/proc/sys/kernel/random/boot_id"
	mkdir -p "$dir"
	SOURCE_DATE_EPOCH=$t "$bin" --root "$root" check --format json > "$dir/$t.json"
}
A=11111111-1111-4111-8111-111111111111 B=22222222-2222-4222-8222-222222222222
for o in -518400 -259200 -3600 0; do run hist01 healthy-inbox $o $A; done
run hist02 ib-umad-missing -7200 $A; run hist02 ib-umad-missing -7100 $A; run hist02 healthy-inbox 0 $A
for o in -3000 -1500 -100; do run hist03 port-polling $o $A; done; run hist03 healthy-inbox 0 $A
for o in -950400 -950300 -950200; do run hist04 ib-umad-missing $o $A; done
run hist04 healthy-inbox -86400 $A; run hist04 port-polling -86000 $B; run hist04 healthy-inbox -85000 $B
run hist04 healthy-inbox 0 $B
for o in -432000 -259200 -86400; do run hist05 ib-umad-missing $o $A; done; run hist05 healthy-inbox 0 $A
n=$(find reports -name '*.json' | wc -l)
[ "$n" = 22 ] && ok "22 reports made" || bad "$n reports made, not 22"
has "the report carries the root's boot_id" reports/hist04/$(($T - 86000)).json "\"boot_id\": \"$B\""
export SOURCE_DATE_EPOCH=$T

rc_is 1 text "$bin" fleet --history reports
golden history.txt text.out
[ -s text.err ] && bad "stderr: $(head -3 text.err)"
has "the lemons first, the highest score first" text.out '^LEMON hist05  score 6 '
has "hist02: 2 in 5 min, though its latest report is OK" text.out '^  modules.loaded ib_umad: 2 counted, LEMON by "2 in 5 min"'
has "the times of the repeats" text.out '2025-11-29T22:00:00Z, 2025-11-29T22:01:40Z'
has "hist04 rebooted once, no lemon" text.out '^ok    hist04  score 0  reboots 1 '
has "hist04's port down after the reboot is not counted" text.out 'ports.state mlx5_1 port 1: 0 counted \(\+1 after a reboot, not counted\)'
rc_is 1 json "$bin" fleet --history --format json reports
golden history.json json.out
if jq -e '.schema == "rdma-doctor/fleet-history/v1" and .exit_code == 1 and .counts.lemons == 3 and .counts.nodes == 5
	and .counts.old == 3 and .counts.reports == 19
	and ([.nodes[] | select(.lemon) | .node] == ["hist05", "hist02", "hist03"])
	and ([.nodes[] | select(.node == "hist03") | .subjects[0] | .check, .rule, (.times | length)] == ["ports.state", "3 in 1 h", 3])
	and ([.nodes[] | select(.node == "hist05") | .subjects[0].rule] == ["3 in 7 days"])
	and ([.nodes[] | select(.node == "hist04") | .reboots, .lemon, .last_status] == [1, false, "OK"])' json.out > /dev/null; then
	ok "JSON: lemons, rules, times, reboots"
else bad "JSON fields"; jq -c '.counts, [.nodes[] | [.node, .lemon, .score]]' json.out; fi
rc_is 1 prom "$bin" fleet --history --format prometheus reports
golden history.prom prom.out
has "the lemon score series" prom.out '^rdma_doctor_fleet_lemon_score\{node="hist03"\} 3$'
has "a healthy node scores 0" prom.out '^rdma_doctor_fleet_lemon_score\{node="hist01"\} 0$'
has "the reboots series" prom.out '^rdma_doctor_fleet_reboots\{node="hist04"\} 1$'
if command -v promtool > /dev/null; then
	if promtool check metrics < prom.out > promtool.out 2>&1; then ok "promtool check metrics accepts it"
	else bad "promtool: $(head -3 promtool.out)"; fi
fi
# the page: a row per node (lemons first), the window in spans coloured by their worst report
rc_is 1 html "$bin" fleet --history --format html reports
golden history.html html.out
has "HTML: the lemon first, named" html.out '^<tr class="lemon"><td class="node">LEMON hist05</td><td class="n">6</td>'
has "HTML: a healthy node's row" html.out '<tr class="ok"><td class="node">ok hist01</td><td class="n">0</td><td class="n">0</td><td class="n">4</td>'
has "HTML: hist02's FAIL span, with its time and reports" html.out '<rect class="fail" x="[0-9]+" y="4" width="3" height="14"><title>2025-11-29T2[0-9:]+Z to 2025-11-29T2[0-9:]+Z: 2 reports, worst FAIL</title></rect>'
has "HTML: hist04's reboot is marked" html.out '<title>[^<]*, after a reboot</title></rect><rect class="reboot"'
has "HTML: the lemon subject and its rule" html.out '<li class="lemon">modules.loaded ib_umad: 2 counted, LEMON by &quot;2 in 5 min&quot;'
n=$(grep -o '<rect class="[a-z]*" x=' html.out | wc -l)
[ "$n" -le $((5 * 192)) ] && ok "HTML: at most 192 spans a node ($n marks)" || bad "HTML: $n marks for 5 nodes"
# a hostile subject (a device name a report can carry) is text on the page, never markup
mkdir -p evil/hist02 && for f in reports/hist02/*.json; do
	jq '(.findings[] | select(.check == "modules.loaded" and .status == "FAIL") | .subject) = "</li><script>alert(1)</script>"' "$f" > "evil/hist02/${f##*/}"
done
rc_is 1 html-evil "$bin" fleet --history --format html evil
if grep -q '<script' html-evil.out; then bad "HTML: a hostile subject is markup"
else has "HTML: a hostile subject escaped" html-evil.out 'modules.loaded &lt;/li&gt;&lt;script&gt;alert\(1\)&lt;/script&gt;: 2 counted'; fi
if command -v chromium > /dev/null; then
	cp html.out history.html
	timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
		--user-data-dir="$work/chrome" --dump-dom "file://$work/history.html" > hist-dom.html 2> hist-dom.err
	if grep -q '<td class="node">LEMON hist05</td>' hist-dom.html && grep -q '<rect class="fail"' hist-dom.html; then
		ok "Chromium renders the history page: the lemon's row and its timeline in its DOM"
	else bad "Chromium DOM: $(head -c 300 hist-dom.html) $(tail -3 hist-dom.err)"; fi
else bad "chromium is missing (apt-get install chromium)"; fi
rc_is 1 out-file "$bin" fleet --history --format prometheus -o hist.prom reports
cmp -s hist.prom prom.out && ok "-o FILE holds the same series" || bad "-o FILE differs"
[ -s out-file.out ] && bad "-o FILE: stdout not empty"

# the rules' knobs
rc_is 1 repeats4 "$bin" fleet --history --repeats 4 -j reports
[ "$(jq -c '[.nodes[] | select(.lemon) | .node]' repeats4.out)" = '["hist02","hist03"]' ] &&
	ok "--repeats 4: hist05's three FAILs in the window are no lemon" || bad "--repeats 4: $(jq -c '[.nodes[]|select(.lemon)|.node]' repeats4.out)"
rc_is 1 days2 "$bin" fleet --history --days 2 -j reports
[ "$(jq -c '[.nodes[] | select(.lemon) | .node], .since' days2.out)" = '["hist02","hist03"]
"2025-11-28T00:00:00Z"' ] && ok "--days 2: the window is two days before the newest report" || bad "--days 2: $(jq -c '.since' days2.out)"
rc_is 0 healthy-only "$bin" fleet --history reports/hist01 reports/hist04
has "no lemon: exit 0" healthy-only.out '^rdma-doctor fleet --history: 0 lemons among 2 nodes$'
# host and time come from the report, never from the file's name
mkdir renamed && cp reports/hist02/$(($T - 7200)).json renamed/hist99.json && cp reports/hist02/$(($T - 7100)).json renamed/x.json
rc_is 1 renamed "$bin" fleet --history -j renamed
[ "$(jq -c '[.nodes[] | .node, .lemon]' renamed.out)" = '["hist02",true]' ] && ok "the host is the report's, not the file name's" ||
	bad "renamed: $(jq -c '.nodes' renamed.out | head -c 200)"

# concatenated reports on standard input
cat reports/hist02/*.json | "$bin" fleet --history -j - > stdin.out 2> stdin.err
rc=$?
[ "$rc" = 1 ] && [ "$(jq -c '[.nodes[] | .node, .lemon, .score]' stdin.out)" = '["hist02",true,4]' ] &&
	ok "- (standard input): the same lemon" || bad "stdin: exit $rc, $(head -c 200 stdin.out)"

# hostile files: one line each on stderr, the rest scored the same
mkdir -p bad/d1/d2/d3/d4
echo 'not json {' > bad/garbage.json
echo '{"schema": "example/v1", "secret": "x"}' > bad/other.json
head -c 300 reports/hist01/$T.json > bad/truncated.json
ln -s "$work/reports/hist01/$T.json" bad/link.json
truncate -s 65M bad/big.json
SOURCE_DATE_EPOCH=$(($T + 86400)) "$bin" --root roots/hist01-healthy-inbox check --format json > bad/future.json
cp reports/hist01/$T.json bad/d1/d2/d3/d4/deep.json
echo 'an srun .err beside the reports' > bad/node.err
rc_is 1 hostile "$bin" fleet --history -j reports bad
n=$(wc -l < hostile.err)
[ "$n" = 7 ] && ok "7 hostile files, 7 lines on stderr" || { bad "$n lines on stderr, not 7"; cat hostile.err; }
for f in garbage other truncated link big future; do
	has "stderr names bad/$f.json" hostile.err "^rdma-doctor: fleet: bad/$f\\.json: "
done
has "the directory past the depth bound is named" hostile.err '^rdma-doctor: fleet: bad/d1/d2/d3/d4: a directory inside the directory: not read'
has "a link is not followed" hostile.err 'bad/link\.json: .*symbolic link'
has "the big file is refused by size" hostile.err 'bad/big\.json: larger than 64 MiB'
has "the future report is refused" hostile.err 'bad/future\.json: dated 86400 s after'
grep -q secret hostile.err && bad "another program's JSON echoed on stderr"
[ "$(jq -c '.nodes' hostile.out)" = "$(jq -c '.nodes' json.out)" ] && ok "the rest is scored the same" || bad "hostile input changed the nodes"
[ "$(jq -c '.counts.problems, .counts.future' hostile.out)" = '6
1' ] && ok "counted: 6 unreadable, 1 in the future" || bad "counts: $(jq -c .counts hostile.out)"
rc_is 3 bad-only "$bin" fleet --history bad
mkdir none
rc_is 3 no-report "$bin" fleet --history none
has "an empty directory is said" no-report.err 'none: an empty directory'

# check --history-dir: the runs keep the reports themselves, DIR/HOST/EPOCH.json
# hcheck HOST SCENARIO OFFSET ARGS...: check of HOST's root at T+OFFSET
hcheck() {
	local host=$1 scen=$2 t=$(($T + $3)); shift 3
	mkroot "$host" "$scen"
	echo "$A" > "roots/$host-$scen/proc/sys/kernel/random/boot_id"
	SOURCE_DATE_EPOCH=$t "$bin" --root "roots/$host-$scen" check "$@"
}
mkdir kept
hcheck hist06 healthy-inbox -7200 --history-dir kept/h > h1.out 2> h1.err; rc1=$?
hcheck hist06 ib-umad-missing -600 --history-dir kept/h > h2.out 2> h2.err; rc2=$?
hcheck hist06 ib-umad-missing -600 > h2-plain.out 2> /dev/null; rc2p=$?
hcheck hist06 ib-umad-missing -500 --format json --history-dir kept/h > h3.out 2> h3.err
hcheck hist06 healthy-inbox 0 --format prometheus -o h4.prom --history-dir kept/h > h4.out 2> h4.err; rc4=$?
hcheck hist07 port-polling -3000 --history-dir kept/h --history-days 30 > /dev/null 2> h5.err
hcheck hist07 healthy-inbox 0 --history-dir=kept/h > /dev/null 2> h6.err
[ "$rc1/$rc2/$rc2p/$rc4" = "0/2/2/0" ] && ok "--history-dir leaves the exit status the verdict's" || bad "exit $rc1/$rc2/$rc2p/$rc4"
cat h[1-6].err > h.err
[ -s h.err ] && bad "stderr of --history-dir runs: $(head -3 h.err)" || ok "nothing on stderr"
cmp -s h2.out h2-plain.out && ok "the text report is the same with --history-dir" || bad "--history-dir changed the text report"
[ "$(cd kept/h && find . | sort | tr '\n' ' ')" = ". ./hist06 ./hist06/$(($T - 7200)).json ./hist06/$(($T - 600)).json ./hist06/$(($T - 500)).json ./hist06/$T.json ./hist07 ./hist07/$(($T - 3000)).json ./hist07/$T.json " ] &&
	ok "one DIR/HOST/EPOCH.json per run, nothing else" || bad "kept: $(cd kept/h && find . | sort | tr '\n' ' ')"
[ "$(stat -c %a kept/h/hist06 kept/h/hist06/$T.json | tr '\n' ' ')" = "755 644 " ] && ok "modes 0755 and 0644" ||
	bad "modes: $(stat -c '%n %a' kept/h/hist06 kept/h/hist06/$T.json)"
cmp -s h3.out kept/h/hist06/$(($T - 500)).json && ok "the kept report is the one --format json prints" ||
	bad "the kept report differs from --format json's"
hcheck hist06 ib-umad-missing -600 --format json > h2.json 2> /dev/null
cmp -s h2.json kept/h/hist06/$(($T - 600)).json && ok "a text run keeps the whole JSON report" || bad "a text run's kept report differs"
grep -q '^rdma_doctor_status' h4.prom && ok "--output is still written" || bad "--output: $(head -3 h4.prom)"
rc_is 1 kept "$bin" fleet --history -j kept/h
[ "$(jq -c '[.nodes[] | select(.lemon) | .node, .rule, (.subjects[] | select(.check == "modules.loaded") | .rule)]' kept.out)" = '["hist06","2 in 5 min","2 in 5 min"]' ] &&
	ok "fleet --history finds the lemon the runs kept: 2 FAILs within 5 min" ||
	bad "kept: $(jq -c '[.nodes[] | [.node, .lemon, .score]]' kept.out)"
[ -s kept.err ] && bad "fleet --history: $(head -3 kept.err)"
# the host's reports older than --history-days (default 8) are removed by the next run, the rest kept
cp -a kept/h kept/p && touch kept/p/hist06/notes.txt kept/p/hist06/1.json.bak
hcheck hist06 healthy-inbox $((8 * 86400 - 3600)) --history-dir kept/p > /dev/null 2> p1.err
[ "$(ls -A kept/p/hist06 | tr '\n' ' ')" = "1.json.bak $(($T - 600)).json $(($T - 500)).json $T.json $(($T + 8 * 86400 - 3600)).json notes.txt " ] &&
	ok "the next run removes the reports more than 8 days older, nothing else" || bad "pruned: $(ls -A kept/p/hist06 | tr '\n' ' ')"
[ "$(ls kept/p/hist07 | wc -l)" = 2 ] && ok "another host's reports are left alone" || bad "hist07: $(ls kept/p/hist07)"
hcheck hist06 healthy-inbox $((20 * 86400)) --history-dir kept/p --history-days 30 > /dev/null 2> p2.err
[ "$(ls kept/p/hist06/*.json | wc -l)" = 5 ] && ok "--history-days 30 keeps a month" || bad "--history-days 30: $(ls kept/p/hist06)"
# a failure to keep the report: one line on stderr naming the path, the verdict and output unchanged
echo x > kept/file
hcheck hist06 ib-umad-missing -600 --history-dir kept/file > f1.out 2> f1.err; rc=$?
[ "$rc" = 2 ] && cmp -s f1.out h2-plain.out && ok "a history that cannot be written changes neither the verdict nor the report" ||
	bad "history failure: exit $rc"
[ "$(wc -l < f1.err)" = 1 ] && has "the line names the path and why" f1.err '^rdma-doctor: check: --history-dir: .*kept/file.* not a directory' ||
	{ bad "stderr: $(cat f1.err)"; }
mkdir kept/l && ln -s "$work/kept/h/hist06" kept/l/hist06
hcheck hist06 ib-umad-missing -400 --history-dir kept/l > /dev/null 2> f2.err; rc=$?
[ "$rc" = 2 ] && has "a link in place of DIR/HOST is refused" f2.err '^rdma-doctor: check: --history-dir: kept/l/hist06: a symbolic link or not a directory: refusing to write through it$' ||
	bad "link: exit $rc"
[ -e kept/h/hist06/$(($T - 400)).json ] && bad "written through the link" || ok "nothing written through the link"
mkdir -m 0777 kept/o && mkdir -m 0777 kept/o/hist06 && chmod 0777 kept/o/hist06
hcheck hist06 healthy-inbox 0 --history-dir kept/o > /dev/null 2> f3.err; rc=$?
[ "$rc" = 0 ] && has "a host directory others can write is refused" f3.err 'kept/o/hist06 is refused: writable by others \(mode 0777\)' || bad "0777: exit $rc"
rc_is 3 hdays-no-dir hcheck hist06 healthy-inbox 0 --history-days 3
rc_is 3 hdays-0 hcheck hist06 healthy-inbox 0 --history-dir kept/h --history-days 0
rc_is 3 hdir-empty hcheck hist06 healthy-inbox 0 --history-dir ''
rc_is 3 hdir-explain hcheck hist06 healthy-inbox 0 --history-dir kept/h --policy-explain
rc_is 3 hdir-npd "$bin" --root roots/hist06-healthy-inbox npd --history-dir kept/h
rc_is 3 watch-hdays "$bin" --root roots/hist06-healthy-inbox watch --history-days 3
has "--history-days without --history-dir is said" hdays-no-dir.err 'needs --history-dir'

# usage errors
rc_is 3 days-0 "$bin" fleet --history --days 0 reports
rc_is 3 days-word "$bin" fleet --history --days 7x reports
rc_is 3 repeats-no-history "$bin" fleet --repeats 3 reports
rc_is 3 days-no-history "$bin" fleet --days 3 reports
rc_is 3 prom-no-history "$bin" fleet --format prometheus reports
rc_is 3 no-path "$bin" fleet --history
has "a usage error names the option" days-0.err "--days '0'"
ts_finalize
