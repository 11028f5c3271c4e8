#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Differential test: rdma-core's real ibstat and ibstatus (Debian infiniband-diags) against
# `rdma-doctor --root TREE ibstat/ibstatus`, byte for byte (stdout, stderr with the pid masked,
# exit status), over example roots, real-data trees from ../shared/fixtures/real and broken trees.
# The real tools read /sys/class/infiniband, so each tree's sys/ is bind-mounted on /sys inside a
# private mount namespace (unshare -m; needs root).  Also rebuilds a tree from each real ibstat
# output in the fixtures and checks both tools print that output again.
# Usage: tests/diff/run.sh [BUILD_DIR]      Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
bin=$build/rdma-doctor
. "$top/tests/lib.sh"
real=$ts_real
ts_scratch diff
ts_init

[ "$(id -u)" = 0 ] || ts_die "the differential test needs root (unshare -m, mount --bind)"
command -v ibstat >/dev/null && command -v ibstatus >/dev/null ||
	ts_die "rdma-core's ibstat/ibstatus are not installed (apt-get install infiniband-diags)"
[ -x "$bin" ] || ts_die "$bin is not built"
ts_have_real || ts_skip "the real-data trees and the real ibstat outputs" "$ts_real_reason"

trees=()
add_tree() { trees+=("$1"); }
for e in h100-ofed mixed-states rxe-qemu no-rdma; do
	mkdir -p "$work/t/$e" && cp -a "$top/examples/$e/." "$work/t/$e/" && add_tree "$work/t/$e"
done
real_ibstat=()
if ts_have_real; then
"$top/tests/tools/fixture2root.sh" dir "$real/gpud-h100-sys-class-infiniband" "$work/t/gpud-h100" && add_tree "$work/t/gpud-h100"
"$top/tests/tools/fixture2root.sh" ttar "$real/prometheus-procfs__fixtures.ttar__sys-class-infiniband.tsv" "$work/t/procfs" && add_tree "$work/t/procfs"
"$top/tests/tools/fixture2root.sh" gcm "$real/gcm__learn_good.json" "$work/t/gcm-a100" && add_tree "$work/t/gcm-a100"
real_ibstat=("$real"/gpud__ibstat.*.txt)
fi
for f in "${real_ibstat[@]}"; do
	n=$(basename "$f" .txt)
	"$top/tests/tools/fixture2root.sh" ibstat "$f" "$work/t/$n" && add_tree "$work/t/$n"
done
# broken trees: each is h100-ofed's mlx5_3 with one thing wrong (mlx5_0..2 print first)
broken() { # name command-to-break-it
	local t=$work/t/broken-$1
	mkdir -p "$t" && cp -a "$top/examples/h100-ofed/." "$t/"
	(cd "$t/sys/class/infiniband/mlx5_3" && eval "$2") && add_tree "$t"
}
broken no-pkeys 'rm -r ports/1/pkeys'
broken no-node-guid 'rm node_guid'
broken bad-guid 'echo "a088:c203" > node_guid'
broken no-ports 'rm -r ports'
broken bad-port-name 'mkdir ports/abc'
broken no-gid0 'rm ports/1/gids/0'
broken no-fw-then-no-lid 'rm fw_ver ports/1/lid'
broken no-link-layer 'rm ports/1/link_layer'
broken empty-rate ': > ports/1/rate'
broken no-node-type 'rm node_type'
broken rnic 'echo "4: RNIC" > node_type'
broken port-2-hole 'mkdir -p ports/3 && cp -a ports/1/. ports/3/'
broken lid-garbage 'echo "zz" > ports/1/lid; echo "99999999999999999999999" > ports/1/sm_lid'
broken fdr10 'echo "40 Gb/sec (4X FDR10)" > ports/1/rate'
broken crlf-values 'printf "28.41.1000\r\n" > fw_ver; printf "a\nb\nc" > hw_rev'
broken class-is-file 'cd ../.. && rm -rf infiniband && echo x > infiniband'
broken empty-class 'cd ../.. && rm -rf infiniband && mkdir infiniband'
broken long-name 'cd .. && mv mlx5_3 mlx5_with_a_very_long_name_3'

ibstat_args=("" "-l" "-s" "-p" "@CA" "@CA 1" "@CA 2" "@CA 0x1" "-s @CA" "-p @CA" "-l @CA" "nosuch" "nosuch 1"
	"-h" "-V" "--bogus" "-dd" "@CA -- 1" "-z /nonexistent @CA")
ibstatus_args=("" "@CA" "@CA:1" "@CA:7" "@CA:" "nosuch" "-h" "@CA @CA2:1")

# Runs one tool over a tree: real (inside the namespace) or ours; writes out/err/rc.
run_real_all() { # tree outdir tool argsfile
	unshare -m bash -c '
		set -u
		mount --make-rprivate / 2>/dev/null
		if [ -d "$1/sys" ]; then mount --bind "$1/sys" /sys; else mount -t tmpfs none /sys; fi
		i=0
		while IFS= read -r args; do
			i=$((i + 1))
			(cd / && eval "$3 $args") > "$2/$i.out" 2> "$2/$i.err"
			echo $? > "$2/$i.rc"
		done < "$4"
	' _ "$1" "$2" "$3" "$4"
}

first_ca() { # tree: first CA by byte order (any entry for ibstatus)
	ls "$1/sys/class/infiniband" 2>/dev/null | LC_ALL=C sort | head -${2:-1} | tail -1
}

for t in "${trees[@]}"; do
	name=$(basename "$t")
	ca=$(first_ca "$t" 1); [ -n "$ca" ] || ca=mlx5_0
	ca2=$(first_ca "$t" 2); [ -n "$ca2" ] || ca2=$ca
	for tool in ibstat ibstatus; do
		if [ $tool = ibstat ]; then args=("${ibstat_args[@]}"); else args=("${ibstatus_args[@]}"); fi
		d=$work/r/$name/$tool; mkdir -p "$d/real" "$d/mine"
		: > "$d/args"
		for a in "${args[@]}"; do a=${a//@CA2/$ca2}; echo "${a//@CA/$ca}" >> "$d/args"; done
		run_real_all "$t" "$d/real" "$tool" "$d/args"
		i=0
		while IFS= read -r a; do
			i=$((i + 1))
			(cd / && eval "\"$bin\" --root \"$t\" $tool $a") > "$d/mine/$i.out" 2> "$d/mine/$i.err"
			echo $? > "$d/mine/$i.rc"
			for s in real mine; do sed -E 's/\[[0-9]+\]/[PID]/; s#^(/usr/sbin/)##' "$d/$s/$i.err" > "$d/$s/$i.err.n"; done
			if cmp -s "$d/real/$i.out" "$d/mine/$i.out" && cmp -s "$d/real/$i.err.n" "$d/mine/$i.err.n" &&
				cmp -s "$d/real/$i.rc" "$d/mine/$i.rc"; then
				pass=$((pass + 1))
			else
				fail=$((fail + 1))
				echo "FAIL $name: $tool $a"
				diff "$d/real/$i.out" "$d/mine/$i.out" | head -5
				diff "$d/real/$i.err.n" "$d/mine/$i.err.n" | head -5
				diff "$d/real/$i.rc" "$d/mine/$i.rc" | head -3
			fi
		done < "$d/args"
	done
done

# The real ibstat outputs in the fixtures come back from the trees rebuilt from them.
for f in "${real_ibstat[@]}"; do
	n=$(basename "$f" .txt)
	sed -e 's/^        /\t/' -e 's/^\t        /\t\t/' "$f" | grep -v '^ibpanic' |
		awk '{ l[NR] = $0 } END { n = NR; while (n > 0 && l[n] == "") n--; for (i = 1; i <= n; i++) print l[i] }' > "$work/exp.out"
	"$bin" --root "$work/t/$n" ibstat > "$work/got.out" 2> "$work/got.err"
	grep '^ibpanic' "$f" | sed -E 's/\[[0-9]+\]/[PID]/' > "$work/exp.err"
	sed -E 's/\[[0-9]+\]/[PID]/' "$work/got.err" > "$work/got.err.n"
	if cmp -s "$work/exp.out" "$work/got.out" && cmp -s "$work/exp.err" "$work/got.err.n"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL real output $n"; diff "$work/exp.out" "$work/got.out" | head -5
		diff "$work/exp.err" "$work/got.err.n" | head -3
	fi
done
echo "differential: ${#trees[@]} trees"
ts_finalize
