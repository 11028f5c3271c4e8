#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Snapshot round trips: `snapshot` of a root (directory, .tar.gz and .tar), then `--root` on the
# snapshot gives the same stack JSON, ibstat and ibstatus output as the original root (every
# example) and the same check findings (every scenario root); a snapshot of this live machine
# gives the live check's findings and holds only what the checks read (an allow-list of paths: no
# /proc/kallsyms, keys, kmsg ...; a file only stat'ed or listed keeps no bytes); the output is
# streamed (no staging tree), refused when it exists (unless --force), and a full disk is an error
# that leaves nothing; an unprivileged snapshot says what it could not capture; RDMA_DOCTOR_ROOT
# works like --root.
# Usage: tests/snapshot.sh [BUILD_DIR]      Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib.sh"
bin=$(cd "${1:-$top/build}" && pwd)/rdma-doctor
ts_scratch snap
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
ts_init
same() { # description root-a root-b args...
	local what=$1 a=$2 b=$3; shift 3
	if diff <("$bin" --root "$a" "$@" 2>&1 | grep -v '"root":' | sed 's/^Root: .*//') \
		<("$bin" --root "$b" "$@" 2>&1 | grep -v '"root":' | sed 's/^Root: .*//') > "$work/diff"; then ok
	else bad "$what: $*"; head -10 "$work/diff"; fi
}
for src in "$top"/examples/*/; do
	src=${src%/} ex=$(basename "$src")
	"$bin" --root "$src" snapshot -o "$work/$ex" 2> "$work/log" || bad "snapshot -o dir of $ex: $(cat "$work/log")"
	"$bin" --root "$src" snapshot -o "$work/$ex.tar.gz" 2> "$work/log" || bad "snapshot -o tar.gz of $ex: $(cat "$work/log")"
	"$bin" --root "$src" snapshot -o "$work/$ex.tar" 2> "$work/log" || bad "snapshot -o tar of $ex: $(cat "$work/log")"
	for args in "stack --format json" "ibstat" "ibstatus" "ibstat -p" "check --format json"; do
		# shellcheck disable=SC2086
		same "$ex dir" "$src" "$work/$ex" $args
		# shellcheck disable=SC2086
		same "$ex tar.gz" "$src" "$work/$ex.tar.gz" $args
		# shellcheck disable=SC2086
		same "$ex tar" "$src" "$work/$ex.tar" $args
	done
	[ -f "$work/$ex/rdma-doctor/meta.json" ] && ok || bad "$ex: no rdma-doctor/meta.json"
	# a snapshot of a snapshot is the same snapshot
	"$bin" --root "$work/$ex.tar.gz" snapshot -o "$work/$ex-again" 2> /dev/null || bad "re-snapshot $ex"
	same "$ex snapshot of snapshot" "$src" "$work/$ex-again" stack --format json
done
# `check` on a snapshot of each scenario root gives the same findings as on the root itself
"$top/tests/scenarios/make.sh" "$work/scen" > /dev/null || bad "scenarios/make.sh"
for d in "$work"/scen/*/; do
	s=$(basename "$d")
	"$bin" --root "$d" snapshot -o "$work/scen-$s.tar.gz" 2> /dev/null || { bad "snapshot of scenario $s"; continue; }
	same "scenario $s" "$d" "$work/scen-$s.tar.gz" check --format json
	same "scenario $s fix" "$d" "$work/scen-$s.tar.gz" fix modules
	same "scenario $s explain" "$d" "$work/scen-$s.tar.gz" explain --format json "mlx5_core 0000:1b:00.0: mlx5_cmd_out_err" \
		"NET/IB : Got completion from peer with error 12" "nvidia_peermem: invalid context" "ibv_reg_mr failed: Cannot allocate memory"
done
# --policy: the services of that policy are captured, so `check --policy` agrees on the snapshot
k=$work/scen/healthy-inbox-kubelet
cp -a "$work/scen/healthy-inbox" "$k" && mkdir -p "$k/proc/4343" && echo kubelet > "$k/proc/4343/comm"
sed 's/^Max locked memory .*/Max locked memory         65536                65536                bytes     /' "$k/proc/4242/limits" > "$k/proc/4343/limits"
printf '[memlock]\nmin = unlimited\nservices = kubelet\n' > "$work/kubelet.conf"
"$bin" --root "$k" snapshot --policy "$work/kubelet.conf" -o "$work/kubelet.tar.gz" 2> /dev/null || bad "snapshot --policy"
same "snapshot --policy" "$k" "$work/kubelet.tar.gz" check --policy "$work/kubelet.conf" --format json
"$bin" --root "$k" check --policy "$work/kubelet.conf" --only memlock.limit > "$work/out"
grep -q 'kubelet (pid 4343) runs with a memlock limit of 64 KiB' "$work/out" && ok || bad "the kubelet root does not show kubelet's limit"
"$bin" --root "$work/kubelet.tar.gz" check --policy "$work/kubelet.conf" --only memlock.limit > "$work/out"
grep -q 'kubelet (pid 4343) runs with a memlock limit of 64 KiB' "$work/out" && ok || bad "the snapshot lost kubelet's limit"
# device nodes become empty files; sysfs links stay links inside the snapshot
[ -f "$work/h100-ofed/dev/infiniband/uverbs0" ] && [ ! -s "$work/h100-ofed/dev/infiniband/uverbs0" ] && ok || bad "devnode not an empty file"
[ -L "$work/h100-ofed/sys/class/infiniband/mlx5_0" ] && ok || bad "class link not kept"
grep -q "gid_attrs/ndevs/0" "$work/h100-ofed/rdma-doctor/read-errors" && ok || bad "read errors not recorded"
grep -q "MLNX_OFED_LINUX-24.10" "$work/h100-ofed/rdma-doctor/commands/ofed_info-s" && ok || bad "captured command output not kept"
# counters by default, as check reads them (link.counters); --no-counters leaves them out: reading
# them costs a firmware command on some HCAs
[ -n "$(find "$work/h100-ofed" -path '*/ports/1/counters/*')" ] && ok || bad "counters not copied by default"
"$bin" --root "$top/examples/h100-ofed" snapshot --no-counters -o "$work/h100-nocounters" > /dev/null 2>&1
[ -d "$work/h100-nocounters/sys" ] && [ -z "$(find "$work/h100-nocounters" -path '*/ports/1/counters*')" ] && ok ||
	bad "counters copied with --no-counters"
"$bin" --root "$top/examples/h100-ofed" snapshot -o "$work/with-counters" --counters 2> /dev/null
[ -f "$(find "$work/with-counters" -path '*mlx5_0/ports/1/counters/symbol_error' | head -1)" ] && ok || bad "--counters did not copy the counters"
# the live machine
"$bin" snapshot -o "$work/live.tar.gz" 2> "$work/log" && ok || bad "live snapshot: $(cat "$work/log")"
"$bin" --root "$work/live.tar.gz" stack --format json > "$work/live.json" && ok || bad "stack on live snapshot"
grep -q '"kernel": "'"$(uname -r)"'"' "$work/live.json" && ok || bad "live snapshot kernel is not $(uname -r)"
# ... and checking it gives the live check's findings (a command absent here, like ofed_info, is
# replayed as absent, not as "not captured"); only the kernel log's line count may have grown
findings() { jq -c '.findings[] | [.check, .status, .subject, .message, .evidence, .fix]' |
	sed -E 's/in [0-9]+ kernel log lines/in N kernel log lines/'; }
"$bin" check --format json 2> /dev/null | findings > "$work/live-check"
"$bin" --root "$work/live.tar.gz" check --format json 2> /dev/null | findings > "$work/snap-check"
diff "$work/live-check" "$work/snap-check" > "$work/diff" && ok || { bad "live check != check of its snapshot"; head "$work/diff"; }
# ... and it holds what the checks read, nothing else: every member is one of the paths the model
# reads (allow-list below); a directory listing keeps names only (/proc's numeric ones), a file
# only stat'ed is an empty file, and a process's comm only when it is one of the policy's services
# (slurmd by default): no kallsyms (kernel addresses), keys, kmsg, config.gz, cmdline ...
cat > "$work/allow" << 'ALLOW'
^rdma-doctor(/(meta\.json|read-errors|devnodes|commands(/[^/]+)?))?$
^etc/ld\.so\.conf\.d(/[^/]+\.conf)?$
^(usr|usr/local|opt/nccl)(/(lib|lib64|lib/(x86_64|aarch64)-linux-gnu|cuda|cuda/lib64|cuda/targets|cuda/targets/(x86_64-linux|sbsa-linux)|cuda/targets/(x86_64-linux|sbsa-linux)/lib)(/libnccl\.so\.2\.[0-9.]+)?)?$
^(etc|run|lib|usr/lib|usr/local/lib)(/(modprobe\.d|modules-load\.d|rdma|infiniband|security|udev|systemd|sysimage|modules)(/[^/]+)*)?$
^etc/(hostname|os-release|modules|rdma-doctor\.conf|init\.d|init\.d/openibd)$
^usr(/lib(/os-release)?|/local)?$
^var(/lib(/dpkg(/status)?|/dkms(/[^/]+)*|/rpm(/[^/]+)*)?)?$
^dev(/infiniband(/[^/]+)?)?$
^proc(/(self|net|modules|uptime|[0-9]+(/(comm|limits|status|net|net/route))?|sys|sys/kernel|sys/kernel/(dmesg_restrict|hostname|osrelease|random|random/boot_id)))?$
^sys(/(bus|bus/pci|bus/pci/devices(/[^/]+)*|class|class/(infiniband|infiniband_mad|infiniband_verbs|net)(/[^/]+)*|devices(/[^/]+)*|module(/[^/]+)*|kernel|kernel/mm(/memory_peers(/[^/]+)*)?|kernel/config(/rdma_cm(/[^/]+)*)?))?$
ALLOW
tar tzf "$work/live.tar.gz" | sed 's#/$##' > "$work/members"
# the library directories roce.gid lists for libnccl.so.2.X.Y (the usual ones and those named in
# etc/ld.so.conf.d) are kept as directories and links, with no other name in them
tar tzvf "$work/live.tar.gz" | awk '$1 ~ /^[dl]/ { print $6 }' | sed 's#/$##' |
	grep -E '^(usr|opt|lib[^/]*)(/|$)' > "$work/libdirs"
[ -s "$work/members" ] && ! grep -vEf "$work/allow" "$work/members" | grep -vxFf "$work/libdirs" > "$work/extra" && ok ||
	bad "the live snapshot holds $(grep -c . "$work/extra") members the checks do not read, e.g. $(head -5 "$work/extra" | tr '\n' ' ')"
! grep -E '^proc/(kallsyms|keys|key-users|kmsg|kcore|config\.gz|iomem|ioports|vmallocinfo|timer_list|slabinfo|cmdline|sched_debug)$|^proc/[0-9]+/(environ|cmdline|maps|mem)$' \
	"$work/members" > "$work/secret" && ok || bad "the live snapshot holds $(tr '\n' ' ' < "$work/secret")"
tar xzOf "$work/live.tar.gz" rdma-doctor/read-errors | grep -E 'proc/(kmsg|kallsyms|keys)' && bad "the live snapshot tried to read /proc/kmsg" || ok
for c in $(grep -E '^proc/[0-9]+/comm$' "$work/members"); do
	[ "$(tar xzOf "$work/live.tar.gz" "$c")" = slurmd ] && ok || bad "the live snapshot holds $c of a process that is not a policy service"
done
# stat'ed or listed only: no bytes (a unit file beside the .wants directories, /proc's files, the
# comm of a process that is not a service); where the size is the answer (an empty udev rules file
# masks the package's) the bytes are kept; and the checks of the snapshot agree with the root's
st=$work/statroot
"$top/tests/scenarios/make.sh" "$work/statscen" modules-by-rdma-core > /dev/null && mv "$work/statscen/modules-by-rdma-core" "$st" &&
	mkdir -p "$st/etc/systemd/system/multi-user.target.wants" "$st/etc/udev/rules.d" "$st/proc/5151" || bad "the stat root"
echo 'ExecStart=/usr/bin/job --token=SECRET-IN-UNIT' > "$st/etc/systemd/system/job.service"
: > "$st/etc/udev/rules.d/90-rdma-ulp-modules.rules"
echo 'SECRET-IN-KALLSYMS' > "$st/proc/kallsyms"
echo 'secret-job' > "$st/proc/5151/comm"
"$bin" --root "$st" snapshot -o "$work/stat.tar.gz" 2> /dev/null || bad "snapshot of the stat root"
same "stat'ed files round trip" "$st" "$work/stat.tar.gz" check --format json
tar xzOf "$work/stat.tar.gz" | grep -a SECRET > /dev/null && bad "a file only stat'ed or listed kept its bytes: $(tar xzOf "$work/stat.tar.gz" | grep -a SECRET)" || ok
tar tzf "$work/stat.tar.gz" | grep -E '^proc/(kallsyms|5151/comm)$' && bad "the stat root's snapshot holds /proc beyond the processes' names" || ok
[ "$(tar xzOf "$work/stat.tar.gz" usr/lib/udev/rules.d/90-rdma-hw-modules.rules)" = "$(cat "$st/usr/lib/udev/rules.d/90-rdma-hw-modules.rules")" ] &&
	ok || bad "the bytes of a udev rules file the verdict depends on (its size) were not kept"
[ "$(tar tvzf "$work/stat.tar.gz" etc/udev/rules.d/90-rdma-ulp-modules.rules | awk '{print $3}')" = 0 ] && ok ||
	bad "an empty (masking) rules file is not empty in the snapshot"
# a command recorded as absent (<name>.error) is replayed as absent: with no ofed_info and no
# package database the stack is the inbox one (as seen on the real kernel in tests/vm)
cp -r "$top/examples/rxe-qemu" "$work/rxe-noofed"
mkdir -p "$work/rxe-noofed/rdma-doctor/commands" && echo ENOENT > "$work/rxe-noofed/rdma-doctor/commands/ofed_info-s.error"
"$bin" --root "$work/rxe-noofed" check --only stack.flavor --format json | jq -en 'input | .findings[0].status == "OK"' > /dev/null &&
	ok || bad "ofed_info-s.error ENOENT not replayed as an absent ofed_info"
# the snapshot a real kernel gave (tests/vm): our ibstat on it prints what rdma-core's ibstat printed
# in that VM, and it has the device nodes the kernel made
vmfx=$top/tests/vm/fixtures
diff <("$bin" --root "$vmfx/rxe0-snapshot.tar.gz" ibstat 2>&1) "$vmfx/ibstat.txt" > "$work/diff" && ok ||
	{ bad "ibstat of the real-kernel snapshot != the real ibstat"; head "$work/diff"; }
"$bin" --root "$vmfx/rxe0-snapshot.tar.gz" snapshot -o "$work/vm-again" 2> /dev/null
for n in $(awk '/^c/ {print $NF}' "$vmfx/dev-infiniband.txt"); do
	[ -f "$work/vm-again/dev/infiniband/$n" ] && ok || bad "real-kernel snapshot lacks /dev/infiniband/$n"
done
# the modes it recorded are the ones `ls -ln` showed in the VM (uverbs0/rdma_cm 0666, umad0/issm0 0600)
ls_modes() { awk '/^c/ { m = 0; for (i = 2; i <= 10; i++) { m = m * 2 + (substr($1, i, 1) != "-") }
	printf "%s %04o\n", $NF, m }' "$1" | sort; }
diff <(ls_modes "$vmfx/dev-infiniband.txt") <(awk '{print $1, $2}' "$work/vm-again/rdma-doctor/devnodes" | sort) > "$work/diff" &&
	ok || { bad "recorded device node modes != ls -ln in the VM"; cat "$work/diff"; }
# an existing non-empty directory is refused, nothing is written into it
mkdir -p "$work/full" && echo keep > "$work/full/file"
"$bin" --root "$top/examples/no-rdma" snapshot -o "$work/full" 2> /dev/null && bad "non-empty dir accepted" || ok
[ "$(ls "$work/full")" = file ] && ok || bad "non-empty dir was written to"
# an archive that cannot be written leaves nothing behind
"$bin" --root "$top/examples/no-rdma" snapshot -o /nonexistent-dir/x.tar.gz 2> /dev/null && bad "bad path accepted" || ok
# -o x.tar is a plain tar (not gzip, not a directory); other archive names are refused
file -b "$work/h100-ofed.tar" | grep -qi 'tar archive' && [ -f "$work/h100-ofed.tar" ] && ok || bad "-o x.tar: $(file -b "$work/h100-ofed.tar")"
file -b "$work/h100-ofed.tar.gz" | grep -qi 'gzip' && ok || bad "-o x.tar.gz: $(file -b "$work/h100-ofed.tar.gz")"
"$bin" --root "$top/examples/no-rdma" snapshot -o "$work/x.tar.xz" 2> "$work/log" && bad "-o x.tar.xz accepted" || ok
[ ! -e "$work/x.tar.xz" ] && grep -q '.tar.gz, .tgz and .tar' "$work/log" && ok || bad "-o x.tar.xz: $(cat "$work/log")"
# an existing file is refused unless --force, and is then replaced whole
echo keep > "$work/exists.tar.gz"
"$bin" --root "$top/examples/no-rdma" snapshot -o "$work/exists.tar.gz" 2> "$work/log" && bad "existing file replaced without --force" || ok
[ "$(cat "$work/exists.tar.gz")" = keep ] && grep -q -- '--force' "$work/log" && ok || bad "existing file: $(cat "$work/log")"
"$bin" --root "$top/examples/rxe-qemu" snapshot -o "$work/exists.tar.gz" --force 2> "$work/log" && ok || bad "--force: $(cat "$work/log")"
same "--force replaced the file" "$top/examples/rxe-qemu" "$work/exists.tar.gz" stack --format json
# an existing empty directory is filled; a directory is not an archive name
mkdir "$work/empty"
"$bin" --root "$top/examples/rxe-qemu" snapshot -o "$work/empty" 2> /dev/null && [ -f "$work/empty/rdma-doctor/meta.json" ] && ok || bad "existing empty directory not used"
mkdir "$work/d.tar.gz"
"$bin" --root "$top/examples/rxe-qemu" snapshot -o "$work/d.tar.gz" --force 2> /dev/null && bad "a directory replaced by an archive" || ok
# streamed: no directory is made, no link created, nothing renamed but the output into place
strace -f -qq -e trace=mkdir,mkdirat,symlink,symlinkat,rename,renameat,renameat2,linkat,unlink,unlinkat -o "$work/strace" \
	"$bin" --root "$top/examples/h100-ofed" snapshot -o "$work/streamed.tar.gz" 2> /dev/null
grep -vE '^[0-9]+ \+\+\+ exited' "$work/strace" > "$work/calls"
! grep -qE 'mkdir|symlink|unlink' "$work/calls" && [ "$(grep -cE 'link|rename' "$work/calls")" = 1 ] && grep -q 'streamed.tar.gz' "$work/calls" && ok ||
	{ bad "snapshot is not streamed: $(grep -c . "$work/calls") calls"; head -5 "$work/calls"; }
# a full disk (a 32 KiB tmpfs in a private mount namespace) is an error naming the file, leaving nothing
if unshare -m true 2> /dev/null; then
	mkdir "$work/small"
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs -o size=32k tmpfs "$1" && "$2" --root "$3" snapshot -o "$1/x.tar"; rc=$?; ls -A "$1" > "$1.left"; exit $rc' \
		sh "$work/small" "$bin" "$top/examples/h100-ofed" 2> "$work/log"; rc=$?
	[ $rc != 0 ] && grep -q 'x.tar.*No space left on device' "$work/log" && ! grep -q wrote "$work/log" && [ ! -s "$work/small.left" ] && ok ||
		bad "full disk: rc=$rc $(cat "$work/log") left: $(cat "$work/small.left")"
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs -o size=32k tmpfs "$1" && "$2" --root "$3" snapshot -o "$1/d"; rc=$?; ls -A "$1" > "$1.left"; exit $rc' \
		sh "$work/small" "$bin" "$top/examples/h100-ofed" 2> "$work/log"; rc=$?
	[ $rc != 0 ] && grep -q 'No space left on device' "$work/log" && [ ! -s "$work/small.left" ] && ok ||
		bad "full disk, directory output: rc=$rc $(cat "$work/log") left: $(cat "$work/small.left")"
else
	bad "unshare -m is not available (run as root)"
fi
# an unprivileged snapshot says what it could not capture: the kernel log (kernel.dmesg_restrict)
if [ "$(id -u)" = 0 ] && [ "$(cat /proc/sys/kernel/dmesg_restrict)" = 1 ]; then
	chmod 711 "$work" && mkdir -m 1777 "$work/nobody"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" snapshot -o "$work/nobody/s.tar.gz" 2> "$work/log" && ok || bad "unprivileged snapshot: $(cat "$work/log")"
	grep -q 'not captured: the kernel log' "$work/log" && ok || bad "unprivileged snapshot did not say the kernel log is missing: $(cat "$work/log")"
	tar xzOf "$work/nobody/s.tar.gz" rdma-doctor/meta.json | jq -e '.uid == 65534 and any(.not_captured[]; test("kernel log"))' > /dev/null &&
		ok || bad "meta.json lacks not_captured"
else
	bad "the unprivileged case needs root and kernel.dmesg_restrict=1"
fi
# RDMA_DOCTOR_ROOT means the same as --root
diff <(RDMA_DOCTOR_ROOT=$top/examples/rxe-qemu "$bin" ibstat) <("$bin" --root "$top/examples/rxe-qemu" ibstat) > /dev/null && ok || bad "RDMA_DOCTOR_ROOT"
# a corrupt archive is a clear error naming the file
head -c 2000 "$work/h100-ofed.tar.gz" > "$work/cut.tar.gz"
"$bin" --root "$work/cut.tar.gz" stack > /dev/null 2> "$work/log"; rc=$?
[ $rc != 0 ] && grep -q "cut.tar.gz" "$work/log" && ok || bad "truncated archive: rc=$rc $(cat "$work/log")"
ts_finalize
