# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rootlib.sh — shell functions that write a root laid out like a host (sysfs, procfs, /dev, /etc)
# in the exact formats of ../shared/reference/rdma-host-facts.md.  Sourced by make-examples.sh
# (the bundled example roots) and by the tests (scenario roots made on the fly).
# Every function writes under $R.

# pdir PATH        — makes the directory PATH is in (no process started when it is there already).
pdir() { case "$1" in */*) [ -d "$R/${1%/*}" ] || mkdir -p "$R/${1%/*}" ;; *) [ -d "$R" ] || mkdir -p "$R" ;; esac; }
# attr PATH VALUE  — a sysfs-style attribute: VALUE plus the kernel's trailing newline.
attr() { pdir "$1"; printf '%s\n' "$2" > "$R/$1"; }
# raw PATH VALUE   — exact bytes (printf %b escapes), no newline added.
raw() { pdir "$1"; printf '%b' "$2" > "$R/$1"; }
# lnk PATH TARGET  — a symbolic link.
lnk() { pdir "$1"; ln -sfn "$2" "$R/$1"; }
# node NAME        — a device node under /dev/infiniband, recorded as an empty file.
node() { pdir dev/infiniband/x; : > "$R/dev/infiniband/$1"; }
# readerr ERRNO PATH — a file whose read() fails (as gid_attrs/ndevs on IB), recorded as snapshots do.
readerr() { pdir rdma-doctor/read-errors; pdir "$2"; : > "$R/$2"; printf '%s\t/%s\n' "$1" "$2" >> "$R/rdma-doctor/read-errors"; }

host() { # host HOSTNAME OSRELEASE
	attr proc/sys/kernel/hostname "$1"
	attr proc/sys/kernel/osrelease "$2"
	attr etc/hostname "$1"
	attr sys/class/infiniband_verbs/abi_version 6
	attr sys/class/infiniband_mad/abi_version 5
}

# pcidev BDF VENDOR DEVICE NUMA DRIVER — a PCI function; prints its sysfs dir (relative to $R).
PCIROOT=sys/devices/pci0000:00/0000:00:01.0
pcidev() {
	local d="$PCIROOT/$1"
	attr "$d/vendor" "$2"
	attr "$d/device" "$3"
	attr "$d/numa_node" "$4"
	attr "$d/class" 0x020700
	lnk "$d/driver" "../../../../bus/pci/drivers/$5"   # (the driver's own directory is not needed)
	lnk "sys/bus/pci/devices/$1" "../../../devices/pci0000:00/0000:00:01.0/$1"
	pcielink "$d" "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16
	pcielink "$PCIROOT" "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16
}
# pcielink DIR CUR_SPEED CUR_WIDTH MAX_SPEED MAX_WIDTH — a PCIe function's link attributes.
pcielink() {
	attr "$1/current_link_speed" "$2"; attr "$1/current_link_width" "$3"
	attr "$1/max_link_speed" "$4"; attr "$1/max_link_width" "$5"
}

# ibdev NAME BDF HCA_TYPE FW BOARD NODE_GUID [NODE_TYPE] — an RDMA device on PCI function BDF.
ibdev() {
	local name=$1 bdf=$2 d="$PCIROOT/$2/infiniband/$1"
	lnk "sys/class/infiniband/$name" "../../devices/pci0000:00/0000:00:01.0/$bdf/infiniband/$name"
	lnk "$d/device" "../../../$bdf"
	attr "$d/node_type" "${7:-1: CA}"
	attr "$d/node_guid" "$6"
	attr "$d/sys_image_guid" "$6"
	attr "$d/fw_ver" "$4"
	attr "$d/hca_type" "$3"
	attr "$d/hw_rev" 0
	attr "$d/board_id" "$5"
	attr "$d/node_desc" "$(cat "$R/proc/sys/kernel/hostname" 2>/dev/null) $name"
	IBDIR=$d
}

# port NUM STATE PHYS RATE LINK_LAYER LID SM_LID CAP GID0 [NETDEV] — a port of the last ibdev.
port() {
	local p="$IBDIR/ports/$1"
	attr "$p/state" "$2"
	attr "$p/phys_state" "$3"
	attr "$p/rate" "$4"
	attr "$p/link_layer" "$5"
	attr "$p/lid" "$6"
	attr "$p/sm_lid" "$7"
	attr "$p/lid_mask_count" 0
	attr "$p/sm_sl" 0
	attr "$p/cap_mask" "$8"
	attr "$p/gids/0" "$9"
	attr "$p/gids/1" 0000:0000:0000:0000:0000:0000:0000:0000
	attr "$p/pkeys/0" 0xffff
	attr "$p/pkeys/1" 0x0000
	if [ "$5" = InfiniBand ]; then
		attr "$p/gid_attrs/types/0" "IB/RoCE v1"
		readerr EINVAL "$p/gid_attrs/ndevs/0"
	else
		attr "$p/gid_attrs/types/0" "IB/RoCE v1"
		attr "$p/gid_attrs/ndevs/0" "${10}"
	fi
	readerr EINVAL "$p/gid_attrs/types/1"
	readerr EINVAL "$p/gid_attrs/ndevs/1"
	for c in symbol_error link_downed link_error_recovery port_rcv_errors port_xmit_discards; do
		attr "$p/counters/$c" 0
	done
	attr "$p/counters/port_rcv_data" 230539874932
	attr "$p/counters/port_xmit_data" 219981022112
	attr "$p/hw_counters/lifespan" 12
	attr "$p/hw_counters/out_of_sequence" 0
	attr "$p/hw_counters/local_ack_timeout_err" 0
}

# rocev2 PORT INDEX GID NETDEV — a RoCE v2 GID entry on the last ibdev.
rocev2() {
	local p="$IBDIR/ports/$1"
	attr "$p/gids/$2" "$3"
	attr "$p/gid_attrs/types/$2" "RoCE v2"
	attr "$p/gid_attrs/ndevs/$2" "$4"
	# readable now: drop what port() recorded as failing reads for this index
	[ -f "$R/rdma-doctor/read-errors" ] && sed -i "\|	/$p/gid_attrs/[a-z]*/$2\$|d" "$R/rdma-doctor/read-errors"
	return 0
}

# netdev NAME BDF MTU [OPERSTATE] — a network interface of PCI function BDF.
netdev() {
	local d="$PCIROOT/$2/net/$1"
	lnk "sys/class/net/$1" "../../devices/pci0000:00/0000:00:01.0/$2/net/$1"
	attr "$d/mtu" "$3"
	attr "$d/operstate" "${4:-up}"
	attr "$d/carrier" 1
	attr "$d/carrier_changes" 2
	attr "$d/type" 1
}

# uverbs N IBDEV BDF / umad N IBDEV PORT BDF / issm N IBDEV PORT BDF — class devices and their nodes.
uverbs() {
	local d="$PCIROOT/$3/infiniband_verbs/uverbs$1"
	lnk "sys/class/infiniband_verbs/uverbs$1" "../../devices/pci0000:00/0000:00:01.0/$3/infiniband_verbs/uverbs$1"
	attr "$d/ibdev" "$2"; attr "$d/abi_version" 1; attr "$d/dev" "231:$((192 + $1))"
	node "uverbs$1"
}
umad() {
	local d="$PCIROOT/$4/infiniband_mad/umad$1"
	lnk "sys/class/infiniband_mad/umad$1" "../../devices/pci0000:00/0000:00:01.0/$4/infiniband_mad/umad$1"
	attr "$d/ibdev" "$2"; attr "$d/port" "$3"; attr "$d/dev" "231:$1"
	node "umad$1"
}
issm() {
	local d="$PCIROOT/$4/infiniband_mad/issm$1"
	lnk "sys/class/infiniband_mad/issm$1" "../../devices/pci0000:00/0000:00:01.0/$4/infiniband_mad/issm$1"
	attr "$d/ibdev" "$2"; attr "$d/port" "$3"; attr "$d/dev" "231:$((64 + $1))"
	node "issm$1"
}
rdma_cm() { node rdma_cm; attr sys/class/misc/rdma_cm/abi_version 4; }

# module NAME SIZE REFCNT HOLDERS(comma list or -) [TAINT] [VERSION] — a loaded module.
module() {
	local holders=$4 t=${5:-} line
	if [ "$holders" = - ]; then line="$1 $2 $3 - Live 0x0000000000000000"
	else line="$1 $2 $3 $holders, Live 0x0000000000000000"; fi
	[ -n "$t" ] && line="$line ($t)"
	printf '%s\n' "$line" >> "$R/proc/modules"
	attr "sys/module/$1/initstate" live
	attr "sys/module/$1/refcnt" "$3"
	attr "sys/module/$1/taint" "$t"
	# sys/module/<m>/holders/: one link per holder (an empty one is left out: git keeps no empty directory)
	if [ "$holders" != - ]; then
		local IFS=,
		for h in $holders; do lnk "sys/module/$1/holders/$h" "../../$h"; done
	fi
	if [ -n "${6:-}" ]; then
		attr "sys/module/$1/version" "$6"
		attr "sys/module/$1/srcversion" "$(printf '%s' "$1$6" | md5sum | cut -c1-23 | tr a-f A-F)"
	fi
}

# limits MEMLOCK_SOFT MEMLOCK_HARD — /proc/self/limits in the kernel's layout.
limits() {
	mkdir -p "$R/proc/self"
	{
		printf '%-25s %-20s %-20s %-10s\n' Limit "Soft Limit" "Hard Limit" Units
		printf '%-25s %-20s %-20s %-10s\n' "Max cpu time" unlimited unlimited seconds
		printf '%-25s %-20s %-20s %-10s\n' "Max open files" 1024 524288 files
		printf '%-25s %-20s %-20s %-10s\n' "Max locked memory" "$1" "$2" bytes
		printf '%-25s %-20s %-20s %-10s\n' "Max address space" unlimited unlimited bytes
	} > "$R/proc/self/limits"
}
