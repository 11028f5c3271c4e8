#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): `rdma-doctor pair` against perftest's ib_write_bw and ib_write_lat on
# the same two qemu guests (tests/vm/pair.sh: Soft-RoCE on each, joined by a socket netdev on
# 127.0.0.1), RUNS times; prints each run's figures and the ratios (pair's bandwidth over
# ib_write_bw's, pair's latency over ib_write_lat's typical).  The guests are TCG, so the figures
# are the emulator's: the ratio, not the rate, is what this compares.  Needs what tests/vm/pair.sh
# needs (root, qemu, the Debian kernel, perftest).
# Usage: bench/pair.sh [RUNS [BUILD_DIR]]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-3} build=${2:-$top/build}
for i in $(seq "$runs"); do
	line=$(bash "$top/tests/vm/pair.sh" "$build" | grep '^# two TCG guests')
	echo "run $i: ${line#\# }"
	echo "$line" | awk '{
		for (k = 1; k <= NF; k++) {
			if ($k == "rdma-doctor") pg = $(k + 1)
			if ($k == "ib_write_bw") bw = $(k + 1)
			if ($k == "typical") pl = $(k + 1)
			if ($k == "us;") ml = $(k - 1)
		}
		if (bw > 0 && pl > 0) printf "       bandwidth %.2fx ib_write_bw, latency %.2fx ib_write_lat\n", pg / bw, ml / pl
	}'
done
