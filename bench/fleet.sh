#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Benchmark (not a test): `rdma-doctor fleet` against jq on the same reports.
#   1. N pretty-printed reports (default 10,000, ~13 KB each as `check --format json` writes them,
#      from five scenario roots: healthy, drifting firmware, a missing module, MTU 1500, OFED),
#      one file each in a directory: the whole summary (--format json) against jq doing only the
#      firmware-by-board grouping of the same files; both times and the ratio.
#   2. M reports (default 100,000) streamed on standard input: the peak RSS of `fleet -` (bounded:
#      the summary keeps per-value host sets, not reports).
# Usage: bench/fleet.sh [N [M]]        Needs jq, python3, bc, GNU time (/usr/bin/time).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-10000} m=${2:-100000}
make -C "$top" -s all
bin=$top/build/rdma-doctor
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rd-bench-fleet.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export SOURCE_DATE_EPOCH=1764460800
kinds=(healthy-inbox firmware-one-hca-older ib-umad-missing roce-mtu-1500 healthy-mlnx-ofed)
"$top/tests/scenarios/make.sh" "$tmp/roots" "${kinds[@]}" > /dev/null
for k in "${kinds[@]}"; do "$bin" --root "$tmp/roots/$k" check --format json > "$tmp/$k.json" || true; done
# gen.py DIR|- COUNT: reports of hosts n000001..., round-robin over the kinds (host replaced)
cat > "$tmp/gen.py" << 'PY'
import sys
out, count, tmpl = sys.argv[1], int(sys.argv[2]), [open(p).read() for p in sys.argv[3:]]
w = sys.stdout
for i in range(1, count + 1):
    t = tmpl[i % len(tmpl)].replace('"host": "gpu-a01"', '"host": "n%06d"' % i, 1)
    if out == "-":
        w.write(t)
    else:
        with open("%s/n%06d.json" % (out, i), "w") as f:
            f.write(t)
PY
tpl=()
for k in "${kinds[@]}"; do tpl+=("$tmp/$k.json"); done
mkdir "$tmp/reports"
python3 "$tmp/gen.py" "$tmp/reports" "$n" "${tpl[@]}"
bytes=$(du -sb "$tmp/reports" | cut -f1)
echo "== $n pretty-printed reports, $((bytes / 1000000)) MB, one file each"
cd "$tmp"
sync
cat reports/* > /dev/null # the same page cache for both
t0=$(date +%s.%N)
"$bin" fleet --format json reports > fleet.json || true
t1=$(date +%s.%N)
find reports -type f -print0 | sort -z | xargs -0 cat |
	jq -n 'reduce inputs as $r ({}; reduce ($r.devices // [])[] as $d (.; .[$d.board_id // "?"][$d.fw_ver // "?"] += [$r.host]))' > jq.json
t2=$(date +%s.%N)
ours=$(echo "$t1 - $t0" | bc -l) theirs=$(echo "$t2 - $t1" | bc -l)
printf 'rdma-doctor fleet (whole summary): %.2f s\n' "$ours"
printf 'jq (firmware by board only):       %.2f s\n' "$theirs"
printf 'ratio: %.1fx\n' "$(echo "$theirs / $ours" | bc -l)"
# the same answer: firmware hosts per board
jq -r '.boards[] | .board_id as $b | .groups[] | select(.kind == "firmware") | .values[] | "\($b) \(.value) \(.count)"' fleet.json | sort > a.txt
jq -r 'to_entries[] | .key as $b | .value | to_entries[] | "\($b) \(.key) \(.value | unique | length)"' jq.json | sort > b.txt
cmp -s a.txt b.txt && echo "the firmware-by-board answers agree ($(wc -l < a.txt) lines)" || { echo "answers differ:"; diff a.txt b.txt | head; }
echo "== $m reports streamed on standard input"
python3 "$tmp/gen.py" - "$m" "${tpl[@]}" 2> /dev/null | /usr/bin/time -f '%M KiB peak RSS, %e s' "$bin" fleet --format json - 2> time.txt > big.json || true
echo "reported: $(jq .counts.reported big.json); $(tail -1 time.txt)"
