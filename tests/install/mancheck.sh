#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/install/mancheck.sh BIN MANPAGE: is the man page complete for this program?
# Prints one line per gap and exits 1 when there is one, 0 when there is none:
#   * every command of `BIN --help` has an `.Ss COMMAND` section under `.Sh COMMANDS`;
#   * every option on the option lines (lines starting with a dash) of `BIN COMMAND --help` (and
#     `-h` where --help is not a help, as for ibstatus) has an `.It Fl ...` item in that section
#     (-h/--help are documented once, in the COMMANDS introduction);
#   * every global option of `BIN --help` has an `.It Fl` item under `.Sh OPTIONS`;
#   * every check id of `BIN checks` has an `.It Cm ID` item under `.Sh CHECKS`;
#   * EXIT STATUS has an item for each of 0, 1, 2, 3, and names (.Cm) every command whose
#     `COMMAND --help` gives a status 1 or 2 a meaning of its own;
# and the other way round: a section, option item or check id the program no longer has.
set -uo pipefail
bin=$1 man=$2
name=$(basename "$man")
gaps=0
gap() { echo "$name: $*"; gaps=$((gaps + 1)); }
run() { env -u RDMA_DOCTOR_ROOT "$bin" "$@" 2>&1; }

# the options named on the option lines of a help text (stdin)
help_opts() {
	awk '/^[ \t]+-/ {
		s = " " $0
		while (match(s, /[ \t,(\[\/|]--?[A-Za-z][A-Za-z0-9_-]*/)) {
			print substr(s, RSTART + 1, RLENGTH - 1)
			s = substr(s, RSTART + RLENGTH)
		}
	}' | sort -u
}

# the man page's items: "global OPT", "cmd NAME OPT", "section NAME", "check ID", "exit N"
man_items() {
	awk '
	/^\.Sh / { sh = $2; for (i = 3; i <= NF; i++) sh = sh " " $i; ss = ""; next }
	/^\.Cm / && sh == "EXIT STATUS" { print "exitcmd", $2 }
	/^\.Ss / && sh == "COMMANDS" { ss = $2; print "section", ss; next }
	/^\.It / {
		if (sh == "CHECKS" && $2 == "Cm") { print "check", $3; next }
		if (sh == "EXIT STATUS") { print "exit", $2; next }
		if (sh != "OPTIONS" && !(sh == "COMMANDS" && ss != "")) next
		for (i = 2; i <= NF; i++) {
			if ($i != "Fl") continue
			for (j = i + 1; j <= NF && $j !~ /^([A-Z][a-z][a-z]?|[,;:.|()])$/; j++) {
				f = $j; gsub(/\\-/, "-", f)
				print (sh == "OPTIONS" ? "global" : "cmd " ss), "-" f
			}
			i = j - 1
		}
	}' "$man" | sort -u
}

items=$(man_items)
has() { grep -qxF -- "$1" <<< "$items"; }

commands=$(run --help | awk '/^Commands:/ { c = 1; next } c && /^$/ { exit } c && /^  [a-z]/ { print $1 }')
[ -n "$commands" ] || gap "no command found in '$bin --help'"
for c in $commands; do
	has "section $c" || { gap "command '$c' (in 'rdma-doctor --help') has no '.Ss $c' section under COMMANDS"; continue; }
	text=$(run "$c" --help) || text+=$'\n'$(run "$c" -h)
	for o in $(help_opts <<< "$text"); do
		case $o in -h | --help) continue ;; esac
		has "cmd $c $o" || gap "option '$o' of '$c' (in 'rdma-doctor $c --help') has no '.It Fl ${o#-}' item under '.Ss $c'"
	done
	for o in $(awk -v c="$c" '$1 == "cmd" && $2 == c { print $3 }' <<< "$items"); do
		case $o in -h | --help) continue ;; esac
		help_opts <<< "$text" | grep -qxF -- "$o" ||
			gap "'.It Fl ${o#-}' under '.Ss $c' is not an option of 'rdma-doctor $c --help' (removed or renamed?)"
	done
done
for s in $(awk '$1 == "section" { print $2 }' <<< "$items"); do
	grep -qxF -- "$s" <<< "$commands" || gap "'.Ss $s' under COMMANDS is not a command of 'rdma-doctor --help'"
done

globals=$(run --help | awk '/^Commands:/ { exit } { print }' | help_opts)
for o in $globals; do
	has "global $o" || gap "global option '$o' (in 'rdma-doctor --help') has no '.It Fl ${o#-}' item under OPTIONS"
done

ids=$(run checks | awk '/^[a-z][a-z0-9_]*\.[a-z0-9_.]+ / { print $1 }')
[ -n "$ids" ] || gap "no check id found in '$bin checks'"
for id in $ids; do
	has "check $id" || gap "check id '$id' (in 'rdma-doctor checks') has no '.It Cm $id' item under CHECKS"
done
for id in $(awk '$1 == "check" { print $2 }' <<< "$items"); do
	# probe.loopback is check --probe's, not the catalogue's
	[ "$id" = probe.loopback ] || grep -qxF -- "$id" <<< "$ids" ||
		gap "'.It Cm $id' under CHECKS is not a check of 'rdma-doctor checks'"
done

for n in 0 1 2 3; do
	has "exit $n" || gap "exit status $n has no '.It $n' item under EXIT STATUS"
done
for c in $commands; do
	text=$(run "$c" --help) || text+=$'\n'$(run "$c" -h)
	st=$(awk '/^Exit status:/ { e = 1; sub(/^Exit status:/, "") } e' <<< "$text" | tr '\n' ' ')
	if grep -qE '(^|[ ;,(])[12] ' <<< "$st"; then
		has "exitcmd $c" || gap "command '$c' has exit statuses of its own ('rdma-doctor $c --help':$st) that EXIT STATUS does not name (.Cm $c)"
	fi
done
[ $gaps = 0 ]
