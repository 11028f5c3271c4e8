#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Scenario tests for `check`: every scenario root of make.sh (healthy hosts and one per failure in
# the operator's guide) plus the real H100 tree from ../shared/fixtures/real:
#   * text and JSON output equal the goldens in tests/scenarios/expected/ (time fixed);
#   * the JSON parses (jq) and has the documented fields; the exit status is the worst finding's;
#   * the checks named in expect.txt report the named status; healthy hosts stay quiet;
#   * the roots again with the extra arguments of args.txt (--only ID: ID's findings as the whole run's).
# Usage: tests/scenarios/run.sh [BUILD_DIR] [--update]     Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build update=0
for a in "$@"; do case "$a" in --update) update=1 ;; *) build=$(cd "$a" && pwd) ;; esac; done
bin=$build/rdma-doctor
. "$top/tests/lib.sh"
real=$ts_real
exp=$top/tests/scenarios/expected
ts_scratch scen
mkdir -p "$exp"
ts_init
command -v jq > /dev/null || ts_die "jq is required"

"$top/tests/scenarios/make.sh" "$work" || ts_die "make.sh"
# with no OUTDIR make.sh prints its usage and writes nothing
out=$(cd "$work" && "$top/tests/scenarios/make.sh" 2>&1); rc=$?
[ $rc = 2 ] && [[ $out == "Usage: tests/scenarios/make.sh OUTDIR [NAME...]"* ]] && ok || bad "make.sh with no argument: exit $rc: $out"
if [ -d "$real/gpud-h100-sys-class-infiniband" ]; then
	"$top/tests/tools/fixture2root.sh" dir "$real/gpud-h100-sys-class-infiniband" "$work/real-gpud-h100"
elif ts_have_real; then
	bad "real fixture missing: $real/gpud-h100-sys-class-infiniband"
else
	ts_skip "real-gpud-h100 (the real H100 tree)" "$ts_real_reason"
fi
# (make.sh has said which roots it left out for want of the operator's guide)
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
cd "$work" || exit 1
# each run gets a fresh --state-dir holding the scenario's previous sample, if it has one (link.sh)
sdir=.state-dir # relative: the path in the goldens does not name the temporary directory
seed() { rm -rf "$sdir"; mkdir -p "$sdir"; [ ! -d ".state/$1" ] || cp -a ".state/$1/." "$sdir/"; }
# run_one NAME ROOT [ARG...]: `check` of ROOT (with ARGs), its goldens expected/NAME.{txt,json}, its
# expect.txt line NAME's
run_one() {
	local s=$1 root=$2 line e id st n want rc_text rc_json; shift 2
	seed "$root"; "$bin" --root "$root" check --state-dir "$sdir" "$@" > "$s.txt" 2> "$s.err"; rc_text=$?
	seed "$root"; "$bin" --root "$root" check --state-dir "$sdir" --format json "$@" > "$s.json" 2>> "$s.err"; rc_json=$?
	# the sample written is the state file of this host (a link in its place is never replaced)
	if [ -L "$sdir/gpu-a01.link-state" ] || [ ! -e "$sdir/gpu-a01.link-state" ]; then :; else
		head -1 "$sdir/gpu-a01.link-state" | grep -qx 'rdma-doctor-link-state 2' && ok || bad "$s: state file not written as one"
	fi
	if [ $update = 1 ]; then cp "$s.txt" "$exp/$s.txt"; cp "$s.json" "$exp/$s.json"; fi
	for k in txt json; do
		if cmp -s "$s.$k" "$exp/$s.$k"; then ok; else bad "$s: $k output differs from the golden"; diff "$exp/$s.$k" "$s.$k" | head -10; fi
	done
	[ -s "$s.err" ] && bad "$s: unexpected stderr: $(head -3 "$s.err")"
	# mlxlink's colour codes (and any ESC byte of a captured output) never reach a report
	if grep -q $'\e' "$s.txt" "$s.json" || grep -qi '\\u001b' "$s.json"; then bad "$s: an ESC byte in the output"; else ok; fi
	# the JSON report: parses, documented fields, exit status = summary
	if jq -en 'input | .schema == "rdma-doctor/report/v1" and (.host|type|IN("string","null")) and (.time|type) == "string"
		and (.version|type) == "string" and (.summary.status|type) == "string" and (.summary.counts|type) == "object"
		and (.stack.installed|type) == "string" and (.devices|type) == "array" and (.modules|type) == "array"
		and (.findings|length) > 0
		and all(.findings[]; (.check|type) == "string" and (.status|IN("OK","WARN","FAIL","SKIP","UNKNOWN"))
			and (.subject|type) == "string" and (.message|type) == "string"
			and all(.evidence[]; (.path|type) == "string" and (.value|type) == "string") and (.fix|type) == "array")
		and all(.devices[]; (.name|type) == "string" and all(.ports[]; has("state") and has("rate_gbps") and has("link_layer")))
		and all(.modules[]; has("name") and has("loaded") and has("persistent") and has("version") and has("out_of_tree"))' \
		"$s.json" > /dev/null; then ok; else bad "$s: JSON report invalid or missing fields"; fi
	want=$(jq -r '.summary.exit_code' "$s.json" 2> /dev/null)
	if [ "$rc_text" = "$want" ] && [ "$rc_json" = "$want" ]; then ok; else bad "$s: exit $rc_text/$rc_json, summary says $want"; fi
	# what must be reported
	line=$(grep -E "^$s[[:space:]]" "$top/tests/scenarios/expect.txt" | head -1)
	[ -n "$line" ] || { [ "$s" = real-gpud-h100 ] || bad "$s: not in expect.txt"; return; }
	for e in ${line#"$s"}; do
		if [ "$e" = quiet ]; then
			n=$(jq '[.findings[] | select(.status != "OK" and .status != "SKIP")] | length' "$s.json")
			[ "$n" = 0 ] && [ "$rc_text" = 0 ] && ok || bad "$s: a healthy host reported $n problems"
		else
			id=${e%=*} st=${e#*=}
			jq -en --arg id "$id" --arg st "$st" 'input | any(.findings[]; .check == $id and .status == $st)' "$s.json" > /dev/null &&
				ok || bad "$s: expected $id=$st"
		fi
	done
}
for dir in */; do run_one "${dir%/}" "${dir%/}" < /dev/null; done
# The roots run again with the arguments of args.txt; a run with --only ID,... gives each ID's
# findings exactly as the whole run of its root does (what the catalogue says ID needs is enough)
while read -r name root args; do
	case "$name" in ''|'#'*) continue ;; esac
	if ts_skipped_scenario . "$root"; then ts_skip "args.txt: $name" "$ts_seed_reason"; continue; fi
	[ -d "$root" ] || { bad "args.txt: $name: no scenario root $root"; continue; }
	run_one "$name" "$root" $args < /dev/null
	only=$(sed -nE 's/.*--only ([^ ]+).*/\1/p' <<< "$args")
	for id in ${only//,/ }; do
		if cmp -s <(jq -S --arg id "$id" '[.findings[] | select(.check == $id)]' "$root.json") \
			<(jq -S --arg id "$id" '[.findings[] | select(.check == $id)]' "$name.json"); then ok
		else bad "$name: $id's findings differ from the whole run of $root"; fi
	done
done < "$top/tests/scenarios/args.txt"
# What each device is (`stack`): a VF, the management NIC and the non-data planes are listed, not judged
for c in "port-vf-down mlx5_3 1 vf" "port-mgmt-nic-down mlx5_2 1 management" "port-multiplane-data-ports mlx5_3 1 not_data" \
	"port-multiplane-data-ports mlx5_3 3 compute" "healthy-inbox mlx5_0 1 compute" \
	"port-mgmt-roce-25g mlx5_3 1 management" "port-mgmt-roce-25g mlx5_2 1 compute"; do
	set -- $c
	[ -d "$1" ] || continue
	"$bin" --root "$1" stack --format json | jq -en --arg d "$2" --argjson p "$3" --arg r "$4" \
		'input | any(.roles[]; .device == $d and .port == $p and .role == $r)' > /dev/null && ok || bad "$1: stack does not call $2 port $3 $4"
done
# pcie.link behind two switches: one finding, naming the degraded link by both its ends (not the HCA's)
for c in "pcie-switch-uplink-x8 WARN 0000:10:00.0 0000:00:03.0" "pcie-switch-middle-x8 WARN 0000:12:00.0 0000:11:00.0" \
	"pcie-switch-uplink-below-policy FAIL 0000:10:00.0 0000:00:03.0"; do
	set -- $c
	[ -f "$1.json" ] || continue
	jq -en --arg st "$2" --arg l "the link $3 to $4 " 'input | [.findings[] | select(.check == "pcie.link")] |
		length == 1 and .[0].status == $st and (.[0].message | contains($l))' "$1.json" > /dev/null &&
		ok || bad "$1: pcie.link does not name the link $3 to $4 alone"
done
# The real H100 tree: its BlueField-3 RoCE bond is not judged by InfiniBand rules (no SM/LID
# finding for it), and what the capture lacks is UNKNOWN, never a failure.
if [ -f real-gpud-h100.json ]; then
	jq -en 'input | [.findings[] | select(.status == "FAIL" or .status == "WARN")] | length == 0' real-gpud-h100.json > /dev/null &&
		ok || bad "real-gpud-h100: a failure or warning on a healthy real host"
	jq -en 'input | [.findings[] | select(.check == "ports.rate")] | length == 1 and .[0].status == "OK" and
		(.[0].message | contains("compared with each other only") and contains("1 alone of its model, not compared")) and
		(.[0].message | contains("full rate") | not)' real-gpud-h100.json > /dev/null &&
		ok || bad "real-gpud-h100: ports.rate's OK line does not say what it compared"
	jq -en 'input | all(.findings[]; (.subject | contains("mlx5_bond_0")) | not) or
		all(.findings[] | select(.subject | contains("mlx5_bond_0")); .check != "ports.sm")' real-gpud-h100.json > /dev/null &&
		ok || bad "real-gpud-h100: the RoCE bond judged by IB rules"
fi
# The real H100 tree with one ConnectX-7 moved to another firmware: its ports are InfiniBand, so
# firmware.uniform's reason is not RoCE's PFC
if [ -d real-gpud-h100 ]; then
	rm -rf "$work/h100-fw-mixed"; cp -a real-gpud-h100 "$work/h100-fw-mixed"
	printf '28.39.1002' > "$work/h100-fw-mixed/sys/class/infiniband/mlx5_5/fw_ver"
	"$bin" --root "$work/h100-fw-mixed" check --only firmware.uniform --format json > h100-fw-mixed.json
	jq -en 'input | [.findings[] | select(.check == "firmware.uniform" and .status == "WARN")] | length == 1 and
		(.[0].subject == "mlx5_5") and (.[0].message | contains("PFC") | not) and
		(.[0].message | contains("congestion control"))' h100-fw-mixed.json > /dev/null &&
		ok || bad "real-gpud-h100 with mixed firmware: firmware.uniform's reason does not fit InfiniBand"
fi
# stack where sysfs has no fw_ver nor board_id (a driver that leaves them empty): flint's FW Version
# and PSID, as firmware.* use them, never "(runs )" or a blank board
if [ -d firmware-from-flint ]; then
	rm -rf "$work/flint-only"; cp -a firmware-from-flint "$work/flint-only"
	find "$work/flint-only/sys/devices" -path '*/infiniband/mlx5_1/board_id' -exec sh -c ': > "$1"' _ {} \;
	"$bin" --root "$work/flint-only" stack > flint-only.txt; "$bin" --root "$work/flint-only" stack --format json > flint-only.json
	! grep -q '(runs )' flint-only.txt && grep -q 'mlx5_1 .*fw 28.39.1002 (flint)  board MT_0000000838 (flint PSID)' flint-only.txt &&
		jq -en 'input | (.devices[] | select(.name == "mlx5_1") | .fw_ver == "28.39.1002" and .board_id == "MT_0000000838") and
			(.stack.firmware_train.devices[] | select(.name == "mlx5_1") | .fw_ver == "28.39.1002")' flint-only.json > /dev/null &&
		ok || bad "stack: flint's firmware and PSID not shown where sysfs has none"
fi
# ofed_info's "OFED-internal-23.07-0.5.0:" of a BlueField-3 host (sgl-project/sglang
# docs/references/deploy_on_k8s.md, "Check the OFED driver"): the BlueField bundle's MLNX_OFED, not
# DOCA-OFED; without a doca-ofed package the stack is "OFED" (which of the two cannot be told)
if [ -d healthy-doca-ofed ]; then
	rm -rf "$work/ofed-internal"; cp -a healthy-doca-ofed "$work/ofed-internal"
	printf '%s\n' 'OFED-internal-23.07-0.5.0:' > "$work/ofed-internal/rdma-doctor/commands/ofed_info-s"
	sed -i 's/^Package: doca-ofed$/Package: doca-ofed-removed/' "$work/ofed-internal/var/lib/dpkg/status"
	"$bin" --root "$work/ofed-internal" stack --format json > ofed-internal.json
	jq -en 'input | .stack.installed == "OFED" and .stack.version == "23.07-0.5.0"' ofed-internal.json > /dev/null &&
		ok || bad "OFED-internal-23.07-0.5.0 without doca-ofed: labelled $(jq -r '.stack.installed' ofed-internal.json)"
	"$bin" --root healthy-doca-ofed stack --format json | jq -en 'input | .stack.installed == "DOCA-OFED"' > /dev/null &&
		ok || bad "OFED-internal with the doca-ofed package: not DOCA-OFED"
fi
# The real lsmod + modinfo of one Debian 12 host, inbox then after MLNX_OFED 24.10 DKMS: the
# inventory tells the two apart (in-tree vs out-of-tree, the OFED version, the module path).
mi=$real/skyao__debian12-cx5ex-inbox-vs-mlnx-ofed-24.10__lsmod-modinfo.txt
if [ -f "$mi" ]; then
	"$top/tests/tools/fixture2root.sh" modinfo-inbox "$mi" "$work/mi-inbox" && "$top/tests/tools/fixture2root.sh" modinfo-ofed "$mi" "$work/mi-ofed"
	"$bin" --root "$work/mi-inbox" stack --format json > mi-inbox.json
	"$bin" --root "$work/mi-ofed" stack --format json > mi-ofed.json
	jq -en 'input | .stack.running == "inbox" and all(.modules[]; .out_of_tree == false) and
		(.modules[] | select(.name == "mlx5_core") | .version == null)' mi-inbox.json > /dev/null &&
		ok || bad "real modinfo (inbox): not seen as in-tree"
	jq -en 'input | .stack.running == "OFED" and all(.modules[]; .out_of_tree == true) and
		(.modules[] | select(.name == "mlx5_core") | .version == "24.10-2.1.8") and any(.modules[]; .name == "mlx_compat")' \
		mi-ofed.json > /dev/null && ok || bad "real modinfo (MLNX_OFED 24.10 DKMS): not seen as OFED"
	"$bin" --root "$work/mi-ofed" check --only stack.flavor --format json > mi-ofed-check.json
	jq -en 'input | .findings[0].evidence | any(.value == "updates/dkms/mlx5_core.ko")' mi-ofed-check.json > /dev/null &&
		ok || bad "real modinfo: stack.flavor does not show the DKMS module path"
elif ts_have_real; then
	bad "real fixture missing: $mi"
else
	ts_skip "real lsmod and modinfo (inbox, MLNX_OFED 24.10)" "$ts_real_reason"
fi
# roce.congestion run alone keeps the counters sample, with ethtool's e lines, as link.counters
# does; a snapshot of the root (ethtool -S captured again) is judged the same
if [ -d roce-congestion-drops ]; then
	rm -rf "$work/rc-sd" "$work/rc-snap"; mkdir -p "$work/rc-sd"; cp -a .state/roce-congestion-drops/. "$work/rc-sd/"
	"$bin" --root roce-congestion-drops check --only roce.congestion --state-dir "$work/rc-sd" --format json > rc-alone.json
	awk '/^sample counters 1764460800 /{ s = 1; next } /^sample /{ s = 0 } s && /^e mlx5_2 1 rx_discards_phy 37$/{ f = 1 } END { exit !f }' \
		"$work/rc-sd/gpu-a01.link-state" && ok || bad "roce.congestion alone: no counters sample with its e lines written"
	"$bin" --root roce-congestion-drops snapshot -o "$work/rc-snap" > /dev/null 2>&1 || bad "roce-congestion-drops: snapshot failed"
	rm -rf "$work/rc-sd"; mkdir -p "$work/rc-sd"; cp -a .state/roce-congestion-drops/. "$work/rc-sd/"
	"$bin" --root "$work/rc-snap" check --only roce.congestion --state-dir "$work/rc-sd" --format json > rc-snap.json
	cmp -s <(jq -S '[.findings[] | {status, message}]' rc-alone.json) <(jq -S '[.findings[] | {status, message}]' rc-snap.json) &&
		jq -en 'input | any(.findings[]; .check == "roce.congestion" and .status == "WARN")' rc-snap.json > /dev/null &&
		ok || bad "roce.congestion: its snapshot is judged otherwise than the root"
fi
ts_finalize
