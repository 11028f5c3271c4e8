#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The counter state of link.counters and link.flaps as the consumers of one host use it (the timer,
# Slurm, NPD, a manual check), on a copy of examples/h100-ofed whose counters are raised between
# runs: a state directory reached through a link, the ownership rule, a state directory that cannot
# be written (read-only, or not this user's), eight runs at once, two checks of different kinds at
# once, slurm --dry-run, the window, and the counter messages.
# Usage: tests/state/run.sh [BUILD_DIR]        Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=${1:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
bin=$build/rdma-doctor
cd "$top" || exit 1
export NO_COLOR=1
export PATH="$top/tests/cli/mock-bin:$PATH" # the mock scontrol (node mock-idle)
ts_init
ts_scratch state
chmod 755 "$work"

T0=1764460800 H=3600
R=$work/root
cp -a examples/h100-ofed "$R"
ld=$(find "$R/sys" -path '*/mlx5_0/ports/1/counters/link_downed')
se=${ld%/link_downed}/symbol_error
pci=${ld%/infiniband/mlx5_0/ports/1/counters/link_downed}
cc=$(find "$pci/net" -name carrier_changes | head -1)
[ -f "$ld" ] && [ -f "$se" ] && [ -f "$cc" ] || ts_die "the counters of mlx5_0 port 1 not found in $R"
ld0=$(cat "$ld") se0=$(cat "$se") cc0=$(cat "$cc")
healthy() { echo "$ld0" > "$ld"; echo "$se0" > "$se"; echo "$cc0" > "$cc"; }
at() { local t=$1; shift; SOURCE_DATE_EPOCH=$t "$bin" --root "$R" "$@"; }
line() { grep -E "^. [A-Z]+ +$1 " "$2"; }

# ---- a state directory reached through a link is read and written through one descriptor
mkdir "$work/a-real" && ln -s a-real "$work/a-link"
at $T0 check --only link.counters --state-dir "$work/a-link" > /dev/null 2>&1
[ -f "$work/a-real/gpu-node-017.link-state" ] && ok || bad "--state-dir through a link: no sample written ($(ls -A "$work/a-real"))"
echo $((ld0 + 1)) > "$ld"
at $((T0 + H)) check --only link.counters --state-dir "$work/a-link" > "$work/a.txt" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "link_downed rose from $ld0 to $((ld0 + 1))" "$work/a.txt" && ok ||
	bad "--state-dir through a link: the rise not seen (exit $rc): $(line link.counters "$work/a.txt")"
healthy

# ---- the ownership rule (ssh's StrictModes): refused, said so, a WARN that is never a FAIL
mkdir "$work/b1" "$work/b2" "$work/b3"
chown 65534:65534 "$work/b1"; chmod 0777 "$work/b2"
at $T0 check --only link.counters --state-dir "$work/b3" > /dev/null 2>&1; chown 65534:65534 "$work/b3/gpu-node-017.link-state"
for c in "b1:refused: owned by uid 65534" "b2:refused: writable by others (mode 0777)" "b3:gpu-node-017.link-state is refused: owned by uid 65534"; do
	d=${c%%:*} want=${c#*:}
	at $((T0 + H)) check --only link.counters --state-dir "$work/$d" > "$work/$d.txt" 2>&1; rc=$?
	[ $rc = 1 ] && grep -q -- "$want" "$work/$d.txt" && ! grep -q '^. FAIL' "$work/$d.txt" && ok ||
		bad "state directory $d: not refused as '$want' with a WARN (exit $rc): $(grep link.counters "$work/$d.txt")"
done
# a link of another user's as the directory: not followed
mkdir "$work/b4"; ln -s b4 "$work/b4-link"; chown -h 65534:65534 "$work/b4-link"
at $((T0 + H)) check --only link.counters --state-dir "$work/b4-link" > "$work/b4.txt" 2>&1; rc=$?
[ $rc = 1 ] && grep -q 'b4-link is refused: a symbolic link owned by uid 65534' "$work/b4.txt" && [ -z "$(ls -A "$work/b4")" ] && ok ||
	bad "a state directory through another user's link (exit $rc): $(grep link.counters "$work/b4.txt")"
[ ! -e "$work/b1/gpu-node-017.link-state" ] && [ ! -e "$work/b2/gpu-node-017.link-state" ] && ok ||
	bad "a sample was written in a refused directory"

# ---- a state directory that cannot be written: a WARN with the reason and the unit's fix, never a
# FAIL; an old sample never makes an old rise look new
mkdir "$work/c"
at $T0 check --state-dir "$work/c" > /dev/null 2>&1
echo $((ld0 + 1)) > "$ld"
if unshare -m true 2> /dev/null; then
	ro() { unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"' sh "$work/c" "$@"; }
	for i in 1 2; do # three days later, twice: the rise is not within the window, and stays old
		ro env SOURCE_DATE_EPOCH=$((T0 + 3 * 86400)) "$bin" --root "$R" check --state-dir "$work/c" > "$work/c.txt" 2>&1; rc=$?
		[ $rc = 1 ] && ! grep -q '^. FAIL' "$work/c.txt" &&
			grep -q 'the counter sample cannot be kept.*Read-only file system' "$work/c.txt" &&
			grep -q 'StateDirectory=rdma-doctor' "$work/c.txt" && grep -q 'is older than 2h 0m, twice the \[counters\] window' "$work/c.txt" && ok ||
			bad "read-only state directory, a sample of 3 days ago (run $i, exit $rc): $(grep link.counters "$work/c.txt")"
	done
	# half an hour after the sample the rise is real and within the window: a FAIL, and the WARN
	ro env SOURCE_DATE_EPOCH=$((T0 + 1800)) "$bin" --root "$R" check --state-dir "$work/c" > "$work/c2.txt" 2>&1; rc=$?
	[ $rc = 2 ] && grep -q 'link_downed rose' "$work/c2.txt" && grep -q 'cannot be kept' "$work/c2.txt" && ok ||
		bad "read-only state directory, a rise within the window (exit $rc): $(grep link.counters "$work/c2.txt")"
	# slurm --drain-on warn on a healthy host whose sample cannot be kept: no drain
	healthy
	ro env SOURCE_DATE_EPOCH=$((T0 + 1800)) "$bin" --root "$R" slurm --drain-on warn --node mock-idle --state-dir "$work/c" > "$work/c3.txt" 2>&1; rc=$?
	[ $rc = 0 ] && grep -q "nothing to do" "$work/c3.txt" && grep -q "never drains)$" "$work/c3.txt" && ! grep -q "drain$" "$work/c3.txt" && ok ||
		bad "slurm --drain-on warn drains for a sample it cannot keep (exit $rc): $(cat "$work/c3.txt")"
else
	echo "SKIP read-only state directory: unshare -m is not permitted here"
fi
healthy
# not this user's directory (given with --state-dir): the same WARN, with the reason
if command -v setpriv > /dev/null; then
	mkdir "$work/c4"
	at $T0 check --only link.counters --state-dir "$work/c4" > /dev/null 2>&1
	SOURCE_DATE_EPOCH=$((T0 + H)) setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" --root "$R" check --only link.counters \
		--state-dir "$work/c4" > "$work/c4.txt" 2>&1; rc=$?
	[ $rc = 1 ] && grep -qE '^. WARN +link.counters +the counter sample cannot be kept.*Permission denied' "$work/c4.txt" &&
		grep -q 'no error counter rose in 1h 0m' "$work/c4.txt" && ok ||
		bad "a state directory this user cannot write (exit $rc): $(grep link.counters "$work/c4.txt")"
fi

# ---- eight runs at once, four times: never EBUSY, never a drain of a healthy host
mkdir "$work/d"
at $T0 check --state-dir "$work/d" > /dev/null 2>&1
for round in 1 2 3 4; do
	for i in 1 2 3 4 5 6 7 8; do
		at $((T0 + round * 60)) slurm --drain-on warn --node mock-idle --state-dir "$work/d" > "$work/d.$round.$i" 2>&1 &
	done
	wait
done
n_ok=$(grep -l 'nothing to do' "$work"/d.*.* | wc -l)
[ "$n_ok" = 32 ] && ! grep -qiE 'busy|cannot be kept|drain$' "$work"/d.*.* && ok ||
	bad "32 concurrent slurm --drain-on warn runs: $n_ok did nothing; $(grep -hiE 'busy|cannot be kept|drain' "$work"/d.*.* | sort | uniq -c | head -3)"

# ---- a lock held past the wait (half of --timeout here): a WARN that names it, and the run still
# compares with what the file holds
if command -v flock > /dev/null; then
	flock -x "$work/d/gpu-node-017.link-state.lock" sleep 5 &
	holder=$!
	sleep 0.5
	SOURCE_DATE_EPOCH=$((T0 + H)) "$bin" --root "$R" --timeout 2 check --only link.counters --state-dir "$work/d" > "$work/d-lock.txt" 2>&1; rc=$?
	kill "$holder" 2> /dev/null; wait "$holder" 2> /dev/null
	[ $rc = 1 ] && grep -qE '^. WARN +link.counters +the counter sample cannot be kept.*another run held the lock for more than 1 s' "$work/d-lock.txt" &&
		grep -q 'no error counter rose in' "$work/d-lock.txt" && ok ||
		bad "a lock held by another run (exit $rc): $(grep link.counters "$work/d-lock.txt")"
fi

# ---- a link.counters run and a link.flaps run at once (each read of the state file slowed to 300
# ms): neither puts back the other's old sample, so the rise they both saw does not come back
shim=$build/tests/libfaults.so
[ -f "$shim" ] || { shim=$work/libfaults.so; cc -std=c11 -D_GNU_SOURCE -O1 -shared -fPIC -o "$shim" "$top/tests/shim/faults.c" -ldl; }
export ASAN_OPTIONS=verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} # the shim comes first
mkdir "$work/e"
at $T0 check --state-dir "$work/e" > /dev/null 2>&1
echo $((ld0 + 1)) > "$ld"; echo $((cc0 + 5)) > "$cc"
for k in counters flaps; do
	LD_PRELOAD=$shim RD_FAULT_SLOW="link-state:300" SOURCE_DATE_EPOCH=$((T0 + H)) "$bin" --root "$R" check --only link.$k \
		--state-dir "$work/e" > "$work/e.$k" 2>&1 &
done
wait
grep -q 'link_downed rose' "$work/e.counters" && grep -q 'changed carrier 5 times' "$work/e.flaps" && ok ||
	bad "the concurrent runs did not see the rises: $(grep -h 'link\.' "$work"/e.counters "$work"/e.flaps)"
at $((T0 + 2 * H)) check --only link --state-dir "$work/e" > "$work/e.after" 2>&1; rc=$?
[ $rc = 0 ] && line link.counters "$work/e.after" | grep -q 'no error counter rose' &&
	line link.flaps "$work/e.after" | grep -q 'no carrier changes past 2' && ok ||
	bad "an hour after two concurrent runs, an old rise came back (exit $rc): $(grep -E 'link\.(counters|flaps)' "$work/e.after")"
healthy

# ---- slurm --dry-run writes nothing; every consumer in the window sees the same rise
mkdir "$work/f"
at $T0 check --state-dir "$work/f" > /dev/null 2>&1
cp "$work/f/gpu-node-017.link-state" "$work/f.before"
echo $((ld0 + 1)) > "$ld"
rm "$work/f/gpu-node-017.link-state.lock"
ls -l --time-style=+%s.%N "$work/f" > "$work/f.ls-before"
at $((T0 + 600)) slurm --dry-run --node mock-idle --state-dir "$work/f" > "$work/f1.txt" 2>&1
ls -l --time-style=+%s.%N "$work/f" > "$work/f.ls-after"
grep -q '^# mock-idle: Slurm State=IDLE: would drain' "$work/f1.txt" && cmp -s "$work/f.before" "$work/f/gpu-node-017.link-state" &&
	cmp -s "$work/f.ls-before" "$work/f.ls-after" && ok ||
	bad "slurm --dry-run: no 'would drain', or it changed the state file: $(cat "$work/f1.txt")"
at $((T0 + 660)) slurm --node mock-idle --state-dir "$work/f" > "$work/f2.txt" 2>&1
grep -q '^ran: scontrol update NodeName=mock-idle State=DRAIN' "$work/f2.txt" && ok ||
	bad "the real slurm run after a dry run does not drain for the rise: $(cat "$work/f2.txt")"
at $((T0 + 900)) check --state-dir "$work/f" > "$work/f3.txt" 2>&1; rc=$?
[ $rc = 2 ] && line link.counters "$work/f3.txt" | grep -q 'link_downed rose' && ok ||
	bad "a check after slurm, within the window, does not see the rise (exit $rc): $(line link.counters "$work/f3.txt")"
at $T0 slurm --dry-run --node mock-idle --state-dir "$work/f-none" > "$work/f0.txt" 2>&1
[ ! -e "$work/f-none" ] && grep -q 'nothing to do' "$work/f0.txt" && ok ||
	bad "slurm --dry-run with no state directory made one, or judged otherwise: $(ls -A "$work/f-none" 2>&1) $(cat "$work/f0.txt")"
printf '[counters]\nwindow = 3h\n' > "$work/f.conf"
at $((T0 + 2 * H)) check --state-dir "$work/f" --policy "$work/f.conf" > "$work/f4.txt" 2>&1; rc=$?
[ $rc = 2 ] && line link.counters "$work/f4.txt" | grep -q 'link_downed rose' && ok ||
	bad "[counters] window = 3h: the rise two hours ago is not seen (exit $rc): $(line link.counters "$work/f4.txt")"
at $((T0 + 900 + H)) check --state-dir "$work/f" > "$work/f5.txt" 2>&1; rc=$?
[ $rc = 0 ] && line link.counters "$work/f5.txt" | grep -q 'no error counter rose' && ok ||
	bad "past the window the rise is still reported (exit $rc): $(line link.counters "$work/f5.txt")"
healthy

# ---- counter messages: no rate over a few seconds; a rise within the budget is said
mkdir "$work/g1" "$work/g2"
at $T0 check --only link.counters --state-dir "$work/g1" > /dev/null 2>&1
echo $((se0 + 500)) > "$se"
at $T0 check --only link.counters --state-dir "$work/g1" > "$work/g1.txt" 2>&1
m=$(line link.counters "$work/g1.txt")
[[ $m == *"symbol_error rose by 500 in under 1s"*"too short for a rate"*"past the budget of 120 for 5 minutes"* ]] &&
	[[ $m != *"per hour), past"* ]] && ok || bad "a rise 0 s after the last sample: $m"
healthy
at $T0 check --only link.counters --state-dir "$work/g2" > /dev/null 2>&1
echo $((se0 + 500)) > "$se"
at $((T0 + H)) check --only link.counters --state-dir "$work/g2" > "$work/g2.txt" 2>&1; rc=$?
m=$(line link.counters "$work/g2.txt")
[ $rc = 0 ] && [[ $m == *"no error counter rose past its budget in 1h 0m"*"within its budget: mlx5_0 port 1 symbol_error +500 (budget 1440)"* ]] &&
	ok || bad "a rise of 500 within the budget (exit $rc): $m"
healthy

ts_finalize
