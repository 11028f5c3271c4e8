#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The verdict audit: over every scenario root (tests/scenarios/make.sh), every example root, the
# real H100 capture and the qemu snapshot, `check --format json` must not contradict itself: no
# two statements about the same fact (stack installed/running, openibd, a module loaded or
# persistent, a port's state, the count of Active ports) disagree, and one problem is one finding.
# The rules, one per fact pair, are tests/audit/rules.jq.  The rules are first shown to fire on
# reports made contradictory on purpose, so the audit cannot pass by matching nothing.
# Usage: tests/audit/run.sh [BUILD_DIR]                   Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
bin=$build/rdma-doctor
rules=$top/tests/audit/rules.jq
. "$top/tests/lib.sh"
real=$ts_real
ts_init
command -v jq > /dev/null || ts_die "jq is required"
ts_scratch audit
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1

"$top/tests/scenarios/make.sh" "$work/roots" > /dev/null || ts_die "make.sh"
for e in "$top"/examples/*/; do ln -s "$e" "$work/roots/example-$(basename "$e")"; done
if [ -d "$real/gpud-h100-sys-class-infiniband" ]; then
	"$top/tests/tools/fixture2root.sh" dir "$real/gpud-h100-sys-class-infiniband" "$work/roots/real-gpud-h100"
elif ts_have_real; then
	bad "real fixture missing: $real/gpud-h100-sys-class-infiniband"
else
	ts_skip "real-gpud-h100 (the real H100 tree)" "$ts_real_reason"
fi
[ -f "$top/tests/vm/fixtures/rxe0-snapshot.tar.gz" ] && ln -s "$top/tests/vm/fixtures/rxe0-snapshot.tar.gz" "$work/roots/vm-rxe0-snapshot.tar.gz"

# ---- the rules fire: one contradiction planted per fact pair in a consistent report ----
"$bin" --root "$work/roots/healthy-mlnx-ofed" check --format json > "$work/good.json"
n=$(jq -r -f "$rules" "$work/good.json" | wc -l)
[ "$n" = 0 ] && ok || bad "healthy-mlnx-ofed: $n contradictions: $(jq -r -f "$rules" "$work/good.json" | head -3)"
plant() { # NAME JQ-EDIT EXPECTED-PREFIX
	jq "$2" "$work/good.json" > "$work/planted.json" || { bad "plant $1: jq"; return; }
	if jq -r -f "$rules" "$work/planted.json" | grep -q "^$3"; then ok
	else bad "planted $1: no \"$3\" contradiction found (rules: $(jq -r -f "$rules" "$work/planted.json" | head -2))"; fi
}
finding() { printf '{"check":"%s","status":"%s","subject":"%s","message":"%s","evidence":[],"fix":%s}' "$@"; }
plant openib-conf "(.findings += [$(finding openibd.conf SKIP openib.conf 'no /etc/infiniband/openib.conf (not an OFED install)' '[]')])" "stack installed"
plant flavor '.stack.installed = "inbox"' "stack installed"
plant unknown-fail "(.stack.installed = \"unknown\") | (.findings += [$(finding stack.mixed FAIL host 'unknown  is installed but the in-tree (inbox) RDMA modules are loaded' '["reboot"]')])" "stack installed"
plant running '.stack.running = "inbox"' "stack running"
plant openibd "(.findings += [$(finding openibd.state SKIP openibd 'openibd is not installed (no OFED init service)' '[]')])" "openibd"
plant module-loaded '(.modules[] | select(.name == "ib_core") | .loaded) = false' "module ib_core"
plant module-not-loaded "(.findings += [$(finding devnodes.present FAIL /dev/infiniband 'rdma_cm is missing (rdma_ucm is not loaded)' '[]')])" "module rdma_ucm"
plant persistent '(.modules[] | select(.name == "ib_umad") | .persistent) = false' "module ib_umad"
plant port-down '.devices[0].ports[0].state = "DOWN"' "ports"
plant port-fail "(.findings += [$(finding ports.state FAIL 'mlx5_0 port 1' 'Polling: no physical link' '[]')])" "port mlx5_0 port 1"
plant rate '(.findings[] | select(.check == "ports.rate") | .message) = "9 active ports, none slower than the fastest port of its model here (compared with each other only)"' "ports"
plant same-fix "(.findings += [$(finding memlock.limit FAIL slurmd a '["systemctl restart slurmd"]'), $(finding memlock.limit FAIL 'slurmd (pid 1)' b '["systemctl restart slurmd"]')])" "one problem"
plant port-twice "(.findings += [$(finding ports.state FAIL 'mlx5_9 port 1' a '["x"]'), $(finding ports.sm FAIL 'mlx5_9 port 1' b '["y"]')])" "port mlx5_9 port 1"

# ---- every root: no contradiction ----
cd "$work/roots" || exit 1
for s in *; do
	"$bin" --root "$s" check --format json > "$work/$s.json" 2> /dev/null
	if ! jq -e '.findings | length > 0' "$work/$s.json" > /dev/null 2>&1; then bad "$s: no JSON report"; continue; fi
	out=$(jq -r -f "$rules" "$work/$s.json")
	if [ -z "$out" ]; then ok; else bad "$s:"; sed 's/^/    /' <<< "$out"; fi
	# and with the audit's own policy, which ignores a port and expects every other Active
	dev=$(jq -r '[.devices[] | select((.ports | length) > 0)][0].name // empty' "$work/$s.json")
	[ -n "$dev" ] || continue
	printf '[ports]\nignore = %s\n' "$dev" > "$work/ignore.conf"
	"$bin" --root "$s" check --format json --policy "$work/ignore.conf" > "$work/$s.ign.json" 2> /dev/null
	out=$(jq -r -f "$rules" "$work/$s.ign.json")
	if [ -z "$out" ]; then ok; else bad "$s (ignore = $dev):"; sed 's/^/    /' <<< "$out"; fi
done
ts_finalize
