#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): how long `check --only SUBSET` takes on the 9-device tree
# examples/h100-ofed, to choose what a Slurm Prolog can afford (README, "Slurm").  Prints, for
# RUNS runs of each subset, of the whole catalogue and of /bin/true, the median wall time and the
# CPU time (user + system) per run, which a busy machine disturbs less.
# On a live host add what the loader runs whatever --only says (systemctl, dkms status,
# ofed_info -s, dmesg: each bounded by its own timeout); `slurm` adds one `scontrol show node`.
# Usage: bench/slurm-prolog.sh [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-50}
bin=$top/build/rdma-doctor
tree=$top/examples/h100-ofed
[ -x "$bin" ] || make -C "$top" -s
cpu() { # COMMAND... -> CPU ms per run (user + system of the children)
	local i
	( for i in $(seq "$runs"); do "$@" > /dev/null 2>&1 || true; done; times ) | tail -1 |
		awk -v n="$runs" '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] }
			printf "%.1f", t * 1000 / n }'
}
median() { # COMMAND... -> median wall time in ms (one decimal)
	local t=() s e i
	for i in $(seq "$runs"); do
		s=$(date +%s%N); "$@" > /dev/null 2>&1 || true; e=$(date +%s%N)
		t+=($(( (e - s) / 100000 )))
	done
	printf '%s\n' "${t[@]}" | sort -n | awk '{ v[NR] = $1 } END { m = v[int((NR + 1) / 2)]; printf "%d.%d", m / 10, m % 10 }'
}
row() { printf '%-34s %8s %8s\n' "$1" "$2" "$3"; }
row "subset (--only)" "wall ms" "CPU ms"
row "/bin/true (process start)" "$(median /bin/true)" "$(cpu /bin/true)"
row "(all checks)" "$(median "$bin" --root "$tree" check)" "$(cpu "$bin" --root "$tree" check)"
for s in modules devnodes ports firmware memlock peermem roce.mtu stack.flavor stack.mixed stack.dkms \
	kernel.log openibd; do
	row "$s" "$(median "$bin" --root "$tree" check --only "$s")" "$(cpu "$bin" --root "$tree" check --only "$s")"
done
prolog=modules.loaded,devnodes.present,ports.state,ports.rate,peermem.loaded,memlock.limit
row "prolog set (README)" "$(median "$bin" --root "$tree" check --only $prolog)" \
	"$(cpu "$bin" --root "$tree" check --only $prolog)"
echo "(prolog set: $prolog)"
