#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The real-kernel tier: boots the Debian kernel under qemu with the real RDMA modules and a Soft-RoCE
# device (rxe0 on eth0), runs the scenarios of tests/vm/guest.sh with the freshly built rdma-doctor,
# and asserts here, on the host side, on what each step printed.  The same VM is then booted a second
# time with the same results directory (guest.sh reboot: the link steps only, about 10 s), so that
# link.counters meets the first boot's state file under a real boot_id change.  Needs (as packages):
# qemu-system-x86, linux-image-amd64, busybox-static, kmod, cpio, rdma-core, ibverbs-providers,
# ibverbs-utils, infiniband-diags, iproute2, systemd; tests/run-all.sh installs them.
# Usage: tests/vm/run.sh [BUILD_DIR] [--keep DIR] [--update-fixtures]
#   --keep DIR          keep the guest's output in DIR (default: a temporary directory)
#   --update-fixtures   copy the real data seen in the VM into tests/vm/fixtures/
# Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$top/build keep="" update=0
while [ $# -gt 0 ]; do
	case "$1" in
	--keep) keep=$2; shift ;;
	--update-fixtures) update=1 ;;
	*) build=$(cd "$1" && pwd) ;;
	esac
	shift
done
bin=$build/rdma-doctor
ts_init -v

kver=$(ls /boot/vmlinuz-* 2> /dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
for need in qemu-system-x86_64 busybox cpio depmod ibstat jq; do
	command -v "$need" > /dev/null || { bad "missing $need (tests/run-all.sh installs it as root)"; ts_finalize; }
done
[ -n "$kver" ] && [ -d "/lib/modules/$kver/kernel/drivers/infiniband" ] || { bad "no Debian kernel with RDMA modules in /boot"; ts_finalize; }
[ -x "$bin" ] || { bad "no $bin (build first)"; ts_finalize; }

ts_scratch vm
out=${keep:-$work/out}
rm -rf "$out" && mkdir -p "$out"
t0=$(date +%s)
asan_bin=$top/build-asan/rdma-doctor   # made by `make asan` (tests/run-all.sh builds it first)
[ -x "$asan_bin" ] || asan_bin=""
"$top/tests/vm/mkinitramfs.sh" "$kver" "$bin" "$work/initramfs.cpio.gz" $asan_bin > "$work/mk.log" 2>&1 ||
	{ cat "$work/mk.log"; bad "initramfs"; ts_finalize; }
"$top/tests/vm/boot.sh" "$kver" "$work/initramfs.cpio.gz" "$out"
rc=$?
echo "# booted $kver, the guest ran for $(($(date +%s) - t0)) s (qemu exit $rc)"
grep -q '^@@guest-done' "$out/console.log" && ok "guest ran every scenario" ||
	{ bad "the guest did not finish (qemu exit $rc); console:"; tail -30 "$out/console.log"; ts_finalize; }
S=$out/s
# The second boot of the same VM with the same results directory: the link state file the first
# boot wrote on the share is read under another boot_id (guest.sh's reboot phase: the link steps only)
t1=$(date +%s)
"$top/tests/vm/boot.sh" "$kver" "$work/initramfs.cpio.gz" "$out" reboot
rc=$?
echo "# second boot: the guest ran for $(($(date +%s) - t1)) s (qemu exit $rc)"
grep -q '^@@guest-done' "$out/console-reboot.log" && ok "second boot ran the link steps" ||
	{ bad "the second boot did not finish (qemu exit $rc); console:"; tail -30 "$out/console-reboot.log"; }

# ---- assertion helpers ----------------------------------------------------------------------------
rc_of() { cat "$S/$1.rc" 2> /dev/null || echo missing; }
expect_rc() { # STEP RC...
	local s=$1 r; r=$(rc_of "$1"); shift
	for want in "$@"; do [ "$r" = "$want" ] && { ok "$s exits $r"; return; }; done
	bad "$s exits $r, expected $*"; sed 's/^/    | /' "$S/$s.err" | head -5
}
# jqt STEP DESCRIPTION FILTER: the step's JSON output satisfies the jq filter
jqt() { # (jq -e on empty input exits 0: the output must hold exactly one JSON document)
	if [ "$(jq -s length "$S/$1.out" 2> /dev/null)" = 1 ] && jq -e "$3" "$S/$1.out" > /dev/null 2>&1; then ok "$1: $2"
	else bad "$1: $2"; jq -c "${4:-.}" "$S/$1.out" 2> /dev/null | head -c 1500 | sed 's/^/    | /'; echo; fi
}
has() { grep -qE -- "$3" "$S/$1.${4:-out}" && ok "$1: $2" || { bad "$1: $2 (no /$3/)"; head -8 "$S/$1.${4:-out}" | sed 's/^/    | /'; }; }
hasnt() { grep -qE -- "$3" "$S/$1.${4:-out}" && { bad "$1: $2 (/$3/ found)"; grep -E -- "$3" "$S/$1.${4:-out}" | head -3; } || ok "$1: $2"; }
status_of() { printf '[.findings[] | select(.check == "%s"'"%s"') | .status]' "$1" "${2:-}"; }
nine="mlx5_core mlx5_ib ib_core ib_uverbs ib_cm rdma_cm rdma_ucm ib_umad ib_ipoib"
modules_in() { # STEP: each of the nine in that /proc/modules listing
	local m missing=""
	for m in $nine; do grep -q "^$m " "$S/$1.out" || missing="$missing $m"; done
	[ -z "$missing" ] && ok "$1: all nine modules loaded" || bad "$1: not loaded:$missing"
}
modules_none() {
	local m there=""
	for m in $nine; do grep -q "^$m " "$S/$1.out" && there="$there $m"; done
	[ -z "$there" ] && ok "$1: none of the nine loaded" || bad "$1: loaded:$there"
}
# no step may crash or hang: 124 is timeout(1)'s, 128+N death by signal N
for f in "$S"/*.rc; do
	r=$(cat "$f"); n=$(basename "$f" .rc)
	[ "$r" -ge 124 ] && [ "$r" -lt 160 ] && bad "$n: exit $r (killed or timed out)"
done

# ---- 1. fresh host: nothing loaded, no modules-load.d; fix modules --apply; "boot" ------------------
modules_none fresh-modules
expect_rc fresh-check 3            # no RDMA device: the check says there is nothing to check
jqt fresh-check "modules.loaded SKIPs with no RDMA device" "$(status_of modules.loaded) == [\"SKIP\"]"
expect_rc fresh-nohw-fix-plan 0
has fresh-nohw-fix-plan "no RDMA hardware: fix plans nothing, as check says" '^nothing to change: no RDMA hardware'
expect_rc fresh-fix-plan 0
has fresh-fix-plan "the plan is a new rdma.conf" '^\+\+\+ /etc/modules-load.d/rdma.conf'
expect_rc fresh-fix-apply 0
has fresh-fix-apply "it wrote rdma.conf" '^wrote /etc/modules-load.d/rdma.conf'
# loaded now: what rdma_rxe needs and what fix loaded; mlx5_core/mlx5_ib have no hardware here
for m in ib_core ib_uverbs ib_cm rdma_cm rdma_ucm ib_umad ib_ipoib; do
	grep -q "^$m " "$S/fresh-fix-modules.out" || bad "fresh-fix-modules: $m not loaded"
done && ok "fresh-fix-modules: the seven that drive rxe0 loaded"
for m in $nine; do grep -qx "$m" "$S/fresh-fix-conf.out" || bad "rdma.conf lacks $m"; done && ok "rdma.conf lists the nine"
has fresh-fix-again "a second --apply changes nothing" '^nothing to change'
modules_none boot-before
expect_rc boot-modules-load 0
modules_in boot-after

# ---- 2. healthy ---------------------------------------------------------------------------------------
for c in modules.loaded modules.persistent devnodes.present ports.state stack.flavor stack.mixed memlock.limit kernel.log; do
	jqt healthy-check "$c OK" "$(status_of "$c") == [\"OK\"]" "$(status_of "$c")"
done
jqt healthy-check "no FAIL" '[.findings[] | select(.status == "FAIL")] == []' '[.findings[] | select(.status == "FAIL")]'
# eth0 has MTU 1500, so RoCE's active MTU is 1024: roce.mtu warns, as it should
jqt healthy-check "roce.mtu WARN on rxe0 port 1 (eth0 MTU 1500)" \
	"$(status_of roce.mtu ' and .subject == "rxe0 port 1"') == [\"WARN\"]"
expect_rc healthy-check 1
jqt healthy-stack "rxe0 is an inbox device with 1 port" \
	'[.. | objects | select(.name? == "rxe0")] | length > 0'
# roce.gid / gids on a real GID table: the rows are sysfs' own, NCCL's choice is the IPv4 RoCE v2 GID
awk -F'\t' 'NR > 2 && $1 == "rxe0" { print $3, $4, $(NF-1), $NF }' "$S/healthy-gids.out" > "$work/gids-ours"
diff "$work/gids-ours" "$S/healthy-gid-sysfs.out" > "$work/d" && [ -s "$work/gids-ours" ] &&
	ok "healthy-gids: the rows sysfs holds (INDEX GID VER DEV)" || { bad "healthy-gids != sysfs"; head -10 "$work/d"; }
has healthy-gids "ends with n_gids_found" '^n_gids_found=[1-9]'
jqt healthy-gids-json "NCCL's choice on rxe0 is the RoCE v2 GID of 10.0.2.15" \
	'[.nccl_gids[] | select(.device == "rxe0" and .ipv4 == "10.0.2.15" and .type == "RoCE v2" and .usable)] | length == 1'
jqt healthy-gid-check "roce.gid OK, naming 10.0.2.15" \
	"$(status_of roce.gid) == [\"OK\"] and ([.findings[] | select(.check == \"roce.gid\") | .message] | join(\" \") | test(\"10.0.2.15\"))"
jqt gid-forced-check "NCCL_IB_GID_INDEX=0 (fe80::) FAILs, naming the index to use" \
	"$(status_of roce.gid ' and .subject == "rxe0 port 1"') == [\"FAIL\"] and ([.findings[] | select(.check == \"roce.gid\") | .message] | join(\" \") | test(\"should use index\"))"
jqt gid-noaddr-check "eth0 without IPv4: roce.gid WARNs (only link-local/IPv6 GIDs)" \
	"$(status_of roce.gid ' and .subject == "rxe0 port 1"') == [\"WARN\"]"
# ibstat / ibstatus: ours prints what rdma-core's prints on the same kernel (the pid in ibpanic aside)
for f in "$S"/ibstat-ours*.out "$S"/ibstatus-ours*.out; do
	o=$(basename "$f" .out); r=${o/ours/real}
	norm() { sed -E 's/^(ibpanic|ibwarn): \[[0-9]+\]/\1: [PID]/' "$S/$1.out" "$S/$1.err"; cat "$S/$1.rc"; }
	diff <(norm "$o") <(norm "$r") > "$work/d" && ok "$o = $r" || { bad "$o != $r"; head -10 "$work/d"; }
done
# probe: a real RDMA WRITE on rxe0, over RoCE v2, with the active MTU ibv_devinfo reports
expect_rc healthy-probe 0
jqt healthy-probe "passes" '.result == "pass" and .error == null'
jqt healthy-probe "rxe0 port 1 verified its RDMA WRITE" \
	'[.ports[] | select(.device == "rxe0" and .port == 1 and .verified == true and .bytes > 0)] | length == 1'
jqt healthy-probe "chose a RoCE v2 GID" '.ports[0].gid_type == "RoCE v2" and (.ports[0].gid | test("::ffff:10.0.2.15"))'
mtu=$(awk '/active_mtu:/ {print $2; exit}' "$S/healthy-ibv_devinfo.out")
jqt healthy-probe "active_mtu = ibv_devinfo's ($mtu)" ".ports[0].active_mtu == ${mtu:-0}"
jqt healthy-probe "every step ok and timed" '[.ports[0].steps[] | select(.ok != true or .usec == null)] == []'
has healthy-probe-text "says PASS" 'PASS'
expect_rc healthy-check-probe 1
jqt healthy-check-probe "probe.loopback OK in check --probe" "$(status_of probe.loopback) == [\"OK\"]"

# ---- 2b. link.counters on the real kernel: two runs with probe traffic between, then a second boot -----
# hw STEP NAME: rxe0 port 1's hw_counters/NAME as the step read it; kept STEP NAME: as the state file keeps it
hw() { sed -n "s|.*/hw_counters/$2:||p" "$S/$1.out" 2> /dev/null; }
kept() { awk -v n="$2" '$1 == "h" && $2 == "rxe0" && $3 == 1 && $4 == n { v = $5 } END { if (v != "") print v }' "$S/$1.out" 2> /dev/null; }
lc='[.findings[] | select(.check == "link.counters")]'
no_alarm='.summary.status == "OK" and [.findings[] | select(.status != "OK")] == []'
bid1=$(cat "$S/link-boot-id.out" 2> /dev/null) bid2=$(cat "$S/reboot-boot-id.out" 2> /dev/null)
has link-boot-id "a boot_id (the kernel's random UUID)" '^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$'
[ "$(rc_of link-state-before)" = 0 ] && [ ! -s "$S/link-state-before.out" ] &&
	ok "link-state-before: no state file on the share before run 1" || bad "link-state-before: a state file before run 1 (or no step)"
expect_rc link-counters-1 0
jqt link-counters-1 "run 1: OK \"1 port: baseline recorded (first sample)\", the state file written" \
	"$lc | length == 1 and .[0].status == \"OK\" and .[0].message == \"1 port: baseline recorded (first sample)\" and
	 .[0].evidence[0].value == \"written\" and (.[0].evidence[0].path | endswith(\".link-state\"))" "$lc"
has link-state-1 "the state file after run 1 holds this boot's boot_id" "^sample counters [0-9]+ $bid1\$"
has link-state-1 "... and run 1's time" '^sample counters 1764460800 '
sed -nE 's|.*/hw_counters/([^:]+):(.*)|h rxe0 1 \1 \2|p' "$S/link-hw-1.out" | grep -v ' lifespan ' | LC_ALL=C sort > "$work/hw1"
grep '^h ' "$S/link-state-1.out" | LC_ALL=C sort > "$work/kept1"
[ -s "$work/hw1" ] && diff "$work/hw1" "$work/kept1" > "$work/d" &&
	ok "link-state-1: run 1 kept rxe0's $(wc -l < "$work/hw1") hw_counters as sysfs shows them (lifespan aside)" ||
	{ bad "link-state-1: the kept hw_counters are not sysfs' (< sysfs, > kept)"; head -10 "$work/d"; }
for c in sent_pkts rcvd_pkts; do
	a=$(hw link-hw-1 $c) b=$(hw link-hw-2 $c)
	[ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ] && ok "rxe0 hw_counters/$c moved with the probe's traffic ($a -> $b)" ||
		bad "rxe0 hw_counters/$c did not move across the probe (${a:-none} -> ${b:-none})"
done
expect_rc link-counters-2 0
jqt link-counters-2 "run 2 compares with run 1's sample: no error counter rose in the 1 h since" \
	"$lc | length == 1 and .[0].status == \"OK\" and .[0].message == \"1 port: no error counter rose in 1h 0m (since 2025-11-30T00:00:00Z)\" and
	 .[0].evidence[0].value == \"boot_id $bid1, time 1764460800\"" "$lc"
jqt link-counters-2 "the probe's traffic raises no WARN or FAIL" "$no_alarm" '.findings'
has link-state-after "the state file after run 2: its time" '^sample counters 1764464400 '
a=$(kept link-state-after sent_pkts) b=$(hw link-hw-2 sent_pkts)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "link-state-after: run 2 kept the moved sent_pkts ($a)" || bad "link-state-after: sent_pkts kept ${a:-none}, sysfs $b"
jqt link-counters-down "a kept sent_pkts above today's: it went down, a new baseline for it, no alarm" \
	"$lc | length == 1 and .[0].status == \"OK\" and
	 (.[0].message | test(\"^1 port: no error counter rose in [0-9hms ]+ [(]since 2025-11-30T0[01]:00:00Z[)]; 1 went down [(]cleared: a new baseline[)]\$\"))" "$lc"
# the second boot
[ -n "$bid1" ] && [ -n "$bid2" ] && [ "$bid1" != "$bid2" ] && ok "second boot: another boot_id ($bid2, was $bid1)" ||
	bad "second boot: boot_id ${bid2:-none}, the first boot's ${bid1:-none}"
[ -s "$S/link-state-after.out" ] && diff "$S/link-state-after.out" "$S/reboot-state-before.out" > "$work/d" &&
	ok "second boot: it finds the state file the first boot left on the share" || { bad "second boot: not the first boot's state file"; head "$work/d"; }
a=$(hw reboot-hw sent_pkts) b=$(kept reboot-state-before sent_pkts)
[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] && ok "second boot: rxe0's counters start again (sent_pkts $a, kept $b)" ||
	bad "second boot: sent_pkts ${a:-none}, kept ${b:-none}: not lower"
expect_rc reboot-counters 0
jqt reboot-counters "link.counters: OK, a new baseline because the host booted, naming both boot_ids" \
	"$lc | length == 1 and .[0].status == \"OK\" and .[0].evidence[0].value == \"written\" and
	 .[0].message == \"1 port: new baseline: the host booted since the last sample (boot_id $bid2, was $bid1)\"" "$lc"
jqt reboot-counters "counters lower after the reboot raise no WARN or FAIL" "$no_alarm" '.findings'
has reboot-state-after "the state file now holds the second boot's boot_id" "^sample counters [0-9]+ $bid2\$"
has reboot-state-after "... and its time" '^sample counters 1764468000 '

# ---- 3. the snapshot taken inside, checked here ----------------------------------------------------------
expect_rc snap-take 0
# link.counters, link.flaps and roce.congestion compare with the sample the live run kept
# (/var/lib/rdma-doctor), which a check of the snapshot here has not: by design they differ (the
# link-* steps test the first two, tests/scenarios' two-sample roots the third)
findings() { jq -c '.findings[] | select(.check != "link.counters" and .check != "link.flaps" and .check != "roce.congestion") | [.check, .status, .subject, .message, .evidence, .fix]' "$1" |
	sed -E 's/in [0-9]+ kernel log lines/in N kernel log lines/'; } # the log may grow in between
if [ -f "$out/snap.tar.gz" ]; then
	"$bin" --root "$out/snap.tar.gz" check --format json > "$work/host-check.json" 2> "$work/host-check.err"
	diff <(findings "$S/snap-live-check.out") <(findings "$work/host-check.json") > "$work/d" &&
		ok "check --root SNAPSHOT here = the live check inside" || { bad "snapshot check differs from the live one"; head -20 "$work/d"; }
	"$bin" --root "$out/snap.tar.gz" ibstat > "$work/host-ibstat" 2>&1
	diff "$S/ibstat-real.out" "$work/host-ibstat" > "$work/d" && ok "ibstat --root SNAPSHOT here = real ibstat inside" ||
		{ bad "ibstat of the snapshot differs"; head "$work/d"; }
else
	bad "no snapshot came out of the VM"
fi

# ---- 4. memlock ------------------------------------------------------------------------------------------
jqt memlock64-check "memlock.limit FAILs at 64 KiB" "$(status_of memlock.limit) | index(\"FAIL\") != null"
jqt memlock64-check "names 64 KiB" '[.findings[] | select(.check == "memlock.limit") | .message] | join(" ") | test("64 KiB")'
expect_rc memlock64-probe 2
jqt memlock64-probe "fails at MR registration" \
	'.result == "fail" and ([.ports[0].steps[] | select(.ok == false) | .name] | .[0] | test("mr|reg"; "i"))'
jqt memlock64-probe "explains RLIMIT_MEMLOCK and shows 64 KiB" \
	'[.ports[0].steps[] | select(.ok == false) | (.detail // "") + " " + (.error // "")] | join(" ") | (test("RLIMIT_MEMLOCK") and test("64 KiB"))'
has memlock64-probe-text "the text names the memlock limit" 'RLIMIT_MEMLOCK'
jqt memlock64-check-probe "check --probe: probe.loopback FAIL" "$(status_of probe.loopback) == [\"FAIL\"]"
jqt memlockinf-check "memlock.limit OK when unlimited" "$(status_of memlock.limit) == [\"OK\"]"
expect_rc memlockinf-probe 0
jqt memlockinf-probe "passes unprivileged with memlock unlimited" '.result == "pass" and .ports[0].verified == true'

# ---- 4b. uverbs0 at 0600 -----------------------------------------------------------------------------
jqt perm-check "devnodes.present WARNs that uverbs0 is 0600" \
	'[.findings[] | select(.check == "devnodes.present" and .status == "WARN" and (.subject | startswith("uverbs"))) | .message] | join("") | test("uverbs0.*0600")'
expect_rc perm-probe 2
# libibverbs reports the node it may not open as ENOENT, not EACCES: the probe looks at the node
jqt perm-probe "probe as another user fails at open, naming uverbs0's mode" \
	'[.ports[0].steps[] | select(.ok == false)] | .[0] | (.name == "open" and (.detail | test("uverbs0 is mode 0600")))'
if [ -f "$out/perm-snap.tar.gz" ]; then
	"$bin" --root "$out/perm-snap.tar.gz" check --only devnodes.present --format json > "$work/perm.json" 2> /dev/null
	diff <(findings "$S/perm-check.out") <(findings "$work/perm.json") > "$work/d" &&
		ok "the snapshot keeps the node's mode: same finding here" || { bad "perm snapshot differs"; cat "$work/d"; }
else
	bad "no perm-snap.tar.gz came out of the VM"
fi

# ---- 5. ib_umad unloaded ---------------------------------------------------------------------------------
hasnt umad-devnodes "umad0 gone" 'umad0'
hasnt umad-devnodes "issm0 gone" 'issm0'
has umad-devnodes "uverbs0 still there" 'uverbs0'
jqt umad-check "modules.loaded names ib_umad" \
	'[.findings[] | select(.check == "modules.loaded" and .status == "FAIL") | .subject] == ["ib_umad"]'
jqt umad-check "devnodes.present names umad and issm" \
	'[.findings[] | select(.check == "devnodes.present" and .status != "OK") | .message] | join(" ") | (test("umad") and test("issm"))'
# What really happens without ib_umad (rdma-core 44): ibstat still answers (it reads sysfs), tools
# that open a UMAD port fail.  The guide says ibstat fails; the real kernel says otherwise.
expect_rc umad-ibstat-real 0
has umad-perfquery "perfquery cannot open a UMAD port" "can't open UMAD port" err

# ---- 6. rdma_ucm unloaded -----------------------------------------------------------------------------------
hasnt ucm-devnodes "rdma_cm node gone" 'rdma_cm'
jqt ucm-check "modules.loaded names rdma_ucm" \
	'[.findings[] | select(.check == "modules.loaded" and .status == "FAIL") | .subject] | index("rdma_ucm") != null'
jqt ucm-check "devnodes.present names the missing rdma_cm" \
	'[.findings[] | select(.check == "devnodes.present" and .status == "FAIL") | .subject] | index("rdma_cm") != null'

# ---- 6c. watch on the real kernel ---------------------------------------------------------------------------
# what decides which devices watch opens: an open rxe context (ibv_asyncwatch's) holds `rdma link delete`
has rxe-asyncwatch-alive "ibv_asyncwatch holds rxe0's uverbs node open" '^1$'
has rxe-delete-asyncwatch "an open rxe context holds rdma link delete: still running (D state) after 3 s" '^running D$'
has rxe-delete-asyncwatch "... and it completes once that context is closed" '^rc=0 '
# ms_of STEP: the ms a timed step measured (nothing when it timed out or did not run)
ms_of() { local v; v=$(cat "$S/$1.out" 2> /dev/null); [[ $v =~ ^[0-9]+$ ]] && echo "$v"; }
within() { # STEP MS DESCRIPTION
	local v; v=$(ms_of "$1")
	[ -n "$v" ] && [ "$v" -le "$2" ] && ok "$1: $3 (in $v ms)" || bad "$1: $3 within $2 ms: $(cat "$S/$1.out" 2> /dev/null || echo 'no step')"
}
prom_has() { grep -qE -- "$3" "$S/$1.prom" 2> /dev/null && ok "$1: $2" || { bad "$1: $2 (no /$3/ in the textfile)"; grep -E 'ports.state|port_state|kernel.log' "$S/$1.prom" 2> /dev/null | head -5 | sed 's/^/    | /'; }; }
prom_hasnt() { [ -f "$S/$1.prom" ] && ! grep -qE -- "$3" "$S/$1.prom" && ok "$1: $2" || bad "$1: $2 (/$3/ in the textfile, or no textfile)"; }
port_fail='^rdma_doctor_check_status\{check="ports.state",subject="rxe0 port 1"\} 2$'
port_active='^rdma_doctor_port_state_id\{device="rxe0",port="1"\} 4$'
rxe_there='^rdma_doctor_device_info\{device="rxe0",'
has watch "the first line says rxe0 is not followed by verbs events, and why" \
	'^[^ ]+ verbs events: followed on no device; not on rxe0 \(on eth0, no PCI function: .*open context\)'
awk '/ verbs events: / { sub(/^[^ ]+ /, ""); if ($0 == last) bad = 1; last = $0; n++ } / judged / { j++ }
	END { exit !(n >= 1 && n < j && !bad) }' "$S/watch.out" 2> /dev/null &&
	ok "watch.out: the verbs line is said when the set of devices changes, not at every judgement" ||
	bad "watch.out: the verbs line repeats: $(grep -c ' verbs events: ' "$S/watch.out" 2> /dev/null) of $(grep -c ' judged ' "$S/watch.out" 2> /dev/null) judgements"
within watch-start 30000 "the first textfile shows rxe0 port 1 ACTIVE"
within watch-down 5000 "ip link set eth0 down: the textfile shows ports.state FAIL for rxe0 port 1"
within watch-down-settled 3000 "... and rxe0 port 1 DOWN once it followed its netdev (read again if it lagged)"
prom_has watch-down-settled "... still ports.state FAIL" "$port_fail"
has watch "... a change line names the netdev event" '^[^ ]+ change ports.state rxe0 port 1: none -> FAIL \(netdev eth0: down'
within watch-up 5000 "ip link set eth0 up: ports.state FAIL gone"
prom_has watch-up "... rxe0 port 1 ACTIVE again" "$port_active"
within watch-kmsg 5000 "a mlx5_core 'Fatal error' line written to /dev/kmsg: kernel.log FAIL in the textfile"
prom_has watch-kmsg "... its finding is the Fatal error signature's" '^rdma_doctor_check_status\{check="kernel.log",subject="Fatal error"\} 2$'
expect_rc watch-alive-delete 0
has watch-delete "rdma link delete rxe0 while watch runs: it does not wait for watch" '^done$'
has watch-delete "... exits 0 within 3 s" '^rc=0 ms=([0-9]{1,3}|[0-2][0-9]{3})$'
within watch-deleted 5000 "... rxe0 gone from the textfile"
prom_has watch-deleted "... no RDMA hardware left" '^rdma_doctor_rdma_hardware 0$'
within watch-added 5000 "rdma link add rxe0: back in the textfile, port 1 ACTIVE"
has watch-rmmod-rxe "rmmod rdma_rxe with rxe0 in place, while watch runs: it does not wait for watch" '^done$'
has watch-rmmod-rxe "... and succeeds" '^rc=0 '
within watch-rmmod-rxe-prom 5000 "... rxe0 gone from the textfile"
expect_rc watch-rmmod-uverbs 0
has watch "rmmod ib_uverbs is an event: every check re-run" '^[^ ]+ judged every check \(module ib_uverbs: remove\)'
prom_has watch-rmmod-uverbs "... the textfile says there is no RDMA hardware" '^rdma_doctor_rdma_hardware 0$'
expect_rc watch-alive-rmmod 0
within watch-modprobe 15000 "the modules loaded again and rxe0 added: port 1 ACTIVE in the textfile"
expect_rc watch-modprobe-ok 0
flaps=$(awk '{print $1}' "$S/watch-flaps.out" 2> /dev/null) flap_ms=$(awk '{print $2}' "$S/watch-flaps.out" 2> /dev/null)
netdev=$(sed -nE 's/.* stopped: [0-9]+ judgements?; events: ([0-9]+) netdev, .*/\1/p' "$S/watch.out" 2> /dev/null)
# every eth0 transition is one rtnetlink change (IFF_UP flips): the timed down and up, then 2 per flap
[ -n "$flaps" ] && [ -n "$netdev" ] && [ "$netdev" -ge $((2 + 2 * flaps)) ] &&
	ok "$flaps flaps ($((2 * flaps)) transitions in $flap_ms ms): every transition reached watch ($netdev netdev changes counted, $((2 + 2 * flaps)) made)" ||
	bad "flaps: ${netdev:-no} netdev changes counted by watch, $((2 + 2 * ${flaps:-0})) made"
prom_has watch-flaps "after the flaps, the textfile shows the last state: rxe0 port 1 ACTIVE" "$port_active"
prom_hasnt watch-flaps "... and no ports.state FAIL" "$port_fail"
rss0=$(cat "$S/watch-rss-before.out" 2> /dev/null) rss1=$(cat "$S/watch-rss-after.out" 2> /dev/null)
[ -n "$rss0" ] && [ -n "$rss1" ] && [ "$rss0" -ge 1024 ] && [ $((rss1 - rss0)) -lt 2048 ] && ok "watch's RSS: $rss0 KiB before the flaps, $rss1 KiB after" ||
	bad "watch's RSS: ${rss0:-?} KiB before the flaps, ${rss1:-?} KiB after (2 MiB more, under 1 MiB, or unknown)"
read -r c0 c1 comm < "$S/watch-idle.out" 2> /dev/null
[ "${comm:-}" = rdma-doctor ] && [ $((c1 - c0)) -le 5 ] && ok "idle 10 s: $((c1 - c0)) clock ticks of CPU (at most 5: 0.05 s)" ||
	bad "idle 10 s: $((${c1:-0} - ${c0:-0})) clock ticks of CPU of ${comm:-nothing} (over 0.05 s, or not watch's)"
[ "$(cat "$S/watch-exit.rc" 2> /dev/null)" = 0 ] && ok "SIGTERM: watch exits 0" || bad "SIGTERM: watch exits $(cat "$S/watch-exit.rc" 2> /dev/null || echo '(not run)')"
has watch "... saying what it saw" '^[^ ]+ stopped: [0-9]+ judgements; events: '
[ -f "$S/watch.err" ] && [ ! -s "$S/watch.err" ] && ok "watch: nothing on standard error" || bad "watch's standard error: $(head -3 "$S/watch.err" 2> /dev/null)"
echo "# watch in the guest (TCG; from the command to the textfile, /proc/uptime in 10 ms steps, polled every 20 ms):" \
	"start $(ms_of watch-start) ms, eth0 down $(ms_of watch-down) ms, up $(ms_of watch-up) ms, kernel line $(ms_of watch-kmsg) ms," \
	"rxe0 deleted $(ms_of watch-deleted) ms, added $(ms_of watch-added) ms; RSS $rss0 -> $rss1 KiB; idle 10 s: $((${c1:-0} - ${c0:-0})) ticks"

# ---- 7. probe failing cleanly -----------------------------------------------------------------------------
expect_rc portdown-probe 2
jqt portdown-probe "port down: a clear reason" '.result == "fail" and (.error | test("Active|DOWN|down"))'
expect_rc nolib-probe 2
has nolib-probe "no libibverbs: says so" 'libibverbs'
jqt nolib-check-probe "check --probe without libibverbs: probe.loopback FAIL, the rest still reported" \
	"$(status_of probe.loopback) == [\"FAIL\"] and ([.findings[] | select(.check == \"modules.loaded\")] | length > 0)"
expect_rc badlib-probe 2
has badlib-probe "broken libibverbs: says so" 'libibverbs'
expect_rc nodev-probe 2
has nodev-probe "no device: says so" 'no RDMA device'
jqt nodev-probe-json "no device: JSON result fail" '.result == "fail" and .ports == []'

# ---- the ASan+UBSan build on the real stack: same answers, no sanitizer report -------------------------
if [ -n "$asan_bin" ]; then
	expect_rc asan-probe 0
	has asan-probe "ASan build: RDMA WRITE verified" 'PASS rxe0/1'
	expect_rc asan-check-probe 1
	expect_rc asan-memlock64-probe 2
	expect_rc asan-snapshot 0
	expect_rc asan-ibstat 0
	expect_rc asan-fix 0
	expect_rc asan-portdown-probe 2
	expect_rc asan-nolib-probe 2
	for f in "$S"/asan-*.err; do
		grep -qE 'Sanitizer|runtime error' "$f" && { bad "$(basename "$f" .err): sanitizer report"; head -20 "$f"; } || ok "$(basename "$f" .err): no sanitizer report"
	done
else
	echo "# no build-asan/rdma-doctor: the sanitizer steps were not run (make asan)"
fi

# ---- 8. rdma_rxe before crc32_generic ---------------------------------------------------------------
hasnt crc-auto-before "crc32_generic not loaded at first" '^crc32_generic '
expect_rc crc-auto-link-add 0       # the kernel's crypto API loads crc32_generic by itself ...
has crc-auto-after "... and crc32_generic is loaded after rdma link add" '^crc32_generic '
expect_rc crc-link-add 1            # ... unless it cannot run modprobe: then rxe cannot start
has crc-link-add "rdma link add says No such file or directory" 'No such file or directory' err
has crc-dmesg "the kernel says why" 'rdma_rxe: failed to init crc32 algorithm err:-2'
jqt crc-check "kernel.log WARNs with the real line" \
	'[.findings[] | select(.check == "kernel.log" and .status == "WARN") | .evidence[].value] | join(" ") | test("failed to init crc32 algorithm")'
jqt crc-explain "explain: the rxe crc32 signature, its cause confirmed" \
	'any(.matches[]; .signature == "kernel.rxe_crc32" and any(.causes[]; .verdict == "confirmed"))' '[.matches[] | {signature, causes}]'

if [ $update = 1 ]; then
	fx=$top/tests/vm/fixtures
	mkdir -p "$fx"
	cp "$out/snap.tar.gz" "$fx/rxe0-snapshot.tar.gz"
	cp "$S/facts-modules.out" "$fx/proc-modules.txt"
	cp "$S/facts-devnodes.out" "$fx/dev-infiniband.txt"
	cp "$S/umad-devnodes.out" "$fx/dev-infiniband-no-umad.txt"
	cp "$S/ibstat-real.out" "$fx/ibstat.txt"
	cp "$S/healthy-ibv_devinfo.out" "$fx/ibv_devinfo-v.txt"
	cp "$S/facts-limits.out" "$fx/proc-self-limits.txt"
	echo "# fixtures updated in $fx"
fi
ts_finalize
