#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Tests of `fix modules` on roots: for each case, the dry run (diffs), the files after --apply
# (goldens in tests/fix/expected/), that `check` then finds modules.persistent and
# modules.peermem_order OK, that a second --apply changes nothing (byte-identical files), that
# a file with NUL bytes is refused unchanged, that a crash at every step of a write leaves each
# file either old or new, never partial or missing, and that a link swapped in while the fix runs
# is neither written through nor replaced.  Usage: tests/fix/run.sh [BUILD_DIR] [--update]      Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$top/build update=0
for a in "$@"; do case "$a" in --update) update=1 ;; *) build=$(cd "$a" && pwd) ;; esac; done
bin=$build/rdma-doctor
exp=$top/tests/fix/expected
ts_scratch fix
chmod 0755 "$work" # the unwritable-dir case runs as nobody, who must still read the root
ts_init
. "$top/tools/rootlib.sh"
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1
NINE="mlx5_core mlx5_ib ib_core ib_uverbs ib_cm rdma_cm rdma_ucm ib_umad ib_ipoib"

# every case starts from the healthy inbox host of the scenarios, with modules-load.d replaced
make_case() { # NAME: builds $work/NAME, sets R
	R=$work/$1
	"$top/tests/scenarios/make.sh" "$work/.base" healthy-inbox > /dev/null
	rm -rf "$R"; mv "$work/.base/healthy-inbox" "$R"
	rm -rf "$R/etc/modules-load.d"
	case "$1" in
	empty-dir) mkdir -p "$R/etc/modules-load.d" ;;
	no-dir) ;;
	partial-with-comments)
		raw etc/modules-load.d/rdma.conf '# site RDMA modules (kept by hand)\nmlx5_core\n\n# the IB core\nib_core\n; an old-style comment\nib_uverbs' ;;
	split-across-dirs)
		attr etc/modules-load.d/mlx.conf "$(printf 'mlx5_core\nmlx5_ib')"
		attr usr/lib/modules-load.d/ib.conf "$(printf 'ib_core\nib_uverbs')"
		attr run/modules-load.d/cm.conf "$(printf 'ib_cm\nrdma_cm')"
		attr etc/modules-load.d/zz-nvidia-peermem.conf nvidia_peermem ;;
	etc-overrides-usr-lib)
		attr usr/lib/modules-load.d/rdma.conf "$(printf '%s\n' $NINE)"
		attr etc/modules-load.d/rdma.conf "$(printf '# local: only the driver\nmlx5_core')" ;;
	usr-lib-only)
		attr usr/lib/modules-load.d/rdma.conf "$(printf '# from the package\nib_core\nib_uverbs\nrdma_ucm\nib_iser')" ;;
	peermem-in-0-nvidia)
		attr etc/modules-load.d/0-nvidia.conf "$(printf '# GPU modules\nnvidia\nnvidia_peermem\nnvidia_uvm')"
		attr etc/modules-load.d/rdma.conf "$(printf '%s\n' $NINE)" ;;
	peermem-in-usr-lib)
		attr usr/lib/modules-load.d/0-nvidia.conf "$(printf 'nvidia_peermem')"
		attr etc/modules-load.d/rdma.conf "$(printf '%s\n' $NINE)" ;;
	symlinked-rdma-conf)
		mkdir -p "$R/opt/site"; printf 'mlx5_core\n' > "$R/opt/site/rdma.conf"
		lnk etc/modules-load.d/rdma.conf /opt/site/rdma.conf ;;
	dir-is-a-file)
		mkdir -p "$R/etc"; printf 'not a directory\n' > "$R/etc/modules-load.d" ;;
	unparseable-rdma-conf)
		raw etc/modules-load.d/rdma.conf 'mlx5_core\nib_core; rm -rf /\n\\x01\\x02 binary junk\n' ;;
	unwritable-dir)
		raw etc/modules-load.d/rdma.conf 'mlx5_core\n'; chmod 0555 "$R/etc/modules-load.d" ;;
	mode-and-owner)
		raw etc/modules-load.d/rdma.conf 'mlx5_core\nmlx5_ib\n'
		chmod 0600 "$R/etc/modules-load.d/rdma.conf"; chown 65534:65534 "$R/etc/modules-load.d/rdma.conf" ;;
	comment-after-module) # systemd takes "ib_ipoib   # storage" whole as one module name: loads nothing
		attr usr/lib/modules-load.d/rdma.conf "$(printf '%s\n' mlx5_core mlx5_ib ib_core ib_uverbs ib_cm rdma_cm rdma_ucm ib_umad 'ib_ipoib   # storage')" ;;
	nul-bytes) # everything after the NUL would be lost by a C-string edit
		raw etc/modules-load.d/rdma.conf 'mlx5_core\n\0ib_core\nib_uverbs\n# kept\n' ;;
	only-nuls)
		raw etc/modules-load.d/rdma.conf '\0\0\0\0\0\0\0\0' ;;
	esac
}
dump() { # the modules-load.d files of a root, as text
	for d in etc/modules-load.d run/modules-load.d usr/lib/modules-load.d; do
		[ -d "$1/$d" ] || continue
		for f in $(cd "$1/$d" && LC_ALL=C ls -A); do
			if [ -L "$1/$d/$f" ]; then echo "== /$d/$f -> $(readlink "$1/$d/$f")"
			else echo "== /$d/$f ($(stat -c '%a %U' "$1/$d/$f"))"; cat -v "$1/$d/$f"; fi
		done
	done
}
as_user() { if [ "$1" = unwritable-dir ]; then shift; setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else shift; "$@"; fi; }

cases="empty-dir no-dir partial-with-comments split-across-dirs etc-overrides-usr-lib usr-lib-only peermem-in-0-nvidia
	peermem-in-usr-lib symlinked-rdma-conf dir-is-a-file unparseable-rdma-conf unwritable-dir mode-and-owner
	comment-after-module nul-bytes only-nuls"
for c in $cases; do
	make_case "$c"
	before=$(dump "$R")
	{
		echo "### rdma-doctor fix modules"
		(cd "$work" && as_user "$c" "$bin" --root "$c" fix modules 2>&1); echo "--- exit $?"
		echo "### files unchanged by the dry run: $([ "$(dump "$R")" = "$before" ] && echo yes || echo NO)"
		echo "### rdma-doctor fix modules --apply"
		(cd "$work" && as_user "$c" "$bin" --root "$c" fix modules --apply 2>&1); echo "--- exit $?"
		echo "### modules-load.d afterwards"
		dump "$R"
	} > "$work/$c.out"
	[ $update = 1 ] && cp "$work/$c.out" "$exp/$c.txt"
	if cmp -s "$work/$c.out" "$exp/$c.txt"; then ok; else bad "$c: differs from the golden"; diff "$exp/$c.txt" "$work/$c.out" | head -20; fi
	grep -q "files unchanged by the dry run: yes" "$work/$c.out" && ok || bad "$c: the dry run changed files"
	case "$c" in
	symlinked-rdma-conf|dir-is-a-file|unparseable-rdma-conf|unwritable-dir|nul-bytes|only-nuls)
		# refused: nothing changed, a clear reason, a failing exit status
		[ "$(dump "$R")" = "$before" ] && ok || bad "$c: files changed although the fix was refused"
		grep -q -- "--- exit 1" "$work/$c.out" && ok || bad "$c: refusal did not exit 1"
		case "$c" in nul-bytes|only-nuls) # byte for byte, and the error names the file
			cmp -s "$R/etc/modules-load.d/rdma.conf" <(printf '%b' "$([ $c = nul-bytes ] && echo 'mlx5_core\n\0ib_core\nib_uverbs\n# kept\n' || echo '\0\0\0\0\0\0\0\0')") &&
				ok || bad "$c: the file changed"
			grep -q "fix: /etc/modules-load.d/rdma.conf: holds NUL bytes" "$work/$c.out" && ok || bad "$c: no error naming the file" ;;
		esac
		;;
	*)
		out=$("$bin" --root "$R" check --only modules.persistent,modules.peermem_order --format json)
		echo "$out" | jq -en 'input | all(.findings[]; .status == "OK" or .status == "SKIP") and any(.findings[]; .check == "modules.persistent" and .status == "OK")' > /dev/null &&
			ok || bad "$c: check after the fix is not OK: $(echo "$out" | jq -c '[.findings[] | {check, status}]')"
		# idempotence: a second run changes nothing and says so
		snap=$(cd "$R" && find etc usr run -path '*modules-load.d*' -type f -exec sha256sum {} + 2>/dev/null | sort)
		second=$("$bin" --root "$R" fix modules --apply 2>&1)
		[ "$snap" = "$(cd "$R" && find etc usr run -path '*modules-load.d*' -type f -exec sha256sum {} + 2>/dev/null | sort)" ] &&
			grep -q "^nothing to change" <<< "$second" && ok || bad "$c: second --apply was not a no-op: $second"
		;;
	esac
done

# A second --apply on a root whose modules are not all loaded: the files are done, and it says so
# before the modprobe lines it cannot run on a root
cp -a "$top/examples/mixed-states" "$work/second-apply"
"$bin" --root "$work/second-apply" fix modules --apply > /dev/null 2>&1
# the default set follows the devices found: the nine, plus mlx4_ib for mlx4_0 and irdma for irdma0
[ "$(grep -v '^#' "$work/second-apply/etc/modules-load.d/rdma.conf" | tr '\n' ' ')" = "$NINE irdma mlx4_ib " ] && ok ||
	bad "mixed-states: rdma.conf is not the nine plus irdma and mlx4_ib: $(cat "$work/second-apply/etc/modules-load.d/rdma.conf")"
"$bin" --root "$work/second-apply" check --only modules.persistent --format json |
	jq -e '[.findings[] | .status] == ["OK"]' > /dev/null && ok || bad "mixed-states: modules.persistent not OK after the fix"
second=$("$bin" --root "$work/second-apply" fix modules --apply 2>&1)
grep -q "^nothing to change in modules-load.d: the 11 modules of the policy are listed there" <<< "$second" &&
	grep -q "^  modprobe ib_cm$" <<< "$second" && ok || bad "second --apply with modules to load: $second"
# a root that this user cannot write: the error names the directory in the root, not the host's
mkdir -p "$work/ro-root" && cp -a "$top/examples/mixed-states/." "$work/ro-root/" && chmod -R a+rX "$work/ro-root"
err=$(cd "$work" && setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" --root ro-root/ fix modules --apply 2>&1 > /dev/null)
[ "$err" = "rdma-doctor: fix: not written: cannot create directory ro-root/etc/modules-load.d: Permission denied" ] && ok ||
	bad "unwritable root: $err"

# Crash safety: kill the process at every step of the write sequence; each file is then old or
# new (never partial or missing), and a later run completes the fix.  The crash is injected from
# outside the product: an LD_PRELOAD shim (tests/fix/crash.c) _exits at the n-th file-changing call.
cc -O2 -shared -fPIC -o "$work/crash.so" "$top/tests/fix/crash.c" -ldl || bad "cannot build the crash shim"
cc -O2 -o "$work/swap" "$top/tests/fix/swap.c" || bad "cannot build the swap helper"
preload() { # the shim first, as an ASan build wants its runtime first otherwise
	LD_PRELOAD="$work/crash.so${LD_PRELOAD:+:$LD_PRELOAD}" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
make_case partial-with-comments; mv "$R" "$work/crash-base"
cp -a "$work/crash-base" "$work/crash-ref"
"$bin" --root "$work/crash-ref" fix modules --apply > /dev/null 2>&1
old=$(cat "$work/crash-base/etc/modules-load.d/rdma.conf"); new=$(cat "$work/crash-ref/etc/modules-load.d/rdma.conf")
steps=0
for n in $(seq 1 40); do
	rm -rf "$work/crash"; cp -a "$work/crash-base" "$work/crash"
	RD_CRASH_AT=$n preload "$bin" --root "$work/crash" fix modules --apply > /dev/null 2>&1
	rc=$?
	f=$work/crash/etc/modules-load.d/rdma.conf
	if [ ! -f "$f" ]; then bad "crash at step $n: rdma.conf missing"; continue; fi
	got=$(cat "$f")
	if [ "$got" != "$old" ] && [ "$got" != "$new" ]; then bad "crash at step $n: rdma.conf is partial"; continue; fi
	[ $rc = 99 ] && steps=$n
	"$bin" --root "$work/crash" fix modules --apply > /dev/null 2>&1
	[ "$(cat "$f")" = "$new" ] && ok || bad "crash at step $n: a later run did not complete the fix"
	[ $rc != 99 ] && break
done
[ "$steps" -ge 7 ] && ok || bad "crash injection reached only $steps steps"
echo "crash injection: $steps steps of the write sequence interrupted"
# the product has no crash switch of its own
grep -q RD_FAULT_AT "$bin" && bad "the binary still reads RD_FAULT_AT" || ok

# The write path as system calls (strace, when installed): the directory reached one component at
# a time with O_PATH|O_NOFOLLOW, an existing file replaced by RENAME_EXCHANGE, a new one created by
# RENAME_NOREPLACE.
if command -v strace > /dev/null; then
	for c in partial-with-comments empty-dir; do
		make_case $c
		strace -f -e trace=openat,renameat,renameat2 -o "$work/strace.log" "$bin" --root "$R" fix modules --apply > /dev/null 2>&1
		walk=$(sed -n '/O_PATH|O_DIRECTORY) = /,/O_CREAT/p' "$work/strace.log")
		flag=$([ $c = empty-dir ] && echo RENAME_NOREPLACE || echo RENAME_EXCHANGE)
		if grep -q 'openat([0-9]*, "etc", [^)]*O_NOFOLLOW[^)]*O_PATH' <<< "$walk" &&
			grep -q 'openat([0-9]*, "modules-load.d", [^)]*O_NOFOLLOW[^)]*O_PATH' <<< "$walk" &&
			! grep -q 'openat([0-9]*, "[^"]*/' <<< "$walk" && grep -q "renameat2(.*\"rdma.conf\", $flag)" "$work/strace.log" &&
			! grep -q '^[0-9]* renameat(' "$work/strace.log"; then ok
		else bad "$c: the write path is not a per-component O_PATH walk with renameat2 $flag: $(grep -E 'O_PATH|rename' "$work/strace.log" | head -5)"; fi
	done
fi

# Races: while a helper swaps rdma.conf with a link to a file outside the root (and, separately,
# the modules-load.d directory with a link to a directory outside), `fix modules --apply` runs
# again and again.  Nothing outside may be written, and no link may be replaced (the fix either
# wrote the real file or refused).
RACE_N=${RACE_N:-40}
mkdir -p "$work/outside/dir"; printf 'outside\n' > "$work/outside/target.conf"
race_base=$work/race-base; make_case partial-with-comments; mv "$R" "$race_base"
race_hit=0
for kind in file dir; do
	for i in $(seq 1 "$RACE_N"); do
		rm -rf "$work/race"; cp -a "$race_base" "$work/race"
		d=$work/race/etc/modules-load.d
		if [ $kind = file ]; then ln -s "$work/outside/target.conf" "$d/.swap"; a=$d/rdma.conf b=$d/.swap
		else ln -s "$work/outside/dir" "$work/race/etc/.swap"; a=$d b=$work/race/etc/.swap; fi
		"$work/swap" "$a" "$b" & sp=$!
		"$bin" --root "$work/race" fix modules --apply > "$work/race.out" 2>&1
		kill $sp; wait $sp 2> /dev/null
		grep -q "was replaced while\|appeared while\|symbolic link" "$work/race.out" && race_hit=$((race_hit + 1))
		if [ "$(cat "$work/outside/target.conf")" != outside ] || [ -n "$(ls -A "$work/outside/dir")" ]; then
			bad "race ($kind) $i: a file outside the root was written"; break
		fi
		links=$(find "$work/race/etc" -type l | wc -l)
		if [ "$links" != 1 ]; then bad "race ($kind) $i: $links links left in the root, not 1 (a link was replaced)"; break; fi
		[ $i = "$RACE_N" ] && ok
	done
done
echo "races: $RACE_N runs each against a swapped file and a swapped directory, $race_hit met the swap and refused"

ts_finalize
