#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# CLI behaviour that golden files cannot show: environment variables, terminals, closed and full
# outputs, hostile bytes from a root, and (strace) that nothing outside --root is opened.
# Usage: tests/cli/shell.sh [BUILD_DIR]        Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
bin=$(cd "$build" && pwd)/rdma-doctor
. "$top/tests/lib.sh"
cd "$top" || exit 1
ts_scratch cli-shell
export SOURCE_DATE_EPOCH=1764460800
unset NO_COLOR RDMA_DOCTOR_ROOT
ts_init
exec 3>&1 # results go to fd 3, so that a condition's own output can be redirected away
ok() { pass=$((pass + 1)); echo "ok $1" >&3; }
bad() { fail=$((fail + 1)); echo "FAIL $1" >&3; }
# expect NAME CONDITION...: the condition (a command) must succeed; `all 'A' 'B'` for several
expect() { local n=$1; shift; if "$@"; then ok "$n"; else bad "$n"; fi; }
all() { local c; for c in "$@"; do eval "$c" || return 1; done; }
lines() { [ -s "$1" ] && wc -l < "$1" || echo 0; }

# ---- write errors: one line on stderr, exit 3; a closed pipe is quiet ----
"$bin" --root examples/h100-ofed check > /dev/full 2> "$work/err"; rc=$?
expect "dev-full-exit-3" [ $rc = 3 ]
expect "dev-full-one-line" [ "$(lines "$work/err")" = 1 ]
expect "dev-full-says-why" grep -q 'cannot write the output: No space left on device' "$work/err"
"$bin" --root examples/h100-ofed stack --format json > /dev/full 2> "$work/err"; rc=$?
expect "dev-full-stack-json" all '[ $rc = 3 ]' '[ "$(lines "$work/err")" = 1 ]'
"$bin" --root examples/h100-ofed check >&- 2> "$work/err"; rc=$?
expect "closed-stdout-exit-3" [ $rc = 3 ]
expect "closed-stdout-one-line" grep -qx 'rdma-doctor: cannot write the output: Bad file descriptor' "$work/err"
"$bin" checks >&- 2> "$work/err"; rc=$?
expect "closed-stdout-checks" all '[ $rc = 3 ]' '[ "$(lines "$work/err")" = 1 ]'
# a reader that has gone: SIGPIPE ends the program, nothing on stderr
"$bin" --root examples/h100-ofed check --format json 2> "$work/err" | (exec 0<&-; sleep 0.3)
expect "sigpipe-quiet" [ ! -s "$work/err" ]
"$bin" --root examples/h100-ofed check 2> "$work/err" | head -1 > /dev/null
expect "head-1-quiet" [ ! -s "$work/err" ]

# ---- colour: only on a terminal that shows it (script gives the program a pty) ----
on_tty() { TERM=$1 script -qec "$2" /dev/null < /dev/null; }
on_tty xterm "$bin --root examples/h100-ofed check" > "$work/tty.txt"
expect "tty-xterm-has-colour" grep -q $'\033\\[' "$work/tty.txt"
on_tty dumb "$bin --root examples/h100-ofed check" > "$work/tty.txt"
expect "tty-dumb-no-colour" bash -c "! grep -q $'\033' '$work/tty.txt'"
TERM= script -qec "env -u TERM $bin --root examples/h100-ofed check" /dev/null < /dev/null > "$work/tty.txt"
expect "tty-no-term-no-colour" bash -c "! grep -q $'\033' '$work/tty.txt'"
NO_COLOR=1 on_tty xterm "$bin --root examples/h100-ofed check" > "$work/tty.txt"
expect "tty-no-color-env" bash -c "! grep -q $'\033' '$work/tty.txt'"

# ---- marks: UTF-8 in a UTF-8 locale, ASCII otherwise ----
nonascii() { LC_ALL=C grep -q '[^ -~]' "$1"; }
LC_ALL=C.UTF-8 "$bin" --root examples/mixed-states check > "$work/u.txt"
expect "utf8-locale-marks" grep -q '✖ FAIL' "$work/u.txt"
LC_ALL=C "$bin" --root examples/mixed-states check > "$work/c.txt"
expect "c-locale-ascii-only" bash -c "! LC_ALL=C grep -q '[^[:print:][:space:]]' '$work/c.txt'"
expect "c-locale-ascii-marks" grep -q '^x FAIL ' "$work/c.txt"
LANG=en_US.ISO-8859-1 LC_ALL= LC_CTYPE= "$bin" --root examples/mixed-states check > "$work/c.txt"
expect "latin1-locale-ascii" bash -c "! LC_ALL=C grep -q '[^[:print:][:space:]]' '$work/c.txt'"
LC_ALL=POSIX "$bin" --root examples/mixed-states explain 'ibwarn: [1234] umad_get_ca: can'"'"'t open UMAD port' > "$work/c.txt"
expect "c-locale-explain-ascii" bash -c "! LC_ALL=C grep -q '[^[:print:][:space:]]' '$work/c.txt'"

# ---- the summary label agrees with the counts: check --probe on a host with no RDMA hardware (an
# empty /sys in a private mount namespace) and a libibverbs that cannot load: the probe is not
# started (no RDMA NIC, nothing to verify), SKIP, exit 3 ----
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null; then
	mkdir -p "$work/garbage" && echo garbage > "$work/garbage/libibverbs.so.1"
	# the host's own kernel log is shared with every other run on it (a line another test or the
	# host wrote would change kernel.log's verdict): these runs read a clean one from a stand-in dmesg
	mkdir -p "$work/klog" && printf '#!/bin/sh\necho "[    0.000000] Linux version 6.1.0-27-amd64"\n' > "$work/klog/dmesg" && chmod +x "$work/klog/dmesg"
	nohw() { unshare -m sh -c 'mount -t tmpfs none /sys && exec "$@"' sh env PATH="$work/klog:$PATH" LD_LIBRARY_PATH="$work/garbage" "$bin" "$@"; }
	nohw check --probe --only stack.flavor --no-color > "$work/out" 2> /dev/null; rc=$?
	expect "no-hw-probe-skip-exit-3" [ $rc = 3 ]
	expect "no-hw-probe-label" grep -qx 'UNKNOWN (no RDMA hardware): 0 failed, 0 warnings, 0 unknown, 0 ok, 2 skipped' "$work/out"
	expect "no-hw-probe-says-why" grep -qx -- '- SKIP    probe.loopback        not run: this host has no RDMA NIC (no RDMA device and no Mellanox/NVIDIA network PCI function), so there is no verbs path to verify' "$work/out"
	nohw check --probe --only stack.flavor --format json > "$work/out.json" 2> /dev/null
	expect "no-hw-probe-json" jq -e '.summary.status == "UNKNOWN" and .summary.exit_code == 3 and
		(.summary.rdma_hardware | not) and .summary.counts.fail == 0 and
		([.findings[] | select(.check == "probe.loopback") | .status] == ["SKIP"]) and
		([.findings[] | select(.check == "probe.loopback") | .fix | length] == [0])' "$work/out.json" > /dev/null
	# every check, not only the selected one: only stack.flavor (the inventory) and kernel.log (an RDMA error line is evidence without a device) may say more than SKIP
	nohw check --probe --format json > "$work/out.json" 2> /dev/null; rc=$?
	expect "no-hw-every-check-skips" all '[ $rc = 3 ]' "jq -e '[.findings[] | select(.check != \"stack.flavor\" and .check != \"kernel.log\") | .status] | unique == [\"SKIP\"]' '$work/out.json' > /dev/null"
	[ $rc = 3 ] || jq -r '.findings[] | select(.status != "SKIP") | "  not SKIP: \(.check) \(.status) \(.message)"' "$work/out.json" | head -5
	nohw check --only stack.flavor --no-color > "$work/out" 2> /dev/null; rc=$?
	expect "no-hw-label-says-why" all '[ $rc = 3 ]' \
		"grep -qx 'UNKNOWN (no RDMA hardware): 0 failed, 0 warnings, 0 unknown, 0 ok, 1 skipped' '$work/out'"
else
	bad "the no-hardware label tests need root and unshare (a private mount namespace)"
fi

# ---- nccl.env: where NCCL's values come from, in NCCL's order: the environment over
# NCCL_CONF_FILE (which replaces $HOME/.nccl.conf) over /etc/nccl.conf, the files in the root ----
cp -a examples/rxe-qemu "$work/nccl-root"
mkdir -p "$work/nccl-root/home/u" "$work/nccl-root/etc"
printf 'NCCL_IB_DISABLE=1\nNCCL_IB_HCA=mlx5\n' > "$work/nccl-root/etc/nccl.conf"
printf 'NCCL_IB_HCA==rxe0:1\n' > "$work/nccl-root/home/u/.nccl.conf"
printf 'NCCL_IB_DISABLE=0\n' > "$work/nccl-root/job.conf"
nccl() { env -u NCCL_IB_DISABLE -u NCCL_IB_HCA -u NCCL_CONF_FILE "$@" "$bin" --root "$work/nccl-root" check --only nccl.env --format json > "$work/nccl.json" 2> /dev/null; }
njq() { jq -e "$1" "$work/nccl.json" > /dev/null; }
nccl HOME=/home/u
expect "nccl-home-conf-over-etc" njq '[.findings[] | .status] == ["WARN"] and (.findings[0].message | startswith("NCCL_IB_DISABLE=1 (/etc/nccl.conf)")) and
	.findings[0].fix == ["sed -i '"'"'/^NCCL_IB_DISABLE=/d'"'"' /etc/nccl.conf"]'
nccl HOME=/home/u NCCL_CONF_FILE=/job.conf
expect "nccl-conf-file-replaces-home" njq '[.findings[] | .status] == ["WARN"] and (.findings[0].message | test("NCCL_IB_HCA=mlx5 \\(/etc/nccl.conf\\) selects no RDMA port")) and
	.findings[0].fix == ["sed -i '"'"'s/^NCCL_IB_HCA=.*/NCCL_IB_HCA==rxe0/'"'"' /etc/nccl.conf"]'
nccl HOME=/home/u NCCL_IB_DISABLE=0x0 NCCL_IB_HCA=rxe
expect "nccl-environment-wins" njq '[.findings[] | .status] == ["OK"] and .findings[0].message == "NCCL will use 1 RDMA port: rxe0 port 1 (NCCL_IB_HCA=rxe)" and
	.findings[0].evidence == [{"path": "environment", "value": "NCCL_IB_HCA=rxe"}]'
nccl HOME=/nowhere NCCL_IB_DISABLE=yes NCCL_IB_HCA=^rxe0
expect "nccl-strtoll-and-exclude" njq '[.findings[] | .status] == ["WARN"] and (.findings[0].message | test("selects no RDMA port")) and
	(.findings[0].fix[0] | startswith("export NCCL_IB_HCA==rxe0"))'

# NCCL_SOCKET_IFNAME: the bootstrap needs a running interface (IFF_RUNNING, 0x40, in its flags);
# a value of one byte is ignored by NCCL
echo 0x1003 > "$work/nccl-root/sys/class/net/eth0/flags"
nccl HOME=/nowhere NCCL_IB_DISABLE=0 NCCL_IB_HCA=rxe NCCL_SOCKET_IFNAME==eth0
expect "nccl-socket-not-running" njq '[.findings[] | .status] == ["WARN"] and (.findings[0].message | test("selects only interfaces that are not running \\(eth0\\)")) and
	.findings[0].fix == ["ip link set dev eth0 up    # and check its cable or its switch port"]'
nccl HOME=/nowhere NCCL_IB_DISABLE=0 NCCL_IB_HCA=rxe NCCL_SOCKET_IFNAME=ib
expect "nccl-socket-no-match" njq '[.findings[] | .status] == ["WARN"] and (.findings[0].message | test("NCCL_SOCKET_IFNAME=ib \\(the environment\\) selects no network interface of this host \\(its interfaces: eth0\\)")) and
	(.findings[0].fix[0] | startswith("export NCCL_SOCKET_IFNAME==eth0"))'
nccl HOME=/nowhere NCCL_IB_DISABLE=0 NCCL_IB_HCA=rxe NCCL_SOCKET_IFNAME=x
expect "nccl-socket-one-byte-ignored" njq '[.findings[] | .status] == ["OK"]'
echo 0x11043 > "$work/nccl-root/sys/class/net/eth0/flags"
nccl HOME=/nowhere NCCL_IB_DISABLE=0 NCCL_IB_HCA=rxe NCCL_SOCKET_IFNAME=^docker,lo
expect "nccl-socket-running" njq '[.findings[] | .status] == ["OK"]'

# NCCL_TOPO_FILE: a file NCCL cannot open is ignored (an INFO line only); it is read in the root
nccl HOME=/nowhere NCCL_IB_DISABLE=0 NCCL_IB_HCA=rxe NCCL_TOPO_FILE=/opt/topo/ndv5-topo.xml
expect "nccl-topo-file-missing" njq '[.findings[] | .status] == ["WARN"] and (.findings[0].message | startswith("NCCL_TOPO_FILE=/opt/topo/ndv5-topo.xml (the environment) cannot be read (No such file or directory)"))'
mkdir -p "$work/nccl-root/opt/topo" && echo '<system version="1"></system>' > "$work/nccl-root/opt/topo/ndv5-topo.xml"
nccl HOME=/nowhere NCCL_IB_DISABLE=0 NCCL_IB_HCA=rxe NCCL_TOPO_FILE=/opt/topo/ndv5-topo.xml
expect "nccl-topo-file-read-in-root" njq '[.findings[] | .status] == ["OK"]'

# --env-from PID: the job's environment, /proc/PID/environ read in the root, replaces this one's;
# only NCCL_* and HOME are kept (HOME finds ~/.nccl.conf); an unreadable one is UNKNOWN, not a guess
mkdir -p "$work/nccl-root/proc/4242"
printf 'AWS_SECRET_ACCESS_KEY=hunter2\0NCCL_IB_DISABLE=0\0HOME=/home/u\0NCCL_IB_HCA=mlx5\0NCCL_IB_HCA=rxe\0' > "$work/nccl-root/proc/4242/environ"
envnccl() { env -u NCCL_IB_DISABLE -u NCCL_IB_HCA -u NCCL_CONF_FILE HOME=/nowhere NCCL_IB_DISABLE=0 NCCL_IB_HCA=rxe "$bin" --root "$work/nccl-root" check --only nccl.env --format json "$@" > "$work/nccl.json" 2> /dev/null; }
envnccl --env-from 4242
expect "nccl-env-from-pid-replaces-ours" njq '[.findings[] | .status] == ["WARN"] and (.findings[0].message | startswith("NCCL_IB_HCA=mlx5 (the environment of process 4242) selects no RDMA port")) and
	.findings[0].evidence == [{"path": "/proc/4242/environ", "value": "NCCL_IB_HCA=mlx5"}] and (.findings[0].fix[0] | startswith("export NCCL_IB_HCA==rxe0"))'
printf 'NCCL_IB_DISABLE=0\0HOME=/home/u\0' > "$work/nccl-root/proc/4242/environ"
envnccl --env-from 4242
expect "nccl-env-from-home-finds-its-conf" njq '[.findings[] | .status] == ["OK"] and .findings[0].message == "NCCL will use 1 RDMA port: rxe0 port 1 (NCCL_IB_HCA==rxe0:1)"'
envnccl --env-from 4243 --only nccl.env,roce.gid; rc=$?
expect "nccl-env-from-missing-process-unknown" njq '[.findings[] | .status] == ["UNKNOWN", "UNKNOWN"] and
	([.findings[] | .message] | unique) == ["cannot read the environment of process 4243 (no such process): what NCCL is told there is not known"] and
	.findings[0].evidence == [{"path": "/proc/4243/environ", "value": "<No such file or directory>"}]'
expect "nccl-env-from-missing-exit-3" all '[ $rc = 3 ]'
"$bin" --root "$work/nccl-root" check --env-from 12x > /dev/null 2> "$work/err"; rc=$?
expect "nccl-env-from-not-a-pid" all '[ $rc = 3 ]' "grep -qx \"rdma-doctor: check: --env-from needs a process id, not '12x' (see 'rdma-doctor check --help')\" '$work/err'"
# the snapshot of a live process keeps its NCCL entries and HOME, nothing else of its environment
env -i HOME=/home/u NCCL_IB_HCA=mlx5_0 AWS_SECRET_ACCESS_KEY=hunter2 sleep 60 & envpid=$!
"$bin" snapshot --env-from "$envpid" -o "$work/env-snap" > /dev/null 2>&1; rc=$?
expect "snapshot-env-from-redacted" all '[ $rc = 0 ]' "[ \"\$(tr '\\0' '\\n' < '$work/env-snap/proc/$envpid/environ')\" = \"\$(printf 'HOME=/home/u\\nNCCL_IB_HCA=mlx5_0')\" ]" \
	"! grep -rq hunter2 '$work/env-snap'"
kill "$envpid" 2> /dev/null; wait "$envpid" 2> /dev/null

# ---- stack: a managed switch's own device (node_type 2) is not a compute port; a host with no
# RDMA stack module loaded says so in words ----
cp -a examples/rxe-qemu "$work/switch-root"
swdev=devices/pci0000:00/0000:00:03.0/infiniband/switchib0
mkdir -p "$work/switch-root/sys/$swdev/ports/0"
echo "2: switch" > "$work/switch-root/sys/$swdev/node_type"
printf '4: ACTIVE\n' > "$work/switch-root/sys/$swdev/ports/0/state"
printf '5: LinkUp\n' > "$work/switch-root/sys/$swdev/ports/0/phys_state"
echo InfiniBand > "$work/switch-root/sys/$swdev/ports/0/link_layer"
ln -s "../../$swdev" "$work/switch-root/sys/class/infiniband/switchib0"
"$bin" --root "$work/switch-root" stack > "$work/out" 2>&1
expect "stack-switch-port-0" grep -qE '^  switchib0 +port 0 +InfiniBand switch +the switch.s management port \(port 0\), not a compute port$' "$work/out"
"$bin" --root examples/no-rdma stack > "$work/out" 2>&1
expect "stack-no-module-words" grep -qx 'Stack:   unknown, no RDMA stack module loaded' "$work/out"

# ---- roots: empty values are errors, never the live host (dry runs: a build with the bug would
# otherwise write the live /etc) ----
RDMA_DOCTOR_ROOT= "$bin" check > "$work/out" 2> "$work/err"; rc=$?
expect "env-root-empty-exit-3" all '[ $rc = 3 ]' '[ ! -s "$work/out" ]'
expect "env-root-empty-says" grep -q 'RDMA_DOCTOR_ROOT is set but empty' "$work/err"
RDMA_DOCTOR_ROOT= "$bin" fix modules > "$work/out" 2> "$work/err"; rc=$?
expect "env-root-empty-fix" all '[ $rc = 3 ]' '[ ! -s "$work/out" ]'
"$bin" --root "" fix modules > "$work/out" 2> "$work/err"; rc=$?
expect "root-empty-fix" all '[ $rc = 3 ]' '[ ! -s "$work/out" ]' '[ "$(lines "$work/err")" = 1 ]'
RDMA_DOCTOR_ROOT= "$bin" --root examples/no-rdma stack > /dev/null 2>&1
expect "root-option-beats-empty-env" [ $? = 0 ]
RDMA_DOCTOR_ROOT=examples/no-rdma "$bin" stack > "$work/out" 2>&1
expect "env-root-used" grep -q '^Root:    examples/no-rdma' "$work/out"

# ---- JSON "root" is null for the live host in every schema that has it ----
for cmd in "check --format json" "stack --format json"; do
	"$bin" $cmd > "$work/out.json" 2> /dev/null
	expect "live-root-null: $cmd" jq -e 'has("root") and .root == null' "$work/out.json" > /dev/null
done
"$bin" --root examples/no-rdma stack --format json > "$work/out.json"
expect "root-named-in-json" jq -e '.root == "examples/no-rdma"' "$work/out.json" > /dev/null

# ---- getopt: POSIXLY_CORRECT does not change where options may go ----
POSIXLY_CORRECT=1 "$bin" --root examples/h100-ofed explain 'all good' --format json > "$work/out" 2>&1
expect "posixly-correct-options-anywhere" jq -e '.lines_read == 1' "$work/out" > /dev/null
"$bin" --root examples/h100-ofed explain -- '--format json' > "$work/out" 2>&1
expect "dashdash-text" grep -q '^No known RDMA error message in 1 line' "$work/out"

# ---- explain reads files, pipes and standard input, and names a file it cannot read ----
msg="ibwarn: [1234] umad_get_ca: can't open UMAD port"
printf 'boot\n%s\n' "$msg" > "$work/job.log"
"$bin" --root examples/mixed-states explain "$work/job.log" > "$work/out"
expect "explain-file" grep -q '^    line 2: ibwarn' "$work/out"
"$bin" --root examples/mixed-states explain <(printf '%s\n' "$msg") > "$work/out"
expect "explain-pipe-operand" grep -q '^    line 1: ibwarn' "$work/out"
printf '%s\n' "$msg" | "$bin" --root examples/mixed-states explain - > "$work/out"
expect "explain-stdin" grep -q '^    line 1: ibwarn' "$work/out"
"$bin" explain /dev/null > "$work/out" 2> "$work/err"; rc=$?
expect "explain-device-refused" all '[ $rc = 3 ]' 'grep -qx '\''rdma-doctor: explain: cannot read /dev/null: not a regular file or a pipe'\'' "$work/err"'
"$bin" explain --file "$work/nonexistent.log" > "$work/out" 2> "$work/err"; rc=$?
expect "explain-file-missing" all '[ $rc = 3 ]' 'grep -q "cannot read $work/nonexistent.log: No such file" "$work/err"'
if [ "$(id -u)" != 0 ]; then
	install -m 000 /dev/null "$work/secret.log"
	"$bin" explain "$work/secret.log" > /dev/null 2> "$work/err"; rc=$?
	expect "explain-unreadable" all '[ $rc = 3 ]' 'grep -q "cannot read $work/secret.log: Permission denied" "$work/err"'
fi

# ---- hostile bytes from a root are made visible (text), escaped (JSON) ----
root=$work/evil
cp -a examples/rxe-qemu "$root"
printf 'evil\033]0;pwned\a\033[2J\x9b31m\xc2\x9b1m\xff\n' > "$root/proc/sys/kernel/hostname"
forged=$'x\nOK: 0 failed, 0 warnings, 0 unknown, 19 ok, 0 skipped\n'
mkdir "$root/sys/class/infiniband/$forged"
mkdir -p "$root/etc/modules-load.d"
printf '# \033]0;pwned\a\033[2J rdma\nmlx5_core\n' > "$root/etc/modules-load.d/rdma.conf"
for cmd in "check" "stack" 'explain "$msg"' "fix modules"; do
	eval '"$bin" --root "$root" '"$cmd" > "$work/out" 2> "$work/err"
	n=${cmd%% *}
	# C0 but newline, DEL, and C1 as UTF-8 (raw C1 bytes are invalid UTF-8: the next test)
	expect "hostile-$n-no-controls" bash -c "! LC_ALL=C grep -qP '[\\x00-\\x09\\x0b-\\x1f\\x7f]|\\xc2[\\x80-\\x9f]' '$work/out'"
	expect "hostile-$n-no-invalid-utf8" iconv -f UTF-8 -t UTF-8 "$work/out" -o /dev/null
done
"$bin" --root "$root" check > "$work/out"
expect "hostile-hostname-visible" grep -qF 'evil\x1b]0;pwned\x07\x1b[2J\x9b31m\xc2\x9b1m\xff, kernel' "$work/out"
expect "hostile-no-forged-summary" [ "$(grep -cE '^(OK|WARN|FAIL|UNKNOWN)[ :(]' "$work/out")" = 1 ]
expect "hostile-device-visible" grep -qF 'x\x0aOK: 0 failed' "$work/out"
"$bin" --root "$root" fix modules > "$work/out"
expect "hostile-fix-diff-visible" grep -qxF ' # \x1b]0;pwned\x07\x1b[2J rdma' "$work/out"
# messages are text too: a path, an option's value or a command name holding ESC is made visible
edir=$work/$'o\033[31md'
mkdir "$edir"
"$bin" --root "$root" snapshot -o "$edir/s.tar.gz" 2> "$work/err" > /dev/null
"$bin" probe --port $'\033]0;x\a' 2>> "$work/err"
"$bin" $'\033[2Jcmd' 2>> "$work/err"
expect "hostile-messages-no-controls" all '[ "$(lines "$work/err")" = 3 ]' \
	"! LC_ALL=C grep -qP '[\\x00-\\x09\\x0b-\\x1f\\x7f]' '$work/err'" \
	'grep -qF "wrote $work/o\x1b[31md/s.tar.gz" "$work/err"' 'grep -qF "not '"'"'\x1b]0;x\x07'"'"'" "$work/err"'
for cmd in check stack; do
	"$bin" --root "$root" $cmd --format json > "$work/out.json"
	expect "hostile-$cmd-json-valid" jq -e . "$work/out.json" > /dev/null
	expect "hostile-$cmd-json-controls-escaped" grep -qF '"evil\u001b]0;pwned\u0007\u001b[2J\ufffd31m' "$work/out.json"
done

# ---- with --root nothing outside the root is opened (strace) ----
# What may remain, and why: the dynamic loader's cache and the program's shared libraries (before
# main runs), the root itself, and what the command was told to write (snapshot -o, and the
# directory it is made in: the output is an O_TMPFILE there, linked into place; that directory is
# reached from / by descriptors, one component at a time).  /proc/self/fd/N
# (or N in /proc/self/fd, which it holds open for that) is the source layer reopening, for reading,
# a file it opened with O_PATH inside the root (the same inode, never a new path walk).  No time-zone
# file (/etc/localtime: times are computed in UTC without tzdata), no locale file (the locale is
# read from the environment), no /proc/self or /dev/null (only opened when fds 0-2 are closed).
if ldd "$bin" 2> /dev/null | grep libasan > /dev/null; then # not -q: with pipefail, ldd killed by SIGPIPE would fail the test
	echo "strace section: not under ASan (its runtime reads /proc/self/maps); the plain build runs it"
elif command -v strace > /dev/null; then
	allowed() { # PATH: may it be opened?
		case "$1" in
		/etc/ld.so.cache | /lib/*.so* | /usr/lib/*.so* | /lib64/*.so* | /usr/lib64/*.so*) return 0 ;;
		examples/rxe-qemu | examples/rxe-qemu/* | "$work/snap" | "$work/snap/"* | "$work") return 0 ;;
		/) return 0 ;; # O_PATH: the output's directory is walked from it, one component at a time
		/proc/self/fd | /proc/self/fd/[0-9]*) return 0 ;;
		esac
		return 1
	}
	for cmd in "check" "check --format json" "stack" "gids" "gids --format json" "checks" "fix modules" 'explain "$msg"' \
		'snapshot -o "$work/snap"'; do
		rm -rf "$work/snap"
		# a clean environment: no TZ, no locale variables (what cron and systemd may give)
		eval 'env -i PATH=/usr/bin:/bin strace -f -qq -e trace=open,openat,openat2,creat -o "$work/trace" \
			"$bin" --root examples/rxe-qemu '"$cmd" > /dev/null 2>&1
		# absolute paths and paths relative to the working directory; a dirfd other than
		# AT_FDCWD is inside the root (the source layer's descriptors)
		outside=$(grep -oE '(open|creat)[a-z0-9]*\((AT_FDCWD, )?"[^"]*"' "$work/trace" | sed -E 's/^[a-z0-9]+\((AT_FDCWD, )?"//; s/"$//' |
			while read -r p; do allowed "$p" || echo "$p"; done | sort -u | tr '\n' ' ')
		expect "strace-root-only: $cmd${outside:+ (opened: $outside)}" [ -z "$outside" ]
	done
	expect "strace-saw-the-root" grep -q '"examples/rxe-qemu"' "$work/trace"
else
	bad "strace is not installed (apt-get install strace)"
fi

# ---- libraries: only libc is linked; inih is loaded to read a policy file, yajl by fleet, and
# neither by ibstat or a check without a policy file (LD_DEBUG=files names each library mapped) ----
maps() { LD_DEBUG=files "$@" 2>&1 > /dev/null | grep -oE 'file=lib(inih|yajl)[^ ]*' | sort -u | tr '\n' ' '; }
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -vE '^lib(asan|ubsan|stdc\+\+|m|gcc_s)\.' | tr '\n' ' ')
expect "linked-libc-only (NEEDED: $needed)" [ "$needed" = "libc.so.6 " ]
m=$(maps "$bin" --root examples/h100-ofed ibstat)
expect "ibstat-maps-neither-inih-nor-yajl${m:+ ($m)}" [ -z "$m" ]
m=$(maps "$bin" --root examples/h100-ofed check)
expect "check-without-policy-maps-neither${m:+ ($m)}" [ -z "$m" ]
mkdir -p "$work/policy/etc" && cp -a examples/h100-ofed/. "$work/policy/" && printf '[ports]\nexpect_active = 8\n' > "$work/policy/etc/rdma-doctor.conf"
m=$(maps "$bin" --root "$work/policy" check)
expect "check-with-policy-loads-inih (${m})" all 'grep -q libinih <<< "$m"' '! grep -q libyajl <<< "$m"'
"$bin" --root examples/h100-ofed check --format json > "$work/report.json"
m=$(maps "$bin" fleet "$work/report.json")
expect "fleet-loads-yajl (${m})" all 'grep -q libyajl <<< "$m"' '! grep -q libinih <<< "$m"'

# ---- roce.gid: NCCL's variables come from the environment rdma-doctor runs in (a Slurm prolog
# runs with the job's), also with --root; the environment is over the policy's [nccl] block ----
"$top/tests/scenarios/make.sh" "$work/sc" healthy-inbox roce-gid-index-v1
gid() { env -u NCCL_IB_GID_INDEX -u NCCL_IB_ROCE_VERSION_NUM -u NCCL_IB_ADDR_FAMILY -u NCCL_IB_ADDR_RANGE "$@"; }
gid "$bin" --root "$work/sc/healthy-inbox" check --only roce.gid > "$work/out" 2>&1; rc=$?
expect "nccl-auto-ok" all '[ $rc = 0 ]' 'grep -q "automatic choice (RoCE v2, IPv4; NCCL 2.21.5 or later assumed): mlx5_2 port 1 GID 3" "$work/out"'
gid NCCL_IB_GID_INDEX=1 "$bin" --root "$work/sc/healthy-inbox" check --only roce.gid > "$work/out" 2>&1; rc=$?
expect "nccl-env-index-link-local-fails" all '[ $rc = 2 ]' \
	'grep -q "NCCL_IB_GID_INDEX = 1 selects GID 1 of mlx5_2 port 1, which is link-local" "$work/out"' \
	'grep -q "NCCL should use index 3 (RoCE v2, 10.10.5.17 on enp193s0f0np0)" "$work/out"' \
	'grep -q "unset NCCL_IB_GID_INDEX" "$work/out"'
gid NCCL_IB_GID_INDEX=3 "$bin" --root "$work/sc/roce-gid-index-v1" check --only roce.gid > "$work/out" 2>&1; rc=$?
expect "nccl-env-over-policy" all '[ $rc = 0 ]' 'grep -q "NCCL_IB_GID_INDEX = 3: mlx5_2 port 1 GID 3" "$work/out"'
gid NCCL_IB_GID_INDEX=-1 "$bin" --root "$work/sc/roce-gid-index-v1" check --only roce.gid > "$work/out" 2>&1; rc=$?
expect "nccl-env-minus-one-is-automatic" all '[ $rc = 0 ]' 'grep -q "automatic choice" "$work/out"'
gid NCCL_IB_ROCE_VERSION_NUM=1 "$bin" --root "$work/sc/roce-gid-index-v1" check --only roce.gid > "$work/out" 2>&1; rc=$?
expect "nccl-env-roce-v1-takes-index-2" all '[ $rc = 0 ]' 'grep -q "mlx5_2 port 1 GID 2 (RoCE v1, 10.10.5.17" "$work/out"'
gid NCCL_IB_ADDR_FAMILY=AF_INET6 "$bin" --root "$work/sc/healthy-inbox" check --only roce.gid > "$work/out" 2>&1; rc=$?
expect "nccl-env-ipv6-warns" all '[ $rc = 1 ]' 'grep -q "no RoCE v2 GID with an IPv6 address on enp193s0f0np0" "$work/out"'
gid NCCL_IB_ADDR_RANGE=192.168.0.0/16 "$bin" --root "$work/sc/healthy-inbox" check --only roce.gid > "$work/out" 2>&1; rc=$?
expect "nccl-env-range-excludes" all '[ $rc = 1 ]' 'grep -q "no RoCE v2 GID with an IPv4 address" "$work/out"'
gid NCCL_IB_GID_INDEX=1 "$bin" --root "$work/sc/healthy-inbox" gids --format json > "$work/out" 2>&1; rc=$?
expect "nccl-env-gids-json" all '[ $rc = 0 ]' \
	'jq -e ".nccl_gids[0] | .index == 1 and .usable == false and .chosen_by == \"NCCL_IB_GID_INDEX\"" "$work/out" > /dev/null'
gid NCCL_IB_GID_INDEX=1 "$bin" --root "$work/sc/healthy-inbox" stack > "$work/out" 2>&1; rc=$?
expect "nccl-env-stack" all '[ $rc = 0 ]' 'grep -q "NCCL GID: mlx5_2 port 1 index 1 (RoCE v2) on enp193s0f0np0, set by NCCL_IB_GID_INDEX: unusable, link-local" "$work/out"'

# ---- nccl.env: NCCL_IB_TC against the port's map and PFC (trust dscp, mlnx_qos -i as MLNX_OFED
# prints it, the map that of the Mellanox community's mlnx_qos page); NCCL_IB_SL under trust pcp ----
qr=$work/sc/healthy-inbox Q=$work/sc/healthy-inbox/rdma-doctor/commands/mlnx_qos-enp193s0f0np0
mq() { # TRUST PFC-ROW [DSCP-MOVED-TO-5]
	printf 'DCBX mode: OS controlled\nPriority trust state: %s\ndscp2prio mapping:\n' "$1"
	local p d
	for p in 0 1 2 3 4 5 6 7; do
		printf '\tprio:%d dscp:' $p
		for d in 7 6 5 4 3 2 1 0; do [ $((p * 8 + d)) = "${3:-99}" ] || printf '%02d,' $((p * 8 + d)); done
		[ $p = 5 ] && [ -n "${3:-}" ] && printf '\n\tprio:5 dscp:%02d,' "$3"
		printf '\n'
	done
	printf 'Cable len: 7\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     %s\n' "$2"
}
tc() { env -u NCCL_IB_TC -u NCCL_IB_SL -u NCCL_IB_HCA "$@" "$bin" --root "$qr" check --only nccl.env > "$work/out" 2>&1; rc=$?; }
mq dscp '0   0   0   1   0   0   0   0' > "$Q"; echo 0 > "$Q.status"
tc
expect "nccl-tc-unset-lossy-warns" all '[ $rc = 1 ]' \
	'grep -q "traffic class 0 (NCCL_IB_TC unset: NCCL.s default 0), DSCP 0, which the port (trust dscp) puts on priority 0, where PFC is off; PFC is on priority 3" "$work/out"' \
	'grep -q "mlnx_qos -i enp193s0f0np0 = dscp2prio: DSCP 0 -> priority 0" "$work/out"' \
	'grep -q "fix: export NCCL_IB_TC=106 " "$work/out"'
tc NCCL_IB_TC=106
expect "nccl-tc-106-on-pfc-ok" all '[ $rc = 0 ]' '! grep -q "traffic class" "$work/out"'
tc NCCL_IB_TC=0x6a
expect "nccl-tc-hex-as-nccl-reads-it" all '[ $rc = 0 ]'
tc NCCL_IB_TC=96
expect "nccl-tc-96-dscp-24-ok" all '[ $rc = 0 ]'
tc NCCL_IB_TC=160
expect "nccl-tc-160-warns" all '[ $rc = 1 ]' 'grep -q "traffic class 160 (NCCL_IB_TC=160, " "$work/out"' 'grep -q "priority 5, where PFC is off" "$work/out"'
# DSCP 26 moved onto priority 5, PFC on 5: 106 is lossless there, and the fix for 0 stays 106
mq dscp '0   0   0   0   0   1   0   0' 26 > "$Q"
tc NCCL_IB_TC=106
expect "nccl-tc-custom-map-106-ok" all '[ $rc = 0 ]'
tc
expect "nccl-tc-custom-map-fix" all '[ $rc = 1 ]' 'grep -q "fix: export NCCL_IB_TC=106 " "$work/out"'
# the default map, PFC on 5: the lowest DSCP of priority 5 (40) gives class 162
mq dscp '0   0   0   0   0   1   0   0' > "$Q"
tc NCCL_IB_TC=106
expect "nccl-tc-fix-lowest-dscp-of-pfc-prio" all '[ $rc = 1 ]' 'grep -q "fix: export NCCL_IB_TC=162 " "$work/out"'
tc NCCL_IB_TC=162
expect "nccl-tc-162-ok" all '[ $rc = 0 ]'
# OFED's per-port class overrides every QP's: NCCL_IB_TC does not matter then
mkdir -p "$qr/sys/class/infiniband/mlx5_2/tc/1"
printf 'Global tclass=162\n' > "$qr/sys/class/infiniband/mlx5_2/tc/1/traffic_class"
tc NCCL_IB_TC=0
expect "nccl-tc-port-override-ok" all '[ $rc = 0 ]'
printf 'Global tclass=106\n' > "$qr/sys/class/infiniband/mlx5_2/tc/1/traffic_class"
tc NCCL_IB_TC=162
expect "nccl-tc-port-override-warns" all '[ $rc = 1 ]' 'grep -q "tc/1/traffic_class, which overrides NCCL_IB_TC" "$work/out"' \
	'grep -q "fix: echo 162 > /sys/class/infiniband/mlx5_2/tc/1/traffic_class" "$work/out"'
rm -r "$qr/sys/class/infiniband/mlx5_2/tc"
# trust pcp: NCCL_IB_TC does not pick the priority, NCCL_IB_SL does (its low 3 bits on RoCE)
mq pcp '0   0   0   1   0   0   0   0' > "$Q"
tc NCCL_IB_SL=3 NCCL_IB_TC=0
expect "nccl-tc-trust-pcp-not-judged" all '[ $rc = 0 ]' '! grep -q "traffic class" "$work/out"'
tc
expect "nccl-sl-unset-pcp-lossy-warns" all '[ $rc = 1 ]' \
	'grep -q "has service level 0 (NCCL_IB_SL unset: NCCL.s default 0), which RoCE sends on priority 0 (the VLAN tag.s PCP); the port trusts the PCP (trust pcp) and PFC is off on priority 0, on for 3" "$work/out"' \
	'grep -q "mlnx_qos -i enp193s0f0np0 = Priority trust state: pcp" "$work/out"' \
	'grep -q "mlnx_qos -i enp193s0f0np0 = PFC enabled on priority 3" "$work/out"' \
	'grep -q "fix: export NCCL_IB_SL=3 " "$work/out"' 'grep -q "NCCL.s GID must be on a VLAN interface" "$work/out"'
tc NCCL_IB_SL=5
expect "nccl-sl-5-warns" all '[ $rc = 1 ]' 'grep -q "service level 5 (NCCL_IB_SL=5, the environment), which RoCE sends on priority 5" "$work/out"'
tc NCCL_IB_SL=11
expect "nccl-sl-11-is-priority-3-ok" all '[ $rc = 0 ]' '! grep -q "service level" "$work/out"'
tc NCCL_IB_SL=abc
expect "nccl-sl-abc-is-0-as-nccl-reads-it" all '[ $rc = 1 ]' 'grep -q "service level 0 (NCCL_IB_SL=abc, " "$work/out"'
# set in /etc/nccl.conf: the printed sed, run on that file, makes the check pass
printf 'NCCL_IB_SL=0\n' > "$qr/etc/nccl.conf"
tc
fixline=$(sed -n 's/^ *fix: \(sed -i .*NCCL_IB_SL.*\)$/\1/p' "$work/out")
expect "nccl-sl-conf-fix-is-sed" all '[ $rc = 1 ]' '[ "$fixline" = "sed -i '"'"'s/^NCCL_IB_SL=.*/NCCL_IB_SL=3/'"'"' /etc/nccl.conf" ]'
sed -i 's/^NCCL_IB_SL=.*/NCCL_IB_SL=3/' "$qr/etc/nccl.conf"
tc
expect "nccl-sl-conf-fix-applied-ok" all '[ $rc = 0 ]' 'grep -q "^NCCL_IB_SL=3$" "$qr/etc/nccl.conf"'
rm "$qr/etc/nccl.conf"
mq pcp '1   0   0   0   0   0   0   0' > "$Q"
tc
expect "nccl-sl-unset-pfc-on-0-ok" all '[ $rc = 0 ]'
mq dscp '0   0   0   0   0   0   0   0' > "$Q"
tc
expect "nccl-tc-no-pfc-not-judged" all '[ $rc = 0 ]'
mq dscp '0   0   0   1   0   0   0   0' | grep -v 'prio:7' > "$Q"
tc
expect "nccl-tc-partial-map-not-judged" all '[ $rc = 0 ]'
# trust and the map from the OFED driver's sysfs, PFC from iproute2's dcb: the evidence names dcb
nq=$qr/sys/devices/pci0000:00/0000:00:01.0/0000:c1:00.0/net/enp193s0f0np0/qos
mkdir -p "$nq"; echo dscp > "$nq/trust"
mq dscp '0 0 0 1 0 0 0 0' | sed -n '/prio:/p' > "$nq/dscp2prio"
rm "$Q" "$Q.status"; echo ENOENT > "$Q.error"
D=$qr/rdma-doctor/commands/dcb-pfc-enp193s0f0np0
printf '%s\n' 'pfc-cap 8 macsec-bypass off delay 4096' 'prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off' > "$D"; echo 0 > "$D.status"
tc
expect "nccl-tc-pfc-from-dcb-evidence" all '[ $rc = 1 ]' 'grep -q "dcb pfc show dev enp193s0f0np0 = PFC enabled on priority 3" "$work/out"' \
	'grep -q "/qos/dscp2prio = " "$work/out"'
rm -r "$nq" "$D" "$D.status" "$Q.error"

# ---- one policy for a heterogeneous fleet: sections scoped by host pattern, matched against the
# root's host name (not this machine's), on a root, its /etc policy and its snapshot ----
"$top/tests/scenarios/make.sh" "$work/scope" healthy-inbox > /dev/null
sa=$work/scope/healthy-inbox sb=$work/scope/gpu-b07
cp -a "$sa" "$sb" && echo gpu-b07 > "$sb/proc/sys/kernel/hostname"
P=$work/scope/fleet.conf
printf '[ports]\nmin_rate_ib = 400   ; the fleet\n[ports @gpu-b[01-16]]\nmin_rate_ib = 800\n[ports @gpu-b[01-64]]\nmin_rate_ib = 200\nexpect_active = 2\n' > "$P"
"$bin" --root "$sa" check --policy "$P" --only ports.rate > "$work/out" 2>&1; rc=$?
expect "scope-unscoped-host-ok" all '[ $rc = 0 ]'
"$bin" --root "$sb" check --policy "$P" --only ports.rate > "$work/out" 2>&1; rc=$?
expect "scope-host-pattern-fails" all '[ $rc = 2 ]' 'grep -q "800" "$work/out"'
"$bin" --root "$sa" check --policy "$P" --policy-explain > "$work/out" 2>&1; rc=$?
expect "scope-explain-unscoped" all '[ $rc = 0 ]' 'grep -qx "# host gpu-a01, policy $P" "$work/out"' \
	'grep -qxF "min_rate_ib = 400   # $P:2 [ports]" "$work/out"' '[ "$(lines "$work/out")" = 2 ]'
"$bin" --root "$sb" check --policy "$P" --policy-explain > "$work/out" 2>&1; rc=$?
expect "scope-explain-fewest-hosts-wins" all '[ $rc = 0 ]' 'grep -qxF "min_rate_ib = 800   # $P:4 [ports @gpu-b[01-16]]" "$work/out"' \
	'grep -qxF "expect_active = 2   # $P:7 [ports @gpu-b[01-64]]" "$work/out"'
"$bin" --root "$sb" check --policy "$P" --policy-explain --format json > "$work/out" 2>&1; rc=$?
expect "scope-explain-json" all '[ $rc = 0 ]' \
	'jq -e ".schema == \"rdma-doctor/policy/v1\" and .host == \"gpu-b07\" and ([.settings[] | select(.key == \"min_rate_ib\")] == [{section: \"ports\", key: \"min_rate_ib\", value: \"800\", file: \"$P\", line: 4, header: \"ports @gpu-b[01-16]\", scope: \"hosts\", hosts: 16}])" "$work/out" > /dev/null'
# the root's own /etc/rdma-doctor.conf, and a snapshot of the root: the same host, the same values
cp "$P" "$sb/etc/rdma-doctor.conf"
"$bin" --root "$sb" check --policy-explain > "$work/out" 2>&1; rc=$?
expect "scope-root-etc-policy" all '[ $rc = 0 ]' 'grep -qxF "min_rate_ib = 800   # /etc/rdma-doctor.conf:4 [ports @gpu-b[01-16]]" "$work/out"'
"$bin" --root "$sb" snapshot -o "$work/scope/b07.tar.gz" > /dev/null 2>&1
"$bin" --root "$work/scope/b07.tar.gz" check --policy-explain > "$work/out2" 2>&1; rc=$?
expect "scope-snapshot-same" all '[ $rc = 0 ]' 'cmp -s "$work/out" "$work/out2"'
"$bin" --root "$work/scope/b07.tar.gz" check --only ports.rate > "$work/out" 2>&1; rc=$?
expect "scope-snapshot-judged-as-b07" all '[ $rc = 2 ]'
# a root that names no host and has no policy: one line, no value printed for the missing host
mkdir -p "$work/scope/nohost/proc/sys/kernel"
"$bin" --root "$work/scope/nohost" check --policy-explain > "$work/out" 2>&1; rc=$?
expect "scope-explain-no-host-no-policy" all '[ $rc = 0 ]' '[ "$(cat "$work/out")" = "# host (unknown), no policy file: the defaults" ]'
mv "$sb/etc/rdma-doctor.conf" "$work/scope/conf.away"
"$bin" --root "$sb" check --policy-explain > "$work/out" 2>&1; rc=$?
expect "scope-explain-no-policy-names-the-host" all '[ $rc = 0 ]' '[ "$(cat "$work/out")" = "# host gpu-b07, no policy file: the defaults" ]'
mv "$work/scope/conf.away" "$sb/etc/rdma-doctor.conf"
# two sections as specific naming this host with different values: exit 3, one line naming both lines
printf '[ports @gpu-b[01-02]]\nmin_rate_ib = 100\n[ports @gpu-b[07-08]]\nmin_rate_ib = 200\n' > "$P"
"$bin" --root "$sb" check --policy "$P" > "$work/out" 2> "$work/err"; rc=$?
expect "scope-equal-specificity-other-host-ok" all '[ $rc != 3 ]'
printf '[ports @gpu-b[06-07]]\nmin_rate_ib = 100\n[ports @gpu-b[07-08]]\nmin_rate_ib = 200\n' > "$P"
"$bin" --root "$sb" check --policy "$P" > "$work/out" 2> "$work/err"; rc=$?
expect "scope-equal-specificity-error" all '[ $rc = 3 ]' '[ "$(lines "$work/err")" = 1 ]' \
	'grep -qF "$P:4: min_rate_ib = 200 here [ports @gpu-b[07-08]] and min_rate_ib = 100 at $P:2 [ports @gpu-b[06-07]]" "$work/err"'
"$bin" --root "$sb" check --policy "$P" --format json > "$work/out" 2> "$work/err"; rc=$?
expect "scope-equal-specificity-json" all '[ $rc = 3 ]' 'jq -e ".schema == \"rdma-doctor/error/v1\"" "$work/out" > /dev/null'
# a hostile header: its bytes shown, not sent to the terminal
printf '[ports x\033(0]\nmin_rate_ib = 1\n' > "$P"
"$bin" --root "$sb" check --policy "$P" --policy-explain > "$work/out" 2> "$work/err"; rc=$?
expect "scope-hostile-header" all '[ $rc = 3 ]' '! grep -q $'"'"'\033'"'"' "$work/err"' 'grep -qF "\\x1b" "$work/err"'
"$bin" --root "$sb" check --policy-explain --only ports.rate > "$work/out" 2> "$work/err"; rc=$?
expect "scope-explain-runs-no-check" all '[ $rc = 3 ]' 'grep -q "runs no check" "$work/err"'

ts_finalize
