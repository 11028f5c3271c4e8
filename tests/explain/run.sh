#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# explain tests.  For every signature (tests/explain/cases.txt): its real message finds it, on a
# scenario root where its first cause is present that cause is confirmed (exit 1), and where it
# is absent it is ruled out; every signature of the table has a case.  Each scenario root's own
# error line confirms that scenario's cause and no other (tests/explain/scenarios.txt).  Then:
# causes judged by their subject (uverbs 0600, no RDMA device), the deadline, text with no known
# message, a long mixed log (thousands of lines of noise, several signatures, each reported once
# with its line numbers), binary junk, and a 100 MB input, of text and of empty lines.
# Usage: tests/explain/run.sh [BUILD_DIR] [BIG_MB]      Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
big=${2:-100}
bin=$build/rdma-doctor
. "$top/tests/lib.sh"
real=$ts_real
ts_scratch explain
ts_init
"$top/tests/scenarios/make.sh" "$work/roots" > /dev/null || bad "scenarios/make.sh"
"$top/tests/topo/make.sh" "$work/roots/topo" > /dev/null || bad "topo/make.sh" # the GPU servers' PCIe trees: topo/NAME
export NO_COLOR=1
kver=6.1.0-31-amd64
# modules-load-unknown: modules-load.d still lists nv_peer_mem (the module nvidia_peermem replaced),
# which modules.dep of the running kernel does not have
r=$work/roots/modules-load-unknown; cp -a "$work/roots/healthy-inbox" "$r"
mkdir -p "$r/lib/modules/$kver" "$r/etc/modules-load.d"
for m in mlx5/core/mlx5_core mlx5/mlx5_ib core/ib_core core/ib_uverbs core/ib_cm core/rdma_cm core/rdma_ucm core/ib_umad core/iw_cm ulp/ipoib/ib_ipoib; do
	echo "kernel/drivers/infiniband/$m.ko:"
done > "$r/lib/modules/$kver/modules.dep"
echo "updates/dkms/nvidia-peermem.ko:" >> "$r/lib/modules/$kver/modules.dep"
printf 'nv_peer_mem\n' > "$r/etc/modules-load.d/gpu.conf"

seen=()
while IFS=$'\t' read -r sig msg present absent; do
	case "$sig" in ''|'#'*) continue ;; esac
	seen+=("$sig")
	if [ "${msg#@real:}" != "$msg" ]; then
		ts_have_real || { ts_skip "$sig (real capture ${msg#@real:})" "$ts_real_reason"; continue; }
		cp "$real/${msg#@real:}" "$work/msg" || { bad "$sig: real fixture ${msg#@real:} missing"; continue; }
	else
		printf '%b\n' "$msg" > "$work/msg"
	fi
	for kind in present absent; do
		if [ "${!kind}" = - ]; then # nothing here can tell: recognised, every cause "cannot tell" with a note, exit 3
			"$bin" --root "$work/roots/healthy-inbox" explain --format json - < "$work/msg" > "$work/out.json"; rc=$?
			jq -en --arg s "$sig" 'input | .matches[] | select(.signature == $s) | .causes | length > 0 and
				all(.verdict == "cannot tell" and .note != null)' "$work/out.json" > /dev/null && [ $rc = 3 ] &&
				ok || bad "$sig: a cause told on a host that cannot tell it (exit $rc)"
			continue
		fi
		root=$work/roots/${!kind}
		if ts_skipped_scenario "$work/roots" "${!kind%+dmesg}"; then ts_skip "$sig on ${!kind}" "$ts_seed_reason"; continue; fi
		case "${!kind}" in
		*+dmesg) # the root named, its kernel log with the message appended (a kernel line seen on the host)
			root=$work/derived/$sig-$kind; rm -rf "$root"; mkdir -p "$work/derived"
			cp -a "$work/roots/${!kind%+dmesg}" "$root" && cat "$work/msg" >> "$root/rdma-doctor/commands/dmesg" ;;
		esac
		"$bin" --root "$root" explain --format json - < "$work/msg" > "$work/out.json"; rc=$?
		if ! jq -en --arg s "$sig" 'input | any(.matches[]; .signature == $s)' "$work/out.json" > /dev/null; then
			bad "$sig: not recognised in its message"; continue
		fi
		cause1=$(jq -r --arg s "$sig" '.matches[] | select(.signature == $s) | [.causes[] | select(.verdict == "confirmed")] | length' "$work/out.json")
		if [ $kind = present ]; then
			[ "$cause1" -ge 1 ] && [ $rc = 1 ] && ok || bad "$sig on ${!kind}: no cause confirmed (exit $rc)"
			# every confirmed cause carries a fix
			jq -en 'input | all(.matches[].causes[] | select(.verdict == "confirmed"); .fix | length > 0)' "$work/out.json" > /dev/null &&
				ok || bad "$sig on ${!kind}: a confirmed cause without a fix: $(jq -c '[.matches[].causes[] | select(.verdict == "confirmed" and (.fix | length == 0)) | .id]' "$work/out.json")"
		else
			[ "$cause1" = 0 ] && [ $rc != 1 ] && ok || bad "$sig on ${!kind}: a cause confirmed on a healthy host (exit $rc)"
			jq -en --arg s "$sig" 'input | .matches[] | select(.signature == $s) | any(.causes[]; .verdict == "ruled out")' "$work/out.json" > /dev/null &&
				ok || bad "$sig on ${!kind}: nothing ruled out"
		fi
	done
done < "$top/tests/explain/cases.txt"
# every signature in the table has a case
table=$(grep -oE '^	\{"[a-z0-9_]+\.[a-z0-9_]+"' "$top/src/explain/signatures.c" | tr -d '\t{"')
for s in $table; do
	grep -qx "$s" < <(printf "%s\n" "${seen[@]}") && ok || bad "signature $s has no test case"
done

# each scenario's own error line confirms that scenario's cause and no other (tests/explain/scenarios.txt)
while IFS=$'\t' read -r sc msg want; do
	case "$sc" in ''|'#'*) continue ;; esac
	if ts_skipped_scenario "$work/roots" "$sc"; then ts_skip "scenarios.txt: $sc" "$ts_seed_reason"; continue; fi
	[ -d "$work/roots/$sc" ] || { bad "scenarios.txt: no scenario root $sc"; continue; }
	printf '%b\n' "$msg" > "$work/msg"
	"$bin" --root "$work/roots/$sc" explain --format json - < "$work/msg" > "$work/out.json"; rc=$?
	got=$(jq -r '[.matches[].causes[] | select(.verdict == "confirmed") | .id] | unique | join(",")' "$work/out.json")
	[ "$got" = "$want" ] && [ $rc = 1 ] && ok || bad "scenario $sc: confirmed '$got', expected only '$want' (exit $rc)"
done < "$top/tests/explain/scenarios.txt"

# a module that failed on a symbol mismatch is judged by where it was built, against the loaded
# ib_core (the failed module is not loaded, so the loaded modules cannot tell)
r=$work/roots/ofed-inbox-ulp; cp -a "$work/roots/healthy-mlnx-ofed" "$r"; mkdir -p "$r/lib/modules/$kver"
printf '%s\n' updates/dkms/mlx5_core.ko: updates/dkms/ib_core.ko: updates/dkms/ib_uverbs.ko: updates/dkms/rdma_cm.ko: updates/dkms/ib_iser.ko: \
	kernel/drivers/nvme/target/nvmet-rdma.ko: kernel/net/sunrpc/xprtrdma/rpcrdma.ko: updates/dkms/nvidia-peermem.ko: > "$r/lib/modules/$kver/modules.dep"
for line in "[ 912.443210] nvmet_rdma: disagrees about version of symbol ib_register_client" \
	"[ 912.443290] nvmet_rdma: Unknown symbol ib_register_client (err -22)" "modprobe: ERROR: could not insert 'nvmet_rdma': Invalid argument"; do
	"$bin" --root "$r" explain --format json "$line" > "$work/out.json"; rc=$?
	jq -en 'input | any(.matches[].causes[]; .id == "module-other-ib-core" and .verdict == "confirmed" and
		any(.fix[]; test("--with-nvmf")))' "$work/out.json" > /dev/null && [ $rc = 1 ] &&
		ok || bad "in-tree nvmet_rdma on OFED's ib_core ($line): exit $rc: $(jq -c '[.matches[].causes[] | [.id, .verdict, .why]]' "$work/out.json")"
done
"$bin" --root "$r" explain --format json "rpcrdma: Unknown symbol ib_register_client (err -22)" > "$work/out.json"; rc=$?
jq -en 'input | any(.matches[].causes[]; .id == "module-other-ib-core" and .verdict == "confirmed" and any(.fix[]; test("--with-nfsrdma")))' \
	"$work/out.json" > /dev/null && [ $rc = 1 ] && ok || bad "in-tree rpcrdma on OFED's ib_core: exit $rc"
# the real lines from an OFED host: nvidia_peermem built against another ib_core (the NVIDIA driver's DKMS module)
h=$work/roots/h100-ofed-no-peermem; cp -a "$top/examples/h100-ofed" "$h"; rm -rf "$h/sys/module/nvidia_peermem"
sed -i '/^nvidia_peermem /d; s/nvidia_peermem,//' "$h/proc/modules"
"$bin" --root "$h" explain --format json \
	"[  812.443210] nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client" \
	"[  812.443290] nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -22)" > "$work/out.json"; rc=$?
jq -en 'input | [.matches[] | any(.causes[]; .id == "module-other-ib-core" and .verdict == "confirmed" and
	any(.fix[]; test("dkms install nvidia/")))] == [true, true]' "$work/out.json" > /dev/null && [ $rc = 1 ] &&
	ok || bad "nvidia_peermem on OFED: exit $rc: $(jq -c '[.matches[].causes[] | [.id, .verdict]]' "$work/out.json")"
# the same module and ib_core both OFED's builds: not this cause, and never "every cause ruled out"
"$bin" --root "$r" explain --format json "ib_iser: Unknown symbol ib_register_client (err -22)" > "$work/out.json"; rc=$?
jq -en 'input | any(.matches[].causes[]; .id == "module-other-ib-core" and .verdict == "ruled out")' "$work/out.json" > /dev/null &&
	[ $rc = 3 ] && ok || bad "OFED ib_iser on OFED ib_core: exit $rc: $(jq -c '[.matches[].causes[] | [.id, .verdict]]' "$work/out.json")"
# kernel.log gives the fix for the module the line names, not "rmmod the inbox modules"
echo "[ 912.443210] nvmet_rdma: disagrees about version of symbol ib_register_client" >> "$r/rdma-doctor/commands/dmesg"
"$bin" --root "$r" check --only kernel.log --format json > "$work/out.json"
jq -en 'input | any(.findings[]; .check == "kernel.log" and any(.fix[]; test("--with-nvmf")) and all(.fix[]; test("rmmod") | not))' \
	"$work/out.json" > /dev/null && ok || bad "kernel.log fix for in-tree nvmet_rdma: $(jq -c '[.findings[] | .fix]' "$work/out.json")"
# the device of an mlx5 line is in kernel.log's fix
"$bin" --root "$work/roots/kernel-log-mlx5-health" explain --format json \
	"[72011.402342] mlx5_core 0000:9a:00.0: print_health_info:435:(pid 0): Fatal error 1 detected" > "$work/out.json"
jq -en 'input | any(.matches[].causes[] | select(.verdict == "confirmed"); any(.fix[]; test("mlxfwreset -d 0000:9a:00.0 -l 3 reset")))' \
	"$work/out.json" > /dev/null && ok || bad "mlx5 fatal: the fix does not name the device: $(jq -c '[.matches[].causes[].fix]' "$work/out.json")"
# a ruled-out cause has its own mark (not check's FAIL mark), in UTF-8 and in ASCII
out=$(LC_ALL=C.UTF-8 "$bin" --root "$work/roots/healthy-inbox" explain "ibwarn: [3721] mad_rpc_open_port: can't open UMAD port ((null):0)")
grep -q '○ ruled out' <<< "$out" && ! grep -q '✖' <<< "$out" && ok || bad "ruled-out mark (UTF-8): $out"
out=$(LC_ALL=C LANG=C "$bin" --root "$work/roots/healthy-inbox" explain "ibwarn: [3721] mad_rpc_open_port: can't open UMAD port ((null):0)")
grep -q '^    o ruled out' <<< "$out" && ! grep -q '^    x ' <<< "$out" && ok || bad "ruled-out mark (ASCII): $out"
# a fix to paste names no file of a hostile root: a modules-load.d file named with shell syntax
r=$work/roots/modules-load-hostile; cp -a "$work/roots/modules-load-unknown" "$r"
mv "$r/etc/modules-load.d/gpu.conf" "$r/etc/modules-load.d/x;touch \$(id).conf"
"$bin" --root "$r" explain --format json "systemd[1]: Failed to start systemd-modules-load.service - Load Kernel Modules." > "$work/out.json"; rc=$?
jq -en 'input | any(.matches[].causes[]; .id == "modules-load-unknown" and .verdict == "confirmed" and all(.fix[]; test("touch") | not))' \
	"$work/out.json" > /dev/null && [ $rc = 1 ] && ok || bad "hostile modules-load.d name in a fix: $(jq -c '[.matches[].causes[].fix]' "$work/out.json")"
# a confirmed fact with no finding has a fix (nvidia_peermem on the inbox ib_core)
"$bin" --root "$top/examples/mixed-states" explain --format json "modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument" > "$work/out.json"
jq -en 'input | any(.matches[].causes[]; .id == "peermem-on-inbox" and .verdict == "confirmed" and (.fix | length > 0))' \
	"$work/out.json" > /dev/null && ok || bad "peermem-on-inbox confirmed without a fix"

# judged by what a cause is about: uverbs nodes at 0600 are not "ib_uverbs is not loaded" nor
# "/dev/infiniband is missing", and the message is matched whatever its case
"$bin" --root "$work/roots/uverbs-mode-0600" explain --format json "NCCL WARN NET/IB : UNABLE TO OPEN DEVICE mlx5_0" > "$work/out.json"
jq -en 'input | [.matches[].causes[] | {(.id): .verdict}] | add | ."uverbs-not-loaded" == "ruled out" and
	."uverbs-nodes-missing" == "ruled out" and ."uverbs-nodes-mode" == "confirmed"' "$work/out.json" > /dev/null &&
	ok || bad "uverbs 0600: $(jq -c '[.matches[].causes[] | [.id, .verdict]]' "$work/out.json")"
# a SKIP is not "ruled out": on a host with no RDMA device, that is the confirmed cause of "No device found"
"$bin" --root "$top/examples/no-rdma" explain --format json "NCCL WARN NET/IB : No device found." > "$work/out.json"; rc=$?
jq -en 'input | [.matches[].causes[] | {(.id): .verdict}] | add | ."no-rdma-device" == "confirmed" and
	."uverbs-not-loaded" == "cannot tell" and ."mlx5-not-loaded" == "cannot tell"' "$work/out.json" > /dev/null && [ $rc = 1 ] &&
	ok || bad "no-rdma: exit $rc: $(jq -c '[.matches[].causes[] | [.id, .verdict]]' "$work/out.json")"
# a heading never asserts a cause: umad on a healthy host, both causes ruled out
out=$("$bin" --root "$work/roots/healthy-inbox" explain "ibwarn: [3721] mad_rpc_open_port: can't open UMAD port ((null):0)"); rc=$?
[ $rc = 0 ] && ! grep -q "is not loaded$" <<< "$(grep '^umad' <<< "$out")" && [ "$(grep -c 'ruled out' <<< "$out")" = 4 ] &&
	ok || bad "umad heading on a healthy host (exit $rc): $out"

# the deadline: a writer that stops writing; explain ends by --timeout with what it read, saying so
{ printf '%s\n' "NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory"; sleep 3; } |
	"$bin" --timeout 1 --root "$work/roots/memlock-64k-slurmd" explain --format json - > "$work/out.json"; rc=$?
jq -en 'input | .input.finished == false and .input.bytes_read == 70 and .input.bytes_total == null and
	any(.matches[].causes[]; .id == "memlock" and .verdict == "confirmed")' "$work/out.json" > /dev/null && [ $rc = 1 ] &&
	ok || bad "deadline: exit $rc: $(jq -c .input "$work/out.json")"
{ echo "nothing known"; sleep 3; } | "$bin" --timeout 1 explain - > "$work/out.txt"; rc=$?
[ $rc = 3 ] && grep -q "^rdma-doctor explain: read 14 bytes before the deadline (--timeout 1 s)" "$work/out.txt" &&
	ok || bad "deadline, nothing matched: exit $rc: $(cat "$work/out.txt")"

# nothing known: says so, suggests check, exit 0
out=$("$bin" --root "$work/roots/healthy-inbox" explain "everything is fine" "really"); rc=$?
[ $rc = 0 ] && grep -q "rdma-doctor check" <<< "$out" && ok || bad "no-match text: exit $rc: $out"

# a long mixed log: noise, three signatures (one twice), binary junk, a 100 kB line
{
	for i in $(seq 1 3000); do echo "Nov 30 04:00:$((i % 60)) gpu-a01 kernel: [ $i.000] eth0: link up, noise line $i"; done
	echo "gpu-a01:21811:21811 [0] NCCL INFO Using network Socket"
	head -c 4096 /dev/urandom | tr -d '\n'; echo
	for i in $(seq 1 2000); do echo "slurmstepd: task $i running"; done
	echo "ibwarn: [12345] umad_get_ca: can't open UMAD port"
	head -c 100000 /dev/zero | tr '\0' 'x'; echo
	echo "gpu-a01:21811:21811 [0] NCCL INFO Using network Socket"
	echo "[  812.443210] rdma_ucm: disagrees about version of symbol ib_register_peer_memory_client"
} > "$work/mixed.log"
"$bin" --root "$work/roots/ib-umad-missing" explain --format json - < "$work/mixed.log" > "$work/mixed.json"; rc=$?
jq -en 'input | .lines_read == 5006 and (.matches | length) == 3
	and (.matches[] | select(.signature == "nccl.using_socket") | .count == 2 and .lines == [3001, 5005])
	and (.matches[] | select(.signature == "umad.cant_open") | .lines == [5003])
	and (.matches[] | select(.signature == "kernel.symbol_version") | .lines == [5006])' "$work/mixed.json" > /dev/null &&
	[ $rc = 1 ] && ok || bad "mixed log: $(jq -c '{lines_read, m: [.matches[] | {signature, lines}]}' "$work/mixed.json") exit $rc"

# binary junk only: no crash, no match
head -c 2000000 /dev/urandom > "$work/junk"
"$bin" explain - < "$work/junk" > "$work/junk.out"; rc=$?
[ $rc = 0 ] && grep -q "No known RDMA error" "$work/junk.out" && ok || bad "binary junk: exit $rc"

# a big input (default 100 MB): one pass, a match at the very end
yes "Nov 30 04:00:00 gpu-a01 slurmd[4242]: launch task 1.0 request from UID 1000 (noise that matches nothing)" |
	head -c $((big * 1024 * 1024)) > "$work/big.log"
echo "modprobe: ERROR: could not insert 'rdma_ucm': Invalid argument" >> "$work/big.log"
start=$(date +%s%N)
"$bin" --root "$work/roots/healthy-inbox" explain --format json - < "$work/big.log" > "$work/big.json"; rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
jq -en 'input | any(.matches[]; .signature == "modprobe.invalid_argument")' "$work/big.json" > /dev/null && ok || bad "big input: exit $rc, the final line not found"
echo "explain: ${big} MB scanned in ${ms} ms"
# as many empty lines (once 25 s: a line's cost must not depend on the signature table), read from a file
head -c $((big * 1024 * 1024)) /dev/zero | tr '\0' '\n' > "$work/empty.log"
"$bin" --timeout 0 explain --format json - < "$work/empty.log" > "$work/empty.json"; rc=$?
jq -en --argjson n $((big * 1024 * 1024)) 'input | .lines_read == $n and .input.bytes_total == $n and .input.finished' \
	"$work/empty.json" > /dev/null && [ $rc = 0 ] && ok || bad "empty lines: exit $rc: $(jq -c '{lines_read, input}' "$work/empty.json")"
ts_finalize
