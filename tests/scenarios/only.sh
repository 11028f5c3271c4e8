#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The --only differential over every scenario root (the real H100 tree's too) and every example
# root, every check: a run of `check --only ID` loads only what ID needs (the needs column of
# checks/catalogue.h), and gives ID's findings (text report: its line, evidence and fix) exactly as
# the JSON report, which reads everything.  A need left out shows here: the run aborts on the part
# not loaded (model/host.h rd_need), or its findings differ.
# Usage: tests/scenarios/only.sh [BUILD_DIR]       Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
bin=$build/rdma-doctor
. "$top/tests/lib.sh"
ts_scratch only
ts_init
command -v jq > /dev/null || ts_die "jq is required"
"$top/tests/scenarios/make.sh" "$work/roots" > /dev/null || ts_die "make.sh"
for e in "$top"/examples/*/; do cp -a "$e" "$work/roots/example-$(basename "$e")"; done
# and the real H100 tree, as tests/scenarios/run.sh reads it
if [ -d "$ts_real/gpud-h100-sys-class-infiniband" ]; then
	"$top/tests/tools/fixture2root.sh" dir "$ts_real/gpud-h100-sys-class-infiniband" "$work/roots/real-gpud-h100"
elif ts_have_real; then
	bad "real fixture missing: $ts_real/gpud-h100-sys-class-infiniband"
else
	ts_skip "real-gpud-h100 (the real H100 tree)" "$ts_real_reason"
fi
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
ids=$("$bin" checks | sed -nE 's/^([a-z]+\.[a-z_]+) .*/\1/p')
[ "$(wc -w <<< "$ids")" -ge 20 ] && ok || bad "checks lists $(wc -w <<< "$ids") checks"
cd "$work/roots" || exit 1
seed() { rm -rf "$work/sd"; mkdir -p "$work/sd"; [ ! -d ".state/$1" ] || cp -a ".state/$1/." "$work/sd/"; }
# The truth is the JSON report, which reads every part of the model whatever is selected; a text
# report (and npd's line) reads only what the selected checks need.  Both are brought to one form,
# sorted: "ID<TAB>STATUS MESSAGE" per finding and, under a WARN, FAIL or UNKNOWN one (the text shows
# no more of OK and SKIP), "<TAB>  E PATH = VALUE" per evidence and "<TAB>  FN FIX" per fix.
jnorm() { jq -r 'def e: gsub("\n"; "\\x0a") | gsub("\t"; "\\x09"); .findings[] | .check as $c | .subject as $s | (if $s == "host" or (.message | contains($s)) then (.message | e) else "\($s | e): \(.message | e)" end) as $m | "\(.status) \($m)" as $h | ("\($c)\t\($h)"), (if .status != "OK" and .status != "SKIP" then (.evidence[] | "\($c)\t\($h)\t  E \(.path | e) = \(.value | e)"), (.fix | to_entries[] | "\($c)\t\($h)\t  F\(.key) \(.value | e)") else empty end)' "$1" | LC_ALL=C sort; }
tnorm() { awk '/^[^ ]+ +(OK|WARN|FAIL|SKIP|UNKNOWN) +[a-z]+\.[a-z_]+ / { c = $3; m = $0; sub(/^[^ ]+ +[A-Z]+ +[a-z]+\.[a-z_]+ +/, "", m); h = $2 " " m; print c "\t" h; n = 0; next }
	/^            fix: / && c != "" { l = $0; sub(/^            fix: /, "", l); print c "\t" h "\t  F" n++ " " l; next }
	/^                 / && c != "" { l = $0; sub(/^                 /, "", l); print c "\t" h "\t  F" n++ " " l; next }
	/^            [^ ]/ && c != "" { l = $0; sub(/^            /, "", l); print c "\t" h "\t  E " l; next }
	{ c = "" }' "$1" | LC_ALL=C sort; }
for d in */; do
	r=${d%/}
	seed "$r"; "$bin" --root "$r" check --state-dir "$work/sd" --format json > "$work/all.json" 2> /dev/null
	jq -e '.findings | length > 0' "$work/all.json" > /dev/null 2>&1 || { bad "$r: no JSON report"; continue; }
	rm -rf "$work/all"; mkdir "$work/all"
	jnorm "$work/all.json" | awk -F '\t' -v d="$work/all" '{ print > (d "/" $1) }'
	for id in $ids; do
		seed "$r"; "$bin" --root "$r" check --state-dir "$work/sd" --only "$id" > "$work/one.txt" 2> /dev/null
		tnorm "$work/one.txt" > "$work/one"
		if cmp -s "$work/all/$id" "$work/one"; then ok
		else
			bad "$r: check --only $id (text) differs from the JSON report, which reads everything"
			diff "$work/all/$id" "$work/one" | head -6 | cut -c1-300
		fi
	done
done
ts_finalize
