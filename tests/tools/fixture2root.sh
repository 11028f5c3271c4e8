#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# fixture2root.sh KIND INPUT OUTDIR — lays a real-data fixture from ../shared/fixtures/real out as a
# root (OUTDIR/sys/...) at test time, so tests can read third-party data in place without the
# project ever holding a copy.  KINDs:
#   dir     a sys/class/infiniband tree as directories (gpud-h100-sys-class-infiniband/)
#   ttar    prometheus/procfs "path<TAB>content" lines (\n escaped; a trailing EOF = no newline)
#   gcm     facebookresearch/gcm JSON map {"/sys/bus/pci/devices/...": "content"}
#   ibstat  an ibstat output: rebuilds the sysfs that makes rdma-core's ibstat print exactly it
#   modinfo-inbox / modinfo-ofed
#           skyao's Debian 12 lsmod + modinfo of mlx5_core, inbox or after MLNX_OFED 24.10 DKMS:
#           /proc/modules from lsmod, /sys/module/mlx5_core/{version,srcversion,taint} and
#           lib/modules/<kver>/modules.dep from modinfo (taint O when modinfo has no "intree: Y")
set -euo pipefail
kind=$1 in=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
R=$out
. "$here/../../tools/rootlib.sh"
mkdir -p "$out"
case "$kind" in
dir)
	mkdir -p "$out/sys/class"
	cp -r "$in" "$out/sys/class/infiniband"
	;;
ttar)
	while IFS=$'\t' read -r path content; do
		rel=sys/${path#fixtures/sys/}
		if [ "${content%EOF}" != "$content" ]; then
			raw "$rel" "$(printf '%s' "${content%EOF}" | sed 's/\\n/\n/g')"
		else
			raw "$rel" "$(printf '%s' "$content" | sed 's/\\n/\n/g')"
			printf '\n' >> "$R/$rel"
		fi
	done < "$in"
	;;
gcm)
	command -v jq >/dev/null || { echo "fixture2root: jq is required" >&2; exit 1; }
	jq -r 'to_entries[] | "\(.key)\t\(.value|@base64)"' "$in" | while IFS=$'\t' read -r path b64; do
		rel=${path#/}
		mkdir -p "$R/$(dirname "$rel")"
		printf '%s' "$b64" | base64 -d > "$R/$rel"
		case "$rel" in
		sys/bus/pci/devices/*/infiniband/*/node_type)
			dev=$(dirname "$rel")
			lnk "sys/class/infiniband/$(basename "$dev")" "../../${dev#sys/}" ;;
		esac
	done
	;;
ibstat)
	awk -f "$here/ibstat2root.awk" "$in" | while IFS=$'\t' read -r path value; do
		if [ "$value" = "@NONE" ]; then mkdir -p "$R/$path"; else attr "$path" "$value"; fi
	done
	;;
modinfo-inbox|modinfo-ofed)
	# blocks are separated by "----- (next verbatim code block) -----": lsmod, modinfo, lsmod, modinfo
	want=1; [ "$kind" = modinfo-ofed ] && want=3
	mkdir -p "$R/proc"
	awk -v want=$want -v R="$R" '
		/^----- \(next verbatim code block\) -----/ { block++; next }
		block == want - 1 && NF >= 3 && $1 != "$" && $1 != "Module" {
			h = ($4 == "" ? "-" : $4 ","); print $1 " " $2 " " $3 " " h " Live 0x0000000000000000" > (R "/proc/modules.tmp")
		}
		block == want {
			if ($1 == "filename:") { f = $2 } else if ($1 == "version:") { v = $2 }
			else if ($1 == "srcversion:") { sv = $2 } else if ($1 == "intree:") { it = $2 }
			else if ($1 == "vermagic:") { k = $2 }
		}
		END { print f "|" v "|" sv "|" it "|" k }' "$in" > "$out/.modinfo"
	mkdir -p "$R/proc"
	IFS="|" read -r file ver srcver intree kver < "$out/.modinfo"
	rm -f "$out/.modinfo"
	taint=O; [ "$intree" = Y ] && taint=
	while read -r name size ref holders rest; do
		line="$name $size $ref $holders $rest"
		case "$name" in mlx5_*|ib_*|mlx_compat|mlxdevm|mlxfw) [ -n "$taint" ] && line="$line ($taint)"
			attr "sys/module/$name/taint" "$taint"; attr "sys/module/$name/initstate" live ;; esac
		printf '%s\n' "$line" >> "$R/proc/modules"
	done < "$R/proc/modules.tmp"
	rm -f "$R/proc/modules.tmp"
	[ -n "$ver" ] && attr sys/module/mlx5_core/version "$ver"
	[ -n "$srcver" ] && attr sys/module/mlx5_core/srcversion "$srcver"
	attr proc/sys/kernel/osrelease "$kver"
	mkdir -p "$R/lib/modules/$kver"
	printf '%s: \n' "${file#/lib/modules/$kver/}" > "$R/lib/modules/$kver/modules.dep"
	;;
*)
	echo "fixture2root: unknown kind $kind" >&2; exit 2 ;;
esac
