#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# make.sh OUTDIR [NAME...] — writes the scenario roots: small hosts, each healthy or with exactly
# one failure from the operator's guide, named for it.  Built on tools/rootlib.sh, in the kernel's
# formats (../shared/reference/rdma-host-facts.md).  tests/scenarios/run.sh checks each one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ -z "$1" ]; then
	echo "Usage: tests/scenarios/make.sh OUTDIR [NAME...]: writes the scenario roots (all, or those named) into OUTDIR" >&2
	exit 2
fi
out=$1; shift
. "$here/../../tools/rootlib.sh"
export LC_ALL=C
KVER=6.1.0-31-amd64

# ---- the healthy base: 2x ConnectX-7 NDR IB + 1x ConnectX-6 Dx RoCE, 4 GPUs, inbox stack ----
base() {
	local ofed=${1:-}    # "" inbox, "mlnx" MLNX_OFED, "doca" DOCA-OFED
	host gpu-a01 "$KVER"
	limits unlimited unlimited
	local t= v= fw7=28.41.1000 fw6=22.39.1002
	[ -n "$ofed" ] && t=OE
	# an OFED host runs the firmware its release ships (MLNX_OFED 24.10-1.1.4.0: xx.43.2026)
	[ -n "$ofed" ] && fw7=28.43.2026 fw6=22.43.2026
	pcidev 0000:1b:00.0 0x15b3 0x1021 0 mlx5_core
	ibdev mlx5_0 0000:1b:00.0 MT4129 $fw7 MT_0000000838 a088:c203:00c8:de4a
	port 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)" InfiniBand 0x29 0x1 0xa651e848 fe80:0000:0000:0000:a088:c203:00c8:de4a
	[ -n "$ofed" ] && attr "$IBDIR/ports/1/has_smi" 1
	uverbs 0 mlx5_0 0000:1b:00.0; umad 0 mlx5_0 1 0000:1b:00.0; issm 0 mlx5_0 1 0000:1b:00.0
	netdev ibp27s0 0000:1b:00.0 2044
	pcidev 0000:9a:00.0 0x15b3 0x1021 1 mlx5_core
	ibdev mlx5_1 0000:9a:00.0 MT4129 $fw7 MT_0000000838 a088:c203:00c8:e1f2
	port 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)" InfiniBand 0x2a 0x1 0xa651e848 fe80:0000:0000:0000:a088:c203:00c8:e1f2
	[ -n "$ofed" ] && attr "$IBDIR/ports/1/has_smi" 1
	uverbs 1 mlx5_1 0000:9a:00.0; umad 1 mlx5_1 1 0000:9a:00.0; issm 1 mlx5_1 1 0000:9a:00.0
	netdev ibp154s0 0000:9a:00.0 2044
	pcidev 0000:c1:00.0 0x15b3 0x101d 1 mlx5_core
	attr "$PCIROOT/0000:c1:00.0/class" 0x020000
	ibdev mlx5_2 0000:c1:00.0 MT4125 $fw6 MT_0000000359 b859:9f03:00e3:142a
	port 1 "4: ACTIVE" "5: LinkUp" "100 Gb/sec (4X EDR)" Ethernet 0x0 0x0 0x00010000 \
		fe80:0000:0000:0000:ba59:9fff:fee3:142a enp193s0f0np0
	[ -n "$ofed" ] && attr "$IBDIR/ports/1/has_smi" 0
	rocev2 1 1 fe80:0000:0000:0000:ba59:9fff:fee3:142a enp193s0f0np0
	rocev2 1 3 0000:0000:0000:0000:0000:ffff:0a0a:0511 enp193s0f0np0
	# RoCE ports have issm too (seen on a real kernel: tests/vm/fixtures/dev-infiniband.txt)
	uverbs 2 mlx5_2 0000:c1:00.0; umad 2 mlx5_2 1 0000:c1:00.0; issm 2 mlx5_2 1 0000:c1:00.0
	netdev enp193s0f0np0 0000:c1:00.0 9000
	rdma_cm
	for g in 0000:18:00.0 0000:2a:00.0 0000:ab:00.0 0000:ba:00.0; do
		pcidev "$g" 0x10de 0x2330 0 nvidia
		attr "$PCIROOT/$g/class" 0x030200
	done
	# modules, holders as the kernel lists them
	[ "$ofed" = mlnx ] && v=24.10-1.1.4
	[ "$ofed" = doca ] && v=25.10-1.7.1
	module nvidia_peermem 16384 0 - POE 550.127.05
	module mlx5_ib 483328 0 - "$t"
	module ib_uverbs 167936 3 nvidia_peermem,rdma_ucm,mlx5_ib "$t"
	module ib_ipoib 151552 0 - "$t"
	module rdma_ucm 32768 0 - "$t"
	module rdma_cm 139264 2 rdma_ucm,ib_ipoib "$t"
	module iw_cm 53248 1 rdma_cm "$t"
	module ib_umad 40960 0 - "$t"
	module ib_cm 131072 2 rdma_cm,ib_ipoib "$t"
	module mlx5_core 2232320 1 mlx5_ib "$t" "$v"
	module ib_core 425984 8 nvidia_peermem,rdma_cm,ib_ipoib,iw_cm,ib_umad,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm "$t"
	[ -n "$ofed" ] && module mlx_compat 20480 11 rdma_cm,ib_ipoib,iw_cm,ib_umad,ib_core,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm,mlx5_core OE
	module nvidia 56623104 1 nvidia_peermem POE 550.127.05
	attr etc/modules-load.d/rdma.conf "$(printf '%s\n' '# RDMA stack, loaded at every boot' mlx5_core mlx5_ib ib_core ib_uverbs ib_cm rdma_cm rdma_ucm ib_umad ib_ipoib)"
	attr etc/modules-load.d/zz-nvidia-peermem.conf nvidia_peermem
	# the running kernel's modules
	local dir=kernel/drivers/infiniband
	[ -n "$ofed" ] && dir=updates/dkms
	mkdir -p "$R/lib/modules/$KVER"
	{
		for m in mlx5_core mlx5_ib ib_core ib_uverbs ib_cm rdma_cm rdma_ucm ib_umad ib_ipoib iw_cm ib_iser ib_srp; do
			echo "$dir/$m.ko: "
		done
		[ -n "$ofed" ] && echo "updates/dkms/mlx_compat.ko: "
		echo "updates/dkms/nvidia-peermem.ko: "
	} > "$R/lib/modules/$KVER/modules.dep"
	: > "$R/lib/modules/$KVER/modules.builtin"
	# a running slurmd with the right limit
	mkdir -p "$R/proc/4242"
	attr proc/4242/comm slurmd
	cp "$R/proc/self/limits" "$R/proc/4242/limits"
	attr lib/systemd/system/slurmd.service "$(printf '[Service]\nExecStart=/usr/sbin/slurmd -D\nLimitMEMLOCK=infinity')"
	# captured command outputs: a clean kernel log
	mkdir -p "$R/rdma-doctor/commands"
	printf '%s\n' "[    4.101234] mlx5_core 0000:1b:00.0: firmware version: $fw7" \
		"[    4.902345] mlx5_core 0000:1b:00.0: Port module event: module 0, Cable plugged" \
		"[    6.012345] mlx5_ib: Mellanox Connect-IB Infiniband driver v6.1" > "$R/rdma-doctor/commands/dmesg"
	attr rdma-doctor/commands/dmesg.status 0
	pkgs=(rdma-core 44.0-2 ibverbs-providers 44.0-2 infiniband-diags 44.0-2)
	if [ -n "$ofed" ]; then
		local ov=24.10.OFED.24.10.1.1.4.1
		[ "$ofed" = doca ] && ov=25.10.OFED.25.10.1.7.1.1
		pkgs=(rdma-core 2410mlnx54-1.2410068 mlnx-ofed-kernel-dkms "$ov" mlnx-ofed-kernel-utils "$ov" ofed-scripts "$ov")
		[ "$ofed" = doca ] && pkgs+=(doca-ofed 3.2.1-041000-25.10)
		mkdir -p "$R/var/lib/dkms/mlnx-ofed-kernel/$ov/$KVER/x86_64/module" "$R/var/lib/dkms/mlnx-ofed-kernel/$ov/source"
		attr rdma-doctor/commands/dkms-status "mlnx-ofed-kernel/$ov, $KVER, x86_64: installed"
		attr rdma-doctor/commands/dkms-status.status 0
		if [ "$ofed" = mlnx ]; then attr rdma-doctor/commands/ofed_info-s "MLNX_OFED_LINUX-24.10-1.1.4.0:"
		else attr rdma-doctor/commands/ofed_info-s "OFED-internal-25.10-1.7.1:"; fi
		attr rdma-doctor/commands/ofed_info-s.status 0
		attr lib/systemd/system/openibd.service "$(printf '[Unit]\nDescription=openibd\n[Service]\nType=oneshot\nExecStart=/etc/init.d/openibd start\n[Install]\nWantedBy=multi-user.target')"
		lnk etc/systemd/system/multi-user.target.wants/openibd.service /lib/systemd/system/openibd.service
		attr rdma-doctor/commands/systemctl-is-enabled-openibd enabled
		attr rdma-doctor/commands/systemctl-is-active-openibd active
		attr rdma-doctor/commands/systemctl-is-active-openibd.status 0
		attr etc/infiniband/openib.conf "$(printf '%s\n' '# OFED modules' 'ONBOOT=yes' 'UCM_LOAD=no' 'RDMA_CM_LOAD=yes' 'RDMA_UCM_LOAD=yes' 'IPOIB_LOAD=yes' 'SRP_LOAD=no' 'ISER_LOAD=no' 'UMAD_LOAD=yes' 'UVERBS_LOAD=yes' 'MLX5_LOAD=yes')"
		attr sys/kernel/mm/memory_peers/nv_mem/version 550.127.05
		attr sys/kernel/mm/memory_peers/nv_mem/num_alloc_mrs 0
	else
		attr rdma-doctor/commands/ofed_info-s.error ENOENT
		attr rdma-doctor/commands/dkms-status.error ENOENT
		attr rdma-doctor/commands/systemctl-is-active-openibd inactive
		attr rdma-doctor/commands/systemctl-is-active-openibd.status 3
		attr rdma-doctor/commands/systemctl-is-enabled-openibd ""
		attr rdma-doctor/commands/systemctl-is-enabled-openibd.status 1
	fi
	mkdir -p "$R/var/lib/dpkg"
	for ((i = 0; i < ${#pkgs[@]}; i += 2)); do
		printf 'Package: %s\nStatus: install ok installed\nArchitecture: amd64\nVersion: %s\n\n' "${pkgs[i]}" "${pkgs[i + 1]}"
	done > "$R/var/lib/dpkg/status"
}


# ---- MFT tools and RoCE QoS (tests/scenarios/MFT-SOURCES.md says where each output is from) ----
# The operator's guide's own mlxlink, mlxconfig and flint blocks are real output of a ConnectX-7:
# read in place from ../shared/seed, written into the scenario roots only.
SEED=${RD_SEED:-${RD_REAL_FIXTURES:-$here/../../../shared/fixtures/real}/../../seed/000_82afedced5993be5.txt}
# Without the guide (a plain clone), a root that needs one of its blocks is marked and then left
# out: its name goes to OUTDIR/.skipped, and a line on stderr says so (tests/lib.sh reads it).
guide_block() { # FIRST-LINE-PATTERN LAST-LINE-PATTERN: the lines after the first, up to the last
	[ -f "$SEED" ] || { : > "$R/.needs-seed"; return 0; }
	sed -n "/$1/,/$2/p" "$SEED" | sed 1d
}
CMD=rdma-doctor/commands
ESC=$'\e'
# mlxlink prints colours unconditionally: the values come wrapped in SGR codes
colour() { sed -E "s/: (.+)\$/: ${ESC}[32m\\1${ESC}[0m/"; }
mlxlink_guide() { guide_block '^\$ mlxlink -d \/dev\/mst\/mt4129_pciconf0 -p 1 -m -c -e' '^Raw Physical BER'; }
mft_ib() { # DEV: the guide's captures for one ConnectX-7 IB function
	mlxlink_guide | colour > "$R/$CMD/mlxlink-$1-1"
	attr "$CMD/mlxlink-$1-1.status" 0
	{ guide_block '^\$ flint -d \/dev\/mst\/mt4129_pciconf0 query | head -5' '^Rom Info:'
	  printf '%s\n' 'PSID:                  MT_0000000838'; } > "$R/$CMD/flint-$1"
	attr "$CMD/flint-$1.status" 0
	guide_block '^\$ mlxconfig -d \/dev\/mst\/mt4129_pciconf0 query | head -40' '^Setting + reset:' | sed '$d' > "$R/$CMD/mlxconfig-$1"
	attr "$CMD/mlxconfig-$1.status" 0
}
mft_roce() { # the ConnectX-6 Dx RoCE function mlx5_2 / enp193s0f0np0, MLNX_OFED's sysfs QoS
	printf '%s\n' 'Operational Info' '----------------' 'State                           : Active' \
		'Physical state                  : ETH_AN_FSM_ENABLE' 'Speed                           : 100G' \
		'Width                           : 4x' '' 'Troubleshooting Info' '--------------------' \
		'Status Opcode                   : 0' 'Group Opcode                    : N/A' \
		'Recommendation                  : No issue was observed.' '' 'Physical Counters and BER Info' \
		'------------------------------' 'Time Since Last Clear           : 2 days 03:10:44' \
		'Effective Physical Errors       : 0' 'Effective Physical BER          : 1E-255' \
		'Raw Physical Errors Per Lane    : 0,0,0,0' 'Raw Physical BER                : 1E-255' | colour > "$R/$CMD/mlxlink-mlx5_2-1"
	attr "$CMD/mlxlink-mlx5_2-1.status" 0
	printf '%s\n' 'Image type:            FS4' 'FW Version:            22.39.1002' 'PSID:                  MT_0000000359' > "$R/$CMD/flint-mlx5_2"
	attr "$CMD/flint-mlx5_2.status" 0
	printf '%s\n' '' 'Device #1:' '----------' '' 'Device type:        ConnectX6DX' 'Device:             0000:c1:00.0' '' \
		'Configurations:                                          Default             Current             Next Boot' \
		'        LINK_TYPE_P1                                ETH(2)              ETH(2)              ETH(2)' \
		'        ROCE_CC_PRIO_MASK_P1                        255                 255                 255' \
		'        CNP_DSCP_P1                                 48                  48                  48' \
		'*       ADVANCED_PCI_SETTINGS                       False(0)            True(1)             True(1)' \
		"The '*' shows parameters with next value different from default/current value." > "$R/$CMD/mlxconfig-mlx5_2"
	attr "$CMD/mlxconfig-mlx5_2.status" 0
	local n=$PCIROOT/0000:c1:00.0/net/enp193s0f0np0
	attr "$n/qos/trust" dscp
	attr "$n/qos/pfc" "$(printf 'PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   1   0   0   0   0')"
	for i in 0 1 2 3 4 5 6 7; do
		attr "$n/ecn/roce_np/enable/$i" $([ $i = 3 ] && echo 1 || echo 0)
		attr "$n/ecn/roce_rp/enable/$i" $([ $i = 3 ] && echo 1 || echo 0)
	done
	attr sys/kernel/config/rdma_cm/mlx5_2/ports/1/default_roce_tos 106
}
mft_base() { # base mlnx with every tool's capture, healthy; the policy asks for what is there
	base mlnx; mft_ib mlx5_0; mft_ib mlx5_1; mft_roce
	attr etc/rdma-doctor.conf "$(printf '%s\n' '[mlxconfig]' '# the ConnectX-7s (board_id MT_0000000838) run InfiniBand' \
		'MT_0000000838/LINK_TYPE_P1 = IB(1)' 'CNP_DSCP_P1 = 48' \
		'# ConnectX-6 Dx only: not a parameter of the ConnectX-7s (not an error)' 'ADVANCED_PCI_SETTINGS = True' \
		'[roce]' 'trust = dscp' 'pfc = 3')"
}
mlxlink_set() { # DEV KEY VALUE: one line of a captured mlxlink output
	sed -i -E "s/^($2 +: ).*\$/\\1${ESC}[31m$3${ESC}[0m/" "$R/$CMD/mlxlink-$1-1"
}
# mlxlink -m's Module Info of a ConnectX-7 OSFP optic (tests/fixtures/real/SOURCES.txt), appended to the
# guide's block (which has none); its Identifier / Cable Type / Vendor lines are added in mlxlink's
# layout, their words from mstflint's maps (MFT-SOURCES.md)
OPTIC=$here/../fixtures/real/facebookresearch-gcm__mlxlink-m-cx7-osfp.txt
module_optic() { # DEV SERIAL
	{ echo; sed -n '/^Module Info/,$p' "$OPTIC"
	  printf '%s\n' 'Identifier                         : OSFP' 'Cable Technology                   : 850 nm VCSEL' \
		'Cable Type                         : Optical Module (separated)' 'Vendor Name                        : Mellanox' \
		'Vendor Part Number                 : MMA4Z00-NS' "Vendor Serial Number               : $2" \
		'Digital Diagnostic Monitoring      : Yes'; } | colour >> "$R/$CMD/mlxlink-$1-1"
}
module_dac() { # DEV: a passive copper OSFP cable, its diagnostics "0 [0..0]" as MFT 4.35 prints them
	printf '%s\n' '' 'Module Info' '-----------' 'Temperature [C]                    : 0 [0..0]' \
		'Voltage [mV]                       : 0 [0..0]' 'Bias Current [mA]                  : 0,0,0,0 [0..0]' \
		'Rx Power Current [dBm]             : 0,0,0,0 [0..0]' 'Tx Power Current [dBm]             : 0,0,0,0 [0..0]' \
		'Identifier                         : OSFP' 'Cable Technology                   : Copper cable, passive, unequalized' \
		'Cable Type                         : Passive copper cable' 'Vendor Name                        : Mellanox' \
		'Vendor Part Number                 : MCP4Y10-N001' 'Digital Diagnostic Monitoring      : Yes' | colour >> "$R/$CMD/mlxlink-$1-1"
}
mft_optics() { mft_base; module_optic mlx5_0 MT2331FT01234; module_optic mlx5_1 MT2331FT01235; }

drop_module() { # NAME: unload it (and its lines)
	sed -i "/^$1 /d" "$R/proc/modules"
	rm -rf "$R/sys/module/$1"
	sed -i -E "s/([ ,])$1,/\1/" "$R/proc/modules"
	sed -i -E "s/^([^ ]+ [0-9]+ [0-9]+) +Live/\1 - Live/" "$R/proc/modules" # no holder left: "-"
}

scenario() { R="$out/$1"; rm -rf "$R"; mkdir -p "$R"; }

build() {
	case "$1" in
	healthy-inbox) base ;;
	healthy-mlnx-ofed) base mlnx ;;
	healthy-doca-ofed) base doca ;;
	ib-umad-missing)
		base; drop_module ib_umad
		rm -f "$R"/sys/class/infiniband_mad/umad* "$R"/sys/class/infiniband_mad/issm* "$R"/dev/infiniband/umad* "$R"/dev/infiniband/issm* ;;
	rdma-ucm-missing)
		base; drop_module rdma_ucm; rm -f "$R/dev/infiniband/rdma_cm"; rm -rf "$R/sys/class/misc/rdma_cm" ;;
	ib-uverbs-missing)
		base; drop_module ib_uverbs; drop_module rdma_ucm; drop_module nvidia_peermem
		rm -f "$R"/sys/class/infiniband_verbs/uverbs* "$R"/dev/infiniband/uverbs* "$R/dev/infiniband/rdma_cm" ;;
	uverbs-device-missing-loaded)
		# ib_uverbs is loaded but made no uverbs device for mlx5_1: its holders must go before it can be reloaded
		base; rm -rf "$R/sys/class/infiniband_verbs/uverbs1" "$R/dev/infiniband/uverbs1" ;;
	dev-infiniband-absent)
		base; for m in ib_uverbs rdma_ucm ib_umad nvidia_peermem; do drop_module $m; done
		rm -rf "$R/dev/infiniband" "$R"/sys/class/infiniband_verbs/uverbs* "$R"/sys/class/infiniband_mad/umad* "$R"/sys/class/infiniband_mad/issm* ;;
	issm-absent-no-smi)
		# Linux 6.11 and later make issm only for a port with an SMI: none for the RoCE port mlx5_2
		# nor for an SMI-less IB port (mlx5_1 here, as a GB300's planes); umad is there for both
		base; for n in 1 2; do
			rm -rf "$R/sys/devices/pci0000:00/0000:00:01.0/$([ $n = 1 ] && echo 0000:9a:00.0 || echo 0000:c1:00.0)/infiniband_mad/issm$n"
			rm -f "$R/sys/class/infiniband_mad/issm$n" "$R/dev/infiniband/issm$n"
		done ;;
	modules-not-persistent)
		base; rm -rf "$R/etc/modules-load.d" ;;
	modules-comment-after-name)
		# systemd-modules-load takes "ib_ipoib   # storage" whole as one module name: it loads nothing
		base; attr etc/modules-load.d/rdma.conf "$(printf '%s\n' '# RDMA stack' mlx5_core mlx5_ib ib_core ib_uverbs ib_cm rdma_cm rdma_ucm ib_umad 'ib_ipoib   # storage')" ;;
	modules-usr-lib-umad-missing)
		# the list is the package's, in /usr/lib; an /etc file of the same name would mask it
		base; rm "$R/etc/modules-load.d/rdma.conf"
		attr usr/lib/modules-load.d/rdma.conf "$(printf '%s\n' mlx5_core mlx5_ib ib_core ib_uverbs ib_cm rdma_cm rdma_ucm ib_ipoib)" ;;
	modules-by-rdma-core)
		# no modules-load.d list; rdma-core's udev rules start rdma-load-modules@<kind>.service when a
		# device appears, which loads /etc/rdma/modules/<kind>.conf (stand-ins of its kernel-boot files)
		base; rm -rf "$R/etc/modules-load.d"
		attr usr/lib/udev/rules.d/90-rdma-ulp-modules.rules 'SUBSYSTEM=="infiniband", TAG+="systemd", ENV{SYSTEMD_WANTS}+="rdma-hw.target"'
		attr usr/lib/udev/rules.d/90-rdma-hw-modules.rules 'ENV{DRIVER}=="mlx5_core", RUN{builtin}+="kmod load mlx5_ib"'
		attr usr/lib/systemd/system/rdma-load-modules@.service "$(printf '[Service]\nType=oneshot\nExecStart=/lib/systemd/systemd-modules-load /etc/rdma/modules/%%I.conf')"
		attr etc/rdma/modules/rdma.conf "$(printf '%s\n' '# loaded when any RDMA device appears' ib_iser ib_uverbs rdma_ucm)"
		attr etc/rdma/modules/infiniband.conf "$(printf '%s\n' ib_ipoib ib_umad)"
		attr etc/rdma/modules/roce.conf '# nothing' ;;
	peermem-before-ib-core)
		base; rm "$R/etc/modules-load.d/zz-nvidia-peermem.conf"; attr etc/modules-load.d/0-nvidia.conf nvidia_peermem ;;
	peermem-not-registered)
		base mlnx; rm -rf "$R/sys/kernel/mm/memory_peers" ;;
	peermem-registration-unreadable)
		# nv_mem's entry cannot be read: the registration is not known, not missing
		base mlnx; rm -rf "$R/sys/kernel/mm/memory_peers/nv_mem"
		readerr EACCES sys/kernel/mm/memory_peers/nv_mem/version ;;
	modules-unreadable)
		# /proc/modules cannot be read and there is no /sys/module: what is loaded is not known
		base; rm -rf "$R/proc/modules" "$R/sys/module"; readerr EACCES proc/modules ;;
	openibd-dead)
		base mlnx
		attr rdma-doctor/commands/systemctl-is-active-openibd inactive
		attr rdma-doctor/commands/systemctl-is-active-openibd.status 3 ;;
	openib-conf-missing-module)
		base mlnx; sed -i 's/^SRP_LOAD=no/SRP_LOAD=yes/; s/^ISER_LOAD=no/NVME_LOAD=yes/' "$R/etc/infiniband/openib.conf" ;;
	dkms-not-built-after-upgrade)
		# OFED was built for 6.1.0-28; the node now runs 6.1.0-31 with the inbox modules
		base
		local ov=24.10.OFED.24.10.1.1.4.1
		mkdir -p "$R/var/lib/dkms/mlnx-ofed-kernel/$ov/6.1.0-28-amd64/x86_64/module"
		attr rdma-doctor/commands/dkms-status "mlnx-ofed-kernel/$ov, 6.1.0-28-amd64, x86_64: installed"
		attr rdma-doctor/commands/ofed_info-s "MLNX_OFED_LINUX-24.10-1.1.4.0:"
		rm -f "$R/rdma-doctor/commands/ofed_info-s.error" "$R/rdma-doctor/commands/dkms-status.error"
		printf 'Package: mlnx-ofed-kernel-dkms\nStatus: install ok installed\nVersion: %s\n\n' "$ov" >> "$R/var/lib/dpkg/status" ;;
	symbol-version-mismatch)
		# in-tree ib_core loaded, OFED's DKMS rdma_ucm trying to load on top of it
		base
		sed -i 's/^\(mlx5_core .*\)$/\1 (OE)/' "$R/proc/modules"; attr sys/module/mlx5_core/taint OE
		attr sys/module/mlx5_core/version 24.10-1.1.4
		printf '%s\n' "[  812.443210] rdma_ucm: disagrees about version of symbol ib_register_peer_memory_client" \
			"[  812.443290] rdma_ucm: Unknown symbol ib_register_peer_memory_client (err -22)" >> "$R/rdma-doctor/commands/dmesg" ;;
	firmware-one-hca-older)
		base; attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/fw_ver" 28.39.1002 ;;
	firmware-not-pinned)
		base; attr etc/rdma-doctor.conf "$(printf '[firmware]\nMT_0000000838 = 28.42.1000\n')" ;;
	memlock-64k-slurmd)
		base; sed -i 's/^Max locked memory .*/Max locked memory         65536                65536                bytes     /' "$R/proc/4242/limits"
		attr lib/systemd/system/slurmd.service "$(printf '[Service]\nExecStart=/usr/sbin/slurmd -D')"
		attr etc/systemd/system/slurmd.service.d/limits.conf "$(printf '[Service]\nLimitMEMLOCK=64K')" ;;
	port-polling)
		base; attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/state" "1: DOWN"
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/phys_state" "2: Polling"
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/rate" "10 Gb/sec (4X SDR)"
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/lid" 0x0
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/sm_lid" 0x0 ;;
	port-initializing-no-sm)
		base; attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/state" "2: INIT"
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/lid" 0xffff
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/sm_lid" 0x0 ;;
	port-200-among-400)
		base; attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/rate" "200 Gb/sec (2X NDR)" ;;
	peermem-not-loaded)
		base; drop_module nvidia_peermem ;;
	ports-fewer-active-than-expected)
		# the policy expects 3 active ports; one is Down (the policy ignores nothing)
		base; attr etc/rdma-doctor.conf "$(printf '[ports]\nexpect_active = 3\n')"
		attr "$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/ports/1/state" "1: DOWN"
		attr "$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/ports/1/phys_state" "3: Disabled" ;;
	port-ignored-by-policy)
		# the same Down RoCE port, listed as spare in the policy: quiet
		base; attr etc/rdma-doctor.conf "$(printf '[ports]\nignore = mlx5_2\n')"
		attr "$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/ports/1/state" "1: DOWN"
		attr "$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/ports/1/phys_state" "3: Disabled" ;;
	kernel-log-peermem-invalid-context)
		base; printf '%s\n' "[ 9021.771622] nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing" >> "$R/rdma-doctor/commands/dmesg" ;;
	kernel-log-pcie-limited)
		base; printf '%s\n' "[    4.210001] mlx5_core 0000:1b:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0000:17:01.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)" >> "$R/rdma-doctor/commands/dmesg" ;;
	kernel-log-mlx5-health)
		base; printf '%s\n' "[72011.402118] mlx5_core 0000:9a:00.0: poll_health:830:(pid 0): device's health compromised - reached miss count" \
			"[72011.402342] mlx5_core 0000:9a:00.0: print_health_info:435:(pid 0): Fatal error 1 detected" \
			"[72013.118001] mlx5_core 0000:9a:00.0: wait_func:1189:(pid 72061): ACCESS_REG(0x805) timeout. Will cause a leak of a command resource" >> "$R/rdma-doctor/commands/dmesg" ;;
	kernel-log-rxe-crc32)
		# the two lines a real 6.1 kernel printed (tests/vm: rdma link add with no crc32 and no autoload)
		base; printf '%s\n' "[   12.004411] rdma_rxe: failed to init crc32 algorithm err:-2" \
			"[   12.004790] rdma_rxe: failed to add eth0" >> "$R/rdma-doctor/commands/dmesg" ;;
	kernel-log-unprivileged)
		# a snapshot taken by a user kernel.dmesg_restrict=1 keeps out: dmesg failed with EPERM
		base; rm "$R/rdma-doctor/commands/dmesg" "$R/rdma-doctor/commands/dmesg.status"
		attr rdma-doctor/commands/dmesg.error EPERM ;;
	kernel-log-restricted)
		# what dmesg does for a user without CAP_SYSLOG under kernel.dmesg_restrict=1: exit 1, no output
		base; : > "$R/rdma-doctor/commands/dmesg"; attr rdma-doctor/commands/dmesg.status 1
		attr proc/sys/kernel/dmesg_restrict 1
		attr proc/self/status "$(printf 'Name:\tbash\nCapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n')" ;;
	port-state-unreadable)
		# the state file fails to read (as sysfs does when the driver's query fails): UNKNOWN, never OK
		base; readerr EIO "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/state" ;;
	roce-mtu-1500)
		base; attr "$PCIROOT/0000:c1:00.0/net/enp193s0f0np0/mtu" 1500
		attr etc/rdma-doctor.conf "$(printf '[roce]\nnetdev_mtu = 9000\n')" ;;
	uverbs-mode-0600)
		# a udev rule left uverbs at 0600: what a snapshot records of the live nodes' modes
		base; attr rdma-doctor/devnodes "$(printf '%s\n' 'issm0 0600 0 0' 'issm1 0600 0 0' 'issm2 0600 0 0' \
			'rdma_cm 0666 0 0' 'umad0 0600 0 0' 'umad1 0600 0 0' 'umad2 0600 0 0' \
			'uverbs0 0600 0 0' 'uverbs1 0600 0 0' 'uverbs2 0660 0 27')" ;;
	firmware-ofed-train-mismatch)
		# the guide's own example: MLNX_OFED 24.10-1.1.4.0 with 28.41.1000 on the ConnectX-7s (it ships 28.43.2026)
		base mlnx
		attr "$PCIROOT/0000:1b:00.0/infiniband/mlx5_0/fw_ver" 28.41.1000
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/fw_ver" 28.41.1000 ;;
	firmware-ofed-train-pinned)
		# the same firmware, pinned by the fleet's policy: the pin overrides the release's train
		base mlnx
		attr "$PCIROOT/0000:1b:00.0/infiniband/mlx5_0/fw_ver" 28.41.1000
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/fw_ver" 28.41.1000
		attr etc/rdma-doctor.conf "$(printf '[firmware]\nMT_0000000838 = 28.41.1000\n')" ;;
	firmware-doca-connectx5-not-judged)
		# DOCA 2.9.1 ships 28.43.2026 for ConnectX-7; a ConnectX-5 (16.35.x, its own train) is not judged
		base doca
		sed -i 's/^Version: 3.2.1-041000-25.10$/Version: 2.9.1-0.1.6/' "$R/var/lib/dpkg/status"
		attr "$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/hca_type" MT4119
		attr "$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/fw_ver" 16.35.4030
		attr "$PCIROOT/0000:c1:00.0/device" 0x1017 ;;
	roce-gid-link-local-only)
		# the RoCE netdev lost its IPv4 address: only the fe80:: GIDs are left
		base; local g="$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/ports/1"
		rm -f "$R/$g/gids/3" "$R/$g/gid_attrs/types/3" "$R/$g/gid_attrs/ndevs/3" ;;
	roce-gid-empty)
		# an Active RoCE port with an empty GID table (every entry all-zero)
		base; local g="$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/ports/1"
		rm -f "$R/$g/gids/1" "$R/$g/gids/3" "$R/$g/gid_attrs/types/3" "$R/$g/gid_attrs/ndevs/3"
		attr "$g/gids/0" 0000:0000:0000:0000:0000:0000:0000:0000 ;;
	roce-gid-index-v1)
		# the fleet's policy forces NCCL_IB_GID_INDEX 2, the RoCE v1 GID of the IPv4 address: v2 is index 3
		base; local g="$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/ports/1"
		attr "$g/gids/2" 0000:0000:0000:0000:0000:ffff:0a0a:0511
		attr "$g/gid_attrs/types/2" "IB/RoCE v1"
		attr "$g/gid_attrs/ndevs/2" enp193s0f0np0
		attr etc/rdma-doctor.conf "$(printf '[nccl]\ngid_index = 2\n')" ;;
	roce-gid-index-pinned-ok)
		# the policy forces index 3, which is the RoCE v2 IPv4 GID: quiet
		base; attr etc/rdma-doctor.conf "$(printf '[nccl]\ngid_index = 3\nroce_version = 2\naddr_family = AF_INET\n')" ;;
	roce-gid-nccl-2.18)
		# NCCL 2.18.3 installed: before 2.21.5 NCCL_IB_GID_INDEX defaults to 0, the fe80:: RoCE v1 GID.
		# The GID table is mlx5_0's of NVIDIA/nccl#1131 (show_gids: 0/1 fe80::a288:c2ff:fe5b:3ec
		# v1/v2, 2/3 11.0.0.72 v1/v2), https://github.com/NVIDIA/nccl/issues/1131
		base; local g="$PCIROOT/0000:c1:00.0/infiniband/mlx5_2/ports/1" i
		for i in 0 1; do attr "$g/gids/$i" fe80:0000:0000:0000:a288:c2ff:fe5b:03ec; done
		for i in 2 3; do attr "$g/gids/$i" 0000:0000:0000:0000:0000:ffff:0b00:0048; done
		for i in 0 1 2 3; do attr "$g/gid_attrs/ndevs/$i" enp193s0f0np0; done
		attr "$g/gid_attrs/types/0" "IB/RoCE v1"; attr "$g/gid_attrs/types/2" "IB/RoCE v1"
		attr "$g/gid_attrs/types/1" "RoCE v2"; attr "$g/gid_attrs/types/3" "RoCE v2"
		attr usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3 "" ;;
	roce-gid-nccl-policy-version)
		# the same host, but the policy says the jobs run NCCL 2.23.4 (their container's): its
		# automatic choice takes index 3
		build roce-gid-nccl-2.18; attr etc/rdma-doctor.conf "$(printf '[nccl]\nversion = 2.23.4\n')" ;;
	healthy-mft) mft_base ;;
	link-phy-ber-high)
		# a dirty connector: errors on lane 2, the BER at 1.5E-11
		mft_base; mlxlink_set mlx5_1 'Effective Physical Errors' 1822
		mlxlink_set mlx5_1 'Effective Physical BER' 15E-12
		mlxlink_set mlx5_1 'Raw Physical Errors Per Lane' '0,0,4412093,0'
		mlxlink_set mlx5_1 'Raw Physical BER' 3E-8 ;;
	link-phy-ber-high-mft-4.30)
		# the same dirty connector as MFT 4.2x-4.3x and mstflint's mstlink print it: the unit in the key
		# ("Time Since Last Clear [Min]", minutes with one decimal: mstflint mlxlink_commander.cpp
		# prepareBerInfo) and a Raw Physical BER
		build link-phy-ber-high
		sed -i -E "s/^Time Since Last Clear +: .*\$/Time Since Last Clear [Min]        : 6444.3/" "$R/$CMD/mlxlink-mlx5_1-1" ;;
	link-phy-cable-unplugged)
		# the port is down and the firmware says why (Status Opcode 1024, management firmware)
		mft_base; attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/state" "1: DOWN"
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/phys_state" "2: Polling"
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/rate" "10 Gb/sec (4X SDR)"
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/lid" 0x0
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/sm_lid" 0x0
		mlxlink_set mlx5_1 State Polling; mlxlink_set mlx5_1 'Physical state' Polling
		mlxlink_set mlx5_1 'Status Opcode' 1024; mlxlink_set mlx5_1 'Recommendation' 'Cable is unplugged' ;;
	link-phy-opcode)
		# the link is up, but the PHY firmware reports an issue (synthetic opcode and text: MFT-SOURCES.md)
		mft_base; mlxlink_set mlx5_0 'Status Opcode' 13
		mlxlink_set mlx5_0 'Recommendation' 'Check the cable and the connectors at both ends' ;;
	link-module-optic-ok)
		# two ConnectX-7 OSFP optics well inside their alarm thresholds: the OK names them
		mft_optics ;;
	link-module-passive-copper)
		# a passive copper cable prints "0 [0..0]" (no thresholds): never judged
		mft_optics; module_dac mlx5_2 ;;
	link-module-hot)
		# mlx5_1's optic at its high temperature alarm (80 C)
		mft_optics; mlxlink_set mlx5_1 'Temperature \[C\]' '81 [-10..80]' ;;
	link-module-hot-near)
		# within 5 C of the alarm: what the module's own warning threshold would say
		mft_optics; mlxlink_set mlx5_1 'Temperature \[C\]' '77 [-10..80]' ;;
	link-module-hot-no-threshold)
		# a module that prints its temperature without thresholds: held to 70 C
		mft_optics; mlxlink_set mlx5_0 'Temperature \[C\]' 72 ;;
	link-module-rx-low)
		# lane 3 of mlx5_0 receives too little light: below the module's low alarm (-5.003 dBm)
		mft_optics; mlxlink_set mlx5_0 'Rx Power Current \[dBm\]' '1.945,1.892,-7.412,2.025 [-5.003..3.998]' ;;
	link-module-tx-low)
		# mlx5_1's own laser weakens: Tx of lanes 2 and 3 within 2 dB of the low alarm (-3.468 dBm)
		mft_optics; mlxlink_set mlx5_1 'Tx Power Current \[dBm\]' '0.867,-2.104,-2.511,1.069 [-3.468..3.998]' ;;
	link-phy-state-differs)
		# sysfs says Active/LinkUp, the firmware says the link is polling
		mft_base; mlxlink_set mlx5_0 State Polling; mlxlink_set mlx5_0 'Physical state' Polling ;;
	mlxconfig-policy-differs)
		# mlx5_0 comes up in Ethernet mode at the next boot; the policy wants IB
		mft_base; sed -i -E 's/^( +LINK_TYPE_P1 +)IB\(1\)/\1ETH(2)/' "$R/$CMD/mlxconfig-mlx5_0" ;;
	mlxconfig-policy-not-applied)
		# set for the next boot, still the default until mlxfwreset or a reboot
		mft_base; sed -i -E 's/^(\* +ADVANCED_PCI_SETTINGS +False\(0\) +)True\(1\)/\1False(0)/' "$R/$CMD/mlxconfig-mlx5_2" ;;
	firmware-from-flint)
		# sysfs fw_ver is empty on mlx5_1 (a driver that does not fill it): flint's FW Version is used
		mft_base; attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/fw_ver" ""
		sed -i 's/^FW Version: .*/FW Version:            28.39.1002/' "$R/$CMD/flint-mlx5_1" ;;
	firmware-image-pending)
		# mlx5_2 is a ConnectX-6 whose flint query is a real one taken after a burn, before the reset
		# (tests/fixtures/real/SOURCES.txt): flash 20.35.1012, running 20.34.1002 (also sysfs fw_ver)
		mft_base; local d="$PCIROOT/0000:c1:00.0"
		cp "$here/../fixtures/real/openstack-ironic-python-agent__mstflint-query-running.txt" "$R/$CMD/flint-mlx5_2"
		attr "$d/device" 0x101b; attr "$d/infiniband/mlx5_2/hca_type" MT4123
		attr "$d/infiniband/mlx5_2/board_id" MT_0000000228; attr "$d/infiniband/mlx5_2/fw_ver" 20.34.1002 ;;
	mft-tools-failed)
		# mlxlink and mlxconfig ran and failed (synthetic error lines: MFT-SOURCES.md): UNKNOWN, not a finding
		mft_base; printf '%s\n' '-E- Failed to open device: 0000:9a:00.0' > "$R/$CMD/mlxlink-mlx5_1-1"
		attr "$CMD/mlxlink-mlx5_1-1.status" 1
		printf '%s\n' '-E- Failed to open device: 0000:1b:00.0' > "$R/$CMD/mlxconfig-mlx5_0"
		attr "$CMD/mlxconfig-mlx5_0.status" 1 ;;
	roce-qos-differs)
		# trust pcp and no PFC: the policy's lossless RoCE is not what the NIC does
		mft_base; attr "$PCIROOT/0000:c1:00.0/net/enp193s0f0np0/qos/trust" pcp
		attr "$PCIROOT/0000:c1:00.0/net/enp193s0f0np0/qos/pfc" "$(printf 'PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   0   0   0   0   0')" ;;
	roce-qos-dcb-differs)
		# inbox driver: no sysfs qos/, no mlnx_qos; iproute2's dcb shows PFC off on priority 3
		base; attr etc/rdma-doctor.conf "$(printf '[roce]\npfc = 3\n')"
		attr "$CMD/mlnx_qos-enp193s0f0np0.error" ENOENT
		printf '%s\n' 'pfc-cap 8 macsec-bypass off delay 4096' 'prio-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:off 7:off' > "$R/$CMD/dcb-pfc-enp193s0f0np0"
		attr "$CMD/dcb-pfc-enp193s0f0np0.status" 0 ;;
	roce-qos-boot-udev)
		# the policy's trust and PFC, and a udev rule that sets them again whenever the netdev appears
		# (at boot, and after a driver restart): the OK says so
		mft_base; attr etc/udev/rules.d/90-roce-qos.rules \
			'ACTION=="add", SUBSYSTEM=="net", KERNEL=="enp193s0f0np0", RUN+="/usr/bin/mlnx_qos -i %k --trust dscp --pfc 0,0,0,1,0,0,0,0"' ;;
	roce-qos-boot-unit-script)
		# a systemd unit that runs a script looping over the RoCE netdevs (the interface is a variable)
		mft_base; attr etc/systemd/system/roce-qos.service "$(printf '%s\n' '[Unit]' 'Description=RoCE QoS' \
			'After=network-pre.target openibd.service' '[Service]' 'Type=oneshot' 'ExecStart=/usr/local/sbin/roce-qos.sh' \
			'[Install]' 'WantedBy=multi-user.target')"
		attr usr/local/sbin/roce-qos.sh "$(printf '%s\n' '#!/bin/sh' '# mlnx_qos in a comment is not a setting' \
			'for n in /sys/class/net/enp*; do' '	mlnx_qos -i "${n##*/}" --trust dscp --pfc 0,0,0,1,0,0,0,0' 'done')" ;;
	roce-qos-boot-other-if)
		# a udev rule, but for another interface: this port is not set at boot
		mft_base; attr etc/udev/rules.d/90-roce-qos.rules \
			'ACTION=="add", SUBSYSTEM=="net", KERNEL=="ens1f1", RUN+="/usr/bin/mlnx_qos -i %k --trust dscp --pfc 0,0,0,1,0,0,0,0"' ;;
	roce-qos-differs-boot)
		# trust pcp and no PFC now, and the boot-time rule that sets the port's QoS sets those: the fix
		# names the rule as well, or the next boot would undo it
		build roce-qos-differs; attr etc/udev/rules.d/90-roce-qos.rules \
			'ACTION=="add", SUBSYSTEM=="net", KERNEL=="enp193s0f0np0", RUN+="/usr/bin/mlnx_qos -i %k --trust pcp"' ;;
	roce-qos-seen-no-policy)
		# no [roce] trust/pfc: what mlnx_qos shows (pcp, no PFC) is reported, not judged
		base; printf '%s\n' 'DCBX mode: OS controlled' 'Priority trust state: pcp' 'default priority:' 'Receive buffer size (bytes): 262016,0,0,0,0,0,0,0,' \
			'Cable len: 7' 'PFC configuration:' '	priority    0   1   2   3   4   5   6   7' '	enabled     0   0   0   0   0   0   0   0' \
			'	buffer      0   0   0   0   0   0   0   0' 'tc: 0 ratelimit: unlimited, tsa: vendor' '	 priority:  1' > "$R/$CMD/mlnx_qos-enp193s0f0np0"
		attr "$CMD/mlnx_qos-enp193s0f0np0.status" 0 ;;
	mlxconfig-array-not-judged)
		# the policy sets an array parameter: mlxconfig's query shows "Array[0..7]", not its elements
		# (MFT's "Examples of mlxconfig Usage"), so it is not judged, and the way to set it is NAME[0..7]=V
		base mlnx; mft_roce
		sed -i '/^        CNP_DSCP_P1 /a\        ESWITCH_HAIRPIN_DESCRIPTORS                 Array[0..7]         Array[0..7]         Array[0..7]' \
			"$R/$CMD/mlxconfig-mlx5_2"
		attr etc/rdma-doctor.conf "$(printf '[mlxconfig]\nCNP_DSCP_P1 = 48\nESWITCH_HAIRPIN_DESCRIPTORS = 128\n')" ;;
	nccl-ib-disable-conf)
		# a node's /etc/nccl.conf turns InfiniBand off (left from a TCP test): every job runs on sockets
		base; attr etc/nccl.conf "$(printf '# debugging a hang\nNCCL_IB_DISABLE=1\nNCCL_DEBUG=INFO\n')" ;;
	nccl-hca-matches-none)
		# the fleet's nccl.conf, written for its ConnectX-3 nodes, names mlx4 devices: NCCL finds none here
		base; attr etc/nccl.conf "$(printf 'NCCL_IB_HCA=mlx4_0,mlx4_1\n')" ;;
	nccl-hca-port-down)
		# NCCL_IB_HCA names both IB rails; mlx5_1's cable is out (Polling): NCCL runs on one (ports.state
		# reports the port; nccl.env's OK line says NCCL leaves it out)
		build port-polling; attr etc/nccl.conf "$(printf 'NCCL_IB_HCA==mlx5_0,mlx5_1\n')" ;;
	nccl-hca-only-port-down)
		# NCCL_IB_HCA names only mlx5_1, whose cable is out: NCCL falls back to TCP sockets
		build port-polling; attr etc/nccl.conf "$(printf 'NCCL_IB_HCA==mlx5_1\n')" ;;
	nccl-hca-prefix)
		# a fourth HCA came up as mlx5_10: "mlx5_1" in NCCL_IB_HCA now takes it too (NVIDIA/nccl #236)
		base
		pcidev 0000:ca:00.0 0x15b3 0x1021 1 mlx5_core
		ibdev mlx5_10 0000:ca:00.0 MT4129 28.41.1000 MT_0000000838 a088:c203:00c8:e1f6
		port 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)" InfiniBand 0x2b 0x1 0xa651e848 fe80:0000:0000:0000:a088:c203:00c8:e1f6
		uverbs 3 mlx5_10 0000:ca:00.0; umad 3 mlx5_10 1 0000:ca:00.0; issm 3 mlx5_10 1 0000:ca:00.0
		netdev ibp202s0 0000:ca:00.0 2044
		attr etc/nccl.conf "$(printf 'NCCL_IB_HCA=mlx5_0,mlx5_1\n')" ;;
	roce-gid-index-nccl-conf)
		# /etc/nccl.conf forces NCCL_IB_GID_INDEX=1, the fe80:: RoCE v2 GID: the file is what NCCL reads
		base; attr etc/nccl.conf "$(printf 'NCCL_IB_GID_INDEX=1\n')" ;;
	nccl-ib-pkey-value)
		# the jobs run in partition 0x8001 (index 2 on both IB rails), but nccl.conf gives NCCL the P_Key
		# itself: NCCL_IB_PKEY is an index, so every QP setup fails
		base
		attr "$PCIROOT/0000:1b:00.0/infiniband/mlx5_0/ports/1/pkeys/2" 0x8001
		attr "$PCIROOT/0000:9a:00.0/infiniband/mlx5_1/ports/1/pkeys/2" 0x8001
		attr etc/nccl.conf "$(printf 'NCCL_IB_HCA==mlx5_0,mlx5_1\nNCCL_IB_PKEY=0x8001\n')" ;;
	nccl-hca-pinned-ok)
		# the compute rails named exactly, the RoCE storage NIC left out: quiet
		base; attr etc/nccl.conf "$(printf 'NCCL_IB_HCA==mlx5_0:1,mlx5_1:1\n')" ;;
	*) link_build "$1" ;; # tests/scenarios/link.sh
	esac
}

ALL=(healthy-inbox healthy-mlnx-ofed healthy-doca-ofed ib-umad-missing rdma-ucm-missing ib-uverbs-missing
	dev-infiniband-absent modules-not-persistent modules-comment-after-name modules-usr-lib-umad-missing
	modules-by-rdma-core peermem-before-ib-core peermem-not-registered openibd-dead
	openib-conf-missing-module dkms-not-built-after-upgrade symbol-version-mismatch firmware-one-hca-older
	firmware-not-pinned memlock-64k-slurmd port-polling port-initializing-no-sm port-200-among-400 roce-mtu-1500
	port-state-unreadable peermem-not-loaded ports-fewer-active-than-expected port-ignored-by-policy
	kernel-log-peermem-invalid-context kernel-log-pcie-limited kernel-log-mlx5-health kernel-log-rxe-crc32
	kernel-log-unprivileged kernel-log-restricted peermem-registration-unreadable
	modules-unreadable
	uverbs-mode-0600 uverbs-device-missing-loaded issm-absent-no-smi
	firmware-ofed-train-mismatch firmware-ofed-train-pinned firmware-doca-connectx5-not-judged
	roce-gid-link-local-only roce-gid-empty roce-gid-index-v1 roce-gid-index-pinned-ok roce-gid-nccl-2.18
	roce-gid-nccl-policy-version
	healthy-mft link-phy-ber-high link-phy-ber-high-mft-4.30 link-phy-cable-unplugged link-phy-opcode link-phy-state-differs
	link-module-optic-ok link-module-passive-copper link-module-hot link-module-hot-near link-module-hot-no-threshold link-module-rx-low link-module-tx-low mlxconfig-policy-differs
	mlxconfig-policy-not-applied mft-tools-failed firmware-from-flint firmware-image-pending roce-qos-differs roce-qos-dcb-differs roce-qos-seen-no-policy
	roce-qos-boot-udev roce-qos-boot-unit-script roce-qos-boot-other-if roce-qos-differs-boot
	mlxconfig-array-not-judged nccl-ib-disable-conf nccl-hca-matches-none nccl-hca-port-down nccl-hca-only-port-down nccl-hca-pinned-ok nccl-hca-prefix roce-gid-index-nccl-conf nccl-ib-pkey-value)
. "$here/link.sh"
ALL+=("${LINK_ALL[@]}")
[ $# -gt 0 ] || set -- "${ALL[@]}"
# RD_SCENARIO_ROOTS=DIR: DIR holds every root, written by this script (tests/run-all.sh does it once,
# then marks DIR .complete); a root found there is copied from it instead of being written again.
cache=${RD_SCENARIO_ROOTS:-}
[ -n "$cache" ] && [ -f "$cache/.complete" ] || cache=
for s in "$@"; do
	if [ -n "$cache" ] && [ -d "$cache/$s" ]; then
		mkdir -p "$out"; rm -rf "${out:?}/$s" "$out/.state/$s"; cp -a "$cache/$s" "$out/$s"
		[ ! -d "$cache/.state/$s" ] || { mkdir -p "$out/.state"; cp -a "$cache/.state/$s" "$out/.state/$s"; }
		continue
	fi
	scenario "$s"; build "$s"
	if [ -e "$R/.needs-seed" ]; then
		rm -rf "${out:?}/$s" "$out/.state/$s"
		grep -qxF -- "$s" "$out/.skipped" 2> /dev/null || echo "$s" >> "$out/.skipped"
		echo "skip: scenario $s: ../shared/seed is absent (the operator's guide's ConnectX-7 captures)" >&2
	fi
done
