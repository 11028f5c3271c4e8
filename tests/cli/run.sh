#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# CLI golden tests: each line of tests/cli/cases.txt is "NAME<TAB>ARGS"; the command
# `rdma-doctor ARGS` runs from the project's top directory (each in its own process) and its
# stdout, stderr and exit status must equal tests/cli/expected/NAME (pids masked).
# Usage: tests/cli/run.sh [BUILD_DIR] [--update]        Ends with "N passed, N failed".
# RD_WRAP (e.g. "valgrind -q --error-exitcode=99 --leak-check=full") runs every case under it.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$top/build update=0
for a in "$@"; do case "$a" in --update) update=1 ;; *) build=$a ;; esac; done
bin=$build/rdma-doctor
cd "$top" || exit 1
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
export PATH="$top/tests/cli/mock-bin:$PATH" # a mock scontrol for the slurm cases (tests/cli/mock-bin/scontrol)
ts_init
render() { # NAME ARGS -> the golden form on stdout
	local out err rc
	out=$(mktemp) err=$(mktemp)
	eval "${RD_WRAP:-} \"$bin\" $2" > "$out" 2> "$err" < /dev/null
	rc=$?
	cat "$out"
	if [ -s "$err" ]; then echo "--- stderr"; sed -E 's/\[[0-9]+\]/[PID]/' "$err"; fi
	echo "--- exit $rc"
	rm -f "$out" "$err"
}
# the sanitizer pass (valgrind) runs every third case: the plain pass compared all of them
n=0
ts_subset && ts_skip "two of every three cases" "the plain pass ran them"
while IFS=$'\t' read -r name args; do
	case "$name" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	ts_subset && [ $((n % 3)) != 1 ] && continue
	exp=tests/cli/expected/$name
	got=$(render "$name" "$args")
	if [ $update = 1 ]; then printf '%s\n' "$got" > "$exp"; ok; continue; fi
	if [ -f "$exp" ] && [ "$got" = "$(cat "$exp")" ]; then
		ok
	else
		bad "$name: rdma-doctor $args"
		diff <(printf '%s\n' "$got") "$exp" | head -20
	fi
done < tests/cli/cases.txt
ts_finalize
