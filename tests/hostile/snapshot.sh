#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Hostile roots given to `snapshot`: a root, as a directory and as a .tar.gz, whose
# links aim at the snapshot's own files (etc/modprobe.d and etc/modules-load.d -> /rdma-doctor) and
# at real directories of this machine (rdma-doctor/commands -> HOSTDIR, with a payload for
# HOSTDIR/dmesg in the root, run/modules-load.d -> HOSTDIR2, class links -> HOSTDIR3/...).  `--root evil snapshot -o X`
# must write nothing outside X: every target directory is listed before and after, and the
# archive stores the root's links as link entries (never followed, never written through).
#     Usage: tests/hostile/snapshot.sh [BUILD_DIR]     Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
bin=$(cd "${1:-$top/build}" && pwd)/rdma-doctor
ts_scratch hostile-snap
ts_init
export NO_COLOR=1 TMPDIR=$work/tmp
mkdir -p "$TMPDIR"

host1=$work/host/cron.d host2=$work/host/modules-load.d host3=$work/host/sysdevs
mkdir -p "$host1" "$host2" "$host3"
echo "keep" > "$host2/existing.conf"
listing() { (cd "$work/host" && find . -printf '%y %p %s %l\n' | sort); ls -A "$TMPDIR"; }

evil=$work/evil
"$top/tests/scenarios/make.sh" "$work/b" healthy-inbox > /dev/null && mv "$work/b/healthy-inbox" "$evil"
# the payload is where the root's rdma-doctor/commands link leads, inside the root
mkdir -p "$evil/rdma-doctor" "$evil$host1" "$evil$host2"
rm -rf "$evil/rdma-doctor/commands"
ln -s "$host1" "$evil/rdma-doctor/commands"
printf '* * * * * root touch /tmp/pwned\n' > "$evil$host1/dmesg"
echo 0 > "$evil$host1/dmesg.status"
printf 'install mlx5_core /bin/sh -c "touch /tmp/pwned"\n' > "$evil/rdma-doctor/payload.conf"
rm -rf "$evil/etc/modprobe.d" "$evil/etc/modules-load.d" "$evil/run/modules-load.d"
mkdir -p "$evil/run"
ln -s /rdma-doctor "$evil/etc/modprobe.d"
ln -s /rdma-doctor "$evil/etc/modules-load.d"
ln -s "$host2" "$evil/run/modules-load.d"
echo "mlx5_ib" > "$evil$host2/rdma.conf"
# a class link leading out of the root by an absolute path and by climbing
ln -s "$host3/mlx5_9" "$evil/sys/class/infiniband/mlx5_9"
ln -s ../../../../../../../../../../..$host3/mlx5_8 "$evil/sys/class/infiniband/mlx5_8"
(cd "$work" && tar czf evil.tar.gz evil)

before=$(listing)
for root in "$evil" "$work/evil.tar.gz"; do
	kind=${root##*.}; [ "$kind" = gz ] || kind=dir
	for out in "$work/out-$kind.tar.gz" "$work/out-$kind.tar" "$work/out-$kind.d"; do
		timeout 120 "$bin" --root "$root" snapshot -o "$out" 2> "$work/err" && ok || bad "$kind -> ${out##*/}: snapshot failed: $(cat "$work/err")"
		after=$(listing)
		[ "$before" = "$after" ] && ok || { bad "$kind -> ${out##*/}: wrote outside the output"; diff <(echo "$before") <(echo "$after") | head -5; }
		[ ! -e /tmp/pwned ] && ok || bad "$kind -> ${out##*/}: payload ran"
	done
	# the links are link entries with their targets as they were, and nothing is stored through one
	tar tvzf "$work/out-$kind.tar.gz" > "$work/tv" 2>&1
	# (nothing reads etc/modprobe.d: it may be absent, but if there, only as the link it is)
	grep -E ' etc/modprobe\.d' "$work/tv" | grep -qvE '^l.* etc/modprobe\.d -> /rdma-doctor$' && bad "$kind: etc/modprobe.d stored other than as its link" || ok
	grep -qE '^l.* etc/modules-load\.d -> /rdma-doctor$' "$work/tv" && ok || bad "$kind: etc/modules-load.d not a link entry: $(grep modules-load "$work/tv")"
	grep -qE "^l.* run/modules-load\.d -> $host2\$" "$work/tv" && ok || bad "$kind: run/modules-load.d not a link entry"
	grep -qE "^l.* sys/class/infiniband/mlx5_9 -> $host3/mlx5_9\$" "$work/tv" && ok || bad "$kind: class link not kept as a link"
	grep -qE ' (etc/modprobe\.d|etc/modules-load\.d|run/modules-load\.d|sys/class/infiniband/mlx5_[89])/' "$work/tv" && bad "$kind: an entry below a link" || ok
	# the snapshot's own directory is its own: no link of the root's there (the root's command
	# outputs, read through its link inside the root, are data: stored as plain files)
	grep -qE '^l.* rdma-doctor/' "$work/tv" && bad "$kind: a link under rdma-doctor/" || ok
	grep -qE '^-.* rdma-doctor/commands/dmesg$' "$work/tv" && ok || bad "$kind: the root's dmesg output not a plain file entry"
	grep -q payload.conf "$work/tv" && bad "$kind: the root's own rdma-doctor/ files kept" || ok
	tar tvf "$work/out-$kind.tar" > "$work/tv" 2>&1
	grep -qE '^l.* etc/modules-load\.d -> /rdma-doctor$' "$work/tv" && ok || bad "$kind: plain tar lacks the link entry"
	# the directory output has the links as links, and nothing through them
	[ -L "$work/out-$kind.d/etc/modules-load.d" ] && [ "$(readlink "$work/out-$kind.d/etc/modules-load.d")" = /rdma-doctor ] && ok || bad "$kind: directory output: etc/modules-load.d not a link"
	[ -L "$work/out-$kind.d/run/modules-load.d" ] && ok || bad "$kind: directory output: run/modules-load.d not a link"
	[ -L "$work/out-$kind.d/sys/class/infiniband/mlx5_9" ] && ok || bad "$kind: directory output: class link not a link"
	[ -d "$work/out-$kind.d/rdma-doctor/commands" ] && [ ! -L "$work/out-$kind.d/rdma-doctor/commands" ] && ok || bad "$kind: directory output: rdma-doctor/commands not a plain directory"
	# and the snapshot reads back
	"$bin" --root "$work/out-$kind.tar.gz" stack --format json > /dev/null 2>&1 && ok || bad "$kind: the snapshot does not read back"
done
# nothing but the outputs was made beside them
[ "$(cd "$work" && ls -A | grep -v -E '^(b|evil|evil\.tar\.gz|host|tmp|err|tv|out-(dir|gz)\.(tar\.gz|tar|d))$')" = "" ] && ok ||
	bad "left beside the outputs: $(cd "$work" && ls -A)"
[ -z "$(ls -A "$TMPDIR")" ] && ok || bad "left in TMPDIR: $(ls -A "$TMPDIR")"

# the same trick through the output path's own directory: -o into a directory that is a link is
# the user's choice (followed), but the name itself, when a dangling link, is not written through
ln -s "$host1/through-link.tar.gz" "$work/dangling.tar.gz"
"$bin" --root "$evil" snapshot -o "$work/dangling.tar.gz" 2> "$work/err" && bad "a dangling link as -o was written" || ok
[ ! -e "$host1/through-link.tar.gz" ] && ok || bad "written through the -o link"
"$bin" --root "$evil" snapshot -o "$work/dangling.tar.gz" --force 2> "$work/err" && ok || bad "--force over a link: $(cat "$work/err")"
[ ! -e "$host1/through-link.tar.gz" ] && [ -f "$work/dangling.tar.gz" ] && [ ! -L "$work/dangling.tar.gz" ] && ok || bad "--force wrote through the link instead of replacing it"
# SIGTERM at random points: the output is there whole or not at all, and nothing else is left
mkdir "$work/term"
left=0 whole=0
for i in $(seq 30); do
	for out in x.tar.gz d; do
		"$bin" --root "$top/examples/h100-ofed" snapshot -o "$work/term/$out" 2> /dev/null &
		pid=$!
		sleep "0.0$((RANDOM % 60))"
		kill -TERM $pid 2> /dev/null
		wait $pid 2> /dev/null
		for f in "$work/term"/* "$work/term"/.[!.]*; do
			[ -e "$f" ] || [ -L "$f" ] || continue
			case ${f##*/} in
			x.tar.gz) tar tzf "$f" > /dev/null 2>&1 && tar xzOf "$f" rdma-doctor/meta.json > /dev/null 2>&1 && whole=$((whole + 1)) || left=$((left + 1)) ;;
			d) [ -f "$f/rdma-doctor/meta.json" ] && whole=$((whole + 1)) || left=$((left + 1)) ;;
			*) left=$((left + 1)) ;;
			esac
			rm -rf "$f"
		done
	done
done
[ $left = 0 ] && ok || bad "SIGTERM left $left partial outputs or temporary files ($whole whole)"
ts_finalize
