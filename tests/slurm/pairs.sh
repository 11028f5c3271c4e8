#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `rdma-doctor pairs --run` on a real Slurm: munged, slurmctld and eight slurmd (nodes n1..n8, all
# on this machine, each on its own port; their names answer for 127.0.0.1 through the test shim's
# RD_FAULT_HOSTS, a stand-in for the cluster's name service).  Each round of pairs is a job step,
# one task per node, each task `rdma-doctor pair --step SERVER+CLIENT,...`:
#   1. the real pair between n1 and n2: the client task reaches its server task through srun's
#      placement and the name (its document names n1, which only the server's hello can say);
#      with no RDMA port here the result is that error, not a connection's; no task is left;
#   2. eight nodes with a stand-in measurement (tests/slurm/pair-standin: this machine has no
#      HCA): n3 slow against every partner is found bad within three rounds, and nothing else;
#   3. a job step whose program is missing: each pair a failed sample naming srun's exit;
#   4. --drain: n3 drained with its finding as the reason (--dry-run first: nothing changes); the
#      node's own HealthCheckProgram run (`slurm` on a healthy root) keeps that drain; a run leaves
#      the drained node's pairs out (no job step starts there); results measured outside Slurm in
#      which n3 is fast again resume it (--results --drain); an admin's drain is kept.
# Every process it starts is stopped by its PID.  Needs root (slurmd, munged's key).
# Usage: tests/slurm/pairs.sh [BUILD_DIR]        Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$top/build
[ $# -gt 0 ] && build=$(cd "$1" && pwd)
bin=$build/rdma-doctor
ts_init -v
[ "$(id -u)" = 0 ] || { bad "needs root (slurmd runs as root; munged's key belongs to munge)"; ts_finalize; }
for c in munged slurmctld slurmd srun scontrol setpriv jq cc; do
	command -v "$c" > /dev/null || bad "$c is missing (apt-get install slurmctld slurmd slurm-client munge jq)"
done
[ -x "$bin" ] || bad "$bin is not built"
[ $fail = 0 ] || ts_finalize

. "$top/tests/slurm/lib.sh"
slurm_scratch slurm-pairs

shim=$work/faults.so
cc -std=c11 -D_GNU_SOURCE -O1 -shared -fPIC -o "$shim" "$top/tests/shim/faults.c" -ldl || { bad "the shim"; ts_finalize; }
start_munged

mkdir -p "$work/state"
{
	cat << EOF
ClusterName=rdpairs
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16857
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool-%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd-%n.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
MpiDefault=none
MailProg=/bin/true
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
EOF
	for i in $(seq 8); do echo "NodeName=n$i NodeAddr=127.0.0.1 Port=$((16860 + i)) CPUs=1 State=UNKNOWN"; done
	echo "PartitionName=debug Nodes=n[1-8] Default=YES State=UP"
} > "$work/slurm.conf"
export SLURM_CONF=$work/slurm.conf
slurmctld -D -f "$SLURM_CONF" > "$work/slurmctld.out" 2>&1 &
pids+=($!)
for i in $(seq 8); do
	mkdir -p "$work/spool-n$i"
	slurmd -D -f "$SLURM_CONF" -N "n$i" > "$work/slurmd-n$i.out" 2>&1 &
	pids+=($!)
done
idle() { [ "$(sinfo -h -N -o '%N %T' 2> /dev/null | grep -c ' idle$')" = 8 ]; }
if wait_for 60 idle; then ok "slurmctld and eight slurmd are up: $(sinfo -h -o '%D %T')"; else
	bad "the nodes did not come up: $(sinfo -h -N -o '%N %T' | tr '\n' ' ')"; tail -3 "$work/slurmctld.log"; ts_finalize; fi
export RD_FAULT_HOSTS=n1,n2,n3,n4,n5,n6,n7,n8 LD_PRELOAD=$shim

# ---- 1. the real pair between two nodes -------------------------------------------------------
"$bin" pairs --nodes 'n[1-2]' --run --rounds 1 --json > "$work/real.json" 2> "$work/real.err"
rc=$?
srv=$(jq -r '.hosts.suspect' "$work/real.json" 2> /dev/null)
if [ $rc = 1 ] && jq -e '.samples == 1 and .nodes == 2' "$work/real.json" > /dev/null 2>&1 && [ ! -s "$work/real.err" ]; then
	ok "pairs --run measured n1 with n2 in one job step (exit 1: no RDMA here, both suspect: $srv)"
else bad "pairs --run n[1-2]: exit $rc: $(head -c 600 "$work/real.json") $(cat "$work/real.err")"; fi
# the document itself, through the same step (pairs keeps only samples): the client's view
srun --nodes=2 --ntasks-per-node=1 --nodelist=n1,n2 --quiet "$bin" pair --step n1+n2 --round 1 > "$work/step.json" 2> "$work/step.err"
if jq -e '.server == "n1" and .client == "n2" and .round == 1 and .error == "this host has no ACTIVE RDMA port"' "$work/step.json" > /dev/null 2>&1; then
	ok "the step's client reached its server task: the server's hello named n1 ($(jq -r .error "$work/step.json"))"
else bad "the step's document: $(cat "$work/step.json") $(cat "$work/step.err")"; fi
wait_for 20 eval '! pgrep -f "rdma-doctor pair --step" > /dev/null' && ok "no pair task is left running" ||
	bad "left running: $(pgrep -af 'rdma-doctor pair --step')"

# ---- 2. eight nodes, a stand-in measurement, one bad node --------------------------------------
cp "$top/tests/slurm/pair-standin" "$work/pair-standin"
"$bin" pairs --nodes 'n[1-8]' --run --rounds 3 --exec "$work/pair-standin" --json > "$work/eight.json" 2> "$work/eight.err"
rc=$?
if [ $rc = 2 ] && jq -e '(.findings | length) == 1 and .findings[0].id == "pairs.bandwidth" and .findings[0].host == "n3" and
	.findings[0].status == "FAIL" and .hosts.bad == "n3" and .hosts.cleared == "n[1-2,4-8]"' "$work/eight.json" > /dev/null 2>&1; then
	ok "n3 is found bad in $(jq -r .rounds "$work/eight.json") rounds of job steps, nothing else (exit 2): $(jq -r '.findings[0].message' "$work/eight.json")"
else bad "eight nodes: exit $rc: $(jq -c '{rounds, hosts, findings}' "$work/eight.json" 2>&1 | head -c 800) $(head -3 "$work/eight.err")"; fi

# ---- 3. a step whose program is missing --------------------------------------------------------
"$bin" pairs --nodes 'n[1-4]' --run --rounds 1 --exec /nonexistent/rdma-doctor --json > "$work/missing.json" 2> "$work/missing.err"
rc=$?
if [ $rc = 1 ] && grep -q 'round 1: 2 pairs on 4 nodes in [0-9]* s: no result from its job step (srun exit [1-9][0-9]*); 2 without a result' "$work/missing.err" &&
	jq -e '.samples == 2 and .hosts.suspect != ""' "$work/missing.json" > /dev/null 2>&1; then
	ok "a step that cannot run: each pair a failed sample, said on stderr: $(head -1 "$work/missing.err" | cut -d: -f3-)"
else bad "missing program: exit $rc: $(cat "$work/missing.err") $(head -c 300 "$work/missing.json")"; fi
"$bin" pairs --nodes 'n[1-2]' --run --exec relative/path > /dev/null 2> "$work/rel.err"
[ $? = 3 ] && grep -q -- '--exec needs an absolute path' "$work/rel.err" && ok "--exec takes an absolute path only" || bad "relative --exec: $(cat "$work/rel.err")"
# ---- 4. --drain -------------------------------------------------------------------------------------
state() { scontrol show node -o "$1" 2> /dev/null | grep -o 'State=[^ ]*' | cut -d= -f2; }
reason() { scontrol show node -o "$1" 2> /dev/null | sed -n 's/.* Reason=\(.*\) \[[^]]*@[^]]*\].*/\1/p'; }
drained() { state "$1" | grep -qE '(^|\+)DRAIN(ED|ING)?(\+|$)'; }
"$bin" pairs --nodes 'n[1-8]' --run --rounds 3 --exec "$work/pair-standin" --drain --dry-run > "$work/dry.out" 2> "$work/dry.err"
if grep -q '^# n3: Slurm State=IDLE: would drain$' "$work/dry.out" &&
	grep -q '^scontrol update NodeName=n3 State=DRAIN Reason="rdma-doctor: pairs.bandwidth n3 rail mlx5_0: 120 Gb/s, peers median 388"$' "$work/dry.out" &&
	! drained n3; then ok "--drain --dry-run prints the scontrol update for n3 and changes nothing"
else bad "dry run: $(cat "$work/dry.out" "$work/dry.err" | head -12)"; fi
"$bin" pairs --nodes 'n[1-8]' --run --rounds 3 --exec "$work/pair-standin" --drain --json > "$work/drain.json" 2> "$work/drain.err"
rc=$?
others=$(for i in 1 2 4 5 6 7 8; do drained "n$i" && echo "n$i"; done)
if [ $rc = 2 ] && wait_for 10 drained n3 && [ "$(reason n3)" = "rdma-doctor: pairs.bandwidth n3 rail mlx5_0: 120 Gb/s, peers median 388" ] && [ -z "$others" ] &&
	jq -e '.hosts.bad == "n3"' "$work/drain.json" > /dev/null; then ok "--drain drains n3 alone: $(reason n3)"
else bad "drain: exit $rc, n3 $(state n3) '$(reason n3)', others drained: $others; $(head -5 "$work/drain.err")"; fi
"$top/tests/scenarios/make.sh" "$work/roots" healthy-inbox > /dev/null 2>&1 || bad "make.sh healthy-inbox"
SLURMD_NODENAME=n3 "$bin" --root "$work/roots/healthy-inbox" slurm --no-counters > "$work/hc.out" 2>&1
if grep -q '^n3: Slurm State=[^ ]* Reason=rdma-doctor: pairs.bandwidth .*: kept (drained by pairs: only a pairs run that clears the node resumes it)$' "$work/hc.out" &&
	drained n3; then ok "the node's own healthy check keeps the drain of pairs"
else bad "slurm on n3: $(cat "$work/hc.out"); $(state n3) '$(reason n3)'"; fi
# drained, n3 runs no job step: a run leaves its pairs out and says so
PAIR_STANDIN_GOOD=1 "$bin" pairs --nodes 'n[1-8]' --run --exec "$work/pair-standin" --drain > "$work/skip.out" 2> "$work/skip.err"
grep -q '^rdma-doctor: pairs: round 1: n3+n4 not run: n3 is IDLE+DRAIN rdma-doctor: pairs.bandwidth' "$work/skip.err" && drained n3 &&
	ok "a drained node's pairs are not run (no job step can start there), and said" || bad "skip: $(cat "$work/skip.err") $(state n3)"
# measured outside Slurm (the stand-in run by hand, n3 mended), --results --drain clears and resumes it
for c in n2 n4 n6 n8; do
	PAIR_STANDIN_GOOD=1 SLURMD_NODENAME=$c "$work/pair-standin" pair --step n1+n2,n3+n4,n5+n6,n7+n8 --round 1
done > "$work/mended.json"
"$bin" pairs --nodes 'n[1-8]' --results "$work/mended.json" --drain > "$work/mend.out" 2> "$work/mend.err"
rc=$?
if [ $rc = 0 ] && wait_for 10 eval '! drained n3' && grep -q '^ran: scontrol update NodeName=n3 State=RESUME$' "$work/mend.out"; then
	ok "n3 fast again: --results --drain clears it and resumes it ($(state n3))"
else bad "mend: exit $rc, n3 $(state n3): $(tail -5 "$work/mend.out") $(head -3 "$work/mend.err")"; fi
scontrol update NodeName=n3 State=DRAIN Reason="maintenance: swap PSU"
wait_for 10 drained n3 || bad "the admin's drain did not take"
"$bin" pairs --nodes 'n[1-8]' --results "$work/mended.json" --drain > "$work/admin.out" 2>&1
[ "$(reason n3)" = "maintenance: swap PSU" ] && grep -q '^n3: Slurm State=[^ ]* Reason=maintenance: swap PSU: nothing to do$' "$work/admin.out" &&
	ok "a pairs judgement that clears n3 leaves an admin's drain alone" || bad "admin: '$(reason n3)': $(grep n3 "$work/admin.out")"
ts_finalize
