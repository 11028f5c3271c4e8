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
#   h100-nics-on-socket1: the same host with only the NICs of NUMA node 1 (the GPUs of socket 0
#     reach a NIC only across the CPU interconnect: SYS).
#   h100-nics-two-host-bridges: the same host with only the ConnectX-7 of 0000:3c:00.0 (socket 0)
#     and 0000:9c:00.0 (socket 1): the other GPUs' nearest NIC is on another host bridge (NODE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "Usage: tests/topo/make.sh OUTDIR: writes the GPU topology roots into OUTDIR" >&2
	exit 2
fi
out=$1
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

# tree NAME HOSTNAME NIC_FILTER: the root OUTDIR/NAME of the tree H100_PEX890XX with the NICs that
# NIC_FILTER (a grep -E pattern on the tree line) keeps
tree() {
	R=$out/$1
	host "$2" 6.8.0-49-generic
	declare -A dir=()
	local n=0 bdf parent v d sv sd cls numa p
	while read -r bdf parent v d sv sd cls numa; do
		[ -n "$bdf" ] || continue
		if [ "$cls" = 0x020000 ] && ! grep -qE -- "$3" <<< "$bdf $parent $v $d $sv $sd $cls $numa"; then
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
		if [ "$cls" = 0x020000 ]; then
			lnk "sys/class/infiniband/mlx5_$n" "../../${p#sys/}/infiniband/mlx5_$n"
			lnk "$p/infiniband/mlx5_$n/device" "../../../$bdf"
			attr "$p/infiniband/mlx5_$n/node_type" "1: CA"
			lnk "$p/driver" "../../../../bus/pci/drivers/mlx5_core"
			n=$((n + 1))
		fi
	done <<< "$H100_PEX890XX"
}
tree h100-pex890xx h100-a 'x'
tree h100-nics-on-socket1 h100-b ' 1$'
tree h100-nics-two-host-bridges h100-c '^0000:(3c|9c):00.0 '
