#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): bench/pairs.c, pairs' planner and judgement on a stand-in network.
# Usage: bench/pairs.sh [NODES] [TRIALS] [RAILS]   (defaults 1024 100 8)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$top/build/librdmadoctor.a" ] || make -C "$top" -s all
work=$(mktemp -d "${TMPDIR:-/tmp}/rd-bench-pairs.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -D_GNU_SOURCE -I"$top/src" -I"$top/tests/unit" -o "$work/pairs" "$top/bench/pairs.c" "$top/build/librdmadoctor.a" -lm -ldl -lpthread
"$work/pairs" "$@"
