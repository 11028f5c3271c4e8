#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# q35root.sh TREE OUTDIR [VARIANT] — a root for rdma-doctor --root from the PCI part of sysfs that
# tests/vm/guest.sh copied out of the q35 machine (tests/vm/q35.sh), with stand-ins for what the
# machine cannot have, a GPU and RDMA NICs, put at the BDFs of its real endpoints.  Everything
# else — the bridges, their config space (ACS), the links' current and the ports' capabilities,
# the IOMMU groups and their types, /proc/cmdline, sys_vendor — is the real kernel's, unchanged.
#   The stand-ins (a GPU and an HCA cannot be had in qemu):
#   * GPU: 0000:03:00.0, the NVMe controller below the switch's downstream port 0000:02:00.0:
#     its vendor, device, subsystem ids and class are an H100 SXM's (10de:2330, 10de:16c1, 0x030200)
#   * mlx5_0, mlx5_1, mlx5_2: the e1000e functions 0000:04:00.0 (below the downstream port
#     0000:02:01.0), 0000:05:00.0 (below root port 0000:00:04.0, 16 GT/s x16) and 0000:06:00.0
#     (below root port 0000:00:05.0, 2.5 GT/s x1): vendor and device a ConnectX-7's (15b3:1021),
#     class InfiniBand (0x020700), their own link capability (max_link_speed/width) a ConnectX-7's,
#     32.0 GT/s x16 (the link's current speed and width stay the real ones), and an
#     sys/class/infiniband/mlx5_N entry (node_type, the device link, the mlx5_core driver link)
#   VARIANT: real (the default: as above); endpoint-caps (the NICs keep the endpoints' own link
#   capability, 2.5 GT/s x1); no-switch-nic (no mlx5_0: the GPU's nearest NIC is on another root
#   port); unpriv (every config file cut to its first 64 bytes, as an unprivileged read returns
#   it, no lspci capture); unpriv-lspci (the same, with LSPCI, the guest's lspci -vvv, as the
#   root's rdma-doctor/commands/lspci-vvv); acs-switch-vm (a switch whose downstream ports redirect:
#   the real root port 0000:00:03.0's ACS capability, its 8 bytes at 0x148 as the kernel set them,
#   0x001d, linked after the AER capability of each XIO3130 downstream port's real config);
#   acs-switch (the same on bare metal: no hypervisor flag in proc/cpuinfo, no sys_vendor)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "Usage: tests/vm/q35root.sh TREE OUTDIR [VARIANT] [LSPCI]" >&2; exit 2; }
tree=$1 R=$2 variant=${3:-real} lspci=${4:-}
. "$here/../../tools/rootlib.sh"
rm -rf "$R" && mkdir -p "$R"
cp -a "$tree/." "$R/"
dev() { readlink -f "$R/sys/bus/pci/devices/$1" | sed "s|^$(readlink -f "$R")/||"; }
[ -d "$R/$(dev 0000:03:00.0)" ] || { echo "q35root.sh: $tree has no 0000:03:00.0" >&2; exit 1; }
gpu=$(dev 0000:03:00.0)
attr "$gpu/vendor" 0x10de
attr "$gpu/device" 0x2330
attr "$gpu/subsystem_vendor" 0x10de
attr "$gpu/subsystem_device" 0x16c1
attr "$gpu/class" 0x030200
n=0
for bdf in 0000:04:00.0 0000:05:00.0 0000:06:00.0; do
	name=mlx5_$n
	n=$((n + 1))
	[ "$variant" = no-switch-nic ] && [ $bdf = 0000:04:00.0 ] && continue
	p=$(dev $bdf)
	[ -d "$R/$p" ] || { echo "q35root.sh: $tree has no $bdf" >&2; exit 1; }
	attr "$p/vendor" 0x15b3
	attr "$p/device" 0x1021
	attr "$p/subsystem_vendor" 0x15b3
	attr "$p/subsystem_device" 0x0041
	attr "$p/class" 0x020700
	if [ "$variant" != endpoint-caps ]; then
		attr "$p/max_link_speed" "32.0 GT/s PCIe"
		attr "$p/max_link_width" 16
	fi
	lnk "sys/class/infiniband/$name" "../../${p#sys/}/infiniband/$name"
	lnk "$p/infiniband/$name/device" "../../../$bdf"
	attr "$p/infiniband/$name/node_type" "1: CA"
	lnk "$p/driver" "$(printf '../%.0s' $(seq $(($(tr -cd / <<< "$p" | wc -c) - 1))))bus/pci/drivers/mlx5_core"
done
# put FILE OFFSET BYTES VALUE: VALUE little-endian at OFFSET
put() {
	local esc='' i
	for ((i = 0; i < $3; i++)); do esc+=$(printf '\\x%02x' $((($4 >> (8 * i)) & 255))); done
	printf "$esc" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none
}
case "$variant" in
acs-switch | acs-switch-vm)
	rp=$R/$(dev 0000:00:03.0)/config
	for b in 0000:02:00.0 0000:02:01.0; do
		f=$R/$(dev $b)/config
		h=$(od -An -tu4 -j 256 -N4 "$f" | tr -d ' ')
		[ $((h & 0xffff)) = 1 ] && [ $((h >> 20)) = 0 ] || { echo "q35root.sh: $b: not one AER capability at 0x100" >&2; exit 1; }
		put "$f" 0x100 4 $((h | 0x148 << 20))
		dd if="$rp" of="$f" bs=1 skip=$((0x148)) seek=$((0x148)) count=8 conv=notrunc status=none
	done
	if [ "$variant" = acs-switch ]; then
		sed -i 's/ hypervisor / /' "$R/proc/cpuinfo"
		rm -f "$R/sys/class/dmi/id/sys_vendor"
	fi
	;;
unpriv | unpriv-lspci)
	for f in "$R"/sys/devices/pci0000:00/*/config "$R"/sys/devices/pci0000:00/*/*/config "$R"/sys/devices/pci0000:00/*/*/*/config \
		"$R"/sys/devices/pci0000:00/*/*/*/*/config; do
		[ -f "$f" ] && head -c 64 "$f" > "$f.64" && mv "$f.64" "$f"
	done
	if [ "$variant" = unpriv-lspci ]; then
		pdir rdma-doctor/commands/lspci-vvv
		cp "$lspci" "$R/rdma-doctor/commands/lspci-vvv"
	fi
	;;
esac
