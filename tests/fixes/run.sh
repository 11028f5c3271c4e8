#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Every printed fix, typed as shown, makes its check pass.  For every scenario root
# (tests/scenarios/make.sh) and every examples/ root: each finding's fix[] (check --format json)
# is run by bash inside a copy of the root, absolute paths rewritten to the copy (here-document
# bodies are content and stay as printed), then check runs again on the copy.
#
# What is covered: fixes that change files (redirections, cat/printf/echo into files, sed -i,
# cp, mkdir, ln, chmod of files), and `rdma-doctor fix modules --apply`, run on the copy.  A fix
# line is run twice over: once as printed (`rdma-doctor ...` runs this build with --root on the
# copy), once with the rdma-doctor line skipped, so the "by hand" lines are proven on their own.
# Commands that act on the live host (modprobe, rmmod, udevadm trigger, systemctl restart of a
# service, flint, dmesg...) are not simulated: they are not in the restricted PATH, are recorded,
# and do nothing.  Every such finding must be gone after its fix, unless it is still reported and
# its fix also called a live command other than a reload of the files it changed (systemctl
# daemon-reload, systemctl restart systemd-modules-load, udevadm control --reload): those are
# listed as not asserted (the live half cannot be done on a copy).  Finally `fix modules --apply`
# runs on each copy: then
# modules.persistent must not WARN or FAIL (OK, SKIP without hardware, or the UNKNOWN of a root
# it cannot judge, which fix then refuses with exit 1).  And check and `fix modules` give one
# answer on each root and on the live host: the same modules to load, files changed exactly when
# a modules-load.d check warns.
# Usage: tests/fixes/run.sh [BUILD_DIR]      Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=${1:-$top/build}
build=$(cd "$build" && pwd)
bin=$build/rdma-doctor
ts_scratch fixes
ts_init
asserted=0 skipped=0
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1 LC_ALL=C

# the only programs a fix may run for real: file tools
mkdir -p "$work/bin"
for p in cat printf echo sed mkdir cp ln chmod tee rm mv touch grep tail head tr true; do
	w=$(command -v "$p") && [ -x "$w" ] && ln -s "$w" "$work/bin/$p"
done
BASH_BIN=$(command -v bash)

"$top/tests/scenarios/make.sh" "$work/scen" > /dev/null || { echo "FAIL make.sh"; echo "0 passed, 1 failed"; exit 1; }
roots=()
for r in "$work"/scen/* "$top"/examples/*; do [ -d "$r" ] && roots+=("$r"); done

# rewrite absolute host paths of a fix script to the copy C, outside here-document bodies
rewrite() { # C < script > script
	perl -pe 'BEGIN { $C = shift @ARGV }
		if (defined $d) { undef $d if $_ eq "$d\n"; next }
		$d = $1 if /<<-?\s*\x27?([A-Za-z_][A-Za-z0-9_]*)\x27?/;
		s{(^|[\s\x27"=>(])/(etc|usr|lib|run|var|opt|dev|sys|proc|boot)/}{$1$C/$2/}g' "$1"
}

# runs a fix script in copy C; $2: "as-printed" or "by-hand"; live commands go to C.live
apply_fix() { # C MODE SCRIPT
	local c=$1 mode=$2 script=$3
	rewrite "$c" < "$script" > "$c.sh"
	PATH="$work/bin" RD_BIN="$bin" RD_COPY="$c" RD_MODE="$mode" RD_LIVE="$c.live" "$BASH_BIN" --norc --noprofile -c '
		command_not_found_handle() { echo "$*" >> "$RD_LIVE"; return 0; }
		rdma-doctor() { [ "$RD_MODE" = as-printed ] && "$RD_BIN" --root "$RD_COPY" "$@" > /dev/null 2>&1; return 0; }
		. "$0"' "$c.sh" > "$c.out" 2>&1
}

live_only_reloads() { # LIVEFILE: true when every live command recorded is a reload of files
	[ -s "$1" ] || return 0
	! grep -vqE '^(systemctl (daemon-reload|restart systemd-modules-load)|udevadm control --reload)( |$)' "$1"
}

still_there() { # ROOT CHECK SUBJECT: the finding is still WARN/FAIL/UNKNOWN (or the check gave no report)
	local j
	j=$("$bin" --root "$1" check --format json 2> /dev/null)
	jq -e '.findings' > /dev/null 2>&1 <<< "$j" || return 0
	jq -e --arg c "$2" --arg s "$3" 'any(.findings[]; .check == $c and .subject == $s and (.status == "WARN" or .status == "FAIL" or .status == "UNKNOWN"))' > /dev/null <<< "$j"
}

one_answer() { # NAME ARGS...: check and fix modules agree (dry run)
	local name=$1; shift
	local j plan want got files warned
	j=$("$bin" "$@" check --only modules.loaded,modules.persistent,modules.peermem_order --format json 2> /dev/null)
	plan=$("$bin" "$@" fix modules 2> /dev/null)
	want=$(jq -r '[.findings[] | select(.check == "modules.loaded" and (.status == "FAIL" or .status == "WARN")) | .subject] | join(" ")' <<< "$j")
	got=$(sed -n 's/^  modprobe //p' <<< "$plan" | tr '\n' ' ' | sed 's/ $//')
	[ "$want" = "$got" ] && ok || bad "$name: check says not loaded: '$want', fix modules would load: '$got'"
	warned=$(jq -r 'any(.findings[]; (.check == "modules.persistent" or .check == "modules.peermem_order") and .status == "WARN")' <<< "$j")
	files=$(grep -qE '^rdma-doctor fix modules: [1-9][0-9]* files? to change' <<< "$plan" && echo true || echo false)
	refused=$("$bin" "$@" fix modules 2>&1 > /dev/null | grep -c 'left untouched')
	{ [ "$warned" = "$files" ] || { [ "$warned" = true ] && [ "$refused" -gt 0 ]; }; } && ok ||
		bad "$name: modules.persistent/peermem_order warn: $warned, fix modules changes files: $files"
}
one_answer "the live host"

notes=()
# (the sanitizer pass takes every second root: the scenario roots are checked whole under it
# by tests/scenarios, and fix modules by tests/fix; here it sees the roots a fix has changed)
k=0
ts_subset && ts_skip "every second root" "the plain pass applied their fixes"
for r in "${roots[@]}"; do
	k=$((k + 1))
	ts_subset && [ $((k % 2)) = 0 ] && continue
	name=$(basename "$r")
	"$bin" --root "$r" check --format json > "$work/$name.json" 2> /dev/null
	# the findings that are WARN, FAIL or UNKNOWN and print a fix (one jq for the report)
	mapfile -t fixable < <(jq -r '.findings | to_entries[] | select((.value.status == "WARN" or .value.status == "FAIL" or
		.value.status == "UNKNOWN") and (.value.fix | length > 0)) | .key' "$work/$name.json")
	for i in "${fixable[@]}"; do
		eval "$(jq -r ".findings[$i] | \"check=\\(.check | @sh) subject=\\(.subject | @sh)\"" "$work/$name.json")"
		jq -r ".findings[$i].fix[]" "$work/$name.json" > "$work/fix.sh"
		grep -qE '(^|[^0-9])>>? *[/"]|sed -i|(^| )(cp|mkdir|ln|tee) |rdma-doctor fix' "$work/fix.sh" || continue
		for mode in as-printed by-hand; do
			[ $mode = by-hand ] && ! grep -q '^rdma-doctor ' "$work/fix.sh" && continue
			c=$work/copy; rm -rf "$c" "$c.live" "$c.sh" "$c.out"; cp -a "$r" "$c"
			apply_fix "$c" $mode "$work/fix.sh"
			if ! still_there "$c" "$check" "$subject"; then
				asserted=$((asserted + 1)); ok
				[ -n "${VERBOSE:-}" ] && echo "fixed by its fix ($mode): $name $check $subject"
			elif ! live_only_reloads "$c.live"; then
				skipped=$((skipped + 1))
				notes+=("$name $check $subject: needs the live host too ($(grep -vE '^(systemctl daemon-reload|udevadm control)' "$c.live" | head -1 | cut -c1-60))")
				break
			else
				bad "$name: $check $subject: still reported after its fix ($mode): $(head -c 300 "$c.out")"
			fi
		done
	done
	# one answer: the modules `fix modules` would load are the ones modules.loaded reports, and it
	# plans file changes exactly when modules.persistent or modules.peermem_order warns
	one_answer "$name" --root "$r"
	# fix modules --apply, then modules.persistent does not WARN or FAIL
	c=$work/copy; rm -rf "$c"; cp -a "$r" "$c"
	"$bin" --root "$c" fix modules --apply > "$work/fixmod.out" 2>&1
	rc=$?
	st=$("$bin" --root "$c" check --only modules.persistent --format json 2> /dev/null | jq -r '[.findings[].status] | join(",")')
	case "$st" in
	OK | SKIP) ok ;;
	UNKNOWN) [ $rc = 1 ] && ok || bad "$name: modules.persistent UNKNOWN after fix modules --apply, which exited $rc" ;;
	*) bad "$name: modules.persistent $st after fix modules --apply (exit $rc): $(head -3 "$work/fixmod.out")" ;;
	esac
done
# explain: the fix of each confirmed cause, where it changes files, makes that cause go away.
# Each scenario's own error line (tests/explain/scenarios.txt), and a modules-load.d that lists a
# module the running kernel lacks (systemd's "Failed to start ... Load Kernel Modules.").
r=$work/scen/modules-load-unknown; cp -a "$work/scen/healthy-inbox" "$r"
mkdir -p "$r/lib/modules/6.1.0-31-amd64" "$r/etc/modules-load.d"
printf '%s\n' kernel/drivers/infiniband/core/ib_core.ko: kernel/drivers/infiniband/core/ib_uverbs.ko: > "$r/lib/modules/6.1.0-31-amd64/modules.dep"
printf 'nv_peer_mem\n' > "$r/etc/modules-load.d/gpu.conf"
explain_cases() {
	grep -v '^#' "$top/tests/explain/scenarios.txt" | cut -f1,2
	printf 'modules-load-unknown\t%s\n' 'Nov 30 04:12:55 gpu-a01 systemd[1]: Failed to start systemd-modules-load.service - Load Kernel Modules.'
}
explained=0
while IFS=$'\t' read -r sc msg; do
	[ -n "$sc" ] && [ -d "$work/scen/$sc" ] || continue
	printf '%b\n' "$msg" > "$work/msg"
	"$bin" --root "$work/scen/$sc" explain --format json - < "$work/msg" > "$work/x.json" 2> /dev/null
	mapfile -t ids < <(jq -r '[.matches[].causes[] | select(.verdict == "confirmed") | .id] | unique | .[]' "$work/x.json")
	for id in "${ids[@]}"; do
		jq -r --arg id "$id" '[.matches[].causes[] | select(.id == $id and .verdict == "confirmed")][0].fix[]' "$work/x.json" > "$work/fix.sh"
		grep -qE '(^|[^0-9])>>? *[/"]|sed -i|(^| )(cp|mkdir|ln|tee) |rdma-doctor fix' "$work/fix.sh" || continue
		c=$work/copy; rm -rf "$c" "$c.live" "$c.sh" "$c.out"; cp -a "$work/scen/$sc" "$c"
		apply_fix "$c" as-printed "$work/fix.sh"
		"$bin" --root "$c" explain --format json - < "$work/msg" > "$work/y.json" 2> /dev/null
		if ! jq -e --arg id "$id" 'any(.matches[].causes[]; .id == $id and .verdict == "confirmed")' "$work/y.json" > /dev/null; then
			explained=$((explained + 1)); ok
		elif ! live_only_reloads "$c.live"; then
			notes+=("explain $sc $id: needs the live host too ($(head -1 "$c.live" | cut -c1-60))")
		else
			bad "explain $sc: cause $id still confirmed after its fix: $(head -c 300 "$c.out")"
		fi
	done
done < <(explain_cases)
[ $explained -ge 2 ] && ok || bad "explain: only $explained confirmed causes' fixes were applied and asserted"
for t in "${notes[@]}"; do echo "not asserted: $t"; done
echo "fixes: ${#roots[@]} roots, $asserted fixes applied and asserted, $skipped need the live host; explain: $explained"
ts_finalize
