#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# make.sh OUTDIR — RPM host roots with REAL rpm databases: tiny packages carrying the names and
# versions of MLNX_OFED, DOCA-OFED and EL's inbox stack, built here with rpmbuild and installed
# with `rpm --root R --dbpath /var/lib/rpm --justdb --nodeps -i` (Debian's rpm writes EL9's
# sqlite database).  EL8's Berkeley DB Packages is made from the same headers with db5.3_load
# (Debian's rpm cannot write BDB; EL8's rpm keeps the headers in a hash database keyed by the
# header number).  SUSE's ndb cannot be made here (Debian's rpm has no ndb backend): that root
# carries a Packages.db that is no database, and must say UNKNOWN naming it.
# The hosts start from tests/scenarios/make.sh (a 2x ConnectX-7 + ConnectX-6 Dx GPU node) and are
# turned into Rocky Linux hosts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
export LC_ALL=C HOME=$out/home # rpm/rpmbuild write nothing into the caller's home
mkdir -p "$HOME"
EL94=5.14.0-427.13.1.el9_4.x86_64
EL95=5.14.0-503.11.1.el9_5.x86_64
EL810=4.18.0-553.el8_10.x86_64
OFEDV=24.10 OFEDR=OFED.24.10.1.1.4.1

# ---- packages ------------------------------------------------------------------------------
# spec NAME "pkg version release" ...: one spec whose subpackages are the packages given
spec() {
	local name=$1; shift
	local pk=("$@") p w
	{
		printf 'Name: rdtest-%s\nVersion: 1\nRelease: 1\nSummary: test\nLicense: MIT\nBuildArch: noarch\n%%description\ntest\n' "$name"
		for p in "${pk[@]}"; do
			read -r -a w <<< "$p"
			printf '%%package -n %s\nVersion: %s\nRelease: %s\nSummary: test\n%%description -n %s\ntest\n' "${w[0]}" "${w[1]}" "${w[2]}" "${w[0]}"
		done
		for p in "${pk[@]}"; do read -r -a w <<< "$p"; printf '%%files -n %s\n' "${w[0]}"; done
	} > "$out/pkgs/$name.spec"
	rpmbuild -bb --nodeps --quiet --define "_topdir $out/pkgs/top-$name" --define "_rpmdir $out/pkgs/$name" \
		--define '_build_name_fmt %%{NAME}.rpm' "$out/pkgs/$name.spec" > "$out/pkgs/$name.log" 2>&1 ||
		{ cat "$out/pkgs/$name.log"; return 1; }
}
mkdir -p "$out/pkgs"
spec mlnx "mlnx-ofa_kernel $OFEDV $OFEDR.rhel9u4" "kmod-mlnx-ofa_kernel $OFEDV $OFEDR.rhel9u4" \
	"mlnx-ofa_kernel-modules $OFEDV $OFEDR.kver.${EL94/-/_}" "mlnx-ofed-basic 24.10 1.1.4.0.rhel9u4" \
	"ofed-scripts 24.10 OFED.24.10.1.1.4" "rdma-core 2410mlnx54 1.2410068" "libibverbs 2410mlnx54 1.2410068" \
	"mft 4.30.0 139" "bash 5.1.8 9.el9" "kernel 5.14.0 427.13.1.el9_4"
spec el8 "mlnx-ofa_kernel $OFEDV $OFEDR.rhel8u10" "mlnx-ofa_kernel-modules $OFEDV $OFEDR.kver.${EL810/-/_}" \
	"mlnx-ofed-basic 24.10 1.1.4.0.rhel8u10" "rdma-core 2410mlnx54 1.2410068" "bash 4.4.20 5.el8"
spec doca "doca-ofed 2.9.1 1.el9" "doca-ofed-userspace 2.9.1 1.el9" "mlnx-ofa_kernel $OFEDV $OFEDR.rhel9u4" \
	"kmod-mlnx-ofa_kernel $OFEDV $OFEDR.rhel9u4" "rdma-core 2410mlnx54 1.2410068" "libibverbs 2410mlnx54 1.2410068" \
	"bash 5.1.8 9.el9"
spec inbox "rdma-core 48.0 1.el9" "libibverbs 48.0 1.el9" "infiniband-diags 48.0 1.el9" "bash 5.1.8 9.el9"

rpminstall() { # SET: installs every package of that set into $R's database
	rpm --root "$R" --dbpath /var/lib/rpm --justdb --nodeps --noscripts -i "$out/pkgs/$1"/*.rpm > "$out/pkgs/install.log" 2>&1 ||
		{ cat "$out/pkgs/install.log"; return 1; }
	rm -f "$R/var/lib/rpm/.rpm.lock"
}

# ---- hosts -----------------------------------------------------------------------------------
scen=$out/scen
mkdir -p "$scen"
"$here/../scenarios/make.sh" "$scen" healthy-inbox healthy-mlnx-ofed

# el9 NAME BASE KVER: a copy of a scenario root as a Rocky Linux 9.4 host running KVER
el9() {
	R=$out/$1
	rm -rf "$R"
	cp -a "$scen/$2" "$R"
	rm -rf "$R/var/lib/dpkg" "$R/var/lib/dkms"
	rm -f "$R"/rdma-doctor/commands/ofed_info-s* "$R"/rdma-doctor/commands/dkms-status*
	printf '%s\n' 'NAME="Rocky Linux"' 'VERSION="9.4 (Blue Onyx)"' 'ID="rocky"' 'ID_LIKE="rhel centos fedora"' \
		'VERSION_ID="9.4"' 'PLATFORM_ID="platform:el9"' 'PRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"' > "$R/etc/os-release"
	local old
	old=$(cat "$R/proc/sys/kernel/osrelease")
	mv "$R/lib/modules/$old" "$R/lib/modules/$3"
	printf '%s\n' "$3" > "$R/proc/sys/kernel/osrelease"
	# EL's OFED kmods install under extra/mlnx-ofa_kernel (not updates/dkms)
	sed -i 's|^updates/dkms/\(mlx\|ib_\|rdma_\|iw_cm\)|extra/mlnx-ofa_kernel/\1|' "$R/lib/modules/$3/modules.dep"
	mkdir -p "$R/var/lib/rpm"
}
ib_info() { # KVER: MLNX_OFED's /etc/infiniband/info
	mkdir -p "$R/etc/infiniband"
	printf '#!/bin/bash\n\necho prefix=/usr\necho Kernel=%s\necho\necho "Configure options: --with-core-mod --with-user_mad-mod --with-mlx5-mod"\necho\n' \
		"$1" > "$R/etc/infiniband/info"
	chmod 755 "$R/etc/infiniband/info"
}

el9 el9-mlnx-ofed healthy-mlnx-ofed "$EL94"; rpminstall mlnx; ib_info "$EL94"
el9 el9-inbox healthy-inbox "$EL94"; rpminstall inbox
el9 el9-doca-ofed healthy-mlnx-ofed "$EL94"; rpminstall doca
# the node was upgraded to 9.5's kernel: the kmod packages stay built for 9.4's, the inbox
# modules load (in-tree, no O taint)
el9 el9-kmod-kernel-upgrade healthy-inbox "$EL95"; rpminstall mlnx; ib_info "$EL94"
# a database that is no database
el9 el9-rpmdb-unreadable healthy-inbox "$EL94"
head -c 65536 /dev/urandom | base64 > "$R/var/lib/rpm/rpmdb.sqlite"
# hostile: /var/lib/rpm is an absolute link to a real MLNX_OFED database outside the root; read
# confined, it does not exist (and nothing of the decoy may show)
el9 decoy healthy-inbox "$EL94"; rpminstall mlnx
el9 el9-rpmdb-hostile-symlink healthy-inbox "$EL94"
rmdir "$R/var/lib/rpm"; ln -s "$out/decoy/var/lib/rpm" "$R/var/lib/rpm"
# EL8: Berkeley DB Packages (hash, key = header number in host byte order, value = the header)
el9 el8-mlnx-ofed healthy-mlnx-ofed "$EL810"
sed -i 's/9\.4/8.10/g; s/Blue Onyx/Green Obsidian/; s/el9/el8/' "$R/etc/os-release"
rpminstall el8
sqlite3 "$R/var/lib/rpm/rpmdb.sqlite" "select hnum, hex(blob) from Packages order by hnum" |
	while IFS='|' read -r n hex; do
		printf '\\%02x\\%02x\\%02x\\%02x\n' $((n & 255)) $((n >> 8 & 255)) $((n >> 16 & 255)) $((n >> 24 & 255))
		printf '%s\n' "$hex" | tr 'A-F' 'a-f' | sed 's/\(..\)/\\\1/g'
	done > "$out/pkgs/el8.dump"
rm -f "$R"/var/lib/rpm/*
db5.3_load -T -t hash "$R/var/lib/rpm/Packages" < "$out/pkgs/el8.dump"
# SUSE: ndb cannot be written here; a Packages.db that is not one
el9 sles-ndb healthy-inbox 5.14.21-150500.55.39-default
printf '%s\n' 'NAME="SLES"' 'VERSION="15-SP5"' 'VERSION_ID="15.5"' 'ID="sles"' 'ID_LIKE="suse"' > "$R/etc/os-release"
printf 'RpmP\0\0\0\0not a real ndb database\n' > "$R/var/lib/rpm/Packages.db"
rm -rf "$scen"
