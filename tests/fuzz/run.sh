#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Runs every fuzz target (build-fuzz/fuzz_*, made by `make fuzz-bin`) for SECONDS each, with seed
# corpora made from the project's roots and goldens and from ../shared/fixtures/real (read in
# place, copied only into the temporary corpus).  Prints executions and coverage per target.
# A crash, leak or timeout fails the target (its reproducer is kept in build-fuzz/crashes/).
# Usage: tests/fuzz/run.sh [SECONDS]      Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
secs=${1:-60}
real=${RD_REAL_FIXTURES:-$top/../shared/fixtures/real}
out=$top/build-fuzz
corpus=$out/corpus
mkdir -p "$corpus" "$out/crashes"
ts_init
seed() { # target files...
	local d=$corpus/$1; shift
	mkdir -p "$d"
	for f in "$@"; do [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ] && cp "$f" "$d/$(echo "$f" | md5sum | cut -c1-16)"; done
}
ts_scratch fuzz-seeds
gen=$work # the seeds written here
# the scenario and GPU topology roots, read in place when tests/run-all.sh wrote them once
if [ -n "${RD_SCENARIO_ROOTS:-}" ] && [ -f "$RD_SCENARIO_ROOTS/.complete" ]; then roots=$RD_SCENARIO_ROOTS
else roots=$gen/roots; "$top/tests/scenarios/make.sh" "$roots" > /dev/null 2>&1; fi
if [ -n "${RD_TOPO_ROOTS:-}" ] && [ -f "$RD_TOPO_ROOTS/.complete" ]; then topo=$RD_TOPO_ROOTS
else topo=$gen/topo; "$top/tests/topo/make.sh" "$topo" > /dev/null 2>&1; fi
seed fuzz_sysfs $(find "$top/examples/h100-ofed/sys/devices" "$top/examples/mixed-states/sys/devices" -type f -name '*[a-z]*' | head -300) \
	$(find "$real/gpud-h100-sys-class-infiniband" -type f 2>/dev/null | head -100)
seed fuzz_procfs "$top"/examples/*/proc/modules "$top"/examples/*/proc/self/limits "$roots"/*/proc/4242/limits
seed fuzz_config $(find "$roots"/healthy-*/etc "$roots"/*/var/lib/dpkg "$roots"/*/rdma-doctor/commands -type f 2>/dev/null | head -100) \
	"$roots"/*/lib/systemd/system/*.service "$roots"/*/etc/systemd/system/*/*.conf "$roots"/*/rdma-doctor/devnodes
seed fuzz_state $(find "$roots"/.state -type f -size -64k 2>/dev/null)
# and one of the second format (a history: two kinds, two times), as a run writes it
printf 'rdma-doctor-link-state 2\nhost h\nsample counters 1764457200 b\nc mlx5_0 1 link_downed 0\nh mlx5_0 1 rnr_nak_retry_err 2\nsample carrier 1764457200 b\nn ib0 carrier_changes 3\nsample counters 1764460800 b\nc mlx5_0 1 link_downed 1\n' > "$corpus/fuzz_state/format-2"
seed fuzz_policy "$top"/tests/cli/policies/*.conf "$roots"/*/etc/rdma-doctor.conf
# and a policy of scoped sections (host patterns, boards), the host it names on its last line
printf '[ports]\nmin_rate_ib = 200\n[ports @gpu[001-128],login1]\nmin_rate_ib = 400\n[ports @gpu[001-004]]\nexpect_active = 4\n[firmware board=MT_0000000838]\nfw_ver = 28.43.2026\n[mlxconfig board=MT_0000000838]\nLINK_TYPE_P1 = IB(1)\n; gpu003' > "$corpus/fuzz_policy/scoped"
seed fuzz_roce "$roots"/*/rdma-doctor/commands/ofed_info-s "$roots"/*/var/lib/dpkg/status
seed fuzz_explain "$top"/tests/explain/cases.txt "$top"/tests/explain/scenarios.txt "$real"/gpud__dmesg.peermem.log.0.txt "$real"/gpud__ibstat.*.txt \
	"$real"/gpud__ibstatus.*.txt "$roots"/*/rdma-doctor/commands/dmesg
seed fuzz_diff "$top"/tests/fix/expected/*.txt
seed fuzz_mft "$roots"/*/rdma-doctor/commands/mlxlink-* "$roots"/*/rdma-doctor/commands/mlxconfig-* \
	"$roots"/*/rdma-doctor/commands/flint-* "$roots"/*/rdma-doctor/commands/mlnx_qos-* "$roots"/*/rdma-doctor/commands/dcb-pfc-* \
	"$roots"/roce-congestion-*/rdma-doctor/commands/ethtool-S-* "$top"/tests/fixtures/real/*mlxlink* \
	"$roots"/healthy-mft/sys/devices/*/*/*/net/*/qos/* "$real"/skyao__hp544-cx3pro__mlxconfig-query.txt "$real"/skyao__cx6-ocp3__mlxlink-pcie-e.txt
seed fuzz_bootset "$roots"/roce-qos-*/etc/udev/rules.d/* "$roots"/roce-qos-*/etc/systemd/system/*.service \
	"$roots"/roce-qos-*/usr/local/sbin/*
seed fuzz_fabric "$top"/tests/fabric/captures/*/*
# and the fabric with its forwarding tables in one input, so that routes are walked through them
cat "$top"/tests/fabric/captures/w1/iblinkinfo-switches-only-l "$top"/tests/fabric/captures/w1/dump_fts > "$corpus/fuzz_fabric/w1-with-tables"
# and with its port counters, so that counters are judged on the cables they are on
cat "$top"/tests/fabric/captures/w1/iblinkinfo-switches-only-l "$top"/tests/fabric/captures/w1/ibqueryerrors > "$corpus/fuzz_fabric/w1-with-counters"
# the probe child's report (probe/wire.h), as a run on tests/probe's stand-in library writes it
cat > "$gen/probe-wire.txt" <<'WIRE'
at ~ 0 load sdlopen("libibverbs.so.1")
hstep load 1 0 3876 ~ s/usr/lib/x86_64-linux-gnu/libibverbs.so.1%20(18%20functions) 0
at ~ 0 devices sibv_get_device_list
hstep devices 1 0 9 ~ s2%20devices:%20rxe0,%20mlx5_0 0
at srxe0 0 open sibv_open_device%20and%20ibv_query_device
port 1 srxe0 1 0 0 ~ ~ 0 0 -1 ~ ~ 0 0 1
step open 1 0 1 ~ srxe0:%201%20port 0
at srxe0 1 query_port sibv_query_port
port 1 srxe0 1 1 0 sACTIVE sEthernet 1024 0 -1 ~ ~ 0 0 2
step open 1 0 1 ~ srxe0:%201%20port 0
step query_port 1 0 4 ~ sACTIVE,%20Ethernet,%20active_mtu%201024%20(max%204096),%20lid%200,%206%20GIDs 0
at srxe0 1 gid sibv_query_gid
port 1 srxe0 1 1 0 sACTIVE sEthernet 1024 0 0 sfe80::5054:ff:fe12:3456 sRoCE%20v1 0 0 3
step open 1 0 1 ~ srxe0:%201%20port 0
step query_port 1 0 4 ~ sACTIVE,%20Ethernet,%20active_mtu%201024%20(max%204096),%20lid%200,%206%20GIDs 0
step gid 1 0 27 ~ sgid[0]%20fe80::5054:ff:fe12:3456%20(RoCE%20v1):%20gid_attrs/types%20unreadable:%20the%20first%20non-zero%20GID,%20taken%20as%20RoCE%20v1 0
WIRE
printf 'library s/usr/lib/libibverbs.so.1\nend 0 33554432 srxe0%%20port%%201:%%20no\n' > "$gen/probe-wire-end.txt"
seed fuzz_probe_wire "$gen/probe-wire.txt" "$gen/probe-wire-end.txt"
for n in mock-idle mock-drained-admin mock-down-not-responding; do
	"$top/tests/cli/mock-bin/scontrol" show node -o "$n" > "$gen/show-node-$n.txt"
done
seed fuzz_slurm "$gen"/show-node-*.txt
for ex in no-rdma h100-ofed; do
	"$top/build-fuzz/../build/rdma-doctor" --root "$top/examples/$ex" snapshot -o "$gen/$ex.tar.gz" > /dev/null 2>&1 || true
done
(cd "$top/examples/no-rdma" && tar -cf "$gen/plain.tar" proc)
seed fuzz_archive "$gen/no-rdma.tar.gz" "$gen/plain.tar" "$gen/h100-ofed.tar.gz"
# RPM hosts (model/rpmdb.c): os-release, /etc/infiniband/info, kmod releases, the librpm child's answer
printf 'ID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.4"\n' > "$gen/os-release"
printf '#!/bin/bash\necho prefix=/usr\necho Kernel=5.14.0-427.13.1.el9_4.x86_64\n' > "$gen/ib-info"
printf 'P\tmlnx-ofa_kernel-modules\t0\t24.10\tOFED.24.10.1.1.4.1.kver.5.14.0_427.13.1.el9_4.x86_64\tx86_64\nP\tdoca-ofed\t0\t2.9.1\t1\tx86_64\nT\t812\n' > "$gen/rpm-answer"
printf 'E\tfile is not a database\n' > "$gen/rpm-error"
seed fuzz_rpm "$gen/os-release" "$gen/ib-info" "$gen/rpm-answer" "$gen/rpm-error"
# fleet: reports as check writes them, and as pdsh prints them
seed fuzz_fleet "$top"/tests/scenarios/expected/healthy-inbox.json "$top"/tests/scenarios/expected/ib-umad-missing.json \
	"$top"/tests/fleet/expected/*.json
sed 's/^/node01: /' "$top/tests/scenarios/expected/roce-mtu-1500.json" > "$gen/fleet-pdsh.txt"
{ printf -- '---------------\nnode01\n---------------\n'; cat "$top/tests/scenarios/expected/healthy-inbox.json"
  printf -- '---------------\nnode[02-03] (2)\n---------------\ncommand not found\n'; } > "$gen/fleet-clush-b.txt"
seed fuzz_fleet "$gen/fleet-pdsh.txt" "$gen/fleet-clush-b.txt"
# ACS: the real lspci -vvv lines of tests/topo, and config spaces as tests/topo/make.sh builds them
seed fuzz_acs "$top/tests/topo/lspci-vvv" "$topo"/h100-acs-redirect/sys/bus/pci/devices/0000:17:0[12].0/config \
	"$topo"/h100-pex890xx/sys/bus/pci/devices/0000:15:01.0/config "$topo"/h100-acs-unpriv/sys/bus/pci/devices/0000:16:00.0/config
# pairs: results as the pair steps print them (first byte even), a Slurm topology.conf (odd)
{ printf '\0'; cat "$top/tests/pairs/results-8.json"; } > "$gen/pairs-results"
{ printf '\1'; printf 'SwitchName=leaf1 Nodes=h[01-10]\nSwitchName=leaf2 Nodes=h[11-20],n[1-9]\nSwitchName=spine Switches=leaf[1-2]\n'; } > "$gen/pairs-topology"
seed fuzz_pairs "$gen/pairs-results" "$gen/pairs-topology"
# the fabric document fleet --fabric reads (what fabric made of tests/fabric/captures/w1), and a
# small one with a hostile description on a bad link
seed fuzz_fleet_fabric "$top"/tests/fleet/fabric-w1.json
seed fuzz_fleet_pairs "$top"/tests/fleet/pairs-8.json "$top"/tests/cli/expected/pairs-judge-json
printf '%s' '{"schema":"rdma-doctor/fabric/v1","summary":{"status":"WARN","switches":1},"links":[{"a":{"guid":"0x1","port":1,"kind":"SW","desc":"<s>"},"b":null,"width":4,"speed_gbps":25,"could_width":4,"could_speed_gbps":null,"state":"Down"},{"a":{"guid":"0x1","port":2,"kind":"SW","desc":"<s>"},"b":{"guid":"0x2","port":1,"kind":"CA","desc":"h1 mlx5_0"},"width":1,"speed_gbps":25}],"findings":[{"check":"fabric.link.degraded","status":"WARN","subject":"<s>[2] - h1 mlx5_0[1]","message":"m","evidence":[{"path":"p","value":"v"}],"fix":["x"]}]}' > "$corpus/fuzz_fleet_fabric/small"
# NCCL conf files: the scenario roots' /etc/nccl.conf, and lines as setEnvFile reads them
printf '# c\nNCCL_IB_HCA=^=mlx5_1:1,mlx5_10\r\n=x\nNCCL_IB_DISABLE=0x1\n' > "$gen/nccl.conf"
seed fuzz_ncclconf "$gen/nccl.conf" "$roots"/nccl-*/etc/nccl.conf
# pair: a peer's control lines as the two ends send them
printf 'RDPAIR/1 node01 8 17000\nQP rxe0 1 0 17 1234 3 00000000000000000000ffff0a090001 1 7f00aa001000 1a2b 2.5\nRTS\nLAT 1000\nEND\nERR x\n' > "$gen/pair-lines"
printf 'QP mlx5_0 1 12 99 5 5 - -1 1000 1 400.0\n' > "$gen/pair-ib"
seed fuzz_pairline "$gen/pair-lines" "$gen/pair-ib"
for t in "$out"/fuzz_*; do
	[ -x "$t" ] || continue
	n=$(basename "$t")
	mkdir -p "$corpus/$n"
	log=$out/$n.log
	"$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-artifact_prefix="$out/crashes/$n-" -print_final_stats=1 "$corpus/$n" > "$log" 2>&1
	rc=$?
	execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
	cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
	if [ $rc = 0 ]; then pass=$((pass + 1)); echo "ok   $n: ${execs:-?} executions, coverage ${cov:-?} edges, ${secs}s"
	else bad "$n (exit $rc): see $log"; grep -E 'ERROR|SUMMARY' "$log" | head -5; fi
done
ts_finalize
