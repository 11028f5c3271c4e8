#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The --only differential over every scenario root and every example root, every check: a run of
# `check --only ID` loads only what ID needs (checks/needs.c), and gives ID's findings exactly as
# the whole run does.  A need left out shows here as a finding that differs.
# Usage: tests/scenarios/only.sh [BUILD_DIR]       Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
bin=$build/rdma-doctor
. "$top/tests/lib.sh"
work=$(mktemp -d /tmp/rd-only.XXXXXX)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
command -v jq > /dev/null || { echo "FAIL: jq is required"; echo "0 passed, 1 failed"; exit 1; }
"$top/tests/scenarios/make.sh" "$work/roots" > /dev/null || { echo "FAIL: make.sh"; echo "0 passed, 1 failed"; exit 1; }
for e in "$top"/examples/*/; do cp -a "$e" "$work/roots/example-$(basename "$e")"; done
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
ids=$("$bin" checks | sed -nE 's/^([a-z]+\.[a-z_]+) .*/\1/p')
[ "$(wc -w <<< "$ids")" -ge 20 ] && ok || bad "checks lists $(wc -w <<< "$ids") checks"
cd "$work/roots" || exit 1
seed() { rm -rf "$work/sd"; mkdir -p "$work/sd"; [ ! -d ".state/$1" ] || cp -a ".state/$1/." "$work/sd/"; }
for d in */; do
	r=${d%/}
	seed "$r"; "$bin" --root "$r" check --state-dir "$work/sd" --format json > "$work/all.json" 2> /dev/null
	jq -e '.findings | length > 0' "$work/all.json" > /dev/null 2>&1 || { bad "$r: no report from the whole run"; continue; }
	rm -rf "$work/one"; mkdir "$work/one"
	for id in $ids; do
		seed "$r"; "$bin" --root "$r" check --state-dir "$work/sd" --only "$id" --format json > "$work/one/$id" 2> /dev/null
	done
	# one jq for the root: each ID whose --only findings differ from the whole run's, with both
	diffs=$(cd "$work/one" && jq -rn --slurpfile all "$work/all.json" '
		[inputs | {file: input_filename, f: .findings}] | .[] | .file as $id |
		($all[0].findings | map(select(.check == $id))) as $want | (.f | map(select(.check == $id))) as $got |
		select($want != $got) | "\($id): whole run \($want | map(.status + " " + .subject) | join("; ")), --only \($got | map(.status + " " + .subject) | join("; "))"' $ids 2>&1)
	n=0
	for id in $ids; do n=$((n + 1)); done
	if [ -z "$diffs" ]; then pass=$((pass + n))
	else
		while IFS= read -r l; do bad "$r: --only $l"; done <<< "$diffs"
		pass=$((pass + n - $(wc -l <<< "$diffs")))
	fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
