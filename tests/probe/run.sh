#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Tests of `rdma-doctor probe` and `check --probe` on a host without RDMA:
#   - the binary does not link libibverbs (no ibv_* undefined symbol, not in ldd);
#   - the real libibverbs with no device (inside a private mount namespace with an empty /sys, so
#     the answer does not depend on the host): "no RDMA devices", exit 2;
#   - a libibverbs.so.1 that is garbage: "cannot be loaded" with dlerror's text, exit 2;
#   - --root and bad options: exit 3;
#   - the real-device path against tests/probe/fake_verbs.c, a stand-in libibverbs.so.1 built
#     here that simulates devices and checks every attribute the probe gives it: pass on RoCE and
#     InfiniBand ports, every failing step, memlock diagnosis (as nobody with a 64 KiB limit), port
#     selection, GID choice from a sysfs tree bind-mounted on /sys (namespace), no leaked object.
# Times vary, so outputs are checked with grep and jq, not goldens.  Needs root (unshare -m,
# setpriv), cc and libibverbs-dev headers, jq.  RD_WRAP (e.g. valgrind) wraps every run.
# Usage: tests/probe/run.sh [BUILD_DIR]            Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$(cd "${1:-$top/build}" && pwd)
bin=$build/rdma-doctor
ts_scratch probe
chmod 0755 "$work"
ts_init
[ -x "$bin" ] || ts_die "$bin is not built"
[ "$(id -u)" = 0 ] || ts_die "the probe tests need root (unshare -m, setpriv)"
command -v jq > /dev/null || ts_die "jq is not installed"

fake=$work/fake garbage=$work/garbage
mkdir -p "$fake" "$garbage"
cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -shared -fPIC -o "$fake/libibverbs.so.1" \
	"$top/tests/probe/fake_verbs.c" || ts_die "cannot build tests/probe/fake_verbs.c (libibverbs-dev?)"
head -c 4096 /dev/zero | tr '\0' 'x' > "$garbage/libibverbs.so.1"
wrap=${RD_WRAP:-}
# the host's own kernel log is shared with every other run on it (a line another test or the host
# wrote would change kernel.log's verdict): the runs in a private /sys read a clean one from a
# stand-in dmesg
mkdir -p "$work/klog" && printf '#!/bin/sh\necho "[    0.000000] Linux version 6.1.0-27-amd64"\n' > "$work/klog/dmesg" && chmod +x "$work/klog/dmesg"
empty_sys=$work/empty-sys
mkdir -p "$empty_sys"

# r [VAR=VALUE]... -- ARGS: runs rdma-doctor ARGS with the variables; sets out, err, rc
r() {
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	env "${vars[@]}" $wrap "$bin" "$@" > "$work/out" 2> "$work/err" < /dev/null
	rc=$?
	out=$(cat "$work/out") err=$(cat "$work/err")
}
# ns SYSDIR [VAR=VALUE]... -- ARGS: the same inside a mount namespace with SYSDIR on /sys
ns() {
	local sys=$1; shift
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	unshare -m bash -c 'mount --make-rprivate / && mount --bind "$1" /sys && shift && exec "$@"' _ "$sys" \
		env PATH="$work/klog:$PATH" "${vars[@]}" $wrap "$bin" "$@" > "$work/out" 2> "$work/err" < /dev/null
	rc=$?
	out=$(cat "$work/out") err=$(cat "$work/err")
}
# expect NAME RC [grep -E patterns on stdout]...
expect() {
	local name=$1 want=$2; shift 2
	local why=""
	[ "$rc" = "$want" ] || why="exit $rc, not $want"
	for p in "$@"; do
		grep -qE -- "$p" < <(printf "%s\n" "$out") || why="${why:+$why; }no line matching '$p'"
	done
	if grep -qE 'fake_verbs: (BAD|LEAK)|ERROR: (Address|Leak)Sanitizer|runtime error|==[0-9]+==' < <(printf "%s\n" "$err"); then
		why="${why:+$why; }stderr: $(printf '%s\n' "$err" | head -3)"
	fi
	if [ -z "$why" ]; then ok; else bad "$name: $why"; printf '%s\n' "$out" | head -30; fi
}
# jexpect NAME JQ-EXPRESSION: the JSON on stdout satisfies the expression
jexpect() {
	if printf '%s\n' "$out" | jq -en "input | $2" > /dev/null 2>&1; then ok; else bad "$1: JSON fails $2"; printf '%s\n' "$out" | head -40; fi
}

# ---- the binary ------------------------------------------------------------------------------
if [ "$(nm -u "$bin" | grep -c ' ibv_')" != 0 ]; then bad "binary has undefined ibv_ symbols: $(nm -u "$bin" | grep ' ibv_' | tr '\n' ' ')"; else ok; fi
if [ "$(ldd "$bin" 2> /dev/null | grep -c libibverbs)" != 0 ]; then bad "binary links libibverbs"; else ok; fi

# ---- the real libibverbs, no RDMA device -----------------------------------------------------
# no Mellanox/NVIDIA PCI function either: no RDMA NIC, and no modprobe of a driver for none
ns "$empty_sys" -- probe
expect real-no-devices 2 '^  OK    load .*libibverbs\.so\.1' '^  FAIL  devices .*no RDMA devices found by libibverbs$' \
	'/sys/class/infiniband does not exist and no PCI function in /sys/bus/pci/devices is a Mellanox/NVIDIA network controller \(vendor 0x15b3\): this host has no RDMA NIC' \
	'fix: modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0    # Soft-RoCE, for tests' \
	'^probe: FAIL no RDMA devices found by libibverbs$'
if grep -q 'mlx5_ib' "$work/out"; then bad "real-no-devices: suggests mlx5_ib on a host without a Mellanox NIC"; else ok; fi
ns "$empty_sys" -- probe --format json
expect real-no-devices-json 2
jexpect real-no-devices-json '.schema == "rdma-doctor/probe/v1" and .result == "fail" and .error == "no RDMA devices found by libibverbs"
	and .ports == [] and ([.steps[].name] == ["load", "devices"]) and .steps[0].ok and (.steps[1].ok | not)
	and (.steps[1].usec | type) == "number" and (.steps[1].fix | length) == 1'
# a ConnectX function (vendor 0x15b3, class 0x02) without its RDMA driver: modprobe mlx5_ib; a
# Mellanox function of another class (0x0c: InfiniBand-less management) is not a NIC
nic_sys=$work/nic-sys
mkdir -p "$nic_sys/bus/pci/devices/0000:0c:00.0" "$nic_sys/bus/pci/devices/0000:0d:00.0"
echo 0x15b3 > "$nic_sys/bus/pci/devices/0000:0d:00.0/vendor"
echo 0x0c0500 > "$nic_sys/bus/pci/devices/0000:0d:00.0/class"
ns "$nic_sys" -- probe
expect real-no-devices-other-class 2 'this host has no RDMA NIC'
echo 0x15b3 > "$nic_sys/bus/pci/devices/0000:0c:00.0/vendor"
echo 0x020700 > "$nic_sys/bus/pci/devices/0000:0c:00.0/class"
ns "$nic_sys" -- probe
expect real-no-devices-mellanox 2 '/sys/class/infiniband does not exist but 0000:0c:00\.0 is a Mellanox/NVIDIA network controller: no RDMA driver module is loaded for it' \
	'fix: modprobe mlx5_ib    # ConnectX$' '^probe: FAIL no RDMA devices found by libibverbs$'

# ---- a broken libibverbs.so.1 ----------------------------------------------------------------
r LD_LIBRARY_PATH="$garbage" -- probe
expect garbage-lib 2 "^  FAIL  load .*libibverbs is not installed or cannot be loaded: $garbage/libibverbs.so.1: (invalid ELF header|file too short)" \
	'fix: apt-get install -y libibverbs1 ibverbs-providers' 'provider' \
	"^probe: FAIL libibverbs is not installed or cannot be loaded: $garbage/libibverbs.so.1: "
r LD_LIBRARY_PATH="$garbage" -- probe -f json
expect garbage-lib-json 2
jexpect garbage-lib-json '.result == "fail" and (.error | startswith("libibverbs is not installed or cannot be loaded: ")) and
	([.steps[].name] == ["load"]) and .steps[0].errno == null and .library == null'

# ---- usage -----------------------------------------------------------------------------------
r -- --root "$top/examples/rxe-qemu" probe
expect root 3
grep -q "it cannot run on --root" < <(printf "%s\n" "$err") && ok || bad "root: stderr: $err"
r RDMA_DOCTOR_ROOT="$top/examples/rxe-qemu" -- check --probe
expect root-env-check 3
r RDMA_DOCTOR_ROOT=/ LD_LIBRARY_PATH="$garbage" -- probe
expect root-slash-is-live 2 'cannot be loaded'
for a in "--port 256" "--port x" "--size 1" "--size 65G" "--device" "--bogus"; do
	r -- probe $a
	expect "usage $a" 3
done

# ---- the real-device path on the stand-in library --------------------------------------------
F=(LD_LIBRARY_PATH="$fake")
r "${F[@]}" FAKE_VERBS_DEVICES=rxe0:eth:1,mlx5_0:ib:2 -- probe
expect fake-pass 0 '^rxe0 port 1  Ethernet  ACTIVE  active_mtu 1024  gid\[0\] fe80::5054:ff:fe12:3456 \(RoCE v1\)$' \
	'^mlx5_0 port 2  InfiniBand  ACTIVE  active_mtu 1024  lid 14$' '^  OK    rtr .*dlid 14$' \
	'^  OK    write .*RDMA WRITE of 1048576 bytes from offset 0 to offset 16777216' \
	'^  OK    verify .*1048576 bytes at offset 16777216 equal the source' \
	'^probe: PASS rxe0/1, mlx5_0/1, mlx5_0/2 \(RDMA WRITE of 1048576 bytes verified on each\)$'
r "${F[@]}" FAKE_VERBS_DEVICES=rxe0:eth:1,mlx5_0:ib:2 FAKE_VERBS_MTU=5 -- probe --format json --size 64K
expect fake-pass-json 0
jexpect fake-pass-json '.result == "pass" and .error == null and .size == 65536 and (.ports | length) == 3 and
	all(.ports[]; .verified and .pass and .probed and .bytes == 32768 and .active_mtu == 4096 and
	    ([.steps[].name] == ["open","query_port","gid","alloc_pd","reg_mr","create_cq","create_qp","init","rtr","rts","write","verify"]) and
	    all(.steps[]; .ok and .errno == null and .error == null and (.usec | type) == "number")) and
	.ports[0].gid_index == 0 and .ports[0].gid_type == "RoCE v1" and .ports[0].link_layer == "Ethernet" and
	.ports[1].gid_index == null and .ports[1].lid == 13 and .ports[1].link_layer == "InfiniBand"'

# each step failing
fails=(
	"open:EACCES|open|EACCES|ibv_open_device\(mlx5_0\) failed: Permission denied"
	"query_port:EIO|query_port|EIO|ibv_query_port\(mlx5_0, 1\) failed"
	"alloc_pd|alloc_pd|EINVAL|ibv_alloc_pd failed"
	"reg_mr:EINVAL|reg_mr|EINVAL|ibv_reg_mr of 32 MiB failed: Invalid argument"
	"create_cq|create_cq|ENOMEM|ibv_create_cq\(16\) failed"
	"create_qp|create_qp|ENOMEM|ibv_create_qp \(RC\) failed"
	"init|init|EINVAL|ibv_modify_qp to INIT failed"
	"rtr:ETIMEDOUT|rtr|ETIMEDOUT|ibv_modify_qp to RTR failed: Connection timed out"
	"rts|rts|EINVAL|ibv_modify_qp to RTS failed"
	"post|write|EINVAL|ibv_post_send of the RDMA WRITE failed"
	"wc|write||completion with status transport retry counter exceeded \(12, vendor_err 0x81\)"
	"corrupt|verify||the destination differs from the source: 1 of 1048576 bytes wrong, the first at offset 349525"
	"destroy_qp:EBUSY|teardown|EBUSY|ibv_destroy_qp: Device or resource busy"
	"timeout|write|ETIMEDOUT|no completion after 5 s"
)
for c in "${fails[@]}"; do
	IFS='|' read -r what step en msg <<< "$c"
	r "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1 FAKE_VERBS_FAIL="$what" -- probe
	expect "fail $what" 2 "^  FAIL  $step +[0-9]+ us  $msg" "^probe: FAIL mlx5_0( port 1)?: $msg"
	r "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1 FAKE_VERBS_FAIL="$what" -- probe --format json
	jexpect "fail $what json" "([.ports[0].steps[] | select(.ok | not) | .name] == [\"$step\"]) and
		([.ports[0].steps[] | select(.ok | not) | .errno][0] == $( [ -n "$en" ] && echo "\"$en\"" || echo null )) and
		.result == \"fail\" and (.ports[0].pass | not)"
done

# memlock: as nobody with a 64 KiB limit, registration failing with ENOMEM is blamed on it
env "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1 FAKE_VERBS_FAIL=reg_mr:ENOMEM prlimit --memlock=65536:65536 \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all ${RD_WRAP:-} "$bin" probe > "$work/out" 2> "$work/err"
rc=$? out=$(cat "$work/out") err=$(cat "$work/err")
expect memlock-limited 2 'ibv_reg_mr of 32 MiB failed: Cannot allocate memory \(ENOMEM\)' \
	'RLIMIT_MEMLOCK is the likely cause: registering 32 MiB .*memlock limit soft 64 KiB, hard 64 KiB; CAP_IPC_LOCK is not in effect' \
	'fix: ulimit -l unlimited' 'LimitMEMLOCK=infinity' '\* - memlock unlimited +# in /etc/security/limits.conf'
# as root with CAP_IPC_LOCK the limit is not the cause
r "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1 FAKE_VERBS_FAIL=reg_mr:EPERM -- probe
expect memlock-cap 2 'CAP_IPC_LOCK is in effect \(it lifts the limit\): RLIMIT_MEMLOCK is not the cause here'

# port selection and states
r "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:2 FAKE_VERBS_DOWN=mlx5_0/2 -- probe
expect down-other-port 0 '^  FAIL  query_port .*port 2 is DOWN \(state from ibv_query_port\): the probe needs an Active port' \
	'^probe: PASS mlx5_0/1 \(RDMA WRITE of 1048576 bytes verified\); not probed: mlx5_0/2 \(DOWN\)$'
r "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:2 FAKE_VERBS_DOWN=mlx5_0/2 -- probe --port 2
expect down-requested 2 '^probe: FAIL mlx5_0: port 2 is DOWN \(state from ibv_query_port\): the probe needs an Active port$'
r "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1,rxe0:eth:1 -- probe --device rxe9
expect no-such-device 2 "^probe: FAIL no RDMA device 'rxe9' \(libibverbs has mlx5_0, rxe0\)$"
r "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:2,rxe0:eth:1 -- probe --device rxe0 --port 2
expect no-such-port 2 '^probe: FAIL rxe0 port 2: rxe0 has no port 2 \(it has 1\)$'
r "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:2,rxe0:eth:1 -- probe --port 2
expect port-2-only 0 '^probe: PASS mlx5_0/2 '
r "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:2,rxe0:eth:1 -- probe --device=rxe0 --size=1M
expect device-only 0 '^probe: PASS rxe0/1 \(RDMA WRITE of 524288 bytes verified\)$'
r "${F[@]}" FAKE_VERBS_DEVICES= -- probe
expect fake-no-devices 2 'no RDMA devices found by libibverbs'

# GID choice from gid_attrs/types in a sysfs tree on /sys
roce=$work/roce-sys
types=$roce/class/infiniband/rxe0/ports/1/gid_attrs/types
mkdir -p "$types" "$roce/class/infiniband_verbs/uverbs0"
for i in 0 2 4; do echo "IB/RoCE v1" > "$types/$i"; done
for i in 1 3 5; do echo "RoCE v2" > "$types/$i"; done
ns "$roce" "${F[@]}" FAKE_VERBS_DEVICES=rxe0:eth:1 FAKE_VERBS_GIDS=fe80::1,fe80::1,::ffff:10.0.2.15,::ffff:10.0.2.15,, -- probe
expect gid-v2-mapped 0 '^rxe0 port 1  Ethernet  ACTIVE  active_mtu 1024  gid\[3\] ::ffff:10\.0\.2\.15 \(RoCE v2\)$' \
	'^  OK    rtr .*GRH to gid\[3\] ::ffff:10\.0\.2\.15$'
ns "$roce" "${F[@]}" FAKE_VERBS_DEVICES=rxe0:eth:1 FAKE_VERBS_GIDS=fe80::1,fe80::1,,,, -- probe
expect gid-v2-first 0 'gid\[1\] fe80::1 \(RoCE v2\): the first RoCE v2 GID \(no IPv4-mapped one\)'
ns "$roce" "${F[@]}" FAKE_VERBS_DEVICES=rxe0:eth:1 FAKE_VERBS_GIDS=,,fe80::7,,, -- probe
expect gid-v1-fallback 0 'gid\[2\] fe80::7 \(RoCE v1\): no RoCE v2 GID in gid_attrs/types: the first non-zero GID, RoCE v1'
ns "$roce" "${F[@]}" FAKE_VERBS_DEVICES=rxe0:eth:1 FAKE_VERBS_GIDS=,,,,, -- probe --format json
jexpect gid-none '.result == "fail" and ([.ports[0].steps[] | select(.ok | not) | .name] == ["gid"]) and
	(.error | test("no usable GID on rxe0 port 1"))'
# no device for libibverbs while sysfs has one
ns "$roce" "${F[@]}" FAKE_VERBS_DEVICES= -- probe
expect sysfs-but-no-provider 2 '/sys/class/infiniband has rxe0 and ib_uverbs is loaded, but libibverbs has no provider' \
	'fix: apt-get install -y ibverbs-providers'
rm -r "$roce/class/infiniband_verbs/uverbs0"
ns "$roce" "${F[@]}" FAKE_VERBS_DEVICES= -- probe
expect sysfs-but-no-uverbs 2 '/sys/class/infiniband has rxe0 but /sys/class/infiniband_verbs is empty: ib_uverbs is not loaded' \
	'fix: modprobe ib_uverbs'

# ---- check --probe ---------------------------------------------------------------------------
# (not under RD_WRAP: a live `check` runs programs, and valgrind reports the memory of a forked
# child whose exec failed, e.g. dkms absent, as lost; ASan runs these)
wrap=
# check starts the probe only on a host with RDMA hardware: these runs see a /sys with an RDMA
# device (the fake libibverbs simulates its ports); on one without, probe.loopback SKIPs
hw_sys=$work/hw-sys
mkdir -p "$hw_sys/class/infiniband/mlx5_0"
ns "$empty_sys" "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1 -- check --probe --format json --only kernel
jexpect check-probe-no-hardware '.summary.exit_code == 3 and ([.findings[] | select(.check == "probe.loopback")] |
	length == 1 and .[0].status == "SKIP" and (.[0].message | test("no RDMA NIC")) and .[0].fix == [])'
ns "$hw_sys" "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:2 FAKE_VERBS_DOWN=mlx5_0/2 -- check --probe --format json --only kernel
jexpect check-probe-pass '[.findings[] | select(.check == "probe.loopback") | .status] == ["OK", "SKIP"] and
	([.findings[] | select(.check == "probe.loopback")][0] | .message == "RDMA WRITE loopback verified on mlx5_0 port 1 (active_mtu 1024)"
	 and (.evidence | length) == 12 and .evidence[0].path == "probe mlx5_0 port 1 open")'
ns "$hw_sys" "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1 FAKE_VERBS_FAIL=reg_mr:ENOMEM -- check --probe --no-color --only kernel
expect check-probe-fail "$rc" '^✖ FAIL    probe\.loopback        mlx5_0 port 1: ibv_reg_mr of 32 MiB failed: Cannot allocate memory \(ENOMEM\)$' \
	'^            probe mlx5_0 port 1 reg_mr = FAIL: ibv_reg_mr of 32 MiB failed'
ns "$hw_sys" LD_LIBRARY_PATH="$garbage" -- check --probe --probe-size 64K --format json --only kernel
jexpect check-probe-no-lib '[.findings[] | select(.check == "probe.loopback")] | length == 1 and .[0].status == "FAIL" and
	.[0].subject == "host" and (.[0].message | test("cannot be loaded")) and .[0].fix[0] == "apt-get install -y libibverbs1 ibverbs-providers"'

# ---- a libibverbs that crashes, exits or hangs (the probe runs in a child process) ------------
# (not under RD_WRAP either: valgrind reports the fake's own fault; ASan is told to leave SIGSEGV
# to the default action, so the child dies of the signal as it does without ASan)
asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
ids=$("$bin" checks --format json | jq -c '[.checks[].id]')
# rt TAG [VAR=VALUE]... -- ARGS: r under a 120 s guard with a tag in the environment; sets secs
rt() {
	local tag=$1; shift
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	local t0; t0=$(date +%s%N)
	# check --probe: in a mount namespace with hw_sys on /sys (the probe needs RDMA hardware)
	local in_ns=()
	[ "$1" = check ] || [ "${3:-}" = check ] &&
		in_ns=(unshare -m bash -c 'mount --make-rprivate / && mount --bind "$1" /sys && shift && exec "$@"' _ "$hw_sys")
	"${in_ns[@]}" env "${vars[@]}" ASAN_OPTIONS="$asan" FAKE_VERBS_TAG="$tag" timeout -s KILL 120 "$bin" "$@" > "$work/out" 2> "$work/err" < /dev/null
	rc=$?
	secs=$(( ($(date +%s%N) - t0) / 1000000000 ))
	out=$(cat "$work/out") err=$(cat "$work/err")
}
# left TAG: no process of the run is left (the child is reaped, not orphaned)
left() {
	local pids; pids=$(grep -l -a -- "FAKE_VERBS_TAG=$1\b" /proc/[0-9]*/environ 2> /dev/null | tr -dc '0-9\n' | tr '\n' ' ')
	if [ -n "$pids" ]; then bad "$1: processes left: $pids"; kill -9 $pids 2> /dev/null; else ok; fi
}
# within NAME TIMEOUT: the run ended within --timeout and a generous margin (it hung for ever before)
within() { if [ "$secs" -le $(($2 + 20)) ]; then ok; else bad "$1: took ${secs} s with --timeout $2"; fi; }
kills=(
	"segv_ctor|rxe0:eth:1|load|the probe process was killed by SIGSEGV \(Segmentation fault\) in dlopen\(\"libibverbs\.so\.1\"\)"
	"segv_devlist|rxe0:eth:1|devices|the probe process was killed by SIGSEGV \(Segmentation fault\) in ibv_get_device_list"
	"segv_query_gid|rxe0:eth:1|gid|the probe process was killed by SIGSEGV \(Segmentation fault\) in ibv_query_gid"
	"abort|mlx5_0:ib:1|create_qp|the probe process was killed by SIGABRT \(Aborted\) in ibv_create_qp"
	"exit0|mlx5_0:ib:1|devices|the probe process exited with status 0 in ibv_get_device_list, before it reported a result"
	"hang_devlist|mlx5_0:ib:1|devices|timed out after [0-9.]+ s in ibv_get_device_list: the probe process was killed"
	"hang_modify_qp|mlx5_0:ib:1|rtr|timed out after [0-9.]+ s in ibv_modify_qp to RTR: the probe process was killed"
	"scribble|mlx5_0:ib:1|devices|the probe process sent a malformed report in ibv_get_device_list \(line [0-9]+: "
)
for c in "${kills[@]}"; do
	IFS='|' read -r mode devs step msg <<< "$c"
	subj=
	case $step in load|devices) ;; *) subj="${devs%%:*} port 1: " ;; esac
	tag=rd-probe-$$-$mode
	rt "$tag-p" "${F[@]}" FAKE_VERBS_DEVICES="$devs" FAKE_VERBS_MODE="$mode" -- --timeout 3 probe
	expect "$mode probe" 2 "^  FAIL  $step +[0-9]+ us  $msg" "^probe: FAIL $subj$msg"
	within "$mode probe" 3
	left "$tag-p"
	rt "$tag-c" "${F[@]}" FAKE_VERBS_DEVICES="$devs" FAKE_VERBS_MODE="$mode" -- --timeout 10 check --probe --format json
	# the whole report: every check of the catalogue, and probe.loopback FAIL saying what happened
	[ "$rc" != 0 ] && ok || bad "$mode check --probe: exit 0"
	msg=${msg//\\/\\\\} msg=${msg//\"/\\\"} # in a jq string: a backslash twice, a quote escaped
	jexpect "$mode check --probe" "($ids - [.findings[].check] | length) == 0 and
		[.findings[] | select(.check == \"probe.loopback\") | .status] == [\"FAIL\"] and
		([.findings[] | select(.check == \"probe.loopback\")][0] | (.message | test(\"^$msg\")) and
		 .subject == \"$( [ -n "$subj" ] && echo "${subj%: }" || echo host)\")"
	within "$mode check --probe" 10
	left "$tag-c"
done
# the text report too, with its summary line, when the probe hung
rt rd-probe-$$-text "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1 FAKE_VERBS_MODE=hang_modify_qp -- --timeout 10 check --probe --no-color
expect hang-check-text "$rc" '^✖ FAIL    probe\.loopback        mlx5_0 port 1: timed out after [0-9.]+ s in ibv_modify_qp to RTR: the probe process was killed$' \
	'^            probe mlx5_0 port 1 init = pkey_index 0' '^ +fix: dmesg \| tail -50 ' '^(UNKNOWN|FAIL): [0-9]+ failed'
[ "$rc" != 0 ] && ok || bad "hang-check-text: exit 0"
within hang-check-text 10
left rd-probe-$$-text
# what finished before a crash is kept, and what was not reached is named
rt rd-probe-$$-two "${F[@]}" FAKE_VERBS_DEVICES=rxe0:eth:1,mlx5_0:ib:1 FAKE_VERBS_MODE=segv_query_gid -- probe --format json
jexpect finished-ports-kept '.result == "fail" and (.ports | length) == 1 and .ports[0].device == "rxe0" and
	([.ports[0].steps[].name] == ["open", "query_port", "gid"]) and .ports[0].steps[1].ok and (.ports[0].steps[2].ok | not)
	and .library != null and (.ports[0].steps[2].detail | test("; not probed: mlx5_0$"))'
rt rd-probe-$$-two "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1,rxe0:eth:1 FAKE_VERBS_MODE=segv_query_gid -- probe --format json
jexpect earlier-port-kept '.result == "fail" and (.ports | length) == 2 and .ports[0].device == "mlx5_0" and .ports[0].pass
	and .ports[0].verified and (.ports[0].steps | length) == 12 and .ports[1].device == "rxe0" and (.ports[1].pass | not)
	and (.error | test("^rxe0 port 1: the probe process was killed by SIGSEGV"))'
left rd-probe-$$-two
# the parent killed from outside (SIGKILL: no handler runs) takes its hung child with it
env "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1 FAKE_VERBS_MODE=hang_devlist FAKE_VERBS_TAG=rd-probe-$$-orphan \
	"$bin" --timeout 100 probe > /dev/null 2>&1 < /dev/null &
victim=$!
for _ in $(seq 100); do # until the child is in ibv_get_device_list (two processes with the tag)
	[ "$(grep -l -a -- "FAKE_VERBS_TAG=rd-probe-$$-orphan\b" /proc/[0-9]*/environ 2> /dev/null | wc -l)" -ge 2 ] && break
	sleep 0.1
done
kill -9 $victim
wait $victim 2> /dev/null
sleep 1
left rd-probe-$$-orphan
# less than a second of --timeout left after the checks: the probe is not started, and says so
rt rd-probe-$$-short "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1 -- --timeout 0.5 check --probe --format json
jexpect short-timeout '[.findings[] | select(.check == "probe.loopback")] | length == 1 and .[0].status == "UNKNOWN" and
	(.[0].message | test("^not run: the checks took [0-9.]+ s of the --timeout of 0.5 s")) and .[0].fix[0] == "rdma-doctor --timeout 30 check --probe    # a longer deadline"'
# --timeout 0: no watchdog, and a probe that finishes is not disturbed
rt rd-probe-$$-none "${F[@]}" FAKE_VERBS_DEVICES=mlx5_0:ib:1 -- --timeout 0 probe
expect no-timeout 0 '^probe: PASS mlx5_0/1 '

ts_finalize
