# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ibstat2root.awk — from an ibstat output (tabs, or tabs expanded to spaces), prints
# "relative-path<TAB>value" lines of a sysfs tree on which rdma-core's ibstat prints that output.
# "ibpanic: ... stat of IB device 'X' failed" becomes a CA X with only node_type (a CA whose other
# files are missing).  A value of @NONE means an empty directory.
function hex4(g,    s) { s = sprintf("%016s", substr(g, 3)); gsub(/ /, "0", s)
	return substr(s,1,4) ":" substr(s,5,4) ":" substr(s,9,4) ":" substr(s,13,4) }
function rate(r) {
	if (r ~ /\(FDR10\)/) { sub(/ .*/, "", r); return r " Gb/sec (4X FDR10)" }
	if (r == "2.5") return "2.5 Gb/sec (1X SDR)"
	if (r == 400) return "400 Gb/sec (4X NDR)"; if (r == 200) return "200 Gb/sec (4X HDR)"
	if (r == 100) return "100 Gb/sec (4X EDR)"; if (r == 56) return "56 Gb/sec (4X FDR)"
	if (r == 40) return "40 Gb/sec (4X QDR)"; if (r == 25) return "25 Gb/sec (1X EDR)"
	if (r == 50) return "50 Gb/sec (2X EDR)"; if (r == 800) return "800 Gb/sec (4X XDR)"
	return r " Gb/sec (4X)"
}
BEGIN {
	st["Down"] = "1: DOWN"; st["Initializing"] = "2: INIT"; st["Armed"] = "3: ARMED"; st["Active"] = "4: ACTIVE"
	ph["Sleep"] = "1: Sleep"; ph["Polling"] = "2: Polling"; ph["Disabled"] = "3: Disabled"
	ph["PortConfigurationTraining"] = "4: PortConfigurationTraining"; ph["LinkUp"] = "5: LinkUp"
	ph["LinkErrorRecovery"] = "6: LinkErrorRecovery"; ph["PhyTest"] = "7: Phy Test"
	nt["CA"] = "1: CA"; nt["Switch"] = "2: switch"; nt["Router"] = "3: router"
}
{ line = $0; sub(/^[ \t]+/, "", line) }
/^(CA|Switch|Router) '/ { split(line, a, "'"); ca = "sys/class/infiniband/" a[2]; t = line; sub(/ .*/, "", t)
	print ca "/node_type\t" nt[t]; next }
/^ibpanic: .*stat of IB device '/ { split(line, a, "'"); print "sys/class/infiniband/" a[2] "/node_type\t1: CA"; next }
line ~ /^[A-Za-z]+ type: / { v = line; sub(/^[A-Za-z]+ type: /, "", v); print ca "/hca_type\t" v; next }
line ~ /^Firmware version: / { print ca "/fw_ver\t" substr(line, 19); next }
line ~ /^Hardware version: / { print ca "/hw_rev\t" substr(line, 19); next }
line ~ /^Node GUID: / { print ca "/node_guid\t" hex4(substr(line, 12)); next }
line ~ /^System image GUID: / { print ca "/sys_image_guid\t" hex4(substr(line, 20)); next }
line ~ /^Port [0-9]+:$/ { p = ca "/ports/" substr(line, 6, length(line) - 6); print p "/pkeys/0\t0xffff"
	print p "/lid_mask_count\t0"; print p "/sm_sl\t0"; next }
line ~ /^State: / { print p "/state\t" st[substr(line, 8)]; next }
line ~ /^Physical state: / { print p "/phys_state\t" ph[substr(line, 17)]; next }
line ~ /^Rate: / { print p "/rate\t" rate(substr(line, 7)); next }
line ~ /^Base lid: / { print p "/lid\t" sprintf("0x%x", substr(line, 11)); next }
line ~ /^LMC: / { print p "/lid_mask_count\t" substr(line, 6); next }
line ~ /^SM lid: / { print p "/sm_lid\t" sprintf("0x%x", substr(line, 9)); next }
line ~ /^Capability mask: / { print p "/cap_mask\t" substr(line, 18); next }
line ~ /^Port GUID: / { print p "/gids/0\tfe80:0000:0000:0000:" hex4(substr(line, 12)); next }
line ~ /^Link layer: / { print p "/link_layer\t" substr(line, 13); next }
