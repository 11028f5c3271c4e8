#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `rdma-doctor watch` on this machine's kernel, in a network namespace of its own (unshare -n, a
# veth pair; the host's interfaces are never touched), reading a copy of examples/h100-ofed
# (--root): started, it tells systemd READY=1 and WATCHDOG=1 (a receiver on an abstract
# NOTIFY_SOCKET); a netdev's link change rewrites the textfile (a new inode: renamed over it)
# within a second and a line names the event; a port going down in the root is a change line; a
# new netdev (a device event) re-runs every check; SIGHUP re-reads a changed policy; idle for 10 s
# it uses almost no CPU; 50 link flips, each timed from the command to the rename; SIGTERM ends it
# with 0 within a second, the textfile left whole.  --history-dir keeps the JSON report at the
# start and a change held back by its one-a-minute bound at the stop, the newest report as the host
# last stood.  Usage errors and an unreadable policy exit 3.
# Needs root (a network namespace) and python3 (the notify receiver, the timings).
# Usage: tests/watch/run.sh [BUILD_DIR]        Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=${1:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
bin=$build/rdma-doctor
cd "$top" || exit 1
export NO_COLOR=1
unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID SOURCE_DATE_EPOCH RDMA_DOCTOR_ROOT
ts_init
[ -x "$bin" ] || ts_die "no $bin (make first)"
[ "$(id -u)" = 0 ] || ts_die "needs root: a network namespace of its own (unshare -n)"
for t in unshare nsenter ip python3; do command -v "$t" > /dev/null || ts_die "missing: $t"; done
ts_scratch watch

ns= wpid= rpid=
stop_all() {
	for p in $wpid $rpid $ns; do kill -KILL "$p" 2> /dev/null; wait "$p" 2> /dev/null; done
	wpid= rpid= ns=
}
trap 'stop_all; ts_cleanup' EXIT

# the namespace, held by a sleeping process; a veth pair in it
unshare -n sleep 3600 &
ns=$!
inns() { nsenter -t "$ns" -n "$@"; }
for _ in $(seq 50); do inns ip link show lo > /dev/null 2>&1 && break; sleep 0.05; done
inns ip link add name rdw0 type veth peer name rdw0p && inns ip link set rdw0p up && inns ip link set rdw0 up ||
	ts_die "a veth pair in the namespace"

R=$work/root
cp -a examples/h100-ofed "$R"
state=$(readlink -f "$(find "$R/sys/class/infiniband/mlx5_0/ports/1/" -maxdepth 1 -name state)")
[ -f "$state" ] || ts_die "no mlx5_0 port 1 state in $R"
state0=$(cat "$state")
mkdir "$work/out"
prom=$work/out/rdma-doctor.prom
pol=$work/policy.conf
printf '[ports]\nmin_rate_ib = 100\n' > "$pol"

# the receiver of systemd's notifications, on an abstract socket of the namespace
cat > "$work/notify.py" << 'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + sys.argv[1][1:])
with open(sys.argv[2], "a") as f:
    print("bound", file=f, flush=True)
    while True:
        f.write(s.recv(4096).decode(errors="replace") + "\n")
        f.flush()
EOF
sock=@rd-watch-test-$$
nsenter -t "$ns" -n python3 "$work/notify.py" "$sock" "$work/notify.log" &
rpid=$!
for _ in $(seq 100); do grep -q bound "$work/notify.log" 2> /dev/null && break; sleep 0.05; done

waitfor() { # SECONDS FILE PATTERN: true once a line of FILE matches
	local i
	for ((i = 0; i < $1 * 50; i++)); do grep -qE -- "$3" "$2" 2> /dev/null && return 0; sleep 0.02; done
	grep -qE -- "$3" "$2" 2> /dev/null
}
ino() { stat -c %i "$prom" 2> /dev/null; }
# the textfile renamed over within MS milliseconds of the inode given
renamed_within() { # INODE MS
	local i
	for ((i = 0; i < $2 / 5; i++)); do [ "$(ino)" != "$1" ] && return 0; sleep 0.005; done
	return 1
}

hist=$work/hist
started=$(date +%s)
NOTIFY_SOCKET=$sock WATCHDOG_USEC=1000000 nsenter -t "$ns" -n "$bin" --root "$R" watch --policy "$pol" \
	--output "$prom" --history-dir "$hist" > "$work/w.out" 2> "$work/w.err" &
wpid=$!

# ---- started: READY=1 after the first judgement, the textfile written, the watchdog fed
waitfor 15 "$work/notify.log" '^READY=1$' && ok || bad "no READY=1 on NOTIFY_SOCKET in 15 s: $(cat "$work/notify.log" "$work/w.err")"
grep -q '^rdma_doctor_check_status{check="ports.state",subject="host"} 0$' "$prom" 2> /dev/null && ok ||
	bad "the textfile after the start has no OK ports.state: $(grep ports.state "$prom" 2>&1)"
grep -qE 'judged every check \(start\)' "$work/w.out" && ok || bad "no line for the first judgement: $(cat "$work/w.out")"
waitfor 3 "$work/notify.log" '^WATCHDOG=1$' && ok || bad "no WATCHDOG=1 within 3 s with WATCHDOG_USEC=1000000"
[ -z "$(ls -A "$work/out" | grep -vx rdma-doctor.prom)" ] && ok || bad "beside the textfile: $(ls -A "$work/out")"
[ "$(cd "$hist" 2> /dev/null && ls -A */ | grep -cE '^[0-9]+\.json$')" = 1 ] && ok ||
	bad "--history-dir: not one report after the start: $(ls -AR "$hist" 2>&1)"

# ---- a netdev's link change: the textfile renamed over within a second, a line naming it
sleep 0.5
i0=$(ino)
inns ip link set rdw0 down
renamed_within "$i0" 1000 && ok || bad "the textfile was not rewritten within 1 s of 'ip link set rdw0 down'"
waitfor 1 "$work/w.out" 'judged ports.state,link.flaps,roce \(netdev rdw0: down' && ok ||
	bad "no line naming the event 'netdev rdw0: down': $(tail -3 "$work/w.out")"

# ---- a port down in the root, then a link event: its change is one line, with the event
sleep 0.5
echo "1: DOWN" > "$state"
inns ip link set rdw0 up
# (a healthy ports.state has one OK finding about the host: the port's is new)
waitfor 2 "$work/w.out" '^[^ ]+ change ports.state mlx5_0 port 1: none -> FAIL \(netdev rdw0: ' && ok ||
	bad "no change line ports.state mlx5_0 port 1: none -> FAIL naming the netdev: $(grep change "$work/w.out" | tail -3)"
grep -q '^rdma_doctor_check_status{check="ports.state",subject="mlx5_0 port 1"} 2$' "$prom" && ok ||
	bad "the textfile does not show ports.state FAIL for mlx5_0 port 1: $(grep 'ports.state' "$prom")"
sleep 0.5
echo "$state0" > "$state"
inns ip link set rdw0 down
waitfor 2 "$work/w.out" 'change ports.state mlx5_0 port 1: FAIL -> none \(netdev rdw0: ' && ok ||
	bad "no change line back to OK: $(grep change "$work/w.out" | tail -3)"
inns ip link set rdw0 up

# ---- new netdevs are device events: every check
sleep 0.5
inns ip link add name rdw1 type veth peer name rdw1p
waitfor 2 "$work/w.out" 'judged every check \(netdev rdw1p?: add' && ok ||
	bad "adding a netdev did not re-run every check within 2 s: $(tail -3 "$work/w.out")"
inns ip link del rdw1

# ---- SIGHUP: the policy re-read (no other judgement runs ports.rate: the interval is 300 s)
sleep 1
printf '[ports]\nmin_rate_ib = 1600\n' > "$pol"
kill -HUP "$wpid"
waitfor 3 "$work/w.out" 'change ports.rate mlx5_[0-9]+ port 1: none -> (WARN|FAIL) \(SIGHUP: the policy re-read\)' && ok ||
	bad "SIGHUP with a policy asking 1600 Gb/s: no ports.rate change: $(tail -3 "$work/w.out")"

# ---- idle: 10 s with nothing happening costs under 0.05 s of CPU
sleep 1
cpu() { awk '{ print $14 + $15 }' "/proc/$wpid/stat"; }
judged0=$(grep -c ' judged ' "$work/w.out")
c0=$(cpu)
sleep 10
c1=$(cpu)
judged1=$(grep -c ' judged ' "$work/w.out")
hz=$(getconf CLK_TCK)
idle=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "%.3f", (b - a) / hz }')
echo "idle: ${idle} s of CPU in 10 s ($((judged1 - judged0)) judgements meanwhile)"
awk -v t="$idle" 'BEGIN { exit !(t < 0.05) }' && ok || bad "idle for 10 s: ${idle} s of CPU (not under 0.05 s)"

# ---- 50 link flips, each from the command to the rename; the next once the file is quiet
cat > "$work/flips.py" << 'EOF'
import os, subprocess, sys, time
ns, dev, prom, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def ino():
    try:
        return os.stat(prom).st_ino
    except FileNotFoundError:
        return None
def quiet(ms):
    last, since = ino(), time.monotonic()
    while time.monotonic() - since < ms / 1000:
        time.sleep(0.005)
        if ino() != last:
            last, since = ino(), time.monotonic()
lat, missed = [], 0
for i in range(n):
    quiet(400)
    before = ino()
    t0 = time.monotonic()
    subprocess.run(["nsenter", "-t", ns, "-n", "ip", "link", "set", dev, "down" if i % 2 == 0 else "up"], check=True)
    while ino() == before and time.monotonic() - t0 < 3:
        time.sleep(0.001)
    if ino() == before:
        missed += 1
    else:
        lat.append((time.monotonic() - t0) * 1000)
lat.sort()
if lat:
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
    print("%d %.0f %.0f %.0f %d" % (len(lat), lat[len(lat) // 2], p99, lat[-1], missed))
else:
    print("0 0 0 0 %d" % missed)
EOF
read -r nlat med p99 max missed < <(python3 "$work/flips.py" "$ns" rdw0 "$prom" 50)
echo "detection latency over 50 link flips: median ${med} ms, p99 ${p99} ms, max ${max} ms ($missed missed)"
[ "$nlat" = 50 ] && [ "$missed" = 0 ] && ok || bad "of 50 link flips, $missed were not followed by a rewrite within 3 s"
[ "${p99:-9999}" -le 1000 ] && ok || bad "detection latency p99 ${p99} ms is over 1 s"

# ---- SIGTERM: exit 0 within a second, the textfile as last written, nothing beside it
sleep 0.5
cp "$prom" "$work/last.prom"
kill -TERM "$wpid"
t0=$(date +%s%N)
gone() { [ ! -e "/proc/$wpid" ] || [ "$(awk '{ print $3 }' "/proc/$wpid/stat" 2> /dev/null)" = Z ]; }
for _ in $(seq 200); do gone && break; sleep 0.01; done
wait "$wpid"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
wpid=
[ "$rc" = 0 ] && [ "$ms" -le 1000 ] && ok || bad "SIGTERM: exit $rc after $ms ms (not 0 within 1 s): $(tail -3 "$work/w.err")"
cmp -s "$prom" "$work/last.prom" && ok || bad "the textfile changed at SIGTERM"
[ "$(ls -A "$work/out")" = rdma-doctor.prom ] && ok || bad "after SIGTERM, beside the textfile: $(ls -A "$work/out")"
grep -q 'STOPPING=1' "$work/notify.log" && ok || bad "no STOPPING=1 at the end"
# the history: the start's report, then at most one a minute (the changes above came within one,
# so the newest was written at the stop): at least 2, never more than the minutes run + 2; each a
# whole report of the root's host; the newest shows the policy SIGHUP re-read
reports=$(ls "$hist"/gpu-node-017/ 2> /dev/null | grep -E '^[0-9]+\.json$' | sort -n)
n=$(grep -c . <<< "$reports") mins=$((($(date +%s) - started) / 60))
[ "$n" -ge 2 ] && [ "$n" -le $((mins + 2)) ] && ok ||
	bad "--history-dir: $n reports in $mins min (not 2 to $((mins + 2))): $(ls -A "$hist"/* 2>&1 | tr '\n' ' ')"
[ "$(ls -A "$hist")" = gpu-node-017 ] && [ -z "$(ls -A "$hist/gpu-node-017" | grep -vE '^[0-9]+\.json$')" ] && ok ||
	bad "--history-dir: more than the host's reports: $(ls -AR "$hist" | tr '\n' ' ')"
newest=$hist/gpu-node-017/$(tail -1 <<< "$reports")
if command -v jq > /dev/null; then
	jq -e '.schema == "rdma-doctor/report/v1" and .host == "gpu-node-017" and
		([.findings[] | select(.check == "ports.rate") | .status] | any(. == "WARN" or . == "FAIL"))' "$newest" > /dev/null &&
		ok || bad "--history-dir: the newest report does not show the re-read policy's ports.rate: $(head -c 300 "$newest")"
fi
[ ! -s "$work/w.err" ] && ok || bad "standard error of the run: $(head -5 "$work/w.err")"

# ---- usage errors and an unreadable policy: 3, with one line
"$bin" watch --interval 0 > /dev/null 2> "$work/e1"
[ $? = 3 ] && grep -q 'interval needs a number of seconds' "$work/e1" && ok || bad "watch --interval 0: $(cat "$work/e1")"
"$bin" watch --bogus > /dev/null 2> "$work/e2"
[ $? = 3 ] && grep -q "unknown option '--bogus'" "$work/e2" && ok || bad "watch --bogus: $(cat "$work/e2")"
timeout 20 nsenter -t "$ns" -n "$bin" --root "$R" watch --policy "$work/no-such.conf" > "$work/e3.out" 2> "$work/e3"
rc=$?
[ $rc = 3 ] && grep -q 'no-such.conf' "$work/e3" && ok || bad "watch --policy missing-file: exit $rc: $(cat "$work/e3")"

stop_all
ts_finalize
