#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# GPU <-> NIC topology tests: the roots of tests/topo/make.sh (real GPU servers' PCIe trees):
#   * `topo` (text and JSON) and `check --only gdr.path` (text and JSON) equal the goldens in
#     tests/topo/expected/; the JSON parses and the exit status is the worst finding's;
#   * on the roots of a real H200 host and its guest (lstopo captures), every GPU x NIC and NIC x
#     NIC type equals that machine's own `nvidia-smi topo -m`, NCCL's type is nvidia-smi's with
#     NODE as PHB, and gdr.path's verdicts follow from those types;
#   * NCCL_NET_GDR_LEVEL moves the GPUDirect distance as NCCL reads it (SYS: every GPU OK; a value
#     NCCL does not read: its default);
#   * a snapshot of a root gives the same `topo` and gdr.path as the root; the live host's `topo` runs;
#   * gdr.acs (text and JSON) equals its goldens on every root: ACS read from the bridges' config
#     space, from a captured lspci -vvv, redirect bits on bare metal (WARN, with the setpci lines and
#     the boot-time form of the kernel), in a virtual machine (OK), unprivileged config reads
#     (UNKNOWN with the reason); the printed setpci lines, applied to the config files of a copy
#     of the root, make gdr.acs pass there;
#   * gdr.iommu: no IOMMU, translating domains (WARN with the kernel command-line fix), passthrough,
#     a root that does not say (UNKNOWN);
#   * gdr.mode: DMA-BUF, nvidia_peermem or none, NCCL_DMABUF_ENABLE and NCCL_NET_GDR_LEVEL as NCCL
#     reads them, a root without /proc (UNKNOWN);
#   * /proc/config.gz where /boot has no config (bounded, damaged, in a snapshot);
#   * explain on NCCL's "GPU Direct RDMA Disabled" lines: confirmed or ruled out by gdr.mode and gdr.path;
#   * a host without GPUs (every scenario root of tests/scenarios/make.sh: no PCIe hierarchy) SKIPs.
# Usage: tests/topo/run.sh [BUILD_DIR] [--update]     Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build update=0
for a in "$@"; do case "$a" in --update) update=1 ;; *) build=$(cd "$a" && pwd) ;; esac; done
bin=$build/rdma-doctor
exp=$top/tests/topo/expected
. "$top/tests/lib.sh"
ts_init
ts_scratch topo
command -v jq > /dev/null || ts_die "jq is required"
unset NCCL_NET_GDR_LEVEL
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
"$top/tests/topo/make.sh" "$work" || ts_die "make.sh"
cd "$work" || exit 1

# golden NAME FILE: FILE equals expected/NAME (written with --update)
golden() {
	[ $update = 1 ] && cp "$2" "$exp/$1"
	if cmp -s "$2" "$exp/$1"; then ok; else bad "$1 differs from the golden"; diff "$exp/$1" "$2" | head -10; fi
}
for r in h100-pex890xx h100-nics-on-socket1 h100-nics-two-host-bridges ibm-h100-vsi h200-host h200-guest; do
	"$bin" --root "$r" topo > "$r.topo.txt" 2> "$r.err" && ok || bad "$r: topo exit $?"
	"$bin" --root "$r" topo --format json > "$r.topo.json" 2>> "$r.err" && ok || bad "$r: topo --format json exit $?"
	"$bin" --root "$r" check --only gdr.path > "$r.gdr.txt" 2>> "$r.err"; rc_text=$?
	"$bin" --root "$r" check --only gdr.path --format json > "$r.gdr.json" 2>> "$r.err"; rc_json=$?
	[ -s "$r.err" ] && bad "$r: stderr: $(head -3 "$r.err")"
	for k in topo.txt topo.json gdr.txt gdr.json; do golden "$r.$k" "$r.$k"; done
	jq -e '.schema == "rdma-doctor/topo/v1" and (.gpus|length) == 8 and all(.paths[]; .type|IN("PIX","PXB","PHB","NODE","SYS"))
		and ([.paths[] | select(.from|startswith("GPU")) | select(.to|startswith("NIC"))] | length) == 8 * (.nics|length)' \
		"$r.topo.json" > /dev/null && ok || bad "$r: topo JSON invalid"
	want=$(jq -r '.summary.exit_code' "$r.gdr.json")
	[ "$rc_text" = "$want" ] && [ "$rc_json" = "$want" ] && ok || bad "$r: exit $rc_text/$rc_json, summary says $want"
done
# what each tree must give: every GPU OK; the 4 GPUs of socket 0 WARN SYS; 6 GPUs WARN NODE
st() { jq -r "[.findings[] | select(.status == \"$2\")] | length" "$1.gdr.json"; }
[ "$(st h100-pex890xx OK)" = 8 ] && ok || bad "h100-pex890xx: not 8 OK"
[ "$(st h100-nics-on-socket1 WARN)" = 4 ] && grep -q 'is SYS' h100-nics-on-socket1.gdr.txt && ok || bad "h100-nics-on-socket1: not 4 WARN SYS"
[ "$(st h100-nics-two-host-bridges WARN)" = 6 ] && grep -q 'is NODE' h100-nics-two-host-bridges.gdr.txt && ok ||
	bad "h100-nics-two-host-bridges: not 6 WARN NODE"
# each GPU's NIC on its own switch is PIX, as nvidia-smi prints it on such hosts
jq -e '[.paths[] | select(.from == "GPU0" and .to == "NIC0")][0] | .type == "PIX" and .nccl_type == "PIX" and .gdr == true
	and .via == ["0000:17:01.0","0000:16:00.0","0000:17:02.0"]' h100-pex890xx.topo.json > /dev/null && ok || bad "GPU0-NIC0 not PIX"

# nccl_xml_types XML: each GPU x NIC of an NCCL topology file as "GPU-busid NIC-name type", the type
# computed on the file's own tree by NCCL's rules (paths.cc ncclTopoSetPaths): both below one <pci>
# PIX, below one <pci> farther up PXB, on one <cpu> PHB, else SYS.  The Broadcom flattening
# (topo.cc ncclTopoFlattenBcmSwitches) is not modelled: a file with a PEX switch that has it stops.
nccl_xml_types() {
	awk '
	function attr(k,   m) { if (match($0, " " k "=\"[^\"]*\"")) { m = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", m); sub(/"$/, "", m); return m } return "" }
	/<cpu / { cpu++; depth = 0 }
	/<pci / { b = attr("busid"); up[b] = depth ? stk[depth] : ""; cpuof[b] = cpu; stk[++depth] = b
		if (attr("vendor") == "0x1000" && attr("subsystem_vendor") == "0x1000") { print "flattened Broadcom switch " b > "/dev/stderr"; exit 1 } }
	/<gpu / { gpu[++ng] = stk[depth] }
	/<net / && !(stk[depth] in nic) { nic[stk[depth]] = attr("name"); nics[++nn] = stk[depth] }
	/<\/pci>/ { depth-- }
	END { for (i = 1; i <= ng; i++) for (j = 1; j <= nn; j++) { g = gpu[i]; n = nics[j]; t = ""
		if (up[g] != "" && up[g] == up[n]) t = "PIX"
		else for (a = up[g]; a != "" && t == ""; a = up[a]) for (c = up[n]; c != ""; c = up[c]) if (a == c) { t = "PXB"; break }
		if (t == "") t = cpuof[g] == cpuof[n] ? "PHB" : "SYS"
		print g, nic[n], t } }' "$1"
}
# topo's NCCL type of every GPU x NIC cell (the NIC by its RDMA device) equals NCCL's on the
# published topology file the root was built from, cell by cell
for x in ibm-h100-vsi; do
	nccl_xml_types "$top/tests/topo/captures/$x.topo.xml" | sort > "$x.nccl-want" || bad "$x: the NCCL types of the capture"
	jq -r '(.gpus | map({key: .name, value: .pci}) | from_entries) as $g | (.nics | map({key: .name, value: .device}) | from_entries) as $n
		| .paths[] | select((.from | startswith("GPU")) and (.to | startswith("NIC"))) | "\($g[.from]) \($n[.to]) \(.nccl_type)"' \
		"$x.topo.json" | sort > "$x.nccl-got"
	cells=$(wc -l < "$x.nccl-want") same=$(comm -12 "$x.nccl-want" "$x.nccl-got" | wc -l)
	[ "$cells" = 64 ] && [ "$same" = "$cells" ] && cmp -s "$x.nccl-want" "$x.nccl-got" && ok ||
		bad "$x: $same of $cells GPU x NIC cells agree with NCCL's types: $(diff "$x.nccl-want" "$x.nccl-got" | head -4)"
done

# smi_types TOPO: the GPU x NIC and NIC x NIC cells of a captured `nvidia-smi topo -m` as
# "GPUi mlx5_N TYPE" and "mlx5_M mlx5_N TYPE" (M before N; the NICs by the NIC Legend's RDMA devices, the GPUs
# by nvidia-smi's index, which is their PCI order); stops on a cell that is no PCIe type
smi_types() {
	awk '
	/^NIC Legend:/ { legend = 1; next }
	legend && $1 ~ /^NIC[0-9]+:$/ { sub(/:$/, "", $1); dev[$1] = $2; next }
	!ncol && $1 == "GPU0" { for (i = 1; i <= NF && $i != "CPU"; i++) col[++ncol] = $i; next }
	ncol && ($1 ~ /^GPU[0-9]+$/ || $1 ~ /^NIC[0-9]+$/) { for (i = 1; i <= ncol; i++) cell[$1, col[i]] = $(i + 1); rows[++nr] = $1 }
	END { for (r = 1; r <= nr; r++) for (i = 1; i <= ncol; i++) { a = rows[r]; b = col[i]
		if (b !~ /^NIC/ || a == b || (a ~ /^NIC/ && a > b)) continue
		t = cell[a, b]; if (t !~ /^(PIX|PXB|PHB|NODE|SYS)$/ || !(b in dev) || (a ~ /^NIC/ && !(a in dev))) { print "cell " a " " b ": " t > "/dev/stderr"; exit 1 }
		x = a ~ /^NIC/ ? dev[a] : a; y = dev[b]; if (a ~ /^NIC/ && x > y) { z = x; x = y; y = z }
		print x, y, t } }' "$1"
}
# topo's cells on the roots built from a machine's lstopo equal that machine's nvidia-smi topo -m,
# cell by cell: the type (nvidia-smi's names), and NCCL's type with nvidia-smi's NODE and PHB both
# NCCL's PHB (topo.h: NCCL has no NODE; the roots have no Broadcom switch ids, so nothing is
# flattened and NCCL's PIX and PXB are nvidia-smi's); gdr.path follows: each GPU's nearest NIC
# within NCCL's default PXB is OK
for x in h200-host h200-guest; do
	smi_types "$top/tests/topo/captures/$x.nvidia-smi-topo" | sort > "$x.smi-want" || bad "$x: the cells of the nvidia-smi capture"
	jq -r '(.gpus | sort_by(.pci) | to_entries | map({key: .value.name, value: "GPU\(.key)"}) | from_entries) as $g
		| (.nics | map({key: .name, value: .device}) | from_entries) as $n
		| .paths[] | select(.to | startswith("NIC"))
		| "\(if (.from | startswith("GPU")) then "\($g[.from]) \($n[.to])" else [$n[.from], $n[.to]] | sort | join(" ") end) \(.type)"' \
		"$x.topo.json" | sort > "$x.smi-got"
	cells=$(wc -l < "$x.smi-want") same=$(comm -12 "$x.smi-want" "$x.smi-got" | wc -l)
	[ "$cells" = 38 ] && [ "$same" = "$cells" ] && cmp -s "$x.smi-want" "$x.smi-got" && ok ||
		bad "$x: $same of $cells cells agree with nvidia-smi topo -m: $(diff "$x.smi-want" "$x.smi-got" | head -4)"
	jq -e 'all(.paths[] | select(.to | startswith("NIC")); .nccl_type == ({"PIX": "PIX", "PXB": "PXB", "PHB": "PHB", "NODE": "PHB", "SYS": "SYS"}[.type]))' \
		"$x.topo.json" > /dev/null && ok || bad "$x: NCCL's type is not nvidia-smi's with NODE as PHB"
	# the verdict from the types: every GPU has a NIC at PIX or PXB, so all 8 OK, each naming its nearest
	want=$(awk '$1 ~ /^GPU/ { r = $3 == "PIX" ? 0 : $3 == "PXB" ? 1 : 2; if (!($1 in b) || r < b[$1]) { b[$1] = r; t[$1] = $3 } }
		END { for (g in b) print g, t[g] }' "$x.smi-want" | sort)
	got=$(jq -r '(input.gpus | sort_by(.pci) | to_entries | map({key: .value.pci, value: "GPU\(.key)"}) | from_entries) as $g
		| .findings[] | select(.status == "OK") | "\($g[.subject]) \(.message | capture(" is (?<t>[A-Z]+),").t)"' "$x.gdr.json" "$x.topo.json" | sort)
	[ "$(st "$x" OK)" = 8 ] && [ -n "$want" ] && [ "$want" = "$got" ] && ok || bad "$x: gdr.path is not 8 OK at nvidia-smi's nearest types: $got"
	# each GPU's NUMA node is nvidia-smi's NUMA Affinity (the column after CPU Affinity)
	want=$(awk '/^NIC Legend:/ { exit } !n && $1 == "GPU0" { for (i = 1; i <= NF && $i != "CPU"; i++) n++; next }
		n && $1 ~ /^GPU[0-9]+$/ { print $1, $(n + 3) }' "$top/tests/topo/captures/$x.nvidia-smi-topo")
	got=$(jq -r '.gpus | sort_by(.pci) | to_entries[] | "GPU\(.key) \(.value.numa_node)"' "$x.topo.json")
	[ "$(wc -l <<< "$want")" = 8 ] && [ "$want" = "$got" ] && ok || bad "$x: the GPUs' NUMA nodes are not nvidia-smi's: $got"
done

# the guest's capture lists all its RDMA devices: topo's own labels (GPUi in PCI order, NICk in
# RDMA device name order) are nvidia-smi's, so the two matrices read the same cell for cell
awk '/^NIC Legend:/ { exit } !n && $1 == "GPU0" { for (i = 1; i <= NF && $i != "CPU"; i++) col[++n] = $i; next }
	n && $1 ~ /^GPU[0-9]+$/ { for (i = 1; i <= n; i++) if (col[i] ~ /^NIC/) print $1, col[i], $(i + 1) }' \
	"$top/tests/topo/captures/h200-guest.nvidia-smi-topo" | sort > guest.labels-want
jq -r '.paths[] | select((.from | startswith("GPU")) and (.to | startswith("NIC"))) | "\(.from) \(.to) \(.type)"' h200-guest.topo.json |
	sort > guest.labels-got
[ "$(wc -l < guest.labels-want)" = 32 ] && cmp -s guest.labels-want guest.labels-got && ok ||
	bad "h200-guest: topo's GPUi-NICk cells are not nvidia-smi's: $(diff guest.labels-want guest.labels-got | head -4)"

# NCCL_NET_GDR_LEVEL: SYS lets every GPU use a NIC across the sockets; PHB does not; a word NCCL does
# not read leaves its default
NCCL_NET_GDR_LEVEL=SYS "$bin" --root h100-nics-on-socket1 check --only gdr.path > env.txt; rc=$?
[ $rc = 0 ] && grep -q 'NCCL_NET_GDR_LEVEL=SYS (SYS)' env.txt && ok || bad "NCCL_NET_GDR_LEVEL=SYS: exit $rc"
NCCL_NET_GDR_LEVEL=3 "$bin" --root h100-nics-on-socket1 check --only gdr.path > env.txt; rc=$?
[ $rc = 1 ] && grep -q 'NCCL_NET_GDR_LEVEL=3 (PHB)' env.txt && ok || bad "NCCL_NET_GDR_LEVEL=3: exit $rc"
NCCL_NET_GDR_LEVEL=3 "$bin" --root h100-nics-two-host-bridges check --only gdr.path > env.txt; rc=$?
[ $rc = 0 ] && ok || bad "NCCL_NET_GDR_LEVEL=3 on NODE paths: exit $rc"
NCCL_NET_GDR_LEVEL=node "$bin" --root h100-nics-two-host-bridges check --only gdr.path > env.txt; rc=$?
[ $rc = 1 ] && grep -q 'NCCL_NET_GDR_LEVEL=node is no level NCCL reads' env.txt && ok || bad "NCCL_NET_GDR_LEVEL=node: exit $rc"
NCCL_NET_GDR_LEVEL=PIX "$bin" --root h100-pex890xx topo | grep -qx 'NCCL uses GPUDirect RDMA up to PIX (NCCL_NET_GDR_LEVEL=PIX).' && ok ||
	bad "topo does not say NCCL_NET_GDR_LEVEL"

# a snapshot of the root: the same topology and findings
if "$bin" --root h100-nics-two-host-bridges snapshot -o snap.tar.gz > /dev/null 2> snap.err; then
	"$bin" --root snap.tar.gz topo > snap.topo.txt && cmp -s snap.topo.txt h100-nics-two-host-bridges.topo.txt && ok ||
		bad "topo of the snapshot differs: $(diff h100-nics-two-host-bridges.topo.txt snap.topo.txt | head -5)"
	"$bin" --root snap.tar.gz check --only gdr.path | tail -n +2 > snap.gdr.txt
	tail -n +2 h100-nics-two-host-bridges.gdr.txt | cmp -s - snap.gdr.txt && ok || bad "gdr.path of the snapshot differs"
else
	bad "snapshot: $(head -3 snap.err)"
fi
# the live host (this machine): topo runs, whatever it has
"$bin" topo > live.txt 2> live.err && ok || bad "live topo: exit $?: $(head -2 live.err)"
"$bin" topo --format json | jq -e '.schema == "rdma-doctor/topo/v1"' > /dev/null && ok || bad "live topo --format json"
# usage errors
"$bin" topo extra > /dev/null 2> use.err; rc=$?
[ $rc = 3 ] && grep -q "unexpected argument .extra." use.err && ok || bad "topo with an operand: exit $rc"

# check_goldens CHECK KEY ROOT...: `check --only CHECK` of each ROOT, text and JSON, equal the goldens
# ROOT.KEY.txt and ROOT.KEY.json, nothing on stderr, the exit status the summary's
check_goldens() {
	local c=$1 k=$2 r rc_text rc_json want
	shift 2
	for r in "$@"; do
		"$bin" --root "$r" check --only "$c" > "$r.$k.txt" 2> "$r.err"; rc_text=$?
		"$bin" --root "$r" check --only "$c" --format json > "$r.$k.json" 2>> "$r.err"; rc_json=$?
		[ -s "$r.err" ] && bad "$r: $c stderr: $(head -3 "$r.err")"
		golden "$r.$k.txt" "$r.$k.txt"
		golden "$r.$k.json" "$r.$k.json"
		want=$(jq -r '.summary.exit_code' "$r.$k.json")
		[ "$rc_text" = "$want" ] && [ "$rc_json" = "$want" ] && ok || bad "$r: $c exit $rc_text/$rc_json, summary says $want"
	done
}
# gdr.acs on every root: the goldens, the exit status, what each root must give
check_goldens gdr.acs acs h100-pex890xx h100-nics-on-socket1 h100-nics-two-host-bridges h100-acs-redirect h100-acs-redirect-6.12 \
	h100-acs-vm h100-acs-lspci h100-acs-unpriv
# acs ROOT STATUS COUNT [JQ]: COUNT findings of ROOT have STATUS (and JQ)
acs() { [ "$(jq "[.findings[] | select(.status == \"$2\") | select(${4:-true})] | length" "$1.acs.json")" = "$3" ]; }
acs h100-pex890xx OK 8 '.evidence | any(.path | endswith("/config"))' && ok || bad "h100-pex890xx: gdr.acs not 8 OK from config space"
acs h100-nics-on-socket1 SKIP 4 && acs h100-nics-on-socket1 OK 4 && ok || bad "h100-nics-on-socket1: gdr.acs not 4 SKIP (SYS) 4 OK"
acs h100-acs-redirect WARN 8 '(.fix | any(startswith("setpci -s 0000:"))) and (.fix | any(contains("BIOS"))) and (.fix | all(contains("config_acs=0") | not))' &&
	ok || bad "h100-acs-redirect: gdr.acs not 8 WARN with setpci and the BIOS setting"
jq -e '[.findings[] | select(.subject == "0000:19:00.0")][0].fix[0:2] == ["setpci -s 0000:17:01.0 ECAP_ACS+0x6.w=0000   # as root; until the next boot",
	"setpci -s 0000:17:02.0 ECAP_ACS+0x6.w=0000   # as root; until the next boot"]' h100-acs-redirect.acs.json > /dev/null && ok ||
	bad "h100-acs-redirect: GPU 0000:19:00.0's setpci lines are not its two switch ports'"
acs h100-acs-redirect-6.12 WARN 8 '.fix | any(contains("pci=config_acs=0000000@0000:"))' && ok || bad "h100-acs-redirect-6.12: no pci=config_acs= fix"
acs h100-acs-vm OK 8 '.message | contains("virtual machine (/sys/class/dmi/id/sys_vendor QEMU)")' && ok || bad "h100-acs-vm: not 8 OK in a VM"
acs h100-acs-lspci OK 8 '.evidence | any(.path | startswith("lspci -vvv"))' && ok || bad "h100-acs-lspci: not 8 OK from lspci -vvv"
acs h100-acs-unpriv UNKNOWN 8 '.message | contains("only the first 64 bytes of its config space are readable")' && ok ||
	bad "h100-acs-unpriv: not 8 UNKNOWN with the reason"
# the fix: each printed setpci line, run with a setpci that writes the copy's config files, clears the redirect
cp -a h100-acs-redirect acs-fixed
setpci() { # -s BDF ECAP_ACS+0x6.w=HEX, on the copy: finds the ACS capability in the extended list
	[ "$1" = -s ] && [ "${3%%=*}" = ECAP_ACS+0x6.w ] || return 1
	local f=acs-fixed/sys/bus/pci/devices/$2/config pos=256 h v=$((16#${3#*=})) n=0
	while h=$(od -An -tu4 -j $pos -N4 "$f" | tr -d ' ') && [ -n "$h" ] && [ "$h" != 0 ] && [ $n -lt 64 ]; do
		if [ $((h & 0xffff)) = 13 ]; then
			printf "$(printf '\\x%02x\\x%02x' $((v & 255)) $((v >> 8)))" | dd of="$f" bs=1 seek=$((pos + 6)) conv=notrunc status=none
			return
		fi
		pos=$(((h >> 20) & 0xffc)) n=$((n + 1))
	done
	return 1
}
nset=0
while read -r line; do
	set -- $line
	setpci "$2" "$3" "$4" && nset=$((nset + 1)) || bad "setpci did not apply: $line"
done < <(jq -r '.findings[].fix[]? | select(startswith("setpci ")) | sub(" *#.*"; "")' h100-acs-redirect.acs.json | sort -u)
"$bin" --root acs-fixed check --only gdr.acs --format json > acs-fixed.json; rc=$?
[ $nset = 16 ] && [ $rc = 0 ] && jq -e 'all(.findings[]; .status == "OK")' acs-fixed.json > /dev/null && ok ||
	bad "after the $nset setpci lines gdr.acs is not OK (exit $rc)"
# a snapshot of a root with the lspci capture: the same gdr.acs
if "$bin" --root h100-acs-lspci snapshot -o acs-snap.tar.gz > /dev/null 2> snap.err; then
	"$bin" --root acs-snap.tar.gz check --only gdr.acs | tail -n +2 | cmp -s - <(tail -n +2 h100-acs-lspci.acs.txt) && ok ||
		bad "gdr.acs of the snapshot differs"
else
	bad "snapshot of h100-acs-lspci: $(head -3 snap.err)"
fi

# gdr.iommu: no IOMMU on the roots without groups, DMA-FQ WARNs with the command-line fix, identity OK
check_goldens gdr.iommu iommu h100-pex890xx h100-iommu-dma h100-iommu-pt
ist() { jq -r "[.findings[] | select(.status == \"$2\") | select(${3:-true})] | length" "$1"; }
[ "$(ist h100-pex890xx.iommu.json OK '.message | contains("no IOMMU translates")')" = 8 ] && ok || bad "h100-pex890xx: gdr.iommu not 8 OK without IOMMU"
[ "$(ist h100-iommu-dma.iommu.json WARN '(.message | contains("DMA-FQ")) and (.fix | any(contains("iommu=pt")))
	and (.fix | any(contains("GRUB_CMDLINE_LINUX"))) and (.fix | any(contains("/etc/kernel/cmdline")))')" = 8 ] && ok ||
	bad "h100-iommu-dma: gdr.iommu not 8 WARN with the iommu=pt fix"
[ "$(ist h100-iommu-pt.iommu.json OK '.message | contains("passes their DMA through")')" = 8 ] && ok || bad "h100-iommu-pt: gdr.iommu not 8 OK"
# a root that does not say (no proc/sys/kernel, no sys/kernel/iommu_groups): UNKNOWN, never OK
cp -a h100-pex890xx iommu-unsaid && rm -rf iommu-unsaid/proc
"$bin" --root iommu-unsaid check --only gdr.iommu --format json > iommu-unsaid.json
[ "$(ist iommu-unsaid.json UNKNOWN)" = 8 ] && ok || bad "a root without IOMMU state: gdr.iommu not UNKNOWN"

# gdr.mode: one finding per root, DMA-BUF, nvidia_peermem or none, as NCCL's variables move it
check_goldens gdr.mode mode h100-pex890xx h100-nics-on-socket1 h100-mode-dmabuf h100-mode-peermem h100-mode-none
mode() { jq -r '[.findings[] | select(.check == "gdr.mode")] | if length == 1 then .[0].status + " " + .[0].message else "findings: \(length)" end' "$1"; }
case "$(mode h100-mode-dmabuf.mode.json)" in "OK NCCL will use DMA-BUF, because the kernel 6.8.0-49-generic"*) ok ;;
	*) bad "h100-mode-dmabuf: $(mode h100-mode-dmabuf.mode.json)" ;; esac
case "$(mode h100-mode-peermem.mode.json)" in "OK NCCL will use nvidia_peermem, because /sys/module/nvidia_peermem/version exists and not DMA-BUF: the NVIDIA driver is the proprietary"*) ok ;;
	*) bad "h100-mode-peermem: $(mode h100-mode-peermem.mode.json)" ;; esac
case "$(mode h100-mode-none.mode.json)" in "WARN NCCL will use no GPUDirect RDMA, because not DMA-BUF: the NVIDIA driver is the proprietary"*) ok ;;
	*) bad "h100-mode-none: $(mode h100-mode-none.mode.json)" ;; esac
case "$(mode h100-pex890xx.mode.json)" in "WARN NCCL will use no GPUDirect RDMA, because not DMA-BUF: the NVIDIA kernel driver is not loaded"*) ok ;;
	*) bad "h100-pex890xx: $(mode h100-pex890xx.mode.json)" ;; esac
case "$(mode h100-nics-on-socket1.mode.json)" in *"4 of the 8 GPUs have no RDMA NIC within NCCL_NET_GDR_LEVEL (PXB)"*) ok ;;
	*) bad "h100-nics-on-socket1: $(mode h100-nics-on-socket1.mode.json)" ;; esac
NCCL_DMABUF_ENABLE=0 "$bin" --root h100-mode-dmabuf check --only gdr.mode --format json > env.json
case "$(mode env.json)" in "WARN NCCL will use no GPUDirect RDMA, because not DMA-BUF: NCCL_DMABUF_ENABLE=0 turns it off"*) ok ;;
	*) bad "NCCL_DMABUF_ENABLE=0: $(mode env.json)" ;; esac
NCCL_DMABUF_ENABLE=yes "$bin" --root h100-mode-dmabuf check --only gdr.mode --format json > env.json
case "$(mode env.json)" in "OK NCCL will use DMA-BUF"*) ok ;; *) bad "NCCL_DMABUF_ENABLE=yes (not a number NCCL reads): $(mode env.json)" ;; esac
NCCL_NET_GDR_LEVEL=LOC "$bin" --root h100-mode-dmabuf check --only gdr.mode --format json > env.json
case "$(mode env.json)" in "WARN NCCL will use no GPUDirect RDMA, because no GPU has an RDMA NIC within NCCL_NET_GDR_LEVEL (LOC)"*) ok ;;
	*) bad "NCCL_NET_GDR_LEVEL=LOC: $(mode env.json)" ;; esac
# a root without /proc: the driver cannot be told, never a false verdict
cp -a h100-mode-none mode-unsaid && rm -rf mode-unsaid/proc
"$bin" --root mode-unsaid check --only gdr.mode --format json > env.json
case "$(mode env.json)" in "UNKNOWN NCCL will use DMA-BUF if this host supports it, which cannot be told"*) ok ;;
	*) bad "a root without /proc: $(mode env.json)" ;; esac

# no /boot/config-RELEASE: the running kernel's /proc/config.gz (CONFIG_IKCONFIG_PROC), decompressed
# (bounded), gives the same verdict; one that is not gzip, or too big once decompressed, is UNKNOWN
cp -a h100-mode-dmabuf mode-gz && gzip -c mode-gz/boot/config-6.8.0-49-generic > mode-gz/proc/config.gz && rm mode-gz/boot/config-6.8.0-49-generic
"$bin" --root mode-gz check --only gdr.mode --format json > env.json
case "$(mode env.json)" in "OK NCCL will use DMA-BUF"*) ok ;; *) bad "/proc/config.gz: $(mode env.json)" ;; esac
jq -e '[.findings[0].evidence[] | select(.path == "/proc/config.gz") | .value] == ["CONFIG_DMA_SHARED_BUFFER=y CONFIG_PCI_P2PDMA=y"]' env.json > /dev/null &&
	ok || bad "/proc/config.gz: not in the evidence"
if "$bin" --root mode-gz snapshot -o mode-gz.tar.gz > /dev/null 2>&1; then
	"$bin" --root mode-gz.tar.gz check --only gdr.mode --format json > env2.json
	[ "$(mode env2.json)" = "$(mode env.json)" ] && ok || bad "the snapshot of a /proc/config.gz root: $(mode env2.json)"
else
	bad "snapshot of mode-gz"
fi
head -c 20000000 /dev/zero | gzip -c > mode-gz/proc/config.gz
"$bin" --root mode-gz check --only gdr.mode --format json > env.json
case "$(mode env.json)" in *"(/proc/config.gz: more than 16777216 bytes once decompressed)"*) ok ;; *) bad "a gzip bomb: $(mode env.json)" ;; esac
printf 'CONFIG_DMA_SHARED_BUFFER=y\n' > mode-gz/proc/config.gz
"$bin" --root mode-gz check --only gdr.mode --format json > env.json
case "$(mode env.json)" in "UNKNOWN "*"(/proc/config.gz: not a gzip stream"*) ok ;; *) bad "config.gz not gzip: $(mode env.json)" ;; esac

# explain on NCCL's "GPU Direct RDMA Disabled for HCA" line (NVIDIA/nccl #1537, #1939): gdr.mode's
# decision confirms "neither DMA-BUF nor nvidia_peermem" where it says none, rules it out where NCCL
# has either; and the line of a GPU beyond NCCL_NET_GDR_LEVEL is gdr.path's
gdrline="hostname1:25668:27396 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'"
verdict() { printf '%s\n' "$2" | "$bin" --root "$1" explain --format json - |
	jq -r --arg c "$3" '[.matches[].causes[] | select(.id == $c) | .verdict] | join(",")'; }
[ "$(verdict h100-mode-none "$gdrline" gdr-none)" = confirmed ] && ok || bad "explain on h100-mode-none: gdr-none $(verdict h100-mode-none "$gdrline" gdr-none)"
[ "$(verdict h100-mode-dmabuf "$gdrline" gdr-none)" = "ruled out" ] && ok || bad "explain on h100-mode-dmabuf: gdr-none $(verdict h100-mode-dmabuf "$gdrline" gdr-none)"
[ "$(verdict h100-mode-peermem "$gdrline" gdr-none)" = "ruled out" ] && ok || bad "explain on h100-mode-peermem: gdr-none $(verdict h100-mode-peermem "$gdrline" gdr-none)"
farline="gpu-a01:21811:21811 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 0 / HCA 0 (distance 8 > 5)"
[ "$(verdict h100-nics-two-host-bridges "$farline" gdr-too-far)" = confirmed ] && ok || bad "explain: gdr-too-far not confirmed where gdr.path WARNs"
[ "$(printf '%s\n' "$farline" | "$bin" --root h100-pex890xx explain --format json - | jq -r '[.matches[].signature] | join(",")')" = nccl.gdr_distance ] &&
	ok || bad "the distance line is not nccl.gdr_distance alone"

# hosts without a PCIe hierarchy or GPUs: SKIP, never a false finding
"$top/tests/scenarios/make.sh" scen > /dev/null 2>&1 || bad "tests/scenarios/make.sh"
n=0 skip=0
for r in scen/*/ "$top"/examples/*/; do
	n=$((n + 1))
	"$bin" --root "$r" check --only gdr.path,gdr.acs,gdr.iommu,gdr.mode --format json > skip.json # (exit 3: all SKIP)
	jq -e '(.findings | length) == 4 and all(.findings[]; .status == "SKIP")' skip.json > /dev/null && skip=$((skip + 1)) ||
		echo "not SKIP: $r"
done
[ $n -gt 0 ] && [ $skip = $n ] && ok || bad "the gdr.* checks did not SKIP on $((n - skip)) of $n scenario and example roots"

# the report's gpudirect object: the IOMMU types as read; a hostile root's empty or odd type files
# are unreadable (null), never a crash or a guess
jq -e '.gpudirect.iommu == "DMA-FQ" and (.gpudirect.gpus | length) == 8' <("$bin" --root h100-iommu-dma check --format json) > /dev/null &&
	ok || bad "gpudirect.iommu of h100-iommu-dma is not DMA-FQ"
cp -a h100-iommu-dma iommu-hostile
for f in $(find iommu-hostile/sys/kernel/iommu_groups -name type); do : > "$f"; done
echo DMA-FQ > "$(find iommu-hostile/sys/kernel/iommu_groups -name type | head -1)"
"$bin" --root iommu-hostile check --format json > hostile.json; rc=$?
[ $rc -lt 128 ] && jq -e '.gpudirect.iommu == null' hostile.json > /dev/null && ok || bad "empty iommu type files: exit $rc, iommu $(jq -c .gpudirect.iommu hostile.json)"
printf 'DMA-FQ\033[2J,x\n' > "$(find iommu-hostile/sys/kernel/iommu_groups -name type | head -1)"
"$bin" --root iommu-hostile check --format json > hostile.json; rc=$?
[ $rc -lt 128 ] && jq -e '.gpudirect.iommu == null' hostile.json > /dev/null && ok || bad "a type with control bytes: exit $rc, iommu $(jq -c .gpudirect.iommu hostile.json)"

ts_finalize
