#!/usr/bin/env bash
# fixture2root.sh KIND INPUT OUTDIR — lays a real-data fixture from ../shared/fixtures/real out as a
# root (OUTDIR/sys/...) at test time, so tests can read third-party data in place without the
# project ever holding a copy.  KINDs:
#   dir     a sys/class/infiniband tree as directories (gpud-h100-sys-class-infiniband/)
#   ttar    prometheus/procfs "path<TAB>content" lines (\n escaped; a trailing EOF = no newline)
#   gcm     facebookresearch/gcm JSON map {"/sys/bus/pci/devices/...": "content"}
#   ibstat  an ibstat output: rebuilds the sysfs that makes rdma-core's ibstat print exactly it
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
*)
	echo "fixture2root: unknown kind $kind" >&2; exit 2 ;;
esac
