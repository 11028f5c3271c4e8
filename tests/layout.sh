#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The layout rules that a reader of the tree relies on, checked on the sources:
# every header under src/ states its ownership rule in its opening comment; the commands in
# src/cmd/ that mimic rdma-core (ibstat, ibstatus) read sysfs only through model/umad.c; cmd/
# sits over run/ over the library, with no include back up; no file name says "report" for two
# different things; renderers call nothing of checks/ but the report model; no circle of calls
# or includes.  Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib.sh"
ts_init

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

# the layers: cmd/ (the commands) over run/ (the guarded load, the kept link samples) over the
# library (source/, model/, checks/, render/ ...): no file below a layer includes it
for layer in cmd run; do
	up=$(cd "$top/src" && grep -lE "^#include \"$layer/" $(find . -name '*.[ch]' | sed 's#^\./##' | grep -vE "^(main\.c|cmd/|$layer/)") 2> /dev/null | head -3)
	[ -z "$up" ] && ok || bad "src/$layer/ is included from below it: $up"
done

# no circles: no two files of the library layers use each other's functions, directly or through
# others (tests/calls.sh), and no two directories of src/ include each other's headers.  src/cmd/
# is left out of the first rule (the table names every command, and the commands print their usage
# from it), and so is src/source/, whose rooms share one object through source-internal.h (the
# read loop, the watchdog and the text buffer, readfd.c watchdog.c text.c, are outside the circle).
circles=$("$top/tests/calls.sh" --circles | grep -vE '^calls:( src/(cmd|source)/[^ ]+)+$')
[ -z "$circles" ] && ok || bad "circles (tests/calls.sh --circles): $(tr '\n' ';' <<< "$circles")"

if [ -e "$top/src/checks/report.c" ]; then bad "src/checks/report.c beside src/render/report.c: name it for what it holds"
else ok; fi

# text shipped to users states its reasons: no string in src/ and nothing in docs/, contrib/,
# debian/ or the README cites a guide the package does not ship
cites=$(cd "$top" && { grep -nE '"[^"]*[Gg]uide' -r src; grep -niE "\bguide('s)?\b" -r docs contrib debian README.md; } | head -5)
[ -z "$cites" ] && ok || bad "product text cites a guide that is not shipped (say the reason itself): $cites"

# the licence: an SPDX line in the first lines of every source file (the data under tests/*/expected,
# tests/fixtures, examples/ and the VM's fixtures is not source)
spdx='SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause'
nospdx=$(cd "$top" && git ls-files 2> /dev/null | grep -E '(\.(c|h|sh|jq|awk|yml|in)|^Makefile|^debian/rules|^contrib/(slurm|bash-completion)/.*|^\.ci/run)$' |
	grep -vE '^(tests/[^/]+/expected/|tests/fixtures/|examples/|tests/vm/fixtures/)' |
	while IFS= read -r f; do head -3 "$f" | grep -qF "$spdx" || echo "$f"; done)
[ -z "$nospdx" ] && ok || bad "no SPDX line ($spdx) in: $(head -5 <<< "$nospdx" | tr '\n' ' ')"
# no issue numbers or development history in what is shipped or read by an operator
hist=$(cd "$top" && grep -rnE '\(issue [0-9]+|issue [0-9]+\)|; issue [0-9]+' src docs contrib debian README.md 2> /dev/null | head -3)
[ -z "$hist" ] && ok || bad "issue numbers in the product: $hist"

# the source layer's and the parsers' rooms share their internals through a private header that
# nothing outside their directory includes (the rest of the program includes source.h, parse.h)
for priv in source/source-internal.h model/parse-internal.h; do
	outside=$(cd "$top" && grep -rlF "#include \"$priv\"" src tests | grep -v "^src/${priv%%/*}/")
	[ -z "$outside" ] && ok || bad "$priv included outside src/${priv%%/*}/: $outside"
done
# the read loop and the watchdog sit below source.c: no include circle between them
for f in readfd.c readfd.h watchdog.c watchdog.h text.c text.h; do
	if grep -nE '#include "source/(source|source-internal)\.h"' "$top/src/source/$f"; then
		bad "src/source/$f includes the source layer it serves (an include circle)"
	else ok; fi
done
# one way to run a program (source/spawn.c), one monotonic millisecond clock and one reader of
# SOURCE_DATE_EPOCH (util/); the probe's child (a function of ours, its own wire) and its
# microsecond timings are the probe's
runs=$(cd "$top" && grep -rnE '\b(fork|vfork|execv[pe]*|execl[pe]*|posix_spawnp?|system|popen)\(' src |
	grep -vE '^src/source/spawn\.c:|^src/probe/child\.c:.*fork\(' | grep -vE ':[0-9]+:\s*(/\*|\*)' | head -3)
[ -z "$runs" ] && ok || bad "a program or child run outside source/spawn.c: $runs"
clocks=$(cd "$top" && grep -rn 'clock_gettime(CLOCK_MONOTONIC' src | grep -vE '^src/util/util\.c:|^src/probe/' | head -3)
[ -z "$clocks" ] && ok || bad "a monotonic clock of its own (use rd_mono_ms, util/util.h): $clocks"
sde=$(cd "$top" && grep -rn 'getenv("SOURCE_DATE_EPOCH")' src | grep -v '^src/util/util\.c:' | head -3)
[ -z "$sde" ] && ok || bad "SOURCE_DATE_EPOCH read outside rd_run_time (util/util.h): $sde"

ts_finalize
