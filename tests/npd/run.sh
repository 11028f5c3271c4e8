#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `rdma-doctor npd` and contrib/npd/ against node-problem-detector's custom plugin protocol and
# config rules (kubernetes/node-problem-detector docs/custom_plugin_monitor.md and
# pkg/custompluginmonitor/types/config.go):
#   * golden cases (tests/npd/cases.txt -> expected/): exit status and the one line;
#   * every scenario root: one line of printable ASCII, at most 80 characters, exit 0 (OK, WARN),
#     1 (FAIL) or 3 (UNKNOWN) as check's verdict says;
#   * "mock of NPD": the monitor config is validated with jq the way NPD's Validate and
#     ApplyConfiguration do (plugin "custom", durations Go parses, a rule timeout not above the
#     plugin timeout, a permanent rule's condition among the default conditions) plus our own
#     rules (timeout <= invoke_interval, rdma-doctor's --timeout below the rule's), and its rule is
#     run the way NPD runs it (path + args, killed at the timeout, output trimmed and cut at
#     max_output_length, 0/1/other read as False/True/Unknown) on scenario roots;
#   * the DaemonSet example carries the same config and mounts the host for --root /host.
# Usage: tests/npd/run.sh [BUILD_DIR] [--update]     Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$top/build update=0
for a in "$@"; do case "$a" in --update) update=1 ;; *) build=$(cd "$a" && pwd) ;; esac; done
bin=$build/rdma-doctor
exp=$top/tests/npd/expected
ts_init
command -v jq > /dev/null || ts_die "jq is required"
ts_scratch npd
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
"$top/tests/scenarios/make.sh" "$work/roots" > /dev/null || ts_die "make.sh"
roots=$work/roots
# a root whose finding says more than 80 characters in bytes that are not ASCII
cp -a "$roots/port-polling" "$work/roots/hostile-long-name"
dev=$(readlink -f "$work/roots/hostile-long-name/sys/class/infiniband/mlx5_1")
mv "$work/roots/hostile-long-name/sys/class/infiniband/mlx5_1" \
	"$work/roots/hostile-long-name/sys/class/infiniband/$(printf 'mlx5_\xc3\xa9\x1b[31m_%s' "$(printf 'x%.0s' $(seq 60))")"

# the line's shape: one line, printable ASCII, <= 80 characters
shape() { # file name
	local lines len
	lines=$(wc -l < "$1")
	len=$(head -1 "$1" | tr -d '\n' | wc -c)
	[ "$lines" = 1 ] && [ "$len" -le 80 ] && [ "$len" -gt 0 ] && ok || bad "$2: $lines lines, $len characters: $(head -c 200 "$1")"
	LC_ALL=C grep -q '[^ -~]' "$1" && bad "$2: a byte that is not printable ASCII: $(od -c "$1" | head -3)" || ok
}

# 1. golden cases
mkdir -p "$exp"
while IFS=$'\t' read -r name args; do
	[ -z "$name" ] || [ "${name#\#}" != "$name" ] && continue
	args=${args//@ROOTS@/$roots}
	# shellcheck disable=SC2086
	(cd "$top" && "$bin" $args) > "$work/$name.out" 2> "$work/$name.err"
	echo "exit $?" >> "$work/$name.out"
	if [ $update = 1 ]; then cp "$work/$name.out" "$exp/$name"; fi
	cmp -s "$work/$name.out" "$exp/$name" && ok || { bad "$name: differs from expected/$name"; diff "$exp/$name" "$work/$name.out" | head -6; }
	head -n -1 "$work/$name.out" > "$work/$name.line"
	shape "$work/$name.line" "$name"
done < "$top/tests/npd/cases.txt"

# 2. every scenario root: shape, and the exit status is check's verdict in NPD's terms
for dir in "$roots"/*/; do
	s=$(basename "$dir")
	"$bin" --root "$dir" npd > "$work/$s.npd" 2> "$work/$s.err"; rc=$?
	[ -s "$work/$s.err" ] && bad "$s: stderr: $(head -2 "$work/$s.err")"
	shape "$work/$s.npd" "$s"
	st=$(cd "$top" && "$bin" --root "$dir" check --format json 2> /dev/null | jq -r .summary.status)
	case $st in OK | WARN) want=0 ;; FAIL) want=1 ;; *) want=3 ;; esac
	[ "$rc" = "$want" ] && ok || bad "$s: npd exit $rc, check says $st (want $want)"
	grep -q "^$st[ :]" "$work/$s.npd" && ok || bad "$s: the line does not start with $st: $(cat "$work/$s.npd")"
done

# 3. mock of NPD: the monitor config, validated as NPD's config.go does
cfg=$top/contrib/npd/rdma-doctor-monitor.json
# Go's time.ParseDuration for the forms NPD configs use, in seconds; null when Go would refuse it
dur='def dur: if type != "string" then null elif test("^([0-9]+(\\.[0-9]*)?(ns|us|ms|s|m|h))+$") then
	[scan("([0-9]+(?:\\.[0-9]*)?)(ns|us|ms|s|m|h)") | (.[0] | tonumber) * ({"ns":1e-9,"us":1e-6,"ms":1e-3,"s":1,"m":60,"h":3600}[.[1]])] | add
	else null end;'
mock_npd_validate() { # file -> prints the first violation, or nothing
	jq -r "$dur"'
	.conditions as $cond |
	(.pluginConfig.timeout // "5s" | dur) as $t | (.pluginConfig.invoke_interval // "30s" | dur) as $iv |
	(.pluginConfig.max_output_length // 80) as $max |
	if .plugin != "custom" then "plugin is \(.plugin), NPD supports only custom"
	elif $t == null then "pluginConfig.timeout does not parse as a Go duration"
	elif $iv == null then "pluginConfig.invoke_interval does not parse as a Go duration"
	elif ($t > $iv) then "timeout \($t)s is longer than invoke_interval \($iv)s (runs would overlap)"
	elif ($max | type) != "number" or $max < 80 then "max_output_length \($max) cuts the 80-character line"
	elif (.source | type) != "string" or .source == "" then "no source"
	elif ($cond | type) != "array" or any($cond[]; (.type|type) != "string" or (.reason|type) != "string" or (.message|type) != "string") then "a condition without type, reason and message"
	elif (.rules | type) != "array" or (.rules | length) == 0 then "no rules"
	elif any(.rules[]; .timeout != null and (.timeout | dur) == null) then "a rule timeout does not parse as a Go duration"
	elif any(.rules[]; .timeout != null and (.timeout | dur) > $t) then "a rule timeout is greater than the plugin timeout"
	elif any(.rules[]; .type | IN("temporary", "permanent") | not) then "a rule type is neither temporary nor permanent"
	elif any(.rules[]; .type == "permanent" and (.condition as $c | [$cond[] | .type] | index([$c]) | not)) then "a permanent rule whose condition has no default condition"
	elif any(.rules[]; (.path | type) != "string" or (.path | startswith("/") | not)) then "a rule path that is not absolute"
	elif any(.rules[]; (.args // []) | index(["npd"]) | not) then "a rule that does not run rdma-doctor npd"
	elif any(.rules[]; ((.args // []) | index(["--timeout"])) as $k | $k != null and ((.args[$k + 1] | tonumber) >= ((.timeout // "5s") | dur))) then "rdma-doctor --timeout is not below the rule timeout"
	else empty end' "$1" 2>&1
}
out=$(mock_npd_validate "$cfg")
[ -z "$out" ] && ok || bad "mock of NPD: $cfg: $out"
# the validator refuses what NPD refuses (each mutation must be caught)
while IFS=$'\t' read -r what filter; do
	jq "$filter" "$cfg" > "$work/mut.json"
	out=$(mock_npd_validate "$work/mut.json")
	[ -n "$out" ] && ok || bad "mock of NPD: accepted a config with $what"
done << 'EOF'
plugin "kmsg"	.plugin = "kmsg"
rule timeout > plugin timeout	.rules[0].timeout = "31s"
timeout > invoke_interval	.pluginConfig.timeout = "2m"
a duration Go refuses	.pluginConfig.timeout = "30 s"
a rule timeout Go refuses	.rules[0].timeout = "25"
permanent condition without default	.rules[0].condition = "Other"
max_output_length 40	.pluginConfig.max_output_length = 40
a relative path	.rules[0].path = "rdma-doctor"
--timeout at the rule timeout	.rules[0].args = ["--root", "/host", "--timeout", "25", "npd"]
no npd	.rules[0].args = ["--root", "/host", "check"]
EOF
# NPD's field names as docs/custom_plugin_monitor.md spells them, nothing unknown at the top
jq -e '(keys - ["plugin","pluginConfig","source","metricsReporting","conditions","rules"]) == [] and
	(.pluginConfig | keys - ["invoke_interval","timeout","max_output_length","concurrency","enable_message_change_based_condition_update","skip_initial_status"]) == [] and
	all(.rules[]; keys - ["type","condition","reason","path","args","timeout"] == []) and
	any(.conditions[]; .type == "RDMAUnhealthy")' "$cfg" > /dev/null && ok || bad "mock of NPD: unknown or missing fields in $cfg"

# mock of NPD running the rule: path -> this build, /host -> a scenario root
mock_npd_run() { # root -> "Status<TAB>message"
	local t max
	t=$(jq -r "$dur"' .rules[0].timeout // .pluginConfig.timeout | dur' "$cfg")
	max=$(jq -r '.pluginConfig.max_output_length // 80' "$cfg")
	mapfile -t args < <(jq -r --arg root "$1" '.rules[0].args[] | if . == "/host" then $root else . end' "$cfg")
	local out rc
	out=$(timeout "$t" "$bin" "${args[@]}" 2> /dev/null); rc=$?
	out=$(printf '%s' "$out" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | head -c "$max")
	case $rc in 0) printf 'False\t%s\n' "$out" ;; 1) printf 'True\t%s\n' "$out" ;; *) printf 'Unknown\t%s\n' "$out" ;; esac
}
while IFS=$'\t' read -r s want; do
	got=$(mock_npd_run "$roots/$s")
	[ "${got%%$'\t'*}" = "$want" ] && ok || bad "mock of NPD: $s: condition $got, want $want"
	[ "$s" = port-polling ] && printf '%s\n' "${got#*$'\t'}" > "$work/npd-line.txt"
done << 'EOF'
healthy-inbox	False
firmware-one-hca-older	False
port-polling	True
dev-infiniband-absent	True
port-state-unreadable	Unknown
EOF
got=$(mock_npd_run /nonexistent)
[ "${got%%$'\t'*}" = Unknown ] && [ -n "${got#*$'\t'}" ] && ok || bad "mock of NPD: an unreadable root: $got"

# 4. the DaemonSet example: the same config, the host mounted for --root /host
ds=$top/contrib/npd/daemonset.yaml
awk '/rdma-doctor-monitor.json: \|/ { on = 1; next } on && /^---/ { exit } on { print }' "$ds" > "$work/ds.json"
jq -S . "$work/ds.json" > "$work/ds.sorted" 2> "$work/ds.err" && jq -S . "$cfg" > "$work/cfg.sorted" &&
	cmp -s "$work/ds.sorted" "$work/cfg.sorted" && ok || bad "daemonset.yaml's ConfigMap differs from rdma-doctor-monitor.json: $(cat "$work/ds.err"; diff "$work/cfg.sorted" "$work/ds.sorted" | head -5)"
grep -q '^      hostPID: true$' "$ds" && ok || bad "daemonset.yaml: no hostPID: true"
for m in sys proc etc dev/infiniband; do
	grep -qE "mountPath: /host/$m, readOnly: true" "$ds" && grep -qE "hostPath: \{path: /$m\}" "$ds" && ok ||
		bad "daemonset.yaml: /$m is not mounted read-only at /host/$m"
done
grep -q -- '--config.custom-plugin-monitor=/config/rdma-doctor-monitor.json' "$ds" && ok || bad "daemonset.yaml: NPD is not given the monitor config"
[ -s "$work/npd-line.txt" ] && echo "npd: $(cat "$work/npd-line.txt")"
ts_finalize
