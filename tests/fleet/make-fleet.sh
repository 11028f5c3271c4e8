#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# make-fleet.sh OUTDIR — the 24-node scenario fleet of tests/fleet/run.sh, as roots OUTDIR/node01
# ... OUTDIR/node23 (node24 has no root: it never reports), built from tests/scenarios/make.sh:
#   node01-node23: healthy-inbox with its host name set (hostname, /etc/hostname, node_desc);
#   node05-node07: both ConnectX-7 (board MT_0000000838) on firmware 28.39.1010, not 28.41.1000;
#   node12:        ib-umad-missing (ib_umad not loaded: a FAIL on that node).
# make-fleet.sh OUTDIR qos — the 4-node RoCE QoS fleet, roots OUTDIR/qos01 ... OUTDIR/qos04:
#   qos01, qos02, qos04: healthy-mft (RoCE port trust dscp, PFC on priority 3, from sysfs qos/);
#   qos03:               roce-qos-differs (trust pcp, PFC off on every priority);
#   every node's policy without its [roce] section, so roce.qos judges nothing (OK): only the
#   fleet's drift of trust and PFC across the RoCE ports tells the odd node.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
base=$(mktemp -d "${TMPDIR:-/tmp}/rd-fleet-base.XXXXXX")
trap 'rm -rf "$base"' EXIT
if [ "${2:-}" = qos ]; then
	"$here/../scenarios/make.sh" "$base" healthy-mft roce-qos-differs > /dev/null
	for n in qos01 qos02 qos03 qos04; do
		src=healthy-mft
		[ "$n" = qos03 ] && src=roce-qos-differs
		rm -rf "${out:?}/$n"
		cp -a "$base/$src" "$out/$n"
		echo "$n" > "$out/$n/proc/sys/kernel/hostname"
		echo "$n" > "$out/$n/etc/hostname"
		for d in "$out/$n"/sys/devices/*/*/*/infiniband/*; do
			sed -i "s/^gpu-a01 /$n /" "$d/node_desc"
		done
		sed -i '/^\[roce\]$/,/^\[/{/^\[roce\]$/d;/^\[/!d}' "$out/$n/etc/rdma-doctor.conf"
		grep -q '^\[roce\]' "$out/$n/etc/rdma-doctor.conf" && { echo "make-fleet.sh: [roce] left in $n's policy" >&2; exit 1; }
	done
	exit 0
fi
"$here/../scenarios/make.sh" "$base" healthy-inbox ib-umad-missing > /dev/null
for i in $(seq -w 1 23); do
	n=node$i
	src=healthy-inbox
	[ "$n" = node12 ] && src=ib-umad-missing
	rm -rf "${out:?}/$n"
	cp -a "$base/$src" "$out/$n"
	echo "$n" > "$out/$n/proc/sys/kernel/hostname"
	echo "$n" > "$out/$n/etc/hostname"
	for d in "$out/$n"/sys/devices/*/*/*/infiniband/*; do
		sed -i "s/^gpu-a01 /$n /" "$d/node_desc"
	done
	case $n in node05 | node06 | node07)
		for d in "$out/$n"/sys/devices/*/*/*/infiniband/mlx5_[01]; do echo 28.39.1010 > "$d/fw_ver"; done ;;
	esac
done
