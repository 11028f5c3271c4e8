# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The shell library of the test runners, sourced as `. "$top/tests/lib.sh"` once $top is set.
# What lives in ../shared (the real captures, the operator's guide) is not part of a clone: a case
# that needs it is skipped, by name and with the reason, never passed and never failed.
#   ts_real           the real captures' directory (RD_REAL_FIXTURES, else ../shared/fixtures/real)
#   ts_seed           the operator's guide, whose ConnectX-7 mlxlink/flint/mlxconfig blocks some
#                     scenario roots carry (RD_SEED, else ../shared/seed/...)
#   ts_have_real, ts_have_seed   true when they are there
#   ts_skip WHAT REASON          says that WHAT was not run, and why
#   ts_skipped_scenario DIR NAME true when tests/scenarios/make.sh left NAME out of DIR (no guide)
ts_real=${RD_REAL_FIXTURES:-$top/../shared/fixtures/real}
ts_seed=${RD_SEED:-$ts_real/../../seed/000_82afedced5993be5.txt}
ts_have_real() { [ -d "$ts_real" ]; }
ts_have_seed() { [ -f "$ts_seed" ]; }
ts_skip() { echo "skip: $1: $2"; }
ts_real_reason="../shared/fixtures/real is absent (a plain clone; RD_REAL_FIXTURES names it)"
ts_seed_reason="../shared/seed is absent (the operator's guide and its ConnectX-7 captures)"
ts_skipped_scenario() { [ -f "$1/.skipped" ] && grep -qxF -- "$2" "$1/.skipped"; }

# The frame of every runner (after util-linux's tests/functions.sh): the counters, the cases, the
# closing line and the scratch directory.
#   ts_init [-v]       pass=0 fail=0; -v: ok prints "ok WHAT" (the runners whose cases are named)
#   ts_scratch NAME    work=$(mktemp -d ${TMPDIR:-/tmp}/rd-NAME.XXXXXX), removed at exit (made
#                      writable first); RD_KEEP=1 keeps it and says where
#   ok [WHAT]          one case passed
#   bad WHAT           one case failed: "FAIL WHAT"
#   ts_die WHAT        the runner cannot go on: "FAIL: WHAT", "0 passed, 1 failed", exit 1
#   ts_finalize        "N passed, N failed"; exits 0 when none failed, 1 otherwise
#   ts_subset          true in a pass that repeats one already run on the plain build (run-all.sh
#                      sets RD_TESTS_SUBSET=1 for some sanitizer passes): the runner then runs the
#                      cases that reach code where memory errors live, and names what it leaves
#                      out with ts_skip (outputs and system-call shapes the plain pass checked)
ts_init() {
	ts_say_ok=0
	[ "${1:-}" = -v ] && ts_say_ok=1
	pass=0 fail=0
}
ts_scratch() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/rd-$1.XXXXXX") || ts_die "mktemp"
	trap ts_cleanup EXIT
}
ts_cleanup() {
	if [ -n "${RD_KEEP:-}" ]; then echo "kept $work"; return; fi
	chmod -R u+rwx "$work" 2> /dev/null
	rm -rf "$work"
}
ok() { pass=$((pass + 1)); [ "${ts_say_ok:-0}" = 0 ] || echo "ok $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
ts_die() { echo "FAIL: $*"; echo "0 passed, 1 failed"; exit 1; }
ts_subset() { [ -n "${RD_TESTS_SUBSET:-}" ]; }
# jq -e (--exit-status) as it is documented: jq 1.6 (Debian 12) exits 0 when its input is empty,
# so `jq -e '.ok' "$out"` would pass on a command that printed nothing.  Here no output at all is
# exit 4 ("no valid result").  Other uses of jq are the real one's.
jq() {
	local a e=0
	for a in "$@"; do
		case "$a" in --exit-status) e=1 ;; --*) ;; -*e*) e=1 ;; esac
	done
	[ $e = 1 ] || { command jq "$@"; return; }
	local out rc
	out=$(command jq "$@")
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out"
	[ $rc = 0 ] && [ -z "$out" ] && return 4
	return $rc
}
ts_finalize() {
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}
