# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Sourced by the Slurm tests (tests/slurm/run.sh, pairs.sh) after tests/lib.sh: their scratch
# directory, the processes they start and stop by PID, and munged.
#   slurm_scratch NAME   $work (mode 0755: munged, as user munge, must reach its socket), and the
#                        EXIT trap that stops every PID in pids and removes $work (RD_SLURM_KEEP=1
#                        keeps it, with the logs, for a look)
#   wait_for SECONDS COMMAND...   polls COMMAND every 0.2 s until it succeeds; false on timeout
#   start_munged         munged on $work/munge/munge.socket ($sock), with a key of its own
slurm_scratch() {
	work=$(mktemp -d "/tmp/rd-$1.XXXXXX")
	chmod 0755 "$work"
	pids=()
	trap slurm_cleanup EXIT
}
slurm_cleanup() {
	local p i
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
	for p in "${pids[@]}"; do
		for i in $(seq 50); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
		kill -0 "$p" 2> /dev/null && kill -9 "$p" 2> /dev/null
		wait "$p" 2> /dev/null
	done
	[ -n "${RD_SLURM_KEEP:-}" ] || rm -rf "$work"
}
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.2; done
}
start_munged() {
	mkdir -p "$work/munge"
	chown munge:munge "$work/munge"
	chmod 0755 "$work/munge"
	dd if=/dev/urandom bs=1 count=1024 of="$work/munge/munge.key" status=none
	chown munge:munge "$work/munge/munge.key"
	chmod 0400 "$work/munge/munge.key"
	sock=$work/munge/munge.socket
	setpriv --reuid=munge --regid=munge --init-groups munged --foreground --socket="$sock" \
		--key-file="$work/munge/munge.key" --log-file="$work/munge/munged.log" \
		--pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" > "$work/munge/out" 2>&1 &
	pids+=($!)
	if wait_for 10 test -S "$sock"; then ok "munged is up (socket $sock)"; else
		bad "munged did not start: $(tail -3 "$work/munge/out" "$work/munge/munged.log" 2> /dev/null)"; ts_finalize; fi
}
