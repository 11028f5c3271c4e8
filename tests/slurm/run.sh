#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `rdma-doctor slurm` against a real Slurm (Debian 12: slurmctld, slurmd, slurm-client, munge):
# starts munged (socket in this test's directory), slurmctld and slurmd for one node `localhost`
# on ports 16817/16818, with HealthCheckProgram = a two-line wrapper running
# `rdma-doctor --root <scenario root> slurm` every 5 s, and shows:
#   1. a failing root (ib-umad-missing) drains the node with our reason naming the check (and a
#      later run with another failure updates our reason); a subject holding " [u@1] " drains once
#      (the second run does nothing: only Slurm's own " [user@time]" at the end is cut), and an
#      admin's reason holding ESC ]0; BEL ESC [31m is printed with them made visible;
#   2. a healthy root (healthy-inbox) resumes it;
#   3. an admin's drain ("maintenance: swap PSU") is kept and not resumed by a healthy root, and
#      not overwritten by a failing one;
#   4. slurmd's own HealthCheckInterval run drains the node (and resumes it when healthy again);
#   5. a missing scontrol and a failing scontrol are one-line errors with a non-zero exit;
#   6. `srun --output=%N` into a directory read by `rdma-doctor fleet` (a failed command: missing);
#   7. `watch --slurm` on a root whose port goes down and up (the port events a stand-in: SIGHUP):
#      a port down is held, a flap never drains, the second down in the window drains at once, the
#      resume waits for resume_stable, a port down past drain_down_after drains, an admin's drain
#      is kept, and each decision's rule is in the log and in the textfile (promtool checks it).
# Every process it starts is stopped by its PID at the end.  Needs root (slurmd, munged's key).
# Usage: tests/slurm/run.sh [BUILD_DIR]        Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$top/build
[ $# -gt 0 ] && build=$(cd "$1" && pwd)
bin=$build/rdma-doctor
ts_init -v

[ "$(id -u)" = 0 ] || { bad "needs root (slurmd runs as root; munged's key belongs to munge)"; ts_finalize; }
for c in munged slurmctld slurmd scontrol setpriv; do
	command -v "$c" > /dev/null || bad "$c is missing (apt-get install slurmctld slurmd slurm-client munge)"
done
getent passwd munge > /dev/null || bad "no munge user (apt-get install munge)"
[ -x "$bin" ] || bad "$bin is not built"
[ $fail = 0 ] || ts_finalize

. "$top/tests/slurm/lib.sh"
slurm_scratch slurm

# ---- scenario roots: one failing, one healthy; the wrapper reads $work/root (a symlink) ----------
"$top/tests/scenarios/make.sh" "$work/roots" healthy-inbox ib-umad-missing port-polling || { bad "make.sh"; ts_finalize; }
healthy=$work/roots/healthy-inbox failing=$work/roots/ib-umad-missing
# a failing port whose device name holds " [u@1] " (what Slurm appends to a reason looks like that)
bracket=$work/roots/port-polling bname='mx [u@1] y'
bpci=$bracket/sys/devices/pci0000:00/0000:00:01.0/0000:9a:00.0
mv "$bpci/infiniband/mlx5_1" "$bpci/infiniband/$bname"
rm "$bracket/sys/class/infiniband/mlx5_1"
ln -s "../../devices/pci0000:00/0000:00:01.0/0000:9a:00.0/infiniband/$bname" "$bracket/sys/class/infiniband/$bname"
for f in infiniband_mad/umad1 infiniband_mad/issm1 infiniband_verbs/uverbs1; do echo "$bname" > "$bpci/$f/ibdev"; done
ln -sfn "$healthy" "$work/root"

start_munged

# ---- slurm.conf, slurmctld, slurmd ---------------------------------------------------------------
cpus=$(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' | head -1)
mkdir -p "$work/state" "$work/spool"
cat > "$work/slurm.conf" << EOF
ClusterName=rdtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
MpiDefault=none
MailProg=/bin/true
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
HealthCheckProgram=$work/healthcheck
HealthCheckInterval=0
NodeName=localhost NodeAddr=127.0.0.1 CPUs=${cpus:-1} State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES State=UP
EOF
# the HealthCheckProgram: two lines.  slurmd runs it with a bare environment (no SLURM_CONF), and
# logs nothing of its output: the wrapper keeps it for this test.
cat > "$work/healthcheck" << EOF
#!/bin/sh
SLURM_CONF=$work/slurm.conf exec "$bin" --root "$work/root" slurm >> "$work/healthcheck.log" 2>&1
EOF
chmod 0755 "$work/healthcheck"
: > "$work/healthcheck.log"
export SLURM_CONF=$work/slurm.conf
slurmctld -D -f "$SLURM_CONF" > "$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N localhost > "$work/slurmd.out" 2>&1 &
pids+=($!)
state() { scontrol show node -o localhost 2> /dev/null | grep -o 'State=[^ ]*' | cut -d= -f2; }
reason() { scontrol show node -o localhost 2> /dev/null | sed -n 's/.* Reason=\(.*\) \[[^]]*@[^]]*\].*/\1/p'; }
reason_line() { scontrol show node localhost 2> /dev/null | grep -E '^ *Reason='; }
node_up() { case "$(state)" in IDLE | IDLE+*) [ -n "$(state)" ] && ! state | grep -q NOT_RESPONDING ;; *) false ;; esac; }
if wait_for 60 node_up; then ok "slurmctld and slurmd are up, node localhost is $(state)"; else
	bad "node localhost did not come up: state '$(state)'"
	tail -5 "$work/slurmctld.log" "$work/slurmd.log" "$work/slurmctld.out" "$work/slurmd.out" 2> /dev/null
	ts_finalize
fi
# a node that has just come up carries no reason
[ -z "$(reason)" ] || bad "node has an unexpected reason: $(reason)"

drained() { state | grep -qE '(^|\+)DRAIN(ED|ING)?(\+|$)'; }
# run NAME ROOT [SLURM-ARGS...]: rdma-doctor slurm on ROOT (as slurmd would, with SLURMD_NODENAME)
run() {
	local name=$1 root=$2; shift 2
	SLURMD_NODENAME=localhost "$bin" --root "$root" slurm "$@" > "$work/$name.out" 2>&1
	echo $? > "$work/$name.rc"
}
rc_of() { cat "$work/$1.rc"; }

# ---- 1. a failing root drains with our reason naming the check ----------------------------------
ln -sfn "$failing" "$work/root" # slurmd's periodic runs agree with ours from here on
run fail1 "$failing"
if [ "$(rc_of fail1)" = 0 ] && drained && reason | grep -q '^rdma-doctor: modules.loaded ib_umad: ib_umad not loaded'; then
	ok "a failing root drains localhost ($(state)), with our reason naming the check"
	echo "    scontrol show node localhost: $(reason_line | sed 's/^ *//')"
else
	bad "failing root: rc $(rc_of fail1), state $(state), reason '$(reason)'"; cat "$work/fail1.out"
fi
grep -q '^ran: scontrol update NodeName=localhost State=DRAIN Reason="rdma-doctor: modules.loaded' "$work/fail1.out" ||
	{ bad "the run does not say what it ran"; cat "$work/fail1.out"; }
len=$(reason | wc -c)
[ "$len" -le 101 ] && ok "the reason is at most 100 characters ($((len - 1)))" || bad "reason too long: $(reason)"
run fail2 "$failing" # again: already drained with this reason, nothing to do
grep -q 'nothing to do' "$work/fail2.out" && [ "$(rc_of fail2)" = 0 ] && ok "a second failing run changes nothing" ||
	{ bad "second failing run"; cat "$work/fail2.out"; }
run fail4 "$failing" --only devnodes.present # another failure: our own reason is updated
if [ "$(rc_of fail4)" = 0 ] && drained && reason | grep -q '^rdma-doctor: devnodes.present ' &&
	grep -q ': update our drain reason$' "$work/fail4.out"; then ok "our own reason is updated for another failure"
else bad "reason update: rc $(rc_of fail4), state $(state), reason '$(reason)'"; cat "$work/fail4.out"; fi

# ---- 1b. a subject holding " [u@1] ": only Slurm's own suffix is cut, so a second run is a no-op -
run br1 "$bracket"
if [ "$(rc_of br1)" = 0 ] && drained && reason | grep -qF 'rdma-doctor: ports.state mx [u@1] y port 1: Polling' &&
	grep -q ': update our drain reason$' "$work/br1.out"; then ok "a subject holding ' [u@1] ' drains with it in the reason"
else bad "bracket subject: rc $(rc_of br1), state $(state), reason '$(reason)'"; cat "$work/br1.out"; fi
run br2 "$bracket"
grep -q '^localhost: Slurm State=[^ ]* Reason=rdma-doctor: ports.state mx \[u@1\] y port 1: .*: nothing to do$' "$work/br2.out" &&
	[ "$(rc_of br2)" = 0 ] && ok "a second run with that subject changes nothing (the reason compares equal)" ||
	{ bad "second bracket run is not a no-op"; cat "$work/br2.out"; }

# ---- 1c. a reason holding terminal escapes is printed made visible, never raw -------------------
esc=$(printf 'maint \033]0;owned\007 \033[31mred')
scontrol update NodeName=localhost State=DRAIN Reason="$esc"
wait_for 10 eval 'reason | grep -q "owned"' || bad "the escape reason did not take: '$(reason)'"
scontrol show node -o localhost | grep -q "$(printf '\033')" || bad "Slurm did not keep the ESC byte (the test needs it)"
run esc1 "$failing"
if [ "$(rc_of esc1)" = 0 ] && ! grep -q "$(printf '[\033\007]')" "$work/esc1.out" &&
	grep -qF 'Reason=maint \x1b]0;owned\x07 \x1b[31mred: kept' "$work/esc1.out"; then
	ok "an admin's reason with ESC and BEL is printed escaped (\\x1b, \\x07), the drain kept"
else bad "escape reason: rc $(rc_of esc1): $(cat -v "$work/esc1.out")"; fi
scontrol update NodeName=localhost State=RESUME
wait_for 20 eval '! drained' || bad "the resume did not take: $(state)"
run fail5 "$failing" # drained by us again, for section 2
drained || bad "the failing root did not drain again: $(state)"

# ---- 2. a healthy root resumes our drain --------------------------------------------------------
ln -sfn "$healthy" "$work/root"
run ok1 "$healthy"
if [ "$(rc_of ok1)" = 0 ] && ! drained && [ -z "$(reason)" ]; then ok "a healthy root resumes localhost: $(state)"; else
	bad "healthy root: rc $(rc_of ok1), state $(state), reason '$(reason)'"; cat "$work/ok1.out"; fi

# ---- 3. an admin's drain is kept: not resumed when healthy, not overwritten when failing ---------
scontrol update NodeName=localhost State=DRAIN Reason="maintenance: swap PSU"
wait_for 10 drained || bad "the admin's drain did not take"
run ok2 "$healthy"
if [ "$(rc_of ok2)" = 0 ] && drained && [ "$(reason)" = "maintenance: swap PSU" ]; then
	ok "a healthy root keeps the admin's drain ($(reason_line | sed 's/^ *//'))"
else bad "admin drain vs healthy root: rc $(rc_of ok2), state $(state), reason '$(reason)'"; cat "$work/ok2.out"; fi
ln -sfn "$failing" "$work/root"
run fail3 "$failing"
if [ "$(rc_of fail3)" = 0 ] && drained && [ "$(reason)" = "maintenance: swap PSU" ] && grep -q '^localhost: Slurm .*: kept' "$work/fail3.out"; then
	ok "a failing root does not overwrite the admin's reason"
else bad "admin drain vs failing root: rc $(rc_of fail3), state $(state), reason '$(reason)'"; cat "$work/fail3.out"; fi
scontrol update NodeName=localhost State=RESUME
wait_for 20 eval '! drained' || bad "the admin's resume did not take: $(state)"

# ---- 4. slurmd's own HealthCheckInterval run drains the node, and resumes it --------------------
runs() { grep -c '^localhost: Slurm' "$work/healthcheck.log" 2> /dev/null; }
n0=$(runs)
ln -sfn "$failing" "$work/root"
sed -i 's/^HealthCheckInterval=0$/HealthCheckInterval=5/' "$SLURM_CONF"
scontrol reconfigure || bad "scontrol reconfigure failed"
if wait_for 30 eval 'drained && reason | grep -q "^rdma-doctor: modules.loaded"'; then
	ok "slurmd's HealthCheckInterval run drained localhost: $(reason_line | sed 's/^ *//')"
else bad "slurmd's run did not drain: state $(state), reason '$(reason)'"; tail -5 "$work/healthcheck.log"; fi
[ "$(runs)" -gt "$n0" ] && grep -q '^localhost: Slurm State=[^ ]*: drain$' "$work/healthcheck.log" &&
	ok "the drain came from slurmd's run of the wrapper (healthcheck.log)" ||
	{ bad "no drain by the wrapper in healthcheck.log"; tail -5 "$work/healthcheck.log"; }
ln -sfn "$healthy" "$work/root"
if wait_for 30 eval '! drained && [ -z "$(reason)" ]'; then ok "slurmd's run resumed localhost when healthy again: $(state)"
else bad "slurmd's run did not resume: state $(state), reason '$(reason)'"; fi
# an admin's drain survives slurmd's runs on a failing root
scontrol update NodeName=localhost State=DRAIN Reason="maintenance: swap PSU"
ln -sfn "$failing" "$work/root"
n0=$(runs)
wait_for 30 eval '[ "$(runs)" -gt $((n0 + 1)) ]' || bad "slurmd did not run the wrapper twice in 30 s"
if drained && [ "$(reason)" = "maintenance: swap PSU" ]; then ok "slurmd's runs on a failing root keep the admin's reason"
else bad "slurmd's run replaced the admin's drain: state $(state), reason '$(reason)'"; fi

# ---- 5. scontrol missing, scontrol failing ------------------------------------------------------
mkdir -p "$work/empty"
PATH=$work/empty SLURMD_NODENAME=localhost "$bin" --root "$failing" slurm > "$work/nosc.out" 2>&1
rc=$?
if [ $rc = 1 ] && [ "$(wc -l < "$work/nosc.out")" = 1 ] && grep -q 'scontrol not found in PATH' "$work/nosc.out"; then
	ok "no scontrol in PATH: one line, exit 1"
else bad "no scontrol: rc $rc: $(cat "$work/nosc.out")"; fi
SLURMD_NODENAME=nosuchnode "$bin" --root "$failing" slurm > "$work/nonode.out" 2>&1
rc=$?
if [ $rc = 1 ] && [ "$(wc -l < "$work/nonode.out")" = 1 ] && grep -q 'scontrol show node -o nosuchnode` failed (exit 1)' "$work/nonode.out"; then
	ok "scontrol failing (unknown node): one line, exit 1"
else bad "unknown node: rc $rc: $(cat "$work/nonode.out")"; fi

# ---- 6. fleet: srun --output=%N into a directory, read by `rdma-doctor fleet` -------------------
# a root whose host name is this node's; the admin's drain of 4 lifted first
ln -sfn "$healthy" "$work/root"
scontrol update NodeName=localhost State=RESUME
wait_for 20 eval '! drained' || bad "the resume before srun did not take: $(state)"
cp -a "$healthy" "$work/roots/localhost"
short=$(hostname -s) # what srun's %N names the file: the short host name of the machine slurmd runs on
echo "$short" > "$work/roots/localhost/proc/sys/kernel/hostname"
mkdir -p "$work/srun-ok" "$work/srun-bad"
timeout 60 srun -N1 -w localhost --output="$work/srun-ok/%N" "$bin" --root "$work/roots/localhost" check --format json > /dev/null 2>&1
"$bin" fleet --expect "$short" --format json "$work/srun-ok" > "$work/srun-ok.json" 2>&1
rc=$?
# the node is where the report came from (the file's name, %N), and the report names the same host
if [ $rc = 0 ] && [ "$(ls "$work/srun-ok" | wc -l)" = 1 ] && jq -e '.counts.reported == 1 and .missing == ""' "$work/srun-ok.json" > /dev/null; then
	ok "srun --output=%N into a directory: fleet reads localhost's report (exit 0)"
else bad "srun fleet: rc $rc, files: $(ls "$work/srun-ok"), $(head -c 300 "$work/srun-ok.json")"; fi
timeout 60 srun -N1 -w localhost --output="$work/srun-bad/%N" "$bin" --root "$work/no-such-root" check --format json > /dev/null 2>&1
"$bin" fleet --expect localhost "$work/srun-bad" > "$work/srun-bad.out" 2>&1
rc=$?
if [ $rc = 3 ] && grep -q '^  1 node missing (no report): localhost$' "$work/srun-bad.out"; then
	ok "srun: a node whose command failed is missing (exit 3), not healthy"
else bad "srun failing command: rc $rc: $(cat "$work/srun-bad.out")"; fi
# the jobs' step daemons end before slurmd is stopped (else they linger, retrying it)
wait_for 30 eval '[ -z "$(squeue -h 2> /dev/null)" ] && ! pgrep -x slurmstepd > /dev/null' || bad "srun's jobs did not end: $(squeue -h)"

# ---- 7. watch --slurm: drains and resumes as slurm does, a port down by the damping rules -------
# The port events are a stand-in (this host has no RDMA port to take down): the root's port state
# is written, then SIGHUP makes watch judge every check again, as a port event would make it judge
# ports.state.  slurmd's own runs are stopped first, so that only watch acts on the node.
sed -i 's/^HealthCheckInterval=5$/HealthCheckInterval=0/' "$SLURM_CONF"
scontrol reconfigure || bad "scontrol reconfigure failed"
drained && scontrol update NodeName=localhost State=RESUME
wait_for 20 eval '! drained' || bad "the resume before watch did not take: $(state)"
W=$work/wroot
cp -a "$healthy" "$W"
pstate=$(readlink -f "$(find "$W/sys/class/infiniband/mlx5_0/ports/1/" -maxdepth 1 -name state)")
pstate0=$(cat "$pstate")
wpol=$work/watch.conf
printf '[watch]\ndrain_down_after = 3s\ndrain_flaps = 2 in 10m\nresume_stable = 3s\n' > "$wpol"
SLURMD_NODENAME=localhost "$bin" --root "$W" watch --slurm --policy "$wpol" --output "$work/watch.prom" \
	> "$work/watch.out" 2> "$work/watch.err" &
wpid=$!
pids+=($wpid)
lines() { grep -c -- "$1" "$work/watch.out"; }
port() { # DOWN|UP: the stand-in port event
	if [ "$1" = DOWN ]; then echo "1: DOWN" > "$pstate"; else echo "$pstate0" > "$pstate"; fi
	local n; n=$(lines ' judged ')
	kill -HUP "$wpid"
	wait_for 10 eval '[ "$(lines " judged ")" -gt '"$n"' ]' || bad "watch did not judge after SIGHUP: $(tail -3 "$work/watch.out")"
	wait_for 10 eval '[ "$(lines " slurm: deciding ")" -ge 1 ]'
}
prom_decision() { grep '^rdma_doctor_watch_slurm_decision{' "$work/watch.prom"; }
if wait_for 20 grep -q 'judged every check (start)' "$work/watch.out" && wait_for 10 grep -q ' slurm localhost: Slurm State=' "$work/watch.out"; then
	ok "watch --slurm (port events: SIGHUP stand-in) started and asked Slurm: $(grep ' slurm localhost: Slurm' "$work/watch.out" | tail -1 | cut -d' ' -f3-)"
else bad "watch --slurm did not start: $(cat "$work/watch.out" "$work/watch.err" | tail -5)"; fi

# 7a. a port down is held, not drained; back within drain_down_after, it never drains (a flap)
port DOWN
if wait_for 5 grep -q 'slurm localhost: FAIL ports.state mlx5_0 port 1: .*(held: mlx5_0 port 1 down for 0 s, drains at 3 s unless it comes back' "$work/watch.out" &&
	grep -q 'slurm localhost: Slurm State=[^ ]*: not drained yet$' "$work/watch.out" && ! drained; then
	ok "a port down is held, not drained, naming the rule: $(grep 'slurm rule:' "$work/watch.out" | tail -1 | cut -d' ' -f4-)"
else bad "port down: state $(state): $(tail -4 "$work/watch.out")"; fi
prom_decision | grep -q 'action="held",rule="mlx5_0 port 1 down for 0 s, drains' && ok "the textfile has the held decision and its rule" ||
	bad "textfile decision: $(prom_decision)"
port UP
sleep 4 # past drain_down_after: the port came back in time
! drained && ok "a port back within drain_down_after (a flap) does not drain ($(state))" || bad "a flap drained: $(reason)"

# 7b. the second down within the window drains at once, with the rule in the log and the textfile
t0=$(date +%s%N)
port DOWN
if wait_for 5 eval 'drained && reason | grep -q "^rdma-doctor: ports.state mlx5_0 port 1: "'; then
	ok "the second down within 10 min drains at once ($((($(date +%s%N) - t0) / 1000000)) ms): $(reason)"
else bad "second down: state $(state), reason '$(reason)': $(tail -4 "$work/watch.out")"; fi
grep -q 'slurm rule: mlx5_0 port 1 went down 2 times within 10 min (drain_flaps = 2 in 10 min)$' "$work/watch.out" &&
	prom_decision | grep -q 'action="drain",rule="mlx5_0 port 1 went down 2 times within 10 min' &&
	ok "the drain names its rule in the log and the textfile" || bad "drain rule: $(grep 'slurm rule' "$work/watch.out" | tail -2) $(prom_decision)"
grep -q '^rdma_doctor_watch_port_downs_total{subject="mlx5_0 port 1"} 2$' "$work/watch.prom" && ok "the textfile counts 2 downs" ||
	bad "downs: $(grep port_downs "$work/watch.prom")"

# 7c. back up: the resume waits until the port has been back resume_stable
port UP
if wait_for 3 grep -q 'held: mlx5_0 port 1 back for 0 s: no resume until it has been back 3 s' "$work/watch.out" && drained; then
	ok "back up, the node stays drained for resume_stable"
else bad "back up: state $(state): $(tail -3 "$work/watch.out")"; fi
t0=$(date +%s)
if wait_for 10 eval '! drained'; then ok "resumed once the port was back 3 s (after $(($(date +%s) - t0)) s): $(state)"
else bad "not resumed after resume_stable: $(state), $(tail -3 "$work/watch.out")"; fi
grep -A2 " slurm: deciding (a damping rule's time)" "$work/watch.out" |
	grep -q ' slurm localhost: Slurm State=[^ ]* Reason=rdma-doctor: ports.state mlx5_0 port 1: .*: resume$' &&
	ok "the resume came from the rule's timer" ||
	bad "resume line: $(grep -E 'resume|deciding' "$work/watch.out" | tail -3)"

# 7d. a policy re-read on SIGHUP: with drain_flaps = 5, the third down drains by time, not by count
printf '[watch]\ndrain_down_after = 2s\ndrain_flaps = 5 in 10m\nresume_stable = 1s\n' > "$wpol"
port DOWN
if wait_for 8 eval 'drained' && grep -q 'slurm rule: mlx5_0 port 1 down for 2 s (drain_down_after = 2 s)$' "$work/watch.out"; then
	ok "after SIGHUP's policy, a port down 2 s drains by drain_down_after"
else bad "drain by time: state $(state): $(grep 'slurm' "$work/watch.out" | tail -3)"; fi

# 7e. an admin's drain is kept: not resumed when the port is back, not overwritten when it goes down
scontrol update NodeName=localhost State=DRAIN Reason="maintenance: swap PSU"
wait_for 10 eval '[ "$(reason)" = "maintenance: swap PSU" ]' || bad "the admin's drain did not take"
port UP
sleep 2
port DOWN
sleep 3
[ "$(reason)" = "maintenance: swap PSU" ] && drained && grep -q ': kept (out of service for a reason that is not rdma-doctor.s)$' "$work/watch.out" &&
	ok "watch keeps an admin's drain (up, then down)" || bad "admin's drain: $(state) '$(reason)': $(tail -3 "$work/watch.out")"
port UP
scontrol update NodeName=localhost State=RESUME

# 7f. the textfile is valid exposition format; SIGTERM ends watch with 0
if command -v promtool > /dev/null; then
	promtool check metrics < "$work/watch.prom" > "$work/promtool.out" 2>&1 && ok "promtool accepts watch's textfile" ||
		bad "promtool: $(head -5 "$work/promtool.out")"
else bad "promtool missing (apt-get install prometheus)"; fi
kill -TERM "$wpid"
wait "$wpid"
rc=$?
[ $rc = 0 ] && ok "SIGTERM: watch exits 0" || bad "watch exit $rc: $(tail -3 "$work/watch.err")"
grep -v 'scontrol' "$work/watch.err" | grep -q . && bad "watch's stderr: $(head -3 "$work/watch.err")"
"$bin" watch --slurm --node 'bad name' > /dev/null 2> "$work/wbad.err"
[ $? = 3 ] && grep -q "'bad name' is not a Slurm node name" "$work/wbad.err" && ok "watch --slurm --node 'bad name': exit 3, one line" ||
	bad "bad node: $(cat "$work/wbad.err")"

echo "    slurmd ran the wrapper $(runs) times"
ts_finalize
