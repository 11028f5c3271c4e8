#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Installing rdma-doctor like a system tool:
#   1. make install into a DESTDIR (PREFIX /usr/local, then /usr): every file where it belongs,
#      with its mode and content; make uninstall leaves none of them, and keeps a file not ours;
#      paths with blanks, &, |, ; and quotes are one path each (nothing made in the source tree,
#      nothing run), and a BINDIR systemd cannot run a program from is refused;
#   2. the man page: mandoc -Tlint with no message about the page; complete for the program
#      (tests/install/mancheck.sh: every command, option and check id of its --help and
#      `checks`), and that check fails on a page with a gap;
#   3. bash completion, loaded by bash-completion from the installed place, driven through
#      COMP_WORDS/COMP_CWORD: commands, options per command, values, check ids, devices; and
#      taken from the program (a stand-in program with a new command is completed too); no word
#      of a root or of the program's output is expanded (device directories and commands named
#      $(touch${IFS}X), `id>Y`: nothing created, each offered quoted);
#   4. the systemd units: systemd-analyze verify with no message (and it does complain about a
#      unit whose program is missing), also with %, ;, |, & and blanks in its paths; the service's
#      ExecStart, typed as the unit has it, writes the textfile; its textfile directory is Debian
#      node_exporter's default;
#   5. README's Slurm scripts are the contrib/slurm files;
#   6. the Debian package, built out of tree from a copy of the source: dpkg-buildpackage -us -uc
#      -b makes rdma-doctor_<VERSION>_amd64.deb (the checkout is left unchanged), dpkg-deb -c
#      lists what make install would put under /usr, lintian reports no error and no warning,
#      dpkg -i installs it, the installed `rdma-doctor version` and `man rdma-doctor` work, and
#      dpkg -r removes every file again but keeps an enabled timer's link, which dpkg -P removes
#      (as README.md says).  Needs root (CI runs as root on a throwaway machine).
# Every tool it needs is required: a missing one is a failure, never a skip.  Everything it
# makes is in one directory of TMPDIR, removed at the end; its children get a TMPDIR of their
# own inside it, which must be empty at the end.
# Usage: tests/install/run.sh [BUILD_DIR]      Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$top/build
[ $# -gt 0 ] && build=$(cd "$1" && pwd)
version=$(cat "$top/VERSION")
ts_init
check() { # DESCRIPTION COMMAND...: passes when the command succeeds
	local what=$1; shift
	if "$@"; then ok; else bad "$what"; fi
}

missing=()
for t in make mandoc man systemd-analyze dpkg-buildpackage dpkg-deb dpkg-parsechangelog dh lintian dpkg \
	prometheus-node-exporter; do
	command -v "$t" > /dev/null || missing+=("$t")
done
[ -f /usr/share/bash-completion/bash_completion ] || missing+=("bash-completion")
[ -x "$build/rdma-doctor" ] || missing+=("$build/rdma-doctor (make)")
if [ ${#missing[@]} -gt 0 ]; then
	bad "missing: ${missing[*]} (Debian: mandoc man-db systemd dpkg-dev debhelper lintian bash-completion prometheus-node-exporter)"
	ts_finalize
fi

ts_scratch install
mkdir "$work/tmp"
export TMPDIR=$work/tmp
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
unset RDMA_DOCTOR_ROOT
mk() { nice -n 10 make -s -C "$top" BUILD="$build" "$@"; }

# ---- 1. make install / make uninstall ---------------------------------------------------------
contrib=$(cd "$top/contrib" && find prometheus npd slurm -type f | sort)
# expected FILE MODE SOURCE (relative to PREFIX); the units are made from their .in templates
expected() { # PREFIX
	echo "bin/rdma-doctor 755 -"
	echo "share/man/man1/rdma-doctor.1 644 docs/rdma-doctor.1"
	echo "share/bash-completion/completions/rdma-doctor 644 contrib/bash-completion/rdma-doctor"
	echo "lib/systemd/system/rdma-doctor.service 644 -"
	echo "lib/systemd/system/rdma-doctor.timer 644 -"
	echo "lib/systemd/system/rdma-doctor-watch.service 644 -"
	for f in $contrib; do
		if [ -x "$top/contrib/$f" ]; then echo "share/rdma-doctor/$f 755 contrib/$f"; else echo "share/rdma-doctor/$f 644 contrib/$f"; fi
	done
}
for prefix in /usr/local /usr; do
	dest=$work/dest${prefix//\//-}
	if ! mk install DESTDIR="$dest" PREFIX="$prefix" > "$work/install.log" 2>&1; then
		bad "make install PREFIX=$prefix DESTDIR=...: $(tail -3 "$work/install.log")"
		continue
	fi
	ok
	got=$(cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
	want=$(expected | awk -v p="${prefix#/}" '{ print p "/" $1 }' | sort)
	[ "$got" = "$want" ] && ok || bad "make install PREFIX=$prefix: files differ from the expected list: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
	while read -r f mode src; do
		p=$dest$prefix/$f
		[ -f "$p" ] || continue
		[ "$(stat -c %a "$p")" = "$mode" ] && ok || bad "$prefix/$f: mode $(stat -c %a "$p"), not $mode"
		if [ "$src" != - ]; then cmp -s "$p" "$top/$src" && ok || bad "$prefix/$f differs from $src"; fi
	done < <(expected)
	unit=$dest$prefix/lib/systemd/system/rdma-doctor.service
	grep -qxF "ExecStart=$prefix/bin/rdma-doctor --timeout 60 check --format prometheus --output /var/lib/prometheus/node-exporter/rdma-doctor.prom --history-dir /var/lib/rdma-doctor/history" "$unit" &&
		ok || bad "$prefix: rdma-doctor.service's ExecStart is not $prefix/bin/rdma-doctor ... --output /var/lib/prometheus/node-exporter/rdma-doctor.prom: $(grep ExecStart "$unit")"
	grep -q @ "$dest$prefix/lib/systemd/system/"rdma-doctor* && bad "$prefix: a @VARIABLE@ left in a unit: $(grep -h @ "$dest$prefix/lib/systemd/system/"rdma-doctor*)" || ok
	[ "$("$dest$prefix/bin/rdma-doctor" version)" = "rdma-doctor $version" ] && ok || bad "$prefix: installed rdma-doctor version is not rdma-doctor $version"
	# uninstall removes exactly ours: a file of someone else's in the same directories stays
	echo other > "$dest$prefix/bin/other-tool"
	if ! mk uninstall DESTDIR="$dest" PREFIX="$prefix" > "$work/install.log" 2>&1; then
		bad "make uninstall PREFIX=$prefix: $(tail -3 "$work/install.log")"
		continue
	fi
	left=$(cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\./||')
	[ "$left" = "${prefix#/}/bin/other-tool" ] && ok || bad "make uninstall PREFIX=$prefix left: $(echo $left)"
	[ ! -e "$dest$prefix/share/rdma-doctor" ] && ok || bad "make uninstall PREFIX=$prefix left $prefix/share/rdma-doctor"
done

# paths with blanks, &, |, ; and quotes are one path each: nothing is made outside DESTDIR (not in
# the source tree), nothing runs, and uninstall finds every file again
odd=$work/odd
mkdir -p "$odd"
odd_dests=("$odd/dest dir" "$odd/dest dir&x|y'z")
odd_prefixes=("/opt/a&b" "/opt/a&b;touch pwned;|c d")
for k in 0 1; do
	odd_dest=${odd_dests[k]} odd_prefix=${odd_prefixes[k]}
	status_before=$(git -C "$top" status --porcelain --ignored 2> /dev/null)
	if mk install DESTDIR="$odd_dest" PREFIX="$odd_prefix" > "$work/install.log" 2>&1; then
		ok
		got=$(cd "$odd_dest" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
		want=$(expected | awk -v p="${odd_prefix#/}" '{ print p "/" $1 }' | sort)
		[ "$got" = "$want" ] && ok || bad "make install with DESTDIR and PREFIX of blanks, &, |, ; and quotes: files differ: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
		xs=$odd_prefix/bin
		[[ $xs == *' '* ]] && xs=\"$xs\"
		grep -qxF "ExecStart=$xs/rdma-doctor --timeout 60 check --format prometheus --output /var/lib/prometheus/node-exporter/rdma-doctor.prom --history-dir /var/lib/rdma-doctor/history" \
			"$odd_dest$odd_prefix/lib/systemd/system/rdma-doctor.service" && ok ||
			bad "make install PREFIX=$odd_prefix: ExecStart: $(grep -h ExecStart "$odd_dest$odd_prefix/lib/systemd/system/rdma-doctor.service" 2>&1)"
	else
		bad "make install with DESTDIR and PREFIX of blanks, &, |, ; and quotes: $(tail -3 "$work/install.log")"
	fi
	mk uninstall DESTDIR="$odd_dest" PREFIX="$odd_prefix" > "$work/install.log" 2>&1 && ok || bad "make uninstall with odd paths: $(tail -3 "$work/install.log")"
	left=$(cd "$odd" && find . \( -type f -o -type l \) | sed 's|^\./||')
	[ -z "$left" ] && [ ! -e "$odd_dest$odd_prefix/share/rdma-doctor" ] && ok || bad "make uninstall with odd paths left: $(echo $left)"
	[ "$(git -C "$top" status --porcelain --ignored 2> /dev/null)" = "$status_before" ] && [ ! -e "$top/pwned" ] && ok ||
		bad "make install/uninstall with odd paths changed the source tree: $(git -C "$top" status --porcelain --ignored | head -5 | tr '\n' ' ')"
	find "$work" -name pwned | grep -q . && bad "make install with odd paths ran a command: $(find "$work" -name pwned)" || ok
done
# a BINDIR systemd would not run a program from (a quote) is refused before anything is written
out=$(mk install DESTDIR="$odd/refused" PREFIX="/opt/it's" 2>&1)
rc=$?
[ $rc != 0 ] && grep -qF "BINDIR '/opt/it's/bin' has a quote or a backslash" <<< "$out" && [ ! -e "$odd/refused" ] && ok ||
	bad "make install PREFIX=/opt/it's (exit $rc): $out"
rm -rf "$odd"

# ---- 2. the man page --------------------------------------------------------------------------
# mandoc -Tlint: no message about the page (lines naming the machine's missing mandoc.db, about
# the pages .Xr refers to, are about this machine, not the page)
mandoc -Tlint "$top/docs/rdma-doctor.1" > "$work/lint" 2>&1
lint_rc=$?
lint=$(grep -v 'mandoc\.db' "$work/lint")
[ $lint_rc = 0 ] && [ -z "$lint" ] && ok || bad "mandoc -Tlint docs/rdma-doctor.1 (exit $lint_rc): $lint"
# the check can fail: a page with a unit of each kind missing is flagged for each
sed -e '/^\.It Fl -device Ar dev/d' -e '/^\.It Cm roce.mtu/d' -e 's/^\.Ss help$/.Ss helpx/' \
	"$top/docs/rdma-doctor.1" > "$work/gappy.1"
out=$("$top/tests/install/mancheck.sh" "$build/rdma-doctor" "$work/gappy.1")
rc=$?
[ $rc = 1 ] && grep -q "option '--device' of 'probe'" <<< "$out" && grep -q "check id 'roce.mtu'" <<< "$out" &&
	grep -q "command 'help'" <<< "$out" && ok || bad "mancheck.sh does not flag a page with gaps (exit $rc): $out"
if out=$("$top/tests/install/mancheck.sh" "$build/rdma-doctor" "$top/docs/rdma-doctor.1"); then ok; else
	bad "the man page docs/rdma-doctor.1 is not complete for the program (add these to it):"
	printf '     %s\n' "$out"
fi
# rendered, as man shows it
MANWIDTH=80 MANPAGER=cat man -l "$top/docs/rdma-doctor.1" > "$work/man.txt" 2> "$work/man.err"
grep -q '^NAME' "$work/man.txt" && grep -q '^EXIT STATUS' "$work/man.txt" && [ ! -s "$work/man.err" ] && ok ||
	bad "man -l docs/rdma-doctor.1: $(head -3 "$work/man.err")"

# ---- 3. bash completion -----------------------------------------------------------------------
dest=$work/comp
mk install DESTDIR="$dest" > /dev/null 2>&1 || bad "make install for the completion test"
cbin=$dest/usr/local/bin/rdma-doctor
# a stand-in program: the real one, with a command `newcmd` (its option --hosts FILE) in its help
cat > "$work/fake-rd" << EOF
#!/bin/sh
if [ "\$1" = --help ]; then "$cbin" --help | sed 's/^Commands:\$/Commands:\n  newcmd     --hosts FILE\n            a new command/'; exit 0; fi
if [ "\$1" = newcmd ]; then printf 'Usage: rdma-doctor newcmd --hosts FILE\n\nOptions:\n      --hosts FILE        the hosts\n'; exit 0; fi
exec "$cbin" "\$@"
EOF
chmod +x "$work/fake-rd"
ids=$("$cbin" checks | awk '/^[a-z][a-z0-9_]*\.[a-z0-9_.]+ / { print $1 }')
cmds=$("$cbin" --help | awk '/^Commands:/ { c = 1; next } c && /^$/ { exit } c && /^  [a-z]/ { print $1 }')
devs=$(ls "$top/examples/h100-ofed/sys/class/infiniband")
cat > "$work/comp.bash" << 'EOF'
# loaded as bash-completion loads it: from the installed completions directory, on first use
source /usr/share/bash-completion/bash_completion
_completion_loader rdma-doctor
complete -p rdma-doctor | grep -q -- '-F _rdma_doctor rdma-doctor$' || echo "NOT LOADED: $(complete -p rdma-doctor 2>&1)"
c() { # the program, then the line after it (the cursor at its end): prints COMPREPLY, one a line
	local prog=$1; shift
	COMP_LINE="$prog $*"; COMP_POINT=${#COMP_LINE}
	# readline's split: blanks, and = and : (COMP_WORDBREAKS) are words of their own
	read -ra COMP_WORDS <<< "$(sed 's/\([=:]\)/ \1 /g' <<< "$COMP_LINE")"
	[[ $COMP_LINE == *[\ =:] ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
	_rdma_doctor rdma-doctor "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	printf '%s\n' "${COMPREPLY[@]}"
}
EOF
comp() { # LINE: the completions of "rdma-doctor LINE", sorted, on one line
	(cd "${CWD:-$top}" && XDG_DATA_DIRS=$dest/usr/local/share BASH_COMPLETION_USER_DIR=$work/none \
		bash --norc --noprofile -c "source '$work/comp.bash'; c '${P:-$cbin}' $(printf '%q' "$1")" 2>&1) | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() { # LINE WANT...: the completions are exactly these
	local line=$1; shift
	local want got
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ' | sed 's/ $//')
	got=$(comp "$line")
	[ "$got" = "$want" ] && ok || bad "completion of 'rdma-doctor $line': got [$got], want [$want]"
}
expect_has() { # LINE WANT...: the completions include these
	local line=$1; shift
	local got w
	got=" $(comp "$line") "
	for w in "$@"; do [[ $got == *" $w "* ]] || { bad "completion of 'rdma-doctor $line' lacks $w: [$got]"; return; }; done
	ok
}
expect_lacks() { # LINE NOT...
	local line=$1; shift
	local got w
	got=" $(comp "$line") "
	for w in "$@"; do [[ $got == *" $w "* ]] && { bad "completion of 'rdma-doctor $line' offers $w: [$got]"; return; }; done
	ok
}
# shellcheck disable=SC2086
{
	expect "" $cmds
	expect "ch" check checks
	expect "--" --root --timeout --help --version
	expect "--timeout 5 st" stack
	expect "--root examples/h100-ofed ch" check checks
	expect "--root examples/h1" examples/h100-ofed
	expect_has "check --" --format --json --output --policy --only --skip --no-color --probe --probe-size --counters --env-from --policy-explain --help
	expect "check --format " text json prometheus
	expect_has "fleet --" --history --days --repeats --format --expect --max-age --output
	expect_has "fleet --history --" --days --repeats --format
	expect "fleet --history --format " text json html prometheus
	expect "check --format=p" prometheus
	expect "check -f j" json
	expect "check --only po" ports ports.state ports.rate ports.sm
	expect "check --only=po" ports ports.state ports.rate ports.sm
	expect "check --only ports.state,modules.l" ports.state,modules.loaded
	expect_has "check --skip " $ids
	expect "check --policy tests/cli/polic" tests/cli/policies
	expect "check --output doc" docs
	expect_has "npd --" --only --skip --policy --no-color --help
	expect_lacks "npd --" --format --json --output -o -f -j --policy-explain
	expect "slurm --drain-on " fail warn
	expect_has "slurm --" --drain-on --dry-run --node --policy --only --skip
	expect "slurm --only memlock." memlock.limit
	expect "explain --format " text json
	expect_has "explain --" --file --policy --format
	expect "help " $cmds
	expect "help v" version
	expect "fix " modules
	expect "fix modules --" --apply --policy --help
	expect "snapshot --" --output --force --counters --no-counters --policy --env-from --fabric --help
	expect "fabric --format " text json prometheus
	expect_has "fabric --" --output --format --state-dir --route --pairs
	expect "--root examples/h100-ofed ibstat " $devs
	expect "--root=examples/h100-ofed probe --device mlx5_b" mlx5_bond_0
	expect "--root examples/h100-ofed ibstatus mlx5_7" mlx5_7
	expect_has "ibstat --" --list_of_cas --short --port_list
	expect "ibstatus -" -h
	expect "version " ""
	# a root in the environment (even an empty one, an error for the program) does not matter
	[ "$(RDMA_DOCTOR_ROOT= comp "check --only po")" = "ports ports.rate ports.sm ports.state" ] && ok ||
		bad "completion with RDMA_DOCTOR_ROOT= set: [$(RDMA_DOCTOR_ROOT= comp "check --only po")]"
	# from the program itself: a new command and its options are completed
	P=$work/fake-rd expect "newc" newcmd
	P=$work/fake-rd expect "newcmd --h" --hosts
	P=$work/fake-rd expect "newcmd --hosts tests/cli/polic" tests/cli/policies
	expect "--root examples/h100-ofed gids mlx5_7" mlx5_7
	expect "--root examples/h100-ofed gids mlx5_0 " $devs
	expect "--root examples/h100-ofed gids --format " text json
}

# no word from a root or the program's output is expanded by the shell: device directories named
# for command substitutions run nothing when TAB is pressed (in a directory of its own, which
# stays empty), and every name is offered quoted, so that Enter passes it as it is
evil=$work/evil-root
mkdir -p "$evil/sys/class/infiniband" "$work/evil-cwd"
for n in '$(touch${IFS}X)' '`id>Y`' 'a b' '*' $'nl\nname' "it's" mlx5_0; do mkdir "$evil/sys/class/infiniband/$n"; done
quoted=('\$\(touch\$\{IFS\}X\)' '\`id\>Y\`' 'a\ b' '\*' "\$'nl\\nname'" "it\\'s" mlx5_0)
for line in "--root $evil ibstat " "--root=$evil ibstatus " "--root $evil probe --device " "--root $evil gids mlx5_0 "; do
	CWD=$work/evil-cwd expect "$line" "${quoted[@]}"
done
CWD=$work/evil-cwd expect "--root $evil ibstat \\\$\\(t" '\$\(touch\$\{IFS\}X\)'
CWD=$work/evil-cwd expect "--root $evil ibstat '\$(t" '\$\(touch\$\{IFS\}X\)'
CWD=$work/evil-cwd expect "--root $evil ibstat \\\`" '\`id\>Y\`'
CWD=$work/evil-cwd expect "--root $evil ibstat a" 'a\ b'
CWD=$work/evil-cwd expect "--root $evil ibstat \\*" '\*'
# words of the program's output: commands named for command substitutions in its --help
cat > "$work/evil-rd" << EOF
#!/bin/sh
if [ "\$1" = --help ]; then "$cbin" --help | sed 's/^Commands:\$/Commands:\n  x\$(touch\${IFS}W)  a command\n  y\`id>V\`  another/'; exit 0; fi
exec "$cbin" "\$@"
EOF
chmod +x "$work/evil-rd"
CWD=$work/evil-cwd P=$work/evil-rd expect "x" 'x\$\(touch\$\{IFS\}W\)'
CWD=$work/evil-cwd P=$work/evil-rd expect "help y" 'y\`id\>V\`'
left=$(ls -A "$work/evil-cwd"; ls -A "$top" | grep -xE 'X|Y|W|V')
[ -z "$left" ] && ok || bad "completion ran code named by a root or the program's output: it created $(echo $left)"

# ---- 4. systemd units -------------------------------------------------------------------------
pfx=$work/pfx
mkdir -p "$pfx/textfile"
if mk install PREFIX="$pfx/usr" TEXTFILE_DIR="$pfx/textfile" > "$work/install.log" 2>&1; then
	ok
	units=$pfx/usr/lib/systemd/system
	out=$(MANPATH=$pfx/usr/share/man: systemd-analyze verify "$units/rdma-doctor.service" "$units/rdma-doctor.timer" "$units/rdma-doctor-watch.service" 2>&1)
	rc=$?
	[ $rc = 0 ] && [ -z "$out" ] && ok || bad "systemd-analyze verify rdma-doctor.service rdma-doctor.timer rdma-doctor-watch.service (exit $rc): $out"
	# and verify does complain: the same service with its program missing
	mkdir "$work/broken"
	sed "s|^ExecStart=$pfx/usr/bin/rdma-doctor|ExecStart=$pfx/usr/bin/rdma-doctor-missing|" "$units/rdma-doctor.service" > "$work/broken/rdma-doctor.service"
	MANPATH=$pfx/usr/share/man: systemd-analyze verify "$work/broken/rdma-doctor.service" > /dev/null 2>&1 &&
		bad "systemd-analyze verify accepts a service whose program is missing: the check above proves nothing" || ok
	grep -qx 'Type=oneshot' "$units/rdma-doctor.service" && ok || bad "rdma-doctor.service is not Type=oneshot"
	# the sandbox keeps the counter samples writable: ProtectSystem=strict makes /var/lib read-only
	# except a StateDirectory=, which must be the program's default --state-dir
	sd=$(sed -n 's/^StateDirectory=//p' "$units/rdma-doctor.service")
	if grep -qx 'ProtectSystem=strict' "$units/rdma-doctor.service" && [ "$sd" = rdma-doctor ] &&
		"$pfx/usr/bin/rdma-doctor" check --help | grep -q "default /var/lib/$sd "; then ok
	else bad "rdma-doctor.service: ProtectSystem=strict without StateDirectory= naming the default --state-dir (StateDirectory=$sd)"; fi
	grep -q '^\[Timer\]' "$units/rdma-doctor.timer" && grep -q '^OnUnitActiveSec=' "$units/rdma-doctor.timer" && ok ||
		bad "rdma-doctor.timer has no [Timer] section with OnUnitActiveSec="
	# the watch service: systemd's notify protocol with a watchdog, restarted when it fails; its
	# loads end (--timeout) before the watchdog would kill it; the sandbox as the timer's service
	wu=$units/rdma-doctor-watch.service
	wto=$(sed -n 's/^ExecStart=.* --timeout \([0-9]*\) watch .*/\1/p' "$wu")
	wds=$(sed -n 's/^WatchdogSec=//p' "$wu")
	if grep -qx 'Type=notify' "$wu" && grep -qx 'Restart=on-failure' "$wu" && [ -n "$wto" ] && [ -n "$wds" ] && [ "$wto" -lt "$wds" ] &&
		grep -qx "ExecStart=$pfx/usr/bin/rdma-doctor --timeout $wto watch --output $pfx/textfile/rdma-doctor.prom --history-dir /var/lib/rdma-doctor/history" "$wu" &&
		grep -qx 'ProtectSystem=strict' "$wu" && grep -qx 'StateDirectory=rdma-doctor' "$wu"; then ok
	else bad "rdma-doctor-watch.service: not Type=notify with Restart=on-failure, a --timeout below WatchdogSec= and the sandbox: $(grep -E '^(Type|Restart|ExecStart|WatchdogSec)=' "$wu" | tr '\n' ' ')"; fi
	# both services keep the reports for fleet --history below their StateDirectory=, which the
	# sandbox leaves writable
	for u in rdma-doctor.service rdma-doctor-watch.service; do
		hd=$(sed -n 's/^ExecStart=.* --history-dir \([^ ]*\).*/\1/p' "$units/$u")
		[ "$hd" = "/var/lib/$(sed -n 's/^StateDirectory=//p' "$units/$u")/history" ] && ok ||
			bad "$u: --history-dir '$hd' is not below its StateDirectory="
	done
	# ExecStart as the unit has it (on an example root, through RDMA_DOCTOR_ROOT, its history in
	# the scratch directory): the textfile is written, with nothing else in its directory, the
	# report kept, and the status is one SuccessExitStatus= allows
	exec_line=$(sed -n 's/^ExecStart=//p' "$units/rdma-doctor.service" | sed "s| --history-dir /var/lib/rdma-doctor/history| --history-dir $pfx/history|")
	success=" 0 $(sed -n 's/^SuccessExitStatus=//p' "$units/rdma-doctor.service") "
	# shellcheck disable=SC2086
	(cd "$top" && RDMA_DOCTOR_ROOT=examples/mixed-states $exec_line)
	rc=$?
	[[ $success == *" $rc "* ]] && ok || bad "the service's ExecStart exited $rc, which is not in 0 and SuccessExitStatus=${success}"
	[ "$(ls -A "$pfx/textfile")" = rdma-doctor.prom ] && ok || bad "textfile directory after ExecStart: $(ls -A "$pfx/textfile")"
	grep -q '^rdma_doctor_check_status{check="ports.state"' "$pfx/textfile/rdma-doctor.prom" && ok ||
		bad "the textfile has no rdma_doctor_check_status series: $(head -3 "$pfx/textfile/rdma-doctor.prom")"
	kept=$(cd "$pfx" && find history -type f)
	[[ $kept == history/*/[0-9]*.json ]] && [ "$(wc -l <<< "$kept")" = 1 ] &&
		grep -q '"schema": "rdma-doctor/report/v1"' "$pfx/$kept" && ok ||
		bad "ExecStart kept no report in its history directory: $kept"
else
	bad "make install PREFIX=$pfx/usr: $(tail -3 "$work/install.log")"
fi
# a PREFIX and TEXTFILE_DIR with blanks, &, ;, | and % (and a quote in TEXTFILE_DIR) are written
# as systemd reads them: verify finds the program and the directory
opfx="$work/u a&b;c|d%e"
otf="$work/t x&y%z'q"
mkdir -p "$otf"
if mk install PREFIX="$opfx/usr" TEXTFILE_DIR="$otf" > "$work/install.log" 2>&1; then
	units=$opfx/usr/lib/systemd/system
	out=$(MANPATH=$opfx/usr/share/man: systemd-analyze verify "$units/rdma-doctor.service" "$units/rdma-doctor.timer" "$units/rdma-doctor-watch.service" 2>&1)
	rc=$?
	[ $rc = 0 ] && [ -z "$out" ] && ok || bad "systemd-analyze verify of the units made with PREFIX=$opfx/usr TEXTFILE_DIR=$otf (exit $rc): $out"
	grep -qxF "ExecStart=\"${opfx//%/%%}/usr/bin\"/rdma-doctor --timeout 60 check --format prometheus --output \"${otf//%/%%}\"/rdma-doctor.prom --history-dir /var/lib/rdma-doctor/history" "$units/rdma-doctor.service" &&
		grep -qxF "ConditionPathIsDirectory=${otf//%/%%}" "$units/rdma-doctor.service" && ok ||
		bad "the units made with PREFIX=$opfx/usr TEXTFILE_DIR=$otf: $(grep -E '^(ExecStart|Condition)' "$units/rdma-doctor.service")"
else
	bad "make install PREFIX=$opfx/usr TEXTFILE_DIR=$otf: $(tail -3 "$work/install.log")"
fi
# the directory the Makefile writes into the unit is Debian node_exporter's default textfile directory
ne_dir=$(prometheus-node-exporter --help 2>&1 | sed -n 's/.*--collector\.textfile\.directory="\([^"]*\)".*/\1/p')
mk_dir=$(make -s -C "$top" --eval 'rd-print-textfile-dir: ; @echo $(TEXTFILE_DIR)' rd-print-textfile-dir 2>&1)
[ -n "$ne_dir" ] && [ "$ne_dir" = "$mk_dir" ] && ok || bad "TEXTFILE_DIR ($mk_dir) is not node_exporter's default textfile directory ($ne_dir)"

# ---- 5. docs/slurm.md's Slurm scripts are contrib/slurm's ----------------------------------------------
readme_block() { # the ```sh block of docs/slurm.md whose second line is the comment naming FILE
	awk -v f="$1" '/^```sh$/ { b = ""; inb = 1; n = 0; next } inb && /^```$/ { if (hit) { printf "%s", b; exit } inb = 0; next }
		inb { n++; b = b $0 "\n"; if (n == 2 && index($0, "# " f) == 1) hit = 1 }' "$top/docs/slurm.md"
}
for pair in "/usr/local/sbin/rdma-doctor-healthcheck:rdma-doctor-healthcheck" "/etc/slurm/prolog.d/50-rdma-doctor:50-rdma-doctor.prolog"; do
	[ "$(readme_block "${pair%%:*}")" = "$(cat "$top/contrib/slurm/${pair#*:}")" ] && ok ||
		bad "docs/slurm.md's ${pair%%:*} block differs from contrib/slurm/${pair#*:}"
done

# ---- 6. the Debian package ----------------------------------------------------------------------
[ "$(cd "$top" && dpkg-parsechangelog -S Version)" = "$version" ] && ok ||
	bad "debian/changelog's version $(cd "$top" && dpkg-parsechangelog -S Version) is not VERSION ($version)"
src=$work/pkg/rdma-doctor-$version
mkdir -p "$src"
status_before=$(git -C "$top" status --porcelain 2> /dev/null)
if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
	# what a checkout has: tracked files and new ones that are not ignored (no build directories)
	(cd "$top" && git ls-files -z -co --exclude-standard | tar -cf - --null -T -) | tar -xf - -C "$src"
else
	(cd "$top" && tar -cf - --exclude='./build*' .) | tar -xf - -C "$src"
fi
deb=$work/pkg/rdma-doctor_${version}_amd64.deb
if (cd "$src" && nice -n 10 dpkg-buildpackage -us -uc -b) > "$work/dpkg-buildpackage.log" 2>&1 && [ -f "$deb" ]; then
	ok
else
	# the unit harness names a failed case on a FAIL line and its reason on the indented line before
	bad "dpkg-buildpackage -us -uc -b did not make rdma-doctor_${version}_amd64.deb: $(grep -E '^(FAIL|    [^ (]+:[0-9]+: )' "$work/dpkg-buildpackage.log" | head -20) $(tail -5 "$work/dpkg-buildpackage.log")"
fi
[ "$(git -C "$top" status --porcelain 2> /dev/null)" = "$status_before" ] && ok || bad "the package build changed the checkout"
if [ -f "$deb" ]; then
	listed=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./||' | sort)
	want=$(expected | awk '{ print $1 }' | sed -e 's|^lib/systemd/|../lib/systemd/|' -e 's|^share/man/man1/rdma-doctor.1$|share/man/man1/rdma-doctor.1.gz|' |
		awk '{ print "usr/" $1 }' | sed 's|^usr/\.\./||'
		echo usr/share/doc/rdma-doctor/changelog.gz; echo usr/share/doc/rdma-doctor/copyright
		# debian/docs: README.md and the guides of docs/ (dh_compress leaves a file under 4 KiB as it is)
		while IFS= read -r f; do
			if [ "$(stat -c %s "$top/$f")" -lt 4096 ]; then echo "usr/share/doc/rdma-doctor/${f##*/}"
			else echo "usr/share/doc/rdma-doctor/${f##*/}.gz"; fi
		done < "$top/debian/docs"
		echo usr/share/lintian/overrides/rdma-doctor)
	want=$(sort <<< "$want")
	[ "$listed" = "$want" ] && ok || bad "dpkg-deb -c: the package's files differ: $(diff <(echo "$want") <(echo "$listed") | grep '^[<>]' | tr '\n' ' ')"
	fields=$(dpkg-deb -f "$deb" Package Version Architecture Depends Recommends)
	grep -qx "Version: $version" <<< "$fields" && grep -qx 'Architecture: amd64' <<< "$fields" &&
		grep -q '^Depends:.*libinih1' <<< "$fields" && grep -q '^Depends:.*libyajl2' <<< "$fields" && grep -q '^Recommends:.*libarchive13' <<< "$fields" && ok ||
		bad "package fields: $fields"
	# lintian (2.116) leaves mldbm-elf-* files in its TMPDIR: its own, removed with $work
	mkdir "$work/lintian-tmp"
	TMPDIR=$work/lintian-tmp lintian "$work/pkg/rdma-doctor_${version}_amd64.changes" > "$work/lintian" 2>&1
	tags=$(grep -E '^[EW]: ' "$work/lintian")
	[ -z "$tags" ] && ok || bad "lintian: $tags"
	pkg_status() { dpkg-query -W -f='${db:Status-Status}' rdma-doctor 2> /dev/null || echo not-installed; }
	if [ "$(id -u)" != 0 ]; then
		bad "dpkg -i needs root (run as root, as CI does, on a throwaway machine)"
	elif pkg_status | grep -qvxE 'not-installed|config-files'; then
		bad "a package rdma-doctor is already installed on this machine: not replacing it (dpkg -r rdma-doctor first)"
	else
		dpkgw() { # dpkg ARGS, waiting up to 3 minutes for a lock another apt or dpkg holds
			local i
			for i in $(seq 90); do
				dpkg "$@" > "$work/dpkg.log" 2>&1 && return 0
				grep -q 'lock' "$work/dpkg.log" || return 1
				sleep 2
			done
			return 1
		}
		if dpkgw -i "$deb"; then
			ok
			[ "$(/usr/bin/rdma-doctor version)" = "rdma-doctor $version" ] && ok || bad "installed /usr/bin/rdma-doctor version: $(/usr/bin/rdma-doctor version 2>&1)"
			MANPAGER=cat MANWIDTH=80 man rdma-doctor > "$work/man-installed.txt" 2>&1
			grep -q '^NAME' "$work/man-installed.txt" && grep -q 'rdma-doctor .* find what is wrong with the RDMA stack' "$work/man-installed.txt" && grep -q '^EXIT STATUS' "$work/man-installed.txt" && ok ||
				bad "man rdma-doctor after dpkg -i: $(head -5 "$work/man-installed.txt")"
			out=$(systemd-analyze verify /lib/systemd/system/rdma-doctor.service /lib/systemd/system/rdma-doctor.timer /lib/systemd/system/rdma-doctor-watch.service 2>&1)
			[ -z "$out" ] && ok || bad "systemd-analyze verify of the installed units: $out"
			files=$(dpkg -L rdma-doctor | while read -r f; do [ -f "$f" ] && echo "$f"; done)
			# the timer enabled as README says (systemctl enable makes the link without a running
			# systemd): dpkg -r keeps its link and dpkg -P removes it, as README says too
			wants=/etc/systemd/system/timers.target.wants/rdma-doctor.timer
			systemctl enable rdma-doctor.timer > /dev/null 2>&1
			[ -L "$wants" ] && ok || bad "systemctl enable rdma-doctor.timer made no $wants"
			if dpkgw -r rdma-doctor; then ok; else bad "dpkg -r rdma-doctor: $(tail -3 "$work/dpkg.log")"; fi
			[ -L "$wants" ] && ok || bad "after dpkg -r the enabled timer's link is gone: docs/install.md says it stays until dpkg -P"
			still=$(for f in $files; do [ -e "$f" ] && echo "$f"; done)
			[ -z "$still" ] && [ -n "$files" ] && ok || bad "after dpkg -r these files remain: $still"
			# removed: config-files, as for any package with a postrm (purge runs it again)
			pkg_status | grep -qxE 'not-installed|config-files' && ok ||
				bad "dpkg -r rdma-doctor: the package is $(pkg_status)"
			dpkgw --purge rdma-doctor && pkg_status | grep -qx 'not-installed' && ok ||
				bad "dpkg --purge rdma-doctor: $(tail -3 "$work/dpkg.log")"
			[ ! -e "$wants" ] && [ ! -L "$wants" ] && ok || { bad "after dpkg -P the timer's link $wants remains"; rm -f "$wants"; }
		else
			bad "dpkg -i $(basename "$deb"): $(tail -3 "$work/dpkg.log")"
		fi
	fi
fi

# ---- nothing left in TMPDIR ---------------------------------------------------------------------
debris=$(ls -A "$work/tmp")
[ -z "$debris" ] && ok || bad "left in TMPDIR by the tools: $debris"
ts_finalize
