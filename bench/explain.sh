#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): `rdma-doctor explain -` over a 100 MB log against
# `LC_ALL=C grep -c -i -E -f PATTERNS` with every pattern of the signature table
# (bench/explain-patterns.c prints them), run alternately, wall-time medians.  The log is job and
# kernel noise with a known message every ~50,000 lines; a second figure is 100 MB of empty lines
# (explain must stay linear there too).
# Usage: bench/explain.sh [RUNS] [MB] [BIN]      Target: explain <= 1.0 x grep.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-7}
mb=${2:-100}
bin=${3:-$top/build/rdma-doctor}
[ -x "$bin" ] || make -C "$top" -s
work=$(mktemp -d "${TMPDIR:-/tmp}/rd-bench-explain.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -D_GNU_SOURCE -I"$top/src" -o "$work/patterns" "$top/bench/explain-patterns.c" "$top/build/librdmadoctor.a" -linih
"$work/patterns" | sort -u > "$work/patterns.txt"
"$top/tests/scenarios/make.sh" "$work/roots" healthy-inbox > /dev/null
awk -v bytes=$((mb * 1024 * 1024)) 'BEGIN {
	n = split("gpu-a01:21811:21902 [0] NCCL INFO Channel 00/32 :    0   1   2   3   4   5   6   7|" \
		"Nov 30 04:00:00 gpu-a01 kernel: [ 4711.000123] mlx5_core 0000:1b:00.0: mlx5e_rx_cqe_err: CQE error on RQ 12|" \
		"Nov 30 04:00:01 gpu-a01 slurmd[4242]: launch task StepId=1234.0 request from UID 1000 GID 1000 HOST 10.0.0.1|" \
		"[2026-11-30 04:00:02.123] [rank 17] iteration 1200 loss 2.3412 lr 0.000120 grad_norm 0.91 tokens/s 182345|" \
		"gpu-a01:21811:21955 [3] NCCL INFO comm 0x5581c2f0 rank 3 nranks 64 cudaDev 3 busId 4d000 - Init COMPLETE", L, "|")
	k = 0
	while (total < bytes) {
		line = (k % 50000 == 49999) ? "gpu-a01:21811:21811 [0] NCCL INFO NET/IB : No device found." : L[k % n + 1]
		print line; total += length(line) + 1; k++
	}
}' > "$work/log"
head -c $((mb * 1024 * 1024)) /dev/zero | tr '\0' '\n' > "$work/empty"
export LC_ALL=C
t() { local s e; s=$(date +%s%N); "$@" > "$work/out" || true; # not /dev/null: grep stops at the first match there
	 e=$(date +%s%N); echo $(((e - s) / 1000000)); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for input in log empty; do
	: > "$work/a"; : > "$work/b"
	for ((i = 0; i < runs; i++)); do
		t "$bin" --timeout 0 --root "$work/roots/healthy-inbox" explain - < "$work/$input" >> "$work/a"
		t grep -c -i -E -f "$work/patterns.txt" "$work/$input" >> "$work/b"
	done
	a=$(median < "$work/a"); b=$(median < "$work/b")
	echo "$input ($mb MB, $(wc -l < "$work/$input") lines, $(wc -l < "$work/patterns.txt") patterns):"
	echo "  rdma-doctor explain -:        median $a ms   (runs: $(tr '\n' ' ' < "$work/a"))"
	echo "  grep -c -i -E -f patterns:    median $b ms   (runs: $(tr '\n' ' ' < "$work/b"))"
	awk -v a="$a" -v b="$b" 'BEGIN { printf "  ratio explain / grep: %.2f (target <= 1.00)\n", a / (b ? b : 1) }'
done
