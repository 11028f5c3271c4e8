#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# make.sh OUTDIR — GPU servers' PCIe trees as sysfs roots for `topo` and gdr.path (tests/topo/run.sh).
# Each function of a tree gets its directory below its parent's in sys/devices, its
# sys/bus/pci/devices link, vendor, device, subsystem ids, class and numa_node; each RDMA NIC an
# sys/class/infiniband entry named in PCI order (the order mlx5_core probes them).
#
# SOURCES
#   h100-pex890xx: the real `lspci -vvv` of an 8x H100 SXM (10de:2330) host with 8 ConnectX-7
#     (15b3:1021) and 2 ConnectX-6 Dx (15b3:101d) functions behind Broadcom PEX890xx Gen5 switches
#     (1000:c030, subsystem 1028:224b), two sockets: leptonai/gpud at 4a8de33a,
#     pkg/pci/testdata/lspci-vvv.  The tree below is that capture's: each bridge's "Bus: secondary="
#     gives the parent of the functions on that bus, a bus no bridge leads to is a root bus
#     (pciDDDD:BB), "NUMA node:" the numa_node; only the GPUs, the Mellanox functions and the bridges
#     above them are kept.  No `nvidia-smi topo -m` of that host is published: its GPU-NIC types are
#     NCCL's rules applied to the tree (each GPU PIX to the ConnectX-7 on its switch, NODE to the
#     NICs of the other host bridges of its socket, SYS to the other socket's).
#   ibm-h100-vsi: IBM Cloud's published NCCL topology file of its gx3d-160x1792x8h100 virtual server
#     (8x H100 SXM 10de:2330, 8 ConnectX-6 Dx virtual functions 15b3:101e, each GPU and NIC pair
#     below a TI 104c:8232 bridge, two NUMA nodes): ibm-cloud-docs/vpc at 1854334354, cn-h100-profile.md
#     (https://cloud.ibm.com/docs/vpc?topic=vpc-cluster-network-h100-profile, lastupdated
#     2024-11-12).  captures/ibm-h100-vsi.topo.xml is its <system>, <cpu>, <pci>, <nic>, <net> and
#     <gpu> lines verbatim; the <nvlink> lines are left out.  It is a virtual machine's tree, written
#     by the provider for NCCL_TOPO_FILE, not a dump of bare metal, and no `nvidia-smi topo -m` of
#     that machine is published: run.sh compares topo's cells with NCCL's rules applied to the file.
#     xml_table below puts back the levels NCCL's XML leaves out (the root ports and downstream
#     ports) and gives each <pci> below a <cpu> a host bridge of its own (the file does not say which
#     share one), so nvidia-smi's NODE/PHB split of NCCL's PHB is this root's, not the machine's.
#   h200-host, h200-guest: one machine with both captures, its PCIe tree and its own
#     `nvidia-smi topo -m`: NVIDIA/nccl-tests issue #380 (https://github.com/NVIDIA/nccl-tests/issues/380,
#     opened by mjf-89, last updated 2026-06-15; read in the search index's stored copy of the
#     issue, file id 69552560476), an 8x H200 SXM host with 4 ConnectX-7 (InfiniBand) and the QEMU/KVM guest that
#     passes all of them through.  captures/h200-host.lstopo and h200-guest.lstopo are the issue's
#     `lstopo` blocks verbatim ("..." are the issue's own elisions: the lines it leaves out are
#     siblings, never an ancestor of a GPU or NIC, as the indentation shows);
#     captures/h200-host.nvidia-smi-topo and h200-guest.nvidia-smi-topo its `nvidia-smi topo -m`
#     blocks of the same host and guest, verbatim (the host's lists only mlx5_2..mlx5_5, as the
#     issue printed it).  lstopo_table below turns lstopo's tree into TABLE lines: the GPUs', NICs'
#     addresses, their nesting and their NUMA nodes are the capture's; the bridges' addresses and
#     ids (0000:0000), the GPU and NIC PCI ids (10de:2335 H200 SXM, 15b3:1021 ConnectX-7, from the
#     issue's text) are synthesised.  run.sh compares topo's cells with nvidia-smi's, cell by cell.
#     The guest root's sys_vendor is QEMU (the issue's VMs are QEMU/KVM).
#   h100-nics-on-socket1: the same host with only the NICs of NUMA node 1 (the GPUs of socket 0
#     reach a NIC only across the CPU interconnect: SYS).
#   h100-nics-two-host-bridges: the same host with only the ConnectX-7 of 0000:3c:00.0 (socket 0)
#     and 0000:9c:00.0 (socket 1): the other GPUs' nearest NIC is on another host bridge (NODE).
#   ACS (gdr.acs): lspci-vvv beside this script is that capture's lines of the functions of the tree:
#     each section's first line, its NUMA node and Bus lines, its "Capabilities:" lines and its
#     ACSCap/ACSCtl lines, verbatim (the other lines left out).  Each bridge of a root gets a
#     sys/bus/pci/devices/BDF/config of 4096 bytes synthesised from those lines: vendor and device
#     at 0, header type 1 at 0x0e, and, for a bridge with an ACS capability, a null extended
#     capability at 0x100 (ID 0) whose next pointer is the capability's real offset ([170] on the
#     PEX890xx downstream ports, [220] on the root ports), there the ACS header (ID 0x000d,
#     version 1, last), ACSCap at +4 and ACSCtl at +6 from its lspci lines; a bridge without ACS
#     in the capture (the switches' upstream ports) has no extended capability (0 at 0x100).
#     In the capture every bridge of these paths has ACSCtl all '-' (the three roots above).
#   h100-acs-redirect: the same host where every PEX890xx downstream port's ACSCtl is the real one
#     of the capture's PMC-Sierra switch ports 0000:82:0[0-3].0, "SrcValid+ TransBlk- ReqRedir+
#     CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-" (what Linux sets with the IOMMU on); the
#     bridges are synthesised as above, kernel 6.8 (before pci=config_acs=).
#   h100-acs-redirect-6.12: the same with kernel 6.12 (pci=config_acs= exists).
#   h100-acs-vm: h100-acs-redirect in a virtual machine (sys_vendor QEMU, synthesised).
#   h100-acs-lspci: no config files; the capture's lines as rdma-doctor/commands/lspci-vvv.
#   h100-acs-unpriv: each config file only its first 64 bytes (what an unprivileged read of
#     config returns), no lspci capture.
#   IOMMU (gdr.iommu): the capture says nothing of the IOMMU.  The roots above have no
#     sys/kernel/iommu_groups (no IOMMU).  h100-iommu-dma: each GPU and NIC function in an IOMMU
#     group of its own (iommu_group link, sys/kernel/iommu_groups/N/type DMA-FQ, what an Intel host
#     with intel_iommu=on and no iommu=pt shows) and that /proc/cmdline, synthesised;
#     h100-iommu-pt: the same with iommu=pt, type identity.
#   gdr.mode: the capture says nothing of the driver or the kernel config.  The roots above have no
#     /proc/driver/nvidia/version (the driver not loaded).  h100-mode-dmabuf: the open kernel
#     module's version line as a public `cat /proc/driver/nvidia/version` shows it ("NVRM version:
#     NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build ..."), a
#     boot/config-6.8.0-49-generic with CONFIG_DMA_SHARED_BUFFER=y and CONFIG_PCI_P2PDMA=y
#     (synthesised); h100-mode-peermem: the proprietary module's line ("NVRM version: NVIDIA UNIX
#     x86_64 Kernel Module  550.135 ...", its format) and sys/module/nvidia_peermem/version;
#     h100-mode-none: the proprietary module without nvidia_peermem.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "Usage: tests/topo/make.sh OUTDIR: writes the GPU topology roots into OUTDIR" >&2
	exit 2
fi
out=$1
# RD_TOPO_ROOTS=DIR: DIR holds every root, written by this script (tests/run-all.sh does it once,
# then marks DIR .complete); the roots are copied from it instead of being written again.
if [ -n "${RD_TOPO_ROOTS:-}" ] && [ -f "$RD_TOPO_ROOTS/.complete" ] && [ "$RD_TOPO_ROOTS" != "$out" ]; then
	mkdir -p "$out"
	cp -a "$RD_TOPO_ROOTS"/. "$out"/
	rm -f "$out/.complete"
	exit 0
fi
. "$here/../../tools/rootlib.sh"
export LC_ALL=C

# BDF PARENT VENDOR DEVICE SUBSYSTEM_VENDOR SUBSYSTEM_DEVICE CLASS NUMA (- for no subsystem)
H100_PEX890XX='
0000:15:01.0 pci0000:15 0x8086 0x352a 0x8086 0x0000 0x060400 0
0000:16:00.0 0000:15:01.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:17:01.0 0000:16:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:17:02.0 0000:16:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:17:03.0 0000:16:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:19:00.0 0000:17:01.0 0x10de 0x2330 0x10de 0x16c1 0x030200 0
0000:1a:00.0 0000:17:02.0 0x15b3 0x1021 - - 0x020000 0
0000:1b:00.0 0000:17:03.0 0x15b3 0x101d - - 0x020000 0
0000:1b:00.1 0000:17:03.0 0x15b3 0x101d - - 0x020000 0
0000:37:01.0 pci0000:37 0x8086 0x352a 0x8086 0x0000 0x060400 0
0000:38:00.0 0000:37:01.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:39:01.0 0000:38:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:39:02.0 0000:38:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:3b:00.0 0000:39:01.0 0x10de 0x2330 0x10de 0x16c1 0x030200 0
0000:3c:00.0 0000:39:02.0 0x15b3 0x1021 - - 0x020000 0
0000:48:01.0 pci0000:48 0x8086 0x352a 0x8086 0x0000 0x060400 0
0000:49:00.0 0000:48:01.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:4a:01.0 0000:49:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:4a:02.0 0000:49:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:4c:00.0 0000:4a:01.0 0x10de 0x2330 0x10de 0x16c1 0x030200 0
0000:4d:00.0 0000:4a:02.0 0x15b3 0x1021 - - 0x020000 0
0000:59:01.0 pci0000:59 0x8086 0x352a 0x8086 0x0000 0x060400 0
0000:5a:00.0 0000:59:01.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:5b:01.0 0000:5a:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:5b:02.0 0000:5a:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 0
0000:5d:00.0 0000:5b:01.0 0x10de 0x2330 0x10de 0x16c1 0x030200 0
0000:5e:00.0 0000:5b:02.0 0x15b3 0x1021 - - 0x020000 0
0000:97:01.0 pci0000:97 0x8086 0x352a 0x8086 0x0000 0x060400 1
0000:98:00.0 0000:97:01.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:99:01.0 0000:98:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:99:02.0 0000:98:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:99:03.0 0000:98:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:9b:00.0 0000:99:01.0 0x10de 0x2330 0x10de 0x16c1 0x030200 1
0000:9c:00.0 0000:99:02.0 0x15b3 0x1021 - - 0x020000 1
0000:9d:00.0 0000:99:03.0 0x15b3 0x101d - - 0x020000 1
0000:9d:00.1 0000:99:03.0 0x15b3 0x101d - - 0x020000 1
0000:b7:01.0 pci0000:b7 0x8086 0x352a 0x8086 0x0000 0x060400 1
0000:b8:00.0 0000:b7:01.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:b9:01.0 0000:b8:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:b9:02.0 0000:b8:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:bb:00.0 0000:b9:01.0 0x10de 0x2330 0x10de 0x16c1 0x030200 1
0000:bc:00.0 0000:b9:02.0 0x15b3 0x1021 - - 0x020000 1
0000:c7:01.0 pci0000:c7 0x8086 0x352a 0x8086 0x0000 0x060400 1
0000:c8:00.0 0000:c7:01.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:c9:01.0 0000:c8:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:c9:02.0 0000:c8:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:cb:00.0 0000:c9:01.0 0x10de 0x2330 0x10de 0x16c1 0x030200 1
0000:cc:00.0 0000:c9:02.0 0x15b3 0x1021 - - 0x020000 1
0000:d7:01.0 pci0000:d7 0x8086 0x352a 0x8086 0x0000 0x060400 1
0000:d8:00.0 0000:d7:01.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:d9:01.0 0000:d8:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:d9:02.0 0000:d8:00.0 0x1000 0xc030 0x1028 0x224b 0x060400 1
0000:db:00.0 0000:d9:01.0 0x10de 0x2330 0x10de 0x16c1 0x030200 1
0000:dc:00.0 0000:d9:02.0 0x15b3 0x1021 - - 0x020000 1
'

# each bridge's ACS capability in lspci-vvv: its offset, ACSCap and ACSCtl ("SrcValid+ TransBlk- ...")
declare -A ACSPOS=() ACSCAP=() ACSCTL=()
while IFS='|' read -r bdf pos cap ctl; do
	ACSPOS[$bdf]=$pos ACSCAP[$bdf]=$cap ACSCTL[$bdf]=$ctl
done < <(awk '/^[0-9a-f]/ { bdf = "0000:" $1 } /Access Control Services/ { pos = $2; sub(/^\[/, "", pos) }
	/ACSCap:/ { sub(/.*ACSCap:[ \t]*/, ""); cap = $0 } /ACSCtl:/ { sub(/.*ACSCtl:[ \t]*/, ""); print bdf "|" pos "|" cap "|" $0 }' \
	"$here/lspci-vvv")
REDIRECT='SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-'
# acs_bits "SrcValid+ TransBlk- ...": the register's value (bit 0 the first word)
acs_bits() {
	local v=0 i=0 w
	for w in $1; do
		[ "${w: -1}" = + ] && v=$((v | 1 << i))
		i=$((i + 1))
	done
	echo $v
}
# put FILE OFFSET BYTES VALUE: VALUE little-endian at OFFSET
put() {
	local esc='' i
	for ((i = 0; i < $3; i++)); do esc+=$(printf '\\x%02x' $((($4 >> (8 * i)) & 255))); done
	printf "$esc" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none
}
# config BDF VENDOR DEVICE MODE DIR: the bridge's config in DIR, its sys/devices directory (MODE
# real, redirect, short: its first 64 bytes; none: no file)
config() {
	[ "$4" = none ] && return
	local f=$R/$5/config pos
	head -c 4096 /dev/zero > "$f"
	put "$f" 0 2 "$2"
	put "$f" 2 2 "$3"
	put "$f" 0x0e 1 1
	pos=${ACSPOS[$1]:-}
	if [ -n "$pos" ]; then
		local ctl=${ACSCTL[$1]}
		[ "$4" = redirect ] && [ "$pos" = 170 ] && ctl=$REDIRECT
		[ "$pos" != 100 ] && put "$f" 0x100 4 $((0x$pos << 20))
		put "$f" 0x$pos 4 $((0x000d | 1 << 16))
		put "$f" $((0x$pos + 4)) 2 "$(acs_bits "${ACSCAP[$1]}")"
		put "$f" $((0x$pos + 6)) 2 "$(acs_bits "$ctl")"
	fi
	if [ "$4" = short ]; then head -c 64 "$f" > "$f.64" && mv "$f.64" "$f"; fi
	return 0
}

# tree NAME HOSTNAME NIC_FILTER [ACS [KERNEL [TABLE]]]: the root OUTDIR/NAME of the tree TABLE
# (H100_PEX890XX by default) with the NICs that NIC_FILTER (a grep -E pattern on the tree line)
# keeps, its bridges' config as ACS says (config: real by default).  A NIC line (class 0x0200xx,
# Ethernet, or 0x0207xx, InfiniBand) may have a ninth column, which names its RDMA device; else
# the NICs are named mlx5_N in PCI order.
tree() {
	R=$out/$1
	host "$2" "${5:-6.8.0-49-generic}"
	local acs=${4:-real}
	declare -A dir=()
	local n=0 g=0 bdf parent v d sv sd cls numa p name
	while read -r bdf parent v d sv sd cls numa name; do
		[ -n "$bdf" ] || continue
		if case $cls in 0x0200??|0x0207??) true ;; *) false ;; esac && ! grep -qE -- "$3" <<< "$bdf $parent $v $d $sv $sd $cls $numa"; then
			continue
		fi
		case $parent in pci*) p=sys/devices/$parent ;; *) p=${dir[$parent]} ;; esac
		dir[$bdf]=$p/$bdf
		p=$p/$bdf
		attr "$p/vendor" "$v"
		attr "$p/device" "$d"
		if [ "$sv" != - ]; then attr "$p/subsystem_vendor" "$sv"; attr "$p/subsystem_device" "$sd"; fi
		attr "$p/class" "$cls"
		attr "$p/numa_node" "$numa"
		lnk "sys/bus/pci/devices/$bdf" "../../../${p#sys/}"
		[ "$cls" = 0x060400 ] && config "$bdf" "$v" "$d" "$acs" "$p"
		if [ -n "${IOMMU:-}" ] && [ "$cls" != 0x060400 ]; then
			g=$((g + 1))
			lnk "$p/iommu_group" "$(printf '../%.0s' $(seq "$(tr -cd / <<< "$p" | wc -c)"))kernel/iommu_groups/$g"
			attr "sys/kernel/iommu_groups/$g/type" "$IOMMU"
		fi
		if case $cls in 0x0200??|0x0207??) true ;; *) false ;; esac; then
			[ -n "$name" ] && [ "$name" != - ] || name=mlx5_$n
			lnk "sys/class/infiniband/$name" "../../${p#sys/}/infiniband/$name"
			lnk "$p/infiniband/$name/device" "../../../$bdf"
			attr "$p/infiniband/$name/node_type" "1: CA"
			lnk "$p/driver" "../../../../bus/pci/drivers/mlx5_core"
			n=$((n + 1))
		fi
	done <<< "${6:-$H100_PEX890XX}"
}

# xml_table XML: the tree of an NCCL topology file (NCCL_TOPO_DUMP_FILE's format) as TABLE lines.
# NCCL's XML keeps every second level of the sysfs path (xml.cc ncclTopoGetXmlFromSys goes up two
# components at a time), so the levels it leaves out are put back: each <pci> right below a <cpu>
# hangs on a root port DDDD:RR:01.0 of its own root bus pciDDDD:RR (RR its bus minus one; a file
# does not say which of them share a host bridge, so each gets its own), and each <pci> below a
# <pci> on a downstream port DDDD:SS:II.0 of that switch (SS the switch's bus plus one, II its
# index among the switch's children), which has the switch's ids, as downstream ports do; the
# root ports have ids 0000:0000.  Every function's numa_node is its <cpu>'s numaid; a NIC is named
# by its first <net name=...>.  Bounded: a line of at most 4096 bytes, at most 512 functions, a
# depth of at most 16; an address made twice, or anything else, stops it.
xml_table() {
	awk '
	function attr(k,   m) { if (match($0, " " k "=\"[^\"]*\"")) { m = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", m); sub(/"$/, "", m); return m } return "-" }
	function die(w) { print "xml_table: line " NR ": " w > "/dev/stderr"; bad = 1; exit 1 }
	function emit(b, par, v, d, sv, sd, c) { if (b in seen) die("address " b " twice"); seen[b] = 1; nb++
		line[nb] = b " " par " " v " " d " " sv " " sd " " c " " numa; addr[nb] = b }
	function hex2(n) { return sprintf("%02x", n) }
	function bus(b,   h) { h = substr(b, 6, 2); return (index("0123456789abcdef", substr(h, 1, 1)) - 1) * 16 + index("0123456789abcdef", substr(h, 2, 1)) - 1 }
	length($0) > 4096 { die("too long") }
	/<cpu / { numa = attr("numaid"); depth = 0 }
	/<pci / {
		b = attr("busid"); if (b !~ /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]\.[0-7]$/) die("busid " b)
		if (nb >= 512 || depth >= 16) die("too many")
		dom = substr(b, 1, 4)
		if (depth == 0) { rb = hex2(bus(b) - 1); par = dom ":" rb ":01.0"; emit(par, "pci" dom ":" rb, "0x0000", "0x0000", "-", "-", "0x060400") }
		else { up = stk[depth]; k = nkids[up]++; par = dom ":" hex2(bus(up) + 1) ":" hex2(k) ".0"
			emit(par, up, vend[up], dev[up], svend[up], sdev[up], "0x060400") }
		vend[b] = attr("vendor"); dev[b] = attr("device"); svend[b] = attr("subsystem_vendor"); sdev[b] = attr("subsystem_device")
		emit(b, par, vend[b], dev[b], svend[b], sdev[b], attr("class"))
		idx[b] = nb; stk[++depth] = b
	}
	/<net / && depth > 0 && !(stk[depth] in named) { named[stk[depth]] = attr("name"); line[idx[stk[depth]]] = line[idx[stk[depth]]] " " attr("name") }
	/<\/pci>/ { if (depth > 0) depth-- }
	END { if (bad) exit 1; for (i = 1; i <= nb; i++) print line[i] }' "$1"
}
# lstopo_table LSTOPO: the PCIe tree of an `lstopo` (hwloc) text capture as TABLE lines.  An
# object's parent is the nearest line above it indented less.  Each HostBridge is a root bus of
# its own, each PCIBridge a bridge, "PCI BB:DD.F (3D)" a GPU (10de:2335, H200 SXM, class
# 0x030200) and "PCI BB:DD.F (InfiniBand)" a ConnectX-7 (15b3:1021, class 0x020700) named by its
# OpenFabrics line; every function's numa_node is the P# of the NUMANode line above it.  lstopo
# prints no bridge addresses or ids: each bridge gets the ids 0000:0000 and an address on its
# parent's secondary bus (DDDD:SS:II.0, II its index among the bridges there); a bridge's
# secondary bus is the bus of the functions below it, or, with none, the lowest bus no function
# uses.  Lines of other objects ("...", caches, cores, Net) are skipped.  Bounded: a line of at
# most 4096 bytes, at most 512 objects, a depth of at most 32; two functions of one bridge on
# different buses, or anything else it cannot place, stops it.
lstopo_table() {
	awk '
	function die(w) { print "lstopo_table: line " NR ": " w > "/dev/stderr"; bad = 1; exit 1 }
	function push(k, a,   p) { if (++n > 512) die("too many"); if (depth >= 32) die("too deep")
		p = depth ? stk[depth] : 0; kind[n] = k; addr[n] = a; par[n] = p; nm[n] = numa; kids[p] = kids[p] " " n
		stk[++depth] = n; ind[depth] = indent }
	function hexbus(b) { return (index("0123456789abcdef", substr(b, 1, 1)) - 1) * 16 + index("0123456789abcdef", substr(b, 2, 1)) - 1 }
	function fresh(   b) { for (b = 1; b < 256; b++) if (!(b in used)) { used[b] = 1; return b } die("no bus left") }
	function walk(i, pa,   k, c, m, j, sec, nb) {
		if (kind[i] == "fn") { print addr[i] " " pa " " dev[i] " " nm[i] (name[i] != "" ? " " name[i] : ""); return }
		m = split(kids[i], c, " "); sec = -1
		if (i == 0) { for (j = 1; j <= m; j++) if (kind[c[j]] == "hb") walk(c[j], ""); return }
		for (j = 1; j <= m; j++) if (kind[c[j]] == "fn") { k = hexbus(substr(addr[c[j]], 6, 2))
			if (sec >= 0 && k != sec) die("functions of one bridge on buses " sprintf("%02x", sec) " and " sprintf("%02x", k)); sec = k }
		if (sec < 0) sec = fresh()
		if (kind[i] == "br") print addr[i] " " pa " 0x0000 0x0000 - - 0x060400 " nm[i]
		nb = 0
		for (j = 1; j <= m; j++) if (kind[c[j]] == "br") { if (nb > 31) die("too many bridges"); addr[c[j]] = sprintf("0000:%02x:%02x.0", sec, nb++) }
		for (j = 1; j <= m; j++) walk(c[j], kind[i] == "hb" ? sprintf("pci0000:%02x", sec) : addr[i])
	}
	length($0) > 4096 { die("too long") }
	{ indent = match($0, /[^ ]/) - 1; line = substr($0, indent + 1); while (depth > 0 && ind[depth] >= indent) depth-- }
	line ~ /^NUMANode L#[0-9]+ \(P#[0-9]+[ )]/ { numa = line; sub(/^[^(]*\(P#/, "", numa); sub(/[ )].*/, "", numa) }
	line ~ /^HostBridge$/ { if (numa == "") die("a host bridge before any NUMANode"); push("hb", ""); next }
	line ~ /^PCIBridge$/ { if (!depth || (kind[stk[depth]] != "hb" && kind[stk[depth]] != "br")) die("a bridge outside a host bridge"); push("br", ""); next }
	line ~ /^PCI [0-9a-f][0-9a-f]:[0-1][0-9a-f]\.[0-7] \(/ {
		if (!depth || kind[stk[depth]] != "br") die("a function outside a bridge")
		b = "0000:" substr(line, 5, 7); if (b in seen) die("address " b " twice"); seen[b] = 1; used[hexbus(substr(b, 6, 2))] = 1
		push("fn", b)
		if (line ~ /\(3D\)$/) dev[n] = "0x10de 0x2335 - - 0x030200"
		else if (line ~ /\(InfiniBand\)$/) dev[n] = "0x15b3 0x1021 - - 0x020700"
		else die("a function of another kind: " line)
		next }
	line ~ /^OpenFabrics "[A-Za-z0-9_]+"$/ { if (!depth || kind[stk[depth]] != "fn") die("OpenFabrics outside a function")
		name[stk[depth]] = substr(line, 14, length(line) - 14); next }
	END { if (bad) exit 1; walk(0, "") }' "$1"
}
tree h100-pex890xx h100-a 'x'
IBM_H100_VSI=$(xml_table "$here/captures/ibm-h100-vsi.topo.xml")
tree ibm-h100-vsi ibm-a 'x' none 6.8.0-49-generic "$IBM_H100_VSI"
H200_HOST=$(lstopo_table "$here/captures/h200-host.lstopo")
tree h200-host h200-a 'x' none 6.8.0-49-generic "$H200_HOST"
H200_GUEST=$(lstopo_table "$here/captures/h200-guest.lstopo")
tree h200-guest h200-b 'x' none 6.8.0-49-generic "$H200_GUEST"
attr sys/class/dmi/id/sys_vendor QEMU
tree h100-nics-on-socket1 h100-b ' 1$'
tree h100-nics-two-host-bridges h100-c '^0000:(3c|9c):00.0 '
tree h100-acs-redirect h100-d 'x' redirect
tree h100-acs-redirect-6.12 h100-e 'x' redirect 6.12.0-061200-generic
tree h100-acs-vm h100-f 'x' redirect
attr sys/class/dmi/id/sys_vendor QEMU
tree h100-acs-lspci h100-g 'x' none
pdir rdma-doctor/commands/lspci-vvv
cp "$here/lspci-vvv" "$R/rdma-doctor/commands/lspci-vvv"
tree h100-acs-unpriv h100-h 'x' short
IOMMU=DMA-FQ tree h100-iommu-dma h100-i 'x'
attr proc/cmdline 'BOOT_IMAGE=/boot/vmlinuz-6.8.0-49-generic root=/dev/mapper/vg0-root ro intel_iommu=on'
IOMMU=identity tree h100-iommu-pt h100-j 'x'
attr proc/cmdline 'BOOT_IMAGE=/boot/vmlinuz-6.8.0-49-generic root=/dev/mapper/vg0-root ro intel_iommu=on iommu=pt'
OPEN='NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U22-I3-B17-02-5)  Tue Sep 23 09:55:41 UTC 2025
GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04.2) '
PROPRIETARY='NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.135  Fri Jan 10 20:00:00 UTC 2025
GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) '
KCONFIG='CONFIG_DMA_SHARED_BUFFER=y
CONFIG_PCI_P2PDMA=y'
tree h100-mode-dmabuf h100-k 'x'
attr proc/driver/nvidia/version "$OPEN"
attr boot/config-6.8.0-49-generic "$KCONFIG"
tree h100-mode-peermem h100-l 'x'
attr proc/driver/nvidia/version "$PROPRIETARY"
attr boot/config-6.8.0-49-generic "$KCONFIG"
attr sys/module/nvidia_peermem/version 550.135
tree h100-mode-none h100-m 'x'
attr proc/driver/nvidia/version "$PROPRIETARY"
attr boot/config-6.8.0-49-generic "$KCONFIG"
