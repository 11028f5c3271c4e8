#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Boots the Debian kernel with the tier's initramfs under qemu (TCG) and waits for it to power off.
# The guest writes its results into OUTDIR through a 9p share; the serial console goes to
# OUTDIR/console.log.  Usage: boot.sh KVER INITRAMFS OUTDIR [PHASE]
#   PHASE (optional): passed to the guest as rdvm.phase=PHASE on the kernel command line (init.sh
#   hands it to guest.sh); the console then goes to OUTDIR/console-PHASE.log
# RDVM_NETDEV (optional): the guest's network instead of qemu's user network, e.g.
#   socket,id=n0,listen=127.0.0.1:PORT (the netdev's id must be n0); RDVM_MAC: its MAC address
set -euo pipefail
kver=$1 initrd=$2 outdir=$3 phase=${4:-}
mkdir -p "$outdir"
timeout 540 qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 -nographic -no-reboot \
	-kernel "/boot/vmlinuz-$kver" -initrd "$initrd" \
	-append "console=ttyS0 quiet panic=-1 rdinit=/init${phase:+ rdvm.phase=$phase}" \
	-netdev "${RDVM_NETDEV:-user,id=n0}" -device "virtio-net-pci,netdev=n0${RDVM_MAC:+,mac=$RDVM_MAC}" \
	-virtfs "local,path=$outdir,mount_tag=out,security_model=none,id=out" \
	< /dev/null > "$outdir/console${phase:+-$phase}.log" 2>&1
