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
	lspci setpci
	slurmctld slurmd scontrol munged)
need_cmds+=(promtool prometheus-node-exporter curl timeout) # tests/prometheus, tests/npd
need_cmds+=(mandoc man systemd-analyze dpkg-buildpackage dh lintian bash-completion) # tests/install
need_cmds+=(rpm rpmbuild librpm-dev db5.3_load sqlite3) # tests/rpm (real rpm databases; librpm for the build)
need_cmds+=(yajl pdsh clush chromium srun) # fleet: its JSON library; tests/fleet, tests/slurm
need_cmds+=(ibsim ibsim-run iblinkinfo ibnetdiscover sminfo ibqueryerrors opensm) # tests/fabric: a simulated subnet
need_cmds+=(ib_write_bw ib_write_lat tc) # tests/vm/pair.sh: perftest beside pair, a slowed link
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
	lspci|setpci) echo pciutils ;;
	ibsim|ibsim-run) echo ibsim-utils ;; iblinkinfo|ibnetdiscover|sminfo|ibqueryerrors) echo infiniband-diags ;;
	yajl) echo libyajl-dev ;; clush) echo clustershell ;; srun) echo slurm-client ;;
	ib_write_bw|ib_write_lat) echo perftest ;; tc) echo iproute2 ;; *) echo "$1" ;; esac; }
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

# ---- the sections, run side by side --------------------------------------------------------
# Every build and runner is a section, run in the background with its output in a file; when it
# ends, its block is printed whole: "== NAME", its lines but the "ok" ones, "-- NAME: N s (cpu N s)"
# (wall time, and the CPU time of its processes).  A section is started when the sections it
# needs have ended (the builds, the scenario roots), in the order listed (the longest first), on
# one of $RD_TEST_LANES lanes (default: one per core).  A section that mostly waits (daemons, a
# VM, sleeps) takes no lane: up to two of them run beside the lanes.  Sections of one group never
# run at once.  RD_TEST_LOCK=FILE runs the runners that start daemons or a VM or install a package
# (slurm, fleet, vm, prometheus, npd, install) under flock FILE, on a machine shared with other runs.
total_pass=0 total_fail=0
# The runners' scratch space (TMPDIR) is a tmpfs when /dev/shm is one with room (8 GB): the runners
# copy and remove tens of thousands of root files, and on a disk mounted with discard that is most
# of their time (the printed-fixes runner: 79 s on ext4, 42 s on tmpfs).  Removed at exit.
own_tmp= # this run's tmpfs TMPDIR, when it made one
if [ "$(stat -f -c %T /dev/shm 2> /dev/null)" = tmpfs ] && [ -w /dev/shm ] &&
	[ "$(df -Pk /dev/shm 2> /dev/null | awk 'NR == 2 { print $4 }')" -ge 8388608 ] 2> /dev/null; then
	own_tmp=$(mktemp -d /dev/shm/rd-tmp.XXXXXX) && chmod 1777 "$own_tmp" && export TMPDIR=$own_tmp || own_tmp=
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/rd-run-all.XXXXXX") # the sections' logs; removed at exit
export RD_SCENARIO_ROOTS RD_TOPO_ROOTS; RD_SCENARIO_ROOTS=$scratch/roots RD_TOPO_ROOTS=$scratch/topo
# each section is a process group of its own (set -m): stopping the run stops every section
declare -A pids=()
stop() { local p; for p in "${!pids[@]}"; do kill -TERM -- "-$p" 2> /dev/null; done; wait; exit 1; }
trap stop INT TERM
trap 'rm -rf "$scratch" ${own_tmp:+"$own_tmp"}' EXIT
lanes=${RD_TEST_LANES:-$(nproc 2> /dev/null || echo 2)}
wait_lanes=2
names=() kinds=() groups=() needs=() cmds=() state=() # state: "" waiting, run, done
# sec NAME KIND GROUP NEEDS COMMAND...: KIND cpu (takes a lane) or wait (mostly waits); GROUP and
# NEEDS (section names, comma-separated) are - for none
sec() {
	names+=("$1") kinds+=("$2") groups+=("$3") needs+=("$4") state+=("")
	shift 4
	cmds+=("$(printf '%q ' "$@")")
}
build() { # MAKE-ARGS...: a build section's command
	local log=$scratch/build.$BASHPID.log
	if make -s "$@" > "$log" 2>&1; then echo "1 passed, 0 failed"
	else cat "$log"; echo "FAIL: build"; echo "0 passed, 1 failed"; fi
	rm -f "$log"
}
unit() { # BUILD_DIR
	local p=0 f=0 line t log=$scratch/unit.$BASHPID.log
	for t in "$1"/tests/test_*; do
		[ -x "$t" ] || continue
		"$t" > "$log"
		grep -v '^ok ' "$log"
		line=$(grep -E '^[0-9]+ passed' "$log" | tail -1)
		if [ -z "$line" ]; then f=$((f + 1)); echo "FAIL: $t crashed"; continue; fi
		p=$((p + ${line%% passed*})); line=${line#*passed, }; f=$((f + ${line%% failed*}))
	done
	rm -f "$log"
	echo "$p passed, $f failed"
}
roots() { # the scenario roots, written once: tests/scenarios/make.sh copies them from here for every runner
	mkdir "$RD_SCENARIO_ROOTS"
	if tests/scenarios/make.sh "$RD_SCENARIO_ROOTS" > /dev/null; then touch "$RD_SCENARIO_ROOTS/.complete"
	else echo "(make.sh failed: each runner writes its own roots, and says what failed)"; fi
	echo "0 passed, 0 failed"
}
topo_roots() { # the GPU topology roots, written once: tests/topo/make.sh copies them from here
	if tests/topo/make.sh "$RD_TOPO_ROOTS" > /dev/null; then touch "$RD_TOPO_ROOTS/.complete"
	else echo "(tests/topo/make.sh failed: each runner writes its own roots, and says what failed)"; fi
	echo "0 passed, 0 failed"
}
centis() { # FILE: sets cs to the user+sys seconds of this shell's children (`times`), in hundredths
	local a b m t
	times > "$1"
	{ read -r _; read -r a b; } < "$1"
	rm -f "$1"
	cs=0
	for t in "$a" "$b"; do
		m=${t%%m*}; t=${t#*m}; t=${t%s}
		cs=$((cs + m * 6000 + 10#${t%.*} * 100 + 10#$(printf '%.2s' "${t#*.}0")))
	done
}
start() { # I: runs section I in the background
	state[$1]=run
	local lock=()
	case "${cmds[$1]}" in *tests/vm/q35.sh*--replay) ;; # no VM: the kept capture only
	*tests/slurm/* | *tests/fleet/* | *tests/vm/* | *tests/prometheus/* | *tests/npd/* | *tests/install/*)
		[ -z "${RD_TEST_LOCK:-}" ] || lock=(flock "$(printf %q "$RD_TEST_LOCK")") ;; esac
	set -m
	(
		set +m
		t0=$SECONDS
		(eval "${lock[*]} ${cmds[$1]}") > "$scratch/$1.log" 2>&1 < /dev/null
		centis "$scratch/$1.times"
		printf '%s %s\n' $((SECONDS - t0)) "$cs" > "$scratch/$1.time"
	) &
	pids[$!]=$1
	set +m
}
finish() { # I: prints section I's block, adds its "N passed, N failed" to the totals
	local i=$1 name=${names[$1]} line p f wall cpu
	state[$i]=done
	echo "== $name"
	grep -vE '^ok ' "$scratch/$i.log"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$scratch/$i.log" | tail -1)
	if [ -z "$line" ]; then
		echo "FAIL: $name did not report results"
		total_fail=$((total_fail + 1))
	else
		p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}
		total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
	fi
	read -r wall cpu 2> /dev/null < "$scratch/$i.time" || { wall=0 cpu=0; }
	cpu=$((cpu / 100)).$(printf '%02d' $((cpu % 100)))
	echo "-- $name: $wall s (cpu $cpu s)"
	printf '%s\t%s\t%s\n' "$wall" "$cpu" "$name" >> "$scratch/timings"
}
ready() { # I: true when what section I needs has ended and no section of its group runs
	local n j list
	IFS=, read -ra list <<< "${needs[$1]}"
	for n in "${list[@]}"; do
		for j in "${!names[@]}"; do [ "${names[$j]}" = "$n" ] && [ "${state[$j]}" != done ] && return 1; done
	done
	[ "${groups[$1]}" = - ] && return 0
	for j in "${!names[@]}"; do [ "${state[$j]}" = run ] && [ "${groups[$j]}" = "${groups[$1]}" ] && return 1; done
	return 0
}
run_sections() {
	local i busy waiting left pid
	while :; do
		busy=0 waiting=0 left=0
		for i in "${!names[@]}"; do
			[ "${state[$i]}" = run ] && { [ "${kinds[$i]}" = wait ] && waiting=$((waiting + 1)) || busy=$((busy + 1)); }
			[ "${state[$i]}" != done ] && left=$((left + 1))
		done
		[ $left = 0 ] && return
		for i in "${!names[@]}"; do
			[ -z "${state[$i]}" ] && ready "$i" || continue
			if [ "${kinds[$i]}" = wait ]; then [ $waiting -lt $wait_lanes ] || continue; waiting=$((waiting + 1))
			else [ $busy -lt "$lanes" ] || continue; busy=$((busy + 1)); fi
			start "$i"
		done
		if [ ${#pids[@]} = 0 ]; then # nothing runs and nothing can start: cannot happen, but never hang
			for i in "${!names[@]}"; do [ "${state[$i]}" = done ] || { echo "FAIL: ${names[$i]} never started"; total_fail=$((total_fail + 1)); state[$i]=done; }; done
			return
		fi
		wait -n -p pid
		[ -n "${pid:-}" ] && [ -n "${pids[$pid]:-}" ] && { finish "${pids[$pid]}"; unset "pids[$pid]"; }
	done
}

# The sanitizer passes find what the plain pass cannot: memory errors, leaks and undefined
# behaviour (ASan+UBSan), and under valgrind uninitialised reads and the O_PATH walk.  Each is kept
# where the code it runs is where memory errors live: the parsers on hostile input, the source
# layer, fleet's reader.  A pass that repeats the plain pass's work on the same inputs runs a named
# part of it (RD_TESTS_SUBSET=1, ts_subset in tests/lib.sh; what it leaves out is printed as
# "skip:" lines, and the plain pass runs all of it):
#   hostile roots (ASan): every hostile root and every fault; 5 of the 25 runs per mode against the
#     swapped root; not the strace cases (system-call shapes, the same from both builds);
#   printed fixes (ASan): every second root (the scenario roots are checked whole by "check
#     scenarios (ASan+UBSan)", fix modules by "fix modules (ASan+UBSan)": what this pass adds is
#     the roots a fix has changed, and it runs half of them);
#   read path (ASan): --only against the whole report on every ninth scenario (the plain pass: every
#     third), the state samples, the wedged reads; not the strace and callgrind counts;
#   CLI golden tests (valgrind): every third case (the ASan pass runs every case);
#   fleet (ASan): all but the page in headless Chromium (the same bytes the plain pass rendered).
# The other sanitizer passes run whole: they are short, or their inputs are the hostile ones.
# valgrind (3.19) does not know openat2 and says so on stderr: under it the source layer is given
# ENOSYS by the fault shim, and takes its O_PATH walk instead (which valgrind then checks too).
VALGRIND="env LD_PRELOAD=$top/build/tests/libfaults.so RD_FAULT_NO_OPENAT2=1 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
# The sections, the longest first within what they need.
gcc="build: gcc -Werror" asan="build: ASan+UBSan" roots="scenario roots" fuzz="build: libFuzzer targets"
tp="topo roots" G=$gcc,$roots A=$asan,$roots
sec "$gcc" cpu - - build all tests-bin
sec "$roots" cpu - - roots
sec "$tp" cpu - - topo_roots
sec "$asan" cpu - - build asan
sec "$fuzz" cpu - - build fuzz-bin
sec "build: clang -Werror" cpu - - build clang
# the daemons, the VM and the sleeps first: they wait more than they work, beside the lanes
sec "real kernel in qemu: rxe0, modules, fix, probe, snapshot" wait - "$G,$asan" tests/vm/run.sh build
sec "two real kernels in qemu: pair between Soft-RoCE guests, perftest beside it" wait - "$G,$asan" tests/vm/pair.sh build
sec "four real kernels in qemu: pairs names the slowed node from the planner's and the judgement's rounds" wait - "$G" tests/vm/pairs.sh build
sec "real kernel's PCI tree in qemu (q35, IOMMU, a PCIe switch): ACS, IOMMU groups, gdr.* and pcie.link" wait - "$G" tests/vm/q35.sh build
sec "Slurm: drain and resume by a real slurmctld/slurmd (tests/slurm)" wait - "$G" tests/slurm/run.sh build
sec "Slurm: pairs --run as job steps on eight slurmd (tests/slurm/pairs.sh)" wait pairport "$G" tests/slurm/pairs.sh build
sec "pairs --run through the real pdsh and clush (exec rcmd), failing and hanging nodes, hostile names" wait pairport "$G" tests/pairs/launch.sh build
sec "pairs --run through pdsh and clush (ASan+UBSan)" wait pairport "$A" tests/pairs/launch.sh build-asan
sec "fleet: 24-node scenario fleet, pdsh, clush, scontrol hostlists, bad input, Chromium" wait - "$G,$tp" tests/fleet/run.sh build
sec "fleet (ASan+UBSan)" wait - "$A,$tp" env RD_TESTS_SUBSET=1 tests/fleet/run.sh build-asan
sec "fleet --history: a week of scenario reports, lemons, reboots, hostile files" cpu - "$G" tests/fleet/history.sh build
sec "fleet --history (ASan+UBSan)" cpu - "$A" tests/fleet/history.sh build-asan
sec "hostile roots (ASan+UBSan)" cpu - "$A" env RD_TESTS_SUBSET=1 tests/hostile/run.sh build-asan
sec "printed fixes work (ASan+UBSan)" cpu - "$A" env RD_TESTS_SUBSET=1 tests/fixes/run.sh build-asan
sec "CLI golden tests (valgrind)" cpu - "$G" env RD_TESTS_SUBSET=1 RD_WRAP="$VALGRIND" tests/cli/run.sh build
sec "read path (ASan+UBSan)" cpu - "$A" env RD_TESTS_SUBSET=1 tests/readpath/run.sh build-asan
sec "hostile roots" cpu - "$G" tests/hostile/run.sh build
sec "printed fixes work" cpu - "$G" tests/fixes/run.sh build
sec "read path: reads per check, no worker thread, a wedged read's partial report" cpu - "$G" tests/readpath/run.sh build
sec "install: make install/uninstall, man page, bash completion, systemd units, the Debian package" cpu - "$G" tests/install/run.sh build
sec "fuzz smoke (2 s per target)" cpu - "$gcc,$fuzz,$roots,$tp" tests/fuzz/run.sh 2
sec "unit tests (ASan+UBSan)" cpu - "$A" unit build-asan
sec "CLI golden tests (ASan+UBSan)" cpu - "$A" tests/cli/run.sh build-asan
sec "CLI shell tests (ASan+UBSan)" cpu - "$A" tests/cli/shell.sh build-asan
sec "check scenarios (ASan+UBSan)" cpu - "$A" tests/scenarios/run.sh build-asan
sec "--only differential: every check alone on every scenario and example root" cpu - "$G" tests/scenarios/only.sh build
sec "explain (ASan+UBSan)" cpu - "$A,$tp" tests/explain/run.sh build-asan 10
sec "explain" cpu - "$G,$tp" tests/explain/run.sh build 100
sec "unit tests" cpu - "$G" unit build
sec "CLI golden tests" cpu - "$G" tests/cli/run.sh build
sec "CLI shell tests (outputs, terminals, locales, hostile bytes, strace --root)" cpu - "$G" tests/cli/shell.sh build
sec "check scenarios" cpu - "$G" tests/scenarios/run.sh build
sec "verdict audit: no two findings contradict each other" cpu - "$G" tests/audit/run.sh build
sec "pairs: rounds, judgement and the next round on a stand-in network, bad input" cpu - "$G" tests/pairs/run.sh build
sec "pairs (ASan+UBSan)" cpu - "$A" tests/pairs/run.sh build-asan
sec "GPU <-> NIC topology: topo and the gdr.* checks on real GPU servers' trees" cpu - "$G,$tp" tests/topo/run.sh build
sec "GPU <-> NIC topology (ASan+UBSan)" cpu - "$A,$tp" tests/topo/run.sh build-asan
sec "the q35 guest's PCI tree, replayed: gdr.* and pcie.link on its capture" cpu - "$G" tests/vm/q35.sh build --replay
sec "the q35 guest's PCI tree, replayed (ASan+UBSan)" cpu - "$A" tests/vm/q35.sh build-asan --replay
sec "fabric: real infiniband-diags and opensm on ibsim's simulated subnets with faults" cpu - "$G" tests/fabric/run.sh build
sec "fabric (ASan+UBSan)" cpu - "$A" tests/fabric/run.sh build-asan
# (no ASan pass of the audit: its rules judge the JSON report, the same from both builds, and the
# ASan build runs check --format json on every root the audit reads: the scenario roots and the
# real H100 tree in "check scenarios", the examples in "snapshot round trips", the qemu snapshot in
# the CLI golden tests; a [ports] ignore policy in port-ignored-by-policy and tests/cli/policies)
sec "unprivileged runs (kernel.dmesg_restrict)" cpu - "$G" tests/unpriv/run.sh build
sec "unprivileged runs (ASan+UBSan)" cpu - "$A" tests/unpriv/run.sh build-asan
sec "fix modules" cpu - "$G" tests/fix/run.sh build
sec "fix modules (ASan+UBSan)" cpu - "$A" tests/fix/run.sh build-asan
sec "counter state: a linked state directory, ownership, read-only, concurrent runs, dry run, the window" cpu - "$G" tests/state/run.sh build
sec "counter state (ASan+UBSan)" cpu - "$A" tests/state/run.sh build-asan
sec "watch: netlink events in a network namespace, the textfile, SIGHUP, SIGTERM, idle CPU" wait watch "$G" tests/watch/run.sh build
sec "watch (ASan+UBSan)" wait watch "$A" tests/watch/run.sh build-asan
sec "hostile roots given to snapshot" cpu - "$G" tests/hostile/snapshot.sh build
sec "hostile roots given to snapshot (ASan+UBSan)" cpu - "$A" tests/hostile/snapshot.sh build-asan
sec "snapshot round trips" cpu - "$G" tests/snapshot.sh build
sec "snapshot round trips (ASan+UBSan)" cpu - "$A" tests/snapshot.sh build-asan
sec "RPM hosts: real rpm databases through librpm (tests/rpm)" cpu - "$G" tests/rpm/run.sh build
sec "RPM hosts (ASan+UBSan)" cpu - "$A" tests/rpm/run.sh build-asan
sec "differential vs rdma-core ibstat/ibstatus" cpu - "$G" tests/diff/run.sh build
sec "probe against a fake libibverbs" cpu - "$G" tests/probe/run.sh build
sec "probe against a fake libibverbs (ASan+UBSan)" cpu - "$A" tests/probe/run.sh build-asan
sec "probe against a fake libibverbs (valgrind)" cpu - "$G" env RD_WRAP="$VALGRIND" tests/probe/run.sh build
# node_exporter listens on a random port: the two passes are one group, never on one port at once
sec "Prometheus: promtool and a real node_exporter" cpu exporter "$G" tests/prometheus/run.sh build
sec "Prometheus: promtool and a real node_exporter (ASan+UBSan)" cpu exporter "$A" tests/prometheus/run.sh build-asan
sec "node-problem-detector plugin, golden lines, mock of NPD" cpu - "$G" tests/npd/run.sh build
sec "node-problem-detector plugin, golden lines, mock of NPD (ASan+UBSan)" cpu - "$A" tests/npd/run.sh build-asan
sec "README: its example outputs are the program's, its Commands block names every option" cpu - "$G" tests/readme.sh build
sec "example roots" cpu - - tests/examples.sh
sec "layout rules (headers state ownership, ibstat/ibstatus read through model/umad.c)" cpu - - tests/layout.sh
run_sections
# what the runners left in their TMPDIR (on a tmpfs of this run's own, so nothing else writes there)
if [ -n "$own_tmp" ]; then
	left=$(ls -A "$own_tmp" | grep -vxF "${scratch##*/}" | head -5 | tr '\n' ' ')
	if [ -n "$left" ]; then echo "FAIL: the runners left in TMPDIR: $left"; total_fail=$((total_fail + 1)); fi
fi

echo
centis "$scratch/times"
echo "slowest sections (wall and CPU seconds; the whole run: $SECONDS s, cpu $((cs / 100)) s):"
sort -rn "$scratch/timings" | head -12 | while IFS=$'\t' read -r w cpu name; do printf '%6d s %9s s cpu  %s\n' "$w" "$cpu" "$name"; done
echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
