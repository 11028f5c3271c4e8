# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# link.sh — the link-health scenarios (link.counters, link.flaps, pcie.link, ports that are not
# compute ports), sourced by make.sh: link_build NAME builds one on the healthy base; LINK_ALL
# lists them.  A scenario that needs a previous sample writes it with `seed` to
# $out/.state/NAME/gpu-a01.link-state (run.sh copies it into a fresh --state-dir before each run).
# The runner's SOURCE_DATE_EPOCH is 1764460800; a seed is dated an hour before.

SEED_TIME=1764457200
P0=$PCIROOT/0000:1b:00.0/infiniband/mlx5_0/ports/1
P1=$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1
P2=$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/ports/1

# seed [BOOT_ID] — the sample a run an hour ago left, taken from the root as it is now.
seed() {
	local f="$out/.state/$S/gpu-a01.link-state" boot=${1:--} dev d p n c nd
	mkdir -p "$(dirname "$f")"
	{
		printf 'rdma-doctor-link-state 1\nhost gpu-a01\nboot_id %s\ntime %s\n' "$boot" "$SEED_TIME"
		for dev in "$R"/sys/class/infiniband/*; do
			d=${dev##*/}
			for p in "$dev"/ports/*; do
				n=${p##*/}
				for c in "$p"/counters/*; do [ -f "$c" ] && echo "c $d $n ${c##*/} $(cat "$c")"; done
				for c in "$p"/hw_counters/*; do
					[ -f "$c" ] && [ "${c##*/}" != lifespan ] && echo "h $d $n ${c##*/} $(cat "$c")"
				done
			done
		done
		for nd in "$R"/sys/class/net/*; do
			[ -f "$nd/carrier_changes" ] && echo "n ${nd##*/} carrier_changes $(cat "$nd/carrier_changes")"
		done
	} > "$f"
	return 0
}
# the 'e' lines of a sample: ethtool -S of the RoCE port's netdev as captured now (roce.congestion)
seed_ethtool() {
	local f="$out/.state/$S/gpu-a01.link-state" e=$R/$CMD/ethtool-S-enp193s0f0np0
	[ -f "$e" ] || return 0
	sed -n -E 's/^ +([a-z0-9_]+): ([0-9]+)$/e mlx5_2 1 \1 \2/p' "$e" >> "$f"
}
# ethtool_cap [NAME=VALUE...] — `ethtool -S enp193s0f0np0` of the ConnectX-6 Dx as mlx5_core prints
# it ("NIC statistics:", then "     name: value"; the names and layout of a real ConnectX capture,
# lore.kernel.org/bpf/CAMENy5rwoP0o9Gn67a-27ZXtzM7dGhJOwA4i5znihiNThR27SQ@mail.gmail.com), PFC
# on priority 3 in use; NAME=VALUE sets one counter (added when absent)
ethtool_cap() {
	local f=$R/$CMD/ethtool-S-enp193s0f0np0 kv k v
	printf '%s\n' 'NIC statistics:' '     rx_packets: 333854100' '     rx_bytes: 20031246044' \
		'     tx_packets: 25' '     rx_out_of_buffer: 0' '     rx_vport_rdma_unicast_packets: 98231140455' \
		'     tx_packets_phy: 5588396729' '     rx_packets_phy: 97052087562' '     tx_pause_ctrl_phy: 5745055' \
		'     rx_pause_ctrl_phy: 4120344' '     rx_discards_phy: 0' '     tx_discards_phy: 0' \
		'     rx_prio0_bytes: 6211318150440' '     rx_prio0_packets: 38460533605' '     rx_prio0_discards: 0' \
		'     rx_prio0_pause: 0' '     rx_prio0_pause_duration: 0' '     tx_prio0_pause: 0' '     tx_prio0_pause_duration: 0' \
		'     rx_prio3_bytes: 84719203847362' '     rx_prio3_packets: 20693166921' '     rx_prio3_discards: 0' \
		'     rx_prio3_pause: 41927' '     rx_prio3_pause_duration: 8134' '     tx_prio3_pause: 1290418' \
		'     tx_prio3_pause_duration: 2914772' '     rx_prio3_pause_transition: 39218' \
		'     tx_pause_storm_warning_events: 0' '     tx_pause_storm_error_events: 0' > "$f"
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		if grep -q "^     $k: " "$f"; then sed -i -E "s/^(     $k: ).*\$/\1$v/" "$f"; else echo "     $k: $v" >> "$f"; fi
	done
	attr "$CMD/ethtool-S-enp193s0f0np0.status" 0
}
# MLNX_OFED with the RoCE function's captures and sysfs QoS (PFC on priority 3): no guide capture
# needed, so these scenarios run in a plain clone too
roce_base() { base mlnx; mft_roce; }
state_file() { mkdir -p "$out/.state/$S"; printf '%s' "$out/.state/$S/gpu-a01.link-state"; }
dmesg_add() { printf '%s\n' "$@" >> "$R/rdma-doctor/commands/dmesg"; }

# pcie_behind BDF ROOT_PORT SWITCH_PORT... — moves PCI function BDF (made by pcidev below the shared
# root port) below its own root port and the switch ports given, top down (upstream port,
# downstream port, ...), as an HGX board's Broadcom PEX890xx switches; every link into or out of
# the function's directory is made again for its new place.  Each port: a Gen5 x16 link.
pcie_behind() {
	local bdf=$1 rp=$2; shift 2
	local top=sys/devices/pci0000:00/$rp dir l t i p links=()
	dir=$top; for p in "$@"; do dir=$dir/$p; done
	local old=$R/$PCIROOT/$bdf new=$R/$dir/$bdf
	while IFS= read -r -d '' l; do
		t=$(realpath -ms "$(dirname "$l")/$(readlink "$l")")
		if [[ $l/ == "$old"/* || $t/ == "$old"/* ]]; then links+=("$l" "$t"); fi
	done < <(find "$R/sys" -type l -print0)
	mkdir -p "$R/$dir"; mv "$old" "$new"
	# the failing reads recorded for the function's files (gid_attrs) are at its new place too
	[ ! -f "$R/rdma-doctor/read-errors" ] || sed -i "s|	/$PCIROOT/$bdf/|	/$dir/$bdf/|" "$R/rdma-doctor/read-errors"
	for ((i = 0; i < ${#links[@]}; i += 2)); do
		l=${links[i]} t=${links[i + 1]}
		[[ $l/ == "$old"/* ]] && l=$new${l#"$old"}
		[[ $t/ == "$old"/* ]] && t=$new${t#"$old"}
		ln -sfn "$(realpath -ms --relative-to="$(dirname "$l")" "$t")" "$l"
	done
	attr "$top/vendor" 0x8086; attr "$top/class" 0x060400
	pcielink "$top" "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16
	dir=$top
	for p in "$@"; do
		dir=$dir/$p
		attr "$dir/vendor" 0x1000; attr "$dir/device" 0xc030; attr "$dir/class" 0x060400
		pcielink "$dir" "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16
		lnk "sys/bus/pci/devices/$p" "../../../${dir#sys/}"
	done
	lnk "sys/bus/pci/devices/$rp" "../../../${top#sys/}"
}
# mlx5_0 behind two switches: root port 00:03.0, switch 1 (upstream 10:00.0, downstream 11:00.0),
# switch 2 (upstream 12:00.0, downstream 13:00.0), the HCA 1b:00.0
SW=sys/devices/pci0000:00/0000:00:03.0
SW_U1=$SW/0000:10:00.0 SW_D1=$SW/0000:10:00.0/0000:11:00.0
SW_U2=$SW_D1/0000:12:00.0 SW_D2=$SW_D1/0000:12:00.0/0000:13:00.0
switches() { pcie_behind 0000:1b:00.0 0000:00:03.0 0000:10:00.0 0000:11:00.0 0000:12:00.0 0000:13:00.0; }

# mlx5_0 as the function 10000:e1:00.0 of an Intel VMD domain (VMD endpoint 0000:00:0e.0, its
# root port 10000:e0:01.0): a PCI domain of five hex digits
vmd() {
	local old=$R/$PCIROOT/0000:1b:00.0 vdir=sys/devices/pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:01.0
	local new=$R/$vdir/10000:e1:00.0 l t links=() i
	while IFS= read -r -d '' l; do
		t=$(realpath -ms "$(dirname "$l")/$(readlink "$l")")
		if [[ $l/ == "$old"/* || $t/ == "$old"/* ]]; then links+=("$l" "$t"); fi
	done < <(find "$R/sys" -type l -print0)
	mkdir -p "$R/$vdir"; mv "$old" "$new"
	[ ! -f "$R/rdma-doctor/read-errors" ] || sed -i "s|	/$PCIROOT/0000:1b:00.0/|	/$vdir/10000:e1:00.0/|" "$R/rdma-doctor/read-errors"
	for ((i = 0; i < ${#links[@]}; i += 2)); do
		l=${links[i]} t=${links[i + 1]}
		[[ $l/ == "$old"/* ]] && l=$new${l#"$old"}
		[[ $t/ == "$old"/* ]] && t=$new${t#"$old"}
		rm -f "${links[i]}"
		[[ $l == "$R/sys/bus/pci/devices/0000:1b:00.0" ]] && l=$R/sys/bus/pci/devices/10000:e1:00.0
		ln -sfn "$(realpath -ms --relative-to="$(dirname "$l")" "$t")" "$l"
	done
	attr "sys/devices/pci0000:00/0000:00:0e.0/vendor" 0x8086; attr "sys/devices/pci0000:00/0000:00:0e.0/class" 0x010400
	attr "$vdir/vendor" 0x8086; attr "$vdir/class" 0x060400
	pcielink "$vdir" "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16
	lnk "sys/bus/pci/devices/10000:e0:01.0" "../../../${vdir#sys/}"
}

link_build() {
	S=$1
	case "$1" in
	link-downed-rose)
		base; seed; attr "$P0/counters/link_downed" 3 ;;
	link-symbol-errors-past-budget)
		# 400 Gb/s for an hour at BER 1e-12: 1440 symbol errors; 5000 is past it
		base; seed; attr "$P0/counters/symbol_error" 5000 ;;
	link-rcv-errors-past-policy)
		base; attr etc/rdma-doctor.conf "$(printf '[counters]\nport_rcv_errors_per_hour = 1000\n')"
		seed; attr "$P1/counters/port_rcv_errors" 9000 ;;
	link-xmit-discards-rose)
		base; seed; attr "$P2/counters/port_xmit_discards" 40 ;;
	link-counter-saturated)
		# a 4-bit counter at 15 in both samples: saturated, not "no change"
		base; attr "$P0/counters/local_link_integrity_errors" 15; seed ;;
	link-integrity-to-ceiling)
		# a 4-bit counter rising from 12 to its ceiling: a rise, and saturated now
		base; attr "$P1/counters/local_link_integrity_errors" 12; seed; attr "$P1/counters/local_link_integrity_errors" 15 ;;
	link-rnr-nak-rose)
		base; attr "$P2/hw_counters/rnr_nak_retry_err" 0; seed; attr "$P2/hw_counters/rnr_nak_retry_err" 7 ;;
	link-counters-after-reboot)
		# counters moved, but the host booted in between (another boot_id): a new baseline
		base; attr proc/sys/kernel/random/boot_id 5b1f0e47-4e52-4cde-9a63-8f3f1d0c2e11
		seed 0d5c1c7e-22aa-4d0b-b7a1-6f1f9d3e8c42; attr "$P0/counters/link_downed" 4 ;;
	link-counters-cleared)
		# symbol_error went down (perfquery -R): a new baseline, no alarm
		base; attr "$P0/counters/symbol_error" 60000; seed; attr "$P0/counters/symbol_error" 3 ;;
	link-counters-no-pma)
		# old kernels print "N/A (no PMA)" when the PMA query fails: not available, not an error
		base; seed
		for c in symbol_error link_downed link_error_recovery port_rcv_errors port_xmit_discards; do
			attr "$P2/counters/$c" "N/A (no PMA)"
		done ;;
	link-counters-refused)
		# a restricted function refuses counter reads (EINVAL): remembered, UNKNOWN, not a failure
		base; seed; readerr EINVAL "$P1/counters/link_downed" ;;
	link-counters-excluded)
		base; attr etc/rdma-doctor.conf "$(printf '[counters]\nexclude = mlx5_1\n')"
		seed; readerr EINVAL "$P1/counters/link_downed" ;;
	link-state-corrupt)
		base; printf 'rdma-doctor-link-state 1\nhost gpu-a01\n\001\002garbage\n' > "$(state_file)" ;;
	link-state-huge)
		base; f=$(state_file); seed; head -c 1100000 /dev/zero | tr '\0' '#' >> "$f" ;;
	link-state-symlink)
		# the state file is a link out of the state directory: not followed, not replaced
		base; ln -s /etc/passwd "$(state_file)" ;;
	link-flaps-carrier)
		base; seed; attr "$PCIROOT/0000:c1:00.0/net/enp193s0f0np0/carrier_changes" 9 ;;
	link-flaps-lost-carrier)
		base; attr proc/uptime "90000.00 170000.00"
		dmesg_add "[ 1000.000001] ibp27s0: lost carrier" # more than 24 h ago: not counted
		for t in 80001 81002 82003 83004 84005; do dmesg_add "[$t.000000] ibp27s0: lost carrier"; done ;;
	link-flaps-module-event)
		base; dmesg_add "[ 5120.330101] mlx5_core 0000:c1:00.0: Port module event[error]: module 0, Cable error, High Temperature" ;;
	link-flaps-cable-replugged)
		base; dmesg_add "[ 5120.330101] mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged" \
			"[ 5188.000002] mlx5_core 0000:c1:00.0: Port module event: module 0, Cable plugged" ;;
	link-flaps-cable-unplugged-active)
		# mlx5's "Port module event: module %u, %s" (drivers/net/ethernet/mellanox/mlx5/core/events.c,
		# "Cable unplugged") with no plug line after it, and the port Active now: no WARN
		base; dmesg_add "[ 5120.330101] mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged" ;;
	link-flaps-cable-unplugged-down)
		# the same line and the port down: the cable is still out
		base; dmesg_add "[ 5120.330101] mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged"
		attr "$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/ports/1/state" "1: DOWN"
		attr "$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/ports/1/phys_state" "3: Disabled" ;;
	pcie-x8-link)
		# a Gen5 x16 HCA trained at x8 in a x16 slot
		base; pcielink "$PCIROOT/0000:1b:00.0" "32.0 GT/s PCIe" 8 "32.0 GT/s PCIe" 16
		dmesg_add "[    4.210001] mlx5_core 0000:1b:00.0: 252.056 Gb/s available PCIe bandwidth, limited by 32.0 GT/s PCIe x8 link at 0000:00:01.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)" ;;
	pcie-gen4-slot)
		# a Gen5 HCA in a Gen4 slot: 16 GT/s is all both ends can do, not a degraded link
		base; pcielink "$PCIROOT" "16.0 GT/s PCIe" 16 "16.0 GT/s PCIe" 16
		for f in 0000:1b:00.0 0000:9a:00.0 0000:c1:00.0; do pcielink "$PCIROOT/$f" "16.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16; done ;;
	pcie-below-policy-width)
		# an x8 card trained at its full x8, but the policy wants x16 HCAs
		base; attr etc/rdma-doctor.conf "$(printf '[pcie]\nmin_width = 16\n')"
		pcielink "$PCIROOT/0000:c1:00.0" "16.0 GT/s PCIe" 8 "16.0 GT/s PCIe" 8 ;;
	pcie-vmd-x8)
		# mlx5_0 in an Intel VMD domain, its own link trained at x8 of x16
		base; vmd; pcielink "sys/devices/pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:01.0/10000:e1:00.0" "32.0 GT/s PCIe" 8 "32.0 GT/s PCIe" 16 ;;
	pcie-switch-healthy)
		# an HGX-style path: mlx5_0 behind two PCIe switches, every link at Gen5 x16
		base; switches ;;
	pcie-switch-uplink-x8)
		# the first switch's uplink to the root port trained at x8; the HCA's own link is x16
		base; switches; pcielink "$SW_U1" "32.0 GT/s PCIe" 8 "32.0 GT/s PCIe" 16
		pcielink "$SW" "32.0 GT/s PCIe" 8 "32.0 GT/s PCIe" 16
		dmesg_add "[    4.210001] mlx5_core 0000:1b:00.0: 252.056 Gb/s available PCIe bandwidth, limited by 32.0 GT/s PCIe x8 link at 0000:00:03.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)" ;;
	pcie-switch-middle-x8)
		# the link between the two switches trained at x8
		base; switches; pcielink "$SW_U2" "32.0 GT/s PCIe" 8 "32.0 GT/s PCIe" 16
		pcielink "$SW_D1" "32.0 GT/s PCIe" 8 "32.0 GT/s PCIe" 16
		dmesg_add "[    4.210001] mlx5_core 0000:1b:00.0: 252.056 Gb/s available PCIe bandwidth, limited by 32.0 GT/s PCIe x8 link at 0000:11:00.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)" ;;
	pcie-switch-x8-port)
		# the second switch's downstream port can do x8 only: the HCA's x8 is all both ends can do
		# (not a degraded link; the kernel still says the slot caps the card's bandwidth)
		base; switches; pcielink "$SW_D2" "32.0 GT/s PCIe" 8 "32.0 GT/s PCIe" 8
		pcielink "$SW_D2/0000:1b:00.0" "32.0 GT/s PCIe" 8 "32.0 GT/s PCIe" 16
		dmesg_add "[    4.210001] mlx5_core 0000:1b:00.0: 252.056 Gb/s available PCIe bandwidth, limited by 32.0 GT/s PCIe x8 link at 0000:13:00.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)" ;;
	pcie-switch-uplink-below-policy)
		# pcie-switch-uplink-x8 under a policy that wants x16 links
		base; attr etc/rdma-doctor.conf "$(printf '[pcie]\nmin_width = 16\n')"
		switches; pcielink "$SW_U1" "32.0 GT/s PCIe" 8 "32.0 GT/s PCIe" 16
		pcielink "$SW" "32.0 GT/s PCIe" 8 "32.0 GT/s PCIe" 16 ;;
	roce-congestion-first-sample)
		# ethtool's counters and hw_counters, no earlier sample: a baseline
		roce_base; ethtool_cap ;;
	roce-congestion-pfc-working)
		# pause on priority 3, the PFC priority, and ECN marks: congestion control at work, no alarm
		# (720 s of pause in an hour: 20% of the interval)
		roce_base; attr "$P2/hw_counters/np_ecn_marked_roce_packets" 1000; attr "$P2/hw_counters/rp_cnp_handled" 800
		ethtool_cap; seed; seed_ethtool
		attr "$P2/hw_counters/np_ecn_marked_roce_packets" 91000; attr "$P2/hw_counters/rp_cnp_handled" 60800
		ethtool_cap rx_prio3_pause=46927 rx_prio3_pause_duration=720008134 ;;
	roce-congestion-pause-no-pfc)
		# the peer pauses priority 0, which has no PFC here (PFC on 3): the two ends disagree
		roce_base; ethtool_cap; seed; seed_ethtool
		ethtool_cap rx_prio0_pause=3000 rx_prio0_pause_duration=36000000 ;;
	roce-congestion-drops)
		# out_of_buffer and rx_discards_phy rose: packets dropped on a RoCE port
		roce_base; attr "$P2/hw_counters/out_of_buffer" 10; ethtool_cap; seed; seed_ethtool
		attr "$P2/hw_counters/out_of_buffer" 1210; ethtool_cap rx_discards_phy=37 rx_prio3_discards=37 ;;
	roce-congestion-ack-timeout)
		# inbox stack, no ethtool capture: hw_counters alone; ACK timeouts rose
		base; seed; attr "$P2/hw_counters/local_ack_timeout_err" 25; attr "$P2/hw_counters/out_of_sequence" 4 ;;
	roce-congestion-cnp-ignored)
		# CNPs ignored (the reaction point off on their priority) and a pause storm warning
		roce_base; attr "$P2/hw_counters/rp_cnp_ignored" 0; ethtool_cap; seed; seed_ethtool
		attr "$P2/hw_counters/rp_cnp_ignored" 5120; ethtool_cap tx_pause_storm_warning_events=2 ;;
	roce-congestion-ethtool-new)
		# the earlier sample had no ethtool counters (a run without --mft): they are first sampled now
		roce_base; seed; ethtool_cap rx_prio0_pause=3000 ;;
	port-vf-down)
		# an SR-IOV VF of mlx5_2, unassigned and Down by design: listed, not judged
		base
		pcidev 0000:c1:00.2 0x15b3 0x101e 1 mlx5_core
		lnk "$PCIROOT/0000:c1:00.2/physfn" ../0000:c1:00.0
		ibdev mlx5_3 0000:c1:00.2 MT4126 22.39.1002 MT_0000000359 b859:9f03:00e3:1430
		port 1 "1: DOWN" "3: Disabled" "100 Gb/sec (4X EDR)" Ethernet 0x0 0x0 0x00010000 \
			fe80:0000:0000:0000:0000:0000:0000:0000 ""
		uverbs 3 mlx5_3 0000:c1:00.2; umad 3 mlx5_3 1 0000:c1:00.2; issm 3 mlx5_3 1 0000:c1:00.2 ;;
	port-mgmt-nic-down)
		# the RoCE port's netdev carries the default route: the management NIC, not a compute port
		base; attr proc/net/route "$(printf 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\nenp193s0f0np0\t00000000\t010A0A0A\t0003\t0\t0\t100\t00000000\t0\t0\t0\n')"
		attr "$P2/state" "1: DOWN"; attr "$P2/phys_state" "3: Disabled" ;;
	port-mgmt-roce-25g)
		# a second ConnectX-6 Dx of the same model, cabled to the 25 Gb/s management network: its
		# netdev carries the default route; mlx5_2, the compute RoCE port, runs at 200 Gb/s
		base; attr "$P2/rate" "200 Gb/sec (4X HDR)"
		pcidev 0000:c2:00.0 0x15b3 0x101d 1 mlx5_core
		attr "$PCIROOT/0000:c2:00.0/class" 0x020000
		ibdev mlx5_3 0000:c2:00.0 MT4125 22.39.1002 MT_0000000359 b859:9f03:00e3:2b10
		port 1 "4: ACTIVE" "5: LinkUp" "25 Gb/sec (1X EDR)" Ethernet 0x0 0x0 0x00010000 \
			fe80:0000:0000:0000:ba59:9fff:fee3:2b10 enp194s0f0np0
		rocev2 1 1 fe80:0000:0000:0000:ba59:9fff:fee3:2b10 enp194s0f0np0
		rocev2 1 3 0000:0000:0000:0000:0000:ffff:0a14:0021 enp194s0f0np0
		uverbs 3 mlx5_3 0000:c2:00.0; umad 3 mlx5_3 1 0000:c2:00.0; issm 3 mlx5_3 1 0000:c2:00.0
		netdev enp194s0f0np0 0000:c2:00.0 1500
		attr proc/net/route "$(printf 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\nenp194s0f0np0\t00000000\t0100140A\t0003\t0\t0\t100\t00000000\t0\t0\t0\nenp194s0f0np0\t0000140A\t00000000\t0001\t0\t0\t100\t0000FFFF\t0\t0\t0\n')" ;;
	port-multiplane-data-ports)
		# a ConnectX-8 multi-plane device: four ports, the policy says 3 carries data; 1, 2, 4 are down
		base; attr etc/rdma-doctor.conf "$(printf '[ports]\ndata_ports = mlx5_3:3\n')"
		pcidev 0000:3b:00.0 0x15b3 0x1023 0 mlx5_core
		ibdev mlx5_3 0000:3b:00.0 MT4131 40.44.1036 MT_0000001093 a088:c203:00d1:0a10
		for n in 1 2 3 4; do
			if [ $n = 3 ]; then port $n "4: ACTIVE" "5: LinkUp" "800 Gb/sec (4X XDR)" InfiniBand 0x31 0x1 0xa651e848 fe80:0000:0000:0000:a088:c203:00d1:0a10
			else port $n "1: DOWN" "2: Polling" "10 Gb/sec (4X SDR)" InfiniBand 0xffff 0x0 0xa651e848 fe80:0000:0000:0000:a088:c203:00d1:0a10; fi
			[ $n = 1 ] && { uverbs 3 mlx5_3 0000:3b:00.0; }
			umad $((2 + n)) mlx5_3 $n 0000:3b:00.0; issm $((2 + n)) mlx5_3 $n 0000:3b:00.0
		done ;;
	*) echo "make.sh: no scenario $1" >&2; exit 2 ;;
	esac
}

LINK_ALL=(link-downed-rose link-symbol-errors-past-budget link-rcv-errors-past-policy link-xmit-discards-rose
	link-counter-saturated link-integrity-to-ceiling link-rnr-nak-rose link-counters-after-reboot link-counters-cleared link-counters-no-pma
	link-counters-refused link-counters-excluded link-state-corrupt link-state-huge link-state-symlink
	link-flaps-carrier link-flaps-lost-carrier link-flaps-module-event link-flaps-cable-replugged
	link-flaps-cable-unplugged-active link-flaps-cable-unplugged-down
	pcie-x8-link pcie-gen4-slot pcie-below-policy-width
	pcie-vmd-x8 pcie-switch-healthy pcie-switch-uplink-x8 pcie-switch-middle-x8 pcie-switch-x8-port pcie-switch-uplink-below-policy
	port-vf-down port-mgmt-nic-down port-mgmt-roce-25g port-multiplane-data-ports
	roce-congestion-first-sample roce-congestion-pfc-working roce-congestion-pause-no-pfc roce-congestion-drops
	roce-congestion-ack-timeout roce-congestion-cnp-ignored roce-congestion-ethtool-new)
