#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The GPUDirect-path checks (gdr.path, gdr.acs, gdr.iommu) and pcie.link on a real kernel's PCI
# tree: Debian's kernel on a qemu q35 machine with an emulated Intel IOMMU, a PCIe switch and root
# ports of three link capabilities (tests/vm/boot.sh, phase q35).  Inside (tests/vm/guest.sh):
# lspci -vvv, the IOMMU groups, a copy of the PCI part of sysfs, the checks (they SKIP: no GPU, no
# RDMA NIC), the setpci line gdr.acs prints run on each port that has ACS.  Here: what the guest
# showed, then roots built from its copy with a stand-in GPU and HCAs at the real endpoints' BDFs
# (tests/vm/q35root.sh) and the checks' verdicts on them, which must equal those of a run inside
# on the live sysfs with the same stand-ins mounted over it.  The iommu=pt that gdr.iommu prints as
# its fix is taken from its output and booted (phase q35pt): the groups become identity and
# gdr.iommu OK.
# Usage: tests/vm/q35.sh [BUILD_DIR] [--replay] [--all] [--keep DIR] [--update-fixtures]
#   --replay            no qemu: the roots from tests/vm/fixtures/q35 (a capture of this runner)
#   --all               also boot with intel_iommu=off (phase q35off; --update-fixtures implies it)
#   --keep DIR          keep the guests' output in DIR
#   --update-fixtures   write the capture into tests/vm/fixtures/q35/
# Needs qemu-system-x86, linux-image-amd64, busybox-static, kmod, cpio, pciutils, util-linux, jq
# (tests/run-all.sh installs them).  Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$top/build keep="" update=0 replay=0 all=0
while [ $# -gt 0 ]; do
	case "$1" in
	--keep) keep=$2; shift ;;
	--update-fixtures) update=1 all=1 ;;
	--replay) replay=1 ;;
	--all) all=1 ;;
	*) build=$(cd "$1" && pwd) ;;
	esac
	shift
done
bin=$build/rdma-doctor
fx=$top/tests/vm/fixtures/q35
ts_init -v
[ -x "$bin" ] || ts_die "no $bin (build first)"
command -v jq > /dev/null || ts_die "missing jq"
ts_scratch q35
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
unset NCCL_NET_GDR_LEVEL NCCL_DMABUF_ENABLE
out=${keep:-$work/out}

# ---- the guests -----------------------------------------------------------------------------------
if [ $replay = 1 ]; then
	mkdir -p "$out"
	for p in q35 q35pt q35off; do tar -xzf "$fx/$p.tar.gz" -C "$out" || ts_die "unpack $fx/$p.tar.gz"; done
else
	kver=$(ls /boot/vmlinuz-* 2> /dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
	for need in qemu-system-x86_64 busybox cpio depmod lspci setpci; do
		command -v "$need" > /dev/null || ts_die "missing $need (tests/run-all.sh installs it as root)"
	done
	[ -n "$kver" ] || ts_die "no Debian kernel in /boot"
	rm -rf "$out" && mkdir -p "$out"
	"$top/tests/vm/mkinitramfs.sh" --pci "$kver" "$bin" "$work/initramfs.cpio.gz" > "$work/mk.log" 2>&1 ||
		{ cat "$work/mk.log"; ts_die "initramfs"; }
	boot() { # PHASE [KERNEL WORDS]
		local t0=$SECONDS
		"$top/tests/vm/boot.sh" "$kver" "$work/initramfs.cpio.gz" "$out" "$1" "${2:-}"
		echo "# $1${2:+ ($2)}: the guest ran for $((SECONDS - t0)) s"
		grep -q '^@@guest-done' "$out/console-$1.log" && ok "$1: the guest ran its steps" ||
			{ bad "$1: the guest did not finish; console:"; tail -20 "$out/console-$1.log"; return 1; }
	}
	boot q35 || ts_finalize
fi

# ---- what the guest showed (a boot only: these are the kernel's and qemu's facts) ------------------
S=$out/q35/s
red='SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-'
none='SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-'
if [ $replay = 0 ]; then
	# the tree: the switch below root port 0000:00:03.0, an endpoint below each of its downstream ports
	for e in 0000:00:03.0/0000:01:00.0/0000:02:00.0/0000:03:00.0 0000:00:03.0/0000:01:00.0/0000:02:01.0/0000:04:00.0 \
		0000:00:04.0/0000:05:00.0 0000:00:05.0/0000:06:00.0; do
		[ "$(readlink -f "$out/q35/tree/sys/bus/pci/devices/${e##*/}")" = "$(readlink -f "$out/q35/tree")/sys/devices/pci0000:00/$e" ] &&
			ok "sysfs: ${e##*/} is pci0000:00/$e" || bad "the guest's sysfs has no pci0000:00/$e"
	done
	ids() { echo "$(cat "$out/q35/tree/sys/bus/pci/devices/$1/vendor"):$(cat "$out/q35/tree/sys/bus/pci/devices/$1/device")"; }
	[ "$(ids 0000:01:00.0)" = 0x104c:0x8232 ] && [ "$(ids 0000:02:00.0)" = 0x104c:0x8233 ] && [ "$(ids 0000:02:01.0)" = 0x104c:0x8233 ] &&
		[ "$(ids 0000:00:03.0)" = 0x1b36:0x000c ] && ok "the switch is the TI XIO3130 below a QEMU root port" ||
		bad "not the XIO3130 below a QEMU root port: $(ids 0000:01:00.0) $(ids 0000:02:00.0) $(ids 0000:00:03.0)"
	# ACS: the three root ports have the capability and the kernel (IOMMU on) set SV, RR, CR, UF;
	# the switch's ports have none
	acsctl() { awk -v b="$2" '/^[0-9a-f]/ { in_ = ($1 == b) } in_ && /ACSCtl:/ { sub(/.*ACSCtl:[ \t]*/, ""); print }' "$1"; }
	caps() { awk -v b="$2" '/^[0-9a-f]/ { in_ = ($1 == b) } in_ && /Capabilities: \[/' "$1"; }
	[ "$(cat "$S/ports.out" | tr '\n' ' ')" = "0000:00:03.0 0000:00:04.0 0000:00:05.0 " ] &&
		ok "lspci: ACS on the three root ports only" || bad "lspci: ACS on: $(cat "$S/ports.out" | tr '\n' ' ')"
	for b in 0000:00:03.0 0000:00:04.0 0000:00:05.0; do
		[ "$(acsctl "$S/lspci.out" $b)" = "$red" ] && ok "lspci $b: ACSCtl: $red" || bad "lspci $b: ACSCtl: $(acsctl "$S/lspci.out" $b)"
	done
	for b in 0000:01:00.0 0000:02:00.0 0000:02:01.0; do
		[ -n "$(caps "$S/lspci.out" $b)" ] && ! caps "$S/lspci.out" $b | grep -q 'Access Control Services' &&
			ok "lspci $b: capabilities, none of them ACS" || bad "lspci $b: ACS, or no capability list"
	done
	# the fix gdr.acs prints (setpci -s BDF ECAP_ACS+0x6.w=0000), run on each: the register reads 0
	[ "$(cat "$S/acs-before.out" | tr '\n' ' ')" = "0000:00:03.0 001d 0000:00:04.0 001d 0000:00:05.0 001d " ] &&
		ok "setpci reads ACS control 0x001d on each root port" || bad "setpci before: $(cat "$S/acs-before.out" | tr '\n' ' ')"
	[ "$(cat "$S/acs-after.out" | tr '\n' ' ')" = "0000:00:03.0 0000 0000:00:04.0 0000 0000:00:05.0 0000 " ] &&
		ok "after setpci -s BDF ECAP_ACS+0x6.w=0000: 0x0000" || bad "setpci after: $(cat "$S/acs-after.out" | tr '\n' ' ')"
	for b in 0000:00:03.0 0000:00:04.0 0000:00:05.0; do
		[ "$(acsctl "$S/lspci-after.out" $b)" = "$none" ] && ok "lspci after setpci $b: ACSCtl all -" ||
			bad "lspci after setpci $b: ACSCtl: $(acsctl "$S/lspci-after.out" $b)"
		# the config bytes at the capability's control register (lspci's [148]: 0x148 + 6)
		v=$(od -An -tx2 -j $((0x148 + 6)) -N2 "$out/q35/after/$b.config" | tr -d ' ')
		w=$(od -An -tx2 -j $((0x148 + 6)) -N2 "$out/q35/tree/sys/bus/pci/devices/$b/config" | tr -d ' ')
		[ "$w" = 001d ] && [ "$v" = 0000 ] && ok "$b config at 0x14e: 0x$w, after setpci 0x$v" || bad "$b config at 0x14e: $w, after $v"
	done
	[ "$(cat "$S/unpriv-config.out" | tr '\n' ' ')" = "0000:00:03.0 64 0000:00:04.0 64 0000:00:05.0 64 " ] &&
		ok "an unprivileged read of a port's config returns 64 bytes" || bad "unprivileged config: $(cat "$S/unpriv-config.out" | tr '\n' ' ')"
	# the checks inside: nothing to judge (no GPU, no RDMA NIC), by design
	jq -e '(.findings | length) == 5 and all(.findings[]; .status == "SKIP")' "$S/check.out" > /dev/null &&
		ok "in the guest the gdr.* checks and pcie.link SKIP" || bad "in the guest: $(jq -c '[.findings[] | [.check, .status]]' "$S/check.out")"
	jq -e '.gpus == [] and .nics == [] and .pcie_hierarchy == true' "$S/topo.out" > /dev/null && ok "in the guest topo lists no GPU, no NIC" ||
		bad "in the guest topo: $(head -c 300 "$S/topo.out")"
	[ "$(awk '$3 != "DMA-FQ"' "$S/groups.out")" = "" ] && [ "$(wc -l < "$S/groups.out")" -gt 10 ] &&
		ok "IOMMU on by default (Debian's kernel): every function's group DMA-FQ" || bad "groups: $(awk '$3 != "DMA-FQ"' "$S/groups.out" | head -3)"
fi

# ---- the roots: the guest's tree with the stand-ins --------------------------------------------------
root() { "$top/tests/vm/q35root.sh" "$out/$1/tree" "$work/$2" "${3:-real}" "${4:-}" || bad "q35root.sh $*"; }
chk() { "$bin" --root "$work/$1" check --only "$2" --format json > "$work/$1.$2.json" 2> "$work/$1.err"; echo $? > "$work/$1.$2.rc"; }
# jqt ROOT CHECK WHAT [JQ OPTIONS] FILTER: the check's JSON on the root satisfies FILTER
jqt() { # ROOT CHECK WHAT [JQ OPTIONS...] FILTER
	local r=$1 c=$2 w=$3
	shift 3
	if jq -e "$@" "$work/$r.$c.json" > /dev/null 2>&1; then ok "$r: $c: $w"
	else bad "$r: $c: $w"; jq -c '[.findings[] | {check, status, subject, message}]' "$work/$r.$c.json" 2> /dev/null | head -c 1500; echo; fi
}
root q35 real
"$bin" --root "$work/real" topo --format json > "$work/topo.json" 2> "$work/topo.err" || bad "topo on the root: exit $?"
jq -e '[.paths[] | select(.from == "GPU0" and .to == "NIC0")][0] | .type == "PIX" and .nccl_type == "PIX" and .gdr == true
	and .via == ["0000:02:00.0", "0000:01:00.0", "0000:02:01.0"]' "$work/topo.json" > /dev/null &&
	ok "topo: GPU0 (0000:03:00.0) - NIC0 (mlx5_0) PIX through the switch's ports 0000:02:00.0, 0000:01:00.0, 0000:02:01.0" ||
	bad "topo: GPU0-NIC0: $(jq -c '[.paths[] | select(.from == "GPU0" and .to == "NIC0")]' "$work/topo.json")"
jq -e '[.paths[] | select(.from == "GPU0" and (.to == "NIC1" or .to == "NIC2")) | .type] == ["PHB", "PHB"]' "$work/topo.json" > /dev/null &&
	ok "topo: GPU0 - NIC1, NIC2 (other root ports) PHB" || bad "topo: GPU0 - NIC1/NIC2 not PHB"
chk real gdr.path
jqt real gdr.path "OK, mlx5_0 PIX" '[.findings[] | .status] == ["OK"] and (.findings[0].message | contains("mlx5_0 (0000:04:00.0) is PIX"))'
chk real gdr.acs
# the switch's ports have no ACS: nothing redirects, and each bridge's evidence says so from its config
jqt real gdr.acs "OK: no ACS capability on the switch's three ports (their config space)" \
	'[.findings[] | .status] == ["OK"] and (.findings[0].message | contains("no ACS redirect on the 3 bridges")) and
	 ([.findings[0].evidence[] | select(.path | endswith("/config")) | .value] ==
	  ["0000:02:00.0: no ACS capability", "0000:01:00.0: no ACS capability", "0000:02:01.0: no ACS capability"])'
root q35 unpriv unpriv
chk unpriv gdr.acs
jqt unpriv gdr.acs "UNKNOWN from 64-byte config reads, no lspci" \
	'[.findings[] | .status] == ["UNKNOWN"] and (.findings[0].message | contains("only the first 64 bytes"))'
root q35 unpriv-lspci unpriv-lspci "$S/lspci.out"
chk unpriv-lspci gdr.acs
jqt unpriv-lspci gdr.acs "OK from the guest's lspci -vvv: the switch's ports list no ACS" \
	'[.findings[] | .status] == ["OK"] and ([.findings[0].evidence[] | select(.path | startswith("lspci")) | .value] ==
	  ["0000:02:00.0: no ACS capability", "0000:01:00.0: no ACS capability", "0000:02:01.0: no ACS capability"])'
# the root ports' real ACS capability linked into the switch's downstream ports: on bare metal a WARN
# whose setpci lines are the command the guest ran on the root ports (there it cleared the register)
root q35 acs-switch acs-switch
chk acs-switch gdr.acs
jqt acs-switch gdr.acs "a switch whose ports redirect, bare metal: WARN with a setpci line per port" \
	'[.findings[] | .status] == ["WARN"] and (.findings[0].message | contains("on 2 of the 3 bridges")) and
	 ([.findings[0].fix[] | select(startswith("setpci"))] ==
	  ["setpci -s 0000:02:00.0 ECAP_ACS+0x6.w=0000   # as root; until the next boot",
	   "setpci -s 0000:02:01.0 ECAP_ACS+0x6.w=0000   # as root; until the next boot"]) and
	 (.findings[0].fix | any(contains("this kernel (6.1.0-57-amd64) predates pci=config_acs=")))'
printed=$(jq -r '[.findings[0].fix[] | select(startswith("setpci -s 0000:02:00.0 "))][0] | sub(" *#.*"; "")' "$work/acs-switch.gdr.acs.json" 2> /dev/null)
for b in 0000:00:03.0 0000:00:04.0 0000:00:05.0; do
	[ -n "$printed" ] && [ "${printed/0000:02:00.0/$b}" = "$(cat "$S/setpci-$b.cmd" 2> /dev/null)" ] &&
		ok "the printed fix, for $b, is the command the guest ran there (then the register read 0000)" ||
		bad "the printed fix (${printed:-none}) is not the guest's command on $b ($(cat "$S/setpci-$b.cmd" 2> /dev/null))"
done
root q35 acs-switch-vm acs-switch-vm
chk acs-switch-vm gdr.acs
jqt acs-switch-vm gdr.acs "the same in the guest as it is (its real cpuinfo): OK, a virtual machine" \
	'[.findings[] | .status] == ["OK"] and (.findings[0].message | contains("this host is a virtual machine (the hypervisor flag of /proc/cpuinfo)"))'
root q35 no-switch-nic no-switch-nic
chk no-switch-nic gdr.path
jqt no-switch-nic gdr.path "no NIC below the switch: WARN, mlx5_1 is PHB" \
	'[.findings[] | .status] == ["WARN"] and (.findings[0].message | contains("mlx5_1 (0000:05:00.0)")) and (.findings[0].message | contains("is PHB"))'
chk no-switch-nic gdr.acs
jqt no-switch-nic gdr.acs "no NIC below the switch: SKIP (the path crosses the root complex)" '[.findings[] | .status] == ["SKIP"]'
# pcie.link: rp2 can do 16 GT/s x16 and its link runs at 2.5 GT/s x1 (WARN); rp3 can do only
# 2.5 GT/s x1 (not degraded); the switch's downstream ports report no capability (Unknown, 0): the
# link below one cannot be judged against "both ends"
chk real pcie.link
jqt real pcie.link "WARN mlx5_1: its link to root port 0000:00:04.0 at 2.5 GT/s x1 of 16 GT/s x16" \
	'[.findings[] | select(.subject == "mlx5_1") | [.status, .message]] ==
	 [["WARN", "mlx5_1 (0000:05:00.0): its own link (0000:05:00.0 to 0000:00:04.0) runs at 2.5 GT/s x1 while both ends can do 16 GT/s x16"]]'
jqt real pcie.link "mlx5_2 below the 2.5 GT/s x1 root port: no finding" '[.findings[] | select(.subject == "mlx5_2")] == []'
jqt real pcie.link "mlx5_0 below the switch port of unknown capability: UNKNOWN, never \"both ends can do\"" \
	'[.findings[] | select(.subject == "mlx5_0") | .status] == ["UNKNOWN"] and
	 ([.findings[] | select(.subject == "mlx5_0") | .message] | .[0] | contains("0000:02:01.0 reports no link speed or width of its own (max_link_speed Unknown, max_link_width 0)"))'
root q35 endpoint-caps endpoint-caps
chk endpoint-caps pcie.link
jqt endpoint-caps pcie.link "with the endpoints' own 2.5 GT/s x1: OK, nothing degraded" \
	'[.findings[] | .status] == ["OK"] and (.findings[0].message | contains("3 HCA functions: PCIe links at full speed and width"))'
# pcie.mrrs: each stand-in HCA's Max Read Request, from the real kernel's config space, is what the
# guest's lspci -vvv printed for that function
chk real pcie.mrrs
lsrr() { awk -v b="$2" '$1 == b { in_ = 1; next } /^[^ \t]/ { in_ = 0 } in_ && /MaxReadReq/ { sub(/.*MaxReadReq /, ""); sub(/ bytes.*/, ""); print; exit }' "$1"; }
want="3 HCA functions: PCIe Max Read Request $(lsrr "$S/lspci.out" 0000:04:00.0) bytes on mlx5_0, mlx5_1, mlx5_2"
[ "$(lsrr "$S/lspci.out" 0000:05:00.0)" = "$(lsrr "$S/lspci.out" 0000:06:00.0)" ] || want="the three lspci values differ"
jqt real pcie.mrrs "OK, the guest's lspci -vvv's MaxReadReq for each function (${want#*Request })" \
	--arg w "$want" '[.findings[] | [.status, .message]] == [["OK", $w]] and
	 ([.findings[0].evidence[] | .path] == ["/sys/bus/pci/devices/0000:04:00.0/config", "/sys/bus/pci/devices/0000:05:00.0/config", "/sys/bus/pci/devices/0000:06:00.0/config"])'
chk unpriv pcie.mrrs
jqt unpriv pcie.mrrs "64-byte config reads, no lspci: UNKNOWN for each, saying why" \
	'[.findings[] | .status] == ["UNKNOWN", "UNKNOWN", "UNKNOWN"] and all(.findings[]; .message | contains("only the first 64 bytes of its config space can be read"))'
chk unpriv-lspci pcie.mrrs
jqt unpriv-lspci pcie.mrrs "the same from the guest's lspci -vvv" \
	--arg w "$want" '[.findings[] | [.status, .message]] == [["OK", $w]] and all(.findings[0].evidence[]; .path == "rdma-doctor/commands/lspci-vvv")'
# with [pcie] max_read_request = 4096: WARN each, with the setpci line and the boot rule; both, run
# on a copy (setpci writing its config files: none can be had for a root), make it OK and say the
# rule sets it at boot
mkdir -p "$work/real/etc/udev/rules.d" && printf '[pcie]\nmax_read_request = 4096\n' > "$work/real/etc/rdma-doctor.conf"
chk real pcie.mrrs
jqt real pcie.mrrs "policy 4096: WARN mlx5_0..2, setpci CAP_EXP+8.w=5000:7000 and the udev rule" \
	'[.findings[] | .status] == ["WARN", "WARN", "WARN"] and
	 (.findings[0].fix == ["setpci -s 0000:04:00.0 CAP_EXP+8.w=5000:7000   # as root: MaxReadReq 4096 bytes until the next boot or reset",
	  "echo '"'"'ACTION==\"add\", SUBSYSTEM==\"pci\", KERNEL==\"0000:04:00.0\", RUN+=\"/usr/bin/setpci -s $kernel CAP_EXP+8.w=5000:7000\"'"'"' >> /etc/udev/rules.d/90-pcie-max-read-request.rules   # at every boot (setpci is not installed: pciutils)"])'
cp -a "$work/real" "$work/mrrs-fixed"
setpci() { # -s BDF CAP_EXP+8.w=VALUE:MASK on the copy: the capability list from 0x34
	[ "$1" = -s ] && [ "${3%%=*}" = CAP_EXP+8.w ] || return 1
	local f=$work/mrrs-fixed/sys/bus/pci/devices/$2/config vm=${3#*=} pos n=0 id
	local v=$((16#${vm%%:*})) m=$((16#${vm#*:}))
	pos=$(od -An -tu1 -j $((0x34)) -N1 "$f" | tr -d ' ')
	while [ -n "$pos" ] && [ "$pos" != 0 ] && [ $n -lt 48 ]; do
		id=$(od -An -tu1 -j "$pos" -N1 "$f" | tr -d ' ')
		if [ "$id" = 16 ]; then
			local old=$(od -An -tu2 -j $((pos + 8)) -N2 "$f" | tr -d ' ') new
			new=$(((old & ~m) | (v & m)))
			printf "$(printf '\\x%02x\\x%02x' $((new & 255)) $((new >> 8)))" | dd of="$f" bs=1 seek=$((pos + 8)) conv=notrunc status=none
			return
		fi
		pos=$(od -An -tu1 -j $((pos + 1)) -N1 "$f" | tr -d ' ') n=$((n + 1))
	done
	return 1
}
nset=0
while read -r line; do
	set -- $line
	setpci "$2" "$3" "$4" && nset=$((nset + 1)) || bad "setpci did not apply: $line"
done < <(jq -r '.findings[].fix[]? | select(startswith("setpci ")) | sub(" *#.*"; "")' "$work/real.pcie.mrrs.json")
jq -r '.findings[].fix[]? | select(startswith("echo ")) | sub("   # .*"; "") | sub(" /etc/"; " '"$work"'/mrrs-fixed/etc/")' "$work/real.pcie.mrrs.json" > "$work/mrrs-rule.sh"
bash "$work/mrrs-rule.sh" || bad "the printed udev rule lines did not run"
chk mrrs-fixed pcie.mrrs
jqt mrrs-fixed pcie.mrrs "after the 3 printed setpci lines and rules: OK, 4096 bytes, a udev rule sets it at boot" \
	'[.findings[] | [.status, .message]] == [["OK", "3 HCA functions: PCIe Max Read Request 4096 bytes on mlx5_0, mlx5_1, mlx5_2 (the policy asks at least 4096); a udev rule sets it at boot"]]'
[ $nset = 3 ] && [ "$(grep -c 'KERNEL=="0000:0[456]:00.0", RUN+="/usr/bin/setpci -s $kernel CAP_EXP+8.w=5000:7000"' "$work/mrrs-fixed/etc/udev/rules.d/90-pcie-max-read-request.rules")" = 3 ] &&
	ok "3 setpci lines applied, 3 udev rules written" || bad "$nset setpci lines applied; rules: $(cat "$work/mrrs-fixed/etc/udev/rules.d/"* 2> /dev/null | head -3)"
rm -f "$work/real/etc/rdma-doctor.conf"

# gdr.iommu: the default boot's DMA-FQ WARNs, with iommu=pt as the fix
chk real gdr.iommu
jqt real gdr.iommu "WARN: GPU group 8, mlx5_0 group 9, DMA-FQ, fix iommu=pt" \
	'[.findings[] | .status] == ["WARN"] and (.findings[0].message | contains("(IOMMU group 8, DMA-FQ)")) and
	 (.findings[0].message | contains("IOMMU group 9, DMA-FQ")) and (.findings[0].fix | any(startswith("the kernel parameter iommu=pt")))'
word=$(jq -r '.findings[0].fix[0] | capture("the kernel parameter (?<w>[a-z_]+=[a-z]+) ").w' "$work/real.gdr.iommu.json" 2> /dev/null)
[ $replay = 0 ] && boot q35pt "$word"
[ $replay = 0 ] && [ $all = 1 ] && boot q35off intel_iommu=off
if [ -d "$out/q35pt/tree" ]; then
	grep -qw -- "$word" "$out/q35pt/tree/proc/cmdline" && ok "q35pt: booted with the printed fix's $word" || bad "q35pt: no ${word:-<no word>} on its command line"
	root q35pt pt
	chk pt gdr.iommu
	jqt pt gdr.iommu "after the fix: OK, identity (the IOMMU passes their DMA through)" \
		'[.findings[] | .status] == ["OK"] and (.findings[0].message | contains("(IOMMU group 8, identity)")) and (.findings[0].message | contains("passes their DMA through"))'
	[ "$(cat "$out/q35pt/tree/sys/kernel/iommu_groups/8/type")" = identity ] && ok "q35pt: /sys/kernel/iommu_groups/8/type identity, as the fix's check line says" ||
		bad "q35pt: group 8 is $(cat "$out/q35pt/tree/sys/kernel/iommu_groups/8/type" 2> /dev/null)"
	chk pt gdr.acs
	jqt pt gdr.acs "with iommu=pt the same ACS verdict" '[.findings[] | .status] == ["OK"]'
	# iommu=pt keeps the IOMMU, so the kernel still sets ACS on the root ports
	ctl=$(awk '/ACSCtl:/ { sub(/.*ACSCtl:[ \t]*/, ""); print }' "$out/q35pt/s/lspci.out" | sort | uniq -c | sed 's/^ *//')
	[ "$ctl" = "3 $red" ] && ok "q35pt: the root ports' ACSCtl still $red" || bad "q35pt: ACSCtl lines: $ctl"
fi
if [ -d "$out/q35off/tree" ]; then
	[ -z "$(ls "$out/q35off/tree/sys/kernel/iommu_groups")" ] && ok "q35off: no IOMMU group" || bad "q35off: IOMMU groups"
	root q35off off
	chk off gdr.iommu
	jqt off gdr.iommu "intel_iommu=off: OK, no IOMMU translates" '[.findings[] | .status] == ["OK"] and (.findings[0].message | contains("no IOMMU translates their DMA"))'
	# without the IOMMU the kernel leaves ACS off (nobody requested it)
	ctl=$(awk '/ACSCtl:/ { sub(/.*ACSCtl:[ \t]*/, ""); print }' "$out/q35off/s/lspci.out" | sort | uniq -c | sed 's/^ *//')
	[ "$ctl" = "3 $none" ] && ok "q35off: the root ports' ACSCtl all - (the kernel requests ACS only with an IOMMU)" ||
		bad "q35off: ACSCtl lines: $ctl"
fi
# the same stand-ins over the guest's live sysfs (guest.sh standin_root): the model reading the
# kernel's own files and config space gives what it gives on the copy, finding for finding
findings() { jq -c '.findings[] | [.check, .status, .subject, .message, .evidence, .fix]' "$1"; }
for p in q35:real q35pt:pt q35off:off; do
	ph=${p%:*} r=${p#*:}
	[ -d "$out/$ph/tree" ] || continue
	"$bin" --root "$work/$r" check --only gdr.path,gdr.acs,gdr.iommu,pcie.link --format json > "$work/$r.live.json" 2> "$work/$r.err"
	n=$(findings "$work/$r.live.json" | wc -l)
	diff <(findings "$out/$ph/s/live-check.out") <(findings "$work/$r.live.json") > "$work/d" && [ "$n" -ge 4 ] &&
		ok "$ph: the check of the live tree inside = the check of its copy here ($n findings)" ||
		{ bad "$ph: the live tree's check differs from the copy's (< live, > copy)"; head -10 "$work/d"; }
done
# (the members a capture may predate, the IOMMU groups and ACS of the paths, are compared where the
# live document has them)
"$bin" --root "$work/real" topo --format json | jq -c 'del(.host)' > "$work/topo.copy"
jq -c 'del(.host)' "$out/q35/s/live-topo.out" > "$work/topo.live" 2> /dev/null
if ! jq -e '.gpus[0] | has("iommu_group")' "$work/topo.live" > /dev/null 2>&1; then
	jq -c 'del(.gpus[].iommu_group, .gpus[].iommu_type, .nics[].iommu_group, .nics[].iommu_type,
		.paths[].acs_redirect, .paths[].acs_unknown)' "$work/topo.copy" > "$work/topo.copy2" && mv "$work/topo.copy2" "$work/topo.copy"
fi
diff "$work/topo.live" "$work/topo.copy" > "$work/d" &&
	ok "q35: topo of the live tree inside = topo of its copy here" || { bad "q35: topo of the live tree differs"; head -5 "$work/d"; }
# the real kernel's IOMMU groups and the root ports' ACS, as topo shows them
jq -e '.gpus[0].iommu_group == "8" and .gpus[0].iommu_type == "DMA-FQ" and ([.nics[].iommu_group] == ["9", "10", "11"]) and
	([.paths[] | select(.from == "GPU0") | .acs_redirect] == [[], ["0000:00:03.0", "0000:00:04.0"], ["0000:00:03.0", "0000:00:05.0"]])' \
	<("$bin" --root "$work/real" topo --format json) > /dev/null &&
	ok "topo: the GPU's and NICs' IOMMU groups (8; 9, 10, 11: DMA-FQ) and the root ports' redirect on the paths through them" ||
	bad "topo: IOMMU groups or ACS: $("$bin" --root "$work/real" topo --format json | jq -c '[.gpus[].iommu_group, .nics[].iommu_group, [.paths[] | .acs_redirect]]')"
for f in "$work"/*.err; do [ -s "$f" ] && bad "$(basename "$f" .err): stderr: $(head -2 "$f")"; done

if [ $update = 1 ] && [ $replay = 0 ]; then
	mkdir -p "$fx"
	for p in q35 q35pt q35off; do
		(cd "$out" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@1764460800 -czf "$fx/$p.tar.gz" "$p")
	done
	cp "$S/lspci.out" "$fx/lspci-vvv-q35.txt"
	cp "$S/lspci-after.out" "$fx/lspci-vvv-q35-after-setpci.txt"
	cp "$out/q35/tree/sys/bus/pci/devices/0000:00:03.0/config" "$fx/root-port-00-03.0-config"
	cp "$out/q35/after/0000:00:03.0.config" "$fx/root-port-00-03.0-config-after-setpci"
	cp "$out/q35/tree/sys/bus/pci/devices/0000:02:00.0/config" "$fx/switch-port-02-00.0-config"
	echo "# fixtures updated in $fx"
fi
ts_finalize
