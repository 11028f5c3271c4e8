#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tools/unit-subst.sh BINDIR TEXTFILE_DIR < UNIT.in > UNIT: the systemd unit with @BINDIR@ and
# @TEXTFILE_DIR@ replaced (make install).  The values are taken literally (awk's index(), never a
# sed or shell pattern) and written as systemd reads them: % is doubled everywhere (specifiers),
# on ExecStart= lines $ is doubled (environment variables), and outside Condition...= lines (which
# take the rest of the line as the path) and comments a value with a blank, quote or backslash is
# put in double quotes with " and \ escaped.  Refused (exit 1, before anything is read): a value
# with a newline, and a BINDIR with a quote or a backslash, which systemd 252 does not run
# ("Executable name contains special characters").  --check BINDIR TEXTFILE_DIR only checks.
set -eu
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
[ $# = 2 ] || { echo "usage: tools/unit-subst.sh [--check] BINDIR TEXTFILE_DIR < UNIT.in > UNIT" >&2; exit 2; }
nl='
'
for v in "$1" "$2"; do
	case $v in
	*"$nl"*) echo "make install: a path with a newline cannot be written into a systemd unit" >&2; exit 1 ;;
	esac
done
case $1 in
*[\'\\\"]*) printf "make install: BINDIR '%s' has a quote or a backslash: systemd does not run a program from such a path (the service's ExecStart=)\n" "$1" >&2; exit 1 ;;
esac
[ $check = 0 ] || exit 0
RD_BINDIR=$1 RD_TEXTFILE_DIR=$2 exec awk '
function repl(s, from, to,    out, i) {
	out = ""
	while ((i = index(s, from)) > 0) { out = out substr(s, 1, i - 1) to; s = substr(s, i + length(from)) }
	return out s
}
function form(v, line) {
	if (line ~ /^[ \t]*#/) return v
	v = repl(v, "%", "%%")
	if (line ~ /^Condition[A-Za-z]*=/) return v
	if (line ~ /^ExecStart=/) v = repl(v, "$", "$$")
	if (v ~ /[ \t"\047\\]/) v = "\"" repl(repl(v, "\\", "\\\\"), "\"", "\\\"") "\""
	return v
}
{
	$0 = repl($0, "@BINDIR@", form(ENVIRON["RD_BINDIR"], $0))
	$0 = repl($0, "@TEXTFILE_DIR@", form(ENVIRON["RD_TEXTFILE_DIR"], $0))
	print
}'
