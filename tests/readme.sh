#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# README.md and the guides of docs/ show what the program does, so that they cannot drift from it:
#   1. every ``` block whose first line is `$ COMMAND` is an example: its `$ ` lines are run in
#      order by one bash in the source tree (rdma-doctor and ./build/rdma-doctor are the program
#      under test; /tmp/ in a command is a directory of this test's own), and everything they
#      print (standard output and error) is compared with the block's other lines, where a line
#      `...` stands for any number of lines the README leaves out.  A block whose rdma-doctor runs
#      without --root reads the live host (a VM, a node with /host): it cannot be reproduced
#      here and is counted as not run; every other block is run;
#   2. the Commands block names every option of each command's `--help` (one of its names: -f or
#      --format) and none that is the default (--counters); ibstat and ibstatus are rdma-core's
#      and npd takes check's options.
# Usage: tests/readme.sh [BUILD_DIR]      Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib.sh"
build=$top/build
[ $# -gt 0 ] && build=$(cd "$1" && pwd)
bin=$build/rdma-doctor
usage=$top/docs/usage.md # the Commands block
ts_init
[ -x "$bin" ] || ts_die "$bin is missing (make)"
ts_scratch readme
mkdir -p "$work/bin" "$work/tmp" "$work/ptmp"
ln -s "$bin" "$work/bin/rdma-doctor"
export NO_COLOR=1 SOURCE_DATE_EPOCH=1764460800
unset RDMA_DOCTOR_ROOT

# ---- 1. the example blocks ------------------------------------------------------------------
# each block into work/blocks/FILE:N.{cmd,want} (N its first line's number in FILE)
mkdir -p "$work/blocks"
for doc in README.md docs/*.md; do
awk -v dir="$work/blocks" -v doc="${doc//\//_}" '
	/^```/ {
		if (inb) { inb = 0; if (ex) { close(cf); close(wf) } }
		else { inb = 1; first = 1; ex = 0 }
		next
	}
	inb && first { first = 0; if ($0 ~ /^\$ /) { ex = 1; n = doc ":" NR; cf = dir "/" n ".cmd"; wf = dir "/" n ".want"; printf "" > wf } }
	inb && ex && /^\$ / { print substr($0, 3) > cf; next }
	inb && ex { print > wf }' "$top/$doc"
done
# match WANT GOT: GOT's lines are WANT's, a WANT line "..." matching any run of lines (0 or more)
match() {
	awk 'FNR == 1 { f++ } f == 1 { w[++nw] = $0; next } { g[++ng] = $0 }
	END {
		# m[i, j]: want lines i.. match got lines j..
		for (j = ng + 1; j >= 1; j--) m[nw + 1, j] = (j == ng + 1)
		for (i = nw; i >= 1; i--)
			for (j = ng + 1; j >= 1; j--)
				if (w[i] == "...") m[i, j] = m[i + 1, j] || (j <= ng && m[i, j + 1])
				else m[i, j] = j <= ng && w[i] == g[j] && m[i + 1, j + 1]
		exit !m[1, 1]
	}' "$1" "$2"
}
live=0 ran=0
for n in $(ls "$work/blocks" | sed -n 's/\.cmd$//p' | sort -V); do
	cf=$work/blocks/$n.cmd want=$work/blocks/$n.want
	if grep -E '(^|[;&|] *)(\./build/)?rdma-doctor ' "$cf" | grep -qv -- '--root'; then
		live=$((live + 1))
		continue
	fi
	ran=$((ran + 1))
	rm -rf "$work/tmp" "$work/run"
	mkdir -p "$work/tmp" "$work/run"
	# the commands as typed, with the program under test and this test's /tmp
	sed -e "s|\./build/rdma-doctor |rdma-doctor |g" -e "s|/tmp/|$work/tmp/|g" "$cf" > "$work/run/script"
	(cd "$top" && PATH=$work/bin:$PATH TMPDIR=$work/ptmp bash "$work/run/script") > "$work/run/got" 2>&1
	sed -i "s|$work/tmp/|/tmp/|g" "$work/run/got"
	if match "$want" "$work/run/got"; then ok; else
		bad "${n%%:*} line ${n#*:}: '$(head -1 "$cf")' prints something else than the README shows (- README, + program):"
		if grep -qx '\.\.\.' "$want"; then
			# with lines left out, what the README shows that the program does not print (or not in that order)
			grep -vx '\.\.\.' "$want" | grep -vxF -f "$work/run/got" | sed 's/^/  -/' | head -20
			grep -vx '\.\.\.' "$want" | grep -qvxF -f "$work/run/got" || echo "  (every line is printed, but not in this order)"
		else
			diff "$want" "$work/run/got" | grep '^[<>]' | sed -e 's/^</  -/' -e 's/^>/  +/' | head -20
		fi
	fi
done
[ $ran -ge 5 ] && ok || bad "only $ran example blocks found in README.md and docs/ to run"
echo "README.md and docs/: $ran example blocks run, $live of the live host not run"

# ---- 2. the Commands block names every option --------------------------------------------------
cmds=$("$bin" --help | awk '/^Commands:/ { c = 1; next } c && /^$/ { exit } c && /^  [a-z]/ { print $1 }')
block=$(awk '/^## Commands$/ { c = 1; next } c && /^```$/ { if (inb) exit; inb = 1; next } c && inb' "$usage")
[ -n "$block" ] && ok || bad "docs/usage.md has no Commands block"
for c in $cmds; do
	case $c in ibstat | ibstatus | npd) continue ;; esac
	# the command's lines of the block: its own line and the indented ones after it
	entry=$(awk -v c="$c" '$1 == c || ($1 ~ /,$/ && index($0, " " c)) { e = 1; print; next } e && /^  [a-z]/ { exit } e' <<< "$block")
	[ -n "$entry" ] || { bad "docs/usage.md's Commands block has no line for '$c'"; continue; }
	"$bin" "$c" --help 2>&1 | awk '/^[ \t]+-/ && !/\(the default\)/ {
		s = $0; sub(/^[ \t]+/, "", s); line = ""; short = 0
		while (match(s, /^--?[A-Za-z][A-Za-z0-9_-]*,? ?/)) {
			t = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1); sub(/,? ?$/, "", t)
			if (t !~ /^--/) short = 1
			line = line " " t
		}
		# -f, --format: one option by two names; --policy, --only, ...: one option each
		if (short) print substr(line, 2); else { n = split(line, w, " "); for (i = 1; i <= n; i++) print w[i] }
	}' | while read -r names; do
		found=0
		for o in $names; do
			case $o in -h | --help) found=1 ;; esac
			grep -qE -- "(^|[^A-Za-z0-9_-])$o([^A-Za-z0-9_-]|$)" <<< "$entry" && found=1
		done
		[ $found = 1 ] && echo ok || echo "bad docs/usage.md's Commands block does not show '$c' option ${names// / or } (from 'rdma-doctor $c --help')"
	done > "$work/opts"
	while read -r r msg; do if [ "$r" = ok ]; then ok; else bad "$msg"; fi; done < "$work/opts"
	# and no option the program does by default is shown as one to add (--counters)
	for o in $("$bin" "$c" --help 2>&1 | awk '/^[ \t]+--[a-z-]+ .*\(the default\)/ { print $1 }'); do
		grep -qE -- "(^|[^A-Za-z0-9_-])$o([^A-Za-z0-9_-]|$)" <<< "$entry" &&
			bad "docs/usage.md's Commands block shows '$c $o', which the program does by default ('rdma-doctor $c --help')" || ok
	done
done

debris=$(ls -A "$work/ptmp")
[ -z "$debris" ] && ok || bad "the examples left in TMPDIR: $debris"
ts_finalize
