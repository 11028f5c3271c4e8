#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# GPU <-> NIC topology tests: the roots of tests/topo/make.sh (real GPU servers' PCIe trees):
#   * `topo` (text and JSON) and `check --only gdr.path` (text and JSON) equal the goldens in
#     tests/topo/expected/; the JSON parses and the exit status is the worst finding's;
#   * NCCL_NET_GDR_LEVEL moves the GPUDirect distance as NCCL reads it (SYS: every GPU OK; a value
#     NCCL does not read: its default);
#   * a snapshot of a root gives the same `topo` and gdr.path as the root; the live host's `topo` runs;
#   * a host without GPUs (every scenario root of tests/scenarios/make.sh: no PCIe hierarchy) SKIPs.
# Usage: tests/topo/run.sh [BUILD_DIR] [--update]     Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build update=0
for a in "$@"; do case "$a" in --update) update=1 ;; *) build=$(cd "$a" && pwd) ;; esac; done
bin=$build/rdma-doctor
exp=$top/tests/topo/expected
. "$top/tests/lib.sh"
ts_init
ts_scratch topo
command -v jq > /dev/null || ts_die "jq is required"
unset NCCL_NET_GDR_LEVEL
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
"$top/tests/topo/make.sh" "$work" || ts_die "make.sh"
cd "$work" || exit 1

# golden NAME FILE: FILE equals expected/NAME (written with --update)
golden() {
	[ $update = 1 ] && cp "$2" "$exp/$1"
	if cmp -s "$2" "$exp/$1"; then ok; else bad "$1 differs from the golden"; diff "$exp/$1" "$2" | head -10; fi
}
for r in h100-pex890xx h100-nics-on-socket1 h100-nics-two-host-bridges; do
	"$bin" --root "$r" topo > "$r.topo.txt" 2> "$r.err" && ok || bad "$r: topo exit $?"
	"$bin" --root "$r" topo --format json > "$r.topo.json" 2>> "$r.err" && ok || bad "$r: topo --format json exit $?"
	"$bin" --root "$r" check --only gdr.path > "$r.gdr.txt" 2>> "$r.err"; rc_text=$?
	"$bin" --root "$r" check --only gdr.path --format json > "$r.gdr.json" 2>> "$r.err"; rc_json=$?
	[ -s "$r.err" ] && bad "$r: stderr: $(head -3 "$r.err")"
	for k in topo.txt topo.json gdr.txt gdr.json; do golden "$r.$k" "$r.$k"; done
	jq -e '.schema == "rdma-doctor/topo/v1" and (.gpus|length) == 8 and all(.paths[]; .type|IN("PIX","PXB","PHB","NODE","SYS"))
		and ([.paths[] | select(.from|startswith("GPU")) | select(.to|startswith("NIC"))] | length) == 8 * (.nics|length)' \
		"$r.topo.json" > /dev/null && ok || bad "$r: topo JSON invalid"
	want=$(jq -r '.summary.exit_code' "$r.gdr.json")
	[ "$rc_text" = "$want" ] && [ "$rc_json" = "$want" ] && ok || bad "$r: exit $rc_text/$rc_json, summary says $want"
done
# what each tree must give: every GPU OK; the 4 GPUs of socket 0 WARN SYS; 6 GPUs WARN NODE
st() { jq -r "[.findings[] | select(.status == \"$2\")] | length" "$1.gdr.json"; }
[ "$(st h100-pex890xx OK)" = 8 ] && ok || bad "h100-pex890xx: not 8 OK"
[ "$(st h100-nics-on-socket1 WARN)" = 4 ] && grep -q 'is SYS' h100-nics-on-socket1.gdr.txt && ok || bad "h100-nics-on-socket1: not 4 WARN SYS"
[ "$(st h100-nics-two-host-bridges WARN)" = 6 ] && grep -q 'is NODE' h100-nics-two-host-bridges.gdr.txt && ok ||
	bad "h100-nics-two-host-bridges: not 6 WARN NODE"
# each GPU's NIC on its own switch is PIX, as nvidia-smi prints it on such hosts
jq -e '[.paths[] | select(.from == "GPU0" and .to == "NIC0")][0] | .type == "PIX" and .nccl_type == "PIX" and .gdr == true
	and .via == ["0000:17:01.0","0000:16:00.0","0000:17:02.0"]' h100-pex890xx.topo.json > /dev/null && ok || bad "GPU0-NIC0 not PIX"

# NCCL_NET_GDR_LEVEL: SYS lets every GPU use a NIC across the sockets; PHB does not; a word NCCL does
# not read leaves its default
NCCL_NET_GDR_LEVEL=SYS "$bin" --root h100-nics-on-socket1 check --only gdr.path > env.txt; rc=$?
[ $rc = 0 ] && grep -q 'NCCL_NET_GDR_LEVEL=SYS (SYS)' env.txt && ok || bad "NCCL_NET_GDR_LEVEL=SYS: exit $rc"
NCCL_NET_GDR_LEVEL=3 "$bin" --root h100-nics-on-socket1 check --only gdr.path > env.txt; rc=$?
[ $rc = 1 ] && grep -q 'NCCL_NET_GDR_LEVEL=3 (PHB)' env.txt && ok || bad "NCCL_NET_GDR_LEVEL=3: exit $rc"
NCCL_NET_GDR_LEVEL=3 "$bin" --root h100-nics-two-host-bridges check --only gdr.path > env.txt; rc=$?
[ $rc = 0 ] && ok || bad "NCCL_NET_GDR_LEVEL=3 on NODE paths: exit $rc"
NCCL_NET_GDR_LEVEL=node "$bin" --root h100-nics-two-host-bridges check --only gdr.path > env.txt; rc=$?
[ $rc = 1 ] && grep -q 'NCCL_NET_GDR_LEVEL=node is no level NCCL reads' env.txt && ok || bad "NCCL_NET_GDR_LEVEL=node: exit $rc"
NCCL_NET_GDR_LEVEL=PIX "$bin" --root h100-pex890xx topo | grep -qx 'NCCL uses GPUDirect RDMA up to PIX (NCCL_NET_GDR_LEVEL=PIX).' && ok ||
	bad "topo does not say NCCL_NET_GDR_LEVEL"

# a snapshot of the root: the same topology and findings
if "$bin" --root h100-nics-two-host-bridges snapshot -o snap.tar.gz > /dev/null 2> snap.err; then
	"$bin" --root snap.tar.gz topo > snap.topo.txt && cmp -s snap.topo.txt h100-nics-two-host-bridges.topo.txt && ok ||
		bad "topo of the snapshot differs: $(diff h100-nics-two-host-bridges.topo.txt snap.topo.txt | head -5)"
	"$bin" --root snap.tar.gz check --only gdr.path | tail -n +2 > snap.gdr.txt
	tail -n +2 h100-nics-two-host-bridges.gdr.txt | cmp -s - snap.gdr.txt && ok || bad "gdr.path of the snapshot differs"
else
	bad "snapshot: $(head -3 snap.err)"
fi
# the live host (this machine): topo runs, whatever it has
"$bin" topo > live.txt 2> live.err && ok || bad "live topo: exit $?: $(head -2 live.err)"
"$bin" topo --format json | jq -e '.schema == "rdma-doctor/topo/v1"' > /dev/null && ok || bad "live topo --format json"
# usage errors
"$bin" topo extra > /dev/null 2> use.err; rc=$?
[ $rc = 3 ] && grep -q "takes no operand" use.err && ok || bad "topo with an operand: exit $rc"

# hosts without a PCIe hierarchy or GPUs: SKIP, never a false finding
"$top/tests/scenarios/make.sh" scen > /dev/null 2>&1 || bad "tests/scenarios/make.sh"
n=0 skip=0
for r in scen/*/; do
	n=$((n + 1))
	"$bin" --root "$r" check --only gdr.path --format json | jq -e 'all(.findings[]; .status == "SKIP")' > /dev/null && skip=$((skip + 1))
done
[ $n -gt 0 ] && [ $skip = $n ] && ok || bad "gdr.path did not SKIP on $((n - skip)) of $n scenario roots"

ts_finalize
