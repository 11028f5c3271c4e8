#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The whole test suite (what `make check` and .ci/run run):
#   installs the test dependencies when run as root and they are missing (Debian packages),
#   builds with gcc and clang (warnings are errors) and with ASan+UBSan,
#   runs the unit tests, CLI golden tests, example-root, snapshot and differential tests
#   (against rdma-core's real ibstat/ibstatus), again under the sanitizers, and the CLI tests
#   under valgrind.  A missing dependency fails loudly; nothing is silently skipped.
# Each section ends with "-- NAME: N s" (its wall time), the slowest are listed at the end, and the
# last line is "N passed, N failed" summed over every runner.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export RD_TESTS_DIR=$top/tests
export RD_REAL_FIXTURES=${RD_REAL_FIXTURES:-$top/../shared/fixtures/real}

# ---- dependencies ------------------------------------------------------------------------
need_cmds=(gcc clang make jq valgrind ibstat ibstatus unshare setpriv base64 md5sum fuzzer-runtime inih verbs larchive
	qemu-system-x86_64 busybox-static kernel cpio depmod rxe-provider ibv_devinfo rdma perfquery systemd-modules-load strace script iconv
	slurmctld slurmd scontrol munged)
need_cmds+=(promtool prometheus-node-exporter curl timeout) # tests/prometheus, tests/npd
need_cmds+=(mandoc man systemd-analyze dpkg-buildpackage dh lintian bash-completion) # tests/install
need_cmds+=(rpm rpmbuild librpm-dev db5.3_load sqlite3) # tests/rpm (real rpm databases; librpm for the build)
need_cmds+=(yajl pdsh clush chromium srun) # fleet: its JSON library; tests/fleet, tests/slurm
pkg_for() { case "$1" in ibstat|ibstatus) echo infiniband-diags ;; unshare|setpriv) echo util-linux ;;
	base64|md5sum) echo coreutils ;; gcc|make) echo build-essential ;; fuzzer-runtime) echo libclang-rt-14-dev ;;
	inih) echo libinih-dev ;; verbs) echo libibverbs-dev ;; larchive) echo libarchive-dev ;;
	qemu-system-x86_64) echo qemu-system-x86 ;; kernel) echo linux-image-amd64 ;; depmod) echo kmod ;;
	rxe-provider) echo ibverbs-providers ;; ibv_devinfo) echo ibverbs-utils ;; rdma) echo iproute2 ;;
	perfquery) echo infiniband-diags ;; systemd-modules-load) echo systemd ;; script) echo bsdutils ;;
	iconv) echo libc-bin ;; scontrol) echo slurm-client ;; munged) echo munge ;;
	promtool) echo prometheus ;; timeout) echo coreutils ;; man) echo man-db ;; systemd-analyze) echo systemd ;;
	dpkg-buildpackage) echo dpkg-dev ;; dh) echo debhelper ;;
	rpmbuild) echo rpm ;; db5.3_load) echo db5.3-util ;;
	yajl) echo libyajl-dev ;; clush) echo clustershell ;; srun) echo slurm-client ;; *) echo "$1" ;; esac; }
have() { # a command, or the libraries that are not commands
	case "$1" in
	fuzzer-runtime) ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a > /dev/null 2>&1 ;;
	inih) [ -f /usr/include/ini.h ] ;;
	yajl) [ -f /usr/include/yajl/yajl_parse.h ] ;;
	verbs) [ -f /usr/include/infiniband/verbs.h ] ;;
	librpm-dev) [ -f /usr/include/rpm/rpmts.h ] && ls /usr/lib/*/librpm.so.9 > /dev/null 2>&1 ;;
	larchive) [ -f /usr/include/archive.h ] && ls /usr/lib/*/libarchive.so.13 > /dev/null 2>&1 ;;
	busybox-static) [ -x /bin/busybox ] && ! ldd /bin/busybox > /dev/null 2>&1 ;;
	kernel) ls /boot/vmlinuz-* > /dev/null 2>&1 && ls -d /lib/modules/*/kernel/drivers/infiniband > /dev/null 2>&1 ;;
	rxe-provider) ls /usr/lib/*/libibverbs/librxe-*.so > /dev/null 2>&1 ;;
	systemd-modules-load) [ -x /lib/systemd/systemd-modules-load ] ;;
	bash-completion) [ -f /usr/share/bash-completion/bash_completion ] ;;
	*) command -v "$1" > /dev/null 2>&1 ;;
	esac
}
missing=()
for c in "${need_cmds[@]}"; do have "$c" || missing+=("$(pkg_for "$c")"); done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		echo "== installing test dependencies: ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq > /dev/null && apt-get install -y -qq "${missing[@]}" > /dev/null ||
			{ echo "FAIL: could not install ${missing[*]}"; echo "0 passed, 1 failed"; exit 1; }
	else
		echo "FAIL: missing test dependencies: ${missing[*]} (run as root to install them)"
		echo "0 passed, 1 failed"
		exit 1
	fi
fi
# A plain clone has no ../shared: the cases that read its real captures or the operator's guide
# are skipped, each naming itself and the reason ("skip: ..." lines), and everything else runs.
. "$top/tests/lib.sh"
ts_have_real || echo "== $ts_real_reason: the cases that read real captures are skipped, each by name"
ts_have_seed || echo "== $ts_seed_reason: the scenario roots built on it are skipped, each by name"

total_pass=0 total_fail=0
# timed NAME START: closes a section with "-- NAME: N s" (its wall time), kept for the summary
scratch=$(mktemp -d /tmp/rd-run-all.XXXXXX) # the build and unit logs; removed at exit
timings=$scratch/timings
timed() {
	local s=$((SECONDS - $2))
	echo "-- $1: $s s"
	printf '%s\t%s\n' "$s" "$1" >> "$timings"
}
# run NAME COMMAND...: runs a runner, adds its closing "N passed, N failed" to the totals.
run() {
	local name=$1; shift
	echo "== $name"
	local t0=$SECONDS
	local log; log=$(mktemp)
	"$@" 2>&1 | tee "$log" | grep -vE '^ok ' || true
	local line; line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	rm -f "$log"
	if [ -z "$line" ]; then
		echo "FAIL: $name did not report results"
		total_fail=$((total_fail + 1))
		timed "$name" "$t0"
		return
	fi
	local p f; p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
	timed "$name" "$t0"
}
build() { # NAME MAKE-ARGS...
	echo "== build: $1"; local name="build: $1"; shift
	local t0=$SECONDS
	if make -s "$@" > "$scratch/build.log" 2>&1; then total_pass=$((total_pass + 1))
	else cat "$scratch/build.log"; echo "FAIL: build"; total_fail=$((total_fail + 1)); fi
	timed "$name" "$t0"
}
unit() { # BUILD_DIR
	local p=0 f=0 line
	for t in "$1"/tests/test_*; do
		[ -x "$t" ] || continue
		"$t" | grep -v '^ok ' | tee "$scratch/unit.log"
		line=$(grep -E '^[0-9]+ passed' "$scratch/unit.log" | tail -1)
		if [ -z "$line" ]; then f=$((f + 1)); echo "FAIL: $t crashed"; continue; fi
		p=$((p + ${line%% passed*})); line=${line#*passed, }; f=$((f + ${line%% failed*}))
	done
	echo "$p passed, $f failed"
}

# the scenario roots, written once: tests/scenarios/make.sh copies them from here for every runner
export RD_SCENARIO_ROOTS; RD_SCENARIO_ROOTS=$(mktemp -d /tmp/rd-roots.XXXXXX)
trap 'rm -rf "$RD_SCENARIO_ROOTS" "$scratch"' EXIT
echo "== scenario roots (tests/scenarios/make.sh, once for every runner)"
t0=$SECONDS
tests/scenarios/make.sh "$RD_SCENARIO_ROOTS" > /dev/null && touch "$RD_SCENARIO_ROOTS/.complete" ||
	echo "(make.sh failed: each runner writes its own roots, and says what failed)"
timed "scenario roots" "$t0"
build "gcc -Werror" all tests-bin
build "clang -Werror" clang
build "ASan+UBSan" asan
build "libFuzzer targets" fuzz-bin
run "unit tests" unit build
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
run "unit tests (ASan+UBSan)" unit build-asan
run "CLI golden tests" tests/cli/run.sh build
run "CLI golden tests (ASan+UBSan)" tests/cli/run.sh build-asan
# valgrind (3.19) does not know openat2 and says so on stderr: under it the source layer is given
# ENOSYS by the fault shim, and takes its O_PATH walk instead (which valgrind then checks too).
VALGRIND="env LD_PRELOAD=$top/build/tests/libfaults.so RD_FAULT_NO_OPENAT2=1 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
run "CLI golden tests (valgrind)" env RD_WRAP="$VALGRIND" tests/cli/run.sh build
run "CLI shell tests (outputs, terminals, locales, hostile bytes, strace --root)" tests/cli/shell.sh build
run "CLI shell tests (ASan+UBSan)" tests/cli/shell.sh build-asan
run "check scenarios" tests/scenarios/run.sh build
run "check scenarios (ASan+UBSan)" tests/scenarios/run.sh build-asan
run "--only differential: every check alone on every scenario and example root" tests/scenarios/only.sh build
run "GPU <-> NIC topology: topo and gdr.path on real GPU servers' trees" tests/topo/run.sh build
run "GPU <-> NIC topology (ASan+UBSan)" tests/topo/run.sh build-asan
run "verdict audit: no two findings contradict each other" tests/audit/run.sh build
# (no ASan pass of the audit: its rules judge the JSON report, the same from both builds, and the
# ASan build runs check --format json on every root the audit reads: the scenario roots and the
# real H100 tree in "check scenarios", the examples in "snapshot round trips", the qemu snapshot in
# the CLI golden tests; a [ports] ignore policy in port-ignored-by-policy and tests/cli/policies)
run "unprivileged runs (kernel.dmesg_restrict)" tests/unpriv/run.sh build
run "unprivileged runs (ASan+UBSan)" tests/unpriv/run.sh build-asan
run "fix modules" tests/fix/run.sh build
run "fix modules (ASan+UBSan)" tests/fix/run.sh build-asan
run "printed fixes work" tests/fixes/run.sh build
run "printed fixes work (ASan+UBSan)" tests/fixes/run.sh build-asan
run "explain" tests/explain/run.sh build 100
run "explain (ASan+UBSan)" tests/explain/run.sh build-asan 10
run "hostile roots" tests/hostile/run.sh build
run "hostile roots (ASan+UBSan)" tests/hostile/run.sh build-asan
run "read path: reads per check, no worker thread, a wedged read's partial report" tests/readpath/run.sh build
run "read path (ASan+UBSan)" tests/readpath/run.sh build-asan
run "counter state: a linked state directory, ownership, read-only, concurrent runs, dry run, the window" tests/state/run.sh build
run "counter state (ASan+UBSan)" tests/state/run.sh build-asan
run "hostile roots given to snapshot" tests/hostile/snapshot.sh build
run "hostile roots given to snapshot (ASan+UBSan)" tests/hostile/snapshot.sh build-asan
run "example roots" tests/examples.sh
run "README: its example outputs are the program's, its Commands block names every option" tests/readme.sh build
run "layout rules (headers state ownership, ibstat/ibstatus read through model/umad.c)" tests/layout.sh
run "snapshot round trips" tests/snapshot.sh build
run "RPM hosts: real rpm databases through librpm (tests/rpm)" tests/rpm/run.sh build
run "RPM hosts (ASan+UBSan)" tests/rpm/run.sh build-asan
run "snapshot round trips (ASan+UBSan)" tests/snapshot.sh build-asan
run "differential vs rdma-core ibstat/ibstatus" tests/diff/run.sh build
run "probe against a fake libibverbs" tests/probe/run.sh build
run "probe against a fake libibverbs (ASan+UBSan)" tests/probe/run.sh build-asan
run "Prometheus: promtool and a real node_exporter" tests/prometheus/run.sh build
run "Prometheus: promtool and a real node_exporter (ASan+UBSan)" tests/prometheus/run.sh build-asan
run "node-problem-detector plugin, golden lines, mock of NPD" tests/npd/run.sh build
run "node-problem-detector plugin, golden lines, mock of NPD (ASan+UBSan)" tests/npd/run.sh build-asan
run "install: make install/uninstall, man page, bash completion, systemd units, the Debian package" tests/install/run.sh build
run "probe against a fake libibverbs (valgrind)" env RD_WRAP="$VALGRIND" tests/probe/run.sh build
run "Slurm: drain and resume by a real slurmctld/slurmd (tests/slurm)" tests/slurm/run.sh build
run "fleet: 24-node scenario fleet, pdsh, clush, scontrol hostlists, bad input, Chromium" tests/fleet/run.sh build
run "fleet (ASan+UBSan)" tests/fleet/run.sh build-asan
run "real kernel in qemu: rxe0, modules, fix, probe, snapshot" tests/vm/run.sh build
run "fuzz smoke (5 s per target)" tests/fuzz/run.sh 5
echo
echo "slowest sections (wall seconds; the whole run: $SECONDS s):"
sort -rn "$timings" | head -12 | while IFS=$'\t' read -r sec name; do printf '%6d s  %s\n' "$sec" "$name"; done
echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
