#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The committed example roots are exactly what tools/make-examples.sh writes (so they never drift
# from the generator and its source formats).       Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib.sh"
ts_init
ts_scratch ex
if ! "$top/tools/make-examples.sh" "$work" > /dev/null 2> "$work/make.err"; then cat "$work/make.err"; echo "FAIL make-examples.sh"; echo "0 passed, 1 failed"; exit 1; fi
for d in "$top"/examples/*/; do
	n=$(basename "$d")
	if [ "$n" = rxe-qemu ] && ! ts_have_real; then ts_skip "examples/$n" "$ts_real_reason"; continue; fi
	if diff -r --no-dereference "$d" "$work/$n" > "$work/diff.txt" 2>&1; then ok
	else bad "examples/$n differs from tools/make-examples.sh output:"; head "$work/diff.txt"; fi
done
ts_finalize
