#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `rdma-doctor fleet` end to end, with the real engines (Debian pdsh, clustershell, slurm-client,
# chromium):
#   1. the 24-node scenario fleet (make-fleet.sh: firmware drift on node[05-07], ib_umad missing on
#      node12, node24 never reports): text, JSON and HTML equal the goldens in expected/, exit 2;
#   1b. the 4-node RoCE QoS fleet (make-fleet.sh OUTDIR qos: qos03 trusts pcp with PFC off, the
#      others dscp with PFC on priority 3): trust and PFC drift across the RoCE ports, exit 1 with
#      every node OK; text and JSON equal the goldens fleet-qos.{txt,json};
#   2. gathered by `pdsh -R exec` (stdin), `clush -R exec` (stdin, -b blocks on stdin, --outdir
#      into a directory): the same summary; a host whose command failed, stopped half-way or
#      timed out is missing, never healthy;
#   3. hostlists against the real `scontrol show hostlistsorted` / `show hostnames`;
#   4. bad input: truncated, not JSON, another schema, check's error document, a 1 GiB file, a
#      FIFO and a link to /dev/zero in a directory, a directory of 100,000 files: one line each,
#      the rest summarised; several reports for one node; --max-age; -o (atomic); usage errors;
#   1d. --fabric: the document fabric makes of tests/fabric/captures/w1 beside the 24 nodes: text,
#      JSON and HTML goldens, the bad links flagged, hostile documents (cut, 65 MiB, another
#      schema, a directory, a hostile node description), the fabric's FAIL as the exit status;
#      --pairs: pairs' judgement of tests/pairs/results-8.json, its slow node and pair with hostlists;
#   5. the HTML page in headless Chromium: it renders (the grid is in the DOM), no console error,
#      a screenshot kept in BUILD_DIR/artifacts/fleet/; the --fabric page too (its bad row drawn red).
# Usage: tests/fleet/run.sh [BUILD_DIR] [--update]      Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build update=0
for a in "$@"; do case "$a" in --update) update=1 ;; *) build=$(cd "$a" && pwd) ;; esac; done
bin=$build/rdma-doctor
exp=$top/tests/fleet/expected
. "$top/tests/lib.sh"
art=$build/artifacts/fleet
ts_init -v
for c in jq pdsh clush scontrol chromium; do
	command -v "$c" > /dev/null || bad "$c is missing (apt-get install jq pdsh clustershell slurm-client chromium)"
done
[ -x "$bin" ] || bad "$bin is not built"
[ $fail = 0 ] || ts_finalize
ts_scratch fleet
mkdir -p "$exp" "$art"
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1 LC_ALL=C.UTF-8
cd "$work" || exit 1
# rc_is WANT NAME COMMAND...: runs it (stdout to NAME.out, stderr to NAME.err), checks the status
rc_is() {
	local want=$1 name=$2; shift 2
	"$@" > "$name.out" 2> "$name.err"
	local rc=$?
	if [ "$rc" = "$want" ]; then ok "$name: exit $rc"; else bad "$name: exit $rc, not $want"; head -5 "$name.err"; fi
}
# golden NAME FILE: FILE equals expected/NAME (or becomes it with --update)
golden() {
	[ $update = 1 ] && cp "$2" "$exp/$1"
	if cmp -s "$2" "$exp/$1"; then ok "$1 equals the golden"; else bad "$1 differs from the golden"; diff "$exp/$1" "$2" | head -20; fi
}
has() { # NAME FILE PATTERN (grep -E)
	if grep -qE -- "$3" "$2"; then ok "$1"; else bad "$1: no /$3/ in $2"; head -20 "$2"; fi
}

# ---- 1. the scenario fleet ----------------------------------------------------------------------
"$top/tests/fleet/make-fleet.sh" "$work/fl" || { bad "make-fleet.sh"; ts_finalize; }
mkdir reports
for r in fl/node*; do "$bin" --root "$r" check --format json > "reports/${r#fl/}.json"; done
n=$(ls reports | wc -l)
[ "$n" = 23 ] && ok "23 reports made (node24 never reports)" || bad "$n reports"
rc_is 2 dir-text "$bin" fleet --expect 'node[01-24]' reports
golden fleet24.txt dir-text.out
[ -s dir-text.err ] && bad "stderr: $(head -3 dir-text.err)"
has "firmware drift within ConnectX-7's board" dir-text.out '^  firmware  DRIFT$'
has "the 3 nodes on the old firmware, flagged" dir-text.out '^  ! 28\.39\.1010 +3  node\[05-07\]$'
has "the majority's hostlist" dir-text.out '^    28\.41\.1000 +20  node\[01-04,08-23\]$'
has "the missing module's node" dir-text.out '^  ! ib_umad not loaded +1  node12$'
has "the finding, check -> subject -> hostlist" dir-text.out '^    FAIL +ib_umad +1  node12$'
has "the node that never reported" dir-text.out '^  1 node missing \(no report\): node24$'
rc_is 2 dir-json "$bin" fleet --expect 'node[01-24]' --format json reports
golden fleet24.json dir-json.out
if jq -e '.schema == "rdma-doctor/fleet/v1" and .exit_code == 2 and .status == "FAIL" and .drift == true
	and .counts.reported == 23 and .counts.missing == 1 and .missing == "node24"
	and ([.boards[] | select(.board_id == "MT_0000000838") | .groups[] | select(.kind == "firmware") | .drift, (.values | map([.value, .count, .hosts, .minority]))]
	     == [true, [["28.41.1000", 20, "node[01-04,08-23]", false], ["28.39.1010", 3, "node[05-07]", true]]])
	and ([.findings[] | select(.check == "modules.loaded") | .values[0] | .subject, .status, .hosts] == ["ib_umad", "FAIL", "node12"])
	and ([.nodes[] | select(.host == "node24") | .state] == ["missing"])
	and ([.nodes[] | select(.drift != []) | [.host, .drift[]]] == [["node05", "firmware"], ["node06", "firmware"], ["node07", "firmware"]])' dir-json.out > /dev/null; then
	ok "JSON: schema, drift, hostlists, the missing node"
else bad "JSON fields"; jq -c '.counts, .missing' dir-json.out; fi
rc_is 2 dir-html "$bin" fleet --expect 'node[01-24]' --format html reports
golden fleet24.html dir-html.out
if grep -qiE '(src|href)=|https?:|<script|<link|@import|url\(' dir-html.out; then bad "the HTML refers to something outside it"
else ok "the HTML is self-contained (no src=, href=, script, link, url())"; fi

# ---- 1b. the RoCE QoS fleet ---------------------------------------------------------------------
# (its roots carry the operator's guide's ConnectX-7 captures: not run without ../shared/seed)
if ts_have_seed; then
"$top/tests/fleet/make-fleet.sh" "$work/qf" qos || { bad "make-fleet.sh qos"; ts_finalize; }
mkdir qreports
for r in qf/qos*; do "$bin" --root "$r" check --format json > "qreports/${r#qf/}.json"; done
if [ "$(jq -r '[.summary.status, (.devices[].ports[] | select(.link_layer == "Ethernet") | .qos | .trust, (.pfc | join(",")))] | join(" ")' qreports/qos0[1-4].json | tr '\n' ' ')" = \
	"OK dscp 3 OK dscp 3 OK pcp  OK dscp 3 " ]; then ok "qos reports: every node OK, qos03 trusts pcp with PFC off"
else bad "qos reports: $(jq -c '[.summary.status, (.devices[].ports[].qos)]' qreports/*.json)"; fi
rc_is 1 qos-text "$bin" fleet --expect 'qos[01-04]' qreports
golden fleet-qos.txt qos-text.out
has "qos: trust drift flagged" qos-text.out '^  RoCE trust mode  DRIFT$'
has "qos: the pcp node" qos-text.out '^  ! pcp +1  qos03$'
has "qos: the PFC majority" qos-text.out '^    3 +3  qos\[01-02,04\]$'
has "qos: PFC off on the odd node" qos-text.out '^  ! none +1  qos03$'
has "qos: the verdict names the trust drift" qos-text.out '^  drift: RoCE trust mode differs across the fleet \(2 values\)$'
rc_is 1 qos-json "$bin" fleet --expect 'qos[01-04]' --format json qreports
golden fleet-qos.json qos-json.out
if jq -e '.exit_code == 1 and .status == "WARN" and .drift == true and .counts.ok == 4
	and ([.fleet[] | select(.kind == "roce_trust" or .kind == "roce_pfc") | [.kind, .drift, (.values | map([.value, .count, .hosts, .minority]))]]
	     == [["roce_trust", true, [["dscp", 3, "qos[01-02,04]", false], ["pcp", 1, "qos03", true]]],
		 ["roce_pfc", true, [["3", 3, "qos[01-02,04]", false], ["none", 1, "qos03", true]]]])
	and ([.nodes[] | select(.drift != []) | [.host, .drift[]]] == [["qos03", "roce_trust", "roce_pfc"]])' qos-json.out > /dev/null; then
	ok "qos JSON: roce_trust and roce_pfc groups, drift, qos03 marked"
else bad "qos JSON fields"; jq -c '.fleet[] | select(.kind == "roce_trust" or .kind == "roce_pfc")' qos-json.out; fi
else ts_skip "the RoCE QoS fleet" "$ts_seed_reason"; fi

# ---- 1c. the GPU fleet: the GPU-NIC paths, the IOMMU and ACS as drift ----------------------------
# (tests/topo/make.sh's H100 roots, from published lspci trees: gpu[01-04] with iommu=pt, gpu05 with
# DMA-FQ groups, gpu06 with ACS redirect on its switch ports, gpu07 with its NICs on the other socket)
"$top/tests/topo/make.sh" "$work/tp" > /dev/null 2>&1 || bad "tests/topo/make.sh"
mkdir greports
gnode() { # NAME ROOT
	cp -a "$work/tp/$2" "$work/tp/$1"
	echo "$1" > "$work/tp/$1/etc/hostname"; echo "$1" > "$work/tp/$1/proc/sys/kernel/hostname"
	"$bin" --root "$work/tp/$1" check --format json > "greports/$1.json"
}
for n in 1 2 3 4; do gnode gpu0$n h100-iommu-pt; done
gnode gpu05 h100-iommu-dma; gnode gpu06 h100-acs-redirect; gnode gpu07 h100-nics-on-socket1
if jq -e '.gpudirect.gpus | length == 8 and (map(.type) | unique) == ["PIX"]' greports/gpu01.json > /dev/null &&
	jq -e '.gpudirect | .iommu == "identity" and .gdr_level == "PXB" and .gpus[0].nic == "mlx5_0" and .gpus[0].acs_redirect == []' greports/gpu01.json > /dev/null &&
	jq -e '.gpudirect.gpus[0].acs_redirect == ["0000:17:01.0", "0000:17:02.0"]' greports/gpu06.json > /dev/null &&
	{ "$bin" --root "$top/examples/no-rdma" check --format json > no-gpu.json; jq -e 'has("gpudirect") | not' no-gpu.json > /dev/null; }; then
	ok "reports: gpudirect on the GPU hosts (the nearest NIC, path, ACS, IOMMU), none without GPUs"
else bad "reports' gpudirect: $(jq -c '.gpudirect | del(.gpus)' greports/gpu01.json greports/gpu06.json)"; fi
rc_is 1 gpu-text "$bin" fleet --expect 'gpu[01-07]' greports
golden fleet-gpu.txt gpu-text.out
has "gpu: path drift flagged" gpu-text.out '^  GPU-NIC paths \(nearest NIC\)  DRIFT$'
has "gpu: the majority's paths" gpu-text.out '^    10de:2330 x8: 8 PIX +6  gpu\[01-06\]$'
has "gpu: the node whose GPUs are across the socket, named" gpu-text.out '^  ! 10de:2330 x8: 4 PIX, 4 SYS \(GPU0 GPU1 GPU2 GPU3\) +1  gpu07$'
has "gpu: the DMA-FQ node" gpu-text.out '^  ! DMA-FQ +1  gpu05$'
has "gpu: the node with ACS redirect" gpu-text.out '^  ! 16 bridges redirect +1  gpu06$'
rc_is 1 gpu-json "$bin" fleet --expect 'gpu[01-07]' --format json greports
golden fleet-gpu.json gpu-json.out
if jq -e '([.fleet[] | select(.kind == "gdr_path" or .kind == "iommu" or .kind == "acs") | [.kind, .drift, (.values | map([.value, .count, .hosts, .minority]) | .[0])]]
	     == [["gdr_path", true, ["10de:2330 x8: 8 PIX", 6, "gpu[01-06]", false]], ["iommu", true, ["identity", 4, "gpu[01-04]", false]],
		 ["acs", true, ["none", 6, "gpu[01-05,07]", false]]])
	and ([.nodes[] | select(.drift != []) | [.host, .drift[]]] | sort == [["gpu05", "iommu"], ["gpu06", "iommu", "acs"], ["gpu07", "gdr_path", "iommu"]])' gpu-json.out > /dev/null; then
	ok "gpu JSON: gdr_path, iommu and acs groups, the drifting nodes marked"
else bad "gpu JSON fields"; jq -c '.fleet[] | select(.kind == "gdr_path" or .kind == "iommu" or .kind == "acs")' gpu-json.out; jq -c '[.nodes[] | select(.drift != []) | [.host, .drift[]]]' gpu-json.out; fi

# ---- 1d. the fabric beside the nodes: --fabric FILE ------------------------------------------------
# the document fabric makes of tests/fabric/captures/w1 (leaf1[6] - spine1[2] at 1X with error
# counters: FAIL; leaf2[2] - node05's cable with receive errors: WARN), kept as
# tests/fleet/fabric-w1.json for the CLI goldens: the same document but for its "source"
(cd "$top" && "$bin" fabric tests/fabric/captures/w1 --format json) > fab.json 2> fab.err
if cmp -s fab.json "$top/tests/fleet/fabric-w1.json"; then ok "fabric-w1.json is what fabric makes of the w1 captures"
else bad "tests/fleet/fabric-w1.json differs from fabric's document of the captures (regenerate it)"; diff fab.json "$top/tests/fleet/fabric-w1.json" | head -5; fi
rc_is 2 fab-text "$bin" fleet --expect 'node[01-24]' --fabric fab.json reports
golden fleet24-fabric.txt fab-text.out
has "fabric: its verdict and counts" fab-text.out '^Fabric FAIL \(fab\.json, 2025-11-30T00:00:00Z\): 4 switches, 6 CA ports on 6 hosts, 14 links, 2 bad$'
has "fabric: the FAIL finding with its subject" fab-text.out '^  FAIL +fabric\.link\.errors +leaf1\[6\] - spine1\[2\]$'
has "fabric: the host cable's WARN" fab-text.out '^  WARN +fabric\.link\.errors +leaf2\[2\] - node05 mlx5_0\[1\]$'
has "fabric: the verdict names it" fab-text.out '^  fabric FAIL \(fab\.json\): 1 FAIL, 2 WARN, 0 UNKNOWN findings, 2 bad links$'
has "fabric: the nodes' summary is still there" fab-text.out '^  ! 28\.39\.1010 +3  node\[05-07\]$'
rc_is 2 fab-json "$bin" fleet --expect 'node[01-24]' --fabric fab.json --format json reports
golden fleet24-fabric.json fab-json.out
if jq -e '.fabric.status == "FAIL" and .fabric.input == "fab.json" and .fabric.counts.bad_links == 2
	and ([.fabric.findings[] | [.status, .check, .subject]] == [["FAIL", "fabric.link.errors", "leaf1[6] - spine1[2]"],
		["WARN", "fabric.link.degraded", "leaf1[6] - spine1[2]"], ["WARN", "fabric.link.errors", "leaf2[2] - node05 mlx5_0[1]"]])
	and ([.fabric.bad_links[] | [.a.desc, .a.port, .b.desc, .b.port, .width, .could_width, .status]] ==
		[["leaf1", 6, "spine1", 2, 1, 12, "FAIL"], ["leaf2", 2, "node05 mlx5_0", 1, 4, 12, "WARN"]])
	and .counts.reported == 23 and .missing == "node24"' fab-json.out > /dev/null; then
	ok "JSON: the fabric's verdict, findings with subjects, bad links; the nodes' summary unchanged"
else bad "JSON fabric: $(jq -c '.fabric | .status, .counts' fab-json.out)"; fi
if jq -e '.fabric == null' dir-json.out > /dev/null; then ok "JSON without --fabric: fabric null"; else bad "JSON: fabric not null without --fabric"; fi
rc_is 2 fab-html "$bin" fleet --expect 'node[01-24]' --fabric fab.json --format html reports
golden fleet24-fabric.html fab-html.out
if grep -qiE '(src|href)=|https?:|<script|<link|@import|url\(' fab-html.out; then bad "the fabric page refers to something outside it"
else ok "the fabric page is self-contained"; fi
# the bad rows: leaf1's port 6 (FAIL) and its other end spine1's port 2, leaf2's port 2 (WARN)
if [ "$(grep -c '^<tr class="bad fail"><td class="n">6</td><td>spine1\[2\]</td><td>1X 2.5 Gbps</td><td>12X 10 Gbps</td>' fab-html.out)" = 1 ] &&
	grep -q '^<tr class="bad fail"><td class="n">2</td><td>leaf1\[6\]</td>' fab-html.out &&
	grep -q '^<tr class="bad warn"><td class="n">2</td><td>node05 mlx5_0\[1\]</td>' fab-html.out &&
	[ "$(grep -c '^<tr class="bad' fab-html.out)" = 3 ] && [ "$(grep -c '^<details class="switch" open>' fab-html.out)" = 3 ] &&
	[ "$(grep -c '^<details class="switch">' fab-html.out)" = 1 ]; then
	ok "HTML: the bad links' rows (both ends of a switch-to-switch cable) flagged, their switches open, spine2 folded"
else bad "HTML fabric rows: $(grep -c '^<tr class="bad' fab-html.out) bad rows"; grep '^<tr class="bad\|^<details' fab-html.out | head; fi
# hostile documents: one line naming the file each, the nodes' summary still out
head -c 2000 fab.json > fab-cut.json
truncate -s 65M fab-big.json
printf '%s' '{"schema":"\u001b[31mx","summary":{"status":"OK"}}' > fab-other.json
for c in "cut fab-cut.json cut short: the document ends inside it" "big fab-big.json larger than 64 MiB" \
	"other fab-other.json not a fabric document (its \"schema\" is not rdma-doctor's; want rdma-doctor/fabric/v1)" \
	"report reports/node01.json schema \"rdma-doctor/report/v1\", not rdma-doctor/fabric/v1" \
	"missing fab-none.json No such file or directory" "dir reports not a regular file"; do
	read -r name file why <<< "$c"
	rc_is 2 "fab-$name" "$bin" fleet --expect 'node[01-24]' --fabric "$file" reports
	if grep -qxF "  $file: --fabric: $why" "fab-$name.out" && grep -qE '^  ! 28\.39\.1010 +3  node\[05-07\]$' "fab-$name.out" &&
		! grep -q '^Fabric' "fab-$name.out"; then ok "bad fabric ($name): one line naming it, the rest summarised"
	else bad "bad fabric ($name): $(grep -F -- "$file" "fab-$name.out" | head -2)"; fi
done
if grep -q '31mx' fab-other.out; then bad "the other program's schema was echoed"; else ok "another program's JSON is not echoed"; fi
# every node OK but the fabric FAILs: exit 2; a fabric document as a PATH: refused with the hint
mkdir okrep && cp reports/node01.json reports/node02.json okrep/
rc_is 2 fab-only-fail "$bin" fleet --fabric fab.json okrep
rc_is 3 fab-as-path "$bin" fleet okrep fab.json
has "a fabric document as a PATH: the hint" fab-as-path.out 'fab\.json: schema "rdma-doctor/fabric/v1", not rdma-doctor/report/v1 \(a fabric document: give it with --fabric FILE\)$'
# node descriptions are hostile: escaped in the page, the link still flagged
jq '(.links[] | select(.a.desc == "leaf2" and .a.port == 2) | .b.desc) = "</td><script>alert(1)</script>"
	| (.nodes[] | select(.desc == "node05 mlx5_0") | .desc) = "</td><script>alert(1)</script>"
	| (.findings[] | select(.subject == "leaf2[2] - node05 mlx5_0[1]") | .subject) = "leaf2[2] - </td><script>alert(1)</script>[1]"' fab.json > fab-evil.json
rc_is 2 fab-evil "$bin" fleet --format html --fabric fab-evil.json okrep
if grep -q '<script' fab-evil.out; then bad "fabric HTML: a node description is not escaped"
elif grep -qF '<tr class="bad warn"><td class="n">2</td><td>&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;[1]</td>' fab-evil.out; then
	ok "fabric HTML: a hostile node description escaped, its link still flagged"
else bad "fabric HTML evil: $(grep -F 'alert' fab-evil.out | head -2)"; fi

# --pairs: what pairs judged of tests/pairs/results-8.json (n4 slow against every partner: bad;
# n5 - n6 slow together on two rails), kept as tests/fleet/pairs-8.json
"$bin" pairs --results "$top/tests/pairs/results-8.json" --json > prs.json 2> prs.err
if cmp -s prs.json "$top/tests/fleet/pairs-8.json"; then ok "pairs-8.json is what pairs judges of results-8.json"
else bad "tests/fleet/pairs-8.json differs from pairs' judgement of results-8.json (regenerate it)"; fi
rc_is 2 prs-text "$bin" fleet --pairs prs.json okrep
has "pairs: its verdict and counts" prs-text.out '^Pairs FAIL \(prs\.json\): 8 nodes, 4 rounds, 22 samples, median 373\.5 Gb/s$'
has "pairs: the hosts by state" prs-text.out '^  bad: n4; suspect: none; untested: none; cleared: n\[1-3,5-8\]$'
has "pairs: the slow node as a hostlist" prs-text.out '^  FAIL +pairs\.bandwidth +1  n4$'
has "pairs: the slow pair, its two rails" prs-text.out '^  WARN +pairs\.link +2  n5 - n6$'
has "pairs: the verdict names it" prs-text.out '^  pairs FAIL \(prs\.json\): 1 FAIL, 2 WARN, 0 UNKNOWN findings; bad: n4$'
rc_is 2 prs-json "$bin" fleet --pairs prs.json --fabric fab.json --format json okrep
if jq -e '.pairs.status == "FAIL" and .pairs.hosts.bad == "n4" and .fabric.status == "FAIL"
	and ([.pairs.findings[] | [.check, .status, (.hosts // .pair), .count]] == [["pairs.bandwidth", "FAIL", "n4", 1], ["pairs.link", "WARN", "n5 - n6", 2]])' prs-json.out > /dev/null
then ok "JSON: the pairs' findings with hostlists, beside the fabric"; else bad "JSON pairs: $(jq -c .pairs prs-json.out | head -c 300)"; fi
rc_is 2 prs-html "$bin" fleet --pairs prs.json --format html okrep
has "HTML: the pairs' table" prs-html.out '^<tr><td><span class="st fail">FAIL</span> pairs\.bandwidth'
rc_is 3 prs-bad "$bin" fleet --pairs fab.json okrep
has "a fabric document as --pairs: one line naming it" prs-bad.out '^  fab\.json: --pairs: schema "rdma-doctor/fabric/v1", not rdma-doctor/pairs/v1$'

# ---- 2. gathered by real engines ----------------------------------------------------------------
same_summary() { # NAME: NAME.out has the directory's text summary
	if cmp -s "$1.out" dir-text.out; then ok "$1: the same summary as the directory"; else
		bad "$1: the summary differs"; diff dir-text.out "$1.out" | head -10; fi
}
pdsh -R exec -w 'node[01-24]' "$bin" --root "$work/fl/%h" check --format json > pdsh.txt 2> pdsh.err
grep -q '^node03: *"schema": "rdma-doctor/report/v1",$' pdsh.txt && ok "pdsh prints host: line" || bad "pdsh output: $(head -2 pdsh.txt)"
rc_is 2 pdsh "$bin" fleet --expect 'node[01-24]' - < pdsh.txt
same_summary pdsh
# the pipe of the README, as one line
pdsh -R exec -w 'node[01-24]' "$bin" --root "$work/fl/%h" check --format json 2> /dev/null | "$bin" fleet --expect 'node[01-24]' - > pipe.out
cmp -s pipe.out dir-text.out && ok "pdsh ... | fleet - (one pipe)" || { bad "pdsh pipe differs"; diff dir-text.out pipe.out | head -10; }
clush -R exec -w 'node[01-24]' "$bin" --root "$work/fl/%h" check --format json > clush.txt 2> clush.err
rc_is 2 clush "$bin" fleet --expect 'node[01-24]' - < clush.txt
same_summary clush
clush -R exec -w 'node[01-24]' -b "$bin" --root "$work/fl/%h" check --format json > clushb.txt 2> clushb.err
grep -q '^node12$' clushb.txt && ok "clush -b prints a block per node" || bad "clush -b output: $(head -3 clushb.txt)"
rc_is 2 clush-b "$bin" fleet --expect 'node[01-24]' - < clushb.txt
same_summary clush-b
mkdir outdir
clush -R exec -w 'node[01-24]' --outdir outdir "$bin" --root "$work/fl/%h" check --format json > /dev/null 2>&1
[ -f outdir/node01 ] && [ -f outdir/node24 ] && [ ! -s outdir/node24 ] && ok "clush --outdir: a file per node (node24's empty)" ||
	bad "clush --outdir: $(ls outdir | head -3)"
rc_is 2 clush-outdir "$bin" fleet --expect 'node[01-24]' outdir
has "clush --outdir: the empty file is named" clush-outdir.out '^  outdir/node24: empty: no report in it$'
has "clush --outdir: node24 is missing" clush-outdir.out '^  1 node missing \(no report\): node24$'
has "clush --outdir: the same drift" clush-outdir.out '^  ! 28\.39\.1010 +3  node\[05-07\]$'
# failing, cut and timed-out commands: node02 exits 127 with nothing, node03 prints the first 40
# lines of its report, node04 sleeps past the -u 2 limit.  (Cut inside a line, pdsh 2.34 prints the
# next host's first line on the same line: then that host's report is unreadable too.)
cat > node.sh << EOF
#!/bin/sh
case \$1 in
node02) echo "rdma-doctor: command not found" >&2; exit 127 ;;
node03) "$bin" --root "$work/fl/\$1" check --format json | head -n 40; exit 1 ;;
node04) sleep 30 ;;
esac
exec "$bin" --root "$work/fl/\$1" check --format json
EOF
chmod +x node.sh
start=$SECONDS
pdsh -R exec -u 2 -w 'node[01-24]' ./node.sh %h > pdsh-bad.txt 2> pdsh-bad.err
[ $((SECONDS - start)) -lt 20 ] && ok "pdsh -u 2 stopped the sleeping command" || bad "pdsh -u did not stop it"
rc_is 2 pdsh-bad "$bin" fleet --expect 'node[01-24]' - < pdsh-bad.txt
has "failed, cut and timed-out hosts are missing" pdsh-bad.out '^  4 nodes missing \(no report\): node\[02-04,24\]$'
has "the cut report is named" pdsh-bad.out '^  -: host node03: truncated: the input ends inside a report$'
if grep -qE '^    OK +2[0-9] ' pdsh-bad.out || ! grep -qE '^    OK +19  node\[01,05-11,13-23\]$' pdsh-bad.out; then
	bad "the failed hosts are counted as OK"; grep -A2 '^  status' pdsh-bad.out
else ok "the failed hosts are not counted healthy (19 OK)"; fi
start=$SECONDS
clush -R exec -u 2 -w 'node[01-24]' ./node.sh %h > clush-bad.txt 2> clush-bad.err
rc_is 2 clush-bad "$bin" fleet --expect 'node[01-24]' - < clush-bad.txt
has "clush: failed, cut and timed-out hosts are missing" clush-bad.out '^  4 nodes missing \(no report\): node\[02-04,24\]$'

# ---- 3. hostlists against scontrol ---------------------------------------------------------------
printf 'ClusterName=x\nSlurmctldHost=localhost\nNodeName=localhost\n' > slurm.conf
export SLURM_CONF=$work/slurm.conf
# names ...: the OK group's hostlist of minimal reports for these hosts
fleet_list() {
	for h in "$@"; do printf '{"schema":"rdma-doctor/report/v1","host":"%s","time":"2025-11-30T00:00:00Z","summary":{"status":"OK"}}\n' "$h"; done |
		"$bin" fleet --format json - | jq -r '.fleet[] | select(.kind == "status") | .values[0].hosts'
}
RANDOM=15
sets=("node01 node02 node03 node07 node08 node24" "gpu9 gpu10 gpu11 gpu100 gpu99 gpu1" "n009 n010 n8 n9"
	"a1 b2 a3 a2 c c10 b1" "rack1-node3 rack1-node4 rack2-node1" "x y z" "node098 node099 node100 node101 node103")
for k in $(seq 8); do # random subsets of node[001-300] and gpu[1-300]
	s=
	for i in $(seq 60); do s="$s $(printf 'node%03d' $((RANDOM % 300 + 1))) gpu$((RANDOM % 300 + 1))"; done
	sets+=("$(echo $s | tr ' ' '\n' | sort -u | tr '\n' ' ')")
done
hl_ok=0
for s in "${sets[@]}"; do
	# shellcheck disable=SC2086
	mine=$(fleet_list $s)
	theirs=$(scontrol show hostlistsorted "$(echo $s | tr ' ' ',')" 2>&1)
	back=$(scontrol show hostnames "$mine" 2>&1 | sort | tr '\n' ' ')
	want=$(echo $s | tr ' ' '\n' | sort -u | tr '\n' ' ')
	if [ "$mine" = "$theirs" ] && [ "$back" = "$want" ]; then hl_ok=$((hl_ok + 1)); else
		bad "hostlist of '$s': ours '$mine', scontrol '$theirs'; scontrol expands ours to '$back'"; fi
done
[ $hl_ok = ${#sets[@]} ] && ok "compression equals scontrol show hostlistsorted, and scontrol expands it back ($hl_ok sets)"
# expansion: --expect L with no reports lists every node of L as missing, as scontrol show hostnames
ex_ok=0 lists=("node[01-24]" "n[8-11],gpu[098-101]" "a[1-2]b[3-4]" "tux[0-5,12,20-25]" "n[01-3],x" "rack[1-2]-n[1-3]")
for l in "${lists[@]}"; do
	mine=$("$bin" fleet --expect "$l" --format json /dev/null 2> /dev/null | jq -r '.nodes[].host' | sort | tr '\n' ' ')
	theirs=$(scontrol show hostnames "$l" | sort | tr '\n' ' ')
	if [ "$mine" = "$theirs" ]; then ex_ok=$((ex_ok + 1)); else bad "expansion of '$l': ours '$mine', scontrol '$theirs'"; fi
done
[ $ex_ok = ${#lists[@]} ] && ok "--expect expands as scontrol show hostnames ($ex_ok lists)"
unset SLURM_CONF

# ---- 4. bad input ---------------------------------------------------------------------------------
mkdir bad
cp reports/node01.json reports/node02.json bad/
head -c 3000 reports/node03.json > bad/truncated.json
echo 'Segmentation fault' > bad/notjson.txt
"$bin" --root fl/node04 stack --format json > bad/stack.json
"$bin" --root fl/node05 check --format json --policy /nonexistent/policy.conf > bad/error.json 2> /dev/null
printf '{"schema":"rdma-doctor/report/v1","host":"' > bad/huge.json
truncate -s 1G bad/huge.json # 1 GiB (sparse, NULs in a string): not JSON, only its start is read
mkfifo bad/fifo
ln -s /dev/zero bad/zero
rc_is 3 bad-dir timeout 60 "$bin" fleet bad
has "bad: the two good reports are summarised" bad-dir.out '^Fleet: 2 nodes reported$'
has "bad: truncated" bad-dir.out '^  bad/truncated.json: truncated: the input ends inside a report$'
has "bad: not JSON" bad-dir.out '^  bad/notjson.txt: not JSON: a file of a directory of reports is one node.s check --format json output'
has "bad: another schema" bad-dir.out '^  bad/stack.json: schema "rdma-doctor/stack/v1", not rdma-doctor/report/v1$'
has "bad: check's error document" bad-dir.out '^  bad/error.json: the check could not make a report: .*nonexistent'
has "bad: 1 GiB of NULs" bad-dir.out '^  bad/huge.json: not JSON \(lexical error: invalid character inside string.\)$'
# a 1 GiB report on standard input: refused after 16 MiB, without reading the rest
start=$SECONDS
{ printf '{"schema":"rdma-doctor/report/v1","host":"n1","pad":"'; head -c 1G /dev/zero | tr '\0' x; } 2> /dev/null |
	timeout 60 "$bin" fleet - > huge.out 2> huge.err
rc=$?
[ $rc = 3 ] && ok "a 1 GiB report on stdin: exit 3 in $((SECONDS - start)) s" || bad "1 GiB report: exit $rc"
has "a 1 GiB report: one line" huge.out '^  -: a report larger than 16 MiB: not read further$'
has "bad: a FIFO in a directory is not read" bad-dir.out '^  bad/fifo: a FIFO: not read$'
has "bad: a link to /dev/zero is not followed" bad-dir.out '^  bad/zero: a symbolic link: not followed$'
has "bad: 7 unreadable" bad-dir.out '^Unreadable \(7\):$'
rc_is 3 missing-path "$bin" fleet --expect 'node[01-02]' reports/node01.json no/such/file
has "an operand that does not exist" missing-path.out '^  no/such/file: cannot read: No such file or directory$'
# 100,000 files: 99,999 reports and one broken one
mkdir many
awk 'BEGIN { for (i = 1; i <= 100000; i++) { f = sprintf("many/n%06d.json", i);
	if (i == 54321) print "{\"schema\":" > f; else
	printf "{\"schema\":\"rdma-doctor/report/v1\",\"host\":\"n%06d\",\"time\":\"2025-11-30T00:00:00Z\",\"summary\":{\"status\":\"OK\"}}\n", i > f;
	close(f) } }'
rc_is 3 many timeout 120 "$bin" fleet --format json many
if jq -e '.counts.reported == 99999 and .counts.unreadable == 1 and .unreadable[0].input == "many/n054321.json"
	and (.fleet[] | select(.kind == "status") | .values[0].hosts) == "n[000001-054320,054322-100000]"' many.out > /dev/null; then
	ok "100,000 files: 99,999 summarised, the broken one named"
else bad "100,000 files: $(jq -c '.counts' many.out)"; fi
# several reports for one node: untrusted (exit 3), the newest's values shown, the worst status counts
mkdir dup
cp reports/node01.json dup/node01.json
SOURCE_DATE_EPOCH=$((SOURCE_DATE_EPOCH - 3600)) "$bin" --root fl/node05 check --format json | sed 's/"host": "node05"/"host": "node01"/' > dup/node01.out
rc_is 3 dup "$bin" fleet dup
has "several reports: not trusted" dup.out '^  dup/node01\.out: host node01: several reports for one host \(2025-11-30T00:00:00Z from dup/node01\.json, 2025-11-29T23:00:00Z from dup/node01\.out\): its worst status counts, its values are the newest.s$'
has "several reports: the older firmware is not counted" dup.out '^    28\.41\.1000 +1  node01$'
# --max-age: reports an hour old are stale with --max-age 30m, fresh with 2h
SOURCE_DATE_EPOCH=$((SOURCE_DATE_EPOCH + 3600)) rc_is 3 stale "$bin" fleet --max-age 30m --expect 'node[01-24]' reports
has "stale reports are not summarised" stale.out '^  23 nodes with a stale report: node\[01-23\]$'
SOURCE_DATE_EPOCH=$((SOURCE_DATE_EPOCH + 3600)) rc_is 2 fresh "$bin" fleet --max-age 2h --expect 'node[01-24]' reports
cmp -s fresh.out dir-text.out && ok "--max-age 2h: all fresh, the same summary" || bad "--max-age 2h differs"
# -o: written whole, nothing left beside it; an unwritable place is exit 3
mkdir out
rc_is 2 out "$bin" fleet --expect 'node[01-24]' --format json -o out/fleet.json reports
cmp -s out/fleet.json dir-json.out && [ "$(ls -A out)" = fleet.json ] && [ ! -s out.out ] &&
	ok "-o: the file is the document, nothing else in its directory" || bad "-o: $(ls -A out)"
rc_is 3 out-bad "$bin" fleet -o no/such/dir/f.json reports
has "-o: a one-line reason" out-bad.err '^rdma-doctor: fleet: --output no/such/dir/f.json: cannot create a file in its directory: cannot open ./no: No such file or directory$'
# usage errors
rc_is 3 usage-none "$bin" fleet
has "no PATH" usage-none.err "^rdma-doctor: fleet: no PATH"
rc_is 3 usage-expect "$bin" fleet --expect 'n[3-1]' reports
has "a bad --expect" usage-expect.err "^rdma-doctor: fleet: --expect: invalid range '3-1' \(the end is below the start\)"
rc_is 3 usage-age "$bin" fleet --max-age 5x reports
rc_is 3 usage-format "$bin" fleet --format yaml reports
rc_is 0 help "$bin" fleet --help
has "--help names the options" help.out '--max-age DURATION'

# hostile strings in a report: escaped in HTML, made visible in text
printf '%s\n' '{"schema":"rdma-doctor/report/v1","host":"evil","time":"2025-11-30T00:00:00Z","summary":{"status":"WARN"},' \
	'"kernel":"<img src=x onerror=alert(1)>","findings":[{"check":"x.y","status":"WARN","subject":"</td><script>alert(1)</script>",' \
	'"message":"a\u001b[31mred\u0007 & \"q\""}]}' > evil.json
rc_is 1 evil-html "$bin" fleet --format html evil.json
if grep -q '<script\|<img' evil-html.out || ! grep -q '&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;' evil-html.out; then
	bad "HTML: a report's strings are not escaped"; grep -n 'script\|img' evil-html.out | head -3
else ok "HTML: a report's strings are escaped"; fi
rc_is 1 evil-text "$bin" fleet evil.json
if grep -q $'\x1b' evil-text.out || ! grep -qF 'a\x1b[31mred\x07 & "q"' evil-text.out; then bad "text: control characters printed raw"
else ok "text: control characters made visible"; fi

# ---- 4b. one node cannot hide, forge or leak another's ---------------------------------------------
# mini HOST TIME STATUS [FINDING_STATUS]: a minimal report on one line
mini() { printf '{"schema":"rdma-doctor/report/v1","host":"%s","time":"%s","summary":{"status":"%s"},"devices":[],"findings":[{"check":"ports.state","status":"%s","subject":"mlx5_0/1","message":"m"}]}\n' "$1" "$2" "$3" "${4:-$3}"; }
T=2025-11-30T00:00:00Z
# a report names the host it came from: n1's file holding a forged OK for n2 dated 2099 hides nothing
mkdir forge
{ mini n1 $T OK; mini n2 2099-01-01T00:00:00Z OK; } > forge/n1.json
mini n2 $T FAIL > forge/n2.json
rc_is 2 forge "$bin" fleet --max-age 1h --expect 'n[1-2]' forge
has "forged: n2's own FAIL counts" forge.out '^  1 node FAIL: n2$'
has "forged: the future report in n1's file is not counted" forge.out '^  forge/n1\.json: host n1: the report is dated 2099-01-01T00:00:00Z, more than 5 minutes after 2025-11-30T00:00:00Z: not counted$'
mini n2 $T OK > forge/n3.json
rc_is 2 forge-other "$bin" fleet --expect 'n[1-3]' forge
has "another host's report is counted where it came from" forge-other.out '^  forge/n3\.json: host n3: the report names host n2, not n3 where it came from: counted as n3$'
rm forge/n3.json
mini n2 2099-01-01T00:00:00Z OK > forge/n2.json
rc_is 3 forge-future "$bin" fleet --max-age 1h --expect 'n[1-2]' forge
has "a report dated in the future is not counted" forge-future.out '^  forge/n2\.json: host n2: the report is dated 2099-01-01T00:00:00Z, more than 5 minutes after 2025-11-30T00:00:00Z: not counted$'
has "... and its node is missing" forge-future.out '^  1 node missing \(no report\): n2$'
# clush -b: n1's output forging a block header for n2 makes two reports for n2: untrusted, the FAIL stays
{ printf -- '---------------\nn1\n---------------\n'; mini n1 $T OK
  printf -- '---------------\nn2\n---------------\n'; mini n2 $T OK
  printf -- '---------------\nn2\n---------------\n'; mini n2 $T FAIL; } > forge-clush.txt
rc_is 2 forge-clush "$bin" fleet --expect 'n[1-2]' - < forge-clush.txt
has "clush -b forged header: the worst of n2's reports" forge-clush.out '^  1 node FAIL: n2$'
has "clush -b forged header: several reports, not trusted" forge-clush.out '^  -: host n2: several reports for one host'
# a directory file holding pdsh lines for other hosts is refused
printf 'n2: %s\n' "$(mini n2 $T OK)" > forge/n1.json
mini n2 $T FAIL > forge/n2.json
rc_is 2 forge-lines "$bin" fleet forge
has "pdsh lines in a node's file are refused" forge-lines.out '^  forge/n1\.json: not JSON: a file of a directory of reports is one node.s check --format json output'

# a FIFO operand (a shell's <(...)) has no node's name: a stream, as standard input
rc_is 0 procsub "$bin" fleet <(mini n1 $T OK)
has "a <(...) operand: its report counted by its host" procsub.out '^Fleet: 1 node reported$'

# a report is judged by its findings, not by its summary.status
mini n1 $T OK FAIL > judged.json
mkdir judged && mv judged.json judged/n1.json
rc_is 2 judged "$bin" fleet judged
has "summary OK with a FAIL finding: FAIL" judged.out '^Verdict: FAIL \(exit 2\)$'

# links in a directory are never followed, and nothing that is not a report is echoed
mkdir secrets leak
printf 'root:$y$j9T$SECRETHASH:19000:0:99999:7:::\n' > secrets/shadow
printf 'AWS_SECRET=SECRETVALUE\0PATH=/bin\0' > secrets/environ
printf 'SECRETTEXT not json at all\n' > leak/n4
mini n1 $T OK > leak/n1.json
ln -s "$work/secrets/shadow" leak/n2
ln -s /proc/self/environ leak/n3
for fm in text json html; do
	rc_is 3 "leak-$fm" "$bin" fleet --format $fm leak
	if grep -q 'SECRET\|root:' "leak-$fm.out"; then bad "leak ($fm): content of a link or a non-report echoed"; grep 'SECRET\|root:' "leak-$fm.out" | head -3
	else ok "leak ($fm): no byte of what is not a report is printed"; fi
done
has "a link in a directory: named, not followed" leak-text.out '^  leak/n2: a symbolic link: not followed$'
has "a link to /proc/self/environ: not followed" leak-text.out '^  leak/n3: a symbolic link: not followed$'
# an operand that is a device is refused at once, not read forever
rc_is 3 urandom timeout 60 "$bin" fleet /dev/urandom
has "a character device operand is refused" urandom.out '^  /dev/urandom: a character device: not read$'
# endless junk on standard input is given up after 1 MiB
head -c 4M /dev/urandom | tr -d '{:[-' > junk.bin # no ':': no line can look like pdsh's
rc_is 3 junk timeout 60 "$bin" fleet - < junk.bin
has "junk on stdin is given up" junk.out '^  -: not JSON and not pdsh/clush output \(no such line in its first 1024 KiB'

# resource bombs: one parser per clush -b block, bounded reports in progress, --timeout honoured
printf -- '-----\nh[1-1000000]\n-----\n{"a":[\n' > bomb-clush.txt
rc_is 3 bomb-clush /usr/bin/time -f '%M' -o bomb-clush.rss timeout 60 "$bin" fleet - < bomb-clush.txt
has "a 1M-node clush -b block is one truncated report" bomb-clush.out '^  -: host h\[1-1000000\]: truncated: the input ends inside a report$'
awk 'BEGIN { for (i = 1; i <= 1000000; i++) printf "h%07d: {\n", i }' > bomb-pdsh.txt
rc_is 3 bomb-pdsh /usr/bin/time -f '%M' -o bomb-pdsh.rss timeout 120 "$bin" fleet - < bomb-pdsh.txt
has "1M pdsh hosts: each host past the bound is not read" bomb-pdsh.out '^Unreadable \(262145\):$'
case $build in *asan*) ;; *)
	for b in bomb-clush bomb-pdsh; do
		rss=$(tail -1 $b.rss)
		[ "$rss" -lt 262144 ] && ok "$b: peak RSS $((rss / 1024)) MiB (under 256)" || bad "$b: peak RSS $((rss / 1024)) MiB"
	done ;;
esac
mkfifo endless
{ printf -- '-----\nh[1-100000]\n-----\n{"schema":"rdma-doctor/report/v1","pad":[\n'; yes '1,2,3,4,5,'; } > endless 2> /dev/null &
rc_is 3 bomb-timeout timeout 60 "$bin" --timeout 3 fleet - < endless
wait
has "--timeout ends an endless block" bomb-timeout.out '^  -: --timeout 3s passed: reading stopped here, the rest of it is not summarised$'

# --expect counts only expected nodes; a WARN never hides a missing one (exit 3, not 1)
mkdir expect
for i in 01 02 03 04 05 06 07; do mini gpu$i $T OK > expect/gpu$i; done
mini gpu03 $T WARN > expect/gpu03
mini lab-ib-03 $T OK > expect/lab-ib-03
rc_is 3 expect "$bin" fleet --expect 'gpu[01-08]' expect
has "expect: 7 of 8" expect.out '^Fleet: 7 of 8 expected nodes reported \(gpu\[01-08\]\)$'
has "expect: the unexpected host listed" expect.out '^Not expected but reported: lab-ib-03 \(1\)$'
has "expect: missing before WARN" expect.out '^Verdict: UNKNOWN \(exit 3\)$'
rc_is 3 expect-json "$bin" fleet --format json --expect 'gpu[01-08]' expect
if jq -e '.counts.expected == 8 and .counts.expected_reported == 7 and .counts.missing == 1 and .counts.unexpected == 1
	and .unexpected == "lab-ib-03" and .missing == "gpu08" and .exit_code == 3' expect-json.out > /dev/null; then
	ok "expect JSON: expected 8, expected_reported 7, missing gpu08, unexpected lab-ib-03"
else bad "expect JSON: $(jq -c '.counts, .missing, .unexpected' expect-json.out)"; fi

# the status table flags what is not OK, not the minority; devices without a board_id never drift
mkdir status nob
for i in 1 2 3; do mini s$i $T FAIL > status/s$i; done
mini s4 $T OK > status/s4
rc_is 2 status "$bin" fleet status
has "status: FAIL flagged" status.out '^  ! FAIL +3  s\[1-3\]$'
has "status: the OK node not flagged" status.out '^    OK +1  s4$'
for i in 1 2; do
	printf '{"schema":"rdma-doctor/report/v1","host":"b%s","time":"%s","summary":{"status":"OK"},"devices":[{"name":"rxe0","model":"%s","fw_ver":"%s","ports":[]}],"findings":[]}\n' \
		$i $T "$([ $i = 1 ] && echo "Soft-RoCE" || echo "ConnectX-4")" "$([ $i = 1 ] && echo 1.0 || echo 12.28.2006)" > nob/b$i
done
rc_is 0 nob "$bin" fleet nob
if grep -q 'DRIFT\|drift:' nob.out; then bad "devices without a board_id compared: $(grep -i drift nob.out)"
else ok "devices without a board_id are not compared"; fi

# one escaping rule: what the text shows as \u202e or \xc2\x9b, the HTML shows so too
printf '{"schema":"rdma-doctor/report/v1","host":"bidi","time":"%s","summary":{"status":"WARN"},"findings":[{"check":"x.y","status":"WARN","subject":"a\\u202eb\\u009bc","message":"m"}]}\n' $T > bidi.json
rc_is 1 bidi-html "$bin" fleet --format html bidi.json
rc_is 1 bidi-text "$bin" fleet bidi.json
if grep -q $'\u202e\|\u009b' bidi-html.out bidi-text.out; then bad "U+202E or U+009B printed raw"
elif grep -qF 'a\u202eb\xc2\x9bc' bidi-html.out && grep -qF 'a\u202eb\xc2\x9bc' bidi-text.out; then ok "HTML and text escape U+202E and U+009B alike"
else bad "bidi: $(grep -F 'a\' bidi-html.out bidi-text.out | head -3)"; fi

# ---- 5. the HTML in headless Chromium -------------------------------------------------------------
# (not in a subset pass: the page is the same bytes as the plain pass's, which Chromium rendered)
if ts_subset; then ts_skip "the page in headless Chromium" "the plain pass rendered the same page"; ts_finalize; fi
cp dir-html.out fleet.html
chrome() { timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
	--user-data-dir="$work/chrome" --enable-logging=stderr --v=0 "$@"; }
chrome --dump-dom "file://$work/fleet.html" > dom.html 2> chrome-dom.err
if grep -q '<table class="grid" id="grid">' dom.html && grep -q '<th>node24</th><td class="missing"' dom.html &&
	grep -q '<th>node05</th><td class="ok">OK</td><td class="warn">firmware</td>' dom.html; then
	ok "Chromium renders the page: the nodes-by-checks grid is in its DOM"
else bad "Chromium DOM: $(head -c 300 dom.html) $(tail -3 chrome-dom.err)"; fi
chrome --screenshot="$work/fleet.png" --window-size=1400,2400 "file://$work/fleet.html" > /dev/null 2> chrome-shot.err
if [ -s fleet.png ] && [ "$(head -c 8 fleet.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
	cp fleet.png "$art/fleet24.png"
	ok "screenshot kept: $art/fleet24.png ($(stat -c %s fleet.png) bytes)"
else bad "no screenshot: $(tail -3 chrome-shot.err)"; fi
if grep -hE 'CONSOLE|Uncaught|ERR_FILE_NOT_FOUND|net::ERR' chrome-dom.err chrome-shot.err; then bad "console errors above"
else ok "no console error or failed load"; fi
# the page with --fabric: rendered, the bad link's row in its DOM highlighted by the page's own rule
cp fab-html.out fleet-fabric.html
chrome --dump-dom "file://$work/fleet-fabric.html" > fab-dom.html 2> chrome-fab-dom.err
if grep -q '<h2 id="fabric">Fabric: <span class="st fail">FAIL</span></h2>' fab-dom.html &&
	grep -q '<tr class="bad fail"><td class="n">6</td><td>spine1\[2\]</td>' fab-dom.html &&
	grep -q 'tr.bad td{background:#f8d7da;font-weight:bold}' fab-dom.html; then
	ok "Chromium renders the fabric section: the bad link's row, and the rule that highlights it, in its DOM"
else bad "Chromium fabric DOM: $(grep -c 'class="bad' fab-dom.html) bad rows; $(tail -3 chrome-fab-dom.err)"; fi
chrome --screenshot="$work/fleet-fabric.png" --window-size=1400,4000 "file://$work/fleet-fabric.html" > /dev/null 2> chrome-fab-shot.err
# the FAIL row's red (#f8d7da) is in the screenshot: the row is drawn highlighted
if [ -s fleet-fabric.png ] && python3 -c '
import sys, zlib, struct
d = open(sys.argv[1], "rb").read()
w, h, bd, ct = struct.unpack(">IIBB", d[16:26])
idat = b"".join(d[i + 8:i + 8 + struct.unpack(">I", d[i:i + 4])[0]] for i in range(8, len(d)) if d[i + 4:i + 8] == b"IDAT")
raw = zlib.decompress(idat); bpp = {2: 3, 6: 4}[ct]; stride = w * bpp
prev = bytearray(stride); found = False; p = 0
for y in range(h):
    f = raw[p]; line = bytearray(raw[p + 1:p + 1 + stride]); p += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, stride, bpp):
        if tuple(line[x:x + 3]) == (0xf8, 0xd7, 0xda): found = True
sys.exit(0 if found else 1)' fleet-fabric.png; then
	cp fleet-fabric.png "$art/fleet24-fabric.png"
	ok "the screenshot shows the FAIL row's red: $art/fleet24-fabric.png"
else bad "no red row in the fabric page's screenshot: $(tail -3 chrome-fab-shot.err)"; fi
if grep -hE 'CONSOLE|Uncaught|ERR_FILE_NOT_FOUND|net::ERR' chrome-fab-dom.err chrome-fab-shot.err; then bad "console errors above (fabric page)"
else ok "no console error on the fabric page"; fi

ts_finalize
