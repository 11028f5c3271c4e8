#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Boots the Debian kernel with the tier's initramfs under qemu (TCG) and waits for it to power off.
# The guest writes its results into OUTDIR through a 9p share; the serial console goes to
# OUTDIR/console.log.  Usage: boot.sh KVER INITRAMFS OUTDIR [PHASE [WORDS]]
#   PHASE (optional): passed to the guest as rdvm.phase=PHASE on the kernel command line (init.sh
#   hands it to guest.sh); the console then goes to OUTDIR/console-PHASE.log
#   PHASE q35, q35pt, q35off (tests/vm/q35.sh): a q35 machine with an emulated Intel IOMMU and a
#   PCIe tree (below), no network
#   WORDS (optional): added to the kernel command line (q35.sh: iommu=pt, intel_iommu=off)
# RDVM_TIMEOUT (optional): seconds before qemu is killed (default 540; bench/watch-soak.sh: longer)
# RDVM_NETDEV (optional): the guest's network instead of qemu's user network, e.g.
#   socket,id=n0,listen=127.0.0.1:PORT (the netdev's id must be n0); RDVM_MAC: its MAC address
set -euo pipefail
kver=$1 initrd=$2 outdir=$3 phase=${4:-} extra=${5:+ $5}
mkdir -p "$outdir"
machine=(-netdev "${RDVM_NETDEV:-user,id=n0}" -device "virtio-net-pci,netdev=n0${RDVM_MAC:+,mac=$RDVM_MAC}")
case "$phase" in
q35 | q35pt | q35off)
	# root port rp1 (the default 16 GT/s x32 port) with a TI XIO3130 switch below it: an NVMe
	# controller on its downstream port dn1, an e1000e on dn2; root port rp2 (16 GT/s x16) and rp3
	# (2.5 GT/s x1: a slow, narrow slot) with an e1000e each.  Emulated PCIe endpoints train at
	# 2.5 GT/s x1, so rp2's link runs below what the port can do.
	machine=(-machine q35,kernel-irqchip=split -device intel-iommu,intremap=on -nic none
		-device pcie-root-port,id=rp1,chassis=1,addr=0x3
		-device x3130-upstream,id=up1,bus=rp1
		-device xio3130-downstream,id=dn1,bus=up1,chassis=2
		-device xio3130-downstream,id=dn2,bus=up1,chassis=3
		-device nvme,bus=dn1,serial=rdvm-dn1
		-device e1000e,bus=dn2
		-device pcie-root-port,id=rp2,chassis=4,addr=0x4,x-speed=16,x-width=16
		-device e1000e,bus=rp2
		-device pcie-root-port,id=rp3,chassis=5,addr=0x5,x-speed=2_5,x-width=1
		-device e1000e,bus=rp3)
	;;
esac
timeout "${RDVM_TIMEOUT:-540}" qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 -nographic -no-reboot \
	-kernel "/boot/vmlinuz-$kver" -initrd "$initrd" \
	-append "console=ttyS0 quiet panic=-1 rdinit=/init${phase:+ rdvm.phase=$phase}$extra" \
	"${machine[@]}" \
	-virtfs "local,path=$outdir,mount_tag=out,security_model=none,id=out" \
	< /dev/null > "$outdir/console${phase:+-$phase}.log" 2>&1
