#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Who calls whom among the sources, read from the sources themselves (no build needed).
#   tests/calls.sh            for every src/**/*.c, the other .c files whose functions it uses
#                             ("FILE: FILE..."), then every directory's includes ("DIR/ -> DIR/...")
#   tests/calls.sh --circles  only the circles: files that use each other's functions, directly or
#                             through others ("calls: A.c B.c ..."), and directories of src/ that
#                             include each other's headers ("includes: A/ B/ ..."); exits 1 if any
# A function is a file's when the file defines it at the start of a line (not static); a use is any
# mention of its name outside comments and strings (a call, or a pointer put in a table).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
mode=${1:-list}
files=$(find src -name '*.c' | LC_ALL=C sort)
headers=$(find src -name '*.[ch]' | LC_ALL=C sort)
# shellcheck disable=SC2086
awk -v mode="$mode" '
function strip(s) { # comments and string/char literals out of one line, carrying /* */ across lines
	out = ""
	while (s != "") {
		if (incomment) {
			i = index(s, "*/"); if (!i) return out; s = substr(s, i + 2); incomment = 0; continue
		}
		if (match(s, /\/\*|\/\/|"|\047/) == 0) return out s
		out = out substr(s, 1, RSTART - 1); tok = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
		if (tok == "/*") { incomment = 1; continue }
		if (tok == "//") return out
		q = tok # skip to the closing quote, past escapes
		while (s != "" && substr(s, 1, 1) != q) s = substr(s, (substr(s, 1, 1) == "\\") ? 3 : 2)
		s = substr(s, 2); out = out q q
	}
	return out
}
FNR == 1 { incomment = 0; cur = FILENAME; isc = cur ~ /\.c$/; if (isc) { nfiles++; file[nfiles] = cur }
	d = cur; sub(/^src\//, "", d); sub(/\/.*/, "", d); dir[cur] = d; if (!(d in seen)) { seen[d] = 1; ndirs++; dname[ndirs] = d } }
{
	if (match($0, /^[ \t]*#[ \t]*include[ \t]*"[a-z_]+\//)) {
		t = substr($0, RSTART, RLENGTH); sub(/.*"/, "", t); sub(/\//, "", t)
		if (t != dir[cur]) inc[dir[cur], t] = 1
	}
	if (!isc) next
	l = strip($0)
	if (l ~ /^#/) next
	sub(/^__attribute__\(\([a-z_]+(\([^)]*\))?\)\)[ \t]*/, "", l)
	if (l ~ /^[A-Za-z_]/ && l !~ /^(static|typedef|extern|struct [a-z_]+ *\{|enum|union)/ && l !~ /;[ \t]*$/ &&
	    match(l, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		name = substr(l, RSTART, RLENGTH); sub(/[ \t]*\($/, "", name)
		if (!(name in def)) def[name] = cur
	}
	n = split(l, w, /[^A-Za-z0-9_]+/)
	for (k = 1; k <= n; k++) if (w[k] ~ /^[a-z_]/) use[cur, w[k]] = 1
}
END {
	for (key in use) {
		split(key, p, SUBSEP)
		if ((p[2] in def) && def[p[2]] != p[1]) edge[p[1], def[p[2]]] = 1
	}
	closure(file, nfiles, edge, reach)
	closure(dname, ndirs, inc, dreach)
	if (mode == "list") {
		for (i = 1; i <= nfiles; i++) {
			line = ""
			for (j = 1; j <= nfiles; j++) if ((file[i], file[j]) in edge) line = line " " file[j]
			print file[i] ":" line
		}
		for (i = 1; i <= ndirs; i++) {
			line = ""
			for (j = 1; j <= ndirs; j++) if ((dname[i], dname[j]) in inc) line = line " " dname[j] "/"
			print dname[i] "/ ->" line
		}
		exit 0
	}
	found = circles(file, nfiles, reach, "calls:", "")
	found += circles(dname, ndirs, dreach, "includes:", "/")
	exit found > 0
}
# reach[a, b]: b is reached from a by the relation rel over node[1..n] (repeated passes: the
# graph is small)
function closure(node, n, rel, reach,    key, i, j, k, changed) {
	for (key in rel) reach[key] = 1
	do {
		changed = 0
		for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) if ((node[i], node[j]) in reach)
			for (k = 1; k <= n; k++) if (((node[j], node[k]) in reach) && !((node[i], node[k]) in reach)) {
				reach[node[i], node[k]] = 1; changed = 1
			}
	} while (changed)
}
# prints each circle, the nodes that reach each other, as "label node... ", and returns how many
function circles(node, n, reach, label, suffix,    i, j, line, done, count) {
	for (i = 1; i <= n; i++) {
		if ((node[i] in done) || !((node[i], node[i]) in reach)) continue
		line = ""
		for (j = 1; j <= n; j++) if (((node[i], node[j]) in reach) && ((node[j], node[i]) in reach)) {
			line = line " " node[j] suffix; done[node[j]] = 1
		}
		print label line; count++
	}
	return count + 0
}' $headers
