#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# RPM hosts: roots with real rpm databases (tests/rpm/make.sh: EL9 sqlite, EL8 Berkeley DB, a SUSE
# ndb that cannot be read, an unreadable and a hostile symlinked database) through the real
# librpm, checked against goldens (check and stack, text and JSON), and:
#   * nothing is written into a root (its listing is the same after every run), and a read-only
#     root (bind-mounted read-only in a mount namespace) gives the same answers;
#   * the private copy librpm reads is removed ($TMPDIR is empty afterwards), also after a read
#     of rpmdb.sqlite-wal that never returns; a sparse or too big database is not copied;
#   * a snapshot keeps the database files and gives the same answers;
#   * a dpkg host never loads librpm;
#   * a database reached through a link that leaves the root is not read.
# Usage: tests/rpm/run.sh [BUILD_DIR] [--update]     Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$top/build update=0
for a in "$@"; do case "$a" in --update) update=1 ;; *) build=$(cd "$a" && pwd) ;; esac; done
bin=$build/rdma-doctor
exp=$top/tests/rpm/expected
ts_scratch rpm
ts_init
for c in rpm rpmbuild db5.3_load sqlite3 jq strace unshare; do
	command -v $c > /dev/null || ts_die "$c is required (apt-get install rpm db5.3-util sqlite3 jq strace util-linux)"
done
"$top/tests/rpm/make.sh" "$work/roots" > "$work/make.log" 2>&1 || { cat "$work/make.log"; echo "FAIL: make.sh"; echo "0 passed, 1 failed"; exit 1; }
export SOURCE_DATE_EPOCH=1764460800 NO_COLOR=1 TMPDIR=$work/tmp
mkdir -p "$TMPDIR" "$exp"
cd "$work/roots" || exit 1
scen=(el9-mlnx-ofed el9-inbox el9-doca-ofed el9-kmod-kernel-upgrade el9-rpmdb-unreadable el9-rpmdb-hostile-symlink el8-mlnx-ofed sles-ndb)
listing() { find "$1" -printf '%p %y %s %T@ %m\n' | sort; }
for s in "${scen[@]}"; do listing "$s" > "$work/$s.before"; done

golden() { # FILE NAME
	[ $update = 1 ] && cp "$1" "$exp/$2"
	if cmp -s "$1" "$exp/$2"; then ok; else bad "$2 differs from the golden"; diff "$exp/$2" "$1" | head -10; fi
}
for s in "${scen[@]}"; do
	"$bin" --root "$s" check > "$work/$s.check.txt" 2> "$work/$s.err"; rc=$?
	"$bin" --root "$s" check --format json > "$work/$s.check.json" 2>> "$work/$s.err"
	"$bin" --root "$s" stack > "$work/$s.stack.txt" 2>> "$work/$s.err"
	"$bin" --root "$s" stack --format json > "$work/$s.stack.json" 2>> "$work/$s.err"
	for k in check.txt check.json stack.txt stack.json; do golden "$work/$s.$k" "$s.$k"; done
	if [ -s "$work/$s.err" ]; then bad "$s: stderr: $(head -2 "$work/$s.err")"; else ok; fi
	if [ "$(jq -r .summary.exit_code "$work/$s.check.json")" = "$rc" ]; then ok; else bad "$s: exit $rc differs from summary.exit_code"; fi
	if jq -e '.stack.rpm.database | type == "string"' "$work/$s.check.json" > /dev/null &&
		jq -e '.stack.rpm.packages | type == "array"' "$work/$s.stack.json" > /dev/null; then ok; else bad "$s: no stack.rpm in the JSON"; fi
done

# what each root must say (the goldens hold the whole output)
want() { # ROOT CHECK STATUS
	local got; got=$(jq -r --arg c "$2" '[.findings[] | select(.check == $c) | .status] | join(",")' "$work/$1.check.json")
	if [ "$got" = "$3" ]; then ok; else bad "$1: $2 is $got, expected $3"; fi
}
inst() { # ROOT INSTALLED
	local got; got=$(jq -r .stack.installed "$work/$1.check.json")
	if [ "$got" = "$2" ]; then ok; else bad "$1: stack.installed is $got, expected $2"; fi
}
inst el9-mlnx-ofed MLNX_OFED; want el9-mlnx-ofed stack.flavor OK; want el9-mlnx-ofed stack.dkms OK
inst el9-inbox inbox; want el9-inbox stack.flavor OK
inst el9-doca-ofed DOCA-OFED
inst el8-mlnx-ofed MLNX_OFED; want el8-mlnx-ofed stack.dkms OK
inst el9-kmod-kernel-upgrade MLNX_OFED; want el9-kmod-kernel-upgrade stack.dkms FAIL; want el9-kmod-kernel-upgrade stack.mixed FAIL
for s in el9-rpmdb-unreadable el9-rpmdb-hostile-symlink sles-ndb; do
	inst $s unknown; want $s stack.flavor UNKNOWN
	if jq -e '[.findings[] | select(.status == "FAIL")] | length == 0' "$work/$s.check.json" > /dev/null; then ok; else bad "$s: an unreadable database gave a FAIL"; fi
done
grep -q 'rpmdb.sqlite cannot be read' "$work/el9-rpmdb-unreadable.stack.txt" && ok || bad "unreadable: the file is not named"
grep -q 'Packages.db cannot be read' "$work/sles-ndb.stack.txt" && ok || bad "ndb: the file is not named"
if grep -q mlnx "$work/el9-rpmdb-hostile-symlink.stack.json"; then bad "hostile: the database outside the root was read"; else ok; fi
# the same with a relative link climbing out of the root, to the decoy's database file
R=el9-rpmdb-hostile-file; cp -a el9-inbox "$R"; rm -f "$R"/var/lib/rpm/*
ln -s "../../../../../../../../..$work/roots/decoy/var/lib/rpm/rpmdb.sqlite" "$R/var/lib/rpm/rpmdb.sqlite"
out=$("$bin" --root "$R" stack 2>&1)
if grep -q mlnx <<< "$out" || ! grep -q 'rpmdb.sqlite cannot be read: No such file' <<< "$out"; then bad "hostile file link: $(head -6 <<< "$out")"; else ok; fi

# a read of rpmdb.sqlite-wal that never returns (the fault shim; the watchdog answers "timed out"
# and the run goes on): the report comes out, and nothing is left in TMPDIR, as every file is read
# before the private copy is made
shim=$build/tests/libfaults.so
[ -f "$shim" ] || cc -std=c11 -D_GNU_SOURCE -O1 -shared -fPIC -o "$shim" "$top/tests/shim/faults.c"
ASAN_OPTIONS=verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} LD_PRELOAD=$shim RD_FAULT_SLOW="rpmdb.sqlite-wal:60000" \
	timeout 60 "$bin" --root el9-mlnx-ofed stack > "$work/wedged.txt" 2> "$work/wedged.err"; rc=$?
[ $rc = 0 ] && grep -q '^RPM db: .*rpmdb.sqlite' "$work/wedged.txt" && [ -z "$(ls -A "$TMPDIR")" ] && ok ||
	bad "wedged rpmdb.sqlite-wal: exit $rc, $(grep 'RPM db' "$work/wedged.txt"), left in TMPDIR: $(ls -A "$TMPDIR")"
# a sparse database (250 MiB long, nothing on disk) is not copied: it would cost its length in
# memory and TMPDIR; the reason says so, and no private directory is made
R=el9-rpmdb-sparse; cp -a el9-inbox "$R"; truncate -s 250M "$R/var/lib/rpm/rpmdb.sqlite-wal"
strace -f -qq -e trace=mkdir,mkdirat -o "$work/sparse.strace" "$bin" --root "$R" stack > "$work/sparse.txt" 2>&1
grep -q 'rpmdb.sqlite cannot be read: rpmdb.sqlite-wal is sparse (250 MiB of it is not on disk' "$work/sparse.txt" &&
	! grep -q rdma-doctor-rpmdb "$work/sparse.strace" && ok ||
	bad "sparse rpmdb: $(grep 'RPM db' "$work/sparse.txt"); $(grep -c rdma-doctor-rpmdb "$work/sparse.strace") private directories made"
# too long with its blocks allocated: refused too, naming the bound
R=el9-rpmdb-big; cp -a el9-inbox "$R"; fallocate -l 300M "$R/var/lib/rpm/rpmdb.sqlite-wal"
"$bin" --root "$R" stack > "$work/big.txt" 2>&1
grep -q 'rpmdb.sqlite cannot be read: too big to copy for librpm (30[01] MiB long, 30[01] MiB allocated with its companion files; at most 256 MiB)' \
	"$work/big.txt" && ok || bad "big rpmdb: $(grep 'RPM db' "$work/big.txt")"
rm -rf el9-rpmdb-sparse el9-rpmdb-big

# nothing written into the roots, nothing left in TMPDIR
for s in "${scen[@]}"; do
	listing "$s" > "$work/$s.after"
	if cmp -s "$work/$s.before" "$work/$s.after"; then ok; else bad "$s: the root changed"; diff "$work/$s.before" "$work/$s.after" | head -5; fi
done
if [ -z "$(ls -A "$TMPDIR")" ]; then ok; else bad "private copies left in TMPDIR: $(ls "$TMPDIR" | head -3)"; fi

# a read-only root: the same answers
for s in el9-mlnx-ofed el8-mlnx-ofed; do
	if unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && touch "$1/probe" 2>/dev/null && exit 9; "$2" --root "$1" check' sh "$s" "$bin" > "$work/$s.ro.txt" 2> "$work/$s.ro.err"; [ $? != 9 ]; then
		if cmp -s "$work/$s.ro.txt" "$exp/$s.check.txt"; then ok; else bad "$s: read-only root differs"; diff "$exp/$s.check.txt" "$work/$s.ro.txt" | head -5; cat "$work/$s.ro.err" | head -3; fi
	else
		bad "$s: the read-only bind mount was writable"
	fi
done

# a snapshot keeps the database files and answers the same
for s in el9-mlnx-ofed el8-mlnx-ofed; do
	"$bin" --root "$s" snapshot -o "$work/$s.tar.gz" > /dev/null 2> "$work/$s.snap.err" || bad "$s: snapshot failed: $(head -2 "$work/$s.snap.err")"
	files=$(tar -tzf "$work/$s.tar.gz")
	for f in $( [ $s = el8-mlnx-ofed ] && echo Packages || echo rpmdb.sqlite rpmdb.sqlite-wal rpmdb.sqlite-shm); do
		if grep -qx "var/lib/rpm/$f" <<< "$files"; then ok; else bad "$s: the snapshot lacks var/lib/rpm/$f"; fi
	done
	grep -qx etc/os-release <<< "$files" && ok || bad "$s: the snapshot lacks etc/os-release"
	"$bin" --root "$work/$s.tar.gz" stack --format json | jq 'del(.root)' > "$work/$s.snap.json"
	jq 'del(.root)' "$work/$s.stack.json" > "$work/$s.dir.json"
	if cmp -s "$work/$s.snap.json" "$work/$s.dir.json"; then ok; else bad "$s: the snapshot answers differently"; diff "$work/$s.dir.json" "$work/$s.snap.json" | head -5; fi
done

# a dpkg host never loads librpm (nor forks for it); an rpm host loads it only in the child
"$top/tests/scenarios/make.sh" "$work/dpkg" healthy-mlnx-ofed > /dev/null
strace -f -qq -e trace=openat -o "$work/dpkg.strace" "$bin" --root "$work/dpkg/healthy-mlnx-ofed" check > /dev/null 2>&1
if grep -q 'librpm' "$work/dpkg.strace"; then bad "a dpkg host loaded librpm"; else ok; fi
strace -f -qq -e trace=openat -o "$work/rpm.strace" "$bin" --root el9-inbox check > /dev/null 2>&1
main_pid=$(head -1 "$work/rpm.strace" | cut -d' ' -f1)
if grep 'librpm\.so' "$work/rpm.strace" | grep -v ENOENT | grep -q .; then
	if grep 'librpm\.so' "$work/rpm.strace" | grep -q "^$main_pid "; then bad "librpm was loaded into the main process"; else ok; fi
else
	bad "an rpm host did not load librpm"
fi
# librpm reads no rpm configuration of the host (rpmrc, macros, /etc/rpm, ~/.rpmmacros)
if grep -E '/usr/lib/rpm/|/etc/rpm|rpmmacros|rpmrc' "$work/rpm.strace" | grep -q .; then
	bad "librpm read the host's rpm configuration: $(grep -E '/usr/lib/rpm/|/etc/rpm|rpmmacros|rpmrc' "$work/rpm.strace" | head -2)"
else ok; fi

ts_finalize
