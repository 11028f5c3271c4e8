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
