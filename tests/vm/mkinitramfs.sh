#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Builds the initramfs of the real-kernel tier from this machine's Debian packages:
#   busybox-static (the shell and small tools), kmod (modprobe/rmmod/depmod), the RDMA modules of
#   the installed Debian kernel with their dependencies, rdma-core userspace (libibverbs + the rxe
#   provider, ibstat, ibstatus, ibv_devinfo, ibv_asyncwatch), iproute2's rdma, systemd-modules-load, and the freshly
#   built rdma-doctor; /init is tests/vm/init.sh, the scenarios are tests/vm/guest.sh.
# Usage: mkinitramfs.sh [--pci] KVER RDMA_DOCTOR_BINARY OUT.cpio.gz [ASAN_BINARY]
#   ASAN_BINARY (optional): the ASan+UBSan build, installed as rdma-doctor-asan
#   --pci: the image of the q35 machine (tests/vm/q35.sh) instead: busybox, kmod, util-linux's
#     setpriv, pciutils (lspci, setpci, pci.ids), the virtio and 9p modules and rdma-doctor, without
#     the RDMA stack (a third of the size: TCG unpacks it faster)
set -euo pipefail
pci=0
[ "${1:-}" = --pci ] && { pci=1; shift; }
kver=$1 bin=$2 out=$3 asan=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
r=$work/root

mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,usr/lib,usr/lib64,etc,proc,sys,dev,tmp,run,out,root,var/log}
# merged /usr as on Debian 12: one copy of each library, whichever path ldd names
ln -s usr/lib "$r/lib"
ln -s usr/lib64 "$r/lib64"
mkdir -p "$r"/etc/modules-load.d "$r"/usr/lib/modules-load.d "$r"/etc/libibverbs.d

# copy FILE...: each file at the same path, with the shared libraries ldd lists
copied=" "
copy() {
	local f lib
	for f in "$@"; do
		case "$copied" in *" $f "*) continue ;; esac
		copied="$copied$f "
		mkdir -p "$r$(dirname "$f")"
		cp -L "$f" "$r$f"
		# a dynamic program or library: its libraries too (ldd fails on static ones)
		for lib in $(ldd "$f" 2> /dev/null | awk '/=> \//{print $3} /^\t\/lib/{print $1}'); do copy "$lib"; done
	done
}

# busybox applets, except where the real tool is copied below
cp /bin/busybox "$r/bin/busybox"
for a in $(/bin/busybox --list); do
	case "$a" in modprobe|rmmod|insmod|lsmod|depmod|modinfo|setpriv|busybox) continue ;; esac
	ln -sf busybox "$r/bin/$a"
done

copy /bin/kmod
for t in modprobe rmmod insmod lsmod depmod modinfo; do ln -sf /bin/kmod "$r/sbin/$t"; done
if [ $pci = 1 ]; then
	copy /usr/bin/setpriv /usr/bin/lspci /usr/bin/setpci
	mkdir -p "$r/usr/share/misc" && cp /usr/share/misc/pci.ids "$r/usr/share/misc/"
else
	copy /usr/sbin/ibstat /usr/sbin/ibstatus /usr/sbin/perfquery /usr/sbin/sminfo /usr/bin/ibv_devinfo /usr/bin/ibv_asyncwatch /usr/bin/rdma /usr/bin/setpriv /lib/systemd/systemd-modules-load
	copy /usr/lib/x86_64-linux-gnu/libibverbs.so.1
	# tests/vm/pair.sh: perftest beside `pair`, and tc to slow a link
	copy /usr/bin/ib_write_bw /usr/bin/ib_write_lat /usr/sbin/tc
	# libarchive: snapshot writes (and archive roots are read) through it, loaded with dlopen
	copy /usr/lib/x86_64-linux-gnu/libarchive.so.13
	provider=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so)
	copy "$provider"
	cp /etc/libibverbs.d/rxe.driver "$r/etc/libibverbs.d/"
fi
mkdir -p "$r/usr/local/bin"
copy "$(readlink -f "$bin")"
cp -L "$bin" "$r/usr/local/bin/rdma-doctor"
if [ -n "$asan" ]; then
	copy "$(readlink -f "$asan")"
	cp -L "$asan" "$r/usr/local/bin/rdma-doctor-asan"
fi
cp "$here/guest.sh" "$r/guest.sh"
cp "$here/init.sh" "$r/init"
chmod 755 "$r/init" "$r/guest.sh"

# the kernel modules: the nine of the guide, rxe (crc32_generic first), virtio net and 9p
mods="ib_core ib_uverbs ib_umad rdma_ucm rdma_cm ib_cm iw_cm ib_ipoib mlx5_core mlx5_ib rdma_rxe
      crc32_generic virtio_pci virtio_net 9p 9pnet_virtio sch_netem sch_prio cls_u32"
[ $pci = 1 ] && mods="virtio_pci virtio_net 9p 9pnet_virtio"
for m in $mods; do
	modprobe --show-depends -S "$kver" "$m" | awk '$1 == "insmod" {print $2}'
done | sort -u | while read -r ko; do
	mkdir -p "$r$(dirname "$ko")"
	cp "$ko" "$r$ko"
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	cp "/lib/modules/$kver/$f" "$r/lib/modules/$kver/$f"
done
depmod -b "$r" "$kver"

cat > "$r/etc/passwd" << 'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh
EOF
printf 'root:x:0:\nnogroup:x:65534:\n' > "$r/etc/group"
echo "$kver" > "$r/etc/kver"

(cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$out"
