#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Unprivileged runs: a user whom kernel.dmesg_restrict=1 keeps out of the kernel log gets kernel.log
# SKIP with the reason, and the exit status of what was checked (not 3 for every run).
#   * scenario roots whose captured dmesg is EPERM, or empty with exit 1 under dmesg_restrict=1,
#     checked as user nobody (setpriv, when run as root) and as the caller;
#   * the live host (with an RDMA device in a /sys of its own), as nobody: kernel.log is SKIP "not
#     readable" when dmesg_restrict is 1 here, never UNKNOWN; as root it is read.  The machine's
#     sysctl is never changed;
#   * the live host without RDMA hardware, as nobody with a 64 KiB memlock limit: every check
#     SKIPs, exit 3.
#   * --output and snapshot -o as root into a directory nobody owns, holding nobody's links.
#   * gdr.acs on the config bytes an unprivileged read of this machine's PCI config gives: UNKNOWN.
# Usage: tests/unpriv/run.sh [BUILD_DIR]                 Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
build=$(cd "${1:-$top/build}" && pwd)
ts_init
command -v jq > /dev/null || ts_die "jq is required"
ts_scratch unpriv
chmod 755 "$work"
cp "$build/rdma-doctor" "$work/rdma-doctor" && chmod 755 "$work/rdma-doctor"
"$top/tests/scenarios/make.sh" "$work" kernel-log-unprivileged kernel-log-restricted healthy-inbox ||
	ts_die "make.sh"
chmod -R a+rX "$work"
as_nobody() {
	if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$@"
	else
		"$@"
	fi
}
kl() { jq -r '[.findings[] | select(.check == "kernel.log")][0] | .status + " " + .message' "$1"; }
cd "$work" || exit 1
for s in kernel-log-unprivileged kernel-log-restricted; do
	for who in nobody caller; do
		if [ $who = nobody ]; then as_nobody ./rdma-doctor --root "$s" check --format json > "$s.$who.json" 2> "$s.err"
		else ./rdma-doctor --root "$s" check --format json > "$s.$who.json" 2> "$s.err"; fi
		rc=$?
		k=$(kl "$s.$who.json")
		case "$k" in "SKIP the kernel log is not readable by the user who captured this root (kernel.dmesg_restrict=1)"*) ok ;;
		*) bad "$s ($who): kernel.log says: $k" ;; esac
		# the rest of the host is healthy: the exit status is what was checked, 0
		[ "$rc" = 0 ] && ok || bad "$s ($who): exit $rc, want 0"
		[ -s "$s.err" ] && bad "$s ($who): stderr: $(head -2 "$s.err")" || ok
	done
done
# the same healthy root with its kernel log: as nobody it is still read (the root is a file tree)
as_nobody ./rdma-doctor --root healthy-inbox check --format json > h.json; rc=$?
case "$(kl h.json)" in "OK "*) ok ;; *) bad "healthy-inbox as nobody: kernel.log $(kl h.json)" ;; esac
[ "$rc" = 0 ] && ok || bad "healthy-inbox as nobody: exit $rc"
# the live host, seen with a /sys that has an RDMA device (kernel.log is judged only where there is
# RDMA hardware): in a private mount namespace, when run as root
hw_sys=$work/hw-sys
mkdir -p "$hw_sys/class/infiniband/mlx5_0"
hw() { # hw [setpriv ARGS...] COMMAND...: as root, in the namespace (setpriv only as root)
	if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null; then
		unshare -m sh -c 'mount --make-rprivate / && mount --bind "$0" /sys && exec "$@"' "$hw_sys" "$@"
	else
		[ "$1" != setpriv ] || shift 5
		"$@"
	fi
}
restrict=$(cat /proc/sys/kernel/dmesg_restrict 2> /dev/null || echo unknown)
hw setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all ./rdma-doctor check --only kernel.log --format json > live-nobody.json 2> live.err
k=$(kl live-nobody.json)
if [ "$(id -u)" != 0 ] || [ "$restrict" = 1 ]; then
	if [ "$restrict" = 1 ]; then
		case "$k" in "SKIP the kernel log is not readable by this user (kernel.dmesg_restrict=1): run as root"*) ok ;;
		*) bad "live as nobody with dmesg_restrict=1: kernel.log says: $k" ;; esac
	else
		case "$k" in UNKNOWN*) bad "live unprivileged: kernel.log says: $k" ;; *) ok ;; esac
	fi
else
	case "$k" in UNKNOWN*|SKIP*) bad "live as nobody with dmesg_restrict=$restrict: kernel.log says: $k" ;; *) ok ;; esac
fi
if [ "$(id -u)" = 0 ]; then
	hw ./rdma-doctor check --only kernel.log --format json > live-root.json 2>> live.err
	case "$(kl live-root.json)" in OK*|WARN*|FAIL*) ok ;; *) bad "live as root: kernel.log says: $(kl live-root.json)" ;; esac
	# a live host without RDMA hardware (an empty /sys), as nobody: nothing is judged, exit 3 (the
	# memlock limit of a login shell and an unreadable kernel log do not matter there)
	unshare -m sh -c 'mount -t tmpfs none /sys && exec "$@"' sh setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--inh-caps=-all sh -c 'ulimit -l 64 && exec ./rdma-doctor check --format json' > live-nohw.json 2>> live.err
	rc=$?
	[ "$rc" = 3 ] && ok || bad "live without RDMA hardware as nobody: exit $rc, want 3"
	st=$(jq -r '[.findings[] | select(.check != "stack.flavor") | .status] | unique | join(",")' live-nohw.json)
	[ "$st" = SKIP ] && ok || bad "live without RDMA hardware as nobody: statuses $st, want only SKIP"
	jq -e '.findings[] | select(.check == "memlock.limit") | .status == "SKIP"' live-nohw.json > /dev/null && ok ||
		bad "live without RDMA hardware as nobody: memlock.limit is not SKIP"
fi
# gdr.acs: this machine's kernel gives an unprivileged reader of a PCI function's config space only
# its first 64 bytes (no extended capabilities).  Those bytes, read as nobody (or as the caller when
# not root), as the config of the bridges of a GPU server's tree (tests/topo/make.sh): every GPU's
# ACS is UNKNOWN with that reason, never OK.
pcifn=$(ls /sys/bus/pci/devices 2> /dev/null | head -1)
if [ -n "$pcifn" ] && { [ "$(id -u)" != 0 ] || command -v setpriv > /dev/null; }; then
	as_nobody cat "/sys/bus/pci/devices/$pcifn/config" > unpriv-config
	len=$(stat -c %s unpriv-config)
	[ "$len" = 64 ] && ok || bad "an unprivileged read of /sys/bus/pci/devices/$pcifn/config gave $len bytes, not 64"
	"$top/tests/topo/make.sh" topo > /dev/null || bad "tests/topo/make.sh"
	find topo/h100-pex890xx/sys/devices -name config -exec cp unpriv-config {} \;
	chmod -R a+rX topo
	as_nobody ./rdma-doctor --root topo/h100-pex890xx check --only gdr.acs --format json > acs-unpriv.json; rc=$?
	jq -e --arg n "$len" '(.findings | length) == 8 and all(.findings[]; .status == "UNKNOWN" and
		(.message | contains("only the first " + $n + " bytes of its config space are readable (the extended capabilities need root)")))' \
		acs-unpriv.json > /dev/null && [ $rc = 3 ] && ok || bad "gdr.acs on unprivileged config reads: exit $rc, $(jq -c '[.findings[].status]' acs-unpriv.json)"
	if [ "$(id -u)" = 0 ]; then
		# as root the same file is the whole config space: more than 64 bytes
		[ "$(stat -c %s "/sys/bus/pci/devices/$pcifn/config")" -gt 64 ] && [ "$(head -c 4096 "/sys/bus/pci/devices/$pcifn/config" | wc -c)" -gt 64 ] &&
			ok || bad "as root /sys/bus/pci/devices/$pcifn/config is 64 bytes too"
	fi
fi
# --output as root into a directory another user owns: no link placed there is followed unsafely
# (a link owned by a user other than root may lead only into what that user owns), and the new
# file's mode is 0644 less the umask, never the mode of what a link at the target pointed to.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	mkdir -p out/prom/mine out/victim && chmod 755 out out/victim
	chown nobody out/prom out/prom/mine
	printf 'old\n' > out/victim/suid.prom && chmod 4755 out/victim/suid.prom
	as_nobody ln -s "$work/out/victim" out/prom/abs       # absolute, to a root-owned directory
	as_nobody ln -s ../victim out/prom/rel                # relative, up into a root-owned directory
	as_nobody ln -s "$work/out/victim/suid.prom" out/prom/x.prom
	as_nobody ln -s mine out/prom/own                     # to a directory its owner owns: followed
	ln -s prom out/rootlink                               # root's own link: followed
	for t in abs rel; do
		(umask 022; ./rdma-doctor --root healthy-inbox check --format prometheus --output "out/prom/$t/y.prom") 2> "o-$t.err"
		rc=$?
		[ "$rc" != 0 ] && grep -q "refusing to follow it" "o-$t.err" && [ ! -e out/victim/y.prom ] && ok ||
			bad "--output through nobody's link $t: rc $rc, $(ls out/victim), $(cat "o-$t.err")"
	done
	./rdma-doctor --root healthy-inbox snapshot -o out/prom/abs/s.tar.gz 2> o-snap.err
	rc=$?
	[ "$rc" != 0 ] && grep -q "refusing to follow it" o-snap.err && [ ! -e out/victim/s.tar.gz ] && ok ||
		bad "snapshot -o through nobody's link: rc $rc, $(ls out/victim), $(cat o-snap.err)"
	(umask 022; ./rdma-doctor --root healthy-inbox check --format prometheus --output out/prom/x.prom) 2> o-x.err
	rc=$?
	m=$(stat -c '%a %U %F' out/prom/x.prom)
	[ "$rc" = 0 ] && [ "$m" = "644 root regular file" ] && [ "$(stat -c %a out/victim/suid.prom)" = 4755 ] &&
		[ "$(cat out/victim/suid.prom)" = old ] && ok ||
		bad "--output over nobody's link to a 4755 file: rc $rc, new file $m, target $(stat -c %a out/victim/suid.prom): $(cat o-x.err)"
	(umask 077; ./rdma-doctor --root healthy-inbox check --format prometheus --output out/prom/u.prom) &&
		[ "$(stat -c %a out/prom/u.prom)" = 600 ] && ok || bad "--output under umask 077: $(stat -c %a out/prom/u.prom)"
	for t in own rootlink; do
		d=out/prom/$t; [ $t = rootlink ] && d=out/rootlink
		./rdma-doctor --root healthy-inbox check --format prometheus --output "$d/z.prom" 2> "o-$t.err" &&
			[ -f "$d/z.prom" ] && ok || bad "--output through a safe link ($t): $(cat "o-$t.err")"
	done
fi
ts_finalize
