#!/usr/bin/env bash
# The layout rules of issue 13 that a reader of the tree relies on, checked on the sources:
# every header under src/ states its ownership rule in its opening comment; the commands in
# src/cmd/ that mimic rdma-core (ibstat, ibstatus) read sysfs only through model/umad.c; no
# file name says "report" for two different things; renderers call nothing of checks/ but the
# report model.  Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# the opening comment of a header: from its first line to the first "*/"
for h in $(cd "$top" && find src -name '*.h' | sort); do
	if awk 'NR == 1 && /SPDX-License-Identifier/ { spdx = 1; next } NR == 1 + spdx && !/^\/\*/ { exit 1 } { print } /\*\// { exit }' \
		"$top/$h" | grep -q 'Ownership:'; then ok
	else bad "$h: its opening comment states no ownership rule (\"Ownership: ...\")"; fi
done

# no fuzzer output committed among the sources: libFuzzer names each input it keeps by its SHA-1
stray=$(cd "$top" && git ls-files 2> /dev/null | grep -E '(^|/)[0-9a-f]{40}$' | head -3)
[ -z "$stray" ] && ok || bad "fuzzer inputs committed (a fuzz target run with a source directory as its corpus): $stray"

for c in ibstat ibstatus; do
	if grep -nE '\brd_(read_file|read_attr|read_prefix|list_dir|stat|exists|read_link)\(' "$top/src/cmd/$c.c"; then
		bad "src/cmd/$c.c reads the source itself (go through model/umad.c)"
	else ok; fi
done

# renderers get a finished result: of checks/ they use only the report model (findings.c)
for fn in $(cd "$top/src/checks" && ls *.c | grep -vx findings.c | xargs sed -nE 's/^[a-z].*[ *](rd_[a-z0-9_]+)\(.*/\1/p' | sort -u); do
	if grep -nw "$fn" "$top"/src/render/*.c; then bad "src/render/ calls $fn of src/checks/ (a renderer gets a finished result)"
	else ok; fi
done

if [ -e "$top/src/checks/report.c" ]; then bad "src/checks/report.c beside src/render/report.c: name it for what it holds"
else ok; fi

# text shipped to users states its reasons: no string in src/ and nothing in docs/, contrib/,
# debian/ or the README cites a guide the package does not ship
cites=$(cd "$top" && { grep -nE '"[^"]*[Gg]uide' -r src; grep -niE "\bguide('s)?\b" -r docs contrib debian README.md; } | head -5)
[ -z "$cites" ] && ok || bad "product text cites a guide that is not shipped (say the reason itself): $cites"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
