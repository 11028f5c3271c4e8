#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# /init of the real-kernel tier's initramfs: mounts, the virtio network and the 9p share the host
# reads results from, then the scenarios (guest.sh), then power off.
export PATH=/usr/local/bin:/sbin:/usr/sbin:/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
kver=$(cat /etc/kver)
modprobe virtio_pci; modprobe virtio_net; modprobe 9pnet_virtio; modprobe 9p
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /out; then
	echo "@@vm-error cannot mount the 9p share"; poweroff -f
fi
# the tier's own modules stay out of the RDMA picture: only RDMA modules are unloaded by scenarios
# rdvm.phase=PHASE (boot.sh's PHASE): which scenarios guest.sh runs
phase=$(sed -n 's/.*rdvm\.phase=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
echo "@@vm-booted $kver${phase:+ phase $phase}"
sh /guest.sh ${phase:+"$phase"} > /out/guest${phase:+-$phase}.log 2>&1
echo "@@vm-done rc=$?"
sync
umount /out
poweroff -f
