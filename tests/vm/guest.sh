#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The scenarios of the real-kernel tier, run in sequence inside the VM on a real Linux RDMA stack
# (Soft-RoCE rxe0 on eth0).  Each step's stdout, stderr and exit status go to /out/s/NAME.{out,err,rc}
# on the 9p share; the host (tests/vm/run.sh) asserts on them.  Nothing is judged here.
# Usage: guest.sh [reboot|watch|bench|q35|q35pt|q35off]   reboot: the second boot of the VM, the link
# steps only (see below); watch: watch's steps alone; bench: bench/watch-latency.sh's link flips;
# q35*: the q35 machine's PCIe tree (tests/vm/q35.sh)
set -u
S=/out/s
mkdir -p $S
RD=rdma-doctor
export SOURCE_DATE_EPOCH=1764460800
nine="mlx5_core mlx5_ib ib_core ib_uverbs ib_cm rdma_cm rdma_ucm ib_umad ib_ipoib"

# step NAME COMMAND...: runs the command, keeps what it printed and its exit status
step() {
	name=$1; shift
	"$@" > $S/$name.out 2> $S/$name.err
	rc=$?
	echo $rc > $S/$name.rc
	echo "@@step $name rc=$rc" > /dev/console
}
# wait_state DEV STATE: until ports/1/state says STATE (10 s at most)
wait_state() {
	i=0
	while [ $i -lt 100 ]; do
		grep -q "$2" /sys/class/infiniband/$1/ports/1/state 2> /dev/null && return 0
		sleep 0.1; i=$((i + 1))
	done
	echo "@@note $1 port 1 never reached $2" > /dev/console
	return 1
}
unload_rdma() {
	rdma link delete rxe0 2> /dev/null
	modprobe -r rdma_rxe ib_ipoib mlx5_ib mlx5_core rdma_ucm ib_umad ib_uverbs rdma_cm iw_cm ib_cm ib_core 2> /dev/null
	true
}

# link_run NAME EPOCH: link.counters and link.flaps at time EPOCH, the sample kept on the share
# (/out/state), where the next run, or the next boot of the VM, finds it
link_run() {
	step "$1" env SOURCE_DATE_EPOCH="$2" $RD check --only link.counters,link.flaps --state-dir /out/state --format json
}
link_hw() { step "$1" sh -c 'grep -H . /sys/class/infiniband/rxe0/ports/1/hw_counters/*'; }
link_state() { step "$1" sh -c 'cat /out/state/*.link-state 2> /dev/null; true'; }

# ---- the q35 machine (tests/vm/q35.sh; boot.sh's q35, q35pt, q35off): the kernel's PCIe tree,
# ACS and IOMMU groups as the kernel set them, a copy of the PCI part of sysfs for the host to
# build a root from, and the setpci line gdr.acs prints, run on the ports that have ACS
# capture DIR: each PCI function's directory with the attributes the model reads (config whole:
# this is root), its sys/bus/pci/devices and iommu_group links, the IOMMU groups, and the host
# files a root needs; links are copied as links, files by reading them (sysfs sizes are not real)
capture() {
	for d in /sys/bus/pci/devices/*; do
		b=${d##*/} real=$(readlink -f "$d")
		mkdir -p "$1$real" "$1/sys/bus/pci/devices"
		ln -s "$(readlink "$d")" "$1/sys/bus/pci/devices/$b"
		for a in vendor device subsystem_vendor subsystem_device class revision numa_node local_cpulist \
			current_link_speed current_link_width max_link_speed max_link_width config; do
			[ -r "$real/$a" ] && cat "$real/$a" > "$1$real/$a" 2> /dev/null
		done
		[ -L "$real/iommu_group" ] && ln -s "$(readlink "$real/iommu_group")" "$1$real/iommu_group"
	done
	mkdir -p "$1/sys/kernel/iommu_groups" "$1/proc/sys/kernel" "$1/sys/class/dmi/id"
	for g in /sys/kernel/iommu_groups/*; do
		[ -d "$g" ] || continue
		mkdir -p "$1$g/devices"
		cat "$g/type" > "$1$g/type"
		for v in "$g"/devices/*; do ln -s "$(readlink "$v")" "$1$g/devices/${v##*/}"; done
	done
	for f in /proc/cmdline /proc/cpuinfo /proc/sys/kernel/osrelease /proc/sys/kernel/hostname /sys/class/dmi/id/sys_vendor; do
		cat "$f" > "$1$f"
	done
}
# standin_root DIR: the live sysfs and /proc under DIR (bind mounts), with tests/vm/q35root.sh's
# stand-ins put over them: a GPU's ids over 0000:03:00.0's, ConnectX-7 ids and link capability
# over the e1000e functions', and sys/class replaced by one with the InfiniBand devices mlx5_0..2
# on those functions (and dmi); every other file is the kernel's own, read live
standin_root() {
	mkdir -p "$1/sys" "$1/proc" /tmp/standin
	mount --rbind /sys "$1/sys" && mount --bind /proc "$1/proc" || return 1
	k=0
	over() { # FILE VALUE: VALUE over the live FILE
		k=$((k + 1))
		printf '%s\n' "$2" > /tmp/standin/$k
		mount --bind /tmp/standin/$k "$root$1" || echo "@@note cannot put a stand-in over $1" > /dev/console
	}
	root=$1
	g=$(readlink -f /sys/bus/pci/devices/0000:03:00.0)
	over "$g/vendor" 0x10de; over "$g/device" 0x2330; over "$g/subsystem_vendor" 0x10de
	over "$g/subsystem_device" 0x16c1; over "$g/class" 0x030200
	mount -t tmpfs standin "$1/sys/class"
	mkdir -p "$1/sys/class/dmi" "$1/sys/class/infiniband"
	ln -s ../../devices/virtual/dmi/id "$1/sys/class/dmi/id"
	n=0
	for b in 0000:04:00.0 0000:05:00.0 0000:06:00.0; do
		f=$(readlink -f /sys/bus/pci/devices/$b)
		over "$f/vendor" 0x15b3; over "$f/device" 0x1021; over "$f/subsystem_vendor" 0x15b3
		over "$f/subsystem_device" 0x0041; over "$f/class" 0x020700
		over "$f/max_link_speed" "32.0 GT/s PCIe"; over "$f/max_link_width" 16
		mkdir -p "$1/sys/class/infiniband/mlx5_$n"
		ln -s "../../..${f#/sys}" "$1/sys/class/infiniband/mlx5_$n/device"
		echo "1: CA" > "$1/sys/class/infiniband/mlx5_$n/node_type"
		n=$((n + 1))
	done
}
# acs_ports: the functions whose lspci -vvv section has an Access Control Services capability
acs_ports() { lspci -D -vvv | awk '/^[0-9a-f]/ { b = $1 } /Access Control Services/ { print b }'; }
case "${1:-}" in
q35 | q35pt | q35off)
	S=/out/$1/s
	mkdir -p $S
	step cmdline cat /proc/cmdline
	step lspci lspci -D -vvv
	step groups sh -c 'for d in /sys/bus/pci/devices/*; do g=$(readlink $d/iommu_group) || g=none; echo "${d##*/} ${g##*/} $(cat $d/iommu_group/type 2> /dev/null)"; done'
	acs_ports > $S/ports.out
	step capture capture /out/$1/tree
	# no GPU, no RDMA NIC here: the gdr.* checks and pcie.link SKIP by design
	step check $RD check --only gdr.path,gdr.acs,gdr.iommu,gdr.mode,pcie.link --format json
	# the live tree with the stand-ins: the model reads the kernel's sysfs and config space itself
	step standin standin_root /tmp/live
	step live-check $RD --root /tmp/live check --only gdr.path,gdr.acs,gdr.iommu,pcie.link --format json
	step live-topo $RD --root /tmp/live topo --format json
	if [ "$1" = q35 ]; then
		step lspci-tree lspci -D -tv
		step topo $RD topo --format json
		# what an unprivileged read of a port's config returns
		step unpriv-config sh -c 'for b in $(cat '$S'/ports.out); do echo "$b $(/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups cat /sys/bus/pci/devices/$b/config | wc -c)"; done'
		# the fix gdr.acs prints for a port whose ACS redirects, run on each port that has ACS;
		# then the register and the whole lspci -vvv read again
		step acs-before sh -c 'for b in $(cat '$S'/ports.out); do echo "$b $(setpci -s $b ECAP_ACS+0x6.w)"; done'
		mkdir -p /out/$1/after
		for b in $(cat $S/ports.out); do
			echo "setpci -s $b ECAP_ACS+0x6.w=0000" > "$S/setpci-$b.cmd"
			step "setpci-$b" setpci -s "$b" ECAP_ACS+0x6.w=0000
			cat /sys/bus/pci/devices/$b/config > /out/$1/after/$b.config
		done
		step acs-after sh -c 'for b in $(cat '$S'/ports.out); do echo "$b $(setpci -s $b ECAP_ACS+0x6.w)"; done'
		step lspci-after lspci -D -vvv
	fi
	echo "@@guest-done" > /dev/console
	exit 0
	;;
esac

# ---- watch's steps (section 6c, the watch phase) ------------------------------------------------------
# first what decides which devices watch may open for verbs events: does an open rxe context hold
# `rdma link delete`?  (ib_uverbs_remove_one() waits for it unless the driver disassociates)
ms() { read -r u _ < /proc/uptime; c=${u%.*}${u#*.}; echo $((c * 10)); } # uptime in ms (10 ms steps)
# bg_timed NAME SECONDS COMMAND...: runs the command in the background; NAME.out says whether it
# was still running after SECONDS ("running STATE" with its /proc state, or "done"), then how long
# it took and its exit status once it ended; bg_release is run (if set) to let a blocked one finish
bg_timed() {
	local name=$1 secs=$2 t0 bp i
	shift 2
	t0=$(ms)
	"$@" > $S/$name.cmd 2>&1 &
	bp=$!
	i=0
	while [ -e /proc/$bp ] && [ "$(awk '{print $3}' /proc/$bp/stat 2> /dev/null)" != Z ] && [ $i -lt $((secs * 20)) ]; do
		sleep 0.05; i=$((i + 1))
	done
	if [ -e /proc/$bp ] && [ "$(awk '{print $3}' /proc/$bp/stat 2> /dev/null)" != Z ]; then
		echo "running $(awk '{print $3}' /proc/$bp/stat)" > $S/$name.out
		${bg_release:-true}
	else
		echo done > $S/$name.out
	fi
	wait $bp
	echo "rc=$? ms=$(($(ms) - t0))" >> $S/$name.out
	echo "@@step $name $(tr '\n' ' ' < $S/$name.out)" > /dev/console
}
watch_experiment() {
	ibv_asyncwatch -d rxe0 > $S/rxe-asyncwatch.log 2>&1 &
	ap=$!
	sleep 1
	step rxe-asyncwatch-alive sh -c "kill -0 $ap && ls -l /proc/$ap/fd | grep -c uverbs"
	bg_release="kill $ap"
	bg_timed rxe-delete-asyncwatch 3 rdma link delete rxe0
	bg_release=
	kill $ap 2> /dev/null; wait $ap 2> /dev/null
	rdma link add rxe0 type rxe netdev eth0
	wait_state rxe0 ACTIVE
}

W=/out/watch
P=$W/x.prom
# until_prom SECONDS PATTERN [!]: until a line of the textfile matches (with !: until it is there and
# none does)
until_prom() {
	local i=0
	while [ $i -lt $(($1 * 25)) ]; do
		if grep -qE "$2" $P 2> /dev/null; then [ "${3:-}" != ! ] && return 0; elif [ -f $P ] && [ "${3:-}" = ! ]; then return 0; fi
		sleep 0.02; i=$((i + 1))
	done
	return 1
}
# timed NAME PATTERN [!] -- COMMAND...: the command, then until the textfile matches (10 s at most);
# NAME.out: the ms from before the command to the match, or "timeout"; NAME.prom: the textfile then
timed() {
	local name=$1 pat=$2 neg= t0
	shift 2
	[ "$1" = ! ] && { neg=!; shift; }
	shift # --
	t0=$(ms)
	"$@" > $S/$name.cmd 2>&1
	if until_prom 10 "$pat" $neg; then echo $(($(ms) - t0)) > $S/$name.out; else echo timeout > $S/$name.out; fi
	cp $P $S/$name.prom 2> /dev/null
	echo "@@step $name $(cat $S/$name.out)" > /dev/console
}
# quiet: until the textfile has not been rewritten for 1.5 s (20 s at most): the judgements are done
quiet() {
	local last now same=0 i=0
	last=$(stat -c %i $P 2> /dev/null)
	while [ $same -lt 15 ] && [ $i -lt 200 ]; do
		sleep 0.1; i=$((i + 1))
		now=$(stat -c %i $P 2> /dev/null)
		if [ "$now" = "$last" ]; then same=$((same + 1)); else same=0 last=$now; fi
	done
}
vm_rss() { awk '/^VmRSS:/ {print $2}' /proc/$wp/status; }
is_watch() { grep -qx rdma-doctor /proc/$wp/comm; } # it runs (watch's pid is rdma-doctor's)
cpu_ticks() { awk '{print $14 + $15}' /proc/$wp/stat; }
port_fail='^rdma_doctor_check_status\{check="ports.state",subject="rxe0 port 1"\} 2$'
port_active='^rdma_doctor_port_state_id\{device="rxe0",port="1"\} 4$'
port_down='^rdma_doctor_port_state_id\{device="rxe0",port="1"\} 1$'
rxe_there='^rdma_doctor_device_info\{device="rxe0",'
flaps=50
watch_steps() {
	mkdir -p $W
	rm -f $P
	env -u SOURCE_DATE_EPOCH $RD watch --output $P --interval 300 > $S/watch.out 2> $S/watch.err &
	wp=$!
	timed watch-start "$port_active" -- true
	step watch-pid echo $wp
	quiet
	timed watch-down "$port_fail" -- ip link set eth0 down
	# rtnetlink tells the netdev's change before rxe's port follows: the port read again a second later
	timed watch-down-settled "$port_down" -- true
	timed watch-up "$port_fail" ! -- ip link set eth0 up
	until_prom 10 "$port_active"
	# a ConnectX firmware error as mlx5_core logs it (kernel.log's "Fatal error" signature)
	timed watch-kmsg '^rdma_doctor_check_status\{check="kernel.log",subject="[^"]*"\} 2$' -- \
		sh -c 'echo "<3>mlx5_core 0000:9a:00.0: mlx5_health_try_recover: Fatal error 1 detected" > /dev/kmsg'
	# the device goes and comes back: the delete must not wait for watch
	step watch-alive-delete is_watch
	bg_release="kill $wp"
	bg_timed watch-delete 5 rdma link delete rxe0
	timed watch-deleted "$rxe_there" ! -- true
	timed watch-added "$port_active" -- rdma link add rxe0 type rxe netdev eth0
	# rdma_rxe unloaded with rxe0 in place (its devices unregistered by the module), then ib_uverbs
	bg_timed watch-rmmod-rxe 5 rmmod rdma_rxe
	bg_release=
	timed watch-rmmod-rxe-prom "$rxe_there" ! -- true
	rmmod mlx5_ib rdma_ucm
	quiet
	step watch-rmmod-uverbs rmmod ib_uverbs
	quiet
	cp $P $S/watch-rmmod-uverbs.prom
	step watch-alive-rmmod is_watch
	timed watch-modprobe "$port_active" -- sh -c 'modprobe ib_uverbs && modprobe mlx5_ib && modprobe rdma_ucm &&
		modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0'
	quiet
	step watch-modprobe-ok sh -c "[ -f $P ] && ! grep -E 'check=\"modules.loaded\",subject=\"(ib_uverbs|rdma_ucm|mlx5_ib)\"' $P"
	# flaps: eth0 down and up, as fast as ip runs; every transition must reach watch (its netdev
	# event count, said when it stops); memory before and after
	step watch-rss-before vm_rss
	local t0 k=0
	t0=$(ms)
	while [ $k -lt $flaps ]; do ip link set eth0 down; ip link set eth0 up; k=$((k + 1)); done
	step watch-flaps echo "$flaps $(($(ms) - t0))"
	quiet
	step watch-rss-after vm_rss
	cp $P $S/watch-flaps.prom
	# idle: 10 s without an event
	c0=$(cpu_ticks)
	sleep 10
	step watch-idle echo "$c0 $(cpu_ticks) $(cat /proc/$wp/comm)" # clock ticks: USER_HZ, 100 on x86
	kill -TERM $wp
	wait $wp
	echo $? > $S/watch-exit.rc
	echo "@@step watch-exit rc=$(cat $S/watch-exit.rc)" > /dev/console
}
# bench_steps N: N link flips of eth0 under watch, each from the command to the textfile showing it,
# 0.3 s apart (an event after a quiet spell, not one the debounce holds); the ms in bench.out
bench_steps() {
	mkdir -p $W
	rm -f $P
	env -u SOURCE_DATE_EPOCH $RD watch --output $P --interval 300 > $S/bench-watch.out 2> $S/bench-watch.err &
	wp=$!
	until_prom 60 "$port_active"
	quiet
	: > $S/bench.out
	local k=0
	while [ $k -lt $1 ]; do
		sleep 0.3
		if [ $((k % 2)) = 0 ]; then timed bench-flip "$port_fail" -- ip link set eth0 down
		else timed bench-flip "$port_fail" ! -- ip link set eth0 up; fi
		cat $S/bench-flip.out >> $S/bench.out
		k=$((k + 1))
	done
	kill -TERM $wp
	wait $wp
	echo $? > $S/bench-exit.rc
}
# soak_steps: watch over a long run (bench/watch-soak.sh): rdvm.soak=SECONDS,FLAPS on the kernel
# command line (default 3600,1000).  FLAPS flaps of eth0 in bursts of 100, a flood of 20,000
# ACCESS_REG failure lines in /dev/kmsg, then a flap every 30 s until SECONDS have passed, with
# watch's full check every 60 s.  soak.out: "SECONDS_SINCE_START FLAPS_SO_FAR RSS_KIB CPU_TICKS FDS
# WHAT" after each burst, after the flood and every 30 s; soak-watch.out: watch's own lines.
soak_sample() { echo "$(($(($(ms) - soak_t0)) / 1000)) $soak_flaps $(vm_rss) $(cpu_ticks) $(ls /proc/$wp/fd | wc -l) $1" >> $S/soak.out; }
soak_steps() {
	local secs=3600 total=1000 w k
	w=$(sed -n 's/.*rdvm\.soak=\([0-9]*\),\([0-9]*\).*/\1 \2/p' /proc/cmdline)
	[ -n "$w" ] && { secs=${w% *}; total=${w#* }; }
	mkdir -p $W
	rm -f $P
	env -u SOURCE_DATE_EPOCH $RD watch --output $P --interval 60 > $S/soak-watch.out 2> $S/soak-watch.err &
	wp=$!
	until_prom 60 "$port_active"
	quiet
	soak_t0=$(ms) soak_flaps=0
	: > $S/soak.out
	soak_sample start
	ls -l /proc/$wp/fd > $S/soak-fds-start.out 2>&1
	while [ $soak_flaps -lt $total ]; do
		k=0
		while [ $k -lt 100 ] && [ $soak_flaps -lt $total ]; do
			ip link set eth0 down; ip link set eth0 up
			k=$((k + 1)) soak_flaps=$((soak_flaps + 1))
		done
		quiet
		soak_sample flaps
	done
	k=0
	while [ $k -lt 20000 ]; do
		echo "<3>mlx5_core 0000:9a:00.0: mlx5_cmd_out_err:838:(pid 1): ACCESS_REG(0x805) op_mod(0x1) failed, status bad parameter(0x3), syndrome (0x15c356), err(-22)" > /dev/kmsg
		k=$((k + 1))
	done
	quiet
	soak_sample flood
	while [ $(($(ms) - soak_t0)) -lt $((secs * 1000)) ]; do
		sleep 30
		ip link set eth0 down; sleep 1; ip link set eth0 up
		soak_flaps=$((soak_flaps + 1))
		soak_sample idle
	done
	until_prom 10 "$port_active"
	cp $P $S/soak.prom
	ls -l /proc/$wp/fd > $S/soak-fds-end.out 2>&1
	kill -TERM $wp
	wait $wp
	echo $? > $S/soak-exit.rc
}
ip link set lo up
ip link set eth0 up

# ---- the two-guest phases (tests/vm/pair.sh): Soft-RoCE on each end of a private Ethernet link
# (a qemu socket netdev on the host's loopback); the server is 10.9.0.1, the client 10.9.0.2.
# Each server step serves one client and ends; each client step retries its connection until the
# server's step listens, so that the two guests keep step.
if [ "${1:-}" = pairserver ] || [ "${1:-}" = pairclient ]; then
	if [ "$1" = pairserver ]; then me=10.9.0.1 peer=10.9.0.2 name=pairsrv; else me=10.9.0.2 peer=10.9.0.1 name=paircli; fi
	hostname $name
	ip addr add $me/24 dev eth0
	modprobe crc32_generic
	modprobe rdma_rxe
	modprobe ib_uverbs
	rdma link add rxe0 type rxe netdev eth0
	wait_state rxe0 ACTIVE
	# the RoCE v2 GID of the IPv4 address, for perftest's -x (rdma-doctor picks it as NCCL does)
	idx=""
	for t in /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/*; do
		i=${t##*/}
		[ "$(cat "$t" 2> /dev/null)" = "RoCE v2" ] || continue
		case "$(cat /sys/class/infiniband/rxe0/ports/1/gids/$i)" in 0000:0000:0000:0000:0000:ffff:*) idx=$i; break ;; esac
	done
	echo "${idx:-none}" > $S/gid-index.out
	# retry NAME COMMAND...: a client step, again while its peer's step is not listening (60 s)
	retry() {
		n=$1; shift
		k=0
		while :; do
			step "$n" "$@"
			grep -qiE 'cannot connect|Couldn.t connect|Connection refused' $S/$n.out $S/$n.err 2> /dev/null || break
			k=$((k + 1)); [ $k -lt 120 ] || break
			sleep 0.5
		done
	}
	if [ "$1" = pairserver ]; then
		step pair-serve $RD pair serve --once --idle 120
		step perf-bw-serve ib_write_bw -d rxe0 -x "$idx" -F -D 2
		step perf-lat-serve ib_write_lat -d rxe0 -x "$idx" -F -n 100
		step pair-serve-text $RD pair serve --once --idle 120
		# the client dies in the middle of its run: this end ends with an error, nothing left behind
		step pair-serve-peer-dies $RD pair serve --once --idle 120
		step pair-after-death sh -c 'ps | grep "[r]dma-doctor" ; true'
		step pair-serve-slow $RD pair serve --once --idle 120
		step pair-asan-serve rdma-doctor-asan pair serve --once --idle 120
	else
		retry pair-json $RD pair --timeout 60 $peer --json --round 3
		retry perf-bw ib_write_bw -d rxe0 -x "$idx" -F -D 2 $peer
		retry perf-lat ib_write_lat -d rxe0 -x "$idx" -F -n 100 $peer
		retry pair-text $RD pair $peer --size 64K --duration 500
		sleep 2
		step pair-killed timeout -s KILL 6 $RD pair $peer --size 64K,1M --duration 4000
		sleep 3
		# a slowed link: the client's frames leave through netem at 10 Mbit/s, which delays each
		# frame and drops none.  Not tbf: tbf holds rxe's skbs as rxe's own, so rxe's cap of 64
		# in-flight skbs stalls the sender in bursts; the link idles, ACKs come late, and rxe
		# retransmits (through tbf some ten retries a run, nothing dropped), a path on which rxe
		# under TCG has failed the transfer with a remote invalid request.  netem orphans the
		# frames it holds: rxe's 128 unacknowledged packets a QP (some 140 KB) bound its queue,
		# and the limit, in packets, leaves it nothing to refuse (rxe would send a refused frame
		# again at once); tc-stats: netem's count of drops, which pair.sh reads.  The writes are
		# 32 KiB: rxe asks for an ACK at a write's last packet, one each 32 frames, 28 ms at this
		# rate, well inside the QP's 67 ms retransmission timeout (at 64 KiB, 55 ms: a guest
		# stalled for 12 ms would retransmit).  rxe-retries: the retries rxe made, printed with
		# the figure
		retries=/sys/class/infiniband/rxe0/ports/1/hw_counters/completer_retry_err
		step rxe-retries-before cat $retries
		step tc-slow /usr/sbin/tc qdisc add dev eth0 root netem rate 10mbit limit 100000
		retry pair-slow $RD pair --timeout 60 $peer --json --size 32K
		step tc-stats /usr/sbin/tc -s qdisc show dev eth0
		step rxe-retries-after cat $retries
		# the ASan+UBSan pair at the link's own speed: the queue off again
		step tc-fast /usr/sbin/tc qdisc del dev eth0 root
		retry pair-asan rdma-doctor-asan pair --timeout 90 $peer --json --size 64K --duration 300
		step pair-refused $RD pair 10.9.0.1:18999 --json
	fi
	sync
	exit 0
fi

ip addr add 10.0.2.15/24 dev eth0

# ---- the many-guest phase (tests/vm/pairs.sh): guests on one qemu multicast hub, each with its
# name and address on the kernel command line (rdvm.node=g2 rdvm.ip=10.9.1.2
# rdvm.hosts=g1/10.9.1.1,g2/10.9.1.2,... rdvm.slow=g4).  Every link is shaped by netem, so that a
# pair's rate is the shaper's and not what the emulator has to spare (under TCG that varies with
# the host's load by a factor of three): 5 Mbit/s, and 500 kbit/s both ways for the slow node (its
# own frames, and the frames every other guest addresses to it: a prio qdisc of two bands whose
# u32 filter sends the slow node's address to the second).  The rounds are the
# host's: round R starts when /out/next-R holds its SPEC (what `pairs --run` starts on every node:
# `pair --step SPEC --round R` as the node $SLURMD_NODENAME), "done" ends; the clients' documents
# are in round-R.json
if [ "${1:-}" = pairs ]; then
	arg() { sed -n "s/.*rdvm\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
	node=$(arg node) ip=$(arg ip) hosts=$(arg hosts) slow=$(arg slow)
	hostname "$node"
	echo "127.0.0.1 localhost" > /etc/hosts
	for h in $(echo "$hosts" | tr ',' ' '); do echo "${h#*/} ${h%/*}" >> /etc/hosts; done
	ip addr del 10.0.2.15/24 dev eth0 # the single guest's address: every guest has it
	ip addr add "$ip/24" dev eth0
	modprobe crc32_generic
	modprobe rdma_rxe
	modprobe ib_uverbs
	rdma link add rxe0 type rxe netdev eth0
	wait_state rxe0 ACTIVE
	slow_ip=$(awk -v n="$slow" '$2 == n { print $1 }' /etc/hosts)
	if [ "$node" = "$slow" ]; then
		step tc-slow /usr/sbin/tc qdisc add dev eth0 root netem rate 500kbit limit 100000
	elif [ -n "$slow_ip" ]; then
		step tc-slow sh -c "/usr/sbin/tc qdisc add dev eth0 root handle 1: prio bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
			/usr/sbin/tc qdisc add dev eth0 parent 1:1 handle 10: netem rate 5mbit limit 100000 &&
			/usr/sbin/tc qdisc add dev eth0 parent 1:2 handle 20: netem rate 500kbit limit 100000 &&
			/usr/sbin/tc filter add dev eth0 parent 1:0 protocol ip u32 match ip dst $slow_ip/32 flowid 1:2"
	fi
	# every peer answers before the first round (the guests boot at their own pace)
	for h in $(echo "$hosts" | tr ',' ' '); do
		k=0
		until ping -c 1 -W 1 "${h#*/}" > /dev/null 2>&1 || [ $k -ge 120 ]; do k=$((k + 1)); sleep 0.5; done
		echo "${h%/*} $k" >> $S/peers.out
	done
	echo ready > $S/ready
	r=1
	while [ $r -le 8 ]; do
		k=0
		until [ -s /out/next-$r ] || [ $k -ge 1200 ]; do k=$((k + 1)); sleep 0.25; done
		spec=$(cat /out/next-$r 2> /dev/null)
		case "$spec" in "" | done) break ;; esac
		SLURMD_NODENAME=$node $RD pair --step "$spec" --round $r --timeout 60 --size 4K --duration 500 > $S/round-$r.json 2> $S/round-$r.err
		echo $? > $S/round-$r.rc
		r=$((r + 1))
	done
	step tc-stats /usr/sbin/tc -s qdisc show dev eth0
	sync
	echo "@@guest-done" > /dev/console
	exit 0
fi

# ---- the watch phase (watch's steps alone) and the bench phases (bench/watch-latency.sh,
# bench/watch-soak.sh): rxe0 on eth0 with the nine modules, then those steps only
case "${1:-}" in
watch|bench|soak)
	modprobe crc32_generic
	modprobe rdma_rxe
	for m in $nine; do modprobe $m; done
	rdma link add rxe0 type rxe netdev eth0
	wait_state rxe0 ACTIVE
	case $1 in watch) watch_experiment; watch_steps ;; bench) bench_steps 120 ;; soak) soak_steps ;; esac
	echo "@@guest-done" > /dev/console
	exit 0 ;;
esac

# ---- the second boot: the same VM and results directory, so the state file the first boot left
# on the share meets another boot_id and a new rxe0 whose counters start again from 0; only what
# link.counters needs is set up (rxe0), to keep this boot short
if [ "${1:-}" = reboot ]; then
	modprobe crc32_generic
	modprobe rdma_rxe
	rdma link add rxe0 type rxe netdev eth0
	wait_state rxe0 ACTIVE
	step reboot-boot-id cat /proc/sys/kernel/random/boot_id
	link_state reboot-state-before
	link_hw reboot-hw
	link_run reboot-counters 1764468000
	link_state reboot-state-after
	echo "@@guest-done" > /dev/console
	exit 0
fi

# ---- 1. a fresh host: nothing loaded, modules-load.d empty ------------------------------------
step fresh-modules cat /proc/modules
step fresh-check $RD check --format json
# with no RDMA device, fix plans nothing (the same answer as check); a Soft-RoCE device makes this
# an RDMA host: rdma_rxe brings ib_core and ib_uverbs, fix plans the rest and all nine for boot
step fresh-nohw-fix-plan $RD fix modules
modprobe crc32_generic
modprobe rdma_rxe
rdma link add rxe0 type rxe netdev eth0
step fresh-fix-plan $RD fix modules
step fresh-fix-apply $RD fix modules --apply
step fresh-fix-modules cat /proc/modules
step fresh-fix-conf cat /etc/modules-load.d/rdma.conf
step fresh-fix-again $RD fix modules --apply
# "reboot": unload everything, then what systemd runs at boot reads the file the fix wrote
unload_rdma
step boot-before cat /proc/modules
step boot-modules-load /lib/systemd/systemd-modules-load
step boot-after cat /proc/modules

# ---- 2. healthy: the nine modules, Soft-RoCE on eth0 -------------------------------------------
modprobe crc32_generic
modprobe rdma_rxe
for m in $nine; do modprobe $m; done
rdma link add rxe0 type rxe netdev eth0
wait_state rxe0 ACTIVE
step healthy-check $RD check --format json
step healthy-check-text $RD check
step healthy-stack $RD stack --format json
# roce.gid and `gids` on rxe0's real GID table, beside what sysfs holds (as show_gids reads it:
# INDEX GID VER DEV for each entry that is not all-zero or fe80::0)
step healthy-gids $RD gids
step healthy-gids-json $RD gids --format json
step healthy-gid-check env -u NCCL_IB_GID_INDEX $RD check --only roce.gid --format json
step healthy-gid-sysfs sh -c 'd=/sys/class/infiniband/rxe0/ports/1; for f in $d/gids/*; do
	i=${f##*/}; g=$(cat $f)
	case $g in 0000:0000:0000:0000:0000:0000:0000:0000|fe80:0000:0000:0000:0000:0000:0000:0000) continue ;; esac
	t=$(cat $d/gid_attrs/types/$i 2> /dev/null); echo "$i $g ${t##* } $(cat $d/gid_attrs/ndevs/$i 2> /dev/null)"
done | sort -n'
step gid-forced-check env NCCL_IB_GID_INDEX=0 $RD check --only roce.gid --format json
for args in "" "-l" "-p" "-s" "rxe0" "rxe0 1" "-s rxe0" "nosuch" "rxe0 2"; do
	n=$(echo "$args" | tr ' ' '_')
	# shellcheck disable=SC2086
	step "ibstat-ours$n" $RD ibstat $args
	# shellcheck disable=SC2086
	step "ibstat-real$n" ibstat $args
done
step ibstatus-ours $RD ibstatus
step ibstatus-real ibstatus
step ibstatus-ours-rxe0_1 $RD ibstatus rxe0:1
step ibstatus-real-rxe0_1 ibstatus rxe0:1
step healthy-ibv_devinfo ibv_devinfo -v
step healthy-perfquery timeout 20 perfquery
step healthy-probe $RD --timeout 120 probe --format json
step healthy-probe-text $RD --timeout 120 probe
step healthy-check-probe $RD --timeout 120 check --probe --format json
# eth0 without its IPv4 address: the kernel drops the address's GIDs; only fe80::/fec0:: ones stay
ip addr del 10.0.2.15/24 dev eth0
sleep 2
step gid-noaddr-check env -u NCCL_IB_GID_INDEX $RD check --only roce.gid --format json
step gid-noaddr-gids $RD gids
ip addr add 10.0.2.15/24 dev eth0
for i in 1 2 3 4 5 6 7 8 9 10; do grep -qs ffff:0a00:020f /sys/class/infiniband/rxe0/ports/1/gids/* && break; sleep 1; done
# link.counters on a real kernel: rxe's hw_counters read by two runs with probe traffic between
# (they move); the samples are kept on the share (/out/state), so a later boot of the guest with
# the same results directory meets them under another boot_id (a new baseline, no alarm)
mkdir -p /out/state
step link-boot-id cat /proc/sys/kernel/random/boot_id
link_state link-state-before
link_run link-counters-1 1764460800
link_state link-state-1
link_hw link-hw-1
$RD --timeout 120 probe > /dev/null 2>&1
link_hw link-hw-2
link_run link-counters-2 1764464400
link_state link-state-after
# the comparison is per counter: a kept sample whose sent_pkts is above today's reads as a counter
# that went down (cleared), a new baseline for it and no alarm (a copy: the share's file stays)
mkdir -p /tmp/link-down
for f in /out/state/*.link-state; do sed 's/^\(h rxe0 1 sent_pkts\) .*/\1 999999999/' "$f" > "/tmp/link-down/${f##*/}"; done
step link-counters-down env SOURCE_DATE_EPOCH=1764464460 $RD check --only link.counters --state-dir /tmp/link-down --format json
step facts-modules cat /proc/modules
step facts-devnodes ls -ln /dev/infiniband
step facts-limits cat /proc/self/limits

# ---- 3. snapshot inside, checked on the host ----------------------------------------------------
step snap-take $RD snapshot -o /out/snap.tar.gz
step snap-live-check $RD check --format json

# ---- 4. memlock: 64 KiB, then unlimited, as an unprivileged user (root has CAP_IPC_LOCK) --------
step memlock64-check sh -c "ulimit -l 64 && exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups $RD check --only memlock.limit --format json"
step memlock64-probe sh -c "ulimit -l 64 && exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups $RD --timeout 120 probe --format json"
step memlock64-probe-text sh -c "ulimit -l 64 && exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups $RD --timeout 120 probe"
step memlock64-check-probe sh -c "ulimit -l 64 && exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups $RD --timeout 120 check --probe --only memlock.limit --format json"
step memlockinf-check sh -c "ulimit -l unlimited && exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups $RD check --only memlock.limit --format json"
step memlockinf-probe sh -c "ulimit -l unlimited && exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups $RD --timeout 120 probe --format json"

# ---- 4b. uverbs0 closed to other users (a udev rule or a container runtime gone wrong) ------------
chmod 0600 /dev/infiniband/uverbs0
step perm-check $RD check --only devnodes.present --format json
step perm-probe sh -c "exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups $RD --timeout 120 probe --format json"
step perm-snap $RD snapshot -o /out/perm-snap.tar.gz
chmod 0666 /dev/infiniband/uverbs0

# ---- 5. ib_umad unloaded ------------------------------------------------------------------------
rmmod ib_umad
step umad-devnodes ls -ln /dev/infiniband
step umad-check $RD check --format json
step umad-ibstat-real ibstat
step umad-ibstat-ours $RD ibstat
step umad-ibstat-real-rxe0 ibstat rxe0
step umad-ibstat-ours-rxe0 $RD ibstat rxe0
step umad-perfquery timeout 20 perfquery
step umad-sminfo timeout 20 sminfo
modprobe ib_umad

# ---- 6. rdma_ucm unloaded -----------------------------------------------------------------------
rmmod rdma_ucm
step ucm-devnodes ls -ln /dev/infiniband
step ucm-check $RD check --format json
modprobe rdma_ucm

# ---- 6b. the sanitizer build on the real stack: probe passing and failing, check, snapshot -------
if [ -x /usr/local/bin/rdma-doctor-asan ]; then
	export ASAN_OPTIONS=detect_leaks=1:exitcode=99 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
	step asan-probe rdma-doctor-asan --timeout 120 probe
	step asan-check-probe rdma-doctor-asan --timeout 120 check --probe
	step asan-memlock64-probe sh -c "ulimit -l 64 && exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups rdma-doctor-asan --timeout 120 probe"
	step asan-snapshot rdma-doctor-asan snapshot -o /tmp/asan-snap.tar.gz
	step asan-ibstat rdma-doctor-asan ibstat
	step asan-fix rdma-doctor-asan fix modules
	unset ASAN_OPTIONS UBSAN_OPTIONS
fi

# ---- 6c. watch on the real kernel (the steps are defined above) ----------------------------------
watch_experiment
watch_steps

# ---- 7. probe failing cleanly: port down, no libibverbs, broken libibverbs, no device -----------
ip link set eth0 down
wait_state rxe0 DOWN
step portdown-probe $RD --timeout 120 probe --format json
step portdown-probe-text $RD --timeout 120 probe
[ -x /usr/local/bin/rdma-doctor-asan ] && ASAN_OPTIONS=detect_leaks=1:exitcode=99 step asan-portdown-probe rdma-doctor-asan --timeout 120 probe
ip link set eth0 up
wait_state rxe0 ACTIVE
lib=/usr/lib/x86_64-linux-gnu/libibverbs.so.1
mv $lib $lib.away
step nolib-probe $RD --timeout 120 probe
step nolib-check-probe $RD --timeout 120 check --probe --format json
[ -x /usr/local/bin/rdma-doctor-asan ] && ASAN_OPTIONS=detect_leaks=1:exitcode=99 step asan-nolib-probe rdma-doctor-asan --timeout 120 probe
printf 'not a library\n' > $lib
step badlib-probe $RD --timeout 120 probe
rm -f $lib
mv $lib.away $lib
rdma link delete rxe0
step nodev-probe $RD --timeout 120 probe
step nodev-probe-json $RD --timeout 120 probe --format json

# ---- 8. Soft-RoCE before crc32_generic (last: its kernel log lines stay) --------------------------
# with module autoloading the crypto API loads crc32_generic itself (request_module "crypto-crc32")
modprobe -r rdma_rxe crc32_generic
step crc-auto-before cat /proc/modules
step crc-auto-link-add sh -c "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0"
step crc-auto-after cat /proc/modules
rdma link delete rxe0 2> /dev/null
modprobe -r rdma_rxe crc32_generic
# without it (kernel.modprobe unusable: a minimal initramfs, a container host) rxe cannot start
modprobe_path=$(cat /proc/sys/kernel/modprobe)
echo /bin/false > /proc/sys/kernel/modprobe
step crc-link-add sh -c "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0"
step crc-dmesg dmesg
step crc-check $RD check --only kernel.log --format json
dmesg | grep rdma_rxe > /tmp/rxe.log
step crc-explain $RD explain --format json - < /tmp/rxe.log
echo "$modprobe_path" > /proc/sys/kernel/modprobe
rdma link delete rxe0 2> /dev/null
modprobe -r rdma_rxe

echo "@@guest-done" > /dev/console
