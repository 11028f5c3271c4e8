#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `rdma-doctor pairs --run --launcher pdsh|clush`: the rounds through the real pdsh and the real
# clush, each with its local exec-style rcmd (pdsh's PDSH_RCMD_TYPE=exec, clush's --worker=exec:
# every "node" is a local command, %h replaced by its name), as an operator without Slurm runs
# them over ssh.  A wrapper in front of each launcher writes its argv to a log and runs the real
# one.
#   1. the real `rdma-doctor pair --step ... --as %h` between n1 and n2 through pdsh (their names
#      answer for 127.0.0.1 through the test shim): the client reaches its server, the document
#      names both (no RDMA here: its error), no task is left;
#   2. eight nodes with a stand-in measurement (tests/pairs/pair-standin: no HCA here): the
#      launcher's argv, each node's name from %h, n3 found bad in three rounds and nothing else;
#      pdsh over ssh too, a stand-in ssh running the words it is given with sh -c, as sshd does;
#   3. a node whose command exits 255 and one that hangs: their pairs are failed samples naming
#      what the launcher said, the others are judged, the run ends by --timeout, nothing is left;
#      a launcher that never ends is killed with its whole process group at the deadline, and
#      what it started in sessions of their own (pdsh) after it; SIGTERM ends a step the same way;
#   4. hostile node names and program paths are refused before any launcher runs, and nothing
#      runs; no launcher and no srun: the operator is told to choose.
# Usage: tests/pairs/launch.sh [BUILD_DIR]        Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=${1:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
bin=$build/rdma-doctor
ts_init -v
real_pdsh=$(command -v pdsh) || ts_die "pdsh is missing (apt-get install pdsh)"
real_clush=$(command -v clush) || ts_die "clush is missing (apt-get install clustershell)"
for c in jq cc pgrep timeout; do command -v "$c" > /dev/null || ts_die "$c is missing"; done
[ -x "$bin" ] || ts_die "$bin is not built"
ts_scratch pairs-launch
cd "$work" || ts_die "cd $work"

# the wrappers: the argv to $LAUNCH_LOG, then the real launcher with its local rcmd
mkdir bin
printf '#!/bin/sh\necho "pdsh $*" >> "$LAUNCH_LOG"\nPDSH_RCMD_TYPE=exec exec %s "$@"\n' "$real_pdsh" > bin/pdsh
printf '#!/bin/sh\necho "clush $*" >> "$LAUNCH_LOG"\nexec %s --worker=exec "$@"\n' "$real_clush" > bin/clush
# a clush that never times a node out (its -u dropped): only the step deadline ends it
cat > bin/clush-no-u << EOF
#!/usr/bin/env bash
echo "clush \$*" >> "\$LAUNCH_LOG"
a=()
while [ \$# -gt 0 ]; do if [ "\$1" = -u ]; then shift 2; else a+=("\$1"); shift; fi; done
exec $real_clush --worker=exec "\${a[@]}"
EOF
# the same for pdsh, whose exec rcmd starts each command in a session of its own
cat > bin/pdsh-no-u << EOF
#!/usr/bin/env bash
echo "pdsh \$*" >> "\$LAUNCH_LOG"
a=()
while [ \$# -gt 0 ]; do if [ "\$1" = -u ]; then shift 2; else a+=("\$1"); shift; fi; done
PDSH_RCMD_TYPE=exec exec $real_pdsh "\${a[@]}"
EOF
chmod +x bin/pdsh bin/clush bin/clush-no-u bin/pdsh-no-u
cp bin/pdsh bin/pdsh-u
cp bin/clush bin/clush-u
cp "$top/tests/pairs/pair-standin" "$work/pair-standin"
export LAUNCH_LOG=$work/launch.log PAIR_STANDIN_LOG=$work/standin.log PATH=$work/bin:$PATH
hang=600.$$ # the hanging stand-in's sleep, found by its argument
export PAIR_STANDIN_HANG=$hang
left() { pgrep -f "sleep $hang" > /dev/null || pgrep -f "$work/pair-standin" > /dev/null || pgrep -f "$bin pair --step" > /dev/null; }

# ---- 1. the real pair through pdsh ----------------------------------------------------------------
shim=$work/faults.so
export ASAN_OPTIONS=verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} # the shim comes first
if cc -std=c11 -D_GNU_SOURCE -O1 -shared -fPIC -o "$shim" "$top/tests/shim/faults.c" -ldl; then
	RD_FAULT_HOSTS=n1,n2 LD_PRELOAD=$shim timeout 120 "$bin" pairs --nodes 'n[1-2]' --run --rounds 1 --launcher pdsh --json > real.json 2> real.err
	rc=$?
	if [ $rc = 1 ] && jq -e '.samples == 1 and .nodes == 2 and .hosts.suspect == "n[1-2]"' real.json > /dev/null 2>&1 &&
		grep -qx "pdsh -N -S -f 2 -u 595 -w n1,n2 $bin pair --step n1+n2 --round 1 --as %h" "$LAUNCH_LOG"; then
		ok "pairs --run --launcher pdsh measured n1 with n2 by the real pair (exit 1: no RDMA here, both suspect)"
	else bad "real pair by pdsh: exit $rc: $(head -c 600 real.json) $(cat real.err) $(cat "$LAUNCH_LOG")"; fi
	# the document itself, through the same launcher: the client's view, its server named by the server's hello
	RD_FAULT_HOSTS=n1,n2 LD_PRELOAD=$shim PDSH_RCMD_TYPE=exec timeout 120 "$real_pdsh" -N -w n1,n2 "$bin" pair --step n1+n2 --round 1 --as %h > step.json 2> step.err
	if jq -e '.server == "n1" and .client == "n2" and .round == 1 and .error == "this host has no ACTIVE RDMA port"' step.json > /dev/null 2>&1; then
		ok "the real pair's client (--as n2) reached its server (--as n1) through pdsh: $(jq -r .error step.json)"
	else bad "the real pair's document: $(cat step.json) $(cat step.err)"; fi
else bad "the shim does not build"; fi
"$bin" pair --step n1+n2 --as 'n1;id' > /dev/null 2> as.err
[ $? = 3 ] && grep -q -- "--as takes a node name, not 'n1;id'" as.err && ok "pair --as takes a node name only" || bad "--as: $(cat as.err)"
"$bin" pair serve --as n1 > /dev/null 2> as.err
[ $? = 3 ] && grep -q -- "--as is for --step" as.err && ok "pair --as is for --step" || bad "--as without --step: $(cat as.err)"
rm -f "$LAUNCH_LOG" "$PAIR_STANDIN_LOG"

# ---- 2. eight nodes, a stand-in pair (no HCA here), one bad node ------------------------------------
for l in pdsh clush; do
	timeout 120 "$bin" pairs --nodes 'n[1-8]' --run --rounds 3 --launcher $l --exec "$work/pair-standin" --json > eight.json 2> eight.err
	rc=$?
	if [ $rc = 2 ] && jq -e '(.findings | length) == 1 and .findings[0].id == "pairs.bandwidth" and .findings[0].host == "n3" and
		.hosts.bad == "n3" and .hosts.cleared == "n[1-2,4-8]" and .rounds == 3' eight.json > /dev/null 2>&1 && [ ! -s eight.err ]; then
		ok "stand-in pair (no HCA here) by $l: n3 found bad in 3 rounds, nothing else (exit 2): $(jq -r '.findings[0].message' eight.json)"
	else bad "eight nodes by $l: exit $rc: $(jq -c '{rounds, hosts, findings}' eight.json 2>&1 | head -c 800) $(head -3 eight.err)"; fi
	case $l in pdsh) first="pdsh -N -S -f 8 -u 595" ;; clush) first="clush --nostdin -N -S -f 8 -u 595" ;; esac
	if [ "$(head -1 "$LAUNCH_LOG")" = "$first -w n1,n2,n3,n4,n5,n6,n7,n8 $work/pair-standin pair --step n1+n2,n3+n4,n5+n6,n7+n8 --round 1 --as %h" ] &&
		[ "$(wc -l < "$LAUNCH_LOG")" = 3 ]; then ok "$l's argv: $(head -1 "$LAUNCH_LOG" | cut -c1-60)..., one run per round"
	else bad "$l's argv: $(cat "$LAUNCH_LOG")"; fi
	# each node ran once in round 1, under its own name (the launcher's %h)
	names=$(grep -- '--round 1 ' "$PAIR_STANDIN_LOG" | sed 's/.* --as //' | sort -V | tr '\n' ' ')
	[ "$names" = "n1 n2 n3 n4 n5 n6 n7 n8 " ] && ok "$l put each node's name for %h: $names" || bad "$l's %h: $names / $(head -3 "$PAIR_STANDIN_LOG")"
	rm -f "$LAUNCH_LOG" "$PAIR_STANDIN_LOG"
done

# pdsh over ssh, as operators run it: a stand-in ssh (no sshd here) that does what sshd does with
# the words pdsh gives it, joined with spaces: the user's shell runs them as one command line
mkdir sshbin
cat > sshbin/ssh << 'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done
host=$1; shift
echo "ssh $host $*" >> "$SSH_LOG"
exec /bin/sh -c "$*"
EOF
chmod +x sshbin/ssh
printf '#!/bin/sh\necho "pdsh $*" >> "$LAUNCH_LOG"\nPDSH_RCMD_TYPE=ssh exec %s "$@"\n' "$real_pdsh" > bin/pdsh
SSH_LOG=$work/ssh.log PATH=$work/sshbin:$PATH timeout 120 "$bin" pairs --nodes 'n[1-8]' --run --rounds 3 --launcher pdsh --exec "$work/pair-standin" --json > ssh.json 2> ssh.err
rc=$?
if [ $rc = 2 ] && jq -e '.hosts.bad == "n3" and .hosts.cleared == "n[1-2,4-8]" and (.findings | length) == 1' ssh.json > /dev/null 2>&1 &&
	grep -qx "ssh n3 $work/pair-standin pair --step n1+n2,n3+n4,n5+n6,n7+n8 --round 1 --as n3" ssh.log && [ "$(grep -c . ssh.log)" = "$(grep -c . "$PAIR_STANDIN_LOG")" ]; then
	ok "pdsh over ssh (a stand-in ssh running the joined words with sh -c): the command line survives a remote shell, n3 bad"
else bad "pdsh over ssh: exit $rc: $(jq -c '{hosts, findings}' ssh.json 2>&1 | head -c 400) $(head -3 ssh.err) $(head -2 ssh.log)"; fi
cp bin/pdsh-u bin/pdsh
rm -f "$LAUNCH_LOG" "$PAIR_STANDIN_LOG"

# ---- 3. a node that fails, one that hangs ------------------------------------------------------------
# the plan pairs n1+dead2, n5+hang6, n7+n8 (server+client): both bad ones are clients
for l in pdsh clush; do
	timeout 120 "$bin" pairs --nodes 'n1,dead2,n5,hang6,n7,n8' --run --rounds 1 --launcher $l --timeout 8 --exec "$work/pair-standin" --json > fail.json 2> fail.err
	rc=$?
	if [ $rc = 1 ] && grep -qx "rdma-doctor: pairs: round 1: n1+dead2: $l: dead2: \(pair-standin \)\?exited with exit code 255" fail.err &&
		grep -qx "rdma-doctor: pairs: round 1: n5+hang6: $l: hang6: command timeout" fail.err &&
		grep -q "^rdma-doctor: pairs: round 1: 3 pairs on 6 nodes in [0-9]* s: no result from $l (exit [0-9]*); 2 without a result$" fail.err &&
		jq -e '.samples == 3 and .hosts.suspect == "dead2,hang6,n[1,5]" and .hosts.cleared == "n[7-8]"' fail.json > /dev/null 2>&1; then
		ok "$l: a node exiting 255 and one hanging are failed samples naming why, the round goes on"
	else bad "$l failing nodes: exit $rc: $(cat fail.err) $(head -c 400 fail.json)"; fi
	for _ in $(seq 50); do left || break; sleep 0.2; done
	left && bad "$l left: $(pgrep -af "sleep $hang|pair-standin")" || ok "$l: nothing of the round is left running"
done
# a remote's standard error that looks like the launcher's, naming a range of 10^4 or 10^12 nodes: not expanded, not taken for the node it names
for l in pdsh clush; do
	timeout 120 "$bin" pairs --nodes 'n1,noisy2' --run --rounds 1 --launcher $l --exec "$work/pair-standin" --json > noisy.json 2> noisy.err
	rc=$?
	[ $rc = 1 ] && grep -qx "rdma-doctor: pairs: round 1: n1+noisy2: $l: noisy2: \(pair-standin \)\?exited with exit code 255" noisy.err &&
		jq -e '.samples == 1' noisy.json > /dev/null 2>&1 && ok "$l: a remote's forged launcher lines naming node ranges are not taken" ||
		bad "$l noisy: exit $rc: $(cat noisy.err)"
done
# the why reaches the judgement: three rounds, dead2 failing against every partner
timeout 120 "$bin" pairs --nodes 'n1,dead2,n5,n6,n7,n8' --run --rounds 3 --launcher pdsh --timeout 8 --exec "$work/pair-standin" --json > why.json 2> why.err
jq -e '.hosts.suspect | test("dead2")' why.json > /dev/null 2>&1 && grep -q 'pdsh: dead2: pair-standin exited with exit code 255' why.err &&
	ok "rounds after a failed node go on: $(grep -c 'dead2: pdsh: dead2' why.err) pair(s) of dead2 named failed" || bad "dead2 over rounds: $(cat why.err) $(head -c 300 why.json)"
# a launcher that does not end by itself: killed with its process group at the step's deadline,
# and what it started in sessions of their own (pdsh) ended after it
for l in clush pdsh; do
	cp bin/$l-no-u bin/$l
	timeout 120 "$bin" pairs --nodes 'n1,n2,n5,hang6' --run --rounds 1 --launcher $l --timeout 4 --exec "$work/pair-standin" --json > kill.json 2> kill.err
	rc=$?
	if [ $rc = 1 ] && grep -q "^rdma-doctor: pairs: round 1: 2 pairs on 4 nodes in [0-9]* s: $l did not end within 4 s (killed); 1 without a result\$" kill.err &&
		jq -e '.samples == 2' kill.json > /dev/null 2>&1; then
		ok "$l that never ends is killed at the deadline; the pairs it measured count"
	else bad "killed $l: exit $rc: $(cat kill.err) $(head -c 300 kill.json)"; fi
	for _ in $(seq 50); do left || break; sleep 0.2; done
	left && bad "left after the kill of $l: $(pgrep -af "sleep $hang|pair-standin")" || ok "$l: the hanging node's command is gone with it"
	cp bin/$l-u bin/$l
done
# SIGTERM during a step: the launcher and what it started end, the run judges what it has
: > "$PAIR_STANDIN_LOG"
"$bin" pairs --nodes 'n1,n2,n5,hang6' --run --rounds 3 --launcher pdsh --exec "$work/pair-standin" --json > term.json 2> term.err &
rd=$!
# TERM once the hanging node sleeps and the measured pair's two ends have ended (under load they
# may end after the sleep starts: then both pairs would lack a result)
ended() { grep -q -- '--as n1$' "$PAIR_STANDIN_LOG" 2> /dev/null && grep -q -- '--as n2$' "$PAIR_STANDIN_LOG" &&
	! pgrep -f "pair-standin pair --step .* --as n[12]\$" > /dev/null; }
for _ in $(seq 100); do pgrep -f "sleep $hang" > /dev/null && ended && break; sleep 0.1; done
sleep 0.5 # pdsh passes on what the ended ones printed
kill -TERM $rd
wait $rd
rc=$?
if [ $rc = 1 ] && grep -q '^rdma-doctor: pairs: round 1: 2 pairs on 4 nodes in [0-9]* s: interrupted (signal 15): pdsh stopped; 1 without a result$' term.err &&
	[ "$(grep -c 'round [2-9]' term.err)" = 0 ] && jq -e '.samples == 2 and .rounds == 1' term.json > /dev/null 2>&1; then
	ok "SIGTERM stops the round's pdsh, no later round runs, the judgement has what was measured"
else bad "SIGTERM: exit $rc: $(cat term.err) $(head -c 300 term.json)"; fi
for _ in $(seq 50); do left || break; sleep 0.2; done
left && bad "left after SIGTERM: $(pgrep -af "sleep $hang|pair-standin")" || ok "after SIGTERM nothing of the round is left"
rm -f "$LAUNCH_LOG" "$PAIR_STANDIN_LOG"

# ---- 4. hostile input, no launcher ------------------------------------------------------------------
for l in pdsh clush; do
	for nodes in 'n1,a;touch${IFS}pwned' 'n1,$(touch${IFS}pwned)' 'n1,`touch pwned`' 'n1,-n2' 'n1,n2|touch' 'n1,%h' 'n1,root@n2'; do
		"$bin" pairs --nodes "$nodes" --run --launcher $l --exec "$work/pair-standin" > /dev/null 2> hostile.err
		rc=$?
		if [ $rc = 3 ] && grep -q "is not a node name $l can be given" hostile.err && [ ! -e pwned ] && [ ! -e "$LAUNCH_LOG" ]; then
			ok "$l: --nodes '$nodes' refused, nothing run"
		else bad "$l: --nodes '$nodes': exit $rc: $(cat hostile.err) $(ls) $(cat "$LAUNCH_LOG" 2> /dev/null)"; fi
	done
	mkdir -p 'we ird;touch pwned'
	cp pair-standin 'we ird;touch pwned/p'
	"$bin" pairs --nodes 'n[1-2]' --run --launcher $l --exec "$work/we ird;touch pwned/p" > /dev/null 2> hostile.err
	[ $? = 3 ] && grep -q -- "the nodes' shell would read it" hostile.err && [ ! -e pwned ] && [ ! -e "$LAUNCH_LOG" ] &&
		ok "$l: an --exec path a shell would read is refused" || bad "$l: hostile --exec: $(cat hostile.err)"
done
mkdir nosrun
PATH=$work/nosrun "$bin" pairs --nodes 'n[1-2]' --run > /dev/null 2> none.err
[ $? = 3 ] && grep -qx 'rdma-doctor: pairs: --run: no srun in PATH: give --launcher pdsh or --launcher clush (or --launcher slurm)' none.err &&
	ok "no srun and no --launcher: the operator is told to choose" || bad "no launcher: $(cat none.err)"
# an srun, but a Slurm that does not answer (a stand-in scontrol): the same
mkdir deadslurm
printf '#!/bin/sh\nexit 0\n' > deadslurm/srun
printf '#!/bin/sh\necho "slurm_load_node error: Unable to contact slurm controller" >&2\nexit 1\n' > deadslurm/scontrol
chmod +x deadslurm/srun deadslurm/scontrol
PATH=$work/deadslurm "$bin" pairs --nodes 'n[1-2]' --run > /dev/null 2> dead.err
[ $? = 3 ] && grep -qx 'rdma-doctor: pairs: --run: Slurm does not answer: give --launcher pdsh or --launcher clush (or --launcher slurm)' dead.err &&
	ok "srun but no answering Slurm, no --launcher: the operator is told to choose" || bad "dead Slurm: $(cat dead.err)"
"$bin" pairs --nodes 'n[1-2]' --run --launcher mpirun > /dev/null 2> bad.err
[ $? = 3 ] && grep -q -- "--launcher 'mpirun': slurm, pdsh or clush" bad.err && ok "--launcher takes slurm, pdsh or clush" || bad "--launcher mpirun: $(cat bad.err)"
PATH=$work/nosrun "$bin" pairs --nodes 'n[1-2]' --run --launcher pdsh > /dev/null 2> nopdsh.err
[ $? = 1 ] && grep -q 'pdsh not found in PATH (install pdsh); 1 without a result' nopdsh.err && ok "no pdsh in PATH: its pairs are failed samples saying so" ||
	bad "no pdsh: $(cat nopdsh.err)"
ts_finalize
