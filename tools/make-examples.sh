#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# make-examples.sh [OUTDIR] — writes the bundled example roots (default: examples/).
# Values follow ../shared/reference/rdma-host-facts.md; rxe-qemu is the real Linux 6.1 Soft-RoCE
# capture in ../shared/fixtures/real/qemu-debian12-* (made by this project, so it may be copied).
# tests/examples.sh checks that the committed examples/ is exactly what this script writes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../examples}
real=${RD_REAL_FIXTURES:-$here/../../shared/fixtures/real}
. "$here/rootlib.sh"
export LC_ALL=C

new_root() { R="$out/$1"; rm -rf "$R"; mkdir -p "$R"; }

# ---- h100-ofed: 8x ConnectX-7 NDR InfiniBand + BlueField-3 RoCE bond, MLNX_OFED 24.10, healthy ----
new_root h100-ofed
host gpu-node-017 5.15.0-125-generic
limits unlimited unlimited
bdfs=(0000:0c:00.0 0000:12:00.0 0000:2a:00.0 0000:3b:00.0 0000:8a:00.0 0000:98:00.0 0000:ae:00.0 0000:bb:00.0)
guids=(a088:c203:00c8:de4a 58a2:e103:00a7:820e a088:c203:00da:6342 a088:c203:00c8:e1f2 \
       a088:c203:00c8:dd8e 58a2:e103:00a7:81f6 a088:c203:00da:5fd2 a088:c203:00c8:e20a)
for i in 0 1 2 3 4 5 6 7; do
	bdf=${bdfs[$i]} g=${guids[$i]}
	numa=$((i / 4))
	pcidev "$bdf" 0x15b3 0x1021 "$numa" mlx5_core
	ibdev "mlx5_$i" "$bdf" MT4129 28.41.1000 MT_0000000838 "$g"
	attr "$IBDIR/node_desc" "gpu-node-017 HCA-$((i + 1))"
	port 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)" InfiniBand "0x$(printf '%x' $((0x33b0 + i)))" 0x1 \
		0xa751e848 "fe80:0000:0000:0000:$g"
	attr "$IBDIR/ports/1/has_smi" 1
	netdev "ibp$((0x${bdf:5:2}))s0" "$bdf" 2044
	uverbs "$i" "mlx5_$i" "$bdf"
	umad "$i" "mlx5_$i" 1 "$bdf"
	issm "$i" "mlx5_$i" 1 "$bdf"
done
pcidev 0000:c1:00.0 0x15b3 0xa2dc 1 mlx5_core
pcidev 0000:c1:00.1 0x15b3 0xa2dc 1 mlx5_core
ibdev mlx5_bond_0 0000:c1:00.0 MT41692 32.38.3056 MT_0000000884 b859:9f03:0022:626e
attr "$IBDIR/node_desc" "gpu-node-017 HCA-9"
port 1 "4: ACTIVE" "5: LinkUp" "200 Gb/sec (2X NDR)" Ethernet 0x0 0x0 0x00010000 \
	fe80:0000:0000:0000:ba59:9fff:fe22:626e bond0
attr "$IBDIR/ports/1/has_smi" 0
rocev2 1 1 fe80:0000:0000:0000:ba59:9fff:fe22:626e bond0
rocev2 1 3 0000:0000:0000:0000:0000:ffff:0a0a:0511 bond0
netdev bond0 0000:c1:00.0 9000
netdev enp193s0f0np0 0000:c1:00.0 9000
netdev enp193s0f1np1 0000:c1:00.1 9000
uverbs 8 mlx5_bond_0 0000:c1:00.0
umad 8 mlx5_bond_0 1 0000:c1:00.0
issm 8 mlx5_bond_0 1 0000:c1:00.0   # RoCE ports have issm too (a real kernel's rxe0 has issm0)
rdma_cm
ofed=24.10-2.1.8
module nvidia_peermem 16384 0 - POE 550.127.05
module mlx5_ib 483328 0 - OE
module ib_uverbs 167936 3 nvidia_peermem,rdma_ucm,mlx5_ib OE
module ib_ipoib 151552 0 - OE
module rdma_ucm 32768 0 - OE
module rdma_cm 139264 2 rdma_ucm,ib_ipoib OE
module iw_cm 53248 1 rdma_cm OE
module ib_umad 40960 0 - OE
module ib_cm 131072 2 rdma_cm,ib_ipoib OE
module mlx5_core 2232320 1 mlx5_ib OE "$ofed"
module mlxdevm 176128 1 mlx5_core OE
module ib_core 425984 9 nvidia_peermem,rdma_cm,ib_ipoib,iw_cm,ib_umad,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm OE
module mlx_compat 20480 12 rdma_cm,ib_ipoib,mlxdevm,iw_cm,ib_umad,ib_core,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm,mlx5_core,mlxdevm OE
module mlxfw 32768 1 mlx5_core OE
module nvidia 56623104 2 nvidia_peermem,nvidia_uvm POE 550.127.05
attr etc/modules-load.d/rdma.conf "$(printf '%s\n' mlx5_core mlx5_ib ib_core ib_uverbs ib_cm rdma_cm rdma_ucm ib_umad ib_ipoib)"
attr etc/modules-load.d/zz-nvidia-peermem.conf nvidia_peermem
mkdir -p "$R/rdma-doctor/commands"
attr rdma-doctor/commands/ofed_info-s "MLNX_OFED_LINUX-24.10-2.1.8.0:"
attr rdma-doctor/commands/ofed_info-s.status 0
# MLNX_OFED's init service, installed and enabled, as its package leaves it
printf '%s\n' "[Unit]" "Description=openibd - configure Mellanox devices" "Documentation=file:/etc/infiniband/openib.conf" \
	"After=wickedd.service wickedd-nanny.service local-fs.target" "Before=network.target network-pre.target" \
	"[Service]" "Type=oneshot" "RemainAfterExit=yes" "ExecStart=/etc/init.d/openibd start bootid=%b" \
	"ExecStop=/etc/init.d/openibd stop" "[Install]" "WantedBy=sysinit.target" > "$(mkdir -p "$R/lib/systemd/system" && echo "$R/lib/systemd/system/openibd.service")"
lnk etc/systemd/system/sysinit.target.wants/openibd.service /lib/systemd/system/openibd.service
attr rdma-doctor/commands/systemctl-is-active-openibd active
attr rdma-doctor/commands/systemctl-is-active-openibd.status 0
attr rdma-doctor/commands/systemctl-is-enabled-openibd enabled
attr rdma-doctor/commands/systemctl-is-enabled-openibd.status 0
printf '%s\n' "[    3.912001] mlx5_core 0000:0c:00.0: firmware version: 28.41.1000" \
	"[    5.120433] mlx5_ib: Mellanox Connect-IB Infiniband driver v24.10-2.1.8" \
	"[   41.502117] nvidia-peermem nv_mem_init:460 INFO loading nvidia-peermem" > "$R/rdma-doctor/commands/dmesg"
attr rdma-doctor/commands/dmesg.status 0
attr sys/kernel/mm/memory_peers/nv_mem/version 550.127.05
for g in 0000:19:00.0 0000:2b:00.0 0000:3c:00.0 0000:5e:00.0 0000:9b:00.0 0000:ac:00.0 0000:bc:00.0 0000:dc:00.0; do
	pcidev "$g" 0x10de 0x2330 0 nvidia
	attr "$PCIROOT/$g/class" 0x030200
done

# ---- mixed-states: every port state and rate form on one host (a lab box, inbox stack) ----
new_root mixed-states
host lab-ib-03 6.1.0-31-amd64
limits 8388608 8388608
pcidev 0000:03:00.0 0x15b3 0x1003 0 mlx4_core
ibdev mlx4_0 0000:03:00.0 MT4099 2.42.5000 HP_0230240019 0002:c903:0010:a1b0
port 1 "4: ACTIVE" "5: LinkUp" "40 Gb/sec (4X QDR)" InfiniBand 0x7 0x1 0x02510868 fe80:0000:0000:0000:0002:c903:0010:a1b1
port 2 "1: DOWN" "2: Polling" "10 Gb/sec (4X)" InfiniBand 0x0 0x0 0x02510868 fe80:0000:0000:0000:0002:c903:0010:a1b2
pcidev 0000:04:00.0 0x15b3 0x1017 0 mlx5_core
ibdev mlx5_0 0000:04:00.0 MT4119 16.35.2000 MT_0000000008 b859:9f03:00d8:1a20
port 1 "2: INIT" "5: LinkUp" "100 Gb/sec (4X EDR)" InfiniBand 0xffff 0x0 0x2651e848 fe80:0000:0000:0000:b859:9f03:00d8:1a20
pcidev 0000:05:00.0 0x15b3 0x101b 0 mlx5_core
ibdev mlx5_1 0000:05:00.0 MT4123 20.41.1000 MT_0000000222 0c42:a103:0065:7b30
port 1 "3: ARMED" "5: LinkUp" "200 Gb/sec (4X HDR)" InfiniBand 0x12 0x1 0x2651e84a fe80:0000:0000:0000:0c42:a103:0065:7b30
pcidev 0000:06:00.0 0x15b3 0x101b 0 mlx5_core
ibdev mlx5_10 0000:06:00.0 MT4123 20.39.1002 MT_0000000222 0c42:a103:0065:7b40
port 1 "1: DOWN" "3: Disabled" "2.5 Gb/sec (1X SDR)" InfiniBand 0x0 0x0 0x2651e848 fe80:0000:0000:0000:0c42:a103:0065:7b40
pcidev 0000:07:00.0 0x15b3 0x101d 1 mlx5_core
ibdev mlx5_2 0000:07:00.0 MT4125 22.39.1002 MT_0000000359 b859:9f03:00e3:142a
port 1 "1: DOWN" "3: Disabled" "40 Gb/sec (4X QDR)" Ethernet 0x0 0x0 0x00010000 fe80:0000:0000:0000:ba59:9fff:fee3:142a enp7s0f0np0
netdev enp7s0f0np0 0000:07:00.0 1500 down
pcidev 0000:08:00.0 0x15b3 0x1013 1 mlx5_core
ibdev mlx5_3 0000:08:00.0 MT4115 12.28.2006 MT_2190110032 7cfe:9003:00a1:b2c4
port 1 "4: ACTIVE" "5: LinkUp" "56 Gb/sec (4X FDR)" InfiniBand 0x21 0x1 0x2651e848 fe80:0000:0000:0000:7cfe:9003:00a1:b2c4
port 2 "4: ACTIVE" "5: LinkUp" "40 Gb/sec (4X FDR10)" InfiniBand 0x22 0x1 0x2651e848 fe80:0000:0000:0000:7cfe:9003:00a1:b2c5
pcidev 0000:09:00.0 0x15b3 0x1023 1 mlx5_core
ibdev mlx5_4 0000:09:00.0 MT4131 40.44.1036 MT_0000001070 e8eb:d303:0041:72a0
port 1 "4: ACTIVE" "5: LinkUp" "800 Gb/sec (4X XDR)" InfiniBand 0x41 0x1 0xa751e848 fe80:0000:0000:0000:e8eb:d303:0041:72a0
port 2 "5: ACTIVE_DEFER" "6: LinkErrorRecovery" "20 Gb/sec (4X DDR)" InfiniBand 0x42 0x1 0xa751e848 fe80:0000:0000:0000:e8eb:d303:0041:72a1
# an IB switch (port 0) and an iWARP RNIC, which ibstat does not list but ibstatus does
pcidev 0000:0a:00.0 0x15b3 0xcb84 0 mlxsw_spectrum
ibdev sw0 0000:0a:00.0 MT52100 15.2010.1000 MT_2720110038 0002:c902:0050:7e10 "2: switch"
port 0 "4: ACTIVE" "5: LinkUp" "100 Gb/sec (4X EDR)" InfiniBand 0x1 0x1 0x0000004a fe80:0000:0000:0000:0002:c902:0050:7e10
pcidev 0000:0b:00.0 0x8086 0x37d2 0 i40e
ibdev irdma0 0000:0b:00.0 "" 1.50 "" 3cfd:fe01:02c3:0000 "4: RNIC"
rm -f "$R/$IBDIR/hca_type" "$R/$IBDIR/board_id"
port 1 "4: ACTIVE" "5: LinkUp" "10 Gb/sec (1X QDR)" Ethernet 0x0 0x0 0x00010000 fe80:0000:0000:0000:3efd:feff:fec3:0000 eno1
# a device whose driver left attribute files out (no fw_ver, hw_rev, hca_type, board_id, link_layer)
pcidev 0000:0c:00.0 0x15b3 0x1015 0 mlx5_core
ibdev mlx5_5 0000:0c:00.0 MT4117 14.32.1010 MT_2420110034 248a:0703:00b1:bc04
port 1 "4: ACTIVE" "5: LinkUp" "25 Gb/sec (1X EDR)" InfiniBand 0x9 0x1 0x2651e848 fe80:0000:0000:0000:248a:0703:00b1:bc05
rm -f "$R/$IBDIR/fw_ver" "$R/$IBDIR/hw_rev" "$R/$IBDIR/hca_type" "$R/$IBDIR/board_id" "$R/$IBDIR/ports/1/link_layer"
module mlx5_ib 397312 0 -
module mlx5_core 1703936 1 mlx5_ib
module mlx4_ib 221184 0 -
module mlx4_core 360448 1 mlx4_ib
module ib_uverbs 172032 2 mlx5_ib,mlx4_ib
module ib_core 442368 3 mlx5_ib,mlx4_ib,ib_uverbs
node uverbs0
node uverbs1

# ---- rxe-qemu: the real Linux 6.1 Soft-RoCE device captured under qemu (Debian 12, inbox) ----
tsv="$real/qemu-debian12-6.1-rxe0-sysfs.tsv"
# a plain clone has no ../shared: this root is not written then, and tests/examples.sh skips it
if [ -f "$tsv" ]; then
	new_root rxe-qemu
	while IFS=$'\t' read -r path value; do
		rel=${path#/}
		case "$value" in
		"cat: read error: Invalid argument|") readerr EINVAL "$rel"; continue ;;
		esac
		case "$rel" in
		sys/module/*/holders)
			for h in $value; do lnk "$rel/$h" "../../$h"; done
			continue ;;
		esac
		raw "$rel" "$(printf '%s' "$value" | tr '|' '\n' | sed 's/\\/\\\\/g')"
		# the capture wrote each value's newline as '|'; raw keeps it as the kernel wrote it
		[ "${value: -1}" = "|" ] && printf '\n' >> "$R/$rel"
	done < "$tsv"
	# /proc files have no trailing '|' lost: the capture kept their final newline
	lnk sys/class/infiniband/rxe0 ../../devices/virtual/infiniband/rxe0
	lnk sys/class/infiniband_verbs/uverbs0 ../../devices/virtual/infiniband_verbs/uverbs0
	lnk sys/class/infiniband_mad/umad0 ../../devices/virtual/infiniband_mad/umad0
	lnk sys/class/infiniband_mad/issm0 ../../devices/virtual/infiniband_mad/issm0
	while read -r mode _ _ _ _ _ _ _ _ name; do
		case "$mode" in c*) node "$name" ;; esac
	done < "$real/qemu-debian12-6.1-rxe0-dev-infiniband.txt"
	rdma_cm
	attr proc/sys/kernel/hostname debian-rxe
	attr sys/class/net/eth0/mtu 1500
	attr sys/class/net/eth0/operstate up
	attr sys/class/net/eth0/carrier 1
else
	echo "make-examples: rxe-qemu not written: $tsv is missing" >&2
fi

# ---- no-rdma: a host with no RDMA hardware or modules at all ----
new_root no-rdma
attr proc/sys/kernel/hostname build-vm-2
attr proc/sys/kernel/osrelease 6.1.0-57-amd64
limits 8388608 8388608
printf '%s\n' "virtio_net 73728 0 - Live 0x0000000000000000" "ext4 1007616 1 - Live 0x0000000000000000" > "$R/proc/modules"
node_dev() { mkdir -p "$R/dev"; : > "$R/dev/$1"; }
node_dev null; node_dev console
lnk sys/class/net/lo ../../devices/virtual/net/lo
attr sys/devices/virtual/net/lo/mtu 65536
attr sys/devices/virtual/net/lo/operstate unknown
attr sys/devices/virtual/net/lo/type 772
echo "make-examples: wrote $(ls "$out" | tr '\n' ' ')"
